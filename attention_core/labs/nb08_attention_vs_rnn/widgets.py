"""The path-length widget: how far an early token's influence reaches, attention versus RNN (notebook 08)."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from attention_core.core.validation import describe, positive_float
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    check_count,
    error_panel,
    png_image,
    watch,
    widget_builder,
)

# --- 08: path length (attention versus RNN) ---------------------------------------------------
MAX_N, MAX_D = 64, 32
def path_length_state(distance: int = 10, recurrent_scale: float = 0.9, *, n: int = 48, d: int = 16,
                      seed: int = 0) -> dict:
    """How much a token `distance` positions before the last one still moves the last output (notebook 08).

    The curves come from `rnn_lab.influence_curves(n, d, recurrent_scale, seed)`: a plain RNN
    (exact Jacobians through the chain) and one self-attention layer (finite differences), on the
    same tokens. Returns the curves, the path lengths (distance hand-offs vs 1 step), both
    influences at this distance and the share kept of their value at distance 1.
    """
    from attention_core.labs.nb08_attention_vs_rnn import rnn_lab
    # Sizes a widget can redraw in about a second (finite differences cost ~n² d² evaluations).
    n, d = check_count(n, "n", minimum=3, maximum=MAX_N), check_count(d, "d", maximum=MAX_D)
    curves = rnn_lab.influence_curves(n, d, recurrent_scale, seed)
    n = curves["n"]
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or not 1 <= distance < n:
        raise ValueError(f"distance: expected an integer in 1..{n - 1}, got {describe(distance)}")
    rnn_k, att_k = float(curves["rnn"][distance - 1]), float(curves["attention"][distance - 1])
    return {**curves, "distance": int(distance), "marker_index": n - 1 - int(distance),
            "rnn_path": rnn_lab.path_length("rnn", distance),
            "attention_path": rnn_lab.path_length("attention", distance),
            "rnn_influence": rnn_k, "attention_influence": att_k,
            "rnn_kept": _share(rnn_k, float(curves["rnn"][0])),
            "attention_kept": _share(att_k, float(curves["attention"][0]))}


def _share(value: float, reference: float) -> float:
    """value / reference, and 0.0 when nothing arrives even at distance 1 (a recurrent scale so large
    that every tanh saturates: its slope, and so every Jacobian, is exactly 0)."""
    return value / reference if reference > 0 else 0.0


@widget_builder
def path_length_widget(distance: int = 10, recurrent_scale: float = 0.9, *, n: int = 48, d: int = 16, seed: int = 0,
                       max_scale: float = 3.0, dpi: int = DPI) -> Panel:
    """A distance slider (and the RNN's recurrent scale): the path from an early token to the last
    output, k hand-offs along the RNN chain vs one attention step (top), and how much the token
    still moves that output, fading along the chain, flat for attention (bottom) (notebook 08)."""
    try:
        s0 = path_length_state(distance, recurrent_scale, n=n, d=d, seed=seed)
        max_scale = positive_float(max_scale, "max_scale")
        if not 0.2 <= max_scale <= 100:                 # the slider starts at 0.1, in steps of 0.1
            raise ValueError(f"max_scale: expected a number from 0.2 to 100, got {max_scale:g}")
        n = s0["n"]
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    k_slider = widgets.IntSlider(value=s0["distance"], min=1, max=n - 1, description=i18n.t("rnn_lab.distance_slider"),
                                 continuous_update=True, style={"description_width": "initial"},
                                 layout={"width": "420px"})
    scale_slider = widgets.FloatSlider(value=float(np.clip(s0["recurrent_scale"], 0.1, max_scale)), min=0.1,
                                       max=max_scale, step=0.1, description=i18n.t("rnn_lab.scale_slider"),
                                       readout_format=".1f", continuous_update=False,
                                       style={"description_width": "initial"}, layout={"width": "420px"})
    live = LiveFigure((7.6, 5.6), dpi=dpi)
    top, bottom = live.fig.subplots(2, 1, height_ratios=[1.25, 2])
    last = n - 1
    top.set_xlim(-1.5, n + 6.5)                                      # room for the last token's label
    top.set_ylim(-1.55, 1.75)
    top.axis("off")
    top.scatter(range(n - 1), np.zeros(n - 1), s=14, color="#bbbbbb", zorder=2)
    top.scatter([last], [0], s=90, color="black", zorder=4)
    top.text(last + 1.2, 0, i18n.t("rnn_lab.token_last"), ha="left", va="center", fontsize=plots.FONT["tick"] - 2)
    marker = live.animate(top.scatter([0], [0], s=90, color=plots.COLORS[4], zorder=5))
    marker_label = live.animate(top.text(0, -0.22, i18n.t("rnn_lab.token_marker"), ha="center", va="top",
                                         color="#8a5a00", fontsize=plots.FONT["tick"] - 2))
    chain, = top.plot([], [], "-o", color=plots.COLORS[1], markersize=3.5, linewidth=1.6, zorder=3)
    arc, = top.plot([], [], "-", color=plots.COLORS[0], linewidth=2.2, zorder=3)
    tip, = top.plot([], [], "v", color=plots.COLORS[0], markersize=8, zorder=4)
    live.animate(chain, arc, tip)
    chain_label = live.animate(top.text(0, -1.3, "", color=plots.COLORS[1], ha="left", va="center",
                                        fontsize=plots.FONT["tick"] - 1))
    arc_label = live.animate(top.text(0, 1.5, "", color=plots.COLORS[0], ha="center", va="center",
                                      fontsize=plots.FONT["tick"] - 1))
    ks = s0["distances"]
    floor, ceiling = 1e-12, 1e6
    bottom.set_yscale("log")
    bottom.set_ylim(floor, ceiling)
    bottom.set_xlim(0, n)
    bottom.plot(ks, s0["attention"], color=plots.COLORS[0], linewidth=2.2, label=i18n.t("rnn_lab.attention"))
    rnn_line, = bottom.plot(ks, s0["rnn"], color=plots.COLORS[1], linewidth=2.2, label=i18n.t("rnn_lab.rnn"))
    cursor = plots.reference_line(bottom, x=s0["distance"])
    dots, = bottom.plot([], [], "o", color="black", markersize=6, zorder=5)
    live.animate(rnn_line, cursor, dots)
    plots.style_axes(bottom, i18n.t("rnn_lab.distance"), i18n.t("rnn_lab.influence"), legend={"loc": "lower left"})
    image = png_image()
    panel = Panel([image, k_slider, scale_slider, widgets.HTML(html.escape(i18n.t("rnn_lab.scale_hint")))],
                  name="path_length", controls={"distance": k_slider, "recurrent_scale": scale_slider},
                  images={"path": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = path_length_state(k_slider.value, scale_slider.value, n=n, d=d, seed=seed)
        m = s["marker_index"]
        marker.set_offsets([[m, 0]])
        marker_label.set_position((max(m, 2), -0.22))
        chain.set_data(np.arange(m, last + 1), np.full(last + 1 - m, -0.85))       # one dot per hand-off
        near = m >= last - 12                                                       # short chain: label on the right
        chain_label.set_position((last if near else m, -1.3))
        chain_label.set_horizontalalignment("right" if near else "left")
        chain_label.set_text(i18n.t("rnn_lab.rnn_hops", k=s["rnn_path"]))
        u = np.linspace(0.0, 1.0, 60)
        arc.set_data(m + (last - m) * u, 0.25 + 0.9 * 4 * u * (1 - u))              # same height at every distance
        tip.set_data([last], [0.3])
        arc_label.set_position(((m + last) / 2, 1.5))
        arc_label.set_text(i18n.t("rnn_lab.attention_hop"))
        rnn_line.set_ydata(s["rnn"])
        cursor.set_xdata([s["distance"], s["distance"]])
        dots.set_data([s["distance"]] * 2, [s["rnn_influence"], s["attention_influence"]])
        image.value = live.render()
        kept = s["rnn_kept"]
        verdict = ("rnn_lab.exploding" if kept > 1e2 else "rnn_lab.fading" if kept < 1e-2 else "rnn_lab.holding")
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "rnn_lab.readout", k=s["distance"], rnn_path=s["rnn_path"], rnn=f"{s['rnn_influence']:.2e}",
            rnn_kept=f"{kept:.1e}", att=f"{s['attention_influence']:.3f}", att_kept=f"{s['attention_kept']:.3f}")) \
            + "<br>" + html.escape(i18n.t(verdict)) + "</div>"
        return s

    return watch(panel, compute)
