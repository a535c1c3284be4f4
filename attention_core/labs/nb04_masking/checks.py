"""The checkers of notebook 04's exercises: the causal mask (quiz question q4b) and the padding mask."""
from __future__ import annotations

import numpy as np

from attention_core.core.masks import causal_mask, padding_mask
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def check_causal_mask(fn, lang: str | None = None, *, timeout=None) -> ck.CheckResult:
    """Check fn(T) -> boolean (T, T) look-ahead mask, True where query i may attend to key j <= i."""
    def body():
        for n in (4, 1, 7):
            case = f"T = {n}"
            out = ck.as_array(ck.call_learner(fn, case, n), case)
            ck.expect_shape(out, (n, n), "mask", case)
            ref = causal_mask(n)
            if out.dtype != bool:
                vals = out.astype(float)
                if np.isneginf(vals).any() or (vals < 0).any():
                    raise ck.Fail("checks.mask.additive", case=case)
                raise ck.Fail("checks.mask.dtype", dtype=str(out.dtype), case=case)
            if np.array_equal(out, ref):
                continue
            eye = np.eye(n, dtype=bool)
            if np.array_equal(out, ~ref):
                raise ck.Fail("checks.mask.bool_inverted", case=case)
            if np.array_equal(out, ref.T):
                raise ck.Fail("checks.mask.upper", case=case)
            if np.array_equal(out, ref & ~eye):
                raise ck.Fail("checks.mask.no_diagonal", case=case)
            ck.first_difference(out, ref, "mask", case)
        return ck.msg("checks.mask.ok")
    return ck.run_check("check_causal_mask", body, lang, timeout, fn)


def check_padding_mask(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(lengths, max_len) -> boolean (B, 1, Tk) mask like ac.padding_mask, True on real tokens."""
    def body():
        # [2, 0, 3]: an empty sequence, a fully masked row (every key padding)
        for lengths, max_len in (([3, 1, 4], 4), ([3, 1, 4], 6), ([2], 5), ([2, 0, 3], 3)):
            case = f"lengths = {lengths}, max_len = {max_len}"
            arr = np.array(lengths)
            out = ck.as_array(ck.call_learner(fn, case, arr, max_len), case)
            ref = padding_mask(arr, max_len)                                 # (B, 1, Tk)
            hint = ""
            if out.shape == ref.shape[::2]:
                hint = "exercises.pad.no_query_axis"
            elif out.ndim == 3 and out.shape[-1] == arr.max() != max_len:
                hint = "exercises.pad.max_len"
            ck.expect_shape(out, ref.shape, ck.msg(ck.W_MASK), case, hint)
            out = ck.bool_mask(out, case)
            j, n = np.arange(max_len)[None, None, :], arr[:, None, None]
            ck.diagnose(out, {"exercises.pad.bool_inverted": ~ref, "exercises.pad.side": j >= max_len - n,
                               "exercises.pad.off_by_one": j <= n}, case, ref=ref)
            ck.first_difference(out, ref, "mask", case)               # mask[b]: row b's (1, Tk) keys
        return ck.msg("exercises.pad.ok")
    return ck.run_check("check_padding_mask", body, lang, timeout, fn)
