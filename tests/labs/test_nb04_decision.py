"""nb04_masking.decision: the tutorial's causal-mask flowchart, pair by pair, and its widget."""
import matplotlib.pyplot as plt
import numpy as np
import pytest
from testkit import is_error

import attention_core as ac
from attention_core.labs.nb04_masking import decision
from attention_core.teaching import i18n

SCORES = np.random.default_rng(0).normal(size=(6, 6))             # (T, T) scaled scores
TOKENS = ["The", "cat", "sat", "on", "the", "mat"]


@pytest.mark.parametrize("i", range(6))
@pytest.mark.parametrize("j", range(6))
def test_every_pair_takes_the_branch_of_j_le_i_and_the_row_is_the_library_row(i, j):
    s = decision.causal_decision(SCORES, i, j)
    assert s["branch"] == ("score" if j <= i else "fill")
    assert s["masked_score"] == (SCORES[i, j] if j <= i else -np.inf)
    np.testing.assert_allclose(s["weights"], ac.softmax(SCORES, mask=ac.causal_mask(6))[i])
    assert (s["weights"][i + 1:] == 0).all() and (s["weights"][:i + 1] > 0).all()
    assert s["weights"].sum() == pytest.approx(1.0)
    assert s["visible"] == i + 1
    assert (s["weight"] == 0) == (j > i)


def test_the_masked_row_is_the_score_row_with_minus_infinity_after_i():
    s = decision.causal_decision(SCORES, 2, 4)
    np.testing.assert_array_equal(s["masked_row"][:3], SCORES[2, :3])
    assert np.isneginf(s["masked_row"][3:]).all()


@pytest.mark.parametrize("call, words", [
    (lambda: decision.causal_decision(SCORES, 6, 0), "i: expected a position from 0 to 5"),
    (lambda: decision.causal_decision(SCORES, 0, -1), "j: expected a position from 0 to 5"),
    (lambda: decision.causal_decision(SCORES, True, 0), "i: expected a position"),
    (lambda: decision.causal_decision(SCORES, 1.0, 0), "i: expected a position"),
    (lambda: decision.causal_decision(np.zeros((2, 3)), 0, 0), "scores: expected a square"),
    (lambda: decision.plot_decision_flowchart({"i": 0}), "state: expected the dict of causal_decision"),
])
def test_bad_inputs_are_named(call, words):
    with pytest.raises(ValueError, match=words):
        call()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flowchart_highlights_the_branch_taken(lang):
    i18n.set_language(lang)
    try:
        for (i, j), taken in (((4, 2), "score"), ((2, 4), "fill")):
            ax = decision.plot_decision_flowchart(decision.causal_decision(SCORES, i, j), TOKENS)
            boxes = [p for p in ax.patches if hasattr(p, "get_facecolor")]
            colours = {tuple(np.round(p.get_edgecolor(), 3)) for p in boxes}
            assert len(colours) == 2                               # active and idle
            texts = [t.get_text() for t in ax.texts]
            assert i18n.t("decision.node_fill") in texts
            assert any(TOKENS[i] in t for t in texts) and any(TOKENS[j] in t for t in texts)
            idle = [t.get_text() for t in ax.texts if t.get_color() == decision.IDLE]
            assert (i18n.t("decision.node_fill") in idle) == (taken == "score")
            assert i18n.t("decision.yes" if taken == "fill" else "decision.no") in idle
            plt.close(ax.figure)
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_widget_redraws_for_each_pair_and_reads_out_the_branch(lang):
    i18n.set_language(lang)
    try:
        panel = decision.causal_decision_widget(SCORES, TOKENS, i=2, j=4)
        assert not is_error(panel)
        assert panel.state["branch"] == "fill" and panel.state["weight"] == 0
        assert "−∞" in panel.readout.value
        first = bytes(panel.images["decision"].value)
        panel.controls["j"].value = 1
        assert panel.state["branch"] == "score" and panel.state["weight"] > 0
        assert bytes(panel.images["decision"].value) != first
        panel.controls["i"].value = 0
        np.testing.assert_array_equal(panel.state["weights"], [1, 0, 0, 0, 0, 0])
        if lang == "zh":
            assert "严格为" in decision.causal_decision_widget(SCORES, TOKENS, i=0, j=5).readout.value
    finally:
        i18n.set_language("en")


def test_widget_never_raises_on_bad_settings():
    assert is_error(decision.causal_decision_widget(SCORES, TOKENS, i=9))
    assert is_error(decision.causal_decision_widget(np.zeros((2, 3))))
    assert is_error(decision.causal_decision_widget(SCORES, ["a", "b"]))
    assert is_error(decision.causal_decision_widget(T=0))
    assert not is_error(decision.causal_decision_widget(T=4, i=3, j=0))


def test_a_score_that_rounds_to_zero_is_shown_without_a_minus_sign():
    scores = np.zeros((3, 3))
    scores[2, 1] = -0.0004                                         # prints as 0.000 at 3 decimals
    ax = decision.plot_decision_flowchart(decision.causal_decision(scores, 2, 1), ["a", "b", "c"])
    texts = " ".join(t.get_text() for t in ax.texts)
    plt.close(ax.figure)
    assert "0.000" in texts and "-0.000" not in texts and "−0.000" not in texts
    scores[2, 1] = -0.001                                          # the figure shows what the readout prints
    ax = decision.plot_decision_flowchart(decision.causal_decision(scores, 2, 1), ["a", "b", "c"])
    texts = " ".join(t.get_text() for t in ax.texts)
    plt.close(ax.figure)
    assert "-0.001" in texts
    readout = decision.causal_decision_widget(scores, ["a", "b", "c"], i=2, j=1).readout.value
    assert "-0.001" in readout                                     # a score that does not round to 0 keeps its sign
