"""Notebook 13's GPTs, timed: both runs of `make train` into a scratch folder (their metrics compared with
the shipped manifests; seeded and deterministic, so they should agree), the validation perplexity of the text
run against the bigram baseline, and the time per generated token with and without the KV cache at 64, 128 and
256 tokens (the model's context length) on the shipped text model. Reported, not asserted.
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
GOALS_S = {"induction": 60.0, "text": 90.0}
LENGTHS = (64, 128, 256)


def _training(quick: bool) -> list:
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for name in RUNS:
            cmd = [sys.executable, "-m", "attention_core.labs.nb13_build_a_gpt.training", name, "--out", out]
            if quick:
                cmd += ["--steps", "20"]
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=1800)
            seconds = time.perf_counter() - start
            fresh = json.loads((Path(out) / f"nb13_{name}.json").read_text(encoding="utf-8"))
            shipped = json.loads(files("attention_core.data").joinpath(f"models/nb13_{name}.json").read_text("utf-8"))
            row = {"run": name, "steps": fresh["steps"], "seconds": round(seconds, 1),
                   "train_seconds": fresh["train_seconds"], "goal_s": GOALS_S[name],
                   "goal_met": fresh["train_seconds"] < GOALS_S[name], "metrics": fresh["metrics"],
                   "same_as_shipped": None if quick else fresh["metrics"] == shipped["metrics"]}
            if name == "text":
                m = fresh["metrics"]
                row["perplexity"] = {lang: {"model": m[f"{lang}_perplexity"], "bigram": m[f"{lang}_bigram_perplexity"]}
                                     for lang in ("en", "zh")}
            rows.append(row)
    return rows


def _generation(quick: bool) -> list:
    import torch

    from attention_core.labs.nb13_build_a_gpt import experiments, pieces, training
    torch.set_num_threads(1)
    model = training.load_run("text")
    params = pieces.torch_params(model.params, dtype="float32")
    rows = experiments.cache_timing(pieces.generate, pieces.generate_uncached, params, lengths=LENGTHS,
                                    n_new=4 if quick else 16, repeats=1 if quick else 3)
    return [{k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()} for r in rows]


def measure(quick: bool = False) -> dict:
    return {"training": _training(quick), "generation": _generation(quick), "quick": quick}


def format_markdown(r: dict) -> list:
    lines = ["", "### Notebook 13's GPTs (`make train`'s nb13 runs into a scratch folder; generation on the shipped "
             "text model, torch on the CPU, 1 thread)", "",
             "| run | steps | training s | goal | metrics equal the shipped manifest |",
             "| --- | ---: | ---: | --- | --- |"]
    for row in r["training"]:
        lines.append(f"| {row['run']} | {row['steps']} | {row['train_seconds']} | < {row['goal_s']:.0f} s: "
                     f"{'met' if row['goal_met'] else 'NOT met'} | {row['same_as_shipped']} |")
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
