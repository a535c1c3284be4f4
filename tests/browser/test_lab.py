"""JupyterLab in Chromium: open a notebook, clear it, run every cell, then use its widgets like a learner."""
from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from browser_helpers import IDLE, code_cell, nudge_slider, open_and_run

from attention_core.teaching import i18n, quiz

pytestmark = pytest.mark.browser


def _plain_fragment(text: str) -> str:
    """The longest piece of `text` that renders as itself: no $math$, **bold**, `code` or line break."""
    return max(re.split(r"\$[^$]*\$|\*\*|`|\n", text), key=len).strip()


def test_lab_en_attention_step_slider(page, lab_server):
    """en 01: the attention-step widget redraws its picture and its numbers when q[0] moves."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    open_and_run(page, lab_server, "en/01_query_key_value.ipynb")
    cell = code_cell(page, "widgets.attention_step_widget(")
    output = cell.locator(".jp-OutputArea")
    output.get_by_text(i18n.t("widgets.step_title", "en")).wait_for()
    image = output.locator("img.widget-image").first
    image.wait_for()
    table = output.locator(".widget-html table").first
    table.wait_for()
    before_src, before_table = image.get_attribute("src"), table.text_content()
    assert before_src, "the widget's image has no src"
    assert "0.670" in before_table and "0.330" in before_table, before_table   # the seed's worked example
    slider = output.locator(".widget-slider").first
    assert slider.locator(".widget-readout").text_content().strip() == "1.00"

    nudge_slider(page, slider.locator(".noUi-handle").first, [(image, "src"), (table, None)])   # q[0]: 1.0 -> 1.5
    assert slider.locator(".widget-readout").text_content().strip() == "1.50"
    after_table = table.text_content()
    assert "0.670" not in after_table, after_table       # weights moved: q is longer, softmax sharper
    assert not output.locator(".widget-html", has_text="⚠").count(), "the widget shows an error"
    off_machine = sorted({u for u in requests
                          if urlparse(u).scheme not in ("data", "blob") and urlparse(u).hostname != "127.0.0.1"})
    assert not off_machine, f"JupyterLab asked outside 127.0.0.1 for: {off_machine}"


def test_lab_zh_quiz_q6(page, lab_server):
    """zh 01: the Q6 quiz in Chinese: the reference answer stays shut before an attempt; choose the right
    letters as shown (the options are shuffled, seeded per question), Check -> correct; show the reference."""
    open_and_run(page, lab_server, "zh/01_query_key_value.ipynb")
    cell = code_cell(page, 'quiz.quiz_widget("q6")')
    output = cell.locator(".jp-OutputArea")
    check = output.get_by_role("button", name=i18n.t("quiz.check", "zh"), exact=True)
    check.wait_for()
    q6 = quiz.get_question("q6")
    order = quiz.option_order(q6)
    letters = sorted("ABCD"[order.index(i)] for i in q6.correct)       # Q6 is select-all
    assert not output.get_by_role("button", name=i18n.t("quiz.show_reference", "zh"), exact=True).is_enabled()
    for letter in letters:
        output.get_by_role("button", name=letter, exact=True).click()
    check.click()
    feedback = output.get_by_text(i18n.t("quiz.correct", "zh"))
    feedback.wait_for(timeout=30_000)
    assert all(output.get_by_text(f"✔ {letter}.").count() for letter in letters)

    reference = output.get_by_text(_plain_fragment(quiz.get_question("q6").reference["zh"]))
    assert not reference.is_visible()
    output.get_by_role("button", name=i18n.t("quiz.show_reference", "zh"), exact=True).click()
    reference.wait_for(state="visible", timeout=30_000)
    assert output.get_by_text(i18n.t("quiz.reference", "zh")).is_visible()
    output.get_by_role("button", name=i18n.t("quiz.hide_reference", "zh"), exact=True).wait_for()


def test_lab_zh_start_here_renders_chinese(page, lab_server):
    """zh 00: runs cleanly, shows the Chinese heading, and its figures need no missing glyph."""
    open_and_run(page, lab_server, "zh/00_start_here.ipynb")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    page.get_by_role("heading", name=re.compile("00 · 从这里开始")).first.wait_for()
    outputs = panel.locator(".jp-OutputArea").all_text_contents()
    text = "\n".join(outputs)
    assert text.strip(), "no outputs after Run All"
    assert "Glyph" not in text and "missing from font" not in text, \
        [t for t in outputs if "Glyph" in t or "missing from font" in t]
    assert panel.locator(".jp-OutputArea img").count() >= 1, "no figure or widget image was drawn"


def test_lab_has_the_rise_slideshow_button(page, lab_server):
    """jupyterlab-rise is installed and loads in this JupyterLab: a notebook's toolbar offers the slideshow."""
    page.goto(lab_server.url("lab/tree/en/01_query_key_value.ipynb", "reset"), timeout=90_000)
    page.locator(IDLE).wait_for(timeout=90_000)
    button = page.locator(".jp-NotebookPanel-toolbar [data-command^='RISE:']")
    button.first.wait_for(timeout=30_000)
    assert button.count() >= 1


def test_a_notebook_that_names_no_kernel_opens_and_runs(page, lab_server, notebooks_copy):
    """A notebook without kernel metadata (a learner's own, say): Lab asks which kernel to start; the helpers
    that every browser test uses answer its dialog (Lab sometimes shows it on a loaded machine too) and run it."""
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('print("ran", 6 * 7)')])
    nbformat.write(nb, notebooks_copy / "en" / "_no_kernel.ipynb")
    open_and_run(page, lab_server, "en/_no_kernel.ipynb")
    code_cell(page, "6 * 7").locator(".jp-OutputArea").get_by_text("ran 42").wait_for(timeout=30_000)
