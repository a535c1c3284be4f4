"""The one-attention-step widget of notebook 01: every number of q·k -> softmax -> Σ α·v."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import FancyArrowPatch

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.validation import as_float_array, check_flag
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    check_range,
    error_panel,
    float_slider,
    fmt_num,
    nice_limit,
    png_image,
    side_position,
    title_html,
    watch,
    widget_builder,
)


# --- 01: one attention step, every number ----------------------------------------------------
def attention_step_state(q, keys, values, scale=None) -> dict:
    """One query through attention, keeping every intermediate number.

    q (Dk,), keys (Tk, Dk), values (Tk, Dv) -> dict with scores = keys @ q (Tk,),
    scale (1/sqrt(Dk) unless given), scaled (Tk,), weights = softmax(scaled) (Tk,),
    contributions = weights[:, None] * values (Tk, Dv) and output = their sum (Dv,).
    The weights and output come from `scaled_dot_product_attention` itself.
    """
    q = as_float_array(q, "q", ndim=1)
    keys = as_float_array(keys, "keys", ndim=2)
    values = as_float_array(values, "values", ndim=2)
    output, weights = scaled_dot_product_attention(q[None, :], keys, values, scale=scale)  # (1, Dv), (1, Tk)
    used_scale = 1.0 / math.sqrt(q.shape[0]) if scale is None else float(scale)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = keys @ q                                                   # (Tk,) before the scale
    if not np.isfinite(scores).all():                  # the scaled scores fit, the table's raw q·k does not
        raise FloatingPointError(f"q·k is beyond the largest float64 number ({np.finfo(float).max:.3g}) "
                                 "before the scale; use smaller q or keys")
    weights = weights[0]
    return {"q": q, "keys": keys, "values": values, "d": q.shape[0], "scale": used_scale, "scores": scores,
            "scaled": scores * used_scale, "weights": weights, "contributions": weights[:, None] * values,
            "output": output[0]}


def _step_table(s, names) -> str:
    """HTML table: one column per key, one row per step of the computation."""
    cell = "padding:2px 10px;text-align:right;font-family:monospace"
    head = "".join(f"<th style='{cell}'>{html.escape(n)}</th>" for n in names)
    rows = [("widgets.key", {}, [fmt_num(k, 2) for k in s["keys"]]),
            ("widgets.score", {}, [fmt_num(x) for x in s["scores"]]),
            ("widgets.scaled", {"d": s["d"]}, [fmt_num(x) for x in s["scaled"]]),
            ("widgets.weight", {}, [fmt_num(x) for x in s["weights"]]),
            ("widgets.value", {}, [fmt_num(v, 2) for v in s["values"]]),
            (None, {}, [fmt_num(c) for c in s["contributions"]])]
    body = ""
    for key, fields, cells in rows:
        label = "α·v" if key is None else i18n.t(key, **fields)
        body += (f"<tr><th style='padding:2px 10px;text-align:left'>{html.escape(label)}</th>"
                 + "".join(f"<td style='{cell}'>{c}</td>" for c in cells) + "</tr>")
    output = html.escape(i18n.t("widgets.output")) + f" = <b>{fmt_num(s['output'])}</b>"
    total = html.escape(i18n.t("widgets.sum_check", total=fmt_num(s["weights"].sum())))
    return (f"<table style='font-size:15px;border-collapse:collapse'><tr><th></th>{head}</tr>{body}</table>"
            f"<div style='font-size:16px;margin-top:6px'>{output} &nbsp; "
            f"<span style='color:#666'>{total}</span></div>")


@widget_builder
def attention_step_widget(q=(1.0, 0.0), keys=((1.0, 0.0), (0.0, 1.0)), values=((2.0, 0.0), (0.0, 4.0)),
                          labels=None, *, edit_values: bool = True, limit=None, dpi: int = DPI) -> Panel:
    """Move q (and the values) with sliders; see scores, scaled scores, softmax weights and the
    output change together (notebook 01). Defaults are the worked example of seed 002:
    q=[1,0], k1=[1,0], k2=[0,1], v1=[2,0], v2=[0,4] -> weights [0.670, 0.330], output [1.340, 1.321].
    labels: optional token names of the keys. Plots appear for 2-D q/k (and 2-D values).
    """
    try:
        edit_values = check_flag(edit_values, "edit_values")
        s0 = attention_step_state(q, keys, values)
        tk, dk, dv = s0["keys"].shape[0], s0["d"], s0["values"].shape[1]
        names = [f"k{j + 1}" for j in range(tk)] if labels is None else plots.tick_labels(labels, tk, "labels", "key")
        if limit is None:       # slider ranges: 1.5x the largest input, q/keys and values apart
            qk = np.concatenate([s0["q"], s0["keys"].ravel()])
            q_limit = check_range(nice_limit(qk), "q and keys", largest=np.abs(qk).max())
            v_limit = check_range(nice_limit(s0["values"], factor=1.2), "values", largest=np.abs(s0["values"]).max())
        else:
            q_limit = v_limit = check_range(limit, "limit")
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    keys_arr = s0["keys"]
    controls = {f"q{i}": float_slider(f"q[{i}]", s0["q"][i], q_limit) for i in range(dk)}
    if edit_values:
        controls.update({f"v{j}_{i}": float_slider(f"v{j + 1}[{i}]", s0["values"][j, i], v_limit)
                         for j in range(tk) for i in range(dv)})
    panels = (["query"] if dk == 2 else []) + ["weights"] + (["values"] if dv == 2 else [])
    live = LiveFigure((3.3 * len(panels), 3.6), dpi=dpi)
    axes = dict(zip(panels, np.atleast_1d(live.fig.subplots(1, len(panels)))))
    dyn = {}
    if "query" in axes:
        ax, lim = axes["query"], 1.15 * q_limit
        plots.setup_vector_axes(ax, lim)
        ax.set_title(i18n.t("widgets.query_panel"), fontsize=plots.FONT["label"])
        for j, k in enumerate(keys_arr):
            ax.text(*plots.tip_position(k, lim), names[j], color="#666666", fontsize=plots.FONT["tick"],
                    ha="center", va="center")
        dyn["q"] = live.animate(ax.quiver([0], [0], [1], [0], color=plots.COLORS[1], angles="xy",
                                          scale_units="xy", scale=1, width=0.018))
        dyn["q_tip"] = live.animate(ax.text(0, 0, "q", color=plots.COLORS[1], fontsize=plots.FONT["label"] + 1,
                                            ha="center", va="center"))
        # The keys are dashed and drawn after q (animated artists paint over the cached background in
        # order), so a q lying on a key, as q = [1, 0] on k1 does, does not hide it.
        for k in keys_arr:
            live.animate(ax.add_patch(FancyArrowPatch((0, 0), tuple(k), arrowstyle="-|>", mutation_scale=12,
                                                      shrinkA=0, shrinkB=0, color=plots.NOTE_COLOR, linewidth=1.4,
                                                      linestyle=(0, (3, 2)), zorder=5)))
    ax = axes["weights"]
    ax.set_title(i18n.t("widgets.weights_panel"), fontsize=plots.FONT["label"])
    ax.set_ylim(0, 1.12)
    ax.set_xticks(range(tk), names)
    ax.tick_params(labelsize=plots.FONT["tick"])
    bars = ax.bar(range(tk), np.zeros(tk), color=plots.COLORS[0])
    live.animate(*bars)
    dyn["bar_text"] = [live.animate(ax.text(j, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"]))
                       for j in range(tk)]
    if "values" in axes:
        ax, lim = axes["values"], 1.15 * v_limit
        plots.setup_vector_axes(ax, lim)
        ax.set_title(i18n.t("widgets.values_panel"), fontsize=plots.FONT["label"])
        dyn["v"] = live.animate(ax.quiver(np.zeros(tk), np.zeros(tk), np.ones(tk), np.ones(tk), color="#999999",
                                          angles="xy", scale_units="xy", scale=1, width=0.012))
        dyn["v_tips"] = [live.animate(ax.text(0, 0, f"v{j + 1}", color="#666666", fontsize=plots.FONT["tick"],
                                              ha="center", va="center")) for j in range(tk)]
        # The weighted sum drawn head to tail: alpha_1 v_1, then alpha_2 v_2 from its tip, ...
        dyn["chain"] = live.animate(ax.quiver(np.zeros(tk), np.zeros(tk), np.ones(tk), np.ones(tk),
                                              color="#9ad0b8", angles="xy", scale_units="xy", scale=1, width=0.010))
        dyn["out"] = live.animate(ax.quiver([0], [0], [1], [0], color=plots.COLORS[2], angles="xy",
                                            scale_units="xy", scale=1, width=0.018))
        dyn["out_tip"] = live.animate(ax.text(0, 0, "Σαv", color=plots.COLORS[2], fontsize=plots.FONT["label"],
                                              ha="center", va="center"))
    image = png_image()
    panel = Panel([title_html("widgets.step_title"), image, widgets.HBox(
        [widgets.VBox([c for n, c in controls.items() if n.startswith("q")]),
         widgets.VBox([c for n, c in controls.items() if n.startswith("v")])])],
        name="attention_step", controls=controls, images={"step": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        qv = [controls[f"q{i}"].value for i in range(dk)]
        vv = (np.array([[controls[f"v{j}_{i}"].value for i in range(dv)] for j in range(tk)]) if edit_values
              else s0["values"])
        s = attention_step_state(qv, keys_arr, vv)
        if "q" in dyn:
            dyn["q"].set_UVC([s["q"][0]], [s["q"][1]])
            dyn["q_tip"].set_position(side_position(s["q"], 1.15 * q_limit))
        for bar, text, w in zip(bars, dyn["bar_text"], s["weights"]):
            bar.set_height(w)
            text.set_position((bar.get_x() + bar.get_width() / 2, w + 0.01))
            text.set_text(f"{w:.3f}")
        if "v" in dyn:
            dyn["v"].set_UVC(s["values"][:, 0], s["values"][:, 1])
            for text, v in zip(dyn["v_tips"], s["values"]):
                text.set_position(plots.tip_position(v, 1.15 * v_limit))
            dyn["out"].set_UVC([s["output"][0]], [s["output"][1]])
            starts = np.cumsum(s["contributions"], axis=0) - s["contributions"]     # (Tk, Dv)
            dyn["chain"].set_offsets(starts)
            dyn["chain"].set_UVC(s["contributions"][:, 0], s["contributions"][:, 1])
            dyn["out_tip"].set_position(plots.tip_position(s["output"], 1.15 * v_limit))
        image.value = live.render()
        panel.readout.value = _step_table(s, names)
        return s

    return watch(panel, compute)
