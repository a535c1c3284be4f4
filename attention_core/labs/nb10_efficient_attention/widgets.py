"""The window-retrieval widget: a needle inside or outside a sliding window, against full attention (notebook 10)."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Rectangle

from attention_core.core.softmax import softmax
from attention_core.core.validation import describe, positive_int
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    check_count,
    error_panel,
    fmt_num,
    png_image,
    slider_layout,
    watch,
    widget_builder,
)

# --- 10: a needle outside the window ------------------------------------------------------------
MAX_T = 16384                # the longest document one slider move recomputes in about a second
def window_retrieval_state(window: int, distance: int, *, doc=None, T: int = 512, seed: int = 0) -> dict:
    """The last token's question against a document of T tokens with the needle `distance` tokens
    before it, under full attention and under a sliding window of `window` keys (notebook 10).

    doc: a one-trial `efficient_lab.needle_document` (built from T and seed when None). Returns
    visible (the needle is within the window: distance < window), the last query's weights (T,) under
    full attention and under the window, the needle's weight in each, whether each output names the
    needle's class (its largest entry), and the pairs computed for all T queries (window vs full).
    """
    from attention_core.labs.nb10_efficient_attention import efficient_lab
    doc = efficient_lab.needle_document(check_count(T, "T", maximum=MAX_T), 1, seed=seed) if doc is None else doc
    t = doc["T"]
    window = positive_int(window, "window")
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or not 0 <= distance < t:
        raise ValueError(f"distance: expected an integer in 0..{t - 1}, got {describe(distance)}")
    position = t - 1 - int(distance)                                       # where the needle sits
    k, v = efficient_lab.plant_needle(doc, position)                       # (1, T, d), (1, T, C)
    scores = (doc["q"][0] @ k[0].T)[0] / math.sqrt(k.shape[-1])            # (T,) the question's scores
    in_window = (t - 1 - np.arange(t)) < window                            # (T,) keys the window shows
    full = softmax(scores)                                                 # (T,)
    local = softmax(scores, mask=in_window)                                # (T,) 0 outside the window
    answer = int(doc["answer"][0])
    return {"T": t, "window": window, "distance": int(distance), "position": position,
            "visible": bool(in_window[position]), "in_window": in_window,
            "weights_full": full, "weights_window": local,
            "needle_full": float(full[position]), "needle_window": float(local[position]),
            "correct_full": int((full @ v[0]).argmax()) == answer,
            "correct_window": int((local @ v[0]).argmax()) == answer,
            "pairs_window": efficient_lab.window_pairs(t, window), "pairs_full": t * t}


@widget_builder
def window_retrieval_widget(T: int = 512, *, window: int = 128, distance: int = 200, seed: int = 0,
                            dpi: int = DPI) -> Panel:
    """Sliders for the window size and the needle's distance from the question: the question's
    weights over the document under full attention (grey) and the sliding window (blue), whether the
    needle is visible, its weight, and the pairs computed against full attention (notebook 10)."""
    from attention_core.labs.nb10_efficient_attention import efficient_lab
    try:
        doc = efficient_lab.needle_document(check_count(T, "T", maximum=MAX_T), 1, seed=seed)
        s0 = window_retrieval_state(window, distance, doc=doc)
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    t = s0["T"]
    style = {"description_width": "initial"}
    window_slider = widgets.IntSlider(value=min(s0["window"], t), min=1, max=t,
                                      description=i18n.t("efficient_lab.window"), continuous_update=True,
                                      style=style, layout=slider_layout(i18n.t("efficient_lab.window")))
    distance_slider = widgets.IntSlider(value=s0["distance"], min=0, max=t - 1,
                                        description=i18n.t("efficient_lab.distance"), continuous_update=True,
                                        style=style, layout=slider_layout(i18n.t("efficient_lab.distance")))
    live = LiveFigure((9.0, 3.4), dpi=dpi)
    ax = live.fig.add_subplot()
    ax.set_xlim(-0.5, t - 0.5)
    ax.set_ylim(0, 1.12)
    plots.style_axes(ax, i18n.t("efficient_lab.key_position"), i18n.t("plots.weight"), grid="y")
    x = np.arange(t)
    band = live.animate(ax.add_patch(Rectangle((t - 0.5, 0), 0, 1.12, color="#DCEBF7", zorder=0,
                                               label=i18n.t("efficient_lab.window_band"))))
    full_line, = ax.plot(x, np.zeros(t), color="#999999", linewidth=2.5, label=i18n.t("efficient_lab.method_full"))
    window_line, = ax.plot(x, np.zeros(t), color=plots.COLORS[0], linewidth=1.6,
                           label=i18n.t("efficient_lab.method_window"))
    needle_mark, = ax.plot([0], [1.06], marker="v", markersize=10, linestyle="none", color=plots.COLORS[1],
                           label=i18n.t("efficient_lab.needle"))
    ax.axvline(t - 1, color="#000000", linewidth=1.0)                       # the question: the last token
    ax.text(t - 1, 1.13, "?", ha="center", va="bottom", fontsize=plots.FONT["label"], clip_on=False)
    ax.legend(fontsize=plots.FONT["tick"] - 2, loc="center left", bbox_to_anchor=(1.01, 0.5))
    live.animate(full_line, window_line, needle_mark)
    image = png_image()
    panel = Panel([image, window_slider, distance_slider], name="window_retrieval",   # one row each: long labels
                  controls={"window": window_slider, "distance": distance_slider}, images={"weights": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = window_retrieval_state(window_slider.value, distance_slider.value, doc=doc)
        band.set_x(t - 0.5 - min(s["window"], t))
        band.set_width(min(s["window"], t))
        full_line.set_ydata(s["weights_full"])
        window_line.set_ydata(s["weights_window"])
        needle_mark.set_xdata([s["position"]])
        image.value = live.render()
        ok = {True: i18n.t("efficient_lab.correct"), False: i18n.t("efficient_lab.wrong")}
        lines = [
            i18n.t("efficient_lab.readout_visible" if s["visible"] else "efficient_lab.readout_hidden",
                   d=s["distance"], w=s["window"]),
            i18n.t("efficient_lab.readout_weight", ww=fmt_num(s["needle_window"]), wf=fmt_num(s["needle_full"]),
                   aw=ok[s["correct_window"]], af=ok[s["correct_full"]]),
            i18n.t("efficient_lab.readout_pairs", t=t, pw=f"{s['pairs_window']:,}", pf=f"{s['pairs_full']:,}",
                   share=f"{100 * s['pairs_window'] / s['pairs_full']:.1f}%"),
        ]
        panel.readout.value = ("<div style='font-size:15px'>" + "<br>".join(html.escape(x) for x in lines)
                               + "</div>")
        return s

    return watch(panel, compute)
