"""Finish the hashed lock that `make lock` writes: pip-compile resolves requirements.in for the machine it runs on,
so its requirements.txt misses two things the install routes of other machines need. This tool adds them.

    python tools/lock_merge.py seed [requirements.txt] > START            # pip-compile's starting pins
    python tools/lock_merge.py merge COMPILED [--out requirements.txt]   # COMPILED: pip-compile's output
    python tools/lock_merge.py check NAME [NAME ...]                     # the lock's hashes of NAME against PyPI's

1. torch: the lock is made where torch==2.13.0 resolves to its CPU build, `2.13.0+cpu` (this machine's local
   wheel, or PyTorch's CPU index with `make lock TORCH_INDEX=https://download.pytorch.org/whl/cpu`), so
   pip-compile lists only the hashes of those files. `merge` writes the pin as `torch==2.13.0` (which
   `2.13.0+cpu` satisfies) and adds the sha256 of PyPI's 2.13.0 wheels for macOS and Windows (CPU builds),
   keeping the CPU wheels' hashes. PyPI's Linux wheels are left out on purpose: they are the CUDA build (they
   require cuda-toolkit, nvidia-* and triton, several GB), and pip ranks a file whose hash the lock lists
   above one it cannot check (a local wheel), so listing them would make pip take the CUDA build even where
   the CPU wheel lies on disk. It refuses a lock where torch resolved to PyPI's own build (on Linux the
   CUDA build, whose packages the lock would then force on every machine).
2. Pins that only another platform needs: pip-compile leaves out a requirement whose marker is false where it
   runs (appnope on macOS, colorama and pywinpty on Windows). requirements.in pins them with their marker;
   `merge` adds each with the sha256 of PyPI's files of that version, and checks that what they require is
   in the lock.

`seed` writes the lock without the pins `merge` made (torch, the other platforms' pins) as pip-compile's starting
point: pip-compile keeps the pins of its output file where they still fit, and given `torch==2.13.0` it would
keep PyPI's 2.13.0 instead of the CPU build.

What `merge` took from PyPI is recorded in tools/lock_pypi_files.json (file name -> sha256, and the hashes the
lock has beside them, e.g. the CPU wheel's), which tests/test_requirements.py holds against requirements.txt.
Only the standard library is used; PyPI is read through its JSON simple API (PEP 691), one page per package.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tools" / "lock_pypi_files.json"
INDEX = "https://pypi.org/simple"
HEADER = """\
# Exact lock of requirements.in with the sha256 of every file, produced by `make lock` (pip-compile
# --generate-hashes, then tools/lock_merge.py: torch==2.13.0 with its CPU wheel's hash and those of every file
# PyPI publishes for it, and the pins only macOS or Windows need); `make setup` installs it with --require-hashes.
"""
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._\-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?\s*$")
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")
# Packages whose PyPI wheels for Linux are CUDA builds: the lock takes only their CPU builds there.
CPU_ONLY_ON_LINUX = {"torch"}
LINUX_WHEEL = re.compile(r"-(?:many|musl)?linux[^-]*\.whl$")


class LockError(Exception):
    """The lock cannot be completed; the message says what is wrong and what to do."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_requirements_in(path: Path) -> dict:
    """{name: (version, marker or None)} of requirements.in, whose every line is an exact pin."""
    pins = {}
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN.match(line)
        if not match:
            raise LockError(f"{path.name}:{n}: expected an exact pin `name==version [; marker]`, got {line!r}")
        pins[canonical(match[1])] = (match[2], match[3])
    return pins


def parse_lock(text: str) -> list[dict]:
    """pip-compile's output as blocks: {"name", "version", "marker", "hashes", "comments"} for each pin, and
    {"comment": line} for a top-level comment line (the header is dropped: `merge` writes its own)."""
    blocks, seen_pin = [], False
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            if not blocks or "name" not in blocks[-1]:
                raise LockError(f"an indented line outside a pin: {line.strip()[:80]!r}")
            if line.strip().startswith("#"):
                blocks[-1]["comments"].append(line.rstrip())
            else:
                blocks[-1]["hashes"] += HASH.findall(line)
        elif line.startswith("#"):
            if seen_pin:
                blocks.append({"comment": line.rstrip()})
        else:
            match = PIN.match(line)
            if not match:
                raise LockError(f"not an exact pin: {line[:80]!r}")
            seen_pin = True
            blocks.append({"name": canonical(match[1]), "version": match[2], "marker": match[3],
                           "hashes": HASH.findall(line), "comments": []})
    return blocks


def format_block(block: dict) -> str:
    if "comment" in block:
        return block["comment"]
    pin = f"{block['name']}=={block['version']}" + (f" ; {block['marker']}" if block["marker"] else "")
    hashes = sorted(set(block["hashes"]))
    lines = [pin + (" \\" if hashes else "")]
    lines += [f"    --hash=sha256:{h}" + (" \\" if i < len(hashes) - 1 else "") for i, h in enumerate(hashes)]
    return "\n".join(lines + block["comments"])


def _get_json(url: str, accept: str = "application/json") -> dict:
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "attention-lab lock_merge"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise LockError(f"could not read {url}: {exc}") from exc


def file_version(filename: str) -> str | None:
    """The version a distribution file's name carries (wheel: second field; sdist: after the last '-')."""
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        return parts[1] if len(parts) >= 5 else None
    for ext in (".tar.gz", ".zip", ".tar.bz2"):
        if filename.endswith(ext):
            return filename[: -len(ext)].rsplit("-", 1)[-1]
    return None


def pypi_files(name: str, version: str, index: str = INDEX) -> dict:
    """{filename: sha256} of every file the index publishes for name==version (PEP 691 JSON)."""
    page = _get_json(f"{index}/{canonical(name)}/", "application/vnd.pypi.simple.v1+json")
    files = {f["filename"]: f["hashes"]["sha256"] for f in page.get("files", [])
             if file_version(f["filename"]) == version and "sha256" in f.get("hashes", {})}
    if not files:
        raise LockError(f"{index} publishes no file of {name}=={version}")
    return files


def pypi_requires(name: str, version: str) -> list[str]:
    """Requires-Dist of name==version as PyPI's JSON API states it."""
    info = _get_json(f"https://pypi.org/pypi/{canonical(name)}/json")["info"]
    if info.get("version") != version:
        info = _get_json(f"https://pypi.org/pypi/{canonical(name)}/{version}/json")["info"]
    return list(info.get("requires_dist") or [])


def merge(compiled: Path, requirements_in: Path, out: Path, record: Path, index: str = INDEX,
          files_of=pypi_files, requires_of=pypi_requires) -> dict:
    """Write the completed lock to `out` and what was taken from PyPI to `record`; returns the record."""
    wanted = read_requirements_in(requirements_in)
    blocks = parse_lock(compiled.read_text(encoding="utf-8"))
    pins = {b["name"]: b for b in blocks if "name" in b}
    entries = {}
    for name, (version, marker) in wanted.items():
        block = pins.get(name)
        if block is None:
            if not marker:
                raise LockError(f"{name}=={version} is in {requirements_in.name} but not in pip-compile's output")
            continue
        if block["version"] == version:
            continue
        public, _, local = block["version"].partition("+")
        if public != version or not local:
            raise LockError(f"{name}: {requirements_in.name} pins {version}, pip-compile resolved {block['version']}")
        files = files_of(name, version, index)             # the CPU build (2.13.0+cpu) satisfies ==2.13.0
        left_out = {}
        if name in CPU_ONLY_ON_LINUX:
            left_out = {f: h for f, h in files.items() if LINUX_WHEEL.search(f)}
            files = {f: h for f, h in files.items() if f not in left_out}
        block["hashes"] = [h for h in block["hashes"] if h not in left_out.values()]
        entries[name] = {"version": version, "marker": None, "files": files,
                         "other": sorted(set(block["hashes"]) - set(files.values())),
                         "left_out_cuda_builds": left_out}
        block["version"] = version
        block["hashes"] = block["hashes"] + list(files.values())
    if "torch" in wanted and "torch" not in entries:
        raise LockError("torch resolved to PyPI's own 2.13.0 (on Linux its CUDA build, which pulls the nvidia-* "
                        "packages into the lock for every machine), not to the CPU build: run the lock where "
                        "torch 2.13.0+cpu is reachable: make lock TORCH_INDEX=https://download.pytorch.org/whl/cpu")
    cuda = sorted(n for n in pins if n.startswith(("nvidia-", "cuda-")) or n == "triton")
    if cuda:
        raise LockError(f"the lock holds CUDA packages {cuda}: torch must resolve to its CPU build (see above)")
    added = []
    for name, (version, marker) in wanted.items():
        if name in pins or not marker:
            continue
        files = files_of(name, version, index)
        requires = requires_of(name, version)
        needed = [r for r in requires if not re.search(r"\bextra\s*==", r)]
        missing = [r for r in needed if canonical(re.split(r"[\s\[;<>=!~(]", r, maxsplit=1)[0]) not in pins]
        if missing:
            raise LockError(f"{name}=={version} requires {missing}, which the lock does not hold: pin them in "
                            f"{requirements_in.name} with the same marker")
        entries[name] = {"version": version, "marker": marker, "files": files, "other": [],
                         "requires_dist": requires}
        added.append({"name": name, "version": version, "marker": marker, "hashes": list(files.values()),
                      "comments": [f"    # via -r {requirements_in.name} (only where `{marker}`)"]})
    for block in sorted(added, key=lambda b: b["name"]):  # pip-compile's order: by name, unsafe ones last
        at = next((i for i, b in enumerate(blocks) if "comment" in b or b["name"] > block["name"]), len(blocks))
        blocks.insert(at, block)
    out.write_text(HEADER + "\n".join(format_block(b) for b in blocks) + "\n", encoding="utf-8")
    data = {"about": "The sha256 of the PyPI files tools/lock_merge.py added to requirements.txt (`make lock`); "
                     "`other`: the hashes the lock has beside them (torch's CPU wheels); `left_out_cuda_builds`: "
                     "PyPI's Linux wheels of torch (CUDA builds), kept out of the lock on purpose.",
            "packages": dict(sorted(entries.items()))}
    record.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


def seed(lock: Path, record: Path = RECORD) -> str:
    """The lock without the pins `merge` made (those in the record), for pip-compile to start from."""
    made = set(json.loads(record.read_text(encoding="utf-8"))["packages"]) if record.exists() else {"torch"}
    blocks = [b for b in parse_lock(lock.read_text(encoding="utf-8")) if b.get("name") not in made]
    return "\n".join(format_block(b) for b in blocks) + "\n"


def check(names: list[str], lock: Path, index: str = INDEX) -> int:
    """Print, for each name, how many of PyPI's files of the pinned version the lock's hashes cover."""
    pins = {b["name"]: b for b in parse_lock(lock.read_text(encoding="utf-8")) if "name" in b}
    bad = 0
    for name in names:
        block = pins.get(canonical(name))
        if block is None:
            print(f"{name}: not in {lock.name}")
            bad += 1
            continue
        files = files_of_or_none(block["name"], block["version"], index)
        missing = sorted(f for f, h in (files or {}).items() if h not in block["hashes"])
        cuda = [f for f in missing if block["name"] in CPU_ONLY_ON_LINUX and LINUX_WHEEL.search(f)]
        missing = [f for f in missing if f not in cuda]
        extra = len(set(block["hashes"]) - set((files or {}).values()))
        print(f"{block['name']}=={block['version']}: {len(files or {})} files on PyPI, "
              f"{len(files or {}) - len(missing) - len(cuda)} covered, {extra} other hashes"
              + (f", {len(cuda)} Linux CUDA builds left out on purpose" if cuda else "")
              + (f"; missing {missing}" if missing else ""))
        bad += bool(missing) or files is None
    return 1 if bad else 0


def files_of_or_none(name: str, version: str, index: str) -> dict | None:
    try:
        return pypi_files(name, version, index)
    except LockError as exc:
        print(f"{name}: {exc}")
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("seed", help="print the lock without the pins `merge` made (pip-compile's start)")
    p.add_argument("lock", type=Path, nargs="?", default=ROOT / "requirements.txt")
    p.add_argument("--record", type=Path, default=RECORD)
    p = sub.add_parser("merge", help="complete pip-compile's output into requirements.txt")
    p.add_argument("compiled", type=Path)
    p.add_argument("--requirements-in", type=Path, default=ROOT / "requirements.in")
    p.add_argument("--out", type=Path, default=ROOT / "requirements.txt")
    p.add_argument("--record", type=Path, default=RECORD)
    p.add_argument("--index", default=INDEX)
    p = sub.add_parser("check", help="compare the lock's hashes of some packages with PyPI's files")
    p.add_argument("names", nargs="+")
    p.add_argument("--lock", type=Path, default=ROOT / "requirements.txt")
    p.add_argument("--index", default=INDEX)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "seed":
            sys.stdout.write(seed(args.lock, args.record))
            return 0
        if args.cmd == "merge":
            data = merge(args.compiled, args.requirements_in, args.out, args.record, args.index)
            for name, entry in data["packages"].items():
                print(f"{name}=={entry['version']}: {len(entry['files'])} PyPI files"
                      + (f" + {len(entry['other'])} other" if entry["other"] else "")
                      + (f", {len(entry['left_out_cuda_builds'])} CUDA builds left out"
                         if entry.get("left_out_cuda_builds") else "")
                      + (f" (only where `{entry['marker']}`)" if entry["marker"] else ""))
            return 0
        return check(args.names, args.lock, args.index)
    except LockError as exc:
        print(f"lock_merge: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
