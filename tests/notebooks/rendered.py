"""What a reader sees of a markdown cell: the text that JupyterLab (marked), nbconvert and Voila (mistune) show once the
markdown is rendered, for the rendering tests (issue 16).

Both renderers follow CommonMark's emphasis rules, under which `**需要的基础：**会一点` is no bold at all: a closing
`**` after punctuation must be followed by a space or punctuation, so the learner reads the asterisks. `visible_text`
renders a cell with markdown-it-py (CommonMark, plus tables) or with mistune (the parser nbconvert uses) and returns its
text: every code span, code block and formula is one placeholder, tags are dropped, table cells are separated by " | ".
Formulas are taken out before parsing and replaced by `@@0@@`, as JupyterLab's renderer does (so a `$x$` beside an
emphasis mark counts as punctuation, as it does there), and shown as the placeholder.
"""
from __future__ import annotations

import re

import mistune
from markdown_it import MarkdownIt

# A code span (left alone: its dollars are not math), a display formula, an inline formula.
_MATH_OR_CODE = re.compile(r"(`+)[^`]*?\1|\$\$.+?\$\$|(?<![\\$])\$[^$\n]+?(?<!\\)\$", re.S)
_MATH_MARK = "@@0@@"
_MARKDOWN_IT = MarkdownIt("commonmark").enable("table")
_MISTUNE = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough"])
RENDERERS = ("markdown-it", "mistune")


def _without_math(markdown: str) -> str:
    return _MATH_OR_CODE.sub(lambda m: m.group(0) if m.group(0).startswith("`") else _MATH_MARK, markdown)


def _tags_off(html: str) -> str:
    return re.sub(r"<[^>]*>", "", html)


def _markdown_it_text(markdown: str, code: str) -> str:
    out: list[str] = []

    def inline(children):
        for t in children:
            if t.type == "text":
                out.append(t.content)
            elif t.type == "code_inline":
                out.append(code)
            elif t.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif t.type == "html_inline":
                out.append(_tags_off(t.content))
            elif t.type == "image":
                inline(t.children or [])

    for tok in _MARKDOWN_IT.parse(markdown):
        if tok.type == "inline":
            inline(tok.children or [])
        elif tok.type in ("code_block", "fence"):
            out.append(f"\n{code}\n")
        elif tok.type == "html_block":
            out.append("\n" + _tags_off(tok.content) + "\n")
        elif tok.type in ("th_close", "td_close"):
            out.append(" | ")
        elif tok.type.endswith("_close") and tok.block:
            out.append("\n")
    return "".join(out)


def _mistune_text(markdown: str, code: str) -> str:
    out: list[str] = []

    def walk(nodes):
        for node in nodes:
            kind = node["type"]
            if kind == "text":
                out.append(node["raw"])
            elif kind == "codespan":
                out.append(code)
            elif kind == "block_code":
                out.append(f"\n{code}\n")
            elif kind in ("linebreak", "softbreak"):
                out.append("\n")
            elif kind in ("inline_html", "block_html"):
                out.append(_tags_off(node["raw"]))
            else:
                walk(node.get("children", []))
                if kind == "table_cell":
                    out.append(" | ")
                elif kind in ("paragraph", "heading", "block_text", "table_row", "list_item", "block_quote"):
                    out.append("\n")

    walk(_MISTUNE(markdown))
    return "".join(out)


def visible_text(markdown: str, renderer: str = "markdown-it", code: str = "X") -> str:
    """The text a reader sees of one markdown cell, each code span, code block and formula shown as `code`."""
    if renderer not in RENDERERS:
        raise ValueError(f"renderer: expected one of {RENDERERS}, got {renderer!r}")
    text = (_markdown_it_text if renderer == "markdown-it" else _mistune_text)(_without_math(markdown), code)
    return text.replace(_MATH_MARK, code)


# Emphasis markers a renderer left as text: `**` or `__` anywhere, a lone `*` or `_` against a word (as a delimiter
# would stand: "位置。*下面", "*固定"), but not a product "a * b" or a name like "d_model".
LEFT_MARKERS = re.compile(r"\*\*|(?<![\w_])__|__(?![\w_])|(?<=\S)\*(?=[^\s*\d])|(?<=[^\s*\d])\*(?=\S)"
                          r"|(?<![\w\\])_(?=[^\W\d_])|(?<=[^\W\d_])_(?![\w])")


def left_markers(text: str) -> list[str]:
    """Emphasis markers left in rendered text, each with a few characters around it."""
    return [text[max(0, m.start() - 12):m.end() + 12] for m in LEFT_MARKERS.finditer(text)]
