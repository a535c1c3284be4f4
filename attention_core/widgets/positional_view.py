"""The sinusoidal position-encoding widget: the table with a crosshair and one dimension as a wave (notebook 07)."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np

from .. import i18n, plots
from ..positional import sinusoidal_encoding
from ..validation import describe
from ._core import DPI, LiveFigure, Panel, _error_panel, _fmt, _image, _watch


# --- 07: positions ----------------------------------------------------------------------------
def positional_state(n_positions: int, d_model: int, position: int, dim: int, base: float = 10000.0) -> dict:
    """The sinusoidal table (T, D) and one entry of it: value PE[p, i], column i (T,), row p (D,)
    and the wavelength of dimension i, 2*pi*base^(2*floor(i/2)/D) positions."""
    table = sinusoidal_encoding(n_positions, d_model, base)                   # (T, D)
    t, d = table.shape
    for name, value, top in (("position", position, t), ("dim", dim, d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < top:
            raise ValueError(f"{name}: expected an integer in 0..{top - 1}, got {describe(value)}")
    wavelength = 2 * math.pi * float(base) ** (2 * (dim // 2) / d)
    return {"table": table, "value": float(table[position, dim]), "column": table[:, dim], "row": table[position],
            "wavelength": wavelength}


def positional_widget(T: int = 32, D: int = 64, *, base: float = 10000.0, position: int = 5, dim: int = 4,
                      dpi: int = DPI) -> Panel:
    """Sliders over position p and dimension i of the sinusoidal table: the table with a
    crosshair, and dimension i as a wave along the positions (notebook 07)."""
    try:
        s0 = positional_state(T, D, min(position, T - 1), min(dim, D - 1), base)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
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
    bottom.set_xlabel(i18n.t("plots.position"), fontsize=plots.FONT["label"])
    bottom.tick_params(labelsize=plots.FONT["tick"])
    bottom.grid(True, color="#dddddd")
    curve = live.animate(bottom.plot(positions, s0["column"], color=plots.COLORS[0], marker="o", markersize=3)[0])
    dot = live.animate(bottom.plot([0], [0], "o", color=plots.COLORS[1], markersize=10)[0])
    bottom.set_ylabel("PE[p, i]", fontsize=plots.FONT["label"])
    bottom.set_title(i18n.t("widgets.pe_column", i=i_slider.value), fontsize=plots.FONT["label"])
    caption = live.animate(bottom.title)
    image = _image()
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
            "widgets.pe_readout", p=p, i=i, v=_fmt(s["value"]), wl=f"{s['wavelength']:.1f}")) + "</div>"
        return s

    return _watch(panel, compute)
