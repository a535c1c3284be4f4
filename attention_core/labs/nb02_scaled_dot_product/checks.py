"""The checkers of notebook 02's exercises: the scaled scores Q K^T / sqrt(d_k) and the variance of q.k."""
from __future__ import annotations

import contextlib
import math

import numpy as np

from attention_core.core.attention import attention_scores
from attention_core.labs.nb01_query_key_value.checks import SEED_K, SEED_Q, SEED_QK_CASE, diagnose_scale
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def check_scaled_scores(fn, lang: str | None = None, *, timeout=None) -> ck.CheckResult:
    """Check fn(q, k) -> Q K^T / sqrt(Dk), shape (..., Tq, Tk)."""
    def body():
        case = SEED_QK_CASE
        out = ck.as_array(ck.call_learner(fn, case, SEED_Q, SEED_K), case)
        ck.expect_shape(out, (1, 2), "scores", case)
        diagnose_scale(out, lambda s: s, case)
        ck.expect_close(out, attention_scores(SEED_Q, SEED_K), "scores", case)

        rng = np.random.default_rng(0)
        q, k = rng.normal(size=(4, 5)), rng.normal(size=(3, 5))      # (Tq, Dk), (Tk, Dk)
        case = ck.describe(q=q, k=k)
        out = ck.as_array(ck.call_learner(fn, case, q, k), case)
        hint = "checks.hint.kq" if out.shape == (3, 4) else ""
        ck.expect_shape(out, (4, 3), "scores", case, hint)
        ck.expect_close(out, attention_scores(q, k), "scores", case)

        q, k = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5))   # (B, H, T, Dk)
        case = ck.describe(q=q, k=k)
        with ck.batched("checks.batch_transpose", case):
            out = ck.as_array(ck.call_learner(fn, case, q, k), case)
            ck.expect_shape(out, (2, 3, 4, 6), "scores", case)
            ck.expect_close(out, attention_scores(q, k), "scores", case)
        return ck.msg("checks.scores.ok")
    return ck.run_check("check_scaled_scores", body, lang, timeout, fn)


class _Draws:
    """Counts the random numbers drawn from the generators that np.random.default_rng makes while it is
    watched (`with draws.watch(): ...`): each is a real Generator (a subclass, same bit generator, same
    numbers), whose every method's output is counted by size. A function that made no generator through
    np.random.default_rng (a name imported earlier, the legacy np.random.seed) is not seen: made == 0."""

    def __init__(self):
        self.made, self.drawn = 0, 0

    @contextlib.contextmanager
    def watch(self):
        original, draws = np.random.default_rng, self

        class Counted(np.random.Generator):
            def __getattribute__(self, name):
                attr = super().__getattribute__(name)
                if name.startswith("_") or not callable(attr) or name in ("spawn", "bit_generator"):
                    return attr

                def counted(*args, **kwargs):
                    out = attr(*args, **kwargs)
                    draws.drawn += int(np.size(out))
                    return out
                return counted

        def default_rng(seed=None):
            made = original(seed)
            if type(made) is not np.random.Generator:
                return made
            draws.made += 1
            return Counted(made.bit_generator)

        np.random.default_rng = default_rng
        try:
            yield self
        finally:
            np.random.default_rng = original


def check_dot_product_variance(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(d_k, n_samples, seed) -> (variance of q.k, variance of q.k / sqrt(d_k)) for q, k with
    independent standard-normal entries: about d_k and about 1. The estimates must come from samples,
    and the checker observes the sampling, not only the result: the same seed gives the same pair,
    another seed another pair (and never exactly (d_k, 1)); the generators made by
    np.random.default_rng are watched, and must give at least the 2 * n_samples * d_k numbers the pairs
    take; and with n_samples = 4 the estimate must scatter from seed to seed as a variance of four
    samples does (d_k plus a little seeded noise does not)."""
    draws = _Draws()

    def pair(d_k, n, seed, case):
        with draws.watch():
            out = ck.call_learner(fn, case, d_k, n, seed)
        out = ck.from_tensor(out)                    # a torch tensor of two numbers
        if isinstance(out, np.ndarray):
            pair_like = out.shape == (2,)
        else:
            pair_like = isinstance(out, (tuple, list)) and len(out) == 2
        if not pair_like:                            # a generator is refused too: it would run unwatched
            raise ck.Fail("exercises.var.not_pair", case=case)
        raw, scaled = (ck.as_number(x, case) for x in out)
        return raw, scaled

    def body():
        for d_k in (64, 512, 4):
            case = f"d_k = {d_k}, n_samples = 20000, seed = 0"
            raw, scaled = pair(d_k, 20000, 0, case)
            got = f"({raw:.3g}, {scaled:.3g})"
            def near(x, target):
                return abs(x - target) <= 0.15 * target
            if not near(raw, d_k):
                if d_k > 4 and near(raw, math.sqrt(d_k)):
                    raise ck.Fail("exercises.var.std", got=got, case=case)
                if d_k > 4 and near(raw, 1.0 / d_k):
                    raise ck.Fail("exercises.var.mean", got=got, case=case)
                raise ck.Fail("exercises.var.raw", got=got, dk=d_k, case=case)
            if not near(scaled, 1.0):
                if near(scaled, 1.0 / d_k):
                    raise ck.Fail("exercises.var.by_dk", got=got, case=case)
                raise ck.Fail("exercises.var.scaled", got=got, case=case)
        # Behaviour, not only the result: sampling varies with the seed and repeats with it.
        runs = {seed: pair(64, 2000, seed, f"d_k = 64, n_samples = 2000, seed = {seed}") for seed in (1, 2)}
        again = pair(64, 2000, 1, "d_k = 64, n_samples = 2000, seed = 1")
        if any(r == (64.0, 1.0) for r in runs.values()) or runs[1] == runs[2]:
            got = f"({runs[1][0]:.6g}, {runs[1][1]:.6g})"
            raise ck.Fail("exercises.var.not_sampled", got=got, case="d_k = 64, n_samples = 2000, seeds 1 and 2")
        if again != runs[1]:
            raise ck.Fail("exercises.var.unseeded", case="d_k = 64, n_samples = 2000, seed = 1, twice")
        # The draws themselves: n_samples pairs of width d_k are 2 * n_samples * d_k numbers.
        draws.made = draws.drawn = 0
        case = "d_k = 64, n_samples = 2000, seed = 1"
        pair(64, 2000, 1, case)
        need = 2 * 2000 * 64
        if draws.made and draws.drawn < need:
            raise ck.Fail("exercises.var.few_draws", drawn=f"{draws.drawn:,}", need=f"{need:,}", case=case)
        # The scatter of sampling: the variance of 4 samples moves by most of its size from seed to seed.
        raws = np.array([pair(64, 4, seed, f"d_k = 64, n_samples = 4, seed = {seed}")[0] for seed in range(16)])
        spread = float(raws.std() / abs(raws.mean())) if raws.mean() else 0.0
        if not spread >= 0.25:
            raise ck.Fail("exercises.var.no_spread", low=f"{raws.min():.4g}", high=f"{raws.max():.4g}",
                          spread=f"{spread:.2g}", case="d_k = 64, n_samples = 4, seeds 0 .. 15")
        return ck.msg("exercises.var.ok")
    return ck.run_check("check_dot_product_variance", body, lang, timeout, fn)
