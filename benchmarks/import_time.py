"""`import attention_core` time in a fresh interpreter, and which heavy libraries it pulls in.

The package should import in well under 150 ms and leave torch, matplotlib and ipywidgets
unimported until a torch tensor, a plot or a widget is actually used. Reported, not asserted.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys

HEAVY = ("torch", "matplotlib", "ipywidgets", "IPython", "scipy", "pandas")
GOAL_MS = 150

_PROBE = """
import json, sys, time
start = time.perf_counter()
import attention_core
elapsed = time.perf_counter() - start
print(json.dumps({"ms": elapsed * 1e3, "heavy": [m for m in HEAVY if m in sys.modules]}))
""".replace("HEAVY", repr(HEAVY))


def measure(reps: int = 7) -> dict:
    times, heavy = [], set()
    for _ in range(reps):
        out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                             timeout=120, check=True)
        probe = json.loads(out.stdout.strip().splitlines()[-1])
        times.append(probe["ms"])
        heavy.update(probe["heavy"])
    median = statistics.median(times)
    return {
        "median_ms": round(median, 1), "min_ms": round(min(times), 1), "reps": reps,
        "goal_ms": GOAL_MS, "goal_met": median < GOAL_MS,
        "torch_imported": "torch" in heavy,
        "heavy_modules_imported": sorted(heavy),
        "slowest_imports": _slowest_imports(),
    }


def _slowest_imports(top: int = 8) -> list:
    """Per top-level package (numpy, attention_core, ...), its import time from `-X importtime`.

    A package's time is the cumulative time of its outermost import, which includes whatever it
    imports in turn (so attention_core's figure includes numpy's).
    """
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import attention_core"],
                         capture_output=True, text=True, timeout=120, check=True)
    per_package = {}
    for line in out.stderr.splitlines():
        parts = line.split("|")                   # "import time: self [us] | cumulative | name"
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        root = parts[2].strip().split(".")[0]
        per_package[root] = max(per_package.get(root, 0), int(parts[1]))
    slowest = sorted(per_package.items(), key=lambda item: -item[1])[:top]
    return [{"package": name, "cumulative_ms": round(us / 1e3, 1)} for name, us in slowest]


if __name__ == "__main__":
    print(json.dumps(measure(3), indent=1))
