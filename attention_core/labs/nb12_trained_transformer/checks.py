"""The check of notebook 12's exercise: `check_induction_score(fn)` judges a learner's induction score.

Built from teaching.checks like every lab's checkers: the learner's function is called with a time
limit on copies of the inputs, and the verdict is put in words in the language asked for.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from attention_core.teaching import i18n
from attention_core.teaching.checks import CheckResult, Fail, call_learner, from_tensor, msg, run_check

from . import experiments
from .check_strings import STRINGS

i18n.register(STRINGS)         # this checker's words for its cases

CHECK_NAME = "check_induction_score"
ATOL = 1e-6


def _finite_number(x) -> bool:
    """A real number that float64 holds: 10**400 is not (float() overflows), a Fraction is."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        return False
    try:
        return math.isfinite(float(x))
    except (OverflowError, ValueError, TypeError):
        return False


def _cases(model):
    """(label, weights (T, T), half) from the trained heads on two sequences, plus a random matrix."""
    for seed, half in ((7, 11), (8, 8)):
        seq = experiments.eval_sequences(1, half=half, seed=seed)[0]
        _, w = model.forward(seq)                                          # (L, H, T, T)
        for layer in range(model.n_layers):
            for head in range(model.n_heads):
                yield msg("nb12.case.head", layer=layer, head=head, half=half), w[layer, head].astype(float), half
    rng = np.random.default_rng(0)
    w = np.tril(rng.random((10, 10)))
    yield msg("nb12.case.random", half=5), w / w.sum(axis=1, keepdims=True), 5


def check_induction_score(fn, model=None, lang: str | None = None, *, timeout=None) -> CheckResult:
    """Call fn(weights (T, T), half) -> float on learned heads and a random matrix, compare it with
    experiments.induction_score and name the usual mistakes (the same-token offset, every row)."""
    if model is None:
        from .model import load_trained
        model = load_trained("induction")

    def body():
        from .model import TrainedModel
        if not isinstance(model, TrainedModel):        # the model first: its heads are what is scored
            raise Fail("nb12.check_model_type", got=type(model).__name__)
        if model.config.get("kind") != "induction":
            raise Fail("nb12.check_model_kind", name=model.name)
        n, worst = 0, 0.0
        for case, w, half in _cases(model):
            want = float(experiments.induction_score(w, half))
            try:
                got = call_learner(fn, case, w, half)
            except Fail as fail:
                if fail.key != "checks.raised":
                    raise
                # this notebook's own sentence for the learner's exception
                raise Fail("nb12.check_error", err=fail.fields["exc"], case=case) from None
            if getattr(got, "ndim", None) == 0:                              # a 0-d torch tensor too
                got = from_tensor(got)
            if isinstance(got, np.ndarray) and got.size == 1:
                got = got.item()
            if not _finite_number(got):
                raise Fail("nb12.check_not_number", got=repr(got)[:60], case=case)
            got = float(got)
            if abs(got - want) > ATOL:
                q = np.arange(half, 2 * half)
                same = float(w[q, q - half].mean())                            # one step too early
                diagonal = float(np.diagonal(w, -(half - 1)).mean())          # starts at query half - 1
                if abs(got - same) <= ATOL:
                    raise Fail("nb12.check_same_token", case=case, got=f"{got:.4f}", want=f"{want:.4f}")
                if abs(got - diagonal) <= ATOL:
                    raise Fail("nb12.check_all_rows", case=case, got=f"{got:.4f}", want=f"{want:.4f}")
                raise Fail("nb12.check_wrong", case=case, got=f"{got:.4f}", want=f"{want:.4f}")
            n += 1
            worst = max(worst, abs(got - want))
        return msg("nb12.check_ok", n=n, diff=f"{worst:.1e}")
    return run_check(CHECK_NAME, body, lang, timeout, fn)
