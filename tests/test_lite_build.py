"""tools/lite/build_lite.py's pieces that need no network: Pyodide's wheels are refused unless they match the
official lock's sha256, the dependency closure, the notebooks as the site serves them (00-12; 13 named as local),
the static site's links to the runnable notebooks, --out (only a new, empty or earlier build's folder is replaced),
--if-stale (the stamp checked against the tree and the site's files) and the cache's tampered wheels.
(tests/browser/test_lite.py builds the whole site and runs it in Chromium.)"""
from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import subprocess
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


def test_the_site_serves_notebooks_00_to_12_with_the_browser_kernel_and_static_widget_pictures(tmp_path):
    served = build_lite.lite_notebooks()
    names = {nb.name[:2] for _, nb in served}
    assert names == {f"{n:02d}" for n in range(13)}
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
    assert 'path=en/12_trained_transformer.ipynb"' in build_site.add_run_link(page, "12_trained_transformer", "en")
    assert build_site.add_run_link(page, "13_build_a_gpt", "en") == page
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


# --- --out: the build replaces only a folder it wrote --------------------------------------------------------------
@pytest.fixture
def no_build(monkeypatch):
    """The build's first steps, replaced by a failure: a refused --out must stop before any of them."""
    def started(*args, **kwargs):
        raise AssertionError("the build started")
    for step in ("ensure_build_venv", "build_course_wheel", "stage_source", "fetch_pyodide_tarball"):
        monkeypatch.setattr(build_lite, step, started)


def test_out_naming_a_file_is_refused_before_the_build_and_the_file_is_kept(tmp_path, no_build):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    for argv in (["--out", str(target)], ["--out", str(target), "--if-stale"]):
        with pytest.raises(SystemExit, match="is a file, not a folder"):
            build_lite.main(argv)
    assert target.read_text() == "mine"


def test_out_naming_a_folder_of_other_files_is_refused_and_nothing_in_it_is_touched(tmp_path, no_build):
    docs = tmp_path / "Documents"
    (docs / "thesis").mkdir(parents=True)
    (docs / "thesis" / "draft.tex").write_text("chapter 1")
    (docs / "index.html").write_text("<p>my own site</p>")
    for argv in (["--out", str(docs)], ["--out", str(docs), "--if-stale"]):
        with pytest.raises(SystemExit, match="did not write"):
            build_lite.main(argv)
    assert (docs / "thesis" / "draft.tex").read_text() == "chapter 1"
    assert (docs / "index.html").read_text() == "<p>my own site</p>"
    with pytest.raises(SystemExit, match="did not write"):
        build_lite.main(["--out", str(ROOT / "notebooks")])                  # the repository's notebooks
    with pytest.raises(SystemExit, match="did not write|repository"):
        build_lite.main(["--out", str(ROOT)])
    assert (ROOT / "notebooks" / "en").is_dir()


def test_out_may_be_new_empty_or_an_earlier_build(tmp_path):
    assert build_lite.check_out(tmp_path / "new" / "lite") == (tmp_path / "new" / "lite").resolve()
    (tmp_path / "empty").mkdir()
    assert build_lite.check_out(tmp_path / "empty") == (tmp_path / "empty").resolve()
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "index.html").write_text("site")
    (earlier / build_lite.STAMP).write_text(json.dumps({"inputs": "0" * 64, "pyodide": "0.27.7"}))  # an older stamp
    assert build_lite.check_out(earlier) == earlier.resolve()
    (earlier / build_lite.STAMP).write_text("not json")                      # a stamp that is not the builder's
    with pytest.raises(SystemExit, match="did not write"):
        build_lite.check_out(earlier)


def _fake_build_steps(monkeypatch, tmp_path, fail_build=False):
    """Every step of build() but the folder handling, replaced: `jupyter lite build` writes two files."""
    monkeypatch.setattr(build_lite, "ensure_build_venv", lambda: tmp_path / "jupyter")
    monkeypatch.setattr(build_lite, "build_course_wheel", lambda: tmp_path / "attention_core-0-py3-none-any.whl")
    monkeypatch.setattr(build_lite, "stage_source", lambda src, wheel: [("en", "00_start_here")])
    monkeypatch.setattr(build_lite, "add_webfont", lambda out: None)
    monkeypatch.setattr(build_lite, "check_site", lambda out: None)
    monkeypatch.setattr(build_lite, "write_index", lambda out, nbs: (out / "index.html").write_text("new index"))

    def jupyter_lite_build(cmd, what, **kwargs):
        if fail_build:
            raise SystemExit(f"{what} failed")
        site = Path(cmd[cmd.index("--output-dir") + 1])
        (site / "lab").mkdir(parents=True)
        (site / "lab" / "index.html").write_text("lab")
    monkeypatch.setattr(build_lite, "run", jupyter_lite_build)


def test_a_build_replaces_an_earlier_build_whole_and_leaves_nothing_beside_it(tmp_path, monkeypatch):
    _fake_build_steps(monkeypatch, tmp_path)
    out = tmp_path / "site" / "lite"
    build_lite.build(out)
    (out / "stale.js").write_text("from the earlier build")
    build_lite.write_stamp(out, build_lite.inputs_digest())
    build_lite.build(out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        build_lite.STAMP, "index.html", "lab/index.html"]
    assert build_lite.is_current(out)
    assert [p.name for p in out.parent.iterdir()] == ["lite"]                # no work folder left beside it


def test_a_failed_build_keeps_the_earlier_site(tmp_path, monkeypatch):
    _fake_build_steps(monkeypatch, tmp_path)
    out = tmp_path / "lite"
    build_lite.build(out)
    before = build_lite.site_files(out)
    _fake_build_steps(monkeypatch, tmp_path, fail_build=True)
    with pytest.raises(SystemExit, match="jupyter lite build failed"):
        build_lite.build(out)
    assert build_lite.site_files(out) == before and build_lite.read_stamp(out) is not None
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".lite")] == []


# --- --if-stale: the stamp is checked against the tree and against the site's files ---------------------------------
def test_if_stale_checks_the_site_files_against_the_stamp_not_the_stamp_alone(tmp_path):
    site = tmp_path / "lite"
    (site / "files" / "en").mkdir(parents=True)
    (site / "index.html").write_text("index")
    (site / "files" / "en" / "01.ipynb").write_text("{}")
    build_lite.write_stamp(site, build_lite.inputs_digest())
    assert build_lite.is_current(site)
    (site / "files" / "en" / "01.ipynb").write_text('{"edited": true}')       # a file changed since the build
    assert not build_lite.is_current(site)
    (site / "files" / "en" / "01.ipynb").write_text("{}")
    assert build_lite.is_current(site)
    (site / "index.html").unlink()                                             # a file removed
    assert not build_lite.is_current(site)
    (site / "index.html").write_text("index")
    (site / "files" / "en" / "02.ipynb").write_text("{}")                      # a file the build did not write
    assert not build_lite.is_current(site)
    (site / "files" / "en" / "02.ipynb").unlink()
    stamp = json.loads((site / build_lite.STAMP).read_text())
    (site / build_lite.STAMP).write_text(json.dumps({**stamp, "inputs": "0" * 64}))   # built from other inputs
    assert not build_lite.is_current(site)
    (site / build_lite.STAMP).write_text(json.dumps({"inputs": stamp["inputs"]}))     # a stamp without the files
    assert not build_lite.is_current(site)


# --- the cache: a tampered wheel is named and fetched again; a failing step is a message, not a traceback ----------
def _pins_and_wheel(tmp_path):
    """A real (tiny) wheel in a local index folder, and its pin."""
    index = tmp_path / "index"
    index.mkdir()
    wheel = index / "demo_pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("demo_pkg/__init__.py", "")
        z.writestr("demo_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n")
        z.writestr("demo_pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                                     "Tag: py3-none-any\n")
        z.writestr("demo_pkg-1.0.dist-info/RECORD", "")
    return {"demo-pkg": ("1.0", [build_lite.sha256(wheel)])}, wheel


def test_a_tampered_cached_wheel_is_removed_by_name_and_nothing_else_is(tmp_path, capsys):
    pins, wheel = _pins_and_wheel(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / wheel.name).write_bytes(wheel.read_bytes() + b"altered")
    (cache / "other_pkg-2.0-py3-none-any.whl").write_bytes(b"not pinned here: left alone")
    (cache / "demo_pkg-0.9-py3-none-any.whl").write_bytes(b"another version: left alone")
    assert build_lite.drop_tampered(cache, pins) == [cache / wheel.name]
    assert sorted(p.name for p in cache.iterdir()) == ["demo_pkg-0.9-py3-none-any.whl",
                                                       "other_pkg-2.0-py3-none-any.whl"]
    assert f"{wheel.name} in {cache} is not the pinned file" in capsys.readouterr().out


def test_a_tampered_cached_wheel_is_fetched_again_or_the_build_stops_with_a_message(tmp_path, monkeypatch, capsys):
    pins, wheel = _pins_and_wheel(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")                                   # no network in this test
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "nowhere"))
    (cache / wheel.name).write_bytes(b"tampered")
    with pytest.raises(SystemExit, match=r"downloading demo-pkg with pip failed \(exit status \d+; its message is "
                                         r"above\)\. Downloads need the network once"):
        build_lite.fetch_wheels(pins, cache)
    assert "is not the pinned file" in capsys.readouterr().out
    assert not (cache / wheel.name).exists()
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel.parent))                   # the genuine file is reachable again
    (cache / wheel.name).write_bytes(b"tampered")
    got = build_lite.fetch_wheels(pins, cache)["demo-pkg"]
    assert got.read_bytes() == wheel.read_bytes()


def test_a_missing_tool_stops_the_build_with_its_name():
    with pytest.raises(SystemExit, match="npm pack: no-such-tool-here was not found"):
        build_lite.run(["no-such-tool-here", "pack"], "npm pack")


# --- notebook 12 in the browser: NumPy and the shipped weights, no torch ----------------------------------------
def test_the_site_serves_notebook_12_and_names_13_as_local_with_its_reason_in_both_languages(tmp_path):
    served = {(edition, nb.name[:2]) for edition, nb in build_lite.lite_notebooks()}
    assert {("en", "12"), ("zh", "12")} <= served and not {n for _, n in served} & {"13"}
    assert set(build_lite.LOCAL_ONLY) == set(build_lite.TORCH_NOTEBOOKS)
    build_lite.write_index(tmp_path, [("en", "12_trained_transformer"), ("zh", "12_trained_transformer")])
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    en, zh = page.split('<section lang="en">')[1], page.split('<section lang="zh-CN">')[1]
    assert 'href="lab/index.html?path=en/12_trained_transformer.ipynb"' in en
    assert build_lite.LOCAL_ONLY["13_"]["en"] in en.split("</section>")[0] and "make lab" in en
    assert build_lite.LOCAL_ONLY["13_"]["zh"] in zh.split("</section>")[0] and "本机" in zh
    assert "href=\"lab/index.html?path=en/13" not in page


def test_notebook_12s_imports_load_without_torch():
    """The imports of notebook 12's cells, run where `import torch` fails (as in the browser's Pyodide)."""
    import ast
    nb = json.loads((ROOT / "notebooks" / "en" / "12_trained_transformer.ipynb").read_text(encoding="utf-8"))
    imports = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.startswith("%"))
        imports += [ast.unparse(node) for node in ast.parse(source).body
                    if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert any("nb12_trained_transformer" in line for line in imports)
    code = "import sys\nsys.modules['torch'] = None\n" + "\n".join(imports) + "\nprint('loaded without torch')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    assert out.returncode == 0 and "loaded without torch" in out.stdout, out.stderr[-2000:]
