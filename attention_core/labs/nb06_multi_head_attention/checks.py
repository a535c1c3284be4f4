"""The checkers of notebook 06's exercises: splitting and merging heads, and multi-head attention."""
from __future__ import annotations

import math

import numpy as np

from attention_core.core.multihead import merge_heads, multi_head_attention, split_heads
from attention_core.core.softmax import softmax
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def _split_no_transpose(x, h):
    *lead, t, d = x.shape
    return x.reshape(*lead, h, t, d // h)


def _split_strided(x, h):
    *lead, t, d = x.shape
    return np.moveaxis(x.reshape(*lead, t, d // h, h), -1, -3)


def check_split_heads(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, D), n_heads) -> (..., H, T, D/H), head h holding columns h*Dh .. (h+1)*Dh - 1."""
    def one(x, h, case):
        out = ck.as_array(ck.call_learner(fn, case, x, h), case)
        ref = split_heads(x, h)
        *lead, t, d = x.shape
        hint = "exercises.heads.head_last" if out.shape == (*lead, t, h, d // h) else ""
        ck.expect_shape(out, ref.shape, ck.msg("exercises.what.heads"), case, hint)
        ck.diagnose(out, {"exercises.heads.no_transpose": _split_no_transpose(x, h),
                           "exercises.heads.strided": _split_strided(x, h)}, case, ref=ref)
        ck.expect_close(out, ref, ck.msg("exercises.what.heads"), case)

    def body():
        rng = np.random.default_rng(0)
        x = rng.normal(size=(3, 8))
        one(x, 2, ck.describe(x=x) + ", n_heads = 2")
        one(x, 1, ck.describe(x=x) + ", n_heads = 1")
        x = rng.normal(size=(2, 5, 12))                                        # (B, T, D)
        case = ck.describe(x=x) + ", n_heads = 3"
        with ck.batched("exercises.heads.batch", case,
                        keep=("exercises.heads.no_transpose", "exercises.heads.strided")):   # named as they are
            one(x, 3, case)
        return ck.msg("exercises.heads.split_ok")
    return ck.run_check("check_split_heads", body, lang, timeout, fn)


def check_merge_heads(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., H, T, Dh)) -> (..., T, H*Dh), the inverse of split_heads (the concat step)."""
    def one(x, case):
        out = ck.as_array(ck.call_learner(fn, case, x), case)
        ref = merge_heads(x)
        *lead, h, t, dh = x.shape
        ck.expect_shape(out, ref.shape, ck.msg("exercises.what.merged"), case)
        ck.diagnose(out, {"exercises.merge.no_transpose": x.reshape(*lead, t, h * dh),
                           "exercises.merge.strided": np.moveaxis(x, -3, -1).reshape(*lead, t, h * dh)}, case, ref=ref)
        ck.expect_close(out, ref, ck.msg("exercises.what.merged"), case)

    def body():
        rng = np.random.default_rng(0)
        x = rng.normal(size=(2, 3, 4))                                         # (H, T, Dh)
        one(x, ck.describe(x=x))
        x = split_heads(rng.normal(size=(2, 5, 12)), 3)                        # (B, H, T, Dh)
        case = ck.describe(x=x)
        with ck.batched("exercises.heads.batch", case,
                        keep=("exercises.merge.no_transpose", "exercises.merge.strided")):   # named as they are
            one(x, case)
        return ck.msg("exercises.merge.ok")
    return ck.run_check("check_merge_heads", body, lang, timeout, fn)


def _mha_variant(x, p, *, transpose=True, scale="head", w_o=True, bias=True, one_head=False):
    """Self-attention output of multi-head attention, with one usual mistake switched on."""
    b = (lambda v: v) if bias else (lambda v: 0.0)
    h = 1 if one_head else p.n_heads
    split = split_heads if transpose else _split_no_transpose
    q, k, v = (split(x @ w + b(bb), h) for w, bb in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    d = q.shape[-1] if scale == "head" else x.shape[-1]
    heads = softmax(q @ np.swapaxes(k, -1, -2) / math.sqrt(d)) @ v            # (..., H, T, Dh)
    *lead, hh, t, dh = heads.shape
    merged = merge_heads(heads) if transpose else heads.reshape(*lead, t, hh * dh)
    return merged @ p.w_o + b(p.b_o) if w_o else merged


def check_multi_head_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, D), params) -> the output of ac.multi_head_attention(x, x, x, params) (..., T, D).
    A pair (output, weights) is accepted too."""
    from attention_core.core.multihead import init_multihead

    def body():
        rng = np.random.default_rng(0)
        for n_heads, shape in ((2, (4, 8)), (4, (5, 8)), (1, (3, 8)), (2, (2, 4, 8))):
            params = init_multihead(8, n_heads, seed=n_heads)
            x = rng.normal(size=shape)
            case = ck.describe(x=x) + f", n_heads = {n_heads}"
            out = ck.call_learner(fn, case, x, params)
            if isinstance(out, (tuple, list)) and len(out) == 2:
                out = out[0]
            out = ck.as_array(out, case)
            ref = multi_head_attention(x, x, x, params)[0]
            ck.expect_shape(out, ref.shape, ck.msg(ck.W_OUTPUT), case)
            variants = {"exercises.mha.no_w_o": None, "exercises.mha.no_bias": _mha_variant(x, params, bias=False)}
            if n_heads > 1:
                variants.update({"exercises.mha.no_transpose": _mha_variant(x, params, transpose=False),
                                 "exercises.mha.scale_model": _mha_variant(x, params, scale="model"),
                                 "exercises.mha.one_head": _mha_variant(x, params, one_head=True)})
            if ck.same(_mha_variant(x, params, w_o=False), out):
                raise ck.Fail("exercises.mha.no_w_o", case=case)
            ck.diagnose(out, variants, case, ref=ref)
            ck.expect_close(out, ref, ck.msg(ck.W_OUTPUT), case)
        return ck.msg("exercises.mha.ok")
    return ck.run_check("check_multi_head_attention", body, lang, timeout, fn)
