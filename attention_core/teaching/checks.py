"""Learner checks (ARENA style): run a learner's function against attention_core and say what is wrong.

    from attention_core.checks import check_softmax
    check_softmax(my_softmax)     # -> a CheckResult that shows in the notebook, in the i18n language

Each check tries normal and edge cases (large logits, rectangular shapes, batches, masks) and
stops at the first problem, naming it in plain words ("weights[2] sums to 1.37, not 1").
The learner's bugs never raise here: their exceptions are caught and reported. The names do not
start with `test_`, so pytest never collects them.
"""
from __future__ import annotations

import html
import inspect
import math
import warnings
from dataclasses import dataclass

import numpy as np

from attention_core.core.attention import attention_scores, scaled_dot_product_attention
from attention_core.teaching.i18n import get_language, t
from attention_core.core.masks import causal_mask
from attention_core.core.softmax import softmax

ATOL = 1e-6


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check: passed, and a message in the current language."""
    name: str
    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"{'✔' if self.passed else '✘'} {self.name}: {self.message}"

    def _repr_html_(self) -> str:
        color, mark = ("#1a7f37", "✔") if self.passed else ("#b42318", "✘")
        return (f'<div style="border-left:4px solid {color};padding:4px 8px">'
                f'<b style="color:{color}">{mark} {html.escape(self.name)}</b>: '
                f'{html.escape(self.message)}</div>')


class _Fail(Exception):
    """Raised inside a check to stop at the first problem, with an i18n key and its fields."""

    def __init__(self, key: str, **fields):
        super().__init__(key)
        self.key, self.fields = key, fields


def _run(name: str, body) -> CheckResult:
    try:
        return CheckResult(name, True, body())
    except _Fail as fail:
        return CheckResult(name, False, t(fail.key, **fail.fields))


def _fmt(a) -> str:
    return np.array2string(np.asarray(a, dtype=float), precision=3, suppress_small=True, separator=", ")


def _call(fn, case: str, *args, **kwargs):
    """Call the learner's function on copies of the inputs; report exceptions and in-place edits."""
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")          # overflow warnings are reported in words instead
            out = fn(*copies, **kwargs)
    except Exception as exc:                         # noqa: BLE001 -- the learner's bug, reported
        raise _Fail("checks.raised", exc=f"{type(exc).__name__}: {exc}"[:300], case=case) from None
    for before, after in zip(args, copies):
        if isinstance(before, np.ndarray) and not np.array_equal(before, after):
            raise _Fail("checks.mutated", case=case)
    return out


def _array(out, case: str, what: str = "output") -> np.ndarray:
    """The learner's return value as an array, or a failure that says why it is not one."""
    if out is None:
        raise _Fail("checks.returned_none", case=case)
    if isinstance(out, tuple):
        raise _Fail("checks.returned_tuple", n=len(out), case=case)
    if hasattr(out, "detach"):                       # a torch tensor
        out = out.detach().cpu().numpy()
    try:
        arr = np.asarray(out)
    except Exception:                                # noqa: BLE001
        arr = np.asarray(None, dtype=object)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise _Fail("checks.not_array", got=type(out).__name__, case=case)
    return arr


def _shape(arr, expected, what: str, case: str, hint: str = "") -> None:
    expected = tuple(expected)
    if arr.shape != expected and not hint and what in ("scores", "weights") and len(expected) >= 2 \
            and expected[-1] != expected[-2] and arr.shape == expected[:-2] + expected[:-3:-1]:
        hint = "checks.hint.kq"                      # (Tk, Tq) instead of (Tq, Tk)
    if arr.shape != expected:
        raise _Fail("checks.shape", what=what, got=arr.shape, expected=tuple(expected), case=case,
                    hint=t(hint) if hint else "")


def _finite(arr, what: str, case: str, key: str = "checks.not_finite") -> None:
    if not np.isfinite(arr.astype(float)).all():
        raise _Fail(key, what=what, case=case)


def _rows_sum_to_one(w, what: str, case: str) -> None:
    """Weights along the last axis must be non-negative and sum to 1; name the wrong axis if so."""
    w = w.astype(float)
    if (w < -ATOL).any():
        raise _Fail("checks.negative", what=what, value=f"{w.min():.3g}", case=case)
    sums = w.sum(axis=-1)
    if np.allclose(sums, 1, atol=1e-5):
        return
    if w.ndim >= 2 and np.allclose(w.sum(axis=-2), 1, atol=1e-5):
        raise _Fail("checks.wrong_axis", what=what, case=case)
    if w.ndim >= 2 and np.isclose(w.sum(), 1, atol=1e-5):
        raise _Fail("checks.global_sum", what=what, case=case)
    if sums.ndim == 0:
        raise _Fail("checks.sum", what=what, value=f"{float(sums):.3g}", case=case)
    flat = sums.reshape(-1)
    i = int(np.argmax(np.abs(flat - 1)))
    index = ", ".join(str(int(j)) for j in np.unravel_index(i, sums.shape)) if sums.ndim else ""
    raise _Fail("checks.row_sum", what=what, index=index, value=f"{flat[i]:.3g}", case=case)


def _close(got, expected, what: str, case: str) -> None:
    if not np.allclose(got.astype(float), expected, atol=1e-5, rtol=1e-4):
        raise _Fail("checks.values", what=what, got=_fmt(got), expected=_fmt(expected), case=case)


def _case(**arrays) -> str:
    """A language-neutral description of the inputs, e.g. "q.shape=(4, 5), k.shape=(3, 5)"."""
    return ", ".join(f"{n}.shape={np.shape(a)}" for n, a in arrays.items())


# --- softmax ---------------------------------------------------------------------------------------

def check_softmax(fn) -> CheckResult:
    """Check fn(x) -> softmax of x along the last axis (1-D, 2-D and batched x, large logits)."""
    def body():
        x = np.array([2.0, 1.0, 0.0])
        case = "x = [2, 1, 0]"
        out = _array(_call(fn, case, x), case)
        _shape(out, x.shape, "softmax(x)", case)
        _finite(out, "softmax(x)", case)
        if np.allclose(out, x / x.sum(), atol=1e-6):
            raise _Fail("checks.softmax.no_exp", case=case)
        _rows_sum_to_one(out, "softmax(x)", case)
        _close(out, softmax(x), "softmax(x)", case)

        x = np.random.default_rng(0).normal(size=(3, 4))            # (3, 4)
        case = _case(x=x)
        out = _array(_call(fn, case, x), case)
        _shape(out, x.shape, "softmax(x)", case)
        _finite(out, "softmax(x)", case)
        _rows_sum_to_one(out, "softmax(x)", case)
        _close(out, softmax(x), "softmax(x)", case)

        x = np.random.default_rng(1).normal(size=(2, 3, 4))         # (B, T, N)
        case = _case(x=x)
        try:
            out = _array(_call(fn, case, x), case)
            _shape(out, x.shape, "softmax(x)", case)
            _rows_sum_to_one(out, "softmax(x)", case)
            _close(out, softmax(x), "softmax(x)", case)
        except _Fail as fail:
            raise _Fail("checks.softmax.batch", case=case, detail=t(fail.key, **fail.fields)) from None

        x = np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1002.0]])
        case = "x = [[1000, 999, 998], [-1000, -1001, -1002]]"
        out = _array(_call(fn, case, x), case).astype(float)
        if not np.isfinite(out[0]).all():
            raise _Fail("checks.softmax.overflow", case=case)
        if not np.isfinite(out[1]).all() or not np.isclose(out[1].sum(), 1, atol=1e-5):
            raise _Fail("checks.softmax.global_max", case=case)
        _close(out, softmax(x), "softmax(x)", case)

        x = np.array([1e4, 0.0, -1e4])
        case = "x = [1e4, 0, -1e4]"
        out = _array(_call(fn, case, x), case)
        _finite(out, "softmax(x)", case, key="checks.softmax.overflow")
        _close(out, softmax(x), "softmax(x)", case)
        return t("checks.softmax.ok")
    return _run("check_softmax", body)


# --- scores and attention --------------------------------------------------------------------------

_SEED_Q = np.array([[1.0, 0.0]])                  # (Tq=1, Dk=2): the worked example of seed 002
_SEED_K = np.array([[1.0, 0.0], [0.0, 1.0]])      # (Tk=2, Dk=2)
_SEED_V = np.array([[2.0, 0.0], [0.0, 4.0]])      # (Tk=2, Dv=2)
_SEED_QK_CASE = "q = [[1, 0]], k = [[1, 0], [0, 1]]"
_SEED_CASE = _SEED_QK_CASE + ", v = [[2, 0], [0, 4]]"


def _scale_variants(q, k):
    """Common scaling mistakes -> the i18n key that explains each one."""
    raw = np.matmul(q, np.swapaxes(k, -1, -2))
    dk = q.shape[-1]
    return {"checks.scale.none": raw, "checks.scale.by_dk": raw / dk,
            "checks.scale.multiplied": raw * math.sqrt(dk)}


def _diagnose_scale(got, make, case: str) -> None:
    """If `got` equals `make(scores)` for a mis-scaled variant of the seed example, say which."""
    for key, scores in _scale_variants(_SEED_Q, _SEED_K).items():
        if np.allclose(got.astype(float), make(scores), atol=1e-4):
            raise _Fail(key, case=case)


def check_scaled_scores(fn) -> CheckResult:
    """Check fn(q, k) -> Q K^T / sqrt(Dk), shape (..., Tq, Tk)."""
    def body():
        case = _SEED_QK_CASE
        out = _array(_call(fn, case, _SEED_Q, _SEED_K), case)
        _shape(out, (1, 2), "scores", case)
        _diagnose_scale(out, lambda s: s, case)
        _close(out, attention_scores(_SEED_Q, _SEED_K), "scores", case)

        rng = np.random.default_rng(0)
        q, k = rng.normal(size=(4, 5)), rng.normal(size=(3, 5))      # (Tq, Dk), (Tk, Dk)
        case = _case(q=q, k=k)
        out = _array(_call(fn, case, q, k), case)
        hint = "checks.hint.kq" if out.shape == (3, 4) else ""
        _shape(out, (4, 3), "scores", case, hint)
        _close(out, attention_scores(q, k), "scores", case)

        q, k = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5))   # (B, H, T, Dk)
        case = _case(q=q, k=k)
        try:
            out = _array(_call(fn, case, q, k), case)
            _shape(out, (2, 3, 4, 6), "scores", case)
            _close(out, attention_scores(q, k), "scores", case)
        except _Fail as fail:
            raise _Fail("checks.batch_transpose", case=case, detail=t(fail.key, **fail.fields)) from None
        return t("checks.scores.ok")
    return _run("check_scaled_scores", body)


def _accepts_mask(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "mask" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def check_attention(fn, *, returns: str = "both", test_mask: bool | None = None) -> CheckResult:
    """Check fn(q, k, v[, mask=]) against attention_core.scaled_dot_product_attention.

    returns="both": fn must return (output, weights) like the library; "output": just the output.
    test_mask: also check a causal boolean mask (True = may attend); None = when fn takes `mask`.
    """
    if returns not in ("both", "output"):
        raise ValueError(f"returns: expected 'both' or 'output', got {returns!r}")
    if test_mask is None:
        test_mask = _accepts_mask(fn)

    def run(case, q, k, v, **kw):
        out = _call(fn, case, q, k, v, **kw)
        if returns == "output":
            return _array(out, case), None
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise _Fail("checks.attention.not_pair", case=case)
        return _array(out[0], case), _array(out[1], case)

    def body():
        # 1. The worked example of seed 002 / notebook 01: weights [0.670, 0.330], output [1.340, 1.321].
        ref_out, ref_w = scaled_dot_product_attention(_SEED_Q, _SEED_K, _SEED_V)
        out, w = run(_SEED_CASE, _SEED_Q, _SEED_K, _SEED_V)
        _shape(out, (1, 2), "output", _SEED_CASE)
        if w is not None:
            _shape(w, (1, 2), "weights", _SEED_CASE)
            _finite(w, "weights", _SEED_CASE)
            _rows_sum_to_one(w, "weights", _SEED_CASE)
            _diagnose_scale(w, lambda s: softmax(s), _SEED_CASE)
            _close(w, ref_w, "weights", _SEED_CASE)
        else:
            _diagnose_scale(out, lambda s: softmax(s) @ _SEED_V, _SEED_CASE)
        if np.allclose(out, ref_w @ _SEED_K, atol=1e-5):
            raise _Fail("checks.attention.times_k", case=_SEED_CASE)
        _close(out, ref_out, "output", _SEED_CASE)

        # 2. Rectangular: Tq=4, Tk=3, Dk=5, Dv=2 exposes swapped products and axes.
        rng = np.random.default_rng(0)
        q, k, v = rng.normal(size=(4, 5)), rng.normal(size=(3, 5)), rng.normal(size=(3, 2))
        case = _case(q=q, k=k, v=v)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        out, w = run(case, q, k, v)
        if w is not None:
            _shape(w, (4, 3), "weights", case, "checks.hint.kq" if w.shape == (3, 4) else "")
            _finite(w, "weights", case)
            _rows_sum_to_one(w, "weights", case)
            _close(w, ref_w, "weights", case)
        _shape(out, (4, 2), "output", case, "checks.hint.times_k" if out.shape == (4, 5) else "")
        if w is None and np.allclose(out, softmax(attention_scores(q, k), axis=0) @ v, atol=1e-5):
            raise _Fail("checks.wrong_axis", what="softmax", case=case)
        if w is not None and not np.allclose(out, ref_out, atol=1e-5):
            raise _Fail("checks.attention.output", case=case)
        _close(out, ref_out, "output", case)

        # 3. Large scores: a naive exp overflows to inf and inf/inf = NaN.
        q = np.array([[60.0, 60.0, 0.0, 0.0]])
        k = np.array([[60.0, 60.0, 0.0, 0.0], [0.0, 0.0, 60.0, 60.0], [-60.0, -60.0, 0.0, 0.0]])
        v = np.array([[1.0], [2.0], [3.0]])
        case = "q = [[60, 60, 0, 0]], k = [[60, 60, 0, 0], [0, 0, 60, 60], [-60, -60, 0, 0]] (score 3600)"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        out, w = run(case, q, k, v)
        for arr in (out, w):
            if arr is not None:
                _finite(arr, "output" if arr is out else "weights", case, key="checks.attention.overflow")
        _close(out, ref_out, "output", case)

        # 4. A batch (B, H, T, D): k.T would reverse every axis; swapaxes(-1, -2) is what is meant.
        q, k, v = (rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5)),
                   rng.normal(size=(2, 3, 6, 2)))
        case = _case(q=q, k=k, v=v)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        try:
            out, w = run(case, q, k, v)
            _shape(out, ref_out.shape, "output", case)
            _close(out, ref_out, "output", case)
            if w is not None:
                _close(w, ref_w, "weights", case)
        except _Fail as fail:
            raise _Fail("checks.batch_transpose", case=case, detail=t(fail.key, **fail.fields)) from None

        if not test_mask:
            sep = "" if get_language() == "zh" else " "          # Chinese sentences join without a space
            return t("checks.attention.ok") + sep + t("checks.attention.no_mask_tested")
        # 5. A causal mask (True = may attend): masked keys must get weight exactly 0.
        q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
        mask = causal_mask(4)                                            # (Tq, Tk)
        case = _case(q=q, k=k, v=v) + ", mask = causal_mask(4)"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v, mask=mask)
        out, w = run(case, q, k, v, mask=mask.copy())
        unmasked_out, _ = scaled_dot_product_attention(q, k, v)
        if np.allclose(out, unmasked_out, atol=1e-6):
            raise _Fail("checks.mask.ignored", case=case)
        if w is not None:
            _shape(w, (4, 4), "weights", case)
            ok_rows = np.isfinite(w).all(axis=-1)                        # -inf everywhere -> NaN row
            w_ok, m_ok = w[ok_rows], mask[ok_rows]
            if w_ok.size and np.allclose(w_ok[m_ok], 0, atol=1e-9) and (np.abs(w_ok[~m_ok]) > 1e-9).any():
                raise _Fail("checks.mask.inverted", case=case)
            _finite(w, "weights", case)
            leak = np.argwhere(~mask & (np.abs(w) > 1e-9))
            if len(leak):
                i, j = (int(n) for n in leak[0])
                raise _Fail("checks.mask.leak", i=i, j=j, value=f"{w[i, j]:.3g}", case=case)
            if not np.allclose(w.sum(-1), 1, atol=1e-5):
                raise _Fail("checks.mask.after_softmax", case=case)
            _close(w, ref_w, "weights", case)
        else:
            inv_out, _ = scaled_dot_product_attention(q, k, v, mask=~mask | np.eye(4, dtype=bool))
            if np.allclose(out, inv_out, atol=1e-6):
                raise _Fail("checks.mask.inverted", case=case)
        _close(out, ref_out, "output", case)
        return t("checks.attention.ok")
    return _run("check_attention", body)


# --- causal mask -----------------------------------------------------------------------------------

def check_causal_mask(fn) -> CheckResult:
    """Check fn(T) -> boolean (T, T) look-ahead mask, True where query i may attend to key j <= i."""
    def body():
        for n in (4, 1, 7):
            case = f"T = {n}"
            out = _array(_call(fn, case, n), case)
            _shape(out, (n, n), "mask", case)
            ref = causal_mask(n)
            if out.dtype != bool:
                vals = out.astype(float)
                if np.isneginf(vals).any() or (vals < 0).any():
                    raise _Fail("checks.mask.additive", case=case)
                raise _Fail("checks.mask.dtype", dtype=str(out.dtype), case=case)
            if np.array_equal(out, ref):
                continue
            eye = np.eye(n, dtype=bool)
            if np.array_equal(out, ~ref):
                raise _Fail("checks.mask.bool_inverted", case=case)
            if np.array_equal(out, ref.T):
                raise _Fail("checks.mask.upper", case=case)
            if np.array_equal(out, ref & ~eye):
                raise _Fail("checks.mask.no_diagonal", case=case)
            i = int(np.argmax((out != ref).any(axis=1)))
            raise _Fail("checks.values", what=f"mask[{i}]", got=str(out[i].tolist()),
                        expected=str(ref[i].tolist()), case=case)
        return t("checks.mask.ok")
    return _run("check_causal_mask", body)
