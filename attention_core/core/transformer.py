"""A small pre-LN Transformer decoder built from this package's own parts (NumPy only): its parameters
and the checked entry points to the one forward of `core.hooked`.

    x0 = E_tok[ids] + E_pos[0..T-1]                               embed
    x  = x + MHA(LN1(x), causal mask)                             each block, pre-LN (GPT-2 style)
    x  = x + FFN(LN2(x)),  FFN(z) = GELU(z W_1 + b_1) W_2 + b_2
    logits = LN_f(x) W_out + b_out

The formulas live in `core.hooked` (bare maths with hook points); `core.model.HookedDecoder` runs them
with run_with_cache / run_with_hooks. The functions here check what a caller passes, say what was
expected, and run the same formulas: `layer_norm`, `feed_forward`, `transformer_block` and
`decoder_forward` (logits and EVERY attention map, (L, H, T, T), and on request the residual stream).
Weights use the paper's orientation, y = x @ W + b with W of shape (D_in, D_out).
Shapes: B batch, T tokens, D = d_model, F = d_ff, H heads, L layers, V vocabulary size.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import hooked
from .hooked import LN_EPS
from .model import HookedDecoder
from .multihead import check_head_mask
from .params import (  # noqa: F401  (the parameters moved to core.params; these names stay importable here)
    BLOCK_NAMES,
    MAX_INIT_BYTES,
    BlockParams,
    DecoderConfig,
    DecoderParams,
    assemble,
    block_arrays,
    block_params,
    decoder_from_dict,
    decoder_to_dict,
    init_decoder,
    parameter_shapes,
)
from .validation import (
    as_bool_mask,
    as_float_array,
    check_axis,
    check_broadcast,
    check_finite_result,
    check_flag,
    check_ids,
    describe,
)


def layer_norm(x, gamma, beta, eps: float = LN_EPS, *, names: tuple = ("gamma", "beta")) -> np.ndarray:
    """LN(x) = (x - mean) / sqrt(var + eps) * gamma + beta over the last axis (biased variance,
    as torch.nn.LayerNorm). x (..., D); gamma, beta (D,).

    Precision: the statistics are computed in float64 on each row divided by a power of two near its
    largest magnitude (exact, and LN does not change under it: eps is divided by the square), so the
    variance of 1e200s (or of float32's 3e38s) cannot overflow and an eps below the dtype's smallest
    number (1e-50 in float32) is not rounded to 0. The result comes back in the inputs' dtype.
    names: what gamma and beta are called in errors (a decoder's "lnf_g", "lnf_b")."""
    x = as_float_array(x, "x")
    d = x.shape[-1]
    if d == 0 or x.size == 0:
        raise ValueError(f"x: expected at least one number on the last axis, got an empty array of shape {x.shape}")
    gamma = as_float_array(gamma, names[0], ndim=1)
    beta = as_float_array(beta, names[1], ndim=1)
    for name, p in zip(names, (gamma, beta)):
        if p.shape != (d,):
            raise ValueError(f"{name}: expected shape ({d},) (the last axis of x), got {p.shape}")
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real) or not 0 < eps < math.inf:
        raise ValueError(f"eps: expected a small finite number > 0, got {describe(eps)}")
    out_dtype = np.result_type(x.dtype, gamma.dtype, beta.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        out = hooked.layer_norm_rescaled(x, gamma, beta, eps).astype(out_dtype)   # the formula, on rescaled rows
    check_finite_result(out, f"layer_norm: LN(x) * {names[0]} + {names[1]}", out_dtype.name)
    return out


def gelu(x) -> np.ndarray:
    """GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (torch's approximate='tanh')."""
    x = as_float_array(x, "x", min_ndim=0)
    with np.errstate(over="ignore"):            # x^3 beyond the dtype is +-inf: tanh is then +-1, as meant
        return hooked.gelu(x).astype(x.dtype, copy=False)


def feed_forward(x, w_1, b_1, w_2, b_2) -> np.ndarray:
    """Position-wise feed-forward: GELU(x W_1 + b_1) W_2 + b_2, the same two layers at every token.
    x (..., T, D), w_1 (D, F), b_1 (F,), w_2 (F, D), b_2 (D,) -> (..., T, D).
    F = 0 is allowed: the layer then adds only b_2 (an attention-only block)."""
    x = as_float_array(x, "x", min_ndim=1)
    d = x.shape[-1]
    w_1 = as_float_array(w_1, "w_1", ndim=2)
    w_2 = as_float_array(w_2, "w_2", ndim=2)
    f = w_1.shape[1]
    if w_1.shape[0] != d:
        raise ValueError(f"w_1: expected shape ({d}, F) (D = last axis of x), got {w_1.shape}")
    if w_2.shape != (f, d):
        raise ValueError(f"w_2: expected shape ({f}, {d}) (F from w_1, D from x), got {w_2.shape}")
    b_1 = as_float_array(b_1, "b_1", ndim=1)                              # finite, like the weights
    b_2 = as_float_array(b_2, "b_2", ndim=1)
    for name, b, n in (("b_1", b_1, f), ("b_2", b_2, d)):
        if b.shape != (n,):
            raise ValueError(f"{name}: expected shape ({n},), got {describe(b)}")
    dtype = np.result_type(x, w_1, b_1, w_2, b_2).name
    with np.errstate(over="ignore", invalid="ignore"):
        hidden = x @ w_1 + b_1                                             # (..., T, F)
        check_finite_result(hidden, "feed_forward: x @ w_1 + b_1", dtype)
        out = hooked.gelu(hidden) @ w_2 + b_2                              # (..., T, D)
    check_finite_result(out, "feed_forward: GELU(x W_1 + b_1) @ w_2 + b_2", dtype)
    return out


def transformer_block(x, block: BlockParams, mask=None, head_mask=None):
    """x + MHA(LN1(x)), then + FFN(LN2(x)): `hooked.block`, the formula the decoder runs, on checked inputs.
    x (..., T, D); mask boolean (..., T, T), True = may attend; head_mask (H,) multiplies each head's output
    (0 ablates it). Returns (x_out (..., T, D), weights (..., H, T, T))."""
    if not isinstance(block, BlockParams):
        raise TypeError(f"block: expected BlockParams, got {type(block).__name__}")
    if type(x).__module__.startswith("torch"):     # the library's blocks are NumPy; torch has its own twin
        raise TypeError("transformer_block: x is a torch tensor, but the library's Transformer block runs in NumPy "
                        "(pass x.numpy(), or use attention_core.backends.torch_decoder.to_torch_decoder for torch)")
    x = as_float_array(x, "x", min_ndim=2)
    d, h, t = block.attn.d_model, block.attn.n_heads, x.shape[-2]
    if x.shape[-1] != d:
        raise ValueError(f"x: expected last dimension d_model={d} (the block's width), got shape {x.shape}")
    w = dict(zip(BLOCK_NAMES, block_arrays(block)))
    for name in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_1", "b_1", "w_2", "b_2"):
        w[name] = as_float_array(w[name], name, min_ndim=1)
    f = w["w_1"].shape[-1]
    for name, shape in (("ln1_g", (d,)), ("ln1_b", (d,)), ("ln2_g", (d,)), ("ln2_b", (d,)), ("w_1", (d, f)),
                        ("b_1", (f,)), ("w_2", (f, d)), ("b_2", (d,))):
        if w[name].shape != shape:
            raise ValueError(f"block.{name}: expected shape {shape} (D = {d}, F = {f}), got {w[name].shape}")
    if mask is None:
        mask = np.ones((t, t), dtype=bool)
    mask = as_bool_mask(mask)
    check_broadcast(mask.shape, x.shape[:-2] + (t, t), "mask", "the attention weights (..., T, T) of shape")
    hooks = {}
    if head_mask is not None:
        hm = check_head_mask(as_float_array(head_mask, "head_mask", ndim=1), h).astype(x.dtype)
        hooks["blocks.0.attn.hook_z"] = [lambda z, _: z * hm[:, None, None]]
    record = hooked.HookSet(fns=hooks, record={"blocks.0.attn.hook_pattern"})
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out, _ = hooked.block(x, w, h, mask if mask.ndim == 2 else mask[..., None, :, :], record, hooked.NUMPY_OPS, 0)
    check_finite_result(out, "transformer_block: the residual stream", x.dtype.name)
    return out, record.cache["blocks.0.attn.hook_pattern"]


def embed(ids, tok_emb, pos_emb) -> np.ndarray:
    """x0 = tok_emb[ids] + pos_emb[:T]: ids (..., T) -> (..., T, D)."""
    tok_emb = as_float_array(tok_emb, "tok_emb", ndim=2)
    pos_emb = as_float_array(pos_emb, "pos_emb", ndim=2)
    for name, table in (("tok_emb", tok_emb), ("pos_emb", pos_emb)):
        if 0 in table.shape:
            raise ValueError(f"{name}: expected a table with at least one row and one column, got shape {table.shape}")
    if tok_emb.shape[1] != pos_emb.shape[1]:
        raise ValueError(f"tok_emb and pos_emb: expected the same width D, got {tok_emb.shape} and {pos_emb.shape}")
    ids = check_ids(ids, tok_emb.shape[0], pos_emb.shape[0])
    with np.errstate(over="ignore"):
        x = tok_emb[ids] + pos_emb[: ids.shape[-1]]                        # (..., T, D)
    check_finite_result(x, "embed: tok_emb[ids] + pos_emb", x.dtype.name)
    return x


def decoder_forward(params: DecoderParams, ids, *, head_mask=None, attn_mask=None, return_hidden: bool = False,
                    causal: bool | None = None):
    """Run the decoder on token ids (T,) or (B, T): the one forward of `core.hooked`, through `HookedDecoder`,
    reading the attention weights at its hook points. causal: None follows params.causal; False reads the
    same stack as an encoder.

    head_mask: optional (L, H) numbers multiplying each head's output (0 ablates it).
    attn_mask: optional boolean (T, T) or (L, T, T), True = may attend, ANDed with the causal mask
    (to cut one query -> key path, set that entry False).
    Returns (logits (..., T, V), weights (..., L, H, T, T)), and with return_hidden=True also the
    residual stream (..., L + 1, T, D): after the embedding and after each block.
    """
    if not isinstance(params, DecoderParams):
        raise TypeError(f"params: expected DecoderParams (see decoder_from_dict), got {type(params).__name__}")
    return_hidden = check_flag(return_hidden, "return_hidden")
    if not params.blocks:
        raise ValueError("params.blocks: expected at least one BlockParams, got none")
    return HookedDecoder(params, causal=causal).forward(ids, head_mask=head_mask, attn_mask=attn_mask,
                                                       return_hidden=return_hidden)


def log_softmax(logits, axis: int = -1) -> np.ndarray:
    """log p = x - logsumexp(x), stable (the max is subtracted first). A log-probability beyond the
    dtype (logits more than its largest number apart) raises FloatingPointError instead of -inf."""
    x = as_float_array(logits, "logits")
    axis = check_axis(axis, x.ndim)
    if x.size == 0:
        raise ValueError(f"logits: expected at least one number, got an empty array of shape {x.shape}")
    with np.errstate(over="ignore"):
        shifted = x - x.max(axis=axis, keepdims=True)
    if not np.isfinite(shifted).all():
        raise FloatingPointError(f"log_softmax: a log-probability is beyond the largest {x.dtype.name} number "
                                 "(logits further apart than that); scale the logits down")
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
