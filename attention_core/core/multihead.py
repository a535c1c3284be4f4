"""Multi-head attention's parameters and checked entry points: the formula is `core.hooked.attention`.

MultiHead(Q, K, V) = Concat(head_1, ..., head_H) W_o,  head_h = Attention(Q W_q^h, K W_k^h, V W_v^h).
`multi_head_attention`, the torch path (`backends.torch_ops.attend_heads`), notebook 04's KV-cache decoder and
the Transformer block all run that one function; split_heads / merge_heads here check their input and run
`hooked.split_heads` / `hooked.merge_heads`.
Weights use the paper's orientation, y = x @ W + b with W of shape (D_in, D_out); torch's
nn.Linear stores the transpose, which `to_torch_mha` / `from_torch_mha` take care of.
Shapes: D = d_model, H heads, Dh = D / H per head.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.core import hooked
from attention_core.core.softmax import compute_dtype
from attention_core.core.validation import (
    as_bool_mask,
    as_float,
    as_float_array,
    as_generator,
    check_broadcast,
    check_flag,
    checked,
    float_dtype,
    positive_int,
)

MHA_NAMES = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o")


@dataclass(frozen=True)
class MultiHeadParams:
    """Parameters of one multi-head attention layer (all (D, D) matrices and (D,) biases)."""
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    b_q: np.ndarray
    b_k: np.ndarray
    b_v: np.ndarray
    b_o: np.ndarray
    n_heads: int

    @property
    def d_model(self) -> int:
        return self.w_q.shape[0]

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def weights(self) -> dict:
        """The arrays under the names `hooked.attention` reads (w_q, b_q, ..., w_o, b_o), not copied."""
        return {name: getattr(self, name) for name in MHA_NAMES}

    def __post_init__(self):
        n_heads = positive_int(self.n_heads, "n_heads")
        d = np.shape(self.w_q)[0] if np.ndim(self.w_q) == 2 else -1
        for name in ("w_q", "w_k", "w_v", "w_o"):           # as_float: tensors stay tensors (notebook 13 trains them)
            w = as_float(getattr(self, name), name, ndim=2)
            if tuple(w.shape) != (d, d):
                raise ValueError(f"{name}: expected shape ({d}, {d}) like w_q, got {tuple(w.shape)}")
            object.__setattr__(self, name, w)
        for name in ("b_q", "b_k", "b_v", "b_o"):
            b = as_float(getattr(self, name), name, ndim=1)
            if tuple(b.shape) != (d,):
                raise ValueError(f"{name}: expected shape ({d},), got {tuple(b.shape)}")
            object.__setattr__(self, name, b)
        if d % n_heads:
            raise ValueError(f"n_heads: d_model={d} is not divisible by n_heads={n_heads}")


def init_multihead(d_model: int, n_heads: int, *, seed: int | np.random.Generator = 0,
                   bias: bool = True, dtype=np.float64) -> MultiHeadParams:
    """Seeded Xavier-uniform weights (as torch initialises MultiheadAttention); small random
    biases when bias=True (torch starts them at 0, which would hide bias bugs), zeros otherwise."""
    d_model = positive_int(d_model, "d_model")
    n_heads = positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        raise ValueError(f"n_heads: d_model={d_model} is not divisible by n_heads={n_heads}")
    rng = as_generator(seed)
    dtype = float_dtype(dtype)
    bias = check_flag(bias, "bias")
    limit = math.sqrt(6.0 / (d_model + d_model))
    mats = [rng.uniform(-limit, limit, (d_model, d_model)).astype(dtype) for _ in range(4)]
    biases = [(rng.normal(0, 0.1, d_model) if bias else np.zeros(d_model)).astype(dtype) for _ in range(4)]
    return MultiHeadParams(*mats, *biases, n_heads=n_heads)


def split_heads(x, n_heads: int) -> np.ndarray:
    """(..., T, D) -> (..., H, T, D/H): head h takes columns h*Dh .. (h+1)*Dh - 1."""
    x = as_float(x, "x", min_ndim=2)                              # NumPy or a tensor: the same code
    n_heads = positive_int(n_heads, "n_heads")
    d = x.shape[-1]
    if d % n_heads:
        raise ValueError(f"x: width D={d} is not divisible by n_heads={n_heads}")
    return hooked.split_heads(x, n_heads)                         # (..., H, T, Dh)


def merge_heads(x) -> np.ndarray:
    """(..., H, T, Dh) -> (..., T, H*Dh): the inverse of split_heads (the 'concat' step)."""
    x = as_float(x, "x", min_ndim=3)                              # NumPy or a tensor: the same code
    return hooked.merge_heads(x)                                  # (..., T, D)


def multi_head_inputs(query, key, value, params, mask=None, head_mask=None) -> dict:
    """multi_head_attention's arguments, checked: float arrays, MultiHeadParams, matching widths and lengths,
    a boolean mask that broadcasts to the scores (given one more axis, for the heads), one number per head in
    head_mask. float16 is computed in float32 (as attention is) and the results cast back."""
    query = as_float_array(query, "query", min_ndim=2)
    key = as_float_array(key, "key", min_ndim=2)
    value = as_float_array(value, "value", min_ndim=2)
    mask = None if mask is None else as_bool_mask(mask)
    check_mha_inputs(query, key, value, params, mask)
    if mask is not None:
        mask = np.expand_dims(mask, -3)                           # (..., 1, Tq, Tk): one for every head
    if head_mask is not None:
        head_mask = check_head_mask(as_float_array(head_mask, "head_mask", ndim=1), params.n_heads)
    dtype = np.result_type(query, key, value, *params.weights.values())
    work = compute_dtype(dtype)
    if work != dtype:                                             # float16: every step in float32
        query, key, value = (x.astype(work) for x in (query, key, value))
        params = MultiHeadParams(**{n: np.asarray(a, work) for n, a in params.weights.items()}, n_heads=params.n_heads)
    arguments = dict(query=query, key=key, value=value, params=params, mask=mask, head_mask=head_mask)
    return arguments, lambda out: tuple(x.astype(dtype, copy=False) for x in out)


@checked(multi_head_inputs, result="the output")
def multi_head_attention(query, key, value, params: MultiHeadParams, mask=None, head_mask=None):
    """MultiHead(Q, K, V) = Concat(head_1..head_H) W_o + b_o, head_h = Attention(Q W_q^h, K W_k^h, V W_v^h).

    query (..., Tq, D), key and value (..., Tk, D): the same array three times for self-attention,
    decoder states and encoder outputs for cross-attention. mask: boolean (..., Tq, Tk), True = may attend,
    shared by all heads. head_mask: optional (H,) numbers scaling each head's output (0 ablates it).
    Returns (output (..., Tq, D), weights (..., H, Tq, Tk)).
    """
    hooks = hooked.HookSet(record={"attn.hook_pattern"})  # [en] keep the weights [zh] 留下注意力权重
    if head_mask is not None:  # [en] scale each head's output z (0 ablates it) [zh] 按头缩放输出 z（0 表示去掉这个头）
        hooks.fns["attn.hook_z"] = [lambda z, name: z * head_mask[:, None, None]]
    # [en] project, split into heads, attend, concatenate, project [zh] 投影、分头、注意力、拼接、投影
    output, _ = hooked.attention(query, key, value, params.weights, params.n_heads, mask, hooks, hooked.NUMPY_OPS)
    return output, hooks.cache["attn.hook_pattern"]           # (..., Tq, D), (..., H, Tq, Tk)


def check_mha_inputs(query, key, value, params, mask=None) -> None:
    """The rules of multi-head attention's inputs (float arrays or tensors already checked):
    MultiHeadParams, widths d_model, key and value of one length, a mask that broadcasts to the
    scores of one head (..., Tq, Tk) (checked on the shape the caller passed)."""
    if not isinstance(params, MultiHeadParams):
        raise TypeError(f"params: expected MultiHeadParams (see init_multihead), got {type(params).__name__}")
    d = params.d_model
    for name, x in (("query", query), ("key", key), ("value", value)):
        if x.shape[-1] != d:
            raise ValueError(f"{name}: expected last dimension d_model={d}, got shape {tuple(x.shape)}")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"key and value: expected the same length Tk, got {tuple(key.shape)} "
                         f"and {tuple(value.shape)}")
    batch = ()
    for name, x in (("key", key), ("value", value)):             # every batch axis must broadcast, mask or not
        try:
            batch = np.broadcast_shapes(tuple(query.shape[:-2]), tuple(x.shape[:-2]), batch)
        except ValueError:
            raise ValueError(f"query and {name}: batch dimensions {tuple(query.shape[:-2])} and "
                             f"{tuple(x.shape[:-2])} do not broadcast together") from None
    if mask is not None:
        if len(tuple(mask.shape)) < 2:
            raise ValueError(f"mask: expected at least 2 dimensions (..., Tq, Tk), got shape {tuple(mask.shape)}")
        check_broadcast(mask.shape, batch + (query.shape[-2], key.shape[-2]), "mask",
                        "the scores (..., Tq, Tk) of shape")


def check_head_mask(head_mask, n_heads: int):
    """One number per head (1 keeps a head, 0 ablates it)."""
    if tuple(head_mask.shape) != (n_heads,):
        raise ValueError(f"head_mask: expected shape ({n_heads},) (one number per head), "
                         f"got {tuple(head_mask.shape)}")
    return head_mask
