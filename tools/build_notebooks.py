"""Build both editions of every notebook from one bilingual source, and optionally execute them.

Source files live in notebooks/src/NN_slug.py. A source is a sequence of cells, each opened by
a marker line:

    #%% md en        English markdown (must be followed directly by its `#%% md zh` twin)
    #%% md zh        Chinese markdown
    #%% md           markdown shared by both editions (rare: formulas only)
    #%% code         a code cell, identical in both editions

In code cells, the token __LANG__ becomes "en" or "zh"; it must appear only in the one
language-setting line of the setup cell. One source means the two editions cannot drift apart:
the Chinese edition is written next to the English one, cell by cell, not translated later.

Usage:  python tools/build_notebooks.py [--execute] [NAME ...]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
LANGS = ("en", "zh")
MARKER = re.compile(r"^#%%\s*(md|code)\s*(en|zh)?\s*$")


def parse(path: Path) -> list[tuple[str, str | None, str]]:
    """Return [(kind, lang, text)] for each cell of a source file."""
    cells: list[list] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = MARKER.match(line)
        if m:
            cells.append([m.group(1), m.group(2), []])
        elif cells:
            cells[-1][2].append(line)
        elif line.strip():
            raise SystemExit(f"{path.name}: text before the first cell marker: {line!r}")
    out = [(kind, lang, "\n".join(lines).strip("\n")) for kind, lang, lines in cells]
    for i, (kind, lang, _) in enumerate(out):
        if kind == "code" and lang:
            raise SystemExit(f"{path.name}: cell {i}: code cells are shared; drop the language tag")
        if kind == "md" and lang == "en" and (i + 1 >= len(out) or out[i + 1][:2] != ("md", "zh")):
            raise SystemExit(f"{path.name}: cell {i}: an `md en` cell must be followed by its `md zh` twin")
        if kind == "md" and lang == "zh" and (i == 0 or out[i - 1][:2] != ("md", "en")):
            raise SystemExit(f"{path.name}: cell {i}: an `md zh` cell must follow its `md en` twin")
    return out


def build(path: Path, lang: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, cell_lang, text in parse(path):
        if kind == "md" and cell_lang in (None, lang):
            nb.cells.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code":
            nb.cells.append(nbformat.v4.new_code_cell(text.replace("__LANG__", lang)))
    for i, cell in enumerate(nb.cells):   # stable ids keep diffs of rebuilt notebooks small
        cell["id"] = f"{path.stem[:2]}-{lang}-{i:03d}"
    return nb


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
    ap.add_argument("names", nargs="*", help="source names or prefixes (default: all)")
    args = ap.parse_args(argv)
    sources = sorted(SRC.glob("[0-9][0-9]_*.py"))
    if args.names:
        sources = [s for s in sources if any(s.stem.startswith(n) for n in args.names)]
    if not sources:
        print("no notebook sources matched", file=sys.stderr)
        return 1
    for src in sources:
        for lang in LANGS:
            out_dir = ROOT / "notebooks" / lang
            out_dir.mkdir(parents=True, exist_ok=True)
            nb = build(src, lang)
            if args.execute:
                execute(nb, out_dir)
            nbformat.write(nb, out_dir / f"{src.stem}.ipynb")
            print(f"wrote notebooks/{lang}/{src.stem}.ipynb" + (" (executed)" if args.execute else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
