"""Build both editions of every notebook from one bilingual source, and optionally execute them.

Source files live in notebooks/src/NN_slug.py, in the format of
`attention_core.teaching.notebook_source` (md en / md zh pairs and shared code cells). The builder
also writes the notebook title index that the package ships (attention_core/data/notebooks.json).

In code cells, the token __LANG__ becomes "en" or "zh"; it must appear only in the one
language-setting line of the setup cell. A code cell may open with an nbval marker line
(`# NBVAL_IGNORE_OUTPUT`, `# NBVAL_SKIP`, `# NBVAL_RAISES_EXCEPTION`, `# NBVAL_CHECK_OUTPUT`),
optionally followed by its reason as `# (reason)`: the builder moves the marker into the cell's
tags (which nbval reads as well) and drops both lines, so learners never see test plumbing.
Cells a teacher's view leaves out (the setup cell, cells that print library source) get the tag
`teacher-hide`, which the Voila template `attention-lab-teacher` (`make present`) honours.

One source means the two editions cannot drift apart: the Chinese edition is written next to the
English one, cell by cell, not translated later.

Usage:  python tools/build_notebooks.py [--execute | --metadata-only] [NAME ...]
(--metadata-only rewrites the tags and notebook metadata of the committed notebooks, keeping their outputs.)
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import nbformat

from attention_core.teaching import notebook_source

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
LANGS = ("en", "zh")
INDEX = ROOT / "attention_core" / "data" / notebook_source.INDEX
# nbval's comment markers and the cell tags that mean the same to it (nbval.plugin.metadata_tags).
NBVAL_TAGS = {"NBVAL_IGNORE_OUTPUT": "nbval-ignore-output", "NBVAL_SKIP": "nbval-skip",
              "NBVAL_RAISES_EXCEPTION": "raises-exception", "NBVAL_CHECK_OUTPUT": "nbval-check-output"}
MARKER_LINE = re.compile(r"^#\s*(NBVAL_[A-Z_]+)\s*$")
REASON_LINE = re.compile(r"^#\s*\(.*\)\s*$")
# The display name ipykernel installs: Lab rewrites any other value when the kernel starts, which
# marked every committed notebook modified the moment it was opened.
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def parse(path: Path) -> list[tuple[str, str | None, str]]:
    """Return [(kind, lang, text)] for each cell of a source file."""
    try:
        return notebook_source.parse_source(path.read_text(encoding="utf-8"), path.name)
    except notebook_source.SourceFormatError as exc:
        raise SystemExit(str(exc)) from None


def title_index() -> dict:
    """{stem: {lang: title}} of every source, for the package data (review and quiz read it)."""
    index = {}
    for src in sorted(SRC.glob("[0-9][0-9]_*.py")):
        cells = parse(src)
        index[src.stem] = {lang: notebook_source.source_title(cells, lang) or src.stem[3:].replace("_", " ")
                           for lang in LANGS}
    return index


def write_index() -> None:
    INDEX.write_text(json.dumps(title_index(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


TEACHER_HIDE = "teacher-hide"


def teacher_hides(code: str) -> bool:
    """The setup cell (it sets the edition's language) and cells that print library source."""
    return "__LANG__" in code or "inspect.getsource(" in code


def split_markers(text: str) -> tuple[list[str], str]:
    """(nbval tags, source without its marker lines) of a code cell."""
    lines, tags = text.splitlines(), []
    while lines and (m := MARKER_LINE.match(lines[0].strip())):
        if m.group(1) not in NBVAL_TAGS:
            raise SystemExit(f"unknown nbval marker {lines[0]!r}; expected one of {sorted(NBVAL_TAGS)}")
        tags.append(NBVAL_TAGS[m.group(1)])
        lines.pop(0)
        if lines and REASON_LINE.match(lines[0].strip()):
            lines.pop(0)
    return tags, "\n".join(lines)


# Chinese markdown: a line break inside a paragraph renders as a space, which Chinese does not
# have. The sources are wrapped for editing; the builder joins the lines of each paragraph back.
_BLOCK_START = re.compile(r"^\s*(#|[-*+]\s|\d+[.)]\s|\||>|```|~~~|\$\$|<|\\\[)")
_KEEP_LINE = re.compile(r"^\s*(#|\||<|```|~~~|\$\$)|( {2}|\\)$")


def _char_kind(ch: str) -> str:
    """'han' (a CJK ideograph), 'punct' (full-width or CJK punctuation) or 'latin' (anything else)."""
    if "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf":
        return "han"
    if "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef" or ch in "“”‘’…—·":
        return "punct"
    return "latin"


def join_zh_lines(text: str) -> str:
    """Join the wrapped lines of each paragraph of a Chinese markdown cell.

    Between two Chinese characters, or next to full-width punctuation, the break disappears; between
    a Chinese character and a Latin letter, digit or `code` it becomes one space (as the sources
    write "Query 与 Key"); between two Latin characters it stays a line break. Headings, list items
    (their indented continuation lines are joined to them), tables, block quotes, HTML lines,
    fenced code and display formulas ($$ ... $$) are left as they are.
    """
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        toggles = stripped.startswith(("```", "~~~")) or stripped == "$$"
        if fenced or toggles:
            out.append(line)
            fenced = fenced != toggles
            continue
        prev = out[-1] if out else ""
        if (stripped and prev.strip() and not _BLOCK_START.match(line) and not _KEEP_LINE.search(prev)
                and not (prev.lstrip().startswith("$$") or prev.rstrip().endswith("$$"))):
            a, b = _char_kind(prev.rstrip()[-1]), _char_kind(stripped[0])
            # An emphasis mark at the break keeps a space: "*是谁？*周围" would not close the
            # emphasis in CommonMark (a closing * after punctuation must be followed by a space).
            emphasis = prev.rstrip()[-1] in "*_" or stripped[0] in "*_"
            if not emphasis and ("punct" in (a, b) or (a, b) == ("han", "han")):
                out[-1] = prev.rstrip() + stripped
                continue
            if "han" in (a, b) or (emphasis and "punct" in (a, b)):
                out[-1] = prev.rstrip() + " " + stripped
                continue
        out.append(line)
    return "\n".join(out)


def build(path: Path, lang: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for kind, cell_lang, text in parse(path):
        if kind == "md" and cell_lang in (None, lang):
            nb.cells.append(nbformat.v4.new_markdown_cell(join_zh_lines(text) if cell_lang == "zh" else text))
        elif kind == "code":
            tags, code = split_markers(text.replace("__LANG__", lang))
            tags += [TEACHER_HIDE] if teacher_hides(text) else []
            cell = nbformat.v4.new_code_cell(code)
            if tags:
                cell.metadata["tags"] = tags
            nb.cells.append(cell)
    for i, cell in enumerate(nb.cells):   # stable ids keep diffs of rebuilt notebooks small
        cell["id"] = f"{path.stem[:2]}-{lang}-{i:03d}"
    return nb


def with_metadata_of(built: nbformat.NotebookNode, path: Path) -> nbformat.NotebookNode:
    """The written notebook at `path` (outputs kept) with the tags and kernelspec of `built`."""
    written = nbformat.read(path, as_version=4)
    if [c.source for c in written.cells] != [c.source for c in built.cells]:
        raise SystemExit(f"{path}: its cells differ from the source; rebuild it with --execute")
    for old, new in zip(written.cells, built.cells):
        old.metadata.pop("tags", None)
        old.metadata.update({k: v for k, v in new.metadata.items() if k == "tags"})
    written.metadata["kernelspec"] = built.metadata["kernelspec"]
    return written


def execute(nb: nbformat.NotebookNode, cwd: Path) -> None:
    from nbclient import NotebookClient
    env_backend = os.environ.pop("MPLBACKEND", None)   # let %matplotlib inline store images
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        if env_backend is not None:
            os.environ["MPLBACKEND"] = env_backend


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--execute", action="store_true", help="run each notebook and store its outputs")
    ap.add_argument("--metadata-only", action="store_true",
                    help="refresh cell tags and notebook metadata of the written notebooks, keep their outputs")
    ap.add_argument("names", nargs="*", help="source names or prefixes (default: all)")
    args = ap.parse_args(argv)
    sources = sorted(SRC.glob("[0-9][0-9]_*.py"))
    if args.names:
        sources = [s for s in sources if any(s.stem.startswith(n) for n in args.names)]
    if not sources:
        print("no notebook sources matched", file=sys.stderr)
        return 1
    write_index()
    for src in sources:
        for lang in LANGS:
            out_dir = ROOT / "notebooks" / lang
            out_dir.mkdir(parents=True, exist_ok=True)
            nb = build(src, lang)
            if args.metadata_only:
                nb = with_metadata_of(nb, out_dir / f"{src.stem}.ipynb")
            elif args.execute:
                execute(nb, out_dir)
            nbformat.write(nb, out_dir / f"{src.stem}.ipynb")
            print(f"wrote notebooks/{lang}/{src.stem}.ipynb" + (" (executed)" if args.execute else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
