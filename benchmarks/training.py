"""`make train`, timed: notebook 12's models (every name of its CONFIGS) trained from scratch into a
scratch folder.

The committed weights in attention_core/data/models are left alone; the run's final metrics are
compared with their manifests (the training is seeded and deterministic, so they should agree).
Reported, not asserted.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

GOAL_S = 180.0


def measure(quick: bool = False) -> dict:
    from attention_core.labs.nb12_trained_transformer.training import CONFIGS
    rows = []
    # quick (the smoke run of make test): the first model, a few steps; the fixed cost of a run (importing
    # torch, the final metrics) is most of it, and the other models take the same code path
    names = list(CONFIGS)[:1] if quick else list(CONFIGS)
    with tempfile.TemporaryDirectory() as out:
        for name in names:
            cmd = [sys.executable, "-m", "attention_core.labs.nb12_trained_transformer.training", name, "--out", out]
            if quick:
                cmd += ["--steps", "5"]
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=900)
            seconds = time.perf_counter() - start
            fresh = json.loads((Path(out) / f"{name}.json").read_text(encoding="utf-8"))
            committed = json.loads(files("attention_core.data").joinpath(f"models/{name}.json").read_text("utf-8"))
            rows.append({"model": name, "seconds": round(seconds, 1), "steps": fresh.get("steps"),
                         "metrics": fresh.get("metrics", fresh.get("final_metrics")),
                         "same_as_committed": None if quick else
                         fresh.get("metrics", fresh.get("final_metrics"))
                         == committed.get("metrics", committed.get("final_metrics"))})
    total = sum(r["seconds"] for r in rows)
    return {"rows": rows, "total_s": round(total, 1), "goal_s": GOAL_S, "goal_met": total < GOAL_S, "quick": quick}


if __name__ == "__main__":
    print(json.dumps(measure(quick="--quick" in sys.argv), indent=1))
