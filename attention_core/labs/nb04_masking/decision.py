"""The causal mask as a decision, pair by pair (notebook 04): the tutorial's second flowchart, drawn and live.

For a query at position i and a key at position j the causal mask asks one question, "j <= i?":
yes -> the score is kept (q_i . k_j / sqrt(d_k)); no -> it is replaced by -inf. Both branches meet in
the softmax of row i, so the weights of row i come only from keys 0..i.

    s = causal_decision(scores, i=2, j=4)     # branch "fill", the masked row, the weights of row 2
    ax = plot_decision_flowchart(s)           # the flowchart with the branch the pair takes highlighted
    causal_decision_widget(scores, labels)    # choose i and j; flowchart and row of weights redraw

Everything is a pure function of its inputs; the plot helper takes `ax=`, returns it and never calls `show()`.
"""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Polygon

from attention_core.core.masks import causal_mask
from attention_core.core.softmax import softmax
from attention_core.core.validation import as_generator, describe
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import (
    DPI,
    LiveFigure,
    Panel,
    check_side,
    error_panel,
    png_image,
    slider_layout,
    title_html,
    watch,
    widget_builder,
)

BRANCHES = ("score", "fill")          # j <= i: score normally; j > i: fill -inf
# Node boxes of the flowchart: name -> (x, y) centre in axes units (0..1), top to bottom as in the tutorial.
NODES = {"query": (0.5, 0.92), "test": (0.5, 0.72), "score": (0.22, 0.50), "fill": (0.78, 0.50),
         "softmax": (0.5, 0.28), "past": (0.5, 0.08)}
EDGES = (("query", "test", None), ("test", "score", "decision.yes"), ("test", "fill", "decision.no"),
         ("score", "softmax", None), ("fill", "softmax", None), ("softmax", "past", None))
ACTIVE, ACTIVE_FACE = plots.COLORS[0], "#DCEBF7"          # the path the pair takes
IDLE, IDLE_FACE = "#AAAAAA", "#F4F4F4"                    # the branch it does not take


def _position(x, name: str, t: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not 0 <= x < t:
        raise ValueError(f"{name}: expected a position from 0 to {t - 1} (0-based), got {describe(x)}")
    return int(x)


def _labels(labels, t: int) -> list[str]:
    """The T token names, or the positions 0..T-1 as text when none are given."""
    return plots.tick_labels(labels, t, "labels", "token") or [str(n) for n in range(t)]


def causal_decision(scores, i: int, j: int) -> dict:
    """Follow the pair (query i, key j) through the causal mask of a (T, T) score matrix.

    scores: (T, T) scaled scores q_i . k_j / sqrt(d_k); i, j: 0-based positions. Returns
      branch        "score" when j <= i (the score is kept), "fill" when j > i (it becomes -inf)
      score         scores[i, j] as computed, masked_score the value softmax sees (-inf on "fill")
      masked_row    (T,) row i after the mask: scores where j <= i, -inf after
      weights       (T,) softmax of masked_row: positive on keys 0..i, exactly 0 after, sum 1
      weight        weights[j]; visible: i + 1, the number of keys row i may see
    """
    scores = plots.as_matrix(scores, "scores")
    t = scores.shape[1]
    if scores.shape[0] != t:
        raise ValueError(f"scores: expected a square (T, T) matrix, got shape {scores.shape}")
    i, j = _position(i, "i", t), _position(j, "j", t)
    keep = causal_mask(t)[i]                                          # (T,) True where j <= i
    masked_row = np.where(keep, scores[i], -np.inf)                   # (T,)
    weights = softmax(scores[i], mask=keep)                           # (T,)
    branch = "score" if keep[j] else "fill"
    return {"i": i, "j": j, "branch": branch, "score": float(scores[i, j]),
            "masked_score": float(masked_row[j]), "masked_row": masked_row, "weights": weights,
            "weight": float(weights[j]), "visible": int(keep.sum())}


def _signed(x: float, digits: int) -> str:
    """x with `digits` decimals, never "-0.000": a score of -0.0004 shown at 3 decimals is 0.000."""
    return f"{round(float(x), digits) + 0.0:.{digits}f}"


def _node_texts(state: dict, labels) -> dict:
    i, j = state["i"], state["j"]
    return {"query": i18n.t("decision.node_query", i=i, token=labels[i]),
            "test": i18n.t("decision.node_test", j=j, token=labels[j], i=i),
            "score": i18n.t("decision.node_score", s=_signed(state["score"], 3)),
            "fill": i18n.t("decision.node_fill"),
            "softmax": i18n.t("decision.node_softmax", i=i),
            "past": i18n.t("decision.node_past", j=j, w=f"{state['weight']:.3f}")}


def _active(state: dict) -> set:
    taken = state["branch"]
    return {"query", "test", taken, "softmax", "past"} | {("test", taken), (taken, "softmax")} | \
        {("query", "test"), ("softmax", "past")}


class _Flowchart:
    """The flowchart's artists on one axes, restyled for each state (shared by the plot and the widget)."""

    def __init__(self, ax, fontsize: float):
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.axis("off")
        self.boxes, self.texts, self.arrows, self.edge_labels = {}, {}, {}, {}
        for name, (x, y) in NODES.items():
            if name == "test":                                           # the decision: a diamond
                patch = Polygon([(x - 0.30, y), (x, y + 0.09), (x + 0.30, y), (x, y - 0.09)], closed=True,
                                linewidth=1.6)
            else:
                w = 0.40 if name in ("score", "fill") else 0.62
                patch = FancyBboxPatch((x - w / 2, y - 0.055), w, 0.11, boxstyle="round,pad=0.01,rounding_size=0.02",
                                       linewidth=1.6)
            ax.add_patch(patch)
            self.boxes[name] = patch
            self.texts[name] = ax.text(x, y, "", ha="center", va="center", fontsize=fontsize)
        for a, b, label in EDGES:
            (xa, ya), (xb, yb) = NODES[a], NODES[b]
            start = (xa, ya - (0.09 if a == "test" else 0.055)) if a != "test" else \
                ((xa - 0.30, ya) if b == "score" else (xa + 0.30, ya))
            end = (xb, yb + (0.09 if b == "test" else 0.055))
            arrow = FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, linewidth=1.6,
                                    connectionstyle="arc3,rad=0" if a != "test" else
                                    ("angle,angleA=180,angleB=90,rad=0" if b == "score" else
                                     "angle,angleA=0,angleB=90,rad=0"))
            ax.add_patch(arrow)
            self.arrows[(a, b)] = arrow
            if label is not None:
                lx = (start[0] + end[0]) / 2
                self.edge_labels[(a, b)] = ax.text(lx, ya + 0.025, i18n.t(label), ha="center", va="bottom",
                                                   fontsize=fontsize)

    def artists(self) -> list:
        return [*self.boxes.values(), *self.arrows.values(), *self.texts.values(), *self.edge_labels.values()]

    def update(self, state: dict, labels) -> None:
        active = _active(state)
        for name, box in self.boxes.items():
            on = name in active
            box.set_edgecolor(ACTIVE if on else IDLE)
            box.set_facecolor(ACTIVE_FACE if on else IDLE_FACE)
        for name, text in _node_texts(state, labels).items():
            self.texts[name].set_text(text)
            self.texts[name].set_color("black" if name in active else IDLE)
        for edge, arrow in self.arrows.items():
            on = edge in active
            arrow.set_color(ACTIVE if on else IDLE)
            arrow.set_linewidth(2.4 if on else 1.2)
        for edge, text in self.edge_labels.items():
            text.set_color(ACTIVE if edge in active else IDLE)


def plot_decision_flowchart(state: dict, labels=None, ax=None, **kwargs):
    """The tutorial's causal-mask flowchart with the branch of `state` (from `causal_decision`)
    highlighted. labels: the T token names (default 0..T-1). kwargs go to the node texts. Returns the Axes."""
    if not isinstance(state, dict) or "branch" not in state:
        raise ValueError(f"state: expected the dict of causal_decision, got {describe(state)}")
    labels = _labels(labels, state["weights"].size)
    ax = plots.new_axes(ax, (6.4, 4.4))
    chart = _Flowchart(ax, kwargs.pop("fontsize", plots.FONT["tick"] - 1))
    chart.update(state, labels)
    for text in chart.texts.values():
        text.set(**kwargs)
    return ax


@widget_builder
def causal_decision_widget(scores=None, labels=None, *, i: int = 2, j: int = 4, T: int = 6, seed: int = 0,
                           dpi: int = DPI) -> Panel:
    """Choose a query position i and a key position j (notebook 04). Left: the tutorial's flowchart
    with the branch the pair takes ("j <= i?" yes: score normally; no: fill -inf) highlighted. Right:
    the row of weights of query i after the softmax, key j in orange, hidden keys marked -inf.
    scores: a (T, T) matrix (default a seeded standard-normal one of side T)."""
    try:
        if scores is None:
            t = check_side(T, "T")
            scores = as_generator(seed).normal(size=(t, t))                 # (T, T), seeded
        scores = plots.as_matrix(scores, "scores")
        t = scores.shape[1]
        check_side(t, "scores", got=str(scores.shape))
        labels = _labels(labels, t)
        s0 = causal_decision(scores, i, j)                                  # checks the shape, i and j
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)
    i_slider = widgets.IntSlider(value=s0["i"], min=0, max=t - 1, description=i18n.t("decision.i"),
                                 style={"description_width": "initial"}, continuous_update=True,
                                 layout=slider_layout(i18n.t("decision.i")))    # room for the label's track
    j_slider = widgets.IntSlider(value=s0["j"], min=0, max=t - 1, description=i18n.t("decision.j"),
                                 style={"description_width": "initial"}, continuous_update=True,
                                 layout=slider_layout(i18n.t("decision.j")))
    live = LiveFigure((10.4, 4.2), dpi=dpi)
    chart_ax, w_ax = live.fig.subplots(1, 2, width_ratios=(3, 2))
    chart = _Flowchart(chart_ax, plots.FONT["tick"] - 1)
    live.animate(*chart.artists())
    w_ax.set_ylim(0, 1.12)
    w_ax.set_xlim(-0.6, t - 0.4)
    w_ax.set_xticks(range(t), [f"{n}\n{label}" for n, label in enumerate(labels)])
    plots.style_axes(w_ax, i18n.t("decision.key_axis"), i18n.t("plots.weight"), grid="y")
    w_ax.set_title(" ", fontsize=plots.FONT["label"])
    caption = live.animate(w_ax.title)
    bars = live.animate(*w_ax.bar(range(t), np.zeros(t), color=plots.COLORS[0]))
    bars = bars if isinstance(bars, tuple) else (bars,)
    hidden = [live.animate(w_ax.text(n, 0.03, "−∞", ha="center", va="bottom", color=plots.NOTE_COLOR,
                                     fontsize=plots.FONT["tick"])) for n in range(t)]
    values = [live.animate(w_ax.text(n, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 2))
              for n in range(t)]
    image = png_image()
    panel = Panel([title_html("decision.title"), image, widgets.HBox([i_slider, j_slider])], name="causal_decision",
                  controls={"i": i_slider, "j": j_slider}, images={"decision": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = causal_decision(scores, i_slider.value, j_slider.value)
        chart.update(s, labels)
        for n, (bar, w) in enumerate(zip(bars, s["weights"])):
            bar.set_height(w)
            bar.set_facecolor(plots.COLORS[1] if n == s["j"] else plots.COLORS[0])
            hidden[n].set_visible(n > s["i"])
            hidden[n].set_color(plots.COLORS[1] if n == s["j"] else plots.NOTE_COLOR)
            values[n].set_text("" if n > s["i"] else f"{w:.2f}")
            values[n].set_y(w + 0.01)
        caption.set_text(i18n.t("decision.row_title", i=s["i"], n=s["visible"]))
        image.value = live.render()
        key = "decision.readout_score" if s["branch"] == "score" else "decision.readout_fill"
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            key, i=s["i"], j=s["j"], s=_signed(s["score"], 3), w=f"{s['weight']:.3f}", n=s["visible"],
            total=f"{s['weights'].sum():.3f}")) + "</div>"
        return s

    return watch(panel, compute)
