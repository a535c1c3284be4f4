"""The self- and cross-attention widget: a translation pair's weights and one query word's row (notebook 05)."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from attention_core.core.validation import describe
from attention_core.teaching import i18n, plots
from attention_core.teaching.widget_base import DPI, HeatmapView, Panel, error_panel, watch, widget_builder


# --- 05: self- and cross-attention ------------------------------------------------------------
def cross_attention_state(pair: str = "cat_mat", mode: str = "cross", order: str = "as_written", query: int = 0,
                          *, seed: int = 0) -> dict:
    """One attention layer of `cross_lab` and one query word's row of it (notebook 05).

    mode "cross": queries = the Chinese decoder sentence, keys and values = the English encoder
    sentence, weights (Tq, Tk); mode "self": queries, keys and values = the English sentence,
    weights (T, T). order reorders the English words (as_written, reversed, shuffled with seed).
    query: index of the query word in the sentence as written (Chinese for cross, English for
    self), so it names the same word whatever the order. Returns weights, the key and query
    tokens, the row (Tk,) of that word, its position after reordering, its top key and weight,
    and for cross the English word it translates (gold).
    """
    from attention_core.labs.nb05_self_and_cross_attention import cross_lab
    if mode not in cross_lab.MODES:
        raise ValueError(f"mode: expected one of {cross_lab.MODES}, got {describe(mode)}")
    if not isinstance(pair, str) or pair not in cross_lab.PAIRS:
        raise ValueError(f"pair: expected one of {tuple(cross_lab.PAIRS)}, got {describe(pair)}")
    english, chinese, gold = cross_lab.translation_pair(pair)
    perm = cross_lab.order_permutation(len(english.tokens), order, seed)
    source = cross_lab.reorder(english, perm)
    written = chinese if mode == "cross" else english
    n = len(written.tokens)
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 0 <= query < n:
        raise ValueError(f"query: expected an integer in 0..{n - 1}, got {describe(query)}")
    if mode == "cross":
        queries, params, row_index = chinese, cross_lab.cross_params(), int(query)
    else:
        queries, params = source, cross_lab.self_params()
        row_index = int(np.argsort(perm)[query])              # where the word stands after reordering
    output, weights = cross_lab.attend(queries, source, params)          # (Tq, F), (Tq, Tk)
    row = weights[row_index]                                             # (Tk,)
    top = int(row.argmax())
    word = queries.tokens[row_index]
    return {"pair": pair, "mode": mode, "order": order, "permutation": perm, "weights": weights,
            "output": output, "query_tokens": queries.tokens, "key_tokens": source.tokens,
            "row_index": row_index, "query_token": word, "row": row, "top": top,
            "top_token": source.tokens[top], "top_weight": float(row[top]),
            "distinct": bool(np.ptp(row) > 0.05), "gold": gold.get(word) if mode == "cross" else None}


def _row_bars_html(tokens, row, top: int) -> str:
    """One row of weights as HTML bars (the chosen word's row of the heatmap)."""
    return "<table>" + "".join(
        f"<tr><td style='text-align:right;padding-right:6px;{'font-weight:bold' if j == top else ''}'>"
        f"{html.escape(tok)}</td><td><div style='background:{plots.COLORS[0]};height:12px;"
        f"width:{max(1, round(200 * w))}px'></div></td><td style='padding-left:6px'>{w:.2f}</td></tr>"
        for j, (tok, w) in enumerate(zip(tokens, row))) + "</table>"


@widget_builder
def cross_attention_widget(pair: str = "cat_mat", mode: str = "cross", *, order: str = "as_written",
                           query: int = 0, seed: int = 0, dpi: int = DPI) -> Panel:
    """Switch between cross-attention (Chinese decoder queries over English encoder keys and
    values) and self-attention (the English sentence over itself), reorder the English words,
    pick a query word: see the whole weight matrix and that word's row (notebook 05)."""
    from attention_core.labs.nb05_self_and_cross_attention import cross_lab
    try:
        cross_attention_state(pair, mode, order, query, seed=seed)           # bad arguments: a message, not a figure
        view = HeatmapView(None, dpi=dpi)
    except Exception as exc:                       # noqa: BLE001
        return error_panel(exc)

    def words(p, m):
        english, chinese, _ = cross_lab.translation_pair(p)
        tokens = (chinese if m == "cross" else english).tokens
        return [(f"{tok} ({i + 1})" if tokens.count(tok) > 1 else tok, i) for i, tok in enumerate(tokens)]

    pair_box = widgets.Dropdown(options=[(f"{cross_lab.PAIRS[p][0]} → {cross_lab.PAIRS[p][1].replace(' ', '')}", p)
                                         for p in cross_lab.PAIRS], value=pair, description=i18n.t("cross.pair"),
                                layout={"width": "max-content"})
    mode_options = [(i18n.t(cross_lab.MODE_LABELS[m]), m) for m in cross_lab.MODES]
    mode_box = widgets.ToggleButtons(options=mode_options, value=mode,
                                     description=i18n.t("cross.mode"),
                                     style={"description_width": "initial", "button_width": "190px"})
    order_options = [(i18n.t(cross_lab.ORDER_LABELS[o]), o) for o in cross_lab.ORDERS]
    order_box = widgets.Dropdown(options=order_options, value=order,
                                 description=i18n.t("cross.order"), style={"description_width": "initial"})
    query_box = widgets.Dropdown(options=words(pair, mode), value=query, description=i18n.t("cross.query"),
                                 style={"description_width": "initial"})
    bars = widgets.HTML()
    guard = {"busy": False, "mode": None}

    def new_words(_change):                        # runs before the redraw: keep the word list right
        guard["busy"] = True
        keep = query_box.value
        query_box.options = words(pair_box.value, mode_box.value)
        query_box.value = keep if keep < len(query_box.options) else 0
        guard["busy"] = False

    pair_box.observe(new_words, names="value")
    mode_box.observe(new_words, names="value")
    panel = Panel([widgets.HBox([pair_box, order_box]), mode_box, query_box,
                   widgets.HBox([view.widget, bars], layout={"align_items": "center"})],
                  name="cross_attention",
                  controls={"pair": pair_box, "mode": mode_box, "order": order_box, "query": query_box},
                  images={"weights": view.widget})
    panel.children += (panel.readout, panel.message)
    panel.view, panel.bars = view, bars

    def compute():
        if guard["busy"]:                          # the word list is being rebuilt: wait for it
            return panel.state
        s = cross_attention_state(pair_box.value, mode_box.value, order_box.value, query_box.value, seed=seed)
        if guard["mode"] != s["mode"]:              # a new title: rebuild the figure
            view.options["title"] = i18n.t(cross_lab.MODE_TITLES[s["mode"]])
            view.rebuild()
            guard["mode"] = s["mode"]
        view.update(s["weights"], list(s["key_tokens"]), y_labels=list(s["query_tokens"]))
        row_title = html.escape(i18n.t("cross.row_title", query=s["query_token"]))
        bars.value = ("<div style='margin-left:12px'><b>" + row_title
                      + "</b>" + _row_bars_html(s["key_tokens"], s["row"], s["top"]) + "</div>")
        tq, tk = s["weights"].shape
        others = s["row"].copy()
        others[s["top"]] = -1.0
        second = int(others.argmax()) if tk > 1 else s["top"]                # the runner-up
        if s["distinct"] and s["top_weight"] - s["row"][second] < 0.05:      # a tie: say so
            a, b = sorted((s["top"], second))
            line = i18n.t("cross.split", query=s["query_token"], a=s["key_tokens"][a], b=s["key_tokens"][b],
                          weight=f"{s['top_weight']:.2f}")
        elif s["distinct"]:
            line = i18n.t("cross.readout", query=s["query_token"], target=s["top_token"],
                          weight=f"{s['top_weight']:.2f}", tq=tq, tk=tk,
                          square=i18n.t("cross.square" if tq == tk else "cross.not_square"))
        else:
            line = i18n.t("cross.even", query=s["query_token"], weight=f"{s['top_weight']:.2f}")
        if s["gold"] is not None:
            line += " · " + i18n.t("cross.translates", query=s["query_token"], gold=s["gold"])
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(line) + "</div>"
        return s

    return watch(panel, compute)
