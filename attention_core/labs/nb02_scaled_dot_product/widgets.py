"""The 1/sqrt(d_k) scaling widget: spread of q·k and softmax saturation against d_k (notebook 02)."""
from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Rectangle

from attention_core.core.validation import describe
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    check_count,
    error_panel,
    fmt_num,
    png_image,
    title_html,
    watch,
    widget_builder,
)

# --- 02: scaling ------------------------------------------------------------------------------
SCALING_DK = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
MAX_DK, MAX_KEYS, MAX_SAMPLES = 4096, 1024, 20_000       # what one slider move recomputes in a few seconds


def scaling_state(d_k: int, scaled: bool, *, seed: int = 0, n_samples: int = 6000, n_keys: int = 16) -> dict:
    """Scores of random unit-variance vectors at width d_k, with or without the 1/sqrt(d_k) scale.

    Returns dot_products (n_samples,) (q·k, or q·k / sqrt(d_k) when scaled) with their variance
    and std, and one row of n_keys scores from `scaling.softmax_saturation` (same seed): scores
    (n_keys,), weights (n_keys,), argmax, max_weight, entropy, jacobian_norm, and the uniform
    row's max_entropy and uniform_jacobian_norm. Switching `scaled` keeps the same vectors.
    """
    from attention_core.labs.nb02_scaled_dot_product import scaling
    check_count(d_k, "d_k", maximum=MAX_DK)
    n_keys = check_count(n_keys, "n_keys", maximum=MAX_KEYS)
    n_samples = check_count(n_samples, "n_samples", minimum=2, maximum=MAX_SAMPLES)
    row = scaling.softmax_saturation(d_k, scaled, seed, n_keys=n_keys)            # validates d_k, scaled, seed
    raw = scaling.cached_dot_products(row["d_k"], n_samples, seed)
    dots = raw * row["scale"]                                                     # (n_samples,)
    variance = float(dots.var())
    return {"d_k": row["d_k"], "scaled": row["scaled"], "scale": row["scale"], "dot_products": dots,
            "variance": variance, "std": math.sqrt(variance), "scores": row["scores"][0],
            "weights": row["weights"][0], "argmax": int(row["argmax"][0]), "max_weight": row["max_weight"],
            "entropy": row["entropy"], "jacobian_norm": row["jacobian_norm"], "max_entropy": row["max_entropy"],
            "uniform_jacobian_norm": row["uniform_jacobian_norm"]}


@widget_builder
def scaling_widget(d_k: int = 64, scaled: bool = False, *, d_k_values=SCALING_DK, seed: int = 0,
                   n_samples: int = 6000, n_keys: int = 16, bins: int = 200, dpi: int = DPI) -> Panel:
    """A d_k slider and a scaling switch (notebook 02). Left: the histogram of q·k (or q·k / sqrt(d_k))
    for random unit-variance vectors, on one fixed axis, so its spread is visible. Right: the softmax
    weights of one row of n_keys such scores; the readout gives the largest weight, the entropy and
    the Jacobian norm of softmax."""
    from attention_core.labs.nb02_scaled_dot_product.scaling import SATURATED, dk_values
    try:
        options = dk_values(d_k_values)
        if d_k not in options:
            raise ValueError(f"d_k: expected one of {options}, got {describe(d_k)}")
        s0 = scaling_state(d_k, scaled, seed=seed, n_samples=n_samples, n_keys=n_keys)
        bins = check_count(bins, "bins", minimum=4, maximum=1000)
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    dk_slider = widgets.SelectionSlider(options=list(options), value=d_k, description=i18n.t("scaling.d_k"),
                                        continuous_update=True, style={"description_width": "initial"},
                                        layout={"width": "420px"})
    mode = widgets.ToggleButtons(options=[(i18n.t("scaling.off"), False), (i18n.t("scaling.on"), True)],
                                 value=bool(scaled), description=i18n.t("scaling.mode"),
                                 style={"description_width": "initial", "button_width": "150px"})
    lim = 4 * math.sqrt(max(options))                 # one x-axis for every setting: the spread shows
    edges = np.linspace(-lim, lim, bins + 1)
    live = LiveFigure((10.0, 3.6), dpi=dpi)
    hist_ax, w_ax = live.fig.subplots(1, 2, width_ratios=(3, 2))
    hist_ax.set_xlim(-lim, lim)
    hist_ax.set_ylim(0, 1.12)
    hist_ax.set_yticks([])
    plots.style_axes(hist_ax, i18n.t("scaling.score"), i18n.t("scaling.share"), grid=None)
    bars = hist_ax.bar(edges[:-1], np.zeros(bins), width=np.diff(edges), align="edge", color=plots.COLORS[0])
    live.animate(*bars)
    band = live.animate(Rectangle((-1, 0), 2, 1.12, color=plots.COLORS[1], alpha=0.18, linewidth=0,
                                  label=i18n.t("scaling.std_band")))
    hist_ax.add_patch(band)
    hist_ax.legend(handles=[band], loc="upper right", fontsize=plots.FONT["tick"] - 1, frameon=False)
    hist_ax.set_title(" ", fontsize=plots.FONT["label"])
    caption = live.animate(hist_ax.title)
    n = s0["weights"].size
    w_ax.set_ylim(0, 1.08)
    w_ax.set_xticks(range(n), [str(j + 1) if j == 0 or (j + 1) % 4 == 0 else "" for j in range(n)])
    w_ax.set_xlabel(i18n.t("scaling.key"), fontsize=plots.FONT["label"])
    w_ax.set_ylabel(i18n.t("plots.weight"), fontsize=plots.FONT["label"])
    w_ax.set_title(i18n.t("scaling.weights_title", n=n), fontsize=plots.FONT["label"])
    w_ax.tick_params(labelsize=plots.FONT["tick"] - 1)
    plots.reference_line(w_ax, y=1 / n)     # the uniform level
    w_bars = w_ax.bar(range(n), np.zeros(n), color=plots.COLORS[0])
    live.animate(*w_bars)
    image = png_image()
    panel = Panel([title_html("scaling.title", n=n), image, widgets.HBox([dk_slider, mode])], name="scaling",
                  controls={"d_k": dk_slider, "scaled": mode}, images={"scaling": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = scaling_state(dk_slider.value, mode.value, seed=seed, n_samples=n_samples, n_keys=n_keys)
        counts, _ = np.histogram(np.clip(s["dot_products"], -lim, lim), bins=edges)
        heights = counts / counts.max()                                   # tallest bar = 1
        for bar, h in zip(bars, heights):
            bar.set_height(h)
        std = min(s["std"], lim)
        band.set_x(-std)                                                   # the band of +- 1 std
        band.set_width(2 * std)
        what = i18n.t("scaling.on" if s["scaled"] else "scaling.off")
        caption.set_text(i18n.t("scaling.hist_title", what=what, n=s["dot_products"].size))
        for bar, w in zip(w_bars, s["weights"]):
            bar.set_height(w)
            bar.set_color(plots.COLORS[1] if w >= SATURATED else plots.COLORS[0])
        image.value = live.render()
        verdict = "scaling.saturated" if s["max_weight"] >= SATURATED else "scaling.healthy"
        panel.readout.value = ("<div style='font-size:15px'>" + html.escape(i18n.t(
            "scaling.readout", var=fmt_num(s["variance"], 2), std=fmt_num(s["std"], 2), max=fmt_num(s["max_weight"]),
            h=fmt_num(s["entropy"]), hmax=fmt_num(s["max_entropy"]), j=fmt_num(s["jacobian_norm"]),
            juni=fmt_num(s["uniform_jacobian_norm"]))) + "<br>" + html.escape(i18n.t(verdict)) + "</div>")
        return s

    return watch(panel, compute)
