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
from dataclasses import dataclass

import numpy as np

from . import hooked
from .hooked import LN_EPS
from .multihead import MultiHeadParams, check_head_mask
from .validation import (
    as_bool_mask,
    as_float_array,
    as_generator,
    check_axis,
    check_broadcast,
    check_finite_result,
    check_flag,
    describe,
    float_dtype,
    positive_int,
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


@dataclass(frozen=True)
class BlockParams:
    """One pre-LN block: LN1, multi-head self-attention, LN2, feed-forward."""
    ln1_g: np.ndarray          # (D,)
    ln1_b: np.ndarray          # (D,)
    attn: MultiHeadParams      # W_q, W_k, W_v, W_o (D, D) and biases (D,)
    ln2_g: np.ndarray          # (D,)
    ln2_b: np.ndarray          # (D,)
    w_1: np.ndarray            # (D, F)
    b_1: np.ndarray            # (F,)
    w_2: np.ndarray            # (F, D)
    b_2: np.ndarray            # (D,)


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


def block_arrays(b: BlockParams) -> tuple:
    """One block's arrays in the order of BLOCK_NAMES."""
    a = b.attn
    return (b.ln1_g, b.ln1_b, a.w_q, a.b_q, a.w_k, a.b_k, a.w_v, a.b_v, a.w_o, a.b_o, b.ln2_g, b.ln2_b,
            b.w_1, b.b_1, b.w_2, b.b_2)


@dataclass(frozen=True)
class DecoderParams:
    """A causal decoder: embeddings, L blocks, a final LN and the unembedding."""
    tok_emb: np.ndarray        # (V, D)
    pos_emb: np.ndarray        # (T_max, D)
    blocks: tuple              # L BlockParams
    lnf_g: np.ndarray          # (D,)
    lnf_b: np.ndarray          # (D,)
    w_out: np.ndarray          # (D, V)
    b_out: np.ndarray          # (V,)

    @property
    def n_layers(self) -> int:
        return len(self.blocks)

    @property
    def n_heads(self) -> int:
        return self.blocks[0].attn.n_heads

    @property
    def d_model(self) -> int:
        return self.tok_emb.shape[1]

    @property
    def vocab_size(self) -> int:
        return self.tok_emb.shape[0]

    @property
    def max_len(self) -> int:
        return self.pos_emb.shape[0]


_SYMBOLS = {"tok_emb": "(V, D)", "pos_emb": "(T_max, D)", "lnf_g": "(D,)", "lnf_b": "(D,)", "w_out": "(D, V)",
            "b_out": "(V,)", "w_1": "(D, F)", "b_1": "(F,)", "w_2": "(F, D)",
            **{n: "(D, D)" for n in ("w_q", "w_k", "w_v", "w_o")},
            **{n: "(D,)" for n in ("b_q", "b_k", "b_v", "b_o", "ln1_g", "ln1_b", "ln2_g", "ln2_b", "b_2")}}
BLOCK_NAMES = ("ln1_g", "ln1_b", "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o",
                "ln2_g", "ln2_b", "w_1", "b_1", "w_2", "b_2")


def parameter_shapes(vocab_size: int, d_model: int, n_layers: int, d_ff: int, max_len: int) -> dict:
    """{flat name: shape} of every parameter, in the order used by files and by the torch twin.
    Block parameters are named l{i}_{name}, e.g. l0_w_q (D, D), l1_w_1 (D, F)."""
    v, d = positive_int(vocab_size, "vocab_size"), positive_int(d_model, "d_model")
    n_layers, f = positive_int(n_layers, "n_layers"), positive_int(d_ff, "d_ff", minimum=0)
    max_len = positive_int(max_len, "max_len")
    shapes = {"tok_emb": (v, d), "pos_emb": (max_len, d)}
    per_block = {"ln1_g": (d,), "ln1_b": (d,), "w_q": (d, d), "b_q": (d,), "w_k": (d, d), "b_k": (d,),
                 "w_v": (d, d), "b_v": (d,), "w_o": (d, d), "b_o": (d,), "ln2_g": (d,), "ln2_b": (d,),
                 "w_1": (d, f), "b_1": (f,), "w_2": (f, d), "b_2": (d,)}
    for i in range(n_layers):
        shapes.update({f"l{i}_{name}": per_block[name] for name in BLOCK_NAMES})
    shapes.update({"lnf_g": (d,), "lnf_b": (d,), "w_out": (d, v), "b_out": (v,)})
    return shapes


MAX_INIT_BYTES = 8 << 30         # a model of more weights than this machine's memory is a typo, not a model


def init_decoder(vocab_size: int, d_model: int, n_heads: int, n_layers: int, d_ff: int, max_len: int, *,
                 seed: int | np.random.Generator = 0, dtype=np.float32) -> dict:
    """Seeded starting weights as a flat {name: array} dict (GPT-2 style: normal(0, 0.02), with the
    projections into the residual stream scaled by 1/sqrt(2L); LN gains 1, biases 0)."""
    vocab_size = positive_int(vocab_size, "vocab_size")
    d_model = positive_int(d_model, "d_model")
    n_heads = positive_int(n_heads, "n_heads")
    n_layers = positive_int(n_layers, "n_layers")
    d_ff = positive_int(d_ff, "d_ff", minimum=0)          # 0: no feed-forward (attention only)
    max_len = positive_int(max_len, "max_len")
    dtype = float_dtype(dtype)                             # an integer dtype would round every weight to 0
    if d_model % n_heads:
        raise ValueError(f"n_heads: d_model={d_model} is not divisible by n_heads={n_heads}")
    size = sum(math.prod(s) for s in parameter_shapes(vocab_size, d_model, n_layers, d_ff, max_len).values())
    if size * dtype.itemsize > MAX_INIT_BYTES:
        raise ValueError(f"vocab_size, d_model, n_layers, d_ff, max_len: these sizes need {size:,} weights "
                         f"({size * dtype.itemsize / 2**30:.3g} GiB of {dtype.name}); expected at most "
                         f"{MAX_INIT_BYTES / 2**30:.0f} GiB")
    rng = as_generator(seed)
    out = {}
    for name, shape in parameter_shapes(vocab_size, d_model, n_layers, d_ff, max_len).items():
        short = name.split("_", 1)[1] if name[0] == "l" and name[1].isdigit() else name
        if short.endswith("_g"):
            arr = np.ones(shape)
        elif len(shape) == 1:
            arr = np.zeros(shape)
        else:
            std = 0.02 / math.sqrt(2 * n_layers) if short in ("w_o", "w_2") else 0.02
            arr = rng.normal(0.0, std, shape)
        out[name] = arr.astype(dtype)
    return out


def decoder_from_dict(weights: dict, n_heads: int) -> DecoderParams:
    """Assemble DecoderParams from flat arrays named as in `parameter_shapes` (checks every shape)."""
    n_heads = positive_int(n_heads, "n_heads")
    if not isinstance(weights, dict):
        raise TypeError(f"weights: expected a dict of arrays, got {type(weights).__name__}")
    for name in ("tok_emb", "pos_emb", "w_out", "l0_w_q", "l0_w_1"):
        if name not in weights:
            raise ValueError(f"weights: missing the array {name!r}")
    for name in ("tok_emb", "pos_emb", "l0_w_1"):                 # their shapes give V, D, T_max and F
        if np.ndim(weights[name]) != 2:
            raise ValueError(f"{name}: expected a 2-D array, got {describe(weights[name])}")
    v, d = np.shape(weights["tok_emb"])
    if v == 0 or d == 0:
        raise ValueError(f"tok_emb: expected a (V, D) table with V >= 1 tokens and D >= 1, got shape {(v, d)}")
    n_layers = 0
    while f"l{n_layers}_w_q" in weights:
        n_layers += 1
    f = np.shape(weights["l0_w_1"])[1]
    expected = parameter_shapes(v, d, n_layers, f, np.shape(weights["pos_emb"])[0])
    missing = [n for n in expected if n not in weights]
    extra = [n for n in weights if n not in expected]
    if missing or extra:
        raise ValueError(f"weights: missing {missing}, unexpected {extra}")
    arrays = {}
    for name, shape in expected.items():
        arr = as_float_array(weights[name], name)
        if arr.shape != shape:
            short = name.split("_", 1)[1] if name[0] == "l" and name[1].isdigit() else name
            raise ValueError(f"{name}: expected shape {shape} = {_SYMBOLS[short]}, got {arr.shape}")
        arrays[name] = arr
    return assemble(arrays, n_heads)


def assemble(flat: dict, n_heads: int) -> DecoderParams:
    """DecoderParams holding the arrays of `flat` themselves (NumPy arrays or tensors, not copied: autograd
    reaches a tensor through every piece). decoder_from_dict checks a dict first, then assembles it."""
    blocks = tuple(block_params(hooked.block_weights(flat, i), n_heads) for i in range(hooked.n_layers_of(flat)))
    return DecoderParams(flat["tok_emb"], flat["pos_emb"], blocks, flat["lnf_g"], flat["lnf_b"],
                         flat["w_out"], flat["b_out"])


def block_params(g: dict, n_heads: int) -> BlockParams:
    """BlockParams of one block's arrays under their short names (ln1_g, w_q, ..., b_2), not copied."""
    attn = MultiHeadParams(g["w_q"], g["w_k"], g["w_v"], g["w_o"], g["b_q"], g["b_k"], g["b_v"], g["b_o"],
                           n_heads=n_heads)
    return BlockParams(g["ln1_g"], g["ln1_b"], attn, g["ln2_g"], g["ln2_b"], g["w_1"], g["b_1"], g["w_2"], g["b_2"])


def decoder_to_dict(params: DecoderParams) -> dict:
    """The flat {name: array} form of DecoderParams (what files store and the torch twin holds)."""
    out = {"tok_emb": params.tok_emb, "pos_emb": params.pos_emb}
    for i, b in enumerate(params.blocks):
        out.update({f"l{i}_{name}": arr for name, arr in zip(BLOCK_NAMES, block_arrays(b))})
    out.update(lnf_g=params.lnf_g, lnf_b=params.lnf_b, w_out=params.w_out, b_out=params.b_out)
    return out


def check_ids(ids, vocab_size: int, max_len: int, name: str = "ids") -> np.ndarray:
    """Token ids as an integer array (T,) or (B, T) with 0 <= id < V and 1 <= T <= T_max."""
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{name}: expected integer token ids, got the text {describe(ids)[4:]}; encode it first")
    try:
        arr = np.asarray(ids)
    except (ValueError, TypeError):                          # ragged lists
        raise TypeError(f"{name}: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}") from None
    if arr.size == 0 and arr.ndim in (1, 2):
        raise ValueError(f"{name}: expected at least one sequence of 1..{max_len} tokens, got an empty array of "
                         f"shape {arr.shape}")
    if arr.dtype.kind not in "iu" or arr.ndim not in (1, 2):
        raise TypeError(f"{name}: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}")
    t = arr.shape[-1]
    if t == 0 or t > max_len:
        raise ValueError(f"{name}: expected 1..{max_len} tokens (the model's max_len), got {t}")
    if arr.size and (arr.min() < 0 or arr.max() >= vocab_size):
        bad = arr[(arr < 0) | (arr >= vocab_size)]
        raise ValueError(f"{name}: token ids must lie in 0..{vocab_size - 1} (the vocabulary), "
                         f"got {bad[:5].tolist()}")
    return arr.astype(np.int64)


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
                    causal: bool = True):
    """Run the decoder (causal=False: the same stack as an encoder) on token ids (T,) or (B, T): the one
    forward of `core.hooked`, through `HookedDecoder`, reading the attention weights at its hook points.

    head_mask: optional (L, H) numbers multiplying each head's output (0 ablates it).
    attn_mask: optional boolean (T, T) or (L, T, T), True = may attend, ANDed with the causal mask
    (to cut one query -> key path, set that entry False).
    Returns (logits (..., T, V), weights (..., L, H, T, T)), and with return_hidden=True also the
    residual stream (..., L + 1, T, D): after the embedding and after each block.
    """
    from .model import HookedDecoder  # model builds on this module's parameters
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
