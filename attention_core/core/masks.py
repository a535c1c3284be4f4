"""Attention masks as boolean arrays, True = "this query may attend to this key" (torch's
convention for `scaled_dot_product_attention`). Shapes: causal and sliding-window masks are
(Tq, Tk); padding masks are (B, 1, Tk) so they broadcast over the queries of each sequence.
Through `attention_core.*` the builders also take `like=` (the mask comes back as the same kind of
array as `like`, a torch tensor on its device) and combine_masks / additive_mask accept tensors;
that conversion is the backends' job (attention_core/backends), not this module's.
"""
from __future__ import annotations

import numpy as np

from attention_core.core.validation import as_bool_mask, as_mask, check_flag, describe, float_dtype, positive_int


def causal_mask(t_q: int, t_k: int | None = None, offset: int = 0) -> np.ndarray:
    """Look-ahead mask (Tq, Tk): query i may see key j when j <= i + offset.

    offset=0 is the usual square training mask (lower triangle, like torch's is_causal).
    For incremental decoding with a KV cache of Tk keys and Tq new queries, use
    offset = Tk - Tq so that the last query sees every key.
    """
    t_q = positive_int(t_q, "t_q")
    t_k = t_q if t_k is None else positive_int(t_k, "t_k")
    if isinstance(offset, (bool, np.bool_)) or not isinstance(offset, (int, np.integer)):
        raise TypeError(f"offset: expected an integer, got {describe(offset)}")
    offset = max(-t_q, min(int(offset), t_k))               # beyond these every entry is False / True anyway
    i = np.arange(t_q)[:, None]
    j = np.arange(t_k)[None, :]
    return j <= i + offset                                   # (Tq, Tk)


def padding_mask(lengths, max_len: int | None = None) -> np.ndarray:
    """Key padding mask (B, 1, Tk) from the true lengths of B sequences padded to max_len.

    Key j of sequence b is visible when j < lengths[b]; the middle axis broadcasts over queries.
    """
    try:
        arr = np.asarray(lengths)
    except ValueError:                                       # ragged: [[1], [2, 3]]
        arr = np.asarray(None, dtype=object)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise TypeError(f"lengths: expected a 1-D list of non-negative integers, got {describe(lengths)}")
    if (arr < 0).any():
        raise ValueError(f"lengths: expected non-negative integers, got {arr.tolist()}")
    if arr.max() > np.iinfo(np.int64).max:                   # uint64 beyond int64: no mask is that long
        raise ValueError(f"lengths: expected lengths below 2**63, got {int(arr.max())}")
    t_k = int(arr.max()) if max_len is None else positive_int(max_len, "max_len")
    if arr.max() > t_k:
        raise ValueError(f"lengths: the longest sequence ({arr.max()}) exceeds max_len ({t_k})")
    if t_k == 0:
        raise ValueError("lengths: every sequence has length 0; nothing can be attended to")
    return (np.arange(t_k)[None, :] < arr[:, None])[:, None, :]   # (B, 1, Tk)


def sliding_window_mask(t_q: int, window: int, t_k: int | None = None, causal: bool = True) -> np.ndarray:
    """Local-window mask (Tq, Tk): query i sees keys at distance < window.

    causal=True: keys i-window+1 .. i (window keys, the current one included, as in Mistral).
    causal=False: keys with |i - j| < window on both sides.
    """
    t_q = positive_int(t_q, "t_q")
    t_k = t_q if t_k is None else positive_int(t_k, "t_k")
    window = positive_int(window, "window")
    causal = check_flag(causal, "causal")
    distance = np.arange(t_q)[:, None] - np.arange(t_k)[None, :]   # i - j, (Tq, Tk)
    if causal:
        return (distance >= 0) & (distance < window)
    return np.abs(distance) < window


def combine_masks(*masks) -> np.ndarray:
    """Logical AND of boolean masks with broadcasting: a key is visible only if every mask allows it.
    None entries are skipped (so optional masks can be passed straight through)."""
    present = [as_mask(m, f"masks[{i}]") for i, m in enumerate(masks) if m is not None]
    if not present:
        raise ValueError("combine_masks: expected at least one mask, got none")
    try:
        np.broadcast_shapes(*(tuple(m.shape) for m in present))
    except ValueError:
        raise ValueError("combine_masks: shapes " + ", ".join(str(tuple(m.shape)) for m in present)
                         + " do not broadcast together") from None
    out = present[0] & True                       # a new array (or tensor): the inputs stay untouched
    for m in present[1:]:
        out = out & m                             # broadcasts; the same operator in NumPy and torch
    return out


def additive_mask(mask, dtype=np.float64) -> np.ndarray:
    """The same mask as numbers to add to scores before softmax: 0 where visible, -inf where not."""
    dtype = float_dtype(dtype)              # an integer or boolean dtype cannot hold -inf
    mask = as_bool_mask(mask)
    return np.where(mask, 0.0, -np.inf).astype(dtype)
