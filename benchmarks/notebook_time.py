"""Execution time of every notebook in notebooks/en and notebooks/zh, each in a fresh kernel.

Run with nbclient in a scratch copy (the committed notebooks are not rewritten), with the
matplotlib Agg backend as in the tests. Goal: each notebook under 20 s on this machine. The time
includes kernel start-up (about 0.7 s here), since a learner's "Run all" pays it too.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITIONS = ("en", "zh")
GOAL_S = 20.0


def measure(quick: bool = False, timeout_s: int = 120) -> dict:
    notebooks = [nb for ed in EDITIONS for nb in sorted((ROOT / "notebooks" / ed).glob("*.ipynb"))]
    if not notebooks:
        return {"skipped": "no notebooks in notebooks/en or notebooks/zh yet"}
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError as exc:
        return {"skipped": f"nbclient is not installed ({exc})"}
    if quick:                                      # smoke run: the first notebook only
        notebooks = notebooks[:1]
    rows = []
    with tempfile.TemporaryDirectory(prefix="attention-lab-bench-") as home:
        env = {"MPLBACKEND": "Agg", "HOME": home, "IPYTHONDIR": os.path.join(home, "ipython"),
               "MPLCONFIGDIR": os.path.join(home, "mpl"), "JUPYTER_CONFIG_DIR": os.path.join(home, "jupyter")}
        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)                     # the kernel inherits these
        try:
            for path in notebooks:
                rows.append(_run_one(path, nbformat, NotebookClient, timeout_s))
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    worst = max((r["seconds"] for r in rows if "seconds" in r), default=None)
    return {"goal_s": GOAL_S, "rows": rows,
            "all_ran": all(r.get("ok") for r in rows),
            "goal_met": all(r.get("ok") and r["seconds"] < GOAL_S for r in rows),
            "slowest_s": worst}


def _run_one(path: Path, nbformat, NotebookClient, timeout_s: int) -> dict:
    row = {"notebook": str(path.relative_to(ROOT))}
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout_s, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    try:
        client.execute()
        row["ok"] = True
    except Exception as exc:  # noqa: BLE001 -- reported; one broken notebook should not stop the run
        row["ok"] = False
        last_line = (str(exc).strip().splitlines() or [""])[-1]
        row["error"] = f"{type(exc).__name__}: {last_line[:200]}"
    row["seconds"] = round(time.perf_counter() - start, 2)
    row["cells"] = sum(1 for c in nb.cells if c.cell_type == "code")
    return row


if __name__ == "__main__":
    import json
    print(json.dumps(measure(quick=True), indent=1))
