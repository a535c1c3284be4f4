"""The checkers of notebook 01's exercises: attention itself (`check_attention`) and the weighted sum.

    from attention_core.labs.nb01_query_key_value import checks
    checks.check_attention(my_attention)        # a CheckResult, shown in the notebook, in the i18n language

The worked example of seed 002 (SEED_Q, SEED_K, SEED_V) and the diagnosis of mis-scaled scores are
shared with notebook 02's `check_scaled_scores`; `output_and_weights` with notebook 05's checkers.
"""
from __future__ import annotations

import inspect
import math

import numpy as np

from attention_core.core.attention import attention_scores, scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.core.softmax import softmax
from attention_core.core.validation import check_flag
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


SEED_Q = np.array([[1.0, 0.0]])                  # (Tq=1, Dk=2): the worked example of seed 002


SEED_K = np.array([[1.0, 0.0], [0.0, 1.0]])      # (Tk=2, Dk=2)


SEED_V = np.array([[2.0, 0.0], [0.0, 4.0]])      # (Tk=2, Dv=2)


SEED_QK_CASE = "q = [[1, 0]], k = [[1, 0], [0, 1]]"


SEED_CASE = SEED_QK_CASE + ", v = [[2, 0], [0, 4]]"


def _scale_variants(q, k):
    """Common scaling mistakes -> the i18n key that explains each one."""
    raw = np.matmul(q, np.swapaxes(k, -1, -2))
    dk = q.shape[-1]
    return {"checks.scale.none": raw, "checks.scale.by_dk": raw / dk,
            "checks.scale.multiplied": raw * math.sqrt(dk)}


def diagnose_scale(got, make, case: str) -> None:
    """If `got` equals `make(scores)` for a mis-scaled variant of the seed example, say which."""
    for key, scores in _scale_variants(SEED_Q, SEED_K).items():
        if np.allclose(got.astype(float), make(scores), atol=1e-4):
            raise ck.Fail(key, case=case)


def output_and_weights(out, case: str):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ck.Fail("checks.attention.not_pair", case=case)
    return ck.as_array(out[0], case), ck.as_array(out[1], case)


def not_swapped(out, w, ref_out, ref_w, case: str) -> None:
    """(weights, output) returned in the wrong order, said as such (where the two shapes tell them apart), before
    any diagnosis reads the weights as an output."""
    if ref_out.shape != ref_w.shape and out.shape == ref_w.shape and w.shape == ref_out.shape:
        raise ck.Fail("checks.attention.swapped", case=case)


def _accepts_mask(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "mask" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def check_attention(fn, *, returns: str = "both", test_mask: bool | None = None,
                    lang: str | None = None, timeout=None) -> ck.CheckResult:
    """Check fn(q, k, v[, mask=]) against attention_core.scaled_dot_product_attention.

    returns="both": fn must return (output, weights) like the library; "output": just the output.
    test_mask: also check a causal boolean mask (True = may attend); None = when fn takes `mask`.
    """
    if returns not in ("both", "output"):
        raise ValueError(f"returns: expected 'both' or 'output', got {returns!r}")
    test_mask = _accepts_mask(fn) if test_mask is None else check_flag(test_mask, "test_mask")

    def run(case, q, k, v, **kw):
        out = ck.call_learner(fn, case, q, k, v, **kw)
        if returns == "output":
            return ck.as_array(out, case), None
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ck.Fail("checks.attention.not_pair", case=case)
        return ck.as_array(out[0], case), ck.as_array(out[1], case)

    def body():
        # 1. The worked example of seed 002 / notebook 01: weights [0.670, 0.330], output [1.340, 1.321].
        ref_out, ref_w = scaled_dot_product_attention(SEED_Q, SEED_K, SEED_V)
        out, w = run(SEED_CASE, SEED_Q, SEED_K, SEED_V)
        ck.expect_shape(out, (1, 2), "output", SEED_CASE)
        if w is not None:
            ck.expect_shape(w, (1, 2), "weights", SEED_CASE)
            ck.expect_finite(w, "weights", SEED_CASE)
            ck.rows_sum_to_one(w, "weights", SEED_CASE)
            diagnose_scale(w, lambda s: softmax(s), SEED_CASE)
            ck.expect_close(w, ref_w, "weights", SEED_CASE)
        else:
            diagnose_scale(out, lambda s: softmax(s) @ SEED_V, SEED_CASE)
        if np.allclose(out, ref_w @ SEED_K, atol=1e-5):
            raise ck.Fail("checks.attention.times_k", case=SEED_CASE)
        ck.expect_close(out, ref_out, "output", SEED_CASE)

        # 2. Rectangular: Tq=4, Tk=3, Dk=5, Dv=2 exposes swapped products and axes.
        rng = np.random.default_rng(0)
        q, k, v = rng.normal(size=(4, 5)), rng.normal(size=(3, 5)), rng.normal(size=(3, 2))
        case = ck.describe(q=q, k=k, v=v)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        out, w = run(case, q, k, v)
        if w is not None:
            ck.expect_shape(w, (4, 3), "weights", case, "checks.hint.kq" if w.shape == (3, 4) else "")
            ck.expect_finite(w, "weights", case)
            ck.rows_sum_to_one(w, "weights", case)
            ck.expect_close(w, ref_w, "weights", case)
        ck.expect_shape(out, (4, 2), "output", case, "checks.hint.times_k" if out.shape == (4, 5) else "")
        if w is None and np.allclose(out, softmax(attention_scores(q, k), axis=0) @ v, atol=1e-5):
            raise ck.Fail("checks.wrong_axis", what="softmax", case=case)
        if w is not None and not np.allclose(out, ref_out, atol=1e-5):
            raise ck.Fail("checks.attention.output", case=case)
        ck.expect_close(out, ref_out, "output", case)

        # 3. Large scores: a naive exp overflows to inf and inf/inf = NaN.
        q = np.array([[60.0, 60.0, 0.0, 0.0]])
        k = np.array([[60.0, 60.0, 0.0, 0.0], [0.0, 0.0, 60.0, 60.0], [-60.0, -60.0, 0.0, 0.0]])
        v = np.array([[1.0], [2.0], [3.0]])
        case = "q = [[60, 60, 0, 0]], k = [[60, 60, 0, 0], [0, 0, 60, 60], [-60, -60, 0, 0]] (score 3600)"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        out, w = run(case, q, k, v)
        for arr in (out, w):
            if arr is not None:
                ck.expect_finite(arr, "output" if arr is out else "weights", case, key="checks.attention.overflow")
        ck.expect_close(out, ref_out, "output", case)

        # 4. A batch (B, H, T, D): k.T would reverse every axis; swapaxes(-1, -2) is what is meant.
        q, k, v = (rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5)),
                   rng.normal(size=(2, 3, 6, 2)))
        case = ck.describe(q=q, k=k, v=v)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        with ck.batched("checks.batch_transpose", case):
            out, w = run(case, q, k, v)
            ck.expect_shape(out, ref_out.shape, "output", case)
            ck.expect_close(out, ref_out, "output", case)
            if w is not None:
                ck.expect_close(w, ref_w, "weights", case)

        if not test_mask:
            return ck.msg("checks.attention.ok"), ck.msg("checks.attention.no_mask_tested")
        # 5. A causal mask (True = may attend): masked keys must get weight exactly 0.
        q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
        mask = causal_mask(4)                                            # (Tq, Tk)
        case = ck.describe(q=q, k=k, v=v) + ", mask = causal_mask(4)"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v, mask=mask)
        out, w = run(case, q, k, v, mask=mask.copy())
        unmasked_out, _ = scaled_dot_product_attention(q, k, v)
        if np.allclose(out, unmasked_out, atol=1e-6):
            raise ck.Fail("checks.mask.ignored", case=case)
        if w is not None:
            ck.expect_shape(w, (4, 4), "weights", case)
            ok_rows = np.isfinite(w).all(axis=-1)                        # -inf everywhere -> NaN row
            w_ok, m_ok = w[ok_rows], mask[ok_rows]
            if w_ok.size and np.allclose(w_ok[m_ok], 0, atol=1e-9) and (np.abs(w_ok[~m_ok]) > 1e-9).any():
                raise ck.Fail("checks.mask.inverted", case=case)
            ck.expect_finite(w, "weights", case)
            leak = np.argwhere(~mask & (np.abs(w) > 1e-9))
            if len(leak):
                i, j = (int(n) for n in leak[0])
                raise ck.Fail("checks.mask.leak", i=i, j=j, value=f"{w[i, j]:.3g}", case=case)
            if not np.allclose(w.sum(-1), 1, atol=1e-5):
                raise ck.Fail("checks.mask.after_softmax", case=case)
            ck.expect_close(w, ref_w, "weights", case)
        else:
            inv_out, _ = scaled_dot_product_attention(q, k, v, mask=~mask | np.eye(4, dtype=bool))
            if np.allclose(out, inv_out, atol=1e-6):
                raise ck.Fail("checks.mask.inverted", case=case)
        ck.expect_close(out, ref_out, "output", case)

        # 6. A fully masked row (query 2 may see no key, e.g. a padded query): it reads nothing, so its
        # weights and output are all 0 (attention_core's convention). A finite fill such as -1e9 gives
        # it uniform weights (the hidden keys are read as content); -inf with a plain softmax gives 0/0 = NaN.
        mask = causal_mask(4)
        mask[2] = False
        case = ck.describe(q=q, k=k, v=v) + ", mask = causal_mask(4) with row 2 all False"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v, mask=mask)
        out, w = run(case, q, k, v, mask=mask.copy())
        row = out[2] if w is None else w[2]
        if w is not None and np.allclose(w[2], 1 / 4, atol=1e-6) or w is None and np.allclose(out[2], v.mean(0)):
            raise ck.Fail("checks.mask.finite_fill", case=case)
        if not np.isfinite(np.asarray(row, dtype=float)).all():
            raise ck.Fail("checks.mask.nan_row", case=case)
        if w is not None:
            ck.expect_close(w, ref_w, "weights", case)
        ck.expect_close(out, ref_out, "output", case)
        return ck.msg("checks.attention.ok")
    return ck.run_check("check_attention", body, lang, timeout, fn)


def check_weighted_sum(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(weights (..., Tq, Tk), v (..., Tk, Dv)) -> the weighted sum weights @ v (..., Tq, Dv)."""
    def body():
        rng = np.random.default_rng(0)
        cases = [(np.array([[0.670, 0.330]]), np.array([[2.0, 0.0], [0.0, 4.0]])),
                 (softmax(rng.normal(size=(2, 3))), rng.normal(size=(3, 4))),
                 (softmax(rng.normal(size=(2, 3, 5))), rng.normal(size=(2, 5, 4)))]
        for weights, v in cases:
            case = ck.describe(weights=weights, v=v)
            out = ck.as_array(ck.call_learner(fn, case, weights, v), case)
            expected = weights @ v
            hint = "exercises.sum.transposed" if out.shape != expected.shape and out.ndim >= 2 else ""
            ck.expect_shape(out, expected.shape, ck.msg(ck.W_OUTPUT), case, hint)
            if not ck.same(weights, np.full_like(weights, weights[..., :1])):
                ck.diagnose(out, {"exercises.sum.ignored": np.broadcast_to(v.mean(axis=-2, keepdims=True),
                                                                            expected.shape)}, case, ref=expected)
            ck.expect_close(out, expected, ck.msg(ck.W_OUTPUT), case)
        return ck.msg("exercises.sum.ok")
    return ck.run_check("check_weighted_sum", body, lang, timeout, fn)
