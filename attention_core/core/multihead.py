"""Multi-head attention: project into H subspaces, attend in each, concatenate, project with W_o.

MultiHead(Q, K, V) = Concat(head_1, ..., head_H) W_o,  head_h = Attention(Q W_q^h, K W_k^h, V W_v^h).
Weights use the paper's orientation, y = x @ W + b with W of shape (D_in, D_out); torch's
nn.Linear stores the transpose, which `to_torch_mha` / `from_torch_mha` take care of.
Shapes: D = d_model, H heads, Dh = D / H per head.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
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
    *lead, t, d = x.shape
    if d % n_heads:
        raise ValueError(f"x: width D={d} is not divisible by n_heads={n_heads}")
    x = x.reshape(*lead, t, n_heads, d // n_heads)                # (..., T, H, Dh)
    return x.swapaxes(-2, -3)                                     # (..., H, T, Dh)


def merge_heads(x) -> np.ndarray:
    """(..., H, T, Dh) -> (..., T, H*Dh): the inverse of split_heads (the 'concat' step)."""
    x = as_float(x, "x", min_ndim=3)                              # NumPy or a tensor: the same code
    *lead, h, t, dh = x.shape
    return x.swapaxes(-2, -3).reshape(*lead, t, h * dh)           # (..., T, D)


def multi_head_inputs(query, key, value, params, mask=None, head_mask=None) -> dict:
    """multi_head_attention's arguments, checked: float arrays, MultiHeadParams, matching widths and lengths,
    a boolean mask that broadcasts to the scores, one number per head in head_mask."""
    query = as_float_array(query, "query", min_ndim=2)
    key = as_float_array(key, "key", min_ndim=2)
    value = as_float_array(value, "value", min_ndim=2)
    mask = None if mask is None else as_bool_mask(mask)
    check_mha_inputs(query, key, value, params, mask)
    if head_mask is not None:
        head_mask = check_head_mask(as_float_array(head_mask, "head_mask", ndim=1), params.n_heads)
    return dict(query=query, key=key, value=value, params=params, mask=mask, head_mask=head_mask)


@checked(multi_head_inputs, result="the output")
def multi_head_attention(query, key, value, params: MultiHeadParams, mask=None, head_mask=None):
    """MultiHead(Q, K, V) = Concat(head_1..head_H) W_o + b_o, head_h = Attention(Q W_q^h, K W_k^h, V W_v^h).

    query (..., Tq, D), key and value (..., Tk, D): the same array three times for self-attention,
    decoder states and encoder outputs for cross-attention. mask: boolean (..., Tq, Tk), True = may attend,
    shared by all heads. head_mask: optional (H,) numbers scaling each head's output (0 ablates it).
    Returns (output (..., Tq, D), weights (..., H, Tq, Tk)).
    """
    h = params.n_heads
    q = split_heads(query @ params.w_q + params.b_q, h)           # (..., H, Tq, Dh)
    k = split_heads(key @ params.w_k + params.b_k, h)             # (..., H, Tk, Dh)
    v = split_heads(value @ params.w_v + params.b_v, h)           # (..., H, Tk, Dh)
    if mask is not None:
        mask = np.expand_dims(mask, -3)  # [en] (..., 1, Tq, Tk): one for every head [zh] (..., 1, Tq, Tk)：各头共用
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)   # (..., H, Tq, Dh), (..., H, Tq, Tk)
    if head_mask is not None:
        heads = heads * head_mask[:, None, None]                  # [en] 0 ablates a head [zh] 0 表示去掉这个头
    output = merge_heads(heads) @ params.w_o + params.b_o  # [en] concatenate, project [zh] 拼接、投影
    return output, weights


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
    if mask is not None:
        if len(tuple(mask.shape)) < 2:
            raise ValueError(f"mask: expected at least 2 dimensions (..., Tq, Tk), got shape {tuple(mask.shape)}")
        try:
            batch = np.broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]))
        except ValueError:
            raise ValueError(f"query and key: batch dimensions {tuple(query.shape[:-2])} and "
                             f"{tuple(key.shape[:-2])} do not broadcast together") from None
        check_broadcast(mask.shape, batch + (query.shape[-2], key.shape[-2]), "mask",
                        "the scores (..., Tq, Tk) of shape")


def check_head_mask(head_mask, n_heads: int):
    """One number per head (1 keeps a head, 0 ablates it)."""
    if tuple(head_mask.shape) != (n_heads,):
        raise ValueError(f"head_mask: expected shape ({n_heads},) (one number per head), "
                         f"got {tuple(head_mask.shape)}")
    return head_mask
