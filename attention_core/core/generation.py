"""Generation: the one token sampler and the one decoding loop, for any model that gives next-token logits.

    pick_token(logits_row, temperature=0.8, top_k=10, rng=0)      # one token id from a row of logits (V,)
    generate(model.step, ids, 20, temperature=0.8, rng=0)          # the prompt ids + 20 new ones (a list)
    write(gen, ids, 200, context=64)                               # past the context: restart on its last half

`generate` takes a `step(new_ids, past) -> (logits (T_new, V), past)` function: HookedDecoder.step (the KV
cache), or a step that recomputes the whole sequence (what the cache saves). The logits may be NumPy arrays
or torch tensors; the sampler reads one row as float64 NumPy. The random draw is `rng.choice(V, p=probs)`:
a seed or a numpy.random.Generator, or `backends.torch_generation.TorchRng(seed)`, whose choice is
torch.multinomial (so a torch loop seeded the same way draws the same tokens).
Shapes: B prompts, T tokens, V vocabulary.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .hooked import softmax_rows
from .validation import as_generator, describe, positive_int


# --- the sampler -----------------------------------------------------------------------------------------
def sampling_args(temperature, top_k) -> tuple[float, int | None]:
    """(temperature, top_k) checked once for every sampler and loop: temperature a finite number >= 0
    (0: the most likely token; NumPy scalars welcome), top_k None or an integer >= 1."""
    if isinstance(temperature, (bool, np.bool_)) or not isinstance(temperature, numbers.Real):
        raise TypeError(f"temperature: expected a number >= 0 (0: the most likely token), got {describe(temperature)}")
    if not 0 <= float(temperature) < math.inf:
        raise ValueError(f"temperature: expected a finite number >= 0 (0: the most likely token), "
                         f"got {float(temperature)}")
    if top_k is not None and (isinstance(top_k, (bool, np.bool_)) or not isinstance(top_k, numbers.Integral)):
        raise TypeError(f"top_k: expected None or an integer >= 1, got {describe(top_k)}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k: expected None or an integer >= 1, got {int(top_k)}")
    return float(temperature), None if top_k is None else int(top_k)


def _row(logits) -> np.ndarray:
    """One row of logits (V,) as a float64 NumPy copy (a tensor is detached and brought to the CPU)."""
    if hasattr(logits, "detach"):
        logits = logits.detach().cpu().double().numpy()
    try:
        arr = np.asarray(logits)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"logits: expected one row of numbers (V,), got {describe(logits)}")
    row = arr.astype(np.float64)                                        # a copy: the caller's row is untouched
    if row.ndim != 1 or row.size == 0:
        raise ValueError(f"logits: expected one row of logits (V,) with V >= 1, got shape {row.shape}")
    bad = np.flatnonzero(np.isnan(row) | np.isposinf(row))
    if bad.size:                                                        # argmax of NaN would pick a token
        raise FloatingPointError(f"logits: the row holds {row[bad[0]]} at token {int(bad[0])} (and {bad.size - 1} "
                                 "more): the model's output is not finite, so no token can be picked (a diverged "
                                 "model? retrain it with a lower learning rate)")
    if np.isneginf(row).all():
        raise FloatingPointError("logits: every token is -inf, so no token can be picked")
    return row


def token_probs(logits, temperature: float = 1.0, top_k: int | None = None) -> np.ndarray:
    """(V,) the distribution the sampler draws from: softmax(logits / temperature) over the top_k largest
    logits (the others 0). The shift by the largest logit comes before the division, so a tiny temperature
    gives the argmax a probability of 1 instead of overflowing; temperature 0 is the argmax itself."""
    temperature, top_k = sampling_args(temperature, top_k)
    row = _row(logits)
    if temperature == 0:
        return np.eye(row.size)[int(np.argmax(row))]
    if top_k is not None:
        kth = np.sort(row)[-min(top_k, row.size)]                       # ties with the k-th stay in
        row = np.where(row < kth, -np.inf, row)
    with np.errstate(over="ignore"):
        return softmax_rows((row - row.max()) / temperature)            # (V,), sums to 1


def pick_token(logits, temperature: float = 0.0, top_k: int | None = None, rng=None) -> int:
    """One token id from a row of logits (V,), NumPy or torch: the argmax at temperature 0, else a draw
    from token_probs (softmax(logits / temperature) among the top_k largest). rng: a seed (int >= 0), a
    numpy.random.Generator, anything with NumPy's `choice(n, p=probs)` (backends.torch_generation.TorchRng),
    or None (fresh randomness: pass a seed for a reproducible draw). A row with NaN or +inf is an error."""
    temperature, top_k = sampling_args(temperature, top_k)
    row = _row(logits)
    if temperature == 0:
        return int(np.argmax(row))
    probs = token_probs(row, temperature, top_k)
    return int(_as_rng(rng).choice(probs.size, p=probs))


def _as_rng(rng):
    """A source of draws: fresh (None), seeded (an int), or passed through (anything with choice(n, p=))."""
    if rng is None:
        return np.random.default_rng()
    if hasattr(rng, "choice"):
        return rng
    if type(rng).__name__ == "Generator" and type(rng).__module__.startswith("torch"):
        raise TypeError("rng: a torch.Generator has no choice(n, p=); wrap it: "
                        "attention_core.backends.torch_generation.TorchRng(seed)")
    return as_generator(rng, "rng")


# --- the loop ---------------------------------------------------------------------------------------------
def _prompts(ids, vocab_size: int | None) -> tuple[list[list[int]], bool]:
    """The prompt(s) as lists of ints, and whether a batch (B, T) came in (each row is its own prompt)."""
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"ids: expected integer token ids, got the text {describe(ids)[4:]}; encode it first")
    if hasattr(ids, "detach"):
        ids = ids.detach().cpu().numpy()
    try:
        arr = np.asarray(ids)
    except (TypeError, ValueError):
        raise TypeError(f"ids: expected token ids of shape (T,) or (B, T), got {describe(ids)}") from None
    if arr.dtype == object or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"ids: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}")
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0 or arr.shape[0] == 0:
        raise ValueError(f"ids: expected a prompt of at least one token, shape (T,) or (B, T), got shape {arr.shape}")
    if vocab_size is not None and (arr.min() < 0 or arr.max() >= vocab_size):
        bad = arr[(arr < 0) | (arr >= vocab_size)]
        raise ValueError(f"ids: token ids must lie in 0..{vocab_size - 1} (the vocabulary), got {bad[:5].tolist()}")
    rows = arr.reshape(-1, arr.shape[-1]).astype(np.int64).tolist()
    return rows, arr.ndim == 2


def generate(step, ids, n_new: int, *, temperature: float = 0.0, top_k: int | None = None, rng=0,
             max_len: int | None = None, vocab_size: int | None = None) -> list:
    """The prompt ids followed by n_new tokens (a list of ints): one step over the prompt, then one token
    at a time, each picked by pick_token and fed back.

    step(new_ids (T_new,) int64, past) -> (logits (T_new, V), past): past is None at the start and what
    the previous step returned after (a KV cache, or the tokens so far for a model that recomputes).
    ids (T,), or (B, T): then each row is generated as its own prompt and a list of B lists comes back
    (never one prompt of B x T tokens). rng: as pick_token's, one generator for the whole call (the rows
    of a batch draw one after another). max_len: the model's context (prompt + n_new must fit);
    vocab_size: checks the prompt's ids."""
    temperature, top_k = sampling_args(temperature, top_k)
    n_new = positive_int(n_new, "n_new", minimum=0)
    prompts, batch = _prompts(ids, vocab_size)
    if max_len is not None and len(prompts[0]) + n_new > max_len:
        raise ValueError(f"ids, n_new: {len(prompts[0])} prompt tokens + {n_new} new ones is more than the model's "
                         f"context of {max_len} tokens")
    rng = _as_rng(rng)                                                  # checked at temperature 0 too
    outs = [_one(step, prompt, n_new, temperature, top_k, rng) for prompt in prompts]
    return outs if batch else outs[0]


def _one(step, prompt: list, n_new: int, temperature: float, top_k, rng) -> list:
    out = list(prompt)
    logits, past = step(np.asarray(out, dtype=np.int64), None)
    for i in range(n_new):
        out.append(pick_token(_last_row(logits, 1 if i else len(prompt)), temperature, top_k, rng))
        if i < n_new - 1:
            logits, past = step(np.asarray(out[-1:], dtype=np.int64), past)
    return out


def _last_row(logits, t_new: int):
    """The logits of the last position; the step's output checked to be (T_new, V) (or (T, V) recomputed)."""
    shape = tuple(getattr(logits, "shape", ()))
    if len(shape) != 2 or shape[0] < t_new:
        raise ValueError(f"step: expected logits of shape (T_new, V) = ({t_new}, V) for {t_new} new token(s), "
                         f"got {describe(logits)}")
    return logits[-1]


def write(generate_fn, ids, n_new: int, *, context: int, temperature: float = 1.0, top_k: int | None = None,
          seed: int = 0) -> list[int]:
    """ids followed by n_new tokens, more than the model's context holds: generate_fn(window, room,
    temperature=, top_k=, seed=) -> window + room tokens writes until the context is full, then starts again
    from the last half of the context (nanoGPT crops its input to the context at every token; restarting from the
    last half keeps each call's KV cache useful). Call 0 gets `seed`; every later call a seed drawn from
    (seed, call), so the samples of two neighbouring seeds never share a call's random draws."""
    context = positive_int(context, "context", minimum=2)
    temperature, top_k = sampling_args(temperature, top_k)
    seed = positive_int(seed, "seed", minimum=0)
    n_new = positive_int(n_new, "n_new", minimum=0)
    if hasattr(ids, "__len__") and not isinstance(ids, (str, bytes)) and len(ids) == 0:
        raise ValueError(f"ids: expected a prompt of 1 to {context - 1} tokens (the context is {context}), got 0")
    ids = _prompts(ids, None)[0]
    if len(ids) != 1:
        raise ValueError(f"ids: expected one prompt (T,), got a batch of {len(ids)}; write each prompt on its own")
    ids = ids[0]
    if not 0 < len(ids) < context:
        raise ValueError(f"ids: expected a prompt of 1 to {context - 1} tokens (the context is {context}), got "
                         f"{len(ids)}")
    out, call = list(ids), 0
    while len(out) - len(ids) < n_new:
        window = out[-(context // 2):] if len(out) >= context // 2 and call else out[-(context - 1):]
        room = min(context - len(window), n_new - (len(out) - len(ids)))
        got = generate_fn(window, room, temperature=temperature, top_k=top_k, seed=_call_seed(seed, call))
        got = [int(i) for i in got]
        if len(got) != len(window) + room or got[:len(window)] != window:   # never loop on a short answer
            raise ValueError(f"generate_fn: asked for the window of {len(window)} tokens followed by {room} new "
                             f"one(s), got {len(got)} ids" + ("" if got[:len(window)] == window else
                                                               ", not starting with the window"))
        out += got[len(window):]
        call += 1
    return out


def _call_seed(seed: int, call: int) -> int:
    """The seed of write's call number `call`: `seed` itself first, then one drawn from (seed, call). With
    seed + call, seed 0's second call drew what seed 1's first did, and two samples shared a long run of text."""
    return seed if call == 0 else int(np.random.SeedSequence([seed, call]).generate_state(1)[0])
