"""Self- and cross-attention by hand-set features: the same computation, different sources (notebook 05).

One function, `attend(queries_from, keys_values_from, params)`, computes
softmax(Q K^T / sqrt(Dk)) V with Q = X_q W_q, K = X_kv W_k, V = X_kv W_v. Pass one sentence
twice and it is self-attention (square (T, T) weights); pass Chinese decoder states and English
encoder states and it is cross-attention ((Tq, Tk) weights, not square). Nothing else changes.

The states are hand-set feature vectors over named axes (FEATURES), as in `coreference`: shared
meaning axes (`cat`, `sit`, `on`, ...) plus a few grammatical ones. Two sets of named matrices:
- cross_params(): each Chinese query asks for its meaning ("cat", "on", or, for the locative
  marker 在, "a spatial relation"); each English key says what it means; values hand over the
  meaning. 猫 finds "cat" wherever "cat" stands in the source;
- self_params(): an English word asks about its neighbours in the same sentence ("who does the
  sitting?", "on what?"): the "inner dialogue" of an encoder layer.
No line looks at the words; the lexicon rows (the embeddings) are the only word-specific thing.
There is no position encoding, so reordering the source words reorders the alignment's columns
and nothing else (notebook 07 adds position).
Shapes: Tq decoder tokens, Tk encoder tokens, F features, A match axes; X (T, F),
W_q/W_k (F, A), W_v (F, F); weights (Tq, Tk), output (Tq, F).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.validation import as_generator, real_number
from attention_core.teaching import i18n, plots
from attention_core.teaching.tables import Table, named_matrix

CONCEPTS = ("cat", "dog", "mat", "table", "sit", "on", "under")     # shared meaning axes
FEATURES = CONCEPTS + ("article", "noun", "verb", "preposition", "locative", "animate", "place")
CROSS_AXES = CONCEPTS + ("relation",)                                # "which meaning do I need?"
SELF_AXES = ("agent", "landmark", "head_noun", "action", "relation")  # "who is my partner here?"
# The Chinese edition's names of the features and axes in its tables (the code keeps the English ones).
ZH_NAMES = {"cat": "猫", "dog": "狗", "mat": "垫子", "table": "桌子", "sit": "坐", "on": "在上面", "under": "在下面",
            "article": "冠词", "noun": "名词", "verb": "动词", "preposition": "介词", "locative": "处所",
            "animate": "有生命", "place": "地点", "relation": "关系", "agent": "施事", "landmark": "参照物",
            "head_noun": "中心名词", "action": "动作"}


def display_name(name: str, lang: str | None = None) -> str:
    """A feature's or axis's name as the edition shows it: Chinese in zh, the code's name in en."""
    return ZH_NAMES.get(name, name) if i18n.resolve_language(lang) == "zh" else name
ORDERS = ("as_written", "reversed", "shuffled")
MODES = ("cross", "self")
# i18n keys per mode: the buttons, the figure titles, and the axis titles (keys, queries)
MODE_LABELS = {"cross": "cross.mode_cross", "self": "cross.mode_self"}
MODE_TITLES = {"cross": "cross.title_cross", "self": "cross.title_self"}
MODE_AXES = {"cross": ("cross.cross_keys", "cross.cross_queries"), "self": ("cross.self_keys", "cross.self_queries")}
ORDER_LABELS = {"as_written": "cross.order_as_written", "reversed": "cross.order_reversed",
                "shuffled": "cross.order_shuffled"}

# Each word's features (1.0 each). English: the encoder's source; Chinese: the decoder's target.
LEXICON: dict[str, tuple[str, ...]] = {
    "the": ("article",),
    "cat": ("cat", "noun", "animate"), "dog": ("dog", "noun", "animate"),
    "mat": ("mat", "noun", "place"), "table": ("table", "noun", "place"),
    "sat": ("sit", "verb"),
    "on": ("on", "preposition"), "under": ("under", "preposition"),
    "猫": ("cat", "noun", "animate"), "狗": ("dog", "noun", "animate"),
    "垫子": ("mat", "noun", "place"), "桌子": ("table", "noun", "place"),
    "坐": ("sit", "verb"),
    "在": ("locative",),               # "at": a spatial relation, not which one
    "上": ("on",), "下": ("under",),     # localisers: "on top of", "beneath"
}

# name: (English source, Chinese target, the English word each Chinese word translates)
PAIRS = {
    "cat_mat": ("the cat sat on the mat", "猫 坐 在 垫子 上",
                {"猫": "cat", "坐": "sat", "在": "on", "垫子": "mat", "上": "on"}),
    "dog_table": ("the dog sat under the table", "狗 坐 在 桌子 下",
                  {"狗": "dog", "坐": "sat", "在": "under", "桌子": "table", "下": "under"}),
}


@dataclass(frozen=True)
class Sentence:
    """Tokens and their feature vectors (T, F)."""
    tokens: tuple
    x: np.ndarray                    # (T, F)


def sentence(text) -> Sentence:
    """A sentence (space-separated string or token list) embedded with LEXICON (unknown words: all zeros)."""
    tokens = tuple(text.split() if isinstance(text, str) else text)
    if not tokens:
        raise ValueError("text: expected at least one token, got an empty sentence")
    x = np.zeros((len(tokens), len(FEATURES)))                                  # (T, F)
    for i, tok in enumerate(tokens):
        for feat in LEXICON.get(tok.lower(), ()):
            x[i, FEATURES.index(feat)] = 1.0
    return Sentence(tokens, x)


def translation_pair(name: str = "cat_mat") -> tuple[Sentence, Sentence, dict]:
    """(English source, Chinese target, {Chinese word: English word it translates}) of a named pair."""
    if name not in PAIRS:
        raise ValueError(f"name: expected one of {tuple(PAIRS)}, got {name!r}")
    source, target, gold = PAIRS[name]
    return sentence(source), sentence(target), dict(gold)


def order_permutation(n: int, order: str = "as_written", seed: int = 0) -> np.ndarray:
    """Indices that reorder n tokens: as written, reversed, or shuffled (seeded, never the identity for n > 1)."""
    if order not in ORDERS:
        raise ValueError(f"order: expected one of {ORDERS}, got {order!r}")
    if order == "as_written":
        return np.arange(n)
    if order == "reversed":
        return np.arange(n)[::-1].copy()
    rng = as_generator(seed)
    while True:
        perm = rng.permutation(n)
        if n < 2 or (perm != np.arange(n)).any():
            return perm


def reorder(s: Sentence, order="as_written", seed: int = 0) -> Sentence:
    """The sentence with its tokens (and their vectors) reordered: `order` is a name of ORDERS or a permutation."""
    perm = order_permutation(len(s.tokens), order, seed) if isinstance(order, str) else np.asarray(order)
    if sorted(perm.tolist()) != list(range(len(s.tokens))):
        raise ValueError(f"order: expected a permutation of 0..{len(s.tokens) - 1}, got {perm.tolist()}")
    return Sentence(tuple(s.tokens[i] for i in perm), s.x[perm])


@dataclass(frozen=True)
class AttnParams:
    """W_q, W_k (F, A) and W_v (F, F) with named rows (FEATURES) and columns (axes)."""
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    axes: tuple

    def table(self, matrix: str) -> Table:
        """One matrix as a labelled table, all-zero rows (and unused value columns) left out."""
        if matrix not in ("w_q", "w_k", "w_v"):
            raise ValueError(f"matrix: expected 'w_q', 'w_k' or 'w_v', got {matrix!r}")
        m = getattr(self, matrix)
        cols = FEATURES if matrix == "w_v" else self.axes
        keep = [i for i in range(m.shape[0]) if m[i].any()]
        used = [j for j in range(m.shape[1]) if m[:, j].any()] if matrix == "w_v" else range(m.shape[1])
        return Table(m[np.ix_(keep, list(used))], [display_name(FEATURES[i]) for i in keep],
                     [display_name(cols[j]) for j in used])

    def set(self, matrix: str, row: str, col: str, value: float) -> AttnParams:
        """A copy with one named entry changed, e.g. p.set("w_q", "locative", "relation", 0)."""
        m = getattr(self, matrix).copy()
        cols = FEATURES if matrix == "w_v" else self.axes
        m[FEATURES.index(row), cols.index(col)] = real_number(value, "value")
        return replace(self, **{matrix: m})


def _carry_meaning() -> np.ndarray:
    """W_v (F, F): a value hands over the word's meaning (its concept features) and nothing else."""
    return named_matrix({(c, c): 1.0 for c in CONCEPTS}, FEATURES, FEATURES)


def cross_params(strength: float = 3.5) -> AttnParams:
    """Decoder queries (Chinese) against encoder keys (English): match by shared meaning.

    Query: a concept feature asks for that concept; 在 (locative) asks for "a spatial relation".
    Key: a concept feature answers to that concept; a preposition answers to "a spatial relation".
    """
    s = real_number(strength, "strength")
    q = {(c, c): s for c in CONCEPTS} | {("locative", "relation"): s}
    k = {(c, c): s for c in CONCEPTS} | {("preposition", "relation"): s}
    return AttnParams(named_matrix(q, FEATURES, CROSS_AXES), named_matrix(k, FEATURES, CROSS_AXES), _carry_meaning(),
                      CROSS_AXES)


def self_params(strength: float = 3.5) -> AttnParams:
    """English words asking about each other (an encoder layer's self-attention).

    verb -> "who does it?" (agent: animate nouns); preposition -> "on what?" (landmark: places);
    article -> "which noun is mine?" (any noun: without positions it cannot tell which);
    animate noun -> "what do I do?" (action: verbs); place noun -> "how am I related?" (prepositions).
    """
    s = real_number(strength, "strength")
    q = {("verb", "agent"): s, ("preposition", "landmark"): s, ("article", "head_noun"): s,
         ("animate", "action"): s, ("place", "relation"): s}
    k = {("animate", "agent"): s, ("place", "landmark"): s, ("noun", "head_noun"): s,
         ("verb", "action"): s, ("preposition", "relation"): s}
    return AttnParams(named_matrix(q, FEATURES, SELF_AXES), named_matrix(k, FEATURES, SELF_AXES), _carry_meaning(),
                      SELF_AXES)


def attend(queries_from: Sentence, keys_values_from: Sentence, params: AttnParams):
    """One attention layer: queries from one sequence, keys and values from another (or the same).

    Q = X_q W_q (Tq, A), K = X_kv W_k (Tk, A), V = X_kv W_v (Tk, F).
    Returns (output (Tq, F), weights (Tq, Tk)) from ac.scaled_dot_product_attention.
    """
    q = queries_from.x @ params.w_q          # [en] (Tq, A): what each query looks for [zh] (Tq, A)：每个词要找什么
    k = keys_values_from.x @ params.w_k      # [en] (Tk, A): how each is matched [zh] (Tk, A)：每个词凭什么被匹配
    v = keys_values_from.x @ params.w_v      # [en] (Tk, F): what each token hands over [zh] (Tk, F)：每个词交出什么
    return scaled_dot_product_attention(q, k, v)


def alignment(weights, queries: Sentence, keys: Sentence) -> dict:
    """{query token: key token with its largest weight} (argmax of each row of weights (Tq, Tk))."""
    w = np.asarray(weights)
    return {tok: keys.tokens[int(j)] for tok, j in zip(queries.tokens, w.argmax(axis=-1))}


def concept_table(output, queries: Sentence, digits: int = 2) -> Table:
    """What each query token read: its output (Tq, F) on the meaning axes (CONCEPTS) present."""
    out = np.asarray(output)[:, :len(CONCEPTS)]
    used = [j for j in range(len(CONCEPTS)) if np.abs(out[:, j]).max() > 0.005]
    return Table(out[:, used], queries.tokens, [display_name(CONCEPTS[j]) for j in used], digits=digits)


def feature_table(s: Sentence) -> Table:
    """Tokens x features of a sentence (features no token has are left out)."""
    cols = [j for j in range(len(FEATURES)) if s.x[:, j].any()]
    return Table(s.x[:, cols], s.tokens, [display_name(FEATURES[j]) for j in cols], digits=0)


def plot_alignment(weights, queries: Sentence, keys: Sentence, ax=None, *, mode: str = "cross", title=None,
                   **kwargs):
    """Heatmap of weights (Tq, Tk): rows = query tokens, columns = key tokens, axis titles naming
    the sources ("decoder" / "encoder" for mode="cross", the one sentence for mode="self").
    kwargs go to `plots.attention_heatmap`. Returns the Axes."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
    return plots.attention_heatmap(weights, x_labels=list(keys.tokens), y_labels=list(queries.tokens), ax=ax,
                                   xlabel=i18n.t(MODE_AXES[mode][0]), ylabel=i18n.t(MODE_AXES[mode][1]),
                                   title=title, **kwargs)
