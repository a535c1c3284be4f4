"""The dot-product widget of notebook 00: two arrows, their dot product, lengths, cosine and angle."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np

from attention_core.core.validation import as_float_array, positive_float
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    _error_panel,
    _fmt,
    _image,
    _slider,
    _title,
    _watch,
)


# --- 00: dot product --------------------------------------------------------------------------
def dot_product_state(a, b) -> dict:
    """a, b (2,) or any equal-length vectors -> dot, lengths, cosine and angle (degrees).

    cos and angle_deg are None when a vector is zero (the angle is undefined there).
    """
    a = as_float_array(a, "a", ndim=1)
    b = as_float_array(b, "b", ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"a and b: expected the same length, got shapes {a.shape} and {b.shape}")
    dot = float(a @ b)
    norm_a, norm_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    cos = dot / (norm_a * norm_b) if norm_a > 0 and norm_b > 0 else None
    angle = math.degrees(math.acos(max(-1.0, min(1.0, cos)))) if cos is not None else None
    return {"a": a, "b": b, "dot": dot, "norm_a": norm_a, "norm_b": norm_b, "cos": cos, "angle_deg": angle}


def dot_product_widget(a=(1.0, 0.5), b=(0.5, 1.0), *, limit: float = 3.0, dpi: int = DPI) -> Panel:
    """Two 2-D vectors on sliders -> arrows, dot product, lengths, cosine and angle (notebook 00)."""
    try:
        start = dot_product_state(a, b)
        limit = positive_float(limit, "limit")
        if start["a"].shape != (2,):
            raise ValueError(f"a: expected 2 numbers (x, y), got shape {start['a'].shape}")
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    controls = {f"{name}{axis}": _slider(f"{name} {'xy'[axis]}", start[name][axis], limit)
                for name in "ab" for axis in (0, 1)}
    live = LiveFigure((4.6, 4.6), dpi=dpi)
    ax = live.fig.add_subplot()
    lim = 1.15 * limit
    plots.setup_vector_axes(ax, lim)
    arrows = live.animate(ax.quiver([0, 0], [0, 0], [1, 1], [1, 1], color=plots.COLORS[:2], angles="xy",
                                    scale_units="xy", scale=1, width=0.014))
    tips = [live.animate(ax.text(0, 0, name, color=c, fontsize=plots.FONT["label"] + 2, ha="center",
                                 va="center")) for name, c in zip("ab", plots.COLORS)]
    image = _image()
    panel = Panel([_title("widgets.dot_title"), widgets.HBox([image, widgets.VBox(list(controls.values()))])],
                  name="dot_product", controls=controls, images={"vectors": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = dot_product_state([controls["a0"].value, controls["a1"].value],
                              [controls["b0"].value, controls["b1"].value])
        vecs = np.stack([s["a"], s["b"]])                                   # (2, 2)
        arrows.set_UVC(vecs[:, 0], vecs[:, 1])
        for text, v in zip(tips, vecs):
            text.set_position(plots.tip_position(v, lim))
        image.value = live.render()
        undefined = i18n.t("plots.undefined")
        meaning = ("widgets.dot_positive" if s["dot"] > 1e-9 else
                   "widgets.dot_negative" if s["dot"] < -1e-9 else "widgets.dot_zero")
        panel.readout.value = (
            "<div style='font-size:15px'>" + html.escape(i18n.t(
                "widgets.dot_readout", dot=_fmt(s["dot"], 2), na=_fmt(s["norm_a"], 2), nb=_fmt(s["norm_b"], 2),
                cos=undefined if s["cos"] is None else _fmt(s["cos"], 2),
                angle=undefined if s["angle_deg"] is None else f"{s['angle_deg']:.0f}°"))
            + "<br>" + html.escape(i18n.t(meaning)) + "</div>")
        return s

    return _watch(panel, compute)
