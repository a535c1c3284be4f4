"""labs.nb05_self_and_cross_attention.cross_lab and its widget: the translation alignment of notebook 05
is real (by meaning, not by position), self- and cross-attention are one computation, and the figures draw
in both languages."""
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb05_self_and_cross_attention import cross_lab as cl
from attention_core.labs.nb05_self_and_cross_attention import widgets as W
from attention_core.teaching import fonts, i18n
from attention_core.teaching.widget_base import ERROR_COLOR


@pytest.fixture(autouse=True)
def _english():
    before = i18n.get_language()
    i18n.set_language("en")
    yield
    i18n.set_language(before)


# --- the model ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(cl.PAIRS))
def test_every_chinese_word_finds_the_english_word_it_translates(name):
    english, chinese, gold = cl.translation_pair(name)
    out, w = cl.attend(chinese, english, cl.cross_params())
    assert w.shape == (len(chinese.tokens), len(english.tokens)) == (5, 6)       # not square
    assert out.shape == (5, len(cl.FEATURES))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    assert cl.alignment(w, chinese, english) == gold
    assert (w.max(axis=-1) > 0.9).all()                                        # a clear winner each time
    articles = [j for j, tok in enumerate(english.tokens) if tok == "the"]
    assert w[:, articles].max() < 0.05                                          # Chinese has no articles


def test_the_locative_marker_asks_for_a_relation_not_for_on():
    for name, relation in (("cat_mat", "on"), ("dog_table", "under")):
        english, chinese, _ = cl.translation_pair(name)
        _, w = cl.attend(chinese, english, cl.cross_params())
        assert english.tokens[int(w[chinese.tokens.index("在")].argmax())] == relation
    # Remove the one entry that lets 在 ask for a relation, and it has nothing to look for.
    english, chinese, _ = cl.translation_pair("cat_mat")
    p = cl.cross_params().set("w_q", "locative", "relation", 0)
    _, w = cl.attend(chinese, english, p)
    np.testing.assert_allclose(w[chinese.tokens.index("在")], 1 / 6)


def test_alignment_is_by_content_not_by_position():
    english, chinese, gold = cl.translation_pair("cat_mat")
    by_position = dict(zip(chinese.tokens, english.tokens))
    assert sum(by_position[w] == gold[w] for w in gold) == 0
    _, w = cl.attend(chinese, english, cl.cross_params())
    for order in cl.ORDERS:
        perm = cl.order_permutation(6, order, seed=0)
        shuffled = cl.reorder(english, perm)
        _, w_perm = cl.attend(chinese, shuffled, cl.cross_params())
        np.testing.assert_allclose(w_perm, w[:, perm], atol=1e-12)           # the columns move with the words
        assert cl.alignment(w_perm, chinese, shuffled) == gold


def test_orders():
    np.testing.assert_array_equal(cl.order_permutation(4, "reversed"), [3, 2, 1, 0])
    for n in (2, 3, 6):
        perm = cl.order_permutation(n, "shuffled", seed=0)
        assert sorted(perm) == list(range(n)) and (perm != np.arange(n)).any()
    with pytest.raises(ValueError, match="order"):
        cl.order_permutation(3, "sideways")
    with pytest.raises(ValueError, match="permutation"):
        cl.reorder(cl.sentence("a b c"), [0, 0, 1])


def test_self_attention_finds_partners_and_the_article_ties():
    english, _, _ = cl.translation_pair("cat_mat")
    _, w = cl.attend(english, english, cl.self_params())
    assert w.shape == (6, 6)
    tok = english.tokens
    top = {tok[i]: tok[int(w[i].argmax())] for i in range(6) if tok[i] != "the"}
    assert top == {"cat": "sat", "sat": "cat", "on": "mat", "mat": "on"}
    for i in (0, 4):                                                              # both "the" rows
        assert w[i, 1] == pytest.approx(w[i, 5]) and w[i, [1, 5]].sum() > 0.98   # a tie: 0.50 / 0.50
    np.testing.assert_allclose(w[0], w[4])                                       # same content, same row


def test_self_and_cross_are_the_same_function():
    english, chinese, _ = cl.translation_pair("cat_mat")
    for queries, params in ((chinese, cl.cross_params()), (english, cl.self_params())):
        out, w = cl.attend(queries, english, params)
        ref_out, ref_w = ac.scaled_dot_product_attention(queries.x @ params.w_q, english.x @ params.w_k,
                                                         english.x @ params.w_v)
        np.testing.assert_allclose(w, ref_w)
        np.testing.assert_allclose(out, ref_out)


def test_values_hand_over_the_meaning():
    english, chinese, gold = cl.translation_pair("cat_mat")
    out, _ = cl.attend(chinese, english, cl.cross_params())
    table = cl.concept_table(out, chinese)
    assert table.row_names == list(chinese.tokens)
    for i, word in enumerate(chinese.tokens):
        meaning = cl.LEXICON[gold[word]][0]
        assert table.col_names[int(table.values[i].argmax())] == meaning


def test_tables_and_lexicon():
    english, chinese, _ = cl.translation_pair("cat_mat")
    t = cl.feature_table(chinese)
    assert "locative" in t.col_names and "article" not in t.col_names
    assert "猫" in repr(t) and "<table>" in t._repr_html_()
    q = cl.cross_params().table("w_q")
    assert ("locative" in q.row_names) and ("preposition" not in q.row_names)
    assert "preposition" in cl.cross_params().table("w_k").row_names
    with pytest.raises(ValueError, match="matrix"):
        cl.cross_params().table("w_o")
    assert not cl.sentence("the unknown word").x[1].any()                        # unknown words: no features
    with pytest.raises(ValueError, match="name"):
        cl.translation_pair("nope")
    with pytest.raises(ValueError, match="empty"):
        cl.sentence("")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("mode", cl.MODES)
def test_plot_alignment_draws_in_both_languages(lang, mode):
    i18n.set_language(lang)
    fonts.use_cjk_font()                          # before the figure exists, as a notebook's first plot does
    english, chinese, _ = cl.translation_pair("cat_mat")
    queries = chinese if mode == "cross" else english
    _, w = cl.attend(queries, english, cl.cross_params() if mode == "cross" else cl.self_params())
    fig, ax = plt.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                           # no missing glyphs
        assert cl.plot_alignment(w, queries, english, ax=ax, mode=mode) is ax
        fig.canvas.draw()
    assert ax.get_xlabel() == i18n.t(f"cross.{mode}_keys")
    assert [t.get_text() for t in ax.get_yticklabels()] == list(queries.tokens)
    plt.close(fig)
    with pytest.raises(ValueError, match="mode"):
        cl.plot_alignment(w, queries, english, mode="both")


# --- the widget -----------------------------------------------------------------------------------
def test_cross_attention_state():
    s = W.cross_attention_state("cat_mat", "cross", "as_written", 0)
    assert s["weights"].shape == (5, 6) and s["query_token"] == "猫" and s["top_token"] == "cat"
    assert s["gold"] == "cat" and s["top_weight"] > 0.9
    r = W.cross_attention_state("cat_mat", "cross", "reversed", 0)
    assert r["key_tokens"] == tuple(reversed(s["key_tokens"])) and r["top_token"] == "cat"
    assert r["top_weight"] == pytest.approx(s["top_weight"])
    # In self mode the query index names a word of the sentence as written, whatever the order.
    for order in cl.ORDERS:
        t = W.cross_attention_state("cat_mat", "self", order, 2)
        assert t["query_token"] == "sat" and t["top_token"] == "cat" and t["weights"].shape == (6, 6)
        assert t["gold"] is None
    with pytest.raises(ValueError, match="query"):
        W.cross_attention_state("cat_mat", "cross", "as_written", 5)
    with pytest.raises(ValueError, match="mode"):
        W.cross_attention_state("cat_mat", "both")


@pytest.mark.slow          # draws every view of the widget, both languages: about 2 s (make test runs it)
def test_cross_attention_widget_switches_and_speaks_both_languages():
    panel = W.cross_attention_widget()
    assert ERROR_COLOR not in panel.message.value
    assert "“猫” attends most to “cat” (weight 0.94)" in panel.readout.value
    assert "5 × 6, not square" in panel.readout.value
    before = bytes(panel.images["weights"].value)
    assert before.startswith(b"\x89PNG")
    c = panel.controls
    c["query"].value = 2
    assert "“在” attends most to “on”" in panel.readout.value and "“在” translates “on”" in panel.readout.value
    c["order"].value = "reversed"
    assert panel.state["key_tokens"][0] == "mat" and bytes(panel.images["weights"].value) != before
    c["mode"].value = "self"
    assert panel.state["weights"].shape == (6, 6) and "6 × 6, square" in panel.readout.value
    assert [label for label, _ in c["query"].options][:2] == ["the (1)", "cat"]
    c["query"].value = 0
    assert "splits its attention between" in panel.readout.value and "“cat”" in panel.readout.value
    c["pair"].value = "dog_table"
    assert panel.state["pair"] == "dog_table" and "“dog”" in panel.readout.value
    c["mode"].value = "cross"
    assert panel.state["query_token"] == "狗" and panel.state["weights"].shape == (5, 6)
    assert "狗" in panel.bars.value
    i18n.set_language("zh")
    zh = W.cross_attention_widget("dog_table", query=2)
    assert "“在”最关注“under”" in zh.readout.value and "不是方阵" in zh.readout.value


def test_cross_attention_widget_bad_input_gives_a_message():
    panel = W.cross_attention_widget(query=9)
    assert ERROR_COLOR in panel.message.value and "query" in panel.message.value
    assert ERROR_COLOR in W.cross_attention_widget("nope").message.value
