"""The Chinese edition as a first edition (issue 16): Chinese punctuation without stray spaces, heads and layers
numbered from 0, checkers' verdicts in Chinese. The texts are gathered by zh_text.py. One term per concept is held by
test_terms.py (the term list, attention_core/data/terms.json, which notebook 00's glossary renders) and the absence of
English by test_zh_english.py (issue 41: single words too, read from edition_text.py)."""
from __future__ import annotations

import json
import re

import rendered
import zh_text

CJK = r"\u3400-\u9fff"
FULL_WIDTH = "，。：；！？、（）《》“”‘’"                # not … (A … B, a sequence), nor the · separator
# A space beside full-width punctuation, or between two Chinese characters (bold or italic markers between count).
SPACING = [
    re.compile(f"[^\\s|>#-] +[{FULL_WIDTH.replace('“‘', '')}]"),
    re.compile(f"[{FULL_WIDTH}] +[^\\s|·]"),
    re.compile(f"[{CJK}][*_]* +[*_]*[{CJK}]"),
]


_PAIR = re.compile(r"(/ ?[\u3400-\u9fff]+) (?=[\u3400-\u9fff])")


def _spacing_view(text: str) -> str:
    """Markdown with each code span, formula, link target and tag as one Latin letter (their own spaces are theirs)."""
    text = re.sub(r"```.*?```", "\n", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$|`[^`\n]*`|<[^>\n]+>", "X", text, flags=re.S)
    text = _PAIR.sub(r"\1", text)                              # a pair "bank / 杜鹃 一起" ends there
    return re.sub(r"\]\([^)]*\)", "]", text)


def _report(found, what: str) -> str:
    lines = [f"{len(found)} {what}:"] + [f"  {where}: {hit!r}" for where, hit in found[:60]]
    return "\n".join(lines + ([f"  ... and {len(found) - 60} more"] if len(found) > 60 else []))


def test_english_runs_finds_prose_and_spares_terms_code_and_examples():
    assert zh_text.english_runs("在 layer 0 head 0, half = 11 上你返回") == ["layer 0 head 0, half"]
    assert zh_text.english_runs("trained GRU, k = 8: 10 positions need 10 rounds") == ["positions need 10 rounds"]
    assert zh_text.english_runs("嵌入层 same sense 1.000   other sense 0.5")
    assert zh_text.english_runs("max |cached - full| = 0.0") == ["max |cached - full"]
    assert not zh_text.english_runs("Query、Key、Value 与 softmax，KV 缓存和 Transformer 块")
    assert not zh_text.english_runs("`ac.scaled_dot_product_attention(q, k, v, mask=None)` 的形状 (B, H, Tq, Tk)")
    assert not zh_text.english_runs("“the cat sat on the mat” → “猫坐在垫子上”")
    assert not zh_text.english_runs("Vaswani et al.，*Attention Is All You Need*")


def test_no_space_between_chinese_text_and_full_width_punctuation():
    """The prose a learner reads (markdown, string tables, quiz); printed tables align their columns with spaces."""
    found = []
    raw = [*zh_text.markdown_cells("zh"), *zh_text.string_tables("zh"), *zh_text.quiz_texts("zh")]
    for where, text in raw:
        prose = _spacing_view(text)
        for pattern in SPACING:
            found += [(where, m.group(0)) for m in pattern.finditer(prose)]
    assert not found, _report(found, "spaces beside full-width punctuation or between Chinese characters")


def test_no_stray_space_in_what_the_built_zh_markdown_shows():
    """The built zh notebooks as a reader sees them (rendered by markdown-it, emphasis marks gone): the builder joins
    the wrapped lines of the sources, and a space it puts at an emphasis mark or a link shows only here ("**机构** （",
    "。 **交叉注意力**")."""
    found = []
    for path in zh_text.ZH_NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "markdown":
                continue
            shown = _PAIR.sub(r"\1", rendered.visible_text("".join(cell["source"])))
            for pattern in SPACING:
                found += [(f"{path.name} cell {i}", shown[max(0, m.start() - 8):m.end() + 8])
                          for m in pattern.finditer(shown)]
    assert not found, _report(found, "spaces beside full-width punctuation or between Chinese characters, as shown")


def test_heads_and_layers_are_numbered_from_0_and_the_rule_is_said_in_06_and_12():
    """One numbering (issue 16): heads and layers from 0, as their index in the code, said in 06 and 12 (both
    editions); no count from 1 such as 第 1-4 个头 or a 4-head layer's 'head 4' left in 06."""
    for lang, rule in (("zh", "从 0 开始编号"), ("en", "numbered from 0")):
        cells = list(zh_text.markdown_cells(lang))
        for stem in ("06_", "12_"):
            assert any(where.startswith(stem) and rule in text for where, text in cells), (lang, stem)
        assert not [w for w, t in cells if re.search(r"第 ?\d+ ?[-–] ?\d+ ?个头", t)]
        assert not [w for w, t in cells if w.startswith("06_") and re.search(r"\b[Hh]eads? 4\b|第 4 个头", t)]


def _zh_verdicts():
    """(checker, its zh verdict) for every lab checker given a learner that returns None and one that raises: the
    words a checker builds at run time (case names, what was returned), which no string table holds."""
    import importlib
    import inspect
    import pkgutil

    import attention_core.labs as labs
    from attention_core.teaching import i18n
    before = i18n.get_language()
    i18n.set_language("zh")
    try:
        for info in pkgutil.iter_modules(labs.__path__, "attention_core.labs."):
            try:
                module = importlib.import_module(info.name + ".checks")
            except ModuleNotFoundError:
                continue
            for name, check in inspect.getmembers(module, inspect.isfunction):
                if not name.startswith("check_") or check.__module__ != module.__name__:
                    continue
                if len([p for p in inspect.signature(check).parameters.values() if p.default is p.empty]) != 1:
                    continue                            # checkers of two functions at once are left to their tests
                for learner in (lambda *a, **k: None, lambda *a, **k: 1 / 0):
                    result = check(learner)
                    yield f"{info.name.split('.')[-1]}.{name}", str(getattr(result, "message", result))
    finally:
        i18n.set_language(before)


def test_checker_verdicts_built_at_run_time_are_chinese_in_the_zh_edition():
    found = [(where, run) for where, text in _zh_verdicts() for run in zh_text.english_runs(zh_text.strip_code(text))]
    assert not found, _report(found, "runs of English words in checkers' zh verdicts")
