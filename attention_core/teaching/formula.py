"""The bare formula of a library function, as a notebook prints it.

    print(formula.source(online_attention))

`inspect.getsource` would also show the decorator that checks the inputs (`validation.checked`) and the
docstring, both in English. `source` prints the `def` line and the body only, with the comments in the
edition's language: a library function a notebook prints writes its comments as notebook sources do,
`# [en] English [zh] 中文` (resolved by `notebook_source.resolve_code`), so the Chinese edition shows no English.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

from attention_core.teaching import i18n
from attention_core.teaching.notebook_source import resolve_code


def source(fn, lang: str | None = None) -> str:
    """The `def` line and body of `fn` (decorators and docstring left out), comments in `lang` (default: the
    language set with i18n.set_language)."""
    fn = inspect.unwrap(fn)
    text = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(text).body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TypeError(f"fn: expected a function, got {type(fn).__name__}")
    lines = text.splitlines()
    start = node.lineno - 1                                   # the def line (decorators sit above it)
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        keep = lines[start:first.lineno - 1] + lines[first.end_lineno:]
    else:
        keep = lines[start:]
    return resolve_code("\n".join(keep), i18n.resolve_language(lang)).rstrip() + "\n"
