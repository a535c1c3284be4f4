"""The checkers of notebook 05's exercises: self-attention (three projections of one x) and cross-attention."""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.core.softmax import softmax
from attention_core.labs.nb01_query_key_value.checks import not_swapped, output_and_weights
from attention_core.teaching import i18n
from attention_core.teaching.checks import (
    W_OUTPUT,
    W_WEIGHTS,
    Fail,
    call_learner,
    describe,
    diagnose,
    expect_close,
    expect_shape,
    msg,
    run_check,
)

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def _projections(seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))   # w_q, w_k (D, Dk), w_v (D, Dv)


def check_self_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, D), w_q, w_k, w_v) -> (output, weights) of self-attention: Q, K, V = x W_q, x W_k, x W_v."""
    def body():
        w_q, w_k, w_v = _projections()
        rng = np.random.default_rng(1)
        for x in (rng.normal(size=(4, 4)), rng.normal(size=(2, 4, 4))):
            case = describe(x=x, w_q=w_q, w_k=w_k, w_v=w_v)
            out, w = output_and_weights(call_learner(fn, case, x, w_q, w_k, w_v), case)
            ref_out, ref_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
            not_swapped(out, w, ref_out, ref_w, case)
            if out.ndim and out.shape[-1] == x.shape[-1] != ref_out.shape[-1]:
                raise Fail("exercises.self.no_projection", case=case)
            expect_shape(w, ref_w.shape, msg(W_WEIGHTS), case)
            expect_shape(out, ref_out.shape, msg(W_OUTPUT), case)
            diagnose(w, {"exercises.self.same_qk": scaled_dot_product_attention(x @ w_q, x @ w_q, x @ w_v)[1],
                          "exercises.self.no_scale": softmax((x @ w_q) @ np.swapaxes(x @ w_k, -1, -2))},
                      case, ref=ref_w)
            expect_close(w, ref_w, msg(W_WEIGHTS), case)
            expect_close(out, ref_out, msg(W_OUTPUT), case)
        return msg("exercises.self.ok")
    return run_check("check_self_attention", body, lang, timeout, fn)


def check_cross_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x_dec (Tq, D), x_enc (Tk, D), w_q, w_k, w_v) -> (output (Tq, Dv), weights (Tq, Tk)):
    Queries from the decoder, Keys and Values from the encoder."""
    def body():
        w_q, w_k, w_v = _projections()
        rng = np.random.default_rng(2)
        x_dec, x_enc = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
        case = describe(x_dec=x_dec, x_enc=x_enc)
        out, w = output_and_weights(call_learner(fn, case, x_dec, x_enc, w_q, w_k, w_v), case)
        ref_out, ref_w = scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)
        not_swapped(out, w, ref_out, ref_w, case)
        if w.shape == (3, 3):
            raise Fail("exercises.cross.self_on_decoder", case=case)
        hint = "exercises.cross.q_from_encoder" if w.shape != (3, 5) else ""
        expect_shape(w, (3, 5), msg(W_WEIGHTS), case, hint)
        expect_shape(out, ref_out.shape, msg(W_OUTPUT), case)
        for offset in (0, 2):                    # np.tril(...) of (3, 5), or the mask of a cache
            masked = scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v,
                                                  mask=causal_mask(3, 5, offset=offset))[1]
            diagnose(w, {"exercises.cross.masked": masked}, case, ref=ref_w)
        diagnose(w, {"exercises.self.no_scale": softmax((x_dec @ w_q) @ (x_enc @ w_k).T)}, case, ref=ref_w)
        expect_close(w, ref_w, msg(W_WEIGHTS), case)
        expect_close(out, ref_out, msg(W_OUTPUT), case)
        return msg("exercises.cross.ok")
    return run_check("check_cross_attention", body, lang, timeout, fn)
