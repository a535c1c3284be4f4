"""The locks cut from requirements.txt (the learner's, tools/requirements-learner.txt, and `make lite`'s build tools,
tools/lite/requirements.txt) agree with it, and tools/course.py, the route without make, runs on a bare Python."""
from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LEARNER = ROOT / "tools" / "requirements-learner.txt"
LITE = ROOT / "tools" / "lite" / "requirements.txt"
DEV_ONLY = ("pytest", "pytest-xdist", "nbval", "playwright", "ruff", "hypothesis", "torch", "transformers",
            "jupytext", "voila", "pip-tools")
LITE_ONLY = {"doit", "pkginfo", "jupyterlite-core", "jupyterlite-pyodide-kernel"}


def _entries(path: Path) -> dict:
    """{name: (version, marker, sorted hashes)} of a hashed requirements file."""
    joined = re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))
    out = {}
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)\s*(?:;\s*(.*?))?\s*((?:--hash=\S+\s*)*)$", line)
        assert m, f"{path.name}: not an exact, hashed pin: {line[:80]!r}"
        name, version, marker, rest = m.groups()
        out[canonicalize_name(name)] = (version, marker, sorted(re.findall(r"--hash=sha256:([0-9a-f]{64})", rest)))
    return out


LOCK = _entries(ROOT / "requirements.txt")


@pytest.mark.parametrize("path", [LEARNER, LITE], ids=["learner", "lite-build"])
def test_each_pin_is_the_main_locks_own_with_every_hash(path):
    sub = _entries(path)
    assert len(sub) > 50
    for name, entry in sub.items():
        assert entry[2], f"{path.name}: {name} has no hash"
        if path == LITE and name in LITE_ONLY:
            continue
        assert name in LOCK, f"{path.name}: {name} is not in requirements.txt"
        assert entry == LOCK[name], f"{path.name}: {name} differs from requirements.txt: {entry} vs {LOCK[name]}"


def test_the_learner_gets_what_the_notebooks_need_and_no_test_tools():
    learner = _entries(LEARNER)
    assert {"numpy", "matplotlib", "ipywidgets", "ipykernel", "jupyterlab", "noto-cjk-sans-otc",
            "jupyterlab-language-pack-zh-cn"} <= set(learner)
    assert not [name for name in DEV_ONLY if name in learner]
    assert len(learner) < len(LOCK)


def _requires(name: str) -> list[Requirement] | None:
    """The requirements of the installed distribution `name` (None where it is not installed at the pinned version)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    if canonicalize_name(dist.version) != canonicalize_name(LOCK[name][0]):
        return None
    return [Requirement(r) for r in dist.requires or []]


@pytest.mark.parametrize("path", [LEARNER, LITE], ids=["learner", "lite-build"])
def test_the_lock_is_closed_under_its_packages_requirements(path):
    """pip installs each file with --no-deps: every requirement of every package (on this platform, no extras)
    must be pinned in the same file. Read from the installed distributions, which are the pinned versions."""
    sub = _entries(path)
    checked, missing = 0, []
    for name in sub:
        requires = _requires(name)
        if requires is None:
            continue
        checked += 1
        for req in requires:
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                if canonicalize_name(req.name) not in sub:
                    missing.append(f"{name} needs {req}")
    assert checked > 40
    assert not missing, missing


def test_course_py_needs_nothing_but_the_standard_library():
    tree = ast.parse((ROOT / "tools" / "course.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert imported and not (imported - set(sys.stdlib_module_names) - {"__future__"})
    # and it runs with an isolated interpreter (no site-packages, no venv): its help lists the commands
    out = subprocess.run([sys.executable, "-I", "-S", str(ROOT / "tools" / "course.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert all(cmd in out for cmd in ("lab", "test", "setup", "lite"))


def _course():
    spec = importlib.util.spec_from_file_location("course", ROOT / "tools" / "course.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_edition_follows_the_systems_language(monkeypatch):
    course = _course()
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert course.default_edition() == "zh"
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert course.default_edition() == "en"


def test_a_set_up_is_redone_when_its_lock_changes(tmp_path, monkeypatch):
    course = _course()
    lock = tmp_path / "requirements-learner.txt"
    lock.write_text("numpy==2.4.6 --hash=sha256:" + "0" * 64 + "\n")
    stamp = tmp_path / ".installed-learner"
    monkeypatch.setattr(course, "LOCKS", {**course.LOCKS, "learner": lock})
    monkeypatch.setattr(course, "STAMPS", {**course.STAMPS, "learner": stamp})
    monkeypatch.setattr(course, "ROOT", ROOT)
    assert not course.is_set_up("learner")                      # never set up
    stamp.write_text(course._digest("learner"))
    assert course.is_set_up("learner")
    lock.write_text("numpy==2.4.7 --hash=sha256:" + "1" * 64 + "\n")
    assert not course.is_set_up("learner")                      # the lock changed: set up again
