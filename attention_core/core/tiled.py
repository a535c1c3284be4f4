"""Tiled attention with an online softmax (the FlashAttention idea, in NumPy): the output of
softmax(Q K^T * scale) V without ever holding the (Tq, Tk) score or weight matrix.

Shapes: q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv) -> output (..., Tq, Dv); leading batch
dimensions (for example B, H) broadcast like NumPy's. mask is boolean, broadcastable to
(..., Tq, Tk), True = may attend. A query whose keys are all masked gets an all-zero output.
Memory beyond the inputs and the output: one block of scores (..., Tq, block_size) and the
running max and sum (..., Tq, 1): O(Tq * (block_size + Dv)), linear in the length, where the
plain formula holds Tq * Tk numbers.
"""
from __future__ import annotations

import math

import numpy as np

from attention_core.core.attention import check_scores_fit, validate_attention_inputs
from attention_core.core.validation import check_finite_result, check_finite_scores, checked, positive_int

# A tile of scores (query rows x block_size keys) of about 1 MiB stays in a core's L2 cache through
# its passes; fewer than 16 rows would make each matrix product too small to run well.
_TILE_BYTES = 1 << 20
_MIN_ROWS = 16


def online_inputs(q, k, v, mask=None, scale=None, block_size: int = 128):
    """online_attention's arguments, checked as scaled_dot_product_attention's (and block_size >= 1); the
    output is cast back to the inputs' dtype."""
    q, k, v, mask, scale, dtype = validate_attention_inputs(q, k, v, mask, scale)
    check_scores_fit(q, k, scale)
    arguments = dict(q=q, k=k, v=v, mask=mask, scale=scale, block_size=positive_int(block_size, "block_size"))
    return arguments, lambda out: out.astype(dtype)


@checked(online_inputs, result="the output")
def online_attention(q, k, v, mask=None, scale=None, block_size: int = 128):
    """softmax(Q K^T * scale) V, one block of keys at a time, with the online softmax: the readable
    reference of `tiled_attention` (which also takes the queries a block at a time). Returns (..., Tq, Dv)."""
    m = np.full(q.shape[:-1] + (1,), -np.inf)  # [en] running max of each query's scores [zh] 各 Query 的当前最大值
    l = np.zeros(q.shape[:-1] + (1,))  # [en] running sum of exp(score - m) [zh] exp(分数 - m) 的当前累计和
    # [en] running sum of exp(score - m) * v_j [zh] exp(分数 - m) * v_j 的当前累计和
    acc = np.zeros(q.shape[:-1] + v.shape[-1:])
    for start in range(0, k.shape[-2], block_size):
        # [en] (..., Tq, B): one block [zh] (..., Tq, B)：一块分数
        s = q @ np.swapaxes(k[..., start:start + block_size, :], -1, -2) * scale
        if mask is not None:
            s = np.where(mask[..., start:start + block_size], s, -np.inf)       # [en] hidden keys [zh] 被屏蔽的 Key
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        # [en] no key seen yet: shift by 0, not -inf [zh] 还没见过 Key：平移 0，而不是 -inf
        shift = np.where(np.isneginf(m_new), 0.0, m_new)
        p = np.exp(s - shift)                                         # (..., Tq, B)
        # [en] rescale the old sum to the new max [zh] 把旧的和换算到新的最大值
        l = np.exp(m - shift) * l + p.sum(-1, keepdims=True)
        acc = np.exp(m - shift) * acc + p @ v[..., start:start + block_size, :]
        m = m_new
    return acc / np.where(l == 0, 1.0, l)  # [en] a query with no visible key: 0 [zh] 看不到任何 Key 的 Query：输出 0


def tiled_attention(q, k, v, mask=None, scale=None, block_size: int = 128):
    """softmax(Q K^T * scale) V, computed one block of `block_size` keys (and values) at a time.

    The online softmax. For each query row keep three running quantities over the keys seen so far:
    m, the largest score; l, the sum of exp(score - m); acc, the sum of exp(score - m) * v_j.
    A new block of scores s (with max m_b) updates them as

        m'   = max(m, m_b)
        l'   = exp(m - m') * l   + sum_j exp(s_j - m')
        acc' = exp(m - m') * acc + sum_j exp(s_j - m') v_j

    The factor exp(m - m') <= 1 rescales what was summed against the old maximum to the new one,
    so every exponent stays <= 0 (no overflow, as in a stable softmax). After the last block
    output = acc / l, which equals softmax(s) V exactly, up to rounding: the same sums, regrouped.

    Why it returns no weight matrix: a weight exp(s_j - m) / l is only final once the last block
    has been seen (m and l still change until then), and keeping the weights for later would mean
    storing Tq * Tk numbers, the very memory this avoids. Fused kernels (FlashAttention, torch's
    scaled_dot_product_attention without weights) are built the same way; to get weights back they
    must recompute the scores in a second pass (FlashAttention's backward pass does this, from the
    saved log-sum-exp m + log l of each row). Use `scaled_dot_product_attention` to see weights.

    q, k, v, mask, scale: as in `scaled_dot_product_attention` (scale defaults to 1/sqrt(Dk)).
    block_size: keys per block, an integer >= 1; it need not divide Tk (the last block is shorter).
    Returns the output (..., Tq, Dv) in the inputs' dtype (float16 is computed in float32; scores
    that overflow raise FloatingPointError, as in `scaled_dot_product_attention`). Torch tensors
    (through `attention_core.tiled_attention`) go to torch's fused kernel, the same algorithm.
    """
    q, k, v, mask, scale, out_dtype = validate_attention_inputs(q, k, v, mask, scale)
    block_size = positive_int(block_size, "block_size")
    scores_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], () if mask is None else mask.shape[:-2])
    batch = np.broadcast_shapes(scores_batch, v.shape[:-2])                # e.g. (B, H)
    tq, tk, dv = q.shape[-2], k.shape[-2], v.shape[-1]
    dtype = q.dtype
    with np.errstate(over="ignore", invalid="ignore"):                     # overflow is reported in words
        q = q * dtype.type(scale)                    # fold the scale into q: Tq*Dk products, not Tq*Tk
    k_t = np.swapaxes(k, -1, -2)                                           # (..., Dk, Tk), a view
    if mask is not None:
        mask = np.broadcast_to(mask, scores_batch + (tq, tk))              # a view, sliced per tile
    output = np.empty(batch + (tq, dv), dtype)                             # (..., Tq, Dv)
    # Queries are independent, so they are taken a block of rows at a time as well: a tile of
    # scores (rows, block_size) then stays in cache through its four passes (max, subtract, exp, sum).
    tile_items = max(1, math.prod(scores_batch) * block_size)
    rows = min(tq, max(_MIN_ROWS, _TILE_BYTES // (tile_items * dtype.itemsize)))
    for q_start in range(0, tq, rows):
        q_stop = min(q_start + rows, tq)
        q_rows = q[..., q_start:q_stop, :]                                 # (..., R, Dk), a view
        r = q_stop - q_start
        running_max = np.full(scores_batch + (r, 1), -np.inf, dtype)       # m: (..., R, 1)
        running_sum = np.zeros(scores_batch + (r, 1), dtype)               # l: (..., R, 1)
        acc = np.zeros(batch + (r, dv), dtype)                             # (..., R, Dv)
        for start in range(0, tk, block_size):
            stop = min(start + block_size, tk)
            with np.errstate(over="ignore", invalid="ignore"):
                s = np.matmul(q_rows, k_t[..., start:stop])                # (..., R, Bk) scores of one tile
            check_finite_scores(s.max(axis=-1), dtype.name)                # overflow -> a clear error
            if mask is not None:                                           # hidden keys: -inf
                np.copyto(s, dtype.type(-np.inf), where=~mask[..., q_start:q_stop, start:stop])
            new_max = np.maximum(running_max, s.max(axis=-1, keepdims=True))   # m' (..., R, 1)
            # Rows with no visible key yet keep m' = -inf; shift them by 0: exp(-inf - 0) = 0, not NaN.
            shift = np.where(new_max == -np.inf, dtype.type(0), new_max)   # (..., R, 1)
            s -= shift                                                     # every exponent <= 0
            np.exp(s, out=s)                                               # p = exp(s - m'), masked -> 0
            rescale = np.exp(running_max - shift)                          # exp(m - m') <= 1; 0 at first
            running_sum *= rescale
            running_sum += s.sum(axis=-1, keepdims=True)                   # l'
            acc *= rescale
            acc += np.matmul(s, v[..., start:stop, :])                     # acc' (..., R, Dv)
            running_max = new_max
        running_sum[running_sum == 0] = 1            # a fully masked row: acc is 0, so the output is 0
        np.divide(acc, running_sum, out=output[..., q_start:q_stop, :])
        check_finite_result(output[..., q_start:q_stop, :], "the attention output", dtype.name)
    return output.astype(out_dtype, copy=False)
