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
from attention_core.backends import is_torch, wants_torch
from attention_core.core.validation import as_bool_mask, as_float_array, positive_int


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
        for name in ("w_q", "w_k", "w_v", "w_o"):
            w = as_float_array(getattr(self, name), name, ndim=2)
            if w.shape != (d, d):
                raise ValueError(f"{name}: expected shape ({d}, {d}) like w_q, got {w.shape}")
            object.__setattr__(self, name, w)
        for name in ("b_q", "b_k", "b_v", "b_o"):
            b = as_float_array(getattr(self, name), name, ndim=1)
            if b.shape != (d,):
                raise ValueError(f"{name}: expected shape ({d},), got {b.shape}")
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
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    limit = math.sqrt(6.0 / (d_model + d_model))
    mats = [rng.uniform(-limit, limit, (d_model, d_model)).astype(dtype) for _ in range(4)]
    biases = [(rng.normal(0, 0.1, d_model) if bias else np.zeros(d_model)).astype(dtype) for _ in range(4)]
    return MultiHeadParams(*mats, *biases, n_heads=n_heads)


def split_heads(x, n_heads: int) -> np.ndarray:
    """(..., T, D) -> (..., H, T, D/H): head h takes columns h*Dh .. (h+1)*Dh - 1."""
    if is_torch(x):
        from attention_core.backends import torch_ops
        return torch_ops.split_heads(x, n_heads)
    x = as_float_array(x, "x", min_ndim=2)
    n_heads = positive_int(n_heads, "n_heads")
    *lead, t, d = x.shape
    if d % n_heads:
        raise ValueError(f"x: width D={d} is not divisible by n_heads={n_heads}")
    x = x.reshape(*lead, t, n_heads, d // n_heads)                # (..., T, H, Dh)
    return np.swapaxes(x, -2, -3)                                 # (..., H, T, Dh)


def merge_heads(x) -> np.ndarray:
    """(..., H, T, Dh) -> (..., T, H*Dh): the inverse of split_heads (the 'concat' step)."""
    if is_torch(x):
        from attention_core.backends import torch_ops
        return torch_ops.merge_heads(x)
    x = as_float_array(x, "x", min_ndim=3)
    *lead, h, t, dh = x.shape
    return np.swapaxes(x, -2, -3).reshape(*lead, t, h * dh)       # (..., T, D)


def multi_head_attention(query, key, value, params: MultiHeadParams, mask=None, head_mask=None, *,
                         backend: str | None = None, device=None):
    """Multi-head attention forward pass.

    query (..., Tq, D), key (..., Tk, D), value (..., Tk, D); pass the same array three times
    for self-attention, decoder states and encoder outputs for cross-attention.
    mask: boolean, broadcastable to (..., Tq, Tk), True = may attend; shared by all heads.
    head_mask: optional (H,) numbers multiplying each head's output before W_o (1 keeps a head,
    0 ablates it).
    Returns (output (..., Tq, D), weights (..., H, Tq, Tk)).
    backend, device: as in scaled_dot_product_attention (tensors in -> computed in torch).
    """
    if wants_torch(backend, device, query):
        from attention_core.backends import torch_ops
        return torch_ops.multi_head_attention(query, key, value, params, mask, head_mask,
                                              backend=backend, device=device)
    if not isinstance(params, MultiHeadParams):
        raise TypeError(f"params: expected MultiHeadParams (see init_multihead), got {type(params).__name__}")
    d = params.d_model
    arrays = []
    for name, x in (("query", query), ("key", key), ("value", value)):
        x = as_float_array(x, name, min_ndim=2)
        if x.shape[-1] != d:
            raise ValueError(f"{name}: expected last dimension d_model={d}, got shape {x.shape}")
        arrays.append(x)
    query, key, value = arrays
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"key and value: expected the same length Tk, got {key.shape} and {value.shape}")
    h = params.n_heads
    q = split_heads(query @ params.w_q + params.b_q, h)           # (..., H, Tq, Dh)
    k = split_heads(key @ params.w_k + params.b_k, h)             # (..., H, Tk, Dh)
    v = split_heads(value @ params.w_v + params.b_v, h)           # (..., H, Tk, Dh)
    if mask is not None:
        mask = np.expand_dims(as_bool_mask(mask), -3)             # (..., 1, Tq, Tk): same for every head
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)   # (..., H, Tq, Dh), (..., H, Tq, Tk)
    if head_mask is not None:
        hm = as_float_array(head_mask, "head_mask", ndim=1)
        if hm.shape != (h,):
            raise ValueError(f"head_mask: expected shape ({h},) (one number per head), got {hm.shape}")
        heads = heads * hm[:, None, None]
    output = merge_heads(heads) @ params.w_o + params.b_o         # (..., Tq, D)
    return output, weights


def to_torch_mha(params: MultiHeadParams, dtype=None, device=None):
    """A `torch.nn.MultiheadAttention` (batch_first=True) holding exactly these weights.

    Remember torch's mask convention there: a boolean attn_mask marks positions NOT allowed,
    the opposite of this package and of F.scaled_dot_product_attention; pass `~mask`.
    """
    from attention_core.backends import require_torch
    torch = require_torch()
    dtype = dtype or (torch.float64 if params.w_q.dtype == np.float64 else torch.float32)
    mha = torch.nn.MultiheadAttention(params.d_model, params.n_heads, bias=True, batch_first=True,
                                      dtype=dtype, device=device)
    with torch.no_grad():
        w_in = np.concatenate([params.w_q.T, params.w_k.T, params.w_v.T], axis=0)   # (3D, D)
        b_in = np.concatenate([params.b_q, params.b_k, params.b_v])
        mha.in_proj_weight.copy_(torch.as_tensor(w_in, dtype=dtype))
        mha.in_proj_bias.copy_(torch.as_tensor(b_in, dtype=dtype))
        mha.out_proj.weight.copy_(torch.as_tensor(params.w_o.T, dtype=dtype))
        mha.out_proj.bias.copy_(torch.as_tensor(params.b_o, dtype=dtype))
    return mha


def from_torch_mha(module) -> MultiHeadParams:
    """Read the weights of a `torch.nn.MultiheadAttention` (packed in_proj, with biases)."""
    if getattr(module, "in_proj_weight", None) is None:
        raise ValueError("module: expected nn.MultiheadAttention with a packed in_proj_weight "
                         "(kdim == vdim == embed_dim)")
    d = module.embed_dim
    w_in = module.in_proj_weight.detach().cpu().numpy()
    b_in = (module.in_proj_bias.detach().cpu().numpy() if module.in_proj_bias is not None
            else np.zeros(3 * d, dtype=w_in.dtype))
    w_o = module.out_proj.weight.detach().cpu().numpy()
    b_o = (module.out_proj.bias.detach().cpu().numpy() if module.out_proj.bias is not None
           else np.zeros(d, dtype=w_in.dtype))
    return MultiHeadParams(w_in[:d].T.copy(), w_in[d:2 * d].T.copy(), w_in[2 * d:].T.copy(), w_o.T.copy(),
                           b_in[:d].copy(), b_in[d:2 * d].copy(), b_in[2 * d:].copy(), b_o.copy(),
                           n_heads=module.num_heads)
