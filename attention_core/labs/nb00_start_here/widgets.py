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
    error_panel,
    float_slider,
    fmt_num,
    png_image,
    title_html,
    watch,
    widget_builder,
)


# --- 00: dot product --------------------------------------------------------------------------
def _unit(v: np.ndarray):
    """(v / |v|, |v|) computed without overflow or underflow: divide by the largest entry first.
    (None, 0.0) for the zero vector; |v| is inf only when the length itself exceeds float64."""
    top = float(np.abs(v).max())
    if top == 0:
        return None, 0.0
    scaled = v / top                                    # entries in [-1, 1]: their norm cannot overflow
    length = float(np.linalg.norm(scaled))
    with np.errstate(over="ignore"):
        return scaled / length, top * length


def dot_product_state(a, b) -> dict:
    """a, b (2,) or any equal-length vectors -> dot, lengths, cosine and angle (degrees).

    cos and angle_deg are None when a vector is zero (the angle is undefined there). The cosine is
    computed from the unit vectors, so it is right for any finite input (1e-300 or 1e300); a dot
    product or a length beyond float64's largest number raises FloatingPointError.
    """
    a = as_float_array(a, "a", ndim=1)
    b = as_float_array(b, "b", ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"a and b: expected the same length, got shapes {a.shape} and {b.shape}")
    if a.size == 0:
        raise ValueError("a and b: expected at least one number each, got empty vectors")
    unit_a, norm_a = _unit(a)
    unit_b, norm_b = _unit(b)
    cos = None if unit_a is None or unit_b is None else float(np.clip(unit_a @ unit_b, -1.0, 1.0))
    # Kahan's angle 2·atan2(|u - w|, |u + w|): exact near 0° and 180°, where acos(cos) loses digits.
    angle = None if cos is None else math.degrees(
        2 * math.atan2(float(np.linalg.norm(unit_a - unit_b)), float(np.linalg.norm(unit_a + unit_b))))
    with np.errstate(over="ignore", invalid="ignore"):
        dot = float(a @ b)
    for name, value in (("a·b", dot), ("|a|", norm_a), ("|b|", norm_b)):
        if not math.isfinite(value):
            raise FloatingPointError(f"{name} is beyond the largest float64 number ({np.finfo(float).max:.3g}); "
                                     "use smaller vectors")
    return {"a": a, "b": b, "dot": dot, "norm_a": norm_a, "norm_b": norm_b, "cos": cos, "angle_deg": angle}


@widget_builder
def dot_product_widget(a=(1.0, 0.5), b=(0.5, 1.0), *, limit: float = 3.0, dpi: int = DPI) -> Panel:
    """Two 2-D vectors on sliders -> arrows, dot product, lengths, cosine and angle (notebook 00)."""
    try:
        start = dot_product_state(a, b)
        limit = positive_float(limit, "limit")
        if start["a"].shape != (2,):
            raise ValueError(f"a: expected 2 numbers (x, y), got shape {start['a'].shape}")
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    controls = {f"{name}{axis}": float_slider(f"{name} {'xy'[axis]}", start[name][axis], limit)
                for name in "ab" for axis in (0, 1)}
    live = LiveFigure((4.6, 4.6), dpi=dpi)
    ax = live.fig.add_subplot()
    lim = 1.15 * limit
    plots.setup_vector_axes(ax, lim)
    arrows = live.animate(ax.quiver([0, 0], [0, 0], [1, 1], [1, 1], color=plots.COLORS[:2], angles="xy",
                                    scale_units="xy", scale=1, width=0.014))
    tips = [live.animate(ax.text(0, 0, name, color=c, fontsize=plots.FONT["label"] + 2, ha="center",
                                 va="center")) for name, c in zip("ab", plots.COLORS)]
    image = png_image()
    panel = Panel([title_html("widgets.dot_title"), widgets.HBox([image, widgets.VBox(list(controls.values()))])],
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
        # The sign is read from the cosine (scale-free): tiny vectors pointing the same way are not "zero".
        cos = 0.0 if s["cos"] is None else s["cos"]
        meaning = ("widgets.dot_positive" if cos > 1e-9 else
                   "widgets.dot_negative" if cos < -1e-9 else "widgets.dot_zero")
        panel.readout.value = (
            "<div style='font-size:15px'>" + html.escape(i18n.t(
                "widgets.dot_readout", dot=fmt_num(s["dot"], 2), na=fmt_num(s["norm_a"], 2), nb=fmt_num(s["norm_b"], 2),
                cos=undefined if s["cos"] is None else fmt_num(s["cos"], 2),
                angle=undefined if s["angle_deg"] is None else f"{s['angle_deg']:.0f}°"))
            + "<br>" + html.escape(i18n.t(meaning)) + "</div>")
        return s

    return watch(panel, compute)
