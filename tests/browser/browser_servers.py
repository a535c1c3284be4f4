"""The one way to start a test JupyterLab (and Voila, a static server) and a headless Chromium: used by the
fixtures in conftest.py and by benchmarks/browser_latency.py, so the benchmark drives the same Lab the tests do.

Servers run on free 127.0.0.1 ports with a random token, each in its own process group (stopped with its
kernels), with HOME, IPYTHONDIR, MPLCONFIGDIR, JUPYTER_CONFIG_DIR and JUPYTER_RUNTIME_DIR in a temporary folder
(`server_env`). The venv's share/jupyter stays on the data path: lab extensions (ipywidgets) and the settings
overrides of tools/lab-overrides.json are the ones `make lab` uses, and the config dir is written by
tools/lab_setup.py as for `make lab` (custom.css with the CJK web font, the interface language). No pytest here:
the benchmark imports it outside a test session.
"""
from __future__ import annotations

import contextlib
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

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SKIP_REASON = "chromium not installed: run `apt-get install -y chromium` (CI does)"
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

_spec = importlib.util.spec_from_file_location("lab_setup", REPO / "tools" / "lab_setup.py")
lab_setup = importlib.util.module_from_spec(_spec)      # a script, not part of the package
_spec.loader.exec_module(lab_setup)


class Server:
    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def url(self, path: str, query: str = "") -> str:
        sep = "&" if query else ""
        return f"{self.base}/{path.lstrip('/')}?{query}{sep}token={self.token}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = SERVER_START_S) -> None:
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


def stop(proc: subprocess.Popen) -> None:
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


def start(cmd, env, cwd, log: Path, ready_url: str) -> subprocess.Popen:
    """Start `cmd` in its own process group, its output in `log`; return once `ready_url` answers 200."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_http(ready_url, proc, log)
    except BaseException:
        stop(proc)
        raise
    return proc


def server_env(home: Path) -> dict:
    """The environment of every test server: this venv first on PATH, every Jupyter, IPython and matplotlib
    folder under `home`, the config dir written as `make lab` writes it (English interface), with the
    test-only Lab user settings."""
    env = dict(os.environ)
    for name in ("JUPYTER_PATH", "JUPYTER_DATA_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR",
                 "JUPYTER_TOKEN"):
        env.pop(name, None)
    env.update(HOME=str(home), IPYTHONDIR=str(home / "ipython"),
               MPLCONFIGDIR=str(home / "mpl"), JUPYTER_CONFIG_DIR=str(home / "jupyter"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), PYTHONUNBUFFERED="1")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    lab_setup.config(home / "jupyter", "en")       # custom.css + web font, English interface
    settings = home / "jupyter" / "lab" / "user-settings"
    for rel, value in LAB_USER_SETTINGS.items():
        path = settings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    return env


def copy_notebooks(root: Path, editions=("en", "zh")) -> Path:
    """notebooks/<edition> copied under `root` (the servers' root folder: nothing a test or a benchmark does,
    an autosave included, can touch the committed notebooks)."""
    for edition in editions:
        shutil.copytree(REPO / "notebooks" / edition, root / edition,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return root


@contextlib.contextmanager
def lab(env: dict, root: Path, log: Path):
    """JupyterLab on a free local port with a fresh token, serving `root`; yields its Server, stops it after."""
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
           "--LabApp.expose_app_in_browser=True"]     # window.jupyterapp: one page can open notebook after notebook
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    proc = start(cmd, env, root, log, f"http://127.0.0.1:{port}/api/status?token={token}")
    try:
        yield Server(f"http://127.0.0.1:{port}", token)
    finally:
        stop(proc)


def launch_chromium(playwright):
    """Debian's Chromium, headless, with the flags these machines need (never a downloaded browser)."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


def new_page(browser):
    """A page in its own context, with generous timeouts."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    context.set_default_timeout(60_000)
    return context.new_page()
