"""The figures of notebook 13: loss curves (with the bigram baseline) and head scores at every position of the
context."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from attention_core.labs.nb12_trained_transformer import experiments as nb12
from attention_core.teaching import i18n
from attention_core.teaching.fonts import use_cjk_font


def plot_curve(curve, baseline: float | None = None, ax=None, title: str | None = None):
    """curve [[step, train, valid], ...] (a run's or a manifest's loss_curve); baseline: a horizontal line, the
    bigram's loss on the curve's own validation windows (one validation set per figure)."""
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
    ax.set_xlabel(i18n.t("nb13.fig_step"))
    ax.set_ylabel(i18n.t("nb13.fig_loss"))
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


def plot_position_scores(scores: dict, best: dict, target: float = nb12.CIRCUIT_MIN):
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
