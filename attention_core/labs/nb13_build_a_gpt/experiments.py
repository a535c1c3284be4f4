"""Measurements of notebook 13: the learned heads at every position of the context, validation loss
and perplexity against the bigram baseline, and generation with and without the KV cache.

Head scores are notebook 12's own (`previous_token_score`, `induction_score`), applied to the window
of each repeat: a repeat of `half` tokens starting at position s is the sub-matrix w[s:s+2h, s:s+2h].
Shapes: N sequences, L layers, H heads, T tokens.
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np

from attention_core.core import generation
from attention_core.core import transformer as tr
from attention_core.labs.nb12_trained_transformer import experiments as nb12
from attention_core.teaching import i18n

from . import corpus as corpus_mod
from . import data as data_mod

EVAL_SEED = 4321
HALF = 8


def scores_by_position(forward, max_len: int, half: int = HALF, n: int = 100, seed: int = EVAL_SEED) -> dict:
    """forward(ids (N, T)) -> (logits, weights (N, L, H, T, T)) on sequences whose repeat (half tokens,
    then the same again) starts at every position s = 0 .. max_len - 2 half.
    Returns {"starts": (S,), "induction": (S, L, H) induction score of each repeat start,
    "queries": (T - 1,) the query positions t = 1 .. T - 1, "previous": (T - 1, L, H) previous-token score of each}."""
    rng = np.random.default_rng(seed)
    starts = np.arange(0, max_len - 2 * half + 1)
    ind, prev_sum, count = [], 0.0, 0
    for s in starts:
        seqs = data_mod.repeat_at(rng, n, max_len, int(s), half)
        _, w = forward(seqs)
        w = np.asarray(w.detach() if hasattr(w, "detach") else w, dtype=np.float64)   # (N, L, H, T, T)
        ind.append(nb12.induction_score(w[..., s:s + 2 * half, s:s + 2 * half], half).mean(axis=0))
        t = np.arange(1, max_len)
        prev_sum = prev_sum + w[..., t, t - 1].sum(axis=0)                           # (L, H, T - 1)
        count += n
    prev = np.moveaxis(prev_sum / count, -1, 0)                                        # (T - 1, L, H)
    return {"starts": starts, "induction": np.stack(ind), "queries": np.arange(1, max_len), "previous": prev}


def best_heads(scores: dict) -> dict:
    """The head with the highest mean previous-token score and the one with the highest mean induction
    score, with their mean, their lowest score over the positions and where it is ("at_min": the query position t
    for "previous", the start of the repeat for "induction", as the figure's axes show them)."""
    out = {}
    for kind, where in (("previous", "queries"), ("induction", "starts")):
        s = scores[kind]                                                                # (P, L, H)
        layer, head = np.unravel_index(int(np.argmax(s.mean(axis=0))), s.shape[1:])
        col = s[:, layer, head]
        out[kind] = {"layer": int(layer), "head": int(head), "mean": float(col.mean()), "min": float(col.min()),
                     "at_min": int(np.asarray(scores[where])[int(np.argmin(col))])}
    return out


def numpy_forward(model):
    """The library's NumPy forward of a TrainedModel, as forward(ids)."""
    return lambda ids: model.forward(ids)


def text_losses(model, data: data_mod.TextData, limit: int | None = None) -> dict:
    """Validation loss (nats per character) and perplexity per language with the library's NumPy forward,
    next to the bigram baseline on the same pairs."""
    t = model.params.max_len
    out = {}
    for lang in corpus_mod.LANGS:
        win = data.valid_windows(lang, t, limit)
        total = 0.0
        for i in range(0, len(win), 8):
            chunk = win[i:i + 8]
            logp = tr.log_softmax(model.forward(chunk[:, :-1])[0].astype(np.float64))
            total += float(-np.take_along_axis(logp, chunk[:, 1:, None], -1).sum())
        loss = total / win[:, 1:].size
        big = data.bigram(lang, t) if limit is None else None
        out[lang] = {"loss": loss, "perplexity": math.exp(loss), "n_chars": int(win[:, 1:].size)}
        if big is not None:
            out[lang].update(bigram_loss=big["loss"], bigram_perplexity=big["perplexity"], bigram_alpha=big["alpha"])
    return out


def induction_summary(model) -> dict:
    """What a trained induction model grew: its best previous-token and induction heads over every position of the
    context (best_heads of scores_by_position), "found" (both heads score at least nb12.CIRCUIT_MIN on average)
    and the loss on the repeated half (notebook 12's repeated_half_loss); "scores" is scores_by_position's table."""
    scores = scores_by_position(numpy_forward(model), model.params.max_len)
    best = best_heads(scores)
    found = min(best["previous"]["mean"], best["induction"]["mean"]) >= nb12.CIRCUIT_MIN
    return {"scores": scores, "best": best, "found": bool(found),
            "repeated_half_loss": float(nb12.repeated_half_loss(model))}


WORD = {"en": r"[A-Za-z]{2,}", "zh": r"[\u4e00-\u9fff]{2}"}


def known_share(sample: str, text: str, lang: str) -> dict:
    """How much of a generated sample is made of pieces of the training text: for "en", the share of its words
    (runs of two or more letters) that occur as words in `text`; for "zh", the share of its pairs of adjacent
    Chinese characters that occur in `text`. {"known", "total", "share" (None when total is 0)}."""
    import re
    if lang not in WORD:
        raise ValueError(f"lang: expected one of {tuple(WORD)}, got {lang!r}")
    if not isinstance(sample, str) or not isinstance(text, str):
        raise TypeError("sample and text: expected strings")
    if lang == "en":
        vocab = {w.lower() for w in re.findall(WORD["en"], text)}
        pieces_ = [w.lower() for w in re.findall(WORD["en"], sample)]
    else:
        han = re.compile(r"[\u4e00-\u9fff]")
        vocab = {text[i:i + 2] for i in range(len(text) - 1) if han.match(text[i]) and han.match(text[i + 1])}
        pieces_ = [sample[i:i + 2] for i in range(len(sample) - 1) if han.match(sample[i]) and han.match(sample[i + 1])]
    known = sum(p in vocab for p in pieces_)
    return {"known": known, "total": len(pieces_), "share": known / len(pieces_) if pieces_ else None}


BLANK_RUN = 8   # a run of this many spaces or line breaks is shown as a count: a sample can be one long blank loop
# the words of visible() and sample_report(): (plural, singular) keys
BLANK_KEYS = {"space": ("nb13.blank_spaces", "nb13.blank_space"), "break": ("nb13.blank_breaks", "nb13.blank_break")}
SHARE_KEYS = {"en": {"share": "nb13.share_words", "none": "nb13.share_no_word",
                     "few": ("nb13.share_few_words", "nb13.share_few_word")},
              "zh": {"share": "nb13.share_pairs", "none": "nb13.share_no_pair",
                     "few": ("nb13.share_few_pairs", "nb13.share_few_pair")}}


def visible(sample: str) -> str:
    """The sample as printed below a prompt: runs of BLANK_RUN or more spaces and line breaks shown as a count in
    brackets, so a model that loops on blanks prints a line that says so instead of an empty-looking cell."""
    import re

    def count(m: re.Match) -> str:
        run = m.group(0)
        breaks = run.count("\n")
        counts = ((BLANK_KEYS["space"], len(run) - breaks), (BLANK_KEYS["break"], breaks))   # a tab counts as a space
        parts = [i18n.t(keys[n == 1], n=n) for keys, n in counts if n]
        return " [" + i18n.t("nb13.blank_and").join(parts) + "] "
    return re.sub(rf"\s{{{BLANK_RUN},}}", count, sample)


def sample_report(sample: str, prompt: str, text: str, lang: str, min_counted: int = 20) -> str:
    """What notebook 13 prints for one generated sample: the sample (blank runs counted, see `visible`), then the
    share of its words ("en") or Chinese character pairs ("zh") that occur in the training `text` (known_share),
    given only when there are at least `min_counted` of them: a share of three pairs says nothing."""
    if not isinstance(sample, str) or not isinstance(prompt, str) or not sample.startswith(prompt):
        raise ValueError("sample_report: expected the sample as a string that starts with its prompt")
    if isinstance(min_counted, bool) or not isinstance(min_counted, int) or min_counted < 1:
        raise ValueError(f"min_counted: expected a whole number from 1 up, got {min_counted!r}")
    known = known_share(sample[len(prompt):], text, lang)
    keys = SHARE_KEYS[lang]
    if known["total"] >= min_counted:
        line = i18n.t(keys["share"], known=known["known"], total=known["total"], share=known["share"])
    elif known["total"] == 0:
        line = i18n.t(keys["none"])
    else:
        line = i18n.t(keys["few"][known["total"] == 1], total=known["total"])
    return f"{visible(sample)}\n{line}"


def final_metrics(name: str, result: dict, data=None) -> dict:
    """What a run's weights achieve, measured with the NumPy forward (the path the notebook reads)."""
    from attention_core.labs.nb12_trained_transformer.model import TrainedModel
    man = result["manifest"]
    model = TrainedModel(man["name"], result["weights"], {**man, "config": {**man["config"],
                                                                           "kind": man["config"]["kind"]}})
    curve = man["loss_curve"]
    m = {"final_train_loss": curve[-1][1], "final_valid_loss": curve[-1][2]}
    if name == "induction":
        summary = induction_summary(model)
        for kind in ("previous", "induction"):
            b = summary["best"][kind]
            m[f"{kind}_head"] = f"L{b['layer']}H{b['head']}"
            m[f"{kind}_mean"] = round(b["mean"], 4)
            m[f"{kind}_min_over_positions"] = round(b["min"], 4)
        m["repeated_half_loss"] = round(summary["repeated_half_loss"], 4)
    else:
        data = data_mod.TextData() if data is None else data
        res = text_losses(model, data)
        for lang, r in res.items():
            for k, v in r.items():
                m[f"{lang}_{k}"] = round(v, 4) if isinstance(v, float) else v
    return m


# --- generation: with and without the cache ---------------------------------------------------------
def time_per_token(generate_fn, params, prompt, n_new: int, repeats: int = 3) -> float:
    """Best of `repeats` wall-clock seconds per new token of generate_fn(params, prompt, n_new)."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        generate_fn(params, prompt, n_new)
        best = min(best, (time.perf_counter() - start) / n_new)
    return best


def cache_timing(generate_cached, generate_uncached, params, lengths=(64, 128, 256), n_new: int = 16,
                 repeats: int = 3) -> list[dict]:
    """ms per new token, cached vs recomputed, when the context holds `length` tokens at the end."""
    import torch
    rows = []
    for length in lengths:
        prompt = list(np.random.default_rng(0).integers(0, params.tok_emb.shape[0], length - n_new))
        with torch.no_grad():
            c = time_per_token(generate_cached, params, prompt, n_new, repeats)
            u = time_per_token(generate_uncached, params, prompt, n_new, repeats)
        rows.append({"length": length, "cached_ms": 1000 * c, "uncached_ms": 1000 * u, "speedup": u / c})
    return rows


def write(generate_fn, params, ids, n_new: int, temperature: float = 1.0, seed: int = 0) -> list[int]:
    """ids followed by n_new generated ids, more than the model's context allows: generate_fn (a generate with the
    signature of pieces.generate) writes until the context is full, then starts again from the last half of the
    context, as nanoGPT crops its input (core.generation.write). The first call uses `seed`; each later call a seed
    drawn from (seed, call number), so two samples written with different seeds do not share their random draws."""
    return generation.write(functools.partial(generate_fn, params), ids, n_new, context=int(params.pos_emb.shape[0]),
                            temperature=temperature, seed=seed)


def cache_size(params, length: int, bytes_per_number: int = 4) -> int:
    """Bytes of a KV cache of `length` tokens: 2 (K and V) x L x T x D x bytes (notebook 09's formula)."""
    return 2 * len(params.blocks) * length * params.tok_emb.shape[1] * bytes_per_number
