"""The tutorial's long-context examples in numbers (notebook 09): what 200K and 1M tokens would cost a model of a
stated shape, the naive way, in its KV cache, and on the tiled path of notebook 10.

The tutorial names the context windows of Claude (200K tokens) and Gemini (1M); those models' shapes are not
published, so the numbers are computed for a published shape (`kv_cache.published_shapes`, Llama-2-70B by
default: 80 layers, 64 query heads sharing 8 KV heads, head width 128).

    rows = long_context_rows([200_000, 1_000_000], model="Llama-2-70B")
    overhead = tiled_overhead([2048, 8192], d_head=128)   # measured: what tiled attention holds beyond q, output

Per layer and head, for n tokens:
    naive score matrix   n^2 numbers (the weights a plain implementation keeps), H of them per layer
    KV cache             2 * layers * kv_heads * d_head * n numbers, the whole model, one sequence
    tiled path           its scaled copy of q and its output, 2 * n * d_head float32 numbers, plus one tile
                         of scores and the running max and sum: a constant, measured by `tiled_overhead`
"""
from __future__ import annotations

import numpy as np

from attention_core.core.tiled import tiled_attention
from attention_core.core.validation import as_generator, describe, positive_int
from attention_core.labs.nb09_cost_and_context_window.cost_lab import DTYPE_BYTES, attention_cost
from attention_core.labs.nb09_cost_and_context_window.kv_cache import kv_cache_bytes, published_shapes
from attention_core.teaching.measure import traced_peak

# The tutorial's examples: (model, context length in tokens), as the tutorial states them.
TUTORIAL_EXAMPLES = (("Claude", 200_000), ("Gemini", 1_000_000))
TILED_ITEMSIZE = 4                 # notebook 10's tiled attention works in float32


def tiled_overhead(n_values, d_head: int = 128, *, block_size: int = 128, seed=0) -> list[dict]:
    """Peak memory of one head of `ac.tiled_attention` (float32) at each n, split into the part that grows
    with n (its scaled copy of q and its output: 2 * n * d_head * 4 bytes) and the rest (one tile of
    scores, the running max and sum, temporaries). The rest stays the same whatever n is."""
    d_head = positive_int(d_head, "d_head")
    rows = []
    for n in n_values:
        n = positive_int(n, "n_values")
        rng = as_generator(seed)
        q, k, v = (rng.standard_normal((n, d_head), dtype=np.float32) for _ in range(3))   # (n, Dh)
        _, peak = traced_peak(tiled_attention, q, k, v, block_size=block_size)
        linear = 2 * n * d_head * TILED_ITEMSIZE
        rows.append({"n": n, "peak_bytes": peak, "linear_bytes": linear, "rest_bytes": peak - linear})
    return rows


def long_context_rows(lengths, model: str = "Llama-2-70B", *, dtype: str = "bfloat16",
                      tiled_rest_bytes: int | None = None) -> list[dict]:
    """What n tokens cost a model of a published shape, for each n in lengths.

    Returns one dict per n: n, pairs (per head and layer), score_head_bytes (one head's n x n weights in
    `dtype`), score_layer_bytes (all query heads of one layer), kv_cache_bytes (all layers, one sequence, in
    `dtype`), tiled_head_bytes (one head on the tiled path: 2 * n * d_head float32 numbers plus
    tiled_rest_bytes, by default measured by `tiled_overhead` at n = 2048), tiled_layer_bytes (all heads),
    attention_flops (the n^2 part of one forward pass, 4 n^2 D per layer), and the shape used."""
    shapes = published_shapes()
    if model not in shapes:
        raise ValueError(f"model: expected one of {sorted(shapes)}, got {describe(model)}")
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype: expected one of {tuple(DTYPE_BYTES)}, got {describe(dtype)}")
    m, itemsize = shapes[model], DTYPE_BYTES[dtype]
    d_head = m["d_model"] // m["heads"]
    if tiled_rest_bytes is None:
        tiled_rest_bytes = tiled_overhead([2048], d_head)[0]["rest_bytes"]
    rows = []
    for n in lengths:
        n = positive_int(n, "lengths")
        cost = attention_cost(n, m["d_model"], m["heads"], m["layers"], dtype=dtype)
        tiled_head = 2 * n * d_head * TILED_ITEMSIZE + int(tiled_rest_bytes)
        rows.append({"n": n, "model": model, "layers": m["layers"], "heads": m["heads"], "kv_heads": m["kv_heads"],
                     "d_head": d_head, "dtype": dtype, "pairs": cost["pairs_per_head"],
                     "score_head_bytes": n * n * itemsize, "score_layer_bytes": cost["score_bytes"],
                     "kv_cache_bytes": kv_cache_bytes(m["layers"], m["kv_heads"], d_head, n, itemsize),
                     "tiled_head_bytes": tiled_head, "tiled_layer_bytes": m["heads"] * tiled_head,
                     "attention_flops": cost["attention_flops"]})
    return rows
