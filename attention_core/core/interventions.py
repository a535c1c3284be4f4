"""Interventions through the hook points of `HookedDecoder` (notebook 12's tools): ablate a head, patch an
activation from another run, and attribute each head's write to a logit.

    logits = ablate(model, ids, layer=1, head=0, how="mean", reference=other_ids)
    _, clean_cache = model.run_with_cache(clean_ids)
    logits = patch(model, corrupted_ids, clean_cache, "blocks.1.attn.hook_z", head=0, positions=[5])
    dla = head_logit_attribution(model, ids, target)           # (L, H, T), or (N, L, H, T) for a batch

Each takes the HookedDecoder itself (a trained model's `.hooked`), checks its arguments against it and
says what was expected. Per-head values are (..., H, T, Dh): heads before positions.
Shapes: N sequences (optional), T tokens, L layers, H heads, Dh = D / H, D width, V vocabulary.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import hooked
from .model import ActivationCache, HookedDecoder
from .validation import as_generator, check_flag, describe, numpy_of, own_copy

ABLATIONS = ("zero", "mean", "resample")
PER_HEAD = ("attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores", "attn.hook_pattern",
            "attn.hook_z", "attn.hook_result")                 # the points with a head axis, (..., H, T, ...)


def check_model(model, name: str = "model") -> HookedDecoder:
    """The HookedDecoder itself; a trained model (which holds one as .hooked) is answered with that hint."""
    if isinstance(model, HookedDecoder):
        return model
    if isinstance(getattr(model, "hooked", None), HookedDecoder):
        raise TypeError(f"{name}: expected a HookedDecoder, got {type(model).__name__}; pass its .hooked "
                        f"(the hooked model it runs)")
    raise TypeError(f"{name}: expected a HookedDecoder, got {describe(model)}")


def head_hook(head: int, values=None):
    """A hook for a per-head point (hook_z, hook_result, ...) that replaces one head's output: with zeros
    (values None) or with `values` (..., T, Dh), broadcast over the batch (a mean, or another run's activation)."""
    if isinstance(head, (bool, np.bool_)) or not isinstance(head, numbers.Integral) or head < 0:
        raise ValueError(f"head: expected an integer >= 0, got {describe(head)}")
    head = int(head)

    def hook(z, name):
        if head >= z.shape[-3]:
            raise ValueError(f"head: expected an integer in 0..{z.shape[-3] - 1} ({name} has {z.shape[-3]} heads), "
                             f"got {head}")
        out = own_copy(z)
        if values is None:
            out[..., head, :, :] = 0
            return out
        v = _like(values, z)
        target = tuple(out[..., head, :, :].shape)
        try:
            fits = np.broadcast_shapes(tuple(v.shape), target) == target
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"values: expected a shape that broadcasts to one head's output at {name}, {target} "
                             f"(..., T, Dh), got {tuple(v.shape)}")
        out[..., head, :, :] = v
        return out
    return hook


def ablate(model: HookedDecoder, ids, layer: int, head: int, how: str = "zero", reference=None, seed=0):
    """logits with head (layer, head) ablated at hook_z: "zero" (its output set to 0), "mean" (to its mean
    over `reference` ids, every position, so it keeps its average contribution) or "resample" (to its
    output on other sequences: `reference`, of the shape of ids, or ids shuffled along the batch with seed)."""
    model = check_model(model)
    layer = _index(layer, model.n_layers, "layer")
    head = _index(head, model.n_heads, "head")
    if not isinstance(how, str) or how not in ABLATIONS:
        raise ValueError(f"how: expected one of {ABLATIONS}, got {describe(how)}")
    arr = model.token_ids(ids)                                                    # (T,) or (B, T), checked
    name = f"blocks.{layer}.attn.hook_z"
    if how == "zero":
        if reference is not None:
            raise ValueError("reference: zero ablation sets the head's output to 0 and reads no reference; "
                             "pass reference=None (or how='mean' / 'resample')")
        return model.run_with_hooks(ids, {name: head_hook(head)})
    ref = None if reference is None else model.token_ids(reference, "reference")
    source = ids if ref is None else ref
    if how == "resample" and ref is None:
        if arr.ndim != 2 or arr.shape[0] < 2:
            raise ValueError(f"ids: resample ablation without `reference` needs a batch (B, T) with B >= 2 to "
                             f"shuffle, got shape {arr.shape}")
        source = arr[as_generator(seed).permutation(arr.shape[0])]
    elif how == "resample" and ref.shape != arr.shape and ref.shape != arr.shape[-1:]:
        raise ValueError(f"reference: resample ablation takes the head's output on other sequences of the shape "
                         f"of ids, {arr.shape} (or one sequence {arr.shape[-1:]}), got shape {ref.shape}")
    _, cache = model.run_with_cache(source, [name])
    z = cache[name][..., head, :, :]                                           # (B, T, Dh)
    if how == "mean":
        z = z.reshape(-1, z.shape[-1]).mean(0)                                 # (Dh,): one mean vector
    return model.run_with_hooks(ids, {name: head_hook(head, z)})


def patch(model: HookedDecoder, corrupted_ids, clean_cache: ActivationCache, name: str, head: int | None = None,
          positions=None):
    """logits of the corrupted run with one activation taken from the clean run (activation patching):
    the whole hook point, or one head of a per-head point (hook_z, hook_pattern, ...), optionally only at
    `positions` (query positions, the second-to-last axis: an integer or a list of them)."""
    model = check_model(model)
    if not isinstance(clean_cache, dict):
        raise TypeError(f"clean_cache: expected the ActivationCache of model.run_with_cache(clean_ids), "
                        f"got {describe(clean_cache)}")
    if not isinstance(name, str):
        raise TypeError(f"name: expected a hook name such as 'blocks.0.attn.hook_z', got {describe(name)}")
    model.check_name(name, "name")
    if name not in clean_cache:
        raise ValueError(f"clean_cache: {name!r} was not recorded; run_with_cache(clean_ids) with names=None or "
                         f"including it")
    clean = _like(clean_cache[name], model.weights["tok_emb"], f"clean_cache[{name!r}]")
    if head is not None:
        head = _index(head, model.n_heads, "head")
        if name.split(".", 2)[-1] not in PER_HEAD:
            raise ValueError(f"head: {name} has no head axis (shape (..., T, D)); patch it whole with head=None, "
                             f"or pick a per-head point ({', '.join(p.rpartition('.')[2] for p in PER_HEAD)})")
    rows = _positions(positions, int(clean.shape[-2]))

    def hook(value, _):
        if tuple(value.shape) != tuple(clean.shape):
            raise ValueError(f"corrupted_ids: expected the clean run's shape at {name}, {tuple(clean.shape)}, "
                             f"got {tuple(value.shape)}; patch between runs of the same length and batch")
        out = own_copy(value)
        idx = (Ellipsis, rows, slice(None)) if head is None else (Ellipsis, head, rows, slice(None))
        out[idx] = clean[idx]
        return out
    return model.run_with_hooks(corrupted_ids, {name: hook})


def head_logit_attribution(model: HookedDecoder, ids, target, *, relative: bool = False) -> np.ndarray:
    """Direct logit attribution: how much each head's write (hook_result) adds to the logit of target[..., t]
    at position t, read through the final layer norm's scale at that position (TransformerLens's
    apply_ln_to_stack). ids and target (T,) -> (L, H, T); (N, T) -> (N, L, H, T), float64.
    relative=True: to that logit minus the mean logit over the vocabulary (softmax ignores what is added to
    every logit alike)."""
    model = check_model(model)
    relative = check_flag(relative, "relative")
    arr = model.token_ids(ids)
    target = np.asarray(numpy_of(target))
    if target.shape != arr.shape or target.dtype.kind not in "iu":
        raise ValueError(f"target: expected integer token ids of the shape of ids {arr.shape}, got {describe(target)}")
    if target.min() < 0 or target.max() >= model.vocab_size:
        bad = target[(target < 0) | (target >= model.vocab_size)]
        raise ValueError(f"target: token ids must lie in 0..{model.vocab_size - 1} (the vocabulary), "
                         f"got {bad[:5].tolist()}")
    ids2, target2 = arr.reshape(-1, arr.shape[-1]), target.reshape(-1, arr.shape[-1])         # (N, T)
    last = f"blocks.{model.n_layers - 1}.hook_resid_post"
    names = [f"blocks.{i}.attn.hook_result" for i in range(model.n_layers)]
    _, cache = model.run_with_cache(ids2, names + [last])
    final = np.asarray(numpy_of(cache[last]), np.float64)                             # (N, T, D)
    scale = np.sqrt(final.var(-1, keepdims=True) + hooked.LN_EPS)                   # (N, T, 1): LN_f's divisor
    w_out = np.asarray(numpy_of(model.weights["w_out"]), np.float64)                  # (D, V)
    if relative:
        w_out = w_out - w_out.mean(-1, keepdims=True)
    lnf_g = np.asarray(numpy_of(model.weights["lnf_g"]), np.float64)
    direction = w_out[:, target2].transpose(1, 2, 0) * lnf_g                        # (N, T, D)
    out = np.empty((ids2.shape[0], model.n_layers, model.n_heads, ids2.shape[1]))
    for i, name in enumerate(names):
        result = np.asarray(numpy_of(cache[name]), np.float64)                         # (N, H, T, D)
        centred = result - result.mean(-1, keepdims=True)                            # LN_f subtracts the mean
        out[:, i] = (centred / scale[:, None] * direction[:, None]).sum(-1)         # (N, H, T)
    return out if arr.ndim == 2 else out[0]


# --- small helpers -----------------------------------------------------------------------------------------
def _index(i, n: int, name: str) -> int:
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral) or not 0 <= i < n:
        raise ValueError(f"{name}: expected an integer in 0..{n - 1}, got {describe(i)}")
    return int(i)


def _positions(positions, t: int):
    """None (every query position), an integer or a list of distinct integers in -T..T-1."""
    if positions is None:
        return slice(None)
    single = isinstance(positions, numbers.Integral) and not isinstance(positions, (bool, np.bool_))
    items = [positions] if single else positions
    try:
        arr = np.asarray(items)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or (arr < -t).any() or (arr >= t).any():
        raise ValueError(f"positions: expected None, a query position or a list of them, integers in 0..{t - 1} "
                         f"(negative ones count from the end), got {describe(positions)}")
    return int(arr[0]) if single else arr.tolist()


def _like(values, like, what: str = "values"):
    """values in the array library (and, for a tensor, the device and dtype) of `like`; `what`: its name in errors."""
    if hasattr(like, "detach"):                                   # torch, without importing it in the library
        if hasattr(values, "detach"):
            return values.to(like.device, like.dtype)
        if not isinstance(values, np.ndarray) or values.dtype.kind not in "fiu":
            raise TypeError(f"{what}: expected an array of numbers, got {describe(values)}")
        return like.new_tensor(values)
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "fiu":
        raise TypeError(f"{what}: expected an array of numbers, got {describe(values)}")
    return values
