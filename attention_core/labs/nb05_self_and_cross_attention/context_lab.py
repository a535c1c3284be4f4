"""One word, two contexts (notebook 05): self-attention gives 银行 a different vector in 银行倒闭 and in
银行对面, the example of “Transformer 自注意力机制：直觉理解，不需要数学” for a contextual representation (the
tutorial writes 银行对岸, but 对岸 is the far side of water; 对面, across from, is what a Chinese speaker says).

Hand-set features, as in `cross_lab`: the embedding of 银行 (a bank) is the same in both sentences and
carries both of its sides, an organisation (it can fail) and a place (you can stand across from it).
Its query asks "what does my context say about me?"; the key of a context word answers when it
cues one side (倒闭, to go bankrupt, cues an organisation; 对面, across from, cues a place),
and its value hands that side over. The new vector is the embedding plus the attention output (a
residual connection). Shapes: X (T, F), W_q/W_k (F, 1), W_v (F, F), weights (T, T).
"""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.similarity import cosine
from attention_core.teaching import i18n
from attention_core.teaching.tables import Table, named_matrix

FEATURES = ("organisation", "place", "noun", "ambiguous", "event", "location")
SENSES = ("organisation", "place")
LEXICON: dict[str, dict[str, float]] = {
    "银行": {"organisation": 0.5, "place": 0.5, "noun": 1.0, "ambiguous": 1.0},
    "倒闭": {"organisation": 1.0, "event": 1.0},          # to go bankrupt: only an organisation does
    "对面": {"place": 1.0, "location": 1.0, "noun": 1.0},  # across from: a place
    "了": {}, "的": {}, "公园": {"place": 1.0, "noun": 1.0},
}
SENTENCES = {"collapse": ("银行", "倒闭", "了"), "opposite": ("银行", "对面", "的", "公园")}


def embed(tokens) -> np.ndarray:
    """(T, F) feature vectors of the tokens (unknown words: zeros)."""
    x = np.zeros((len(tokens), len(FEATURES)))
    for i, tok in enumerate(tokens):
        for feat, value in LEXICON.get(tok, {}).items():
            x[i, FEATURES.index(feat)] = value
    return x


def context_params(strength: float = 4.0):
    """(W_q, W_k, W_v): an ambiguous word asks for a cue; an event or a location is one; values hand
    over the side (organisation or place) of the cue."""
    s = float(strength)
    w_q = named_matrix({("ambiguous", "cue"): s}, FEATURES, ("cue",))
    w_k = named_matrix({("event", "cue"): s, ("location", "cue"): s}, FEATURES, ("cue",))
    w_v = named_matrix({(f, f): 1.0 for f in SENSES}, FEATURES, FEATURES)
    return w_q, w_k, w_v


def contextual(tokens, strength: float = 4.0):
    """(new vectors (T, F) = x + attention output, weights (T, T)) of one sentence's self-attention."""
    x = embed(tokens)
    w_q, w_k, w_v = context_params(strength)
    out, weights = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    return x + out, weights


def bank_vectors(strength: float = 4.0) -> dict:
    """银行's embedding and its vector after self-attention in each sentence, with its weights row."""
    out = {"embedding": embed(["银行"])[0]}
    for name, tokens in SENTENCES.items():
        h, w = contextual(tokens, strength)
        i = tokens.index("银行")
        out[name] = {"vector": h[i], "weights": w[i], "tokens": tokens}
    return out


def bank_table(strength: float = 4.0, lang: str | None = None) -> Table:
    """Rows: 银行's embedding, its vector in 银行倒闭了 and in 银行对面的公园. Columns: all six features
    (the cosines are computed over all of them, so a reader can recompute them from the table), then
    the cosine with the embedding and with 银行's vector in the other sentence."""
    v = bank_vectors(strength)
    a, b = v["collapse"]["vector"], v["opposite"]["vector"]
    rows = [np.r_[v["embedding"], 1.0, 1.0],                         # the same vector in both sentences
            np.r_[a, cosine(a, v["embedding"]), cosine(a, b)],
            np.r_[b, cosine(b, v["embedding"]), cosine(b, a)]]
    names = [i18n.t("context_lab.embedding", lang),
             i18n.t("context_lab.in_sentence", lang, s="".join(SENTENCES["collapse"])),
             i18n.t("context_lab.in_sentence", lang, s="".join(SENTENCES["opposite"]))]
    feature_names = {"organisation": i18n.t("context_lab.organisation", lang),
                     "place": i18n.t("context_lab.place", lang), "noun": i18n.t("context_lab.noun", lang),
                     "ambiguous": i18n.t("context_lab.ambiguous", lang),
                     "event": i18n.t("context_lab.event", lang), "location": i18n.t("context_lab.location", lang)}
    cols = [feature_names[f] for f in FEATURES] + [
        i18n.t("context_lab.cos_embedding", lang), i18n.t("context_lab.cos_other", lang)]
    return Table(np.array(rows), names, cols, digits=2)
