"""Why attention divides by sqrt(Dk): the variance of q·k, softmax saturation and its Jacobian (notebook 02).

For q, k with Dk independent entries of mean 0 and variance 1, q·k = sum_i q_i k_i is a sum of Dk
independent terms of variance 1, so Var(q·k) = Dk and its standard deviation is sqrt(Dk).
Dividing by sqrt(Dk) divides the variance by Dk: back to 1, whatever Dk is. Without it, a row of
scores spreads over about +-sqrt(Dk), softmax turns nearly one-hot, and its Jacobian
d softmax / d scores = diag(p) - p p^T goes to zero: the gradient that should train Q and K vanishes.

Every function here is pure and seeded (`seed` -> numpy SeedSequence([seed, Dk, ...])), so the
numbers for one Dk do not depend on which other Dk were asked for in the same call.
Figure helpers take `fig=` and return the Figure; they never call `show()`.
"""
from __future__ import annotations

import math
import numbers
from functools import lru_cache

import numpy as np

from attention_core.core.attention import attention_scores
from attention_core.core.softmax import softmax
from attention_core.core.validation import as_float_array, checked, describe, positive_int
from attention_core.teaching import i18n

DK_VALUES = (1, 4, 16, 64, 256, 1024)      # the widths the notebook measures
SATURATED = 0.99                           # a row whose largest weight reaches this is "nearly one-hot"
_BLOCK = 1 << 20                           # random numbers drawn per block: ~8 MiB of float64


# --- validation -------------------------------------------------------------------------------
def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed: expected an integer >= 0, got {describe(seed)}")
    return int(seed)


def dk_values(d_k_values) -> tuple[int, ...]:
    if isinstance(d_k_values, (str, bytes)) or not hasattr(d_k_values, "__iter__"):
        raise TypeError(f"d_k_values: expected a list of integers >= 1, got {describe(d_k_values)}")
    values = tuple(positive_int(d, "d_k_values") for d in d_k_values)
    if not values:
        raise ValueError("d_k_values: expected at least one width d_k, got an empty list")
    return values


def _flag(x, name: str) -> bool:
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {describe(x)}")
    return bool(x)


def _rng(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, *keys]))


# --- the variance of q·k ----------------------------------------------------------------------
def dot_product_inputs(d_k: int, n_samples: int = 20000, seed: int = 0) -> dict:
    """random_dot_products' arguments, checked: a width >= 1, at least 2 samples, a seed."""
    return dict(d_k=positive_int(d_k, "d_k"), n_samples=positive_int(n_samples, "n_samples", minimum=2),
                seed=_seed(seed))


@checked(dot_product_inputs)
def random_dot_products(d_k: int, n_samples: int = 20000, seed: int = 0) -> np.ndarray:
    """q·k for n_samples independent pairs q, k ~ N(0, I_Dk), unscaled: an array (n_samples,).

    Drawn in blocks so that Dk = 1024 with 20000 pairs never holds 2 x 160 MiB at once.
    """
    rng = _rng(seed, d_k)
    rows = max(1, _BLOCK // (2 * d_k))
    out = np.empty(n_samples)
    for start in range(0, n_samples, rows):
        stop = min(start + rows, n_samples)
        q = rng.standard_normal((stop - start, d_k))              # (rows, Dk)
        k = rng.standard_normal((stop - start, d_k))              # (rows, Dk)
        out[start:stop] = np.einsum("nd,nd->n", q, k)             # one dot product per row
    return out


@lru_cache(maxsize=32)
def cached_dot_products(d_k: int, n_samples: int, seed: int) -> np.ndarray:
    """random_dot_products, cached and read-only (the widget revisits the same Dk)."""
    out = random_dot_products(d_k, n_samples, seed)
    out.setflags(write=False)
    return out


def dot_product_variance(d_k_values=DK_VALUES, n_samples: int = 20000, seed: int = 0) -> dict:
    """Measure Var(q·k) and Var(q·k / sqrt(Dk)) for random unit-variance q, k at each width.

    Returns a dict of arrays, one entry per width (M = len(d_k_values)):
    d_k (M,), variance (M,) (expected: Dk), std (M,) (expected: sqrt(Dk)),
    variance_scaled (M,) (expected: 1) and samples (M, n_samples), the raw q·k values.
    """
    widths = dk_values(d_k_values)
    samples = np.stack([random_dot_products(d, n_samples, seed) for d in widths])   # (M, N)
    d_k = np.array(widths)
    variance = samples.var(axis=1)
    return {"d_k": d_k, "variance": variance, "std": np.sqrt(variance),
            "variance_scaled": (samples / np.sqrt(d_k)[:, None]).var(axis=1), "samples": samples}


# --- softmax saturation -----------------------------------------------------------------------
def softmax_jacobian(p) -> np.ndarray:
    """The Jacobian of softmax at the point where it outputs p: J[i, j] = d p_i / d x_j = p_i (δ_ij - p_j).

    p: weights (..., N) (each slice along the last axis non-negative, summing to 1).
    Returns (..., N, N) = diag(p) - p p^T. Symmetric; every row and column sums to 0 (the weights
    always sum to 1); diagonal p_i (1 - p_i) <= 1/4, off-diagonal -p_i p_j, so |J| <= 1/4 entrywise.
    """
    p = as_float_array(p, "p")
    if (p < 0).any() or not np.allclose(p.sum(axis=-1), 1, atol=1e-6):
        raise ValueError("p: expected softmax weights (non-negative, each row summing to 1), "
                         f"got rows summing to {np.round(p.sum(axis=-1), 4).tolist()}")
    eye = np.eye(p.shape[-1])
    return p[..., :, None] * eye - p[..., :, None] * p[..., None, :]           # (..., N, N)


def saturation_stats(weights) -> dict:
    """How saturated each row of softmax weights (..., N) is.

    Returns max_weight (...,), entropy (...,) in nats (0 for one-hot, ln N for uniform) and
    jacobian_norm (...,), the Frobenius norm of diag(p) - p p^T (0 for one-hot,
    sqrt(N - 1) / N for uniform).
    """
    p = as_float_array(weights, "weights")
    if p.shape[-1] == 0:
        raise ValueError(f"weights: expected at least one weight per row, got shape {p.shape}")
    logs = np.log(np.where(p > 0, p, 1.0))                        # 0 log 0 = 0
    return {"max_weight": p.max(axis=-1), "entropy": -(p * logs).sum(axis=-1),
            "jacobian_norm": np.linalg.norm(softmax_jacobian(p), axis=(-2, -1))}


def softmax_saturation(d_k: int, scaled: bool = True, seed: int = 0, *, n_keys: int = 16,
                       n_rows: int = 1) -> dict:
    """Softmax of rows of scores q·k (or q·k / sqrt(Dk)) for random unit-variance q and keys.

    Each of n_rows rows: one query q (Dk,) against n_keys keys (n_keys, Dk), all N(0, 1) entries.
    The draws do not depend on `scaled`, so scaled=True and False see the very same q and keys.
    Returns scores (n_rows, n_keys), weights (n_rows, n_keys), argmax (n_rows,), the row means of
    max_weight, entropy and jacobian_norm (floats; a single row's own values when n_rows = 1),
    score_std (the spread of the scores), saturated (the share of rows whose largest weight is at
    least 0.99: nearly one-hot), and the uniform row's max_entropy = ln(n_keys) and
    uniform_jacobian_norm = sqrt(n_keys - 1) / n_keys for comparison.
    """
    d_k = positive_int(d_k, "d_k")
    scaled = _flag(scaled, "scaled")
    n_keys = positive_int(n_keys, "n_keys", minimum=2)
    n_rows = positive_int(n_rows, "n_rows")
    rng = _rng(_seed(seed), d_k, n_keys)
    scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
    block = max(1, _BLOCK // ((n_keys + 1) * d_k))
    scores = np.empty((n_rows, n_keys))
    for start in range(0, n_rows, block):
        stop = min(start + block, n_rows)
        q = rng.standard_normal((stop - start, 1, d_k))                    # (R, 1, Dk): one query per row
        k = rng.standard_normal((stop - start, n_keys, d_k))               # (R, Tk, Dk)
        scores[start:stop] = attention_scores(q, k, scale=scale)[:, 0]     # (R, Tk)
    weights = softmax(scores)                                               # (R, Tk), stable at any size
    stats = saturation_stats(weights)
    return {"d_k": d_k, "scaled": scaled, "scale": scale, "scores": scores, "weights": weights,
            "argmax": weights.argmax(axis=-1), "score_std": float(scores.std()),
            "max_weight": float(stats["max_weight"].mean()), "entropy": float(stats["entropy"].mean()),
            "jacobian_norm": float(stats["jacobian_norm"].mean()),
            "saturated": float((stats["max_weight"] >= SATURATED).mean()),
            "max_entropy": math.log(n_keys), "uniform_jacobian_norm": math.sqrt(n_keys - 1) / n_keys}


def saturation_table(d_k_values=DK_VALUES, n_rows: int = 1000, n_keys: int = 16, seed: int = 0) -> dict:
    """softmax_saturation at each width, without and with scaling, on the same scores.

    Returns d_k (M,), n_keys and, under "raw" and "scaled", dicts of arrays (M,): score_std,
    max_weight, entropy, jacobian_norm (row means over n_rows rows of n_keys keys) and saturated
    (the share of those rows that are nearly one-hot).
    """
    widths = dk_values(d_k_values)
    table = {"d_k": np.array(widths), "n_keys": positive_int(n_keys, "n_keys", minimum=2)}
    for name, scaled in (("raw", False), ("scaled", True)):
        runs = [softmax_saturation(d, scaled, seed, n_keys=n_keys, n_rows=n_rows) for d in widths]
        table[name] = {key: np.array([r[key] for r in runs])
                       for key in ("score_std", "max_weight", "entropy", "jacobian_norm", "saturated")}
    return table


# --- figures ----------------------------------------------------------------------------------
def _short(x: float) -> str:
    """A variance for a panel label: 0.97, 63.9, 1020 (three significant digits, no exponent)."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def plot_dot_product_histograms(result: dict, fig=None, bins: int = 81):
    """Histograms of q·k (top row, one shared x-axis) and q·k / sqrt(Dk) (bottom row), one column
    per width, from the dict of `dot_product_variance`. Returns the Figure."""
    from attention_core.teaching import plots
    from attention_core.teaching.fonts import use_cjk_font

    if not isinstance(result, dict) or not {"d_k", "samples"} <= set(result):
        raise TypeError(f"result: expected the dict returned by dot_product_variance, got {describe(result)}")
    d_k = np.asarray(result["d_k"])
    samples = as_float_array(result["samples"], "result['samples']", ndim=2)     # (M, N)
    if samples.shape[0] != d_k.size:
        raise ValueError(f"result: {d_k.size} widths but {samples.shape[0]} rows of samples")
    use_cjk_font()
    m = d_k.size
    if fig is None:
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(2.1 * m + 0.8, 4.8), layout="compressed")
    axes = fig.subplots(2, m, squeeze=False)
    rows = ((samples, 4 * math.sqrt(d_k.max()), "scaling.row_raw", plots.COLORS[0]),
            (samples / np.sqrt(d_k)[:, None], 4.0, "scaling.row_scaled", plots.COLORS[1]))
    for r, (data, lim, label, color) in enumerate(rows):
        edges = np.linspace(-lim, lim, bins + 1)
        for c in range(m):
            ax = axes[r, c]
            ax.hist(np.clip(data[c], -lim, lim), bins=edges, color=color)
            ax.set_xlim(-lim, lim)
            ax.set_yticks([])
            ax.tick_params(labelsize=plots.FONT["tick"] - 2)
            ax.text(0.03, 0.95, i18n.t("scaling.var", v=_short(data[c].var())), transform=ax.transAxes,
                    ha="left", va="top", fontsize=plots.FONT["tick"] - 2)
            if r == 0:
                ax.set_title(i18n.t("scaling.panel", d=int(d_k[c])), fontsize=plots.FONT["label"])
            if c == 0:
                ax.set_ylabel(i18n.t(label), fontsize=plots.FONT["label"])
    return fig


def plot_saturation(table: dict, fig=None):
    """Largest weight and Jacobian norm against Dk (log axis), without and with scaling, from the
    dict of `saturation_table`. Returns the Figure."""
    from attention_core.teaching import plots
    from attention_core.teaching.fonts import use_cjk_font

    if not isinstance(table, dict) or not {"d_k", "raw", "scaled", "n_keys"} <= set(table):
        raise TypeError(f"table: expected the dict returned by saturation_table, got {describe(table)}")
    use_cjk_font()
    if fig is None:
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(9, 3.6), layout="compressed")
    axes = fig.subplots(1, 2)
    d_k, n = table["d_k"], table["n_keys"]
    uniform = {"max_weight": 1 / n, "jacobian_norm": math.sqrt(n - 1) / n}
    for ax, key, label in zip(axes, ("max_weight", "jacobian_norm"), ("scaling.largest_weight", "scaling.jacobian")):
        ax.plot(d_k, table["raw"][key], "o-", color=plots.COLORS[0], label=i18n.t("scaling.without"))
        ax.plot(d_k, table["scaled"][key], "s-", color=plots.COLORS[1], label=i18n.t("scaling.with"))
        plots.reference_line(ax, y=uniform[key], label=i18n.t("scaling.uniform", n=n))
        ax.set_xscale("log", base=2)
        ax.set_xticks(d_k, [str(d) for d in d_k])
        ax.set_ylim(0, 1.05 if key == "max_weight" else None)
        ax.set_xlabel("d_k", fontsize=plots.FONT["label"])
        ax.set_title(i18n.t(label), fontsize=plots.FONT["label"])
        plots.style_axes(ax, tick_size=plots.FONT["tick"] - 1, grid_color="#dddddd")
    axes[1].set_ylim(0, None)
    axes[1].legend(fontsize=plots.FONT["tick"] - 2, loc="lower left")     # that corner stays empty
    return fig
