"""No test-harness talk and no version history in the learner's text, in either edition (issue 32, item 6).

A learner reads the course, not its tests or its history: "this cell's output is not checked", "the tests hold it
equal", "测试不比较这一格" speak of the project's test harness, and "the previous version of the model", "corpus 2.1",
"上一版" of the project's past. History belongs in CHANGELOG.md; a result's limits stay where the result is.

The learner's text of one notebook in one edition (gathered as tests/notebooks/zh_text.py gathers the Chinese
edition's):
- the markdown cells of `notebooks/src/NN_*.py` in that language (raw markdown: a word in a code span is read too);
- the per-edition words of its code cells: each `[en] ... [zh] ...` string literal and comment, resolved for that
  edition (what the cells print and what the learner reads in the code);
- the stored outputs of `notebooks/<lang>/NN_*.ipynb` (printed text, text/plain, text/html, text/markdown; cells that
  print library source with inspect.getsource are left out, as in zh_text).

False positives, and how the patterns avoid them (`test_patterns` holds both sides):
- 测试 is also the ML term: 测试集 (test set), 测试句 (test sentences), 测试时 (at test time),
  留作测试 / 作测试 (held out), and the names of the course's own experiments: 泄露测试 (notebook 04's
  leak test), 组合测试 (notebook 12's composition test), 内核测试 (tests of a kernel, in general).
  Those are allowed; 自测 (self-test) holds no 测试 at all. Any other 测试 speaks of the project's
  tests ("测试保证…", "有一个测试会失败"); where it means an experiment, write 检验.
- "the test" is allowed before set / sets / loss / split / data / sentence(s) / example(s) / accuracy / of ("the test
  of a padding mask": a check the learner runs); "the tests" (plural) always means the project's suite here.
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
import zh_text

from attention_core.teaching import notebook_source as ns

REPO = Path(__file__).resolve().parents[2]
STEMS = [src.stem for src in zh_text.SOURCES]
LANGS = ("en", "zh")

_ML_TEST_NEXT = r"(?:set|sets|loss|split|data|sentences?|examples?|accuracy|of)\b"
# (name, pattern): each pattern is searched case-insensitively in every text of the learner's.
HARNESS = [
    ("nbval", r"nbval"),                                                        # NBVAL_IGNORE_OUTPUT too
    ("is not checked", r"\bis\s+not\s+checked\b"),
    ("not compared", r"\bnot\s+compared\b"),
    ("cannot drift / disagree", r"\bcannot\s+(?:drift\s+from|disagree\s+with)\s+(?:it|them)\b"),
    ("the tests", r"\bthe\s+tests\b"),
    ("the test", rf"\bthe\s+test\b(?!\s+{_ML_TEST_NEXT})"),
    ("a test checks / fails", r"\ba\s+test\s+(?:checks|fails)\b"),
    ("the package's tests", r"\b(?:tests?\s+of\s+the\s+package|package'?s\s+(?:\w+\s+)?tests?)\b"),
    ("测试", r"(?<!作)(?<!泄露)(?<!组合)(?<!内核)测试(?![集句时])"),
    ("比对", r"比对"),
    ("参与检查", r"参与检查"),
    ("不会与它不符 / 对不上", r"不会与它们?不符|不会对不上"),
]
HISTORY = [
    ("the previous version", r"\bthe\s+previous\s+version\b"),
    ("上一版", r"上一版"),
    ("corpus 2.x", r"\bcorpus\s+2\.\d|语料\s*2\.\d"),
    ("shipped before", r"\bshipped\s+before\b"),
    ("earlier recipe", r"\bearlier\s+recipes?\b"),
    ("errata", r"\berrat(?:a|um)\b"),
    ("勘误", r"勘误"),
    ("development records", r"\bdevelopment\s+records?\b|开发记录"),
]
PATTERNS = [(name, re.compile(pattern, re.I)) for name, pattern in HARNESS + HISTORY]


def _where(stem: str, text: str) -> bool:
    return text.startswith(stem + ".")


@functools.cache
def learner_texts(lang: str) -> tuple[tuple[str, str], ...]:
    """(where, text) of every text a learner of the `lang` edition reads, all notebooks."""
    texts = list(zh_text.markdown_cells(lang))
    for src in zh_text.SOURCES:
        for i, (kind, _lang, code) in enumerate(zh_text._cells(src)):
            if kind != "code":
                continue
            lines = code.split("\n")
            try:
                spans = list(ns.literal_spans(ns.tokenizable(code)))
            except (SyntaxError, ValueError):        # a broken cell is tests/notebooks/test_notebook_editions.py's
                continue
            for kind_, (r0, c0), (r1, c1) in spans:
                if r0 == r1:
                    text = lines[r0 - 1][c0:c1]
                else:
                    text = "\n".join([lines[r0 - 1][c0:], *lines[r0:r1 - 1], lines[r1 - 1][:c1]])
                if ns.EN in text or ns.ZH in text:
                    try:
                        texts.append((f"{src.name} cell {i} ({kind_})", ns.resolve_code(text, lang)))
                    except ns.SourceFormatError:
                        continue
    notebooks = sorted((REPO / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb"))
    texts.extend(zh_text.output_texts(notebooks))
    return tuple(texts)


def hits(stem: str, lang: str) -> list[str]:
    """'where: [name] …context…' for each forbidden phrase in notebook `stem`'s learner text in `lang`."""
    found = []
    for where, text in learner_texts(lang):
        if not _where(stem, where):
            continue
        for name, pattern in PATTERNS:
            for m in pattern.finditer(text):
                context = text[max(0, m.start() - 40):m.end() + 40].replace("\n", " ")
                found.append(f"{where}: [{name}] …{context}…")
    return found


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", STEMS)
def test_no_harness_words_or_history(stem, lang):
    found = hits(stem, lang)
    assert not found, (f"{lang}/{stem}: the learner's text speaks of the tests or of the project's history "
                       f"(history goes to CHANGELOG.md; say what is measured, not what is checked):\n"
                       + "\n".join(found))


def test_every_notebook_has_text_in_both_editions():
    # The gathering must reach every notebook, or a notebook with no text would pass the test above unread.
    for lang in LANGS:
        wheres = [where for where, _ in learner_texts(lang)]
        for stem in STEMS:
            kinds = {w.split("(")[-1] for w in wheres if _where(stem, w)}
            assert "markdown)" in kinds, f"{lang}/{stem}: no markdown gathered"
        assert any("(printed)" in w for w in wheres), f"{lang}: no stored output gathered"
        assert any("(string)" in w for w in wheres), f"{lang}: no [en]/[zh] literal gathered"


FORBIDDEN = [
    "so this cell's output is not checked; read the shapes", "The timings (not compared by the tests, they depend",
    "the tests hold its logits equal", "a test checks this", "A test of the package checks that",
    "The package's oracle test measured", "printed from the table above so that it cannot drift from it",
    "# NBVAL_IGNORE_OUTPUT", "when the test comes from the same generator",
    "测试保证它与这个参考实现的结果相同", "耗时（测试不比较这一格", "有一个测试会失败", "由 `x.py` 测试。",
    "包里的对照测试", "所以这个单元格的输出不做比对", "输出不参与检查", "所以不会与它不符", "所以不会与它们不符",
    "所以两者不会对不上", "the previous version of the model learned", "模型的上一版学到的",
    "trained on those sentences only (corpus 2.1)", "只用这些句子训练（语料 2.1）", "the model shipped before this one",
    "the earlier recipe took 267 s", "Errata", "勘误", "这些是本项目的开发记录",
]
ALLOWED = [
    "the training nor the test set", "on the test loss", "The test of a padding mask:", "at test time",
    "a held-out test", "Self-test (Q6)", "Let us test that on a real layer", "no kernel test will catch",
    "上面的测试集", "测试句里的每个词", "测试时可以去掉许多头", "留作测试的 Winograd 句子", "留出一部分作测试",
    "04 节的泄露测试", "组合测试（从第 1 层", "任何内核测试都发现不了", "自测题", "检验", "the previous token",
    "version of torch",
]


def test_patterns():
    for text in FORBIDDEN:
        assert any(p.search(text) for _, p in PATTERNS), f"not caught: {text!r}"
    for text in ALLOWED:
        caught = [name for name, p in PATTERNS if p.search(text)]
        assert not caught, f"{text!r} is legitimate course text, caught by {caught}"


if __name__ == "__main__":                # python tests/notebooks/test_learner_text.py: the hits, per notebook
    report = {f"{stem} {lang}": hits(stem, lang) for stem in STEMS for lang in LANGS}
    print(json.dumps({k: v for k, v in report.items() if v}, ensure_ascii=False, indent=1))
