"""The teacher's view (`make present`): Voila with the attention-lab-teacher template shows the story and the
widgets, not the setup cell or printed library source, and culls a kernel once its page is gone."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import TEACHER_CULL_S

from attention_core.teaching import i18n

pytestmark = pytest.mark.browser


def kernels_of(pid: int) -> int:
    """ipykernel processes below the server process `pid` (Voila starts one per page load)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = 0, list(children.get(pid, []))
    while todo:
        child = todo.pop()
        try:
            cmdline = (Path("/proc") / str(child) / "cmdline").read_bytes()
        except OSError:
            continue
        found += b"ipykernel" in cmdline
        todo += children.get(child, [])
    return found


def test_teacher_view_shows_story_and_widgets_without_source(browser, teacher_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(teacher_server.url("voila/render/en/01_query_key_value.ipynb"), timeout=120_000)
    page.locator(".widget-image").first.wait_for(timeout=120_000)
    page.get_by_role("button", name=i18n.t("quiz.check", "en"), exact=True).wait_for(timeout=120_000)
    body = page.locator("#rendered_cells").inner_text()
    assert "01 · Query, Key, Value" in body                              # the story
    assert i18n.t("widgets.step_title", "en") in body                    # a widget
    assert "def reference_attention" not in body, "printed library source is shown"
    assert "import attention_core" not in body and "LANG =" not in body  # no code, no setup cell
    assert not page.locator(".jp-CodeCell .jp-InputArea-editor, .jp-CodeCell .highlight").count(), "code is shown"
    assert kernels_of(teacher_server.proc.pid) >= 1
    context.close()
    deadline = time.monotonic() + TEACHER_CULL_S + 30
    while kernels_of(teacher_server.proc.pid) and time.monotonic() < deadline:
        time.sleep(1)
    assert kernels_of(teacher_server.proc.pid) == 0, "the idle kernel of a closed page was not culled"


LEFTOVERS_JS = """() => {
  const cells = [...document.querySelectorAll('#rendered_cells .jp-Cell')];
  const dangling = [];
  cells.forEach((cell, i) => {
    if (!cell.classList.contains('jp-MarkdownCell')) return;
    const text = cell.innerText.trim();
    if (!/[:：]$/.test(text)) return;
    const next = cells[i + 1];
    const shown = next && next.classList.contains('jp-CodeCell') && next.querySelector('.jp-OutputArea-output');
    if (!shown) dangling.push(text.slice(-90));
  });
  const pre = document.querySelector('#rendered_cells .jp-OutputArea-output pre');
  return {dangling, wordBreak: pre ? getComputedStyle(pre).wordBreak : null};
}"""


@pytest.mark.parametrize("stem", ["01_query_key_value", "04_masking"])
def test_teacher_view_has_no_leftovers_of_hidden_cells_and_no_tracebacks(browser, teacher_server, stem):
    """Exercises are hidden with their checks (no red NotImplementedError verdict, no traceback), every
    sentence that introduced a hidden cell went with it, printed numbers never break inside a number,
    and the quiz's reference button is wide enough for its words."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(teacher_server.url(f"voila/render/en/{stem}.ipynb"), timeout=120_000)
    page.get_by_role("button", name=i18n.t("quiz.check", "en"), exact=True).first.wait_for(timeout=120_000)
    body = page.locator("#rendered_cells").inner_text()
    for leftover in ("NotImplementedError", "Traceback", "✘ check_", "Show a solution", "Exercise 1"):
        assert leftover not in body, f"{stem}: the teacher's view shows {leftover!r}"
    found = page.evaluate(LEFTOVERS_JS)
    assert not found["dangling"], f"{stem}: sentences introduce a hidden cell: {found['dangling']}"
    assert found["wordBreak"] in (None, "normal"), f"{stem}: printed output breaks inside words: {found['wordBreak']}"
    button = page.get_by_role("button", name=i18n.t("quiz.show_reference", "en")).first
    width = button.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert width[0] <= width[1], f"{stem}: the reference button is clipped ({width[0]} px of text in {width[1]} px)"
    context.close()
