"""Scaled dot-product attention: softmax(Q K^T / sqrt(Dk)) V, returning (output, weights).

Shapes: q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv) -> output (..., Tq, Dv),
weights (..., Tq, Tk). Leading batch dimensions (for example B, H) broadcast like NumPy's.
mask is boolean, broadcastable to (..., Tq, Tk), True = may attend (torch's SDPA convention).
A query row whose keys are all masked gets all-zero weights and an all-zero output (never NaN).
"""
from __future__ import annotations

import math

import numpy as np

from attention_core.backends import wants_torch
from attention_core.core.softmax import _exp_shifted_inplace, _is_torch
from attention_core.core.validation import as_bool_mask, as_float_array, check_broadcast, describe


def scaled_dot_product_attention(q, k, v, mask=None, scale=None, *, need_weights: bool = True,
                                 backend: str | None = None, device: str | None = None):
    """Attention(Q, K, V) = softmax(Q K^T * scale) V with scale = 1/sqrt(Dk) unless given.

    Returns (output, weights); weights is None when need_weights=False (the torch backend can
    then use a fused kernel, which never materialises the (Tq, Tk) matrix it would hand back).
    backend: None (follow the inputs' type), "numpy", "torch" or "auto" (torch on CUDA if present).
    """
    if wants_torch(backend, device, q):               # torch asked for, a device named, or tensors in
        from attention_core.backends import torch_ops
        return torch_ops.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale,
                                                      need_weights=need_weights,
                                                      backend=backend, device=device)
    q, k, v, mask, scale = check_attention_inputs(q, k, v, mask, scale)
    return _attention_numpy(q, k, v, mask, scale, need_weights)


# One block of scores, (..., rows, Tk), should stay in cache while it is exponentiated, summed and
# multiplied by v. A few MiB sits in this size of machine's L2/L3; fewer than 64 rows per block
# would make the matrix products too small for BLAS to run well on several threads.
_BLOCK_BYTES = 4 << 20
_MIN_BLOCK_ROWS = 64


def _attention_numpy(q, k, v, mask, scale: float, need_weights: bool):
    """The NumPy path: scores = (q * scale) K^T; weights = softmax(scores); output = weights V.

    Each query row's softmax needs only its own scores, so the three steps run on a block of
    query rows at a time. The block's scores are still in cache for the exp and the second
    product (instead of a round trip of the whole (Tq, Tk) matrix through memory per step), and
    without weights to return, memory holds one block of scores instead of Tq * Tk numbers.
    Without weights we also normalise the (rows, Dv) output instead of the (rows, Tk) weights.
    """
    scores_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], () if mask is None else mask.shape[:-2])
    batch = np.broadcast_shapes(scores_batch, v.shape[:-2])          # e.g. (B, H)
    tq, tk, dv = q.shape[-2], k.shape[-2], v.shape[-1]
    q = q * q.dtype.type(scale)                     # fold the scale into q: Tq*Dk products, not Tq*Tk
    k_t = np.swapaxes(k, -1, -2)                                     # (..., Dk, Tk), a view
    if mask is not None:
        mask = np.broadcast_to(mask, scores_batch + (tq, tk))        # a view, sliced per block
    output = np.empty(batch + (tq, dv), q.dtype)                     # (..., Tq, Dv)
    weights = np.empty(scores_batch + (tq, tk), q.dtype) if need_weights else None  # (..., Tq, Tk)
    row_bytes = max(1, math.prod(scores_batch) * tk * q.dtype.itemsize)   # 1: an empty batch
    rows = min(tq, max(_MIN_BLOCK_ROWS, _BLOCK_BYTES // row_bytes))
    if not need_weights:
        buffer = np.empty(scores_batch + (rows, tk), q.dtype)       # reused by every block
    for start in range(0, tq, rows):
        stop = min(start + rows, tq)
        block = weights[..., start:stop, :] if need_weights else buffer[..., :stop - start, :]
        np.matmul(q[..., start:stop, :], k_t, out=block)                        # (..., rows, Tk)
        total = _exp_shifted_inplace(block, -1, mask=None if mask is None else mask[..., start:stop, :])
        out = output[..., start:stop, :]                                         # (..., rows, Dv)
        if need_weights:
            block /= total                                                       # the weights we return
            np.matmul(block, v, out=out)
        else:
            np.matmul(block, v, out=out)
            out /= total                                  # the same softmax, Dv divisions a row, not Tk
    return output, weights


def attention_scores(q, k, scale=None):
    """The raw scaled scores Q K^T * scale (..., Tq, Tk), before mask and softmax (for teaching)."""
    if _is_torch(q):
        from attention_core.backends import torch_ops
        return torch_ops.attention_scores(q, k, scale)
    k = as_float_array(k, "k", min_ndim=2)
    dummy_v = np.zeros(k.shape[:-1] + (1,), dtype=k.dtype)           # only its length Tk is checked
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
