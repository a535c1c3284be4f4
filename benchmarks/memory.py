"""Peak memory of one attention call against T: measured with tracemalloc next to the analytic count.

NumPy reports its array buffers to tracemalloc, so the traced peak is the largest total of arrays
alive at once during the call (inputs made before tracing starts are not counted). The analytic
count is the (T, T) float32 weights plus the (T, D) output: what any implementation that returns
the weights must hold. Without weights the NumPy path keeps one block of scores, (rows, T), instead.
"""
from __future__ import annotations

import numpy as np

from attention_core import scaled_dot_product_attention
from attention_core.core import attention
from attention_core.teaching.measure import traced_peak

LENGTHS = (512, 1024, 2048, 4096)
QUICK_LENGTHS = (256, 1024)


def measure(lengths=LENGTHS, d: int = 64) -> dict:
    rows = []
    for t in lengths:
        rng = np.random.default_rng(0)
        q, k, v = (rng.standard_normal((t, d), dtype=np.float32) for _ in range(3))   # (T, D)
        itemsize = np.dtype(np.float32).itemsize
        analytic = (t * t + t * d) * itemsize                    # weights (T, T) + output (T, D)
        rows_per_block = min(t, max(attention._MIN_BLOCK_ROWS, attention._BLOCK_BYTES // (t * itemsize)))
        row = {"T": t, "analytic_weights_plus_output_bytes": analytic,
               # one block of scores (rows, T) + output (T, D) + the scaled copy of q (T, D)
               "block_rows": rows_per_block,
               "analytic_no_weights_bytes": (rows_per_block * t + 2 * t * d) * itemsize}
        for need_weights in (True, False):
            peak = traced_peak(scaled_dot_product_attention, q, k, v, need_weights=need_weights)[1]
            key = "weights" if need_weights else "no_weights"
            row[f"measured_peak_{key}_bytes"] = peak
            row[f"measured_over_analytic_{key}"] = round(peak / analytic, 3)
        rows.append(row)
    return {"dtype": "float32", "d": d, "tool": "tracemalloc (NumPy array buffers)", "rows": rows}


if __name__ == "__main__":
    import json
    print(json.dumps(measure(QUICK_LENGTHS), indent=1))
