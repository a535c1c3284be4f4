"""The widgets of notebook 07: the sinusoidal table with a crosshair, and one query's scores before softmax
(distance bias, causal mask, local window)."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np

from attention_core.core.masks import causal_mask, sliding_window_mask
from attention_core.core.positional import sinusoidal_encoding
from attention_core.core.softmax import softmax
from attention_core.core.validation import as_float_array, check_flag, describe
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    check_count,
    check_range,
    error_panel,
    fmt_num,
    png_image,
    slider_layout,
    watch,
    widget_builder,
)

MAX_POSITIONS, MAX_D_MODEL = 4096, 2048       # a table one slider move redraws at once


# --- 07: positions ----------------------------------------------------------------------------
def positional_state(n_positions: int, d_model: int, position: int, dim: int, base: float = 10000.0) -> dict:
    """The sinusoidal table (T, D) and one entry of it: value PE[p, i], column i (T,), row p (D,)
    and the wavelength of dimension i, 2*pi*base^(2*floor(i/2)/D) positions."""
    n_positions = check_count(n_positions, "n_positions", maximum=MAX_POSITIONS)
    d_model = check_count(d_model, "d_model", maximum=MAX_D_MODEL)
    table = sinusoidal_encoding(n_positions, d_model, base)                   # (T, D)
    t, d = table.shape
    for name, value, top in (("position", position, t), ("dim", dim, d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < top:
            raise ValueError(f"{name}: expected an integer in 0..{top - 1}, got {describe(value)}")
    wavelength = 2 * math.pi * float(base) ** (2 * (dim // 2) / d)
    return {"table": table, "value": float(table[position, dim]), "column": table[:, dim], "row": table[position],
            "wavelength": wavelength}


@widget_builder
def positional_widget(T: int = 32, D: int = 64, *, base: float = 10000.0, position: int = 5, dim: int = 4,
                      dpi: int = DPI) -> Panel:
    """Sliders over position p and dimension i of the sinusoidal table: the table with a
    crosshair, and dimension i as a wave along the positions (notebook 07)."""
    try:
        T, D = check_count(T, "T", maximum=MAX_POSITIONS), check_count(D, "D", maximum=MAX_D_MODEL)
        s0 = positional_state(T, D, min(position, T - 1), min(dim, D - 1), base)
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    t, d = s0["table"].shape
    p_slider = widgets.IntSlider(value=min(position, t - 1), min=0, max=t - 1, description="p",
                                 continuous_update=True)
    i_slider = widgets.IntSlider(value=min(dim, d - 1), min=0, max=d - 1, description="i", continuous_update=True)
    live = LiveFigure((7.5, 6.4), dpi=dpi)
    top, bottom = live.fig.subplots(2, 1, height_ratios=(3, 2))
    plots.plot_positional_encoding(s0["table"], ax=top)
    hline = live.animate(top.axhline(0, color="black", linewidth=1.2))
    vline = live.animate(top.axvline(0, color="black", linewidth=1.2))
    marker = live.animate(top.plot([0], [0], marker="s", markersize=10, markerfacecolor="none",
                                   markeredgecolor=plots.COLORS[4], markeredgewidth=2.5)[0])
    positions = np.arange(t)
    bottom.set_xlim(-0.5, t - 0.5)
    bottom.set_ylim(-1.15, 1.15)
    plots.style_axes(bottom, i18n.t("plots.position"), grid_color="#dddddd")
    curve = live.animate(bottom.plot(positions, s0["column"], color=plots.COLORS[0], marker="o", markersize=3)[0])
    dot = live.animate(bottom.plot([0], [0], "o", color=plots.COLORS[1], markersize=10)[0])
    bottom.set_ylabel("PE[p, i]", fontsize=plots.FONT["label"])
    bottom.set_title(i18n.t("widgets.pe_column", i=i_slider.value), fontsize=plots.FONT["label"])
    caption = live.animate(bottom.title)
    image = png_image()
    panel = Panel([image, widgets.HBox([p_slider, i_slider])], name="positional",
                  controls={"position": p_slider, "dim": i_slider}, images={"table": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = positional_state(t, d, p_slider.value, i_slider.value, base)
        p, i = p_slider.value, i_slider.value
        hline.set_ydata([p, p])
        vline.set_xdata([i, i])
        marker.set_data([i], [p])
        curve.set_ydata(s["column"])
        dot.set_data([p], [s["value"]])
        caption.set_text(i18n.t("widgets.pe_column", i=i))
        image.value = live.render()
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "widgets.pe_readout", p=p, i=i, v=fmt_num(s["value"]), wl=f"{s['wavelength']:.1f}")) + "</div>"
        return s

    return watch(panel, compute)



# --- 07: scores before softmax (position bias, causal mask, local window) -----------------------
def position_bias_state(scores, query: int, slope: float = 0.0, window: int = 0, causal: bool = False) -> dict:
    """One query's row of content scores (Tk,) after the mechanisms that act before softmax.

    slope >= 0 adds -slope * |query - j|; window > 0 is the course's causal window of `window` keys
    (the query and the window - 1 keys before it, as `sliding_window_mask`; 0 = no window); causal
    hides keys j > query. Returns visible (Tk,) bool, bias (Tk,), adjusted (Tk,)
    scores (-inf where hidden), weights (Tk,), and the winner's index and weight.
    """
    causal = check_flag(causal, "causal")
    from attention_core.labs.nb07_position.position_lab import distance_bias
    scores = as_float_array(scores, "scores", ndim=1)
    t = scores.size
    if t == 0:
        raise ValueError("scores: expected at least one score, got an empty list")
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 0 <= query < t:
        raise ValueError(f"query: expected an integer in 0..{t - 1}, got {describe(query)}")
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 0:
        raise ValueError(f"window: expected an integer >= 0 (0 = no window), got {describe(window)}")
    bias = distance_bias(t, slope)[query]                                      # (Tk,)
    visible = np.ones(t, dtype=bool)
    if causal:
        visible &= causal_mask(t)[query]
    if window:
        visible &= sliding_window_mask(t, int(window))[query]             # causal: window keys
    with np.errstate(over="ignore"):
        biased = scores + bias                                                 # (Tk,)
    if not np.isfinite(biased).all():
        raise FloatingPointError(f"scores + bias: a score of {float(np.abs(scores).max()):.3g} plus a bias of "
                                 f"{float(np.abs(bias).max()):.3g} is beyond the largest float64 number; "
                                 "use smaller scores or a smaller slope")
    weights = softmax(biased, mask=visible)
    adjusted = np.where(visible, biased, -np.inf)
    return {"scores": scores, "bias": bias, "visible": visible, "adjusted": adjusted, "weights": weights,
            "top": int(weights.argmax()), "top_weight": float(weights.max())}


@widget_builder
def position_bias_widget(scores=(2.0, 0.5, -0.5, 0.0, 1.0, 0.8, 0.3, 1.8), query: int = 5, *, slope: float = 0.0,
                         window: int = 0, causal: bool = False, max_slope: float = 1.0, dpi: int = DPI) -> Panel:
    """Sliders for a distance bias (slope) and a local window, a causal-mask checkbox, over one query's
    row of content scores: the scores after each change (top) and the weights (bottom) (notebook 07)."""
    causal = check_flag(causal, "causal")
    try:
        s0 = position_bias_state(scores, query, slope, window, causal)
        max_slope = check_range(max_slope, "max_slope")
        t = s0["scores"].size
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    slope_slider = widgets.FloatSlider(value=float(np.clip(slope, 0, max_slope)), min=0.0, max=max_slope, step=0.05,
                                       description=i18n.t("position_lab.slope"), readout_format=".2f",
                                       continuous_update=True, style={"description_width": "initial"},
                                       layout=slider_layout(i18n.t("position_lab.slope"), track_px=180))
    window_slider = widgets.IntSlider(value=int(np.clip(window, 0, t)), min=0, max=t,
                                      description=i18n.t("position_lab.window"), continuous_update=True,
                                      style={"description_width": "initial"},
                                      layout=slider_layout(i18n.t("position_lab.window"), track_px=180))
    causal_box = widgets.Checkbox(value=bool(causal), description=i18n.t("position_lab.causal"), indent=False)
    live = LiveFigure((7.2, 5.0), dpi=dpi)
    top, bottom = live.fig.subplots(2, 1, sharex=True)
    low = float(min(s0["scores"].min(), 0.0) - max_slope * (t - 1) - 0.5)
    label_y = float(max(s0["scores"].max(), 0.0) + 0.45)                 # one row of score labels
    high = label_y + 0.9
    top.set_ylim(low, high)
    top.axhline(0, color="#999999", linewidth=0.8)
    top.scatter(range(t), s0["scores"], marker="_", s=300, color=plots.NOTE_COLOR, zorder=3,
                label=i18n.t("position_lab.content_score"))
    top.set_ylabel(i18n.t("position_lab.score"), fontsize=plots.FONT["label"])
    top.legend(fontsize=plots.FONT["tick"] - 2, loc="lower left")
    bottom.set_ylim(0, 1.12)
    bottom.set_ylabel(i18n.t("plots.weight"), fontsize=plots.FONT["label"])
    bottom.set_xlabel(i18n.t("position_lab.key_position"), fontsize=plots.FONT["label"])
    bottom.set_xticks(range(t), [str(j) for j in range(t)])
    for ax in (top, bottom):
        ax.axvspan(query - 0.45, query + 0.45, color="#f2f2f2", zorder=0)
        ax.tick_params(labelsize=plots.FONT["tick"])
    score_bars = top.bar(range(t), np.zeros(t), color=plots.COLORS[1], alpha=0.8)
    weight_bars = bottom.bar(range(t), np.zeros(t), color=plots.COLORS[0])
    live.animate(*score_bars, *weight_bars)
    score_texts = [live.animate(top.text(j, label_y, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 2))
                   for j in range(t)]
    weight_texts = [live.animate(bottom.text(j, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 2))
                    for j in range(t)]
    image = png_image()
    panel = Panel([image, widgets.HBox([slope_slider, window_slider, causal_box])], name="position_bias",
                  controls={"slope": slope_slider, "window": window_slider, "causal": causal_box},
                  images={"row": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = position_bias_state(s0["scores"], query, slope_slider.value, window_slider.value, causal_box.value)
        for j in range(t):
            hidden = not s["visible"][j]
            value = 0.0 if hidden else float(s["adjusted"][j])
            score_bars[j].set_height(value)
            score_texts[j].set_text("−∞" if hidden else f"{value:.2f}")
            w = float(s["weights"][j])
            weight_bars[j].set_height(w)
            weight_texts[j].set_position((j, w + 0.01))
            weight_texts[j].set_text("0" if hidden else f"{w:.2f}")
        image.value = live.render()
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "position_lab.readout", n=int(s["visible"].sum()), t=t, j=s["top"], w=fmt_num(s["top_weight"]))) + "</div>"
        return s

    return watch(panel, compute)
