"""nbval honours the cell tags the builder writes instead of `# NBVAL_...` comments (run on a tiny notebook)."""
import os
import subprocess
import sys

import nbformat
import pytest


def _notebook(path, tags):
    """One cell whose stored output ("stale") differs from what it prints now ("fresh")."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    cell = nbformat.v4.new_code_cell('print("fresh")', execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="stale\n")]
    if tags:
        cell.metadata["tags"] = tags
    nb.cells.append(cell)
    nbformat.write(nb, path)


def _nbval(paths, tmp_path) -> dict[str, bool]:
    """Run pytest --nbval once over `paths`: {notebook name: whether all its cells passed}."""
    import xml.etree.ElementTree as ET
    env_home = {"HOME": str(tmp_path), "IPYTHONDIR": str(tmp_path / "ipython"),
                "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    report = tmp_path / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", f"--junitxml={report}",
                    *map(str, paths)], cwd=tmp_path, env={**os.environ, **env_home}, capture_output=True, text=True,
                   timeout=300)
    passed: dict[str, bool] = {}
    for case in ET.parse(report).iter("testcase"):
        name = case.get("classname", "").rsplit(".", 1)[0]           # "ignored.ipynb" -> "ignored"
        failed = any(child.tag in ("failure", "error") for child in case)   # a skipped cell does not fail
        passed[name] = passed.get(name, True) and not failed
    return passed


TAGS = {"plain": ([], False), "ignored": (["nbval-ignore-output"], True), "skipped": (["nbval-skip"], True)}


@pytest.mark.slow                      # runs pytest --nbval on three notebooks, each with its kernel
def test_nbval_reads_the_tags(tmp_path):
    for name, (tags, _) in TAGS.items():
        _notebook(tmp_path / f"{name}.ipynb", tags)
    passed = _nbval([tmp_path / f"{name}.ipynb" for name in TAGS], tmp_path)
    assert set(passed) == set(TAGS), passed
    for name, (tags, passes) in TAGS.items():
        assert passed[name] is passes, f"tags {tags}: nbval {'failed' if passes else 'passed'}"


def _sanitizers():
    import configparser
    from pathlib import Path
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).parents[1] / "nbval_sanitize.cfg", encoding="utf-8")
    return [(cfg[s]["regex"], cfg[s]["replace"]) for s in cfg.sections()]


def _sanitize(text: str) -> str:
    import re
    for regex, replace in _sanitizers():
        text = re.sub(regex, replace, text)
    return text


@pytest.mark.parametrize("machine_a, machine_b", [
    ("max |M_k PE[p] - PE[p+k]| = 6e-15", "max |M_k PE[p] - PE[p+k]| = 5e-15"),   # seen on two CPUs
    ("= 4.44e-16", "= 2.2e-16"), ("smallest 5.15e-131", "smallest 5.2e-131"),
    ("<function f at 0x7f3a2c1b>", "<function f at 0x55aa01ff>"), ("/tmp/tmpab12/x.npz", "/tmp/tmpzz99/x.npz"),
])
def test_nbval_sanitizer_masks_what_varies_between_machines(machine_a, machine_b):
    assert _sanitize(machine_a) == _sanitize(machine_b)


@pytest.mark.parametrize("one, other", [
    ("largest weight on a future key = 7.2e-05", "largest weight on a future key = 7.3e-05"),
    ("|d h_T / d x_1| = 7.8e-09", "|d h_T / d x_1| = 7.9e-09"), ("gap 1e-12", "gap 2e-12"),
    ("4e-15", "4e-05"), ("loss 2.4458", "loss 2.4459"),
])
def test_nbval_sanitizer_keeps_real_results_compared(one, other):
    assert _sanitize(one) != _sanitize(other)
