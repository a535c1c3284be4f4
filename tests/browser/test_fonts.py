"""Chinese text is drawn with a CJK font, asked of Chromium itself (DevTools protocol, CSS.getPlatformFontsForNode):
a zh heading, a widget label and a quiz option in JupyterLab, and the same text when only the web font the
course serves can draw it (its `local()` sources removed), so it works on a machine without a CJK font."""
from __future__ import annotations

import re

import pytest
from browser_helpers import open_and_run

from attention_core.teaching import i18n, quiz

pytestmark = pytest.mark.browser

CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
CJK_FAMILY = re.compile(r"CJK|Han|Hei|Ming|Song|Kai|WenQuanYi|Noto Sans SC|Source Han|PingFang|YaHei", re.I)
MARK = "data-font-probe"


def fonts_for(page, locator) -> tuple[str, list[dict]]:
    """(the element's own text, the platform fonts Chromium drew that text with)."""
    for _attempt in range(5):                 # a page that re-renders may replace the element: mark it again
        locator.scroll_into_view_if_needed()
        page.evaluate(f"() => document.querySelectorAll('[{MARK}]').forEach(e => e.removeAttribute('{MARK}'))")
        text = locator.evaluate(f"""el => {{ el.setAttribute('{MARK}', '1');
            return [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join(''); }}""")
        cdp = page.context.new_cdp_session(page)
        try:
            cdp.send("DOM.enable")
            cdp.send("CSS.enable")
            root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]["nodeId"]
            node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"[{MARK}]"})["nodeId"]
            if node:
                return text, cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        finally:
            cdp.detach()
        page.wait_for_timeout(500)
    raise AssertionError("the probed element kept leaving the DOM")


def assert_cjk_drawn(page, locator, what: str, custom: bool = False) -> None:
    text, fonts = fonts_for(page, locator)
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
