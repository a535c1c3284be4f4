"""Set up what `make lab`, `make present` and the browser tests serve: the CJK web font, the Jupyter settings
of the course, and the learner's working copy of the notebooks.

    python tools/lab_setup.py webfont DIR            # DIR/attention-lab-cjk.css + DIR/fonts/<Noto Sans CJK SC>
    python tools/lab_setup.py config DIR [--lang zh]  # a Jupyter config dir: custom.css (the web font), Lab settings
    python tools/lab_setup.py copy [--reset]          # refresh the working copy (my-notebooks/) from notebooks/

The web font: a machine without a CJK system font draws every Chinese character of the page as a box
(the figures are fine, matplotlib uses the font wheel). The `noto-cjk-sans-otc` wheel the project installs
holds Noto Sans CJK as a font collection; its Simplified Chinese face is written out as one OpenType file
and declared with `@font-face` under a `unicode-range` of CJK blocks, first in JupyterLab's font stacks:
Latin text keeps the theme's fonts, Chinese characters come from the system's Noto Sans CJK SC when there
is one (`local()`) and from the served file otherwise. JupyterLab loads it as `custom.css` from the config
dir (`LabApp.custom_css`), Voila through the `attention-lab` template's static folder, the static site
from its own folder.

The working copy: `make lab` serves `my-notebooks/` (ignored by git), never the committed notebooks, so
running, saving and autosave leave `git status` clean. `copy` adds notebooks that are missing and
refreshes those the learner has not changed since they were copied (a new version after `git pull`);
a notebook the learner changed is kept (and named when the course's version of it changed too: the
state file records the digest of the course version each copy started from). `copy --reset` moves the
copy to my-notebooks.bak/ (my-notebooks.bak.2/, .3/, ... when an earlier backup is there: none is ever
overwritten) and starts again from the committed notebooks. The state file, my-notebooks/.copied.json,
is written atomically; a corrupt one is rebuilt (every notebook that differs from the course's is then
kept as the learner's, named once, and recorded as started from the course's current version, so later
runs name it again only when the course's version changes), with a line that says so.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK_COPY = ROOT / "my-notebooks"
EDITIONS = ("en", "zh")
FONT_FILE = "NotoSansCJKsc-Regular.otf"
FONT_FAMILY = "Attention Lab CJK"
FACE = "Noto Sans CJK SC"
# CJK radicals and symbols, punctuation, kana, bopomofo, CJK extension A, unified ideographs,
# compatibility ideographs, vertical and fullwidth forms, extension B and beyond.
UNICODE_RANGE = ("U+2E80-2FDF, U+3000-30FF, U+3100-312F, U+31A0-31FF, U+3200-33FF, U+3400-4DBF, U+4E00-9FFF, "
                 "U+F900-FAFF, U+FE10-FE1F, U+FE30-FE4F, U+FF00-FFEF, U+20000-2FA1F")
# JupyterLab 4's default stacks (theme-light-extension), with the CJK face in front (unicode-range keeps
# Latin text on the theme's fonts).
UI_STACK = ('system-ui, -apple-system, blinkmacsystemfont, "Segoe UI", helvetica, arial, sans-serif, '
            '"Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol"')
CODE_STACK = "menlo, consolas, \"DejaVu Sans Mono\", monospace"
# Lab settings the course relies on: no news pop-up; the interface language per edition.
LOCALE = {"en": "en", "zh": "zh_CN"}


def webfont_css(font_url: str) -> str:
    """The stylesheet: the @font-face and the font stacks of JupyterLab, Voila, widgets and exported pages."""
    stack = f'"{FONT_FAMILY}", {UI_STACK}'
    return f"""/* Attention Lab: Chinese text everywhere (written by tools/lab_setup.py; see its docstring). */
@font-face {{
  font-family: "{FONT_FAMILY}";
  src: local("{FACE}"), local("NotoSansCJKsc-Regular"), url("{font_url}") format("opentype");
  unicode-range: {UNICODE_RANGE};
  font-display: swap;
}}
:root, body, .jp-ThemedContainer {{
  --jp-ui-font-family: {stack};
  --jp-content-font-family: {stack};
  --jp-code-font-family-default: "{FONT_FAMILY}", {CODE_STACK};
  --jp-code-font-family: "{FONT_FAMILY}", {CODE_STACK};
  --jp-widgets-font-family: {stack};
}}
body, .jp-RenderedHTMLCommon, .widget-html-content, .widget-label, .widget-readout, .widget-button,
.widget-toggle-button, .jupyter-button, .jp-Notebook, .reveal {{
  font-family: {stack};
}}
/* Form controls do not inherit the page's font (Chromium draws them with its own default, Arial, which has
   no Chinese): dropdowns, their options, text boxes, text areas and buttons, in Lab, Voila and the site. */
html input, html select, html option, html optgroup, html textarea, html button,
html .widget-dropdown > select, html .widget-text input, html .widget-textarea textarea,
html .widget-combobox input, html .widget-select select {{
  font-family: {stack};
}}
/* reveal.js themes give headings, tables and code their own stacks: the CJK face goes first there too. */
html .reveal h1, html .reveal h2, html .reveal h3, html .reveal h4, html .reveal h5, html .reveal h6,
html .reveal table, html .reveal th, html .reveal td, html .reveal p, html .reveal li {{
  font-family: {stack};
}}
html pre, html code, html kbd, html samp, html .reveal pre, html .reveal code, html .reveal pre code {{
  font-family: "{FONT_FAMILY}", {CODE_STACK};
}}
"""


def font_source() -> Path:
    """The font collection of the `noto-cjk-sans-otc` wheel (the file matplotlib uses for figures)."""
    from attention_core.teaching.fonts import cjk_font_path
    path = cjk_font_path()
    if path is None:
        raise SystemExit("the noto-cjk-sans-otc wheel is missing: run `make setup`")
    return Path(path)


def write_font(dest: Path) -> Path:
    """Write the Simplified Chinese face of the wheel's collection to dest (once; ~16 MB)."""
    source = font_source()
    if dest.exists() and dest.stat().st_mtime >= source.stat().st_mtime:
        return dest
    from fontTools.ttLib import TTCollection
    collection = TTCollection(str(source))
    face = next(f for f in collection.fonts if f["name"].getDebugName(1) == FACE)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp")
    face.save(str(tmp))
    tmp.replace(dest)
    return dest


def webfont(folder: Path, css_name: str = "attention-lab-cjk.css") -> Path:
    """folder/css_name and folder/fonts/FONT_FILE; returns the stylesheet's path."""
    folder.mkdir(parents=True, exist_ok=True)
    write_font(folder / "fonts" / FONT_FILE)
    css = folder / css_name
    css.write_text(webfont_css(f"fonts/{FONT_FILE}"), encoding="utf-8")
    return css


def config(config_dir: Path, lang: str = "en") -> None:
    """A Jupyter config dir for the course: custom/custom.css (the web font; JupyterLab loads it with
    LabApp.custom_css, set in the venv by `make setup`) and JupyterLab's interface language."""
    webfont(config_dir / "custom", "custom.css")
    settings = config_dir / "lab" / "user-settings" / "@jupyterlab" / "translation-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"locale": LOCALE[lang]}), encoding="utf-8")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def next_backup(dest: Path) -> Path:
    """my-notebooks.bak, then my-notebooks.bak.2, .3, ...: the first name not taken."""
    backup = dest.with_name(dest.name + ".bak")
    n = 1
    while backup.exists():
        n += 1
        backup = dest.with_name(f"{dest.name}.bak.{n}")
    return backup


def write_atomically(path: Path, text: str) -> None:
    """Write a file so that a reader (or a crash) sees the old content or the new, never half of it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def read_state(path: Path) -> dict:
    """{notebook: digest of the course version it was copied from}; a corrupt file is reported and
    rebuilt from scratch (nothing is lost: a notebook that differs from the course's is then kept, and
    `copy` records the course's current digest as its base)."""
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(state, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in state.items()):
            return state
        problem = "not a table of notebooks and digests"
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        problem = f"unreadable ({exc.__class__.__name__}: {exc})"
    print(f"{path.parent.name}/{path.name} was {problem}; rebuilt it: notebooks that differ from the course's "
          "are kept as yours")
    return {}


def copy(reset: bool = False, dest: Path = WORK_COPY, source: Path = ROOT / "notebooks") -> list[str]:
    """Refresh the working copy; returns the notebooks kept although the course's version changed
    (the learner changed them too). A notebook only the learner changed is kept without a word."""
    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise SystemExit(f"dest: {dest} is a file, not a folder; give a folder for the working copy of the "
                         "notebooks (or move the file away)")
    if reset and dest.exists():
        backup = next_backup(dest)
        dest.rename(backup)
        print(f"moved your copy to {backup.relative_to(dest.parent)}/")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:                                      # a file on the way, no permission
        raise SystemExit(f"dest: cannot make the folder {dest} ({exc.strerror or type(exc).__name__})") from None
    state_path = dest / ".copied.json"
    state = read_state(state_path)
    kept, unknown = [], set()
    for edition in EDITIONS:
        for nb in sorted((source / edition).glob("*.ipynb")):
            rel = f"{edition}/{nb.name}"
            target = dest / rel
            new = _digest(nb)
            if target.exists():
                mine = _digest(target)
                if mine == new:
                    state[rel] = new
                    continue
                if mine != state.get(rel):             # the learner changed it: never overwrite
                    if state.get(rel) != new:          # ... and the course changed (or is unknown): say so
                        kept.append(rel)
                    if rel not in state:               # unknown base (no or a rebuilt state file): said once,
                        unknown.add(rel)               # then the course's version of today is its base, so
                        state[rel] = new               # the next line comes only when the course changes
                    continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(nb, target)
            state[rel] = new
    write_atomically(state_path, json.dumps(state, indent=1, sort_keys=True))
    for rel in kept:
        why = "it differs from the course's version" if rel in unknown else "the course's version is newer"
        print(f"kept your changed {dest.name}/{rel} ({why}: `make lab-reset` takes it)")
    return kept


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("webfont", help="write the CJK stylesheet and font into a folder")
    p.add_argument("folder", type=Path)
    p = sub.add_parser("config", help="write a Jupyter config dir for the course")
    p.add_argument("folder", type=Path)
    p.add_argument("--lang", choices=EDITIONS, default="en")
    p = sub.add_parser("copy", help="refresh the working copy of the notebooks")
    p.add_argument("--reset", action="store_true", help="start again from the committed notebooks")
    p.add_argument("--dest", type=Path, default=WORK_COPY)
    args = ap.parse_args(argv)
    if args.cmd == "webfont":
        print(webfont(args.folder))
    elif args.cmd == "config":
        config(args.folder, args.lang)
    else:
        copy(args.reset, args.dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
