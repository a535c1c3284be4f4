"""Every shown solution passes its checker, and every starting skeleton gets the checker's "not done yet".

An exercise is a code cell that defines a function whose body raises NotImplementedError and calls a
`checks.check_*` on it; its solution is the ```python block of the <details> that follows, in both
editions. The test runs the notebook's setup cell (so `np`, `ac` and the notebook's `checks` are the
learner's), then:
- the skeleton cell as the learner first meets it: the checker must answer (no crash) and fail,
  naming NotImplementedError;
- the solution block, then the same checker call: it must pass, in both editions' solution blocks.
Both editions' solution blocks hold the same code: the zh block may translate its comments and its string
literals (an error message), nothing else.
"""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from attention_core.teaching import i18n
from attention_core.teaching.notebook_source import parse_source, resolve_code

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
CHECK_CALL = re.compile(r"^(print\()?(checks\.check_\w+\(.*\))\s*$", re.M)
SOLUTION = re.compile(r"<details>.*?```python\n(.*?)```", re.S)


def _python(code: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.split("\n"))


def exercises():
    """(id, setup code, skeleton code, check call, {lang: solution code}) for every exercise of the course."""
    found = []
    for path in SOURCES:
        cells = parse_source(path.read_text(encoding="utf-8"), path.name)
        setup = next(text for kind, _, text in cells if kind == "code")
        for i, (kind, _, text) in enumerate(cells):
            if kind != "code" or "raise NotImplementedError" not in text:
                continue
            calls = [call[:-1] if printed else call for printed, call in CHECK_CALL.findall(resolve_code(text, "en"))]
            if not calls:
                continue
            solutions = {}
            for kind2, lang, md in cells[i + 1:i + 5]:
                m = SOLUTION.search(md) if kind2 == "md" else None
                if m and lang not in solutions:
                    solutions[lang] = m.group(1)
            name = f"{path.stem[:2]}-cell{i}-{calls[-1][7:40]}"
            found.append(pytest.param(setup, text, calls[-1], solutions, id=name))
    return found


EXERCISES = exercises()


def _namespace(setup: str, lang: str) -> dict:
    ns: dict = {}
    exec(compile(_python(resolve_code(setup, lang)), "<setup>", "exec"), ns)
    return ns


def test_the_course_has_its_exercises():
    assert len(EXERCISES) >= 22


@pytest.mark.parametrize("setup, skeleton, call, solutions", EXERCISES)
def test_skeleton_gets_not_done_yet_and_solutions_pass(setup, skeleton, call, solutions):
    assert set(solutions) == {"en", "zh"}, f"{call}: no solution block in {sorted({'en', 'zh'} - set(solutions))}"
    try:
        for lang in ("en", "zh"):
            ns = _namespace(setup, lang)
            code = _python(resolve_code(skeleton, lang))
            body = CHECK_CALL.sub("", code)                   # define the skeleton, then judge it here
            exec(compile(body, "<skeleton>", "exec"), ns)
            verdict = eval(call, ns)
            assert not verdict.passed, f"{lang}: the untouched skeleton passes {call}"
            assert "NotImplementedError" in verdict.message, f"{lang}: {verdict.message}"
            exec(compile(solutions[lang], "<solution>", "exec"), ns)
            verdict = eval(call, ns)
            assert verdict.passed, f"{lang} solution fails {call}: {verdict.message}"
    finally:
        i18n.set_language("en")


def code_tokens(text: str) -> list[tuple[int, str]]:
    """The tokens of `text` that are code: comments and blank lines dropped, and every string literal (an f-string
    is one STRING token in Python 3.11, with the names it formats) replaced by one placeholder, so an edition may
    translate its comments and messages but not its code. Indentation counts by its structure, not its width."""
    fstring_start = getattr(tokenize, "FSTRING_START", None)   # Python 3.12+ splits an f-string into parts
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    out, depth = [], 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if fstring_start is not None and tok.type in (fstring_start, fstring_end):
            depth += 1 if tok.type == fstring_start else -1
            if depth == 0:
                out.append((tokenize.STRING, "<string>"))         # the whole f-string, as 3.11 reads it
            continue
        if depth or tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if tok.type == tokenize.STRING:
            out.append((tok.type, "<string>"))
        elif tok.type in (tokenize.INDENT, tokenize.DEDENT):
            out.append((tok.type, ""))
        else:
            out.append((tok.type, tok.string))
    return out


def test_code_tokens_keep_code_and_drop_words():
    en = 'def f(c, i):\n    raise ValueError(f"unknown character {c!r} at index {i}")  # the message\n'
    zh = 'def f(c, i):\n    raise ValueError(f"未知字符 {c!r}（位置 {i}）")   # 报错信息\n\n'
    assert code_tokens(en) == code_tokens(zh)
    for changed in ('def f(c, i):\n    raise KeyError(f"未知字符 {c!r}（位置 {i}）")\n',
                    'def f(c, i):\n    raise ValueError(f"未知字符 {c!r}（位置 {i}）", i)\n',
                    'def f(c, i):\n    return ValueError(f"未知字符 {c!r}（位置 {i}）")\n'):
        assert code_tokens(en) != code_tokens(changed), changed
    assert code_tokens("if a:\n    b = 1\n") != code_tokens("if a:\n    pass\nb = 1\n")


@pytest.mark.parametrize("setup, skeleton, call, solutions", EXERCISES)
def test_both_editions_show_the_same_solution_code(setup, skeleton, call, solutions):
    """The zh block may translate its comments and string literals (messages); its code is the English block's."""
    assert code_tokens(solutions["en"]) == code_tokens(solutions["zh"]), call
