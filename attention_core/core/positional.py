"""Position information: the sinusoidal table of "Attention Is All You Need" and RoPE.

Self-attention alone is permutation-equivariant, so order has to be injected: either added to
the inputs (sinusoidal or learned tables) or rotated into q and k (RoPE), where the rotated
q . k depends only on the offset between the two positions.
Through `attention_core.*` the tables also take `like=` (a table comes back in like's type, float
dtype and device) and apply_rope accepts tensors (see attention_core/backends).
"""
from __future__ import annotations

import numpy as np

from attention_core.core.validation import (
    as_float_array,
    as_generator,
    check_finite_result,
    describe,
    positive_float,
    positive_int,
)


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """(T, D) table: PE[p, 2i] = sin(p / base^(2i/D)), PE[p, 2i+1] = cos(p / base^(2i/D))."""
    n_positions = positive_int(n_positions, "n_positions")
    d_model = positive_int(d_model, "d_model")
    base = positive_float(base, "base")
    pos = np.arange(n_positions)[:, None]                          # (T, 1)
    two_i = np.arange(0, d_model, 2)[None, :]                      # (1, ceil(D/2))
    with np.errstate(all="ignore"):                                # a base too small or too large: said below
        angles = pos / base ** (two_i / d_model)                   # (T, ceil(D/2))
        table = np.empty((n_positions, d_model))
        table[:, 0::2] = np.sin(angles)
        table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    if not np.isfinite(table).all():
        raise ValueError(f"base: {base:g} makes the angles p / base^(2i/D) overflow for d_model = {d_model}; "
                         "use a base near the usual 10000")
    return table


def rope_frequencies(d_head: int, base: float = 10000.0) -> np.ndarray:
    """(Dh/2,) angular speeds theta_i = base^(-2i/Dh) of the rotated pairs."""
    d_head = positive_int(d_head, "d_head")
    if d_head % 2:
        raise ValueError(f"d_head: RoPE rotates pairs of dimensions, so it must be even, got {d_head}")
    return positive_float(base, "base") ** (-np.arange(0, d_head, 2) / d_head)


def apply_rope(x, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotate each pair (x[2i], x[2i+1]) of x (..., T, Dh) by the angle positions[t] * theta_i.

    positions: (T,) numbers, default 0..T-1. Uses the interleaved pairing of the RoFormer paper.
    """
    x = as_float_array(x, "x", min_ndim=2)
    t, d = x.shape[-2:]
    theta = rope_frequencies(d, base)                              # (Dh/2,)
    if positions is None:
        positions = np.arange(t)
    positions = as_float_array(positions, "positions", ndim=1)
    if positions.shape != (t,):
        raise ValueError(f"positions: expected shape ({t},) (one per row of x), got {describe(positions)}")
    angle = positions[:, None] * theta[None, :]                    # (T, Dh/2)
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]                         # (..., T, Dh/2) each
    out = np.empty_like(x)
    with np.errstate(over="ignore", invalid="ignore"):            # an overflow is reported below, in words
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
    check_finite_result(out, "apply_rope: the rotated pairs", x.dtype.name)   # near the dtype's largest value
    return out


def learned_position_table(n_positions: int, d_model: int, *, seed=0, scale: float = 0.02) -> np.ndarray:
    """A randomly initialised (T, D) table, as a learned position embedding starts before training."""
    n_positions = positive_int(n_positions, "n_positions")
    d_model = positive_int(d_model, "d_model")
    rng = as_generator(seed)
    table = rng.normal(0.0, positive_float(scale, "scale"), (n_positions, d_model))
    check_finite_result(table, "learned_position_table: a normal table of this scale", "float64")
    return table
