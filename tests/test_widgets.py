"""Widgets: the pure *_state callbacks return the right numbers; the widgets redraw when a
control moves, speak the current language, and show a message instead of raising."""
import io
import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from attention_core import i18n, sinusoidal_encoding  # noqa: E402
from attention_core import widgets as W  # noqa: E402




def _bytes(image) -> bytes:
    return bytes(image.value)


def _is_error(panel) -> bool:
    return W.ERROR_COLOR in panel.message.value


# --- attention step (notebook 01, seed 002's worked example) ----------------------------------
def test_attention_step_state_reproduces_the_seed_example():
    s = W.attention_step_state([1, 0], [[1, 0], [0, 1]], [[2, 0], [0, 4]])
    np.testing.assert_allclose(s["scores"], [1, 0], atol=1e-12)
    np.testing.assert_allclose(s["scaled"], [0.707, 0], atol=1e-3)
    np.testing.assert_allclose(s["weights"], [0.670, 0.330], atol=1e-3)
    # Exactly [1.3395, 1.3210]; the seed writes 1.320 because it rounds the weights first (4 x 0.330).
    np.testing.assert_allclose(s["output"], [1.340, 1.320], atol=1e-3)
    assert s["scale"] == pytest.approx(1 / math.sqrt(2))
    np.testing.assert_allclose(s["contributions"].sum(axis=0), s["output"])


def test_attention_step_state_validates():
    with pytest.raises(ValueError, match="Dk"):
        W.attention_step_state([1, 0, 0], [[1, 0], [0, 1]], [[2, 0], [0, 4]])
    with pytest.raises(ValueError, match="q"):
        W.attention_step_state([[1, 0]], [[1, 0]], [[1, 0]])


def test_attention_step_widget_shows_every_number_and_redraws():
    panel = W.attention_step_widget()
    assert not _is_error(panel)
    for number in ("1.000", "0.707", "0.670", "0.330", "1.340", "1.321"):
        assert number in panel.readout.value
    assert "(the weights sum to 1.000)" in panel.readout.value
    i18n.set_language("zh")
    assert "（权重之和为 1.000）" in W.attention_step_widget().readout.value
    i18n.set_language("en")
    before = _bytes(panel.images["step"])
    assert before.startswith(b"\x89PNG")
    panel.controls["q1"].value = 1.0                       # q = [1, 1]: both keys equally similar
    np.testing.assert_allclose(panel.state["weights"], [0.5, 0.5])
    assert _bytes(panel.images["step"]) != before
    panel.controls["v1_1"].value = 2.0                     # v2 = [0, 2]
    np.testing.assert_allclose(panel.state["output"], [1.0, 1.0])


def test_attention_step_widget_extreme_sliders_stay_finite():
    panel = W.attention_step_widget()
    for name, control in panel.controls.items():
        control.value = control.max
    assert not _is_error(panel)
    assert np.isfinite(panel.state["output"]).all()


def test_attention_step_widget_bad_inputs_give_a_message():
    panel = W.attention_step_widget(q=[1, 0, 0])
    assert _is_error(panel) and "Dk" in panel.message.value
    panel = W.attention_step_widget(labels=["only one"])
    assert _is_error(panel)


def test_attention_step_widget_other_shapes():
    panel = W.attention_step_widget(q=[1, 0, 0], keys=np.eye(3), values=np.eye(3), labels=["a", "b", "c"],
                                    edit_values=False)
    assert not _is_error(panel) and set(panel.controls) == {"q0", "q1", "q2"}


# --- dot product (notebook 00) ----------------------------------------------------------------
def test_dot_product_state():
    s = W.dot_product_state([1, 0], [0, 2])
    assert s["dot"] == 0 and s["cos"] == 0 and s["angle_deg"] == pytest.approx(90)
    s = W.dot_product_state([3, 4], [3, 4])
    assert s["dot"] == 25 and s["norm_a"] == 5 and s["cos"] == pytest.approx(1)
    s = W.dot_product_state([0, 0], [1, 1])
    assert s["cos"] is None and s["angle_deg"] is None


def test_dot_product_widget_updates_and_handles_zero_vector():
    panel = W.dot_product_widget()
    before = _bytes(panel.images["vectors"])
    panel.controls["a0"].value = 0.0
    panel.controls["a1"].value = 0.0
    assert not _is_error(panel)
    assert i18n.t("plots.undefined") in panel.readout.value
    # "·" is the dot itself and "|a|" a length, so neither separates the parts of the readout.
    assert panel.readout.value.count("·") == 1 and "; lengths |a|" in panel.readout.value
    assert _bytes(panel.images["vectors"]) != before
    assert W.dot_product_widget(a=[1, 2, 3]).message.value          # not 2-D: message, no exception


# --- temperature (notebook 03) ----------------------------------------------------------------
def test_temperature_state_limits():
    cold = W.temperature_state([2.0, 1.0, 0.0], 0.01)
    hot = W.temperature_state([2.0, 1.0, 0.0], 1000.0)
    assert cold["max_weight"] > 0.999 and cold["argmax"] == 0
    np.testing.assert_allclose(hot["weights"], 1 / 3, atol=1e-3)
    assert hot["entropy"] == pytest.approx(hot["max_entropy"], abs=1e-5)
    np.testing.assert_allclose(W.temperature_state([1e4, 0.0], 1e-3)["weights"], [1, 0])  # no overflow


def test_temperature_widget_extremes_and_errors():
    panel = W.temperature_widget()
    slider = panel.controls["temperature"]
    before = _bytes(panel.images["weights"])
    slider.value = 0.01                                               # the slider's lowest setting
    assert not _is_error(panel) and panel.state["max_weight"] > 0.99
    assert _bytes(panel.images["weights"]) != before
    slider.value = 100.0
    assert not _is_error(panel)
    assert _is_error(W.temperature_widget(scores=[]))
    assert _is_error(W.temperature_widget(t_min=10, t_max=1))


def test_a_failing_callback_becomes_a_message(monkeypatch):
    panel = W.temperature_widget()

    def broken(*args, **kwargs):
        raise ValueError("something odd")
    monkeypatch.setattr(W.temperature, "temperature_state", broken)   # the module that calls it
    panel.controls["temperature"].value = 2.0                        # must not raise
    assert _is_error(panel) and "something odd" in panel.message.value
    monkeypatch.undo()
    panel.controls["temperature"].value = 3.0
    assert panel.message.value == ""


# --- masks (notebook 04) ----------------------------------------------------------------------
def test_mask_state_kinds():
    scores = np.random.default_rng(0).normal(size=(5, 5))
    for kind in W.MASK_KINDS:
        s = W.mask_state(kind, scores, length=3, window=2)
        np.testing.assert_allclose(s["weights"].sum(axis=1), 1)      # every row keeps a visible key
        assert (s["weights"][~s["mask"]] == 0).all()                 # masked weights are exactly 0
    assert W.mask_state("none", scores)["visible"].tolist() == [5] * 5
    assert W.mask_state("causal", scores)["visible"].tolist() == [1, 2, 3, 4, 5]
    assert W.mask_state("padding", scores, length=3)["visible"].tolist() == [3] * 5
    assert W.mask_state("window", scores, window=2)["visible"].tolist() == [1, 2, 2, 2, 2]
    assert W.mask_state("causal_padding", scores, length=3)["visible"].tolist() == [1, 2, 3, 3, 3]
    with pytest.raises(ValueError, match="kind"):
        W.mask_state("diagonal", scores)
    with pytest.raises(ValueError, match="length"):
        W.mask_state("padding", scores, length=9)


def test_mask_widget_switches_masks_and_speaks_chinese():
    i18n.set_language("zh")
    panel = W.mask_widget(5, ["小红", "说", "她", "累", "了"])
    assert not _is_error(panel)
    kind = panel.controls["kind"]
    assert (i18n.t("widgets.mask_causal", lang="zh"), "causal") in kind.options
    before = _bytes(panel.images["weights"])
    kind.value = "none"
    assert _bytes(panel.images["weights"]) != before
    assert panel.controls["window"].layout.display == "none"
    kind.value = "window"
    panel.controls["window"].value = 1
    np.testing.assert_allclose(panel.state["weights"], np.eye(5))
    assert _is_error(W.mask_widget(scores=np.zeros((2, 3))))
    assert _is_error(W.mask_widget(0))


# --- heads (notebook 06) ----------------------------------------------------------------------
def test_head_widget_switches_heads():
    w = np.random.default_rng(2).dirichlet(np.ones(4), size=(3, 4))     # (H, T, T)
    panel = W.head_widget(w, ["a", "b", "c", "d"])
    before = _bytes(panel.images["weights"])
    panel.controls["head"].value = 2
    np.testing.assert_array_equal(panel.state["weights"], w[2])
    assert _bytes(panel.images["weights"]) != before
    assert _is_error(W.head_widget(w[0]))


# --- positions (notebook 07) ------------------------------------------------------------------
def test_positional_state_matches_the_table():
    s = W.positional_state(16, 8, position=3, dim=5)
    table = sinusoidal_encoding(16, 8)
    assert s["value"] == table[3, 5]
    np.testing.assert_array_equal(s["column"], table[:, 5])
    assert W.positional_state(16, 8, 0, 0)["wavelength"] == pytest.approx(2 * math.pi)
    assert s["wavelength"] == pytest.approx(2 * math.pi * 10000 ** (4 / 8))
    with pytest.raises(ValueError, match="position"):
        W.positional_state(16, 8, position=16, dim=0)


def test_positional_widget_updates():
    panel = W.positional_widget(16, 8)
    before = _bytes(panel.images["table"])
    panel.controls["dim"].value = 7
    assert _bytes(panel.images["table"]) != before
    assert "PE[5, 7]" in panel.readout.value
    assert _is_error(W.positional_widget(T=0))


def test_text_form_is_short_and_stable():
    panel = W.dot_product_widget()
    assert panel._repr_mimebundle_()["text/plain"] == "<dot_product widget>"
    assert repr(panel.images["vectors"]) == "Image(png)"


# --- HeatmapView ------------------------------------------------------------------------------
def test_heatmap_view_updates_in_place():
    from PIL import Image
    rng = np.random.default_rng(1)
    w1, w2 = (rng.dirichlet(np.ones(10), size=10) for _ in range(2))
    view = W.HeatmapView(w1, [f"t{i}" for i in range(10)])
    figure, first = view.figure, _bytes(view.widget)
    assert first.startswith(b"\x89PNG") and Image.open(io.BytesIO(first)).size[0] > 300
    assert view.update(w2) != first and view.figure is figure        # same figure, new picture
    assert view.update(w1) == first                                  # deterministic
    view.update(w1, mask=np.tril(np.ones((10, 10), bool)))
    assert _bytes(view.widget) != first
    view.update(w1[:4, :4], ["a", "b", "c", "d"])                    # new shape: rebuilt
    assert view.figure is not figure


def test_heatmap_view_chinese_labels_render_cleanly():
    i18n.set_language("zh")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        W.HeatmapView(np.full((5, 5), 0.2), ["小红", "说", "她", "累", "了"])


def test_heatmap_view_validates():
    view = W.HeatmapView()
    with pytest.raises(ValueError, match="weights"):
        view.update(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="labels"):
        view.update(np.zeros((2, 2)), ["a"])
    with pytest.raises(TypeError, match="mask"):
        view.update(np.zeros((2, 2)), mask=np.ones((2, 2)))


def test_text_stamps_cache_and_clip():
    stamps = W.TextStamps(11, 90)
    pixels = np.full((20, 20, 4), 255, np.uint8)
    stamps.stamp(pixels, "0.50", 2, 2, (0, 0, 0))                    # partly outside: clipped
    assert (pixels[..., :3] < 255).any()
    assert stamps.mask("0.50") is stamps.mask("0.50")
    assert stamps.mask("") is None
