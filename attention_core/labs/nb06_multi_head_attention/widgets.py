"""The widgets of notebook 06: pick one attention head and see its heatmap; move the number of heads and the
context length and see what the trade-off costs."""
from __future__ import annotations

import html

import ipywidgets as widgets

from attention_core.core.validation import as_float_array
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    HeatmapView,
    Panel,
    error_panel,
    title_html,
    watch,
    widget_builder,
)


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


# --- 06: the trade-off of the number of heads -------------------------------------------------------
TRADEOFF_HEADS = (1, 2, 4, 8, 16, 32, 64)
TRADEOFF_TOKENS = (256, 512, 1024, 2048, 4096, 8192, 16384)


def tradeoff_state(h: int, n_tokens: int, d_model: int = 512) -> dict:
    """One choice of h at this d_model and context length T (float32, one sequence), beside h = 1: the width of a
    head d_k, the layer's parameters (counted in a real `init_multihead`), the bytes of the (h, T, T) weights and
    the multiply-adds of the two matrix products, h * 2 T^2 d_k."""
    from attention_core.labs.nb06_multi_head_attention.heads_lab import tradeoff_rows
    rows = tradeoff_rows(d_model, heads=(h, 1), n_tokens=n_tokens, measure=False)   # raises when h does not divide
    chosen, one_head = ({"h": r["h"], "d_k": r["d_k"], "params": r["params"], "weights_bytes": r["weights_bytes"],
                         "macs": r["matmul_macs"]} for r in rows)
    return {"n_tokens": rows[0]["n_tokens"], "d_model": rows[0]["d_model"], "chosen": chosen, "one_head": one_head}


@widget_builder
def tradeoff_widget(h: int = 8, n_tokens: int = 1024, d_model: int = 512) -> Panel:
    """Sliders for the number of heads h and the context length T (notebook 06): the table of what changes (d_k,
    the weights tensor) and what does not (the parameters, the multiply-adds), against one head."""
    try:
        if h not in TRADEOFF_HEADS or n_tokens not in TRADEOFF_TOKENS:
            raise ValueError(f"h, n_tokens: expected values from {TRADEOFF_HEADS} and {TRADEOFF_TOKENS}, "
                             f"got {h!r} and {n_tokens!r}")
        tradeoff_state(h, n_tokens, d_model)                        # d_model checked before anything is drawn
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    style = {"description_width": "initial"}
    heads = widgets.SelectionSlider(options=list(TRADEOFF_HEADS), value=h, description=i18n.t("heads_lab.h"),
                                    continuous_update=True, style=style, layout={"width": "420px"})
    tokens = widgets.SelectionSlider(options=[(f"{t:,}", t) for t in TRADEOFF_TOKENS], value=n_tokens,
                                     description=i18n.t("heads_lab.tokens"), continuous_update=True, style=style,
                                     layout={"width": "420px"})
    panel = Panel([title_html("heads_lab.tradeoff_widget_title", d=d_model), heads, tokens], name="tradeoff",
                  controls={"h": heads, "n_tokens": tokens})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = tradeoff_state(heads.value, tokens.value, d_model)
        mine, one = s["chosen"], s["one_head"]
        mib = 2 ** 20
        per = 1e8 if i18n.get_language() == "zh" else 1e9                # Chinese counts in 亿, English in billions
        rows = [(i18n.t("heads_lab.d_k"), f"{mine['d_k']:,}", f"{one['d_k']:,}"),
                (i18n.t("heads_lab.params"), f"{mine['params']:,}", f"{one['params']:,}"),
                (i18n.t("heads_lab.weights_mib", t=f"{s['n_tokens']:,}"), f"{mine['weights_bytes'] / mib:,.1f}",
                 f"{one['weights_bytes'] / mib:,.1f}"),
                (i18n.t("heads_lab.macs_g"), f"{mine['macs'] / per:,.2f}", f"{one['macs'] / per:,.2f}")]
        cell = "<td style='text-align:right;padding-left:16px'>"
        head = (f"<tr><th></th><th style='text-align:right'>h = {mine['h']}</th>"
                f"<th style='text-align:right'>h = 1</th></tr>")
        body = "".join(f"<tr><td>{html.escape(label)}</td>{cell}{a}</td>{cell}{b}</td></tr>" for label, a, b in rows)
        panel.readout.value = f"<table style='font-size:15px'>{head}{body}</table>"
        return s

    return watch(panel, compute)
