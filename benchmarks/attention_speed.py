"""Attention forward speed: attention_core's NumPy path against torch's fused CPU kernel and this
machine's own float32 matrix-multiply rate, all measured side by side in one run.

Attention costs 4 * T^2 * D flops (two products: Q K^T and weights V, 2 * T^2 * D each); the
softmax in between is O(T^2) but runs at memory and exp speed, not at BLAS speed. The "GEMM rate"
is a square float32 product with the same flop count, n = (2 T^2 D)^(1/3), timed in the same
rounds, so a slow or busy machine slows both sides of every ratio alike.

Candidates run round-robin (one call of each per round) and we keep the median per candidate:
on 2 cores shared with other work, a burst of load then hits every candidate, not just one.
"""
from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import blas_threads, median_ms, round_robin

from attention_core import scaled_dot_product_attention

LENGTHS = (512, 1024, 2048, 4096)
QUICK_LENGTHS = (256, 1024)


def measure(lengths=LENGTHS, d: int = 64, reps: int = 15, thread_counts=None) -> dict:
    """Time the NumPy path (with and without weights), torch SDPA and a same-flop GEMM.

    thread_counts: BLAS/torch thread counts to run under; default (1, all cores). One thread is the
    stable comparison on a shared machine; all cores is what a learner gets by default.
    """
    try:
        import torch
    except ImportError:                      # the NumPy side is still worth measuring
        torch = None
    if thread_counts is None:
        thread_counts = sorted({1, os.cpu_count() or 1})
    runs = []
    for threads in thread_counts:
        with blas_threads(threads):
            if torch is not None:
                torch.set_num_threads(threads)
            rows = [_measure_length(t, d, reps, torch) for t in lengths]
        runs.append({"threads": threads, "rows": rows})
    return {
        "dtype": "float32", "d": d, "batch_heads": 1, "reps": reps,
        "flops_formula": "4 * T^2 * D",
        "gemm_formula": "square float32 GEMM, n = round((2 * T^2 * D) ** (1/3)), same flop count",
        "torch_threads": "torch.set_num_threads(threads), the same count as the BLAS pool",
        "runs": runs,
        "profile": _profile_steps(max(lengths), d, reps=max(3, reps // 2)),
    }


def _measure_length(t: int, d: int, reps: int, torch) -> dict:
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 1, t, d), dtype=np.float32) for _ in range(3))   # (B, H, T, D)
    n = round((2 * t * t * d) ** (1 / 3))
    a = rng.standard_normal((n, n), dtype=np.float32)
    candidates = {
        "numpy_weights": lambda: scaled_dot_product_attention(q, k, v),
        "numpy_no_weights": lambda: scaled_dot_product_attention(q, k, v, need_weights=False),
        "numpy_unblocked": lambda: _unblocked_attention(q, k, v),
        "gemm": lambda: a @ a,
    }
    row = {"T": t}
    if torch is not None:
        tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))
        sdpa = torch.nn.functional.scaled_dot_product_attention

        def run_torch():
            with torch.no_grad():
                return sdpa(tq, tk, tv)
        candidates["torch_sdpa"] = run_torch
        ours = scaled_dot_product_attention(q, k, v, need_weights=False)[0]
        row["max_abs_diff_vs_torch"] = float(np.abs(ours - run_torch().numpy()).max())
    samples = round_robin(candidates, reps)
    ms = {name: median_ms(s) for name, s in samples.items()}
    flops = 4 * t * t * d
    gemm_gflops = 2 * n ** 3 / ms["gemm"] / 1e6
    row.update({f"{name}_ms": round(x, 3) for name, x in ms.items()})
    row["gemm_n"] = n
    row["gemm_gflops"] = round(gemm_gflops, 1)
    for name in ("numpy_weights", "numpy_no_weights", "numpy_unblocked", "torch_sdpa"):
        if name in ms:
            row[f"{name}_gflops"] = round(flops / ms[name] / 1e6, 1)
            row[f"{name}_pct_of_gemm"] = round(100 * flops / ms[name] / 1e6 / gemm_gflops, 1)
    if "torch_sdpa" in ms:
        # > 1 means the NumPy path is faster than torch's fused kernel.
        row["torch_over_numpy_no_weights"] = round(ms["torch_sdpa"] / ms["numpy_no_weights"], 3)
        row["torch_over_numpy_weights"] = round(ms["torch_sdpa"] / ms["numpy_weights"], 3)
    return row


def _unblocked_attention(q, k, v):
    """The same steps on the whole (T, T) matrix at once (the package's path before blocking)."""
    scores = np.matmul(q * q.dtype.type(1 / math.sqrt(q.shape[-1])), np.swapaxes(k, -1, -2))
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return np.matmul(scores, v), scores


def _profile_steps(t: int, d: int, reps: int) -> dict:
    """Where the time goes: each step of the NumPy path timed alone at 1 thread, in ms for all T rows.

    Each step runs on one block of query rows, (rows, T) with the package's block size, and its time
    is multiplied by the number of blocks: the working set the library really has (the block in
    cache), without the overlap of consecutive steps.
    """
    from attention_core.core import attention
    itemsize = np.dtype(np.float32).itemsize
    rows = min(t, max(attention._MIN_BLOCK_ROWS, attention._BLOCK_BYTES // (t * itemsize)))
    rng = np.random.default_rng(1)
    q = rng.standard_normal((rows, d), dtype=np.float32) * np.float32(1 / math.sqrt(d))
    k, v = (rng.standard_normal((t, d), dtype=np.float32) for _ in range(2))
    s = q @ k.T                                                             # (rows, T)
    row_max = s.max(axis=-1, keepdims=True)
    e = np.exp(s - row_max)
    total = e.sum(axis=-1, keepdims=True)
    work, out = np.empty_like(s), np.empty((rows, d), np.float32)
    steps = {
        "scores = q @ k.T (GEMM)": lambda: np.matmul(q, k.T, out=work),
        "row max": lambda: s.max(axis=-1, keepdims=True),
        "subtract row max": lambda: np.subtract(s, row_max, out=work),
        "exp": lambda: np.exp(s, out=work),
        "row sum": lambda: e.sum(axis=-1, keepdims=True),
        "divide weights by sums (weights only)": lambda: np.divide(e, total, out=work),
        "weights @ v (GEMM)": lambda: np.matmul(e, v, out=out),
        "divide output by sums (no weights)": lambda: np.divide(out, total, out=out),
    }
    with blas_threads(1):
        samples = round_robin(steps, reps)
    blocks = -(-t // rows)
    return {"T": t, "d": d, "threads": 1, "block_rows": rows, "blocks": blocks,
            "ms": {name: round(median_ms(x) * blocks, 3) for name, x in samples.items()}}


if __name__ == "__main__":
    import json
    print(json.dumps(measure(QUICK_LENGTHS, reps=3), indent=1))
