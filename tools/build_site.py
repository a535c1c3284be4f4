"""Offline exports of both editions: a static HTML site (`make site`) and classroom slides (`make slides`).

    python tools/build_site.py site   [--widgets static|saved] [--out _site]
    python tools/build_site.py slides [--out _site]

Everything a page loads comes from the site folder, never from a CDN: nbconvert's templates link require.js,
MathJax 2.7.7, an unpinned @jupyter-widgets/html-manager, jQuery, reveal.js and mermaid from CDNs, so this
builder points every one of those URLs at `assets/`, filled from the npm packages pinned in
tools/site/package.json (`npm ci` into tools/site/node_modules, ignored by git; the first build fetches them)
and the CJK web font of tools/lab_setup.py. The build fails if a page still names a remote script or
stylesheet.

Widgets: by default (`--widgets static`) each widget output shows its static fallback, the picture of its
initial state and its numbers (see attention_core.teaching.static_view): honest on a page without a kernel.
`--widgets saved` renders the widget state saved in the notebook with the pinned html-manager instead (the
controls are drawn but move nothing without a kernel).

Slides: one reveal.js deck per notebook and edition (slides/en/NN_name.slides.html): every `#`/`##` heading
opens a slide, `###` a sub-slide; code is left out, its outputs stay; cells tagged `teacher-hide` are left
out, as in the teacher's view. Tall slides scroll.

Layout of the output:  index.html (both languages) · en/*.html · zh/*.html · slides/{en,zh}/*.slides.html ·
assets/ (mathjax/, require.js, jquery.min.js, html-manager/, reveal.js/, attention-lab-cjk.css, fonts/).
"""
from __future__ import annotations

import argparse
import copy
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SITE_PKG = ROOT / "tools" / "site"
NODE = SITE_PKG / "node_modules"
TEMPLATES = SITE_PKG / "templates"
EDITIONS = ("en", "zh")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MATHJAX_CONFIG = "TeX-AMS_CHTML-full,Safe"
# Anything a page would load from the network (links to papers in the prose are fine: they load nothing):
# scripts, stylesheets, images and frames by src/href/data/poster, every candidate of a srcset, CSS
# @import and url(), and JavaScript module imports.
_REMOTE = r"""["']?\s*(?:https?:)?//"""
REMOTE_ASSET = re.compile(r"""<(?:script|link|img|iframe|frame|source|video|audio|track|embed|object|image|use"""
                          r"""|input)\b[^>]*?\b(?:src|href|xlink:href|data|poster)\s*=\s*""" + _REMOTE, re.I)
REMOTE_SRCSET = re.compile(r"""\b(?:image)?srcset\s*=\s*(?:"[^"]*?|'[^']*?|)(?:https?:)?//""", re.I)
REMOTE_CSS = re.compile(r"""@import\s+(?:url\(\s*)?""" + _REMOTE + r"""|\burl\(\s*""" + _REMOTE, re.I)
REMOTE_IMPORT = re.compile(r"""\bimport\b[^;]*?from\s*["'](?:https?:)?//|\bimport\s*\(\s*["'](?:https?:)?//""", re.I)
HEADINGS = {"#": "slide", "##": "slide", "###": "subslide"}
TITLES = {"en": "Attention Lab: attention in Transformers, step by step",
          "zh": "Attention Lab：一步一步理解 Transformer 的注意力"}
LINKS = {"en": ("Read", "Slides"), "zh": ("阅读", "幻灯片")}
# The browser edition (`make lite` writes _site/lite/ beside these pages): each page links its runnable notebook.
# Notebook 13 needs torch and is not in it (tools/lite/build_lite.py's TORCH_NOTEBOOKS).
LITE_DIR = "lite"
NOT_IN_LITE = ("13_",)
RUN_LINK = {"en": ("Run this notebook in your browser", "nothing to install; the site's browser edition"),
            "zh": ("在浏览器里运行这个 notebook", "无需安装；本网站的浏览器版")}


def _node_modules_ready() -> bool:
    return (NODE / ".package-lock.json").exists() and all(
        (NODE / name).is_dir() for name in json.loads((SITE_PKG / "package.json").read_text())["dependencies"])


def ensure_node_modules() -> None:
    """Fetch the pinned browser assets once (npm ci with the committed lock file).

    Builds may run side by side (the test suite's workers build the site and a deck at the same time), and
    two `npm ci` in one folder delete each other's files: the check and the fetch hold a lock file, and whoever
    waited finds the folder ready."""
    with FileLock(SITE_PKG / ".npm-fetch.lock"):        # held even to look: a fetch under way looks ready early
        if _node_modules_ready():
            return
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm is needed once to fetch the site's pinned assets (MathJax, reveal.js, ...): "
                             "install Node.js (Debian: apt-get install -y npm)")
        cmd = [npm, "ci" if (SITE_PKG / "package-lock.json").exists() else "install",
               "--no-audit", "--no-fund", "--ignore-scripts"]
        subprocess.run(cmd, cwd=SITE_PKG, check=True)


def _copytree(src: Path, dest: Path, ignore=None) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, ignore=ignore)


def copy_assets(out: Path) -> Path:
    """out/assets with every file the pages load; returns it."""
    ensure_node_modules()
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    # MathJax 2: the loader, the combined config, the TeX input and CommonHTML output with its woff fonts.
    mj = NODE / "mathjax"
    skip_fonts = shutil.ignore_patterns("eot", "otf", "svg", "png", "unpacked", "test", "*.md")
    _copytree(mj, assets / "mathjax", ignore=skip_fonts)
    shutil.copyfile(NODE / "requirejs" / "require.js", assets / "require.js")
    shutil.copyfile(NODE / "jquery" / "dist" / "jquery.min.js", assets / "jquery.min.js")
    _copytree(NODE / "@jupyter-widgets" / "html-manager" / "dist", assets / "html-manager")
    reveal = assets / "reveal.js"
    _copytree(NODE / "reveal.js" / "dist", reveal / "dist")
    _copytree(NODE / "reveal.js" / "plugin", reveal / "plugin")
    for theme in (reveal / "dist" / "theme").glob("*.css"):      # themes @import Google Fonts: drop those
        text = theme.read_text(encoding="utf-8")
        theme.write_text(re.sub(r"@import url\((['\"]?)(?:https?:)?//[^)]*\1\);?", "", text), encoding="utf-8")
    sys.path.insert(0, str(ROOT / "tools"))
    import lab_setup
    lab_setup.webfont(assets)
    return assets


def _exporter(kind: str, widgets: str, depth: str):
    """An nbconvert exporter whose every asset URL points into ../assets (depth = "../" or "../../")."""
    from nbconvert import HTMLExporter, SlidesExporter
    from traitlets.config import Config
    c = Config()
    base = HTMLExporter if kind == "site" else SlidesExporter
    name = base.__name__
    c[name].extra_template_basedirs = [str(TEMPLATES)]
    c[name].template_name = "attention-site" if kind == "site" else "attention-slides"
    c[name].mathjax_url = f"{depth}assets/mathjax/MathJax.js?config={MATHJAX_CONFIG}"
    c[name].require_js_url = f"{depth}assets/require.js"
    c[name].jquery_url = f"{depth}assets/jquery.min.js"
    c[name].widget_renderer_url = f"{depth}assets/html-manager/embed-amd.js"
    c[name].jupyter_widgets_base_url = f"{depth}assets/"        # never used (renderer URL given), never remote
    if kind == "slides":
        c[name].reveal_url_prefix = f"{depth}assets/reveal.js"
        c[name].reveal_scroll = True
        c[name].exclude_input = True
        c[name].exclude_input_prompt = True
        c[name].exclude_output_prompt = True
    priority = ["text/html", "image/svg+xml", "image/png", "image/jpeg", "text/markdown", "text/latex",
                "text/plain"]
    if widgets == "saved":
        priority = [WIDGET_VIEW] + priority
    c.NbConvertBase.display_data_priority = priority
    exporter = base(config=c)
    exporter.mermaid_js_url = f"{depth}assets/none.js"   # not a config trait; no notebook here uses mermaid
    return exporter


def _prepare(nb, kind: str, widgets: str):
    nb = copy.deepcopy(nb)
    if widgets == "static" or kind == "slides":
        nb.metadata.pop("widgets", None)             # no saved state: no widget manager is loaded
    if kind == "slides":
        nb.cells = [c for c in nb.cells if "teacher-hide" not in c.metadata.get("tags", [])]
        for cell in nb.cells:
            kind_ = "-"
            if cell.cell_type == "markdown":
                m = re.match(r"^(#{1,3})\s", cell.source)
                kind_ = HEADINGS.get(m.group(1), "-") if m else "-"
            cell.metadata["slideshow"] = {"slide_type": kind_}
    return nb


def _fix_links(page: str, kind: str) -> str:
    """Links between notebooks point at the exported pages."""
    suffix = ".slides.html" if kind == "slides" else ".html"
    return re.sub(r'href="((?:\.\./(?:en|zh)/)?\d\d_[A-Za-z0-9_]+)\.ipynb(#[^"]*)?"',
                  lambda m: f'href="{m.group(1)}{suffix}{m.group(2) or ""}"', page)


def add_run_link(page: str, stem: str, edition: str, depth: str = "../") -> str:
    """A line at the top of a notebook's page linking the same notebook in the browser edition (_site/lite/,
    written by `make lite`), where it runs; notebooks that need torch get none."""
    if stem.startswith(NOT_IN_LITE):
        return page
    text, note = RUN_LINK[edition]
    link = (f'<p class="attention-run-link" style="margin:.5em 1em"><a href="{depth}{LITE_DIR}/lab/index.html?path='
            f'{edition}/{stem}.ipynb">{html.escape(text)}</a> <small>({html.escape(note)})</small></p>')
    return re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + link, page, count=1)


def check_offline(path: Path, page: str) -> None:
    bad = [m.group(0)[-80:] for rx in (REMOTE_ASSET, REMOTE_SRCSET, REMOTE_CSS, REMOTE_IMPORT)
           for m in rx.finditer(page)]
    if bad:
        raise SystemExit(f"{path}: still loads from the network: {bad[:3]}")


def page_title(stem: str, edition: str) -> str:
    """A page's title: the notebook's own, "01 · Query, Key, Value: the intuition" (from the title index)."""
    from attention_core.teaching.notebook_source import notebook_titles
    titles = notebook_titles()
    return f"{stem[:2]} · {titles[stem][edition]}" if stem in titles else stem


def export(kind: str, out: Path, widgets: str = "static", names=None) -> list[Path]:
    """Write the pages of one kind for both editions; returns their paths."""
    copy_assets(out)
    written = []
    for edition in EDITIONS:
        folder = out / edition if kind == "site" else out / "slides" / edition
        folder.mkdir(parents=True, exist_ok=True)
        depth = "../" if kind == "site" else "../../"
        exporter = _exporter(kind, widgets, depth)
        exporter.language_code = edition
        if widgets == "saved":
            # The html-manager loads its icon fonts (a button's icon) from "@jupyter-widgets/" beside the page.
            fonts = folder / "@jupyter-widgets"
            fonts.mkdir(exist_ok=True)
            for font in (NODE / "@jupyter-widgets" / "html-manager" / "dist").iterdir():
                if font.suffix in (".woff2", ".woff", ".ttf", ".eot", ".svg"):
                    shutil.copy2(font, fonts / font.name)
        for src in sorted((NOTEBOOKS / edition).glob("[0-9][0-9]_*.ipynb")):
            if names and not any(src.stem.startswith(n) for n in names):
                continue
            nb = _prepare(read_notebook(src), kind, widgets)
            nb.metadata["title"] = page_title(src.stem, edition)        # nbconvert's <title>, not the file name
            resources = {"metadata": {"name": src.stem}, "attention_css": f"{depth}assets/attention-lab-cjk.css"}
            page, _ = exporter.from_notebook_node(nb, resources=resources)
            page = _fix_links(page, kind)
            if kind == "site":
                page = add_run_link(page, src.stem, edition, depth)
            target = folder / (src.stem + (".html" if kind == "site" else ".slides.html"))
            check_offline(target, page)
            target.write_text(page, encoding="utf-8")
            written.append(target)
            print(f"wrote {target.relative_to(out.parent) if out.parent in target.parents else target}")
    write_index(out)
    return written


def write_index(out: Path) -> Path:
    """index.html: both editions side by side, each notebook with its page and (when built) its slides."""
    from attention_core.teaching.notebook_source import notebook_titles
    titles = notebook_titles()
    columns = []
    for edition in EDITIONS:
        read, slides = LINKS[edition]
        rows = []
        for stem, title in titles.items():
            page, deck = out / edition / f"{stem}.html", out / "slides" / edition / f"{stem}.slides.html"
            links = []
            if page.exists():
                links.append(f'<a href="{edition}/{stem}.html">{html.escape(title[edition])}</a>')
            else:
                links.append(html.escape(title[edition]))
            if deck.exists():
                links.append(f'<a class="slides" href="slides/{edition}/{stem}.slides.html">{slides}</a>')
            rows.append(f"<li><span class='nn'>{stem[:2]}</span> {' · '.join(links)}</li>")
        columns.append(f'<section lang="{"zh-CN" if edition == "zh" else "en"}"><h2>{html.escape(TITLES[edition])}'
                       f'</h2><ol>{"".join(rows)}</ol></section>')
    index = out / "index.html"
    index.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Attention Lab · 注意力实验室</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="stylesheet" href="assets/attention-lab-cjk.css">
<style>body{{margin:2em auto;max-width:1100px;padding:0 1em;line-height:1.5}}main{{display:flex;gap:3em;flex-wrap:wrap}}
section{{flex:1 1 420px}}ol{{list-style:none;padding:0}}li{{margin:.3em 0}}.nn{{color:#888;margin-right:.4em}}
a.slides{{font-size:smaller}}</style></head>
<body><h1>Attention Lab · 注意力实验室</h1>
<p>English and Chinese editions of the same notebooks, exported with their stored outputs; formulas, figures and
fonts come from this folder, so the site works offline.<br>
同一套 notebook 的英文版与中文版，带有保存的输出；公式、图片和字体都在本目录中，离线可用。</p>
<p><a href="{LITE_DIR}/index.html">Run the notebooks in your browser</a> ·
<a href="{LITE_DIR}/index.html">在浏览器里运行这些 notebook</a> <small>(<code>make lite</code>)</small></p>
<main>{"".join(columns)}</main></body></html>
""", encoding="utf-8")
    return index


def read_notebook(path: Path):
    """A committed notebook, read and validated; one that is not a valid .ipynb stops the build with its name."""
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except (OSError, UnicodeDecodeError, ValueError, nbformat.ValidationError, KeyError, TypeError,
            AttributeError) as exc:
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise SystemExit(f"{path.parent.name}/{path.name}: not a valid notebook ({type(exc).__name__}: {reason}); "
                         "rebuild it with `make notebooks`") from None
    return nb


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=("site", "slides"))
    ap.add_argument("--out", type=Path, default=ROOT / "_site")
    ap.add_argument("--widgets", choices=("static", "saved"), default="static")
    ap.add_argument("names", nargs="*", help="notebook prefixes (default: all)")
    args = ap.parse_args(argv)
    pages = export(args.kind, args.out.resolve(), args.widgets, args.names)
    print(f"{len(pages)} pages; open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
