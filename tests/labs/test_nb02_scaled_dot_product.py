"""Scaling by 1/sqrt(d_k) (notebook 02): the variance of q·k, softmax saturation, its Jacobian, the widget."""
import math
import string
import warnings

import numpy as np
import pytest
from testkit import image_bytes, is_error

import attention_core as ac
from attention_core.labs.nb02_scaled_dot_product import scaling
from attention_core.labs.nb02_scaled_dot_product import widgets as W
from attention_core.teaching import i18n

pytestmark = pytest.mark.usefixtures("english")


# --- the variance of q·k ----------------------------------------------------------------------
def test_variance_grows_like_d_k_and_scaling_brings_it_back_to_1():
    r = scaling.dot_product_variance((1, 4, 16, 64, 256, 1024), n_samples=20000, seed=0)
    assert r["samples"].shape == (6, 20000)
    # Var of the sample variance of a sum of d_k products of N(0,1): relative error ~ sqrt((2 + 6/d_k) / n),
    # at most ~2% here; 6% leaves a margin of three standard errors.
    np.testing.assert_allclose(r["variance"], r["d_k"], rtol=0.06)
    np.testing.assert_allclose(r["variance_scaled"], 1.0, rtol=0.06)
    np.testing.assert_allclose(r["std"], np.sqrt(r["d_k"]), rtol=0.03)
    np.testing.assert_allclose(r["variance_scaled"], r["variance"] / r["d_k"])


def test_dot_products_are_seeded_and_independent_of_the_other_widths():
    a = scaling.random_dot_products(64, 1000, seed=3)
    np.testing.assert_array_equal(a, scaling.random_dot_products(64, 1000, seed=3))
    np.testing.assert_array_equal(a, scaling.dot_product_variance((4, 64), 1000, seed=3)["samples"][1])
    assert not np.array_equal(a, scaling.random_dot_products(64, 1000, seed=4))
    # blocks: more rows than one block holds at d_k = 1024, same numbers as the mean says
    big = scaling.random_dot_products(1024, 1500, seed=0)
    assert big.shape == (1500,) and abs(big.mean()) < 3 * 32 / math.sqrt(1500)


def test_numbers_of_the_quiz_q2b():
    from attention_core.teaching import quiz
    q2b = quiz.get_question("q2b")
    var = scaling.dot_product_variance((64,), 20000, seed=0)["variance"][0]
    assert abs(var - q2b.answer) < 3


# --- softmax saturation and its Jacobian ------------------------------------------------------
def test_softmax_jacobian_matches_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.5])
    p = ac.softmax(s)
    jac = scaling.softmax_jacobian(p)
    eps = 1e-6
    numeric = np.stack([(ac.softmax(s + eps * e) - ac.softmax(s - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(jac, numeric, atol=1e-8)
    np.testing.assert_allclose(jac.sum(axis=0), 0, atol=1e-15)           # weights always sum to 1
    assert scaling.softmax_jacobian(np.stack([p, p])).shape == (2, 4, 4)


def test_saturation_stats_of_one_hot_and_uniform():
    stats = scaling.saturation_stats(np.array([[0.0, 1.0, 0.0, 0.0], [0.25] * 4]))
    np.testing.assert_allclose(stats["max_weight"], [1, 0.25])
    np.testing.assert_allclose(stats["entropy"], [0, math.log(4)])
    np.testing.assert_allclose(stats["jacobian_norm"], [0, math.sqrt(3) / 4])


def test_jacobian_collapses_without_scaling_and_stays_put_with_it():
    table = scaling.saturation_table((1, 16, 256, 1024), n_rows=400, seed=0)
    raw, scaled = table["raw"], table["scaled"]
    np.testing.assert_allclose(raw["score_std"], np.sqrt(table["d_k"]), rtol=0.1)
    np.testing.assert_allclose(scaled["score_std"], 1, rtol=0.1)
    # d_k = 1: scaling divides by 1, nothing changes
    assert raw["jacobian_norm"][0] == scaled["jacobian_norm"][0]
    # without scaling: nearly one-hot and a vanishing Jacobian as d_k grows
    assert np.all(np.diff(raw["max_weight"]) > 0) and raw["max_weight"][-1] > 0.9
    assert raw["jacobian_norm"][-1] < 0.25 * scaled["jacobian_norm"][-1]
    assert raw["saturated"][-1] > 0.7 and scaled["saturated"].max() < 0.05
    # with scaling: the same picture at every width
    assert np.ptp(scaled["jacobian_norm"]) < 0.05 and np.ptp(scaled["max_weight"]) < 0.05


def test_scaling_keeps_the_order_of_the_scores():
    raw = scaling.softmax_saturation(256, False, seed=1, n_rows=50)
    scaled = scaling.softmax_saturation(256, True, seed=1, n_rows=50)
    np.testing.assert_allclose(scaled["scores"], raw["scores"] / 16)    # same vectors, divided by sqrt(256)
    np.testing.assert_array_equal(raw["argmax"], scaled["argmax"])
    np.testing.assert_array_equal(np.argsort(raw["scores"]), np.argsort(scaled["scores"]))
    assert np.isfinite(raw["weights"]).all()                             # saturation is not overflow


# --- bad inputs -------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, message", [
    (lambda: scaling.random_dot_products(0), ValueError, "d_k: expected an integer >= 1, got 0"),
    (lambda: scaling.random_dot_products(2.5), TypeError, "d_k: expected an integer"),
    (lambda: scaling.random_dot_products(4, 1), ValueError, "n_samples: expected an integer >= 2"),
    (lambda: scaling.random_dot_products(4, seed=-1), TypeError, "seed: expected an integer >= 0"),
    (lambda: scaling.random_dot_products(4, seed=np.random.default_rng(0)), TypeError, "seed"),
    (lambda: scaling.dot_product_variance([]), ValueError, "d_k_values: expected at least one width"),
    (lambda: scaling.dot_product_variance(64), TypeError, "d_k_values: expected a list"),
    (lambda: scaling.dot_product_variance("64"), TypeError, "d_k_values: expected a list"),
    (lambda: scaling.dot_product_variance([4, -1]), ValueError, "d_k_values"),
    (lambda: scaling.softmax_saturation(16, "yes"), TypeError, "scaled: expected True or False"),
    (lambda: scaling.softmax_saturation(16, n_keys=1), ValueError, "n_keys: expected an integer >= 2"),
    (lambda: scaling.softmax_saturation(16, n_rows=0), ValueError, "n_rows"),
    (lambda: scaling.saturation_stats([[0.5, np.nan]]), ValueError, "weights: contains NaN"),
    (lambda: scaling.softmax_jacobian("p"), TypeError, "p: expected an array"),
    (lambda: scaling.plot_dot_product_histograms({"d_k": [1]}), TypeError, "dot_product_variance"),
    (lambda: scaling.plot_saturation([1, 2]), TypeError, "saturation_table"),
    (lambda: W.scaling_state(3, True, n_samples=1), ValueError, "n_samples"),
])
def test_bad_inputs_name_the_argument(call, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


# --- figures ----------------------------------------------------------------------------------
@pytest.mark.slow          # draws and saves every figure, both languages (make test runs it)
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_figures_render_in_both_languages(lang):
    import matplotlib.pyplot as plt
    i18n.set_language(lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                   # no missing glyphs
        result = scaling.dot_product_variance((1, 16, 256), 500)
        fig = scaling.plot_dot_product_histograms(result)
        assert len(fig.axes) == 6 and fig.axes[0].get_title() == "d_k = 1"
        assert fig.axes[2].texts[0].get_text() == i18n.t("scaling.var", v=f"{result['variance'][2]:.0f}")
        fig.canvas.draw()
        fig2 = scaling.plot_saturation(scaling.saturation_table((1, 64), n_rows=20))
        assert len(fig2.axes) == 2
        fig2.canvas.draw()
    plt.close("all")


def test_scaling_strings_exist_in_both_languages_with_the_same_fields():
    keys = [k for k in i18n.STRINGS if k.startswith("scaling.")]
    assert len(keys) > 10
    for key in keys:
        entry = i18n.STRINGS[key]
        fields = [{f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in ("en", "zh")]
        assert fields[0] == fields[1], f"{key}: en and zh use different fields {fields}"


# --- the widget -------------------------------------------------------------------------------
def test_scaling_state():
    raw = W.scaling_state(256, False)
    scaled = W.scaling_state(256, True)
    assert raw["variance"] == pytest.approx(256, rel=0.1) and scaled["variance"] == pytest.approx(1, rel=0.1)
    np.testing.assert_allclose(scaled["dot_products"], raw["dot_products"] / 16)   # same pairs
    np.testing.assert_allclose(scaled["scores"], raw["scores"] / 16)               # same row
    assert raw["argmax"] == scaled["argmax"]
    assert raw["max_weight"] > 0.95 and raw["jacobian_norm"] < 0.05
    assert scaled["max_weight"] < 0.6 and scaled["jacobian_norm"] > 0.2
    assert raw["weights"].shape == (16,) and raw["weights"].sum() == pytest.approx(1)
    assert raw["uniform_jacobian_norm"] == pytest.approx(math.sqrt(15) / 16)
    with pytest.raises(ValueError, match="d_k"):
        W.scaling_state(0, True)


def test_scaling_widget_redraws_and_reports():
    panel = W.scaling_widget()
    assert not is_error(panel) and panel.state["d_k"] == 64 and not panel.state["scaled"]
    before = image_bytes(panel.images["scaling"])
    assert before.startswith(b"\x89PNG")
    panel.controls["d_k"].value = 1024
    assert panel.state["d_k"] == 1024 and "Saturated" in panel.readout.value
    saturated = image_bytes(panel.images["scaling"])
    assert saturated != before
    panel.controls["scaled"].value = True
    assert panel.state["scaled"] and "Not saturated" in panel.readout.value
    assert image_bytes(panel.images["scaling"]) != saturated
    assert set(panel.controls["d_k"].options) == set(W.SCALING_DK)
    assert repr(panel) == "<scaling widget>"


def test_scaling_widget_speaks_chinese():
    i18n.set_language("zh")
    panel = W.scaling_widget(d_k=16, scaled=True)
    assert not is_error(panel)
    assert "分数的方差" in panel.readout.value
    assert (i18n.t("scaling.on"), True) in panel.controls["scaled"].options


def test_scaling_widget_bad_inputs_give_a_message():
    assert is_error(W.scaling_widget(d_k=3))                            # not on the slider
    assert is_error(W.scaling_widget(scaled="no"))
    assert is_error(W.scaling_widget(d_k_values=[]))
    assert is_error(W.scaling_widget(n_keys=1))
    panel = W.scaling_widget(d_k=3)
    assert "d_k" in panel.message.value
