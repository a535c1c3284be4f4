"""The trained models of notebook 12, loaded from package data: `load_trained(name)`.

    m = load_trained("coreference")
    m.vocab                                   # list of token strings
    ids = m.encode("the dog didn't cross the road because it was too tired")
    logits, weights = m.forward(ids)          # (T, V), (L, H, T, T): NumPy, no torch needed
    m.referent("the dog didn't cross the road because it was too wide")    # -> "road"

Files: attention_core/data/models/<name>.npz (float32 weights, flat names of
`core.transformer.parameter_shapes`) and <name>.json (the manifest: command, seed, corpus version,
steps, metrics, vocabulary, configuration). Read through importlib.resources, so an installed
package finds them.
"""
from __future__ import annotations

import json
import zipfile
import zlib
from importlib import resources
from pathlib import Path

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.validation import describe

from . import corpora

MODEL_NAMES = ("induction", "coreference")
PRONOUNS = ("it", "she", "he", "它", "她", "他")
MAX_NAMED = 10                   # unknown words named in an error (10,000 of them would make an 89 KB message)
# name -> (read-only weights, the manifest's text): each load_trained builds a fresh model from them, so
# one cell's edit of a model (or its manifest) never reaches the next caller.
_CACHE: dict = {}


class ModelFileError(ValueError):
    """A model file that cannot be read (truncated, not an .npz or JSON, missing arrays or keys); the
    message names the file and what is wrong with it."""


class TrainedModel:
    """A trained causal decoder with its vocabulary: encode text, run the NumPy forward, read answers."""

    def __init__(self, name: str, weights: dict, manifest: dict):
        self.name = name
        self.manifest = manifest
        self.config = manifest["config"]
        self.params = tr.decoder_from_dict(weights, self.config["n_heads"])
        self.vocab = list(manifest["vocab"])
        if len(self.vocab) != self.params.vocab_size:
            raise ValueError(f"manifest: {len(self.vocab)} words in the vocabulary, but the weights have "
                             f"{self.params.vocab_size} rows of tok_emb")
        self._index = {w: i for i, w in enumerate(self.vocab)}

    def __repr__(self) -> str:
        c = self.config
        return (f"<trained {self.name}: {c['n_layers']} layers x {c['n_heads']} heads, d_model {c['d_model']}, "
                f"{len(self.vocab)} tokens>")

    @property
    def n_layers(self) -> int:
        return self.params.n_layers

    @property
    def n_heads(self) -> int:
        return self.params.n_heads

    def tokens(self, text) -> list[str]:
        """Words of `text` (split on spaces; English lower-cased), or a list of words as given."""
        if isinstance(text, str):
            words = text.split()
            return [w.lower() if w.isascii() and self.name != "induction" else w for w in words]
        if isinstance(text, (list, tuple)) and all(isinstance(w, str) for w in text):
            return list(text)
        raise TypeError(f"text: expected a string of space-separated words or a list of words, got "
                        f"{type(text).__name__}")

    def encode(self, text) -> np.ndarray:
        """(T,) token ids of `text`. Unknown words raise ValueError naming each one."""
        words = self.tokens(text)
        if not words:
            raise ValueError("text: expected at least one word, got an empty text")
        unknown = [w for w in words if w not in self._index]
        if unknown:
            distinct = list(dict.fromkeys(unknown))
            hint = (" Separate the words with spaces (小红 把 书 递给 小明)."
                    if any(not w.isascii() and len(w) > 3 for w in distinct[:MAX_NAMED]) else "")
            more = f" and {len(distinct) - MAX_NAMED} more" if len(distinct) > MAX_NAMED else ""
            raise ValueError(f"text: {len(unknown)} word(s) not in the vocabulary of the {self.name} model: "
                             + ", ".join(describe(w)[4:] if len(w) > 40 else repr(w) for w in distinct[:MAX_NAMED])
                             + more + f" (it knows {len(self.vocab)} words; see .vocab).{hint}")
        if len(words) > self.params.max_len:
            raise ValueError(f"text: {len(words)} words, but the model reads at most {self.params.max_len}")
        return np.array([self._index[w] for w in words], dtype=np.int64)

    def decode(self, ids) -> list[str]:
        ids = tr.check_ids(ids, len(self.vocab), 10 ** 9)
        return [self.vocab[i] for i in np.ravel(ids)]

    def forward(self, ids, *, head_mask=None, attn_mask=None, return_hidden: bool = False):
        """(logits (..., T, V), weights (..., L, H, T, T)) of the NumPy decoder (see decoder_forward)."""
        if isinstance(ids, str):
            ids = self.encode(ids)
        return tr.decoder_forward(self.params, ids, head_mask=head_mask, attn_mask=attn_mask,
                                  return_hidden=return_hidden)

    def next_token_probs(self, ids, **kwargs) -> np.ndarray:
        """(V,) probabilities of the token after the last one of `ids`."""
        logits = self.forward(ids, **kwargs)[0]
        return np.exp(tr.log_softmax(logits[..., -1, :]))

    # --- the coreference / context model ---------------------------------------------------
    def query_input(self, sentence, query: str | None = None) -> list[str]:
        """sentence | query: what the model reads to answer (query: default the sentence's last pronoun)."""
        words = self.tokens(sentence)
        if corpora.SEP in words:
            words = words[:words.index(corpora.SEP)]
        if query is None:
            found = [w for w in words if w in PRONOUNS]
            if not found:
                raise ValueError(f"sentence: no pronoun ({', '.join(PRONOUNS)}) in {' '.join(words)!r}")
            query = found[-1]
        return words + [corpora.SEP, query]

    def answer(self, sentence, query: str | None = None, **kwargs) -> tuple[str, float]:
        """(the predicted word after `sentence | query`, its probability)."""
        probs = self.next_token_probs(self.encode(self.query_input(sentence, query)), **kwargs)
        best = int(np.argmax(probs))
        return self.vocab[best], float(probs[best])

    def referent(self, sentence) -> str:
        """The word the model says the sentence's pronoun refers to."""
        return self.answer(sentence)[0]


def _files(name: str):
    folder = resources.files("attention_core.data") / "models"
    return folder / f"{name}.npz", folder / f"{name}.json"


_FIX = "retrain it with `make train` or restore it with `git checkout`"


def _read_manifest(path) -> str:
    """The manifest's text, checked to be a JSON object with the keys a model needs."""
    try:
        text = path.read_text(encoding="utf-8")
        manifest = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{path}: not a readable model manifest (JSON): {exc}; {_FIX}") from None
    if not isinstance(manifest, dict):
        raise ModelFileError(f"{path}: expected a JSON object (the manifest), got {type(manifest).__name__}; {_FIX}")
    for key, kind in (("name", str), ("config", dict), ("vocab", list)):
        if not isinstance(manifest.get(key), kind):
            raise ModelFileError(f"{path}: the manifest has no {key!r} ({kind.__name__}); {_FIX}")
    n_heads = manifest["config"].get("n_heads")
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads < 1:
        raise ModelFileError(f"{path}: config.n_heads must be an integer >= 1, got {n_heads!r}; {_FIX}")
    if not all(isinstance(w, str) for w in manifest["vocab"]):
        raise ModelFileError(f"{path}: the vocabulary must be a list of words (strings); {_FIX}")
    return text


def _read_weights(path) -> dict:
    """{name: read-only array} from an .npz file (never pickles); the file is closed on every path."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
            weights = {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as exc:
        raise ModelFileError(f"{path}: not a readable .npz weights file ({type(exc).__name__}: {exc}); "
                             f"{_FIX}") from None
    for arr in weights.values():
        arr.setflags(write=False)                   # shared by every model built from the cache
    return weights


def _build(name: str, weights: dict, manifest_text: str, where) -> TrainedModel:
    try:
        return TrainedModel(name, weights, json.loads(manifest_text))
    except (ValueError, TypeError, KeyError) as exc:  # shapes, missing arrays, NaN in the weights
        raise ModelFileError(f"{where}: {exc}; {_FIX}") from None


def load_trained(name: str) -> TrainedModel:
    """The committed trained model `name` ("induction" or "coreference"), from package data.

    Each call returns a new TrainedModel; its arrays are read-only (shared between calls), so nothing
    a caller does to one model reaches the next `load_trained`."""
    if name not in MODEL_NAMES:
        raise ValueError(f"name: expected one of {MODEL_NAMES}, got {describe(name)}")
    npz, js = _files(name)
    if name not in _CACHE:
        if not js.is_file() or not npz.is_file():
            raise FileNotFoundError(f"{name}: no trained weights in attention_core/data/models; run `make train`")
        _CACHE[name] = (_read_weights(npz), _read_manifest(js))
    weights, text = _CACHE[name]
    return _build(name, weights, text, f"{npz} with {js.name}")


def from_files(npz_path, json_path) -> TrainedModel:
    """A model from explicit files (for a fresh training run that is not committed yet)."""
    npz_path, json_path = Path(npz_path), Path(json_path)
    for path in (npz_path, json_path):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    text = _read_manifest(json_path)
    return _build(json.loads(text)["name"], _read_weights(npz_path), text, f"{npz_path} with {json_path.name}")


def check_model(model, kind: str | None = None) -> TrainedModel:
    """`model` must be a TrainedModel (of `kind`, "induction" or "coreference", when given)."""
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model: expected a trained model (load_trained({kind or 'coreference'!r})), "
                        f"got {describe(model)}")
    if kind is not None and model.config.get("kind") != kind:
        raise ValueError(f"model: expected the {kind} model (load_trained({kind!r})), got the {model.name} model")
    return model
