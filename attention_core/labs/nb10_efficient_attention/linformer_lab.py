"""Linformer (notebook 10): project the keys and values along the sequence axis, from T rows to k, and attend
over the k projected rows. Wang et al., 2020, "Linformer: Self-Attention with Linear Complexity".

    full attention:  softmax(Q K^T / sqrt(d)) V                 scores (T, T)
    Linformer:       softmax(Q (E K)^T / sqrt(d)) (F V)         scores (T, k),  E, F: (k, T)

Linformer learns E and F with the rest of the model. Here they are fixed: a dense random projection
(`random_projection`, Gaussian entries of variance 1/k, the textbook Johnson-Lindenstrauss map) or the
mean of k contiguous segments (`segment_projection`), so that the lesson is the shape of the idea and what
it costs, not training. The scores are (T, k): memory O(T k) instead of O(T^2), and time O(T k d).

Where it breaks: a projected row r = sum_j E[r, j] k_j mixes tokens from the whole sequence, future ones
included, so "key position j <= query position i" no longer has a j to ask about; a causal mask cannot be
applied after the projection (`causal_attempts` measures the two ways one might try).
Shapes: q (Tq, Dk), k (T, Dk), v (T, Dv), e and f (k, T).
"""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.core.tiled import tiled_attention
from attention_core.core.validation import as_float_array, as_generator, checked, describe, positive_int
from attention_core.labs.nb04_masking.masking_lab import influence_matrix
from attention_core.labs.nb10_efficient_attention.efficient_lab import sliding_window_attention
from attention_core.labs.nb10_efficient_attention.linear_lab import linear_attention
from attention_core.teaching import i18n, plots
from attention_core.teaching.measure import traced_peak

PROJECTIONS = ("random", "segments")
PROJECTION_LABELS = {"random": "linformer.random", "segments": "linformer.segments"}     # i18n keys
# the methods of the memory comparison, in the order of the table: i18n keys of their names
MEMORY_METHODS = {"naive": "linformer.method_naive", "tiled": "linformer.method_tiled",
                  "window": "linformer.method_window", "linear": "linformer.method_linear",
                  "linformer": "linformer.method_linformer"}
MIB = 1 << 20


def _check_rows(t, k_rows) -> tuple[int, int]:
    t, k_rows = positive_int(t, "t"), positive_int(k_rows, "k")
    if k_rows > t:
        raise ValueError(f"k: the projection keeps at most T = {t} rows, got k = {k_rows}")
    return t, k_rows


def random_projection(t: int, k: int, *, seed=0, dtype="float64") -> np.ndarray:
    """(k, T) dense Gaussian projection, entries N(0, 1/k): E^T E is the identity on average."""
    t, k = _check_rows(t, k)
    return (as_generator(seed).standard_normal((k, t)) / np.sqrt(k)).astype(dtype)


def segment_projection(t: int, k: int, *, dtype="float64") -> np.ndarray:
    """(k, T): row r is the mean of the r-th of k contiguous segments of the sequence (sizes differ by
    at most 1). At k = T it is the identity, so Linformer with it is exactly full attention."""
    t, k = _check_rows(t, k)
    e = np.zeros((k, t), dtype=dtype)
    for r, idx in enumerate(np.array_split(np.arange(t), k)):
        e[r, idx] = 1.0 / idx.size
    return e


def projection(kind: str, t: int, k: int, *, seed=0, dtype="float64") -> np.ndarray:
    """The (k, T) projection of one kind: "random" or "segments"."""
    if kind not in PROJECTIONS:
        raise ValueError(f"kind: expected one of {PROJECTIONS}, got {describe(kind)}")
    return random_projection(t, k, seed=seed, dtype=dtype) if kind == "random" else \
        segment_projection(t, k, dtype=dtype)


def linformer_inputs(q, k, v, e, f=None, need_weights: bool = False) -> dict:
    """linformer_attention's arguments, checked; f defaults to e (Linformer's shared projection)."""
    q = as_float_array(q, "q", ndim=2)
    k, v = as_float_array(k, "k", ndim=2), as_float_array(v, "v", ndim=2)
    e = as_float_array(e, "e", ndim=2)
    f = e if f is None else as_float_array(f, "f", ndim=2)
    for name, p in (("e", e), ("f", f)):
        if p.shape[1] != k.shape[0]:
            raise ValueError(f"{name}: expected shape (k, T = {k.shape[0]}) to project the {k.shape[0]} keys "
                             f"along the sequence, got {p.shape}")
    if e.shape[0] != f.shape[0]:
        raise ValueError(f"f: expected as many rows as e ({e.shape[0]}), got {f.shape}")
    return dict(q=q, k=k, v=v, e=e, f=f, need_weights=need_weights)


@checked(linformer_inputs)
def linformer_attention(q, k, v, e, f=None, *, need_weights: bool = False):
    """softmax(Q (E K)^T / sqrt(Dk)) (F V): q (Tq, Dk), k (T, Dk), v (T, Dv), e and f (k, T) (f defaults
    to e, Linformer's shared projection). Returns the output (Tq, Dv), and the (Tq, k) weights too when
    need_weights. The largest intermediate is (Tq, k), never (Tq, T)."""
    k_proj, v_proj = e @ k, f @ v                                   # (k, Dk), (k, Dv)
    out, weights = scaled_dot_product_attention(q, k_proj, v_proj)  # (Tq, Dv), (Tq, k)
    return (out, weights) if need_weights else out


def smooth_inputs(t: int, d: int = 32, *, width: int = 32, seed=0) -> tuple:
    """q, k, v (T, d), each a moving average of `width` seeded Gaussian vectors along the sequence
    (scaled back to unit variance): neighbouring tokens are alike, so the (T, T) weights are close to
    low rank, the property Linformer relies on. A stand-in for text, whose nearby tokens share a topic."""
    t, d, width = positive_int(t, "t"), positive_int(d, "d"), positive_int(width, "width")
    rng = as_generator(seed)
    out = []
    for _ in range(3):
        x = rng.standard_normal((t + width - 1, d))
        c = np.cumsum(np.vstack([np.zeros((1, d)), x]), axis=0)         # (T + width, d) running sums
        out.append((c[width:] - c[:-width]) / np.sqrt(width))          # (T, d) moving sums / sqrt(width)
    return tuple(out)


def relative_error(approx, exact) -> float:
    """||approx - exact|| / ||exact|| (Frobenius): 0 = the same output, 1 = as far as outputting zeros."""
    approx, exact = as_float_array(approx, "approx"), as_float_array(exact, "exact")
    if approx.shape != exact.shape:
        raise ValueError(f"approx: expected shape {exact.shape}, got {approx.shape}")
    return float(np.linalg.norm(approx - exact) / np.linalg.norm(exact))


def error_vs_k(q, k, v, ks, *, kinds=PROJECTIONS, seed=0) -> list[dict]:
    """Distance of Linformer's output from full attention's for each number of projected rows k.
    Returns one row per k: {"k": k, kind: relative_error, ...} for each projection kind."""
    full, _ = scaled_dot_product_attention(q, k, v)                 # (T, Dv), the exact output
    t = np.shape(k)[0]
    rows = []
    for k_rows in ks:
        row = {"k": positive_int(k_rows, "ks")}
        for kind in kinds:
            e = projection(kind, t, row["k"], seed=seed)
            row[kind] = relative_error(linformer_attention(q, k, v, e), full)
        rows.append(row)
    return rows


def weight_rank(q, k, energy: float = 0.9) -> int:
    """How many singular values of the (T, T) softmax weights hold `energy` of their squared sum: the rank
    a projection to k rows has to capture."""
    if isinstance(energy, bool) or not isinstance(energy, (int, float, np.integer, np.floating)) or not 0 < energy <= 1:
        raise ValueError(f"energy: expected a share in (0, 1], got {energy!r}")
    _, w = scaled_dot_product_attention(q, k, k)
    s2 = np.linalg.svd(w, compute_uv=False) ** 2
    return int(np.searchsorted(np.cumsum(s2) / s2.sum(), energy) + 1)


# --- memory beside the other methods -----------------------------------------------------------------------
def memory_comparison(lengths, d: int = 32, *, k: int = 256, window: int = 256, seed=0, dtype="float32",
                      naive_limit_bytes: int = 256 * MIB) -> list[dict]:
    """Peak memory (tracemalloc, bytes) of one self-attention call at each length T, per method:
    naive (the (T, T) weights returned; None where naive_bytes > naive_limit_bytes), tiled (online
    softmax), window (the band |i - j| < window), linear (feature map) and linformer (k projected
    rows; its (k, T) projection is made before the call, like the inputs). One row per T."""
    dtype = np.dtype(dtype)
    rows = []
    for t in lengths:
        t = positive_int(t, "lengths")
        rng = as_generator(seed)
        q, kk, v = (rng.standard_normal((t, d)).astype(dtype) for _ in range(3))   # (T, D)
        e = segment_projection(t, min(k, t), dtype=dtype)                         # (k, T)
        naive = (t * t + t * d) * dtype.itemsize
        runs = {"naive": (scaled_dot_product_attention, ()) if naive <= naive_limit_bytes else None,
                "tiled": (tiled_attention, ()), "window": (sliding_window_attention, (window,)),
                "linear": (linear_attention, ()), "linformer": (linformer_attention, (e,))}
        row = {"T": t, "naive_analytic": naive}
        for method, run in runs.items():
            row[method] = None if run is None else traced_peak(run[0], q, kk, v, *run[1])[1]
        rows.append(row)
    return rows


def plot_memory_comparison(rows, ax=None, **kwargs):
    """Peak memory (MiB) against T on log-log axes, one line per method of `memory_comparison`
    (the naive analytic count dashed where it was not run). kwargs go to `ax.plot`. Returns the Axes."""
    if not rows:
        raise ValueError("rows: expected at least one row from memory_comparison, got none")
    ax = plots.new_axes(ax, (7.0, 4.0))
    t = np.array([r["T"] for r in rows], dtype=float)
    analytic = {"color": plots.COLORS[1], "linestyle": "--", "linewidth": 1.2,
                "label": i18n.t("linformer.naive_analytic"), **kwargs}
    ax.plot(t, [r["naive_analytic"] / MIB for r in rows], **analytic)
    markers = {"naive": "o", "tiled": "s", "window": "^", "linear": "v", "linformer": "D"}
    colors = {"naive": plots.COLORS[1], "tiled": plots.COLORS[0], "window": plots.COLORS[2],
              "linear": plots.COLORS[3], "linformer": plots.COLORS[4]}
    for method, key in MEMORY_METHODS.items():
        points = [(r["T"], r[method] / MIB) for r in rows if r[method] is not None]
        if points:
            x, y = zip(*points)
            ax.plot(x, y, **{"color": colors[method], "marker": markers[method], "linewidth": 2,
                             "markersize": 6, "label": i18n.t(key), **kwargs})
    return _log_log_axes(ax, t, "efficient_lab.length", "efficient_lab.peak_mib")


def plot_error_vs_k(rows: dict, ax=None, **kwargs):
    """Relative distance from full attention against k: rows maps a name (an input kind) to the list of
    `error_vs_k`; one line per (name, projection), errors below 1e-3 (an exact 0) drawn at 1e-3 and marked.
    kwargs go to `ax.plot`. Returns the Axes."""
    if not rows:
        raise ValueError("rows: expected {name: error_vs_k rows}, got none")
    ax = plots.new_axes(ax, (6.4, 3.8))
    styles = ("-", "--", ":")
    floor = 1e-3                                                   # an exact 0 (segments at k = T) is drawn here
    for n_input, (name, table) in enumerate(rows.items()):
        ks = [r["k"] for r in table]
        for n_kind, kind in enumerate(PROJECTIONS):
            if kind in table[0]:
                ax.plot(ks, [max(r[kind], floor) for r in table], **{
                    "color": plots.COLORS[n_kind], "linestyle": styles[n_input % 3], "marker": "os"[n_kind],
                    "label": f"{i18n.t(PROJECTION_LABELS[kind])}, {name}", **kwargs})
                for r in table:
                    if r[kind] < floor:
                        ax.annotate(i18n.t("linformer.exact"), (r["k"], floor), textcoords="offset points",
                                    xytext=(-6, 6), ha="right", fontsize=plots.FONT["tick"] - 2,
                                    color=plots.NOTE_COLOR)
    ax.set_ylim(bottom=floor / 2)
    plots.reference_line(ax, y=1.0)
    return _log_log_axes(ax, ks, "linformer.k_axis", "linformer.error_axis")


def _log_log_axes(ax, ticks, x_key: str, y_key: str):
    """The two plots' axes: log base 2 along x, ticked at `ticks` (with thousands separators), log along y,
    labelled by the i18n keys, the legend outside on the right. Returns the Axes."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ticks, [f"{int(x):,}" for x in ticks])
    ax.minorticks_off()
    plots.style_axes(ax, i18n.t(x_key), i18n.t(y_key),
                     legend={"fontsize": plots.FONT["tick"] - 3, "loc": "center left", "bbox_to_anchor": (1.01, 0.5)})
    return ax


# --- where it breaks: the causal mask ------------------------------------------------------------------------
def mixed_positions(e, tol: float = 0.0) -> list[np.ndarray]:
    """For each projected row r of e (k, T): the token positions j it mixes (|E[r, j]| > tol)."""
    e = as_float_array(e, "e", ndim=2)
    return [np.flatnonzero(np.abs(row) > tol) for row in e]


def causal_attempts(x, k: int, *, seed=0) -> dict:
    """Try to make segment-projected Linformer causal, and measure how much each output sees later tokens.

    x (T, D) is the sequence; q = k = v = x (one layer without weights, enough to see what depends on
    what). The (k, T) segment projection gives k rows, each the mean of a segment [a_r, b_r]. Two
    masks on the (T, k) scores are possible: "starts" lets query i see the rows with a_r <= i (its own
    segment included, and with it the later tokens of that segment), "ends" only rows with b_r <= i
    (nothing from the future, but then the query cannot see itself or the rest of its segment, and the
    first queries see nothing). Returns influence matrices [t, s] (`masking_lab.influence_matrix`) of
    "causal" (full attention with the causal mask), "starts" and "ends", the largest change of an output
    when a later token is replaced ("leak_*"), and for "ends" the queries that see no row at all."""
    x = as_float_array(x, "x", ndim=2)
    t = x.shape[0]
    e = segment_projection(t, k)
    segments = mixed_positions(e)
    starts = np.array([s[0] for s in segments])                     # (k,) a_r
    ends = np.array([s[-1] for s in segments])                      # (k,) b_r
    i = np.arange(t)[:, None]
    masks = {"starts": starts[None, :] <= i, "ends": ends[None, :] <= i}     # (T, k) each

    def projected(mask):
        return lambda y: scaled_dot_product_attention(y, e @ y, e @ y, mask=mask, need_weights=False)[0]

    runs = {"causal": lambda y: scaled_dot_product_attention(y, y, y, mask=causal_mask(t), need_weights=False)[0],
            "starts": projected(masks["starts"]), "ends": projected(masks["ends"])}
    future = np.triu(np.ones((t, t), dtype=bool), 1)                # [t, s] with s > t
    out = {"masks": masks, "segments": segments}
    for name, run in runs.items():
        table = influence_matrix(run, x, seed=seed)
        out[name] = table
        out["leak_" + name] = float(table[future].max())
    out["blind_ends"] = np.flatnonzero(~masks["ends"].any(axis=1))
    return out
