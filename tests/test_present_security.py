"""The teacher's view (`make present`, tools/present.py) is as strict as `make lab`: both probed over HTTP.

Started as `make present` starts it (127.0.0.1, a free port, the teacher template) on a one-cell notebook,
then probed like an attacker would: no token, a foreign Host (DNS rebinding), a cross-origin websocket
riding on the teacher's cookie, and more page loads than the kernel cap. Each probe has its positive
control (the same request done right succeeds), so a refusal cannot come from a broken server.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("voila")



def _run_async(coro):
    """asyncio.run in a thread of its own: in the full suite, Playwright's sync API may have left an event
    loop running in this one, where asyncio.run refuses to start."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _notebook(path: Path) -> Path:
    cells = [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [],
              "source": "print('teacher view up')"}]
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                      "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


@pytest.fixture(scope="module")
def present(tmp_path_factory):
    folder = tmp_path_factory.mktemp("present")
    nb = _notebook(folder / "01_probe.ipynb")
    port = _free_port()
    log = folder / "voila.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, str(ROOT / "tools" / "present.py"), str(nb), f"--port={port}",
                                 "--kernels", "1", "--Voila.port_retries=0"],
                                stdout=out, stderr=subprocess.STDOUT, cwd=folder)
    try:
        deadline = time.monotonic() + 60
        token = None
        while time.monotonic() < deadline and token is None:
            match = re.search(rf"http://127\.0\.0\.1:{port}/\?token=([0-9a-f]+)", log.read_text())
            token = match.group(1) if match else None
            if proc.poll() is not None:
                break
            time.sleep(0.3)
        assert token, f"no URL with a token was printed:\n{log.read_text()[-2000:]}"
        yield {"port": port, "token": token, "log": log}
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _get(port, path, headers=None, method="GET"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=90)
    conn.request(method, path, headers=headers or {})
    resp = conn.getresponse()
    body = resp.read().decode("utf-8", "replace")
    conn.close()
    headers = dict(resp.getheaders())
    # every cookie the server set, as a Cookie header (dict() keeps only the last Set-Cookie)
    headers["cookies"] = "; ".join(v.split(";")[0] for k, v in resp.getheaders() if k.lower() == "set-cookie")
    return resp.status, headers, body


async def _websocket(port, path, headers):
    """The HTTP status a websocket upgrade gets (101 when it connected)."""
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect
    try:
        ws = await websocket_connect(HTTPRequest(f"ws://127.0.0.1:{port}{path}", headers=headers, connect_timeout=30))
    except HTTPClientError as exc:
        return exc.code
    ws.close()
    return 101


@pytest.fixture(scope="module")
def opened(present):
    """The teacher opens the printed URL: the page, its kernel id and the login cookie."""
    status, headers, body = _get(present["port"], f"/?token={present['token']}")
    assert status == 200 and "teacher view up" in body, (status, body[-500:])
    kernel = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', body) or re.search(r"kernel_id=([0-9a-f-]{36})", body)
    assert kernel, "no kernel id in the page"
    cookie = headers["cookies"]
    assert "username-" in cookie, f"no login cookie was set: {cookie!r}"
    return {"kernel": kernel.group(1), "cookie": cookie, **present}


def test_a_page_without_the_token_gets_no_kernel(opened):
    status, headers, _ = _get(opened["port"], "/")
    assert status == 302 and headers["Location"].startswith("/login"), (status, headers)
    status, _, _ = _get(opened["port"], f"/api/kernels/{opened['kernel']}")
    assert status == 403
    status, _, _ = _get(opened["port"], f"/api/kernels/{opened['kernel']}?token={opened['token']}")
    assert status == 200                                             # the control: with the token it answers
    status, _, _ = _get(opened["port"], "/?token=wrong" + opened["token"][:8])
    assert status == 302


def test_a_foreign_host_is_refused_even_with_the_token(opened):
    port, token = opened["port"], opened["token"]
    for host in (f"evil.example:{port}", "attacker.test", f"192.168.1.7:{port}"):
        status, _, _ = _get(port, f"/?token={token}", {"Host": host})
        assert status == 403, host
        status, _, _ = _get(port, f"/api/kernels/{opened['kernel']}?token={token}", {"Host": host})
        assert status == 403, host
    status, _, _ = _get(port, f"/api/kernels/{opened['kernel']}?token={token}", {"Host": f"localhost:{port}"})
    assert status == 200


def test_a_cross_origin_websocket_on_the_teachers_cookie_is_refused(opened):
    port, path = opened["port"], f"/api/kernels/{opened['kernel']}/channels"
    own = {"Cookie": opened["cookie"], "Origin": f"http://127.0.0.1:{port}"}
    assert _run_async(_websocket(port, path, own)) == 101             # the control: the page's own origin
    foreign = {"Cookie": opened["cookie"], "Origin": "http://evil.example"}
    assert _run_async(_websocket(port, path, foreign)) == 403
    rebinding = {"Cookie": opened["cookie"], "Origin": f"http://evil.example:{port}", "Host": f"evil.example:{port}"}
    assert _run_async(_websocket(port, path, rebinding)) == 403
    assert _run_async(_websocket(port, path, {})) == 403              # no token, no cookie


def test_page_loads_beyond_the_kernel_cap_get_503(opened):
    status, _, body = _get(opened["port"], f"/?token={opened['token']}")
    assert status == 503 and "limit of make present is 1" in body, (status, body[-300:])
    assert "teacher view up" not in body


def test_make_present_runs_this_launcher():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\npresent:", 1)[1].split("\n\n", 1)[0]
    assert "tools/present.py" in recipe and "bin/voila " not in recipe


# --- make lab: the same probes on JupyterLab started with make lab's options ------------------------------------
@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    import os
    folder = tmp_path_factory.mktemp("lab")
    (folder / "root").mkdir()
    port = _free_port()
    log = folder / "lab.log"
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(folder / "config"), "JUPYTER_RUNTIME_DIR": str(folder / "rt")}
    cmd = [sys.executable, "-m", "jupyter", "lab", "--ServerApp.ip=127.0.0.1",     # make lab's options
           f"--ServerApp.root_dir={folder / 'root'}", f"--port={port}", "--ServerApp.port_retries=0", "--no-browser"]
    cmd += ["--allow-root"] if os.getuid() == 0 else []
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=folder)
    try:
        deadline, token = time.monotonic() + 90, None
        while time.monotonic() < deadline and token is None and proc.poll() is None:
            match = re.search(rf"http://127\.0\.0\.1:{port}/lab\?token=([0-9a-f]+)", log.read_text())
            token = match.group(1) if match else None
            time.sleep(0.3)
        assert token, f"JupyterLab printed no URL with a token:\n{log.read_text()[-2000:]}"
        status, headers, _ = _get(port, f"/lab?token={token}")
        yield {"port": port, "token": token, "cookie": headers["cookies"]}
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_lab_refuses_requests_without_the_token_and_foreign_hosts(lab):
    port, token = lab["port"], lab["token"]
    assert _get(port, "/api/kernels")[0] == 403
    assert _get(port, f"/api/kernels?token={token}")[0] == 200                          # the control
    assert _get(port, f"/api/kernels?token={token}", {"Host": f"evil.example:{port}"})[0] == 403
    assert _get(port, "/lab")[0] == 302                                                # to the login form


def test_lab_refuses_a_cross_site_post_and_a_cross_origin_websocket(lab):
    port = lab["port"]
    assert "username-" in lab["cookie"], f"no login cookie: {lab['cookie']!r}"
    status, _, _ = _get(port, "/api/kernels", {"Cookie": lab["cookie"]}, method="POST")  # cookie, no XSRF token
    assert status == 403
    own = {"Cookie": lab["cookie"], "Origin": f"http://127.0.0.1:{port}"}
    assert _run_async(_websocket(port, "/api/events/subscribe", own)) == 101
    foreign = {"Cookie": lab["cookie"], "Origin": "http://evil.example"}
    assert _run_async(_websocket(port, "/api/events/subscribe", foreign)) == 403


def test_make_lab_serves_on_127_0_0_1_with_its_token_on():
    recipe = (ROOT / "Makefile").read_text().split("\nlab: setup", 1)[1].split("\n\n", 1)[0]
    assert "tools/course.py lab" in recipe and "token" not in recipe.replace("token on", "")
    # make lab and `python tools/course.py lab` start the same command
    import importlib.util
    spec = importlib.util.spec_from_file_location("course", ROOT / "tools" / "course.py")
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    cmd = course.lab_command(Path("python"), "zh", ["--port=9999"])
    assert "--ServerApp.ip=127.0.0.1" in cmd and not [c for c in cmd if "token" in c.lower()]
    assert cmd[-1] == "--port=9999" and "--LabApp.default_url=/lab/tree/zh/00_start_here.ipynb" in cmd
