"""Argument validation shared by every public function: clear errors, never deep NumPy tracebacks.

Each checker names the argument, what was expected and what came in, so that a learner who
passes the wrong thing reads the fix in the message instead of a broadcast error three calls deep.
"""
from __future__ import annotations

import numbers

import numpy as np

FLOAT_DTYPES = (np.float16, np.float32, np.float64)


def describe(x) -> str:
    """A short description of what a caller passed: type, shape and dtype when it has them."""
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is not None:
        return f"{type(x).__name__} of shape {tuple(shape)} and dtype {dtype}"
    return f"{type(x).__name__} {x!r}"[:120]


def as_float_array(x, name: str, *, min_ndim: int = 1, ndim: int | None = None) -> np.ndarray:
    """Return `x` as a floating NumPy array (lists of numbers are accepted and become float64).

    Integer arrays are promoted to float64 (a learner's `np.array([1, 0])` should just work);
    booleans, strings, objects and complex numbers are refused, as are NaN and infinity.
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name}: expected an array of real numbers, got {describe(x)}")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise TypeError(f"{name}: expected a rectangular array of numbers, got {describe(x)} ({exc})") from None
    if arr.dtype == bool:
        raise TypeError(f"{name}: expected a float array, got a boolean array of shape {arr.shape}")
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"{name}: expected a float array (float16/32/64), got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name}: expected {ndim} dimensions, got shape {arr.shape} ({arr.ndim} dimensions)")
    if arr.ndim < min_ndim:
        raise ValueError(f"{name}: expected at least {min_ndim} dimension(s), got shape {arr.shape}")
    if arr.size and not np.isfinite(arr).all():
        raise ValueError(f"{name}: contains NaN or infinity; expected finite numbers "
                         "(use `mask=` to hide positions instead of -inf)")
    return arr


def as_bool_mask(mask, name: str = "mask") -> np.ndarray:
    """Return a boolean mask (True = may attend). 0/1 integer arrays are refused on purpose:
    additive float masks and boolean masks are easy to confuse, so only booleans are accepted."""
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(f"{name}: expected a boolean array (True = may attend), got dtype {arr.dtype}; "
                        "convert with `mask.astype(bool)` if 1 means 'may attend'")
    return arr


def check_broadcast(shape_from, shape_to, name: str, target: str) -> None:
    """Raise unless `shape_from` broadcasts to `shape_to` without changing `shape_to`."""
    try:
        out = np.broadcast_shapes(tuple(shape_from), tuple(shape_to))
    except ValueError:
        out = None
    if out != tuple(shape_to):
        raise ValueError(f"{name}: shape {tuple(shape_from)} does not broadcast to {target} {tuple(shape_to)}")


def positive_int(x, name: str, *, minimum: int = 1) -> int:
    """An integer >= minimum (bools and floats like 2.5 are refused)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name}: expected an integer >= {minimum}, got {describe(x)}")
    if x < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {x}")
    return int(x)


def positive_float(x, name: str) -> float:
    """A finite real number > 0."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a positive number, got {describe(x)}")
    if not np.isfinite(x) or x <= 0:
        raise ValueError(f"{name}: expected a finite number > 0, got {x}")
    return float(x)


def check_axis(axis, ndim: int, name: str = "axis") -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {describe(axis)}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: {axis} is out of range for an array with {ndim} dimension(s)")
    return int(axis) % ndim
