"""Attention masks as boolean arrays, True = "this query may attend to this key" (torch's
convention for `scaled_dot_product_attention`). Shapes: causal and sliding-window masks are
(Tq, Tk); padding masks are (B, 1, Tk) so they broadcast over the queries of each sequence.
`like=`: the mask comes back as the same kind of array as `like` (a torch tensor: on its device);
combine_masks and additive_mask follow their inputs' type (see backends.py).
"""
from __future__ import annotations

import numpy as np

from attention_core.backends import as_like, is_torch
from attention_core.core.validation import as_bool_mask, describe, positive_int


def causal_mask(t_q: int, t_k: int | None = None, offset: int = 0, *, like=None) -> np.ndarray:
    """Look-ahead mask (Tq, Tk): query i may see key j when j <= i + offset.

    offset=0 is the usual square training mask (lower triangle, like torch's is_causal).
    For incremental decoding with a KV cache of Tk keys and Tq new queries, use
    offset = Tk - Tq so that the last query sees every key.
    """
    t_q = positive_int(t_q, "t_q")
    t_k = t_q if t_k is None else positive_int(t_k, "t_k")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise TypeError(f"offset: expected an integer, got {describe(offset)}")
    i = np.arange(t_q)[:, None]
    j = np.arange(t_k)[None, :]
    return as_like(j <= i + offset, like)                    # (Tq, Tk)


def padding_mask(lengths, max_len: int | None = None, *, like=None) -> np.ndarray:
    """Key padding mask (B, 1, Tk) from the true lengths of B sequences padded to max_len.

    Key j of sequence b is visible when j < lengths[b]; the middle axis broadcasts over queries.
    """
    if is_torch(lengths):                                    # a tensor of lengths: a mask on its device
        return padding_mask(lengths.tolist(), max_len, like=lengths if like is None else like)
    arr = np.asarray(lengths)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise TypeError(f"lengths: expected a 1-D list of non-negative integers, got {describe(lengths)}")
    if (arr < 0).any():
        raise ValueError(f"lengths: expected non-negative integers, got {arr.tolist()}")
    t_k = int(arr.max()) if max_len is None else positive_int(max_len, "max_len")
    if arr.max() > t_k:
        raise ValueError(f"lengths: the longest sequence ({arr.max()}) exceeds max_len ({t_k})")
    if t_k == 0:
        raise ValueError("lengths: every sequence has length 0; nothing can be attended to")
    return as_like((np.arange(t_k)[None, :] < arr[:, None])[:, None, :], like)   # (B, 1, Tk)


def sliding_window_mask(t_q: int, window: int, t_k: int | None = None, causal: bool = True, *,
                        like=None) -> np.ndarray:
    """Local-window mask (Tq, Tk): query i sees keys at distance < window.

    causal=True: keys i-window+1 .. i (window keys, the current one included, as in Mistral).
    causal=False: keys with |i - j| < window on both sides.
    """
    t_q = positive_int(t_q, "t_q")
    t_k = t_q if t_k is None else positive_int(t_k, "t_k")
    window = positive_int(window, "window")
    distance = np.arange(t_q)[:, None] - np.arange(t_k)[None, :]   # i - j, (Tq, Tk)
    if causal:
        return as_like((distance >= 0) & (distance < window), like)
    return as_like(np.abs(distance) < window, like)


def combine_masks(*masks) -> np.ndarray:
    """Logical AND of boolean masks with broadcasting: a key is visible only if every mask allows it.
    None entries are skipped (so optional masks can be passed straight through)."""
    if any(is_torch(m) for m in masks):
        from attention_core.backends import torch_ops
        return torch_ops.combine_masks(*masks)
    present = [as_bool_mask(m, f"masks[{i}]") for i, m in enumerate(masks) if m is not None]
    if not present:
        raise ValueError("combine_masks: expected at least one mask, got none")
    try:
        shape = np.broadcast_shapes(*(m.shape for m in present))
    except ValueError:
        raise ValueError("combine_masks: shapes " + ", ".join(str(m.shape) for m in present)
                         + " do not broadcast together") from None
    out = np.ones(shape, dtype=bool)
    for m in present:
        out &= m
    return out


def additive_mask(mask, dtype=np.float64) -> np.ndarray:
    """The same mask as numbers to add to scores before softmax: 0 where visible, -inf where not."""
    if is_torch(mask):
        from attention_core.backends import torch_ops
        return torch_ops.additive_mask(mask, dtype)
    mask = as_bool_mask(mask)
    return np.where(mask, 0.0, -np.inf).astype(dtype)
