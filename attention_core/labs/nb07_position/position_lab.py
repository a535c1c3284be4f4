"""Experiments of notebook 07 (position): order blindness, the shift rotation of sinusoidal tables, RoPE offsets,
score biases.

The definitions live elsewhere: attention and heads in `attention`/`multihead`, the position tables and
RoPE in `positional`, masks in `masks`. This module only measures them, so a notebook can show each claim.
Everything is a pure function of its inputs (randomness only from a seed you pass); the plot helpers
take `ax=`, return it and never call `show()`.

    gap = equivariance_gap(layer, x, perm)          # max |layer(x)[perm] - layer(x[perm])|: ~1e-16
    M = sinusoidal_shift_matrix(D, k)               # PE[p + k] = M @ PE[p] for every p
    rope_score(q, k, m, n)                          # RoPE(q, m) . RoPE(k, n): a function of n - m only
"""
from __future__ import annotations

import numpy as np

from attention_core.core.masks import additive_mask, causal_mask, sliding_window_mask
from attention_core.core.positional import apply_rope, rope_frequencies
from attention_core.core.softmax import softmax
from attention_core.core.validation import (
    as_float_array,
    as_generator,
    check_flag,
    describe,
    positive_int,
    real_number,
)
from attention_core.teaching import i18n, plots


# --- order blindness ----------------------------------------------------------------------------------
def equivariance_gap(layer, x, perm) -> float:
    """max |layer(x)[perm] - layer(x[perm])| for a layer mapping (T, D) -> (T, D').

    0 (up to rounding, ~1e-16) means the layer is permutation-equivariant: shuffling the input
    rows only shuffles the output rows the same way, so the layer cannot tell one order from another.
    """
    x = as_float_array(x, "x", ndim=2)
    perm = _permutation(perm, len(x))
    return float(np.abs(np.asarray(layer(x))[perm] - np.asarray(layer(x[perm]))).max())


def _permutation(perm, n: int) -> np.ndarray:
    arr = np.asarray(perm)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or sorted(arr.tolist()) != list(range(n)):
        raise ValueError(f"perm: expected a permutation of 0..{n - 1}, got {describe(perm)}")
    return arr


# --- sinusoidal tables: a shift is a rotation -------------------------------------------------------
def sinusoidal_frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """(D/2,) angular speeds omega_i = base^(-2i/D) of the (sin, cos) pairs of `sinusoidal_encoding`."""
    d_model = positive_int(d_model, "d_model")
    if d_model % 2:
        raise ValueError(f"d_model: the (sin, cos) pairs need an even width, got {d_model}")
    return rope_frequencies(d_model, base)              # the same speeds RoPE rotates its pairs by


def sinusoidal_shift_matrix(d_model: int, k: float, base: float = 10000.0) -> np.ndarray:
    """(D, D) block-diagonal matrix M_k with PE[p + k] = M_k @ PE[p] for every position p.

    Each pair (sin(p w), cos(p w)) moves by the rotation [[cos kw, sin kw], [-sin kw, cos kw]]
    (the angle-addition formulas); M_k depends on the offset k only, never on p.
    """
    omega = sinusoidal_frequencies(d_model, base)                  # (D/2,)
    c, s = np.cos(k * omega), np.sin(k * omega)
    m = np.zeros((d_model, d_model))
    idx = np.arange(0, d_model, 2)
    m[idx, idx], m[idx, idx + 1] = c, s                            # new sin = sin*cos(kw) + cos*sin(kw)
    m[idx + 1, idx], m[idx + 1, idx + 1] = -s, c                   # new cos = cos*cos(kw) - sin*sin(kw)
    return m


def diagonal_spread(matrix) -> float:
    """Largest spread (max - min) along any diagonal of a square matrix.

    0 means the matrix is Toeplitz: entry (m, n) depends only on the offset n - m.
    """
    matrix = as_float_array(matrix, "matrix", ndim=2)
    t = matrix.shape[0]
    if matrix.shape != (t, t):
        raise ValueError(f"matrix: expected a square matrix, got shape {matrix.shape}")
    return float(max(np.ptp(np.diagonal(matrix, offset)) for offset in range(-t + 1, t)))


# --- RoPE: scores depend on the offset --------------------------------------------------------------
def rope_score(q, k, m: float, n: float, base: float = 10000.0) -> float:
    """RoPE(q at position m) . RoPE(k at position n) for two vectors q, k of width Dh (even)."""
    q = as_float_array(q, "q", ndim=1)
    k = as_float_array(k, "k", ndim=1)
    if q.shape != k.shape:
        raise ValueError(f"q, k: expected the same width, got {q.shape} and {k.shape}")
    rq = apply_rope(q[None, :], np.array([m], dtype=float), base)[0]
    rk = apply_rope(k[None, :], np.array([n], dtype=float), base)[0]
    return float(rq @ rk)


def rope_score_matrix(q, k, n_positions: int, base: float = 10000.0) -> np.ndarray:
    """(T, T) scores of the same q placed at every position m against the same k at every n."""
    t = positive_int(n_positions, "n_positions")
    q = as_float_array(q, "q", ndim=1)
    k = as_float_array(k, "k", ndim=1)
    rq = apply_rope(np.tile(q, (t, 1)), None, base)                # (T, Dh): q at 0..T-1
    rk = apply_rope(np.tile(k, (t, 1)), None, base)                # (T, Dh): k at 0..T-1
    return rq @ rk.T                                               # (T, T)


def rope_relative_score(q, k, offset: float, base: float = 10000.0) -> float:
    """q^T R(offset) k, the score as a function of offset = n - m alone (no absolute position)."""
    q = as_float_array(q, "q", ndim=1)
    k = as_float_array(k, "k", ndim=1)
    theta = rope_frequencies(q.size, base)                         # (Dh/2,)
    c, s = np.cos(offset * theta), np.sin(offset * theta)
    q0, q1, k0, k1 = q[0::2], q[1::2], k[0::2], k[1::2]
    return float(np.sum(c * (q0 * k0 + q1 * k1) + s * (q1 * k0 - q0 * k1)))


# --- what changes the scores before softmax ---------------------------------------------------------
def distance_bias(t_q: int, slope: float, t_k: int | None = None) -> np.ndarray:
    """(Tq, Tk) additive bias -slope * |i - j| (an ALiBi-like linear penalty on distance)."""
    t_q = positive_int(t_q, "t_q")
    t_k = t_q if t_k is None else positive_int(t_k, "t_k")
    slope = real_number(slope, "slope")
    if slope < 0:
        raise ValueError(f"slope: expected a number >= 0, got {describe(slope)}")
    farthest = max(t_q, t_k) - 1
    if slope * farthest > np.finfo(float).max:          # a bias of -inf would hide keys silently
        raise FloatingPointError(f"slope: {slope:.3g} × distance {farthest} is beyond the largest float64 number "
                                 f"({np.finfo(float).max:.3g}); use a smaller slope")
    return -slope * np.abs(np.arange(t_q)[:, None] - np.arange(t_k)[None, :]) + 0.0   # + 0.0: no -0


VARIANTS = ("content", "causal", "bias", "window", "causal_bias")
VARIANT_LABELS = {"content": "position_lab.variant_content", "causal": "position_lab.variant_causal",
                  "bias": "position_lab.variant_bias", "window": "position_lab.variant_window",
                  "causal_bias": "position_lab.variant_causal_bias"}          # i18n keys of the mechanisms


def variant_label(name: str, lang: str | None = None) -> str:
    """The name of one mechanism of `score_row_variants` ("content", "causal", ...) in `lang`."""
    if name not in VARIANT_LABELS:
        raise ValueError(f"name: expected one of {VARIANTS}, got {name!r}")
    return i18n.t(VARIANT_LABELS[name], lang)


def score_row_variants(scores, query: int, *, slope: float = 0.5, window: int = 3) -> dict:
    """One query's row of scores (Tk,) under each mechanism that acts before softmax.

    Returns {name: {"scores": adjusted (Tk,), with -inf where hidden, "weights": softmax (Tk,)}}
    for: content (as is), causal (keys j > query hidden), bias (-slope * |query - j| added),
    window (causal sliding window of `window` keys), causal_bias (causal + bias, as in ALiBi).
    """
    scores = as_float_array(scores, "scores", ndim=1)
    t = scores.size
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 0 <= query < t:
        raise ValueError(f"query: expected an integer in 0..{t - 1}, got {describe(query)}")
    bias = distance_bias(t, slope)[query]                                  # (Tk,)
    causal = causal_mask(t)[query]                                         # (Tk,) bool
    win = sliding_window_mask(t, positive_int(window, "window"))[query]    # (Tk,) bool
    setups = {"content": (np.zeros(t), None), "causal": (np.zeros(t), causal), "bias": (bias, None),
              "window": (np.zeros(t), win), "causal_bias": (bias, causal)}
    out = {}
    for name in VARIANTS:
        add, mask = setups[name]
        adjusted = scores + add + (0.0 if mask is None else additive_mask(mask))
        out[name] = {"scores": adjusted, "weights": softmax(scores + add, mask=mask)}
    return out


def weight_by_distance(n_positions: int, d_k: int, n_trials: int, *, seed=0, slope: float = 0.0,
                       window: int | None = None) -> np.ndarray:
    """Average weight a middle query gives to keys at distance 0, 1, ... (random q and keys).

    Queries and keys are i.i.d. standard normal (content unrelated to position). Without a bias
    or window every distance gets 1/T on average; slope > 0 adds -slope * |i - j|, window keeps
    the keys with |i - j| < window (on both sides). Returns (T // 2 + 1,) mean weights per distance,
    averaged over both sides.
    """
    t = positive_int(n_positions, "n_positions")
    d = positive_int(d_k, "d_k")
    trials = positive_int(n_trials, "n_trials")
    rng = as_generator(seed)
    mid = t // 2
    q = rng.normal(size=(trials, 1, d))                                    # (N, 1, Dk)
    k = rng.normal(size=(trials, t, d))                                    # (N, T, Dk)
    scores = (q @ np.swapaxes(k, -1, -2))[:, 0] / np.sqrt(d)               # (N, T)
    scores = scores + distance_bias(t, slope)[mid]
    mask = None if window is None else sliding_window_mask(t, window, causal=False)[mid]
    weights = softmax(scores, mask=mask).mean(axis=0)                      # (T,)
    dist = np.abs(np.arange(t) - mid)
    return np.array([weights[dist == r].mean() for r in range(mid + 1)])


# --- figures ------------------------------------------------------------------------------------------
def plot_pair_matrix(matrix, ax=None, *, title=None, colorbar: bool = True, query_key: bool = False, **kwargs):
    """Heatmap of a (T, T) matrix of pair values (row m, column n), signed colours centred on 0.

    Constant diagonals = the value depends only on the offset n - m. query_key: the rows are queries and the
    columns keys (a score matrix), said on the axes; a table's dot products with itself are positions only.
    kwargs go to `ax.imshow`. Returns the Axes.
    """
    colorbar = check_flag(colorbar, "colorbar")
    query_key = check_flag(query_key, "query_key")
    matrix = as_float_array(matrix, "matrix", ndim=2)
    bound = float(np.abs(matrix).max()) or 1.0
    ax = plots.new_axes(ax, (4.2, 3.6))
    im = ax.imshow(matrix, **{"cmap": plots.SIGNED_CMAP, "vmin": -bound, "vmax": bound,
                              "interpolation": "nearest", **kwargs})
    if query_key:
        xlabel, ylabel = i18n.t("position_lab.pos_n"), i18n.t("position_lab.pos_m")
    else:
        xlabel, ylabel = i18n.t("position_lab.pos_n_plain"), i18n.t("position_lab.pos_m_plain")
    plots.style_axes(ax, xlabel, ylabel,
                     tick_size=plots.FONT["tick"] - 1, grid=None)
    if title:
        ax.set_title(title, fontsize=plots.FONT["label"])
    if colorbar:
        cbar = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
        cbar.ax.tick_params(labelsize=plots.FONT["tick"] - 2)
    return ax


def plot_score_row(variants: dict, ax=None, *, query: int | None = None, names=None, **kwargs):
    """Grouped bars: the weights of one query row under each mechanism (from `score_row_variants`).

    Hidden keys (score -inf) get no bar and a grey "×". query marks the query's own key.
    kwargs go to `ax.bar`. Returns the Axes.
    """
    if not variants:
        raise ValueError("variants: expected at least one mechanism, got none")
    keys = list(variants)
    t = len(next(iter(variants.values()))["weights"])
    names = [str(j) for j in range(t)] if names is None else plots.tick_labels(names, t, "names", "key")
    ax = plots.new_axes(ax, (8.0, 3.6))
    width = 0.8 / len(keys)
    x = np.arange(t)
    for v, key in enumerate(keys):
        weights = np.asarray(variants[key]["weights"])
        hidden = np.isneginf(np.asarray(variants[key]["scores"]))
        pos = x - 0.4 + width * (v + 0.5)
        ax.bar(pos[~hidden], weights[~hidden], width, color=plots.COLORS[v % len(plots.COLORS)],
               label=variant_label(key), **kwargs)
        for p in pos[hidden]:
            ax.text(p, 0.01, "×", ha="center", va="bottom", color="#888888", fontsize=plots.FONT["tick"] - 2)
    ax.set_xticks(x, names)
    if query is not None:
        ax.axvspan(query - 0.45, query + 0.45, color="#f2f2f2", zorder=0)
    legend = {"fontsize": plots.FONT["tick"] - 2, "loc": "center left", "bbox_to_anchor": (1.01, 0.5)}
    plots.style_axes(ax, i18n.t("position_lab.key_position"), i18n.t("plots.weight"), grid="y", legend=legend)
    return ax


def plot_weight_by_distance(curves: dict, ax=None, *, uniform: float | None = None, **kwargs):
    """Average weight against distance |i - j|, one line per setting ({label: (R,) weights}).

    uniform draws the level 1/T dashed. kwargs go to `ax.plot`. Returns the Axes.
    """
    ax = plots.new_axes(ax, (6.4, 3.6))
    for c, (label, weights) in enumerate(curves.items()):
        weights = as_float_array(weights, "curves", ndim=1)
        ax.plot(np.arange(weights.size), weights, **{"marker": "o", "linewidth": 2,
                                                      "color": plots.COLORS[c % len(plots.COLORS)],
                                                      "label": label, **kwargs})
    if uniform is not None:
        plots.reference_line(ax, y=uniform)
    ax.set_xticks(np.arange(max(len(w) for w in curves.values())))
    ax.set_xlabel(i18n.t("position_lab.distance"), fontsize=plots.FONT["label"])
    ax.set_ylabel(i18n.t("position_lab.mean_weight"), fontsize=plots.FONT["label"])
    ax.set_ylim(bottom=0)
    plots.style_axes(ax, legend={"fontsize": plots.FONT["tick"] - 2, "loc": "upper right"})
    return ax
