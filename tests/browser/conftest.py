"""Real-browser tests: JupyterLab and Voila from this venv, driven by Debian's Chromium via Playwright.

Everything here is marked `browser` and is skipped (with the reason) where /usr/bin/chromium is
missing. The servers run on free 127.0.0.1 ports with a random token, on a temporary COPY of
notebooks/ (so nothing a test does, an autosave included, can touch the committed notebooks), with
HOME, IPYTHONDIR, MPLCONFIGDIR, JUPYTER_CONFIG_DIR and JUPYTER_RUNTIME_DIR in a temporary folder.
The venv's share/jupyter stays on the data path: lab extensions (ipywidgets) and the settings
overrides of tools/lab-overrides.json are the ones `make lab` uses, and the config dir is written by
tools/lab_setup.py as for `make lab` (custom.css with the CJK web font, the interface language).
On failure a test leaves a screenshot (its path is printed) in ATTENTION_LAB_SCREENSHOTS or pytest's
temporary folder.
"""
from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SKIP_REASON = "chromium not installed: run `apt-get install -y chromium` (CI does)"
REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
SERVER_START_S = 120          # 2 shared cores: a cold JupyterLab can take a while
# Test-only JupyterLab user settings: never autosave (the copy would not matter, but a save also
# rewrites widget state), and keep every cell in the DOM (no virtual scrolling).
LAB_USER_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def _register_lab_strings() -> None:
    """Import every lab and the quiz: each registers its UI strings, which the tests look up with i18n.t."""
    import pkgutil

    import attention_core.labs
    import attention_core.teaching.quiz
    for info in pkgutil.iter_modules(attention_core.labs.__path__, "attention_core.labs."):
        importlib.import_module(info.name)


_register_lab_strings()
_spec = importlib.util.spec_from_file_location("lab_setup", REPO / "tools" / "lab_setup.py")
lab_setup = importlib.util.module_from_spec(_spec)      # a script, not part of the package
_spec.loader.exec_module(lab_setup)


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


# --- servers ----------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = SERVER_START_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}; log:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"no answer from {url} after {timeout} s; log:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    """Stop a server started in its own process group, and its kernels with it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)           # the group is ours: start_new_session=True
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture(scope="session")
def browser_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("browser-home")


@pytest.fixture(scope="session")
def server_env(browser_home) -> dict:
    env = dict(os.environ)
    for name in ("JUPYTER_PATH", "JUPYTER_DATA_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR",
                 "JUPYTER_TOKEN"):
        env.pop(name, None)
    env.update(HOME=str(browser_home), IPYTHONDIR=str(browser_home / "ipython"),
               MPLCONFIGDIR=str(browser_home / "mpl"), JUPYTER_CONFIG_DIR=str(browser_home / "jupyter"),
               JUPYTER_RUNTIME_DIR=str(browser_home / "runtime"), PYTHONUNBUFFERED="1")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    lab_setup.config(browser_home / "jupyter", "en")       # custom.css + web font, English interface
    settings = browser_home / "jupyter" / "lab" / "user-settings"
    for rel, value in LAB_USER_SETTINGS.items():
        path = settings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    return env


@pytest.fixture(scope="session")
def notebooks_copy(tmp_path_factory) -> Path:
    """notebooks/en and notebooks/zh copied: the servers' root folder. Beside them, `lesson-repo/`: a git
    repository holding the committed notebooks and, as `make lab` makes it, the ignored working copy."""
    root = tmp_path_factory.mktemp("notebooks")
    for edition in ("en", "zh"):
        shutil.copytree(REPO / "notebooks" / edition, root / edition,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    repo = root / "lesson-repo"
    for edition in ("en", "zh"):
        shutil.copytree(REPO / "notebooks" / edition, repo / "notebooks" / edition,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copyfile(REPO / ".gitignore", repo / ".gitignore")
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "course"], cwd=repo, check=True)
    lab_setup.copy(dest=repo / lab_setup.WORK_COPY.name, source=repo / "notebooks")
    return root


class Server:
    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def url(self, path: str, query: str = "") -> str:
        sep = "&" if query else ""
        return f"{self.base}/{path.lstrip('/')}?{query}{sep}token={self.token}"


def _start(cmd, env, cwd, log: Path, ready_url: str):
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_http(ready_url, proc, log)
    except BaseException:
        _stop(proc)
        raise
    return proc


def _lab(env, root, log):
    """Start JupyterLab on a free local port with a fresh token; yield the Server, stop it after."""
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
           "--LabApp.expose_app_in_browser=True"]     # window.jupyterapp: one page can open notebook after notebook
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    proc = _start(cmd, env, root, log, f"http://127.0.0.1:{port}/api/status?token={token}")
    yield Server(f"http://127.0.0.1:{port}", token)
    _stop(proc)


@pytest.fixture(scope="session")
def lab_server(server_env, notebooks_copy, browser_home):
    yield from _lab(server_env, notebooks_copy, browser_home / "lab.log")


@pytest.fixture(scope="session")
def lab_server_zh(server_env, notebooks_copy, browser_home):
    """JupyterLab as `make lab LANG=zh` configures it: its own config dir with the zh_CN interface."""
    config = browser_home / "jupyter-zh"
    lab_setup.config(config, "zh")
    env = dict(server_env, JUPYTER_CONFIG_DIR=str(config))
    yield from _lab(env, notebooks_copy, browser_home / "lab-zh.log")


# The teacher's view culls a kernel idle this long (make present: 300 s); short here so a test can watch it.
TEACHER_CULL_S = 6


@pytest.fixture(scope="session")
def teacher_server(server_env, notebooks_copy, browser_home):
    """Voila as `make present` runs it: the teacher template; idle kernels culled (quickly, for the test)."""
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "voila", str(notebooks_copy), "--no-browser", "--Voila.ip=127.0.0.1",
           f"--port={port}", f"--token={token}", "--template=attention-lab-teacher",
           f"--MappingKernelManager.cull_idle_timeout={TEACHER_CULL_S}", "--MappingKernelManager.cull_interval=2"]
    log = browser_home / "voila-teacher.log"
    proc = _start(cmd, server_env, notebooks_copy, log, f"http://127.0.0.1:{port}/?token={token}")
    server = Server(f"http://127.0.0.1:{port}", token)
    server.proc = proc
    yield server
    _stop(proc)


@pytest.fixture(scope="session")
def site_server(tmp_path_factory, browser_home):
    """`make site` and `make slides` built into a temporary folder, served by a plain static server."""
    out = tmp_path_factory.mktemp("site")
    for kind in ("site", "slides"):
        subprocess.run([sys.executable, str(REPO / "tools" / "build_site.py"), kind, "--out", str(out)],
                       check=True, cwd=REPO, stdout=subprocess.DEVNULL, timeout=900)
    port = _free_port()
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(out)]
    log = browser_home / "site.log"
    proc = _start(cmd, dict(os.environ), out, log, f"http://127.0.0.1:{port}/index.html")
    server = Server(f"http://127.0.0.1:{port}", "")
    server.folder = out
    yield server
    _stop(proc)


@pytest.fixture(scope="session")
def voila_server(server_env, notebooks_copy, browser_home):
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "voila", str(notebooks_copy), "--no-browser", "--Voila.ip=127.0.0.1",
           f"--port={port}", f"--token={token}"]
    log = browser_home / "voila.log"
    proc = _start(cmd, server_env, notebooks_copy, log, f"http://127.0.0.1:{port}/?token={token}")
    yield Server(f"http://127.0.0.1:{port}", token)
    _stop(proc)


# --- browser ----------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def browser(browser_home):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _new_page(browser):
    """A page in its own context, with generous timeouts."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    context.set_default_timeout(60_000)
    return context.new_page()


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
    pg = _new_page(browser)
    yield pg
    _screenshot_if_failed(pg, request, tmp_path_factory)
    pg.context.close()


@pytest.fixture(scope="module")
def _module_page(browser):
    pg = _new_page(browser)
    yield pg
    pg.context.close()


@pytest.fixture
def lab_page(_module_page, request, tmp_path_factory):
    """One page for a whole test module: JupyterLab loads once and each test opens its notebook in it
    (browser_helpers.open_notebook). After a failure (screenshot taken) the page is emptied, so the next test
    loads Lab afresh rather than inherit a broken state."""
    yield _module_page
    if _screenshot_if_failed(_module_page, request, tmp_path_factory):
        _module_page.goto("about:blank")
