"""Backend selection: NumPy always; torch (CPU or CUDA) only when installed and asked for.

torch is imported here, lazily, never at `import attention_core` time. The torch code itself lives
in `torch_backend.py`; `backends.torch_ops` names that module and imports it (and torch) on first use.

How a function picks its backend:
- compute functions (softmax, scaled_dot_product_attention, multi_head_attention, split_heads,
  merge_heads, apply_rope, combine_masks, additive_mask) follow the type of their input: a torch
  tensor in -> computed in torch on the tensor's device -> a tensor out. scaled_dot_product_attention
  and multi_head_attention also take `backend=` ("numpy", "torch", "auto") and `device=`; the result
  comes back in the type of the input either way (NumPy in, backend="torch" -> NumPy out).
- table builders (causal_mask, padding_mask, sliding_window_mask, sinusoidal_encoding,
  rope_frequencies, learned_position_table) take `like=`: they compute in NumPy (they depend only on
  integers and cost nothing next to attention) and return the result as the same kind of array as
  `like`, on its device, in its float dtype (masks stay boolean).
"""
from __future__ import annotations

import importlib
import importlib.util
import platform
import unicodedata
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


def __getattr__(name):
    # `from .backends import torch_ops` lands here: import torch (with the install hint if it is
    # missing), then the torch module of this package, only on first use.
    if name == "torch_ops":
        require_torch()
        module = importlib.import_module(".torch_backend", __package__)
        globals()["torch_ops"] = module                  # later look-ups skip this function
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_torch(x) -> bool:
    """True for a torch tensor; checked by type name so that NumPy-only use never imports torch."""
    return type(x).__module__.split(".")[0] == "torch"


def wants_torch(backend, device, *inputs) -> bool:
    """Should a compute function hand over to the torch backend? (Validates `backend` on the way.)

    True when torch is asked for ("torch"; "auto" with torch installed), when a device is named,
    or when an input is a torch tensor (even with backend="numpy": the torch module then converts
    to NumPy and back, so the result keeps the type that went in).
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of None, 'numpy', 'torch', 'auto', got {backend!r}")
    if backend == "torch" or device is not None or any(is_torch(x) for x in inputs):
        return True
    return backend == "auto" and torch_available()


def as_like(arr: np.ndarray, like):
    """Return the NumPy result `arr` as the same kind of array as `like` (None: unchanged).

    A float result takes like's float dtype (a boolean or integer `like` leaves it as it is);
    a torch `like` also sets the device.
    """
    if like is None:
        return arr
    if is_torch(like):
        return __getattr__("torch_ops").from_numpy_like(arr, like)
    if not isinstance(like, np.ndarray):
        raise TypeError(f"like: expected a NumPy array or a torch tensor, got {type(like).__name__}")
    if arr.dtype.kind == "f" and like.dtype.kind == "f":
        return arr.astype(like.dtype, copy=False)
    return arr


@dataclass(frozen=True)
class BackendReport:
    """What this machine offers: the versions, the CUDA devices, and where backend="auto" computes."""
    python_version: str
    numpy_version: str
    torch_version: str | None
    cuda_available: bool
    cuda_devices: tuple[str, ...] = field(default_factory=tuple)
    auto_device: str = "numpy"          # "cuda:0", "cpu" (torch on the CPU) or "numpy"

    def format(self, lang: str | None = None) -> str:
        """A few aligned lines in English or Chinese (default: the current i18n language)."""
        from attention_core.teaching import i18n
        t = lambda key, **kw: i18n.t(key, lang, **kw)   # noqa: E731
        torch_line = self.torch_version or f"{t('env.missing')} ({t('env.install', cmd=INSTALL_HINT)})"
        if self.cuda_available:
            cuda_line = ", ".join(f"cuda:{i} {name}" for i, name in enumerate(self.cuda_devices))
        else:
            cuda_line = t("env.no_cuda")
        auto_line = "NumPy" if self.auto_device == "numpy" else f"torch ({self.auto_device})"
        rows = [(t("env.python"), self.python_version), ("NumPy", self.numpy_version),
                ("torch", torch_line), ("CUDA", cuda_line), (t("env.auto"), auto_line)]
        width = max(_display_width(label) for label, _ in rows)
        pad = lambda label: label + " " * (width - _display_width(label))   # noqa: E731
        return "\n".join([t("env.title")] + [f"  {pad(label)}  {value}" for label, value in rows])

    def __str__(self) -> str:
        return self.format()

    def _repr_html_(self) -> str:
        import html
        return f"<pre>{html.escape(self.format())}</pre>"


def _display_width(text: str) -> int:
    # Chinese characters take two columns in a terminal or a <pre> block.
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


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


def format_backend_report(lang: str | None = None) -> str:
    """The report as text for notebook 00, in `lang` ("en" or "zh")."""
    return backend_report().format(lang)
