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


NBVAL_TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception", "nbval-check-output"}


@pytest.mark.parametrize("name", EN)
def test_nbval_markers_are_cell_tags_not_visible_comments(name):
    """The source's `# NBVAL_...` lines become cell tags: a learner sees no test plumbing, nbval reads the tag."""
    for lang in ("en", "zh"):
        tagged = 0
        for cell in read(lang, name).cells:
            if cell.cell_type != "code":
                continue
            assert "NBVAL_" not in cell.source and "# (a live widget)" not in cell.source, \
                f"notebooks/{lang}/{name}: a marker comment is visible:\n{cell.source[:200]}"
            tags = set(cell.metadata.get("tags", []))
            assert tags <= NBVAL_TAGS | {"teacher-hide"}, f"{name}: unknown tags {tags}"
            tagged += bool(tags & NBVAL_TAGS)
        src = (ROOT / "notebooks" / "src" / name.replace(".ipynb", ".py")).read_text(encoding="utf-8")
        assert tagged == src.count("# NBVAL_"), f"{name}: {tagged} tagged cells for {src.count('# NBVAL_')} markers"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("name", EN)
def test_stored_widget_outputs_carry_a_static_fallback(name):
    """Every widget output stored in either edition also has text/html (a code host shows it); those
    with a picture have it as image/png too."""
    for lang in ("en", "zh"):
        for cell in read(lang, name).cells:
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if WIDGET_VIEW not in data:
                    continue
                html = data.get("text/html", "")
                assert "attention-lab-static" in html, \
                    f"notebooks/{lang}/{name}: widget output without a static fallback:\n{cell.source[:200]}"
                if "data:image/png;base64," in html:
                    assert data.get("image/png"), f"notebooks/{lang}/{name}: a picture in the HTML but no image/png"
