"""Plot helpers and fonts: they return Axes/Figures, accept ax=, label axes in the current
language, pass keyword arguments on, validate inputs, and render Chinese without missing glyphs."""
import io
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_core import causal_mask, padding_mask, sinusoidal_encoding, softmax
from attention_core.teaching import fonts, i18n, plots

TOKENS_ZH = "小红 说 她 累 了".split()


def _weights(tq=5, tk=5, seed=0):
    return softmax(np.random.default_rng(seed).normal(size=(tq, tk)) * 2)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50)
    return buf.getvalue()


# --- fonts ------------------------------------------------------------------------------------
def test_chinese_tokens_render_without_missing_glyphs():
    if not fonts.cjk_font_available():
        pytest.skip("no CJK font: install noto-cjk-sans-otc (requirements.txt)")
    i18n.set_language("zh")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # a "Glyph ... missing" warning would raise
        ax = plots.attention_heatmap(_weights(), TOKENS_ZH, title="注意力 attention")
        png = _png(ax.figure)
    assert png.startswith(b"\x89PNG")
    assert fonts.CJK_FAMILY in matplotlib.rcParams["font.family"]


def test_use_cjk_font_is_idempotent():
    first = fonts.use_cjk_font()
    family = list(matplotlib.rcParams["font.family"])
    assert fonts.use_cjk_font() == first
    assert list(matplotlib.rcParams["font.family"]) == family
    assert family.count(first) == 1


def test_missing_font_wheel_falls_back_silently(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "noto_cjk_sans_otc", None)          # import now fails
    assert fonts.cjk_font_path() is None
    monkeypatch.setattr(fonts, "_state", {"registered": False, "family": None})
    monkeypatch.setattr(fonts, "SYSTEM_CJK_FAMILIES", ("No Such CJK Font",))
    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["sans-serif"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fonts.use_cjk_font() is None
        assert fonts.cjk_font_available() is False
    assert list(matplotlib.rcParams["font.family"]) == ["sans-serif"]


# --- attention_heatmap ------------------------------------------------------------------------
def test_heatmap_returns_axes_and_labels_both_axes():
    ax = plots.attention_heatmap(_weights(), ["a", "b", "c", "d", "e"])
    assert isinstance(ax, matplotlib.axes.Axes)
    assert ax.get_xlabel() == i18n.t("plots.keys")
    assert ax.get_ylabel() == i18n.t("plots.queries")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c", "d", "e"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d", "e"]


def test_heatmap_draws_into_given_axes_and_follows_language():
    i18n.set_language("zh")
    fig, (left, right) = plt.subplots(1, 2)
    ax = plots.attention_heatmap(_weights(), TOKENS_ZH, ax=right, colorbar=False)
    assert ax is right and not left.images
    assert ax.get_xlabel() == i18n.t("plots.keys", lang="zh")


def test_heatmap_annotations_auto_and_contrast():
    w = np.array([[1.0, 0.0], [0.25, 0.75]])
    ax = plots.attention_heatmap(w)
    texts = {t.get_text(): t.get_color() for t in ax.texts}
    assert texts["1.00"] == "white" and texts["0.00"] == "black"
    assert len(plots.attention_heatmap(_weights(13, 13)).texts) == 0          # too big for "auto"
    assert len(plots.attention_heatmap(_weights(13, 13), annotate=True).texts) == 169
    assert len(plots.attention_heatmap(_weights(3, 4), annotate=False).texts) == 0


def test_heatmap_passes_kwargs_on_and_does_not_swallow_them():
    ax = plots.attention_heatmap(_weights(), interpolation="bilinear")
    assert ax.images[0].get_interpolation() == "bilinear"
    with pytest.raises((AttributeError, TypeError)):
        plots.attention_heatmap(_weights(), no_such_option=1)


def test_heatmap_rectangular_and_single_row():
    ax = plots.attention_heatmap(_weights(2, 3), ["k1", "k2", "k3"], ["q1", "q2"])
    assert ax.images[0].get_array().shape == (2, 3)
    ax = plots.attention_heatmap([0.2, 0.8])
    assert ax.images[0].get_array().shape == (1, 2)


@pytest.mark.parametrize("kwargs, exc, needle", [
    ({"weights": np.zeros((2, 2, 2))}, ValueError, "weights"),
    ({"weights": np.zeros((2, 3)), "x_labels": ["a", "b"]}, ValueError, "x_labels"),
    ({"weights": np.zeros((2, 3)), "x_labels": ["a", "b", "c"], "y_labels": ["q"]}, ValueError, "y_labels"),
    ({"weights": np.zeros((2, 2)), "x_labels": "ab"}, TypeError, "x_labels"),
    ({"weights": [[np.nan, 1.0]]}, ValueError, "weights"),
    ({"weights": np.zeros((2, 2)), "annotate": "yes"}, ValueError, "annotate"),
])
def test_heatmap_rejects_bad_inputs_clearly(kwargs, exc, needle):
    with pytest.raises(exc, match=needle):
        plots.attention_heatmap(**kwargs)


def test_plot_helpers_never_call_show(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("show() was called")
    monkeypatch.setattr(plt, "show", boom)
    plots.attention_heatmap(_weights())
    plots.head_grid(np.stack([_weights()] * 2))
    plots.plot_vectors_2d({"a": [1, 0], "b": [0, 1]})
    plots.plot_positional_encoding(sinusoidal_encoding(8, 16))
    plots.plot_mask(causal_mask(4))


# --- head_grid --------------------------------------------------------------------------------
def test_head_grid_returns_figure_with_one_heatmap_per_head():
    w = np.stack([_weights(seed=s) for s in range(3)])                # (H, T, T)
    fig = plots.head_grid(w, TOKENS_ZH, ncols=2)
    assert isinstance(fig, matplotlib.figure.Figure)
    heads = [ax for ax in fig.axes if ax.images and ax.get_visible()]
    assert len(heads) == 3
    np.testing.assert_allclose(heads[1].images[0].get_array(), w[1])
    assert heads[0].get_title() == i18n.t("plots.head", h=0)      # heads numbered from 0


def test_head_grid_rejects_batched_weights_with_a_hint():
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        plots.head_grid(np.zeros((2, 2, 3, 3)))


# --- vectors ----------------------------------------------------------------------------------
def test_plot_vectors_2d_draws_labels_and_dot_product():
    ax = plots.plot_vectors_2d({"a": [1, 0], "b": [0, 2]})
    assert isinstance(ax, matplotlib.axes.Axes)
    texts = [t.get_text() for t in ax.texts]
    assert "a" in texts and "b" in texts
    assert any("= 0.00" in t for t in texts)                          # perpendicular: dot 0
    fig, own = plt.subplots()
    assert plots.plot_vectors_2d({"u": [1, 1]}, ax=own, color="red") is own


def test_plot_vectors_2d_zero_vector_cosine_is_undefined_not_nan():
    ax = plots.plot_vectors_2d({"a": [0, 0], "b": [1, 1]})
    joined = " ".join(t.get_text() for t in ax.texts)
    assert i18n.t("plots.undefined") in joined and "nan" not in joined


def test_plot_vectors_2d_validates():
    with pytest.raises(ValueError, match=r"vectors\['a'\]"):
        plots.plot_vectors_2d({"a": [1, 2, 3]})
    with pytest.raises(TypeError, match="vectors"):
        plots.plot_vectors_2d([[1, 2]])


# --- positions and masks ----------------------------------------------------------------------
def test_plot_positional_encoding_labels_and_symmetric_scale():
    table = sinusoidal_encoding(20, 16)
    ax = plots.plot_positional_encoding(table)
    assert ax.get_xlabel() == i18n.t("plots.dimension") and ax.get_ylabel() == i18n.t("plots.position")
    lo, hi = ax.images[0].get_clim()
    assert lo == -hi
    with pytest.raises(ValueError, match="table"):
        plots.plot_positional_encoding(np.zeros(5))


def test_plot_mask_marks_masked_cells_and_accepts_padding_rows():
    ax = plots.plot_mask(causal_mask(4), ["a", "b", "c", "d"])
    assert sum(t.get_text() == "−∞" for t in ax.texts) == 6           # strict upper triangle of 4x4
    ax = plots.plot_mask(padding_mask([3, 2], 4)[1])                  # (1, 4)
    assert ax.images[0].get_array().shape == (1, 4)


def test_plot_mask_validates():
    with pytest.raises(TypeError, match="boolean"):
        plots.plot_mask(np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"mask\[0\]"):
        plots.plot_mask(padding_mask([3, 2], 4))                      # (2, 1, 4): pick one sequence


def test_a_matplotlib_that_registers_only_the_collections_first_face_still_gets_chinese(monkeypatch):
    """matplotlib < 3.10 (the browser's, under Pyodide) registers only the first face of the wheel's collection,
    "Noto Sans CJK JP": the lookup takes the family registered from the wheel's file, not only the SC names."""
    path = fonts.cjk_font_path()
    if path is None:
        pytest.skip("no CJK font: install noto-cjk-sans-otc (requirements.txt)")
    from matplotlib import font_manager
    first_face_only = font_manager.FontManager.__new__(font_manager.FontManager)
    first_face_only.__dict__.update(font_manager.fontManager.__dict__)
    first_face_only.ttflist = [f for f in font_manager.fontManager.ttflist if "CJK" not in f.name]
    entry = font_manager.FontEntry(fname=path, name="Noto Sans CJK JP")
    first_face_only.addfont = lambda p: first_face_only.ttflist.append(entry)   # what matplotlib 3.8 registers
    monkeypatch.setattr(font_manager, "fontManager", first_face_only)
    monkeypatch.setattr(fonts, "_state", {"registered": False, "family": None})
    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["sans-serif"])
    assert fonts.use_cjk_font() == "Noto Sans CJK JP"
    assert list(matplotlib.rcParams["font.family"]) == ["sans-serif", "Noto Sans CJK JP"]
