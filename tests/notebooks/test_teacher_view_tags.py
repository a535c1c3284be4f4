"""What the teacher's view leaves out (issue 19), read from the builder: exercises (their sections, skeletons and
checker calls), the setup cell and printed library source are tagged `teacher-hide`, and no visible sentence is
left introducing a hidden cell ("Here is the whole block as the library writes it:" followed by nothing)."""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_notebooks  # noqa: E402

SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
HIDE = build_notebooks.TEACHER_HIDE


def hidden(cell) -> bool:
    return HIDE in cell.metadata.get("tags", [])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem[:2])
def test_hidden_cells_take_their_introduction_with_them(src, lang):
    cells = build_notebooks.build(src, lang).cells
    visible = [c for c in cells if not hidden(c)]
    for here, after in zip(visible, visible[1:] + [None]):
        if here.cell_type == "markdown" and here.source.rstrip().endswith((":", "：")):
            assert after is not None and after.cell_type == "code", \
                f"{src.name} ({lang}): a visible sentence introduces a hidden cell: {here.source.rstrip()[-90:]!r}"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem[:2])
def test_exercises_and_their_checks_are_hidden(src, lang):
    cells = build_notebooks.build(src, lang).cells
    for cell in cells:
        if cell.cell_type == "code" and ("NotImplementedError" in cell.source
                                         or re.search(r"\bcheck_[a-z0-9_]+\(", cell.source)):
            assert hidden(cell), f"{src.name} ({lang}): an exercise cell is shown: {cell.source[:80]!r}"
        if cell.cell_type == "markdown" and re.match(r"#{2,4} .*(Exercise|exercise|练习)", cell.source.lstrip()):
            assert hidden(cell), f"{src.name} ({lang}): an exercise heading is shown: {cell.source[:60]!r}"
        solution = re.match(r"<details><summary>[^<]*(solution|参考答案)", cell.source.lstrip())
        if cell.cell_type == "markdown" and solution:
            assert hidden(cell), f"{src.name} ({lang}): a solution is shown: {cell.source[:60]!r}"


def test_the_introduction_split_keeps_every_word():
    nb = build_notebooks.nbformat.v4
    cells = [nb.new_markdown_cell("First paragraph.\n\nA claim. Here is the whole loop:"),
             nb.new_code_cell("print(inspect.getsource(f))"),
             nb.new_markdown_cell("Only this:"),
             nb.new_code_cell("print(inspect.getsource(g))"),
             nb.new_markdown_cell("## A section"), nb.new_code_cell("x = 1")]
    for c in cells:
        if build_notebooks.teacher_hides(c.source) and c.cell_type == "code":
            c.metadata["tags"] = [HIDE]
    out = build_notebooks.teacher_view_tags(cells)
    texts = [(c.source, hidden(c)) for c in out]
    assert texts[:2] == [("First paragraph.\n\nA claim.", False), ("Here is the whole loop:", True)]
    assert texts[3] == ("Only this:", True) and texts[-1] == ("x = 1", False)
    assert build_notebooks.teacher_hides('checks.check_softmax(my_softmax)')
    assert build_notebooks.teacher_hides('    raise NotImplementedError("write it")')


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem[:2])
def test_both_editions_split_the_same_introductions(src):
    """A split introduction is a markdown cell in both editions, so their outlines still match."""
    def outline(lang):
        return [(re.findall(r"^(#+) ", c.source, re.M), hidden(c))
                for c in build_notebooks.build(src, lang).cells if c.cell_type == "markdown"]
    assert outline("en") == outline("zh")
