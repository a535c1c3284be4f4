"""The widgets of notebook 12: a head picker over the induction model's learned heads, and a
sentence explorer for the coreference model (pick or type a sentence, a layer and a head, switch
heads off and watch the prediction change). Each is a thin view over a pure `*_state` function."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.validation import describe
from attention_core.teaching import i18n
from attention_core.teaching.i18n import LANGUAGES
from attention_core.teaching.widget_base import DPI, HeatmapView, Panel, error_panel, watch

from . import corpora, experiments
from .model import check_model
from .strings import HOW_KEYS


def _check_head(model, layer, head) -> tuple[int, int]:
    for name, value, n in (("layer", layer, model.n_layers), ("head", head, model.n_heads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < n:
            raise ValueError(f"{name}: expected an integer in 0..{n - 1}, got {describe(value)}")
    return int(layer), int(head)


def head_mask_from(model, ablated) -> np.ndarray:
    """(L, H) ones with a 0 for every (layer, head) in `ablated`."""
    mask = np.ones((model.n_layers, model.n_heads))
    for pair in ablated:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"ablated: expected (layer, head) pairs, got {describe(pair)}")
        layer, head = _check_head(model, *pair)
        mask[layer, head] = 0
    return mask


# --- the induction model: pick a head --------------------------------------------------------------
def head_picker_state(model, layer: int, head: int, sequence=None, scores=None) -> dict:
    """One learned head of the induction model on one repeated sequence: its (T, T) weights, its
    previous-token and induction scores (on fresh sequences), the loss on the repeated half with
    this head switched off, and where query `t` of the second copy looks."""
    check_model(model, "induction")
    layer, head = _check_head(model, layer, head)
    if sequence is None:
        seq = experiments.eval_sequences(1, seed=7)[0]
    else:
        seq = tr.check_ids(sequence, model.params.vocab_size, model.params.max_len, name="sequence")
        if seq.ndim != 1 or len(seq) < 2:
            raise ValueError(f"sequence: expected one sequence of at least 2 tokens (two copies of a half), "
                             f"got shape {seq.shape}")
    scores = experiments.head_scores(model) if scores is None else scores
    _, w = model.forward(seq)                                         # (L, H, T, T)
    weights = w[layer, head]
    half = len(seq) // 2
    return {"layer": layer, "head": head, "tokens": model.decode(seq), "weights": weights,
            "previous": float(scores["previous"][layer, head]), "induction": float(scores["induction"][layer, head]),
            "half": half, "stripe": float(experiments.induction_score(weights, half)),
            "diagonal": float(experiments.previous_token_score(weights))}


def head_picker_widget(model, *, dpi: int = DPI) -> Panel:
    """Menu of every learned head (layer, head) -> its heatmap on a repeated sequence and its scores."""
    try:                                             # the whole set-up: a widget must not die
        check_model(model, "induction")
        scores = experiments.head_scores(model)
        seq = experiments.eval_sequences(1, seed=7)[0]
        s0 = head_picker_state(model, 0, 0, seq, scores)
        view = HeatmapView(s0["weights"], s0["tokens"], annotate=False, dpi=dpi, scale=0.7)
        options = [(i18n.t("nb12.layer_head", layer=l, head=h), (l, h))
                   for l in range(model.n_layers) for h in range(model.n_heads)]
        pick = widgets.Dropdown(options=options, value=(0, 0), description=i18n.t("nb12.head_menu"))
        panel = Panel([pick, view.widget], name="head picker", controls={"head": pick},
                      images={"weights": view.widget})
        panel.children += (panel.readout, panel.message)
    except Exception as exc:  # noqa: BLE001 -- a widget must not die
        return error_panel(exc)

    def compute():
        s = head_picker_state(model, *pick.value, seq, scores)
        view.update(s["weights"], s["tokens"])
        panel.readout.value = html.escape(i18n.t("nb12.head_readout", prev=f"{s['previous']:.2f}",
                                                 ind=f"{s['induction']:.2f}"))
        return s

    return watch(panel, _clearing(panel, view, compute))


def _clearing(panel: Panel, view: HeatmapView, compute):
    """compute, but a failure also takes the last picture and numbers off the screen (they belong to
    other settings; beside the red message they would read as the answer to this one)."""
    def guarded():
        try:
            s = compute()
        except Exception:
            view.widget.layout.visibility = "hidden"
            panel.readout.value = ""
            raise
        view.widget.layout.visibility = "visible"
        return s
    return guarded


# --- the induction model: ablate, attribute, patch one head --------------------------------------------
def intervention_tables(model) -> dict:
    """What the intervention widget reads for every head: experiments.logit_attribution and patching_table."""
    check_model(model, "induction")
    return {"attribution": experiments.logit_attribution(model), "patching": experiments.patching_table(model)}


def intervention_state(model, layer: int, head: int, how: str = "mean_by_position", tables=None) -> dict:
    """One head of the induction model under the three tools: the loss on the repeat with it ablated `how`
    (one of experiments.ABLATIONS, computed now through the hooks), its direct logit attribution to the
    right letter and the share of log P that patching its output from the clean run recovers (from `tables`,
    intervention_tables(model) by default)."""
    check_model(model, "induction")
    layer, head = _check_head(model, layer, head)
    if how not in experiments.ABLATIONS:
        raise ValueError(f"how: expected one of {experiments.ABLATIONS}, got {describe(how)}")
    tables = intervention_tables(model) if tables is None else tables
    if not isinstance(tables, dict) or not {"attribution", "patching"} <= set(tables):
        raise TypeError(f"tables: expected what intervention_tables(model) returns, got {describe(tables)}")
    base, row = experiments.ablation_methods(model, heads=[(layer, head)])
    return {"layer": layer, "head": head, "how": how, "loss": row[how], "intact": base[how],
            "attribution": float(tables["attribution"]["repeat"][layer, head]),
            "recovered": float(tables["patching"]["recovered"][layer, head])}


def intervention_widget(model) -> Panel:
    """A head and an ablation method -> the loss on the repeat with that head ablated, its direct logit
    attribution and what patching it recovers."""
    try:                                             # the whole set-up: a widget must not die
        check_model(model, "induction")
        tables = intervention_tables(model)
        options = [(i18n.t("nb12.layer_head", layer=l, head=h), (l, h))
                   for l in range(model.n_layers) for h in range(model.n_heads)]
        pick = widgets.Dropdown(options=options, value=(0, 0), description=i18n.t("nb12.head_menu"))
        how = widgets.ToggleButtons(options=[(i18n.t(HOW_KEYS[k]), k) for k in experiments.ABLATIONS],
                                    value="mean_by_position", description=i18n.t("nb12.how_menu"))
        panel = Panel([pick, how], name="intervention", controls={"head": pick, "how": how})
        panel.children += (panel.readout, panel.message)
    except Exception as exc:  # noqa: BLE001 -- a widget must not die
        return error_panel(exc)

    def compute():
        s = intervention_state(model, *pick.value, how.value, tables)
        panel.readout.value = html.escape(i18n.t(
            "nb12.intervention_readout", head=f"L{s['layer']}H{s['head']}", how=i18n.t(HOW_KEYS[s["how"]]),
            loss=f"{s['loss']:.3f}", base=f"{s['intact']:.3f}", dla=f"{s['attribution']:+.2f}",
            rec=f"{s['recovered']:.0%}"))
        return s

    return watch(panel, compute)


# --- the coreference model: a sentence, a head, ablations --------------------------------------------
def sentence_state(model, sentence, layer: int = 0, head: int = 0, ablated=(), top: int = 3) -> dict:
    """The coreference model on a sentence, answered at its pronoun (or bank / 杜鹃; a decoder after
    `| pronoun`): the chosen head's (T, T) weights, the query word's row, and the top predictions with
    and without the ablated heads (ablated: (layer, head) pairs; None or () for none)."""
    check_model(model, "coreference")
    layer, head = _check_head(model, layer, head)
    ablated = () if ablated is None else ablated
    if isinstance(ablated, (str, bytes)) or not isinstance(ablated, (list, tuple)):
        raise TypeError(f"ablated: expected a list of (layer, head) pairs, got {describe(ablated)}")
    if isinstance(top, (bool, np.bool_)) or not isinstance(top, (int, np.integer)) or not 1 <= top <= len(model.vocab):
        error = ValueError if isinstance(top, (int, np.integer)) and not isinstance(top, bool) else TypeError
        raise error(f"top: expected the number of predictions to show, an integer in 1..{len(model.vocab)}, "
                    f"got {describe(top)}")
    if not isinstance(sentence, (str, list, tuple)):
        raise TypeError(f"sentence: expected a string of space-separated words, got {describe(sentence)}")
    words = model.tokens(corpora.halfwidth(sentence))                 # ＴＨＥ typed full-width reads as THE
    model.encode(words)                                               # unknown words first, named
    tokens = model.query_input(words)
    at = model.query_position(words)
    ids = model.encode(tokens)
    mask = head_mask_from(model, ablated)
    logits, w = model.forward(ids, head_mask=mask)
    probs = np.exp(tr.log_softmax(logits[at]))
    base = np.exp(tr.log_softmax(model.forward(ids)[0][at]))
    order = np.argsort(-probs)[:top]
    return {"tokens": tokens, "layer": layer, "head": head, "weights": w[layer, head], "row": w[layer, head, at],
            "position": at, "query": tokens[at],
            "top": [(model.vocab[i], float(probs[i])) for i in order], "answer": model.vocab[int(order[0])],
            "baseline": model.vocab[int(np.argmax(base))], "ablated": [tuple(p) for p in ablated]}


def example_sentences(limit_per_kind: int = 3) -> list[str]:
    """A few held-out sentences of each kind and language, twins side by side, for the menu."""
    split = corpora.coreference_split()
    out = []
    for lang in LANGUAGES:
        for kind in corpora.WINOGRAD + ("person", "bank"):
            for a, b in corpora.twins(split.test, kind=kind, lang=lang)[:max(1, limit_per_kind // 2 + 1)]:
                out += [a.text, b.text]
    return out


def sentence_widget(model, sentence: str | None = None, *, dpi: int = DPI) -> Panel:
    """Type (or pick) a sentence in the model's vocabulary, choose a layer and a head, tick heads to
    switch them off: the heatmap, the pronoun's row and the prediction follow. Unknown words show
    a red message naming them."""
    try:                                             # the whole set-up: a widget must not die
        check_model(model, "coreference")
        examples = example_sentences()
        sentence = examples[0] if sentence is None else _sentence_text(sentence)
        view = HeatmapView(None, dpi=dpi, scale=0.8)
        text = widgets.Combobox(value=sentence, options=examples, ensure_option=False,
                                description=i18n.t("nb12.sentence"), layout={"width": "95%"}, continuous_update=False)
        layer = widgets.Dropdown(options=[(str(i), i) for i in range(model.n_layers)], value=0,
                                 description=i18n.t("nb12.layer"))
        head = widgets.Dropdown(options=[(str(i), i) for i in range(model.n_heads)], value=0,
                                description=i18n.t("nb12.head"))
        boxes = {(l, h): widgets.Checkbox(value=False, description=f"L{l}H{h}", indent=False,
                                          layout={"width": "70px"})
                 for l in range(model.n_layers) for h in range(model.n_heads)}
        controls = {"sentence": text, "layer": layer, "head": head,
                    **{f"off L{l}H{h}": b for (l, h), b in boxes.items()}}
        ablate_row = widgets.HBox([widgets.Label(i18n.t("nb12.switch_off"))] + list(boxes.values()))
        panel = Panel([text, widgets.HBox([layer, head]), ablate_row, view.widget], name="sentence",
                      controls=controls, images={"weights": view.widget})
        panel.children += (panel.readout, panel.message)
    except Exception as exc:  # noqa: BLE001 -- a widget must not die
        return error_panel(exc)

    def compute():
        s = sentence_state(model, text.value, layer.value, head.value,
                           [k for k, b in boxes.items() if b.value])
        view.update(s["weights"], s["tokens"])
        top = ", ".join(f"{html.escape(w)} {p:.2f}" for w, p in s["top"])
        panel.readout.value = (html.escape(i18n.t("nb12.prediction", query=s["query"])) + f" <b>{top}</b>"
                               + (html.escape(i18n.t("nb12.baseline", word=s["baseline"])) if s["ablated"] else ""))
        return s

    return watch(panel, _clearing(panel, view, compute))


def _sentence_text(sentence) -> str:
    """The text box's value: a string, or a list of words joined by spaces."""
    if isinstance(sentence, str):
        return sentence
    if isinstance(sentence, (list, tuple)) and all(isinstance(w, str) for w in sentence):
        return " ".join(sentence)
    raise TypeError(f"sentence: expected a string of space-separated words (or a list of words), "
                    f"got {describe(sentence)}")
