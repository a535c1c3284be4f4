"""Notebook 13's GPTs, timed: both runs of `make train` into a scratch folder (their metrics compared with
the shipped manifests; seeded and deterministic, so they should agree), the validation perplexity of the text
run against the bigram baseline, and the time per generated token with and without the KV cache at 16, 32 and
64 tokens (the model's context length) on the shipped text model. Reported, not asserted.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

RUNS = ("induction", "text")
GOALS_S = {"induction": 60.0, "text": 180.0}    # text: the longer recipe (CONFIGS["text_long"]), <= 3 min on 2 cores
LENGTHS = (32, 48, 64)          # tokens in the context at the end: up to the text model's whole context


def _training(quick: bool) -> list:
    rows = []
    with tempfile.TemporaryDirectory() as out:
        # quick (the smoke run of make test): the induction run, a few steps; the text run's final metrics
        # (perplexity over the whole validation text) alone take longer than the whole smoke run should
        for name in RUNS[:1] if quick else RUNS:
            cmd = [sys.executable, "-m", "attention_core.labs.nb13_build_a_gpt.training", name, "--out", out]
            if quick:
                cmd += ["--steps", "5"]
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=1800)
            seconds = time.perf_counter() - start
            fresh = json.loads((Path(out) / f"nb13_{name}.json").read_text(encoding="utf-8"))
            shipped = json.loads(files("attention_core.data").joinpath(f"models/nb13_{name}.json").read_text("utf-8"))
            row = {"run": name, "steps": fresh["steps"], "seconds": round(seconds, 1),
                   "train_seconds": fresh["train_seconds"], "goal_s": GOALS_S[name],
                   "goal_met": fresh["train_seconds"] < GOALS_S[name], "metrics": fresh["metrics"],
                   "same_as_shipped": None if quick else fresh["metrics"] == shipped["metrics"],
                   "largest_difference_from_shipped": None if quick else _largest_difference(fresh, shipped),
                   # the text run learns the course's markdown as it is now; the shipped run, as it was then
                   "same_corpus_as_shipped": fresh.get("corpus_sha256") == shipped.get("corpus_sha256")}
            if name == "text":
                m = fresh["metrics"]
                row["perplexity"] = {lang: {"model": m[f"{lang}_perplexity"], "bigram": m[f"{lang}_bigram_perplexity"]}
                                     for lang in ("en", "zh")}
            rows.append(row)
    return rows


def _largest_difference(fresh: dict, shipped: dict) -> float | None:
    """The largest absolute difference between the numeric metrics of two manifests (None: other keys or
    other heads). Seeded runs agree to the bit on one machine; another CPU may round differently."""
    a, b = fresh["metrics"], shipped["metrics"]
    if a.keys() != b.keys() or any(a[k] != b[k] for k in a if isinstance(a[k], str)):
        return None
    return round(max(abs(a[k] - b[k]) for k in a if not isinstance(a[k], str)), 6)


def _generation(quick: bool) -> list:
    import torch

    from attention_core.labs.nb13_build_a_gpt import experiments, pieces, training
    torch.set_num_threads(1)
    model = training.load_run("text")
    params = pieces.torch_params(model.params, dtype="float32")
    rows = experiments.cache_timing(pieces.generate, pieces.generate_uncached, params,
                                    lengths=LENGTHS[:1] if quick else LENGTHS,
                                    n_new=2 if quick else 16, repeats=1 if quick else 3)
    return [{k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()} for r in rows]


def measure(quick: bool = False) -> dict:
    return {"training": _training(quick), "generation": _generation(quick), "quick": quick}


def _agreement(row: dict) -> str:
    if row["same_as_shipped"] is None:
        return "not compared (quick run)"
    if row["same_as_shipped"]:
        return "equal"
    note = "" if row.get("same_corpus_as_shipped", True) else " (the course text changed since the shipped run)"
    diff = row.get("largest_difference_from_shipped")
    return ("other heads or keys" if diff is None else f"differ by at most {diff:g}") + note


def format_markdown(r: dict) -> list:
    lines = ["", "### Notebook 13's GPTs (`make train`'s nb13 runs into a scratch folder, torch on the CPU with each "
             "run's thread count: induction 1, text 1; generation on the shipped text model, 1 thread)", "",
             "| run | steps | training s | goal | metrics vs the shipped manifest |",
             "| --- | ---: | ---: | --- | --- |"]
    for row in r["training"]:
        lines.append(f"| {row['run']} | {row['steps']} | {row['train_seconds']} | < {row['goal_s']:.0f} s: "
                     f"{'met' if row['goal_met'] else 'NOT met'} | {_agreement(row)} |")
        if "perplexity" in row:
            lines.append("")
            lines += [f"Validation perplexity, {lang}: {p['model']:.2f} (bigram baseline {p['bigram']:.2f})"
                      for lang, p in row["perplexity"].items()]
            lines.append("")
    lines += ["", "| context (tokens) | ms per new token, KV cache | ms, recomputing | speed-up |",
              "| ---: | ---: | ---: | ---: |"]
    lines += [f"| {g['length']} | {g['cached_ms']:.2f} | {g['uncached_ms']:.2f} | {g['speedup']:.1f}x |"
              for g in r["generation"]]
    return lines


if __name__ == "__main__":
    print(json.dumps(measure(quick="--quick" in sys.argv), indent=1))
