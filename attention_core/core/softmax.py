"""Softmax: numerically stable, with temperature and a boolean mask (True = keep).

softmax(x)_i = exp(x_i / T) / sum_j exp(x_j / T). We subtract the row maximum first: it cancels
in the ratio, and afterwards every exponent is <= 0, so nothing overflows (float32 logits of
+-1e4 stay finite). Masked entries get weight exactly 0; a row whose entries are all masked gets
all-zero weights (not NaN) -- the convention of this whole package.

Precision: float16 input is computed in float32 (its row sums would overflow float16 past ~65k
terms, as torch does it too) and returned as float16; a temperature is applied in float64, so a
tiny or huge T cannot round to 0 or inf in the array's dtype.

`reference_softmax` is the textbook definition, the oracle the fast path (`softmax`, in place, shared with
attention) is tested against; its bare formula `softmax_rows` is NumPy's one softmax, which
`reference_attention` and the model (`core.hooked`) call. torch's is `backends.torch_ops.masked_softmax`.
"""
from __future__ import annotations

import numpy as np

from attention_core.core.validation import (
    as_bool_mask,
    as_float_array,
    check_axis,
    check_broadcast,
    check_finite_scores,
    checked,
    positive_float,
)


def reference_softmax_inputs(x, axis: int = -1) -> dict:
    """reference_softmax's arguments, checked: at least one finite score, an axis of x."""
    x = as_float_array(x, "x")
    if x.size == 0:                                        # the same words as softmax's
        raise ValueError(f"x: expected at least one score, got an empty array of shape {x.shape}")
    return dict(x=x, axis=check_axis(axis, x.ndim))


@checked(reference_softmax_inputs, result="the weights")
def reference_softmax(x, axis: int = -1):
    """The readable definition: shift by the maximum, exponentiate, divide by the sum. A slice of only -inf
    (every key hidden, in attention) gets all-zero weights: shifted by 0 instead of -inf, divided by 1."""
    row_max = x.max(axis=axis, keepdims=True)
    row_max = np.where(np.isneginf(row_max), 0.0, row_max)  # [en] all hidden: shift by 0 [zh] 全被屏蔽：减去 0
    e = np.exp(x - row_max)                  # [en] every exponent <= 0: no overflow [zh] 指数都 <= 0，不会溢出
    total = e.sum(axis=axis, keepdims=True)
    return e / np.where(total == 0, 1.0, total)  # [en] each slice sums to 1 (or 0) [zh] 每一片之和为 1（或为 0）


# The same formula without the entry checks: the one softmax NumPy's attention (`reference_attention`) and the
# model (`core.hooked`) apply to scores whose hidden keys are -inf, which the entry check would refuse.
softmax_rows = reference_softmax.__wrapped__


def softmax(x, axis: int = -1, temperature: float = 1.0, mask=None):
    """Map real scores onto the probability simplex along `axis`.

    x: array (..., N) of finite real scores (lists are fine).
    temperature: > 0. Small -> close to one-hot on the maximum, large -> close to uniform.
    mask: optional boolean array broadcastable to x.shape; False entries get weight 0.
    Returns an array of x's shape and float dtype; each unmasked slice along `axis` sums to 1,
    and a slice that is entirely masked is all zeros.
    """
    x = as_float_array(x, "x")
    axis = check_axis(axis, x.ndim)
    t = positive_float(temperature, "temperature")
    if x.size == 0:
        raise ValueError(f"x: expected at least one score, got an empty array of shape {x.shape}")
    if mask is not None:
        mask = as_bool_mask(mask)
        check_broadcast(mask.shape, x.shape, "mask", "x of shape")
    out = np.array(x, dtype=compute_dtype(x.dtype), copy=True)
    return _softmax_inplace(out, axis, t, mask).astype(x.dtype, copy=False)


def compute_dtype(dtype) -> np.dtype:
    """The dtype softmax statistics are computed in: float32 for float16, else the dtype itself."""
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _softmax_inplace(scores: np.ndarray, axis: int, temperature: float = 1.0, mask=None) -> np.ndarray:
    """Softmax that overwrites `scores` (a float array we own); shared with attention for speed."""
    total = exp_shifted_inplace(scores, axis, temperature, mask)
    scores /= total
    return scores


def exp_shifted_inplace(scores: np.ndarray, axis: int, temperature: float = 1.0, mask=None,
                         overflow_check: str | None = None) -> np.ndarray:
    """Overwrite `scores` with exp((x - row max) / T), masked entries 0, and return the row sums.

    The unnormalised half of softmax: attention divides either these weights by the sums or, when
    it need not return weights, its (Tq, Dv) output instead, which is Tk/Dv times less work.
    A fully masked row stays all zeros and gets the sum 1, so dividing by it gives zeros, not NaN.
    Every pass is in place: no temporary the size of `scores` is made (beyond the mask's negation),
    except with a temperature in float16/32 (see the module docstring).
    overflow_check: a dtype name: raise FloatingPointError if the scores overflowed (attention's
    products can; softmax's validated input cannot). Without a mask it costs nothing: the row max
    computed here shows an overflow (+inf or NaN); with one, the unmasked max is taken first.
    """
    if overflow_check and mask is not None:
        check_finite_scores(scores.max(axis=axis), overflow_check)
    if mask is not None:
        np.copyto(scores, scores.dtype.type(-np.inf), where=~np.broadcast_to(mask, scores.shape))
    row_max = scores.max(axis=axis, keepdims=True)
    if overflow_check and mask is None:
        check_finite_scores(row_max, overflow_check)
    if mask is not None:
        row_max[row_max == -np.inf] = 0                      # fully masked row: keep it at -inf, no NaN
    with np.errstate(over="ignore"):                         # a gap beyond the dtype is -inf: weight 0, as meant
        scores -= row_max                                    # every exponent is now <= 0: no overflow
    if temperature != 1.0:
        # In float64: (x - max) / T is <= 0 for any T > 0, and 0 / T stays 0 (no 0/0 from a T rounded to 0).
        with np.errstate(over="ignore"):                     # a huge gap / tiny T is -inf: weight 0, as meant
            np.divide(scores, np.float64(temperature), out=scores, casting="unsafe")
    np.exp(scores, out=scores)                               # exp(-inf) = 0: masked weights are exactly 0
    total = scores.sum(axis=axis, keepdims=True)             # >= 1 wherever a row has an unmasked entry
    if mask is not None:
        total[total == 0] = 1                                # fully masked row stays all zeros
    return total
