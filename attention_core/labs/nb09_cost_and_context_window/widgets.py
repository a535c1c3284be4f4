"""The context-cost widget: FLOPs and score-matrix memory against the context length (notebook 09)."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from attention_core.core.validation import describe, positive_int
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    error_panel,
    png_image,
    title_html,
    watch,
    widget_builder,
)

# --- 09: the cost of a context length ----------------------------------------------------------
CONTEXT_LENGTHS = tuple(sorted({2 ** e for e in range(7, 21)} | {1_000, 100_000}))   # 128 .. 1,048,576
COST_HEADS = (1, 2, 4, 8, 16, 32, 64, 128)
COST_WIDTHS = (256, 512, 768, 1024, 2048, 4096, 8192)
COST_DTYPES = ("float32", "bfloat16")
_COST_GRID = np.floor(2.0 ** np.arange(7, 20.01, 0.25))    # the curves: 128 .. 2^20 tokens, four points an octave


def context_cost_state(n_tokens: int = 4096, n_heads: int = 32, n_layers: int = 32, d_model: int = 4096,
                       dtype: str = "bfloat16") -> dict:
    """Everything the context-cost widget shows, from `cost_lab.attention_cost` (notebook 09).

    Returns the cost of one forward pass at n_tokens (pairs, score-matrix bytes of one layer for a
    naive implementation, FLOPs of attention's n^2 part and of the linear parts, over all layers),
    `gpu_ratio` = score bytes / 80 GiB, and the same quantities along the grid `curve_n` for the plot.
    """
    from attention_core.labs.nb09_cost_and_context_window import cost_lab
    if dtype not in COST_DTYPES:
        raise ValueError(f"dtype: expected one of {COST_DTYPES}, got {describe(dtype)}")
    s = cost_lab.attention_cost(n_tokens, d_model, n_heads, n_layers, dtype)
    curves = cost_lab.cost_curves(_COST_GRID, d_model, n_heads, n_layers, dtype)
    return {**s, "dtype": dtype, "gpu_ratio": s["score_bytes"] / cost_lab.GPU_BYTES, "curve_n": curves["n"],
            "curve_attention": curves["attention_flops"], "curve_linear": curves["linear_flops"],
            "curve_bytes": curves["score_bytes"]}


def _byte_ticks(ax, low: float, high: float) -> None:
    """Ticks at 1 KiB, 1 MiB, 1 GiB, ... on a log axis of bytes."""
    from attention_core.labs.nb09_cost_and_context_window.cost_lab import format_bytes
    ticks = [2.0 ** e for e in range(10, 60, 10) if low <= 2.0 ** e <= high]
    ax.set_yticks(ticks, [format_bytes(t, 0) for t in ticks])
    ax.minorticks_off()


@widget_builder
def context_cost_widget(n_tokens: int = 4096, n_heads: int = 32, n_layers: int = 32, d_model: int = 4096,
                        dtype: str = "bfloat16", *, dpi: int = DPI) -> Panel:
    """A context-length slider (log scale, 128 .. 1M tokens) with heads, layers, width and number format:
    FLOPs of attention's n^2 part against the linear parts (left), and the memory of one layer's
    score matrices in a naive implementation against one 80 GiB GPU (right) (notebook 09).
    Defaults: a 7B-class shape (D = 4096, 32 heads, 32 layers, bfloat16) at 4,096 tokens."""
    from attention_core.labs.nb09_cost_and_context_window import cost_lab
    try:
        context_cost_state(n_tokens, n_heads, n_layers, d_model, dtype)       # bad arguments: a message, not a figure
        if n_tokens not in CONTEXT_LENGTHS or n_heads not in COST_HEADS or d_model not in COST_WIDTHS:
            raise ValueError(f"n_tokens, n_heads, d_model: expected values from {CONTEXT_LENGTHS}, {COST_HEADS} "
                             f"and {COST_WIDTHS}, got {n_tokens}, {n_heads}, {d_model}")
        n_layers = positive_int(n_layers, "n_layers")
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    style = {"description_width": "initial"}
    controls = {
        "n": widgets.SelectionSlider(options=[(f"{n:,}", n) for n in CONTEXT_LENGTHS], value=n_tokens,
                                     description=i18n.t("cost_lab.n"), continuous_update=True, style=style,
                                     layout={"width": "520px"}),
        "heads": widgets.Dropdown(options=COST_HEADS, value=n_heads, description=i18n.t("cost_lab.heads"),
                                  style=style, layout={"width": "150px"}),
        "layers": widgets.IntSlider(value=min(n_layers, 128), min=1, max=128, description=i18n.t("cost_lab.layers"),
                                    continuous_update=True, style=style),
        "d_model": widgets.Dropdown(options=COST_WIDTHS, value=d_model, description=i18n.t("cost_lab.d_model"),
                                    style=style, layout={"width": "160px"}),
        "dtype": widgets.ToggleButtons(options=COST_DTYPES, value=dtype, description=i18n.t("cost_lab.dtype"),
                                       style={**style, "button_width": "80px"}),
    }
    live = LiveFigure((10.0, 4.0), dpi=dpi)
    left, right = live.fig.subplots(1, 2)
    flops_lim, bytes_lim = (1e7, 1e22), (1e4, 2e15)
    for ax, ylabel, lim in ((left, i18n.t("cost_lab.flops_pass"), flops_lim),
                            (right, i18n.t("cost_lab.memory_axis"), bytes_lim)):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(_COST_GRID[0], _COST_GRID[-1])
        ax.set_ylim(*lim)
        ax.set_xlabel(i18n.t("cost_lab.tokens"), fontsize=plots.FONT["label"] - 1)
        ax.set_ylabel(ylabel, fontsize=plots.FONT["label"] - 1)
        plots.style_axes(ax, tick_size=plots.FONT["tick"] - 2)
        ax.set_xticks(list(cost_lab.N_TICKS), list(cost_lab.N_TICKS.values()))
    _byte_ticks(right, *bytes_lim)
    right.axhline(cost_lab.GPU_BYTES, color="#777777", linestyle="--", linewidth=1)
    right.text(_COST_GRID[0] * 1.2, cost_lab.GPU_BYTES * 1.6, i18n.t("cost_lab.gpu"), fontsize=plots.FONT["tick"] - 2,
               color=plots.NOTE_COLOR)
    # the curves are a whole forward pass (all L layers), and the legend's formulas say so
    quad_line, = left.plot([], [], color=plots.COLORS[1], linewidth=2.5, label=i18n.t("cost_lab.quadratic_all"))
    lin_line, = left.plot([], [], color=plots.COLORS[0], linewidth=2.5, label=i18n.t("cost_lab.linear_all"))
    left.legend(fontsize=plots.FONT["tick"] - 3, loc="upper left")
    mem_line, = right.plot([], [], color=plots.COLORS[3], linewidth=2.5)
    cross_line = left.axvline(1, color="#777777", linestyle="--", linewidth=1)
    n_lines = [ax.axvline(1, color=plots.COLORS[2], linewidth=1.5) for ax in (left, right)]
    dots = [left.plot([], [], "o", color=plots.COLORS[1], markersize=7)[0],
            left.plot([], [], "o", color=plots.COLORS[0], markersize=7)[0],
            right.plot([], [], "o", color=plots.COLORS[3], markersize=7)[0]]
    live.animate(quad_line, lin_line, mem_line, cross_line, *n_lines, *dots)
    image = png_image()
    panel = Panel([title_html("cost_lab.widget_title"), image, controls["n"],
                   widgets.HBox([controls["heads"], controls["d_model"], controls["layers"]]), controls["dtype"]],
                  name="context_cost", controls=controls, images={"cost": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = context_cost_state(controls["n"].value, controls["heads"].value, controls["layers"].value,
                               controls["d_model"].value, controls["dtype"].value)
        quad_line.set_data(s["curve_n"], s["curve_attention"])
        lin_line.set_data(s["curve_n"], s["curve_linear"])
        mem_line.set_data(s["curve_n"], s["curve_bytes"])
        cross_line.set_xdata([s["crossover"]] * 2)
        for line in n_lines:
            line.set_xdata([s["n_tokens"]] * 2)
        dots[0].set_data([s["n_tokens"]], [s["attention_flops"]])
        dots[1].set_data([s["n_tokens"]], [s["linear_flops"]])
        dots[2].set_data([s["n_tokens"]], [s["score_bytes"]])
        image.value = live.render()
        gpu = (i18n.t("cost_lab.over_gpu", x=f"{s['gpu_ratio']:,.1f}") if s["gpu_ratio"] >= 1 else
               i18n.t("cost_lab.under_gpu", pct=f"{100 * s['gpu_ratio']:.2g}"))
        lines = [i18n.t("cost_lab.readout_pairs", n=f"{s['n_tokens']:,}", pairs=f"{s['pairs_per_head']:,}",
                        approx=cost_lab.format_count(s["pairs_per_head"]), total=cost_lab.format_count(s["pairs"]),
                        h=s["n_heads"], l=s["n_layers"]),
                 i18n.t("cost_lab.readout_memory", dtype=s["dtype"], mem=cost_lab.format_bytes(s["score_bytes"]),
                        gpu=gpu),
                 i18n.t("cost_lab.readout_flops", att=cost_lab.format_count(s["attention_flops"]),
                        lin=cost_lab.format_count(s["linear_flops"]), share=f"{100 * s['quadratic_share']:.0f}%",
                        cross=f"{s['crossover']:,}")]
        panel.readout.value = ("<div style='font-size:15px'>" + "<br>".join(html.escape(x) for x in lines)
                               + "</div>")
        return s

    return watch(panel, compute)
