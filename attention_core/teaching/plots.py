"""Figures of attention: weight heatmaps, per-head grids, 2-D vectors, position tables and masks.

One style for the whole course, sized for a projector. Every helper takes `ax=` (or `fig=` for
grids), draws into it, returns the Axes (Figure for grids) and never calls `show()`; extra
keyword arguments go to the one matplotlib call named in each docstring. Axis titles come from
`i18n`, so a figure follows the notebook's language; `fonts.use_cjk_font()` makes Chinese
tokens render.
"""
from __future__ import annotations

import math

import numpy as np

from attention_core.core.similarity import cosine
from attention_core.core.validation import as_float_array, check_flag, describe, positive_float
from attention_core.teaching import i18n
from attention_core.teaching.fonts import use_cjk_font

# This module's UI strings, English and Chinese side by side (registered with i18n on import).
STRINGS: dict[str, dict[str, str]] = {
    "plots.queries": {"en": "query (row: who is looking)", "zh": "Query（行：谁在看）"},
    "plots.keys": {"en": "key (column: who is looked at)", "zh": "Key（列：被看的词）"},
    "plots.weight": {"en": "attention weight", "zh": "注意力权重"},
    "plots.head": {"en": "head {h}", "zh": "第 {h} 个头"},
    "plots.position": {"en": "position p", "zh": "位置 p"},
    "plots.dimension": {"en": "dimension i", "zh": "维度 i"},
    "plots.pe_value": {"en": "encoding value", "zh": "编码值"},
    "plots.visible": {"en": "may attend (adds 0)", "zh": "可以关注（加 0）"},
    "plots.masked": {"en": "masked (adds −∞)", "zh": "被屏蔽（加 −∞）"},
    "plots.dot_product": {"en": "dot product {a}·{b} = {dot:.2f}", "zh": "点积 {a}·{b} = {dot:.2f}"},
    "plots.cosine": {"en": "cosine cos θ = {cos}", "zh": "余弦 cos θ = {cos}"},
    "plots.undefined": {"en": "undefined (zero vector)", "zh": "无定义（零向量）"},
}
i18n.register(STRINGS)

WEIGHTS_CMAP = "Blues"        # sequential, 0 = white: readable on a projector, colour-blind safe
SIGNED_CMAP = "RdBu_r"        # diverging for signed values (position encodings)
# Okabe-Ito palette: distinguishable with every common colour-vision deficiency.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
MASK_COLORS = ("#E8E8E8", "#2166AC")     # masked, visible
FONT = {"tick": 12, "label": 13, "title": 14, "cell": 12}
ANNOTATE_MAX = 12             # annotate="auto" writes values into cells up to 12 x 12
GRID_COLOR = "#e5e5e5"        # the light grid behind line and bar charts
REFERENCE_COLOR = "#999999"   # dashed reference levels: uniform weight, chance, a marked position
NOTE_COLOR = "#555555"        # secondary marks and text: −∞ cells, annotations, arrows


# --- validation -------------------------------------------------------------------------------
def as_matrix(x, name: str) -> np.ndarray:
    """A finite float matrix (Tq, Tk); a 1-D input is one query row."""
    arr = as_float_array(x, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D matrix (Tq, Tk), got shape {arr.shape}"
                         + ("; pick one sequence/head first, e.g. weights[0]" if arr.ndim > 2 else ""))
    if arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty matrix, got shape {arr.shape}")
    return arr


def tick_labels(labels, n: int, name: str, axis: str):
    """None or a list of n strings."""
    if labels is None:
        return None
    if isinstance(labels, str):
        raise TypeError(f"{name}: expected a list of {n} token labels, got the string {labels!r}; "
                        "split it first, e.g. text.split()")
    labels = [str(x) for x in labels]
    if len(labels) != n:
        raise ValueError(f"{name}: expected {n} labels (one per {axis}), got {len(labels)}")
    return labels


def token_labels(x_labels, y_labels, tq: int, tk: int):
    """Validated key (column) and query (row) labels; a square matrix reuses the key labels for rows."""
    x_labels = tick_labels(x_labels, tk, "x_labels", "key (column)")
    if y_labels is None and x_labels is not None and tq == tk:
        y_labels = x_labels
    return x_labels, tick_labels(y_labels, tq, "y_labels", "query (row)")


def annotate_flag(annotate, shape, limit: int = ANNOTATE_MAX) -> bool:
    if annotate == "auto":
        return max(shape) <= limit
    if not isinstance(annotate, (bool, np.bool_)):
        raise ValueError(f"annotate: expected 'auto', True or False, got {describe(annotate)}")
    return bool(annotate)


def new_axes(ax, figsize):
    use_cjk_font()
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, ax = plt.subplots(figsize=figsize, layout="compressed")
    return ax


def style_axes(ax, xlabel: str | None = None, ylabel: str | None = None, *, tick_size: int | None = None,
               grid: str | None = "both", grid_color: str = GRID_COLOR, legend: dict | None = None):
    """The house style of a chart: axis labels in the label font, tick labels (FONT["tick"] unless
    tick_size), a light grid along `grid` ("both", "x", "y"; None: no grid) and, when `legend` is a
    dict, a legend with those options (fontsize FONT["tick"] - 1 unless given). Returns the Axes."""
    if xlabel is not None:
        ax.set_xlabel(xlabel, fontsize=FONT["label"])
    if ylabel is not None:
        ax.set_ylabel(ylabel, fontsize=FONT["label"])
    ax.tick_params(labelsize=FONT["tick"] if tick_size is None else tick_size)
    if grid:
        ax.grid(True, axis=grid, color=grid_color)
    if legend is not None:
        ax.legend(**{"fontsize": FONT["tick"] - 1, **legend})
    return ax


def reference_line(ax, *, y=None, x=None, **kwargs):
    """A dashed grey line at level y (horizontal) or position x (vertical): uniform weight, chance,
    a marked distance. kwargs override the style or add a label. Returns the Line2D."""
    if (y is None) == (x is None):
        raise ValueError("reference_line: give exactly one of y (a level) or x (a position)")
    style = {"color": REFERENCE_COLOR, "linestyle": "--", "linewidth": 1, **kwargs}
    return ax.axhline(y, **style) if x is None else ax.axvline(x, **style)


def text_colors(values, cmap, norm) -> list[str]:
    """Black or white for text over cells of the given values, whichever contrasts more."""
    rgba = cmap(norm(np.asarray(values, dtype=float).ravel()))
    luminance = rgba[:, :3] @ np.array([0.2126, 0.7152, 0.0722])
    return ["white" if lum < 0.5 else "black" for lum in luminance]


def cell_fontsize(shape) -> float:
    """Font size of in-cell numbers: smaller as the matrix grows."""
    n = max(shape)
    return FONT["cell"] if n <= 8 else FONT["cell"] - 1 if n <= 10 else FONT["cell"] - 2


def heatmap_figsize(tq: int, tk: int, colorbar: bool = True) -> tuple[float, float]:
    """Figure size (inches) giving cells of about 0.6 inch, room for labels, capped for big matrices."""
    return min(10.0, 2.2 + (1.0 if colorbar else 0.6) + 0.6 * tk), min(8.5, 1.6 + 0.55 * tq)


# --- heatmaps ---------------------------------------------------------------------------------
def heatmap_frame(ax, shape, x_labels=None, y_labels=None, *, cmap=WEIGHTS_CMAP, vmin=0.0, vmax=1.0,
                  colorbar=True, title=None, xlabel=None, ylabel=None, colorbar_label=None, **kwargs):
    """Draw an empty (Tq, Tk) heatmap (image, ticks, axis titles, colour bar); return the image.

    Shared by `attention_heatmap` and the live `widgets.HeatmapView` so both look the same.
    kwargs go to `ax.imshow`.
    """
    tq, tk = shape
    im = ax.imshow(np.zeros(shape), cmap=cmap, vmin=vmin, vmax=vmax,
                   **{"interpolation": "nearest", "aspect": "equal", **kwargs})
    for axis, n, labels in ((ax.xaxis, tk, x_labels), (ax.yaxis, tq, y_labels)):
        if labels is not None or n <= 30:
            axis.set_ticks(range(n), labels if labels is not None else [str(i) for i in range(n)])
    ax.tick_params(labelsize=FONT["tick"] if max(shape) <= 12 else FONT["tick"] - 2, length=0)
    if x_labels is not None and max(len(s) for s in x_labels) > 3:
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set_ha("right")
            label.set_rotation_mode("anchor")
    ax.set_xlabel(i18n.t("plots.keys") if xlabel is None else xlabel, fontsize=FONT["label"])
    ax.set_ylabel(i18n.t("plots.queries") if ylabel is None else ylabel, fontsize=FONT["label"])
    for side in ax.spines.values():
        side.set_visible(False)
    # Thin white lines between cells, so neighbouring cells of similar colour stay apart.
    ax.set_xticks(np.arange(tk + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(tq + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    if title:
        ax.set_title(title, fontsize=FONT["title"])
    if colorbar:
        cbar = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cbar.ax.tick_params(labelsize=FONT["tick"] - 1)
        cbar.set_label(i18n.t("plots.weight") if colorbar_label is None else colorbar_label,
                       fontsize=FONT["label"] - 1)
    return im


def attention_heatmap(weights, x_labels=None, y_labels=None, ax=None, annotate="auto", cmap=WEIGHTS_CMAP,
                      vmin=0.0, vmax=1.0, colorbar=True, title=None, fmt="{:.2f}", **kwargs):
    """Heatmap of attention weights (Tq, Tk): row i = query i, column j = key j.

    x_labels: Tk key tokens; y_labels: Tq query tokens (default: x_labels when Tq == Tk).
    annotate: write each value in its cell ("auto": when both sides <= 12), in black or white,
    whichever contrasts with the cell. kwargs go to `ax.imshow`. Returns the Axes.
    """
    weights = as_matrix(weights, "weights")
    tq, tk = weights.shape
    x_labels, y_labels = token_labels(x_labels, y_labels, tq, tk)
    do_annotate = annotate_flag(annotate, weights.shape)
    ax = new_axes(ax, heatmap_figsize(tq, tk))
    im = heatmap_frame(ax, weights.shape, x_labels, y_labels, cmap=cmap, vmin=vmin, vmax=vmax,
                       colorbar=colorbar, title=title, **kwargs)
    im.set_data(weights)
    if do_annotate:
        colors = text_colors(weights, im.cmap, im.norm)
        size = cell_fontsize(weights.shape)
        for (i, j), value in np.ndenumerate(weights):
            ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize=size,
                    color=colors[i * tk + j])
    return ax


def head_grid(weights, labels=None, *, y_labels=None, ncols=None, head_titles=None, annotate="auto",
              cmap=WEIGHTS_CMAP, vmin=0.0, vmax=1.0, fig=None, title=None, fmt="{:.2f}", **kwargs):
    """One heatmap per head of weights (H, Tq, Tk), side by side, with one shared colour bar.

    labels: Tk key tokens (also the query tokens when Tq == Tk, unless y_labels is given).
    annotate="auto" writes values when both sides <= 8 (panels are small). kwargs go to each
    `ax.imshow`. Returns the Figure (its axes are `fig.axes[:H]`).
    """
    weights = as_float_array(weights, "weights")
    if weights.ndim != 3 or weights.size == 0:
        hint = "; for a batch (B, H, Tq, Tk) pick one sequence: weights[0]" if weights.ndim == 4 else ""
        raise ValueError(f"weights: expected a non-empty (H, Tq, Tk) array, got shape {weights.shape}{hint}")
    h, tq, tk = weights.shape
    labels = tick_labels(labels, tk, "labels", "key (column)")
    if y_labels is None and labels is not None and tq == tk:
        y_labels = labels
    y_labels = tick_labels(y_labels, tq, "y_labels", "query (row)")
    head_titles = tick_labels(head_titles, h, "head_titles", "head")
    do_annotate = annotate_flag(annotate, (tq, tk), limit=8)
    if ncols is None:
        ncols = min(h, 4)
    elif isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or ncols < 1:
        raise ValueError(f"ncols: expected an integer >= 1, got {describe(ncols)}")
    nrows = math.ceil(h / ncols)
    use_cjk_font()
    if fig is None:
        import matplotlib.pyplot as plt
        side = min(4.0, 1.2 + 0.35 * max(tq, tk))
        fig = plt.figure(figsize=(side * ncols + 1.0, side * nrows + 0.4), layout="compressed")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for idx, ax in enumerate(axes.flat):
        if idx >= h:
            ax.set_visible(False)
            continue
        head_title = head_titles[idx] if head_titles else i18n.t("plots.head", h=idx)
        im = heatmap_frame(ax, (tq, tk), labels, y_labels, cmap=cmap, vmin=vmin, vmax=vmax, colorbar=False,
                           title=head_title, xlabel="" if idx // ncols < nrows - 1 else None,
                           ylabel="" if idx % ncols else None, **kwargs)
        im.set_data(weights[idx])
        if do_annotate:
            colors = text_colors(weights[idx], im.cmap, im.norm)
            for (i, j), value in np.ndenumerate(weights[idx]):
                ax.text(j, i, fmt.format(value), ha="center", va="center",
                        fontsize=cell_fontsize((tq, tk)) - 1, color=colors[i * tk + j])
    cbar = fig.colorbar(im, ax=axes.ravel().tolist(), fraction=0.03, pad=0.02)
    cbar.set_label(i18n.t("plots.weight"), fontsize=FONT["label"] - 1)
    if title:
        fig.suptitle(title, fontsize=FONT["title"])
    return fig


# --- vectors ----------------------------------------------------------------------------------
def _vectors(vectors) -> dict[str, np.ndarray]:
    if not isinstance(vectors, dict) or not vectors:
        raise TypeError(f"vectors: expected a non-empty dict {{label: (x, y)}}, got {describe(vectors)}")
    out = {}
    for label, v in vectors.items():
        arr = as_float_array(v, f"vectors[{label!r}]")
        if arr.shape != (2,):
            raise ValueError(f"vectors[{label!r}]: expected 2 numbers (x, y), got shape {arr.shape}")
        out[str(label)] = arr
    return out


MAX_LIMIT = 1e300        # the largest axis half-width: beyond it matplotlib's transforms overflow float64


def vector_limit(arrays, minimum: float = 1.0) -> float:
    """A symmetric axis limit that fits every vector with a margin for its label."""
    biggest = max([minimum] + [float(np.abs(a).max()) for a in arrays])
    if biggest > MAX_LIMIT / 1.25:
        raise ValueError(f"vectors: the axes reach at most ±{MAX_LIMIT:.0e}, got a number of {biggest:.3g}; "
                         "use smaller vectors")
    return 1.25 * biggest


def _cosine(a, b):
    """core.similarity.cosine, or None when one vector is zero (a plot then shows no angle)."""
    if not (np.any(a) and np.any(b)):
        return None
    return cosine(a, b)


def dot_text(a_label: str, b_label: str, a, b) -> str:
    """'a·b = …, cos θ = …' in the current language (cos θ undefined for a zero vector)."""
    with np.errstate(over="ignore", invalid="ignore"):
        dot = float(np.dot(a, b))
    if not math.isfinite(dot):
        raise FloatingPointError(f"{a_label}·{b_label} is beyond the largest float64 number "
                                 f"({np.finfo(float).max:.3g}); use smaller vectors")
    cosine = _cosine(a, b)
    cos = f"{cosine:.2f}" if cosine is not None else i18n.t("plots.undefined")
    return (i18n.t("plots.dot_product", a=a_label, b=b_label, dot=dot) + "\n"
            + i18n.t("plots.cosine", cos=cos))


def plot_vectors_2d(vectors, ax=None, *, show_dot="auto", colors=None, limit=None, title=None, **kwargs):
    """Arrows from the origin for a dict {label: (x, y)}, each labelled at its tip.

    show_dot: write the dot product and cosine of the first two vectors ("auto": when there are
    exactly two). limit: half-width of the square view (default: fits the vectors).
    kwargs go to `ax.quiver`. Returns the Axes.
    """
    vecs = _vectors(vectors)
    if show_dot == "auto":
        show_dot = len(vecs) == 2
    elif not isinstance(show_dot, (bool, np.bool_)):
        raise TypeError(f"show_dot: expected 'auto', True or False, got {describe(show_dot)}")
    if show_dot and len(vecs) < 2:
        raise ValueError(f"show_dot: needs at least two vectors, got {len(vecs)}")
    if "color" in kwargs:                       # quiver's own name for it: one colour for all
        if colors is not None:
            raise TypeError("plot_vectors_2d: pass either colors= (one per vector) or color=, not both")
        colors = [kwargs.pop("color")] * len(vecs)
    colors = list(colors) if colors is not None else [COLORS[i % len(COLORS)] for i in range(len(vecs))]
    if len(colors) != len(vecs):
        raise ValueError(f"colors: expected {len(vecs)} colours (one per vector), got {len(colors)}")
    ax = new_axes(ax, (5, 5))
    labels, arrays = list(vecs), np.array(list(vecs.values()))        # (N, 2)
    lim = vector_limit(arrays) if limit is None else positive_float(limit, "limit")
    if lim > MAX_LIMIT:
        raise ValueError(f"limit: the axes reach at most ±{MAX_LIMIT:.0e}, got {lim:.3g}")
    setup_vector_axes(ax, lim)
    ax.quiver(np.zeros(len(arrays)), np.zeros(len(arrays)), arrays[:, 0], arrays[:, 1], color=colors,
              **{"angles": "xy", "scale_units": "xy", "scale": 1, "width": 0.012, **kwargs})
    for label, v, c in zip(labels, arrays, colors):
        ax.text(*tip_position(v, lim), label, color=c, fontsize=FONT["label"], ha="center", va="center")
    if show_dot:
        ax.text(0.03, 0.97, dot_text(labels[0], labels[1], arrays[0], arrays[1]), transform=ax.transAxes,
                ha="left", va="top", fontsize=FONT["tick"],
                bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.85, "edgecolor": REFERENCE_COLOR})
    if title:
        ax.set_title(title, fontsize=FONT["title"])
    return ax


def setup_vector_axes(ax, lim: float) -> None:
    """Square view [-lim, lim]^2 with a light grid and the two axes through the origin."""
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.grid(True, color="#dddddd", linewidth=0.8)
    ax.axhline(0, color="#888888", linewidth=1)
    ax.axvline(0, color="#888888", linewidth=1)
    ax.tick_params(labelsize=FONT["tick"] - 1)


def tip_position(v, lim: float):
    """Where to write a vector's label: just beyond its tip, pushed outward."""
    norm = float(np.hypot(*v))
    direction = np.asarray(v) / norm if norm > 0 else np.array([0.0, 1.0])
    return np.asarray(v) + 0.08 * lim * direction


# --- positions and masks ----------------------------------------------------------------------
def plot_positional_encoding(table, ax=None, *, cmap=SIGNED_CMAP, vmin=None, vmax=None, colorbar=True,
                             title=None, **kwargs):
    """Heatmap of a position table (T, D): row p = position, column i = dimension.

    The colour scale is symmetric around 0 unless vmin/vmax are given. kwargs go to `ax.imshow`.
    Returns the Axes.
    """
    colorbar = check_flag(colorbar, "colorbar")
    table = as_float_array(table, "table")
    if table.ndim != 2 or table.size == 0:
        raise ValueError(f"table: expected a non-empty (T, D) table, got shape {table.shape}")
    if vmin is None or vmax is None:
        bound = float(np.abs(table).max()) or 1.0
        vmin = -bound if vmin is None else vmin
        vmax = bound if vmax is None else vmax
    ax = new_axes(ax, (8, 4.5))
    im = ax.imshow(table, cmap=cmap, vmin=vmin, vmax=vmax, **{"aspect": "auto", "interpolation": "nearest",
                                                               **kwargs})
    ax.set_xlabel(i18n.t("plots.dimension"), fontsize=FONT["label"])
    ax.set_ylabel(i18n.t("plots.position"), fontsize=FONT["label"])
    ax.tick_params(labelsize=FONT["tick"])
    if title:
        ax.set_title(title, fontsize=FONT["title"])
    if colorbar:
        cbar = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
        cbar.ax.tick_params(labelsize=FONT["tick"] - 1)
        cbar.set_label(i18n.t("plots.pe_value"), fontsize=FONT["label"] - 1)
    return ax


def plot_mask(mask, x_labels=None, y_labels=None, ax=None, *, annotate="auto", legend=True, title=None, **kwargs):
    """Show a boolean mask (Tq, Tk), True = may attend: visible cells dark blue, masked cells grey
    and marked "−∞" (what is added to their scores before softmax).

    Leading size-1 axes are dropped, so a padding mask's row `padding_mask(...)[b]` works.
    kwargs go to `ax.imshow`. Returns the Axes.
    """
    legend = check_flag(legend, "legend")
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(f"mask: expected a boolean array (True = may attend), got {describe(mask)}")
    while arr.ndim > 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"mask: expected a non-empty (Tq, Tk) mask, got shape {np.shape(mask)}"
                         + ("; pick one sequence first, e.g. mask[0]" if arr.ndim > 2 else ""))
    tq, tk = arr.shape
    x_labels, y_labels = token_labels(x_labels, y_labels, tq, tk)
    do_annotate = annotate_flag(annotate, arr.shape)
    ax = new_axes(ax, heatmap_figsize(tq, tk, colorbar=False))
    im = heatmap_frame(ax, arr.shape, x_labels, y_labels, cmap=ListedColormap(MASK_COLORS), vmin=0, vmax=1,
                       colorbar=False, title=title, **kwargs)
    im.set_data(arr.astype(float))
    if do_annotate:
        for i, j in zip(*np.nonzero(~arr)):
            ax.text(j, i, "−∞", ha="center", va="center", fontsize=cell_fontsize(arr.shape), color=NOTE_COLOR)
    if legend:
        handles = [Patch(facecolor=MASK_COLORS[1], label=i18n.t("plots.visible")),
                   Patch(facecolor=MASK_COLORS[0], edgecolor="#aaaaaa", label=i18n.t("plots.masked"))]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=FONT["tick"] - 1,
                  frameon=False)
    return ax
