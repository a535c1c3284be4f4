"""The lock: requirements.txt pins every package of requirements.in (and what they bring) exactly, with the
sha256 of its files, and `make setup` installs it with --require-hashes (a tampered or swapped file fails).
`make lock` is pip-compile, then tools/lock_merge.py, which adds what pip-compile cannot see from this machine:
PyPI's torch wheels for macOS and Windows beside the CPU wheel, and the pins only macOS or Windows need
(tools/lock_pypi_files.json records what it took from PyPI)."""
import hashlib
import importlib.util
import json
import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
RECORD = json.loads((ROOT / "tools" / "lock_pypi_files.json").read_text())["packages"]
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
FULL = {"3.11": "3.11.5", "3.12": "3.12.0", "3.13": "3.13.0", "3.14": "3.14.0"}   # soupsieve needs 3.11.5
PLATFORMS = {                                      # marker values of the platforms the lock is for
    "linux-x86_64": dict(sys_platform="linux", platform_system="Linux", os_name="posix", platform_machine="x86_64"),
    "linux-aarch64": dict(sys_platform="linux", platform_system="Linux", os_name="posix",
                          platform_machine="aarch64"),
    "macos-arm64": dict(sys_platform="darwin", platform_system="Darwin", os_name="posix", platform_machine="arm64"),
    "windows-amd64": dict(sys_platform="win32", platform_system="Windows", os_name="nt", platform_machine="AMD64"),
}


def _load_tool():
    spec = importlib.util.spec_from_file_location("lock_merge", ROOT / "tools" / "lock_merge.py")
    module = importlib.util.module_from_spec(spec)     # a script, not part of the package
    spec.loader.exec_module(module)
    return module


lock_merge = _load_tool()


def _entries(text: str) -> dict:
    """{name: (version, marker or None, [hashes])} of a pip-compile file (continuation lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = {}
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)\s*(?:;\s*(.*?))?\s*((?:--hash=\S+\s*)*)$", line)
        assert match, f"not an exact pin: {line[:80]!r}"
        name, version, marker, rest = match.groups()
        out[canonicalize_name(name)] = (version, marker, re.findall(r"--hash=sha256:([0-9a-f]{64})", rest))
    return out


LOCK = _entries((ROOT / "requirements.txt").read_text())


def test_every_pin_has_its_hashes():
    assert len(LOCK) > 100
    missing = [name for name, (_, _, hashes) in LOCK.items() if not hashes]
    assert not missing, f"pins without a hash: {missing}"


def test_the_lock_covers_requirements_in_at_the_same_versions_and_markers():
    wanted = lock_merge.read_requirements_in(ROOT / "requirements.in")
    assert {"torch", "numpy", "appnope", "colorama", "pywinpty"} <= set(wanted)
    for name, (version, marker) in wanted.items():
        assert LOCK[name][:2] == (version, marker), name


def test_torch_is_pinned_with_its_cpu_wheels_hash_and_pypis_macos_and_windows_wheels():
    version, marker, hashes = LOCK["torch"]
    assert version == "2.13.0" and marker is None     # not 2.13.0+cpu: the CPU build's 2.13.0+cpu satisfies it
    record = RECORD["torch"]
    assert record["other"] and set(record["other"]) <= set(hashes)   # the CPU wheel(s) pip-compile saw
    assert len(hashes) == len(record["other"]) + len(record["files"]) > 1
    wheels = sorted(Path("/opt/wheels").glob("torch-2.13.0+cpu-*.whl")) if Path("/opt/wheels").is_dir() else []
    for wheel in wheels:                               # on the machines this was built on: the local CPU wheel
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() in record["other"], wheel.name
    for py in PYTHONS:                                 # PyPI's CPU builds: macOS arm64 and Windows, every CPython
        for tag in ("macosx_14_0_arm64", "win_amd64"):
            assert any(f.startswith(f"torch-2.13.0-cp{py.replace('.', '')}-cp") and f.endswith(f"{tag}.whl")
                       for f in record["files"]), (py, tag)


def test_pypis_linux_torch_wheels_the_cuda_build_are_left_out():
    """pip ranks a file whose hash the lock lists above a local wheel it cannot check: with PyPI's Linux
    (CUDA) wheel listed, pip took it, and its nvidia packages, even where the CPU wheel lies on disk."""
    record = RECORD["torch"]
    assert len(record["left_out_cuda_builds"]) >= 8
    assert all("linux" in f for f in record["left_out_cuda_builds"])
    assert not any("linux" in f for f in record["files"])
    assert not set(record["left_out_cuda_builds"].values()) & set(LOCK["torch"][2])
    cuda = [n for n in LOCK if n.startswith(("nvidia-", "cuda-")) or n == "triton"]
    assert not cuda, cuda


def test_the_record_of_pypis_files_agrees_with_the_lock():
    assert set(RECORD) == {"torch", "appnope", "colorama", "pywinpty"}
    for name, entry in RECORD.items():
        version, marker, hashes = LOCK[name]
        assert (version, marker) == (entry["version"], entry["marker"]), name
        assert set(hashes) == set(entry["files"].values()) | set(entry["other"]), name
        for filename in entry["files"]:
            assert lock_merge.file_version(filename) == version, filename


def _requires(name: str) -> list:
    if name in RECORD and "requires_dist" in RECORD[name]:
        return RECORD[name]["requires_dist"]        # a pin only another platform needs: not installed here
    try:
        return metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        pytest.fail(f"{name} is locked but not installed in this environment: run `make setup`")


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_the_lock_holds_everything_each_platform_needs(platform, python):
    """pip in --require-hashes mode refuses a requirement the lock does not pin: follow requirements.in's
    pins through every package's Requires-Dist with the platform's markers (torch: the CPU build's)."""
    env = dict(PLATFORMS[platform], python_version=python, python_full_version=FULL[python],
               implementation_name="cpython", platform_python_implementation="CPython")
    roots = [Requirement(line.split("#", 1)[0]) for line in (ROOT / "requirements.in").read_text().splitlines()
             if line.split("#", 1)[0].strip()]
    roots = [r for r in roots if r.marker is None or r.marker.evaluate(env)]
    assert len(roots) >= 24
    todo, seen, problems = [(r, "requirements.in") for r in roots], set(), []
    while todo:
        req, parent = todo.pop()
        name = canonicalize_name(req.name)
        if (name, tuple(sorted(req.extras))) in seen:
            continue
        seen.add((name, tuple(sorted(req.extras))))
        if name not in LOCK:
            problems.append(f"{req} (from {parent}) is not in the lock")
            continue
        version, marker, _ = LOCK[name]
        if not req.specifier.contains(version, prereleases=True):
            problems.append(f"{req} (from {parent}): the lock has {version}")
        if marker and not Marker(marker).evaluate(env):
            problems.append(f"{req} (from {parent}): the lock's pin is only for `{marker}`")
        for line in _requires(name):
            dep = Requirement(line)
            if dep.marker is None or any(dep.marker.evaluate(dict(env, extra=e)) for e in {"", *req.extras}):
                todo.append((dep, name))
    assert not problems, problems
    assert len(seen) > 100


def test_every_pin_admits_the_pythons_the_lock_is_for():
    """The lock needs CPython 3.11.5 or later (numpy 2.4, matplotlib, ipykernel and others left 3.10 behind;
    soupsieve 4.1 needs 3.11.5: Debian 12's python3, 3.11.2, is refused)."""
    refused = []
    for name in LOCK:
        if name in RECORD and "requires_dist" in RECORD[name]:
            continue                                   # not installed here; all three admit 3.10 and later
        requires_python = metadata.metadata(name).get("Requires-Python")
        for python in PYTHONS:
            if requires_python and not SpecifierSet(requires_python).contains(FULL[python]):
                refused.append((name, requires_python, python))
    assert not refused, refused
    numpy_python = SpecifierSet(metadata.metadata("numpy")["Requires-Python"])
    assert not numpy_python.contains("3.10.0")         # so the README says 3.11+, not 3.10+
    assert not SpecifierSet(metadata.metadata("soupsieve")["Requires-Python"]).contains("3.11.2")


def test_make_setup_requires_the_hashes_and_make_lock_writes_them():
    makefile = (ROOT / "Makefile").read_text()
    setup = makefile.split("\n$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "tools/course.py setup" in setup               # make setup is the route without make's set-up
    course = (ROOT / "tools" / "course.py").read_text()
    assert '"--require-hashes", "-r", LOCKS[kind]' in course
    assert 'LOCKS = {"developer": ROOT / "requirements.txt"' in course
    lock = makefile.split("\nlock:", 1)[1].split("\n\n", 1)[0]
    assert "pip-compile" in lock and "--generate-hashes" in lock and "--no-emit-find-links" in lock
    assert "tools/lock_merge.py seed requirements.txt > requirements.lock.tmp" in lock
    assert "tools/lock_merge.py merge requirements.lock.tmp --out requirements.txt" in lock


# --- tools/lock_merge.py on made-up input (no network) ------------------------------------------------------------
COMPILED = """\
numpy==2.4.6 \\
    --hash=sha256:{n}
    # via -r requirements.in
torch==2.13.0+cpu \\
    --hash=sha256:{cpu}
    # via -r requirements.in
# The following packages are considered to be unsafe in a requirements file:
setuptools==84.2.1 \\
    --hash=sha256:{s}
    # via -r requirements.in
"""
H = {k: c * 64 for k, c in dict(n="1", cpu="2", s="3", mac="4", win="5", linux="6", app="7").items()}
PYPI = {
    ("torch", "2.13.0"): {"torch-2.13.0-cp312-cp312-macosx_14_0_arm64.whl": H["mac"],
                          "torch-2.13.0-cp312-cp312-win_amd64.whl": H["win"],
                          "torch-2.13.0-cp312-cp312-manylinux_2_28_x86_64.whl": H["linux"]},
    ("appnope", "1.0.0"): {"appnope-1.0.0-py3-none-any.whl": H["app"]},
}


def _merge(tmp_path, compiled, requirements_in, requires=()):
    (tmp_path / "c.txt").write_text(compiled)
    (tmp_path / "r.in").write_text(requirements_in)
    return lock_merge.merge(tmp_path / "c.txt", tmp_path / "r.in", tmp_path / "out.txt", tmp_path / "rec.json",
                            files_of=lambda n, v, _i: dict(PYPI[(n, v)]), requires_of=lambda n, v: list(requires))


REQ_IN = 'numpy==2.4.6\ntorch==2.13.0\nsetuptools==84.2.1\nappnope==1.0.0 ; platform_system == "Darwin"\n'


def test_merge_pins_torch_plainly_adds_pypis_cpu_builds_and_the_other_platforms_pins(tmp_path):
    record = _merge(tmp_path, COMPILED.format(**H), REQ_IN)
    out = (tmp_path / "out.txt").read_text()
    lock = _entries(out)
    assert lock["torch"][:2] == ("2.13.0", None)
    assert sorted(lock["torch"][2]) == sorted([H["cpu"], H["mac"], H["win"]])      # not the Linux (CUDA) wheel
    assert lock["appnope"] == ("1.0.0", 'platform_system == "Darwin"', [H["app"]])
    assert [n for n in lock] == ["appnope", "numpy", "torch", "setuptools"]         # by name, unsafe ones last
    assert out.index("# The following packages") < out.index("setuptools==")
    assert record["packages"]["torch"]["other"] == [H["cpu"]]
    assert list(record["packages"]["torch"]["left_out_cuda_builds"].values()) == [H["linux"]]
    assert json.loads((tmp_path / "rec.json").read_text()) == record
    (tmp_path / "old.txt").write_text(out)                                          # seed: pip-compile's start
    seeded = lock_merge.seed(tmp_path / "old.txt", tmp_path / "rec.json")
    assert "torch" not in seeded and "appnope" not in seeded and "numpy==2.4.6" in seeded


@pytest.mark.parametrize("compiled, message", [
    (COMPILED.replace("torch==2.13.0+cpu", "torch==2.13.0"), "torch resolved to PyPI's own 2.13.0"),
    (COMPILED + "nvidia-cudnn-cu13==9.20.0.48 \\\n    --hash=sha256:{s}\n", "CUDA packages"),
    (COMPILED.replace("numpy==2.4.6", "numpy==2.4.5"), "numpy: r.in pins 2.4.6, pip-compile resolved 2.4.5"),
    (COMPILED.replace("numpy==2.4.6", "numpy>=2.4"), "not an exact pin"),
])
def test_merge_refuses_a_lock_it_cannot_complete(tmp_path, compiled, message):
    with pytest.raises(lock_merge.LockError, match=re.escape(message)):
        _merge(tmp_path, compiled.format(**H), REQ_IN)
    assert not (tmp_path / "out.txt").exists()


def test_merge_refuses_an_other_platform_pin_whose_requirements_are_not_locked(tmp_path):
    with pytest.raises(lock_merge.LockError, match=r"appnope==1.0.0 requires \['pyobjc>=10'\]"):
        _merge(tmp_path, COMPILED.format(**H), REQ_IN, requires=["pyobjc>=10", 'pytest; extra == "test"'])
