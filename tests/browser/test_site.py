"""`make site` and `make slides` work offline: every page and deck opened with all non-local requests blocked
has no failed request, typeset formulas (MathJax from the site), its images, and the widgets' static fallbacks; a
zh deck served with the course's web font alone draws its heading, a table and preformatted text with it (reveal.js
styles them itself). One build serves every test here."""
from __future__ import annotations

import re
import subprocess
import sys
from urllib.parse import urlparse

import pytest
from conftest import REPO
from font_probe import assert_cjk_drawn, fonts_loaded, show_slide_of, web_font_only, with_cjk_text

pytestmark = pytest.mark.browser

RAW_MATH = re.compile(r"\$[^$\s][^$\n]*\$")
MATHJAX_DONE = """() => window.MathJax && MathJax.Hub && MathJax.isReady
    && MathJax.Hub.queue.pending === 0 && MathJax.Hub.queue.running === 0"""


def _local(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme in ("data", "blob", "about") or parsed.hostname == "127.0.0.1"


def _open_offline(page, url: str):
    off_machine, failed = [], []
    page.route(lambda u: not _local(u), lambda route: (off_machine.append(route.request.url), route.abort()))
    page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: failed.append(f"{r.url} ({r.status})") if r.status >= 400 else None)
    page.goto(url, timeout=60_000)
    page.wait_for_load_state("networkidle", timeout=60_000)
    return off_machine, failed


def _pages(folder, pattern):
    return sorted(p.relative_to(folder).as_posix() for p in folder.glob(pattern))


def _check_page(page, site_server, rel: str, slides: bool, rendered: str | None = None) -> None:
    off_machine, failed = _open_offline(page, f"{site_server.base}/{rel}")
    if rendered:        # live widgets queue their own formulas once drawn: wait for them before MathJax's queue
        page.locator(rendered).first.wait_for(timeout=60_000)
    page.wait_for_function(MATHJAX_DONE, timeout=60_000)
    if slides:
        page.wait_for_function("() => document.querySelector('.reveal.ready') !== null", timeout=60_000)
    assert not off_machine, f"{rel}: requests that left 127.0.0.1: {off_machine}"
    assert not failed, f"{rel}: failed requests: {failed}"
    typeset = page.locator(".MathJax_CHTML, .MathJax_Display, .MathJax").count()
    # Printed outputs (<pre>, <code>) are never typeset: notebook 13 prints text its model wrote, '$' included.
    # Scripts are not text a reader sees: the saved widget state is JSON holding the quiz's '$\\alpha_{ij}$'.
    text = page.evaluate("""(slides) => {
        const roots = slides ? [...document.querySelectorAll('.reveal .slides section')] : [document.body];
        return roots.map(r => { const c = r.cloneNode(true);
                                c.querySelectorAll('pre, code, script, style').forEach(e => e.remove());
                                return c.textContent; }).join('\\n'); }""", slides)
    raw = RAW_MATH.findall(text)
    assert typeset > 0 and not raw, f"{rel}: {typeset} typeset formulas, raw ones left: {raw[:5]}"
    images = page.evaluate("[...document.images].map(i => i.naturalWidth)")
    assert images and all(w > 0 for w in images), f"{rel}: images {images}"


def test_index_links_every_page_and_deck(page, site_server):
    off_machine, failed = _open_offline(page, f"{site_server.base}/index.html")
    assert not off_machine and not failed, (off_machine, failed)
    links = page.locator("a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    for rel in _pages(site_server.folder, "[ez][nh]/*.html") + _pages(site_server.folder, "slides/*/*.slides.html"):
        assert rel in links, f"index.html does not link {rel}"
    assert page.get_by_text("从这里开始").count() and page.get_by_text("Start here").count()


def test_every_site_page_works_offline(page, site_server):
    pages = _pages(site_server.folder, "[ez][nh]/*.html")
    assert len(pages) >= 24, pages
    for rel in pages:
        _check_page(page, site_server, rel, slides=False)
    # a page without a kernel shows the widgets' static fallbacks: the picture of the initial state
    page.goto(f"{site_server.base}/en/01_query_key_value.html")
    assert page.locator(".attention-lab-static img").count() >= 1


def test_every_slide_deck_works_offline(page, site_server):
    decks = _pages(site_server.folder, "slides/*/*.slides.html")
    assert len(decks) >= 24, decks
    for rel in decks:
        _check_page(page, site_server, rel, slides=True)
    assert page.locator(".reveal .slides > section").count() > 3


def test_saved_widget_state_renders_offline(page, site_server):
    """`--widgets saved`: the widget state stored in the notebook drawn by the pinned, local html-manager."""
    out = site_server.folder / "saved"
    subprocess.run([sys.executable, "tools/build_site.py", "site", "01", "--widgets", "saved", "--out", str(out)],
                   check=True, cwd=REPO, stdout=subprocess.DEVNULL, timeout=600)
    rel = "saved/en/01_query_key_value.html"
    _check_page(page, site_server, rel, slides=False, rendered=".widget-htmlmath-content")
    page.locator(".widget-slider").first.wait_for(timeout=60_000)
    assert page.locator("img.widget-image").count() >= 1, "the saved widget state drew no picture"
    assert page.locator(".attention-lab-static").count() == 0       # the live view, not the fallback


def test_slides_web_font_alone_draws_heading_table_and_preformatted_text(page, site_server):
    fetched = web_font_only(page, r"attention-lab-cjk\.css")
    page.goto(f"{site_server.base}/slides/zh/00_start_here.slides.html", timeout=60_000)
    page.wait_for_function("() => document.querySelector('.reveal.ready') !== null", timeout=60_000)
    fonts_loaded(page)
    assert_cjk_drawn(page, with_cjk_text(page.locator(".reveal .slides h1")), "slide heading", custom=True)
    cell = show_slide_of(page, ".reveal .slides td")
    assert_cjk_drawn(page, cell, "slide table cell", custom=True)
    pre = show_slide_of(page, ".reveal .slides pre")
    assert_cjk_drawn(page, pre, "slide preformatted output", custom=True,
                     text_js="el.textContent.replace(/[^\\u4e00-\\u9fff]/g, '')")
    assert fetched, "the web font file was never fetched"
