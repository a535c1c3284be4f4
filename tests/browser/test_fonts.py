"""Chinese text is drawn with a CJK font, asked of Chromium itself (DevTools protocol, CSS.getPlatformFontsForNode):
a zh heading, a widget label and a quiz option in JupyterLab, and the same text when only the web font the
course serves can draw it (its `local()` sources removed), so it works on a machine without a CJK font: there
also a dropdown and its options, a sentence typed into a text box (Chromium does not let form controls inherit
the page's font), and a zh slide deck's heading, table and preformatted text (reveal.js styles them itself)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from browser_helpers import open_and_run
from conftest import REPO, _free_port, _start, _stop

from attention_core.teaching import i18n, quiz

pytestmark = pytest.mark.browser

CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
CJK_FAMILY = re.compile(r"CJK|Han|Hei|Ming|Song|Kai|WenQuanYi|Noto Sans SC|Source Han|PingFang|YaHei", re.I)
MARK = "data-font-probe"


OWN_TEXT = "[...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('')"
# What a form control shows: a dropdown its chosen option, a text box what was typed into it.
SHOWN_TEXT = "el.tagName === 'SELECT' ? el.options[el.selectedIndex].text : el.value"


def fonts_for(page, locator, text_js: str = OWN_TEXT) -> tuple[str, list[dict]]:
    """(the element's own text, the platform fonts Chromium drew that text with)."""
    for _attempt in range(5):                 # a page that re-renders may replace the element: mark it again
        locator.scroll_into_view_if_needed()
        page.evaluate(f"() => document.querySelectorAll('[{MARK}]').forEach(e => e.removeAttribute('{MARK}'))")
        text = locator.evaluate(f"""el => {{ el.setAttribute('{MARK}', '1'); return {text_js}; }}""")
        cdp = page.context.new_cdp_session(page)
        try:
            cdp.send("DOM.enable")
            cdp.send("CSS.enable")
            tree = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
            node = cdp.send("DOM.querySelector", {"nodeId": tree["nodeId"], "selector": f"[{MARK}]"})["nodeId"]
            if node:
                fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
                # a text box draws its value inside its user-agent shadow tree: ask that tree's elements
                for inner in [] if fonts else _shadow_elements(_find(tree, node)):
                    fonts += cdp.send("CSS.getPlatformFontsForNode", {"nodeId": inner})["fonts"]
                return text, fonts
        finally:
            cdp.detach()
        page.wait_for_timeout(500)
    raise AssertionError("the probed element kept leaving the DOM")


def _find(tree: dict, node_id: int) -> dict:
    stack = [tree]
    while stack:
        n = stack.pop()
        if n.get("nodeId") == node_id:
            return n
        stack += n.get("children", []) + n.get("shadowRoots", [])
    return {}


def _shadow_elements(node: dict) -> list[int]:
    """nodeIds of the elements inside a node's shadow roots (Chromium's user-agent trees of controls)."""
    found, stack = [], list(node.get("shadowRoots", []))
    while stack:
        n = stack.pop()
        if n.get("nodeType") == 1:
            found.append(n["nodeId"])
        stack += n.get("children", []) + n.get("shadowRoots", [])
    return found


def assert_cjk_drawn(page, locator, what: str, custom: bool = False, text_js: str = OWN_TEXT) -> None:
    text, fonts = fonts_for(page, locator, text_js)
    n = len(CJK.findall(text))
    assert n, f"{what}: no Chinese text in {text!r}"
    ok = [f for f in fonts if (f["isCustomFont"] if custom else CJK_FAMILY.search(f["familyName"]))]
    drawn = sum(f["glyphCount"] for f in ok)
    assert drawn >= n, (f"{what}: {n} Chinese characters in {text[:40]!r}, but only {drawn} glyphs came from "
                        f"{'the web font' if custom else 'a CJK font'}; fonts used: {fonts}")


def _with_cjk_text(locator):
    """The first element of `locator` whose own text holds Chinese characters."""
    for i in range(locator.count()):
        el = locator.nth(i)
        if el.is_visible() and CJK.search(el.evaluate(
                "el => [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('')")):
            return el
    raise AssertionError(f"no visible element with Chinese text among {locator.count()}")


def test_lab_draws_chinese_heading_widget_label_and_quiz_option(page, lab_server):
    open_and_run(page, lab_server, "zh/01_query_key_value.ipynb")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    assert_cjk_drawn(page, panel.locator(".jp-RenderedMarkdown h1").first, "zh heading")
    assert_cjk_drawn(page, _with_cjk_text(panel.locator(".widget-label")), "widget label")
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


def _web_font_only(page, css_path: str) -> list[str]:
    """Serve the course's stylesheet without its local() sources; returns the font files the page fetched."""
    def strip_local(route):
        response = route.fetch()
        body = re.sub(r'local\("[^"]*"\),\s*', "", response.text())
        assert "url(" in body
        route.fulfill(response=response, body=body)
    page.route(re.compile(css_path), strip_local)
    fetched = []
    page.on("requestfinished", lambda r: fetched.append(r.url) if ".otf" in r.url else None)
    return fetched


def _fonts_loaded(page) -> None:
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=60_000)
    page.wait_for_timeout(500)


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
    _fonts_loaded(page)
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
    fetched = _web_font_only(page, r"/custom/custom\.css")
    open_and_run(page, lab_server, path)         # it clicks Run All again where a loaded machine lost the click
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    _assert_controls_drawn(page, panel)
    assert fetched, "the web font file was never fetched"


def test_voila_web_font_alone_draws_a_dropdown_its_options_and_a_typed_sentence(page, teacher_server, notebooks_copy):
    """The same controls in the teacher's view (Voila's attention-lab template and its stylesheet)."""
    path = _probe_notebook(notebooks_copy)
    fetched = _web_font_only(page, r"attention-lab-cjk\.css")
    page.goto(teacher_server.url(f"voila/render/{path}"), timeout=120_000)
    _assert_controls_drawn(page, page.locator("body"))
    assert fetched, "the web font file was never fetched"


@pytest.fixture(scope="module")
def slides_server(tmp_path_factory):
    """The slides of notebook 00 (both editions, as `make slides` writes them), served from a temporary folder."""
    out = tmp_path_factory.mktemp("slides")
    subprocess.run([sys.executable, str(REPO / "tools" / "build_site.py"), "slides", "00", "--out", str(out)],
                   check=True, cwd=REPO, stdout=subprocess.DEVNULL, timeout=600)
    port = _free_port()
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(out)]
    proc = _start(cmd, dict(os.environ), out, out / "server.log", f"http://127.0.0.1:{port}/index.html")
    yield f"http://127.0.0.1:{port}"
    _stop(proc)


def _show_slide_of(page, selector: str):
    """Go to the slide holding the first element of `selector` with Chinese text; return that element."""
    index = page.evaluate(f"""() => {{
        const el = [...document.querySelectorAll({selector!r})].find(e => /[\u4e00-\u9fff]/.test(e.textContent));
        if (!el) return -1;
        el.setAttribute('data-slide-target', '1');
        const section = el.closest('section'), parent = section.parentElement.closest('section');
        const top = [...document.querySelectorAll('.reveal .slides > section')];
        const h = top.indexOf(parent || section);
        const v = parent ? [...parent.children].filter(c => c.tagName === 'SECTION').indexOf(section) : 0;
        location.hash = `#/${{h}}/${{v}}`;               // the deck keeps its place in the URL (history: true)
        return h;
    }}""")
    assert index >= 0, f"no {selector} with Chinese text in the deck"
    page.wait_for_timeout(800)                       # the slide transition
    return page.locator("[data-slide-target]").first


def test_slides_web_font_alone_draws_heading_table_and_preformatted_text(page, slides_server):
    fetched = _web_font_only(page, r"attention-lab-cjk\.css")
    page.goto(f"{slides_server}/slides/zh/00_start_here.slides.html", timeout=60_000)
    page.wait_for_function("() => document.querySelector('.reveal.ready') !== null", timeout=60_000)
    _fonts_loaded(page)
    assert_cjk_drawn(page, _with_cjk_text(page.locator(".reveal .slides h1")), "slide heading", custom=True)
    cell = _show_slide_of(page, ".reveal .slides td")
    assert_cjk_drawn(page, cell, "slide table cell", custom=True)
    pre = _show_slide_of(page, ".reveal .slides pre")
    assert_cjk_drawn(page, pre, "slide preformatted output", custom=True,
                     text_js="el.textContent.replace(/[^\\u4e00-\\u9fff]/g, '')")
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
    assert_cjk_drawn(page, _with_cjk_text(page.locator("h2")), "Voila zh heading")
    assert heading.is_visible()
    assert_cjk_drawn(page, _with_cjk_text(page.locator(".widget-label, .widget-html-content b")), "Voila widget text")
