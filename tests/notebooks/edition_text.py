"""Every text a learner reads in one edition, each with the notebook it belongs to and the code names around it, for
the term test (test_terms.py) and the English-in-Chinese test (test_zh_english.py).

`texts(lang)` yields `Text(notebook, where, kind, text, names)`:
- notebook: "00".."13" for what a notebook shows, its lab's string tables and the quiz questions it asks; "--" for
  the shared teaching strings;
- kind: markdown, literal (a string of the edition's code), docstring, comment, printed, html, markdown-output,
  source-comment (a comment or docstring of library code printed with formula.source), string, quiz;
- text: code spans, formulas, tags and link targets already taken out (zh_text.strip_code);
- names: the identifiers a text may name without backticks, because it sits in code or prints it: the names of the
  notebook's code and of its lab (a docstring: also its function's arguments); for a string table, of its lab.
Left out on purpose: notebook 00's glossary output (it lists the English names and d2l-zh's terms), the samples a
model writes (zh_text.GENERATED_SAMPLES), a widget's text/plain repr when its static view (text/html) is there.
"""
from __future__ import annotations

import ast
import importlib
import io
import json
import pkgutil
import re
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import zh_text

from attention_core.teaching import i18n
from attention_core.teaching import notebook_source as ns

REPO = zh_text.REPO
PACKAGE = REPO / "attention_core"
GLOSSARY_CALL = "glossary.table("
SOURCE_PRINTERS = ("formula.source(", "inspect.getsource(")


@dataclass(frozen=True)
class Text:
    notebook: str
    where: str
    kind: str
    text: str
    names: frozenset = frozenset()


def notebooks(lang: str) -> list[Path]:
    return sorted((REPO / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb"))


def identifiers(code: str) -> set[str]:
    """The names a piece of Python binds, reads, calls or passes (attributes, arguments and keywords included)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_]\w*", re.sub(r"(?m)#.*$", "", code)))     # a magic line: every word token
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.update((node.asname or node.name).split("."))
    return found


def _code_without_magics(code: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.split("\n"))


def _literals(code: str):
    """(kind, text, extra names) of each string literal: docstrings carry their function's arguments and name."""
    try:
        tree = ast.parse(_code_without_magics(code))
    except SyntaxError:
        return
    docstrings = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings[id(first.value)] = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)} | {node.name}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                yield "docstring", node.value, docstrings[id(node)]
            else:
                yield "literal", node.value, set()


def comments(code: str) -> list[str]:
    """The comments of Python code (the text after #)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(_code_without_magics(code)).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return [tok.string.lstrip("#").strip() for tok in tokens if tok.type == tokenize.COMMENT]


def _printed_source(text: str):
    """Comments and docstrings of library code a cell printed (formula.source): (kind, text, names)."""
    names = frozenset(identifiers(text))
    for comment in comments(text):
        yield comment, names
    for _kind, literal, extra in _literals(text):
        if _kind == "docstring":
            yield literal, names | extra


def _markdown_cells(lang: str):
    for src in zh_text.SOURCES:
        for i, (kind, cell_lang, text) in enumerate(zh_text._cells(src)):
            if kind == "md" and cell_lang == lang:
                yield src.name[:2], f"{src.name} cell {i}", text


def _code_cells(lang: str):
    for src in zh_text.SOURCES:
        for i, (kind, _lang, text) in enumerate(zh_text._cells(src)):
            if kind == "code":
                try:
                    yield src.name, i, ns.resolve_code(text, lang, f"{src.name} cell {i}")
                except ns.SourceFormatError:
                    continue


def _is_identifier(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][\w.]*", text) is not None


@cache
def notebook_names(stem: str) -> frozenset:
    """The identifiers of one notebook's code (its source, both editions alike) and of its lab's modules."""
    found = set()
    for src in zh_text.SOURCES:
        if src.name.startswith(stem + "_"):
            for kind, _lang, text in zh_text._cells(src):
                if kind == "code":
                    found |= identifiers(_code_without_magics(re.sub(r"\[(?:en|zh)\]", "", text)))
    for lab in (PACKAGE / "labs").glob(f"nb{stem}_*"):
        found |= folder_names(lab)
    return frozenset(found)


def _output_texts(path: Path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    stem = path.name[:2]
    names = notebook_names(stem)
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        where = f"{path.name} cell {i}"
        for comment in comments(source):
            yield Text(stem, f"{where} (comment)", "comment", zh_text.strip_code(comment), names)
        if GLOSSARY_CALL in source:
            continue
        prints_source = any(p in source for p in SOURCE_PRINTERS)
        samples = any(name == path.name and code in source for name, code in zh_text.GENERATED_SAMPLES)
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                printed = "".join(out["text"])
                if prints_source:
                    for text, code_names in _printed_source(printed):
                        yield Text(stem, f"{where} (printed source)", "source-comment", text, code_names)
                    continue
                printed = zh_text._without_samples(printed) if samples else printed
                printed = re.sub(r"<[^<>\n]+>", " ", printed)           # an object's <repr> is code, not prose
                yield Text(stem, f"{where} (printed)", "printed", printed, names)
            data = out.get("data", {})
            if "text/html" in data:
                yield Text(stem, f"{where} (html)", "html", zh_text.strip_code("".join(data["text/html"])), names)
            elif set(data) == {"text/plain"}:       # beside a figure or a view, text/plain is a repr nobody sees
                plain = re.sub(r"<[^<>\n]+>", " ", "".join(data["text/plain"]))
                yield Text(stem, f"{where} (text/plain)", "printed", plain, names)
            if "text/markdown" in data:
                yield Text(stem, f"{where} (markdown output)", "markdown-output",
                           zh_text.strip_code("".join(data["text/markdown"])), names)


@cache
def string_owners() -> dict[str, Path]:
    """Each registered string key -> the folder of the module whose STRINGS table holds it."""
    import attention_core.labs
    import attention_core.teaching
    owners = {}
    for pkg in (attention_core.labs, attention_core.teaching):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            module = importlib.import_module(info.name)
            table = getattr(module, "STRINGS", None)
            if isinstance(table, dict):
                for key in table:
                    owners.setdefault(key, Path(module.__file__).parent)
    return owners


@cache
def folder_names(folder: Path) -> frozenset:
    """The identifiers of every module in one package folder (a lab, or teaching)."""
    found = set()
    for path in folder.glob("*.py"):
        found |= identifiers(path.read_text(encoding="utf-8"))
    return frozenset(found)


@cache
def quiz_notebooks() -> dict[str, str]:
    """Each quiz question id -> the first notebook whose code asks it (11 asks them all again)."""
    where = {}
    for src in zh_text.SOURCES:
        for qid in re.findall(r"""["']([a-z]\d+[a-z]?)["']""", src.read_text(encoding="utf-8")):
            where.setdefault(qid, src.name[:2])
    return where


def _quiz(lang: str):
    owners = quiz_notebooks()
    for where, text in zh_text.quiz_texts(lang):                  # where: "quiz <id>..."
        qid = re.match(r"quiz ([^.\[]+)", where).group(1)
        yield Text(owners.get(qid, "--"), where, "quiz", zh_text.strip_code(text))


@cache
def texts(lang: str) -> tuple[Text, ...]:
    """Every learner-visible text of the `lang` edition (see the module's docstring), read once per session."""
    return tuple(_texts(lang))


def _texts(lang: str):
    for stem, where, text in _markdown_cells(lang):
        yield Text(stem, f"{where} (markdown)", "markdown", zh_text.strip_code(text))
    for name, i, code in _code_cells(lang):
        names = notebook_names(name[:2])
        for kind, literal, extra in _literals(code):
            if (name, literal) in zh_text.DATA_LITERALS or (kind == "literal" and _is_identifier(literal)):
                continue
            yield Text(name[:2], f"{name} cell {i} ({kind})", kind, literal, names | extra)
    for path in notebooks(lang):
        yield from _output_texts(path)
    zh_text._register_strings()
    owners = string_owners()
    for key, entry in sorted(i18n.STRINGS.items()):
        if _is_identifier(entry[lang]):
            continue                                   # a code name a checker builds into a sentence: mask[2]
        folder = owners.get(key)
        lab = re.match(r"nb(\d\d)_", folder.name) if folder else None
        yield Text(lab.group(1) if lab else "--", f"string {key}", "string", zh_text.strip_code(entry[lang]),
                   folder_names(folder) if folder else frozenset())
    yield from _quiz(lang)


_TITLE = re.compile(r"《[^》\n]*》")
_FIELD = re.compile(r"\{[^{}\n]*\}")                  # a format field of a string table: {value}, {n:.3f}
_EXCEPTION_LINE = re.compile(r"(?m)\b[A-Z]\w*(?:Error|Exception|Warning): .*$")


def prose(text: str) -> str:
    """What of a text is the course's own words: without titles in 《》 and the quoted English the course keeps
    (the tutorials' sentences, paper titles, menu items: zh_text.KEPT_PHRASES), without the format fields of a
    string table, and without a library's exception message (quoted as it comes, followed by its meaning)."""
    text = _FIELD.sub(" 。 ", _TITLE.sub(" 。 ", text))
    text = _EXCEPTION_LINE.sub(" 。 ", text)
    return zh_text._KEPT_PHRASE.sub(" 。 ", text)
