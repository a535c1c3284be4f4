"""Scaled dot-product attention: softmax(Q K^T / sqrt(Dk)) V, returning (output, weights).

Shapes: q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv) -> output (..., Tq, Dv),
weights (..., Tq, Tk). Leading batch dimensions (for example B, H) broadcast like NumPy's.
mask is boolean, broadcastable to (..., Tq, Tk), True = may attend (torch's SDPA convention).
A query row whose keys are all masked gets all-zero weights and an all-zero output (never NaN).

Two paths, tested equal: `reference_attention` is the textbook formula in four lines (its softmax is
the package's one, `core.softmax.softmax_rows`); the fast path `scaled_dot_product_attention`
computes the same numbers a block of query rows at a time, in place. Precision and overflow (both
paths): float16 inputs are computed in float32 and the results returned in float16; scores that
overflow the dtype (q·k * scale beyond its largest number) raise FloatingPointError naming the
dtype instead of returning NaN.
"""
from __future__ import annotations

import math

import numpy as np

from attention_core.core.softmax import compute_dtype, exp_shifted_inplace, softmax_rows
from attention_core.core.validation import (
    as_bool_mask,
    as_float_array,
    check_attention_inputs,
    check_finite_result,
    check_finite_scores,
    check_flag,
    checked,
)


def reference_inputs(q, k, v, mask=None, scale=None):
    """reference_attention's arguments, checked and in the dtype attention computes in; the results are
    cast back to the inputs' dtype (float16 is computed in float32)."""
    q, k, v, mask, scale, dtype = validate_attention_inputs(q, k, v, mask, scale)
    check_scores_fit(q, k, scale)
    return dict(q=q, k=k, v=v, mask=mask, scale=scale), lambda out: tuple(x.astype(dtype) for x in out)


def check_scores_fit(q, k, scale) -> None:
    """Raise FloatingPointError if some score q·k * scale overflows the dtype. |q·k| <= |q| |k|, so when the
    largest norms leave room (almost always) nothing is computed twice; otherwise the scores are."""
    with np.errstate(over="ignore", divide="ignore"):
        bound = (np.log(np.linalg.norm(q, axis=-1).max(initial=0.0)) + np.log(np.linalg.norm(k, axis=-1).max(
            initial=0.0)) + np.log(scale))
    if not bound < np.log(np.finfo(q.dtype).max) - 1:
        with np.errstate(over="ignore", invalid="ignore"):
            scores = q @ np.swapaxes(k, -1, -2) * scale
        check_finite_scores(scores.max(axis=-1), q.dtype.name)


@checked(reference_inputs, result="the scores q·k * scale")
def reference_attention(q, k, v, mask=None, scale=None):
    """The textbook formula, one line per step: the oracle every fast path is tested against.
    Returns (output (..., Tq, Dv), weights (..., Tq, Tk))."""
    # [en] (..., Tq, Tk): how well each key fits each query [zh] (..., Tq, Tk)：每个 Key 与每个 Query 有多匹配
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)    # [en] a hidden key gets no weight [zh] 被屏蔽的 Key 得不到权重
    # [en] (..., Tq, Tk): each row sums to 1 (or is all 0) [zh] (..., Tq, Tk)：每行之和为 1（或全为 0）
    weights = softmax_rows(scores)
    output = weights @ v                            # [en] (..., Tq, Dv) [zh] (..., Tq, Dv)
    return output, weights


def validate_attention_inputs(q, k, v, mask, scale):
    """q, k, v as float arrays in the dtype attention computes in, the mask as booleans, the
    resolved scale, and the dtype the results are returned in."""
    q = as_float_array(q, "q", min_ndim=2)
    k = as_float_array(k, "k", min_ndim=2)
    v = as_float_array(v, "v", min_ndim=2)
    if mask is not None:
        mask = as_bool_mask(mask)
    scale = check_attention_inputs(q, k, v, mask, scale)
    work = compute_dtype(q.dtype)
    return q.astype(work, copy=False), k.astype(work, copy=False), v.astype(work, copy=False), mask, scale, q.dtype


def scaled_dot_product_attention(q, k, v, mask=None, scale=None, *, need_weights: bool = True):
    """Attention(Q, K, V) = softmax(Q K^T * scale) V with scale = 1/sqrt(Dk) unless given.

    Returns (output, weights); weights is None when need_weights=False (the torch backend can
    then use a fused kernel, which never materialises the (Tq, Tk) matrix it would hand back).
    Through `attention_core.scaled_dot_product_attention` it also takes backend= and device=.
    """
    need_weights = check_flag(need_weights, "need_weights")
    q, k, v, mask, scale, dtype = validate_attention_inputs(q, k, v, mask, scale)
    output, weights = _attention_blocks(q, k, v, mask, scale, need_weights)
    return output.astype(dtype, copy=False), None if weights is None else weights.astype(dtype, copy=False)


# One block of scores, (..., rows, Tk), should stay in cache while it is exponentiated, summed and
# multiplied by v. A few MiB sits in this size of machine's L2/L3; fewer than 64 rows per block
# would make the matrix products too small for BLAS to run well on several threads.
_BLOCK_BYTES = 4 << 20
_MIN_BLOCK_ROWS = 64


def _attention_blocks(q, k, v, mask, scale: float, need_weights: bool):
    """The fast path: scores = (q * scale) K^T; weights = softmax(scores); output = weights V.

    Each query row's softmax needs only its own scores, so the three steps run on a block of
    query rows at a time. The block's scores are still in cache for the exp and the second
    product (instead of a round trip of the whole (Tq, Tk) matrix through memory per step), and
    without weights to return, memory holds one block of scores instead of Tq * Tk numbers.
    Without weights we also normalise the (rows, Dv) output instead of the (rows, Tk) weights.
    """
    scores_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], () if mask is None else mask.shape[:-2])
    batch = np.broadcast_shapes(scores_batch, v.shape[:-2])          # e.g. (B, H)
    tq, tk, dv = q.shape[-2], k.shape[-2], v.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):               # an overflow is reported below, in words
        q = q * q.dtype.type(scale)                 # fold the scale into q: Tq*Dk products, not Tq*Tk
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
        with np.errstate(over="ignore", invalid="ignore"):
            np.matmul(q[..., start:stop, :], k_t, out=block)                    # (..., rows, Tk)
        total = exp_shifted_inplace(block, -1, mask=None if mask is None else mask[..., start:stop, :],
                                     overflow_check=q.dtype.name)                # overflow -> a clear error
        out = output[..., start:stop, :]                                         # (..., rows, Dv)
        if need_weights:
            block /= total                                                       # the weights we return
            np.matmul(block, v, out=out)
        else:
            np.matmul(block, v, out=out)
            out /= total                                  # the same softmax, Dv divisions a row, not Tk
        check_finite_result(out, "the attention output", q.dtype.name)          # a block: no big temporary
    return output, weights


def attention_scores(q, k, scale=None):
    """The raw scaled scores Q K^T * scale (..., Tq, Tk), before mask and softmax (for teaching)."""
    k = as_float_array(k, "k", min_ndim=2)
    dummy_v = np.zeros(k.shape[:-1] + (1,), dtype=k.dtype)           # only its length Tk is checked
    q, k, _, _, scale, dtype = validate_attention_inputs(q, k, dummy_v, None, scale)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) * scale        # (..., Tq, Tk)
    check_finite_scores(scores.max(axis=-1), dtype.name)
    return scores.astype(dtype, copy=False)
