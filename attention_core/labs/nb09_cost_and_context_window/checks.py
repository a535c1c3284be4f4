"""The checkers of notebook 09's exercises: decoding with a KV cache, and the cache's size in bytes."""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def _observed(reads) -> list:
    """The reads the checker can judge: those from the first read of rows on. Taking an input whole before
    the first step (`q = np.asarray(q)`, `k.sum()`) hands the learner a plain array, whose reads the checker
    cannot see; the memory case judges what follows (`k.copy()`, `k.astype(float)`, `q / 2` stay watched)."""
    first = next((i for i, r in enumerate(reads) if r.how == "rows"), len(reads))
    return list(reads[first:])


def _future_read(reads) -> tuple | None:
    """The first read of a future token, as (step, Read), or None. The steps are counted by the queries: step
    t begins when q[t] is read, and until then the rows read may reach t (k[t] and v[t] may join the cache
    before q[t] is read); a read of a later row of q, k or v reads a token that does not exist yet. When q was
    taken whole before the first step (`np.asarray(q)`), its reads are hidden: then row t of any input may be
    read once rows 0 .. t-1 of some input have been."""
    q_seen = any(r.name == "q" and r.how == "rows" for r in reads)
    step = seen = -1
    for r in reads:
        if not r.rows:
            continue
        limit = (step if q_seen else seen) + 1
        if max(r.rows) > limit:
            return limit, r
        seen = max(seen, max(r.rows))
        if r.name == "q":
            step = max(step, max(r.rows))
    return None


def _read_pattern(reads, n_tokens: int, case: str) -> None:
    """Decoding is watched, not only its result: q, k and v arrive as inputs that record which rows
    (tokens) are read, in order; no step may read a token after its own."""
    ahead = _future_read(_observed(reads))
    if ahead is None:
        return
    step, read = ahead
    if step == 0 and len(read.rows) == n_tokens:
        raise ck.Fail("exercises.kv.all_at_once", name=read.name, n=n_tokens, case=case)
    raise ck.Fail("exercises.kv.read_ahead", t=step, j=max(read.rows), name=read.name, case=case)


def _index(name: str, rows) -> str:
    """The read as code: q[3], k[0:4], v[[0, 2]]."""
    if len(rows) == 1:
        return f"{name}[{rows[0]}]"
    if list(rows) == list(range(rows[0], rows[-1] + 1)):
        return f"{name}[{rows[0]}:{rows[-1] + 1}]"
    return f"{name}[{list(rows)}]"


def _no_recomputation(reads, case: str) -> None:
    """Step t computes one output, for the query q[t]: the keys and values of tokens 0 .. t may be read as often
    as the decoder likes (a cache, a preallocated buffer, k[:t + 1] of the keys given), but reading the query of
    an earlier step again (q[:t + 1]) computes the attention of the whole prefix once more, at every step."""
    latest = -1
    for r in _observed(reads):
        if r.name != "q" or not r.rows:
            continue
        if min(r.rows) < latest:
            raise ck.Fail("exercises.kv.reread", t=max(latest, max(r.rows)), read=_index(r.name, r.rows), case=case)
        latest = max(latest, max(r.rows))


def _mib(n_bytes: float) -> str:
    return f"{n_bytes / 2 ** 20:.2f} MiB"


def check_kv_cache_decode(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(q, k, v) (each (T, D)) -> the outputs (T, Dv) of step-by-step causal decoding with a KV cache:
    step t appends k[t], v[t] to the cache and attends with q[t] over keys 0 .. t.

    Behaviour is observed, not only the result. q, k and v are handed over as watched inputs
    (`teaching.checks.Watched`): indexing them in any form gives the rows as arrays and records which tokens
    were read, so reading ahead (one masked computation over the whole sequence) and reading the queries of
    earlier steps again (the prefix recomputed at every step) are told apart from decoding one token at a
    time. How the keys and values are kept is the learner's choice: a list the cache appends to, a
    preallocated buffer filled step by step, or the given keys sliced up to t are all a KV cache. An input taken whole
    before the first step (`np.asarray(q)`) hides its reads; then the peak memory at 384 tokens judges:
    a decoder holds one row of scores per step, never the (T, T) matrix."""
    def body():
        rng = np.random.default_rng(0)
        for t in (5, 1, 12):
            q, k, v = rng.normal(size=(t, 4)), rng.normal(size=(t, 4)), rng.normal(size=(t, 3))
            case = ck.describe(q=q, k=k, v=v)
            reads: list = []
            out = ck.as_array(ck.call_learner(fn, case, *ck.watch(reads, q=q, k=k, v=v)), case)
            ref = scaled_dot_product_attention(q, k, v, mask=causal_mask(t))[0]
            ck.expect_shape(out, ref.shape, ck.msg(ck.W_OUTPUT), case)
            _read_pattern(reads, t, case)
            if t > 1:
                seen = [scaled_dot_product_attention(q, k, v, mask=causal_mask(t, offset=o))[0] for o in (1, t)]
                for wrong in seen:
                    rows = np.flatnonzero(~np.isclose(wrong, ref, atol=1e-9).all(axis=1))
                    if len(rows) and np.allclose(out[rows[0]], wrong[rows[0]], atol=1e-6) \
                            and not np.allclose(out[rows[0]], ref[rows[0]], atol=1e-6):
                        raise ck.Fail("exercises.kv.future", t=int(rows[0]), case=case)
                excl = scaled_dot_product_attention(q[1:], k, v, mask=causal_mask(t - 1, t))[0]   # keys j < i
                if ck.same(out[1:], excl):
                    raise ck.Fail("exercises.kv.exclusive", case=case)
                # the forgotten offset: causal_mask(1, t + 1) lets the one new query see key 0 only
                ck.diagnose(out, {"exercises.kv.newest_only": v,
                                  "exercises.kv.offset": np.broadcast_to(v[0], v.shape)}, case, ref=ref)
            ck.expect_finite(out, ck.msg(ck.W_OUTPUT), case)
            ck.expect_close(out, ref, ck.msg(ck.W_OUTPUT), case)
            _no_recomputation(reads, case)
        # Memory: 384 tokens; the (T, T) float64 scores are 1.1 MiB, one step's row of scores 3 KiB.
        t = 384
        q, k, v = rng.normal(size=(t, 4)), rng.normal(size=(t, 4)), rng.normal(size=(t, 3))
        case = ck.describe(q=q, k=k, v=v)
        full = t * t * 8
        out, peak = ck.numpy_peak(fn, case, q, k, v)
        ck.expect_shape(out, (t, 3), ck.msg(ck.W_OUTPUT), case)
        ck.expect_close(out, scaled_dot_product_attention(q, k, v, mask=causal_mask(t))[0], ck.msg(ck.W_OUTPUT), case)
        budget = full / 2
        if peak > budget:
            raise ck.Fail("exercises.kv.memory", got=_mib(peak), full=_mib(full), budget=_mib(budget), case=case)
        return ck.msg("exercises.kv.ok", got=_mib(peak), full=_mib(full))
    return ck.run_check("check_kv_cache_decode", body, lang, timeout, fn)


def check_kv_cache_bytes(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number) -> bytes of a KV cache,
    2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number (one sequence)."""
    def body():
        cases = ((32, 32, 128, 4096, 2), (32, 8, 128, 32768, 2), (2, 4, 16, 10, 4), (1, 1, 1, 1, 4))
        for layers, heads, d_head, tokens, nbytes in cases:
            case = (f"n_layers = {layers}, n_kv_heads = {heads}, d_head = {d_head}, n_tokens = {tokens}, "
                    f"bytes_per_number = {nbytes}")
            got = ck.as_number(ck.call_learner(fn, case, layers, heads, d_head, tokens, nbytes), case)
            expected = 2 * layers * heads * d_head * tokens * nbytes
            if got == expected:
                continue
            one = expected // tokens
            variants = {"exercises.kvbytes.no_two": expected / 2, "exercises.kvbytes.no_layers": expected / layers,
                        "exercises.kvbytes.bits": expected * 8, "exercises.kvbytes.squared": one * tokens * tokens}
            for key, wrong in variants.items():
                if tokens > 1 and layers > 1 and got == wrong or (key == "exercises.kvbytes.bits" and got == wrong):
                    raise ck.Fail(key, case=case)
            shown = f"{got:,.0f}" if got.is_integer() else f"{got:,.3f}"        # 0.5 off is not shown as equal
            raise ck.Fail("exercises.kvbytes.wrong", got=shown, expected=f"{expected:,}", case=case)
        return ck.msg("exercises.kvbytes.ok")
    return ck.run_check("check_kv_cache_bytes", body, lang, timeout, fn)
