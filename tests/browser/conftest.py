"""Real-browser tests: JupyterLab and Voila from this venv, driven by Debian's Chromium via Playwright.

Everything here is marked `browser` and is skipped (with the reason) where /usr/bin/chromium is
missing. The servers run on free 127.0.0.1 ports with a random token, on a temporary COPY of
notebooks/ (so nothing a test does, an autosave included, can touch the committed notebooks), with
HOME, IPYTHONDIR, MPLCONFIGDIR, JUPYTER_CONFIG_DIR and JUPYTER_RUNTIME_DIR in a temporary folder.
The venv's share/jupyter stays on the data path: lab extensions (ipywidgets) and the settings
overrides of tools/lab-overrides.json are the ones `make lab` uses, and the config dir is written by
tools/lab_setup.py as for `make lab` (custom.css with the CJK web font, the interface language).
How a server and Chromium start lives in browser_servers.py, which benchmarks/browser_latency.py uses too.
On failure a test leaves a screenshot (its path is printed) in ATTENTION_LAB_SCREENSHOTS or pytest's
temporary folder.
"""
from __future__ import annotations

import importlib
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser_servers import (
    CHROMIUM,
    REPO,
    SKIP_REASON,
    Server,
    copy_notebooks,
    free_port,
    lab,
    lab_setup,
    launch_chromium,
    new_page,
    start,
    stop,
)
from browser_servers import server_env as _server_env

HERE = Path(__file__).resolve().parent


def _register_lab_strings() -> None:
    """Import every lab and the quiz: each registers its UI strings, which the tests look up with i18n.t."""
    import pkgutil

    import attention_core.labs
    import attention_core.teaching.quiz
    for info in pkgutil.iter_modules(attention_core.labs.__path__, "attention_core.labs."):
        importlib.import_module(info.name)


_register_lab_strings()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.browser)
            if not CHROMIUM.exists():
                item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


# --- servers (started as browser_servers starts them, the benchmark's included) -----------------------

@pytest.fixture(scope="session")
def browser_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("browser-home")


@pytest.fixture(scope="session")
def server_env(browser_home) -> dict:
    return _server_env(browser_home)


@pytest.fixture(scope="session")
def notebooks_copy(tmp_path_factory) -> Path:
    """notebooks/en and notebooks/zh copied: the servers' root folder. Beside them, `lesson-repo/`: a git
    repository holding the committed notebooks and, as `make lab` makes it, the ignored working copy."""
    root = copy_notebooks(tmp_path_factory.mktemp("notebooks"))
    repo = root / "lesson-repo"
    copy_notebooks(repo / "notebooks")
    shutil.copyfile(REPO / ".gitignore", repo / ".gitignore")
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "course"], cwd=repo, check=True)
    lab_setup.copy(dest=repo / lab_setup.WORK_COPY.name, source=repo / "notebooks")
    return root


@pytest.fixture(scope="session")
def lab_server(server_env, notebooks_copy, browser_home):
    with lab(server_env, notebooks_copy, browser_home / "lab.log") as server:
        yield server


@pytest.fixture(scope="session")
def lab_server_zh(server_env, notebooks_copy, browser_home):
    """JupyterLab as `make lab LANG=zh` configures it: its own config dir with the zh_CN interface."""
    config = browser_home / "jupyter-zh"
    lab_setup.config(config, "zh")
    env = dict(server_env, JUPYTER_CONFIG_DIR=str(config))
    with lab(env, notebooks_copy, browser_home / "lab-zh.log") as server:
        yield server


# The teacher's view culls a kernel idle this long (make present: 300 s); short here so a test can watch it.
TEACHER_CULL_S = 6


@pytest.fixture(scope="session")
def teacher_server(server_env, notebooks_copy, browser_home):
    """Voila as `make present` runs it: the teacher template; idle kernels culled (quickly, for the test)."""
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "voila", str(notebooks_copy), "--no-browser", "--Voila.ip=127.0.0.1",
           f"--port={port}", f"--token={token}", "--template=attention-lab-teacher",
           f"--MappingKernelManager.cull_idle_timeout={TEACHER_CULL_S}", "--MappingKernelManager.cull_interval=2"]
    log = browser_home / "voila-teacher.log"
    proc = start(cmd, server_env, notebooks_copy, log, f"http://127.0.0.1:{port}/?token={token}")
    server = Server(f"http://127.0.0.1:{port}", token)
    server.proc = proc
    yield server
    stop(proc)


@pytest.fixture(scope="session")
def site_server(tmp_path_factory, browser_home):
    """`make site` and `make slides` built into a temporary folder, served by a plain static server."""
    out = tmp_path_factory.mktemp("site")
    for kind in ("site", "slides"):
        subprocess.run([sys.executable, str(REPO / "tools" / "build_site.py"), kind, "--out", str(out)],
                       check=True, cwd=REPO, stdout=subprocess.DEVNULL, timeout=900)
    port = free_port()
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(out)]
    log = browser_home / "site.log"
    proc = start(cmd, dict(os.environ), out, log, f"http://127.0.0.1:{port}/index.html")
    server = Server(f"http://127.0.0.1:{port}", "")
    server.folder = out
    yield server
    stop(proc)


@pytest.fixture(scope="session")
def voila_server(server_env, notebooks_copy, browser_home):
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "voila", str(notebooks_copy), "--no-browser", "--Voila.ip=127.0.0.1",
           f"--port={port}", f"--token={token}"]
    log = browser_home / "voila.log"
    proc = start(cmd, server_env, notebooks_copy, log, f"http://127.0.0.1:{port}/?token={token}")
    yield Server(f"http://127.0.0.1:{port}", token)
    stop(proc)


# --- browser ----------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def browser(browser_home):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = launch_chromium(pw)
        yield b
        b.close()


def _screenshot_if_failed(pg, request, tmp_path_factory) -> bool:
    """Save a screenshot of `pg` when the test failed (its path is printed); says whether it failed."""
    rep = getattr(request.node, "rep_call", None)
    if rep is None or not rep.failed:
        return False
    folder = Path(os.environ.get("ATTENTION_LAB_SCREENSHOTS") or tmp_path_factory.getbasetemp() / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / f"{request.node.name}.png"
    try:
        pg.screenshot(path=str(shot), full_page=True, timeout=30_000)
        print(f"\nscreenshot of the failure: {shot}")
    except Exception as exc:  # noqa: BLE001 -- a screenshot must not hide the real failure
        print(f"\nno screenshot ({exc})")
    return True


@pytest.fixture
def page(browser, request, tmp_path_factory):
    """A fresh page (own context) with generous timeouts; a screenshot on failure."""
    pg = new_page(browser)
    yield pg
    _screenshot_if_failed(pg, request, tmp_path_factory)
    pg.context.close()


@pytest.fixture(scope="module")
def _module_page(browser):
    pg = new_page(browser)
    yield pg
    pg.context.close()


# Every kernel of the page's Lab shut down, bounded: a kernel that will not stop is left to the server.
_STOP_KERNELS_JS = """async () => {
  const app = window.jupyterapp;
  if (app) { await Promise.race([app.serviceManager.kernels.shutdownAll(), new Promise(ok => setTimeout(ok, 30000))]); }
}"""


@pytest.fixture
def lab_page(_module_page, request, tmp_path_factory):
    """One page for a whole test module: JupyterLab loads once and each test opens its notebook in it
    (browser_helpers.open_notebook). After a failure (screenshot taken) its kernels are shut down (a notebook that
    ran out of time would otherwise go on computing beside the next tests) and the page is emptied, so the next
    test loads Lab afresh rather than inherit a broken state."""
    yield _module_page
    if _screenshot_if_failed(_module_page, request, tmp_path_factory):
        try:
            _module_page.evaluate(_STOP_KERNELS_JS)
        except Exception as exc:  # noqa: BLE001 -- a clean-up must not hide the real failure
            print(f"\nkernels not shut down ({exc})")
        _module_page.goto("about:blank")
