"""The checkers of notebook 10's exercises: the sliding-window mask and attention by the online softmax."""
from __future__ import annotations

import math

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import sliding_window_mask
from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def check_sliding_window_mask(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(T, window) -> boolean (T, T) causal window like ac.sliding_window_mask(T, window):
    query i sees keys i-window+1 .. i."""
    def body():
        t = 6
        i, j = np.arange(t)[:, None], np.arange(t)[None, :]
        for window in (3, 1, 6):
            case = f"T = {t}, window = {window}"
            out = ck.as_array(ck.call_learner(fn, case, t, window), case)
            ref = sliding_window_mask(t, window)
            ck.expect_shape(out, ref.shape, ck.msg(ck.W_MASK), case)
            out = ck.bool_mask(out, case)
            ck.diagnose(out, {"exercises.window.inverted": ~ref,
                               "exercises.window.wide": (i - j >= 0) & (i - j <= window),
                               "exercises.window.future": np.abs(i - j) < window,
                               "exercises.window.no_diagonal": (i - j > 0) & (i - j <= window)}, case, ref=ref)
            ck.first_difference(out, ref, "mask", case)
        return ck.msg("exercises.window.ok")
    return ck.run_check("check_sliding_window_mask", body, lang, timeout, fn)


def _online_variant(q, k, v, block, *, rescale=True, divide=True, drop_last=False, scale=True):
    """The online softmax with one usual mistake switched on (all rows at once, blocks of keys)."""
    tk = k.shape[-2]
    s_scale = 1.0 / math.sqrt(q.shape[-1]) if scale else 1.0
    m = np.full(q.shape[:-1] + (1,), -np.inf)
    acc, total = np.zeros(q.shape[:-1] + (v.shape[-1],)), np.zeros(q.shape[:-1] + (1,))
    stop_at = tk - tk % block if drop_last and tk % block else tk
    for start in range(0, stop_at, block):
        s = q @ k[start:start + block].T * s_scale                            # (Tq, Bk)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - new_m)
        r = np.exp(m - new_m) if rescale else 1.0
        total, acc, m = total * r + p.sum(-1, keepdims=True), acc * r + p @ v[start:start + block], new_m
    return acc / total if divide else acc


def _mib(n_bytes: float) -> str:
    return f"{n_bytes / 2 ** 20:.2f} MiB"


def _block_by_block(reads, block: int, case: str) -> None:
    """The keys and values must be read a block at a time: no read of k or v takes more than
    `block_size` rows (converting the whole input with np.asarray, as the library does, is not a read
    the checker can see; the memory case below catches what follows it)."""
    for r in reads:
        if r.name in ("k", "v") and r.how != "converted" and len(r.rows) > block:
            raise ck.Fail("exercises.online.whole_keys", name=r.name, n=len(r.rows), block=block, case=case)


def check_online_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(q (Tq, Dk), k (Tk, Dk), v (Tk, Dv), block_size) -> softmax(q k^T / sqrt(Dk)) v, computed
    one block of keys at a time: the output must match, the keys and values must be read a block at a
    time (they are watched inputs, `teaching.checks.Watched`), and the peak memory (tracemalloc) must stay
    below half of the (Tq, Tk) score matrix, also when there are fewer queries than block_size (queries
    split into blocks, with a full softmax per block, would then score every key at once)."""
    def body():
        rng = np.random.default_rng(0)
        # A rising maximum: later keys score higher, so every block brings a new maximum.
        q = rng.normal(size=(6, 4))
        k = rng.normal(size=(10, 4)) * np.linspace(0.2, 3.0, 10)[:, None]
        v = rng.normal(size=(10, 3))
        q[:, :] = np.abs(q) + 0.5
        k = np.abs(k)
        longer = tuple(rng.normal(size=s) for s in ((5, 8), (100, 8), (100, 2)))     # q (5, 8), k (100, 8), v (100, 2)
        for block, (qq, kk, vv) in ((4, (q, k, v)), (32, longer)):
            case = ck.describe(q=qq, k=kk, v=vv) + f", block_size = {block}"
            reads: list = []
            out = ck.as_array(ck.call_learner(fn, case, *ck.watch(reads, q=qq, k=kk, v=vv), block), case)
            ref = scaled_dot_product_attention(qq, kk, vv)[0]
            ck.expect_shape(out, ref.shape, ck.msg(ck.W_OUTPUT), case)
            _block_by_block(reads, block, case)
            ck.expect_finite(out, ck.msg(ck.W_OUTPUT), case)
            ck.diagnose(out, {"exercises.online.no_rescale": _online_variant(qq, kk, vv, block, rescale=False),
                               "exercises.online.no_divide": _online_variant(qq, kk, vv, block, divide=False),
                               "exercises.online.last_block": (_online_variant(qq, kk, vv, block, drop_last=True)
                                                               if kk.shape[0] % block else None),
                               "exercises.online.no_scale": _online_variant(qq, kk, vv, block, scale=False)},
                         case, ref=ref)
            ck.expect_close(out, ref, ck.msg(ck.W_OUTPUT), case)
        q = np.array([[40.0, 40.0]])
        k = np.array([[40.0, 40.0], [30.0, 30.0], [-40.0, 0.0], [41.0, 41.0]])
        v = np.arange(8.0).reshape(4, 2)
        case = "q = [[40, 40]], k = [[40, 40], [30, 30], [-40, 0], [41, 41]] (scores near 1000), block_size = 2"
        out = ck.as_array(ck.call_learner(fn, case, q, k, v, 2), case)
        ck.expect_finite(out, ck.msg(ck.W_OUTPUT), case, key="exercises.online.overflow")
        ck.expect_close(out, scaled_dot_product_attention(q, k, v)[0], ck.msg(ck.W_OUTPUT), case)
        # Memory: 1024 x 1024 float64 scores are 8 MiB; a block of 64 keys is 0.5 MiB.
        t, block = 1024, 64
        q, k, v = rng.normal(size=(t, 16)), rng.normal(size=(t, 16)), rng.normal(size=(t, 16))
        case = ck.describe(q=q, k=k, v=v) + f", block_size = {block}"
        full = t * t * 8
        out, peak = ck.numpy_peak(fn, case, q, k, v, block)
        ck.expect_close(out, scaled_dot_product_attention(q, k, v)[0], ck.msg(ck.W_OUTPUT), case)
        budget = full / 2
        if peak > budget:
            raise ck.Fail("exercises.online.memory", got=_mib(peak), full=_mib(full), budget=_mib(budget), case=case)
        # Fewer queries than block_size: 32 queries, 16,384 keys (the scores 4 MiB), blocks of 64 keys.
        tq, tk, block = 32, 16_384, 64
        q, k, v = rng.normal(size=(tq, 2)), rng.normal(size=(tk, 2)), rng.normal(size=(tk, 2))
        case = ck.describe(q=q, k=k, v=v) + f", block_size = {block}"
        reads = []
        watched = ck.watch(reads, q=q, k=k, v=v)
        out, peak_few = ck.numpy_peak(fn, case, *watched, block)
        ck.expect_close(out, scaled_dot_product_attention(q, k, v)[0], ck.msg(ck.W_OUTPUT), case)
        _block_by_block(reads, block, case)
        few_full = tq * tk * 8
        if peak_few > few_full / 2:
            raise ck.Fail("exercises.online.query_blocks", got=_mib(peak_few), full=_mib(few_full), tq=tq, block=block,
                          case=case)
        return ck.msg("exercises.online.ok", got=_mib(peak), full=_mib(full))
    return ck.run_check("check_online_attention", body, lang, timeout, fn)
