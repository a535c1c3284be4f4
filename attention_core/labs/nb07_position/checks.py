"""The checkers of notebook 07's exercises: the sinusoidal table and RoPE."""
from __future__ import annotations

import numpy as np

from attention_core.core.positional import apply_rope, sinusoidal_encoding
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def _sin_variant(t, d, *, base=10000.0, swap=False, column_exponent=False, blocks=False, start=0):
    pos = np.arange(start, start + t)[:, None]                                # (T, 1)
    freq = base ** (-np.arange(0, d, 2)[None, :] / d)                         # (1, ceil(D/2))
    first, second = (np.cos, np.sin) if swap else (np.sin, np.cos)
    if blocks:
        return np.concatenate([first(pos * freq), second(pos * freq)], axis=1)[:, :d]
    out = np.empty((t, d))
    out[:, 0::2] = first(pos * freq)
    odd_freq = base ** (-np.arange(1, d, 2)[None, :] / d) if column_exponent else freq[:, : d // 2]
    out[:, 1::2] = second(pos * odd_freq)
    return out


def check_sinusoidal_encoding(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(n_positions, d_model) -> the (T, D) table of ac.sinusoidal_encoding
    (PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D)))."""
    def body():
        what = ck.msg("exercises.what.table")
        for t, d in ((50, 16), (7, 6)):
            case = f"n_positions = {t}, d_model = {d}"
            out = ck.as_array(ck.call_learner(fn, case, t, d), case)
            ref = sinusoidal_encoding(t, d)
            ck.expect_shape(out, ref.shape, what, case)
            ck.diagnose(out, {"exercises.sin.swapped": _sin_variant(t, d, swap=True),
                               "exercises.sin.blocks": _sin_variant(t, d, blocks=True),
                               "exercises.sin.column_exponent": _sin_variant(t, d, column_exponent=True),
                               "exercises.sin.from_one": _sin_variant(t, d, start=1)}, case, ref=ref)
            if not ck.same(out, ref) and ck.same(out[:, :2], ref[:, :2]):    # column pair 0 right: frequencies off
                raise ck.Fail("exercises.sin.base", case=case)
            ck.expect_close(out, ref, what, case)
        return ck.msg("exercises.sin.ok")
    return ck.run_check("check_sinusoidal_encoding", body, lang, timeout, fn)


def _rope_variant(x, positions, *, sign=1.0, half=False, theta_exponent=2, base=10000.0):
    d = x.shape[-1]
    theta = base ** (-theta_exponent * np.arange(d // 2) / d)                 # (Dh/2,)
    angle = sign * np.asarray(positions, dtype=float)[:, None] * theta        # (T, Dh/2)
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = (x[..., : d // 2], x[..., d // 2:]) if half else (x[..., 0::2], x[..., 1::2])
    ra, rb = a * cos - b * sin, a * sin + b * cos
    if half:
        return np.concatenate([ra, rb], axis=-1)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = ra, rb
    return out


def check_rope(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, Dh), positions (T,)) -> ac.apply_rope(x, positions): pair (2i, 2i+1) turned
    by positions[t] * 10000^(-2i/Dh)."""
    def body():
        what = ck.msg("exercises.what.rotated")
        rng = np.random.default_rng(0)
        cases = [(rng.normal(size=(4, 8)), np.array([3.0, 0.0, 7.0, 1.0])),
                 (rng.normal(size=(6, 4)), np.arange(6.0)),
                 (rng.normal(size=(2, 3, 5, 8)), np.array([0.0, 10.0, 20.0, 30.0, 40.0]))]
        for x, positions in cases:
            case = ck.describe(x=x) + f", positions = {positions.astype(int).tolist()}"
            out = ck.as_array(ck.call_learner(fn, case, x, positions), case)
            ref = apply_rope(x, positions)
            ck.expect_shape(out, ref.shape, what, case)
            ck.expect_finite(out, what, case)
            ck.diagnose(out, {"exercises.rope.sign": _rope_variant(x, positions, sign=-1.0),
                               "exercises.rope.half": _rope_variant(x, positions, half=True),
                               "exercises.rope.base": _rope_variant(x, positions, theta_exponent=1),
                               "exercises.rope.positions": (None if np.array_equal(positions, np.arange(len(positions)))
                                                            else apply_rope(x, np.arange(float(len(positions)))))},
                         case, ref=ref)
            if not np.allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), atol=1e-6):
                raise ck.Fail("exercises.rope.norm", case=case)
            if not ck.same(out, ref) and np.allclose(out[..., :2], ref[..., :2], atol=1e-6):
                raise ck.Fail("exercises.rope.base", case=case)
            ck.expect_close(out, ref, what, case)
        return ck.msg("exercises.rope.ok")
    return ck.run_check("check_rope", body, lang, timeout, fn)
