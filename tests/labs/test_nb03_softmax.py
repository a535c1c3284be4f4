"""labs.nb03_softmax.softmax_lab: the pieces notebook 03 shows are right, and its figures draw in both languages."""
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest
from testkit import image_bytes, is_error

from attention_core import softmax
from attention_core.labs.nb03_softmax import softmax_lab
from attention_core.labs.nb03_softmax import widgets as W
from attention_core.teaching import i18n

SCORES = np.array([2.0, 1.0, 0.5, 0.0, -1.0])


# --- steps and the naive formula --------------------------------------------------------------------
@pytest.mark.parametrize("shift", [True, False])
@pytest.mark.parametrize("temperature", [0.5, 1.0, 3.0])
def test_steps_agree_with_the_library_on_small_scores(shift, temperature):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4))
    steps = softmax_lab.softmax_steps(x, temperature=temperature, shift=shift)
    np.testing.assert_allclose(steps["weights"], softmax(x, temperature=temperature), atol=1e-12)
    np.testing.assert_allclose(steps["scaled"], x / temperature)
    np.testing.assert_allclose(steps["sum"], steps["exp"].sum(axis=-1, keepdims=True))
    if shift:
        assert (steps["shifted"] <= 0).all() and np.allclose(steps["exp"].max(axis=-1), 1)
    else:
        np.testing.assert_array_equal(steps["shifted"], steps["scaled"])


def test_textbook_example_of_the_notebook():
    steps = softmax_lab.softmax_steps(SCORES, shift=False)
    np.testing.assert_allclose(steps["exp"], np.exp(SCORES))
    assert steps["sum"][0] == pytest.approx(13.124, abs=1e-3)
    np.testing.assert_allclose(steps["weights"], [0.563, 0.207, 0.126, 0.076, 0.028], atol=5e-4)
    np.testing.assert_allclose(softmax([2.0, 1.0, 0.0]), [0.665, 0.245, 0.090], atol=5e-4)   # quiz q5b


def test_naive_formula_overflows_in_float32_without_warnings_while_the_library_stays_exact():
    big = np.array([100.0, 90.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # a RuntimeWarning would fail the test
        steps = softmax_lab.softmax_steps(big, shift=False, dtype="float32")
        naive = softmax_lab.naive_softmax(big)
    assert steps["weights"].dtype == np.float32
    assert np.isinf(steps["exp"]).all() and np.isinf(steps["sum"]).all()
    assert np.isnan(naive).all()
    stable = softmax(big.astype(np.float32))
    assert np.isfinite(stable).all()
    np.testing.assert_allclose(stable, [1 / (1 + np.exp(-10)), np.exp(-10) / (1 + np.exp(-10))], rtol=1e-6)
    np.testing.assert_allclose(softmax_lab.softmax_steps(big, dtype="float32")["weights"], stable, rtol=1e-6)


def test_naive_formula_in_float64_and_at_low_temperature():
    assert np.isfinite(softmax_lab.naive_softmax([100.0, 90.0], dtype="float64")).all()
    assert np.isnan(softmax_lab.naive_softmax([1000.0, 990.0], dtype="float64")).all()
    assert np.isnan(softmax_lab.naive_softmax([-1000.0, -1001.0], dtype="float64")).all()     # 0 / 0
    assert np.isnan(softmax_lab.naive_softmax(SCORES / 0.01)).any()
    low = softmax_lab.softmax_steps(SCORES, temperature=0.01, dtype="float32")["weights"]
    assert np.isfinite(low).all() and low[0] == pytest.approx(1.0)


@pytest.mark.parametrize("call, error, words", [
    (lambda: softmax_lab.softmax_steps("abc"), TypeError, "x: expected"),
    (lambda: softmax_lab.softmax_steps(SCORES, temperature=0), ValueError, "temperature"),
    (lambda: softmax_lab.softmax_steps(SCORES, dtype="int32"), ValueError, "dtype: expected one of"),
    (lambda: softmax_lab.softmax_steps(SCORES, axis=3), ValueError, "axis"),
    (lambda: softmax_lab.softmax_jacobian([0.5, 0.7]), ValueError, "p: expected softmax weights"),
    (lambda: softmax_lab.competition_sweep(SCORES, 7, [0.0]), ValueError, "index"),
    (lambda: softmax_lab.convex_hull_2d([[0.0, 0.0], [1.0, 1.0]]), ValueError, "at least 3 points"),
    (lambda: softmax_lab.plot_temperature_sweep(SCORES, [1.0, -1.0]), ValueError, "temperatures"),
])
def test_bad_inputs_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()


# --- the Jacobian -----------------------------------------------------------------------------------
def test_jacobian_matches_finite_differences_and_its_properties():
    rng = np.random.default_rng(1)
    for x in (SCORES, rng.normal(scale=2, size=7)):
        p = softmax(x)
        J = softmax_lab.softmax_jacobian(p)
        np.testing.assert_allclose(J, softmax_lab.finite_difference_jacobian(softmax, x), atol=1e-8)
        np.testing.assert_allclose(J, J.T)
        np.testing.assert_allclose(J.sum(axis=0), 0, atol=1e-15)
        np.testing.assert_allclose(J.sum(axis=1), 0, atol=1e-15)
        assert np.abs(J).max() <= 0.25 and (np.abs(J) > 0).all()
    batch = softmax(rng.normal(size=(2, 3, 4)))
    Jb = softmax_lab.softmax_jacobian(batch)
    assert Jb.shape == (2, 3, 4, 4)
    np.testing.assert_allclose(Jb[1, 2], softmax_lab.softmax_jacobian(batch[1, 2]))


def test_jacobian_vanishes_when_one_score_dominates():
    norms = [np.linalg.norm(softmax_lab.softmax_jacobian(softmax(k * SCORES))) for k in (1, 10, 100)]
    assert norms[0] > norms[1] > norms[2] and norms[2] < 1e-20


# --- competition and convex combinations ------------------------------------------------------------
def test_competition_one_rises_every_other_falls_ratios_fixed():
    values = np.linspace(-3, 5, 33)
    w = softmax_lab.competition_sweep(SCORES, 0, values)
    assert w.shape == (33, 5)
    np.testing.assert_allclose(w.sum(axis=1), 1)
    assert (np.diff(w[:, 0]) > 0).all() and (np.diff(w[:, 1:], axis=0) < 0).all()
    np.testing.assert_allclose(w[:, 1] / w[:, 2], np.exp(0.5))
    np.testing.assert_allclose(w[values == 2.0][0], softmax(SCORES))
    np.testing.assert_array_equal(softmax_lab.competition_sweep(SCORES, -5, values), w)


def test_convex_hull_and_inside():
    values = np.array([[2.0, 0.0], [0.0, 4.0], [-2.0, 1.0], [-1.0, -2.0], [2.0, -2.0], [0.0, 0.0]])
    hull = softmax_lab.convex_hull_2d(values)
    assert len(hull) == 5 and not any((hull == [0.0, 0.0]).all(axis=1))          # the interior point is dropped
    area2 = np.sum(hull[:, 0] * np.roll(hull[:, 1], -1) - np.roll(hull[:, 0], -1) * hull[:, 1])
    assert area2 > 0                                                               # counter-clockwise
    rng = np.random.default_rng(0)
    outputs = softmax(rng.normal(scale=3.0, size=(500, 6))) @ values
    assert softmax_lab.inside_convex_hull(outputs, hull).all()
    assert softmax_lab.inside_convex_hull(values, hull).all()                        # vertices count as inside
    assert softmax_lab.inside_convex_hull([0.0, 0.0], hull) is True
    assert softmax_lab.inside_convex_hull(SCORES[:5] @ values[:5], hull) is False    # raw scores: [1, 6.5]
    assert not softmax_lab.inside_convex_hull([[2.0, 1.0], [-3.0, 0.0]], hull).any()


# --- figures ----------------------------------------------------------------------------------------


def _draw_without_missing_glyphs(ax):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # "Glyph ... missing" would fail here
        ax.figure.canvas.draw()


def test_plots_return_their_axes_with_labels_in_the_language(lang):
    fig, axes = plt.subplots(1, 3)
    ax = softmax_lab.plot_competition(SCORES, 0, np.linspace(-3, 5, 41), ax=axes[0])
    assert ax is axes[0]
    assert len(ax.get_lines()) == 6                                      # 5 positions + the argmax step
    assert ax.get_xlabel() == i18n.t("softmax_lab.score_of", name="0")
    ax = softmax_lab.plot_temperature_sweep(SCORES, np.logspace(-2, 2, 21), ax=axes[1])
    assert ax is axes[1] and ax.get_xscale() == "log"
    assert ax.get_xlabel() == i18n.t("widgets.temperature")
    values = np.array([[2.0, 0.0], [0.0, 4.0], [-2.0, 1.0]])
    ax = softmax_lab.plot_convex_combination(values, softmax(np.ones((4, 3))) @ values, ax=axes[2],
                                             outside=[[1.0, 6.5]])
    assert ax is axes[2]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert i18n.t("softmax_lab.hull") in texts and i18n.t("softmax_lab.not_convex") in texts
    for a in axes:
        _draw_without_missing_glyphs(a)


def test_plots_make_their_own_axes_when_none_is_given(lang):
    ax = softmax_lab.plot_temperature_sweep(SCORES, [0.1, 1.0, 10.0], labels=list("abcde"))
    assert ax.get_legend().get_texts()[0].get_text() == "a (2)"
    with pytest.raises(ValueError, match="labels"):
        softmax_lab.plot_competition(SCORES, 0, [0.0, 1.0], labels=["a"])


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
    before = image_bytes(panel.images["weights"])
    slider.value = 0.01                                               # the slider's lowest setting
    assert not is_error(panel) and panel.state["max_weight"] > 0.99
    assert image_bytes(panel.images["weights"]) != before
    slider.value = 100.0
    assert not is_error(panel)
    assert is_error(W.temperature_widget(scores=[]))
    assert is_error(W.temperature_widget(t_min=10, t_max=1))


def test_a_failing_callback_becomes_a_message(monkeypatch):
    panel = W.temperature_widget()

    def broken(*args, **kwargs):
        raise ValueError("something odd")
    monkeypatch.setattr(W, "temperature_state", broken)     # the module that calls it
    panel.controls["temperature"].value = 2.0                        # must not raise
    assert is_error(panel) and "something odd" in panel.message.value
    monkeypatch.undo()
    panel.controls["temperature"].value = 3.0
    assert panel.message.value == ""
