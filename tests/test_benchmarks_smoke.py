"""`make bench` kept from drifting: `benchmarks/run.py --quick` runs every section at its smallest size, writing
its results outside the tree, and each section must come back measured (not skipped, not broken).

The browser section drives Chromium, so it runs on its own and is marked `browser` (make unit leaves it out).
What the numbers are is never asserted: timings belong to benchmarks/README.md, not to tests.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "benchmarks" / "run.py"
CHROMIUM = Path("/usr/bin/chromium")
_spec = importlib.util.spec_from_file_location("bench_run", RUN)
bench_run = importlib.util.module_from_spec(_spec)        # a script: only its SECTIONS are read here
_spec.loader.exec_module(bench_run)
BROWSER = "browser"
WITHOUT_BROWSER = [s for s in bench_run.SECTIONS if s != BROWSER]

pytestmark = pytest.mark.slow


def _positive(*values) -> bool:
    return bool(values) and all(isinstance(v, (int, float)) and v > 0 for v in values)


# What "measured" means for each section of a quick run: a section added to run.py without a line here fails.
MEASURED = {
    "attention": lambda r: _positive(*[row["numpy_weights_ms"] for run in r["runs"] for row in run["rows"]]),
    "memory": lambda r: _positive(*[row["measured_peak_weights_bytes"] for row in r["rows"]]),
    "tiled": lambda r: _positive(*[row["tiled_ms"] for row in r["rows"]]),
    "import": lambda r: _positive(r["median_ms"]) and r["reps"] == 3,
    "widgets": lambda r: _positive(r["heatmap_ms"], r["dot_product_ms"], r["temperature_ms"]),
    "browser": lambda r: len(r["rows"]) == 1 and r["rows"][0]["presses"] == 5
    and _positive(r["rows"][0]["median_ms"]) and r["rows"][0]["p95_ms"] >= r["rows"][0]["median_ms"],
    "notebooks": lambda r: len(r["rows"]) == 1 and r["all_ran"] and _positive(r["rows"][0]["seconds"]),
    "training": lambda r: len(r["rows"]) == 1 and r["rows"][0]["steps"] == 5 and _positive(r["total_s"]),
    "gpt": lambda r: [row["steps"] for row in r["training"]] == [5]
    and _positive(*[g["cached_ms"] for g in r["generation"]], *[g["uncached_ms"] for g in r["generation"]]),
    "train_live": lambda r: bool(r["recipes"]) and all(
        rec["rows"] and all(row["steps"] > 0 and _positive(row["train_s"]) for row in rec["rows"])
        for rec in r["recipes"].values()),
}


def _quick_run(sections, out: Path) -> tuple[dict, str]:
    """`run.py --quick --only SECTIONS --out OUT`; its JSON report and its Markdown."""
    committed = REPO / "benchmarks" / "results.json"
    before = committed.read_bytes()
    proc = subprocess.run([sys.executable, str(RUN), "--quick", "--only", *sections, "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"run.py --quick failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    # unchanged, or rewritten by a full `make bench` running beside this test in a shared tree: never a quick report
    after = committed.read_bytes()
    assert after == before or json.loads(after)["quick"] is False, "the quick run wrote benchmarks/results.json"
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["quick"] is True
    return report, proc.stdout


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    return _quick_run(WITHOUT_BROWSER, tmp_path_factory.mktemp("bench") / "results-quick.json")


def test_every_section_has_a_check():
    missing = set(bench_run.SECTIONS) - set(MEASURED)
    assert not missing, f"run.py has sections the smoke run cannot judge: add them to MEASURED: {sorted(missing)}"


@pytest.mark.parametrize("section", WITHOUT_BROWSER)
def test_quick_run_measures_the_section(quick_report, section):
    report, markdown = quick_report
    result = report["sections"][section]
    assert "skipped" not in result, f"{section}: {result['skipped']}"
    assert section in MEASURED, f"no check for the section {section!r}: add one to MEASURED"
    assert MEASURED[section](result), f"{section} came back without measurements: {json.dumps(result)[:2000]}"
    assert "Whole run:" in markdown                # the Markdown report was written to the end


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium not installed: run `apt-get install -y chromium`")
def test_quick_run_measures_the_browser(tmp_path):
    """The browser section starts JupyterLab as the browser tests do and times one widget's key presses."""
    pytest.importorskip("playwright.sync_api")
    report, markdown = _quick_run([BROWSER], tmp_path / "results-quick.json")
    result = report["sections"][BROWSER]
    assert "skipped" not in result, result["skipped"]
    assert MEASURED[BROWSER](result), json.dumps(result)
    assert "| 00 dot product | 5 |" in markdown


def test_a_failing_section_keeps_the_others_and_fails_the_run(tmp_path, monkeypatch, capsys):
    """A section that raises is recorded as failed and named; the other sections' figures are still written."""
    real = bench_run._run_section

    def run_section(section, quick):
        if section == "import":
            raise RuntimeError("boom")
        return real(section, quick)

    monkeypatch.setattr(bench_run, "_run_section", run_section)
    monkeypatch.setattr(sys, "path", list(sys.path))            # main() puts benchmarks/ on it
    out = tmp_path / "results-quick.json"
    assert bench_run.main(["--quick", "--keep-openblas-env", "--only", "memory", "import", "--out", str(out)]) == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["sections"]["import"]["failed"] == "RuntimeError: boom"
    assert MEASURED["memory"](report["sections"]["memory"])
    captured = capsys.readouterr()
    assert "**import: FAILED** (RuntimeError: boom)" in captured.out
    assert "FAILED sections: import" in captured.err
