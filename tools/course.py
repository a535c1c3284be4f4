"""The course's commands without `make`, on Linux, macOS and Windows alike (the Makefile calls this script too).

    python tools/course.py lab [--lang zh] [-- JUPYTER-LAB-OPTIONS]   # set up (first time), open JupyterLab on 00
    python tools/course.py test [--workers 2]                          # developer set-up, then every test
    python tools/course.py quick [--workers 2]                         # the one-minute loop (make quick)
    python tools/course.py unit [--workers 2]                          # every test but the browser's and nbval
    python tools/course.py nbval [--workers 2]                         # nbval over both editions' notebooks
    python tools/course.py setup [--learner] [--torch-cpu]              # only the set-up
    python tools/course.py lite                                         # the browser edition (_site/lite/; npm once)

(`py tools\\course.py lab` on Windows.) It needs only Python (3.11.5 or later) and access to PyPI, nothing else:
no make, no shell, no compiler. Why a script in tools/ and not `python -m attention_lab`: the repository's top
level is fixed (the package, notebooks, tests, ...), and a script path runs from a fresh clone before anything is
installed, where a `-m` module would need a new top-level package; `make setup` / `make lab` / `make test` run
this same code, so there is one set-up.

Two set-ups, one `.venv`:
- the learner's (`lab` on a fresh clone, or `setup --learner`): tools/requirements-learner.txt, what notebooks
  00-12 need (NumPy, matplotlib, ipywidgets, JupyterLab with its Chinese interface, the CJK font), every file
  hash-checked; no test tools, no torch (notebook 13 and `make train` need torch: `setup --torch-cpu` on Linux, or
  `pip install torch==2.13.0` into .venv elsewhere);
- the developer's (`test`, `setup`, every make target): requirements.txt, with the test tools and torch.
Both install the package itself editable (`pip install -e .`) and the course's Jupyter settings (the news pop-up
off, the CJK web font, Voila's templates).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
LOCKS = {"developer": ROOT / "requirements.txt", "learner": ROOT / "tools" / "requirements-learner.txt"}
STAMPS = {"developer": VENV / ".installed", "learner": VENV / ".installed-learner"}
# What a set-up depends on: a change to any of these makes the next command set up again.
SETUP_INPUTS = ("pyproject.toml", "tools/lab-overrides.json", "tools/jupyter_lab_config.json", "tools/lab_setup.py",
                "tools/voila/voila.json", "tools/course.py")
MIN_PYTHON = (3, 11, 5)
TORCH = "torch==2.13.0"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TEST_PATHS = ["tests", "notebooks/en", "notebooks/zh"]
NOTEBOOK_PATHS = ["notebooks/en", "notebooks/zh"]
NBVAL = ["--nbval", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg"]
# The one-minute loop: the unit tests of the four layers, without what make test alone runs (slow tests: a retrain,
# a wheel build; the browser tests; nbval), with hypothesis's profile `quick` (tests/conftest.py).
QUICK_PATHS = ["tests/core", "tests/teaching", "tests/labs", "tests/test_layers.py"]
LINT_PATHS = ["attention_core", "tests", "tools", "benchmarks", "notebooks/src"]


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def say(msg: str) -> None:
    print(f"[course] {msg}", flush=True)


def run(cmd, **kwargs) -> None:
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, **kwargs)


def _digest(kind: str) -> str:
    h = hashlib.sha256()
    h.update(LOCKS[kind].name.encode() + b"\0" + LOCKS[kind].read_bytes() + b"\0")
    for rel in SETUP_INPUTS:
        h.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    for template in sorted((ROOT / "tools" / "voila" / "templates").rglob("*")):
        if template.is_file():
            h.update(template.relative_to(ROOT).as_posix().encode() + b"\0" + template.read_bytes())
    return h.hexdigest()


def is_set_up(kind: str) -> bool:
    stamp = STAMPS[kind]
    return stamp.exists() and stamp.read_text(encoding="utf-8").strip() in ("", _digest(kind))


def check_python() -> None:
    if sys.version_info[:3] < MIN_PYTHON:
        raise SystemExit(f"Python {'.'.join(map(str, MIN_PYTHON))} or later is needed (this is "
                         f"{sys.version.split()[0]}): install it from python.org, then run this command with it")


def setup(kind: str = "developer", torch_cpu: bool = False, force: bool = False) -> Path:
    """Create .venv (first time), install the lock of `kind` with --require-hashes, the package and the course's
    Jupyter settings; returns the venv's python. Does nothing when already done for the same inputs."""
    py = venv_python()
    if not force and is_set_up(kind) and not torch_cpu:
        return py
    check_python()
    if not py.exists():
        say(f"creating {VENV.name}/ with Python {sys.version.split()[0]}")
        run([sys.executable, "-m", "venv", VENV])
    pip = [py, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if torch_cpu:
        # PyPI's Linux torch is the CUDA build (several GB): the CPU build first, from PyTorch's own index; pip
        # then keeps it (2.13.0+cpu satisfies the lock's pin).
        say(f"installing {TORCH} (CPU build) from {TORCH_CPU_INDEX}")
        run([*pip, TORCH, "--index-url", TORCH_CPU_INDEX])
    say(f"installing {LOCKS[kind].relative_to(ROOT).as_posix()} (every file hash-checked; first time: minutes)")
    # --no-compile: pip would byte-compile every module of every package (all of torch: 70 s of a 163 s set-up on
    # a 2-core machine); Python compiles the few hundred a notebook imports when it first imports them.
    run([*pip, "--no-compile", "--require-hashes", "-r", LOCKS[kind]])
    run([*pip, "--no-deps", "--no-build-isolation", "-e", "."])
    install_settings(py)
    STAMPS[kind].write_text(_digest(kind) + "\n", encoding="utf-8")
    if kind == "developer":                      # the developer's lock holds the learner's
        STAMPS["learner"].write_text(_digest("learner") + "\n", encoding="utf-8")
    return py


def install_settings(py: Path) -> None:
    """The course's Jupyter settings inside the venv: Lab's overrides (no news pop-up), Lab's config (custom.css:
    the web font), Voila's templates and config, the web font in Voila's template."""
    share, etc = VENV / "share" / "jupyter", VENV / "etc" / "jupyter"
    (share / "lab" / "settings").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "tools" / "lab-overrides.json", share / "lab" / "settings" / "overrides.json")
    templates = share / "voila" / "templates"
    templates.mkdir(parents=True, exist_ok=True)
    for name in ("attention-lab", "attention-lab-teacher"):
        shutil.copytree(ROOT / "tools" / "voila" / "templates" / name, templates / name, dirs_exist_ok=True)
    etc.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "tools" / "voila" / "voila.json", etc / "voila.json")
    shutil.copyfile(ROOT / "tools" / "jupyter_lab_config.json", etc / "jupyter_lab_config.json")
    run([py, ROOT / "tools" / "lab_setup.py", "webfont", templates / "attention-lab" / "static"],
        stdout=subprocess.DEVNULL)


def default_edition() -> str:
    """zh where the system's language is Chinese (LANG=zh_CN..., or a Chinese Windows), else en."""
    lang = os.environ.get("LANG", "")
    if not lang and os.name == "nt":
        import locale
        lang = locale.getlocale()[0] or ""
    return "zh" if lang.lower().startswith(("zh", "chinese")) else "en"


def lab_command(py: Path, edition: str, extra: list[str]) -> list[str]:
    """JupyterLab on 127.0.0.1 only, with its token on (Jupyter's default: nothing here turns it off), serving the
    working copy and opening notebook 00 of the edition; --allow-root where it runs as root."""
    cmd = [str(py), "-m", "jupyterlab", "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={ROOT / 'my-notebooks'}",
           f"--LabApp.default_url=/lab/tree/{edition}/00_start_here.ipynb"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd + extra


def lab(edition: str, extra: list[str]) -> int:
    """JupyterLab on the learner's working copy (my-notebooks/), 127.0.0.1 with a token, as `make lab`."""
    py = venv_python() if is_set_up("developer") else setup("learner")
    run([py, ROOT / "tools" / "lab_setup.py", "copy"])
    config = ROOT / ".lab" / edition / "jupyter"
    run([py, ROOT / "tools" / "lab_setup.py", "config", config, "--lang", edition])
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config))
    try:
        return subprocess.run(lab_command(py, edition, extra), cwd=ROOT, env=env).returncode
    except KeyboardInterrupt:            # Ctrl+C twice stops JupyterLab; no traceback from this script after it
        return 0


def test_env() -> dict:
    """`make test`'s environment: the tests do not depend on the user's Jupyter, IPython or matplotlib settings;
    one BLAS thread per process (the tests run on as many workers as there are cores)."""
    home = ROOT / ".test-home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), USERPROFILE=str(home), JUPYTER_CONFIG_DIR=str(home / "jupyter"),
               IPYTHONDIR=str(home / "ipython"), MPLCONFIGDIR=str(home / "mpl"), PYTHONHASHSEED="0",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def workers_arg(text: str) -> str:
    """--workers: how many pytest-xdist processes, a whole number from 1, or `auto` (one per core)."""
    value = text.strip().lower()
    if value == "auto" or (value.isascii() and value.isdigit() and int(value) >= 1):
        return value if value == "auto" else str(int(value))
    raise argparse.ArgumentTypeError(f"expected a whole number of test processes from 1 up, or 'auto' (one per "
                                     f"core); got {text!r}")


def pytest_command(py: Path, kind: str, workers: str, extra: list[str]) -> tuple[list[str], dict]:
    """The pytest command line and environment of `test`, `quick`, `unit` or `nbval` (make's targets of the same
    names call this): one session on `workers` pytest-xdist workers, each test file kept on one worker."""
    env = test_env()
    # --dist loadfile: a test file (and so a notebook's cells, and a module's fixtures) stays on one worker; in
    # make quick it also spent 6% less CPU than spreading tests one by one (module fixtures computed once).
    common = [str(py), "-m", "pytest", "-p", "no:cacheprovider", "-n", workers, "--dist", "loadfile"]
    if kind == "test":
        args = [*NBVAL, "--durations=20", *TEST_PATHS]
    elif kind == "quick":
        env["HYPOTHESIS_PROFILE"] = "quick"
        args = ["-p", "no:nbval", "-q", "-m", "not slow and not browser", *QUICK_PATHS]
    elif kind == "unit":
        args = ["-p", "no:nbval", "-m", "not browser", "--ignore=tests/browser", "tests"]
    elif kind == "nbval":
        args = [*NBVAL, *NOTEBOOK_PATHS]
    else:
        raise ValueError(f"no test command {kind!r}: expected test, quick, unit or nbval")
    return [*common, *args, *extra], env


def test(kind: str, workers: str, extra: list[str]) -> int:
    """`make test` (ruff first), `make quick`, `make unit` or `make nbval`: set up, then one pytest session."""
    py = setup("developer")
    if kind == "test":
        ruff = subprocess.run([str(py), "-m", "ruff", "check", *LINT_PATHS], cwd=ROOT, env=test_env())
        if ruff.returncode:
            return ruff.returncode
    cmd, env = pytest_command(py, kind, workers, extra)
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


TEST_COMMANDS = {"test": "every test (ruff, unit, nbval, browser)",
                 "quick": "the one-minute loop (unit tests of the four layers, no slow ones)",
                 "unit": "every test but the browser tests and nbval",
                 "nbval": "nbval over both editions' notebooks"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("setup", help="set up .venv (the developer's lock, or --learner's)")
    p.add_argument("--learner", action="store_true", help="only what notebooks 00-12 need (no test tools, no torch)")
    p.add_argument("--torch-cpu", action="store_true", help="first install torch's CPU build (Linux)")
    p.add_argument("--force", action="store_true", help="install again even where nothing changed")
    p = sub.add_parser("lab", help="open JupyterLab on notebook 00 (sets up the learner's .venv the first time)")
    p.add_argument("--lang", choices=("en", "zh"), default=default_edition())
    p.add_argument("extra", nargs=argparse.REMAINDER, help="options for jupyter lab, after --")
    for name, what in TEST_COMMANDS.items():
        p = sub.add_parser(name, help=f"set up the developer's .venv, then run {what}")
        p.add_argument("--workers", type=workers_arg, default="2",
                       help="pytest-xdist processes: a whole number from 1, or 'auto' (default 2)")
        p.add_argument("extra", nargs=argparse.REMAINDER, help="options for pytest, after --")
    sub.add_parser("lite", help="build the browser edition (JupyterLite) in _site/lite/")
    args = ap.parse_args(argv)
    extra = [a for a in getattr(args, "extra", []) if a != "--"]
    if args.cmd == "setup":
        setup("learner" if args.learner else "developer", args.torch_cpu, args.force)
        return 0
    if args.cmd == "lab":
        return lab(args.lang, extra)
    if args.cmd in TEST_COMMANDS:
        return test(args.cmd, args.workers, extra)
    py = venv_python() if is_set_up("developer") else setup("learner")      # the builder needs no test tools
    return subprocess.run([str(py), str(ROOT / "tools" / "lite" / "build_lite.py")], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
