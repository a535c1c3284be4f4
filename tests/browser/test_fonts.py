"""Chinese text is drawn with a CJK font, asked of Chromium itself (DevTools protocol, CSS.getPlatformFontsForNode):
a zh heading, a widget label and a quiz option in JupyterLab, and the same text when only the web font the
course serves can draw it (its `local()` sources removed), so it works on a machine without a CJK font: there
also a dropdown and its options, a sentence typed into a text box (Chromium does not let form controls inherit
the page's font); the zh slide deck's heading, table and preformatted text are checked in test_site.py, which
builds the slides anyway."""
from __future__ import annotations

import re

import pytest
from browser_helpers import open_and_run
from font_probe import CJK, SHOWN_TEXT, assert_cjk_drawn, fonts_loaded, web_font_only, with_cjk_text

from attention_core.teaching import i18n, quiz

pytestmark = pytest.mark.browser

def test_lab_draws_chinese_heading_widget_label_and_quiz_option(page, lab_server):
    open_and_run(page, lab_server, "zh/01_query_key_value.ipynb")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    assert_cjk_drawn(page, panel.locator(".jp-RenderedMarkdown h1").first, "zh heading")
    assert_cjk_drawn(page, with_cjk_text(panel.locator(".widget-label")), "widget label")
    option = quiz.get_question("q6").options[0].text["zh"]
    item = panel.locator(".widget-htmlmath li", has_text=re.compile(re.escape(CJK.findall(option)[0]))).first
    assert_cjk_drawn(page, item, "quiz option")


def test_lab_web_font_alone_draws_chinese(page, lab_server):
    """custom.css without its local() sources: the served font file must draw the Chinese text."""
    def strip_local(route):
        response = route.fetch()
        body = re.sub(r'local\("[^"]*"\),\s*', "", response.text())
        assert "url(" in body
        route.fulfill(response=response, body=body)
    page.route(re.compile(r"/custom/custom\.css"), strip_local)
    font_requests = []
    page.on("requestfinished", lambda r: font_requests.append(r.url) if ".otf" in r.url else None)
    page.goto(lab_server.url("lab/tree/zh/00_start_here.ipynb", "reset"), timeout=90_000)
    heading = page.locator(".jp-NotebookPanel .jp-RenderedMarkdown h1").first
    heading.wait_for(timeout=90_000)
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=60_000)
    page.wait_for_timeout(500)
    assert_cjk_drawn(page, heading, "zh heading, web font only", custom=True)
    assert font_requests, "the web font file was never fetched"


PROBE_CELLS = [
    "import ipywidgets as widgets\n"
    "from attention_core.labs import nb12_trained_transformer  # noqa: F401 (its strings)\n"
    "from attention_core.teaching import i18n\ni18n.set_language('zh')",
    # notebook 12's head menu ("第 0 层 · 第 2 个头") and sentence box, built as its widgets build them
    "widgets.VBox([widgets.Dropdown(options=[i18n.t('nb12.layer_head', layer=0, head=h) for h in range(4)],\n"
    "                               value=i18n.t('nb12.layer_head', layer=0, head=2),\n"
    "                               description=i18n.t('nb12.head_menu')),\n"
    "              widgets.Combobox(value='', options=['猫坐在垫子上'], ensure_option=False,\n"
    "                               description=i18n.t('nb12.sentence'))])",
]


def _probe_notebook(notebooks_copy) -> str:
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in PROBE_CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, notebooks_copy / "zh" / "_font_probe.ipynb")
    return "zh/_font_probe.ipynb"


def _assert_controls_drawn(page, scope) -> None:
    menu = scope.locator(".widget-dropdown select").first
    menu.wait_for(timeout=120_000)
    fonts_loaded(page)
    assert_cjk_drawn(page, menu, "dropdown (its chosen option)", custom=True, text_js=SHOWN_TEXT)
    families = menu.locator("option").evaluate_all("os => os.map(o => getComputedStyle(o).fontFamily)")
    assert len(families) == 4 and all(f.startswith('"Attention Lab CJK"') for f in families), families
    box = scope.locator(".jupyter-widgets input[type='text']").first      # the Combobox's text box
    box.click()
    page.keyboard.type("猫坐在垫子上")              # typed, not submitted: what the learner sees while typing
    page.wait_for_timeout(500)
    assert_cjk_drawn(page, box, "typed sentence", custom=True, text_js=SHOWN_TEXT)


def test_lab_web_font_alone_draws_a_dropdown_its_options_and_a_typed_sentence(page, lab_server, notebooks_copy):
    """A dropdown of notebook 12's head labels ("第 0 层 · 第 2 个头") and its sentence box, with a Chinese sentence
    typed in, in a small notebook of their own (so the probe does not wait on a whole notebook)."""
    path = _probe_notebook(notebooks_copy)
    fetched = web_font_only(page, r"/custom/custom\.css")
    open_and_run(page, lab_server, path)         # it clicks Run All again where a loaded machine lost the click
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    _assert_controls_drawn(page, panel)
    assert fetched, "the web font file was never fetched"


def test_voila_web_font_alone_draws_a_dropdown_its_options_and_a_typed_sentence(page, teacher_server, notebooks_copy):
    """The same controls in the teacher's view (Voila's attention-lab template and its stylesheet)."""
    path = _probe_notebook(notebooks_copy)
    fetched = web_font_only(page, r"attention-lab-cjk\.css")
    page.goto(teacher_server.url(f"voila/render/{path}"), timeout=120_000)
    _assert_controls_drawn(page, page.locator("body"))
    assert fetched, "the web font file was never fetched"


def test_lab_zh_entry_point_has_a_chinese_interface(page, lab_server_zh):
    """`make lab LANG=zh`: the zh-CN language pack makes JupyterLab's own menus Chinese."""
    page.goto(lab_server_zh.url("lab/tree/zh/00_start_here.ipynb", "reset"), timeout=90_000)
    page.locator(".lm-MenuBar-itemLabel").first.wait_for(timeout=90_000)
    menus = page.locator(".lm-MenuBar-itemLabel").all_text_contents()
    assert "文件" in menus and "运行" in menus, menus
    assert_cjk_drawn(page, page.locator(".lm-MenuBar-itemLabel", has_text="文件").first, "menu label")


def test_voila_teacher_view_draws_chinese(page, teacher_server):
    page.goto(teacher_server.url("voila/render/zh/03_softmax.ipynb"), timeout=120_000)
    page.get_by_role("button", name=i18n.t("quiz.check", "zh"), exact=True).first.wait_for(timeout=120_000)
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=60_000)
    assert page.evaluate("[...document.styleSheets].some(s => (s.href || '').includes('attention-lab-cjk.css'))")
    heading = page.get_by_role("heading", name=re.compile("03 · Softmax")).first
    assert_cjk_drawn(page, with_cjk_text(page.locator("h2")), "Voila zh heading")
    assert heading.is_visible()
    assert_cjk_drawn(page, with_cjk_text(page.locator(".widget-label, .widget-html-content b")), "Voila widget text")
