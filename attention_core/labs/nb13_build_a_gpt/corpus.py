"""Notebook 13's text: the course's own prose, both languages, as package data; characters and merges.

The corpus is the markdown of `notebooks/src/` (written by this project), English cells and Chinese
cells apart, in notebook order. `export()` writes it into `attention_core/data/course_text.json`
(`python -m attention_core.labs.nb13_build_a_gpt.corpus`, run by `make train`); a test keeps that file
in sync with the sources. The notebook reads only the package data (an installed package has no
notebooks/src).

    text = load_corpus()                 # {"en": str, "zh": str, "sha256": ..., ...}
    tok = CharTokenizer.from_corpus()    # every character of both languages, sorted
    tok.encode("softmax") -> [ids]; tok.decode(ids) -> "softmax"

Also the reference steps of byte-pair merges (`pair_counts`, `merge`, `train_merges`, `apply_merges`)
and the bigram baseline (`bigram_loss`). Shapes: N characters, V vocabulary size.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np

from attention_core.core.validation import describe, positive_int
from attention_core.teaching.i18n import LANGUAGES

LANGS = LANGUAGES                # the course's two languages, declared once in teaching.i18n
FILE = "course_text.json"
VERSION = "nb13-course-text-1"
VALID_FRACTION = 0.1             # the last 10% of each language is held out (validation)


def source_dir() -> Path:
    """notebooks/src of the source tree (for the export; the notebook never needs it)."""
    return Path(__file__).resolve().parents[3] / "notebooks" / "src"


def extract(src_dir=None) -> dict:
    """{"en": text, "zh": text}: every language-tagged markdown cell of notebooks/src/NN_*.py, in
    notebook order, cells separated by a blank line."""
    from attention_core.teaching.notebook_source import parse_source
    src_dir = source_dir() if src_dir is None else Path(src_dir)
    paths = sorted(src_dir.glob("[0-9][0-9]_*.py"))
    if not paths:
        raise FileNotFoundError(f"{src_dir}: no notebook sources (NN_*.py)")
    parts: dict = {lang: [] for lang in LANGS}
    for path in paths:
        for kind, lang, text in parse_source(path.read_text(encoding="utf-8"), path.name):
            if kind == "md" and lang in parts and text.strip():
                parts[lang].append(text.strip())
    return {lang: "\n\n".join(parts[lang]) + "\n" for lang in LANGS}


def corpus_sha(texts: dict) -> str:
    h = hashlib.sha256()
    for lang in LANGS:
        h.update(lang.encode() + b"\0" + texts[lang].encode("utf-8") + b"\0")
    return h.hexdigest()


def build(src_dir=None) -> dict:
    """The export's content: the texts, their sha256 and where they came from."""
    texts = extract(src_dir)
    return {"version": VERSION, "source": "notebooks/src/*.py, markdown cells (lang en / zh)",
            "command": "python -m attention_core.labs.nb13_build_a_gpt.corpus", "sha256": corpus_sha(texts),
            "chars": {lang: len(texts[lang]) for lang in LANGS}, **texts}


def package_file() -> Path:
    import attention_core.data as data
    return Path(data.__file__).resolve().parent / FILE


def export(path=None, src_dir=None) -> Path:
    """Write the corpus export (JSON, UTF-8) and return its path."""
    path = package_file() if path is None else Path(path)
    path.write_text(json.dumps(build(src_dir), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    _CACHE.clear()
    return path


_CACHE: dict = {}


def load_corpus() -> dict:
    """The exported corpus from package data (read once)."""
    if "corpus" not in _CACHE:
        f = resources.files("attention_core.data") / FILE
        if not f.is_file():
            raise FileNotFoundError(f"{FILE}: no corpus export in attention_core/data; run "
                                    "`python -m attention_core.labs.nb13_build_a_gpt.corpus`")
        data = json.loads(f.read_text(encoding="utf-8"))
        if corpus_sha({lang: data[lang] for lang in LANGS}) != data["sha256"]:
            raise ValueError(f"{FILE}: its text does not match its sha256 (edited by hand?); export it again")
        _CACHE["corpus"] = data
    return _CACHE["corpus"]


def split(text: str) -> tuple[str, str]:
    """(train, validation): the last VALID_FRACTION of the text is held out."""
    cut = int(len(text) * (1 - VALID_FRACTION))
    return text[:cut], text[cut:]


def vocabulary(corpus: dict | None = None) -> list[str]:
    """Every character of both languages, sorted by code point."""
    corpus = load_corpus() if corpus is None else corpus
    return sorted(set(corpus["en"]) | set(corpus["zh"]))


class CharTokenizer:
    """One token per character. encode(text) -> list of ids; decode(ids) -> text. An unknown
    character raises ValueError naming it and where it is (it is never dropped)."""

    def __init__(self, chars):
        chars = list(chars)
        if len(set(chars)) != len(chars) or not all(isinstance(c, str) and len(c) == 1 for c in chars):
            raise ValueError("chars: expected distinct single characters")
        self.chars = chars
        self.stoi = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_corpus(cls, corpus: dict | None = None) -> CharTokenizer:
        return cls(vocabulary(corpus))

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text: expected a string, got {describe(text)}")
        out = []
        for i, c in enumerate(text):
            if c not in self.stoi:
                raise ValueError(f"text: the character {c!r} (U+{ord(c):04X}) at index {i} is not in the "
                                 f"vocabulary of {len(self.chars)} characters")
            out.append(self.stoi[c])
        return out

    def decode(self, ids) -> str:
        out = []
        for i in np.ravel(np.asarray(ids)).tolist() if not isinstance(ids, list) else ids:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < len(self.chars):
                raise ValueError(f"ids: expected token ids in 0..{len(self.chars) - 1}, got {describe(i)}")
            out.append(self.chars[i])
        return "".join(out)


# --- byte-pair merges ---------------------------------------------------------------------------------
def pair_counts(ids) -> Counter:
    """How often each adjacent pair (a, b) occurs in ids."""
    ids = list(ids)
    return Counter(zip(ids, ids[1:]))


def merge(ids, pair, new_id: int) -> list[int]:
    """Replace every occurrence of `pair` in ids by new_id, left to right, non-overlapping:
    merge([1, 1, 1], (1, 1), 9) -> [9, 1]."""
    ids = list(ids)
    a, b = pair
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train_merges(ids, n_merges: int, first_id: int, merge_fn=merge) -> list[tuple]:
    """The n_merges most frequent pairs, learned greedily (ties: the pair seen first); each becomes
    id first_id, first_id + 1, ... (above every id of `ids`: a new token never takes an existing one's id).
    Returns [((a, b), new_id), ...]."""
    ids = _token_ids(ids, "ids")
    n_merges = positive_int(n_merges, "n_merges", minimum=0)
    first_id = positive_int(first_id, "first_id", minimum=0)
    if ids and first_id <= max(ids):
        raise ValueError(f"first_id: the new tokens' ids must come after every id already in use (the largest is "
                         f"{max(ids)}), so expected first_id >= {max(ids) + 1}, got {first_id}; pass the "
                         "vocabulary size")
    merges = []
    for k in range(n_merges):
        counts = pair_counts(ids)
        if not counts:
            break
        pair = max(counts, key=counts.get)                       # Counter keeps first-seen order on ties
        if counts[pair] < 2:
            break
        ids = merge_fn(ids, pair, first_id + k)
        merges.append((pair, first_id + k))
    return merges


def _token_ids(ids, name: str) -> list[int]:
    """ids as a list of Python ints >= 0 (a string, floats or negative ids are refused by name)."""
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{name}: expected token ids, got the text {describe(ids)[4:]}; encode it first")
    try:
        arr = np.asarray(ids)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a sequence of integer token ids, got {describe(ids)}") from None
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"{name}: expected a sequence (N,) of integer token ids, got {describe(ids)}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name}: token ids must be >= 0, got {int(arr.min())}")
    return arr.astype(np.int64).tolist()


def apply_merges(ids, merges, merge_fn=merge) -> list[int]:
    """ids with the learned merges applied in the order they were learned."""
    ids = list(ids)
    for pair, new_id in merges:
        ids = merge_fn(ids, pair, new_id)
    return ids


# --- the bigram baseline ------------------------------------------------------------------------------
def bigram_loss(train_ids, valid_ids, vocab_size: int, alphas=(0.003, 0.01, 0.03, 0.1, 0.3, 1.0)) -> dict:
    """Cross-entropy (nats per character) on valid_ids of the count model P(b | a) = (n(a, b) + alpha) /
    (n(a) + alpha V), counted on train_ids; alpha is the best of `alphas` on the validation text (the
    baseline gets every advantage). Returns {"loss", "perplexity", "alpha"}."""
    vocab_size = positive_int(vocab_size, "vocab_size")
    tr_ids, va_ids = np.asarray(_token_ids(train_ids, "train_ids")), np.asarray(_token_ids(valid_ids, "valid_ids"))
    for name, arr in (("train_ids", tr_ids), ("valid_ids", va_ids)):
        if arr.size < 2:              # no pair (a, b): the mean over no pairs would be NaN, compared false with all
            raise ValueError(f"{name}: expected at least 2 characters (one pair to count or to score), got "
                             f"{arr.size}")
        if arr.max() >= vocab_size:
            raise ValueError(f"{name}: token ids must lie in 0..{vocab_size - 1} (vocab_size), got {int(arr.max())}")
    if isinstance(alphas, (str, bytes)) or not len(alphas) or not all(
            isinstance(a, (int, float)) and not isinstance(a, bool) and 0 < a < math.inf for a in alphas):
        raise ValueError(f"alphas: expected smoothing values > 0, got {describe(alphas)}")
    counts = np.zeros((vocab_size, vocab_size))
    np.add.at(counts, (tr_ids[:-1], tr_ids[1:]), 1.0)
    a, b = va_ids[:-1], va_ids[1:]
    best = None
    for alpha in alphas:
        p = (counts[a, b] + alpha) / (counts[a].sum(axis=1) + alpha * vocab_size)
        loss = float(-np.log(p).mean())
        if best is None or loss < best["loss"]:
            best = {"loss": loss, "perplexity": math.exp(loss), "alpha": alpha}
    return best


def main(argv=None) -> int:
    path = export()
    data = load_corpus()
    print(f"{path}: {data['chars']} characters, sha256 {data['sha256'][:12]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
