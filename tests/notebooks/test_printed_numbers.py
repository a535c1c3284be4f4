"""Numbers a notebook states are the ones its cells computed (issue 16): notebook 10's summary prints the measured
peaks from its measurement tables instead of quoting them, and notebook 04 counts layers from 0 in what it prints. Both
editions; the stored outputs of notebooks/en and notebooks/zh are read."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NUMBER = r"\d[\d,]*(?:\.\d+)?"


def _printed(lang: str, stem: str, code: str) -> str:
    """The stdout of the one code cell of notebook `stem` whose source holds `code`."""
    nb = nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and code in c.source]
    assert len(cells) == 1, (lang, stem, code, len(cells))
    return "".join(o.get("text", "") for o in cells[0].outputs if o.get("output_type") == "stream")


def _markdown(lang: str, stem: str) -> list[str]:
    nb = nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_notebook_10_summary_prints_the_measured_peaks(lang):
    stem = "10_efficient_attention"
    memory = _printed(lang, stem, "efficient_lab.memory_rows(")
    compared = _printed(lang, stem, "linformer_lab.memory_comparison(")
    summary = _printed(lang, stem, "tiled_last, lin_last = rows[-1], compared[-1]")
    tiled = re.findall(rf"^\s*({NUMBER})\s.*?({NUMBER}) MiB\s+{NUMBER} KiB\s*$", memory, re.M)    # T, tiled peak
    linformer = re.findall(rf"^\s*({NUMBER})\s.*?({NUMBER})\s*$", compared, re.M)         # T, its last column
    assert len(tiled) == 4 and len(linformer) == 4, (memory, compared)
    t_last, tiled_peak = tiled[-1]
    assert re.search(rf"{int(t_last.replace(',', '')):,}\D.*\b{tiled_peak} MiB", summary), (tiled[-1], summary)
    peaks = [float(p) for _, p in linformer]
    steps = " → ".join(f"{p:.2f}" for p in peaks[:-1])
    assert f"{steps} MiB" in summary and f"{peaks[-1]:.1f} MiB" in summary and linformer[-1][0] in summary, summary
    said = [m.group(0) for text in _markdown(lang, stem) for m in re.finditer(rf"{NUMBER} → {NUMBER} → {NUMBER} MiB|"
                                                                             rf"\b(?:6|20) MiB", text)]
    assert not said, f"measured peaks quoted in the markdown instead of printed: {said}"


@pytest.mark.parametrize("lang, word", [("en", r"after layer (\d+)"), ("zh", r"第 (\d+) 层之后")])
def test_notebook_04_counts_layers_from_0_in_what_it_prints(lang, word):
    printed = _printed(lang, "04_masking", "naive_masked_attention(naive_out")
    assert [int(n) for n in re.findall(word, printed)] == [0, 1], printed
