"""Backends: NumPy always; torch (CPU or CUDA) only when installed and asked for. The one dispatch.

The library (`attention_core.core`) is NumPy only. This layer wraps its public functions, once,
in `attention_core/__init__.py`, and routes each call:

- **compute functions** (softmax, scaled_dot_product_attention, attention_scores, tiled_attention,
  multi_head_attention, split_heads, merge_heads, apply_rope, combine_masks, additive_mask) follow
  their inputs: if any array argument is a torch tensor, the call runs in torch on that tensor's
  device and returns tensors; NumPy arrays or lists passed beside it are moved to the same device
  first (one documented rule for mixed inputs). scaled_dot_product_attention and
  multi_head_attention also take `backend=` ("numpy", "torch", "auto") and `device=`; the result
  comes back in the type of the input either way (NumPy in, backend="torch" -> NumPy out; tensors
  in, backend="numpy" -> computed by the NumPy library on the CPU, tensors out).
- **table builders** (causal_mask, padding_mask, sliding_window_mask, sinusoidal_encoding,
  rope_frequencies, learned_position_table) take `like=`: they compute in NumPy (they depend only
  on integers and cost nothing next to attention) and return the result as the same kind of array
  as `like`, on its device, in its float dtype (masks stay boolean).

torch is imported lazily, by `load_torch_ops()`, never at `import attention_core` time. The torch code
(`torch_ops.py`) holds only what differs from NumPy: conversion, devices, torch's one softmax, the fused
kernel, and the namespace with which the library's own formulas (`core.hooked`: attention, multi-head
attention, layer norm) run on tensors. Validation and shape rules are the library's own.
Beside it, loaded only when asked for: `torch_decoder.py` (`to_torch_decoder`: decoder_forward as a
trainable nn.Module, built from torch_ops) and `gpt2.py` (`load_gpt2`: Hugging Face GPT-2 weights as
DecoderParams; transformers imported inside its functions).
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import platform
from dataclasses import dataclass, field

import numpy as np

BACKENDS = (None, "numpy", "torch", "auto")
INSTALL_HINT = "pip install torch==2.13.0"


def torch_available() -> bool:
    """True when torch can be imported (does not import it)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):           # a blocked or half-imported torch counts as missing
        return False


def require_torch():
    """Import and return torch, or explain how to install it."""
    try:
        import torch
    except ImportError:
        raise ImportError("This needs the optional torch backend, which is not installed. "
                          f"Install it with `{INSTALL_HINT}` (the pinned CPU build), "
                          "or use the NumPy backend (backend='numpy').") from None
    return torch


def load_torch_ops():
    """The torch half of this layer (imports torch on first use, with the install hint if missing)."""
    require_torch()
    return importlib.import_module("attention_core.backends.torch_ops")


def is_tensor(x) -> bool:
    """True for a torch tensor; checked by type name so that NumPy-only use never imports torch.
    The one tensor test of the package."""
    return type(x).__module__.split(".")[0] == "torch"


def check_backend(backend) -> None:
    if not (backend is None or isinstance(backend, str)) or backend not in BACKENDS:
        raise ValueError(f"backend: expected one of None, 'numpy', 'torch', 'auto', got {backend!r}")


def _array_arguments(bound: inspect.BoundArguments, names) -> list:
    values = []
    for name in names:
        value = bound.arguments.get(name)
        values.extend(value if isinstance(value, tuple) and name == "masks" else [value])
    return values


def _first_tensor(values):
    return next((v for v in values if is_tensor(v)), None)


def compute(numpy_fn, torch_name: str, arrays: tuple[str, ...], *, choose_backend: bool = False):
    """Wrap a library function so that tensors in are computed by `torch_ops.<torch_name>`.

    arrays: the names of the array arguments that decide the route. choose_backend: the public
    function also takes backend= and device= (scaled_dot_product_attention, multi_head_attention).
    """
    signature = inspect.signature(numpy_fn)

    def route(args, kwargs, backend=None, device=None):
        check_backend(backend)
        bound = signature.bind(*args, **kwargs)
        like = _first_tensor(_array_arguments(bound, arrays))
        if backend == "numpy" or (like is None and device is None and backend is None):
            if like is None:
                if device is not None and str(device) != "cpu":
                    raise ValueError(f"device: the NumPy backend computes on the CPU only, got device={device!r}; "
                                     "use backend='torch' to compute on a GPU")
                return numpy_fn(*args, **kwargs)
            return load_torch_ops().numpy_on_tensors(numpy_fn, bound, arrays, like, device)
        if like is None and backend == "auto" and device is None and not torch_available():
            return numpy_fn(*args, **kwargs)               # "auto" without torch: NumPy
        ops = load_torch_ops()
        dev = ops.resolve_device(backend, device, like)
        out = getattr(ops, torch_name)(*bound.args, **bound.kwargs, device=dev)
        return out if like is not None else ops.to_numpy_outputs(out)

    if choose_backend:
        @functools.wraps(numpy_fn)
        def call(*args, backend: str | None = None, device=None, **kwargs):
            return route(args, kwargs, backend, device)
        extra = [inspect.Parameter("backend", inspect.Parameter.KEYWORD_ONLY, default=None),
                 inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None)]
    else:
        @functools.wraps(numpy_fn)
        def call(*args, **kwargs):
            return route(args, kwargs)
        extra = []
    call.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *extra])
    return call


def table(numpy_fn):
    """Wrap a table builder (a mask or a position table) so that it takes `like=`."""
    signature = inspect.signature(numpy_fn)

    @functools.wraps(numpy_fn)
    def call(*args, like=None, **kwargs):
        bound = signature.bind(*args, **kwargs)
        first = next(iter(bound.arguments.values()), None)
        if is_tensor(first):                               # padding_mask(tensor of lengths)
            bound.arguments[next(iter(bound.arguments))] = first.tolist()
            like = first if like is None else like
        return as_like(numpy_fn(*bound.args, **bound.kwargs), like)

    call.__signature__ = signature.replace(parameters=[
        *signature.parameters.values(), inspect.Parameter("like", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return call


def as_like(arr: np.ndarray, like):
    """Return the NumPy result `arr` as the same kind of array as `like` (None: unchanged).

    A float result takes like's float dtype (a boolean or integer `like` leaves it as it is);
    a torch `like` also sets the device.
    """
    if like is None:
        return arr
    if is_tensor(like):
        return load_torch_ops().from_numpy_like(arr, like)
    if not isinstance(like, np.ndarray):
        raise TypeError(f"like: expected a NumPy array or a torch tensor, got {type(like).__name__}")
    if arr.dtype.kind == "f" and like.dtype.kind == "f":
        return arr.astype(like.dtype, copy=False)
    return arr


def to_torch_mha(params, dtype=None, device=None):
    """A `torch.nn.MultiheadAttention` (batch_first=True) holding exactly the weights of `params`
    (MultiHeadParams). torch's boolean attn_mask means NOT allowed there: pass `~mask`."""
    return load_torch_ops().to_torch_mha(params, dtype, device)


def from_torch_mha(module):
    """The MultiHeadParams of a `torch.nn.MultiheadAttention` (refuses options it cannot translate)."""
    return load_torch_ops().from_torch_mha(module)


def to_torch_decoder(weights, n_heads=None, *, dtype=None, device=None, causal=None):
    """The decoder's torch twin (`torch_decoder.TorchDecoder`, a trainable nn.Module) holding the
    weights of DecoderParams or of a flat {name: array} dict (then its DecoderConfig, or n_heads, is
    needed); causal=False builds the same stack as an encoder (None: the config's)."""
    load_torch_ops()
    return importlib.import_module("attention_core.backends.torch_decoder").to_torch_decoder(
        weights, n_heads, dtype=dtype, device=device, causal=causal)


def load_gpt2(source="gpt2", *, download: bool = False, cache_dir=None, dtype=None):
    """Hugging Face GPT-2 weights as DecoderParams (`gpt2.load_gpt2`): from a transformers model object,
    a folder written by save_pretrained, or a hub name (downloaded only with download=True)."""
    return importlib.import_module("attention_core.backends.gpt2").load_gpt2(
        source, download=download, cache_dir=cache_dir, dtype=dtype)


@dataclass(frozen=True)
class BackendReport:
    """What this machine offers: the versions, the CUDA devices, and where backend="auto" computes.
    Its text, in English or Chinese, is the teaching layer's (`teaching.environment`)."""
    python_version: str
    numpy_version: str
    torch_version: str | None
    cuda_available: bool
    cuda_devices: tuple[str, ...] = field(default_factory=tuple)
    auto_device: str = "numpy"          # "cuda:0", "cpu" (torch on the CPU) or "numpy"


def backend_report() -> BackendReport:
    """Collect the report (imports torch only if it is installed)."""
    torch_version, cuda, devices, auto = None, False, (), "numpy"
    if torch_available():
        torch = require_torch()
        torch_version = torch.__version__
        cuda = torch.cuda.is_available()
        devices = tuple(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())) if cuda else ()
        auto = "cuda:0" if cuda else "cpu"
    return BackendReport(platform.python_version(), np.__version__, torch_version, cuda, devices, auto)
