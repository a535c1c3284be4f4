"""The course in the browser (JupyterLite, `make lite`): the built site, a static server for it, a page that may reach
nothing but that server, and small actions on JupyterLite's JupyterLab. Shared by tests/browser/test_lite.py and
benchmarks/lite_time.py.

The site is built when missing or built from other inputs (tools/lite/build_lite.py --if-stale: the first build
fetches its pinned packages once, about 130 MB, into tools/lite/cache/; later builds run offline, about 40 s).
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "_site" / "lite"
BUILDER = REPO / "tools" / "lite" / "build_lite.py"
KERNEL_S = 240            # Pyodide, NumPy and matplotlib load in the page: ~30 s on 2 loaded cores
RUN_ALL_S = 600
# Notebook 12 runs its four trained models through every experiment in WebAssembly: over 10 min on two cores that
# eight other processes share (about a minute of CPU natively).
RUN_ALL_12_S = 2400

# The notebook on show in JupyterLite (its app is exposed as window.jupyterapp by the site's settings).
_KERNEL_IDLE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle' && document.querySelectorAll('.jp-Notebook .jp-CodeCell').length > 0;
}"""
_ALL_RAN_JS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w.sessionContext.session.kernel;
  const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell '
                                                + '.jp-InputArea-prompt')].map(p => p.textContent);
  return k.status === 'idle' && prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p));
}"""
_OUTPUTS_JS = """(mime) => [...document.querySelectorAll(
    `.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output[data-mime-type="${mime}"]`)]
    .map(e => e.textContent.slice(0, 1500))"""
# Runs code in the notebook's kernel and returns what it printed (stdout, stderr and error text).
_EXECUTE_JS = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code, store_history: false});
  const out = [];
  future.onIOPub = (msg) => {
    const c = msg.content;
    if (msg.header.msg_type === 'stream') out.push(c.text);
    if (msg.header.msg_type === 'error') out.push(c.ename + ': ' + c.evalue);
  };
  await future.done;
  return out.join('');
}"""


def ensure_site(out: Path = SITE) -> Path:
    """The built site, (re)built when missing or built from other inputs than the tree's. Sessions side by side
    (two workers, two checkouts' test runs) take turns: the second finds the site built."""
    from filelock import FileLock
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(out.parent / f".{out.name}-build.lock"):
        subprocess.run([sys.executable, str(BUILDER), "--out", str(out), "--if-stale"], check=True, cwd=REPO,
                       stdout=subprocess.DEVNULL, timeout=1800)
    assert (out / "index.html").exists() and (out / "static" / "pyodide" / "pyodide-lock.json").exists()
    return out


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def static_server(folder: Path):
    """A plain static HTTP server (what any web host or school server is) on a free 127.0.0.1 port: yields its URL."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/index.html", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


CHROMIUM = Path("/usr/bin/chromium")          # Debian's (conftest.py skips every browser test without it)
# conftest.py's flags, and Chromium resolves no host name but 127.0.0.1's: a request that Playwright's routes
# would not see (a service worker's) cannot leave the machine either.
OFFLINE_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]


def offline_context(browser, base: str, blocked: list):
    """A browser context that may load only from `base`: every other request is aborted and recorded."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    context.set_default_timeout(60_000)

    def route(r):
        if r.request.url.startswith(base + "/"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    return context


def open_notebook(page, base: str, path: str) -> float:
    """Open `path` (en/NN_name.ipynb) in JupyterLite's Lab; returns seconds until its kernel was idle."""
    start = time.monotonic()
    page.goto(f"{base}/lab/index.html?path={path}", timeout=90_000)
    page.wait_for_function(_KERNEL_IDLE_JS, timeout=KERNEL_S * 1000)
    return time.monotonic() - start


def run_all(page, limit_s: float = RUN_ALL_S) -> float:
    """Clear the outputs, run every cell, wait until all ran (at most limit_s: a bound on a hang, not a speed
    check); returns the seconds Run All took."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    start = time.monotonic()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(_ALL_RAN_JS, timeout=limit_s * 1000, polling=500)
    return time.monotonic() - start


def outputs(page, mime: str) -> list[str]:
    """The text of every output of that MIME type in the notebook on show (application/vnd.jupyter.error, ...)."""
    return page.evaluate(_OUTPUTS_JS, mime)


def execute(page, code: str) -> str:
    """Run `code` in the notebook's kernel (nothing shown in the notebook); returns what it printed."""
    return page.evaluate(_EXECUTE_JS, code)


def drag_slider(page, handle, pixels: float = 40) -> None:
    """Drag a noUi slider handle `pixels` to the right with the mouse. (In JupyterLite's Lab the arrow keys on a
    focused handle reach the notebook, not the slider: they move nothing, so the tests drag, as a learner does.)"""
    handle.evaluate("e => e.scrollIntoView({block: 'center'})")
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + pixels, y, steps=8)
    page.mouse.up()


def wait_changed(page, element, attribute: str, old: str, timeout_s: float = 60) -> float:
    """Seconds until element's attribute differs from `old` (a picture's src: the kernel drew a new one)."""
    start = time.monotonic()
    page.wait_for_function("([el, attr, old]) => el.getAttribute(attr) !== old",
                           arg=[element.element_handle(), attribute, old], timeout=timeout_s * 1000, polling=50)
    return time.monotonic() - start
