"""Browser-side widget latency: key press to new picture, in real JupyterLab and Chromium (median and p95, ms).

For three widgets (notebook 00's dot product, 01's attention step, 03's temperature) the notebook is opened
in a JupyterLab served from a temporary copy and started as the browser tests start theirs (one way to
start it, tests/browser/browser_servers.py: same options, settings and environment), run, and a slider
handle gets `presses` key presses (ArrowRight, then ArrowLeft, so it stays in range). In the page, a keydown
listener stamps each press and a MutationObserver stamps the moment the widget's <img> gets a new `src`
(the kernel's PNG, decoded by the browser into a blob URL); the latency is the difference, all in the
page's own clock (performance.now), so Playwright's round trips are not counted. It covers the whole loop
a learner feels: browser -> websocket -> kernel callback -> PNG -> websocket -> browser.

Needs Debian's Chromium (/usr/bin/chromium) and Playwright; without them it returns {"skipped": why}.

    python benchmarks/browser_latency.py           # prints the numbers
    from browser_latency import measure; measure(presses=30)   # -> dict (used by run.py)
"""
from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROWSER_TESTS = ROOT / "tests" / "browser"
# (notebook, a snippet of the widget cell's source, label)
WIDGETS = [("en/00_start_here.ipynb", "dot_product_widget(", "00 dot product"),
           ("en/01_query_key_value.ipynb", "attention_step_widget(", "01 attention step"),
           ("en/03_softmax.ipynb", "temperature_widget(", "03 softmax temperature")]

_INSTRUMENT_JS = """img => {
  window.__lat = {presses: [], changes: []};
  document.addEventListener('keydown', () => window.__lat.presses.push(performance.now()), true);
  new MutationObserver(() => window.__lat.changes.push(performance.now()))
      .observe(img, {attributes: true, attributeFilter: ['src']});
}"""


def _percentile(values, q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _one_widget(page, server, helpers, path: str, snippet: str, presses: int) -> list[float]:
    helpers.open_and_run(page, server, path)
    cell = helpers.code_cell(page, snippet)
    image = cell.locator(".jp-OutputArea img.widget-image").first
    image.wait_for()
    handle = cell.locator(".jp-OutputArea .widget-slider .noUi-handle").first
    handle.scroll_into_view_if_needed()
    image.evaluate(_INSTRUMENT_JS)
    handle.focus()
    latencies = []
    for i in range(presses + 3):                    # the first 3 warm caches up and are not counted
        key = "ArrowRight" if (i // 4) % 2 == 0 else "ArrowLeft"
        seen = page.evaluate("window.__lat.changes.length")
        page.keyboard.press(key)
        page.wait_for_function(f"window.__lat.changes.length > {seen}", timeout=30_000)
        page.wait_for_timeout(150)                  # let a trailing update land before the next press
        lat = page.evaluate("""() => { const p = window.__lat.presses, c = window.__lat.changes;
                                       return c[c.length - 1] - p[p.length - 1]; }""")
        if i >= 3:
            latencies.append(lat)
        page.evaluate("() => { window.__lat.changes.length = 0; window.__lat.presses.length = 0; }")
    return latencies


def measure(presses: int = 30, widgets=None) -> dict:
    """Key press to new picture for each of `widgets` (default WIDGETS), `presses` presses each."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        return {"skipped": f"playwright missing: {exc}"}
    if str(BROWSER_TESTS) not in sys.path:
        sys.path.append(str(BROWSER_TESTS))
    # the tests' own helpers: how they start Lab and Chromium, open a notebook and run it
    import browser_helpers
    import browser_servers as servers
    if not servers.CHROMIUM.exists():
        return {"skipped": servers.SKIP_REASON}
    home = Path(tempfile.mkdtemp(prefix="attention-lab-bench-"))
    try:
        root = servers.copy_notebooks(home / "notebooks", editions=("en",))
        rows = []
        started = time.perf_counter()
        with servers.lab(servers.server_env(home), root, home / "lab.log") as server, sync_playwright() as pw:
            browser = servers.launch_chromium(pw)
            for path, snippet, label in widgets or WIDGETS:
                page = servers.new_page(browser)
                lat = _one_widget(page, server, browser_helpers, path, snippet, presses)
                rows.append({"widget": label, "presses": len(lat), "median_ms": round(statistics.median(lat), 1),
                             "p95_ms": round(_percentile(lat, 0.95), 1), "max_ms": round(max(lat), 1)})
                page.context.close()
            browser.close()
        return {"rows": rows, "chromium": "Debian /usr/bin/chromium, headless",
                "seconds": round(time.perf_counter() - started, 1),
                "note": "key press to new <img> src in the page's clock; kernel, transfer and decode included"}
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    result = measure(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
    for row in result.get("rows", []):
        print(f"{row['widget']:<24} median {row['median_ms']:6.1f} ms   p95 {row['p95_ms']:6.1f} ms   "
              f"({row['presses']} presses)")
    if "skipped" in result:
        print("skipped:", result["skipped"])
