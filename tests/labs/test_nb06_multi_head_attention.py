"""labs.nb06_multi_head_attention.heads_lab: the readable heads of notebook 06 do what the notebook says,
ablation and the cost table are right, and the figure draws in both languages."""
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest
from testkit import image_bytes, is_error

import attention_core as ac
from attention_core.labs.nb06_multi_head_attention import heads_lab as hl
from attention_core.labs.nb06_multi_head_attention import widgets as W
from attention_core.teaching import i18n


@pytest.fixture(scope="module")
def demo():
    return hl.sentence_demo()


@pytest.fixture(scope="module")
def weights(demo):
    return ac.multi_head_attention(demo.x, demo.x, demo.x, demo.params)[1]      # (H, T, T)


# --- the input -----------------------------------------------------------------------------------
def test_features_are_named_and_the_layer_splits_evenly(demo):
    assert demo.x.shape == (10, hl.D_MODEL) and len(hl.FEATURES) == hl.D_MODEL == 44
    assert demo.params.n_heads == 4 and demo.params.d_head == 11
    col = hl.FEATURES.index
    assert demo.x[:, col("clause")].tolist() == [1] * 6 + [-1] * 4
    assert demo.x[demo.tokens.index("it"), col("pronoun")] == 1
    assert demo.x[:, [col(f"word:{w}") for w in hl.VOCAB]].sum(axis=1).tolist() == [1.0] * 10
    assert not demo.x[:, [i for cols in hl.SLOTS.values() for i in cols]].any()      # slots start empty
    np.testing.assert_allclose(demo.x[:, hl._cols("pos")], ac.sinusoidal_encoding(10, 6, hl.POS_BASE))


def test_bad_sentences_are_refused_with_a_clear_message():
    with pytest.raises(TypeError, match="split it first"):
        hl.sentence_features("the cat sat")
    with pytest.raises(ValueError, match="unknown \\['dog'\\]"):
        hl.sentence_features(["the", "dog"])
    with pytest.raises(ValueError, match="non-empty"):
        hl.sentence_features([])


def test_the_rotation_moves_every_position_code_back_by_one():
    pe = ac.sinusoidal_encoding(30, hl.N_POS, hl.POS_BASE)
    np.testing.assert_allclose(pe[1:] @ hl._shift_back_one(), pe[:-1], atol=1e-12)


# --- the four heads ------------------------------------------------------------------------------
def test_each_designed_head_attends_to_its_relation(demo, weights):
    t = demo.tokens
    fav = weights.argmax(axis=-1)                                                   # (H, T)
    assert fav[0].tolist() == [0] + list(range(9))                                  # previous token
    assert (weights[0, np.arange(1, 10), np.arange(9)] > 0.9).all()
    the = [i for i, w in enumerate(t) if w == "the"]
    for i in the:                                                                   # same word: the <-> the
        np.testing.assert_allclose(weights[1, i, the], 0.48, atol=0.01)
    for verb, subject in (("sat", "cat"), ("was", "it")):                           # verb -> subject, twice
        assert fav[2, t.index(verb)] == fav[3, t.index(verb)] == t.index(subject)
        assert weights[2, t.index(verb)].max() > 0.9 and weights[3, t.index(verb)].max() > 0.9
    others = [i for i, w in enumerate(t) if w not in ("sat", "was")]
    assert weights[2, others].max() < 0.26                                          # head 3 idles off verbs


def test_random_heads_start_almost_uniform(demo):
    _, w = ac.multi_head_attention(demo.x, demo.x, demo.x, ac.init_multihead(44, 4, seed=0))
    assert w.max() < 0.2 and w.min() > 0.05


def test_matrices_and_tables_show_the_rules(demo):
    q3 = hl.head_matrix(demo, 2, "w_q")
    assert q3.row_names == ["verb", "clause"] and q3.col_names == ["h2[0]", "h2[1]"]
    np.testing.assert_array_equal(q3.values, [[14, 0], [0, 14]])
    assert hl.head_matrix(demo, 2, "w_k").row_names == ["subject", "clause"]
    table = hl.feature_table(demo)
    assert table.col_names[:5] == ["nominal", "verb", "subject", "pronoun", "clause"] and len(table.col_names) == 11
    assert "comfortable" in repr(table) and "<table>" in table._repr_html_()
    with pytest.raises(ValueError, match="head: expected an integer in 0..3"):
        hl.head_matrix(demo, 4)
    with pytest.raises(ValueError, match="matrix"):
        hl.head_matrix(demo, 0, "w_o")
    with pytest.raises(ValueError, match="groups"):
        hl.feature_table(demo, ("colour",))


def test_head_names_follow_the_language(demo):
    assert demo.head_names("en")[0] == "0 · previous token"   # numbered from 0
    assert demo.head_names("zh")[2] == "2 · 动词 → 主语"


def test_torch_computes_the_same_designed_heads(demo):
    torch = pytest.importorskip("torch")
    out, w = ac.multi_head_attention(demo.x, demo.x, demo.x, demo.params)
    xt = torch.as_tensor(demo.x)[None]
    with torch.no_grad():
        out_t, w_t = ac.to_torch_mha(demo.params)(xt, xt, xt, average_attn_weights=False)
    np.testing.assert_allclose(out_t[0].numpy(), out, atol=1e-10)
    np.testing.assert_allclose(w_t[0].numpy(), w, atol=1e-12)


# --- ablation ------------------------------------------------------------------------------------
def test_reading_the_slots(demo):
    out, _, mask = hl.ablate(demo)
    assert mask.tolist() == [1, 1, 1, 1]
    assert hl.read_slot(demo, out, "prev", demo.tokens.index("was"))[0] == "it"
    word, strength = hl.read_slot(demo, out, "subj", demo.tokens.index("sat"))
    assert word == "cat" and strength == pytest.approx(1.91, abs=0.01)
    with pytest.raises(ValueError, match="slot"):
        hl.read_slot(demo, out, "where", 0)


def test_the_twin_heads_are_redundant_and_each_head_matters_to_the_output(demo):
    rows = {r["heads"]: r for r in hl.ablation_rows(demo)}
    assert rows[()]["output_change"] == 0 and rows[()]["subject_change"] == 0
    for single in ((0,), (1,), (2,), (3,)):
        assert 0.2 < rows[single]["output_change"] < 0.7                           # every head carries output
        subjects = rows[single]["subjects"]
        assert subjects["sat"][0] == "cat" and subjects["was"][0] == "it"        # either twin suffices
    for twin in ((2,), (3,)):
        assert rows[twin]["subject_change"] == pytest.approx(0.5, abs=0.03)      # half the strength
        assert rows[twin]["head_mask"].tolist().count(0) == 1
    both = rows[(2, 3)]
    assert both["subject_change"] == pytest.approx(1.0) and both["subjects"]["sat"] == (None, 0.0)
    with pytest.raises(ValueError, match="head"):
        hl.ablate(demo, (7,))


def test_the_twins_disagree_when_the_nearest_noun_is_not_the_subject():
    other = hl.sentence_demo("the cat on the mat sat".split())
    sat = other.tokens.index("sat")
    assert hl.read_slot(other, hl.ablate(other, (3,))[0], "subj", sat)[0] == "cat"    # head 3 alone
    assert hl.read_slot(other, hl.ablate(other, (2,))[0], "subj", sat)[0] == "mat"    # head 4 alone


# --- the number of heads -------------------------------------------------------------------------
def test_a_width_one_head_has_at_most_two_favourites():
    assert hl.distinct_favourites(1, trials=500) <= 2
    assert hl.distinct_favourites(4, trials=500) > 2
    with pytest.raises(TypeError, match="d_k"):
        hl.distinct_favourites(1.5)


def test_tradeoff_rows_count_parameters_and_measure_the_weights():
    rows = hl.tradeoff_rows(d_model=16, heads=(1, 2, 4, 16), n_tokens=32)
    assert [r["d_k"] for r in rows] == [16, 8, 4, 1]
    assert {r["params"] for r in rows} == {4 * 16 ** 2 + 4 * 16}
    assert [r["weights_bytes"] for r in rows] == [h * 32 * 32 * 4 for h in (1, 2, 4, 16)]
    assert all(r["weights_bytes"] == r["analytic_bytes"] for r in rows)
    assert {r["matmul_macs"] for r in rows} == {2 * 32 ** 2 * 16}
    big = hl.tradeoff_rows(measure=False)                                           # the notebook's table
    assert [r["d_k"] for r in big] == [512, 256, 128, 64, 32, 8]
    assert big[3]["weights_bytes"] == 32 * 2 ** 20 and big[-1]["weights_bytes"] == 256 * 2 ** 20
    assert hl.parameter_count(ac.init_multihead(512, 8)) == 1_050_624
    with pytest.raises(ValueError, match="not divisible"):
        hl.tradeoff_rows(d_model=16, heads=(3,), measure=False)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tradeoff_figure_draws_in_both_languages(lang):
    i18n.set_language(lang)
    try:
        fig, ax = plt.subplots(1, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")                                          # a missing glyph would fail
            out = hl.plot_tradeoff(hl.tradeoff_rows(measure=False), ax=ax)
            fig.canvas.draw()
        assert out is ax and ax[0].get_xlabel() == ax[1].get_xlabel() == i18n.t("heads_lab.h")
        assert "512" in fig._suptitle.get_text()
        assert not any(a.get_shared_x_axes().get_siblings(a) != [a] for a in ax)   # two panels, no twin axes
        plt.close(fig)
    finally:
        i18n.set_language("en")
    with pytest.raises(ValueError, match="rows"):
        hl.plot_tradeoff([])
    np.testing.assert_allclose(hl.position_code(30)[1:] @ hl.shift_back_one(), hl.position_code(30)[:-1], atol=1e-12)


# --- heads (notebook 06) ----------------------------------------------------------------------
def test_head_widget_switches_heads():
    w = np.random.default_rng(2).dirichlet(np.ones(4), size=(3, 4))     # (H, T, T)
    panel = W.head_widget(w, ["a", "b", "c", "d"])
    before = image_bytes(panel.images["weights"])
    panel.controls["head"].value = 2
    np.testing.assert_array_equal(panel.state["weights"], w[2])
    assert image_bytes(panel.images["weights"]) != before
    assert is_error(W.head_widget(w[0]))


# --- the trade-off widget ---------------------------------------------------------------------------
@pytest.mark.parametrize("h", W.TRADEOFF_HEADS)
def test_tradeoff_state_matches_the_measured_table(h):
    """What the widget shows is what notebook 06's table measures in a real forward pass (at T = 256)."""
    s = W.tradeoff_state(h, 256)
    row = hl.tradeoff_rows(d_model=512, heads=(h,), n_tokens=256)[0]
    mine = s["chosen"]
    assert (mine["d_k"], mine["params"], mine["weights_bytes"], mine["macs"]) == (
        row["d_k"], row["params"], row["weights_bytes"], row["matmul_macs"])
    assert s["one_head"]["params"] == mine["params"] and s["one_head"]["macs"] == mine["macs"]   # what stays
    assert mine["weights_bytes"] == h * s["one_head"]["weights_bytes"]                           # what grows


def test_tradeoff_widget_answers_both_sliders_and_speaks_chinese():
    panel = W.tradeoff_widget()
    before = panel.readout.value
    panel.controls["h"].value = 64
    assert panel.readout.value != before and "h = 64" in panel.readout.value and "256.0" in panel.readout.value
    panel.controls["n_tokens"].value = 2048                      # 4x the tokens: 16x the weights
    assert "1,024.0" in panel.readout.value and not is_error(panel)
    i18n.set_language("zh")
    assert "权重张量" in W.tradeoff_widget().readout.value


@pytest.mark.parametrize("kwargs", [{"h": 3}, {"n_tokens": 1000}, {"d_model": 0}, {"h": "8"}, {"d_model": 100}])
def test_tradeoff_widget_refuses_settings_off_its_sliders_in_words(kwargs):
    assert is_error(W.tradeoff_widget(**kwargs))


def test_tradeoff_widget_shows_an_indivisible_width_in_red_without_dying():
    panel = W.tradeoff_widget(h=4, d_model=96)                  # 96 = 3 x 32: h = 64 does not divide it
    panel.controls["h"].value = 64
    assert is_error(panel) and "divisible" in panel.message.value
    panel.controls["h"].value = 32
    assert not is_error(panel) and "h = 32" in panel.readout.value


def test_feature_labels_are_chinese_in_the_zh_edition_and_codes_in_the_en_one():
    from attention_core.labs.nb06_multi_head_attention import heads_lab as H
    assert [H.feature_label(f, "en") for f in ("verb", "pos3", "prev:cat")] == ["verb", "pos3", "prev:cat"]
    assert [H.feature_label(f, "zh") for f in ("nominal", "verb", "subject", "pronoun", "clause", "pos3")] == \
        ["名词性", "动词", "主语", "代词", "分句", "位置3"]
    assert H.feature_label("subj:cat", "zh") == "subj:cat"                  # a slot keeps its code name
    with pytest.raises(ValueError, match="features"):
        H.feature_label("adjective", "zh")
