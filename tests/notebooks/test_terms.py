"""One term per concept (issue 41): the course's term list, attention_core/data/terms.json, held against both editions.

Each entry names the term of each edition and the variants an edition does not use ("avoid"); this test reads every
text a learner sees (edition_text.texts: markdown, the code's strings and comments, printed output, widgets' static
views, string tables of widgets, figures and checkers, the quiz bank) and fails on a variant, listing each by
notebook. Notebook 00's glossary renders the same file (its cell is the one place that names d2l-zh's terms).
"""
from __future__ import annotations

import json
import re
from collections import defaultdict

import edition_text
import pytest

from attention_core.labs.nb00_start_here import glossary

# An English gloss in full-width parentheses right after a term, 暂退法（dropout）, names the term: not a variant.
GLOSS = re.compile(r"（[A-Za-z][A-Za-z \-/'’,.]*）")
# Texts that are code: a name of the notebook's code there (a docstring's `block` argument) is not a variant.
CODE_KINDS = ("docstring", "literal")


def report(found, what: str, limit: int = 200) -> str:
    """Findings [(Text, hit)] grouped by notebook, most first."""
    by_nb = defaultdict(list)
    for text, hit in found:
        by_nb[text.notebook].append(f"{text.where}: {hit}")
    lines = [f"{len(found)} {what}:"]
    for nb, hits in sorted(by_nb.items()):
        lines.append(f" notebook {nb} ({len(hits)}):")
        lines += [f"  {h}" for h in hits[:limit]]
    return "\n".join(lines)


def variants_in(text: edition_text.Text, terms, lang: str) -> list[str]:
    """'variant -> course term' for each avoided variant of `terms` in one text."""
    prose = GLOSS.sub(" ", edition_text.prose(text.text))
    found = []
    for term in terms:
        for shown, pattern in glossary.avoid_patterns(term, lang):
            found += [f"{m.group(0)!r} -> {term[lang]} (avoid {shown})" for m in pattern.finditer(prose)
                      if not (text.kind in CODE_KINDS and m.group(0) in text.names)]    # a parameter: block
    return found


@pytest.fixture(scope="module")
def terms():
    return glossary.load_terms()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_avoided_variant_in_the_edition(terms, lang):
    found = [(text, hit) for text in edition_text.texts(lang) for hit in variants_in(text, terms, lang)]
    assert not found, report(found, f"variants the term list (attention_core/data/terms.json) keeps out of {lang}")


def test_variants_do_not_match_the_course_terms(terms):
    """A variant pattern that matched the course's own term would fail every correct sentence."""
    for term in terms:
        for lang in ("zh", "en"):
            own = [term[lang], term.get("zh_first", "")] if lang == "zh" else [term["en"]]
            own += term.get("aliases", {}).get(lang, [])
            for shown, pattern in glossary.avoid_patterns(term, lang):
                for text in filter(None, own):
                    assert not pattern.search(GLOSS.sub(" ", text)), (term["id"], lang, shown, text)


@pytest.mark.parametrize("written, course_term", [
    ("预备知识", "需要的基础"), ("这个 Jacobian 可以", "雅可比矩阵"), ("attention dropout", "暂退法（dropout）"),
    ("输入 embedding 上", "嵌入"), ("Key 宽 8", "维度"), ("课本公式", "朴素公式 / 朴素实现"),
    ("普通公式", "朴素公式 / 朴素实现"), ("稳妥的 softmax", "数值稳定的 softmax"),
    ("稳定的 softmax", "数值稳定的 softmax"), ("残差信息流", "残差连接；残差流"), ("小部件", "控件"),
    ("它的 tokenizer", "分词器；二元模型（bigram）/ 一元模型（unigram）"), ("batch 和硬件", "批次；批量维度；批大小"),
    ("编码器–解码器", "编码器 / 解码器；编码器－解码器"), ("温度 T = 2", "温度 τ"), ("第 12 节", "NN 节（如 12 节）"),
    ("2.8 nats", "纳特（nat）"), ("注意力汇聚，另一种", "注意力汇聚点"), ("10.0 G 个位置对", "万 / 亿，或 ×10ⁿ"),
    ("attention 的角色", "注意力"), ("留出的数据", "留作测试的数据；验证集"), ("本 notebook", "笔记本（notebook）"),
])
def test_the_drifts_the_zh_review_found_are_listed(terms, written, course_term):
    """The review of 2026-12-07 found these words for one concept; each variant is caught, and points at the term."""
    text = edition_text.Text("--", "example", "markdown", written)
    hits = variants_in(text, terms, "zh")
    assert hits and all(f"-> {course_term} (" in hit for hit in hits), hits


def test_the_right_words_pass(terms):
    for written in ("数值稳定的 softmax", "暂退法（dropout）", "12 节", "窗口宽度为 3", "宽度为 3 的对称窗口",
                    "注意力汇聚点", "因果掩码，也叫前瞻掩码（look-ahead mask）", "笔记本（notebook）", "10.2 GiB",
                    "孪生句（Winograd 句对）", "分词器（tokenizer）", "温度 τ = 0.5", "`batch_first=True`"):
        text = edition_text.Text("--", "example", "markdown", edition_text.zh_text.strip_code(written))
        assert not variants_in(text, terms, "zh"), written


def test_every_alias_is_named_where_its_term_is_taught(terms):
    """An alias (前瞻掩码 for 因果掩码) is listed so that a reader of another book recognises it: the notebook that
    introduces the term names it, in each edition."""
    for term in terms:
        for lang, aliases in term.get("aliases", {}).items():
            prose = " ".join(t.text for t in edition_text.texts(lang)
                             if t.kind == "markdown" and t.notebook == term["first"])
            for alias in aliases:
                assert alias in prose, f"{lang}: notebook {term['first']} never names {alias!r} ({term['id']})"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_notebook_00_shows_the_glossary_of_the_term_file(lang):
    """The built notebook 00 shows the table rendered from the term file as it is now (rebuild 00 after editing it)."""
    path = next(p for p in edition_text.notebooks(lang) if p.name.startswith("00_"))
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    shown = [("".join(o["data"]["text/markdown"])) for c in cells if c["cell_type"] == "code"
             and edition_text.GLOSSARY_CALL in "".join(c["source"])
             for o in c.get("outputs", []) if "text/markdown" in o.get("data", {})]
    assert shown == [glossary.glossary_markdown(lang)]
