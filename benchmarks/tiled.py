"""Tiled attention (online softmax, `attention_core.tiled_attention`) against the plain formula:
peak memory (tracemalloc) and time of one self-attention call at T = 1024, 4096, 16384.

"naive" is `scaled_dot_product_attention(q, k, v)`, which returns the (T, T) weights and so must
hold T * T numbers; it runs only where those fit in `naive_limit_bytes` (at T = 16384 in float32
they take 1 GiB: the row reports the analytic count instead). "tiled" streams blocks of keys
through an online softmax and holds one tile of scores. Times are medians of `reps` round-robin
rounds on 1 BLAS thread (many small products: a second thread on a shared machine stalls them).
"""
from __future__ import annotations

import numpy as np
from _common import blas_threads, median_ms, round_robin

from attention_core import scaled_dot_product_attention, tiled_attention
from attention_core.labs.nb10_efficient_attention.efficient_lab import naive_bytes
from attention_core.teaching.measure import traced_peak

LENGTHS = (1024, 4096, 16384)
QUICK_LENGTHS = (1024, 4096)


def measure(lengths=LENGTHS, d: int = 32, reps: int = 5, block_size: int = 128,
            naive_limit_bytes: int = 512 << 20, threads: int | None = 1) -> dict:
    rows = []
    with blas_threads(threads):
        for t in lengths:
            rng = np.random.default_rng(0)
            q, k, v = (rng.standard_normal((t, d), dtype=np.float32) for _ in range(3))   # (T, D)
            analytic = naive_bytes(t, d)                        # weights (T, T) + output (T, D), float32
            run_naive = analytic <= naive_limit_bytes
            out_tiled, tiled_peak = traced_peak(tiled_attention, q, k, v, block_size=block_size)
            row = {"T": t, "naive_analytic_bytes": analytic, "tiled_peak_bytes": tiled_peak,
                   "naive_peak_bytes": None, "naive_ms": None, "max_abs_diff": None}
            candidates = {"tiled": lambda q=q, k=k, v=v: tiled_attention(q, k, v, block_size=block_size)}
            if run_naive:
                (out_naive, _), row["naive_peak_bytes"] = traced_peak(scaled_dot_product_attention, q, k, v)
                row["max_abs_diff"] = float(np.abs(out_tiled - out_naive).max())
                candidates["naive"] = lambda q=q, k=k, v=v: scaled_dot_product_attention(q, k, v)
            samples = round_robin(candidates, reps)
            row["tiled_ms"] = median_ms(samples["tiled"])
            if run_naive:
                row["naive_ms"] = median_ms(samples["naive"])
            rows.append(row)
    return {"dtype": "float32", "d": d, "reps": reps, "block_size": block_size, "threads": threads,
            "naive_limit_bytes": naive_limit_bytes, "rows": rows}


if __name__ == "__main__":
    import json
    print(json.dumps(measure(QUICK_LENGTHS, reps=3), indent=1))
