"""The checkers of notebook 09's exercises: decoding with a KV cache, and the cache's size in bytes."""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.teaching import i18n
from attention_core.teaching.checks import (
    W_OUTPUT,
    Fail,
    as_array,
    call_learner,
    describe,
    diagnose,
    expect_close,
    expect_finite,
    expect_shape,
    first_read_ahead,
    msg,
    run_exercise,
    same,
    watch,
)

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def _read_pattern(reads, n_tokens: int, case: str) -> None:
    """Decoding is watched, not only its result: q, k and v arrive as inputs that record which rows
    (tokens) are read, in order; step t may read token t only after tokens 0 .. t-1."""
    ahead = first_read_ahead(reads)
    if ahead is None:
        return
    step, read = ahead
    if step == 0 and len(read.rows) == n_tokens:
        raise Fail("exercises.kv.all_at_once", name=read.name, n=n_tokens, case=case)
    raise Fail("exercises.kv.read_ahead", t=step - 1, j=max(read.rows), name=read.name, case=case)


def check_kv_cache_decode(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(q, k, v) (each (T, D)) -> the outputs (T, Dv) of step-by-step causal decoding with a KV cache:
    step t appends k[t], v[t] to the cache and attends with q[t] over keys 0 .. t.

    q, k and v are handed over as watched inputs (`teaching.checks.Watched`): indexing them gives the
    rows as arrays and records which tokens were read, so one masked computation over the whole
    sequence (right outputs, no cache) is told apart from decoding one token at a time."""
    def body():
        rng = np.random.default_rng(0)
        for t in (5, 1, 12):
            q, k, v = rng.normal(size=(t, 4)), rng.normal(size=(t, 4)), rng.normal(size=(t, 3))
            case = describe(q=q, k=k, v=v)
            reads: list = []
            out = as_array(call_learner(fn, case, *watch(reads, q=q, k=k, v=v)), case)
            ref = scaled_dot_product_attention(q, k, v, mask=causal_mask(t))[0]
            expect_shape(out, ref.shape, msg(W_OUTPUT), case)
            _read_pattern(reads, t, case)
            if t > 1:
                seen = [scaled_dot_product_attention(q, k, v, mask=causal_mask(t, offset=o))[0] for o in (1, t)]
                for wrong in seen:
                    rows = np.flatnonzero(~np.isclose(wrong, ref, atol=1e-9).all(axis=1))
                    if len(rows) and np.allclose(out[rows[0]], wrong[rows[0]], atol=1e-6) \
                            and not np.allclose(out[rows[0]], ref[rows[0]], atol=1e-6):
                        raise Fail("exercises.kv.future", t=int(rows[0]), case=case)
                excl = scaled_dot_product_attention(q[1:], k, v, mask=causal_mask(t - 1, t))[0]   # keys j < i
                if same(out[1:], excl):
                    raise Fail("exercises.kv.exclusive", case=case)
                # the forgotten offset: causal_mask(1, t + 1) lets the one new query see key 0 only
                diagnose(out, {"exercises.kv.newest_only": v,
                               "exercises.kv.offset": np.broadcast_to(v[0], v.shape)}, case, ref=ref)
            expect_finite(out, msg(W_OUTPUT), case)
            expect_close(out, ref, msg(W_OUTPUT), case)
        return msg("exercises.kv.ok")
    return run_exercise("check_kv_cache_decode", body, lang, timeout, fn)


def check_kv_cache_bytes(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number) -> bytes of a KV cache,
    2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number (one sequence)."""
    def body():
        cases = ((32, 32, 128, 4096, 2), (32, 8, 128, 32768, 2), (2, 4, 16, 10, 4), (1, 1, 1, 1, 4))
        for layers, heads, d_head, tokens, nbytes in cases:
            case = (f"n_layers = {layers}, n_kv_heads = {heads}, d_head = {d_head}, n_tokens = {tokens}, "
                    f"bytes_per_number = {nbytes}")
            out = call_learner(fn, case, layers, heads, d_head, tokens, nbytes)
            try:
                got = float(out)
            except (TypeError, ValueError):
                raise Fail("checks.not_array", got=type(out).__name__, case=case) from None
            expected = 2 * layers * heads * d_head * tokens * nbytes
            if got == expected:
                continue
            one = expected // tokens
            variants = {"exercises.kvbytes.no_two": expected / 2, "exercises.kvbytes.no_layers": expected / layers,
                        "exercises.kvbytes.bits": expected * 8, "exercises.kvbytes.squared": one * tokens * tokens}
            for key, wrong in variants.items():
                if tokens > 1 and layers > 1 and got == wrong or (key == "exercises.kvbytes.bits" and got == wrong):
                    raise Fail(key, case=case)
            raise Fail("exercises.kvbytes.wrong", got=f"{got:,.0f}", expected=f"{expected:,}", case=case)
        return msg("exercises.kvbytes.ok")
    return run_exercise("check_kv_cache_bytes", body, lang, timeout, fn)
