"""Cosine similarity: how close two vectors point, whatever their lengths (notebooks 05 and 12, the plots).

    cos(a, b) = a · b / (|a| |b|)

Computed from unit vectors made on a / max|a|, so neither 1e200s overflow nor 1e-200s vanish.
"""
from __future__ import annotations

import numpy as np

from .validation import as_float_array, describe


def unit(a, name: str = "a") -> np.ndarray:
    """a / |a| over the last axis, in float64 (a zero vector has no direction: an error)."""
    a = as_float_array(a, name).astype(np.float64)
    if a.shape[-1] == 0:
        raise ValueError(f"{name}: expected at least one number, got an empty array of shape {a.shape}")
    top = np.abs(a).max(axis=-1, keepdims=True)
    if not (top > 0).all():
        raise ValueError(f"{name}: a zero vector has no direction, so its cosine is undefined")
    a = a / top
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def cosine(a, b) -> float:
    """cos(a, b) of two vectors of the same length, in [-1, 1]."""
    ua, ub = unit(a, "a"), unit(b, "b")
    if ua.ndim != 1 or ua.shape != ub.shape:
        raise ValueError(f"a and b: expected two vectors of the same length, got {describe(a)} and {describe(b)}")
    return float(np.clip(ua @ ub, -1.0, 1.0))
