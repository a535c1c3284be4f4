"""The figures of notebook 13: loss curves (with the bigram baseline), head scores at every position of
the context, time per token with and without the KV cache; and the live progress of a training run."""
from __future__ import annotations

import html

import matplotlib.pyplot as plt
import numpy as np

from attention_core.teaching import i18n
from attention_core.teaching.fonts import use_cjk_font


def plot_curve(curve, baseline: float | None = None, ax=None, title: str | None = None, final: float | None = None):
    """curve [[step, train, valid], ...] (a manifest's loss_curve); baseline: a horizontal line (the bigram's loss on
    the whole validation text); final: the model's loss on that same text, a point at the last step, so that the
    comparison with the baseline is made on the same data (the curve's validation windows are a sample of it)."""
    use_cjk_font()
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 3.4), layout="constrained")
    c = np.array([[s, t, np.nan if v is None else v] for s, t, v in curve], dtype=float)
    dots = {"marker": "o", "markersize": 3} if len(c) <= 12 else {}     # a short curve's points stay visible
    ax.plot(c[:, 0], c[:, 1], label=i18n.t("nb13.fig_train"), **dots)
    if np.isfinite(c[:, 2]).any():
        ax.plot(c[:, 0], c[:, 2], label=i18n.t("nb13.fig_valid"), **dots)
    if baseline is not None:
        ax.axhline(baseline, color="gray", ls="--", label=i18n.t("nb13.fig_bigram"))
    if final is not None:
        ax.plot([c[-1, 0]], [final], "D", color="C3", label=i18n.t("nb13.fig_final"))
    ax.set_xlabel(i18n.t("nb13.fig_step"))
    ax.set_ylabel(i18n.t("nb13.fig_loss"))
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


def plot_position_scores(scores: dict, best: dict, target: float = 0.5):
    """The previous-token score of the best previous-token head at each query position, and the
    induction score of the best induction head for each start of the repeat."""
    use_cjk_font()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4), layout="constrained")
    p, q = best["previous"], best["induction"]
    axes[0].plot(scores["queries"], scores["previous"][:, p["layer"], p["head"]], marker=".")
    axes[0].set_xlabel(i18n.t("nb13.fig_query_position"))
    axes[0].set_title(i18n.t("nb13.fig_prev", layer=p["layer"], head=p["head"]))
    axes[1].plot(scores["starts"], scores["induction"][:, q["layer"], q["head"]], marker=".", color="C1")
    axes[1].set_xlabel(i18n.t("nb13.fig_repeat_start"))
    axes[1].set_title(i18n.t("nb13.fig_ind", layer=q["layer"], head=q["head"]))
    for ax in axes:
        ax.axhline(target, color="gray", ls="--")
        ax.set_ylim(0, 1)
        ax.set_ylabel(i18n.t("nb13.fig_score"))
    return axes


def plot_cache_timing(rows):
    use_cjk_font()
    _, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
    n = [r["length"] for r in rows]
    ax.plot(n, [r["cached_ms"] for r in rows], marker="o", label=i18n.t("nb13.fig_cached"))
    ax.plot(n, [r["uncached_ms"] for r in rows], marker="o", label=i18n.t("nb13.fig_uncached"))
    ax.set_xlabel(i18n.t("nb13.fig_context"))
    ax.set_ylabel(i18n.t("nb13.fig_ms"))
    ax.legend()
    return ax


class LiveProgress:
    """A training run's callback: a progress bar with the latest losses and a loss curve, redrawn in
    place every logged step (IPython display handles; outside Jupyter it prints the line)."""

    def __init__(self, label: str = ""):
        self.label, self.curve, self.handles = label, [], None

    def _bar(self, rec) -> str:
        done = int(30 * rec["step"] / rec["steps"])
        valid = "-" if rec["valid"] is None else f"{rec['valid']:.3f}"
        line = i18n.t("nb13.progress", step=rec["step"], steps=rec["steps"], train=rec["train"], valid=valid,
                      seconds=rec["seconds"])
        return f"{self.label} [{'#' * done}{'.' * (30 - done)}] {line}"

    def __call__(self, rec) -> None:
        self.curve.append([rec["step"], rec["train"], rec["valid"]])
        try:
            from IPython import get_ipython
            from IPython.display import HTML, display
            if get_ipython() is None:
                raise ImportError
        except ImportError:
            print(self._bar(rec))
            return
        use_cjk_font()
        fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
        plot_curve(self.curve, ax=ax)
        text = HTML(f"<pre>{html.escape(self._bar(rec))}</pre>")
        if self.handles is None:
            self.handles = (display(text, display_id=True), display(fig, display_id=True))
        else:
            self.handles[0].update(text)
            self.handles[1].update(fig)
        plt.close(fig)
