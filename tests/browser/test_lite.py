"""The course in the browser (JupyterLite, `make lite`), used as a learner would: the built site served by a plain
static server, Chromium allowed to reach that server only (Playwright aborts every other request, and Chromium
resolves no other host name), notebooks of both editions run from a clean state in the Pyodide kernel, a slider
redraws its figure, a Chinese figure label is drawn with a CJK font, a quiz and an exercise checker answer, and
notebook 12 (the trained models: NumPy and the shipped weights) runs in both editions.

The site is built first when it is missing or stale (tests/browser/lite_helpers.py). Each notebook costs a kernel
start (Pyodide, NumPy, matplotlib: ~30 s on two loaded cores) and its Run All, so two notebooks of 00-11 run here,
one per edition, and 12 in both (the one notebook of the site whose models were trained with torch: the browser
must compute them without it); benchmarks/lite_time.py times every notebook."""
from __future__ import annotations

import json
import re

import pytest
from font_probe import CJK, CJK_FAMILY, fonts_for
from lite_helpers import (
    CHROMIUM,
    OFFLINE_ARGS,
    REPO,
    RUN_ALL_12_S,
    drag_slider,
    ensure_site,
    execute,
    offline_context,
    open_notebook,
    outputs,
    run_all,
    static_server,
    wait_changed,
)

from attention_core.labs.nb03_softmax import checks as nb03_checks
from attention_core.teaching import (
    i18n,
    notebook_source,
    plots,  # noqa: F401 -- registers the figures' strings (plots.keys)
)

pytestmark = pytest.mark.browser

ERROR = "application/vnd.jupyter.error"
STDERR = "application/vnd.jupyter.stderr"


@pytest.fixture(scope="module")
def lite_site():
    return ensure_site()


@pytest.fixture(scope="module")
def lite_base(lite_site):
    with static_server(lite_site) as base:
        yield base


@pytest.fixture(scope="module")
def offline_browser(browser):
    """A Chromium of its own (offline flags), started by the session's Playwright: a worker has one Playwright
    (a second sync_playwright in the same process refuses to start inside the first one's event loop)."""
    b = browser.browser_type.launch(executable_path=str(CHROMIUM), headless=True, args=OFFLINE_ARGS)
    yield b
    b.close()


@pytest.fixture
def lite_page(offline_browser, lite_base, request, tmp_path_factory):
    """A fresh page (its own browser storage) that may load from the site only; `page.blocked` lists what it tried
    to load from elsewhere."""
    blocked: list[str] = []
    context = offline_context(offline_browser, lite_base, blocked)
    page = context.new_page()
    page.blocked = blocked
    yield page
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        shot = tmp_path_factory.getbasetemp() / f"{request.node.name}.png"
        page.screenshot(path=str(shot))
        print(f"\nscreenshot of the failure: {shot}")
    context.close()


def _no_problem_outputs(page, path: str) -> None:
    errors = outputs(page, ERROR)
    assert not errors, f"{path}: a cell raised in the browser:\n" + "\n---\n".join(errors)
    glyphs = [e for e in outputs(page, STDERR) if "Glyph" in e or "missing from" in e]
    assert not glyphs, f"{path}: matplotlib drew characters without a font that has them:\n{glyphs[0]}"


def test_the_site_lists_every_notebook_in_each_language_with_chinese_glyphs(lite_page, lite_base, lite_site):
    page = lite_page
    page.goto(f"{lite_base}/index.html")
    titles = notebook_source.notebook_titles()
    site_notebooks = json.loads((lite_site / "api" / "contents" / "en" / "all.json").read_text())["content"]
    stems = sorted(n["name"][:-len(".ipynb")] for n in site_notebooks)
    assert [s[:2] for s in stems] == [f"{n:02d}" for n in range(13)], stems   # 00-12: 13 trains with torch
    local = sorted(p.stem for p in (REPO / "notebooks" / "en").glob("13_*.ipynb"))
    assert local, "notebook 13 is missing from the repository"
    for edition in ("en", "zh"):
        # 13 is named in each language, with why it needs a local install, and not linked
        section = page.locator(f"section[lang^='{edition}']")
        for stem in local:
            item = section.locator("li.local", has_text=titles[stem][edition])
            assert item.count() == 1 and "torch" in item.text_content(), (edition, stem)
        assert section.locator(".local", has_text="make lab").count() >= 1
        links = page.locator(f"section[lang^='{edition}'] a")
        assert links.count() == len(stems)
        for i, stem in enumerate(stems):
            link = links.nth(i)
            assert link.get_attribute("href") == f"lab/index.html?path={edition}/{stem}.ipynb"
            assert link.text_content() == titles[stem][edition]
            assert (lite_site / "files" / edition / f"{stem}.ipynb").exists()
    # JupyterLab's own menus can be switched to Chinese (Settings -> Language): the site carries the language pack
    languages = json.loads((lite_site / "api" / "translations" / "all.json").read_text(encoding="utf-8"))["data"]
    assert "zh_CN" in languages and (lite_site / "api" / "translations" / "zh_CN.json").stat().st_size > 10_000
    page.evaluate("document.fonts.ready")
    text, fonts = fonts_for(page, page.locator("section[lang^='zh'] h2"))
    assert CJK.search(text)
    assert any(CJK_FAMILY.search(f["familyName"]) for f in fonts), fonts
    assert not page.blocked, page.blocked


def test_an_english_notebook_runs_and_its_slider_redraws_the_figure(lite_page, lite_base):
    page, path = lite_page, "en/01_query_key_value.ipynb"
    open_notebook(page, lite_base, path)
    run_all(page)
    _no_problem_outputs(page, path)
    # the first widget: a query slider and the figure of scores, weights and output it redraws
    widget = page.locator(".jp-OutputArea-output:has(> .jupyter-widgets)").filter(
        has=page.locator(".widget-slider")).filter(has=page.locator("img")).first
    picture = widget.locator("img").first
    readout = widget.locator(".widget-readout").first
    before, value = picture.get_attribute("src"), readout.text_content()
    drag_slider(page, widget.locator(".noUi-handle").filter(visible=True).first)
    wait_changed(page, picture, "src", before)
    assert readout.text_content() != value             # the slider moved, and the kernel drew a new picture
    assert picture.evaluate("img => img.complete && img.naturalWidth > 100")
    assert not page.blocked, page.blocked


def test_a_chinese_notebook_runs_with_chinese_figures_a_quiz_and_a_checker(lite_page, lite_base):
    page, path = lite_page, "zh/03_softmax.ipynb"
    open_notebook(page, lite_base, path)
    run_all(page)
    _no_problem_outputs(page, path)

    # A label of the course's figures (the heatmap's key axis), drawn by the browser's matplotlib: the font that
    # holds each of its Chinese characters, found along font.family as matplotlib's glyph fallback does.
    label = i18n.t("plots.keys", "zh")
    assert CJK.search(label)
    probe = execute(page, f"""
import json, warnings
import matplotlib.pyplot as plt
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font
from attention_core.teaching import fonts
fonts.use_cjk_font()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fig, ax = plt.subplots()
    text = ax.set_xlabel({label!r})
    fig.canvas.draw()
faces = [FT2Font(p) for p in font_manager.fontManager._find_fonts_by_props(text.get_fontproperties())]
drawn = {{ch: next((f.family_name for f in faces if f.get_char_index(ord(ch))), None) for ch in {label!r}
         if ord(ch) > 0x2e80}}
print(json.dumps({{"drawn": drawn, "warnings": [str(w.message) for w in caught]}}))
""")
    result = json.loads(probe.strip().splitlines()[-1])
    assert result["drawn"] and all(f and CJK_FAMILY.search(f) for f in result["drawn"].values()), result
    assert not result["warnings"], result["warnings"]

    # The self-test: choose an answer and check it; the verdict comes back in Chinese.
    check = i18n.t("quiz.check", "zh")
    quiz = page.locator(".jp-OutputArea-output:has(> .jupyter-widgets)").filter(
        has=page.get_by_role("button", name=check, exact=True)).first
    quiz.scroll_into_view_if_needed()
    quiz.get_by_role("button", name="A", exact=True).first.click()
    quiz.get_by_role("button", name=check, exact=True).click()
    verdicts = (i18n.t("quiz.correct", "zh"), i18n.t("quiz.incorrect", "zh"))
    quiz.get_by_text(re.compile("|".join(map(re.escape, verdicts)))).first.wait_for(timeout=30_000)

    # The exercise checker: the notebook's own check of the library's softmax passed, and a learner's wrong
    # softmax gets, in the browser, the very verdict it gets on the desktop.
    shown = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output").all_text_contents()
    assert any("✔ check_softmax" in out for out in shown), "no passing check in the notebook's outputs"

    def unnormalised(x, axis=-1):      # the learner forgot to divide by the sum
        return x

    i18n.set_language("zh")
    try:
        expected = repr(nb03_checks.check_softmax(unnormalised))
    finally:
        i18n.set_language("en")
    got = execute(page, "from attention_core.labs.nb03_softmax import checks\n"
                        "print(repr(checks.check_softmax(lambda x, axis=-1: x)))")
    assert got.strip() == expected and "✘" in expected
    assert not page.blocked, page.blocked


_CELLS_WITH_OUTPUT_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')]
    .filter(c => c.querySelector('.jp-OutputArea-output')).length"""


@pytest.mark.parametrize("path", ["en/12_trained_transformer.ipynb", "zh/12_trained_transformer.ipynb"])
def test_notebook_12_runs_in_the_browser_on_the_shipped_weights(lite_page, lite_base, lite_site, path):
    """Every cell of 12 runs without an error in Pyodide (no torch there), and every cell that has an output in the
    committed notebook has one in the browser too (nothing skipped quietly)."""
    page = lite_page
    open_notebook(page, lite_base, path)
    run_all(page, RUN_ALL_12_S)
    _no_problem_outputs(page, path)
    served = json.loads((lite_site / "files" / path).read_text(encoding="utf-8"))
    stored = sum(1 for c in served["cells"] if c["cell_type"] == "code" and c.get("outputs"))
    assert stored > 20
    assert page.evaluate(_CELLS_WITH_OUTPUT_JS) == stored, path
    assert not page.blocked, page.blocked


def test_every_package_the_site_ships_has_its_licence_written_down(lite_site):
    lock = json.loads((lite_site / "static" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    licences = (REPO / "tools" / "lite" / "LICENSES.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| ([a-z0-9-]+) \| ", licences, re.M))
    assert len(lock["packages"]) > 30
    assert set(lock["packages"]) <= listed, sorted(set(lock["packages"]) - listed)
