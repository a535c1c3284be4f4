"""Experiments of notebook 04 (masking): naive masked softmax, padded batches, future leaks, a KV cache.

The masks themselves live in `attention_core.core.masks` and the masked softmax in `attention_core.core.softmax`;
this module only builds the experiments that show why they are needed. Everything is a pure function
of its inputs (randomness from a seed you pass); the figure helpers take `ax=` / `fig=`, return it
and never call `show()`.

    steps = masked_softmax_steps(scores, mask)                    # -inf, shift, exp, divide
    w = naive_masked_softmax(scores, mask)                        # a fully masked row -> NaN
    influence = influence_matrix(lambda x: layer(x), x, seed=1)    # (T, T): does output t move when token s changes?
    out, steps = decode_with_kv_cache(x, params, chunks=[4, 1, 1]) # prompt in one pass, then one token a step
"""
from __future__ import annotations

import numpy as np

from attention_core.core import hooked
from attention_core.core.hooked import NO_HOOKS, NUMPY_OPS
from attention_core.core.masks import causal_mask
from attention_core.core.multihead import MultiHeadParams, multi_head_attention
from attention_core.core.validation import (
    as_bool_mask,
    as_float_array,
    as_generator,
    check_broadcast,
    check_flag,
    checked,
    describe,
    positive_int,
)
from attention_core.teaching import i18n, plots
from attention_core.teaching.fonts import use_cjk_font


# --- masked softmax, the way a first attempt writes it ---------------------------------------------
def masked_softmax_steps(scores, mask, fill: float = -np.inf) -> dict:
    """Every intermediate of the hand-written masked softmax along the last axis.

    The usual version: write `fill` into the hidden scores (mask == False), subtract the row
    maximum, exponentiate, divide. exp(-inf) = 0, so hidden keys get weight exactly 0. But a row
    whose keys are ALL hidden has maximum -inf, and -inf - (-inf) = NaN: the whole row becomes NaN.
    With a large finite fill (-1e9) there is no NaN, but such a row is spread evenly over the keys
    it was told not to see. `attention_core.softmax(scores, mask=mask)` returns an all-zero row
    instead. Warnings of the NaN case are silenced on purpose: the NaN is the lesson.
    scores (..., Tk) finite; mask boolean, broadcastable to scores (True = may attend).
    Returns a dict of arrays of the scores' shape (max and sum: 1 along the last axis):
    masked (scores with the fill), max, shifted, exp, sum, weights.
    """
    scores = as_float_array(scores, "scores")
    mask = as_bool_mask(mask)
    check_broadcast(mask.shape, scores.shape, "mask", "scores of shape")
    if isinstance(fill, bool) or not isinstance(fill, (int, float, np.floating, np.integer)) or np.isnan(fill) \
            or fill >= 0:
        raise ValueError(f"fill: expected a very negative number or -inf, got {describe(fill)}")
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        masked = np.where(mask, scores, float(fill))                # hidden scores -> fill
        row_max = masked.max(axis=-1, keepdims=True)
        shifted = masked - row_max                                  # -inf - (-inf) = NaN on a hidden row
        e = np.exp(shifted)                                         # exp(-inf) = 0
        total = e.sum(axis=-1, keepdims=True)
        weights = e / total
    return {"masked": masked, "max": row_max, "shifted": shifted, "exp": e, "sum": total, "weights": weights}


def naive_masked_softmax(scores, mask, fill: float = -np.inf) -> np.ndarray:
    """The weights of `masked_softmax_steps`: NaN on a fully hidden row when fill = -inf."""
    return masked_softmax_steps(scores, mask, fill)["weights"]


def naive_masked_attention(q, k, v, mask, fill: float = -np.inf):
    """Hand-written masked attention: naive_masked_softmax(Q K^T / sqrt(Dk), mask) V.

    Identical to `attention_core.scaled_dot_product_attention` while every query sees at least
    one key; a query that sees none gets a NaN row (fill = -inf), and that NaN spreads: in the
    next layer, 0 x NaN = NaN, so even a weight of exactly 0 on it poisons the sum.
    q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv), mask broadcastable to (..., Tq, Tk).
    Returns (output (..., Tq, Dv), weights (..., Tq, Tk)); NaN is allowed in q, k, v.
    """
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2 or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(f"q, k, v: expected (..., Tq, Dk), (..., Tk, Dk), (..., Tk, Dv), got {q.shape}, "
                         f"{k.shape}, {v.shape}")
    with np.errstate(invalid="ignore"):
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])      # (..., Tq, Tk)
        mask = as_bool_mask(mask)
        check_broadcast(mask.shape, scores.shape, "mask", "the scores (..., Tq, Tk) of shape")
        masked = np.where(mask, scores, float(fill))
        row_max = masked.max(axis=-1, keepdims=True)
        e = np.exp(masked - row_max)                                              # NaN on a hidden row
        weights = e / e.sum(axis=-1, keepdims=True)
        return np.matmul(weights, v), weights                                     # (..., Tq, Dv)


# --- batches of sequences of different lengths ------------------------------------------------------
def pad_batch(sequences, pad_value: float = 0.0, max_len: int | None = None):
    """Stack B sequences of shapes (T_b, D) into one (B, T, D) array, padded at the end with `pad_value`.

    Returns (batch (B, T, D), lengths (B,) int). T = the longest length unless max_len is given.
    The padded rows are real numbers the attention would happily use: only a padding mask
    (`attention_core.padding_mask(lengths)`) keeps them out.
    """
    if not isinstance(sequences, (list, tuple)) or not sequences:
        raise TypeError(f"sequences: expected a non-empty list of (T, D) arrays, got {describe(sequences)}")
    seqs = [as_float_array(s, f"sequences[{i}]", ndim=2) for i, s in enumerate(sequences)]
    widths = {s.shape[1] for s in seqs}
    if len(widths) != 1:
        raise ValueError(f"sequences: expected one width D, got widths {sorted(widths)}")
    lengths = np.array([s.shape[0] for s in seqs])
    t = int(lengths.max()) if max_len is None else positive_int(max_len, "max_len")
    if lengths.max() > t:
        raise ValueError(f"max_len: the longest sequence ({lengths.max()}) exceeds max_len ({t})")
    batch = np.full((len(seqs), t, widths.pop()), float(pad_value))   # (B, T, D)
    for b, s in enumerate(seqs):
        batch[b, :len(s)] = s
    return batch, lengths


# --- does the future leak? ------------------------------------------------------------------------
def influence_matrix(fn, x, *, seed: int = 0, scale: float = 1.0) -> np.ndarray:
    """How much output position t moves when input token s is replaced: a (T, T) matrix [t, s].

    fn maps a sequence x (T, D) to outputs (T, Dv) (for example one attention layer). For each
    s, row s of x is replaced by a fresh random vector (seeded, standard normal times `scale`)
    and entry [t, s] = max over features of |fn(x')[t] - fn(x)[t]|. Exactly 0 means output t
    cannot see token s. With a causal mask the non-zero entries form the lower triangle, the
    same pattern as the mask; without one every entry is non-zero.
    """
    x = as_float_array(x, "x", ndim=2)
    if not callable(fn):
        raise TypeError(f"fn: expected a function x (T, D) -> (T, Dv), got {describe(fn)}")
    rng = as_generator(seed)
    base = np.asarray(fn(x), dtype=float)
    if base.ndim != 2 or base.shape[0] != x.shape[0]:
        raise ValueError(f"fn: expected outputs of shape (T={x.shape[0]}, Dv), got {base.shape}")
    out = np.empty((x.shape[0], x.shape[0]))
    for s in range(x.shape[0]):
        changed = x.copy()
        changed[s] = scale * rng.normal(size=x.shape[1])            # a different token at position s
        out[:, s] = np.abs(np.asarray(fn(changed), dtype=float) - base).max(axis=1)
    return out                                                      # (T outputs, T changed tokens)


# --- inference with a KV cache --------------------------------------------------------------------
def _layers(params) -> list:
    layers = [params] if isinstance(params, MultiHeadParams) else list(params) \
        if isinstance(params, (list, tuple)) else None
    if not layers or not all(isinstance(p, MultiHeadParams) for p in layers):
        raise TypeError(f"params: expected MultiHeadParams or a list of them (see init_multihead), "
                        f"got {describe(params)}")
    return layers


def stacked_attention(x, params, mask=None) -> np.ndarray:
    """The full computation: x (T, D) through one or several self-attention layers in one pass.

    params: MultiHeadParams or a list of them (a stack of attention layers, each feeding the next;
    no feed-forward part, to keep the experiment small). mask (T, T) is used by every layer.
    Returns the last layer's output (T, D).
    """
    h = as_float_array(x, "x", ndim=2)
    for p in _layers(params):
        h, _ = multi_head_attention(h, h, h, p, mask=mask)         # (T, D)
    return h


def kv_cache_inputs(x, params, chunks, causal: bool = True) -> dict:
    """decode_with_kv_cache's arguments, checked: x (T, D), params as a list of layers, chunk sizes summing to T."""
    causal = check_flag(causal, "causal")
    x = as_float_array(x, "x", ndim=2)
    layers = _layers(params)
    sizes = [positive_int(c, f"chunks[{i}]") for i, c in enumerate(chunks)]
    if sum(sizes) != x.shape[0]:
        raise ValueError(f"chunks: expected sizes summing to T = {x.shape[0]}, got {sizes} (sum {sum(sizes)})")
    return dict(x=x, params=layers, chunks=sizes, causal=causal)


@checked(kv_cache_inputs)
def decode_with_kv_cache(x, params, chunks, *, causal: bool = True):
    """Run x (T, D) through the layer(s) chunk by chunk, keeping the keys and values in a cache.

    chunks: sizes of the pieces that arrive one after the other, summing to T; [4, 1, 1] is a
    prompt of 4 tokens processed in one pass, then two generated tokens one at a time. At each
    step only the new tokens are projected; their keys and values are appended to each layer's
    cache (`core.hooked.attention` with past=: the model's own attention), and the Tq new queries
    attend to all Tk cached keys under causal_mask(Tq, Tk, offset=Tk - Tq): new token i sees the past
    and the new tokens up to itself.
    causal=False drops that mask (a step then lets its tokens see each other's future).
    Returns (output (T, D) of the last layer, steps: one dict per chunk with start, stop and
    mask (Tq, Tk) as used (all True when causal=False)).
    """
    cache = [None] * len(params)   # [en] per layer: (K, V), each (H, Tk, Dh) [zh] 每层一份：(K, V)，各为 (H, Tk, Dh)
    outputs, steps, start = [], [], 0
    for size in chunks:
        stop = start + size
        h = x[start:stop]                           # [en] (Tq, D): only the new tokens [zh] (Tq, D)：只有新 token
        t_q, t_k = size, stop
        mask = causal_mask(t_q, t_k, offset=t_k - t_q) if causal else np.ones((t_q, t_k), dtype=bool)
        for n, p in enumerate(params):
            # [en] the new tokens' keys and values join the cache; (Tq, D) goes to the next layer
            # [zh] 新 token 的 Key 和 Value 加入缓存；(Tq, D) 交给下一层
            h, cache[n] = hooked.attention(h, h, h, p.weights, p.n_heads, mask, NO_HOOKS, NUMPY_OPS, past=cache[n])
        outputs.append(h)
        steps.append({"start": start, "stop": stop, "mask": mask})
        start = stop
    return np.concatenate(outputs, axis=0), steps                   # (T, D)


# --- figures ----------------------------------------------------------------------------------------
def _panel_labels(labels, shape):
    """Key labels labels[:Tk] and query labels labels[Tk - Tq:Tk]: the queries are the newest keys."""
    if labels is None:
        return None, None
    tq, tk = shape
    return list(labels[:tk]), list(labels[tk - tq:tk])


def plot_mask_grid(masks, labels=None, *, titles=None, fig=None):
    """Several boolean masks side by side (one `plots.plot_mask` each; the legend on the last).

    masks: a list of (Tq, Tk) masks (a padding mask's (1, Tk) row is fine). labels: the tokens of
    the longest sequence, or one list of tokens per mask (the sequences of a padded batch each have
    their own words and pads); a (Tq, Tk) panel shows labels[:Tk] on the keys and labels[Tk - Tq:Tk]
    on the queries (the queries are the newest positions, as with a KV cache). Returns the Figure.
    """
    if not isinstance(masks, (list, tuple)) or not masks:
        raise TypeError(f"masks: expected a non-empty list of boolean masks, got {describe(masks)}")
    arrays = []
    for i, m in enumerate(masks):
        arr = as_bool_mask(m, f"masks[{i}]")
        while arr.ndim > 2 and arr.shape[0] == 1:
            arr = arr[0]
        arrays.append(arr if arr.ndim == 2 else arr.reshape(1, -1))
    titles = plots.tick_labels(titles, len(arrays), "titles", "mask")
    per_panel = labels is not None and len(labels) > 0 and isinstance(labels[0], (list, tuple))
    if per_panel and len(labels) != len(arrays):
        raise ValueError(f"labels: expected one list of tokens per mask ({len(arrays)}), got {len(labels)}")
    panel_labels = list(labels) if per_panel else [labels] * len(arrays)
    for i, (lab, arr) in enumerate(zip(panel_labels, arrays)):
        if lab is not None and len(lab) < arr.shape[1]:
            raise ValueError(f"labels: expected at least {arr.shape[1]} tokens for mask {i}, got {len(lab)}")
    use_cjk_font()
    if fig is None:
        import matplotlib.pyplot as plt
        width = sum(0.9 + 0.55 * a.shape[1] for a in arrays) + 1.8
        height = 1.6 + 0.5 * max(a.shape[0] for a in arrays)
        fig = plt.figure(figsize=(min(width, 14.0), height), layout="compressed")
    axes = fig.subplots(1, len(arrays), squeeze=False,
                        gridspec_kw={"width_ratios": [a.shape[1] for a in arrays]})[0]
    for n, (ax, arr) in enumerate(zip(axes, arrays)):
        x_labels, y_labels = _panel_labels(panel_labels[n], arr.shape)
        plots.plot_mask(arr, x_labels, y_labels, ax=ax, legend=n == len(arrays) - 1,
                        title=titles[n] if titles else None)
        if n:
            ax.set_ylabel("")
    return fig


def plot_influence(influences, labels=None, *, titles=None, fig=None, fmt="{:.2f}"):
    """Influence matrices (T, T) from `influence_matrix` side by side, on one colour scale.

    Cell [t, s]: how far output t moved when token s was replaced. Exact zeros are grey and
    marked "0" (output t cannot see token s); other cells are coloured and carry their value.
    Returns the Figure.
    """
    if not isinstance(influences, (list, tuple)) or not influences:
        raise TypeError(f"influences: expected a non-empty list of (T, T) matrices, got {describe(influences)}")
    mats = [plots.as_matrix(m, f"influences[{i}]") for i, m in enumerate(influences)]
    if any((m < 0).any() for m in mats):
        raise ValueError("influences: expected non-negative changes (from influence_matrix)")
    titles = plots.tick_labels(titles, len(mats), "titles", "matrix")
    vmax = max(float(m.max()) for m in mats) or 1.0
    from matplotlib import colormaps
    cmap = colormaps["Oranges"].with_extremes(bad=plots.MASK_COLORS[0])   # exact zeros (masked out) grey
    use_cjk_font()
    if fig is None:
        import matplotlib.pyplot as plt
        tq, tk = mats[0].shape
        fig = plt.figure(figsize=(min(14.0, len(mats) * (1.4 + 0.6 * tk) + 1.2), 1.8 + 0.55 * tq),
                         layout="compressed")
    axes = fig.subplots(1, len(mats), squeeze=False)[0]
    for n, (ax, m) in enumerate(zip(axes, mats)):
        tq, tk = m.shape
        x_labels, y_labels = plots.token_labels(labels, None, tq, tk) if labels is not None else (None, None)
        shown = np.ma.masked_equal(m, 0.0)                          # exact zeros drawn grey
        im = plots.heatmap_frame(ax, m.shape, x_labels, y_labels, cmap=cmap, vmin=0.0, vmax=vmax,
                                 colorbar=False, title=titles[n] if titles else None,
                                 xlabel=i18n.t("masking_lab.changed_token"),
                                 ylabel=i18n.t("masking_lab.output_position") if n == 0 else "")
        im.set_data(shown)
        colors = plots.text_colors(m, im.cmap, im.norm)
        size = plots.cell_fontsize(m.shape) - 1
        for (i, j), value in np.ndenumerate(m):
            text = "0" if value == 0 else fmt.format(value)
            ax.text(j, i, text, ha="center", va="center", fontsize=size,
                    color=plots.NOTE_COLOR if value == 0 else colors[i * tk + j])
    cbar = fig.colorbar(im, ax=list(axes), fraction=0.03, pad=0.02)
    cbar.set_label(i18n.t("masking_lab.change"), fontsize=plots.FONT["label"] - 1)
    cbar.ax.tick_params(labelsize=plots.FONT["tick"] - 1)
    return fig


def plot_cache_steps(steps, labels=None, ax=None, *, title=None):
    """The steps of `decode_with_kv_cache` drawn into one (T, T) grid: row i = query i.

    Each step's visible cells take that step's colour; cells its mask hides are grey and marked
    "−∞"; cells of keys that were not in the cache yet when the row was computed are hatched.
    With the causal mask, the coloured cells together form exactly the causal triangle.
    Returns the Axes.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch, Rectangle

    if not isinstance(steps, (list, tuple)) or not steps or not all(isinstance(s, dict) for s in steps):
        raise TypeError(f"steps: expected the list of step dicts from decode_with_kv_cache, got {describe(steps)}")
    t = int(steps[-1]["stop"])
    code = np.full((t, t), -1)                                      # -1: key not in the cache yet
    for n, st in enumerate(steps, 1):
        start, stop, m = int(st["start"]), int(st["stop"]), as_bool_mask(st["mask"], "steps[].mask")
        if m.shape != (stop - start, stop):
            raise ValueError(f"steps: step {n} has a mask of shape {m.shape}, expected {(stop - start, stop)}")
        code[start:stop, :stop] = np.where(m, n, 0)                 # 0: hidden by the mask
    x_labels, y_labels = plots.token_labels(labels, None, t, t)
    colors = ["#FFFFFF", plots.MASK_COLORS[0]] + [plots.COLORS[(n - 1) % len(plots.COLORS)]
                                                  for n in range(1, len(steps) + 1)]
    width, height = plots.heatmap_figsize(t, t, colorbar=False)
    ax = plots.new_axes(ax, (width + 3.2, height))                 # room for the legend on the right
    im = plots.heatmap_frame(ax, (t, t), x_labels, y_labels, cmap=ListedColormap(colors), vmin=-1.5,
                             vmax=len(steps) + 0.5, colorbar=False, title=title)
    im.set_data(code)
    size = plots.cell_fontsize((t, t))
    for (i, j), c in np.ndenumerate(code):
        if c == 0:
            ax.text(j, i, "−∞", ha="center", va="center", fontsize=size, color=plots.NOTE_COLOR)
        elif c == -1:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="#c8c8c8",
                                   linewidth=0))
    handles = [Patch(facecolor=colors[n + 1], label=i18n.t("masking_lab.step", k=n, tq=st["stop"] - st["start"],
                                                           tk=st["stop"]))
               for n, st in enumerate(steps, 1)]
    handles += [Patch(facecolor=plots.MASK_COLORS[0], edgecolor="#aaaaaa", label=i18n.t("plots.masked")),
                Patch(facecolor="white", edgecolor="#aaaaaa", hatch="///", label=i18n.t("masking_lab.not_cached"))]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=plots.FONT["tick"] - 1,
              frameon=False)
    return ax
