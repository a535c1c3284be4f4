"""Measurements on the trained models of notebook 12: what each learned head does, and what it is for.

Induction model: per-head previous-token and induction scores on fresh random repeated sequences,
and the loss on the repeated half with each head ablated. Coreference model: held-out accuracy per
language, the head whose attention carries the answer, the cosine similarity of bank / 银行 across
contexts after each layer, and attention weight vs the effect of removing a token (Q6).
Every function takes a TrainedModel and returns plain numbers / arrays; seeds are arguments.
Shapes: L layers, H heads, T tokens, N sequences.
"""
from __future__ import annotations

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.validation import as_float_array, as_generator, describe, positive_int

from . import corpora

EVAL_SEED = 12345                # fresh sequences: never the training stream (seeded 0)
EVAL_N = 200
HALF = (corpora.INDUCTION_LEN - 1) // 2     # 11: test sequences of 22 tokens, every position trained


# --- induction ----------------------------------------------------------------------------------
def eval_sequences(n: int = EVAL_N, half: int = HALF, seed: int = EVAL_SEED) -> np.ndarray:
    """(N, 2 * half) fresh repeated random sequences."""
    n, half = positive_int(n, "n"), positive_int(half, "half")
    return corpora.repeated_sequences(as_generator(seed), n, half)


def _attention_maps(weights) -> np.ndarray:
    """weights (..., T, T) with T >= 2 (a score over an empty set of queries would be NaN)."""
    w = as_float_array(weights, "weights", min_ndim=2)
    if w.shape[-1] != w.shape[-2]:
        raise ValueError(f"weights: expected self-attention maps (..., T, T), got shape {w.shape}")
    if w.shape[-1] < 2:
        raise ValueError(f"weights: expected at least 2 tokens (a query t and its key t - 1), got shape {w.shape}")
    return w


def previous_token_score(weights, axis_t: tuple = (-2, -1)) -> np.ndarray:
    """Mean weight of query t on key t - 1 (t >= 1): weights (..., T, T) -> (...)."""
    w = _attention_maps(weights)
    t = w.shape[-1]
    return _mean(w[..., np.arange(1, t), np.arange(0, t - 1)])


def induction_score(weights, half: int) -> np.ndarray:
    """Mean weight of query t in the second copy on key t - half + 1, the token right AFTER the
    earlier occurrence of token t (what an induction head copies): weights (..., 2h, 2h) -> (...)."""
    w = _attention_maps(weights)
    half = positive_int(half, "half")
    if 2 * half > w.shape[-1]:
        raise ValueError(f"half: the two copies of {half} tokens need T >= {2 * half}, but weights has "
                         f"T = {w.shape[-1]} (expected half in 1..{w.shape[-1] // 2})")
    q = np.arange(half, 2 * half)
    return _mean(w[..., q, q - half + 1])


def _mean(x) -> np.ndarray:
    """Mean over the last axis as a sum of x / n: finite for any finite x (a sum of 1e308s is not)."""
    return (x / x.shape[-1]).sum(axis=-1)


def head_scores(model, n: int = EVAL_N, seed: int = EVAL_SEED) -> dict:
    """{"previous": (L, H), "induction": (L, H)} averaged over n fresh repeated sequences."""
    seqs = eval_sequences(n, HALF, seed)
    _, w = model.forward(seqs)                                        # (N, L, H, T, T)
    return {"previous": previous_token_score(w).mean(axis=0), "induction": induction_score(w, HALF).mean(axis=0)}


def repeated_half_loss(model, head_mask=None, n: int = EVAL_N, seed: int = EVAL_SEED) -> float:
    """Mean cross-entropy (nats) of predicting tokens 2..half of the second copy, the ones an
    induction head can predict (the first token of the copy follows nothing seen before)."""
    seqs = eval_sequences(n, HALF, seed)
    logits, _ = model.forward(seqs, head_mask=head_mask)              # (N, T, V)
    logp = tr.log_softmax(logits)
    pos = np.arange(HALF, 2 * HALF - 1)                               # predicting positions half+1 .. 2half-1
    target = seqs[:, pos + 1]                                         # (N, half - 1)
    return float(-np.take_along_axis(logp[:, pos], target[..., None], -1).mean())


def ablation_table(model, n: int = EVAL_N, seed: int = EVAL_SEED) -> list[dict]:
    """Loss on the repeated half with nothing, each single head, and each whole layer switched off."""
    l_, h_ = model.n_layers, model.n_heads
    rows = [{"ablated": "-", "layer": None, "head": None, "loss": repeated_half_loss(model, None, n, seed)}]
    for layer in range(l_):
        for head in range(h_):
            mask = np.ones((l_, h_))
            mask[layer, head] = 0
            rows.append({"ablated": f"L{layer}H{head}", "layer": layer, "head": head,
                         "loss": repeated_half_loss(model, mask, n, seed)})
    for layer in range(l_):
        mask = np.ones((l_, h_))
        mask[layer] = 0
        rows.append({"ablated": f"L{layer} all", "layer": layer, "head": None,
                     "loss": repeated_half_loss(model, mask, n, seed)})
    return rows


# --- coreference and context --------------------------------------------------------------------
def _final_rows(model, examples):
    """(N, T) ids right-padded with `|`, and the (N,) index of each row's last real token."""
    rows = [model.encode(list(ex.model_input())) for ex in examples]
    t = max(len(r) for r in rows)
    ids = np.full((len(rows), t), model.vocab.index(corpora.SEP), dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = r
    return ids, np.array([len(r) - 1 for r in rows])


def predictions(model, examples, **kwargs) -> list[str]:
    """The model's word after `sentence | query` for each example (batched forward)."""
    ids, last = _final_rows(model, examples)
    logits, _ = model.forward(ids, **kwargs)                          # (N, T, V)
    best = logits[np.arange(len(ids)), last].argmax(axis=-1)
    return [model.vocab[i] for i in best]


def coreference_accuracy(model, split=None) -> dict:
    """Accuracy on the held-out twins, per language and kind, and on the training sentences."""
    split = corpora.coreference_split() if split is None else split
    out = {}
    for part, examples in (("train", split.train), ("test", split.test)):
        pred = predictions(model, examples)
        right = np.array([p == ex.answer for p, ex in zip(pred, examples)])
        out[f"{part}_accuracy"] = float(right.mean())
        for lang in ("en", "zh"):
            for kind in ("it", "person", "bank"):
                sel = np.array([ex.lang == lang and ex.kind == kind for ex in examples])
                out[f"{part}_{kind}_{lang}"] = float(right[sel].mean())
            if part == "test":
                sel = np.array([ex.lang == lang and ex.kind != "bank" for ex in examples])
                out[f"test_pronoun_{lang}"] = float(right[sel].mean())
    return out


def twin_accuracy(model, lang: str, kind: str | None = None, split=None) -> dict:
    """Held-out twins of one language: sentences right, and twins with BOTH sentences right."""
    split = corpora.coreference_split() if split is None else split
    pairs = [p for p in corpora.twins(split.test, lang=lang)
             if p[0].kind != "bank" and (kind is None or p[0].kind == kind)]
    flat = [ex for pair in pairs for ex in pair]
    pred = predictions(model, flat)
    right = np.array([p == ex.answer for p, ex in zip(pred, flat)]).reshape(-1, 2)
    return {"sentences": int(right.size), "accuracy": float(right.mean()), "twins": len(pairs),
            "both_right": float(right.all(axis=1).mean())}


def final_query_weights(model, examples) -> tuple[np.ndarray, np.ndarray]:
    """(N, L, H, T) attention rows of each example's final query word (one batched forward; rows
    are right-padded, which a causal model never reads), and the (N,) sentence lengths."""
    ids, last = _final_rows(model, examples)
    _, w = model.forward(ids)                                          # (N, L, H, T, T)
    rows = w[np.arange(len(ids)), :, :, last]                          # (N, L, H, T)
    return rows, np.array([len(ex.tokens) for ex in examples])


def referent_head(model, split=None) -> dict:
    """The head whose final-query attention lands on the answer on held-out pronoun sentences:
    {"layer", "head"} of the largest mean weight on the answer, "mean_weight" (L, H) and
    "argmax_accuracy" (L, H), how often the head's strongest sentence word is the answer."""
    split = corpora.coreference_split() if split is None else split
    examples = [ex for ex in split.test if ex.kind != "bank"]
    rows, lengths = final_query_weights(model, examples)               # (N, L, H, T)
    answer = np.array([ex.tokens.index(ex.answer) for ex in examples])
    on_answer = rows[np.arange(len(examples)), :, :, answer]           # (N, L, H)
    in_sentence = np.arange(rows.shape[-1]) < lengths[:, None, None, None]
    strongest = np.where(in_sentence, rows, -1).argmax(axis=-1)        # (N, L, H)
    acc = (strongest == answer[:, None, None]).mean(axis=0)
    mean_w = on_answer.mean(axis=0)
    layer, head = np.unravel_index(np.argmax(mean_w), mean_w.shape)
    return {"layer": int(layer), "head": int(head), "mean_weight": mean_w, "argmax_accuracy": acc}


def unit(a, name: str = "a") -> np.ndarray:
    """a / |a| in float64, computed on a / max|a| so that neither 1e200s nor 1e-200s overflow or vanish."""
    a = as_float_array(a, name).astype(np.float64)
    if a.shape[-1] == 0:
        raise ValueError(f"{name}: expected at least one number, got an empty array of shape {a.shape}")
    top = np.abs(a).max(axis=-1, keepdims=True)
    if not (top > 0).all():
        raise ValueError(f"{name}: a zero vector has no direction, so its cosine is undefined")
    a = a / top
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def cosine(a, b) -> float:
    """cos(a, b) of two vectors of the same length, from unit vectors (finite at any magnitude)."""
    ua, ub = unit(a, "a"), unit(b, "b")
    if ua.ndim != 1 or ua.shape != ub.shape:
        raise ValueError(f"a and b: expected two vectors of the same length, got {describe(a)} and {describe(b)}")
    return float(np.clip(ua @ ub, -1.0, 1.0))


def bank_similarity(model, lang: str) -> dict:
    """Cosine similarity of the restated bank / 银行 (the last input position) between pairs of
    sentences of the same sense and of different senses, at the embedding and after each layer.
    Returns {"same": (L+1,), "other": (L+1,), "n_sentences": N, "senses": (s0, s1)}."""
    examples = [ex for ex in corpora.all_examples() if ex.kind == "bank" and ex.lang == lang]
    ids, last = _final_rows(model, examples)
    if len(set(last.tolist())) != 1:
        raise ValueError("bank sentences of one language must all have the same length")
    _, _, hidden = model.forward(ids, return_hidden=True)             # (N, L+1, T, D)
    h = unit(hidden[:, :, last[0]], "hidden")                          # (N, L+1, D)
    sims = np.einsum("nld,mld->lnm", h, h)                             # (L+1, N, N)
    sense = np.array([ex.answer for ex in examples])
    same = sense[:, None] == sense[None, :]
    off_diag = ~np.eye(len(examples), dtype=bool)
    return {"same": sims[:, same & off_diag].mean(axis=-1), "other": sims[:, ~same].mean(axis=-1),
            "n_sentences": len(examples), "senses": corpora.SENSES[lang]}


def removal_mask(t: int, j: int) -> np.ndarray:
    """(T, T) boolean: no query other than j itself may attend to key j (token j is removed from
    everyone's view, in every layer, while every position stays where it was)."""
    m = np.ones((t, t), dtype=bool)
    m[:, j] = False
    m[j, j] = True
    return m


def weight_vs_removal(model, sentence, query: str | None = None, layer: int | None = None,
                      head: int | None = None) -> dict:
    """For each word of the sentence: the attention weight of the final query word on it (in
    `layer`, `head`; default the referent head), and the effect of removing that word on the answer:
    the drop of the probability of the model's answer, and the answer without the word."""
    words = model.query_input(sentence, query)
    ids = model.encode(words)
    t = len(ids)
    if layer is None or head is None:
        rh = referent_head(model)
        layer, head = rh["layer"], rh["head"]
    logits, w = model.forward(ids)
    probs = np.exp(tr.log_softmax(logits[-1]))
    best = int(np.argmax(probs))
    n = t - 2                                                          # the sentence words (not | and query)
    masks = np.stack([np.broadcast_to(removal_mask(t, j), (model.n_layers, t, t)) for j in range(n)])  # (n, L, T, T)
    removed = np.exp(tr.log_softmax(model.forward(np.tile(ids, (n, 1)), attn_mask=masks)[0][:, -1]))   # (n, V)
    rows = [{"word": words[j], "weight": float(w[layer, head, -1, j]), "effect": float(probs[best] - removed[j, best]),
             "answer_without": model.vocab[int(np.argmax(removed[j]))]} for j in range(n)]
    return {"tokens": words, "answer": model.vocab[best], "p_answer": float(probs[best]), "layer": layer,
            "head": head, "rows": rows}


def disagreement(result: dict) -> dict:
    """The clearest disagreement in a weight_vs_removal result: the word with the largest weight and
    the word whose removal changes the answer most; they disagree when they are not the same word."""
    rows = result["rows"]
    top_weight = max(rows, key=lambda r: r["weight"])
    top_effect = max(rows, key=lambda r: r["effect"])
    return {"top_weight": top_weight, "top_effect": top_effect, "disagree": top_weight is not top_effect}


def head_table(values, digits: int = 2, lang: str | None = None):
    """An (L, H) array of per-head numbers as a labelled table (rows: layers, columns: heads)."""
    from attention_core.teaching import i18n
    from attention_core.teaching.tables import Table
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"values: expected an (L, H) array, got shape {values.shape}")
    return Table(values, [i18n.t("nb12.row_layer", lang, layer=l) for l in range(values.shape[0])],
                 [i18n.t("nb12.col_head", lang, head=h) for h in range(values.shape[1])], digits=digits)
