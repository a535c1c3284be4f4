"""The trained models of notebook 12, loaded from package data: `load_trained(name)`.

    m = load_trained("coreference")
    m.vocab                                   # list of token strings
    ids = m.encode("the dog didn't cross the road because it was too tired")
    logits, weights = m.forward(ids)          # (T, V), (L, H, T, T): NumPy, no torch needed
    m.referent("The dog didn't cross the road because it was too wide.")   # -> "road"
    m.causal                                  # False: the coreference model is an encoder

Files: attention_core/data/models/<name>.npz (float32 weights, flat names of
`core.transformer.parameter_shapes`) and <name>.json (the manifest: command, seed, corpus version,
steps, metrics, vocabulary, configuration). Read through importlib.resources, so an installed
package finds them.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.model import HookedDecoder
from attention_core.core.training import (
    FIX,
    ModelFileError,
    decoder_config,
    models_dir,
    read_manifest,
    read_weights,
)
from attention_core.core.validation import describe
from attention_core.teaching import i18n

from . import corpora

MODEL_NAMES = ("induction", "coreference", "coreference_decoder", "induction_seed3")
PRONOUNS = ("it", "she", "he", "它", "她", "他")
MAX_NAMED = 10                   # unknown words named in an error (10,000 of them would make an 89 KB message)


class UnknownWordsError(i18n.WordedError):
    """Words the model does not know, named (at most MAX_NAMED), said in the learner's language by a widget."""

    def __init__(self, *, n, name, size, more, words, hint, arg="text"):
        self.key, self.fields, self.more, self.hint = "nb12.unknown_words", dict(n=n, name=name, size=size,
                                                                                   words=words, arg=arg), more, hint
        ValueError.__init__(self, self.text("en"))

    def text(self, lang=None) -> str:
        more = i18n.t("nb12.unknown_more", lang, k=self.more) if self.more else ""
        hint = i18n.t("nb12.unknown_hint", lang) if self.hint else ""
        return i18n.t(self.key, lang, more=more, hint=hint, **self.fields)
# name -> (read-only weights, the manifest's text): each load_trained builds a fresh model from them, so
# one cell's edit of a model (or its manifest) never reaches the next caller.
_CACHE: dict = {}


class TrainedModel:
    """A trained causal decoder with its vocabulary: encode text, run the NumPy forward, read answers."""

    def __init__(self, name: str, weights: dict, manifest: dict):
        self.name = name
        self.manifest = manifest
        self.config = manifest["config"]                       # the DecoderConfig's sizes and the training recipe
        self.params = tr.decoder_from_dict(weights, decoder_config(manifest))
        self.vocab = list(manifest["vocab"])
        if len(self.vocab) != self.params.vocab_size:
            raise ValueError(f"manifest: {len(self.vocab)} words in the vocabulary, but the weights have "
                             f"{self.params.vocab_size} rows of tok_emb")
        self._index = {w: i for i, w in enumerate(self.vocab)}
        # False: an encoder (no causal mask, every word reads the whole sentence); manifests before
        # corpus 2 have no "causal" key and are decoders
        self.causal = self.params.config.causal
        self.hooked = HookedDecoder(self.params)                          # run_with_cache, run_with_hooks, ...

    def __repr__(self) -> str:
        c = self.config
        kind = "decoder" if self.causal else "encoder"
        return (f"<trained {self.name} ({kind}): {c['n_layers']} layers x {c['n_heads']} heads, "
                f"d_model {c['d_model']}, {len(self.vocab)} tokens>")

    @property
    def n_layers(self) -> int:
        return self.params.n_layers

    @property
    def n_heads(self) -> int:
        return self.params.n_heads

    def tokens(self, text, name: str = "text") -> list[str]:
        """Words of `text`, or a list of words as given. A string is split on spaces, English lower-cased,
        a final full stop dropped and commas made words of their own ("The trophy ... big." works); a
        Chinese run without spaces is segmented against the vocabulary, longest word first
        (奖杯放不进箱子，因为它太大了 -> 奖杯 放不进 箱子 ， 因为 它 太 大 了)."""
        text = corpora.halfwidth(text)                     # ＴＨＥ typed full-width is THE
        if isinstance(text, str):
            if self.config.get("kind") == "induction":
                return text.split()
            text = text.strip()
            for stop in (".", "。", "!", "！", "?", "？"):
                text = text.removesuffix(stop)
            text = text.replace(",", " , ").replace("，", " ， ")
            words = []
            for w in text.split():
                w = w.lower() if w.isascii() else w
                words += [w] if (w in self._index or w.isascii()) else self.segment(w)
            return words
        if isinstance(text, (list, tuple)) and all(isinstance(w, str) for w in text):
            return list(text)
        raise TypeError(f"{name}: expected a string of space-separated words or a list of words, got "
                        f"{type(text).__name__}")

    def segment(self, run: str) -> list[str]:
        """A run of Chinese characters as vocabulary words, longest match first; a character no word
        starts with stays a word of its own (encode then names it)."""
        longest = max(len(w) for w in self.vocab)
        out, i = [], 0
        while i < len(run):
            for n in range(min(longest, len(run) - i), 0, -1):
                if run[i:i + n] in self._index or n == 1:
                    out.append(run[i:i + n])
                    i += n
                    break
        return out

    def encode(self, text, name: str = "text") -> np.ndarray:
        """(T,) token ids of `text`. Unknown words raise ValueError naming each one; `name`: what errors call it."""
        words = self.tokens(text, name)
        if not words:
            raise ValueError(f"{name}: expected at least one word, got an empty text")
        unknown = [w for w in words if w not in self._index]
        if unknown:
            distinct = list(dict.fromkeys(unknown))
            raise UnknownWordsError(
                n=len(unknown), name=self.name, size=len(self.vocab), more=max(0, len(distinct) - MAX_NAMED),
                words=", ".join(describe(w)[4:] if len(w) > 40 else repr(w) for w in distinct[:MAX_NAMED]),
                hint=any(not w.isascii() and len(w) > 3 for w in distinct[:MAX_NAMED]), arg=name)
        if len(words) > self.params.max_len:
            raise ValueError(f"{name}: {len(words)} words, but the model reads at most {self.params.max_len}")
        return np.array([self._index[w] for w in words], dtype=np.int64)

    def decode(self, ids) -> list[str]:
        ids = tr.check_ids(ids, len(self.vocab), 10 ** 9)
        return [self.vocab[i] for i in np.ravel(ids)]

    def forward(self, ids, *, head_mask=None, attn_mask=None, return_hidden: bool = False):
        """(logits (..., T, V), weights (..., L, H, T, T)) of the NumPy decoder (see decoder_forward)."""
        if isinstance(ids, str):
            ids = self.encode(ids)
        return self.hooked.forward(ids, head_mask=head_mask, attn_mask=attn_mask, return_hidden=return_hidden)

    def next_token_probs(self, ids, **kwargs) -> np.ndarray:
        """(V,) probabilities of the token after the last one of `ids`."""
        logits = self.forward(ids, **kwargs)[0]
        return np.exp(tr.log_softmax(logits[..., -1, :]))

    # --- the coreference / context model ---------------------------------------------------
    def query_input(self, sentence, query: str | None = None) -> list[str]:
        """What the model reads to answer. A decoder: sentence | query (query: default the sentence's
        last pronoun). An encoder: the sentence itself (it answers at the query word's position)."""
        words = self.tokens(sentence, "sentence")
        if corpora.SEP in words:
            words = words[:words.index(corpora.SEP)]
        if not self.causal:
            return words
        if query is None:
            found = [w for w in words if w in PRONOUNS] or [w for w in words if w in corpora.POLYSEME.values()]
            if not found:
                raise ValueError(f"sentence: no pronoun ({', '.join(PRONOUNS)}) and no "
                                 f"{' / '.join(corpora.POLYSEME.values())} in {' '.join(words)!r}")
            query = found[-1]
        return words + [corpora.SEP, query]

    def query_position(self, sentence, query: str | None = None) -> int:
        """Where the model answers: the last position for a decoder; for an encoder the position of
        `query` (default: the sentence's last pronoun, else bank / 杜鹃)."""
        words = self.query_input(sentence, query)
        if self.causal:
            return len(words) - 1
        if query is None:
            found = [i for i, w in enumerate(words) if w in PRONOUNS]
            if not found:
                found = [i for i, w in enumerate(words) if w in corpora.POLYSEME.values()]
            if not found:
                raise ValueError(f"sentence: no pronoun ({', '.join(PRONOUNS)}) and no "
                                 f"{' / '.join(corpora.POLYSEME.values())} in {' '.join(words)!r}")
            return found[-1]
        if query not in words:
            raise ValueError(f"query: {query!r} is not a word of {' '.join(words)!r}")
        return len(words) - 1 - words[::-1].index(query)

    def answer_probs(self, sentence, query: str | None = None, **kwargs) -> np.ndarray:
        """(V,) probabilities of the model's answer about `query` in `sentence`."""
        ids = self.encode(self.query_input(sentence, query), "sentence")
        logits = self.forward(ids, **kwargs)[0]
        return np.exp(tr.log_softmax(logits[self.query_position(sentence, query)]))

    def answer(self, sentence, query: str | None = None, **kwargs) -> tuple[str, float]:
        """(the predicted word about `query`, its probability)."""
        probs = self.answer_probs(sentence, query, **kwargs)
        best = int(np.argmax(probs))
        return self.vocab[best], float(probs[best])

    def referent(self, sentence) -> str:
        """The word the model says the sentence's pronoun refers to (or the sense of bank / 杜鹃)."""
        return self.answer(sentence)[0]


def _files(name: str):
    folder = models_dir()
    return folder / f"{name}.npz", folder / f"{name}.json"


def _build(name: str, weights: dict, manifest_text: str, where) -> TrainedModel:
    try:
        return TrainedModel(name, weights, json.loads(manifest_text))
    except (ValueError, TypeError, KeyError) as exc:  # shapes, missing arrays, NaN in the weights
        raise ModelFileError(f"{where}: {exc}; {FIX}") from None


def load_trained(name: str) -> TrainedModel:
    """The committed trained model `name` (one of MODEL_NAMES), from package data.

    Each call returns a new TrainedModel; its arrays are read-only (shared between calls), so nothing
    a caller does to one model reaches the next `load_trained`."""
    if not isinstance(name, str) or name not in MODEL_NAMES:
        raise ValueError(f"name: expected one of {MODEL_NAMES}, got {describe(name)}")
    npz, js = _files(name)
    if name not in _CACHE:
        if not js.is_file() or not npz.is_file():
            raise FileNotFoundError(f"{name}: no trained weights in attention_core/data/models; run `make train`")
        _CACHE[name] = (read_weights(npz), read_manifest(js))
    weights, text = _CACHE[name]
    return _build(name, weights, text, f"{npz} with {js.name}")


def from_files(npz_path, json_path) -> TrainedModel:
    """A model from explicit files (for a fresh training run that is not committed yet)."""
    for name, path in (("npz_path", npz_path), ("json_path", json_path)):
        if not isinstance(path, (str, Path)):
            raise TypeError(f"{name}: expected a file path (str or pathlib.Path), got {describe(path)}")
    npz_path, json_path = Path(npz_path), Path(json_path)
    for path in (npz_path, json_path):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    text = read_manifest(json_path)
    return _build(json.loads(text)["name"], read_weights(npz_path), text, f"{npz_path} with {json_path.name}")


def check_model(model, kind: str | None = None) -> TrainedModel:
    """`model` must be a TrainedModel (of `kind`, "induction" or "coreference", when given)."""
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model: expected a trained model (load_trained({kind or 'coreference'!r})), "
                        f"got {describe(model)}")
    if kind is not None and model.config.get("kind") != kind:
        raise ValueError(f"model: expected the {kind} model (load_trained({kind!r})), got the {model.name} model")
    return model
