"""Build both editions of every notebook from one bilingual source; execute only what changed.

Sources live in notebooks/src/NN_slug.py, jupytext percent scripts in the format of
`attention_core.teaching.notebook_source` (markdown cells tagged lang="en"/"zh", shared code cells
whose [en]/[zh] string literals and comments resolve per edition). The builder also writes the
notebook title index that the package ships (attention_core/data/notebooks.json).

A code cell may open with a marker line, optionally followed by its reason as `# (reason)`:
nbval's (`# NBVAL_IGNORE_OUTPUT`, `# NBVAL_SKIP`, `# NBVAL_RAISES_EXCEPTION`, `# NBVAL_CHECK_OUTPUT`)
or `# MEASUREMENT` (a timing or version cell: tagged `measurement`, and ignored by nbval). The builder
moves the marker into the cell's tags and drops both lines, so learners never see test plumbing.
Cells a teacher's view leaves out (the setup cell, cells that print library source) get the tag
`teacher-hide`, which the Voila template `attention-lab-teacher` (`make present`) honours.

Outputs are kept per code cell. Each written notebook records a hash of its built code and of the library it
can depend on (`metadata.attention_lab.inputs`: core, backends, teaching, shared data, and the labs its code
and the quiz bank name, with the labs those import): when neither changed, a rebuild takes the stored outputs
over and executes nothing (a markdown edit changes only that markdown); otherwise the notebook is executed.
Stored notebooks carry no timestamps, random widget ids, memory addresses or paths, so re-executing an
unchanged notebook changes only its `measurement` cells.

Usage:  python tools/build_notebooks.py [--force] [--no-execute] [NAME ...]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import unicodedata
import uuid
from pathlib import Path

import nbformat

from attention_core.teaching import notebook_source

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
LANGS = notebook_source.LANGS    # the two editions, declared once (teaching.i18n.LANGUAGES)
INDEX = ROOT / "attention_core" / "data" / notebook_source.INDEX
# nbval's comment markers and the cell tags that mean the same to it (nbval.plugin.metadata_tags).
NBVAL_TAGS = {"NBVAL_IGNORE_OUTPUT": ["nbval-ignore-output"], "NBVAL_SKIP": ["nbval-skip"],
              "NBVAL_RAISES_EXCEPTION": ["raises-exception"], "NBVAL_CHECK_OUTPUT": ["nbval-check-output"],
              "MEASUREMENT": ["measurement", "nbval-ignore-output"]}
MARKER_LINE = re.compile(r"^#\s*(NBVAL_[A-Z_]+|MEASUREMENT)\s*$")
REASON_LINE = re.compile(r"^#\s*\(.*\)\s*$")
# The display name ipykernel installs: Lab rewrites any other value when the kernel starts, which
# marked every committed notebook modified the moment it was opened.
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def read_source(path: Path) -> str:
    """The text of a source file (UTF-8); a file that is not UTF-8 stops the build with its name."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise SystemExit(f"{path.name}:{line}: not UTF-8 text (byte {path.read_bytes()[exc.start]:#04x} at offset "
                         f"{exc.start}); save the source as UTF-8") from None


def parse(path: Path) -> list[tuple[str, str | None, str]]:
    """Return [(kind, lang, text)] for each cell of a source file."""
    try:
        return notebook_source.parse_source(read_source(path), path.name)
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
    """The setup cell (it sets the edition's language), cells that print library source, and exercise
    cells: a skeleton that raises NotImplementedError, or a call of a checker (whose red verdict on an
    unwritten skeleton is for the learner, not the class)."""
    return ("i18n.set_language(" in code or "inspect.getsource(" in code or "formula.source(" in code
            or "NotImplementedError" in code
            or re.search(r"\bcheck_[a-z0-9_]+\(", code) is not None)


_EXERCISE_HEADING = re.compile(r"^(#{2,4}) .*(?:[Ee]xercise|练习)")
_SOLUTION = re.compile(r"<details><summary>[^<]*(?:solution|参考答案)")          # an exercise's shown solution
# the last sentence of a paragraph: after ". ", "! ", "? " (English) or "。", "！", "？" (Chinese)
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])\s+(?=[A-Z*`(\[$“\"])|(?<=[。！？]))")


def _introduction(text: str) -> tuple[str, str] | None:
    """(text before, the sentence) when a markdown cell ends with a sentence that introduces what comes
    next ("Here is the whole loop:"); None otherwise."""
    body = text.rstrip()
    if not body.endswith((":", "：")) or body.splitlines()[-1].lstrip().startswith(("#", "|", "- ", "* ", ">")):
        return None
    start = body.rfind("\n\n") + 2 if "\n\n" in body else 0
    paragraph = body[start:]
    cuts = [m.end() for m in _SENTENCE_END.finditer(paragraph) if m.end() < len(paragraph)]
    cut = start + (cuts[-1] if cuts else 0)
    return body[:cut].rstrip(), body[cut:].strip()


def teacher_view_tags(cells) -> list:
    """Tag the cells the teacher's view leaves out, and give a hidden cell's introducing sentence the
    same tag: every cell of an exercise section (its heading names an exercise, down to the next heading
    of its level or above), every shown solution (<details> "Show a solution"), and the sentence ending in
    ':' that leads into a hidden code cell (split off into its own markdown cell when the cell says more
    before it). Returns the new list of cells."""
    out, section = [], None                  # section: the heading level of the exercise we are in
    for cell in cells:
        if cell.cell_type == "markdown":
            first = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
            heading = re.match(r"^(#{1,6}) ", first)
            if heading and section is not None and len(heading.group(1)) <= section:
                section = None
            if (m := _EXERCISE_HEADING.match(first)) and section is None:
                section = len(m.group(1))
        solution = cell.cell_type == "markdown" and _SOLUTION.match(cell.source.lstrip()) is not None
        hidden = section is not None or solution or TEACHER_HIDE in cell.metadata.get("tags", [])
        if hidden:
            cell.metadata["tags"] = sorted(set(cell.metadata.get("tags", [])) | {TEACHER_HIDE})
            if cell.cell_type == "code" and out and out[-1].cell_type == "markdown" \
                    and TEACHER_HIDE not in out[-1].metadata.get("tags", []):
                intro = _introduction(out[-1].source)
                if intro is not None:
                    before, sentence = intro
                    if before:
                        out[-1].source = before
                        out.append(nbformat.v4.new_markdown_cell(sentence))
                    out[-1].metadata["tags"] = [TEACHER_HIDE]
        out.append(cell)
    return out


MARKER_LIKE = re.compile(r"^\s*#\s*(nbval[\w-]*|measurement)\s*$", re.IGNORECASE)


def check_test_markers(text: str, name: str) -> None:
    """Refuse, with file and line, a marker nbval or the builder would misread: a misspelt or lowercase one
    (silently a plain comment otherwise), or one below the first code line of its cell (learners would see it)."""
    previous, markdown = "", False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("# %%"):
            markdown = "[markdown]" in line
        if not markdown and MARKER_LIKE.match(line):
            m = MARKER_LINE.match(line.strip())
            if not m or m.group(1) not in NBVAL_TAGS:
                raise SystemExit(f"{name}:{number}: unknown test marker {line.strip()!r}; "
                                 f"expected one of {', '.join('# ' + k for k in sorted(NBVAL_TAGS))}")
            if not (previous.startswith("# %%") and "[markdown]" not in previous
                    or MARKER_LINE.match(previous) or REASON_LINE.match(previous)):
                raise SystemExit(f"{name}:{number}: {line.strip()!r} must open its code cell "
                                 "(right below '# %%', before any code)")
        if line.strip():
            previous = line.strip()


def split_markers(text: str) -> tuple[list[str], str]:
    """(nbval tags, source without its marker lines) of a code cell."""
    lines, tags = text.splitlines(), []
    while lines and (m := MARKER_LINE.match(lines[0].strip())):
        if m.group(1) not in NBVAL_TAGS:
            raise SystemExit(f"unknown nbval marker {lines[0]!r}; expected one of {sorted(NBVAL_TAGS)}")
        tags += NBVAL_TAGS[m.group(1)]
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


_LINK_END = re.compile(r"(.)\]\([^()\s]*\)$")


def _punct(ch: str) -> bool:
    """A Unicode punctuation or symbol character: what CommonMark's flanking rules treat as punctuation."""
    return unicodedata.category(ch)[0] in "PS"


def _flanks(before: str, after: str, closing: bool) -> bool:
    """Whether an emphasis delimiter run between `before` and `after` ("" at a line's end) can close
    (closing=True: right-flanking) or open (left-flanking) in CommonMark."""
    if closing:
        return bool(before.strip()) and (not _punct(before) or not after.strip() or _punct(after))
    return bool(after.strip()) and (not _punct(after) or not before.strip() or _punct(before))


def join_zh_lines(text: str) -> str:
    """Join the wrapped lines of each paragraph of a Chinese markdown cell.

    Between two Chinese characters, or next to full-width punctuation, the break disappears; between
    a Chinese character and a Latin letter, digit or `code` it becomes one space (as the sources
    write "Query 与 Key"); between two Latin characters it stays a line break. An emphasis mark at the
    break (`**机构**` / `（`) is looked through: the characters beside it decide. Only where a joined
    mark could not close (or open) in CommonMark, as in `*是谁？*` / `周围`, is a space kept, so the
    emphasis still renders; the spacing test then names the source to reword. A link is read by its
    text, so `[12 · 训练好的模型](12_x.ipynb)` / `在` joins without a space. Headings, list items
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
            head = prev.rstrip()
            closer = len(head) - len(head.rstrip("*_"))            # an emphasis run ending the line
            opener = len(stripped) - len(stripped.lstrip("*_"))    # one starting the next line
            x, y = head[:len(head) - closer][-1:], stripped[opener:][:1]
            link = _LINK_END.search(head)                   # a link is read by its text: [第 12 节](12_x.ipynb)
            a = _char_kind(link.group(1) if link and not closer else x or " ")
            b = _char_kind(stripped[opener + 1] if y == "[" and len(stripped) > opener + 1 else y or " ")
            if "punct" in (a, b) or (a, b) == ("han", "han"):
                joined = ((not closer or _flanks(x, stripped[0], closing=True))
                          and (not opener or _flanks(head[-1], y, closing=False)) and not (closer and opener))
                out[-1] = head + ("" if joined else " ") + stripped
                continue
            if "han" in (a, b):
                out[-1] = head + " " + stripped
                continue
        out.append(line)
    return "\n".join(out)


def build(path: Path, lang: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    check_test_markers(read_source(path), path.name)
    for i, (kind, cell_lang, text) in enumerate(parse(path)):
        if kind == "md" and cell_lang in (None, lang):
            nb.cells.append(nbformat.v4.new_markdown_cell(join_zh_lines(text) if cell_lang == "zh" else text))
        elif kind == "code":
            try:
                resolved = notebook_source.resolve_code(text, lang, f"{path.name}, cell {i}")
            except notebook_source.SourceFormatError as exc:
                raise SystemExit(str(exc)) from None
            tags, code = split_markers(resolved)
            tags += [TEACHER_HIDE] if teacher_hides(text) else []
            cell = nbformat.v4.new_code_cell(code)
            if tags:
                cell.metadata["tags"] = tags
            nb.cells.append(cell)
    nb.cells = teacher_view_tags(nb.cells)
    for i, cell in enumerate(nb.cells):   # stable ids keep diffs of rebuilt notebooks small
        cell["id"] = f"{path.stem[:2]}-{lang}-{i:03d}"
    return nb


LIBRARY = ROOT / "attention_core"


LABS = LIBRARY / "labs"
_LAB_NAME = re.compile(r"nb\d\d_[a-z0-9_]+")
# Package data a lab owns (read only through that lab); every other data file is shared by all notebooks.
DATA_OWNERS = {"course_text.json": "nb13_build_a_gpt", "models/nb13_": "nb13_build_a_gpt",
               "models/": "nb12_trained_transformer", "terms.json": "nb00_start_here"}


def _data_owner(rel: str) -> str | None:
    """The lab that owns data file `rel` (relative to attention_core/data), or None when shared."""
    return next((lab for prefix, lab in DATA_OWNERS.items() if rel.startswith(prefix)), None)


def _values(node, key: str):
    """Every value stored under `key` anywhere inside a JSON tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from _values(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from _values(v, key)


def quiz_labs() -> set[str]:
    """Labs whose checkers the quiz bank names (teaching.checks.lab_checker finds them by name)."""
    bank = json.loads((LIBRARY / "data" / "quiz" / "questions.json").read_text(encoding="utf-8"))
    return {f"nb{notebook}" for q in bank["questions"] if q.get("check")
            for notebook in _values(q, "notebook") if isinstance(notebook, str)}


def notebook_labs(code: str) -> set[str]:
    """The labs a notebook's code uses, with the labs those import, and the labs the quiz bank names."""
    todo = {name for name in {*_LAB_NAME.findall(code), *quiz_labs()} if (LABS / name).is_dir()}
    found: set[str] = set()
    while todo:
        lab = todo.pop()
        found.add(lab)
        for path in (LABS / lab).rglob("*.py"):
            todo |= {n for n in _LAB_NAME.findall(path.read_text(encoding="utf-8"))
                     if (LABS / n).is_dir() and n not in found}
    return found


def library_hash(labs: set[str] | None = None) -> str:
    """sha256 of the package's code and data that a notebook can depend on.

    labs=None: the whole package. Otherwise core, backends, teaching, the shared data, and only the named
    labs with the data they own: a change to notebook 12's lab re-executes 12 and 13, not 03."""
    digest = hashlib.sha256()
    for path in sorted(LIBRARY.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        rel = path.relative_to(LIBRARY)
        if labs is not None:
            parts = rel.parts
            if parts[0] == "labs" and len(parts) > 2 and parts[1] not in labs:
                continue
            owner = _data_owner(rel.relative_to("data").as_posix()) if parts[0] == "data" else None
            if owner is not None and owner not in labs:
                continue
        digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def without_comments(code: str) -> str:
    """The code with its comments and blank lines removed: what its outputs can depend on."""
    lines = code.split("\n")
    for kind, (row, col), _ in reversed(list(notebook_source.literal_spans(notebook_source.tokenizable(code)))):
        if kind == "comment" and not lines[row - 1].lstrip().startswith(("%", "!")):   # magics stay
            lines[row - 1] = lines[row - 1][:col].rstrip()
    return "\n".join(line for line in lines if line.strip())


def inputs_hash(nb: nbformat.NotebookNode, library: str) -> str:
    """What a notebook's outputs depend on: its code cells (with their tags, without comments) and the library."""
    code = [[without_comments(c.source), [t for t in c.metadata.get("tags", []) if t != TEACHER_HIDE]]
            for c in nb.cells if c.cell_type == "code"]              # what the teacher's view hides changes no output
    return hashlib.sha256(json.dumps([code, library], ensure_ascii=False).encode()).hexdigest()[:16]


def take_outputs(built: nbformat.NotebookNode, path: Path, inputs: str) -> bool:
    """Copy the stored outputs of `path` into `built` when it was made from the same inputs."""
    if not path.exists():
        return False
    written = nbformat.read(path, as_version=4)
    if written.metadata.get("attention_lab", {}).get("inputs") != inputs:
        return False
    old = [c for c in written.cells if c.cell_type == "code"]
    new = [c for c in built.cells if c.cell_type == "code"]
    for o, n in zip(old, new):
        n.outputs, n.execution_count = o.outputs, o.execution_count
    for key in ("widgets", "language_info"):
        if key in written.metadata:
            built.metadata[key] = written.metadata[key]
    return True


def execute(nb: nbformat.NotebookNode, cwd: Path) -> None:
    from nbclient import NotebookClient
    env_backend = os.environ.pop("MPLBACKEND", None)   # let %matplotlib inline store images
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                       resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        if env_backend is not None:
            os.environ["MPLBACKEND"] = env_backend


_MODEL_ID = re.compile(r"[0-9a-f]{32}")


def coalesce_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks: where the kernel happened to flush is not an output."""
    out = []
    for o in outputs:
        if out and o.get("output_type") == "stream" and out[-1].get("output_type") == "stream" \
                and out[-1].get("name") == o.get("name"):
            out[-1]["text"] = out[-1]["text"] + o["text"]
        else:
            out.append(o)
    return out


def normalize(nb: nbformat.NotebookNode, name: str, renumber: bool = True) -> nbformat.NotebookNode:
    """Drop what differs from run to run: timestamps, the kernel's version details, random widget ids.

    renumber: give the widget models ids made from their creation order (right after an execution, when
    the state lists them in that order; a written notebook's state is sorted, so kept outputs keep theirs)."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    # language_info stays as the kernel reported it (JupyterLab rewrites a shorter one on opening, which
    # marked every committed notebook modified); it names the Python version, not the run.
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    ids = {old: uuid.uuid5(uuid.NAMESPACE_URL, f"attention-lab/{name}/{i}").hex for i, old in enumerate(state)
           } if renumber else {}
    if ids:
        text = json.dumps(nb, ensure_ascii=False)
        text = _MODEL_ID.sub(lambda m: ids.get(m.group(0), m.group(0)), text)
        nb = nbformat.from_dict(json.loads(text))
    return nb


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", action="store_true", help="execute every named notebook, changed or not")
    ap.add_argument("--no-execute", action="store_true",
                    help="never execute: notebooks whose code changed are written without outputs")
    ap.add_argument("names", nargs="*", help="source names or prefixes (default: all)")
    args = ap.parse_args(argv)
    sources = sorted(SRC.glob("[0-9][0-9]_*.py"))
    if args.names:
        sources = [s for s in sources if any(s.stem.startswith(n) for n in args.names)]
    if not sources:
        print("no notebook sources matched", file=sys.stderr)
        return 1
    write_index()
    hashes: dict[frozenset, str] = {}
    for src in sources:
        for lang in LANGS:
            out_dir = ROOT / "notebooks" / lang
            out_dir.mkdir(parents=True, exist_ok=True)
            target = out_dir / f"{src.stem}.ipynb"
            nb = build(src, lang)
            labs = frozenset(notebook_labs("\n".join(c.source for c in nb.cells if c.cell_type == "code")))
            library = hashes.get(labs) or hashes.setdefault(labs, library_hash(set(labs)))
            inputs = inputs_hash(nb, library)
            if not args.force and take_outputs(nb, target, inputs):
                how = "outputs kept"
            elif args.no_execute:
                how = "code changed: written without outputs"
            else:
                execute(nb, out_dir)
                how = "executed"
            # a notebook written without outputs is not stamped as made from these inputs: the next build executes it
            nb.metadata["attention_lab"] = {"inputs": inputs if how != "code changed: written without outputs" else ""}
            nb = normalize(nb, f"{lang}/{src.stem}", renumber=how == "executed")
            before = target.read_text(encoding="utf-8") if target.exists() else None
            nbformat.write(nb, target)
            changed = before != target.read_text(encoding="utf-8")
            print(f"notebooks/{lang}/{src.stem}.ipynb: {how}" + ("" if changed else ", unchanged"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
