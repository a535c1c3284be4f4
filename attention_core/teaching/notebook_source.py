"""The bilingual notebook source format (notebooks/src/NN_slug.py) and the index of notebook titles.

A source is a sequence of cells, each opened by a marker line:

    #%% md en        English markdown (must be followed directly by its `#%% md zh` twin)
    #%% md zh        Chinese markdown
    #%% md           markdown shared by both editions (rare: formulas only)
    #%% code         a code cell, identical in both editions

`tools/build_notebooks.py` parses sources with `parse_source` and writes the title of every
notebook into the package data (`attention_core/data/notebooks.json`), which `notebook_titles()`
reads, so an installed package knows the course's notebooks without the repository.
"""
from __future__ import annotations

import json
import re
from importlib.resources import files

MARKER = re.compile(r"^#%%\s*(md|code)\s*(en|zh)?\s*$")
TITLE = re.compile(r"^#\s+\d\d\s*·\s*(.+?)\s*$")
INDEX = "notebooks.json"


class SourceFormatError(ValueError):
    """A notebook source breaks the format (text before the first marker, an unpaired md cell, ...)."""


def parse_source(text: str, name: str = "<source>") -> list[tuple[str, str | None, str]]:
    """[(kind, lang, text)] for each cell of a source: kind "md" or "code", lang "en", "zh" or None."""
    cells: list[list] = []
    for line in text.splitlines():
        m = MARKER.match(line)
        if m:
            cells.append([m.group(1), m.group(2), []])
        elif cells:
            cells[-1][2].append(line)
        elif line.strip():
            raise SourceFormatError(f"{name}: text before the first cell marker: {line!r}")
    out = [(kind, lang, "\n".join(lines).strip("\n")) for kind, lang, lines in cells]
    for i, (kind, lang, _) in enumerate(out):
        if kind == "code" and lang:
            raise SourceFormatError(f"{name}: cell {i}: code cells are shared; drop the language tag")
        if kind == "md" and lang == "en" and (i + 1 >= len(out) or out[i + 1][:2] != ("md", "zh")):
            raise SourceFormatError(f"{name}: cell {i}: an `md en` cell must be followed by its `md zh` twin")
        if kind == "md" and lang == "zh" and (i == 0 or out[i - 1][:2] != ("md", "en")):
            raise SourceFormatError(f"{name}: cell {i}: an `md zh` cell must follow its `md en` twin")
    return out


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
