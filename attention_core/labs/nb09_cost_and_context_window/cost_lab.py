"""Experiments of notebook 09 (cost and the context window): n^2 pairs, FLOPs and bytes, measured time and memory,
lost in the middle.

Attention itself lives in `attention_core.core.attention`; this module counts what it costs and measures it.

    pair_count(1000)                                  # 1,000,000 query-key pairs for 1K tokens
    attention_cost(4096, d_model=4096, n_heads=32)    # pairs, score-matrix bytes, FLOPs vs the linear parts
    measure_attention(2048, d_k=64)                   # seconds and tracemalloc peak bytes of one real call
    planted_key_weights(256, bias=toy_position_bias(256))   # weight on a matching key at every position

FLOPs count a multiply-add as 2. Per layer, with model width D, H heads of width Dh = D / H, and an
FFN of width d_ff (4 D unless given), for T tokens:
    scores  Q K^T      H * 2 T^2 Dh = 2 T^2 D      |  projections Q, K, V, O   4 * 2 T D^2 = 8 T D^2
    mixing  weights V  H * 2 T^2 Dh = 2 T^2 D      |  FFN (two matrices)       2 * 2 T D d_ff = 16 T D^2
so attention's T^2 part is 4 T^2 D against 24 T D^2 of linear work: they are equal at T = 6 D.
A naive implementation holds the weights of all H heads of a layer at once: H * T^2 numbers.

Everything is a pure function of its inputs (randomness only from a seed you pass); the plot helpers
take `ax=`, return it and never call `show()`.
"""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import attention_scores, scaled_dot_product_attention
from attention_core.core.softmax import softmax
from attention_core.core.validation import (
    as_float_array,
    as_generator,
    check_flag,
    describe,
    positive_float,
    positive_int,
    real_number,
)
from attention_core.teaching import i18n, plots
from attention_core.teaching.measure import best_time, blas_threads, traced_peak

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}
# i18n keys of a measured quantity: (its line label, its axis title)
MEASURED_LABELS = {"seconds": ("cost_lab.measured_seconds", "cost_lab.axis_seconds"),
                   "peak_bytes": ("cost_lab.measured_peak_bytes", "cost_lab.axis_peak_bytes")}
GPU_BYTES = 80 * 2 ** 30          # the memory of one large data-centre GPU (80 GiB), a reference line
# context lengths, as usually said
N_TICKS = {2 ** 7: "128", 2 ** 10: "1K", 2 ** 13: "8K", 2 ** 17: "128K", 2 ** 20: "1M"}


# --- counting ---------------------------------------------------------------------------------------
def pair_count(n_tokens) -> int:
    """Query-key pairs one attention head scores over n_tokens tokens: n * n (an exact int)."""
    n = positive_int(n_tokens, "n_tokens")
    return n * n


def _itemsize(dtype) -> int:
    if isinstance(dtype, str) and dtype in DTYPE_BYTES:
        return DTYPE_BYTES[dtype]
    try:
        return np.dtype(dtype).itemsize
    except TypeError:
        raise ValueError(f"dtype: expected one of {tuple(DTYPE_BYTES)} or a NumPy dtype, "
                         f"got {describe(dtype)}") from None


def attention_cost(n_tokens, d_model, n_heads: int = 1, n_layers: int = 1, dtype="float32", d_ff=None) -> dict:
    """What one forward pass over n_tokens tokens costs, attention's n^2 part next to the linear parts.

    Returns a dict of exact integers (and two ratios):
      pairs_per_head   n^2 query-key pairs one head scores in one layer
      pairs            n^2 * H * L, every head of every layer
      score_bytes      H * n^2 * itemsize: one layer's weights (B=1) in a naive implementation
      all_layers_bytes L * score_bytes: what training keeps for the backward pass (naive)
      attention_flops  4 n^2 D * L   (Q K^T and weights @ V, all heads; independent of H)
      linear_flops     (8 n D^2 + 4 n D d_ff) * L   (Q, K, V, O projections and the FFN)
      quadratic_share  attention_flops / (attention_flops + linear_flops)
      crossover        the n where the two are equal: 2 D + d_ff (6 D for d_ff = 4 D)
    """
    n = positive_int(n_tokens, "n_tokens")
    d = positive_int(d_model, "d_model")
    h = positive_int(n_heads, "n_heads")
    layers = positive_int(n_layers, "n_layers")
    ff = 4 * d if d_ff is None else positive_int(d_ff, "d_ff")
    if d % h:
        raise ValueError(f"n_heads: expected a divisor of d_model = {d} (each head gets d_model / n_heads "
                         f"dimensions), got {h}")
    item = _itemsize(dtype)
    attention = 4 * n * n * d * layers
    linear = (8 * n * d * d + 4 * n * d * ff) * layers
    return {"n_tokens": n, "d_model": d, "n_heads": h, "n_layers": layers, "d_head": d // h, "d_ff": ff,
            "itemsize": item, "pairs_per_head": n * n, "pairs": n * n * h * layers,
            "score_bytes": h * n * n * item, "all_layers_bytes": layers * h * n * n * item,
            "attention_flops": attention, "linear_flops": linear,
            "quadratic_share": attention / (attention + linear), "crossover": 2 * d + ff}


def cost_curves(n_values, d_model, n_heads: int = 1, n_layers: int = 1, dtype="float32", d_ff=None) -> dict:
    """`attention_cost` along many context lengths (whole numbers of tokens >= 1): {key: (N,) float array} for
    plotting."""
    if isinstance(n_values, (str, bytes)) or n_values is None:
        raise TypeError(f"n_values: expected context lengths, whole numbers of tokens >= 1, got {describe(n_values)}")
    arr = np.asarray(n_values)
    if arr.dtype.kind not in "iuf" or arr.size == 0:
        raise TypeError(f"n_values: expected context lengths, whole numbers of tokens >= 1, got {describe(n_values)}")
    arr = arr.ravel()
    whole = np.isfinite(arr) & (arr == np.floor(arr)) if arr.dtype.kind == "f" else np.ones(arr.shape, dtype=bool)
    if not whole.all():
        raise ValueError(f"n_values: expected whole numbers of tokens, got {float(arr[~whole][0])!r} "
                         f"(a context holds a whole number of tokens: round it first)")
    n_values = [positive_int(int(n), "n_values") for n in arr]
    rows = [attention_cost(n, d_model, n_heads, n_layers, dtype, d_ff) for n in n_values]
    keys = ("pairs_per_head", "score_bytes", "attention_flops", "linear_flops", "quadratic_share")
    return {"n": np.array(n_values, dtype=float), **{k: np.array([r[k] for r in rows], dtype=float) for k in keys}}


_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K"))
_BINARY = ((2 ** 50, "PiB"), (2 ** 40, "TiB"), (2 ** 30, "GiB"), (2 ** 20, "MiB"), (2 ** 10, "KiB"))


def _with_prefix(x, prefixes, digits: int, plain_unit: str) -> str:
    """x in the largest unit of `prefixes` ((base, unit), largest first) it reaches, else plain."""
    x = float(x)
    for base, unit in prefixes:
        if abs(x) >= base:
            return f"{x / base:.{digits}f} {unit}"
    return f"{x:.0f}{plain_unit}"


_ZH_UNITS = ((1e12, "万亿"), (1e8, "亿"), (1e4, "万"))     # Chinese counts in myriads, not thousands
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def format_count(x, digits: int = 1, lang: str | None = None) -> str:
    """A count for reading, in the edition's language (default: the one set with i18n.set_language).

    en, decimal prefixes: 1_048_576 -> '1.0 M', 1e10 -> '10.0 G', 512 -> '512'.
    zh, the units Chinese counts in: 1_048_576 -> '104.9 万', 1e10 -> '100.0 亿', 1.02e13 -> '10.2 万亿';
    from 1e15 (a thousand 万亿) on, powers of ten: 5.2e15 -> '5.2×10¹⁵'.
    """
    x = float(real_number(x, "x"))
    if i18n.resolve_language(lang) != "zh":
        return _with_prefix(x, _SI, digits, "")
    if abs(x) >= 1e15:
        exponent = int(np.floor(np.log10(abs(x))))
        return f"{x / 10 ** exponent:.{digits}f}×10" + str(exponent).translate(_SUPERSCRIPT)
    return _with_prefix(x, _ZH_UNITS, digits, "")


def format_bytes(n_bytes, digits: int = 1) -> str:
    """Bytes with binary prefixes: 4 * 2**20 -> '4.0 MiB'; below 1 KiB, plain bytes ('512 B')."""
    return _with_prefix(real_number(n_bytes, "n_bytes"), _BINARY, digits, " B")


# --- measuring ----------------------------------------------------------------------------------------
def peak_bytes(fn, *args, **kwargs) -> int:
    """Peak bytes Python and NumPy allocate while fn(*args, **kwargs) runs (tracemalloc).

    Only allocations made during the call count (the inputs already exist). NumPy reports its
    array buffers to tracemalloc, so the big (Tq, Tk) weights show up; BLAS scratch space does not.
    Deterministic for a given shape, unlike time.
    """
    return int(traced_peak(fn, *args, **kwargs)[1])


def random_qkv(n_tokens, d_k: int = 64, *, seed=0, dtype=np.float32):
    """Three (T, Dk) arrays of standard normal numbers: q, k, v for a timing run."""
    n, d = positive_int(n_tokens, "n_tokens"), positive_int(d_k, "d_k")
    rng = as_generator(seed)
    x = rng.standard_normal(size=(3, n, d), dtype=np.float64).astype(dtype)   # (3, T, Dk)
    return x[0], x[1], x[2]


def measure_attention(n_tokens, d_k: int = 64, *, need_weights: bool = True, repeats: int = 3, seed=0,
                      dtype=np.float32, timing: bool = True, threads: int | None = 1) -> dict:
    """Run `scaled_dot_product_attention` on random (T, Dk) inputs; measure its time and peak memory.

    need_weights=True returns the (T, T) weights, as a naive implementation materialises them;
    need_weights=False lets the library work through blocks of query rows and keep only one block.
    Returns {"n_tokens", "seconds" (best of repeats; None when timing=False), "peak_bytes"
    (tracemalloc), "weights_bytes" (T^2 * itemsize, the analytic size of one weight matrix)}.
    threads: BLAS threads while timing. One thread gives steady ratios on a shared machine (several
    threads fighting for busy cores can make a small call a hundred times slower); None leaves BLAS as it is.
    """
    need_weights = check_flag(need_weights, "need_weights")
    timing = check_flag(timing, "timing")
    q, k, v = random_qkv(n_tokens, d_k, seed=seed, dtype=dtype)
    run = lambda: scaled_dot_product_attention(q, k, v, need_weights=need_weights)   # noqa: E731
    # tracemalloc sees every thread: in a kernel, its I/O threads add a few kilobytes now and then. The least
    # of three peaks is the call's own, the same on every run.
    peak = min(peak_bytes(run) for _ in range(3))
    seconds = None
    if timing:
        with blas_threads(threads):
            seconds = best_time(run, repeats=repeats)
    return {"n_tokens": int(n_tokens), "d_k": int(d_k), "need_weights": bool(need_weights), "seconds": seconds,
            "peak_bytes": peak, "weights_bytes": int(n_tokens) ** 2 * np.dtype(dtype).itemsize}


def measure_sweep(n_values, d_k: int = 64, **kwargs) -> list:
    """`measure_attention` for each n in n_values (kwargs go to it); a list of dicts."""
    return [measure_attention(int(n), d_k, **kwargs) for n in n_values]


def growth_ratios(values) -> np.ndarray:
    """values[i + 1] / values[i]: how much a measured quantity grows from one n to the next."""
    values = as_float_array(values, "values", ndim=1)
    if values.size < 2:
        raise ValueError(f"values: expected at least 2 measurements, got {values.size}")
    if (values <= 0).any():
        raise ValueError("values: expected positive measurements")
    return values[1:] / values[:-1]


def loglog_slope(n_values, values) -> float:
    """The slope of log(values) against log(n) (least squares): 2 means values grow like n^2."""
    n = as_float_array(n_values, "n_values", ndim=1)
    y = as_float_array(values, "values", ndim=1)
    if n.size != y.size or n.size < 2:
        raise ValueError(f"n_values and values: expected the same length >= 2, got {n.size} and {y.size}")
    if (n <= 0).any() or (y <= 0).any():
        raise ValueError("n_values and values: expected positive numbers (a log-log fit)")
    return float(np.polyfit(np.log(n), np.log(y), 1)[0])


# --- lost in the middle: dilution vs a position effect --------------------------------------------------
def planted_key_weights(n_tokens, positions=None, *, d_k: int = 16, bias=None, seed=0) -> np.ndarray:
    """The weight one query gives a key that matches it, planted at each position among n - 1 distractors.

    The query q and the n - 1 distractor keys are random normal (seeded); the planted key equals q
    (so its score q.q/sqrt(Dk) is high). The distractors keep their order; only the planted key
    moves, so with content-only scores (bias None) every position must give the same weight: the
    keys are the same set, and attention does not see where a key sits. bias (Tk,) is added to the
    scores before softmax (a position-dependent pattern). positions: which positions to try
    (default: all). Returns (len(positions),) weights on the planted key.
    """
    n = positive_int(n_tokens, "n_tokens")
    if n < 2:
        raise ValueError(f"n_tokens: expected at least 2 (a planted key and a distractor), got {n}")
    d = positive_int(d_k, "d_k")
    positions = np.arange(n) if positions is None else np.asarray(positions)
    if positions.ndim != 1 or positions.dtype.kind not in "iu" or (positions < 0).any() or (positions >= n).any():
        raise ValueError(f"positions: expected integer positions in 0..{n - 1}, got {describe(positions)}")
    if bias is not None:
        bias = as_float_array(bias, "bias", ndim=1)
        if bias.size != n:
            raise ValueError(f"bias: expected one number per key position ({n}), got {bias.size}")
    rng = as_generator(seed)
    q = rng.normal(size=(1, d))                                               # (1, Dk)
    distractors = rng.normal(size=(n - 1, d))                                 # (Tk - 1, Dk)
    out = np.empty(positions.size)
    for i, p in enumerate(positions):
        keys = np.insert(distractors, int(p), q[0], axis=0)                   # (Tk, Dk): the match at p
        scores = attention_scores(q, keys)[0]                                 # (Tk,) = keys @ q / sqrt(Dk)
        out[i] = softmax(scores if bias is None else scores + bias)[p]
    return out


def toy_position_bias(n_tokens, *, start: float = 3.0, start_decay: float = 16.0, recent: float = 3.0,
                      recent_decay: float = 32.0) -> np.ndarray:
    """A TOY position pattern (Tk,) for a query that stands after the last key (a question at the end).

    start * exp(-j / start_decay) pulls weight to the first keys (like an "attention sink"), and
    recent * exp(-(T - 1 - j) / recent_decay) to the last ones (a recency bias). An illustration
    of how a position-dependent pattern shapes weights, not a model of any real LLM.
    """
    n = positive_int(n_tokens, "n_tokens")
    for value, name in ((start, "start"), (recent, "recent")):
        if real_number(value, name) < 0:
            raise ValueError(f"{name}: expected a number >= 0, got {describe(value)}")
    j = np.arange(n)
    return (start * np.exp(-j / positive_float(start_decay, "start_decay"))
            + recent * np.exp(-(n - 1 - j) / positive_float(recent_decay, "recent_decay")))


# --- figures ------------------------------------------------------------------------------------------
def _log_axes(ax, xlabel: str, ylabel: str):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plots.style_axes(ax, xlabel, ylabel)


def plot_flops(d_model, n_values=None, ax=None, *, d_ff=None, mark=None, **kwargs):
    """FLOPs of one layer against n (log-log): attention's 4 n^2 D line and the 24 n D^2 of the linear parts.

    The crossover n = 6 D (2 D + d_ff) is marked; mark=n adds a vertical line at a chosen length.
    kwargs go to the `ax.plot` of the attention line. Returns the Axes."""
    n_values = 2.0 ** np.arange(7, 21) if n_values is None else n_values
    c = cost_curves(n_values, d_model, d_ff=d_ff)
    ax = plots.new_axes(ax, (6.4, 4.0))
    ax.plot(c["n"], c["attention_flops"], **{"color": plots.COLORS[1], "linewidth": 2.5,
                                             "label": i18n.t("cost_lab.quadratic"), **kwargs})
    ax.plot(c["n"], c["linear_flops"], color=plots.COLORS[0], linewidth=2.5, label=i18n.t("cost_lab.linear"))
    cross = attention_cost(1, d_model, d_ff=d_ff)["crossover"]
    ax.axvline(cross, color="#777777", linestyle="--", linewidth=1)
    ax.text(cross, 0.03, i18n.t("cost_lab.crossover", n=cross), transform=ax.get_xaxis_transform(), rotation=90,
            va="bottom", ha="right", fontsize=plots.FONT["tick"] - 1, color=plots.NOTE_COLOR)
    if mark is not None:
        ax.axvline(mark, color=plots.COLORS[2], linewidth=1.5, label=i18n.t("cost_lab.mark", n=int(mark)))
    _log_axes(ax, i18n.t("cost_lab.tokens"), i18n.t("cost_lab.flops_layer"))
    ticks = {t: label for t, label in N_TICKS.items() if c["n"][0] <= t <= c["n"][-1]}
    ax.set_xticks(list(ticks), list(ticks.values()))
    ax.set_title(i18n.t("cost_lab.flops_title", d=d_model), fontsize=plots.FONT["title"])
    ax.legend(fontsize=plots.FONT["tick"] - 1, loc="upper left")
    return ax


def plot_measured(rows, key: str = "seconds", ax=None, *, label=None, reference: bool = True, **kwargs):
    """A measured quantity ("seconds" or "peak_bytes" of `measure_sweep` rows) against n, log-log,
    with a dashed n^2 line through the last point for reference. kwargs go to `ax.plot`. Returns the Axes."""
    reference = check_flag(reference, "reference")
    if key not in ("seconds", "peak_bytes"):
        raise ValueError(f"key: expected 'seconds' or 'peak_bytes', got {describe(key)}")
    if not rows or any(r.get(key) is None for r in rows):
        raise ValueError(f"rows: expected the non-empty list of measure_sweep, each with a {key!r} value")
    n = np.array([r["n_tokens"] for r in rows], dtype=float)
    y = np.array([r[key] for r in rows], dtype=float)
    if key == "peak_bytes":
        y = y / 2 ** 20
    ax = plots.new_axes(ax, (5.2, 3.8))
    ax.plot(n, y, **{"marker": "o", "linewidth": 2, "color": plots.COLORS[0],
                     "label": label or i18n.t(MEASURED_LABELS[key][0]), **kwargs})
    if reference:
        ax.plot(n, y[-1] * (n / n[-1]) ** 2, color="#888888", linestyle="--", linewidth=1.2,
                label=i18n.t("cost_lab.n_squared"))
    _log_axes(ax, i18n.t("cost_lab.tokens"), i18n.t(MEASURED_LABELS[key][1]))
    ax.set_xticks(n, [f"{v:.0f}" for v in n])
    ax.minorticks_off()
    ax.legend(fontsize=plots.FONT["tick"] - 1, loc="upper left")
    return ax


def plot_position_weights(curves: dict, ax=None, **kwargs):
    """Weight on the planted key against its position, one line per setting ({label: (T,) weights}).

    kwargs go to every `ax.plot`. Returns the Axes."""
    if not curves:
        raise ValueError("curves: expected at least one {label: weights} entry")
    ax = plots.new_axes(ax, (7.0, 3.8))
    for c, (label, weights) in enumerate(curves.items()):
        weights = as_float_array(weights, "curves", ndim=1)
        ax.plot(np.arange(weights.size), weights, **{"linewidth": 2.2, "color": plots.COLORS[c % len(plots.COLORS)],
                                                      "label": label, **kwargs})
    ax.set_xlabel(i18n.t("cost_lab.position"), fontsize=plots.FONT["label"])
    ax.set_ylabel(i18n.t("cost_lab.weight_on_key"), fontsize=plots.FONT["label"])
    ax.set_ylim(bottom=0)
    plots.style_axes(ax, legend={"loc": "upper center"})
    return ax
