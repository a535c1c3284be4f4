"""Backend selection: NumPy always; torch (CPU or CUDA) only when installed and asked for.

torch is imported here, lazily, never at `import attention_core` time.
"""
from __future__ import annotations

import importlib


def torch_available() -> bool:
    """True when torch can be imported (does not import it if it is already known missing)."""
    return importlib.util.find_spec("torch") is not None


def require_torch():
    """Import and return torch, or explain how to install it."""
    try:
        import torch
    except ImportError:
        raise ImportError("This needs the optional torch backend, which is not installed. "
                          "Install it with `pip install torch==2.13.0` (the pinned CPU build), "
                          "or use the NumPy backend (backend='numpy').") from None
    return torch
