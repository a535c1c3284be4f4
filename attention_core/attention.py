"""Scaled dot-product attention: softmax(Q K^T / sqrt(Dk)) V, returning (output, weights).

Shapes: q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv) -> output (..., Tq, Dv),
weights (..., Tq, Tk). Leading batch dimensions (for example B, H) broadcast like NumPy's.
mask is boolean, broadcastable to (..., Tq, Tk), True = may attend (torch's SDPA convention).
A query row whose keys are all masked gets all-zero weights and an all-zero output (never NaN).
"""
from __future__ import annotations

import math

import numpy as np

from .softmax import _is_torch, _softmax_inplace
from .validation import as_bool_mask, as_float_array, check_broadcast, describe


def scaled_dot_product_attention(q, k, v, mask=None, scale=None, *, need_weights: bool = True,
                                 backend: str | None = None, device: str | None = None):
    """Attention(Q, K, V) = softmax(Q K^T * scale) V with scale = 1/sqrt(Dk) unless given.

    Returns (output, weights); weights is None when need_weights=False (the torch backend can
    then use a fused kernel, which never materialises the (Tq, Tk) matrix it would hand back).
    backend: None (follow the inputs' type), "numpy", "torch" or "auto" (torch on CUDA if present).
    """
    if backend not in (None, "numpy") or _is_torch(q):
        from .backends import torch_ops
        return torch_ops.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale,
                                                      need_weights=need_weights,
                                                      backend=backend, device=device)
    q, k, v, mask, scale = check_attention_inputs(q, k, v, mask, scale)
    # Fold the scale into q: Tq*Dk multiplications instead of Tq*Tk.
    scores = np.matmul(q * q.dtype.type(scale), np.swapaxes(k, -1, -2))   # (..., Tq, Tk)
    weights = _softmax_inplace(scores, axis=-1, mask=mask)                # (..., Tq, Tk)
    output = np.matmul(weights, v)                                        # (..., Tq, Dv)
    return output, (weights if need_weights else None)


def attention_scores(q, k, scale=None):
    """The raw scaled scores Q K^T * scale (..., Tq, Tk), before mask and softmax (for teaching)."""
    dummy_v = np.zeros(np.shape(k)[:-1] + (1,)) if np.ndim(k) >= 2 else k
    q, k, _, _, scale = check_attention_inputs(q, k, dummy_v, None, scale)
    return np.matmul(q, np.swapaxes(k, -1, -2)) * scale


def check_attention_inputs(q, k, v, mask, scale):
    """Validate q, k, v, mask and scale; return them as arrays plus the resolved scale."""
    q = as_float_array(q, "q", min_ndim=2)
    k = as_float_array(k, "k", min_ndim=2)
    v = as_float_array(v, "v", min_ndim=2)
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v: expected one float dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k: expected the same width Dk, got q of shape {q.shape} (Dk={q.shape[-1]}) "
                         f"and k of shape {k.shape} (Dk={k.shape[-1]})")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v: expected the same length Tk, got k of shape {k.shape} (Tk={k.shape[-2]}) "
                         f"and v of shape {v.shape} (Tk={v.shape[-2]})")
    if q.shape[-2] == 0 or k.shape[-2] == 0 or q.shape[-1] == 0:
        raise ValueError(f"q, k: expected at least one query, one key and Dk >= 1, got q {q.shape}, k {k.shape}")
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(f"q, k, v: batch dimensions {q.shape[:-2]}, {k.shape[:-2]}, {v.shape[:-2]} "
                         "do not broadcast together") from None
    if mask is not None:
        mask = as_bool_mask(mask)
        check_broadcast(mask.shape, batch + (q.shape[-2], k.shape[-2]), "mask", "the scores (..., Tq, Tk) of shape")
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    elif isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale: expected a finite number > 0 (default 1/sqrt(Dk)), got {describe(scale)}")
    return q, k, v, mask, float(scale)
