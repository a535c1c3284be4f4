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
