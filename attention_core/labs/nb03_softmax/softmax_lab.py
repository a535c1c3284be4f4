"""Experiments of notebook 03 (softmax): its steps, the naive overflow, its Jacobian, competition, convex hulls.

The definition of softmax lives in `attention_core.softmax`; this module only takes it apart so a
notebook can show each piece. Everything here is a pure function of its inputs (no global state,
no randomness); the three plot helpers take `ax=`, return it and never call `show()`.

    steps = softmax_steps([100, 90], shift=False, dtype="float32")   # the naive formula: inf / inf = nan
    J = softmax_jacobian(softmax(x))                                 # d softmax(x) / dx = diag(p) - p p^T
"""
from __future__ import annotations

import numpy as np

from attention_core.core.softmax import softmax
from attention_core.core.validation import as_float_array, check_axis, check_flag, describe, positive_float
from attention_core.labs.nb02_scaled_dot_product.scaling import (
    softmax_jacobian as softmax_jacobian,  # notebook 03 calls it here
)
from attention_core.teaching import i18n, plots

_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def _dtype(dtype):
    """None (float64), a name such as "float32", or a NumPy float type -> that NumPy float type."""
    if dtype is None:
        return np.float64
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in _DTYPES:
        raise ValueError(f"dtype: expected one of {tuple(_DTYPES)}, got {describe(dtype)}")
    return _DTYPES[name]


# --- the formula, one step at a time ----------------------------------------------------------------
def softmax_steps(x, *, temperature: float = 1.0, shift: bool = True, dtype=None, axis: int = -1) -> dict:
    """Every intermediate of softmax(x / T) along `axis`, computed in `dtype`.

    shift=True is the stable formula: subtract the maximum, then exponentiate (every exponent <= 0).
    shift=False is the naive formula exp(x) / sum(exp(x)): in float32 exp(89) is already inf, and
    inf / inf is nan. Its overflow warnings are silenced here on purpose: the returned inf and nan
    are the lesson. Returns a dict of arrays: scaled = x / T, max (keepdims), shifted (the exponents
    actually used), exp, sum (keepdims) and weights, each of x's shape (max and sum: 1 along axis).
    """
    shift = check_flag(shift, "shift")
    ftype = _dtype(dtype)
    x = as_float_array(x, "x").astype(ftype)
    axis = check_axis(axis, x.ndim)
    t = ftype(positive_float(temperature, "temperature"))
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        scaled = x / t if t != 1 else x.copy()
        row_max = scaled.max(axis=axis, keepdims=True)
        shifted = scaled - row_max if shift else scaled
        exps = np.exp(shifted)
        total = exps.sum(axis=axis, keepdims=True)
        weights = exps / total
    return {"scaled": scaled, "max": row_max, "shifted": shifted, "exp": exps, "sum": total, "weights": weights}


def naive_softmax(x, dtype="float32"):
    """exp(x) / sum(exp(x)) along the last axis, WITHOUT subtracting the maximum, in `dtype`.

    The textbook formula as a first attempt writes it: it overflows (float32: any score above
    ~88.7 gives exp = inf, then inf / inf = nan) and underflows (all scores below ~-104: 0 / 0 = nan).
    Warnings are silenced; compare with `attention_core.softmax`, which never does this.
    """
    return softmax_steps(x, shift=False, dtype=dtype)["weights"]


# --- gradient ---------------------------------------------------------------------------------------
def finite_difference_jacobian(fn, x, eps: float = 1e-6) -> np.ndarray:
    """Central differences (fn(x + eps e_j) - fn(x - eps e_j)) / 2 eps for a map R^N -> R^M: (M, N).

    An independent check of `softmax_jacobian` that uses only calls of the function.
    """
    x = as_float_array(x, "x", ndim=1)
    eps = positive_float(eps, "eps")
    cols = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        cols.append((np.asarray(fn(x + step), dtype=float) - np.asarray(fn(x - step), dtype=float)) / (2 * eps))
    return np.stack(cols, axis=-1)                                             # (M, N)


# --- competition ------------------------------------------------------------------------------------
def competition_sweep(scores, index: int, values) -> np.ndarray:
    """softmax(scores) with scores[index] replaced by each of `values`: weights (len(values), N).

    Shows the competition: as one score rises, its weight rises and every other weight falls, smoothly,
    while the ratios between the others stay fixed (p_j / p_k = exp(x_j - x_k)).
    """
    scores = as_float_array(scores, "scores", ndim=1)
    values = as_float_array(values, "values", ndim=1)
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not -scores.size <= index < scores.size:
        raise ValueError(f"index: expected an integer in [0, {scores.size}), got {describe(index)}")
    grid = np.repeat(scores[None, :], values.size, axis=0)                     # (V, N)
    grid[:, index] = values
    return softmax(grid, axis=-1)


# --- convex combinations ----------------------------------------------------------------------------
def _cross(o, a, b):
    return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - (a[..., 1] - o[..., 1]) * (b[..., 0] - o[..., 0])


def convex_hull_2d(points) -> np.ndarray:
    """The convex hull of 2-D points (N, 2), as its vertices (H, 2) in counter-clockwise order.

    Andrew's monotone chain: sort by x then y, build the lower and the upper chain, dropping every
    point that makes a clockwise (or straight) turn.
    """
    pts = as_float_array(points, "points", ndim=2)
    if pts.shape[1] != 2 or pts.shape[0] < 3:
        raise ValueError(f"points: expected at least 3 points of shape (N, 2), got shape {pts.shape}")
    pts = np.unique(pts, axis=0)                                               # sorted by x, then y
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in pts[::-1]:
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def inside_convex_hull(points, hull, tol: float = 1e-9) -> np.ndarray:
    """For each point (M, 2), True when it lies inside or on the counter-clockwise polygon `hull` (H, 2)."""
    pts = as_float_array(points, "points")
    hull = as_float_array(hull, "hull", ndim=2)
    pts2 = np.atleast_2d(pts)                                                  # (M, 2)
    if pts2.shape[-1] != 2 or hull.shape[-1] != 2:
        raise ValueError(f"points, hull: expected 2-D points (..., 2), got {pts.shape} and {hull.shape}")
    a, b = hull, np.roll(hull, -1, axis=0)                                     # the edges a -> b, (H, 2)
    side = _cross(a[None], b[None], pts2[:, None])                             # (M, H): > 0 left of the edge
    inside = (side >= -tol).all(axis=1)
    return inside if pts.ndim > 1 else bool(inside[0])


# --- figures ----------------------------------------------------------------------------------------
def plot_competition(scores, index: int, values, ax=None, *, labels=None, show_argmax: bool = True, **kwargs):
    """Weights of every position as scores[index] sweeps over `values` (one line each; kwargs go to ax.plot).

    show_argmax adds the hard maximum of position `index` (0 or 1) as a dashed step: softmax is its
    smooth version. Returns the Axes.
    """
    show_argmax = check_flag(show_argmax, "show_argmax")
    weights = competition_sweep(scores, index, values)                         # (V, N)
    values = np.asarray(values, dtype=float)
    n = weights.shape[1]
    names = [str(j) for j in range(n)] if labels is None else plots.tick_labels(labels, n, "labels", "score")
    scores = np.asarray(scores, dtype=float)
    ax = plots.new_axes(ax, (6.4, 3.6))
    for j in range(n):
        tag = i18n.t("softmax_lab.varied") if j == index % n else f"{scores[j]:g}"
        ax.plot(values, weights[:, j], color=plots.COLORS[j % len(plots.COLORS)],
                linewidth=3 if j == index % n else 1.8, label=f"{names[j]} ({tag})", **kwargs)
    if show_argmax:
        others = np.delete(scores, index).max()
        ax.step(values, (values > others).astype(float), where="post", color=plots.NOTE_COLOR, linestyle="--",
                linewidth=1.2, label=i18n.t("softmax_lab.argmax", name=names[index]))
    return _finish_weight_axes(ax, i18n.t("softmax_lab.score_of", name=names[index]))


def plot_temperature_sweep(scores, temperatures, ax=None, *, labels=None, **kwargs):
    """Each weight of softmax(scores / T) against T on a log axis, with the uniform level 1/N dashed.

    kwargs go to ax.plot. Returns the Axes.
    """
    scores = as_float_array(scores, "scores", ndim=1)
    temps = as_float_array(temperatures, "temperatures", ndim=1)
    if (temps <= 0).any():
        raise ValueError("temperatures: expected numbers > 0")
    weights = np.stack([softmax(scores, temperature=float(t)) for t in temps])  # (len(T), N)
    n = scores.size
    names = [str(j) for j in range(n)] if labels is None else plots.tick_labels(labels, n, "labels", "score")
    ax = plots.new_axes(ax, (6.4, 3.6))
    for j in range(n):
        ax.plot(temps, weights[:, j], color=plots.COLORS[j % len(plots.COLORS)], linewidth=2,
                label=f"{names[j]} ({scores[j]:g})", **kwargs)
    plots.reference_line(ax, y=1 / n)
    ax.text(temps.min(), 1 / n + 0.02, i18n.t("softmax_lab.uniform", n=n), ha="left", va="bottom",
            fontsize=plots.FONT["tick"] - 1, color="#666666")
    ax.set_xscale("log")
    return _finish_weight_axes(ax, i18n.t("widgets.temperature"))


def plot_convex_combination(values, outputs, ax=None, *, outside=None, labels=None, **kwargs):
    """Value vectors (N, 2), their convex hull, and attention outputs (M, 2) as dots.

    outside: optional points (K, 2) drawn as crosses (e.g. mixes whose weights are not softmax's).
    kwargs go to the ax.scatter of the outputs. Returns the Axes.
    """
    values = as_float_array(values, "values", ndim=2)
    outputs = np.atleast_2d(as_float_array(outputs, "outputs"))
    names = [f"v{j}" for j in range(len(values))] if labels is None else \
        plots.tick_labels(labels, len(values), "labels", "value")
    hull = convex_hull_2d(values)
    ax = plots.new_axes(ax, (5.2, 4.6))
    closed = np.vstack([hull, hull[:1]])
    ax.fill(closed[:, 0], closed[:, 1], color=plots.COLORS[5], alpha=0.15, zorder=0)
    ax.plot(closed[:, 0], closed[:, 1], color=plots.COLORS[0], linewidth=1.5, zorder=1,
            label=i18n.t("softmax_lab.hull"))
    ax.scatter(outputs[:, 0], outputs[:, 1], **{"s": 12, "color": plots.COLORS[2], "alpha": 0.7, "zorder": 2,
                                                "label": i18n.t("softmax_lab.outputs", m=len(outputs)), **kwargs})
    ax.scatter(values[:, 0], values[:, 1], s=60, color=plots.COLORS[0], zorder=3)
    center = values.mean(axis=0)
    span = float(np.ptp(np.vstack([values, outputs] + ([np.atleast_2d(outside)] if outside is not None else [])),
                        axis=0).max())
    for name, v in zip(names, values):
        d = v - center
        d = d / (np.linalg.norm(d) or 1.0)
        ax.text(*(v + 0.06 * span * d), name, fontsize=plots.FONT["label"], ha="center", va="center",
                color=plots.COLORS[0])
    if outside is not None:
        outside = np.atleast_2d(as_float_array(outside, "outside"))
        ax.scatter(outside[:, 0], outside[:, 1], s=90, marker="X", color=plots.COLORS[1], zorder=4,
                   label=i18n.t("softmax_lab.not_convex"))
    ax.margins(0.12)
    ax.set_aspect("equal", adjustable="datalim")
    legend = {"fontsize": plots.FONT["tick"] - 2, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}
    return plots.style_axes(ax, tick_size=plots.FONT["tick"] - 1, legend=legend)


def _finish_weight_axes(ax, xlabel: str):
    """The common frame of the weight-curve figures: labels, a 0..1 weight axis, grid, legend."""
    ax.set_ylim(-0.03, 1.03)
    return plots.style_axes(ax, xlabel, i18n.t("plots.weight"), legend={
        "title": i18n.t("softmax_lab.score_legend"), "fontsize": plots.FONT["tick"] - 2,
        "title_fontsize": plots.FONT["tick"] - 1, "loc": "center left", "bbox_to_anchor": (1.01, 0.5)})
