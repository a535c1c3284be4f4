"""The lock: requirements.txt pins every package of requirements.in (and what they bring) exactly, with the
sha256 of its files, and `make setup` installs it with --require-hashes (a tampered or swapped file fails)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _entries(text: str) -> dict:
    """{name: (version, [hashes])} of a pip-compile file (continuation lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = {}
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)\s*(.*)$", line)
        assert match, f"not an exact pin: {line[:80]!r}"
        name, version, rest = match.groups()
        out[name.lower().replace("_", "-")] = (version, re.findall(r"--hash=sha256:([0-9a-f]{64})", rest))
    return out


def test_every_pin_has_its_hashes():
    entries = _entries((ROOT / "requirements.txt").read_text())
    assert len(entries) > 100
    missing = [name for name, (_, hashes) in entries.items() if not hashes]
    assert not missing, f"pins without a hash: {missing}"


def test_the_lock_covers_requirements_in_at_the_same_versions():
    entries = _entries((ROOT / "requirements.txt").read_text())
    for line in (ROOT / "requirements.in").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            assert entries[name.lower().replace("_", "-")][0] == version, line


def test_torch_is_pinned_with_the_hash_of_its_cpu_wheel():
    version, hashes = _entries((ROOT / "requirements.txt").read_text())["torch"]
    assert version == "2.13.0"                       # not 2.13.0+cpu: the CPU-index route's 2.13.0+cpu satisfies it
    wheel = next(Path("/opt/wheels").glob("torch-2.13.0+cpu-*.whl"), None) if Path("/opt/wheels").is_dir() else None
    if wheel is not None:                            # on the machines this was built on: the local CPU wheel
        import hashlib
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() in hashes


def test_make_setup_requires_the_hashes_and_make_lock_writes_them():
    makefile = (ROOT / "Makefile").read_text()
    setup = makefile.split("\n$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "--require-hashes -r requirements.txt" in setup
    lock = makefile.split("\nlock:", 1)[1].split("\n\n", 1)[0]
    assert "pip-compile" in lock and "--generate-hashes" in lock and "--no-emit-find-links" in lock
