"""tools/lite/build_lite.py's pieces that need no network: Pyodide's wheels are refused unless they match the
official lock's sha256, the dependency closure, the notebooks as the site serves them, and the static site's
links to the runnable notebooks. (tests/browser/test_lite.py builds the whole site and runs it in Chromium.)"""
from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)      # scripts, not part of the package
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


build_lite = _load("build_lite", ROOT / "tools" / "lite" / "build_lite.py")
build_site = _load("build_site", ROOT / "tools" / "build_site.py")


def _vendor(files: dict) -> zipfile.ZipFile:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(build_lite.VENDOR["folder"] + name, data)
    return zipfile.ZipFile(io.BytesIO(buf.getvalue()))


def _entry(name: str, data: bytes) -> dict:
    return {"file_name": name, "sha256": hashlib.sha256(data).hexdigest(), "depends": []}


def test_a_wheel_that_matches_the_official_lock_is_copied(tmp_path):
    wheel = b"numpy's bytes"
    entries = {"numpy": _entry("numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", wheel)}
    out = build_lite.copy_verified(_vendor({entries["numpy"]["file_name"]: wheel}), entries, tmp_path)
    assert out == entries
    assert (tmp_path / entries["numpy"]["file_name"]).read_bytes() == wheel


def test_a_wheel_whose_hash_differs_from_the_official_lock_stops_the_build(tmp_path):
    entries = {"numpy": _entry("numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", b"the official bytes")}
    vendor = _vendor({entries["numpy"]["file_name"]: b"tampered bytes"})
    with pytest.raises(SystemExit, match="differs from Pyodide 0.27.7's official lock"):
        build_lite.copy_verified(vendor, entries, tmp_path)
    assert not any(tmp_path.iterdir())                      # nothing of it reached the site


def test_a_wheel_missing_from_the_vendored_distribution_stops_the_build(tmp_path):
    entries = {"scipy": _entry("scipy-1.14.1-cp312-cp312-pyodide_2024_0_wasm32.whl", b"x")}
    with pytest.raises(SystemExit, match="missing from"):
        build_lite.copy_verified(_vendor({}), entries, tmp_path)


def test_the_closure_follows_dependencies_across_name_spellings():
    packages = {"matplotlib": {"depends": ["python_dateutil", "numpy"]}, "python-dateutil": {"depends": ["six"]},
                "six": {"depends": []}, "numpy": {"depends": []}, "scipy": {"depends": ["numpy"]}}
    assert sorted(build_lite.closure(packages, ["matplotlib"])) == ["matplotlib", "numpy", "python-dateutil", "six"]
    with pytest.raises(SystemExit, match="not in Pyodide"):
        build_lite.closure(packages, ["torch"])


def test_the_site_serves_notebooks_00_to_11_with_the_browser_kernel_and_static_widget_pictures(tmp_path):
    served = build_lite.lite_notebooks()
    names = {nb.name[:2] for _, nb in served}
    assert names == {f"{n:02d}" for n in range(12)}
    assert {edition for edition, _ in served} == {"en", "zh"}
    nb = build_lite.site_notebook(ROOT / "notebooks" / "zh" / "01_query_key_value.ipynb")
    assert nb["metadata"]["kernelspec"]["name"] == "python" and "widgets" not in nb["metadata"]
    outputs = [o for c in nb["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if build_lite.WIDGET_VIEW in o.get("data", {})]
    assert any("text/html" in o.get("data", {}) for o in outputs)        # the widgets' static pictures stay


def test_the_build_tools_lock_parses_with_every_pin_hashed():
    pins = build_lite.read_pins(ROOT / "tools" / "lite" / "requirements.txt")
    assert {"jupyterlite-core", "jupyterlite-pyodide-kernel", "jupyterlab-widgets", "jupyter-server"} <= set(pins)
    assert pins["jupyterlite-core"][0] == "0.6.4" and pins["jupyterlite-pyodide-kernel"][0] == "0.6.1"
    assert all(hashes for _, hashes in pins.values())


def test_each_static_page_links_its_runnable_notebook_except_those_that_need_torch():
    page = "<html><head></head><body class='x'><main>…</main></body></html>"
    linked = build_site.add_run_link(page, "01_query_key_value", "zh")
    assert 'href="../lite/lab/index.html?path=zh/01_query_key_value.ipynb"' in linked
    assert "在浏览器里运行" in linked and linked.index("attention-run-link") > linked.index("<body")
    assert build_site.add_run_link(page, "12_trained_transformer", "en") == page
    assert build_site.NOT_IN_LITE == build_lite.TORCH_NOTEBOOKS
    build_site.check_offline(Path("page.html"), linked)          # a local link: still an offline page


def test_the_site_config_points_the_kernel_at_its_own_pyodide(tmp_path):
    (tmp_path / "static" / "pyodide").mkdir(parents=True)
    wheel = tmp_path / "static" / "pyodide" / "a-1.0-py3-none-any.whl"
    wheel.write_bytes(b"a")
    lock = {"packages": {"a": {"file_name": wheel.name, "sha256": hashlib.sha256(b"a").hexdigest()}}}
    (tmp_path / "static" / "pyodide" / "pyodide-lock.json").write_text(json.dumps(lock))
    kernel = {"pyodideUrl": "./static/pyodide/pyodide.js", "disablePyPIFallback": True}
    config = {"jupyter-config-data": {"litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": kernel}}}
    (tmp_path / "jupyter-lite.json").write_text(json.dumps(config))
    build_lite.check_site(tmp_path)
    kernel["pyodideUrl"] = "https://cdn.jsdelivr.net/pyodide/v0.27.7/full/pyodide.js"
    (tmp_path / "jupyter-lite.json").write_text(json.dumps(config))
    with pytest.raises(SystemExit, match="not pointed at the site's own Pyodide"):
        build_lite.check_site(tmp_path)
    kernel["pyodideUrl"] = "./static/pyodide/pyodide.js"
    (tmp_path / "jupyter-lite.json").write_text(json.dumps(config))
    wheel.write_bytes(b"b")
    with pytest.raises(SystemExit, match="missing or not the file"):
        build_lite.check_site(tmp_path)
