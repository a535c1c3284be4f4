"""A plain (Elman) recurrent network, the sequential baseline that attention is compared with.

h_t = tanh(x_t W_x + h_{t-1} W_h + b): step t must wait for step t-1, and what x_0 contributes to
h_T passes through T multiplications by W_h (and T tanh's) on the way.
Shapes: xs (T, D_in) or (B, T, D_in); hidden states (..., T, D_h).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.core.validation import as_float_array, as_generator, checked, positive_float, positive_int


@dataclass(frozen=True)
class RNNParams:
    w_x: np.ndarray   # (D_in, D_h)
    w_h: np.ndarray   # (D_h, D_h)
    b: np.ndarray     # (D_h,)


def init_rnn(d_in: int, d_hidden: int, *, seed=0, recurrent_scale: float = 0.9) -> RNNParams:
    """Seeded weights; W_h is a random orthogonal matrix times `recurrent_scale` (its spectral
    radius), so the scale alone decides how fast old inputs fade (< 1: they fade)."""
    d_in, d_hidden = positive_int(d_in, "d_in"), positive_int(d_hidden, "d_hidden")
    scale = positive_float(recurrent_scale, "recurrent_scale")
    rng = as_generator(seed)
    orth, _ = np.linalg.qr(rng.normal(size=(d_hidden, d_hidden)))
    w_x = rng.normal(0.0, 1.0 / np.sqrt(d_in), (d_in, d_hidden))
    return RNNParams(w_x=w_x, w_h=scale * orth, b=np.zeros(d_hidden))


def rnn_inputs(xs, params, h0=None) -> dict:
    """rnn_forward's arguments, checked; h0 defaults to zeros (..., D_h)."""
    xs = as_float_array(xs, "xs", min_ndim=2)
    if not isinstance(params, RNNParams):
        raise TypeError(f"params: expected RNNParams (see init_rnn), got {type(params).__name__}")
    d_in, d_h = params.w_x.shape
    if xs.shape[-1] != d_in:
        raise ValueError(f"xs: expected last dimension D_in={d_in}, got shape {xs.shape}")
    h0 = np.zeros(xs.shape[:-2] + (d_h,)) if h0 is None else as_float_array(h0, "h0")
    return dict(xs=xs, params=params, h0=h0)


@checked(rnn_inputs)
def rnn_forward(xs, params: RNNParams, h0=None) -> np.ndarray:
    """All hidden states (..., T, D_h), computed one step after another (there is no other way)."""
    h = h0                                                           # (..., D_h)
    states = []
    for t in range(xs.shape[-2]):                                    # [en] the sequential chain [zh] 一步接一步的链条
        h = np.tanh(xs[..., t, :] @ params.w_x + h @ params.w_h + params.b)   # (..., D_h)
        states.append(h)
    return np.stack(states, axis=-2)                                 # (..., T, D_h)


def influence_of_first_input(params: RNNParams, lengths, *, seed=0, eps: float = 1e-4) -> np.ndarray:
    """How much the last hidden state moves when the FIRST input is nudged, for each length T.

    Returns |h_T(x + eps e) - h_T(x)| / eps per T: a finite-difference estimate of the gradient
    norm along the chain, which shrinks with T for a contracting RNN.
    """
    rng = as_generator(seed)
    d_in = params.w_x.shape[0]
    lengths = [positive_int(int(t), "lengths") for t in lengths]
    xs = rng.normal(size=(max(lengths), d_in))
    nudge = rng.normal(size=d_in)
    nudge /= np.linalg.norm(nudge)
    out = []
    for t in lengths:
        base = rnn_forward(xs[:t], params)[-1]
        moved = xs[:t].copy()
        moved[0] += eps * nudge
        out.append(np.linalg.norm(rnn_forward(moved, params)[-1] - base) / eps)
    return np.array(out)
