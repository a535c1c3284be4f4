"""HookedDecoder: the course's one Transformer, with run_with_cache, run_with_hooks and a KV cache.

    model = HookedDecoder(params)                                # DecoderParams, or flat weights + DecoderConfig
    logits, cache = model.run_with_cache(ids)                    # cache["blocks.0.attn.hook_pattern"]: (H, T, T)
    cache["pattern", 0]                                          # the same, TransformerLens's shorthand
    logits = model.run_with_hooks(ids, {"blocks.1.attn.hook_z": head_hook(0)})   # ablate head L1H0
    logits, past = model.step(ids)                               # then model.step(next_ids, past): the KV cache

The forward itself is `hooked.forward` (bare formulas, hook points and shapes listed there); this class
checks the inputs once, at its entry points, and says what was expected. Torch runs the same class
with `ops=backends.torch_ops.TORCH_OPS` (backends.torch_decoder.TorchDecoder does). The interventions
built on the hooks (ablate, patch, head_logit_attribution) are in `core.interventions`.
Shapes: B batch (optional), T tokens, L layers, H heads, Dh = D / H, V vocabulary.

TransformerLens's contract, with one difference in axis order: per-head activations put the head axis
BEFORE the positions, (B, H, T, Dh) and patterns (B, H, T, Tk), where TransformerLens has (B, T, H, Dh) for
q, k, v, z (its patterns are (B, H, T, Tk) too). Every hook and every cached value may be edited in place:
each is the caller's own copy (a hook's in-place edit changes that point's value for the rest of the
forward, and nothing else).
"""
from __future__ import annotations

import difflib
import inspect

import numpy as np

from . import generation, hooked
from .masks import causal_mask
from .params import DecoderConfig, DecoderParams, as_config, decoder_from_dict, decoder_to_dict
from .validation import as_bool_mask, as_float_array, check_flag, check_ids, describe, numpy_of, positive_int

_SUBMODULES = ("attn", "mlp", "ln1", "ln2")


class ActivationCache(dict):
    """{hook name: activation} from run_with_cache; a wrong name is answered with the closest names.

    TransformerLens's shorthand: cache["pattern", 1] is cache["blocks.1.attn.hook_pattern"], cache["resid_pre", 0]
    is "blocks.0.hook_resid_pre", cache["normalized", 0, "ln2"] picks the LN of that name, cache["embed"] is
    "hook_embed". Per-head values are (B, H, T, ...): heads before positions (TransformerLens: positions first)."""

    def __getitem__(self, key):
        return super().__getitem__(self.full_name(key) if isinstance(key, tuple) or (
            isinstance(key, str) and key not in self and f"hook_{key}" in _TOP_HOOKS) else key)

    @staticmethod
    def full_name(key) -> str:
        """The hook name a shorthand key stands for: ("pattern", 1) -> "blocks.1.attn.hook_pattern"."""
        if isinstance(key, str):
            return f"hook_{key}"
        short, *rest = key if key else (None,)
        if not isinstance(short, str) or len(rest) not in (1, 2) or isinstance(rest[0], bool) or not isinstance(
                rest[0], (int, np.integer)):
            raise KeyError(f"{key!r}: expected a hook name, or (short name, layer) such as ('pattern', 1), "
                           f"optionally with one of {_SUBMODULES}: ('normalized', 0, 'ln2')")
        layer, sub = int(rest[0]), (rest[1] if len(rest) == 2 else None)
        matches = [n for n in hooked.BLOCK_HOOKS if n.rpartition(".")[2] == f"hook_{short}"
                   and (sub is None or n.startswith(f"{sub}."))]
        if len(matches) != 1:
            known = sorted({n.rpartition(".")[2][5:] for n in hooked.BLOCK_HOOKS})
            why = (f"it names {len(matches)} points ({', '.join(matches)}); add one of {_SUBMODULES}" if matches
                   else f"the short names are {known}")
            raise KeyError(f"{key!r}: no single hook point of layer {layer} matches; {why}")
        return f"blocks.{layer}.{matches[0]}"

    def __missing__(self, name):
        if str(name).endswith("hook_result"):
            raise KeyError(f"{name!r} is not in the cache: hook_result (each head's write, (B, H, T, D)) is computed "
                           "only when named; run_with_cache(ids, names=[...]) with it among the names")
        close = difflib.get_close_matches(str(name), list(self), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else f"; it holds {len(self)} names"
        raise KeyError(f"{name!r} is not in the cache{hint}")


_TOP_HOOKS = ("hook_embed", "hook_pos_embed", "hook_logits")


class HookedDecoder:
    """A pre-LN decoder (causal=False: the same stack as an encoder) whose forward has hook points.

    params: DecoderParams (its config travels with it), or a flat {name: array} dict (names of
    params.parameter_shapes) with its DecoderConfig; an int n_heads in place of the config still works.
    ops: hooked.NUMPY_OPS (the default) or a torch namespace (backends.torch_ops.TORCH_OPS): the arrays
    must then be tensors. block_fn: replaces hooked.block (notebook 13 plugs the learner's block in); its
    `hook_points` attribute lists the block hook points it fires (BLOCK_HOOKS' names), the others are refused,
    and its `read_only` those a hook may record but not edit.
    hook_names lists the points this model fires; a point its pieces skip is refused, saying why.
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
        if not isinstance(ops, hooked.Ops):
            raise TypeError(f"ops: expected a hooked.Ops namespace (NUMPY_OPS, or torch's), got {describe(ops)}")
        if block_fn is not None and not callable(block_fn):
            raise TypeError(f"block_fn: expected None or a function like hooked.block, got {describe(block_fn)}")
        if ops is hooked.NUMPY_OPS:
            checked = decoder_from_dict(params, config, causal=causal)       # every name, shape and value
            self.weights = decoder_to_dict(checked)
        else:                                                                # tensors: check shapes on copies
            checked = decoder_from_dict({k: _shape_only(v) for k, v in params.items()}, config, causal=causal)
            tensors = hasattr(ops.as_array(np.zeros(1)), "detach")             # which library these ops compute in
            wrong = [k for k, v in params.items() if hasattr(v, "detach") != tensors]
            if wrong:
                kind = "torch tensors" if tensors else "NumPy arrays"
                raise TypeError(f"params: these ops compute with {kind}, but {wrong[:3]} are "
                                f"{describe(params[wrong[0]])}; convert the weights (or use the matching ops)")
            self.weights = dict(params)
        self.config = checked.config
        self.causal = self.config.causal
        self.n_heads = self.config.n_heads
        self.ops, self.block_fn = ops, block_fn
        self.n_layers = self.config.n_layers
        self.vocab_size, self.d_model = self.config.vocab_size, self.config.d_model
        self.max_len = self.config.max_len
        self.hook_names, self.skipped_hooks = _hook_points(self.n_layers, ops, block_fn)
        read_only = getattr(block_fn, "read_only", ())                       # recorded, not edited (see block_fn)
        self.read_only_hooks = {n: ("your block (block_fn) has already computed its output when it hands this value "
                                    "over, so a hook can read it (run_with_cache) but not change it")
                                for n in self.hook_names if n.startswith("blocks.") and n.split(".", 2)[2] in read_only}

    def __repr__(self) -> str:
        return (f"HookedDecoder(L={self.n_layers}, H={self.n_heads}, D={self.d_model}, V={self.vocab_size}, "
                f"max_len={self.max_len}, causal={self.causal})")

    # --- checks at the entry points ------------------------------------------------------------------
    def token_ids(self, ids, name: str = "ids") -> np.ndarray:
        """ids (T,) or (B, T) as checked int64 NumPy, 0 <= id < V and 1 <= T <= max_len (a tensor's too)."""
        if hasattr(ids, "detach"):                                           # a tensor: check its numbers
            if ids.is_floating_point() or str(ids.dtype) == "torch.bool":
                raise TypeError(f"{name}: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}")
            ids = ids.detach().cpu().numpy()
        return check_ids(ids, self.vocab_size, self.max_len, name=name)

    def _masks(self, attn_mask, batch: tuple, t: int, past_len: int = 0) -> list:
        """Each layer's boolean mask (T, past + T), True = may attend: the causal mask AND attn_mask.
        attn_mask: (T, Tk) for every layer; (L, T, Tk) one per layer; (B, L, T, Tk) one per layer and sequence."""
        tk = past_len + t
        base = causal_mask(t, tk, offset=past_len) if self.causal else np.ones((t, tk), dtype=bool)
        if attn_mask is None:
            return [self.ops.as_array(base)] * self.n_layers
        extra = as_bool_mask(numpy_of(attn_mask), "attn_mask")
        forms = (f"(T, Tk) = ({t}, {tk}) for every layer, (L, T, Tk) = ({self.n_layers}, {t}, {tk}) one per layer, "
                 f"or (B, L, T, Tk) one per layer and sequence")
        if extra.ndim not in (2, 3, 4) or extra.shape[-2:] != (t, tk):
            raise ValueError(f"attn_mask: expected its last two axes to be (T, T) = ({t}, {tk}), the shape of the "
                             f"attention weights, got shape {extra.shape} (the forms: {forms})")
        if extra.ndim >= 3 and extra.shape[-3] != self.n_layers:
            raise ValueError(f"attn_mask: a mask of shape {extra.shape} gives {extra.shape[-3]} layers' masks, but the "
                             f"model has {self.n_layers} layers; expected {forms}")
        if extra.ndim == 4 and (not batch or extra.shape[0] not in (1, batch[0])):
            raise ValueError(f"attn_mask: a mask of shape {extra.shape} holds {extra.shape[0]} sequences' masks, but "
                             f"ids holds {batch[0] if batch else 'one sequence (T,)'}; expected {forms}")
        if extra.ndim == 2:
            return [self.ops.as_array(extra & base)] * self.n_layers
        # a batch of masks (B, T, Tk) gets a head axis: (B, 1, T, Tk) against the (B, H, T, Tk) scores
        return [self.ops.as_array((extra[..., i, :, :] & base)[..., None, :, :] if extra.ndim == 4
                                  else extra[i] & base) for i in range(self.n_layers)]

    def _past(self, past, batch: tuple) -> int:
        """Check a KV cache (what step() returned) against this model and the new ids; its length T_past."""
        if past is None:
            return 0
        if not isinstance(past, list) or len(past) != self.n_layers:
            raise TypeError(f"past: expected None or the list of {self.n_layers} (k, v) pairs step() returned, "
                            f"got {describe(past)}")
        want_tensor = self.ops is not hooked.NUMPY_OPS
        shapes = set()
        for i, pair in enumerate(past):
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"past[{i}]: expected the (k, v) pair of layer {i} that step() returned, "
                                f"got {describe(pair)}")
            for arr in pair:
                if (hasattr(arr, "detach") if want_tensor else isinstance(arr, np.ndarray)) is False:
                    kind = "torch tensors" if want_tensor else "NumPy arrays"
                    raise TypeError(f"past[{i}]: expected {kind} from this model's step(), got {describe(arr)}")
                shapes.add(tuple(arr.shape))
        shape = next(iter(shapes))
        dh = self.d_model // self.n_heads
        if len(shapes) > 1 or len(shape) < 3 or shape[-3:] != (self.n_heads, shape[-2], dh) or shape[-2] < 1:
            raise ValueError(f"past: expected every k and v of shape (..., H, T_past, Dh) = (..., {self.n_heads}, "
                             f"T_past, {dh}), as step() returns them, got shapes {sorted(shapes)}")
        if shape[:-3] != batch:
            raise ValueError(f"past: the cache was built for a batch of shape {shape[:-3]}, but ids has batch shape "
                             f"{batch}; a cache belongs to the sequences it was built from (start again with "
                             f"past=None for new sequences)")
        return int(shape[-2])

    def _hooks(self, hooks, record=None) -> hooked.HookSet:
        fns: dict = {}
        if hooks is not None and not isinstance(hooks, (dict, list, tuple)):
            raise TypeError(f"hooks: expected a dict {{name: fn}} or a list of (name, fn) pairs, got {describe(hooks)}")
        pairs = hooks.items() if isinstance(hooks, dict) else (hooks or ())
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"hooks: expected a dict or (name, function) pairs, got {describe(pair)}")
            name, fn = pair
            self.check_name(name, "hooks")
            if name in self.read_only_hooks:
                raise ValueError(f"hooks: {name!r} cannot be edited in this model: {self.read_only_hooks[name]}")
            if not callable(fn):
                raise TypeError(f"hooks[{name!r}]: expected a function fn(value, name), got {describe(fn)}")
            if not _takes_two(fn):
                raise TypeError(f"hooks[{name!r}]: expected a function fn(value, name) of two arguments (the "
                                f"activation and the hook's name), got {getattr(fn, '__name__', fn)!r}"
                                f"{_signature(fn)}")
            fns.setdefault(name, []).append(fn)
        if record is not None:
            for name in record:
                self.check_name(name, "names")
        return hooked.HookSet(fns=fns, record=None if record is None else set(record))

    def check_name(self, name, what: str = "name") -> None:
        """Raise unless `name` is a hook point this model fires (the closest names, or why it is skipped)."""
        if isinstance(name, str) and name in self.skipped_hooks:
            raise ValueError(f"{what}: {name!r} does not fire in this model: {self.skipped_hooks[name]}")
        if name not in self.hook_names:
            close = difflib.get_close_matches(str(name), self.hook_names, n=3, cutoff=0.6)
            hint = f"did you mean {', '.join(map(repr, close))}?" if close else "model.hook_names lists them"
            raise ValueError(f"{what}: {name!r} is not a hook point of this model ({hint})")

    def _names(self, names, names_filter) -> list:
        """run_with_cache's names: None (every point but hook_result), one name, a list of names, or a
        function name -> bool (TransformerLens's names_filter)."""
        if names is not None and names_filter is not None:
            raise TypeError("names, names_filter: pass one of them (names_filter is TransformerLens's name for it)")
        chosen = names if names_filter is None else names_filter
        arg = "names" if names_filter is None else "names_filter"
        if chosen is None:
            return [n for n in self.hook_names if not n.endswith("hook_result")]
        if isinstance(chosen, str):
            return [chosen]                                           # one name, not its letters
        if callable(chosen):
            picked = []
            for n in self.hook_names:
                keep = chosen(n)
                if not isinstance(keep, (bool, np.bool_)):
                    raise TypeError(f"{arg}: expected a function name -> True or False, it returned "
                                    f"{describe(keep)} for {n!r}")
                if keep:
                    picked.append(n)
            return picked
        if not isinstance(chosen, (list, tuple, set, frozenset)):
            raise TypeError(f"{arg}: expected None, a hook name, a list of hook names or a function name -> bool, "
                            f"got {describe(chosen)}")
        for n in chosen:
            if not isinstance(n, str):
                raise TypeError(f"{arg}: expected hook names (strings), got {describe(n)} among them")
        return list(chosen)

    # --- running it ----------------------------------------------------------------------------------
    def _run(self, ids, hook: hooked.HookSet, attn_mask=None, past=None, must_fire=None):
        arr = self.token_ids(ids)
        past_len = self._past(past, tuple(arr.shape[:-1]))
        if past_len + arr.shape[-1] > self.max_len:
            raise ValueError(f"ids: {past_len} cached tokens (past) + {arr.shape[-1]} new ones is more than the "
                             f"model's context of {self.max_len} tokens (max_len)")
        ids = self.ops.as_array(arr)
        masks = self._masks(attn_mask, tuple(ids.shape[:-1]), int(ids.shape[-1]), past_len)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # checked below, in words
            logits, cache = hooked.forward(self.weights, self.n_heads, ids, masks=masks, hook=hook, ops=self.ops,
                                           past=past, block_fn=self.block_fn)
        if not _all_finite(logits):
            self._explain_overflow(ids, masks, past, hook)
        silent = [n for n in (set(hook.fns) | set(must_fire or ())) if n not in hook.fired]
        if silent:
            raise ValueError(f"hooks: {sorted(silent)} did not fire in this forward: the block or feed-forward "
                             f"plugged into this model does not pass its values through them")
        return logits, cache

    def _explain_overflow(self, ids, masks, past, user: hooked.HookSet):
        """Run again, with the caller's hooks, stopping at the first hook point whose value is not finite, and
        say where and why: the forward overflowed there, a hook returned it, or the weights or past hold it."""
        if past is not None and not _all_finite_pairs(past):                  # checked only now: free when fine
            bad = next(i for i, pair in enumerate(past) if not _all_finite_pairs([pair]))
            raise ValueError(f"past[{bad}]: the cached keys or values of layer {bad} hold NaN or inf (a cache from "
                             "a run that overflowed?); start again with past=None")
        bad_weights = [n for n, w in self.weights.items() if not _all_finite(w)]
        if bad_weights:
            raise FloatingPointError(f"the weights hold NaN or inf: {bad_weights[:4]} (a diverged training run? "
                                     "train again with a lower learning rate)")

        def before(value, name):
            if not _finite_activation(value, name):
                dtype = str(value.dtype).rpartition(".")[2]
                raise FloatingPointError(
                    f"the forward pass overflowed {dtype} at {name}, the first hook point whose values are not "
                    f"finite (a number beyond the largest {dtype} number, {float(np.finfo(dtype).max):.3g}); use "
                    f"smaller weights or inputs, or a wider dtype such as float64")

        def after(value, name):
            if not _finite_activation(value, name):
                dtype = str(value.dtype).rpartition(".")[2]
                sources = [getattr(fn, "source", None) for fn in user.fns.get(name, ())]
                what = next((s for s in sources if s), None)
                if what:                                                     # an argument made into a hook
                    raise FloatingPointError(f"{what}: applied at {name}, it overflowed {dtype} (values beyond the "
                                             f"largest {dtype} number, {float(np.finfo(dtype).max):.3g}); use smaller "
                                             f"{what} values or a wider dtype such as float64")
                raise FloatingPointError(f"hooks[{name!r}]: your hook made the values at {name} NaN or inf in {dtype} "
                                         "(they were finite before it); the rest of the forward cannot use them")
        names = [n for n in self.hook_names if not n.endswith("hook_result") or n in user.fns]
        fns = {n: [before, *user.fns.get(n, ()), after] for n in names}
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            hooked.forward(self.weights, self.n_heads, ids, masks=masks, hook=hooked.HookSet(fns=fns), ops=self.ops,
                           past=past, block_fn=self.block_fn)
        raise FloatingPointError("the forward pass overflowed: the logits are not finite")

    def __call__(self, ids, *, hooks=None, attn_mask=None):
        """logits (..., T, V) of ids (T,) or (B, T); hooks as in run_with_hooks."""
        return self._run(ids, self._hooks(hooks), attn_mask)[0]

    def run_with_hooks(self, ids, hooks, *, attn_mask=None):
        """logits with hooks applied: {name: fn} or [(name, fn), ...]; fn(value, name) returns None (only reads,
        or edits `value` in place: it is the hook's own copy) or a replacement of the same shape (cast to the
        model's dtype). See core.interventions for zero, mean and resample ablation and patching."""
        return self._run(ids, self._hooks(hooks), attn_mask)[0]

    def run_with_cache(self, ids, names=None, *, names_filter=None, hooks=None, attn_mask=None):
        """(logits, ActivationCache {hook name: activation}). Which points to keep: names (None: every point but
        hook_result, which is computed only when named; one name; or a list) or names_filter (a function
        name -> bool, as in TransformerLens). Cached values are copies: editing one in place changes nothing else."""
        record = self._names(names, names_filter)
        hook = self._hooks(hooks, record)
        explicit = names is not None or names_filter is not None
        logits, _ = self._run(ids, hook, attn_mask, must_fire=record if explicit else None)
        return logits, ActivationCache(hook.cache)

    def step(self, ids, past=None, *, hooks=None):
        """The KV cache: run only the new tokens ids (T_new,) or (B, T_new) at positions after `past` (None
        or what the last step returned for the same sequences) and return (logits (..., T_new, V), past with
        their keys and values)."""
        return self._run(ids, self._hooks(hooks), None, past)

    def forward(self, ids, *, head_mask=None, attn_mask=None, return_hidden: bool = False):
        """decoder_forward's contract: (logits (..., T, V), weights (..., L, H, T, T)), and with
        return_hidden=True the residual stream (..., L + 1, T, D); head_mask (L, H) scales each head's output.
        attn_mask: (T, T), (L, T, T) or (B, L, T, T), True = may attend, ANDed with the causal mask."""
        return_hidden = check_flag(return_hidden, "return_hidden")
        hooks = []
        if head_mask is not None:
            hm = as_float_array(numpy_of(head_mask), "head_mask", ndim=2)
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
        """The prompt ids (T,) followed by n_new tokens (a list), or for a batch (B, T) one list per prompt
        (each generated on its own, never joined): core.generation.generate through the KV cache (step).
        temperature 0: the most likely token; else a draw from softmax(logits / temperature) among the top_k
        (NumPy's Generator from seed, an integer >= 0 or a Generator)."""
        return generation.generate(self.step, ids, n_new, temperature=temperature, top_k=top_k, rng=seed,
                                   max_len=self.max_len, vocab_size=self.vocab_size)


# --- small helpers -----------------------------------------------------------------------------------------
def _hook_points(n_layers: int, ops: hooked.Ops, block_fn) -> tuple:
    """(the hook names this model fires, {name: why not} for the points its plugged-in pieces skip)."""
    if block_fn is not None:
        fires = getattr(block_fn, "hook_points", hooked.BLOCK_HOOKS)
        why = (f"this model runs your own block (block_fn), whose inside has no hook points; around it fire "
               f"{', '.join(fires)}")
    elif ops.feed_forward is not None:
        fires = tuple(n for n in hooked.BLOCK_HOOKS if not n.startswith("mlp."))
        why = ("the feed-forward is your own function (Ops.feed_forward), which has no hook points inside; "
               "hook_mlp_out (its output) and ln2.hook_normalized (its input) fire")
    else:
        return hooked.hook_names(n_layers), {}
    every = hooked.hook_names(n_layers)
    skipped = {n: why for n in every if n.startswith("blocks.") and n.split(".", 2)[2] not in fires}
    return tuple(n for n in every if n not in skipped), skipped


def _takes_two(fn) -> bool:
    """Whether fn can be called as fn(value, name) (builtins without a signature are given the benefit)."""
    try:
        inspect.signature(fn).bind(None, None)
    except TypeError:
        return False
    except ValueError:
        return True
    return True


def _signature(fn) -> str:
    try:
        return f" with signature {inspect.signature(fn)}"
    except (TypeError, ValueError):
        return ""


def _times(factor):
    """A hook multiplying its value by `factor` (each head's output by its head_mask entry)."""
    def times(value, _):
        return value * factor
    times.source = "head_mask"                                  # an overflow here is named as head_mask's
    return times


def _shape_only(x):
    """A zero array of x's shape that takes no memory (a broadcast view): decoder_from_dict's shape checks
    without copying tensors."""
    return np.broadcast_to(np.zeros(()), tuple(x.shape))


def _all_finite(x) -> bool:
    return bool(np.isfinite(numpy_of(x)).all()) if not hasattr(x, "isfinite") else bool(x.isfinite().all())


def _all_finite_pairs(past) -> bool:
    return all(_all_finite(a) for pair in past for a in pair)


def _finite_activation(value, name: str) -> bool:
    """Finite, except that the scores of hidden keys are -inf by design (hook_attn_scores)."""
    if not name.endswith("hook_attn_scores"):
        return _all_finite(value)
    if hasattr(value, "isposinf"):                                          # a tensor
        return not bool((value.isnan() | value.isposinf()).any())
    return not bool((np.isnan(value) | np.isposinf(value)).any())
