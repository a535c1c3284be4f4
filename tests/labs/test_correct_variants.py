"""Every checker accepts every correct answer (issue 33): for each exercise of notebooks 01-12, at least five
correct implementations in the styles learners write (batch-general with `...`, einsum, explicit loops,
preallocated buffers, list appends, torch tensors where the exercise allows them, numerically different but
equally accurate formulas), each of which must pass, in both languages. The tables of wrong answers beside
them (test_checker_table.py, test_hostile_results.py, test_exercise_checks.py) must still fail.

Where an exercise demands a structure, the checker judges the property that defines it, not one way of
writing it: the KV-cache decoder reads no future token and no earlier query again, however it keeps its keys
(a list, a preallocated buffer, the given keys sliced up to t, `...` indexing, np.take, views); the online
softmax never reads more than block_size keys at once (slices, `...`, np.split, np.array_split, reshape views,
np.take, negative steps) and its peak memory stays below the score matrix. Notebook 13's pieces (torch) are in
test_correct_variants_nb13.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb01_query_key_value.checks import check_attention, check_weighted_sum
from attention_core.labs.nb02_scaled_dot_product.checks import check_dot_product_variance, check_scaled_scores
from attention_core.labs.nb03_softmax.checks import check_softmax, check_temperature_softmax
from attention_core.labs.nb04_masking.checks import check_causal_mask, check_padding_mask
from attention_core.labs.nb05_self_and_cross_attention.checks import (
    check_context_similarity,
    check_cross_attention,
    check_padded_cross_attention,
    check_self_attention,
)
from attention_core.labs.nb06_multi_head_attention.checks import (
    check_merge_heads,
    check_multi_head_attention,
    check_split_heads,
)
from attention_core.labs.nb07_position.checks import check_rope, check_sinusoidal_encoding
from attention_core.labs.nb08_attention_vs_rnn.checks import check_rnn_forward, check_rnn_gradient
from attention_core.labs.nb09_cost_and_context_window.checks import check_kv_cache_bytes, check_kv_cache_decode
from attention_core.labs.nb10_efficient_attention.checks import check_online_attention, check_sliding_window_mask
from attention_core.labs.nb12_trained_transformer.checks import check_induction_score


def _softmax(s):
    z = np.exp(s - s.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


try:                                   # imported here, not inside a timed call (its first import takes seconds)
    import torch as _TORCH
except ImportError:                    # the NumPy path runs without torch; its torch variants are skipped
    _TORCH = None


def _torch():
    if _TORCH is None:
        pytest.skip("torch is not installed")
    return _TORCH


# --- notebook 01: attention, and the weighted sum -----------------------------------------------------

def attention_plain(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    z = np.exp(s - np.where(np.isfinite(m), m, 0.0))
    total = z.sum(axis=-1, keepdims=True)
    w = np.divide(z, total, out=np.zeros_like(z), where=total > 0)
    return w @ v, w


def attention_einsum(q, k, v, mask=None):
    s = np.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
    w = ac.softmax(s, mask=mask)
    return np.einsum("...qk,...kd->...qd", w, v), w


def attention_loops(q, k, v, mask=None):
    """Loops over every batch index, query and key."""
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    lead = q.shape[:-2]
    out = np.zeros(lead + (q.shape[-2], v.shape[-1]))
    weights = np.zeros(lead + (q.shape[-2], k.shape[-2]))
    allowed = None if mask is None else np.broadcast_to(mask, weights.shape)
    for b in np.ndindex(*lead):
        for i in range(q.shape[-2]):
            scores = [float(q[b][i] @ k[b][j]) / math.sqrt(q.shape[-1]) for j in range(k.shape[-2])]
            keep = [allowed is None or bool(allowed[b][i, j]) for j in range(k.shape[-2])]
            if not any(keep):
                continue                                   # a fully masked row: no weight anywhere
            top = max(s for s, ok in zip(scores, keep) if ok)
            e = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scores, keep)]
            total = sum(e)
            for j in range(k.shape[-2]):
                weights[b][i, j] = e[j] / total
                out[b][i] += weights[b][i, j] * v[b][j]
    return out, weights


def attention_log_sum_exp(q, k, v, mask=None):
    """exp(s - logsumexp(s)): numerically different, equally accurate."""
    s = q @ np.swapaxes(k, -1, -2) * (1.0 / np.sqrt(q.shape[-1]))
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = np.max(s, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    lse = m + np.log(np.sum(np.exp(s - m), axis=-1, keepdims=True))
    with np.errstate(invalid="ignore"):
        w = np.where(np.isfinite(lse), np.exp(s - lse), 0.0)
    return np.matmul(w, v), w


def attention_torch(q, k, v, mask=None):
    """Computed with torch, returned as tensors."""
    torch = _torch()
    q, k, v = (torch.as_tensor(a) for a in (q, k, v))
    s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    if mask is not None:
        s = s.masked_fill(~torch.as_tensor(mask), float("-inf"))
    w = torch.nan_to_num(torch.softmax(s, dim=-1))
    return w @ v, w


def attention_float32_list(q, k, v, mask=None):
    """Computed in float32, returned as a list [output, weights]."""
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    w = ac.softmax(q @ np.swapaxes(k, -1, -2) / np.float32(np.sqrt(q.shape[-1])), mask=mask)
    return [w @ v, w]


def attention_scaled_queries(q, k, v, mask=None):
    """The scale applied to q before the product (also numerically different)."""
    s = (q / np.sqrt(q.shape[-1])) @ k.swapaxes(-1, -2)
    w = ac.softmax(s, mask=mask)
    return w @ v, w


def weighted_sum_matmul(weights, v):
    return weights @ v


def weighted_sum_einsum(weights, v):
    return np.einsum("...qk,...kd->...qd", weights, v)


def weighted_sum_loops(weights, v):
    weights, v = np.asarray(weights), np.asarray(v)
    out = np.zeros(weights.shape[:-1] + v.shape[-1:])
    for idx in np.ndindex(*weights.shape[:-1]):
        lead = idx[:-1]
        for j in range(weights.shape[-1]):
            out[idx] += weights[idx + (j,)] * v[lead + (j,)] if v.ndim == weights.ndim else \
                weights[idx + (j,)] * v[j]
    return out


def weighted_sum_broadcast(weights, v):
    return (weights[..., :, :, None] * v[..., None, :, :]).sum(axis=-2)


def weighted_sum_tensordot_rows(weights, v):
    """Row by row, each row a list append."""
    rows = [np.asarray(w_row) @ np.asarray(v_) for w_row, v_ in _pairs(weights, v)]
    return np.array(rows).reshape(weights.shape[:-1] + v.shape[-1:])


def _pairs(weights, v):
    weights, v = np.asarray(weights), np.asarray(v)
    vb = np.broadcast_to(v, weights.shape[:-2] + v.shape[-2:])
    for idx in np.ndindex(*weights.shape[:-1]):
        yield weights[idx], vb[idx[:-1]]


def weighted_sum_torch(weights, v):
    torch = _torch()
    return torch.matmul(torch.as_tensor(weights), torch.as_tensor(v))


# --- notebook 02: scaled scores, the variance of dot products -----------------------------------------

def scores_matmul(q, k):
    return q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])


def scores_einsum(q, k):
    return np.einsum("...id,...jd->...ij", q, k) / math.sqrt(k.shape[-1])


def scores_transpose_last_two(q, k):
    axes = list(range(k.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return np.matmul(q, np.transpose(k, axes)) * q.shape[-1] ** -0.5


def scores_loops(q, k):
    q, k = np.asarray(q), np.asarray(k)
    out = np.empty(np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (q.shape[-2], k.shape[-2]))
    for idx in np.ndindex(*out.shape):
        lead, i, j = idx[:-2], idx[-2], idx[-1]
        qi = np.broadcast_to(q, out.shape[:-2] + q.shape[-2:])[lead + (i,)]
        kj = np.broadcast_to(k, out.shape[:-2] + k.shape[-2:])[lead + (j,)]
        out[idx] = sum(a * b for a, b in zip(qi, kj)) / math.sqrt(len(qi))
    return out


def scores_torch(q, k):
    torch = _torch()
    q, k = torch.as_tensor(q), torch.as_tensor(k)
    return q @ k.mT / math.sqrt(q.shape[-1])


def variance_vectorised(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, n_samples, d_k))
    dots = np.einsum("nd,nd->n", q, k)
    return float(dots.var()), float((dots / np.sqrt(d_k)).var())


def variance_loop_appends(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    dots = []
    for _ in range(n_samples):
        q, k = rng.normal(size=d_k), rng.normal(size=d_k)
        dots.append(float(q @ k))
    dots = np.array(dots)
    return dots.var(), (dots / math.sqrt(d_k)).var()


def variance_by_hand(d_k, n_samples, seed):
    """Mean and variance written out, the unbiased estimate (ddof=1)."""
    rng = np.random.default_rng(seed)
    dots = (rng.standard_normal((n_samples, d_k)) * rng.standard_normal((n_samples, d_k))).sum(axis=1)
    mean = dots.sum() / n_samples
    var = ((dots - mean) ** 2).sum() / (n_samples - 1)
    return var, var / d_k


def variance_legacy_randomstate(d_k, n_samples, seed):
    rs = np.random.RandomState(seed)
    dots = (rs.randn(n_samples, d_k) * rs.randn(n_samples, d_k)).sum(axis=1)
    return np.var(dots), np.var(dots / np.sqrt(d_k))


def variance_torch(d_k, n_samples, seed):
    torch = _torch()
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n_samples, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, generator=g, dtype=torch.float64)
    dots = (q * k).sum(-1)
    return dots.var(unbiased=False).item(), (dots / d_k ** 0.5).var(unbiased=False).item()


# --- notebook 03: softmax, temperature ------------------------------------------------------------------

def softmax_stable(x):
    z = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return z / np.sum(z, axis=-1, keepdims=True)


def softmax_log_sum_exp(x):
    m = x.max(axis=-1, keepdims=True)
    return np.exp(x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))


def softmax_loops(x):
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx]
        top = max(row)
        e = [math.exp(v - top) for v in row]
        s = sum(e)
        out[idx] = [v / s for v in e]
    return out


def softmax_clip_at_minus_50(x):
    """Exponents clipped at -50: within the tolerance (passes, with a remark)."""
    z = np.exp(np.clip(x - x.max(axis=-1, keepdims=True), -50.0, None))
    return z / z.sum(axis=-1, keepdims=True)


def softmax_torch(x):
    torch = _torch()
    return torch.softmax(torch.as_tensor(x), dim=-1)


def softmax_min_shift(x):
    """Shifted by the maximum in a different way: exp(x - max) via a moved axis."""
    moved = np.moveaxis(x, -1, 0)
    z = np.exp(moved - moved.max(axis=0))
    return np.moveaxis(z / z.sum(axis=0), 0, -1)


def softmax_float32(x):
    """Computed in float32 (e^-100 rounds to a float32 subnormal): accurate to float32, no remark."""
    x = np.asarray(x, dtype=np.float32)
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def softmax_pairwise(x):
    """softmax_i = 1 / sum_j exp(x_j - x_i): no maximum subtracted, yet exact (an overflow only sends a weight to 0)."""
    x = np.asarray(x, dtype=float)
    return 1.0 / np.exp(x[..., None, :] - x[..., :, None]).sum(axis=-1)


def temperature_divide(x, temperature):
    return softmax_stable(x / temperature)


def temperature_library(x, temperature):
    return ac.softmax(np.asarray(x) / temperature)


def temperature_multiply_inverse(x, temperature):
    return softmax_log_sum_exp(x * (1.0 / temperature))


def temperature_loops(x, temperature):
    return softmax_loops(np.asarray(x) / temperature)


def temperature_torch(x, temperature):
    torch = _torch()
    return torch.softmax(torch.as_tensor(x) / temperature, dim=-1)


# --- notebook 04: masks ---------------------------------------------------------------------------------

def causal_tril(t):
    return np.tril(np.ones((t, t), dtype=bool))


def causal_compare(t):
    i = np.arange(t)
    return i[:, None] >= i[None, :]


def causal_loops(t):
    mask = np.zeros((t, t), dtype=bool)
    for i in range(t):
        for j in range(i + 1):
            mask[i, j] = True
    return mask


def causal_not_triu(t):
    return ~np.triu(np.ones((t, t), dtype=bool), k=1)


def causal_list_of_rows(t):
    return np.array([[j <= i for j in range(t)] for i in range(t)], dtype=bool).reshape(t, t)


def padding_compare(lengths, max_len):
    return (np.arange(max_len)[None, :] < np.asarray(lengths)[:, None])[:, None, :]


def padding_loops(lengths, max_len):
    out = np.zeros((len(lengths), 1, max_len), dtype=bool)
    for b, n in enumerate(lengths):
        out[b, 0, :n] = True
    return out


def padding_list_appends(lengths, max_len):
    rows = []
    for n in lengths:
        rows.append([[j < n for j in range(max_len)]])
    return np.array(rows, dtype=bool).reshape(len(lengths), 1, max_len)


def padding_expand_dims(lengths, max_len):
    return np.expand_dims(np.arange(max_len) < np.reshape(lengths, (-1, 1)), axis=1)


def padding_library(lengths, max_len):
    return ac.padding_mask(lengths, max_len)


# --- notebook 05: self- and cross-attention ---------------------------------------------------------------

def self_library(x, w_q, w_k, w_v):
    return ac.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)


def self_einsum(x, w_q, w_k, w_v):
    q, k, v = (np.einsum("...td,de->...te", x, w) for w in (w_q, w_k, w_v))
    return attention_einsum(q, k, v)


def self_torch(x, w_q, w_k, w_v):
    torch = _torch()
    x = torch.as_tensor(x)
    return attention_torch(x @ torch.as_tensor(w_q), x @ torch.as_tensor(w_k), x @ torch.as_tensor(w_v))


def self_loops(x, w_q, w_k, w_v):
    return attention_loops(np.matmul(x, w_q), np.matmul(x, w_k), np.matmul(x, w_v))


def self_one_projection(x, w_q, w_k, w_v):
    """One product with the three matrices side by side, then split."""
    qkv = x @ np.concatenate([w_q, w_k, w_v], axis=1)
    q, k, v = np.split(qkv, np.cumsum([w_q.shape[1], w_k.shape[1]]), axis=-1)
    return attention_log_sum_exp(q, k, v)


def cross_library(x_dec, x_enc, w_q, w_k, w_v):
    return ac.scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)


def cross_einsum(x_dec, x_enc, w_q, w_k, w_v):
    return attention_einsum(np.einsum("td,de->te", x_dec, w_q), np.einsum("td,de->te", x_enc, w_k),
                            np.einsum("td,de->te", x_enc, w_v))


def cross_loops(x_dec, x_enc, w_q, w_k, w_v):
    return attention_loops(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)


def cross_torch(x_dec, x_enc, w_q, w_k, w_v):
    torch = _torch()
    d, e = torch.as_tensor(x_dec), torch.as_tensor(x_enc)
    return attention_torch(d @ torch.as_tensor(w_q), e @ torch.as_tensor(w_k), e @ torch.as_tensor(w_v))


def cross_scaled_queries(x_dec, x_enc, w_q, w_k, w_v):
    return attention_scaled_queries(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)


def padded_library(x_dec, x_enc, lengths, w_q, w_k, w_v):
    mask = ac.padding_mask(lengths, x_enc.shape[-2])                  # (B, 1, Tk)
    return ac.scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v, mask=mask)


def padded_minus_inf(x_dec, x_enc, lengths, w_q, w_k, w_v):
    q, k, v = x_dec @ w_q, x_enc @ w_k, x_enc @ w_v
    s = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    real = np.arange(k.shape[-2])[None, None, :] < np.asarray(lengths)[:, None, None]
    s = np.where(real, s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w


def padded_additive_huge(x_dec, x_enc, lengths, w_q, w_k, w_v):
    q, k, v = x_dec @ w_q, x_enc @ w_k, x_enc @ w_v
    add = np.where(np.arange(k.shape[-2]) < np.asarray(lengths)[:, None], 0.0, -1e9)[:, None, :]
    w = ac.softmax(np.einsum("bqd,bkd->bqk", q, k) / math.sqrt(q.shape[-1]) + add)
    return np.einsum("bqk,bkd->bqd", w, v), w


def padded_loops(x_dec, x_enc, lengths, w_q, w_k, w_v):
    b, t_q, t_k = x_dec.shape[0], x_dec.shape[1], x_enc.shape[1]
    weights = np.zeros((b, t_q, t_k))
    outputs = np.zeros((b, t_q, w_v.shape[1]))
    for i in range(b):
        n = int(lengths[i])                                            # the real source tokens only
        q, k, v = x_dec[i] @ w_q, x_enc[i, :n] @ w_k, x_enc[i, :n] @ w_v
        w = ac.softmax(q @ k.T / np.sqrt(q.shape[-1]))
        weights[i, :, :n] = w
        outputs[i] = w @ v
    return outputs, weights


def padded_torch(x_dec, x_enc, lengths, w_q, w_k, w_v):
    torch = _torch()
    d, e = torch.as_tensor(x_dec), torch.as_tensor(x_enc)
    q, k, v = d @ torch.as_tensor(w_q), e @ torch.as_tensor(w_k), e @ torch.as_tensor(w_v)
    real = torch.arange(e.shape[1])[None, None, :] < torch.as_tensor(lengths)[:, None, None]
    s = (q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5).masked_fill(~real, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ v, w


def _cosine(a, b):
    return float(np.dot(a, b) / np.sqrt(np.sum(a * a) * np.sum(b * b)))


def similarity_library(x_a, i, x_b, j, w_q, w_k, w_v):
    h = [x + ac.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)[0] for x in (x_a, x_b)]
    return h[0][i] @ h[1][j] / (np.linalg.norm(h[0][i]) * np.linalg.norm(h[1][j]))


def similarity_one_row(x_a, i, x_b, j, w_q, w_k, w_v):
    def row(x, t):                                                     # only the query row that is needed
        w = ac.softmax((x[t] @ w_q) @ (x @ w_k).T / np.sqrt(w_q.shape[1]))
        return x[t] + w @ (x @ w_v)
    return _cosine(row(x_a, i), row(x_b, j))


def similarity_einsum(x_a, i, x_b, j, w_q, w_k, w_v):
    def ctx(x):
        s = np.einsum("td,sd->ts", x @ w_q, x @ w_k) / math.sqrt(w_k.shape[1])
        return x + np.einsum("ts,sf->tf", ac.softmax(s), x @ w_v)
    a, b = ctx(x_a)[i], ctx(x_b)[j]
    return np.einsum("f,f->", a, b) / np.sqrt(np.einsum("f,f->", a, a) * np.einsum("f,f->", b, b))


def similarity_loops(x_a, i, x_b, j, w_q, w_k, w_v):
    def ctx_row(x, t):
        q = x[t] @ w_q
        scores = [float(q @ (x[s] @ w_k)) / math.sqrt(len(q)) for s in range(len(x))]
        top = max(scores)
        e = [math.exp(z - top) for z in scores]
        out = x[t].copy()
        for s in range(len(x)):
            out = out + e[s] / sum(e) * (x[s] @ w_v)
        return out
    return _cosine(ctx_row(x_a, i), ctx_row(x_b, j))


def similarity_torch(x_a, i, x_b, j, w_q, w_k, w_v):
    torch = _torch()
    def ctx(x):
        x = torch.as_tensor(x)
        q, k, v = (x @ torch.as_tensor(w) for w in (w_q, w_k, w_v))
        return x + torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1) @ v
    return torch.nn.functional.cosine_similarity(ctx(x_a)[i], ctx(x_b)[j], dim=0)


# --- notebook 06: heads ---------------------------------------------------------------------------------

def split_reshape_swap(x, n_heads):
    *lead, t, d = x.shape
    return x.reshape(*lead, t, n_heads, d // n_heads).swapaxes(-3, -2)


def split_moveaxis(x, n_heads):
    return np.moveaxis(x.reshape(x.shape[:-1] + (n_heads, -1)), -2, -3)


def split_np_split(x, n_heads):
    return np.stack(np.split(x, n_heads, axis=-1), axis=-3)


def split_loops(x, n_heads):
    dh = x.shape[-1] // n_heads
    heads = []
    for h in range(n_heads):
        heads.append(x[..., h * dh:(h + 1) * dh])
    return np.stack(heads, axis=-3)


def split_library(x, n_heads):
    return ac.split_heads(x, n_heads)


def split_torch(x, n_heads):
    torch = _torch()
    t = torch.as_tensor(x)
    return t.unflatten(-1, (n_heads, -1)).transpose(-3, -2)


def merge_reshape_swap(x):
    *lead, h, t, dh = x.shape
    return x.swapaxes(-3, -2).reshape(*lead, t, h * dh)


def merge_concatenate(x):
    return np.concatenate([x[..., h, :, :] for h in range(x.shape[-3])], axis=-1)


def merge_moveaxis(x):
    y = np.moveaxis(x, -3, -2)
    return y.reshape(y.shape[:-2] + (-1,))


def merge_library(x):
    return ac.merge_heads(x)


def merge_preallocated(x):
    h, dh = x.shape[-3], x.shape[-1]
    out = np.empty(x.shape[:-3] + (x.shape[-2], h * dh))
    for i in range(h):
        out[..., i * dh:(i + 1) * dh] = x[..., i, :, :]
    return out


def mha_library(x, params):
    return ac.multi_head_attention(x, x, x, params)


def mha_by_hand(x, p):
    h = p.n_heads
    q, k, v = (split_reshape_swap(x @ w + b, h) for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    out, _ = attention_plain(q, k, v)
    return merge_reshape_swap(out) @ p.w_o + p.b_o


def mha_head_loop(x, p):
    """One head at a time, the outputs concatenated (list appends)."""
    dh = p.w_q.shape[1] // p.n_heads
    outs = []
    for i in range(p.n_heads):
        cols = slice(i * dh, (i + 1) * dh)
        q = x @ p.w_q[:, cols] + p.b_q[cols]
        k = x @ p.w_k[:, cols] + p.b_k[cols]
        v = x @ p.w_v[:, cols] + p.b_v[cols]
        outs.append(ac.scaled_dot_product_attention(q, k, v)[0])
    return np.concatenate(outs, axis=-1) @ p.w_o + p.b_o


def mha_einsum(x, p):
    h = p.n_heads
    dh = p.w_q.shape[1] // h
    q, k, v = (np.einsum("...td,dhe->...hte", x, w.reshape(w.shape[0], h, dh)) + b.reshape(h, 1, dh)
               for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    w = _softmax(np.einsum("...hqe,...hke->...hqk", q, k) / np.sqrt(dh))
    heads = np.einsum("...hqk,...hke->...hqe", w, v)
    return np.einsum("...hte,hed->...td", heads, p.w_o.reshape(h, dh, -1)) + p.b_o


def mha_torch(x, p):
    torch = _torch()
    t = {name: torch.as_tensor(getattr(p, name)) for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")}
    x = torch.as_tensor(x)
    q, k, v = ((x @ t[f"w_{n}"] + t[f"b_{n}"]).unflatten(-1, (p.n_heads, -1)).transpose(-3, -2) for n in "qkv")
    heads = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    return heads.transpose(-3, -2).flatten(-2) @ t["w_o"] + t["b_o"]


# --- notebook 07: position ------------------------------------------------------------------------------

def sin_vectorised(n_positions, d_model):
    pos = np.arange(n_positions)[:, None]
    i = np.arange(0, d_model, 2)[None, :]
    angle = pos / 10000 ** (i / d_model)
    pe = np.zeros((n_positions, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def sin_loops(n_positions, d_model):
    pe = np.zeros((n_positions, d_model))
    for p in range(n_positions):
        for i in range(0, d_model, 2):
            pe[p, i] = math.sin(p / 10000 ** (i / d_model))
            if i + 1 < d_model:
                pe[p, i + 1] = math.cos(p / 10000 ** (i / d_model))
    return pe


def sin_exp_log(n_positions, d_model):
    """The frequencies as exp(-ln(10000) 2i / D), the form of many code bases."""
    freq = np.exp(-math.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    angle = np.outer(np.arange(n_positions), freq)
    pe = np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(n_positions, -1)
    return pe[:, :d_model]


def sin_library(n_positions, d_model):
    return ac.sinusoidal_encoding(n_positions, d_model)


def sin_torch(n_positions, d_model):
    torch = _torch()
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(n_positions, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)[:, : d_model // 2]
    return pe


def rope_pairs(x, positions):
    d = x.shape[-1]
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    angle = np.asarray(positions, dtype=float)[:, None] * theta
    c, s = np.cos(angle), np.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(np.broadcast_shapes(x.shape, x.shape))
    out[..., 0::2] = even * c - odd * s
    out[..., 1::2] = even * s + odd * c
    return out


def rope_complex(x, positions):
    """Pairs as complex numbers, turned by multiplying with e^{i angle}."""
    d = x.shape[-1]
    angle = np.asarray(positions, dtype=float)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * angle)
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)


def rope_loops(x, positions):
    x = np.asarray(x, dtype=float)
    out = x.copy()
    d = x.shape[-1]
    for idx in np.ndindex(*x.shape[:-1]):
        t = idx[-1]
        for i in range(0, d, 2):
            a = positions[t] * 10000.0 ** (-i / d)
            x0, x1 = x[idx + (i,)], x[idx + (i + 1,)]
            out[idx + (i,)] = x0 * math.cos(a) - x1 * math.sin(a)
            out[idx + (i + 1,)] = x0 * math.sin(a) + x1 * math.cos(a)
    return out


def rope_rotation_matrices(x, positions):
    d = x.shape[-1]
    out = np.empty_like(np.asarray(x, dtype=float))
    for t, p in enumerate(positions):
        for i in range(d // 2):
            a = p * 10000.0 ** (-2 * i / d)
            r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            out[..., t, 2 * i:2 * i + 2] = x[..., t, 2 * i:2 * i + 2] @ r.T
    return out


def rope_library(x, positions):
    return ac.apply_rope(x, positions)


# --- notebook 08: the RNN -------------------------------------------------------------------------------

def rnn_loop_appends(xs, p):
    h = np.zeros(p.w_h.shape[0])
    states = []
    for x in xs:
        h = np.tanh(x @ p.w_x + h @ p.w_h + p.b)
        states.append(h)
    return np.array(states)


def rnn_preallocated(xs, p):
    out = np.zeros((len(xs), p.w_h.shape[0]))
    h = np.zeros(p.w_h.shape[0])
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ p.w_x + h @ p.w_h + p.b)
        out[t] = h
    return out


def rnn_inputs_first(xs, p):
    """All input projections at once, then the recurrence (einsum)."""
    pre = np.einsum("td,dh->th", xs, p.w_x) + p.b
    out = np.empty_like(pre)
    h = np.zeros(pre.shape[1])
    for t in range(len(pre)):
        h = np.tanh(pre[t] + np.einsum("h,hk->k", h, p.w_h))
        out[t] = h
    return out


def rnn_tanh_from_exp(xs, p):
    """tanh written as 2 sigmoid(2z) - 1: numerically different, equally accurate."""
    h, out = np.zeros(p.w_h.shape[0]), []
    for x in xs:
        z = x @ p.w_x + h @ p.w_h + p.b
        h = 2.0 / (1.0 + np.exp(-2.0 * z)) - 1.0
        out.append(h)
    return np.stack(out)


def rnn_torch(xs, p):
    torch = _torch()
    w_x, w_h, b = (torch.as_tensor(a) for a in (p.w_x, p.w_h, p.b))
    h = torch.zeros(w_h.shape[0], dtype=w_h.dtype)
    out = []
    for x in torch.as_tensor(xs):
        h = torch.tanh(x @ w_x + h @ w_h + b)
        out.append(h)
    return torch.stack(out)


def _states(xs, p):
    return rnn_loop_appends(xs, p)


def grad_chain_forward(xs, p):
    """J = W_x^T diag(1 - h_0^2), then through each step."""
    hs = _states(xs, p)
    jac = (p.w_x * (1 - hs[0] ** 2)).T                      # dh_0/dx_0 (D_h, D_in)
    for t in range(1, len(xs)):
        jac = (1 - hs[t] ** 2)[:, None] * (p.w_h.T @ jac)
    return jac


def grad_chain_backward(xs, p):
    """From the last state back to the first input."""
    hs = _states(xs, p)
    g = np.eye(p.w_h.shape[0])
    for t in range(len(xs) - 1, 0, -1):
        g = g @ np.diag(1 - hs[t] ** 2) @ p.w_h.T
    return g @ np.diag(1 - hs[0] ** 2) @ p.w_x.T


def grad_einsum(xs, p):
    hs = _states(xs, p)
    jac = np.einsum("i,ji->ij", 1 - hs[0] ** 2, p.w_x)
    for t in range(1, len(xs)):
        jac = np.einsum("i,ki,kj->ij", 1 - hs[t] ** 2, p.w_h, jac)
    return jac


def grad_torch_autograd(xs, p):
    torch = _torch()
    x = torch.as_tensor(np.asarray(xs, dtype=float))
    w_x, w_h, b = (torch.as_tensor(a) for a in (p.w_x, p.w_h, p.b))

    def last(x0):
        h = torch.zeros(w_h.shape[0], dtype=x.dtype)
        for t in range(len(x)):
            h = torch.tanh((x0 if t == 0 else x[t]) @ w_x + h @ w_h + b)
        return h
    return torch.autograd.functional.jacobian(last, x[0])


def grad_central_differences(xs, p):
    """Central differences with a step of 1e-6: accurate to about 1e-9 here."""
    xs = np.asarray(xs, dtype=float)
    eps, cols = 1e-6, []
    for j in range(xs.shape[1]):
        plus, minus = xs.copy(), xs.copy()
        plus[0, j] += eps
        minus[0, j] -= eps
        cols.append((_states(plus, p)[-1] - _states(minus, p)[-1]) / (2 * eps))
    return np.stack(cols, axis=1)


# --- notebook 09: KV cache ------------------------------------------------------------------------------

def _attend(q_t, keys, values):
    s = keys @ q_t / np.sqrt(q_t.shape[-1])               # (t + 1,)
    w = np.exp(s - s.max())
    return (w / w.sum()) @ values


def kv_list_append(q, k, v):
    keys, values, outs = [], [], []
    for t in range(len(q)):
        keys.append(k[t])
        values.append(v[t])
        outs.append(_attend(q[t], np.array(keys), np.array(values)))
    return np.array(outs)


def kv_preallocated(q, k, v):
    """A preallocated buffer, filled step by step and read up to t (as real systems do)."""
    t_max = len(q)
    k_cache = np.zeros((t_max, k.shape[-1]))
    v_cache = np.zeros((t_max, v.shape[-1]))
    out = np.empty((t_max, v.shape[-1]))
    for t in range(t_max):
        k_cache[t] = k[t]
        v_cache[t] = v[t]
        out[t] = _attend(q[t], k_cache[: t + 1], v_cache[: t + 1])
    return out


def kv_preallocated_like(q, k, v):
    """The buffer made with np.zeros_like (shape and dtype only), written with `...`."""
    k_cache, v_cache = np.zeros_like(k), np.zeros_like(v)
    out = np.zeros(q.shape[:-1] + v.shape[-1:])
    for t in range(q.shape[-2]):
        k_cache[..., t, :] = k[..., t, :]
        v_cache[..., t, :] = v[..., t, :]
        out[..., t, :] = ac.scaled_dot_product_attention(q[..., t:t + 1, :], k_cache[..., : t + 1, :],
                                                          v_cache[..., : t + 1, :])[0][..., 0, :]
    return out


def kv_slices_of_given(q, k, v):
    """The keys are given: slicing them up to t is the cache."""
    return np.stack([ac.scaled_dot_product_attention(q[t:t + 1], k[:t + 1], v[:t + 1])[0][0]
                     for t in range(len(q))])


def kv_ellipsis(q, k, v):
    """Batch-general, `...` everywhere."""
    outs = []
    for t in range(q.shape[-2]):
        s = q[..., t, :] @ np.swapaxes(k[..., : t + 1, :], -1, -2) / np.sqrt(q.shape[-1])
        outs.append(_softmax(s) @ v[..., : t + 1, :])
    return np.stack(outs, axis=-2)


def kv_concatenate(q, k, v):
    """A cache grown with np.concatenate, one einsum per step."""
    k_cache = np.empty((0, k.shape[1]))
    v_cache = np.empty((0, v.shape[1]))
    outs = []
    for t in range(len(q)):
        k_cache = np.concatenate([k_cache, k[t:t + 1]])
        v_cache = np.concatenate([v_cache, v[t:t + 1]])
        w = _softmax(np.einsum("d,td->t", q[t], k_cache) / math.sqrt(q.shape[1]))
        outs.append(np.einsum("t,td->d", w, v_cache))
    return np.array(outs)


def kv_take(q, k, v):
    """Rows taken with np.take, and q[t] read twice in one step (allowed)."""
    outs = []
    for t in range(len(q)):
        keys = np.take(k, np.arange(t + 1), axis=0)
        values = np.take(v, range(t + 1), axis=0)
        outs.append(_attend(q[t], keys, values) * 1.0 + 0.0 * q[t][0])
    return np.array(outs)


def kv_zip_iteration(q, k, v):
    """Iterating over the three inputs together, a dict cache."""
    cache = {"k": [], "v": []}
    outs = []
    for q_t, k_t, v_t in zip(q, k, v):
        cache["k"].append(k_t)
        cache["v"].append(v_t)
        outs.append(_attend(q_t, np.stack(cache["k"]), np.stack(cache["v"])))
    return np.vstack(outs)


def kv_negative_step_slices(q, k, v):
    """The keys read newest first (k[t::-1]), the order of the sum does not matter."""
    outs = []
    for t in range(len(q)):
        outs.append(_attend(q[t], k[t::-1], v[t::-1]))
    return np.array(outs)


def kv_queries_scaled_first(q, k, v):
    """The queries scaled once up front (elementwise), then one cached step per token."""
    qs = q / np.sqrt(q.shape[-1])
    keys, values, out = [], [], []
    for t in range(len(qs)):
        keys.append(k[t])
        values.append(v[t])
        s = np.stack(keys) @ qs[t]
        w = np.exp(s - s.max())
        out.append(w @ np.stack(values) / w.sum())
    return np.array(out)


def kv_cache_object(q, k, v):
    """A small cache class with add() and attend(), row and column indexing q[t, :]."""
    class Cache:
        def __init__(self):
            self.keys, self.values = [], []

        def add(self, key, value):
            self.keys.append(key)
            self.values.append(value)

        def attend(self, query):
            s = np.array(self.keys) @ query / math.sqrt(len(query))
            w = np.exp(s - s.max())
            return w / w.sum() @ np.array(self.values)
    cache, out = Cache(), np.zeros((q.shape[0], v.shape[1]))
    for t in range(q.shape[0]):
        cache.add(k[t, :], v[t, :])
        out[t, :] = cache.attend(q[t, :])
    return out


def kv_copy_first(q, k, v):
    """The inputs copied first (copies stay watched), then a preallocated cache."""
    return kv_preallocated(q.copy(), k.astype(np.float64), v.copy())


def bytes_formula(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    return 2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number


def bytes_per_token_first(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    per_token = 2 * n_layers * n_kv_heads * d_head * bytes_per_number
    return per_token * n_tokens


def bytes_numpy(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    return int(np.prod([2, n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number], dtype=np.int64))


def bytes_loop(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    total = 0
    for _layer in range(n_layers):
        total += 2 * n_kv_heads * d_head * n_tokens * bytes_per_number     # keys and values of one layer
    return total


def bytes_float(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    return float(math.prod((2, n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number)))


def bytes_array_shape(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    """The size of the cache's (2, L, H, T, Dh) shape, times the bytes per number."""
    return math.prod((2, n_layers, n_kv_heads, n_tokens, d_head)) * bytes_per_number


# --- notebook 10: sliding window, online softmax -----------------------------------------------------------

def window_compare(t, window):
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    return (j <= i) & (j > i - window)


def window_tril_triu(t, window):
    ones = np.ones((t, t), dtype=bool)
    return np.tril(ones) & np.triu(ones, -(window - 1))


def window_loops(t, window):
    m = np.zeros((t, t), dtype=bool)
    for i in range(t):
        m[i, max(0, i - window + 1):i + 1] = True
    return m


def window_difference(t, window):
    d = np.subtract.outer(np.arange(t), np.arange(t))
    return (d >= 0) & (d < window)


def window_library(t, window):
    return ac.sliding_window_mask(t, window)


def window_causal_and_band(t, window):
    return ac.causal_mask(t) & ~ac.causal_mask(t, offset=-window)


def _online(q, k_blocks, v_blocks):
    q = np.asarray(q) / np.sqrt(q.shape[-1])
    m = np.full(q.shape[:-1] + (1,), -np.inf)
    total = np.zeros(q.shape[:-1] + (1,))
    acc = None
    for kb, vb in zip(k_blocks, v_blocks):
        s = q @ np.swapaxes(kb, -1, -2)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        r, p = np.exp(m - new_m), np.exp(s - new_m)
        acc = p @ vb if acc is None else acc * r + p @ vb
        total, m = total * r + p.sum(axis=-1, keepdims=True), new_m
    return acc / total


def online_ellipsis(q, k, v, block_size):
    """Batch-general: k[..., j:j + b, :] (the issue's case)."""
    n = k.shape[-2]
    return _online(q, (k[..., j:j + block_size, :] for j in range(0, n, block_size)),
                   (v[..., j:j + block_size, :] for j in range(0, n, block_size)))


def online_np_split(q, k, v, block_size):
    cuts = list(range(block_size, len(k), block_size))
    return _online(q, np.split(k, cuts), np.split(v, cuts))


def online_array_split(q, k, v, block_size):
    n_blocks = -(-len(k) // block_size)
    return _online(q, np.array_split(k, n_blocks), np.array_split(v, n_blocks))


def online_take(q, k, v, block_size):
    starts = range(0, len(k), block_size)
    idx = [np.arange(s, min(s + block_size, len(k))) for s in starts]
    return _online(q, (np.take(k, i, axis=0) for i in idx), (v.take(i, axis=0) for i in idx))


def online_reversed_blocks(q, k, v, block_size):
    """Blocks from the last to the first, each read with a negative step (the order does not matter)."""
    n = len(k)
    starts = list(range(0, n, block_size))[::-1]
    blocks_k = [k[min(s + block_size, n) - 1:(s - 1 if s else None):-1] for s in starts]
    blocks_v = [v[min(s + block_size, n) - 1:(s - 1 if s else None):-1] for s in starts]
    return _online(q, blocks_k, blocks_v)


def online_transposed_view(q, k, v, block_size):
    """k.T taken once (a view), sliced by columns: k.T[:, j:j + b]."""
    kt = k.T
    blocks = []
    for j in range(0, len(v), block_size):
        blocks.append(kt[:, j:j + block_size].T)
    return _online(q, blocks, (v[j:j + block_size] for j in range(0, len(v), block_size)))


def online_reshape_view(q, k, v, block_size):
    """Padded with zeros to whole blocks (np.pad), then a reshape view (n_blocks, block, D); the padding of the
    last block is cut off before it is scored."""
    n, pad = len(k), -len(k) % block_size
    kb = np.pad(k, ((0, pad), (0, 0))).reshape(-1, block_size, k.shape[1])
    vb = np.pad(v, ((0, pad), (0, 0))).reshape(-1, block_size, v.shape[1])
    sizes = [min(block_size, n - i * block_size) for i in range(len(kb))]
    return _online(q, (kb[i][:m] for i, m in enumerate(sizes)), (vb[i][:m] for i, m in enumerate(sizes)))


def online_split_then_concatenate(q, k, v, block_size):
    """Half-blocks split off with np.array_split, joined back two at a time with np.concatenate (views until
    scored): block_size keys per step."""
    half = max(1, block_size // 2)
    ks = np.array_split(k, range(half, len(k), half))
    vs = np.array_split(v, range(half, len(v), half))
    pairs_k = [np.concatenate(ks[i:i + 2]) for i in range(0, len(ks), 2)]
    pairs_v = [np.concatenate(vs[i:i + 2]) for i in range(0, len(vs), 2)]
    return _online(q, pairs_k, pairs_v)


def online_loop_two_passes_per_block(q, k, v, block_size):
    """The running maximum and sum as separate statements, log-domain rescale."""
    d = q.shape[1]
    m = np.full(len(q), -np.inf)
    denom = np.zeros(len(q))
    acc = np.zeros((len(q), v.shape[1]))
    for start in range(0, k.shape[0], block_size):
        kb = k[start:start + block_size]
        vb = v[start:start + block_size]
        s = np.einsum("qd,kd->qk", q, kb) / math.sqrt(d)
        block_max = s.max(axis=1)
        new_m = np.maximum(m, block_max)
        scale = np.exp(m - new_m)
        p = np.exp(s - new_m[:, None])
        denom = denom * scale + p.sum(axis=1)
        acc = acc * scale[:, None] + p @ vb
        m = new_m
    return acc / denom[:, None]


def online_keys_scaled_first(q, k, v, block_size):
    """The keys scaled by 1/sqrt(d) up front (elementwise: no score computed), then blocks of the scaled keys."""
    ks = k * (1.0 / np.sqrt(k.shape[-1]))
    m, total, acc = -np.inf, 0.0, 0.0
    for j in range(0, ks.shape[0], block_size):
        s = q @ ks[j:j + block_size].T
        new_m = np.maximum(m, s.max(-1, keepdims=True))
        p = np.exp(s - new_m)
        scale = np.exp(m - new_m)
        total, acc, m = total * scale + p.sum(-1, keepdims=True), acc * scale + p @ v[j:j + block_size], new_m
    return acc / total


def online_while_loop(q, k, v, block_size):
    """A while loop, the first block starting the running state (no -inf), a dict of state."""
    j, state = 0, None
    while j < k.shape[0]:
        s = np.einsum("id,jd->ij", q, k[j:j + block_size]) / math.sqrt(q.shape[1])
        vb = v[j:j + block_size]
        if state is None:
            m = s.max(1)
            p = np.exp(s - m[:, None])
            state = {"m": m, "l": p.sum(1), "o": p @ vb}
        else:
            m = np.maximum(state["m"], s.max(1))
            c, p = np.exp(state["m"] - m), np.exp(s - m[:, None])
            state = {"m": m, "l": state["l"] * c + p.sum(1), "o": state["o"] * c[:, None] + p @ vb}
        j += block_size
    return state["o"] / state["l"][:, None]


def online_flash_query_and_key_blocks(q, k, v, block_size):
    """FlashAttention's two loops: blocks of queries outside, blocks of keys inside, each with its running state."""
    out = np.empty((len(q), v.shape[1]))
    for i in range(0, len(q), block_size):
        qi = q[i:i + block_size] / math.sqrt(q.shape[1])
        m, total, acc = np.full(len(qi), -np.inf), np.zeros(len(qi)), np.zeros((len(qi), v.shape[1]))
        for j in range(0, len(k), block_size):
            s = qi @ k[j:j + block_size].T
            new_m = np.maximum(m, s.max(1))
            p, c = np.exp(s - new_m[:, None]), np.exp(m - new_m)
            total, acc, m = total * c + p.sum(1), acc * c[:, None] + p @ v[j:j + block_size], new_m
        out[i:i + block_size] = acc / total[:, None]
    return out


def online_log_sum_exp_merge(q, k, v, block_size):
    """Each block's own softmax output and log-sum-exp, merged with np.logaddexp (numerically different)."""
    lse = out = None
    for j in range(0, len(k), block_size):
        s = q @ k[j:j + block_size].T / math.sqrt(q.shape[1])
        top = s.max(1, keepdims=True)
        e = np.exp(s - top)
        block_lse, block_out = top + np.log(e.sum(1, keepdims=True)), e / e.sum(1, keepdims=True) @ v[j:j + block_size]
        if lse is None:
            lse, out = block_lse, block_out
        else:
            merged = np.logaddexp(lse, block_lse)
            out, lse = out * np.exp(lse - merged) + block_out * np.exp(block_lse - merged), merged
    return out


def online_library(q, k, v, block_size):
    return ac.tiled_attention(q, k, v, block_size=block_size)


# --- notebook 12: the induction score --------------------------------------------------------------------

def induction_fancy(weights, half):
    q = np.arange(half, 2 * half)
    return float(weights[q, q - half + 1].mean())


def induction_loop(weights, half):
    total = 0.0
    for t in range(half, 2 * half):
        total += weights[t][t - half + 1]
    return total / half


def induction_diagonal(weights, half):
    """The offset diagonal, its last `half` entries."""
    return np.diagonal(weights, offset=-(half - 1))[-half:].mean()


def induction_list_comprehension(weights, half):
    return sum([weights[half + i, i + 1] for i in range(half)]) / half


def induction_torch(weights, half):
    torch = _torch()
    w = torch.as_tensor(weights)
    rows = torch.arange(half, 2 * half)
    return w[rows, rows - half + 1].mean()


def induction_mask_sum(weights, half):
    t = weights.shape[-1]
    i, j = np.indices((t, t))
    pick = (i >= half) & (j == i - half + 1)
    return np.sum(weights * pick) / np.sum(pick)


# --- the table ---------------------------------------------------------------------------------------------

CORRECT = {
    check_attention: [attention_plain, attention_einsum, attention_loops, attention_log_sum_exp, attention_torch,
                      attention_scaled_queries, attention_float32_list, ac.scaled_dot_product_attention],
    check_weighted_sum: [weighted_sum_matmul, weighted_sum_einsum, weighted_sum_loops, weighted_sum_broadcast,
                         weighted_sum_tensordot_rows, weighted_sum_torch],
    check_scaled_scores: [scores_matmul, scores_einsum, scores_transpose_last_two, scores_loops, scores_torch],
    check_dot_product_variance: [variance_vectorised, variance_loop_appends, variance_by_hand,
                                 variance_legacy_randomstate, variance_torch],
    check_softmax: [softmax_stable, softmax_log_sum_exp, softmax_loops, softmax_clip_at_minus_50, softmax_torch,
                    softmax_min_shift, softmax_float32, softmax_pairwise, ac.softmax],
    check_temperature_softmax: [temperature_divide, temperature_library, temperature_multiply_inverse,
                                temperature_loops, temperature_torch],
    check_causal_mask: [causal_tril, causal_compare, causal_loops, causal_not_triu, causal_list_of_rows,
                        ac.causal_mask],
    check_padding_mask: [padding_compare, padding_loops, padding_list_appends, padding_expand_dims,
                         padding_library],
    check_self_attention: [self_library, self_einsum, self_torch, self_loops, self_one_projection],
    check_cross_attention: [cross_library, cross_einsum, cross_loops, cross_torch, cross_scaled_queries],
    check_padded_cross_attention: [padded_library, padded_minus_inf, padded_additive_huge, padded_loops, padded_torch],
    check_context_similarity: [similarity_library, similarity_one_row, similarity_einsum, similarity_loops,
                               similarity_torch],
    check_split_heads: [split_reshape_swap, split_moveaxis, split_np_split, split_loops, split_library, split_torch],
    check_merge_heads: [merge_reshape_swap, merge_concatenate, merge_moveaxis, merge_library, merge_preallocated],
    check_multi_head_attention: [mha_library, mha_by_hand, mha_head_loop, mha_einsum, mha_torch],
    check_sinusoidal_encoding: [sin_vectorised, sin_loops, sin_exp_log, sin_library, sin_torch],
    check_rope: [rope_pairs, rope_complex, rope_loops, rope_rotation_matrices, rope_library],
    check_rnn_forward: [rnn_loop_appends, rnn_preallocated, rnn_inputs_first, rnn_tanh_from_exp, rnn_torch],
    check_rnn_gradient: [grad_chain_forward, grad_chain_backward, grad_einsum, grad_torch_autograd,
                         grad_central_differences],
    check_kv_cache_decode: [kv_list_append, kv_preallocated, kv_preallocated_like, kv_slices_of_given, kv_ellipsis,
                            kv_concatenate, kv_take, kv_zip_iteration, kv_negative_step_slices, kv_copy_first,
                            kv_queries_scaled_first, kv_cache_object],
    check_kv_cache_bytes: [bytes_formula, bytes_per_token_first, bytes_numpy, bytes_loop, bytes_float,
                           bytes_array_shape],
    check_sliding_window_mask: [window_compare, window_tril_triu, window_loops, window_difference, window_library,
                                window_causal_and_band],
    check_online_attention: [online_ellipsis, online_np_split, online_array_split, online_take,
                             online_reversed_blocks, online_transposed_view, online_reshape_view,
                             online_split_then_concatenate, online_loop_two_passes_per_block, online_keys_scaled_first,
                             online_while_loop, online_flash_query_and_key_blocks, online_log_sum_exp_merge,
                             online_library],
    check_induction_score: [induction_fancy, induction_loop, induction_diagonal, induction_list_comprehension,
                            induction_torch, induction_mask_sum],
}

ROWS = [(checker, fn) for checker, fns in CORRECT.items() for fn in fns]


TIME_LIMIT_S = 30.0          # per call of the learner's function: speed is not what is judged here (a loaded machine)


# Every row at once takes minutes (check_dot_product_variance draws thousands of samples through the learner's
# function, check_kv_cache_decode decodes token by token): make test runs the table, make quick does not.
@pytest.mark.slow
@pytest.mark.parametrize("checker, fn", ROWS,
                         ids=[f"{c.__name__}-{f.__name__}" for c, f in ROWS])
def test_every_correct_variant_passes(checker, fn):
    for lang in ("en", "zh"):
        result = checker(fn, lang=lang, timeout=TIME_LIMIT_S)
        assert result.passed, f"{fn.__name__}: {result.message}"


def test_a_clipped_softmax_passes_with_a_remark_and_float32_without_one():
    clipped, single = check_softmax(softmax_clip_at_minus_50, lang="en"), check_softmax(softmax_float32, lang="en")
    assert clipped.passed and "One remark" in clipped.message and "exponents are clipped" in clipped.message
    assert single.passed and "remark" not in single.message


def test_each_checker_has_at_least_five_correct_variants():
    assert all(len(fns) >= 5 for fns in CORRECT.values()), {c.__name__: len(f) for c, f in CORRECT.items()}
    assert len(CORRECT) == 24                  # every checker of notebooks 01-12 (13's: their own file)


# --- the same structures written wrong, in the same styles: still refused -----------------------------------

def kv_future_with_ellipsis(q, k, v):
    """One key too many at every step, written with `...`."""
    return np.stack([_softmax(q[..., t, :] @ k[..., : t + 2, :].swapaxes(-1, -2) / 2.0) @ v[..., : t + 2, :]
                     for t in range(q.shape[-2])])


def kv_all_keys_first(q, k, v):
    """Every key copied into the cache before the first query: the cache holds future tokens."""
    keys, values = [k[t] for t in range(len(k))], [v[t] for t in range(len(v))]
    return np.array([_attend(q[t], np.array(keys[: t + 1]), np.array(values[: t + 1])) for t in range(len(q))])


def kv_recompute_with_take(q, k, v):
    """The prefix recomputed at every step, the queries taken with np.take."""
    outs = []
    for t in range(len(q)):
        qs = np.take(q, np.arange(t + 1), axis=0)
        out, _ = ac.scaled_dot_product_attention(qs, k[: t + 1], v[: t + 1], mask=ac.causal_mask(t + 1))
        outs.append(out[-1])
    return np.array(outs)


def online_split_then_whole(q, k, v, block_size):
    """Split into blocks, then joined back whole before scoring: every key scored at once."""
    whole_k = np.concatenate(np.array_split(k, max(1, len(k) // block_size)))
    whole_v = np.concatenate(np.array_split(v, max(1, len(v) // block_size)))
    return _softmax(q @ whole_k.T / np.sqrt(q.shape[-1])) @ whole_v


def online_reshape_whole(q, k, v, block_size):
    """A reshape view (1, T, D) indexed at 0: all T rows of k at once."""
    kk, vv = k.reshape(1, *k.shape)[0], v.reshape(1, *v.shape)[0]
    return _softmax(np.einsum("qd,kd->qk", q, kk) / np.sqrt(q.shape[-1])) @ vv


def softmax_clip_at_minus_10(x):
    """Clipped so high that e^-10 = 4.5e-5 is left where a weight must vanish: beyond the tolerance."""
    z = np.exp(np.maximum(x - x.max(axis=-1, keepdims=True), -10.0))
    return z / z.sum(axis=-1, keepdims=True)


WRONG_IN_NEW_STYLES = [
    (check_softmax, softmax_clip_at_minus_10, "an exponent clipped or a floor added", "截断了指数"),
    (check_kv_cache_decode, kv_future_with_ellipsis, "sees a future key", "看到了未来的 Key"),
    (check_kv_cache_decode, kv_all_keys_first, "a future token", "未来的 token"),
    (check_kv_cache_decode, kv_recompute_with_take, "recomputes the prefix at every step", "前缀重算一遍"),
    (check_online_attention, online_split_then_whole, "read 10 rows of k at once", "k 的 10 行"),
    (check_online_attention, online_reshape_whole, "read 10 rows of k at once", "k 的 10 行"),
]


@pytest.mark.parametrize("checker, fn, en, zh", WRONG_IN_NEW_STYLES,
                         ids=[f.__name__ for _, f, *_ in WRONG_IN_NEW_STYLES])
def test_the_same_mistakes_in_the_same_styles_still_fail(checker, fn, en, zh):
    for lang, words in (("en", en), ("zh", zh)):
        result = checker(fn, lang=lang)
        assert not result.passed and words in result.message, result.message


def test_every_numpy_form_of_reading_records_exactly_its_rows():
    from attention_core.teaching.checks import watch
    reads: list = []
    (k,) = watch(reads, k=np.arange(24.0).reshape(6, 4))

    def last():
        return tuple(reads[-1].rows)
    forms = [
        (lambda: k[..., 2:4, :], (2, 3)),
        (lambda: k[..., 1], tuple(range(6))),                    # a column: every row
        (lambda: k[4::-2], (0, 2, 4)),
        (lambda: k[[5, 1]], (1, 5)),
        (lambda: k[np.array([True, False] * 3)], (0, 2, 4)),
        (lambda: k[None, 3], (3,)),
        (lambda: np.take(k, [2, 3], axis=0), (2, 3)),
        (lambda: k.take(7), (1,)),                               # flat index 7 is row 1
        (lambda: np.split(k, 3)[1] @ np.ones(4), (2, 3)),
        (lambda: np.array_split(k, 4)[0].sum(), (0, 1)),
        (lambda: k.reshape(3, 2, 4)[2], (4, 5)),
        (lambda: k.T[:, 1], (1,)),
        (lambda: np.moveaxis(k, 0, -1)[..., -1], (5,)),
        (lambda: np.flip(k, axis=0)[0], (5,)),
        (lambda: np.lib.stride_tricks.sliding_window_view(k, 2, axis=0)[3], (3, 4)),
        (lambda: np.pad(k, ((0, 2), (0, 0)))[5:].sum(), (5,)),   # the padding holds no token
        (lambda: np.concatenate([k[:0], np.split(k, 2)[1]])[0], (3,)),
        (lambda: (k / 2.0)[1:3], (1, 2)),                        # elementwise results carry their rows
        (lambda: np.exp(-k)[5], (5,)),
        (lambda: (1 + k * np.ones(4))[2] @ np.ones(4), (2,)),
    ]
    for i, (read, rows) in enumerate(forms):
        n = len(reads)
        read()
        assert len(reads) == n + 1 and last() == rows, (i, reads[n:])
    n = len(reads)
    _ = np.zeros_like(k), np.empty_like(k), np.shape(k), k.shape, len(k), k.copy(), np.split(k, 2), k.T
    assert len(reads) == n                                      # none of these reads a number


def test_a_copy_written_in_place_through_out_stays_watched():
    from attention_core.teaching.checks import watch
    reads: list = []
    (k,) = watch(reads, k=np.arange(6.0).reshape(3, 2))
    kc = k.copy()
    assert np.exp(kc, out=kc) is kc and reads == []            # elementwise, in place: nothing read yet
    _ = kc[2]
    assert tuple(reads[-1].rows) == (2,)
    with pytest.raises(ValueError, match="read-only"):          # the input itself is the checker's
        np.exp(k, out=k)
    buffer = np.empty((3, 2))
    assert np.add(k, 1, out=buffer) is buffer and buffer[0].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="could not be broadcast together"):   # NumPy's own words for a mistake
        _ = k + np.ones(3)
