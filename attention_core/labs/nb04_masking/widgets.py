"""The mask widget: the same scores under no, causal, padding, sliding-window masks (notebook 04)."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from attention_core.core.masks import causal_mask, combine_masks, padding_mask, sliding_window_mask
from attention_core.core.softmax import softmax
from attention_core.core.validation import as_generator, positive_int
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    HeatmapView,
    Panel,
    check_side,
    error_panel,
    watch,
    widget_builder,
)

MASK_KINDS = ("none", "causal", "padding", "window", "causal_padding")
MASK_LABELS = {"none": "widgets.mask_none", "causal": "widgets.mask_causal", "padding": "widgets.mask_padding",
               "window": "widgets.mask_window", "causal_padding": "widgets.mask_causal_padding"}   # i18n keys


# --- 04: masks --------------------------------------------------------------------------------
def mask_state(kind: str, scores, length=None, window=None) -> dict:
    """Weights of a (T, T) score matrix under one kind of mask.

    kind: "none", "causal", "padding" (keys >= length hidden), "window" (causal sliding window
    of `window` keys), "causal_padding" (both). Returns mask (T, T) bool (True = visible),
    weights (T, T) = softmax(scores, mask) and visible (T,) = keys each query may see.
    """
    scores = plots.as_matrix(scores, "scores")
    t = scores.shape[1]
    if scores.shape[0] != t:
        raise ValueError(f"scores: expected a square (T, T) matrix, got shape {scores.shape}")
    if kind not in MASK_KINDS:
        raise ValueError(f"kind: expected one of {MASK_KINDS}, got {kind!r}")
    pad = None
    if kind in ("padding", "causal_padding"):
        length = positive_int(length, "length")
        if length > t:
            raise ValueError(f"length: expected at most T = {t}, got {length}")
        pad = padding_mask([length], t)[0]                                 # (1, T)
    causal = causal_mask(t) if kind in ("causal", "causal_padding") else None
    win = sliding_window_mask(t, positive_int(window, "window")) if kind == "window" else None
    if kind == "none":
        mask = np.ones((t, t), dtype=bool)
    else:
        mask = np.broadcast_to(combine_masks(causal, pad, win), (t, t)).copy()
    weights = softmax(scores, mask=mask)
    return {"kind": kind, "mask": mask, "weights": weights, "visible": mask.sum(axis=1)}


@widget_builder
def mask_widget(T: int = 6, labels=None, *, scores=None, seed: int = 0, dpi: int = DPI) -> Panel:
    """Pick a mask (none, causal, padding, sliding window, causal + padding) and see the weights
    of the same scores change; masked cells are grey (notebook 04). scores: a (T, T) matrix
    (then T is taken from it); default a seeded standard-normal one."""
    try:
        if scores is None:
            t = check_side(T, "T")
            scores = as_generator(seed).normal(size=(t, t))                 # (T, T), seeded
        scores = plots.as_matrix(scores, "scores")
        t = mask_state("none", scores)["mask"].shape[0]
        labels = plots.tick_labels(labels, t, "labels", "token")
        view = HeatmapView(None, labels, dpi=dpi)
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    kind = widgets.Dropdown(options=[(i18n.t(MASK_LABELS[k]), k) for k in MASK_KINDS], value="causal",
                            description=i18n.t("widgets.mask_kind"))
    length = widgets.IntSlider(value=max(1, t - 2), min=1, max=t, description=i18n.t("widgets.length"),
                               style={"description_width": "initial"})
    window = widgets.IntSlider(value=min(3, t), min=1, max=t, description=i18n.t("widgets.window"),
                               style={"description_width": "initial"})
    panel = Panel([widgets.HBox([kind, length, window]), view.widget],
                  name="mask", controls={"kind": kind, "length": length, "window": window},
                  images={"weights": view.widget})
    panel.children += (panel.readout, panel.message)
    panel.view = view

    def compute():
        length.layout.display = "" if kind.value in ("padding", "causal_padding") else "none"
        window.layout.display = "" if kind.value == "window" else "none"
        s = mask_state(kind.value, scores, length=length.value, window=window.value)
        view.update(s["weights"], labels, mask=s["mask"])
        counts = ", ".join(str(int(c)) for c in s["visible"])
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(
            i18n.t("widgets.mask_readout", counts=counts)) + "</div>"
        return s

    return watch(panel, compute)
