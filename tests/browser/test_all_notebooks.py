"""Every notebook in JupyterLab: it runs from a clean state without an error output, and each of its widgets answers
when one of its controls moves (its picture or its numbers change). One Lab page serves the whole module (fixture
lab_page): each test opens its notebook through Lab's document manager, as a learner opening notebook after
notebook from the file browser would, instead of reloading Lab for every notebook.

Each notebook runs here in one edition, the two editions taking turns (even numbers in Chinese, odd in English):
nbval executes every notebook of both editions, the parity test proves that the two editions' code is the same once
strings and comments are set aside, and the browser's share is what only a browser shows (widget views drawn, their
controls answering, their layout), which one edition of each notebook exercises; a second Run All of the same code
was half of `make test`'s time. test_lab.py, test_fonts.py and the teacher's view open notebooks of both editions."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_helpers import open_and_run
from widget_actions import exercise

from attention_core.teaching import i18n

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
EDITIONS = ("zh", "en")        # notebook NN runs in EDITIONS[NN % 2]
NUMBERED = sorted(p.name for p in (REPO / "notebooks" / "en").glob("[0-9][0-9]_*.ipynb"))
NOTEBOOKS = [f"{EDITIONS[int(name[:2]) % 2]}/{name}" for name in NUMBERED]
WIDGET_VIEW = ".jp-OutputArea-output:has(> .jupyter-widgets)"   # a widget view, one per widget output


def _stored_widget_count(path: str) -> int:
    """Widget outputs the committed notebook holds: the page must show as many after Run All."""
    nb = json.loads((REPO / "notebooks" / path).read_text(encoding="utf-8"))
    return sum("application/vnd.jupyter.widget-view+json" in out.get("data", {})
               for cell in nb["cells"] for out in cell.get("outputs", []))


def test_every_notebook_runs_in_one_edition_and_both_editions_take_turns():
    zh = sorted(p.name for p in (REPO / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
    assert len(NUMBERED) >= 12 and NUMBERED == zh, (NUMBERED, zh)
    assert [p.split("/")[1] for p in NOTEBOOKS] == NUMBERED                 # each notebook once
    shares = {edition: sum(p.startswith(edition + "/") for p in NOTEBOOKS) for edition in EDITIONS}
    assert min(shares.values()) >= len(NOTEBOOKS) // 2, shares


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_notebook_runs_and_its_widgets_answer(lab_page, lab_server, path):
    page = lab_page
    open_and_run(page, lab_server, path)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    views = panel.locator(WIDGET_VIEW)
    expected = _stored_widget_count(path)
    assert views.count() == expected, f"{path}: {views.count()} widget views after Run All, {expected} stored"
    assert not panel.locator(".jp-OutputArea-output", has_text="Error displaying widget").count()
    stretched = panel.locator("img.widget-image").evaluate_all(
        "imgs => imgs.filter(i => i.naturalWidth && i.getBoundingClientRect().width > i.naturalWidth + 1)"
        ".map(i => i.naturalWidth + ' px shown at ' + Math.round(i.getBoundingClientRect().width))")
    assert not stretched, f"{path}: widget pictures scaled up beyond their natural size: {stretched}"
    squeezed = panel.locator(".widget-slider .slider-container").evaluate_all(
        "tracks => tracks.filter(t => t.offsetParent !== null && t.getBoundingClientRect().width < 120).map(t => "
        "(t.closest('.widget-slider').querySelector('.widget-label') || {}).textContent + ': ' "
        "+ Math.round(t.getBoundingClientRect().width) + ' px')")
    assert not squeezed, f"{path}: slider tracks squeezed by their labels: {squeezed}"
    edition = path.split("/")[0]
    reference = i18n.t("quiz.show_reference", edition)
    check = i18n.t("quiz.check", edition)
    worked = [exercise(page, views.nth(i), reference, check) for i in range(views.count())]
    assert len(worked) == expected
    assert not panel.locator(".widget-html", has_text="⚠").count(), f"{path}: a widget shows an error"
