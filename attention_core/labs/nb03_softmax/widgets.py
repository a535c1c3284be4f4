"""The softmax temperature widget: softmax(scores / T) from near one-hot to near uniform (notebook 03)."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np

from attention_core.core.softmax import softmax
from attention_core.core.validation import as_float_array, positive_float
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    error_panel,
    fmt_num,
    png_image,
    watch,
    widget_builder,
)


# --- 03: temperature --------------------------------------------------------------------------
def temperature_state(scores, temperature: float) -> dict:
    """softmax(scores / T) of a score vector (N,), with how peaked it is.

    Returns weights (N,), scaled = scores / T, max_weight, argmax, entropy (nats) and
    max_entropy = ln N (the uniform distribution's).
    """
    scores = as_float_array(scores, "scores", ndim=1)
    t = positive_float(temperature, "temperature")
    weights = softmax(scores, temperature=t)                              # stable at every T
    with np.errstate(over="ignore"):
        scaled = scores / t                                               # shown as numbers: must be finite
    if not np.isfinite(scaled).all():
        raise FloatingPointError(f"scores / temperature: {float(np.abs(scores).max()):.3g} / {t:.3g} is beyond "
                                 f"the largest float64 number ({np.finfo(float).max:.3g}); use a larger temperature")
    nonzero = weights[weights > 0]
    return {"scores": scores, "temperature": t, "scaled": scaled, "weights": weights,
            "max_weight": float(weights.max()), "argmax": int(weights.argmax()),
            "entropy": float(-(nonzero * np.log(nonzero)).sum()), "max_entropy": float(np.log(scores.size))}


@widget_builder
def temperature_widget(scores=(2.0, 1.0, 0.5, 0.0, -1.0), labels=None, *, temperature: float = 1.0,
                       t_min: float = 0.01, t_max: float = 100.0, dpi: int = DPI) -> Panel:
    """A log-scale temperature slider over softmax(scores / T): near one-hot -> near uniform (notebook 03)."""
    try:
        s0 = temperature_state(scores, temperature)
        n = s0["scores"].size
        names = [str(j) for j in range(n)] if labels is None else plots.tick_labels(labels, n, "labels", "score")
        lo, hi = math.log10(positive_float(t_min, "t_min")), math.log10(positive_float(t_max, "t_max"))
        if lo >= hi:
            raise ValueError(f"t_min, t_max: expected t_min < t_max, got {t_min} and {t_max}")
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    slider = widgets.FloatLogSlider(value=float(np.clip(s0["temperature"], t_min, t_max)), base=10, min=lo, max=hi,
                                    step=0.01, description=i18n.t("widgets.temperature"), readout_format=".3g",
                                    continuous_update=True, style={"description_width": "initial"},
                                    layout={"width": "420px"})
    live = LiveFigure((max(4.0, 0.8 * n + 2), 3.4), dpi=dpi)
    ax = live.fig.add_subplot()
    ax.set_ylim(0, 1.12)
    ax.set_xticks(range(n), names)
    plots.style_axes(ax, i18n.t("widgets.token"), i18n.t("plots.weight"), grid=None)
    plots.reference_line(ax, y=1 / n)       # the uniform level
    bars = ax.bar(range(n), np.zeros(n), color=plots.COLORS[0])
    live.animate(*bars)
    texts = [live.animate(ax.text(j, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 1))
             for j in range(n)]
    image = png_image()
    panel = Panel([image, slider, widgets.HTML(html.escape(i18n.t("widgets.temp_hint")))],
                  name="temperature", controls={"temperature": slider}, images={"weights": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = temperature_state(s0["scores"], slider.value)
        for bar, text, w in zip(bars, texts, s["weights"]):
            bar.set_height(w)
            text.set_position((bar.get_x() + bar.get_width() / 2, w + 0.01))
            text.set_text(f"{w:.2f}")
        image.value = live.render()
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "widgets.temp_readout", max=fmt_num(s["max_weight"]), h=fmt_num(s["entropy"]),
            hmax=fmt_num(s["max_entropy"]))) \
            + "</div>"
        return s

    return watch(panel, compute)
