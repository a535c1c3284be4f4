"""The course in the browser (JupyterLite, `make lite`): time to a ready kernel, Run All per notebook, and the time from
a slider drag to the new picture, in headless Chromium with every request kept on 127.0.0.1.

    from lite_time import measure; measure()              # -> dict (used by run.py: `run.py --only lite`)

Each notebook opens in a fresh page (its own browser storage), so each pays a kernel start: Pyodide, NumPy and
matplotlib load in the page, as for a learner opening the site. Run All clears the outputs first. The slider
latency is the median over drags of the first slider of the first widget that has a picture (the kernel redraws
it). The same measures in JupyterLab are the `notebooks` (nbclient Run All) and `browser` (key press to picture)
sections of results.json; format_markdown puts the Run All times side by side.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROWSER_TESTS = ROOT / "tests" / "browser"
EDITIONS = ("en", "zh")
DRAGS = 5


def _notebooks(quick: bool) -> list[str]:
    names = sorted(p.name for p in (ROOT / "notebooks" / "en").glob("[0-9][0-9]_*.ipynb")
                   if not p.name.startswith(("12_", "13_")))
    if quick:
        return ["en/01_query_key_value.ipynb"]
    return [f"{EDITIONS[int(n[:2]) % 2]}/{n}" for n in names]     # editions take turns, as in the browser tests


def _slider_latency(page, helpers) -> list[float]:
    widgets = page.locator(".jp-OutputArea-output:has(> .jupyter-widgets)").filter(
        has=page.locator(".widget-slider .noUi-handle")).filter(has=page.locator("img"))
    if not widgets.count():
        return []
    widget = widgets.first
    picture, handle = widget.locator("img").first, widget.locator(".noUi-handle").filter(visible=True).first
    times = []
    for i in range(DRAGS):
        before = picture.get_attribute("src")
        helpers.drag_slider(page, handle, 25 if i % 2 == 0 else -25)
        try:
            times.append(helpers.wait_changed(page, picture, "src", before, timeout_s=60))
        except Exception:  # noqa: BLE001 -- a drag that changed nothing (at the slider's end) is not a time
            continue
    return times


def measure(quick: bool = False) -> dict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        return {"skipped": f"playwright is not installed ({exc})"}
    if str(BROWSER_TESTS) not in sys.path:
        sys.path.append(str(BROWSER_TESTS))
    import lite_helpers as helpers
    if not helpers.CHROMIUM.exists():
        return {"skipped": f"{helpers.CHROMIUM} is missing (apt-get install -y chromium)"}
    t0 = time.monotonic()
    site = helpers.ensure_site()
    build_s = time.monotonic() - t0
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    rows = []
    blocked: list[str] = []
    with helpers.static_server(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(helpers.CHROMIUM), headless=True, args=helpers.OFFLINE_ARGS)
        try:
            for path in _notebooks(quick):
                context = helpers.offline_context(browser, base, blocked)
                page = context.new_page()
                try:
                    kernel = helpers.open_notebook(page, base, path)
                    run_all = helpers.run_all(page)
                    errors = helpers.outputs(page, "application/vnd.jupyter.error")
                    drags = _slider_latency(page, helpers)
                finally:
                    context.close()
                rows.append({"notebook": path, "kernel_ready_s": round(kernel, 1), "run_all_s": round(run_all, 1),
                             "errors": len(errors),
                             "slider_to_picture_ms": round(1000 * statistics.median(drags)) if drags else None})
                print(f"[lite] {path}: kernel {kernel:.1f} s, Run All {run_all:.1f} s", file=sys.stderr, flush=True)
        finally:
            browser.close()
    return {"site_mb": round(size / 1e6, 1), "build_or_check_s": round(build_s, 1), "rows": rows,
            "requests_blocked": len(blocked)}


def _lab_times() -> dict:
    """Run All per notebook in JupyterLab's kernel (nbclient) from results.json's `notebooks` section, if any."""
    try:
        rows = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))["sections"][
            "notebooks"]["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out = {}
    for row in rows if isinstance(rows, list) else []:
        name = str(row.get("notebook", ""))
        seconds = row.get("seconds", row.get("s"))
        if name and seconds is not None:
            out[name.replace("\\", "/").split("notebooks/")[-1]] = seconds
    return out


def format_markdown(r: dict) -> list:
    if "skipped" in r:
        return ["", f"### The course in the browser (JupyterLite): skipped: {r['skipped']}"]
    lab = _lab_times()
    lines = ["", f"### The course in the browser (JupyterLite, Pyodide; site {r['site_mb']} MB, headless Chromium, "
                 f"{r['requests_blocked']} requests to other hosts)", "",
             "| notebook | kernel ready s | Run All s (browser) | Run All s (JupyterLab, nbclient) | "
             "slider to picture ms | errors |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in r["rows"]:
        desk = lab.get(row["notebook"], "")
        lines.append(f"| {row['notebook']} | {row['kernel_ready_s']} | {row['run_all_s']} | {desk} | "
                     f"{row['slider_to_picture_ms'] if row['slider_to_picture_ms'] is not None else ''} | "
                     f"{row['errors']} |")
    return lines
