"""Browser-side widget latency: key press to new picture, in real JupyterLab and Chromium (median and p95, ms).

For three widgets (notebook 00's dot product, 01's attention step, 03's temperature) the notebook is opened
in a JupyterLab served from a temporary copy, run, and a slider handle gets `presses` key presses
(ArrowRight, then ArrowLeft, so it stays in range). In the page, a keydown listener stamps each press and a
MutationObserver stamps the moment the widget's <img> gets a new `src` (the kernel's PNG, decoded by the
browser into a blob URL); the latency is the difference, all in the page's own clock
(performance.now), so Playwright's round trips are not counted. It covers the whole loop a learner feels:
browser -> websocket -> kernel callback -> PNG -> websocket -> browser.

Needs Debian's Chromium (/usr/bin/chromium) and Playwright; without them it returns {"skipped": why}.

    python benchmarks/browser_latency.py           # prints the numbers
    from browser_latency import measure; measure(presses=30)   # -> dict (used by run.py)
"""
from __future__ import annotations

import importlib.util
import os
import secrets
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


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def measure(presses: int = 30) -> dict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        return {"skipped": f"playwright missing: {exc}"}
    conftest = _load("browser_conftest", BROWSER_TESTS / "conftest.py")
    if not conftest.CHROMIUM.exists():
        return {"skipped": conftest.SKIP_REASON}
    sys.path.insert(0, str(BROWSER_TESTS))
    helpers = _load("browser_helpers", BROWSER_TESTS / "browser_helpers.py")
    home = Path(tempfile.mkdtemp(prefix="attention-lab-bench-"))
    proc = None
    try:
        root = home / "notebooks"
        for edition in ("en",):
            shutil.copytree(ROOT / "notebooks" / edition, root / edition)
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
        env.update(HOME=str(home), IPYTHONDIR=str(home / "ipython"), MPLCONFIGDIR=str(home / "mpl"),
                   JUPYTER_CONFIG_DIR=str(home / "jupyter"), JUPYTER_RUNTIME_DIR=str(home / "runtime"))
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        conftest.lab_setup.config(home / "jupyter", "en")
        for rel, value in conftest.LAB_USER_SETTINGS.items():
            target = home / "jupyter" / "lab" / "user-settings" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(__import__("json").dumps(value))
        port, token = conftest._free_port(), secrets.token_hex(16)
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        proc = conftest._start(cmd, env, root, home / "lab.log", f"http://127.0.0.1:{port}/api/status?token={token}")
        server = conftest.Server(f"http://127.0.0.1:{port}", token)
        rows = []
        started = time.perf_counter()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(conftest.CHROMIUM), headless=True,
                                         args=conftest.CHROMIUM_ARGS)
            for path, snippet, label in WIDGETS:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                context.set_default_timeout(60_000)
                page = context.new_page()
                lat = _one_widget(page, server, helpers, path, snippet, presses)
                rows.append({"widget": label, "presses": len(lat), "median_ms": round(statistics.median(lat), 1),
                             "p95_ms": round(_percentile(lat, 0.95), 1), "max_ms": round(max(lat), 1)})
                context.close()
            browser.close()
        return {"rows": rows, "chromium": "Debian /usr/bin/chromium, headless",
                "seconds": round(time.perf_counter() - started, 1),
                "note": "key press to new <img> src in the page's clock; kernel, transfer and decode included"}
    finally:
        if proc is not None:
            conftest._stop(proc)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    result = measure(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
    for row in result.get("rows", []):
        print(f"{row['widget']:<24} median {row['median_ms']:6.1f} ms   p95 {row['p95_ms']:6.1f} ms   "
              f"({row['presses']} presses)")
    if "skipped" in result:
        print("skipped:", result["skipped"])
