"""Argument validation shared by every public function: clear errors, never deep NumPy tracebacks.

Each checker names the argument, what was expected and what came in, so that a learner who
passes the wrong thing reads the fix in the message instead of a broadcast error three calls deep.
The array checks read only `.shape` and `.dtype` (and two operators), so the torch backend runs
the very same checks on tensors: the rules are written once, here.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

FLOAT_DTYPES = ("float16", "float32", "float64")


# ---- describing what came in ---------------------------------------------------------------


def dtype_name(x) -> str:
    """'float32' for a NumPy array or a torch tensor of float32 (torch says 'torch.float32')."""
    return str(x.dtype).rpartition(".")[2]


def describe(x) -> str:
    """A short description of what a caller passed: type, shape and dtype when it has them."""
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{type(x).__name__} of shape {tuple(shape)} and dtype {dtype_name(x)}"
    text = f"{type(x).__name__} {x!r}"
    return text if len(text) <= 120 else text[:117] + "..."


# ---- arrays ---------------------------------------------------------------------------------


def check_float_array(x, name: str, *, min_ndim: int = 1, ndim: int | None = None):
    """Raise unless `x` (a NumPy array or a tensor) is a float array of finite numbers with the
    right number of dimensions; return it unchanged."""
    kind = dtype_name(x)
    shape = tuple(x.shape)
    if kind == "bool":
        raise TypeError(f"{name}: expected a float array, got a boolean array of shape {shape}")
    if kind.startswith("complex"):
        raise TypeError(f"{name}: expected real numbers, got complex numbers (dtype {kind}, shape {shape})")
    if kind not in FLOAT_DTYPES:
        raise TypeError(f"{name}: expected a float array (float16/32/64), got dtype {kind}")
    if ndim is not None and len(shape) != ndim:
        raise ValueError(f"{name}: expected {ndim} dimension(s), got shape {shape} ({len(shape)} dimensions)")
    if len(shape) < min_ndim:
        raise ValueError(f"{name}: expected at least {min_ndim} dimension(s), got shape {shape}")
    if math.prod(shape) and not _all_finite(x):
        raise ValueError(f"{name}: contains NaN or infinity; expected finite numbers "
                         "(use `mask=` to hide positions instead of -inf)")
    return x


def as_float_array(x, name: str, *, min_ndim: int = 1, ndim: int | None = None) -> np.ndarray:
    """Return `x` as a floating NumPy array (lists of numbers are accepted and become float64).

    Integer arrays are promoted to float64 (a learner's `np.array([1, 0])` should just work);
    booleans, strings, objects and complex numbers are refused, as are NaN and infinity.
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name}: expected an array of real numbers, got {describe(x)}")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError, RuntimeError):             # ragged nested lists, CUDA tensors
        raise TypeError(f"{name}: expected a rectangular array of numbers, got {describe(x)}") from None
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind in "OUSV":
        raise TypeError(f"{name}: expected an array of real numbers, got {describe(x)}")
    return check_float_array(arr, name, min_ndim=min_ndim, ndim=ndim)


def check_bool_mask(mask, name: str = "mask"):
    """Raise unless `mask` is boolean (True = may attend); return it unchanged. 0/1 integer arrays
    are refused on purpose: additive float masks and boolean masks are easy to confuse."""
    if dtype_name(mask) != "bool":
        raise TypeError(f"{name}: expected a boolean array (True = may attend), got dtype {dtype_name(mask)}; "
                        "convert with `mask.astype(bool)` if 1 means 'may attend'")
    if len(tuple(mask.shape)) == 0:
        raise ValueError(f"{name}: expected an array of at least 1 dimension, got a single boolean")
    return mask


def as_bool_mask(mask, name: str = "mask") -> np.ndarray:
    """`mask` as a NumPy boolean array (see check_bool_mask)."""
    if isinstance(mask, (str, bytes)):
        raise TypeError(f"{name}: expected a boolean array (True = may attend), got {describe(mask)}")
    try:
        arr = np.asarray(mask)
    except (ValueError, TypeError, RuntimeError):
        raise TypeError(f"{name}: expected a rectangular boolean array, got {describe(mask)}") from None
    return check_bool_mask(arr, name)


def _foreign_array(x) -> bool:
    # An array object that is not NumPy's (a torch tensor): it has a shape and a dtype of its own.
    return not isinstance(x, (np.ndarray, np.generic)) and hasattr(x, "shape") and hasattr(x, "dtype")


def as_float(x, name: str, *, min_ndim: int = 1, ndim: int | None = None):
    """as_float_array for NumPy input and lists; a tensor is checked by the same rules and kept,
    so a function written with operators both libraries share serves both."""
    if _foreign_array(x):
        return check_float_array(x, name, min_ndim=min_ndim, ndim=ndim)
    return as_float_array(x, name, min_ndim=min_ndim, ndim=ndim)


def as_mask(mask, name: str = "mask"):
    """as_bool_mask for NumPy input and lists; a boolean tensor is checked and kept (see as_float)."""
    if _foreign_array(mask):
        return check_bool_mask(mask, name)
    return as_bool_mask(mask, name)


def check_broadcast(shape_from, shape_to, name: str, target: str) -> None:
    """Raise unless `shape_from` broadcasts to `shape_to` without changing `shape_to`."""
    try:
        out = np.broadcast_shapes(tuple(shape_from), tuple(shape_to))
    except ValueError:
        out = None
    if out != tuple(shape_to):
        raise ValueError(f"{name}: shape {tuple(shape_from)} does not broadcast to {target} {tuple(shape_to)}")


def check_attention_inputs(q, k, v, mask, scale) -> float:
    """The rules of attention's inputs, on arrays or tensors already checked to be float arrays:
    one dtype, q and k of the same width Dk, k and v of the same length Tk, batch dimensions that
    broadcast, a mask that broadcasts to the scores (..., Tq, Tk). Returns the resolved scale."""
    qs, ks, vs = tuple(q.shape), tuple(k.shape), tuple(v.shape)
    if not (dtype_name(q) == dtype_name(k) == dtype_name(v)):
        raise TypeError(f"q, k, v: expected one float dtype, got {dtype_name(q)}, {dtype_name(k)}, {dtype_name(v)}")
    if qs[-1] != ks[-1]:
        raise ValueError(f"q and k: expected the same width Dk, got q of shape {qs} (Dk={qs[-1]}) "
                         f"and k of shape {ks} (Dk={ks[-1]})")
    if ks[-2] != vs[-2]:
        raise ValueError(f"k and v: expected the same length Tk, got k of shape {ks} (Tk={ks[-2]}) "
                         f"and v of shape {vs} (Tk={vs[-2]})")
    if qs[-2] == 0 or ks[-2] == 0 or qs[-1] == 0:
        raise ValueError(f"q, k: expected at least one query, one key and Dk >= 1, got q {qs}, k {ks}")
    try:
        batch = np.broadcast_shapes(qs[:-2], ks[:-2], vs[:-2])
    except ValueError:
        raise ValueError(f"q, k, v: batch dimensions {qs[:-2]}, {ks[:-2]}, {vs[:-2]} "
                         "do not broadcast together") from None
    if mask is not None:
        check_bool_mask(mask)
        check_broadcast(mask.shape, batch + (qs[-2], ks[-2]), "mask", "the scores (..., Tq, Tk) of shape")
    if scale is None:
        return 1.0 / math.sqrt(qs[-1])
    return positive_float(scale, "scale", hint=" (default 1/sqrt(Dk))")


def _all_finite(x) -> bool:
    if isinstance(x, (np.ndarray, np.generic)):
        return bool(np.isfinite(x).all())
    # x - x is 0 for every finite number and NaN for inf or NaN: a test any array library understands.
    return bool(((x - x) == 0).all())


def _remedy(dtype: str) -> str:
    return "scale the inputs down" + ("" if dtype == "float64" else ", or compute in float64")


def check_finite_scores(row_max, dtype: str, where: str = "q·k * scale") -> None:
    """Raise a clear FloatingPointError when scores overflowed: their row maxima show it (an
    overflowed score is +inf, or NaN where +inf met -inf, or -inf in every column), at the cost
    of Tq numbers, not Tq*Tk."""
    if not _all_finite(row_max):
        raise FloatingPointError(f"attention scores overflowed {dtype}: {where} is beyond its largest number "
                                 f"({float(np.finfo(dtype).max):.3g}); {_remedy(dtype)}")


def check_finite_result(x, what: str, dtype: str) -> None:
    """Raise a clear FloatingPointError when finite inputs produced a non-finite result."""
    if math.prod(tuple(x.shape)) and not _all_finite(x):
        raise FloatingPointError(f"{what} overflowed {dtype} although every input was finite; {_remedy(dtype)}")


# ---- hook values ------------------------------------------------------------------------------


def numpy_of(x):
    """A NumPy view of an array or a tensor (detached, on the CPU); anything else as it is."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def own_copy(value):
    """A copy of an array or a tensor that shares no memory with it (a tensor's copy stays in autograd's
    graph): what a hook function and a cache receive, so an edit in place reaches nothing else."""
    return value.clone() if hasattr(value, "clone") else value.copy()


def check_replacement(out, value, name: str):
    """What a hook on `name` returned in place of `value`: an array of the same library, kind and shape.
    A float of another precision is cast to value's dtype (the forward keeps its dtype); a list, a number,
    integers, booleans, complex numbers or the other library's tensor are refused, saying what came in."""
    tensor = hasattr(value, "detach")
    library = "a torch tensor" if tensor else "a NumPy array"
    hint = (f"expected None (read only) or {library} of shape {tuple(value.shape)} and dtype {dtype_name(value)} "
            f"like the value it was given")
    same_library = hasattr(out, "detach") if tensor else isinstance(out, np.ndarray)
    if not same_library:
        raise TypeError(f"hook on {name}: {hint}, got {describe(out)}")
    kind = dtype_name(out)
    if kind.startswith("complex"):
        raise TypeError(f"hook on {name}: {hint}, got complex numbers ({kind}); return the real part")
    if kind not in FLOAT_DTYPES and kind != "bfloat16":
        raise TypeError(f"hook on {name}: {hint}, got dtype {kind} (the rest of the forward would run in "
                        f"{kind if kind == 'bool' else 'another dtype'}); cast it to the value's dtype")
    if tuple(out.shape) != tuple(value.shape):
        raise ValueError(f"hook on {name}: expected the replacement to keep shape {tuple(value.shape)}, "
                         f"got {tuple(out.shape)}")
    if tensor:
        return out if (out.dtype, out.device) == (value.dtype, value.device) else out.to(value.device, value.dtype)
    return out if out.dtype == value.dtype else out.astype(value.dtype)


# ---- token ids ------------------------------------------------------------------------------


def check_ids(ids, vocab_size: int, max_len: int, name: str = "ids") -> np.ndarray:
    """Token ids as an integer array (T,) or (B, T) with 0 <= id < V and 1 <= T <= T_max."""
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{name}: expected integer token ids, got the text {describe(ids)[4:]}; encode it first")
    try:
        arr = np.asarray(ids)
    except (ValueError, TypeError):                          # ragged lists
        raise TypeError(f"{name}: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}") from None
    if arr.size == 0 and arr.ndim in (1, 2):
        raise ValueError(f"{name}: expected at least one sequence of 1..{max_len} tokens, got an empty array of "
                         f"shape {arr.shape}")
    if arr.dtype.kind not in "iu" or arr.ndim not in (1, 2):
        raise TypeError(f"{name}: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}")
    t = arr.shape[-1]
    if t == 0 or t > max_len:
        raise ValueError(f"{name}: expected 1..{max_len} tokens (the model's max_len), got {t}")
    if arr.size and (arr.min() < 0 or arr.max() >= vocab_size):
        bad = arr[(arr < 0) | (arr >= vocab_size)]
        raise ValueError(f"{name}: token ids must lie in 0..{vocab_size - 1} (the vocabulary), "
                         f"got {bad[:5].tolist()}")
    return arr.astype(np.int64)



# ---- settings ---------------------------------------------------------------------------------


def _is_real_number(x) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iuf":
        return True
    return isinstance(x, numbers.Real)


def positive_int(x, name: str, *, minimum: int = 1) -> int:
    """An integer >= minimum (bools, floats like 2.5 and strings are refused)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name}: expected an integer >= {minimum}, got {describe(x)}")
    if x < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {int(x)}")
    return int(x)


def positive_float(x, name: str, *, hint: str = "") -> float:
    """A finite real number > 0 (Python or NumPy scalars and 0-d arrays; strings are refused)."""
    if not _is_real_number(x):
        raise TypeError(f"{name}: expected a positive number{hint}, got {describe(x)}")
    value = float(x)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name}: expected a finite number > 0{hint}, got {value}")
    return value


def real_number(x, name: str) -> float:
    """Any finite real number."""
    if not _is_real_number(x):
        raise TypeError(f"{name}: expected a number, got {describe(x)}")
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value}")
    return value


def check_axis(axis, ndim: int, name: str = "axis") -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {describe(axis)}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: {axis} is out of range for an array with {ndim} dimension(s)")
    return int(axis) % ndim


def check_flag(x, name: str) -> bool:
    """True or False only: a string such as 'no' or 'False' would otherwise count as True."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {describe(x)}")
    return bool(x)


def as_generator(seed, name: str = "seed") -> np.random.Generator:
    """A NumPy Generator from a seed (an integer >= 0) or a Generator passed through: the one
    place where randomness enters, so every result is reproducible."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name}: expected an integer >= 0 or a numpy.random.Generator, got {describe(seed)}")
    if seed < 0:
        raise ValueError(f"{name}: expected an integer >= 0, got {int(seed)}")
    return np.random.default_rng(int(seed))


def float_dtype(dtype, name: str = "dtype") -> np.dtype:
    """np.float16/32/64 (or their names); anything else, bool and integers included, is refused."""
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        resolved = None
    if resolved is None or resolved.name not in FLOAT_DTYPES:
        raise TypeError(f"{name}: expected a float dtype (float16, float32 or float64), got {dtype!r}")
    return resolved


# ---- entry points: checks in front, bare formulas behind ---------------------------------------


def checked(check, *, result: str | None = None):
    """Decorator of a public function whose body is bare maths: `check(**arguments)` validates and converts
    the arguments at the entry point (returning them as a dict, or a dict and a function applied to the
    result: a cast back to the caller's dtype), so the formula below reads like the paper, and
    `inspect.getsource` (which follows the wrapper) shows the formula with this one line above it.

    result: a name for the output; the formula then runs with NumPy's overflow warnings off and an output
    (or each array of a returned tuple) that is not finite raises FloatingPointError naming it and its dtype."""
    import functools
    import inspect

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def entry(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = check(**bound.arguments)
            arguments, finish = arguments if isinstance(arguments, tuple) else (arguments, None)
            if result is None:
                out = fn(**arguments)
            else:
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    out = fn(**arguments)
                for part in out if isinstance(out, tuple) else (out,):
                    if part is not None and hasattr(part, "dtype"):
                        check_finite_result(part, f"{fn.__name__}: {result}", dtype_name(part))
            return out if finish is None else finish(out)

        return entry
    return wrap
