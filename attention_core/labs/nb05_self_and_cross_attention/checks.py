"""The checkers of notebook 05's exercises: cross-attention over padded source sentences, and the similarity of one
word in two contexts; and the earlier pair, self-attention (three projections of one x) and plain cross-attention."""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.core.softmax import softmax
from attention_core.labs.nb01_query_key_value.checks import not_swapped, output_and_weights
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

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
            case = ck.describe(x=x, w_q=w_q, w_k=w_k, w_v=w_v)
            out, w = output_and_weights(ck.call_learner(fn, case, x, w_q, w_k, w_v), case)
            ref_out, ref_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
            not_swapped(out, w, ref_out, ref_w, case)
            if out.ndim and out.shape[-1] == x.shape[-1] != ref_out.shape[-1]:
                raise ck.Fail("exercises.self.no_projection", case=case)
            ck.expect_shape(w, ref_w.shape, ck.msg(ck.W_WEIGHTS), case)
            ck.expect_shape(out, ref_out.shape, ck.msg(ck.W_OUTPUT), case)
            ck.diagnose(w, {"exercises.self.same_qk": scaled_dot_product_attention(x @ w_q, x @ w_q, x @ w_v)[1],
                             "exercises.self.no_scale": softmax((x @ w_q) @ np.swapaxes(x @ w_k, -1, -2))},
                         case, ref=ref_w)
            ck.expect_close(w, ref_w, ck.msg(ck.W_WEIGHTS), case)
            ck.expect_close(out, ref_out, ck.msg(ck.W_OUTPUT), case)
        return ck.msg("exercises.self.ok")
    return ck.run_check("check_self_attention", body, lang, timeout, fn)


def check_cross_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x_dec (Tq, D), x_enc (Tk, D), w_q, w_k, w_v) -> (output (Tq, Dv), weights (Tq, Tk)):
    Queries from the decoder, Keys and Values from the encoder."""
    def body():
        w_q, w_k, w_v = _projections()
        rng = np.random.default_rng(2)
        x_dec, x_enc = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
        case = ck.describe(x_dec=x_dec, x_enc=x_enc)
        out, w = output_and_weights(ck.call_learner(fn, case, x_dec, x_enc, w_q, w_k, w_v), case)
        ref_out, ref_w = scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)
        not_swapped(out, w, ref_out, ref_w, case)
        if w.shape == (3, 3):
            raise ck.Fail("exercises.cross.self_on_decoder", case=case)
        hint = "exercises.cross.q_from_encoder" if w.shape != (3, 5) else ""
        ck.expect_shape(w, (3, 5), ck.msg(ck.W_WEIGHTS), case, hint)
        ck.expect_shape(out, ref_out.shape, ck.msg(ck.W_OUTPUT), case)
        for offset in (0, 2):                    # np.tril(...) of (3, 5), or the mask of a cache
            masked = scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v,
                                                  mask=causal_mask(3, 5, offset=offset))[1]
            ck.diagnose(w, {"exercises.cross.masked": masked}, case, ref=ref_w)
        ck.diagnose(w, {"exercises.self.no_scale": softmax((x_dec @ w_q) @ (x_enc @ w_k).T)}, case, ref=ref_w)
        ck.expect_close(w, ref_w, ck.msg(ck.W_WEIGHTS), case)
        ck.expect_close(out, ref_out, ck.msg(ck.W_OUTPUT), case)
        return ck.msg("exercises.cross.ok")
    return ck.run_check("check_cross_attention", body, lang, timeout, fn)


def _padded_batch(seed: int = 3):
    """A batch of two translations: decoder states (2, 3, 4), encoder outputs padded to 5 tokens (2, 5, 4), the
    source lengths (5, 2): the second sentence has 3 pads, whose rows hold large numbers (padding is not zeros)."""
    rng = np.random.default_rng(seed)
    x_dec, x_enc = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    x_enc[1, 2:] = 10.0 * rng.normal(size=(3, 4))
    return x_dec, x_enc, np.array([5, 2])


def check_padded_cross_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x_dec (B, Tq, D), x_enc (B, Tk, D), src_lengths (B,), w_q, w_k, w_v) -> (output (B, Tq, Dv),
    weights (B, Tq, Tk)): cross-attention over a batch of padded source sentences, pads given weight exactly 0."""
    def body():
        w_q, w_k, w_v = _projections()
        x_dec, x_enc, lengths = _padded_batch()
        case = ck.describe(x_dec=x_dec, x_enc=x_enc) + f", src_lengths={lengths.tolist()}"
        q, k, v = x_dec @ w_q, x_enc @ w_k, x_enc @ w_v
        keys = (np.arange(5)[None, :] < lengths[:, None])[:, None, :]          # (B, 1, Tk): real source tokens
        out, w = output_and_weights(ck.call_learner(fn, case, x_dec.copy(), x_enc.copy(), lengths.copy(),
                                                    w_q, w_k, w_v), case)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v, mask=keys)
        not_swapped(out, w, ref_out, ref_w, case)
        if w.shape == (2, 3, 3):
            raise ck.Fail("exercises.cross.self_on_decoder", case=case)
        hint = "exercises.cross.q_from_encoder" if w.shape[-2:] != (3, 5) else ""
        ck.expect_shape(w, ref_w.shape, ck.msg(ck.W_WEIGHTS), case, hint)
        ck.expect_shape(out, ref_out.shape, ck.msg(ck.W_OUTPUT), case)
        ck.expect_finite(w, ck.msg(ck.W_WEIGHTS), case)
        queries = (np.arange(3)[None, :] < lengths[:, None])[:, :, None]       # the lengths read as query lengths
        ck.diagnose(w, {"exercises.padded.no_mask": scaled_dot_product_attention(q, k, v)[1],
                        "exercises.padded.off_by_one": scaled_dot_product_attention(
                         q, k, v, mask=(np.arange(5)[None, :] <= lengths[:, None])[:, None, :])[1],
                        "exercises.padded.pads_kept": scaled_dot_product_attention(q, k, v, mask=~keys)[1],
                        "exercises.padded.queries_masked": scaled_dot_product_attention(
                         q, k, v, mask=np.broadcast_to(queries, (2, 3, 5)))[1],
                        "exercises.cross.masked": scaled_dot_product_attention(
                         q, k, v, mask=keys & causal_mask(3, 5))[1],
                        "exercises.self.no_scale": softmax(q @ np.swapaxes(k, -1, -2), mask=keys)},
                    case, ref=ref_w)
        if np.abs(w[1, :, 2:]).max() > 1e-12:
            raise ck.Fail("exercises.padded.pad_weight", case=case, got=float(np.abs(w[1, :, 2:]).max()))
        ck.expect_close(w, ref_w, ck.msg(ck.W_WEIGHTS), case)
        ck.expect_close(out, ref_out, ck.msg(ck.W_OUTPUT), case)
        return ck.msg("exercises.padded.ok")
    return ck.run_check("check_padded_cross_attention", body, lang, timeout, fn)


def _contextual(x, w_q, w_k, w_v):
    out, _ = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    return x + out


def _cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def check_context_similarity(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x_a (Ta, F), i, x_b (Tb, F), j, w_q, w_k, w_v) -> the cosine similarity of token i of sentence a
    and token j of sentence b after one self-attention step with a residual connection, h = x + attention(x)."""
    from .context_lab import SENTENCES, context_params, embed

    def body():
        rng = np.random.default_rng(4)
        w_q, w_k = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
        w_v = rng.normal(size=(5, 5))
        bank = (embed(SENTENCES["collapse"]), 0, embed(SENTENCES["opposite"]), 0, *context_params())
        cases = [(rng.normal(size=(4, 5)), 2, rng.normal(size=(3, 5)), 1, w_q, w_k, w_v), bank]
        for x_a, i, x_b, j, wq, wk, wv in cases:
            case = ck.describe(x_a=x_a, x_b=x_b, w_q=wq, w_v=wv) + f", i={i}, j={j}"
            got = ck.as_number(ck.call_learner(fn, case, x_a.copy(), i, x_b.copy(), j, wq, wk, wv), case)
            h_a, h_b = _contextual(x_a, wq, wk, wv), _contextual(x_b, wq, wk, wv)
            ref = _cos(h_a[i], h_b[j])
            out_a = scaled_dot_product_attention(x_a @ wq, x_a @ wk, x_a @ wv)[0]
            out_b = scaled_dot_product_attention(x_b @ wq, x_b @ wk, x_b @ wv)[0]
            unscaled = [x + softmax((x @ wq) @ (x @ wk).T) @ (x @ wv) for x in (x_a, x_b)]
            ck.diagnose(got, {"exercises.similarity.distance": 1.0 - ref,
                              "exercises.similarity.dot": float(h_a[i] @ h_b[j]),
                              "exercises.similarity.embeddings": _cos(x_a[i], x_b[j]),
                              "exercises.similarity.no_residual": _cos(out_a[i], out_b[j]),
                              "exercises.similarity.wrong_token": _cos(h_a[j % len(h_a)], h_b[i % len(h_b)]),
                              "exercises.self.no_scale": _cos(unscaled[0][i], unscaled[1][j])},
                        case, ref=ref)
            if abs(got - ref) > 1e-6:
                raise ck.Fail("exercises.similarity.wrong", case=case, got=f"{got:.4f}", expected=f"{ref:.4f}")
        return ck.msg("exercises.similarity.ok", value=f"{ref:.2f}")
    return ck.run_check("check_context_similarity", body, lang, timeout, fn)
