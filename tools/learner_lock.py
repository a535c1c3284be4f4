"""The learner's lock, tools/requirements-learner.txt: what the notebooks need, cut from requirements.txt.

    python tools/learner_lock.py            # rewrite tools/requirements-learner.txt (needs PyPI, to resolve)

A learner runs notebooks 00-12 in JupyterLab: NumPy, matplotlib, ipywidgets, the kernel, JupyterLab with its
Chinese interface and RISE, the CJK font. The developer's lock, requirements.txt, adds the test and build tools
(pytest, nbval, playwright, ruff, hypothesis, jupytext, voila, nbconvert's exports) and torch (about 1 GB with its
dependencies). This script resolves LEARNER against requirements.txt's pins (pip's resolver, --dry-run, the lock
as constraints) and copies each resolved package's entry from requirements.txt: version, marker and every hash.
The pins only macOS or Windows need are copied too (pip resolves for this machine only). Run it after `make lock`;
tests/test_learner_lock.py fails while the two disagree. Torch stays optional: `pip install torch==2.13.0` (on
Linux from the CPU index) adds it for notebooks 12 and 13.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.txt"
OUT = ROOT / "tools" / "requirements-learner.txt"
LEARNER = ("numpy", "matplotlib", "ipywidgets", "ipykernel", "jupyterlab", "jupyterlab-language-pack-zh-cn",
           "jupyterlab-rise", "noto-cjk-sans-otc", "threadpoolctl", "setuptools")
PLATFORM_ONLY = ("appnope", "colorama", "pywinpty")
HEADER = """\
# The learner's lock: what notebooks 00-12 need in JupyterLab, without the test and build tools or torch.
# Written by tools/learner_lock.py from requirements.txt (every entry copied from it: version, marker, hashes);
# `python tools/course.py setup --learner` installs it with --require-hashes. Notebooks 12 and 13 also need
# torch==2.13.0 (Linux: from https://download.pytorch.org/whl/cpu); developers install requirements.txt.
"""


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def entries(text: str) -> dict[str, list[str]]:
    """{canonical name: the entry's lines (the pin line and its --hash lines)} of a pip-compile lock."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==", line)
        if m:
            current = canon(m.group(1))
            blocks[current] = [line]
        elif current and line.startswith("    --hash="):
            blocks[current].append(line)
        else:
            current = None
    return blocks


def resolve(names) -> list[str]:
    """The canonical names pip installs for `names`, with requirements.txt's pins as constraints."""
    pins = [re.sub(r"\s*\\$", "", lines[0]) for lines in entries(LOCK.read_text(encoding="utf-8")).values()]
    with tempfile.TemporaryDirectory() as tmp:
        constraints, report = Path(tmp) / "c.txt", Path(tmp) / "report.json"
        constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed",
                        "--report", str(report), "-c", str(constraints), *names], check=True)
        return sorted(canon(i["metadata"]["name"]) for i in json.loads(report.read_text())["install"])


def write(names) -> Path:
    lock = entries(LOCK.read_text(encoding="utf-8"))
    chosen = sorted(set(names) | set(PLATFORM_ONLY))
    missing = [n for n in chosen if n not in lock]
    if missing:
        raise SystemExit(f"not in requirements.txt: {missing}")
    lines = []
    for name in chosen:
        block = list(lock[name])
        block[-1] = block[-1].rstrip(" \\")
        lines += block
    OUT.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    return OUT


def main() -> int:
    out = write(resolve(LEARNER))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
