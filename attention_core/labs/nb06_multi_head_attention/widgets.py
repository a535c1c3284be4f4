"""The head widget: pick one attention head and see its heatmap (notebook 06)."""
from __future__ import annotations

import ipywidgets as widgets

from attention_core.core.validation import as_float_array
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import DPI, HeatmapView, Panel, error_panel, watch, widget_builder


# --- 06: heads --------------------------------------------------------------------------------
@widget_builder
def head_widget(weights, labels=None, *, y_labels=None, head_names=None, dpi: int = DPI) -> Panel:
    """Pick one head of weights (H, Tq, Tk) and see its heatmap (notebook 06).
    head_names: optional H names for the menu (default "head 0", ...: heads are numbered from 0, as their index)."""
    try:
        weights = as_float_array(weights, "weights")
        if weights.ndim != 3 or weights.size == 0:
            raise ValueError(f"weights: expected a non-empty (H, Tq, Tk) array, got shape {weights.shape}")
        h = weights.shape[0]
        names = (plots.tick_labels(head_names, h, "head_names", "head")
                 or [i18n.t("plots.head", h=i) for i in range(h)])
        view = HeatmapView(weights[0], labels, y_labels=y_labels, dpi=dpi)
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    head = widgets.Dropdown(options=[(name, i) for i, name in enumerate(names)], value=0)
    panel = Panel([head, view.widget], name="head", controls={"head": head}, images={"weights": view.widget})
    panel.children += (panel.message,)
    panel.view = view

    def compute():
        view.update(weights[head.value])
        return {"head": head.value, "weights": weights[head.value]}

    return watch(panel, compute)
