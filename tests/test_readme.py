"""The README is the front door (issue 32): short, pointing at files that exist, naming commands that exist, mapping
every notebook, and free of dated measurements (those live in benchmarks/README.md, history in CHANGELOG.md)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _text(path: Path = README) -> str:
    return path.read_text(encoding="utf-8")


def test_readme_is_short():
    assert len(_text().splitlines()) <= 200


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: p.name)
def test_relative_links_point_at_files(path):
    missing = [target for target in LINK.findall(_text(path))
               if not target.startswith(("http://", "https://")) and not (path.parent / target).exists()]
    assert not missing, f"{path.name} links to files that do not exist: {missing}"


def test_map_lists_every_notebook_in_both_editions():
    text = _text()
    for src in sorted((REPO / "notebooks" / "src").glob("[0-9][0-9]_*.py")):
        for lang in ("en", "zh"):
            assert f"(notebooks/{lang}/{src.stem}.ipynb)" in text, f"the README's map has no {lang}/{src.stem}"
        row = next((line for line in text.splitlines() if line.startswith(f"| {src.stem[:2]} |")), "")
        assert re.search(r"\| \d+ min \|", row), f"notebook {src.stem[:2]}: no estimated time in the map"


def test_make_targets_and_course_commands_exist():
    text = _text()
    targets = set(re.findall(r"(?m)^([a-z][a-z-]*):", (REPO / "Makefile").read_text(encoding="utf-8")))
    named = set(re.findall(r"`make ([a-z][a-z-]*)", text)) | set(re.findall(r"(?m)^make ([a-z][a-z-]*)", text))
    assert named >= {"lab", "test", "quick", "nbval", "bench", "lite", "present"}
    assert not named - targets, f"the README names make targets the Makefile lacks: {sorted(named - targets)}"
    commands = set(re.findall(r"tools/course\.py ([a-z]+)", text))
    usage = subprocess.run([sys.executable, str(REPO / "tools" / "course.py"), "--help"], capture_output=True,
                           text=True, check=True).stdout
    offered = set(re.search(r"\{([a-z,]+)\}", usage).group(1).split(","))
    assert commands and not commands - offered, f"course.py offers {sorted(offered)}, the README names {commands}"


def test_no_dated_measurements():
    # Measurements go to benchmarks/README.md (current figures) and CHANGELOG.md (history), not the front door.
    text = _text()
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", text)
    timings = re.findall(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b(?! ?\|)", text)
    assert not timings, f"timings in the README: {timings}"
