"""Notebook 11 (review): where each self-test question is demonstrated, and one attention step that uses everything.

Two things, both pure functions of their inputs:

- `question_table(lang)`: a Markdown table built from data/quiz/questions.json (question, the notebook
  that demonstrates it as a relative link, its section, its widget), so the review page stays true
  when a pointer changes. Notebook titles come from the title index the notebook builder ships
  with the package (attention_core/data/notebooks.json).
- `recap_step()` and `recap_checks()`: one multi-head causal self-attention step over a short sentence
  with sinusoidal positions, and one measured check per self-test question (rows sum to 1, masked
  weights are exactly 0, the future cannot leak, order matters only once positions are added, ...).

    print(question_table("en"))              # | | Question | Notebook | Section | Try it |
    recap = recap_step()                     # tokens, x, pe, h, mask, q, k, v, output, weights
    print(format_checks(recap_checks(recap)))   # Q4 (04)  ✓  max 0.0 · 0.0  masked weights ...
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.core.attention import attention_scores
from attention_core.core.masks import causal_mask
from attention_core.core.multihead import (
    MultiHeadParams,
    init_multihead,
    merge_heads,
    multi_head_attention,
    split_heads,
)
from attention_core.core.positional import sinusoidal_encoding
from attention_core.core.softmax import softmax
from attention_core.core.validation import as_generator, describe, positive_int
from attention_core.teaching import i18n, quiz
from attention_core.teaching.notebook_source import notebook_titles
from attention_core.teaching.tables import display_width, pad


def _lang(lang: str | None) -> str:
    return i18n.resolve_language(lang)


def notebook_title(stem: str, lang: str | None = None) -> str:
    """The title of notebook `stem` in `lang`, e.g. "Masking" for "04_masking" (without "04 · "),
    from the title index the notebook builder ships with the package."""
    lang = _lang(lang)
    titles = notebook_titles()
    if stem not in titles:
        raise ValueError(f"stem: expected one of {tuple(titles)}, got {stem!r}")
    return titles[stem][lang]


def notebook_link(stem: str, lang: str | None = None, title: str | None = None) -> str:
    """A Markdown link to a notebook of the same edition: `[04 · Masking](04_masking.ipynb)`.

    `title`, when given, becomes the link's hover text (the quiz's “Try it” line, for example)."""
    text = f"{stem[:2]} · {notebook_title(stem, lang)}"
    hover = "" if title is None else ' "' + title.replace('"', "'") + '"'
    return f"[{_cell(text)}]({stem}.ipynb{hover})"


def _cell(text: str) -> str:
    """Text that is safe inside one cell of a Markdown table (no pipes, no line breaks)."""
    return " ".join(text.split()).replace("|", r"\|")


@dataclass(frozen=True)
class QuestionRow:
    """One row of the review table: a question and where it is demonstrated."""
    id: str
    main: bool              # q1..q8 (False: a sub-question such as q2b)
    text: str               # the question (main) or the topic (sub-question)
    notebook: str           # stem, e.g. "04_masking"
    link: str               # Markdown link to the notebook, hover text = quiz.pointer_text
    section: str
    widget: str | None      # "widgets.mask_widget" or None


AFTER_THE_REVIEW = ("12_trained_transformer", "13_build_a_gpt")   # the models come after this notebook


def question_rows(lang: str | None = None, questions=None) -> list[QuestionRow]:
    """One row per question of data/quiz/questions.json, in the order of `quiz.review_quiz()`: each of
    q1..q8 followed by its sub-questions (q2, q2b, ...); questions outside the eight (a notebook's own
    extra question) come last, in file order. The questions of notebooks 12 and 13 (on trained models, after
    this review) are asked there, not here."""
    lang = _lang(lang)
    questions = quiz.load_questions() if questions is None else questions
    questions = [q for q in questions if q.pointer.notebook not in AFTER_THE_REVIEW]
    ordered = []
    for main in quiz.REQUIRED_IDS:
        ordered += [q for q in questions if q.id == main] + [q for q in questions if q.part_of == main]
    ordered += [q for q in questions if q not in ordered and not q.combines]   # notebook 11's own: asked there
    rows = []
    for q in ordered:
        p = q.pointer
        rows.append(QuestionRow(
            id=q.id, main=q.part_of is None,
            text=q.question[lang] if q.part_of is None else q.topic[lang],
            notebook=p.notebook,
            link=notebook_link(p.notebook, lang, title=quiz.pointer_text(q, lang)),
            section=p.section[lang], widget=p.widget))
    return rows


def question_table(lang: str | None = None, questions=None) -> str:
    """The review table in Markdown: | | Question | Notebook | Section | Try it |, one row per question."""
    lang = _lang(lang)
    head = [i18n.t(key, lang) for key in ("review.col_id", "review.col_question", "review.col_notebook",
                                          "review.col_section", "review.col_widget")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in question_rows(lang, questions):
        qid = f"**{r.id.upper()}**" if r.main else f"↳\u00a0{r.id[0].upper()}{r.id[1:]}"
        widget = f"`{r.widget}()`" if r.widget else "–"
        lines.append(f"| {qid} | {_cell(r.text)} | {r.link} | {_cell(r.section)} | {widget} |")
    return "\n".join(lines)


# --- the recap: one multi-head causal attention step ----------------------------------------------

RECAP_TOKENS = ("the", "cat", "sat", "because", "it", "was", "tired")


@dataclass(frozen=True)
class Recap:
    """Every intermediate of one multi-head causal self-attention step (T tokens, width D, H heads)."""
    tokens: tuple
    x: np.ndarray           # (T, D) token embeddings (a seeded random table, one row per word)
    pe: np.ndarray          # (T, D) sinusoidal position table
    h: np.ndarray           # (T, D) x + pe: the layer's input
    mask: np.ndarray        # (T, T) causal mask, True = may attend
    params: MultiHeadParams
    q: np.ndarray           # (H, T, Dh) per-head queries of h
    k: np.ndarray           # (H, T, Dh)
    v: np.ndarray           # (H, T, Dh)
    weights: np.ndarray     # (H, T, T)
    output: np.ndarray      # (T, D)

    @property
    def n_heads(self) -> int:
        return self.params.n_heads

    @property
    def d_head(self) -> int:
        return self.params.d_head


def recap_step(tokens=RECAP_TOKENS, d_model: int = 8, n_heads: int = 2, seed: int = 0) -> Recap:
    """One multi-head causal self-attention step over `tokens` with sinusoidal positions.

    Each distinct word gets a seeded random embedding (D,); the input is h = x + PE (T, D);
    Q, K and V are three projections of the same h (self-attention); the mask is causal.
    """
    tokens = tuple(tokens)
    if not tokens or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"tokens: expected a non-empty sequence of strings, got {describe(tokens)}")
    d_model = positive_int(d_model, "d_model")
    rng = as_generator(seed)
    vocab = sorted(set(tokens))
    table = rng.normal(size=(len(vocab), d_model))                       # (V, D)
    x = table[[vocab.index(t) for t in tokens]]                           # (T, D)
    pe = sinusoidal_encoding(len(tokens), d_model)                        # (T, D)
    h = x + pe                                                            # (T, D)
    params = init_multihead(d_model, n_heads, seed=rng)
    mask = causal_mask(len(tokens))                                       # (T, T)
    output, weights = multi_head_attention(h, h, h, params, mask=mask)    # (T, D), (H, T, T)
    q = split_heads(h @ params.w_q + params.b_q, params.n_heads)          # (H, T, Dh)
    k = split_heads(h @ params.w_k + params.b_k, params.n_heads)          # (H, T, Dh)
    v = split_heads(h @ params.w_v + params.b_v, params.n_heads)          # (H, T, Dh)
    return Recap(tokens, x, pe, h, mask, params, q, k, v, weights, output)


@dataclass(frozen=True)
class Check:
    """One measured fact of the recap: which self-test question it answers, where it is taught."""
    question: str           # "Q1".."Q8", or "n²" for the cost
    notebook: str           # "05"
    label: str              # what was measured, in the current language
    value: str              # the measured value, rounded for printing
    ok: bool                # the fact holds


def _self_attention(params, mask=None):
    def layer(x):
        return multi_head_attention(x, x, x, params, mask=mask)[0]
    return layer


def recap_checks(recap: Recap, lang: str | None = None) -> list[Check]:
    """One measured check per self-test question (and the n² cost), on the recap's numbers."""
    lang = _lang(lang)
    r, t = recap, len(recap.tokens)
    H, dh = r.n_heads, r.d_head

    def t_(key, **fields):
        return i18n.t(key, lang, **fields)

    checks = []
    # Q1 (05): self-attention takes Q, K and V from one sequence (square weights); the same function
    # with queries from another sequence is cross-attention (Tq x Tk).
    other = np.random.default_rng(1).normal(size=(3, r.params.d_model))   # (3, D): "decoder" states
    cross = multi_head_attention(other, r.h, r.h, r.params)[1]              # (H, 3, T)
    ok1 = r.weights.shape == (H, t, t) and cross.shape == (H, 3, t) and r.q.shape == r.k.shape == r.v.shape
    checks.append(Check("Q1", "05", t_("review.q1"), f"{r.weights.shape} · {cross.shape}", bool(ok1)))
    # Q2 (02): the weights are softmax of the scores scaled by 1/sqrt(d_k).
    scores = attention_scores(r.q, r.k)                                   # (H, T, T), scaled
    unscaled = attention_scores(r.q, r.k, scale=1.0)
    scale_ok = np.allclose(scores, unscaled / np.sqrt(dh)) and np.allclose(softmax(scores, mask=r.mask), r.weights)
    checks.append(Check("Q2", "02", t_("review.q2", d=dh), f"1/√{dh} = {1 / np.sqrt(dh):.3f}", bool(scale_ok)))
    # Q3 (06): H heads of width D/H, and they do not attend alike.
    spread = float(np.abs(r.weights[0] - r.weights[1]).max()) if H > 1 else 0.0
    checks.append(Check("Q3", "06", t_("review.q3", h=H, d=r.params.d_model, dh=dh), f"{spread:.3f}",
                        H == 1 or spread > 0))
    # Q4 (04): masked weights are exactly 0, and changing the last token leaves every earlier output alone.
    masked = r.weights[:, ~r.mask]                                        # (H, number of masked pairs)
    h2 = r.h.copy()
    h2[-1] += 1.0                                                         # change the future
    out2 = multi_head_attention(h2, h2, h2, r.params, mask=r.mask)[0]
    past = float(np.abs(out2[:-1] - r.output[:-1]).max()) if t > 1 else 0.0
    largest_masked = float(np.abs(masked).max(initial=0.0))
    checks.append(Check("Q4", "04", t_("review.q4", n=masked.size), f"{largest_masked:.1f} · {past:.1f}",
                        bool(np.all(masked == 0.0) and past < 1e-12)))
    # Q5 (03): every row sums to 1, and no visible weight is 0: dense, not sparse.
    sums_ok = np.allclose(r.weights.sum(-1), 1.0, atol=1e-12)
    visible = r.weights[:, r.mask]
    checks.append(Check("Q5", "03", t_("review.q5"), t_("review.q5_value", v=f"{visible.min():.1e}"),
                        bool(sums_ok and visible.min() > 0)))
    # Q6 (01): a weight is a mixing share: output = concat_h(weights_h V_h) W^O + b.
    mixed = merge_heads(r.weights @ r.v) @ r.params.w_o + r.params.b_o   # (T, D)
    checks.append(Check("Q6", "01", t_("review.q6"), "Σ_j α_ij v_j", bool(np.allclose(mixed, r.output))))
    # Q7 (07): without a mask and without positions, shuffling the words only shuffles the outputs;
    # with positions added, it changes them.
    perm = np.roll(np.arange(t), 1)
    layer = _self_attention(r.params)
    blind = float(np.abs(layer(r.x)[perm] - layer(r.x[perm])).max())
    seeing = float(np.abs(layer(r.h)[perm] - layer(r.x[perm] + r.pe)).max())
    checks.append(Check("Q7", "07", t_("review.q7"), f"{blind:.1f} → {seeing:.3f}", blind < 1e-12 and seeing > 1e-6))
    # Q8 (08): the last token reads the first one directly, in this one step (path length 1).
    first = r.weights[:, -1, 0]                                            # (H,)
    checks.append(Check("Q8", "08", t_("review.q8", last=r.tokens[-1], first=r.tokens[0]),
                        " · ".join(f"{w:.3f}" for w in first), bool(np.all(first > 0))))
    # n² (09): the weights tensor holds H·T² numbers; doubling T makes it four times larger.
    checks.append(Check("n²", "09", t_("review.cost", h=H, t=t), f"{H * t * t} → {H * (2 * t) ** 2}",
                        r.weights.size == H * t * t))
    return checks


def format_checks(checks) -> str:
    """The checks as aligned lines: `Q4 (04)  ✓  value  label` (the label last: CJK text is double width)."""
    width = max(display_width(c.value) for c in checks) if checks else 0   # a Chinese value is double width
    return "\n".join(f"{c.question:<3} ({c.notebook})  {'✓' if c.ok else '✗'}  {pad(c.value, width)}  {c.label}"
                     for c in checks)


# --- the two cost columns of the summary table ----------------------------------------------------

def complexity_rows(d_model: int = 512, lengths=(128, 512, 2048, 8192)) -> list[dict]:
    """Per-layer operation counts of seed 000's table, for width D and sequence lengths n.

    RNN: n steps of a (D, D) matrix-vector product -> n·D² multiply-adds, n sequential steps, path n.
    Self-attention: Q Kᵀ and weights·V -> about n²·D multiply-adds, 1 sequential step, path 1.
    (Projections, which both pay at about n·D², are left out: the table compares the mixing steps.)
    """
    d_model = positive_int(d_model, "d_model")
    rows = []
    for n in lengths:
        n = positive_int(n, "lengths")
        rows.append({"n": n, "rnn_ops": n * d_model ** 2, "attention_ops": n * n * d_model,
                     "rnn_steps": n, "attention_steps": 1, "rnn_path": n, "attention_path": 1,
                     "pairs": n * n})
    return rows
