"""Measurements on the trained models of notebook 12: what each learned head does, and what it is for.

Induction model: per-head previous-token and induction scores on fresh sequences whose repeat lies at a
random place, loss and accuracy by position, the loss with each head ablated, the Q / K / V composition
test, the OV circuit, and the phase change in the logged training dynamics. Coreference models (an
encoder, and a causal decoder for contrast): held-out accuracy per language and family against
baselines, the share of sentences where a head's largest weight from the pronoun is the referent, the
cosine similarity of bank / 杜鹃 across held-out contexts after each layer, and attention weight vs the
effect of removing a token (Q6). Every function takes a TrainedModel and returns plain numbers /
arrays; seeds are arguments. Shapes: L layers, H heads, T tokens, N sequences.
"""
from __future__ import annotations

import numpy as np

from attention_core.core import hooked
from attention_core.core import transformer as tr
from attention_core.core.interventions import ablate, head_hook, head_logit_attribution, patch
from attention_core.core.similarity import cosine, unit  # noqa: F401 -- part of this lab's API
from attention_core.core.validation import as_float_array, as_generator, check_flag, describe, positive_int
from attention_core.teaching.i18n import LANGUAGES

from . import corpora
from .model import check_model
from .tools import repeat_loss

CIRCUIT_MIN = 0.4                # a head scoring this on the random layout counts as previous-token / induction
ROUTES = ("previous-token + induction", "other", "none")   # the routes circuit_summary names
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
    """{"previous": (L, H), "induction": (L, H)} averaged over n fresh sequences of `HALF` tokens repeated
    once (eval_sequences; the head picker's layout). scores_everywhere measures repeats at random places."""
    check_model(model, "induction")
    seqs = eval_sequences(n, HALF, seed)
    _, w = model.forward(seqs)                                        # (N, L, H, T, T)
    return {"previous": previous_token_score(w).mean(axis=0), "induction": induction_score(w, HALF).mean(axis=0)}


def repeated_half_loss(model, head_mask=None, n: int = EVAL_N, seed: int = EVAL_SEED) -> float:
    """Mean cross-entropy (nats) of predicting tokens 2..half of the second copy, the ones an
    induction head can predict (the first token of the copy follows nothing seen before)."""
    check_model(model, "induction")
    seqs = eval_sequences(n, HALF, seed)
    logits, _ = model.forward(seqs, head_mask=head_mask)              # (N, T, V)
    logp = tr.log_softmax(logits)
    pos = np.arange(HALF, 2 * HALF - 1)                               # predicting positions half+1 .. 2half-1
    target = seqs[:, pos + 1]                                         # (N, half - 1)
    return float(-np.take_along_axis(logp[:, pos], target[..., None], -1).mean())


def ablation_table(model, n: int = EVAL_N, seed: int = EVAL_SEED) -> list[dict]:
    """Loss on the repeated half with nothing, each single head, and each whole layer switched off."""
    check_model(model, "induction")
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


# --- induction at every position (corpus 2: repeats at random places) ----------------------------
EVAL_LEN = corpora.INDUCTION_LEN - 1        # 23: the length the model reads in training
EARLY = 12                                  # a second copy starting before position 12 is "early"
LAYOUT_HALF = 6                             # the per-position layouts: 6 tokens, twice
OFFSETS = (6, 9, 12, 17)                    # where the second copy starts in them (the first right before it)


def random_layout(n: int = EVAL_N, seed: int = EVAL_SEED) -> dict:
    """Fresh sequences in the training layout (copies of 4..11 tokens at random places, filler not in the
    segment): {"ids" (N, 23), "first", "second", "half" (N,)}."""
    ids, first, second, half = corpora.random_repeats(as_generator(seed), positive_int(n, "n"), EVAL_LEN)
    return {"ids": ids, "first": first, "second": second, "half": half}


def _copy_positions(layout: dict):
    """(row, query t, key t - distance + 1) of every query of every second copy."""
    rows, q, k = [], [], []
    for i, (f, s, h) in enumerate(zip(layout["first"], layout["second"], layout["half"])):
        t = np.arange(s, s + h)
        rows.append(np.full(h, i))
        q.append(t)
        k.append(t - (s - f) + 1)
    return np.concatenate(rows), np.concatenate(q), np.concatenate(k)


def layout_head_scores(weights, layout: dict) -> dict:
    """{"previous", "induction"} (L, H) on a random layout: weights (N, L, H, T, T). Induction: mean
    weight of each second-copy query on the key right after its earlier occurrence."""
    w = _attention_maps(weights)
    t = w.shape[-1]
    prev = w[..., np.arange(1, t), np.arange(0, t - 1)].mean(axis=(0, -1))
    r, q, k = _copy_positions(layout)
    ind = w[r, :, :, q, k].mean(axis=0)                                 # (L, H)
    return {"previous": prev, "induction": ind}


def scores_everywhere(model, n: int = EVAL_N, seed: int = EVAL_SEED) -> dict:
    """The previous-token and induction scores of every head on the random layout (copies anywhere)."""
    layout = random_layout(n, seed)
    _, w = model.forward(layout["ids"])
    return layout_head_scores(w, layout)


def _predictable(layout: dict):
    """(row, position t, target id) for the tokens an induction head can predict: from the second token
    of the second copy on (predicted at t = second .. second + half - 2)."""
    rows, pos = [], []
    for i, (s, h) in enumerate(zip(layout["second"], layout["half"])):
        rows.append(np.full(h - 1, i))
        pos.append(np.arange(s, s + h - 1))
    rows, pos = np.concatenate(rows), np.concatenate(pos)
    return rows, pos, layout["ids"][rows, pos + 1]


def in_context(model=None, layout: dict | None = None, *, logits=None, head_mask=None, n: int = EVAL_N,
               seed: int = EVAL_SEED) -> dict:
    """Accuracy and loss on the predictable tokens of second copies at random places, all of them and
    split by where the copy starts (early: before position 12). logits (N, T, V): use these instead
    of running the model (the composition test passes its own)."""
    layout = random_layout(n, seed) if layout is None else layout
    if logits is None:
        logits, _ = model.forward(layout["ids"], head_mask=head_mask)
    logp = tr.log_softmax(np.asarray(logits, dtype=np.float64))
    r, t, target = _predictable(layout)
    right = logp[r, t].argmax(-1) == target
    nll = -logp[r, t, target]
    early = layout["second"][r] < EARLY
    return {"accuracy": float(right.mean()), "loss": float(nll.mean()),
            "early_accuracy": float(right[early].mean()), "late_accuracy": float(right[~early].mean()),
            "early_loss": float(nll[early].mean()), "late_loss": float(nll[~early].mean()), "tokens": int(right.size)}


def by_position(model, offsets=OFFSETS, half: int = LAYOUT_HALF, n: int = EVAL_N, seed: int = EVAL_SEED) -> dict:
    """Per-position loss (-log P of the right next token, in nats) and accuracy (ARENA's per-token plot) for
    a copy of `half` tokens followed at once by its repeat, the repeat starting at each offset. Position t
    of the (K, T - 1) arrays predicts token t + 1. Returns {"offsets", "half", "loss", "logprob" (= -loss),
    "accuracy", "copy_loss" (K,) and "copy_accuracy" (K,) on letters 2..half of the second copy (what an
    induction circuit can predict), "letter_loss" (K, half - 1) the same letter by letter, "first_loss" and
    "first_accuracy" (K,) at the FIRST letter of the second copy (predicted at position offset - 1: nothing
    before it says which letter comes), "after_loss" (K,) the mean loss on the letters after the second copy
    (None when the copy ends the window), "start_top" (K,) the share of the predictions before the second
    copy (positions 1 .. offset - 2) whose top guess is the window's first letter, "start_p" (K,) the
    mean probability given to that letter there, and "end_top" / "end_p" (K,) the same at the copy's LAST letter
    for the copy's first letter, the one that followed that letter's earlier occurrence (None when the copy ends
    the window)}."""
    rng = as_generator(seed)
    half = positive_int(half, "half")
    out = {"offsets": tuple(offsets), "half": half, "logprob": [], "accuracy": [], "copy_accuracy": [],
           "copy_loss": [], "letter_loss": [], "first_loss": [], "first_accuracy": [], "after_loss": [],
           "start_top": [], "start_p": [], "end_top": [], "end_p": []}
    for o in offsets:
        ids = corpora.placed_repeats(rng, n, EVAL_LEN, half, o)
        logp = tr.log_softmax(np.asarray(model.forward(ids)[0], dtype=np.float64))[:, :-1]    # (N, T - 1, V)
        target = ids[:, 1:]
        lp = np.take_along_axis(logp, target[..., None], -1)[..., 0]                        # (N, T - 1)
        acc = logp.argmax(-1) == target
        out["logprob"].append(lp.mean(0))
        out["accuracy"].append(acc.mean(0))
        sl = slice(o, o + half - 1)                                       # predicting letters 2..half of the copy
        out["copy_accuracy"].append(float(acc[:, sl].mean()))
        out["copy_loss"].append(float(-lp[:, sl].mean()))
        out["letter_loss"].append(-lp[:, sl].mean(0))
        out["first_loss"].append(float(-lp[:, o - 1].mean()))
        out["first_accuracy"].append(float(acc[:, o - 1].mean()))
        after = -lp[:, o + half - 1:]                                     # predicting the letters after the copy
        out["after_loss"].append(float(after.mean()) if after.size else None)
        end = o + half - 1                                                # the copy's last letter
        if end < logp.shape[1]:
            loop = ids[:, o]                                              # what followed it the first time
            out["end_top"].append(float((logp[:, end].argmax(-1) == loop).mean()))
            out["end_p"].append(float(np.exp(logp[np.arange(len(ids)), end, loop]).mean()))
        else:
            out["end_top"].append(None)
            out["end_p"].append(None)
        if o >= 3:                                                        # positions 1 .. o - 2: nothing to copy yet
            first = ids[:, :1]                                            # (N, 1): the window's first letter
            before = logp[:, 1:o - 1]                                     # (N, o - 2, V)
            out["start_top"].append(float((before.argmax(-1) == first).mean()))
            out["start_p"].append(float(np.exp(np.take_along_axis(before, np.repeat(first, o - 2, 1)[..., None],
                                                                  -1)).mean()))
        else:
            out["start_top"].append(None)
            out["start_p"].append(None)
    for k in ("logprob", "accuracy", "letter_loss"):
        out[k] = np.array(out[k])
    out["loss"] = -out["logprob"]
    return out


def circuit_heads(model, scores: dict | None = None) -> dict:
    """The previous-token head (best of layer 0) and the induction head (best of layer 1) on the random layout."""
    scores = scores_everywhere(model) if scores is None else scores
    return {"previous": (0, int(np.argmax(scores["previous"][0]))),
            "induction": (1, int(np.argmax(scores["induction"][1])))}


def composition_forward(model, ids, remove: tuple, paths=("k",)):
    """The 2-layer model with the output of head `remove` = (0, h) taken out of layer 1's input for the
    keys ("k"), queries ("q") and/or values ("v") only, through the hook points hook_k_input etc.; every
    other path (the residual stream, the other heads) unchanged. Returns (logits (..., T, V), layer-1
    weights (..., H, T, T))."""
    if model.n_layers != 2 or remove[0] != 0:
        raise ValueError("composition_forward: expected a 2-layer model and a head of layer 0")
    bad = set(paths) - {"q", "k", "v"}
    if bad:
        raise ValueError(f"paths: expected some of 'q', 'k', 'v', got {sorted(bad)}")
    hooked_model = model.hooked
    _, cache = hooked_model.run_with_cache(ids, ["blocks.1.hook_resid_pre", "blocks.0.attn.hook_result"])
    without = cache["blocks.1.hook_resid_pre"] - cache["blocks.0.attn.hook_result"][..., remove[1], :, :]
    w = hooked_model.weights
    ln_without = hooked.layer_norm(without, w["l1_ln1_g"], w["l1_ln1_b"])        # (..., T, D): LN1 of layer 1
    hooks = [(f"blocks.1.attn.hook_{c}_input", lambda x, _: ln_without) for c in paths]
    logits, cache = hooked_model.run_with_cache(ids, ["blocks.1.attn.hook_pattern"], hooks=hooks)
    return logits, cache["blocks.1.attn.hook_pattern"]


def composition_test(model, n: int = EVAL_N, seed: int = EVAL_SEED) -> list[dict]:
    """The previous-token head's output removed from layer 1's keys, queries, values (and from all three,
    which is ablating it): in-context accuracy and loss, and the induction head's score, for each."""
    layout = random_layout(n, seed)
    heads = circuit_heads(model)
    ind = heads["induction"]
    rows = []
    for paths in ((), ("k",), ("q",), ("v",), ("q", "k", "v")):
        logits, w = composition_forward(model, layout["ids"], heads["previous"], paths)
        r, q, k = _copy_positions(layout)
        score = float(w[r, ind[1], q, k].mean())
        ic = in_context(layout=layout, logits=logits)
        rows.append({"removed_from": "".join(paths).upper() or "-", "accuracy": ic["accuracy"],
                     "loss": ic["loss"], "induction_score": score})
    return rows


def ov_copying(model, layer: int, head: int) -> dict:
    """The OV circuit of one head as a (V, V) table: token v at a key -> the logits its value writes
    (embedding + mean position, LN1, W_V, this head's rows of W_O, then LN_f's centring and gain, W_out).
    "copy_fraction": the share of the vocabulary whose own logit is the largest of its row (1.0: the head
    copies every token it attends to), "mean_rank" of the own token (0 = top)."""
    p = model.params
    b = p.blocks[layer]
    dh = p.d_model // model.n_heads
    sl = slice(head * dh, (head + 1) * dh)                                 # head h's columns of W_V, rows of W_O
    e = p.tok_emb + p.pos_emb[:EVAL_LEN].mean(axis=0)                     # (V, D)
    z = tr.layer_norm(e, b.ln1_g, b.ln1_b)
    v = z @ b.attn.w_v[:, sl] + b.attn.b_v[sl]                            # (V, Dh)
    out = v @ b.attn.w_o[sl]                                               # (V, D)
    out = (out - out.mean(-1, keepdims=True)) * p.lnf_g
    table = out @ p.w_out                                                  # (V, V)
    own = np.diag(table)
    rank = (table > own[:, None]).sum(-1)
    return {"table": table, "copy_fraction": float((rank == 0).mean()), "mean_rank": float(rank.mean())}


def circuit_summary(model) -> dict:
    """The numbers a manifest records for an induction model: scores everywhere, in-context accuracy early
    and late, and whether it grew a previous-token + induction pair."""
    sc = scores_everywhere(model)
    ic = in_context(model)
    prev, ind = float(sc["previous"][0].max()), float(sc["induction"][1].max())
    circuit = prev >= CIRCUIT_MIN and ind >= CIRCUIT_MIN
    return {"best_previous_token_score": prev, "best_induction_score": ind,
            "n_induction_heads": int((sc["induction"][1] >= CIRCUIT_MIN).sum()),
            "in_context_accuracy": ic["accuracy"], "early_accuracy": ic["early_accuracy"],
            "late_accuracy": ic["late_accuracy"],
            "route": ROUTES[0] if circuit else (ROUTES[1] if ic["accuracy"] >= 0.5 else ROUTES[2])}


# --- coreference and context ----------------------------------------------------------------------
def phase_change(manifest: dict, threshold: float = CIRCUIT_MIN) -> dict:
    """From an induction manifest's training dynamics: "step", the first logged step at which the best
    induction head of layer 1 scores >= threshold (the head forms); "prev_step", the same for the best
    previous-token head of layer 0; "loss_step", the first step at which the in-context loss has fallen
    half-way from its first value to its last; and the logged rows as arrays."""
    dyn = manifest.get("dynamics")
    if not dyn:
        raise ValueError("manifest: no training dynamics (an induction model trained on corpus 2 has them)")
    rows = dyn["rows"]
    steps = np.array([r[0] for r in rows])
    icl = np.array([r[2] for r in rows])
    acc = np.array([r[3] for r in rows])
    prev = np.array([r[4] for r in rows])                  # (S, L, H)
    ind = np.array([r[5] for r in rows])

    def first(cond):
        hit = np.flatnonzero(cond)
        return int(steps[hit[0]]) if hit.size else None

    half = icl[0] - (icl[0] - icl[-1]) / 2
    return {"step": first(ind[:, 1].max(-1) >= threshold), "prev_step": first(prev[:, 0].max(-1) >= threshold),
            "loss_step": first(icl <= half), "steps": steps, "in_context_loss": icl, "in_context_accuracy": acc,
            "previous": prev, "induction": ind, "train_loss": np.array([r[1] for r in rows])}


def _groups(model, examples):
    """Examples grouped by input length: {T: (indices, ids (n, T), answer positions (n,))} (an encoder
    reads no padding this way; the results equal a padded batch with the padding hidden)."""
    out: dict = {}
    for i, ex in enumerate(examples):
        words = list(ex.tokens) if not model.causal else list(ex.tokens) + [corpora.SEP, ex.query]
        pos = ex.position if not model.causal else len(words) - 1
        out.setdefault(len(words), []).append((i, model.encode(words), pos))
    return {t: (np.array([g[0] for g in grp]), np.stack([g[1] for g in grp]), np.array([g[2] for g in grp]))
            for t, grp in out.items()}


def predictions(model, examples, **kwargs) -> list[str]:
    """The model's answer for each example (at its query word; batched by length)."""
    best = np.zeros(len(examples), dtype=np.int64)
    for idx, ids, pos in _groups(model, examples).values():
        logits, _ = model.forward(ids, **kwargs)                      # (n, T, V)
        best[idx] = logits[np.arange(len(ids)), pos].argmax(axis=-1)
    return [model.vocab[i] for i in best]


def accuracy(model, examples, **kwargs) -> float:
    if not examples:
        raise ValueError("accuracy: expected at least one example, got none")
    return float(np.mean([p == ex.answer for p, ex in zip(predictions(model, examples, **kwargs), examples)]))


def query_rows(model, examples) -> list[np.ndarray]:
    """The attention row of each example's query word, (L, H, T_i) per example (T_i its length)."""
    out = [None] * len(examples)
    for idx, ids, pos in _groups(model, examples).values():
        _, w = model.forward(ids)                                      # (n, L, H, T, T)
        for k, i in enumerate(idx):
            out[i] = w[k, :, :, pos[k]]
    return out


def head_share(model, lang: str, split=None) -> dict:
    """On the held-out Winograd sentences of one language: for every head, the share of sentences where
    the pronoun's largest attention weight falls on the referent. {"share" (L, H), "layer", "head",
    "best", "sentences"}."""
    split = corpora.coreference_split() if split is None else split
    examples = [ex for ex in split.test if ex.kind in corpora.WINOGRAD and ex.lang == lang]
    rows = query_rows(model, examples)
    hits = np.stack([r.argmax(-1) == ex.tokens.index(ex.answer) for r, ex in zip(rows, examples)])   # (N, L, H)
    share = hits.mean(axis=0)
    layer, head = np.unravel_index(np.argmax(share), share.shape)
    return {"share": share, "layer": int(layer), "head": int(head), "best": float(share.max()),
            "sentences": len(examples)}


def referent_head(model, split=None) -> dict:
    """The head whose query-word attention lands on the answer on held-out Winograd sentences (both
    languages): {"layer", "head"} of the largest share, "mean_weight" (L, H) on the answer and
    "argmax_accuracy" (L, H), how often the head's strongest word is the answer."""
    split = corpora.coreference_split() if split is None else split
    examples = [ex for ex in split.test if ex.kind in corpora.WINOGRAD]
    rows = query_rows(model, examples)
    answer = [ex.tokens.index(ex.answer) for ex in examples]
    mean_w = np.mean([r[..., a] for r, a in zip(rows, answer)], axis=0)
    acc = np.mean([r.argmax(-1) == a for r, a in zip(rows, answer)], axis=0)
    layer, head = np.unravel_index(np.argmax(acc), acc.shape)
    return {"layer": int(layer), "head": int(head), "mean_weight": mean_w, "argmax_accuracy": acc}


def baselines(lang: str, split=None) -> dict:
    """Accuracy of the rules that read no meaning (first noun, last noun, animate adjective -> the animate
    noun) on the held-out Winograd sentences of one language."""
    split = corpora.coreference_split() if split is None else split
    examples = [ex for ex in split.test if ex.kind in corpora.WINOGRAD and ex.lang == lang]
    return {rule: float(np.mean([corpora.baseline_answer(ex, rule) == ex.answer for ex in examples]))
            for rule in ("first", "last", "animate")}


def coreference_metrics(model, split=None, *, held_out_only: bool = False) -> dict:
    """Everything a coreference manifest records: held-out accuracy per language (Winograd pooled, per
    family, held-out frames only, held-out role-crossing twins only), she / he agreement (apart), bank /
    杜鹃 on held-out sentences, the baselines and the margin over the best, the head share, and the training
    accuracy. held_out_only=True: without the last two (the training set is most of the time), as
    notebook 12's table prints them."""
    held_out_only = check_flag(held_out_only, "held_out_only")
    split = corpora.coreference_split() if split is None else split
    answered = dict(zip(map(id, split.test), predictions(model, split.test)))    # one pass over the test set

    def test_accuracy(examples) -> float:                  # the subsets below, read from that one pass
        if not examples:
            raise ValueError("accuracy: expected at least one example, got none")
        return float(np.mean([answered[id(ex)] == ex.answer for ex in examples]))

    out = {} if held_out_only else {"train_accuracy": accuracy(model, split.train)}
    for lang in LANGUAGES:
        test = [ex for ex in split.test if ex.lang == lang]
        wino = [ex for ex in test if ex.kind in corpora.WINOGRAD]
        out[f"test_winograd_{lang}"] = test_accuracy(wino)
        for fam in corpora.WINOGRAD:
            out[f"test_{fam}_{lang}"] = test_accuracy([ex for ex in wino if ex.kind == fam])
        out[f"test_new_frames_{lang}"] = test_accuracy([ex for ex in wino if ex.held_out_frame])
        out[f"test_role_swaps_{lang}"] = test_accuracy([ex for ex in wino if ex.crossed])
        out[f"test_person_{lang}"] = test_accuracy([ex for ex in test if ex.kind == "person"])
        bank = [ex for ex in test if ex.kind == "bank"]
        out[f"test_bank_{lang}"] = test_accuracy(bank)
        out[f"test_bank_new_cue_{lang}"] = test_accuracy([ex for ex in bank if ex.held_out_cue])
        base = baselines(lang, split)
        for rule, v in base.items():
            out[f"baseline_{rule}_{lang}"] = v
        out[f"margin_{lang}"] = out[f"test_winograd_{lang}"] - max(base.values())
        if not held_out_only:
            hs = head_share(model, lang, split)
            out[f"head_share_{lang}"] = hs["best"]
            out[f"head_{lang}"] = f"L{hs['layer']}H{hs['head']}"
    return out


def probe_metrics(model, seed: int = corpora.PROBE_SEED, per_frame: int = 4) -> dict:
    """The targets of issue 18 on a probe set the training never saw (corpora.probe_sentences: frames in
    neither the training nor the test set, nouns drawn from `seed`), per language: {lang: {"accuracy",
    "baselines" (first / last / animate), "margin" over the best of them, "class_shortcut" (the class-lookup
    rule: the probes are plain twins, where a noun's class tells its role), "head_share" and "head" (the
    best head's share of sentences whose pronoun's largest weight is on the referent), "sentences",
    "absent" (answers naming a noun that is not in the sentence)}}."""
    probes = corpora.Split((), tuple(corpora.probe_sentences(seed, per_frame)))
    out = {}
    for lang in LANGUAGES:
        examples = [ex for ex in probes.test if ex.lang == lang]
        pred = predictions(model, examples)
        acc = float(np.mean([p == ex.answer for p, ex in zip(pred, examples)]))
        base = baselines(lang, probes)
        hs = head_share(model, lang, probes)
        out[lang] = {"accuracy": acc, "baselines": base, "margin": acc - max(base.values()),
                     "class_shortcut": float(np.mean([_rule_answer(ex, "class") == ex.answer for ex in examples])),
                     "head_share": hs["best"], "head": f"L{hs['layer']}H{hs['head']}", "sentences": len(examples),
                     "absent": int(sum(p not in ex.tokens for p, ex in zip(pred, examples)))}
    return out


def chinese_possessors(split=None) -> dict:
    """Why the first-noun rule scores below 0.5 in Chinese: of the held-out plain Winograd sentences in Chinese, how
    many open with a possessor (the first noun followed by 的, as 小刚 in 小刚 的 狗), and how many sentences of the
    whole corpus, either language, have a possessor as their answer. {"sentences", "possessor_first",
    "possessor_answers"}."""
    split = corpora.coreference_split() if split is None else split
    plain = [ex for ex in split.test if ex.kind in corpora.WINOGRAD and ex.lang == "zh" and not ex.crossed]

    def owners(ex) -> set:
        return {ex.tokens[i] for i in range(len(ex.tokens) - 1) if ex.tokens[i + 1] == "的"}
    first = sum(corpora.baseline_answer(ex, "first") in owners(ex) for ex in plain)
    answers = sum(ex.answer in owners(ex) for ex in (*split.train, *split.test))
    return {"sentences": len(plain), "possessor_first": int(first), "possessor_answers": int(answers)}


def _adjective_class(ex) -> tuple:
    """The nouns of the class the example's adjective names (class 0: the family's x nouns, 1: its y nouns)."""
    fam = corpora.FAMILIES[ex.kind]
    return fam["x" if ex.adj in fam["adj"][ex.lang][0] else "y"][ex.lang]


def shortcut_test(model, split=None) -> dict:
    """Does the model read roles, or only which class of noun the adjective names? Per language: the
    accuracy of the class-lookup shortcut (corpora.class_lookup_answer) and of the model on the held-out
    Winograd sentences of the plain families (a noun's class tells its role there), then both on the
    HELD-OUT role swaps (corpora.role_swaps: role-crossing twins never trained on, where a noun's class no
    longer tells its role): {lang: {"lookup_held_out", "model_held_out", "lookup_swapped", "model_swapped",
    "swapped_by_family" {family: model accuracy}, "answer_in_class" (the share of swapped sentences whose
    answer is a noun of the class the adjective names, in the sentence or not: what the shortcut would
    say), "absent" (swapped answers naming a noun not in the sentence), "sentences" (swapped),
    "twins_both_right" (swapped twins with both sentences right)}}."""
    split = corpora.coreference_split() if split is None else split
    swaps = corpora.role_swaps(split)
    out = {}
    for lang in LANGUAGES:
        held = [ex for ex in split.test if ex.kind in corpora.WINOGRAD and ex.lang == lang and not ex.crossed]
        sw = [ex for ex in swaps if ex.lang == lang]
        pred_sw = predictions(model, sw)
        right = np.array([p == ex.answer for p, ex in zip(pred_sw, sw)])
        by_twin: dict = {}
        for ok, ex in zip(right, sw):
            by_twin.setdefault(ex.twin, []).append(ok)
        look = [corpora.class_lookup_answer(ex) for ex in sw]
        out[lang] = {
            "lookup_held_out": float(np.mean([corpora.class_lookup_answer(ex) == ex.answer for ex in held])),
            "model_held_out": accuracy(model, held),
            "lookup_swapped": float(np.mean([a == ex.answer for a, ex in zip(look, sw)])),
            "model_swapped": float(right.mean()),
            "swapped_by_family": {f: float(right[[ex.kind == f for ex in sw]].mean())
                                  for f in corpora.CROSSINGS},
            "answer_in_class": float(np.mean([p in _adjective_class(ex) for p, ex in zip(pred_sw, sw)])),
            "absent": int(sum(p not in ex.tokens for p, ex in zip(pred_sw, sw))), "sentences": len(sw),
            "twins_both_right": float(np.mean([all(v) for v in by_twin.values()]))}
    return out


LANGS = LANGUAGES                # the course's two languages, declared once in teaching.i18n
TWIN_KINDS = ("winograd", None, *corpora.WINOGRAD, "person", "bank")     # None: every kind


def twin_accuracy(model, lang: str, kind: str | None = "winograd", split=None) -> dict:
    """Held-out twins of one language (default: every Winograd family): sentences right, and twins with
    BOTH sentences right."""
    if lang not in LANGS:
        raise ValueError(f"lang: expected one of {LANGS}, got {describe(lang)}")
    if kind not in TWIN_KINDS:
        raise ValueError(f"kind: expected one of {TWIN_KINDS}, got {describe(kind)}")
    split = corpora.coreference_split() if split is None else split
    pairs = corpora.twins(split.test, kind=kind, lang=lang)
    if not pairs:
        raise ValueError(f"kind, lang: the held-out sentences hold no twins of kind {kind!r} in {lang!r}")
    flat = [ex for pair in pairs for ex in pair]
    pred = predictions(model, flat)
    right = np.array([p == ex.answer for p, ex in zip(pred, flat)]).reshape(-1, 2)
    return {"sentences": int(right.size), "accuracy": float(right.mean()), "twins": len(pairs),
            "both_right": float(right.all(axis=1).mean())}


def coreference_accuracy(model, split=None) -> dict:
    """The old name of coreference_metrics."""
    return coreference_metrics(model, split)


def bank_similarity(model, lang: str, held_out: bool = True) -> dict:
    """Cosine similarity of bank / 杜鹃 (at its own position, the same in every sentence of a language)
    between pairs of sentences of the same sense and of different senses, at the embedding and after
    each layer, on the HELD-OUT sentences only (new frames, new cues; held_out=False: the training ones).
    Returns {"same": (L+1,), "other": (L+1,), "n_sentences": N, "senses": (s0, s1), "accuracy"}."""
    if not isinstance(lang, str) or lang not in LANGS:
        raise ValueError(f"lang: expected one of {LANGS}, got {describe(lang)}")
    split = corpora.coreference_split()
    examples = [ex for ex in (split.test if held_out else split.train) if ex.kind == "bank" and ex.lang == lang]
    groups = _groups(model, examples)
    if len(groups) != 1 or len(set(next(iter(groups.values()))[2].tolist())) != 1:
        raise ValueError("bank sentences of one language must all have the same length and word position")
    idx, ids, pos = next(iter(groups.values()))
    examples = [examples[i] for i in idx]
    logits, _, hidden = model.forward(ids, return_hidden=True)        # (N, L+1, T, D)
    h = unit(hidden[:, :, pos[0]], "hidden")                           # (N, L+1, D)
    sims = np.einsum("nld,mld->lnm", h, h)                             # (L+1, N, N)
    sense = np.array([ex.answer for ex in examples])
    same = sense[:, None] == sense[None, :]
    off_diag = ~np.eye(len(examples), dtype=bool)
    right = np.array([model.vocab[i] for i in logits[:, pos[0]].argmax(-1)]) == sense
    return {"same": sims[:, same & off_diag].mean(axis=-1), "other": sims[:, ~same].mean(axis=-1),
            "n_sentences": len(examples), "senses": corpora.SENSES[lang], "accuracy": float(right.mean())}


def removal_mask(t: int, j: int) -> np.ndarray:
    """(T, T) boolean: no query other than j itself may attend to key j (token j is removed from
    everyone's view, in every layer, while every position stays where it was)."""
    t = positive_int(t, "t")
    if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)) or not 0 <= j < t:
        raise ValueError(f"j: expected the position of a token, an integer in 0..{t - 1}, got {describe(j)}")
    m = np.ones((t, t), dtype=bool)
    m[:, j] = False
    m[j, j] = True
    return m


def weight_vs_removal(model, sentence, query: str | None = None, layer: int | None = None,
                      head: int | None = None) -> dict:
    """For each word of the sentence (but the query word itself): the attention weight of the query word
    on it (in `layer`, `head`; default the referent head), and the effect of removing that word on the
    answer: the drop of the probability of the model's answer, and the answer without the word."""
    check_model(model, "coreference")
    if (layer is None) != (head is None):
        raise ValueError(f"layer and head: give both (one head) or neither (the referent head), got layer={layer!r}, "
                         f"head={head!r}")
    for name, value, n in (("layer", layer, model.n_layers), ("head", head, model.n_heads)):
        if value is not None and (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
                                  or not 0 <= value < n):
            raise ValueError(f"{name}: expected an integer in 0..{n - 1}, got {describe(value)}")
    sentence = corpora.halfwidth(sentence)                             # ＴＨＥ typed full-width reads as THE
    words = model.query_input(sentence, query)
    at = model.query_position(sentence, query)
    ids = model.encode(words)
    t = len(ids)
    if layer is None or head is None:
        rh = referent_head(model)
        layer, head = rh["layer"], rh["head"]
    logits, w = model.forward(ids)
    probs = np.exp(tr.log_softmax(logits[at]))
    best = int(np.argmax(probs))
    n_words = len(model.tokens(sentence)) if not model.causal else t - 2
    cols = [j for j in range(n_words) if j != at]
    masks = np.stack([np.broadcast_to(removal_mask(t, j), (model.n_layers, t, t)) for j in cols])  # (n, L, T, T)
    removed = np.exp(tr.log_softmax(model.forward(np.tile(ids, (len(cols), 1)), attn_mask=masks)[0][:, at]))
    rows = [{"word": words[j], "weight": float(w[layer, head, at, j]), "effect": float(probs[best] - removed[k, best]),
             "answer_without": model.vocab[int(np.argmax(removed[k]))]} for k, j in enumerate(cols)]
    return {"tokens": words, "answer": model.vocab[best], "p_answer": float(probs[best]), "layer": layer,
            "head": head, "rows": rows, "position": at}


def disagreement(result: dict) -> dict:
    """The clearest disagreement in a weight_vs_removal result: the word with the largest weight and
    the word whose removal changes the answer most; they disagree when they are not the same word."""
    rows = result.get("rows") if isinstance(result, dict) else None
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and {"weight", "effect"} <= set(r)
                                                         for r in rows):
        raise ValueError(f"result: expected what weight_vs_removal returns, a dict whose 'rows' lists at least one "
                         f"word's weight and effect, got {describe(result)[:120]}")
    top_weight = max(rows, key=lambda r: r["weight"])
    top_effect = max(rows, key=lambda r: r["effect"])
    return {"top_weight": top_weight, "top_effect": top_effect, "disagree": top_weight is not top_effect}


def head_table(values, digits: int = 2, lang: str | None = None):
    """An (L, H) array of per-head numbers as a labelled table (rows: layers, columns: heads)."""
    from attention_core.teaching import i18n
    from attention_core.teaching.tables import Table
    values = as_float_array(values, "values", min_ndim=0)
    if values.ndim != 2:
        raise ValueError(f"values: expected an (L, H) array, got shape {values.shape}")
    return Table(values, [i18n.t("nb12.row_layer", lang, layer=l) for l in range(values.shape[0])],
                 [i18n.t("nb12.col_head", lang, head=h) for h in range(values.shape[1])], digits=digits,
                 trim=False)                         # 0.40 beside 0.46, not 0.4: scores are read side by side


def sweep_table() -> dict:
    """The committed seed sweep of the induction recipe (data/models/induction_sweep.json, written by
    `make train-sweep`)."""
    import json
    from importlib import resources
    path = resources.files("attention_core.data") / "models" / "induction_sweep.json"
    if not path.is_file():
        raise FileNotFoundError("induction_sweep.json: not in attention_core/data/models; run `make train-sweep`")
    return json.loads(path.read_text(encoding="utf-8"))


# --- the researcher's tools through the hook points: ablations, logit attribution, patching --------------
REFERENCE_SEED = 54321           # the reference sequences of mean / resample ablation (never a training seed)
PATCH_SEED = 31415               # the clean / corrupted pairs of activation patching
CORRUPT_AT = 4                   # the letter of the first copy that the corrupted run replaces
ABLATIONS = ("zero", "mean", "mean_by_position", "resample")


def _check_heads(model, heads) -> list[tuple[int, int]]:
    """None -> every (layer, head); else a list of (layer, head) pairs, each checked."""
    if heads is None:
        return [(l, h) for l in range(model.n_layers) for h in range(model.n_heads)]
    if isinstance(heads, (str, bytes)) or not isinstance(heads, (list, tuple)):
        raise TypeError(f"heads: expected None (every head) or a list of (layer, head) pairs, got {describe(heads)}")
    out = []
    for pair in heads:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"heads: expected (layer, head) pairs, got {describe(pair)}")
        for name, value, n in (("layer", pair[0], model.n_layers), ("head", pair[1], model.n_heads)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < n:
                raise ValueError(f"heads: {name} expected an integer in 0..{n - 1}, got {describe(value)}")
        out.append((int(pair[0]), int(pair[1])))
    return out


def ablation_methods(model, heads=None, n: int = EVAL_N, seed: int = EVAL_SEED,
                     reference_seed: int = REFERENCE_SEED) -> list[dict]:
    """The loss on the repeated half (as in ablation_table) with each head ablated four ways at its hook_z:
    "zero" (its output set to 0), "mean" (set to ONE mean vector, its output averaged over n reference
    sequences of the same layout and every position: core.interventions.ablate's mean), "mean_by_position" (set to its
    mean output at each position over the reference sequences: it keeps its average contribution there and
    loses only what depends on the input) and "resample" (set to its output on another sequence of the
    reference set, position by position). The first row ("-") is the intact model in every column.
    heads: None (every head) or a list of (layer, head)."""
    check_model(model, "induction")
    heads = _check_heads(model, heads)
    seqs = eval_sequences(n, HALF, seed)
    reference = eval_sequences(n, HALF, reference_seed)
    base = repeat_loss(model.hooked(seqs), seqs)
    names = sorted({f"blocks.{layer}.attn.hook_z" for layer, _ in heads})
    _, ref_cache = model.hooked.run_with_cache(reference, names)
    rows = [{"ablated": "-", "layer": None, "head": None, **{how: base for how in ABLATIONS}}]
    for layer, head in heads:
        name = f"blocks.{layer}.attn.hook_z"
        row = {"ablated": f"L{layer}H{head}", "layer": layer, "head": head}
        for how in ("zero", "mean", "resample"):
            ref = None if how == "zero" else reference
            row[how] = repeat_loss(ablate(model.hooked, seqs, layer, head, how, reference=ref), seqs)
        by_pos = np.asarray(ref_cache[name])[:, head].mean(axis=0)                   # (T, Dh)
        row["mean_by_position"] = repeat_loss(model.hooked.run_with_hooks(seqs, {name: head_hook(head, by_pos)}),
                                               seqs)
        rows.append(row)
    return rows


def direct_attribution(model, ids, target, relative: bool = True) -> np.ndarray:
    """Direct logit attribution of every head, batched: ids and target (N, T) (or (T,)) -> (N, L, H, T), what
    each head's write adds to the logit of target[n, t] at position t (core.interventions.head_logit_attribution
    on the trained model). relative=True: to that logit minus the mean logit over the vocabulary."""
    relative = check_flag(relative, "relative")
    out = head_logit_attribution(model.hooked, ids, target, relative=relative)
    return out if out.ndim == 4 else out[None]


def logit_attribution(model, n: int = EVAL_N, seed: int = EVAL_SEED) -> dict:
    """Which heads write the right next letter: direct_attribution (relative) of every head on `half` letters
    repeated once, averaged over letters 2..half of the second copy ("repeat", (L, H)) and over the same
    letters of the first copy, where nothing can be copied ("first_copy", (L, H)); "logit" the model's own
    right-letter logit minus the mean logit on the repeat. The other writers into the residual stream, each
    measured the same way on the repeat: "embeddings" (token and position), "feed_forward" (every block's
    hook_mlp_out) and "biases" (every b_o, then LN_f's beta and b_out); with LN_f's scale taken from the run,
    "parts" (the heads' sum plus these three) equals "logit" up to float rounding."""
    check_model(model, "induction")
    seqs = eval_sequences(n, HALF, seed)
    target = np.roll(seqs, -1, axis=1)                                             # target[t] = token t + 1
    dla = direct_attribution(model, seqs, target)                                  # (N, L, H, T)
    repeat = np.arange(HALF, 2 * HALF - 1)
    first = np.arange(0, HALF - 1)
    logits = np.asarray(model.hooked(seqs), np.float64)                            # (N, T, V)
    right = np.take_along_axis(logits, target[..., None], -1)[..., 0] - logits.mean(-1)
    others = {k: float(v[:, repeat].mean()) for k, v in _other_writers(model.hooked, seqs, target).items()}
    heads = dla[..., repeat].mean(axis=(0, -1))
    return {"repeat": heads, "first_copy": dla[..., first].mean(axis=(0, -1)),
            "logit": float(right[:, repeat].mean()), **others, "parts": float(heads.sum()) + sum(others.values())}


def _other_writers(hm, ids, target) -> dict:
    """What the embeddings, the feed-forward blocks and the biases add to (logit of target - mean logit) at each
    position (N, T), read through LN_f as head_logit_attribution reads the heads: centred, divided by the run's
    LN_f scale, times gamma and the unembedding's column; LN_f's beta and b_out are added as they are."""
    last = f"blocks.{hm.n_layers - 1}.hook_resid_post"
    mlp = [f"blocks.{i}.hook_mlp_out" for i in range(hm.n_layers)]
    _, cache = hm.run_with_cache(ids, ["hook_embed", "hook_pos_embed", last, *mlp])
    w = {k: np.asarray(v, np.float64) for k, v in hm.weights.items()}
    final = np.asarray(cache[last], np.float64)                                   # (N, T, D)
    scale = np.sqrt(final.var(-1, keepdims=True) + hooked.LN_EPS)                # (N, T, 1): LN_f's divisor
    w_out = w["w_out"] - w["w_out"].mean(-1, keepdims=True)                      # relative to the mean logit
    direction = w_out[:, target].transpose(1, 2, 0) * w["lnf_g"]                 # (N, T, D)

    def through_lnf(x):
        x = np.broadcast_to(np.asarray(x, np.float64), final.shape)
        return ((x - x.mean(-1, keepdims=True)) / scale * direction).sum(-1)     # (N, T)
    b_out = w["b_out"] - w["b_out"].mean()
    return {"embeddings": through_lnf(np.asarray(cache["hook_embed"]) + np.asarray(cache["hook_pos_embed"])),
            "feed_forward": sum(through_lnf(cache[name]) for name in mlp),
            "biases": sum(through_lnf(w[f"l{i}_b_o"]) for i in range(hm.n_layers))
            + (w["lnf_b"] @ w_out)[target] + b_out[target]}


def patching_pairs(n: int = EVAL_N, seed: int = PATCH_SEED, at: int = CORRUPT_AT):
    """(clean (N, 2h), corrupted (N, 2h)): `HALF` letters repeated once, and the same with letter `at` of the
    first copy replaced by a letter that is in neither copy. In the second copy the query at HALF + at holds
    that letter; the clean model predicts the next one, token at + 1, by finding the earlier occurrence."""
    if isinstance(at, (bool, np.bool_)) or not isinstance(at, (int, np.integer)) or not 0 <= at < HALF - 1:
        raise ValueError(f"at: expected the position of a letter of the first copy that has a next letter, an "
                         f"integer in 0..{HALF - 2}, got {describe(at)}")
    clean = eval_sequences(n, HALF, seed)
    rng = as_generator(seed + 1)
    corrupted = clean.copy()
    vocab = len(corpora.INDUCTION_VOCAB)
    for row in corrupted:
        unused = np.setdiff1d(np.arange(vocab), row)
        row[at] = rng.choice(unused)
    return clean, corrupted


def patching_table(model, n: int = EVAL_N, seed: int = PATCH_SEED, at: int = CORRUPT_AT) -> dict:
    """Activation patching through the hook points (core.interventions.patch): on patching_pairs, the metric is log P of
    the right letter (token at + 1 of the sequence) at the query HALF + at of the second copy. Each head's
    hook_z is copied from the clean run into the corrupted run, at every position ("recovered" (L, H)) and at one
    position at a time ("by_position" (L, H, T)); recovered = (patched - corrupted) / (clean - corrupted) of the
    mean metric: 1 = the clean prediction is back, 0 = nothing returns. Also "clean", "corrupted" (mean log P),
    "query", "corrupted_at"."""
    check_model(model, "induction")
    clean_ids, bad_ids = patching_pairs(n, seed, at)
    query, want = HALF + at, clean_ids[:, at + 1]
    rows = np.arange(len(clean_ids))

    def metric(logits) -> float:
        logp = tr.log_softmax(np.asarray(logits, dtype=np.float64)[:, query])     # (N, V)
        return float(logp[rows, want].mean())

    names = [f"blocks.{l}.attn.hook_z" for l in range(model.n_layers)]
    clean_logits, cache = model.hooked.run_with_cache(clean_ids, names)
    clean, bad = metric(clean_logits), metric(model.hooked(bad_ids))
    if not clean - bad > 1e-6:
        raise ValueError(f"patching: the corruption did not lower log P of the right letter (clean {clean:.3f}, "
                         f"corrupted {bad:.3f}); nothing to recover")
    t = clean_ids.shape[1]
    whole = np.empty((model.n_layers, model.n_heads))
    by_pos = np.empty((model.n_layers, model.n_heads, t))
    for layer, name in enumerate(names):
        for head in range(model.n_heads):
            whole[layer, head] = metric(patch(model.hooked, bad_ids, cache, name, head))
            for pos in range(t):
                by_pos[layer, head, pos] = metric(patch(model.hooked, bad_ids, cache, name, head, positions=[pos]))
    return {"clean": clean, "corrupted": bad, "recovered": (whole - bad) / (clean - bad),
            "by_position": (by_pos - bad) / (clean - bad), "query": query, "corrupted_at": at}


# --- another route: where every head looks, and which path carries the copy -------------------------
LOOKBACK = (1, 2, 3, 4)          # key t - b: b = 1 is the previous-token score
SHIFTS = (0, 1, 2, 3, 4)         # key s after the earlier occurrence: s = 1 is the induction score, 0 the occurrence


def route_scores(model, n: int = EVAL_N, seed: int = EVAL_SEED, backs=LOOKBACK, shifts=SHIFTS) -> dict:
    """Where each head attends, on the random layout (copies anywhere): {"backs", "shifts", "lookback" (B, L, H) the
    mean weight of query t on key t - b over every query t >= b, "shifted" (S, L, H) the mean weight of each
    second-copy query t on key t - d + s, s positions after the earlier occurrence of its letter (d: the distance
    between the copies; a key after t is never counted)}. b = 1 and s = 1 are the previous-token and induction
    scores of scores_everywhere; a model that copies by another offset shows it in the other rows."""
    check_model(model, "induction")
    backs = tuple(positive_int(b, "backs") for b in backs)
    shifts = tuple(int(s) for s in shifts)
    if any(s < 0 for s in shifts):
        raise ValueError(f"shifts: expected integers >= 0, got {describe(shifts)}")
    layout = random_layout(n, seed)
    _, w = model.forward(layout["ids"])                                  # (N, L, H, T, T)
    t = w.shape[-1]
    if max(backs) >= t:
        raise ValueError(f"backs: expected offsets below the window's {t} tokens, got {describe(backs)}")
    look = np.stack([w[..., np.arange(b, t), np.arange(0, t - b)].mean(axis=(0, -1)) for b in backs])
    r, q, k = _copy_positions(layout)                                    # k: key t - d + 1
    shifted = []
    for s in shifts:
        key = k + s - 1
        ok = key <= q
        if not ok.any():
            raise ValueError(f"shifts: {s} positions after the earlier occurrence lies after every query")
        shifted.append(w[r[ok], :, :, q[ok], key[ok]].mean(axis=0))
    return {"backs": backs, "shifts": shifts, "lookback": look, "shifted": np.stack(shifted)}


def _replace_with(value):
    """A hook that returns `value` in place of the activation."""
    return lambda x, _: value


def path_patching(model, n: int = EVAL_N, seed: int = PATCH_SEED, at: int = CORRUPT_AT) -> dict:
    """Activation patching of one path (patching_table's pairs and metric): the clean output of a layer-0 head
    (hook_result) put into the corrupted run's layer-1 input for the queries, the keys or the values only
    (through blocks.1.attn.hook_{q,k,v}_input), every other path left corrupted. Returns {"q", "k", "v"} (H,) the
    share of log P of the right letter recovered, and "clean", "corrupted". A head whose output the keys read (key
    composition) recovers on "k"; one whose output the values carry to the answer, on "v"."""
    check_model(model, "induction")
    if model.n_layers != 2:
        raise ValueError("path_patching: expected a 2-layer model")
    clean_ids, bad_ids = patching_pairs(n, seed, at)
    query, want = HALF + at, clean_ids[:, at + 1]
    rows = np.arange(len(clean_ids))

    def metric(logits) -> float:
        logp = tr.log_softmax(np.asarray(logits, dtype=np.float64)[:, query])
        return float(logp[rows, want].mean())

    names = ["blocks.0.attn.hook_result", "blocks.1.hook_resid_pre"]
    hm = model.hooked
    clean_logits, clean_cache = hm.run_with_cache(clean_ids, names)
    bad_logits, bad_cache = hm.run_with_cache(bad_ids, names)
    clean, bad = metric(clean_logits), metric(bad_logits)
    if not clean - bad > 1e-6:
        raise ValueError(f"patching: the corruption did not lower log P of the right letter (clean {clean:.3f}, "
                         f"corrupted {bad:.3f}); nothing to recover")
    w = hm.weights
    out = {c: np.empty(model.n_heads) for c in "qkv"}
    for head in range(model.n_heads):
        resid = (bad_cache["blocks.1.hook_resid_pre"] - bad_cache["blocks.0.attn.hook_result"][..., head, :, :]
                 + clean_cache["blocks.0.attn.hook_result"][..., head, :, :])
        ln = hooked.layer_norm(resid, w["l1_ln1_g"], w["l1_ln1_b"])
        for c in "qkv":
            logits = hm.run_with_hooks(bad_ids, {f"blocks.1.attn.hook_{c}_input": _replace_with(ln)})
            out[c][head] = (metric(logits) - bad) / (clean - bad)
    return {**out, "clean": clean, "corrupted": bad}


# --- the coreference claims, measured three ways, and the strongest baseline --------------------------------
RULES = ("first", "last", "animate", "class")        # the rules that read no roles; "class": the class shortcut


def _rule_answer(ex, rule: str) -> str:
    return corpora.class_lookup_answer(ex) if rule == "class" else corpora.baseline_answer(ex, rule)


def baseline_comparison(model, split=None) -> dict:
    """The model against every rule that reads no roles, the class shortcut included, per language, on two sets:
    "held_out" (the held-out Winograd sentences whose nouns keep their class's role: there the class shortcut is
    right by construction) and "role_swaps" (the held-out role-crossing twins, never trained on: there a noun's
    class does not tell its role, and the shortcut is wrong by construction on one sentence of every twin).
    {lang: {set: {"model", "rules" {rule: accuracy}, "best_rule", "best", "margin" (model - best),
    "sentences"}}}."""
    check_model(model, "coreference")
    split = corpora.coreference_split() if split is None else split
    swaps = corpora.role_swaps(split)
    out = {}
    for lang in LANGUAGES:
        sets = {"held_out": [ex for ex in split.test if ex.kind in corpora.WINOGRAD and ex.lang == lang
                             and not ex.crossed],
                "role_swaps": [ex for ex in swaps if ex.lang == lang]}
        out[lang] = {}
        for name, examples in sets.items():
            pred = predictions(model, examples)
            acc = float(np.mean([p == ex.answer for p, ex in zip(pred, examples)]))
            rules = {r: float(np.mean([_rule_answer(ex, r) == ex.answer for ex in examples])) for r in RULES}
            best = max(rules, key=rules.get)
            out[lang][name] = {"model": acc, "rules": rules, "best_rule": best, "best": rules[best],
                               "margin": acc - rules[best], "sentences": len(examples)}
    return out


def _twin_batches(model, pairs):
    """Held-out twins grouped by length, each twin in both directions: {T: (ids (n, T), source ids (n, T),
    answer position (n,), answer id (n,), the source's answer id (n,), referent position (n,), adjective
    position (n,))}."""
    groups: dict = {}
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            wx = list(x.tokens) + ([corpora.SEP, x.query] if model.causal else [])
            wy = list(y.tokens) + ([corpora.SEP, y.query] if model.causal else [])
            pos = len(wx) - 1 if model.causal else x.position
            groups.setdefault(len(wx), []).append((model.encode(wx), model.encode(wy), pos,
                                                   model.vocab.index(x.answer), model.vocab.index(y.answer),
                                                   x.tokens.index(x.answer), x.tokens.index(x.adj)))
    return {t: tuple(np.array([g[i] for g in grp]) for i in range(7)) for t, grp in groups.items()}


def _twin_diff(logits, rows, pos, own, other):
    """(logit of the twin's answer - logit of the own answer, whether the twin's answer is now the top one) at
    each row's answering position."""
    z = np.asarray(logits, np.float64)[rows, pos]                                   # (n, V)
    return z[rows, other] - z[rows, own], z.argmax(-1) == other


def _patch_at(source, rows, pos, head):
    """A hook_z hook: head `head` (None: every head) at each row's position pos[row] taken from `source`."""
    def hook(z, _):
        z = np.array(z)
        if head is None:
            z[rows, :, pos] = source[rows, :, pos]
        else:
            z[rows, head, pos] = source[rows, head, pos]
        return z
    return hook


def attention_claim(model, lang: str, split=None) -> dict:
    """"The pronoun's head attends to its referent", measured three ways on the held-out Winograd twins of one
    language, per head (L, H), at the word where the model answers (the pronoun for an encoder, the restated
    pronoun after `|` for a decoder):
    - "mean_weight": the mean attention weight on the referent ("adjective_weight": on the adjective that decides);
    - "argmax": the share of sentences whose largest weight falls on the referent (head_share's measure);
    - patching from the twin (the same sentence with the other adjective, so the other referent): that head's
      output (hook_z) at the answering word copied from the twin's run, "follows" the share of sentences whose
      answer becomes the twin's, "recovered" the mean share of the logit difference (twin's answer - own answer)
      that moves to the twin's value;
    - "layer_follows" / "layer_recovered" (L,): every head of one layer patched at once;
    and "model_accuracy" (the answers unpatched), "sentences" (twins x 2: each twin is patched both ways)."""
    check_model(model, "coreference")
    if lang not in LANGUAGES:
        raise ValueError(f"lang: expected one of {LANGUAGES}, got {describe(lang)}")
    split = corpora.coreference_split() if split is None else split
    pairs = corpora.twins(split.test, kind="winograd", lang=lang)
    if not pairs:
        raise ValueError(f"lang: no held-out Winograd twins in {lang!r}")
    hm = model.hooked
    l_, h_ = model.n_layers, model.n_heads
    names = [f"blocks.{l}.attn.hook_z" for l in range(l_)]
    acc = {k: [] for k in ("weight", "adjective", "argmax", "follows", "recovered", "layer_follows", "layer_recovered",
                           "right")}
    for ids, src, pos, own, other, ref, adj in _twin_batches(model, pairs).values():
        rows = np.arange(len(ids))
        logits, cache = hm.run_with_cache(ids, names + [f"blocks.{l}.attn.hook_pattern" for l in range(l_)])
        _, src_cache = hm.run_with_cache(src, names)
        base, _ = _twin_diff(logits, rows, pos, own, other)
        goal, _ = _twin_diff(hm(src), rows, pos, own, other)
        acc["right"].append(np.asarray(logits, np.float64)[rows, pos].argmax(-1) == own)
        pat = np.stack([np.asarray(cache[f"blocks.{l}.attn.hook_pattern"])[rows, :, pos] for l in range(l_)], 1)
        acc["weight"].append(pat[rows, :, :, ref])                                  # (n, L, H)
        acc["adjective"].append(pat[rows, :, :, adj])
        acc["argmax"].append(pat.argmax(-1) == ref[:, None, None])
        fol, rec = np.empty((len(ids), l_, h_)), np.empty((len(ids), l_, h_))
        lfol, lrec = np.empty((len(ids), l_)), np.empty((len(ids), l_))
        for l, name in enumerate(names):
            source = np.asarray(src_cache[name])
            for head in [*range(h_), None]:
                patched = hm.run_with_hooks(ids, {name: _patch_at(source, rows, pos, head)})
                d, f = _twin_diff(patched, rows, pos, own, other)
                share = (d - base) / (goal - base)
                if head is None:
                    lfol[:, l], lrec[:, l] = f, share
                else:
                    fol[:, l, head], rec[:, l, head] = f, share
        acc["follows"].append(fol)
        acc["recovered"].append(rec)
        acc["layer_follows"].append(lfol)
        acc["layer_recovered"].append(lrec)
    cat = {k: np.concatenate(v) for k, v in acc.items()}
    return {"mean_weight": cat["weight"].mean(0), "adjective_weight": cat["adjective"].mean(0),
            "argmax": cat["argmax"].mean(0), "follows": cat["follows"].mean(0), "recovered": cat["recovered"].mean(0),
            "layer_follows": cat["layer_follows"].mean(0), "layer_recovered": cat["layer_recovered"].mean(0),
            "model_accuracy": float(cat["right"].mean()), "sentences": int(len(cat["right"]))}
