"""Experiments of notebook 10 (efficient attention): the online softmax step by step, peak memory,
sliding-window attention that computes only its band, and a needle-retrieval check at 1K-16K tokens.

The definitions live elsewhere: the plain formula in `attention`, tiled attention with the online
softmax in `tiled`, masks in `masks`. This module measures them and builds the task on which they
are compared. Everything is a pure function of its inputs (randomness only from a seed you pass);
the plot helpers take `ax=`, return it and never call `show()`.

    trace = online_softmax_trace(scores, values, block_size=4)   # running max, sum, output per block
    out, peak = traced_peak(ac.tiled_attention, q, k, v)         # peak bytes of NumPy buffers in the call
    out = sliding_window_attention(q, k, v, window=256)          # |i - j| < window, only the band computed
    doc = needle_document(T, n_trials=20, seed=0)                # one key matches the query: the needle
    acc = needle_accuracy(doc, positions, window=256)            # {"full": (P,), "window": (P,)}
"""
from __future__ import annotations

import sys

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention, validate_attention_inputs
from attention_core.core.masks import sliding_window_mask
from attention_core.core.tiled import tiled_attention
from attention_core.core.validation import (
    as_float_array,
    as_generator,
    describe,
    float_dtype,
    positive_float,
    positive_int,
)
from attention_core.teaching import i18n, plots

# notebook 10 calls efficient_lab.traced_peak and efficient_lab.blas_threads: re-exported here
from attention_core.teaching.measure import blas_threads as blas_threads
from attention_core.teaching.measure import latencies, timed, traced_peak

METHODS = ("full", "window")
METHOD_LABELS = {"full": "efficient_lab.method_full", "window": "efficient_lab.method_window"}   # i18n keys
MIB = 1 << 20

# The lengths notebook 10 sweeps. In the browser (Pyodide: one thread, no optimised BLAS, matrix products many times
# slower than here) the sweeps stop at 2,048 tokens, as notebook 09's do, so that Run All takes well under 100 s.
SIZES = {"memory": (1024, 2048, 4096, 16384), "linear_memory": (1024, 2048, 4096, 8192),
         "linear_time": (1024, 2048, 4096), "needle": (1024, 4096, 16384)}
BROWSER_SIZES = {"memory": (1024, 2048), "linear_memory": (1024, 2048), "linear_time": (1024, 2048),
                 "needle": (1024, 2048)}


def sizes(platform: str | None = None) -> dict:
    """The sweep lengths of notebook 10 for `platform` (default sys.platform): BROWSER_SIZES under Pyodide
    ("emscripten") or WASI, SIZES elsewhere."""
    platform = sys.platform if platform is None else platform
    return dict(BROWSER_SIZES if platform in ("emscripten", "wasi") else SIZES)


# --- the online softmax, one block at a time ----------------------------------------------------------
def online_softmax_trace(scores, values, block_size: int) -> list[dict]:
    """Every intermediate of the online softmax of one query: scores (Tk,), values (Tk, Dv).

    For each block of `block_size` keys: its scores, its max, the running max m, the rescale factor
    exp(m_old - m) applied to what was summed before, the running sum l of exp(score - m), and the
    output so far acc / l (the answer if the keys stopped here). The last entry's output equals
    softmax(scores) @ values; `tiled_attention` runs the same recurrence on whole blocks of queries.
    """
    scores = as_float_array(scores, "scores", ndim=1)
    values = as_float_array(values, "values", ndim=2)
    if values.shape[0] != scores.size:
        raise ValueError(f"values: expected {scores.size} rows (one per score), got shape {values.shape}")
    block_size = positive_int(block_size, "block_size")
    m, total, acc = -np.inf, 0.0, np.zeros(values.shape[1])
    trace = []
    for start in range(0, scores.size, block_size):
        block = scores[start:start + block_size]
        new_m = max(m, float(block.max()))
        rescale = float(np.exp(m - new_m))                        # exp(-inf) = 0 at the first block
        p = np.exp(block - new_m)                                 # (Bk,), every exponent <= 0
        total = rescale * total + float(p.sum())
        acc = rescale * acc + p @ values[start:start + block_size]   # (Dv,)
        m = new_m
        trace.append({"start": start, "scores": block, "block_max": float(block.max()), "max": m,
                      "rescale": rescale, "sum": total, "output": acc / total})
    return trace


# --- memory -------------------------------------------------------------------------------------------
def naive_bytes(t: int, d: int, itemsize: int = 4) -> int:
    """What the plain formula must hold: the (T, T) weights plus the (T, D) output."""
    return (t * t + t * d) * itemsize


def memory_rows(lengths, d: int = 32, *, block_size: int = 128, seed: int = 0, dtype="float32",
                naive_limit_bytes: int = 256 * MIB) -> list[dict]:
    """Peak memory of one self-attention call at each length T: naive (weights returned) vs tiled.

    q, k, v (T, d) seeded standard normal. naive = scaled_dot_product_attention(q, k, v), which
    returns the (T, T) weights; it is only run when naive_bytes(T) <= naive_limit_bytes (else None).
    Each row: T, naive_analytic, naive_peak, tiled_peak (bytes), and tiled_per_token (bytes / T).
    """
    dtype = float_dtype(dtype)                          # int8 would round q, k, v to 0 and measure nothing
    rows = []
    for t in lengths:
        t = positive_int(t, "lengths")
        rng = as_generator(seed)
        q, k, v = (rng.standard_normal((t, d)).astype(dtype) for _ in range(3))   # (T, D)
        analytic = naive_bytes(t, d, dtype.itemsize)
        naive = traced_peak(scaled_dot_product_attention, q, k, v)[1] if analytic <= naive_limit_bytes else None
        tiled = traced_peak(tiled_attention, q, k, v, block_size=block_size)[1]
        rows.append({"T": t, "naive_analytic": analytic, "naive_peak": naive, "tiled_peak": tiled,
                     "tiled_per_token": tiled / t})
    return rows


# --- sliding-window attention that computes only its band -----------------------------------------------
def window_pairs(t: int, window: int) -> int:
    """Number of (query, key) pairs with |i - j| < window among T positions (the visible pairs of
    `ac.sliding_window_mask(T, window, causal=False)`); full attention has T * T."""
    t, window = positive_int(t, "t"), positive_int(window, "window")
    i = np.arange(t)
    return int((np.minimum(i + window - 1, t - 1) - np.maximum(i - window + 1, 0) + 1).sum())


def sliding_window_attention(q, k, v, window: int, *, positions=None, block_size: int = 128, scale=None):
    """Local attention: the query at position i sees the keys j with |i - j| < window, and only
    those pairs are computed (about T * (2 * window - 1) instead of T * T).

    q (..., Tq, Dk), k (..., T, Dk), v (..., T, Dv); positions (Tq,): where the queries sit among the
    T keys (default 0..T-1, which needs Tq == T). Queries are taken `block_size` at a time; each block
    fetches only the keys its window can reach and hands this tile to `scaled_dot_product_attention`
    with the tile's part of the window mask. Returns the output (..., Tq, Dv).
    """
    q, k, v, _, scale, _ = validate_attention_inputs(q, k, v, None, scale)
    window, block_size = positive_int(window, "window"), positive_int(block_size, "block_size")
    tq, t = q.shape[-2], k.shape[-2]
    if positions is None:
        if tq != t:
            raise ValueError(f"positions: needed when Tq ({tq}) differs from the number of keys T ({t})")
        positions = np.arange(t)
    positions = np.asarray(positions)
    if positions.shape != (tq,) or positions.dtype.kind not in "iu" or positions.min() < 0 \
            or positions.max() >= t or (np.diff(positions) < 0).any():
        raise ValueError(f"positions: expected {tq} increasing integers in 0..{t - 1}, got {describe(positions)}")
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    output = np.empty(batch + (tq, v.shape[-1]), q.dtype)                  # (..., Tq, Dv)
    for start in range(0, tq, block_size):
        rows = positions[start:start + block_size]                         # (R,) query positions
        lo, hi = max(int(rows[0]) - window + 1, 0), min(int(rows[-1]) + window, t)   # keys it can reach
        tile_mask = np.abs(rows[:, None] - np.arange(lo, hi)[None, :]) < window      # (R, hi - lo)
        output[..., start:start + rows.size, :] = scaled_dot_product_attention(
            q[..., start:start + rows.size, :], k[..., lo:hi, :], v[..., lo:hi, :], mask=tile_mask,
            scale=scale, need_weights=False)[0]
    return output


def local_global_mask(t: int, window: int, n_global: int = 1) -> np.ndarray:
    """A sparse pattern (T, T) in the style of Longformer and BigBird: the sliding window
    |i - j| < window, plus `n_global` global tokens (the first ones) that see and are seen by all."""
    t, n_global = positive_int(t, "t"), positive_int(n_global, "n_global", minimum=0)
    mask = sliding_window_mask(t, window, causal=False).copy()             # (T, T) local band
    mask[:n_global, :] = True                                              # global tokens see everything
    mask[:, :n_global] = True                                              # and everything sees them
    return mask


# --- the needle task ------------------------------------------------------------------------------------
def needle_document(t: int, n_trials: int = 20, *, d: int = 32, n_classes: int = 16, strength: float = 10.0,
                    seed=0, dtype="float32") -> dict:
    """n_trials documents of T tokens for a retrieval task whose answer is known.

    Every token has a random key (standard normal, width d) and a value that names one of
    n_classes answers (a one-hot vector). The question is the query of the last token: a random
    direction of length `strength`. One token, the needle, has a key equal to that query, so its
    score strength^2 / sqrt(d) stands far above the distractors' (about N(0, strength^2 / d)); its
    class is the answer. Returns q (N, 1, d), k (N, T, d), v (N, T, C), classes (N, T) and
    answer (N,). Plant the needle with `plant_needle`.
    """
    t, n = positive_int(t, "t"), positive_int(n_trials, "n_trials")
    d, c = positive_int(d, "d"), positive_int(n_classes, "n_classes", minimum=2)
    strength = positive_float(strength, "strength")
    rng = as_generator(seed)
    dtype = np.dtype(dtype)
    # the needle's score is strength^2 / sqrt(d): it must stay inside the dtype
    if dtype.kind == "f" and strength > np.sqrt(float(np.finfo(dtype).max)):
        raise FloatingPointError(f"strength: the needle's score {strength:.3g}² is beyond the largest {dtype} "
                                 f"number ({float(np.finfo(dtype).max):.3g}); use a smaller strength")
    direction = rng.standard_normal((n, 1, d))
    q = (strength * direction / np.linalg.norm(direction, axis=-1, keepdims=True)).astype(dtype)  # (N, 1, d)
    k = rng.standard_normal((n, t, d), dtype=np.float32).astype(dtype)     # (N, T, d) distractor keys
    classes = rng.integers(0, c, size=(n, t))                              # (N, T) what each token says
    answer = rng.integers(0, c, size=n)                                    # (N,) what the needle says
    return {"q": q, "k": k, "classes": classes, "answer": answer, "n_classes": c, "T": t}


def plant_needle(doc: dict, position: int):
    """Keys (N, T, d) and values (N, T, C) of `doc` with the needle at `position` (0 <= position < T)."""
    t = doc["T"]
    if isinstance(position, bool) or not isinstance(position, (int, np.integer)) or not 0 <= position < t:
        raise ValueError(f"position: expected an integer in 0..{t - 1}, got {describe(position)}")
    k = doc["k"].copy()
    k[:, position, :] = doc["q"][:, 0, :]                                  # the key that matches the question
    classes = doc["classes"].copy()
    classes[:, position] = doc["answer"]
    v = np.eye(doc["n_classes"], dtype=k.dtype)[classes]                  # (N, T, C) one-hot
    return k, v


def answer_last_query(doc: dict, k, v, method: str, *, window: int | None = None, block_size: int = 128):
    """The output (N, C) of the last token's query over keys k (N, T, d) and values v (N, T, C).

    method "full": `tiled_attention` over all T keys; "window": `sliding_window_attention`, in which
    the last token sees the `window` keys nearest to it (positions T - window .. T - 1).
    """
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    if method == "full":
        return tiled_attention(doc["q"], k, v, block_size=block_size)[:, 0, :]
    if window is None:
        raise ValueError("window: the 'window' method needs a window size")
    return sliding_window_attention(doc["q"], k, v, window, positions=np.array([doc["T"] - 1]))[:, 0, :]


def needle_accuracy(doc: dict, positions, window: int) -> dict:
    """Task accuracy for each needle position, full attention vs a sliding window of `window` keys.

    A trial is right when the largest entry of the last token's output is the needle's class.
    Returns {"full": (P,), "window": (P,)} shares of right trials; chance is 1 / n_classes.
    """
    window = positive_int(window, "window")
    out = {method: [] for method in METHODS}
    for position in positions:
        k, v = plant_needle(doc, int(position))
        for method in METHODS:
            answers = answer_last_query(doc, k, v, method, window=window).argmax(axis=-1)   # (N,)
            out[method].append(float((answers == doc["answer"]).mean()))
    return {method: np.array(values) for method, values in out.items()}


def depth_positions(t: int, depths) -> np.ndarray:
    """Needle positions at the given depths (0 = first token, 1 = the last one, where the question is)."""
    depths = as_float_array(depths, "depths", ndim=1)
    if (depths < 0).any() or (depths > 1).any():
        raise ValueError(f"depths: expected numbers in [0, 1], got {depths.tolist()}")
    return np.round(depths * (positive_int(t, "t") - 1)).astype(int)


# --- cost of one prefill ---------------------------------------------------------------------------------
def prefill_inputs(doc: dict, position: int, *, seed: int = 1):
    """Q, K, V (T, d), (T, d), (T, C) of the first document: the whole sequence through one layer.
    Q's last row is the question; the other queries are seeded random vectors of the same length."""
    k, v = plant_needle(doc, position)
    rng = as_generator(seed)
    t, d = doc["k"].shape[1:]
    q = rng.standard_normal((t, d), dtype=np.float32).astype(doc["q"].dtype)
    q *= np.linalg.norm(doc["q"][0, 0]) / np.linalg.norm(q, axis=-1, keepdims=True)
    q[-1] = doc["q"][0, 0]
    return q, k[0], v[0]


def prefill(method: str, q, k, v, *, window: int | None = None):
    """The whole sequence through one attention layer: q (T, d), k (T, d), v (T, C) -> (T, C).
    "full": `tiled_attention` (every pair); "window": `sliding_window_attention` (|i - j| < window)."""
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    if method == "full":
        return tiled_attention(q, k, v)
    if window is None:
        raise ValueError("window: the 'window' method needs a window size")
    return sliding_window_attention(q, k, v, window)


def measure_prefill(method: str, q, k, v, *, window: int | None = None, budget_s: float = 0.6,
                    min_runs: int = 3, max_runs: int = 15) -> dict:
    """Peak memory and latency of `prefill`: one run traced with tracemalloc (peak bytes, which does
    not depend on the machine's speed), then timed runs, as many as fit in budget_s seconds
    (min_runs .. max_runs). Returns output, peak_bytes and seconds (runs,)."""
    output, peak = traced_peak(prefill, method, q, k, v, window=window)      # also the warm-up
    _, first = timed(prefill, method, q, k, v, window=window)
    runs = int(np.clip(positive_float(budget_s, "budget_s") // max(first, 1e-9), min_runs, max_runs))
    rest = latencies(prefill, method, q, k, v, window=window, runs=runs - 1, warmup=False) if runs > 1 else []
    return {"output": output, "peak_bytes": peak, "seconds": np.concatenate([[first], rest])}


def cost_summary(t: int, seconds) -> dict:
    """Throughput (tokens per second, from the median run) and median and p95 latency (ms)."""
    seconds = as_float_array(seconds, "seconds", ndim=1)
    return {"tokens_per_s": t / float(np.median(seconds)), "median_ms": 1e3 * float(np.median(seconds)),
            "p95_ms": 1e3 * float(np.percentile(seconds, 95)), "runs": int(seconds.size)}


# --- figures --------------------------------------------------------------------------------------------
def plot_memory(rows, ax=None, **kwargs):
    """Peak memory (MiB) against T on log-log axes, from `memory_rows`: naive measured (and its
    analytic count where it was not run) and tiled measured. kwargs go to `ax.plot`. Returns the Axes."""
    if not rows:
        raise ValueError("rows: expected at least one row from memory_rows, got none")
    ax = plots.new_axes(ax, (6.4, 3.8))
    t = np.array([r["T"] for r in rows], dtype=float)
    analytic = np.array([r["naive_analytic"] for r in rows]) / MIB
    measured = [(r["T"], r["naive_peak"] / MIB) for r in rows if r["naive_peak"] is not None]
    ax.plot(t, analytic, **{"color": plots.COLORS[1], "linestyle": "--", "linewidth": 1.5,
                            "label": i18n.t("efficient_lab.naive_analytic"), **kwargs})
    if measured:
        mt, mp = zip(*measured)
        ax.plot(mt, mp, **{"color": plots.COLORS[1], "marker": "o", "linestyle": "none", "markersize": 8,
                           "label": i18n.t("efficient_lab.naive_measured"), **kwargs})
    ax.plot(t, [r["tiled_peak"] / MIB for r in rows], **{"color": plots.COLORS[0], "marker": "s",
                                                         "linewidth": 2, "label": i18n.t("efficient_lab.tiled"),
                                                         **kwargs})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(t, [f"{int(x):,}" for x in t])
    ax.minorticks_off()
    plots.style_axes(ax, i18n.t("efficient_lab.length"), i18n.t("efficient_lab.peak_mib"),
                     legend={"fontsize": plots.FONT["tick"] - 2, "loc": "upper left"})
    return ax


def plot_accuracy_by_position(depths, accuracy: dict, ax=None, *, chance: float | None = None, **kwargs):
    """Task accuracy against the needle's depth: accuracy maps (method, T) -> (len(depths),) values.

    The depths are categories, not a scale (0%, 10%, 25%, ... are unevenly spaced), so each curve is a
    row of markers, not a line; the curves of one depth sit side by side (dodged) so that equal values
    (full attention at 1.00 for every T) stay visible instead of hiding each other. One colour per
    method, one marker per T; chance draws 1 / n_classes dashed, named in the legend.
    kwargs go to `ax.plot`. Returns the Axes.
    """
    depths = as_float_array(depths, "depths", ndim=1)
    if not accuracy:
        raise ValueError("accuracy: expected at least one (method, T) curve, got none")
    ax = plots.new_axes(ax, (9.0, 3.8))
    lengths = sorted({t for _, t in accuracy})
    markers = "osD^v"
    x = np.arange(depths.size)
    width = 0.84 / len(accuracy)                                   # each depth's slot is split between the curves
    order = sorted(accuracy, key=lambda mt: (METHODS.index(mt[0]) if mt[0] in METHODS else len(METHODS), mt[1]))
    for n_curve, (method, t) in enumerate(order):                   # one method's curves side by side
        values = accuracy[(method, t)]
        n = lengths.index(t)
        color = plots.COLORS[METHODS.index(method) if method in METHODS else 2]
        offset = (n_curve - (len(accuracy) - 1) / 2) * width
        ax.plot(x + offset, as_float_array(values, "accuracy", ndim=1), **{
            "color": color, "marker": markers[n % len(markers)], "linestyle": "none", "markersize": 5.5,
            "label": i18n.t("efficient_lab.curve", method=i18n.t(METHOD_LABELS[method]), t=f"{t:,}"),
            **kwargs})
    if chance is not None:
        plots.reference_line(ax, y=chance)
        ax.plot([], [], color="#777777", linestyle="--", label=i18n.t("efficient_lab.chance", p=f"{chance:.2f}"))
    for boundary in x[:-1] + 0.5:                                  # thin separators between the categories
        ax.axvline(boundary, color="#eeeeee", linewidth=1, zorder=0)
    ax.set_xticks(x, [f"{100 * v:g}%" for v in depths])
    ax.set_xlim(-0.5, depths.size - 0.5)
    ax.set_ylim(-0.04, 1.08)
    legend = {"fontsize": plots.FONT["tick"] - 3, "loc": "center left", "bbox_to_anchor": (1.01, 0.5)}
    plots.style_axes(ax, i18n.t("efficient_lab.depth"), i18n.t("efficient_lab.accuracy"), legend=legend, grid="y")
    return ax
