"""HookedDecoder: the course's one Transformer, with run_with_cache, run_with_hooks and a KV cache.

    model = HookedDecoder(params)                                # DecoderParams, or flat weights + DecoderConfig
    logits, cache = model.run_with_cache(ids)                    # cache["blocks.0.attn.hook_pattern"]: (H, T, T)
    logits = model.run_with_hooks(ids, {"blocks.1.attn.hook_z": zero_head(0)})   # ablate head L1H0
    logits, past = model.step(ids)                               # then model.step(next_ids, past): the KV cache

The forward itself is `hooked.forward` (bare formulas, hook points and shapes listed there); this class
checks the inputs once, at its entry points, and says what was expected. Torch runs the same class
with `ops=backends.torch_ops.TORCH_OPS` (backends.torch_decoder.TorchDecoder does).
Shapes: B batch (optional), T tokens, L layers, H heads, Dh = D / H, V vocabulary.
"""
from __future__ import annotations

import difflib
import math

import numpy as np

from . import hooked
from .masks import causal_mask
from .params import DecoderConfig, DecoderParams, as_config, decoder_from_dict, decoder_to_dict
from .validation import (
    as_bool_mask,
    as_float_array,
    as_generator,
    check_flag,
    check_ids,
    describe,
    positive_int,
)

ABLATIONS = ("zero", "mean", "resample")


class ActivationCache(dict):
    """{hook name: activation} from run_with_cache; a wrong name is answered with the closest names."""

    def __missing__(self, name):
        close = difflib.get_close_matches(str(name), list(self), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else f"; it holds {len(self)} names"
        raise KeyError(f"{name!r} is not in the cache{hint}")


class HookedDecoder:
    """A pre-LN decoder (causal=False: the same stack as an encoder) whose forward has hook points.

    params: DecoderParams (its config travels with it), or a flat {name: array} dict (names of
    params.parameter_shapes) with its DecoderConfig; an int n_heads in place of the config still works.
    ops: hooked.NUMPY_OPS (the default) or a torch namespace (backends.torch_ops.TORCH_OPS): the arrays
    must then be tensors. block_fn: replaces hooked.block (notebook 13 plugs the learner's block in).
    """

    def __init__(self, params, config=None, *, causal: bool | None = None, ops: hooked.Ops = hooked.NUMPY_OPS,
                 block_fn=None):
        if causal is not None:
            causal = check_flag(causal, "causal")
        if isinstance(params, DecoderParams):
            if config is not None and not isinstance(config, (DecoderConfig, dict)):
                positive_int(config, "n_heads")                              # the older bare n_heads
                config = DecoderConfig(**{**params.config.to_dict(), "n_heads": int(config)})
            config = params.config if config is None else as_config(config)
            params = decoder_to_dict(params)
        elif not isinstance(params, dict):
            raise TypeError(f"params: expected DecoderParams or a flat dict of weights, got {describe(params)}")
        elif config is None:
            raise TypeError("config: a flat weights dict does not say how many heads; pass its DecoderConfig "
                            "(or n_heads)")
        if ops is hooked.NUMPY_OPS:
            checked = decoder_from_dict(params, config, causal=causal)       # every name, shape and value
            self.weights = decoder_to_dict(checked)
        else:                                                                # tensors: check shapes on copies
            checked = decoder_from_dict({k: _shape_only(v) for k, v in params.items()}, config, causal=causal)
            self.weights = dict(params)
        self.config = checked.config
        self.causal = self.config.causal
        self.n_heads = self.config.n_heads
        self.ops, self.block_fn = ops, block_fn
        self.n_layers = self.config.n_layers
        self.vocab_size, self.d_model = self.config.vocab_size, self.config.d_model
        self.max_len = self.config.max_len
        self.hook_names = hooked.hook_names(self.n_layers)

    def __repr__(self) -> str:
        return (f"HookedDecoder(L={self.n_layers}, H={self.n_heads}, D={self.d_model}, V={self.vocab_size}, "
                f"max_len={self.max_len}, causal={self.causal})")

    # --- checks at the entry points ------------------------------------------------------------------
    def _ids(self, ids, past_len: int = 0):
        if hasattr(ids, "detach"):                                           # a tensor: check its numbers
            if ids.is_floating_point() or str(ids.dtype) == "torch.bool":
                raise TypeError(f"ids: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}")
            arr = check_ids(ids.detach().cpu().numpy(), self.vocab_size, self.max_len - past_len)
        else:
            arr = check_ids(ids, self.vocab_size, self.max_len - past_len)
        return self.ops.as_array(arr)

    def _masks(self, attn_mask, t: int, past_len: int = 0) -> list:
        """Each layer's boolean mask (T, past + T), True = may attend: the causal mask AND attn_mask."""
        tk = past_len + t
        base = causal_mask(t, tk, offset=past_len) if self.causal else np.ones((t, tk), dtype=bool)
        if attn_mask is None:
            per_layer = [base] * self.n_layers
        else:
            extra = as_bool_mask(_numpy(attn_mask), "attn_mask")
            if extra.ndim < 2 or extra.shape[-2:] != (t, tk):
                raise ValueError(f"attn_mask: expected its last two axes to be (T, T) = ({t}, {tk}), the shape "
                                 f"of the attention weights, got shape {extra.shape}")
            if extra.ndim >= 3 and extra.shape[-3] == self.n_layers:
                per_layer = [extra[..., i, :, :] & base for i in range(self.n_layers)]
            else:
                per_layer = [extra & base] * self.n_layers
        # a batch of masks (B, T, Tk) gets a head axis: (B, 1, T, Tk) against the (B, H, T, Tk) scores
        return [self.ops.as_array(m if m.ndim == 2 else m[..., None, :, :]) for m in per_layer]

    def _hooks(self, hooks, record=None) -> hooked.HookSet:
        fns: dict = {}
        pairs = hooks.items() if isinstance(hooks, dict) else (hooks or ())
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"hooks: expected a dict or (name, function) pairs, got {describe(pair)}")
            name, fn = pair
            self.check_name(name, "hooks")
            if not callable(fn):
                raise TypeError(f"hooks[{name!r}]: expected a function fn(value, name), got {describe(fn)}")
            fns.setdefault(name, []).append(fn)
        if record is not None:
            for name in record:
                self.check_name(name, "names")
        return hooked.HookSet(fns=fns, record=None if record is None else set(record))

    def check_name(self, name, what: str = "name") -> None:
        """Raise unless `name` is one of this model's hook points (the closest names in the message)."""
        if name not in self.hook_names:
            close = difflib.get_close_matches(str(name), self.hook_names, n=3, cutoff=0.6)
            hint = f"did you mean {', '.join(map(repr, close))}?" if close else "model.hook_names lists them"
            raise ValueError(f"{what}: {name!r} is not a hook point of this model ({hint})")

    # --- running it ----------------------------------------------------------------------------------
    def _run(self, ids, hook: hooked.HookSet, attn_mask=None, past=None):
        past_len = 0 if not past else int(past[0][0].shape[-2])
        ids = self._ids(ids, past_len)
        masks = self._masks(attn_mask, int(ids.shape[-1]), past_len)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # checked below, in words
            logits, cache = hooked.forward(self.weights, self.n_heads, ids, masks=masks, hook=hook, ops=self.ops,
                                           past=past, block_fn=self.block_fn)
        if not _all_finite(logits):
            self._explain_overflow(ids, masks, past)
        return logits, cache

    def _explain_overflow(self, ids, masks, past):
        """Run again, stopping at the first activation that is not finite, and say where and in which dtype."""
        def stop(value, name):
            if not _all_finite(value):
                dtype = str(value.dtype).rpartition(".")[2]
                raise FloatingPointError(
                    f"the forward pass overflowed {dtype} at {name} (a number beyond the largest {dtype} number, "
                    f"{float(np.finfo(dtype).max):.3g}); use smaller weights or a wider dtype such as float64")
        hook = hooked.HookSet(fns={n: [stop] for n in self.hook_names})
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            hooked.forward(self.weights, self.n_heads, ids, masks=masks, hook=hook, ops=self.ops, past=past,
                           block_fn=self.block_fn)
        raise FloatingPointError("the forward pass overflowed: the logits are not finite")

    def __call__(self, ids, *, hooks=None, attn_mask=None):
        """logits (..., T, V) of ids (T,) or (B, T); hooks as in run_with_hooks."""
        return self._run(ids, self._hooks(hooks), attn_mask)[0]

    def run_with_hooks(self, ids, hooks, *, attn_mask=None):
        """logits with hooks applied: {name: fn} or [(name, fn), ...]; fn(value, name) returns None (read
        only) or a replacement of the same shape. See `ablate` for zero, mean and resample ablation."""
        return self._run(ids, self._hooks(hooks), attn_mask)[0]

    def run_with_cache(self, ids, names=None, *, hooks=None, attn_mask=None):
        """(logits, ActivationCache {hook name: activation}); names: which hook points to keep (all by
        default; hook_result is computed only when named or hooked)."""
        record = [n for n in self.hook_names if not n.endswith("hook_result")] if names is None else list(names)
        hook = self._hooks(hooks, record)
        logits, _ = self._run(ids, hook, attn_mask)
        return logits, ActivationCache(hook.cache)

    def step(self, ids, past=None, *, hooks=None):
        """The KV cache: run only the new tokens ids (T_new,) or (B, T_new) at positions after `past` (None
        or what the last step returned) and return (logits (..., T_new, V), past with their keys and values)."""
        if past is not None and (not isinstance(past, list) or len(past) != self.n_layers):
            raise TypeError(f"past: expected None or the list of {self.n_layers} (k, v) pairs step() returned, "
                            f"got {describe(past)}")
        return self._run(ids, self._hooks(hooks), None, past)

    def forward(self, ids, *, head_mask=None, attn_mask=None, return_hidden: bool = False):
        """decoder_forward's contract: (logits (..., T, V), weights (..., L, H, T, T)), and with
        return_hidden=True the residual stream (..., L + 1, T, D); head_mask (L, H) scales each head's output."""
        return_hidden = check_flag(return_hidden, "return_hidden")
        hooks = []
        if head_mask is not None:
            hm = as_float_array(_numpy(head_mask), "head_mask", ndim=2)
            if hm.shape != (self.n_layers, self.n_heads):
                raise ValueError(f"head_mask: expected shape (L, H) = ({self.n_layers}, {self.n_heads}), "
                                 f"got {hm.shape}")
            dtype = np.dtype(str(self.weights["tok_emb"].dtype).rpartition(".")[2])
            with np.errstate(over="ignore"):
                cast = hm.astype(dtype)
            if not np.isfinite(cast).all():
                raise ValueError(f"head_mask: {np.abs(hm).max():.3g} is beyond the largest {dtype.name} "
                                 f"number ({float(np.finfo(dtype).max):.3g}), the model's dtype")
            factors = self.ops.as_array(cast[:, :, None, None])                     # (L, H, 1, 1)
            hooks = [(f"blocks.{i}.attn.hook_z", _times(factors[i])) for i in range(self.n_layers)]
        patterns = [f"blocks.{i}.attn.hook_pattern" for i in range(self.n_layers)]
        resid = ["blocks.0.hook_resid_pre"] + [f"blocks.{i}.hook_resid_post" for i in range(self.n_layers)]
        logits, cache = self.run_with_cache(ids, patterns + (resid if return_hidden else []), hooks=hooks,
                                            attn_mask=attn_mask)
        weights = self.ops.stack([cache[n] for n in patterns], -4)                   # (..., L, H, T, T)
        if return_hidden:
            return logits, weights, self.ops.stack([cache[n] for n in resid], -3)    # (..., L + 1, T, D)
        return logits, weights

    def generate(self, ids, n_new: int, *, temperature: float = 0.0, top_k: int | None = None, seed=0) -> list:
        """The prompt ids (T,) followed by n_new tokens: one forward of the prompt, then one token at a time
        through the KV cache. temperature 0: the most likely token; else a sample of softmax(logits / T)
        among the top_k (NumPy's Generator from seed)."""
        n_new = positive_int(n_new, "n_new", minimum=0)
        out = [int(i) for i in np.ravel(_numpy(ids))]
        if len(out) + n_new > self.max_len:
            raise ValueError(f"ids, n_new: {len(out)} prompt tokens + {n_new} new ones is more than the model's "
                             f"context of {self.max_len} tokens")
        rng = as_generator(seed)
        logits, past = self.step(np.asarray(out, dtype=np.int64))
        for i in range(n_new):
            out.append(pick_token(_numpy(logits[-1]), temperature, top_k, rng))
            if i < n_new - 1:
                logits, past = self.step(np.asarray(out[-1:], dtype=np.int64), past)
        return out


def pick_token(logits: np.ndarray, temperature: float = 0.0, top_k: int | None = None, rng=None) -> int:
    """One token from a row of logits (V,): the argmax at temperature 0, else a sample of
    softmax(logits / temperature) among the top_k largest."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature < math.inf:
        raise ValueError(f"temperature: expected a number >= 0 (0: the most likely token), got {describe(temperature)}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1):
        raise ValueError(f"top_k: expected None or an integer >= 1, got {describe(top_k)}")
    logits = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        return int(np.argmax(logits))
    scaled = logits / temperature
    if top_k is not None:
        kth = np.sort(scaled)[-min(int(top_k), scaled.size)]
        scaled = np.where(scaled < kth, -np.inf, scaled)
    p = hooked.softmax_rows(scaled)
    return int(as_generator(rng).choice(p.size, p=p))


# --- interventions through hooks (notebook 12's tools) ---------------------------------------------------
def head_hook(head: int, values=None):
    """A hook for hook_z (or hook_result) that replaces one head's output: with zeros (values None) or with
    `values` (..., T, Dh), broadcast over the batch (a mean, or another run's activation)."""
    def hook(z, name):
        out = z.copy() if hasattr(z, "copy") else z.clone()
        out[..., head, :, :] = 0 if values is None else values
        return out
    return hook


def ablate(model: HookedDecoder, ids, layer: int, head: int, how: str = "zero", reference=None, seed=0):
    """logits with head (layer, head) ablated at hook_z: "zero" (its output set to 0), "mean" (to its mean
    over `reference` ids, every position, so it keeps its average contribution) or "resample" (to its
    output on other sequences: `reference`, or ids shuffled along the batch with seed)."""
    layer = _index(layer, model.n_layers, "layer")
    head = _index(head, model.n_heads, "head")
    if how not in ABLATIONS:
        raise ValueError(f"how: expected one of {ABLATIONS}, got {describe(how)}")
    name = f"blocks.{layer}.attn.hook_z"
    if how == "zero":
        return model.run_with_hooks(ids, {name: head_hook(head)})
    source = ids if reference is None else reference
    if how == "resample" and reference is None:
        arr = np.asarray(_numpy(ids))
        if arr.ndim != 2 or arr.shape[0] < 2:
            raise ValueError(f"ids: resample ablation without `reference` needs a batch (B, T) with B >= 2 to "
                             f"shuffle, got shape {arr.shape}")
        source = arr[as_generator(seed).permutation(arr.shape[0])]
    _, cache = model.run_with_cache(source, [name])
    z = cache[name][..., head, :, :]                                           # (B, T, Dh)
    if how == "mean":
        z = z.reshape(-1, z.shape[-1]).mean(0)                                 # (Dh,): one mean vector
    return model.run_with_hooks(ids, {name: head_hook(head, z)})


def patch(model: HookedDecoder, corrupted_ids, clean_cache: ActivationCache, name: str, head: int | None = None,
          positions=None):
    """logits of the corrupted run with one activation taken from the clean run (activation patching):
    the whole hook point, or one head of a per-head point (hook_z, hook_pattern, ...), optionally only at
    `positions` (query positions, the second-to-last axis)."""
    model.check_name(name, "name")
    if name not in clean_cache:
        raise ValueError(f"clean_cache: {name!r} was not recorded; run_with_cache(clean_ids) with names=None or "
                         f"including it")
    clean = clean_cache[name]
    if head is not None:
        head = _index(head, model.n_heads, "head")

    def hook(value, _):
        if tuple(value.shape) != tuple(clean.shape):
            raise ValueError(f"corrupted_ids: expected the clean run's shape at {name}, {tuple(clean.shape)}, "
                             f"got {tuple(value.shape)}; patch between runs of the same length")
        out = value.copy() if hasattr(value, "copy") else value.clone()
        rows = slice(None) if positions is None else positions                 # query positions: axis -2
        idx = (Ellipsis, rows, slice(None)) if head is None else (Ellipsis, head, rows, slice(None))
        out[idx] = clean[idx]
        return out
    return model.run_with_hooks(corrupted_ids, {name: hook})


def head_logit_attribution(model: HookedDecoder, ids, target) -> np.ndarray:
    """Direct logit attribution: how much each head's write (hook_result) adds to the logit of `target`
    at each position, read through the final layer norm's scale of that position (TransformerLens's
    apply_ln_to_stack). ids (T,); target (T,) token ids. Returns (L, H, T)."""
    ids = np.asarray(_numpy(ids))
    if ids.ndim != 1:
        raise ValueError(f"ids: expected one sequence (T,), got shape {ids.shape}")
    target = np.asarray(_numpy(target))
    if target.shape != ids.shape or target.dtype.kind not in "iu":
        raise ValueError(f"target: expected integer token ids of the shape of ids {ids.shape}, got {describe(target)}")
    if target.size and (target.min() < 0 or target.max() >= model.vocab_size):
        raise ValueError(f"target: token ids must lie in 0..{model.vocab_size - 1}, got {target.tolist()[:5]}")
    names = [f"blocks.{i}.attn.hook_result" for i in range(model.n_layers)]
    _, cache = model.run_with_cache(ids, names + [f"blocks.{model.n_layers - 1}.hook_resid_post"])
    final = np.asarray(_numpy(cache[f"blocks.{model.n_layers - 1}.hook_resid_post"]), np.float64)   # (T, D)
    scale = np.sqrt(final.var(-1, keepdims=True) + hooked.LN_EPS)                      # (T, 1): LN_f's divisor
    w = model.weights
    direction = (np.asarray(_numpy(w["w_out"]), np.float64)[:, target] * np.asarray(_numpy(w["lnf_g"]),
                 np.float64)[:, None]).T                                                # (T, D)
    out = np.empty((model.n_layers, model.n_heads, ids.size))
    for i, name in enumerate(names):
        result = np.asarray(_numpy(cache[name]), np.float64)                           # (H, T, D)
        centred = result - result.mean(-1, keepdims=True)                              # LN_f subtracts the mean
        out[i] = (centred / scale * direction).sum(-1)                                 # (H, T)
    return out


# --- small helpers -----------------------------------------------------------------------------------------
def _times(factor):
    """A hook multiplying its value by `factor` (each head's output by its head_mask entry)."""
    return lambda value, _: value * factor


def _index(i, n: int, name: str) -> int:
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
        raise ValueError(f"{name}: expected an integer in 0..{n - 1}, got {describe(i)}")
    return int(i)


def _numpy(x):
    """A NumPy view of an array or a tensor (detached, on the CPU)."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def _shape_only(x):
    """A zero array of x's shape that takes no memory (a broadcast view): decoder_from_dict's shape checks
    without copying tensors."""
    return np.broadcast_to(np.zeros(()), tuple(x.shape))


def _all_finite(x) -> bool:
    return bool(np.isfinite(_numpy(x)).all()) if not hasattr(x, "isfinite") else bool(x.isfinite().all())
