"""Notebook 00: the dot-product widget (pure state, redraws, a message instead of an exception)."""
import re

import pytest
from testkit import image_bytes, is_error

from attention_core.labs.nb00_start_here import widgets as W
from attention_core.teaching import i18n


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
    before = image_bytes(panel.images["vectors"])
    panel.controls["a0"].value = 0.0
    panel.controls["a1"].value = 0.0
    assert not is_error(panel)
    assert i18n.t("plots.undefined") in panel.readout.value
    # "·" is the dot itself and "|a|" a length, so neither separates the parts of the readout.
    assert panel.readout.value.count("·") == 1 and "; lengths |a|" in panel.readout.value
    assert image_bytes(panel.images["vectors"]) != before
    assert W.dot_product_widget(a=[1, 2, 3]).message.value          # not 2-D: message, no exception


def test_text_form_is_short_and_stable():
    panel = W.dot_product_widget()
    assert panel._repr_mimebundle_()["text/plain"] == "<dot_product widget>"
    assert repr(panel.images["vectors"]) == "Image(png)"


# --- glossary (notebook 00) -------------------------------------------------------------------
from attention_core.labs.nb00_start_here import glossary as G  # noqa: E402


def _rows(markdown: str) -> list[list[str]]:
    """The body rows of the Markdown tables in `markdown`, split into cells (escaped pipes kept inside a cell)."""
    import re
    rows = []
    for line in markdown.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return rows


def test_glossary_lists_every_term_once_per_edition_in_course_order():
    terms = [t for t in G.load_terms() if t.get("glossary", True)]
    en, zh = _rows(G.glossary_markdown("en")), _rows(G.glossary_markdown("zh"))
    assert [r[0] for r in en[1:]] == [t["en"] for t in sorted(terms, key=lambda t: t["first"])]
    assert all(len(r) == 3 for r in en) and all(len(r) in (4,) for r in zh)
    zh_terms = [r[0] for r in zh[1:len(terms) + 1]]
    assert sorted(zh_terms) == sorted(t["zh"] for t in terms)
    firsts = [r[-1] for r in en[1:]]
    assert firsts == sorted(firsts) and firsts[0].startswith("[00](00_start_here.ipynb)")


def test_glossary_editions_differ_as_their_readers_need():
    import re
    en, zh = G.glossary_markdown("en"), G.glossary_markdown("zh")
    assert not re.search("[\u4e00-\u9fff]", en)                    # the English edition shows no Chinese
    assert "d2l-zh" in zh and "d2l-zh" not in en
    # the d2l-zh table: every term whose d2l-zh name differs, with why; the attention-sink clash spelled out
    d2l = [t for t in G.load_terms() if t.get("d2l_zh") and t.get("glossary", True)]
    tail = zh.split("\n\n")[1]
    assert len(_rows(tail)) == len(d2l) + 1
    sink = next(r for r in _rows(tail) if r[1] == "注意力汇聚点")
    assert "注意力汇聚" in sink[2] and "attention pooling" in sink[3]
    assert "前瞻掩码（look-ahead mask）" in zh and "look-ahead mask" in en


def test_glossary_hides_writing_rules_and_keeps_a_pipe_inside_its_cell(monkeypatch):
    terms = G.load_terms()
    rules = [t for t in terms if t.get("glossary") is False]
    shown = {r[0] for r in _rows(G.glossary_markdown("zh"))} | {r[0] for r in _rows(G.glossary_markdown("en"))}
    assert rules and not shown & ({t["zh"] for t in rules} | {t["en"] for t in rules})
    fake = {"id": "abs", "en": "absolute value |x|", "zh": "绝对值 |x|", "first": "01",
            "concept": {"en": "a | b", "zh": "甲 | 乙"}, "avoid": {"en": [], "zh": []}}
    monkeypatch.setattr(G, "load_terms", lambda: [fake])
    row = _rows(G.glossary_markdown("en"))[1]
    assert row == ["absolute value \\|x\\|", "a \\| b", "[01](01_query_key_value.ipynb)"]


def test_term_file_errors_name_the_entry_and_the_field():
    good = {"id": "t", "en": "t", "zh": "t", "first": "01", "concept": {"en": "", "zh": ""},
            "avoid": {"en": [], "zh": []}}
    assert G.parse_terms({"terms": [good]}) == [good]
    for bad, words in [
        ([], "non-empty list 'terms'"),
        ({"terms": [{**good, "first": 4}]}, "two-digit notebook number"),
        ({"terms": [{k: v for k, v in good.items() if k != "zh"}]}, "expected the fields"),
        ({"terms": [{**good, "concept": {"en": "x"}}]}, "concept expected one value per language"),
        ({"terms": [{**good, "avoid": {"en": [], "zh": [{"regex": "(", "shows": "x"}]}}]}, "avoid.zh"),
        ({"terms": [{**good, "avoid": {"en": [""], "zh": []}}]}, "avoid.en"),
        ({"terms": [good, good]}, "used twice"),
    ]:
        with pytest.raises(ValueError, match=re.escape(words)):
            G.parse_terms(bad)
    with pytest.raises(ValueError, match="lang"):
        G.glossary_markdown("fr")


def test_avoid_patterns_match_a_literal_variant_literally():
    term = {"avoid": {"zh": ["第 (1) 节", {"regex": r"\d+ G", "shows": "10 G"}], "en": []}}
    (shown, literal), (_, regex) = G.avoid_patterns(term, "zh")
    assert literal.search("见第 (1) 节") and not literal.search("第 1 节") and shown == "第 (1) 节"
    assert regex.search("10 G 个") and not G.avoid_patterns(term, "en")
