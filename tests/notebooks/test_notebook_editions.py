"""The two editions stay in step: same notebooks, same code, same structure, built from source."""
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
build_notebooks = importlib.util.module_from_spec(_spec)   # a script, not part of the package
_spec.loader.exec_module(build_notebooks)

EN = sorted(p.name for p in (ROOT / "notebooks" / "en").glob("*.ipynb"))
ZH = sorted(p.name for p in (ROOT / "notebooks" / "zh").glob("*.ipynb"))
SOURCES = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
LANG_LINE = re.compile(r'^LANG = "(en|zh)"')


def read(lang, name):
    return nbformat.read(ROOT / "notebooks" / lang / name, as_version=4)


def test_both_editions_have_the_same_notebooks_and_each_has_a_source():
    assert EN and EN == ZH
    assert [n[:-6] for n in EN] == SOURCES


@pytest.mark.parametrize("name", EN)
def test_code_cells_are_identical_but_for_the_language_line(name):
    en, zh = read("en", name), read("zh", name)
    assert [c.cell_type for c in en.cells] == [c.cell_type for c in zh.cells]
    lang_lines = 0
    for a, b in zip(en.cells, zh.cells):
        if a.cell_type != "code":
            continue
        for la, lb in zip(a.source.splitlines(), b.source.splitlines(), strict=True):
            if la != lb:
                assert LANG_LINE.match(la) and LANG_LINE.match(lb), f"{name}: {la!r} != {lb!r}"
                lang_lines += 1
    assert lang_lines == 1, f"{name}: expected exactly one language-setting line, found {lang_lines}"


@pytest.mark.parametrize("name", EN)
def test_markdown_structure_matches(name):
    def outline(nb):
        return [re.findall(r"^(#+) ", c.source, re.M) for c in nb.cells if c.cell_type == "markdown"]
    assert outline(read("en", name)) == outline(read("zh", name))


@pytest.mark.parametrize("name", EN)
def test_committed_notebooks_match_their_source(name):
    src = ROOT / "notebooks" / "src" / name.replace(".ipynb", ".py")
    for lang in ("en", "zh"):
        built = build_notebooks.build(src, lang)
        committed = read(lang, name)
        assert [c.source for c in built.cells] == [c.source for c in committed.cells], \
            f"notebooks/{lang}/{name} differs from its source: run `make notebooks NB={name[:2]}`"


@pytest.mark.parametrize("name", EN)
def test_committed_notebooks_are_executed(name):
    for lang in ("en", "zh"):
        code = [c for c in read(lang, name).cells if c.cell_type == "code"]
        assert all(c.execution_count for c in code), f"notebooks/{lang}/{name} has unexecuted cells"


@pytest.mark.parametrize("name", EN)
def test_nbval_markers_are_written_so_nbval_sees_them(name):
    """nbval only honours a comment that is exactly `# NBVAL_IGNORE_OUTPUT` (nothing after it)."""
    for cell in read("en", name).cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            if "NBVAL_" in line and line.lstrip().startswith("#"):
                assert line.strip().lstrip("#").strip() in (
                    "NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP", "NBVAL_CHECK_OUTPUT", "NBVAL_RAISES_EXCEPTION"), \
                    f"{name}: {line!r} is not a marker nbval recognises; put the reason on the next line"
