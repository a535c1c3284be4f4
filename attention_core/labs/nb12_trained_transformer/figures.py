"""Figures of notebook 12: loss curves, a pronoun's attention row beside another, bank / 银行
similarity per layer, attention weight vs removal effect. Each takes `ax=`, returns it, never shows."""
from __future__ import annotations

import numpy as np

from attention_core.teaching import i18n, plots
from attention_core.teaching.fonts import use_cjk_font

from .strings import HOW_KEYS


def _axes(ax, figsize):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=figsize, layout="constrained")[1]


MODEL_LABELS = {"induction": "nb12.model_induction", "induction_seed3": "nb12.model_induction_seed3",
                "coreference": "nb12.model_coreference", "coreference_decoder": "nb12.model_coreference_decoder"}


def plot_loss_curves(models, ax=None):
    """The training loss of each model (from its manifest's loss_curve), log scale."""
    use_cjk_font()
    ax = _axes(ax, (6.4, 3.0))
    for i, m in enumerate(models):
        steps, loss = np.array(m.manifest["loss_curve"]).T
        key = MODEL_LABELS.get(m.name)
        label = m.name if key is None else i18n.t(key)                      # the model's name in the edition's words
        ax.plot(steps, loss, color=plots.COLORS[i % len(plots.COLORS)], label=label)
    ax.set_yscale("log")
    ax.set_xlabel(i18n.t("nb12.fig_step"))
    ax.set_ylabel(i18n.t("nb12.fig_loss"))
    ax.legend(frameon=False)
    return ax


def plot_rows(rows, axes=None):
    """One bar chart per (title, tokens, weights) row, side by side: who a query word looks at."""
    use_cjk_font()
    if axes is None:
        import matplotlib.pyplot as plt
        axes = plt.subplots(1, len(rows), figsize=(4.6 * len(rows), 3.8), layout="constrained")[1]
    axes = np.atleast_1d(axes)
    # sizes to be read from the back of a classroom: numbers and words at 12-13 pt, not 8
    for ax, (title, tokens, weights) in zip(axes, rows):
        weights = np.asarray(weights, dtype=float)
        colors = [plots.COLORS[1] if w == weights.max() else plots.COLORS[0] for w in weights]
        ax.barh(np.arange(len(tokens)), weights, color=colors)
        ax.set_yticks(np.arange(len(tokens)), tokens, fontsize=12)
        ax.tick_params(axis="x", labelsize=11)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel(i18n.t("plots.weight"), fontsize=12)
        ax.set_title(title, fontsize=13)
        for y, w in enumerate(weights):
            ax.text(min(w, 0.78) + 0.02, y, f"{w:.2f}", va="center", fontsize=12)
    return axes


def plot_bank_similarity(sims: dict, ax=None):
    """Cosine similarity of bank / 杜鹃 after the embedding and each layer: same sense vs other sense.
    sims: {label: bank_similarity(...) result}."""
    use_cjk_font()
    ax = _axes(ax, (5.6, 3.0))
    # The words' lines can coincide (both "same sense" lines near 1): each word is drawn a little to the side
    # of the layer it belongs to, with its own marker, so that no line hides another.
    n = len(sims)
    for i, (label, s) in enumerate(sims.items()):
        x = np.arange(len(s["same"]))
        dodge = (i - (n - 1) / 2) * 0.2
        color = plots.COLORS[i % len(plots.COLORS)]
        marker = "os^D"[i % 4]
        ax.plot(x + dodge, s["same"], marker=marker, ls="-", color=color, label=i18n.t("nb12.fig_same", word=label))
        ax.plot(x + dodge, s["other"], marker=marker, ls="--", mfc="white", color=color,
                label=i18n.t("nb12.fig_other", word=label))
    ax.set_xticks(x, [i18n.t("nb12.fig_embedding")] + [i18n.t("nb12.fig_after_layer", layer=l)
                                                       for l in range(len(x) - 1)])     # layers from 0
    ax.set_xlim(-0.5, len(x) - 0.5)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(i18n.t("nb12.fig_cosine"))
    ax.legend(frameon=False, fontsize=8, loc="lower left")
    return ax


def plot_weight_vs_effect(result: dict, ax=None):
    """Each word of a sentence: the final query's attention weight on it (x) against the drop of the
    answer's probability when it is removed (y)."""
    use_cjk_font()
    ax = _axes(ax, (5.0, 3.4))
    rows = result["rows"]
    x = np.array([r["weight"] for r in rows])
    y = np.array([r["effect"] for r in rows])
    ax.scatter(x, y, color=plots.COLORS[0])
    for xi, yi, r in zip(x, y, rows):
        if yi > 0.1 or xi == x.max():              # the words that matter, and the one most weighted (no pile-up)
            # a label near the right or top edge goes inside, so that it never touches the frame
            right, top = xi > 0.75, yi > 0.85
            ax.annotate(r["word"], (xi, yi), textcoords="offset points", xytext=(-6 if right else 6, -10 if top else 5),
                        ha="right" if right else "left", va="top" if top else "bottom", fontsize=9)
    ax.set_xlim(-0.05, 1.1)
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel(i18n.t("nb12.fig_weight", layer=result["layer"], head=result["head"]))
    ax.set_ylabel(i18n.t("nb12.fig_effect", word=result["answer"]))
    return ax


def plot_by_position(result: dict, axes=None, vocab_size: int = 26):
    """experiments.by_position: the mean loss, -log P(right next token) in nats (left, the primary measure),
    and the accuracy (right) at each position, one line per offset of the second copy. Shaded: the letters an
    induction circuit can predict (2..half of the copy); a ringed point: the copy's FIRST letter, which
    nothing before it announces; dotted: ln(vocab_size), the loss of a uniform guess."""
    use_cjk_font()
    if axes is None:
        import matplotlib.pyplot as plt
        axes = plt.subplots(1, 2, figsize=(11, 3.4), layout="constrained", width_ratios=(3, 2))[1]
    half = result.get("half", 6)
    loss = result["loss"] if "loss" in result else -np.asarray(result["logprob"])
    t = np.arange(loss.shape[1])
    for i, o in enumerate(result["offsets"]):
        color = plots.COLORS[i % len(plots.COLORS)]
        label = i18n.t("nb12.fig_offset", offset=o)
        axes[0].plot(t, loss[i], ".-", color=color, label=label)
        axes[1].plot(t, result["accuracy"][i], ".-", color=color, label=label)
        for ax, y in ((axes[0], loss[i]), (axes[1], result["accuracy"][i])):
            ax.axvspan(o - 0.5, o + half - 1.5, color=color, alpha=0.08)
            ax.plot([o - 1], [y[o - 1]], "o", ms=11, mfc="none", mec=color, mew=1.6)   # the copy's first letter
    chance = float(np.log(vocab_size))
    axes[0].axhline(chance, color="0.4", lw=0.9, ls=":")
    axes[0].text(t[0], chance + 0.08, i18n.t("nb12.fig_uniform", v=vocab_size, value=f"{chance:.2f}"), ha="left",
                 va="bottom", fontsize=8, color="0.3")                  # above the flat start: nothing drawn there
    axes[0].set_ylim(0, max(chance + 0.9, float(np.nanmax(loss)) + 0.3))
    axes[0].set_ylabel(i18n.t("nb12.fig_loss_next"))
    axes[1].set_ylabel(i18n.t("nb12.fig_accuracy"))
    axes[1].set_ylim(-0.02, 1.02)
    for ax in axes:
        ax.set_xlabel(i18n.t("nb12.fig_position"))
    axes[0].plot([], [], "o", ms=9, mfc="none", mec="0.3", label=i18n.t("nb12.fig_first_letter"))
    axes[0].legend(frameon=False, fontsize=8, loc="lower left", ncol=1)
    return axes


def plot_dynamics(phase: dict, ax=None):
    """experiments.phase_change: the in-context loss (left axis) and the best previous-token and
    induction scores (right axis) against the training step, the formation step marked."""
    use_cjk_font()
    ax = _axes(ax, (7.0, 3.2))
    steps = phase["steps"]
    ax.plot(steps, phase["in_context_loss"], color=plots.COLORS[0], label=i18n.t("nb12.fig_icl_loss"))
    ax.set_xlabel(i18n.t("nb12.fig_step"))
    ax.set_ylabel(i18n.t("nb12.fig_icl_loss"))
    right = ax.twinx()
    right.plot(steps, phase["previous"][:, 0].max(-1), "--", color=plots.COLORS[1],
               label=i18n.t("nb12.fig_best_prev"))
    right.plot(steps, phase["induction"][:, 1].max(-1), "-", color=plots.COLORS[2],
               label=i18n.t("nb12.fig_best_ind"))
    right.set_ylim(0, 1)
    right.set_ylabel(i18n.t("nb12.fig_score"))
    if phase["step"] is not None:
        ax.axvline(phase["step"], color="0.5", lw=0.8, ls=":")
    lines = ax.get_lines()[:1] + right.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], frameon=False, fontsize=8, loc="center right")
    return ax


def plot_ablations(rows, ax=None):
    """experiments.ablation_methods: the loss on the repeat with each head ablated, one bar per method, the
    intact model's loss dashed."""
    use_cjk_font()
    ax = _axes(ax, (9.0, 3.2))
    heads = [r for r in rows if r["head"] is not None]
    base = next(r for r in rows if r["ablated"] == "-")["zero"]
    methods = ("zero", "mean", "mean_by_position", "resample")
    width = 0.8 / len(methods)
    x = np.arange(len(heads))
    for i, how in enumerate(methods):
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, [r[how] for r in heads], width,
               color=plots.COLORS[i % len(plots.COLORS)], label=i18n.t(HOW_KEYS[how]))
    ax.axhline(base, color="0.3", lw=0.9, ls="--", label=i18n.t("nb12.fig_intact", value=f"{base:.2f}"))
    ax.set_xticks(x, [r["ablated"] for r in heads])
    ax.set_ylabel(i18n.t("nb12.fig_repeat_loss"))
    ax.legend(frameon=False, fontsize=8, ncol=3, loc="upper right")
    return ax


def plot_patching(result: dict, attribution=None, axes=None):
    """experiments.patching_table: the share of log P recovered when one head's hook_z is patched from the clean
    run, per head (left; with experiments.logit_attribution's "repeat" beside it when given) and per head and
    position (right: the corrupted letter and the query marked)."""
    use_cjk_font()
    n_left = 1 if attribution is None else 2
    if axes is None:
        import matplotlib.pyplot as plt
        axes = plt.subplots(1, n_left + 1, figsize=(3.4 * n_left + 8.5, 3.4), layout="constrained",
                            width_ratios=(1.2,) * n_left + (3.4,))[1]
    rec = np.asarray(result["recovered"])
    layers, heads = rec.shape
    rows = [f"L{l}" for l in range(layers)]
    cols = [f"H{h}" for h in range(heads)]
    panels = [(rec, "nb12.fig_recovered", -1.0, 1.0)]
    if attribution is not None:
        a = np.asarray(attribution["repeat"])
        limit = float(np.abs(a).max()) or 1.0
        panels.insert(0, (a, "nb12.fig_dla", -limit, limit))
    for ax, (values, key, lo, hi) in zip(axes, panels):
        plots.attention_heatmap(np.round(values, 2) + 0.0, cols, rows, ax=ax, annotate=True,   # + 0.0: no "-0.00"
                                cmap=plots.SIGNED_CMAP, vmin=lo, vmax=hi, colorbar=False, xlabel=i18n.t("nb12.head"),
                                ylabel=i18n.t("nb12.layer"))
        ax.set_title(i18n.t(key), fontsize=10)
    ax = axes[-1]
    by_pos = np.asarray(result["by_position"]).reshape(layers * heads, -1)
    labels = [f"L{l}H{h}" for l in range(layers) for h in range(heads)]
    plots.attention_heatmap(by_pos, [str(t) for t in range(by_pos.shape[1])], labels, ax=ax, annotate=False,
                            cmap=plots.SIGNED_CMAP, vmin=-1, vmax=1, title=i18n.t("nb12.fig_recovered_pos"),
                            xlabel=i18n.t("nb12.fig_patched_position", after=result["corrupted_at"] + 1,
                                          query=result["query"]),
                            ylabel="", colorbar_label=i18n.t("nb12.fig_recovered_share"))
    for t in (result["corrupted_at"] + 1, result["query"]):
        ax.axvline(t, color="0.3", lw=0.8, ls=":")
    return axes


def plot_routes(routes: dict, axes=None):
    """experiments.route_scores of several induction models ({label: route}): one row per model, where layer 0's
    heads look (key t - b, left) and where layer 1's heads look (key s after the earlier occurrence, right)."""
    use_cjk_font()
    labels = list(routes)
    if axes is None:
        import matplotlib.pyplot as plt
        axes = plt.subplots(len(labels), 2, figsize=(10.0, 2.6 * len(labels)), layout="constrained",
                            squeeze=False)[1]
    axes = np.asarray(axes).reshape(len(labels), 2)
    for row, label in zip(axes, labels):
        r = routes[label]
        heads = [f"H{h}" for h in range(r["lookback"].shape[-1])]
        panels = ((r["lookback"][:, 0], [f"t − {b}" for b in r["backs"]], "nb12.fig_lookback"),
                  (r["shifted"][:, 1], [f"+{s}" for s in r["shifts"]], "nb12.fig_shifted"))
        for ax, (values, names, key) in zip(row, panels):
            plots.attention_heatmap(np.round(values, 2) + 0.0, heads, names, ax=ax, annotate=True, vmin=0.0,
                                    vmax=1.0, colorbar=False, xlabel=i18n.t("nb12.head"), ylabel="",
                                    aspect="auto")                   # cells as wide as the panel: no crowded numbers
            ax.set_title(f"{label} · {i18n.t(key)}", fontsize=10)
    return axes
