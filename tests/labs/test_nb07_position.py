"""labs.nb07_position.position_lab and the position-bias widget: the claims notebook 07 makes are right,
and its figures and widget draw in both languages."""
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from testkit import image_bytes, is_error

import attention_core as ac
from attention_core import sinusoidal_encoding
from attention_core.labs.nb07_position import position_lab as pl
from attention_core.labs.nb07_position import widgets as W
from attention_core.teaching import i18n
from attention_core.teaching.widget_base import ERROR_COLOR

SCORES = np.array([2.0, 0.5, -0.5, 0.0, 1.0, 0.8, 0.3, 1.8])


# --- order blindness ----------------------------------------------------------------------------------
def _layer(d=16, seed=0):
    params = ac.init_multihead(d_model=d, n_heads=2, seed=seed)
    return lambda x: ac.multi_head_attention(x, x, x, params)[0]


def test_self_attention_is_permutation_equivariant_and_position_breaks_it():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 16))
    layer = _layer()
    for _ in range(5):
        perm = rng.permutation(6)
        assert pl.equivariance_gap(layer, x, perm) < 1e-12
        def with_pe(z):
            return layer(z + ac.sinusoidal_encoding(len(z), 16))
        if not np.array_equal(perm, np.arange(6)):
            assert pl.equivariance_gap(with_pe, x, perm) > 1e-2
    assert pl.equivariance_gap(layer, x, np.arange(6)) == 0.0


@pytest.mark.parametrize("perm", [[0, 1], [0, 0, 1, 2, 3, 4], np.array([0.0, 1, 2, 3, 4, 5]), [[0, 1, 2, 3, 4, 5]]])
def test_equivariance_gap_refuses_what_is_not_a_permutation(perm):
    with pytest.raises(ValueError, match="perm: expected a permutation of 0..5"):
        pl.equivariance_gap(_layer(), np.zeros((6, 16)), perm)


# --- sinusoidal: a shift is a rotation ----------------------------------------------------------------
@pytest.mark.parametrize("d, k", [(2, 1), (8, 3), (64, 10), (16, 0.5)])
def test_shift_matrix_moves_every_position_by_k(d, k):
    pe = ac.sinusoidal_encoding(60, d)
    moved = ac.sinusoidal_encoding(60, d)  # positions p + k computed from the formula directly
    angles = (np.arange(60)[:, None] + k) * pl.sinusoidal_frequencies(d)[None, :]
    moved[:, 0::2], moved[:, 1::2] = np.sin(angles), np.cos(angles)
    m = pl.sinusoidal_shift_matrix(d, k)
    np.testing.assert_allclose(pe @ m.T, moved, atol=1e-12)
    np.testing.assert_allclose(m.T @ m, np.eye(d), atol=1e-12)              # a rotation


def test_frequencies_match_the_table_and_odd_widths_are_refused():
    omega = pl.sinusoidal_frequencies(8)
    np.testing.assert_allclose(np.sin(3 * omega), ac.sinusoidal_encoding(4, 8)[3, 0::2])
    with pytest.raises(ValueError, match="d_model: the \\(sin, cos\\) pairs need an even width, got 7"):
        pl.sinusoidal_shift_matrix(7, 1)


def test_diagonal_spread_tells_offset_only_matrices_apart():
    pe = ac.sinusoidal_encoding(40, 32)
    assert pl.diagonal_spread(pe @ pe.T) < 1e-12
    learned = ac.learned_position_table(40, 32, seed=0)
    g = learned @ learned.T
    assert pl.diagonal_spread(g) / np.abs(g).max() > 0.3
    with pytest.raises(ValueError, match="matrix: expected a square matrix"):
        pl.diagonal_spread(np.zeros((2, 3)))


def test_learned_table_has_no_row_past_its_end_while_the_formula_goes_on():
    table = ac.learned_position_table(50, 8, seed=0)
    with pytest.raises(IndexError):
        table[50]
    np.testing.assert_array_equal(ac.sinusoidal_encoding(100, 8)[:50], ac.sinusoidal_encoding(50, 8))


# --- RoPE -----------------------------------------------------------------------------------------------
def test_rope_score_depends_only_on_the_offset_and_keeps_norms():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=8), rng.normal(size=8)
    for offset in (-3, 0, 3, 17):
        expected = pl.rope_relative_score(q, k, offset)
        for m in (0, 5, 20, 997):
            assert pl.rope_score(q, k, m, m + offset) == pytest.approx(expected, abs=1e-9)
    assert pl.rope_relative_score(q, k, 0) == pytest.approx(q @ k)
    assert pl.rope_score(q, k, 0, 3) != pytest.approx(pl.rope_score(q, k, 3, 0))          # the sign matters
    rotated = ac.apply_rope(np.tile(q, (4, 1)), np.array([0.0, 1.0, 50.0, 1000.0]))
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=1), np.linalg.norm(q))
    s = pl.rope_score_matrix(q, k, 16)
    assert s.shape == (16, 16) and pl.diagonal_spread(s) < 1e-12
    assert s[2, 5] == pytest.approx(pl.rope_score(q, k, 2, 5))
    with pytest.raises(ValueError, match="q, k: expected the same width"):
        pl.rope_score(q, k[:6], 0, 1)


# --- before the softmax ---------------------------------------------------------------------------------
def test_distance_bias_is_linear_in_distance_without_negative_zeros():
    b = pl.distance_bias(4, 0.5)
    np.testing.assert_array_equal(b, -0.5 * np.abs(np.subtract.outer(range(4), range(4))))
    assert not np.signbit(np.diagonal(b)).any()
    assert pl.distance_bias(2, 1.0, 5).shape == (2, 5)
    with pytest.raises(ValueError, match="slope: expected a number >= 0"):
        pl.distance_bias(3, -1.0)


def test_score_row_variants_reproduce_the_notebook_table():
    v = pl.score_row_variants(SCORES, 5, slope=0.5, window=3)
    assert list(v) == list(pl.VARIANTS)
    for row in v.values():
        assert row["weights"].sum() == pytest.approx(1.0)
        np.testing.assert_array_equal(np.isneginf(row["scores"]), row["weights"] == 0)
    np.testing.assert_allclose(v["content"]["weights"][[0, 7]], [0.321, 0.263], atol=5e-4)
    np.testing.assert_allclose(v["causal"]["weights"][[0, 6, 7]], [0.474, 0, 0], atol=5e-4)
    np.testing.assert_allclose(v["bias"]["weights"][[0, 5, 7]], [0.074, 0.270, 0.270], atol=5e-4)
    assert np.flatnonzero(v["window"]["weights"]).tolist() == [3, 4, 5]
    assert v["causal_bias"]["weights"][5] == pytest.approx(0.427, abs=5e-4)
    with pytest.raises(ValueError, match="query: expected an integer in 0..7"):
        pl.score_row_variants(SCORES, 8)


def test_weights_do_not_depend_on_distance_without_a_mechanism():
    plain = pl.weight_by_distance(9, 16, 4000, seed=1)
    np.testing.assert_allclose(plain, 1 / 9, atol=0.01)
    biased = pl.weight_by_distance(9, 16, 4000, seed=1, slope=0.5)
    assert (np.diff(biased) < 0).all()
    windowed = pl.weight_by_distance(9, 16, 4000, seed=1, window=3)
    np.testing.assert_allclose(windowed, [0.2, 0.2, 0.2, 0, 0], atol=0.01)


# --- figures --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_figures_draw_with_translated_labels(lang):
    i18n.set_language(lang)
    fig, axes = plt.subplots(1, 3)
    pe = ac.sinusoidal_encoding(8, 4)
    assert pl.plot_pair_matrix(pe @ pe.T, ax=axes[0], title="PE") is axes[0]
    assert pl.plot_score_row(pl.score_row_variants(SCORES, 5), ax=axes[1], query=5) is axes[1]
    assert pl.plot_weight_by_distance({"a": [0.3, 0.2, 0.1]}, ax=axes[2], uniform=0.2) is axes[2]
    assert axes[1].get_xlabel() == i18n.t("position_lab.key_position")
    assert i18n.t("position_lab.variant_bias") in [t.get_text() for t in axes[1].get_legend().get_texts()]
    fig.canvas.draw()
    plt.close(fig)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_table_of_positions_is_not_labelled_as_queries_and_keys(lang):
    """PE[m] · PE[n] compares positions with positions; only a score matrix has a query and a key axis."""
    i18n.set_language(lang)
    fig, (gram, scores) = plt.subplots(1, 2)
    pe = ac.sinusoidal_encoding(8, 4)
    pl.plot_pair_matrix(pe @ pe.T, ax=gram)
    pl.plot_pair_matrix(pe @ pe.T, ax=scores, query_key=True)
    role = {"en": ("query", "key"), "zh": ("Query", "Key")}[lang]
    assert not any(word in gram.get_ylabel() + gram.get_xlabel() for word in role), gram.get_ylabel()
    assert role[0] in scores.get_ylabel() and role[1] in scores.get_xlabel()
    with pytest.raises(TypeError, match="query_key"):
        pl.plot_pair_matrix(pe @ pe.T, ax=gram, query_key="yes")
    plt.close(fig)


# --- the widget -----------------------------------------------------------------------------------------
def test_position_bias_state_combines_bias_window_and_causal_mask():
    s = W.position_bias_state(SCORES, 5, slope=0.5, window=3, causal=True)
    assert s["visible"].tolist() == [False, False, False, True, True, True, False, False]
    np.testing.assert_allclose(s["adjusted"][3:6], [-1.0, 0.5, 0.8])
    assert np.isneginf(s["adjusted"][~s["visible"]]).all()
    assert s["top"] == 5 and s["weights"].sum() == pytest.approx(1.0)
    plain = W.position_bias_state(SCORES, 5)
    np.testing.assert_allclose(plain["weights"], ac.softmax(SCORES))
    assert W.position_bias_state(SCORES, 5, window=1)["weights"].tolist() == [0, 0, 0, 0, 0, 1, 0, 0]
    # the window is the course's causal one (the query and the window - 1 keys before it), with or without the mask
    assert np.flatnonzero(W.position_bias_state(SCORES, 5, window=3)["visible"]).tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="window: expected an integer >= 0"):
        W.position_bias_state(SCORES, 5, window=-1)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_position_bias_widget_redraws_and_reports_errors(lang):
    i18n.set_language(lang)
    panel = W.position_bias_widget(SCORES, 5)
    assert repr(panel) == "<position_bias widget>" and panel.message.value == ""
    before = bytes(panel.images["row"].value)
    panel.controls["slope"].value = 0.5
    assert bytes(panel.images["row"].value) != before
    assert panel.state["top"] == 5
    panel.controls["window"].value = 1
    panel.controls["causal"].value = True
    assert panel.state["visible"].sum() == 1
    assert i18n.t("position_lab.readout", n=1, t=8, j=5, w="1.000") in panel.readout.value
    assert ERROR_COLOR in W.position_bias_widget(SCORES, 8).message.value


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
    before = image_bytes(panel.images["table"])
    panel.controls["dim"].value = 7
    assert image_bytes(panel.images["table"]) != before
    assert "PE[5, 7]" in panel.readout.value
    assert is_error(W.positional_widget(T=0))
