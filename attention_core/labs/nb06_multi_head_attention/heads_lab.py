"""Experiments of notebook 06 (multi-head attention): readable hand-set heads, head ablation, the cost of h.

The definition of multi-head attention lives in `attention_core.core.multihead`; this module only builds
inputs and parameters that a learner can read, and measures what the layer does with them.

The demo sentence is seed 001's "the cat sat on the mat because it was comfortable". Each token is
a vector of NAMED features (which word it is, its role, its clause, its position), followed by
empty output slots that the heads write into, residual-stream style. Four heads are set by hand,
each one a rule a learner can read in its matrices:

    head 0  "previous token"  position features; the query is rotated back by one position
    head 1  "same word"       word-identity features: every occurrence of my word
    head 2  "verb -> subject" role features: a verb asks for a subject in its own clause
    head 3  "nearest noun"    role + position features: a verb asks for the closest noun

Heads 3 and 4 reach the same answer on this sentence by different routes: they are redundant, and
ablating one of them (`head_mask`) leaves the subject readable, ablating both erases it.

    demo = sentence_demo()
    out, w = multi_head_attention(demo.x, demo.x, demo.x, demo.params)      # (T, D), (H, T, T)
    read_slot(demo, out, "subj", demo.tokens.index("sat"))                   # ("cat", 1.9...)

Everything is a pure function of its inputs (no global state; randomness from a seed); the plot
helper takes `ax=`, returns it and never calls `show()`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.core.multihead import MultiHeadParams, init_multihead, multi_head_attention
from attention_core.core.positional import sinusoidal_encoding
from attention_core.core.validation import as_generator, check_flag, describe, positive_int
from attention_core.teaching import i18n, plots
from attention_core.teaching.tables import Table

TOKENS = ("the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "comfortable")
VOCAB = ("the", "cat", "sat", "on", "mat", "because", "it", "was", "comfortable")
ROLES = ("nominal", "verb", "subject", "pronoun")
# Which roles each word plays in the demo sentence (a hand-written lexicon, not a parser).
LEXICON = {"cat": ("nominal", "subject"), "mat": ("nominal",), "it": ("nominal", "subject", "pronoun"),
           "sat": ("verb",), "was": ("verb",)}
CLAUSE_START = "because"        # tokens from here on belong to clause 2 (clause feature -1)
N_POS = 6                       # position features: sinusoidal, 3 frequencies (sin, cos pairs)
POS_BASE = 4.0                  # frequencies 1, 0.63, 0.40 rad per position: sharp over 10 tokens
HEAD_KEYS = ("prev", "same", "subject", "noun")
HEAD_NAMES = {"prev": "heads_lab.head.prev", "same": "heads_lab.head.same", "subject": "heads_lab.head.subject",
              "noun": "heads_lab.head.noun"}                 # i18n keys of the heads' names
N_HEADS = len(HEAD_KEYS)
# Gains of the hand-set heads (the scores are divided by sqrt(Dh) = sqrt(11) inside attention).
GAIN = {"prev": 18.0, "same": 15.0, "subject_role": 14.0, "clause": 14.0, "noun_pos": 10.0, "noun_role": 20.0}


def _feature_names() -> tuple[str, ...]:
    words = [f"word:{w}" for w in VOCAB]                                   # one-hot identity
    pos = [f"pos{i}" for i in range(N_POS)]                                # sin/cos pairs
    slots = ([f"prev:{w}" for w in VOCAB] + [f"subj:{w}" for w in VOCAB]    # written by heads 1, 3 + 4
             + [f"where{i}" for i in range(N_POS)])                        # written by head 1
    return tuple(words + list(ROLES) + ["clause"] + pos + slots)


FEATURES = _feature_names()
D_MODEL = len(FEATURES)         # 44 = 4 heads x 11
D_HEAD = D_MODEL // N_HEADS


# How the tables name the role, clause and position features in the Chinese edition (the slots keep their code names).
_ZH_FEATURES = {"nominal": "名词性", "verb": "动词", "subject": "主语", "pronoun": "代词", "clause": "分句"}


def feature_label(name: str, lang: str | None = None) -> str:
    """The display name of input feature `name` in `lang` (default: the current language)."""
    if name not in FEATURES:
        raise ValueError(f"name: expected one of the {len(FEATURES)} features (e.g. 'verb', 'pos0'), got {name!r}")
    if i18n.resolve_language(lang) == "en":
        return name
    if name.startswith("pos"):
        return "位置" + name[3:]
    return _ZH_FEATURES.get(name, name)


def _col(name: str) -> int:
    return FEATURES.index(name)


def _cols(prefix: str) -> list[int]:
    return [i for i, f in enumerate(FEATURES) if f.startswith(prefix)]


SLOTS = {"prev": _cols("prev:"), "subj": _cols("subj:"), "where": _cols("where")}


@dataclass(frozen=True)
class HeadsDemo:
    """The sentence, its input x (T, D) with named features, and the hand-set layer (H = 4)."""
    tokens: tuple
    x: np.ndarray
    params: MultiHeadParams
    features: tuple = FEATURES
    head_keys: tuple = HEAD_KEYS

    def head_names(self, lang: str | None = None) -> list[str]:
        """The four heads' names in the current language (or `lang`), numbered as in the figures."""
        return [f"{i} · {i18n.t(HEAD_NAMES[key], lang)}" for i, key in enumerate(self.head_keys)]


def sentence_features(tokens=TOKENS) -> np.ndarray:
    """(T, D) input: word one-hot, roles, clause (+1 / -1), sinusoidal position; output slots all 0."""
    if isinstance(tokens, str):
        raise TypeError(f"tokens: expected a list of words, got the string {tokens!r}; split it first")
    tokens = tuple(str(t) for t in tokens)
    unknown = sorted({t for t in tokens if t not in VOCAB})
    if not tokens or unknown:
        raise ValueError(f"tokens: expected a non-empty list of words from {VOCAB}, got unknown {unknown}")
    t = len(tokens)
    x = np.zeros((t, D_MODEL))
    clause = 1.0
    for i, token in enumerate(tokens):
        clause = -1.0 if token == CLAUSE_START else clause
        x[i, _col(f"word:{token}")] = 1.0
        for role in LEXICON.get(token, ()):
            x[i, _col(role)] = 1.0
        x[i, _col("clause")] = clause
    x[:, _cols("pos")] = sinusoidal_encoding(t, N_POS, POS_BASE)             # (T, 6)
    return x


def _shift_back_one(n_pos: int = N_POS, base: float = POS_BASE) -> np.ndarray:
    """(n_pos, n_pos) matrix R with PE[p] @ R = PE[p - 1] for the sinusoidal table (pairs sin, cos)."""
    r = np.zeros((n_pos, n_pos))
    for i in range(0, n_pos, 2):
        w = base ** (-i / n_pos)                                           # angular speed of this pair
        # sin((p-1)w) = sin(pw) cos w - cos(pw) sin w ;  cos((p-1)w) = sin(pw) sin w + cos(pw) cos w
        r[i:i + 2, i:i + 2] = [[math.cos(w), math.sin(w)], [-math.sin(w), math.cos(w)]]
    return r


def position_code(n_positions: int) -> np.ndarray:
    """(T, N_POS) position features of the demo: three (sin, cos) pairs turning at different speeds,
    like the hands of a clock (notebook 07 teaches such codes; here only shift_back_one matters)."""
    return sinusoidal_encoding(n_positions, N_POS, POS_BASE)


def shift_back_one() -> np.ndarray:
    """(N_POS, N_POS) matrix R with position_code[p] @ R = position_code[p - 1] for every p: each pair
    of the code is turned back by its own step, one fixed rotation per pair."""
    return _shift_back_one()


def designed_params(gain: dict | None = None) -> MultiHeadParams:
    """The four hand-set heads as one MultiHeadParams (D = 44, H = 4, Dh = 11, all biases 0).

    Head h reads/writes columns h*Dh .. h*Dh + 10 of the projected Q, K, V (that is what
    `split_heads` gives it); W_o routes each head's output into its named slot.
    """
    g = {**GAIN, **(gain or {})}
    d, dh = D_MODEL, D_HEAD
    w_q, w_k, w_v, w_o = (np.zeros((d, d)) for _ in range(4))
    words, pos = _cols("word:"), _cols("pos")
    c = lambda head, n: [head * dh + j for j in range(n)]                 # noqa: E731 -- head's columns
    # head 0, previous token: query = my position moved back by one, key = my position; value = my word
    q1 = c(0, N_POS)
    w_q[np.ix_(pos, q1)] = g["prev"] * _shift_back_one()
    w_k[np.ix_(pos, q1)] = np.eye(N_POS)
    w_v[np.ix_(words, c(0, len(VOCAB)))] = np.eye(len(VOCAB))
    w_o[np.ix_(c(0, len(VOCAB)), SLOTS["prev"])] = np.eye(len(VOCAB))
    # head 1, same word: query = my word, key = my word; value = my position
    q2 = c(1, len(VOCAB))
    w_q[np.ix_(words, q2)] = g["same"] * np.eye(len(VOCAB))
    w_k[np.ix_(words, q2)] = np.eye(len(VOCAB))
    w_v[np.ix_(pos, c(1, N_POS))] = np.eye(N_POS)
    w_o[np.ix_(c(1, N_POS), SLOTS["where"])] = np.eye(N_POS)
    # head 2, verb -> subject: a verb asks "subject?"; everybody prefers its own clause; value = word
    s, cl = 2 * dh, 2 * dh + 1
    w_q[_col("verb"), s], w_k[_col("subject"), s] = g["subject_role"], 1.0
    w_q[_col("clause"), cl], w_k[_col("clause"), cl] = g["clause"], 1.0
    w_v[np.ix_(words, c(2, len(VOCAB)))] = np.eye(len(VOCAB))
    w_o[np.ix_(c(2, len(VOCAB)), SLOTS["subj"])] = np.eye(len(VOCAB))
    # head 3, nearest noun: everybody prefers nearby positions; a verb also asks "noun?"; value = word
    w_q[np.ix_(pos, c(3, N_POS))] = g["noun_pos"] * np.eye(N_POS)
    w_k[np.ix_(pos, c(3, N_POS))] = np.eye(N_POS)
    w_q[_col("verb"), 3 * dh + N_POS], w_k[_col("nominal"), 3 * dh + N_POS] = g["noun_role"], 1.0
    w_v[np.ix_(words, c(3, len(VOCAB)))] = np.eye(len(VOCAB))
    w_o[np.ix_(c(3, len(VOCAB)), SLOTS["subj"])] = np.eye(len(VOCAB))   # the same slot as head 2
    zeros = np.zeros(d)
    return MultiHeadParams(w_q, w_k, w_v, w_o, zeros, zeros, zeros, zeros, n_heads=N_HEADS)


def sentence_demo(tokens=TOKENS) -> HeadsDemo:
    """The demo sentence with its features and the hand-set layer."""
    x = sentence_features(tokens)
    return HeadsDemo(tokens=tuple(tokens), x=x, params=designed_params())


def _head_index(head) -> int:
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < N_HEADS:
        raise ValueError(f"head: expected an integer in 0..{N_HEADS - 1}, got {describe(head)}")
    return int(head)


def feature_table(demo: HeadsDemo, groups=("roles", "position")) -> Table:
    """Tokens x input features. groups: any of "words" (one-hot), "roles" (with clause), "position"."""
    names = {"words": _cols("word:"), "roles": [_col(r) for r in ROLES] + [_col("clause")], "position": _cols("pos")}
    bad = [g for g in groups if g not in names]
    if bad or not groups:
        raise ValueError(f"groups: expected some of {tuple(names)}, got {groups!r}")
    cols = [j for g in groups for j in names[g]]
    return Table(demo.x[:, cols], demo.tokens, [feature_label(FEATURES[j]) for j in cols])


def head_matrix(demo: HeadsDemo, head: int, matrix: str = "w_q") -> Table:
    """The non-zero part of one head's slice of w_q, w_k or w_v: input features x the head's columns."""
    head = _head_index(head)
    if matrix not in ("w_q", "w_k", "w_v"):
        raise ValueError(f"matrix: expected 'w_q', 'w_k' or 'w_v', got {matrix!r}")
    m = getattr(demo.params, matrix)[:, head * D_HEAD:(head + 1) * D_HEAD]     # (D, Dh)
    rows, cols = np.flatnonzero(np.abs(m).sum(1)), np.flatnonzero(np.abs(m).sum(0))
    return Table(m[np.ix_(rows, cols)], [feature_label(FEATURES[i]) for i in rows], [f"h{head}[{j}]" for j in cols])


def read_slot(demo: HeadsDemo, output, slot: str, position: int):
    """Which word is written in a word slot ("prev" or "subj") of output[position], and how strongly.

    Returns (word, strength): the slot's largest entry; (None, 0.0) when the slot is empty (all < 1e-9).
    """
    if slot not in ("prev", "subj"):
        raise ValueError(f"slot: expected 'prev' or 'subj', got {slot!r}")
    row = np.asarray(output)[position, SLOTS[slot]]                           # (len(VOCAB),)
    j = int(np.argmax(row))
    return (None, 0.0) if row[j] < 1e-9 else (VOCAB[j], float(row[j]))


def ablate(demo: HeadsDemo, heads=()):
    """Run the layer with the listed heads (0-based) switched off through `head_mask`.

    Returns (output (T, D), weights (H, T, T), head_mask (H,))."""
    mask = np.ones(N_HEADS)
    for h in heads:
        mask[_head_index(h)] = 0.0
    out, w = multi_head_attention(demo.x, demo.x, demo.x, demo.params, head_mask=mask)
    return out, w, mask


def ablation_rows(demo: HeadsDemo, ablations=((), (0,), (1,), (2,), (3,), (2, 3)), verbs=("sat", "was")) -> list:
    """For each set of ablated heads: the relative change of the whole output ||Y' - Y|| / ||Y||,
    the relative change of the subject slot at the verbs, and the subject read at each verb."""
    full, _, _ = ablate(demo)
    where = [demo.tokens.index(v) for v in verbs]
    subj_full = full[np.ix_(where, SLOTS["subj"])]
    rows = []
    for heads in ablations:
        out, _, mask = ablate(demo, heads)
        subj = out[np.ix_(where, SLOTS["subj"])]
        rows.append({"heads": tuple(heads), "head_mask": mask,
                     "output_change": float(np.linalg.norm(out - full) / np.linalg.norm(full)),
                     "subject_change": float(np.linalg.norm(subj - subj_full) / np.linalg.norm(subj_full)),
                     "subjects": {v: read_slot(demo, out, "subj", p) for v, p in zip(verbs, where)}})
    return rows


# --- the number of heads ------------------------------------------------------------------------------
def distinct_favourites(d_k: int, n_tokens: int = 10, trials: int = 2000, seed: int = 0) -> int:
    """The most different "favourite keys" (row argmaxes) any of `trials` random heads of width d_k
    produced over n_tokens queries and keys. With d_k = 1 the scores q_i * k_j are a rank-1 matrix,
    so every query's favourite is the largest or the smallest k_j: never more than 2."""
    d_k, n_tokens, trials = (positive_int(v, n) for v, n in ((d_k, "d_k"), (n_tokens, "n_tokens"), (trials, "trials")))
    rng = as_generator(seed)
    q = rng.normal(size=(trials, n_tokens, d_k))                              # (trials, T, Dk)
    k = rng.normal(size=(trials, n_tokens, d_k))
    favourite = (q @ k.swapaxes(-1, -2)).argmax(axis=-1)                      # (trials, T)
    return max(len(set(row.tolist())) for row in favourite)


def parameter_count(params: MultiHeadParams) -> int:
    """Numbers in the layer: four (D, D) matrices and four (D,) biases."""
    return int(sum(getattr(params, n).size for n in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")))


def tradeoff_rows(d_model: int = 512, heads=(1, 2, 4, 8, 16, 64), n_tokens: int = 1024, batch: int = 1,
                  dtype=np.float32, seed: int = 0, measure: bool = True) -> list:
    """For each h: d_k = d_model / h, the layer's parameter count (from a real `init_multihead`),
    the size of the weights tensor (B, H, T, T) in bytes (from a real forward pass when measure=True,
    else B*h*T*T*itemsize), and the multiply-adds of the two matrix products, h * 2 * B * T^2 * d_k."""
    measure = check_flag(measure, "measure")
    d_model, n_tokens, batch = (positive_int(v, n) for v, n in
                                ((d_model, "d_model"), (n_tokens, "n_tokens"), (batch, "batch")))
    if measure:                                  # the input of the real forward passes; counting needs none
        x = as_generator(seed).normal(size=(batch, n_tokens, d_model)).astype(dtype)   # (B, T, D)
    rows = []
    for h in heads:
        params = init_multihead(d_model, h, seed=seed, dtype=dtype)           # raises if h does not divide D
        expected = batch * h * n_tokens * n_tokens * np.dtype(dtype).itemsize
        if measure:
            _, weights = multi_head_attention(x, x, x, params)                 # (B, H, T, T)
            nbytes = int(weights.nbytes)
            del weights
        else:
            nbytes = expected
        rows.append({"h": h, "d_model": d_model, "n_tokens": n_tokens, "d_k": params.d_head,
                     "params": parameter_count(params), "weights_bytes": nbytes, "analytic_bytes": expected,
                     "matmul_macs": h * 2 * batch * n_tokens ** 2 * params.d_head})
    return rows


def plot_tradeoff(rows, ax=None, **kwargs):
    """Two panels side by side against h (log2 scales): d_k per head, and the weights tensor in MiB.

    Two panels, not one with two y-axes: on twin axes the falling d_k line and the rising memory line
    cross at an h that depends only on the axis limits, which reads as an optimum that is not there.
    rows: the output of `tradeoff_rows`. ax: a pair of Axes (default: a new figure). kwargs go to
    both `ax.plot` calls. Returns the pair of Axes."""
    if not rows:
        raise ValueError("rows: expected the non-empty list returned by tradeoff_rows")
    plots.use_cjk_font()
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(1, 2, figsize=(10, 3.8), layout="compressed")
    if len(ax) != 2:
        raise ValueError("ax: expected a pair of Axes (one per panel)")
    h = np.array([r["h"] for r in rows])
    series = ((ax[0], [r["d_k"] for r in rows], "heads_lab.d_k", plots.COLORS[0], "o"),
              (ax[1], [r["weights_bytes"] / 2 ** 20 for r in rows], "heads_lab.mib", plots.COLORS[1], "s"))
    for axis, values, label, color, marker in series:
        axis.plot(h, values, **{"marker": marker, "color": color, "linewidth": 2, **kwargs})
        axis.set_xscale("log", base=2)
        axis.set_yscale("log", base=2)
        axis.set_xticks(h, [str(v) for v in h])
        axis.set_yticks(values, [f"{v:g}" for v in values])
        axis.minorticks_off()
        axis.set_xlabel(i18n.t("heads_lab.h"), fontsize=plots.FONT["label"])
        axis.set_title(i18n.t(label, t=rows[0].get("n_tokens", "T")), fontsize=plots.FONT["title"])
        axis.tick_params(labelsize=plots.FONT["tick"])
        axis.grid(True, color="#dddddd")
    ax[0].figure.suptitle(i18n.t("heads_lab.tradeoff_title", d=rows[0].get("d_model", "?")),
                          fontsize=plots.FONT["title"])
    return ax
