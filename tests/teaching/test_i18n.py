"""UI strings: the lookup and its registry, and every key in use exactly where it is defined.

Each owner (a lab's strings.py, a teaching module's STRINGS table) registers its keys with
`i18n.register`. The test below reads the package and the notebook sources with `ast`: every key
a module registers must be used somewhere (no dead entries), every key-like string used must be
registered (no typo reaches a learner), no key is built with an f-string, and each entry has
both languages with the same format fields.
"""
from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import re
import string
import sys
from pathlib import Path

import pytest

import attention_core
from attention_core.teaching import i18n
from attention_core.teaching.notebook_source import parse_source

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "attention_core"
KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")


def _import_everything():
    """Import every module of the package, so that every owner has registered its strings."""
    for info in pkgutil.walk_packages(attention_core.__path__, "attention_core."):
        importlib.import_module(info.name)


def _sources():
    """(where, syntax tree) for each module of the package and each code cell of the notebook sources."""
    for path in sorted(PACKAGE.rglob("*.py")):
        yield str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8"))
    for path in sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")):
        for i, (kind, _, text) in enumerate(parse_source(path.read_text(encoding="utf-8"), path.name)):
            if kind == "code":                               # IPython magics are not Python
                code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines())
                yield f"{path.relative_to(ROOT)} cell {i}", ast.parse(code)


def _table_keys(tree) -> set:
    """The dict keys of a `STRINGS = {...}` table: definitions, not uses."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(target, "id", None) == "STRINGS" for target in targets):
                out |= {id(k) for k in node.value.keys}
    return out


def _is_t_call(node) -> bool:
    func = node.func
    return isinstance(node, ast.Call) and (getattr(func, "id", None) == "t" or getattr(func, "attr", None) == "t")


@functools.cache    # read once, when a test first asks: collecting the tests (every xdist worker) stays cheap
def _scan():
    """(literals used: {text: [where]}, keys passed to t() as literals, keys built at run time)."""
    used, passed, built = {}, {}, []
    for where, tree in _sources():
        definitions = _table_keys(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in definitions:
                used.setdefault(node.value, []).append(where)
            if isinstance(node, ast.Call) and _is_t_call(node) and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    passed.setdefault(first.value, []).append(where)
                elif isinstance(first, (ast.JoinedStr, ast.BinOp)) or (
                        isinstance(first, ast.Call) and getattr(first.func, "attr", None) == "format"):
                    built.append(f"{where}, line {node.lineno}: {ast.unparse(first)}")
    return used, passed, built


@functools.cache    # when a test first asks, not while every xdist worker collects the tests
def _registered() -> dict:
    """Every key of the package, once every module has registered its strings."""
    _import_everything()
    return i18n.STRINGS


def test_no_key_is_built_at_run_time():
    _, _, BUILT = _scan()
    assert not BUILT, "keys built with an f-string (spell them out, e.g. in a dict): " + "; ".join(BUILT)


def test_every_registered_key_is_used():
    USED, _, _ = _scan()
    unused = sorted(key for key in _registered() if key not in USED)
    assert not unused, f"registered but never used (drop them): {unused}"


def _names_code(text: str, modules: dict) -> bool:
    """"widgets.mask_widget" (a quiz pointer) names a function of a `widgets` module: code, not a key."""
    module, _, name = text.rpartition(".")
    return any(hasattr(mod, name) for mod in modules.get(module, ()))


def test_every_key_used_is_registered():
    strings = _registered()
    prefixes = {key.split(".")[0] for key in strings}
    modules: dict = {}                    # the package's modules by their last name ("widgets": [...]), once
    for mod_name, mod in list(sys.modules.items()):
        if mod_name.startswith("attention_core."):
            modules.setdefault(mod_name.rsplit(".", 1)[-1], []).append(mod)
    USED, PASSED, _ = _scan()
    key_like = {text: where for text, where in USED.items()
                if KEY.match(text) and text.split(".")[0] in prefixes and text not in strings
                and not _names_code(text, modules)}
    missing = {text: where for text, where in {**key_like, **PASSED}.items() if text not in strings}
    assert not missing, f"used but not registered: {missing}"


def test_the_scan_sees_the_notebooks_and_the_labs():
    USED, _, _ = _scan()
    assert any(w.startswith("notebooks/src/04_masking.py cell") for where in USED.values() for w in where)
    assert any(w.startswith("attention_core/labs/") for w in USED["widgets.mask_causal"])
    assert len(_registered()) > 300


def test_each_key_has_both_languages_with_the_same_fields():
    bad = []
    for key, entry in sorted(_registered().items()):
        if set(entry) != set(i18n.LANGUAGES) or not all(entry[lang].strip() for lang in i18n.LANGUAGES):
            empty = [lang for lang, text in entry.items() if not text.strip()]
            bad.append(f"{key}: languages {sorted(entry)}, empty in {empty}")
            continue
        fields = [{f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in i18n.LANGUAGES]
        if fields[0] != fields[1]:
            bad.append(f"{key}: en and zh use different fields {fields}")
    assert not bad, "\n".join(bad)


def test_register_refuses_a_duplicate_key_and_a_missing_language():
    table = {"test_only.hello": {"en": "hello", "zh": "你好"}}
    try:
        assert i18n.register(table) is table
        assert i18n.t("test_only.hello", "zh") == "你好"
        i18n.register(table)                                  # the same table again: a no-op
        with pytest.raises(ValueError, match="registered twice"):
            i18n.register({"test_only.hello": {"en": "hi", "zh": "嗨"}})
        with pytest.raises(ValueError, match="expected a text for each"):
            i18n.register({"test_only.bye": {"en": "bye"}})
        assert "test_only.bye" not in i18n.STRINGS
    finally:
        i18n.STRINGS.pop("test_only.hello", None)


def test_lookup_names_the_missing_key_and_the_language_is_checked():
    with pytest.raises(KeyError, match="no_such.key"):
        i18n.t("no_such.key")
    with pytest.raises(ValueError, match="lang"):
        i18n.set_language("fr")
    assert i18n.t("plots.head", "zh", h=2) == "第 2 个头"
