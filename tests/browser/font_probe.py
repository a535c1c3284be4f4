"""Which font Chromium drew an element's text with (DevTools protocol, CSS.getPlatformFontsForNode), and a page
served with the course's web font alone: shared by test_fonts.py and test_site.py."""
from __future__ import annotations

import re

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


def with_cjk_text(locator):
    """The first element of `locator` whose own text holds Chinese characters."""
    for i in range(locator.count()):
        el = locator.nth(i)
        if el.is_visible() and CJK.search(el.evaluate(
                "el => [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('')")):
            return el
    raise AssertionError(f"no visible element with Chinese text among {locator.count()}")


def web_font_only(page, css_path: str) -> list[str]:
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


def fonts_loaded(page) -> None:
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=60_000)
    page.wait_for_timeout(500)


def show_slide_of(page, selector: str):
    """Go to the slide holding the first element of `selector` whose own text (not a child element's) holds Chinese;
    return that element."""
    index = page.evaluate(f"""() => {{
        const own = e => [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
        const el = [...document.querySelectorAll({selector!r})].find(e => /[\u4e00-\u9fff]/.test(own(e)));
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
