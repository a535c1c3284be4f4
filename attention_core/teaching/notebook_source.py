"""The bilingual notebook source format (notebooks/src/NN_slug.py) and the index of notebook titles.

A source is a jupytext "percent" script: JupyterLab (with jupytext), VS Code and PyCharm open it as a
notebook, and ruff lints its code cells. Exactly these cell markers are allowed:

    # %% [markdown] lang="en"   English markdown (followed directly by its `lang="zh"` twin)
    # %% [markdown] lang="zh"   Chinese markdown
    # %% [markdown]             markdown shared by both editions (rare: formulas only)
    # %%                        a code cell, built into both editions

Anything else that starts like a marker (`#%% md`, `# %% [md]`, `# %% code`, a typo) is an error that
names the file and line: a mistyped marker is never merged silently into the previous cell.

Code cells are shared, yet each built edition holds plain Python in its own language. Per-edition
words are written in place and resolved by `resolve_code(code, lang)`:

    print("[en]scores x =[zh]分数 x =", scores)     ->  print("scores x =", scores)      (en)
    print(f"[en]sum = {s:.3f}[zh]总和 = {s:.3f}")   ->  print(f"总和 = {s:.3f}")          (zh)
    x = 1  # [en] why, in English [zh] 中文的理由    ->  x = 1  # why, in English        (en)
    # [en] a comment line only the English edition has
    # [zh] 只有中文版才有的注释行

A string literal (any prefix or quotes, docstrings included) whose text starts with `[en]` and holds
one `[zh]` becomes the part of its edition (in a triple-quoted string each part is stripped and the
literal's own leading and trailing whitespace kept). A comment `# [en] A [zh] B` becomes `# A` or
`# B`; `# [en] A` alone is kept only in the English edition (the whole line goes in the other one),
`# [zh] B` alone only in the Chinese one. So the two editions' code is identical once string literals
and comments are set aside, which tests/notebooks/test_notebook_editions.py checks.

`tools/build_notebooks.py` builds the editions with `parse_source` and `resolve_code` and writes the
title of every notebook into the package data (`attention_core/data/notebooks.json`), which
`notebook_titles()` reads, so an installed package knows the course's notebooks without the repository.
"""
from __future__ import annotations

import io
import json
import re
import tokenize
from importlib.resources import files

from attention_core.teaching.i18n import LANGUAGES

LANGS = LANGUAGES                # the course's two languages, declared once in teaching.i18n
# A line that looks like a cell marker at all, and the exact forms that are allowed.
MARKER_LIKE = re.compile(r"^\s*#\s*%%")
MARKERS = {
    "# %%": ("code", None),
    "# %% [markdown]": ("md", None),
    '# %% [markdown] lang="en"': ("md", "en"),
    '# %% [markdown] lang="zh"': ("md", "zh"),
}
TITLE = re.compile(r"^#\s+\d\d\s*·\s*(.+?)\s*$")
INDEX = "notebooks.json"
EN, ZH = "[en]", "[zh]"
_STRING = re.compile(r"^(?P<prefix>[rRbBuUfF]*)(?P<quote>\"\"\"|'''|\"|')(?P<body>.*)(?P=quote)$", re.S)


class SourceFormatError(ValueError):
    """A notebook source breaks the format (an unknown marker, an unpaired md cell, a bad [en]/[zh] use)."""


def check_markers(text: str, name: str = "<source>") -> list[tuple[int, str, str | None]]:
    """[(line number, kind, lang)] of every cell marker; SourceFormatError for a marker of no known form."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not MARKER_LIKE.match(line):
            continue
        if line.rstrip() not in MARKERS:
            allowed = ", ".join(repr(m) for m in MARKERS)
            raise SourceFormatError(f"{name}:{number}: unknown cell marker {line.strip()!r}; expected one of {allowed}")
        found.append((number, *MARKERS[line.rstrip()]))
    return found


def parse_source(text: str, name: str = "<source>") -> list[tuple[str, str | None, str]]:
    """[(kind, lang, text)] for each cell of a source: kind "md" or "code", lang "en", "zh" or None.

    The cells are read by jupytext itself (so they are what JupyterLab shows), after the markers have
    been checked line by line; code text still holds its [en]/[zh] parts (see `resolve_code`).
    """
    import jupytext  # a build and test requirement, not a run-time one of the package

    markers = check_markers(text, name)
    if not markers:
        raise SourceFormatError(f"{name}: no cells (an empty source, or no '# %%' cell marker): a notebook source "
                                "holds its cells, each opened by '# %%' or '# %% [markdown] lang=\"en\"'")
    notebook = jupytext.reads(text, fmt="py:percent")
    if len(notebook.cells) != len(markers):
        raise SourceFormatError(f"{name}: {len(markers)} cell markers but jupytext reads {len(notebook.cells)} "
                                "cells (text before the first marker?)")
    out = []
    for (number, kind, lang), cell in zip(markers, notebook.cells):
        if (cell.cell_type == "markdown") != (kind == "md") or cell.metadata.get("lang") != lang:
            raise SourceFormatError(f"{name}:{number}: jupytext reads this cell differently ({cell.cell_type}, "
                                    f"{dict(cell.metadata)})")
        out.append((kind, lang, cell.source.strip("\n")))
    for i, ((kind, lang, _), (number, _, _)) in enumerate(zip(out, markers)):
        if kind == "md" and lang == "en" and (i + 1 >= len(out) or out[i + 1][:2] != ("md", "zh")):
            raise SourceFormatError(f"{name}:{number}: an English markdown cell must be followed by its Chinese twin")
        if kind == "md" and lang == "zh" and (i == 0 or out[i - 1][:2] != ("md", "en")):
            raise SourceFormatError(f"{name}:{number}: a Chinese markdown cell must follow its English twin")
    return out


def _split(text: str, where: str) -> tuple[str, str]:
    """(English part, Chinese part) of text that starts with [en] and holds one [zh]."""
    if text.count(EN) != 1 or text.count(ZH) != 1 or not text.startswith(EN) or text.index(ZH) < len(EN):
        raise SourceFormatError(f"{where}: expected '[en] English [zh] Chinese' (each marker once, [en] first), "
                                f"got {text[:60]!r}")
    en, zh = text[len(EN):].split(ZH)
    return en, zh


def _resolve_string(token: str, lang: str, where: str) -> str:
    m = _STRING.match(token)
    if not m or EN not in m["body"] and ZH not in m["body"]:
        return token
    body, quote = m["body"], m["quote"]
    if len(quote) == 3:   # docstrings: keep the literal's own surrounding whitespace, strip each part
        lead, core = body[:len(body) - len(body.lstrip())], body.strip()
        trail = body[len(body.rstrip()):]
        en, zh = _split(core, where)
        chosen = lead + (en if lang == "en" else zh).strip() + trail
    else:
        en, zh = _split(body, where)
        chosen = en if lang == "en" else zh
    return m["prefix"] + quote + chosen + quote


def _resolve_comment(token: str, lang: str, where: str) -> str | None:
    """The comment in `lang`, or None when the comment belongs to the other edition only."""
    text = token[1:].strip()
    if not text.startswith((EN, ZH)):
        if EN in text or ZH in text:
            raise SourceFormatError(f"{where}: a comment with [en]/[zh] must start with one of them: {token!r}")
        return token
    if text.startswith(ZH):
        if EN in text[len(ZH):]:
            raise SourceFormatError(f"{where}: write [en] before [zh]: {token!r}")
        return "# " + text[len(ZH):].strip() if lang == "zh" else None
    if ZH not in text:
        return "# " + text[len(EN):].strip() if lang == "en" else None
    en, zh = _split(text, where)
    return "# " + (en if lang == "en" else zh).strip()


def literal_spans(code: str):
    """(kind, (row, col), (row, col), text) of each string literal and comment, f-strings whole."""
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    depth, start = 0, None
    fstring_start = getattr(tokenize, "FSTRING_START", None)   # Python 3.12+ splits f-strings
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    for tok in tokens:
        if fstring_start is not None and tok.type == fstring_start:
            depth += 1
            start = tok.start if depth == 1 else start
        elif fstring_end is not None and tok.type == fstring_end:
            depth -= 1
            if depth == 0:
                yield "string", start, tok.end
        elif depth == 0 and tok.type == tokenize.STRING:
            yield "string", tok.start, tok.end
        elif depth == 0 and tok.type == tokenize.COMMENT:
            yield "comment", tok.start, tok.end


def tokenizable(code: str) -> str:
    """The code with IPython magics (`%matplotlib inline`, `!pip`) turned into comments of equal length."""
    return "\n".join("#" + line[1:] if line.lstrip().startswith(("%", "!")) else line for line in code.split("\n"))


def resolve_code(code: str, lang: str, where: str = "<cell>") -> str:
    """The code of one edition: [en]/[zh] string literals and comments resolved (see the module doc)."""
    if lang not in LANGS:
        raise ValueError(f"lang: expected one of {LANGS}, got {lang!r}")
    if EN not in code and ZH not in code:
        return code
    lines = code.split("\n")
    try:
        spans = list(literal_spans(tokenizable(code)))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise SourceFormatError(f"{where}: the code cannot be tokenized ({exc})") from None
    for kind, (r0, c0), (r1, c1) in reversed(spans):   # from the end, so earlier positions stay valid
        if r0 == r1:
            text = lines[r0 - 1][c0:c1]
        else:
            text = "\n".join([lines[r0 - 1][c0:], *lines[r0:r1 - 1], lines[r1 - 1][:c1]])
        if EN not in text and ZH not in text:
            continue
        at = f"{where}, line {r0}"
        new = _resolve_string(text, lang, at) if kind == "string" else _resolve_comment(text, lang, at)
        if new is None:
            before = lines[r0 - 1][:c0]
            if before.strip():
                lines[r0 - 1] = before.rstrip()
            else:
                lines[r0 - 1] = None    # the whole line belongs to the other edition
            continue
        head, tail = lines[r0 - 1][:c0], lines[r1 - 1][c1:]
        lines[r0 - 1:r1] = (head + new + tail).split("\n")
    return "\n".join(line for line in lines if line is not None)


def source_title(cells, lang: str) -> str | None:
    """The `# NN · Title` heading of the first markdown cell of `lang` (without "NN · ")."""
    for kind, cell_lang, text in cells:
        if kind == "md" and cell_lang in (lang, None):
            for line in text.splitlines():
                m = TITLE.match(line)
                if m:
                    return m.group(1)
    return None


def notebook_titles() -> dict[str, dict[str, str]]:
    """{stem: {"en": title, "zh": title}} for every notebook of the course, in order."""
    return json.loads(files("attention_core.data").joinpath(INDEX).read_text(encoding="utf-8"))
