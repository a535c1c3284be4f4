"""Notebook 13's training data: repeated random letters (the induction run) and the course text as ids (the
text run), with the bigram baseline on exactly the windows a model is scored on.

    repeat_batch(rng, 64, 33)            # (B, T + 1) random letters, a segment of them twice
    data = TextData()                    # the exported course text: train / validation ids per language
    data.batch(rng, 16, 64)              # (B, 64 + 1) windows of the training text
    data.bigram("en", 64)                # the baseline on the validation windows

Shapes: B batch, T tokens, N windows, V vocabulary.
"""
from __future__ import annotations

import math

import numpy as np

from attention_core.core.validation import describe, positive_int

from . import corpus as corpus_mod

INDUCTION_VOCAB = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")          # notebook 12's letters
REPEAT_MIN_LEN = 32                                             # repeat_batch: room for 16 letters twice


def repeat_batch(rng: np.random.Generator, batch: int, length: int, min_n: int = 6, max_n: int = 16) -> np.ndarray:
    """(B, length) random letters holding a segment of n distinct letters (n in min_n..max_n) twice: the
    first copy at a random position, the second at a random later one (never overlapping)."""
    batch, length = positive_int(batch, "batch"), positive_int(length, "length")
    if not 1 <= min_n <= max_n <= len(INDUCTION_VOCAB) or length < 2 * max_n:
        raise ValueError(f"length: a segment of {min_n}..{max_n} distinct letters twice needs 1 <= min_n <= max_n <= "
                         f"{len(INDUCTION_VOCAB)} and length >= {2 * max_n}, got length {length}")
    v = len(INDUCTION_VOCAB)
    out = rng.integers(0, v, (batch, length))
    for row in out:
        n = int(rng.integers(min_n, max_n + 1))
        seg = rng.permutation(v)[:n]
        a = int(rng.integers(0, length - 2 * n + 1))             # first copy
        b = int(rng.integers(a + n, length - n + 1))             # second copy, after the first
        row[a:a + n] = seg
        row[b:b + n] = seg
    return out


def repeat_at(rng: np.random.Generator, n_seq: int, length: int, start: int, half: int) -> np.ndarray:
    """(N, length) random letters with `half` distinct letters at start .. start + half - 1, repeated right
    after (the evaluation sequences: the repeat moved to every position of the context)."""
    v = len(INDUCTION_VOCAB)
    out = rng.integers(0, v, (n_seq, length))
    for row in out:
        seg = rng.permutation(v)[:half]
        row[start:start + half] = seg
        row[start + half:start + 2 * half] = seg
    return out


class TextData:
    """The course text as ids: train and validation parts per language, windows of length + 1."""

    def __init__(self, corpus: dict | None = None, chars=None):
        """corpus: {"en": text, "zh": text, "sha256": ...} (default the exported course text; a sha256 given must
        match the texts). chars: the vocabulary to encode with (a trained model's; default every character of
        the corpus)."""
        corpus = corpus_mod.load_corpus() if corpus is None else corpus
        if not isinstance(corpus, dict) or not all(isinstance(corpus.get(lang), str) for lang in corpus_mod.LANGS):
            raise TypeError(f"corpus: expected a dict with a text (str) for each of {corpus_mod.LANGS}, as "
                            f"corpus.load_corpus() returns, got {describe(corpus)}")
        self.texts = {lang: corpus[lang] for lang in corpus_mod.LANGS}
        self.sha256 = corpus_mod.corpus_sha(self.texts)
        if corpus.get("sha256", self.sha256) != self.sha256:
            raise ValueError(f"corpus: its sha256 {str(corpus['sha256'])[:16]!r}... does not match its texts "
                             f"({self.sha256[:16]}...): the text was changed after it was recorded; export it again "
                             "or drop the sha256 key")
        self.tokenizer = (corpus_mod.CharTokenizer.from_corpus(corpus) if chars is None
                          else corpus_mod.CharTokenizer(chars))
        self.train, self.valid = {}, {}
        for lang in corpus_mod.LANGS:
            a, b = corpus_mod.split(corpus[lang])
            try:
                self.train[lang] = np.array(self.tokenizer.encode(a), dtype=np.int64)
                self.valid[lang] = np.array(self.tokenizer.encode(b), dtype=np.int64)
            except ValueError as exc:
                raise ValueError(f"{exc}: the corpus export has characters the model never saw; retrain it "
                                 "(make train)") from None

    def batch(self, rng: np.random.Generator, batch: int, length: int) -> np.ndarray:
        """(B, length + 1) windows of the training text, each language in proportion to its length."""
        batch, length = positive_int(batch, "batch"), positive_int(length, "length")
        langs = corpus_mod.LANGS
        short = {lang: len(self.train[lang]) for lang in langs if len(self.train[lang]) < length + 2}
        if short:
            raise ValueError(f"length: windows of {length} + 1 characters need a training text of at least "
                             f"{length + 2} per language; this corpus has {short} (a longer text, or a shorter "
                             "max_len)")
        sizes = np.array([len(self.train[lang]) for lang in langs], dtype=float)
        which = rng.choice(len(langs), batch, p=sizes / sizes.sum())
        rows = []
        for w in which:
            ids = self.train[langs[w]]
            s = int(rng.integers(0, len(ids) - length - 1))
            rows.append(ids[s:s + length + 1])
        return np.stack(rows)

    def valid_windows(self, lang: str, length: int, limit: int | None = None) -> np.ndarray:
        """(N, length + 1) non-overlapping windows of the validation text of `lang`."""
        if lang not in corpus_mod.LANGS:
            raise ValueError(f"lang: expected one of {corpus_mod.LANGS}, got {describe(lang)}")
        length = positive_int(length, "length")
        if limit is not None:
            limit = positive_int(limit, "limit")
        ids = self.valid[lang]
        n = (len(ids) - 1) // length
        if n < 1:
            raise ValueError(f"length: the {lang} validation text holds {len(ids)} characters, fewer than one window "
                             f"of {length} + 1 (a longer text, or a shorter max_len)")
        rows = np.stack([ids[i * length:i * length + length + 1] for i in range(n)])
        return rows if limit is None else rows[:limit]

    def bigram(self, lang: str, length: int) -> dict:
        """The bigram baseline on exactly the pairs the model is scored on (the validation windows)."""
        return self.bigram_of(self.valid_windows(lang, length))

    def bigram_of(self, win: np.ndarray) -> dict:
        """The bigram baseline on the next-character pairs of windows (N, T + 1): {"loss", "perplexity", "alpha"},
        with the add-alpha smoothing that suits these pairs best."""
        if not hasattr(self, "_counts"):                  # n(a, b) over the training text of both languages
            v = len(self.tokenizer)
            pairs = np.concatenate([self.train[lg][:-1] * v + self.train[lg][1:] for lg in corpus_mod.LANGS])
            self._counts = np.bincount(pairs, minlength=v * v).reshape(v, v).astype(np.float64)
            self._row = self._counts.sum(axis=1)
        win = np.asarray(win)
        if win.ndim != 2 or win.shape[0] < 1 or win.shape[1] < 2:
            raise ValueError(f"win: expected windows (N, T + 1) with N >= 1 and T >= 1, got {describe(win)}")
        prev, nxt = win[:, :-1].ravel(), win[:, 1:].ravel()
        best = None
        for alpha in (0.003, 0.01, 0.03, 0.1, 0.3, 1.0):
            p = (self._counts[prev, nxt] + alpha) / (self._row[prev] + alpha * len(self.tokenizer))
            loss = float(-np.log(p).mean())
            if best is None or loss < best["loss"]:
                best = {"loss": loss, "perplexity": math.exp(loss), "alpha": alpha}
        return best


def unigram_bias(data: TextData) -> np.ndarray:
    """(V,) the log-frequency of each character in the training text (add-one counts): an output bias that
    starts the model as the unigram model, so the first steps are not spent learning how common each
    character is (the text run starts there; without it, its 600 steps end above the bigram baseline)."""
    counts = np.bincount(np.concatenate(list(data.train.values())), minlength=len(data.tokenizer)) + 1.0
    return np.log(counts / counts.sum())
