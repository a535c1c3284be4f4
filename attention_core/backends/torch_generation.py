"""torch's random draw for the library's one sampler (core.generation.pick_token): a seeded torch.Generator
with NumPy's `choice(n, p=probs)`, drawn by torch.multinomial, so the library draws the same tokens as a
torch loop that seeds `torch.Generator().manual_seed(seed)` (notebook 13's generate exercise)."""
from __future__ import annotations

import numpy as np
import torch

from attention_core.core.validation import describe, positive_int


class TorchRng:
    """TorchRng(seed, dtype=torch.float64).choice(n, p=probs) -> an index drawn by torch.multinomial.
    dtype: the probabilities' dtype for the draw (the logits' own dtype reproduces a torch loop exactly)."""

    def __init__(self, seed: int = 0, dtype=torch.float64):
        self.seed = positive_int(seed, "seed", minimum=0)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype: expected a torch float dtype, got {describe(dtype)}")
        self.dtype = dtype
        self.generator = torch.Generator().manual_seed(self.seed)

    def __repr__(self) -> str:
        return f"TorchRng(seed={self.seed}, dtype={self.dtype})"

    def choice(self, n: int, p) -> int:
        probs = torch.as_tensor(np.asarray(p, dtype=np.float64)).to(self.dtype)     # (n,)
        if probs.shape != (n,):
            raise ValueError(f"p: expected {n} probabilities, got shape {tuple(probs.shape)}")
        return int(torch.multinomial(probs, 1, generator=self.generator))
