"""The checkers of notebook 03's exercises: softmax (values, axes, batches, overflow) and temperature."""
from __future__ import annotations

import numpy as np

from attention_core.core.softmax import softmax
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def check_softmax(fn, lang: str | None = None, *, timeout=None) -> ck.CheckResult:
    """Check fn(x) -> softmax of x along the last axis (1-D, 2-D and batched x, large logits). A softmax that
    clips its exponents (np.maximum(x - max, -50)) is within the tolerance: it passes, with a remark."""
    def body():
        x = np.array([2.0, 1.0, 0.0])
        case = "x = [2, 1, 0]"
        out = ck.as_array(ck.call_learner(fn, case, x), case)
        ck.expect_shape(out, x.shape, "softmax(x)", case)
        ck.expect_finite(out, "softmax(x)", case)
        if np.allclose(out, x / x.sum(), atol=1e-6):
            raise ck.Fail("checks.softmax.no_exp", case=case)
        ck.rows_sum_to_one(out, "softmax(x)", case)
        ck.expect_close(out, softmax(x), "softmax(x)", case)

        x = np.random.default_rng(0).normal(size=(3, 4))            # (3, 4)
        case = ck.describe(x=x)
        out = ck.as_array(ck.call_learner(fn, case, x), case)
        ck.expect_shape(out, x.shape, "softmax(x)", case)
        ck.expect_finite(out, "softmax(x)", case)
        ck.rows_sum_to_one(out, "softmax(x)", case)
        ck.expect_close(out, softmax(x), "softmax(x)", case)

        x = np.random.default_rng(1).normal(size=(2, 3, 4))         # (B, T, N)
        case = ck.describe(x=x)
        with ck.batched("checks.softmax.batch", case):
            out = ck.as_array(ck.call_learner(fn, case, x), case)
            ck.expect_shape(out, x.shape, "softmax(x)", case)
            ck.rows_sum_to_one(out, "softmax(x)", case)
            ck.expect_close(out, softmax(x), "softmax(x)", case)

        x = np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1002.0]])
        case = "x = [[1000, 999, 998], [-1000, -1001, -1002]]"
        out = ck.as_array(ck.call_learner(fn, case, x), case).astype(float)
        if not np.isfinite(out[0]).all():
            raise ck.Fail("checks.softmax.overflow", case=case)
        if not np.isfinite(out[1]).all() or not np.isclose(out[1].sum(), 1, atol=1e-5):
            raise ck.Fail("checks.softmax.global_max", case=case)
        ck.expect_close(out, softmax(x), "softmax(x)", case)

        x = np.array([1e4, 0.0, -1e4])
        case = "x = [1e4, 0, -1e4]"
        out = ck.as_array(ck.call_learner(fn, case, x), case)
        ck.expect_finite(out, "softmax(x)", case, key="checks.softmax.overflow")
        ck.expect_close(out, softmax(x), "softmax(x)", case)

        # Tiny weights: e^-100 ~ 3.7e-44, and e^-1000 underflows to exactly 0. A clipped exponent
        # (np.maximum(x - max, -50)) gives them both e^-50 ~ 2e-22: within the tolerance, so it passes, with a remark.
        x = np.array([0.0, -100.0, -1000.0])
        case = "x = [0, -100, -1000]"
        out = ck.as_array(ck.call_learner(fn, case, x), case)
        ck.expect_shape(out, x.shape, "softmax(x)", case)
        out = out.astype(float)
        ck.expect_finite(out, "softmax(x)", case)
        ref = softmax(x)
        ck.expect_close(out, ref, "softmax(x)", case)
        if out[2] > 1e-300 or out[1] > 10 * ref[1]:               # float32 rounds e^-100, clipping lifts it
            return ck.msg("checks.softmax.ok"), ck.msg("checks.softmax.clipped", got=f"{out[2]:.3g}",
                                                       got_100=f"{out[1]:.3g}", expected_100=f"{ref[1]:.3g}", case=case)
        return ck.msg("checks.softmax.ok")
    return ck.run_check("check_softmax", body, lang, timeout, fn)


def check_temperature_softmax(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x, temperature) -> softmax(x / temperature) along the last axis."""
    def body():
        x = np.array([2.0, 1.0, 0.0])
        for temperature in (0.5, 1.0, 4.0):
            case = f"x = [2, 1, 0], temperature = {temperature}"
            out = ck.as_array(ck.call_learner(fn, case, x, temperature), case)
            ck.expect_shape(out, x.shape, ck.msg(ck.W_WEIGHTS), case)
            ck.expect_finite(out, ck.msg(ck.W_WEIGHTS), case)
            if temperature != 1.0:
                ck.diagnose(out, {"exercises.temp.multiplied": softmax(x * temperature),
                                   "exercises.temp.ignored": softmax(x)}, case, ref=softmax(x / temperature))
            ck.rows_sum_to_one(out, ck.msg(ck.W_WEIGHTS), case)
            ck.expect_close(out, softmax(x / temperature), ck.msg(ck.W_WEIGHTS), case)
        x = np.random.default_rng(0).normal(size=(2, 3, 4))                   # (B, Tq, Tk)
        case = ck.describe(x=x) + ", temperature = 0.7"
        out = ck.as_array(ck.call_learner(fn, case, x, 0.7), case)
        ck.expect_shape(out, x.shape, ck.msg(ck.W_WEIGHTS), case)
        ck.rows_sum_to_one(out, ck.msg(ck.W_WEIGHTS), case)
        ck.expect_close(out, softmax(x / 0.7), ck.msg(ck.W_WEIGHTS), case)
        x = np.array([[3.0, 2.0, 1.0], [0.0, -1.0, -2.0]])
        case = "x = [[3, 2, 1], [0, -1, -2]], temperature = 0.001"
        out = ck.as_array(ck.call_learner(fn, case, x, 0.001), case)
        ck.expect_finite(out, ck.msg(ck.W_WEIGHTS), case, key="exercises.temp.overflow")
        ck.expect_close(out, softmax(x / 0.001), ck.msg(ck.W_WEIGHTS), case)
        return ck.msg("exercises.temp.ok")
    return ck.run_check("check_temperature_softmax", body, lang, timeout, fn)
