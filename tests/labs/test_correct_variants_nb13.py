"""Notebook 13's checkers accept every correct answer (issue 33): at least five correct implementations of each
piece of the GPT (tokenizer, BPE merge, layer norm, feed-forward, block, forward pass, generation with a KV cache),
in different styles (library functions, formulas written out, einsum, loops over heads, one-hot products,
preallocated caches, lists, another way to sample), each of which must pass in both languages. The pieces are
written here from the parameters' fields alone, so they test the checkers, not the reference pieces. The wrong
pieces are in test_nb13_build_a_gpt.py.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from attention_core.labs.nb13_build_a_gpt import checks, corpus  # noqa: E402

CHARS = corpus.vocabulary()
STOI = {c: i for i, c in enumerate(CHARS)}


# --- the tokenizer ---------------------------------------------------------------------------------------

def encode_dict(text):
    return [STOI[c] for c in text]                       # an unknown character raises KeyError


def decode_join(ids):
    return "".join(CHARS[i] for i in ids)


def encode_index(text):
    return [CHARS.index(c) for c in text]                # ValueError for an unknown character


def decode_reduce(ids):
    return functools.reduce(lambda s, i: s + CHARS[i], ids, "")


def encode_find(text):
    joined = "".join(CHARS)
    out = []
    for c in text:
        i = joined.find(c)
        if i < 0:
            raise ValueError(f"unknown character {c!r}")
        out.append(i)
    return out


def decode_list(ids):
    return "".join([CHARS[int(i)] for i in list(ids)])


def encode_numpy(text):
    """An int64 array (the checker takes arrays with .tolist())."""
    return np.array([STOI[c] for c in text], dtype=np.int64)


def decode_map(ids):
    itos = dict(enumerate(CHARS))
    return "".join(map(itos.__getitem__, ids))


def encode_tensor(text):
    missing = set(text) - set(STOI)
    if missing:
        raise KeyError(f"not in the vocabulary: {sorted(missing)}")
    return torch.tensor([STOI[c] for c in text])


TOKENIZERS = [(encode_dict, decode_join), (encode_index, decode_reduce), (encode_find, decode_list),
              (encode_numpy, decode_map), (encode_tensor, decode_join)]


# --- byte-pair merge -------------------------------------------------------------------------------------

def merge_while(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_skip_flag(ids, pair, new_id):
    out, skip = [], False
    for i, x in enumerate(ids):
        if skip:
            skip = False
            continue
        if tuple(ids[i:i + 2]) == tuple(pair):
            out.append(new_id)
            skip = True
        else:
            out.append(x)
    return out


def merge_recursive(ids, pair, new_id):
    if len(ids) < 2:
        return list(ids)
    if (ids[0], ids[1]) == tuple(pair):
        return [new_id] + merge_recursive(ids[2:], pair, new_id)
    return [ids[0]] + merge_recursive(ids[1:], pair, new_id)


def merge_iterator(ids, pair, new_id):
    it, out = iter(ids), []
    prev = next(it, None)
    while prev is not None:
        cur = next(it, None)
        if cur is not None and (prev, cur) == tuple(pair):
            out.append(new_id)
            prev = next(it, None)
        else:
            out.append(prev)
            prev = cur
    return out


def merge_tuple_result(ids, pair, new_id):
    """A tuple, built from a copy it edits in place (the input stays untouched)."""
    work = list(ids)
    i = 0
    while i < len(work) - 1:
        if work[i] == pair[0] and work[i + 1] == pair[1]:
            work[i:i + 2] = [new_id]
        i += 1
    return tuple(work)


# --- layer norm, feed-forward ----------------------------------------------------------------------------

def ln_by_hand(x, gamma, beta, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta


def ln_functional(x, gamma, beta, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)


def ln_var_mean_rsqrt(x, gamma, beta, eps=1e-5):
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    return (x - mean) * torch.rsqrt(var + eps) * gamma + beta


def ln_einsum(x, gamma, beta, eps=1e-5):
    c = x - x.mean(dim=-1, keepdim=True)
    var = torch.einsum("...d,...d->...", c, c)[..., None] / x.shape[-1]
    return torch.addcmul(beta, c / (var + eps).sqrt(), gamma)


def ln_second_moment(x, gamma, beta, eps=1e-5):
    """var = E[x²] - E[x]²: numerically different, accurate enough in float64."""
    m = x.mean(-1, keepdim=True)
    var = (x * x).mean(-1, keepdim=True) - m * m
    return gamma * (x - m) / (var + eps) ** 0.5 + beta


def ffn_functional(x, w_1, b_1, w_2, b_2):
    return F.gelu(x @ w_1 + b_1, approximate="tanh") @ w_2 + b_2


def ffn_tanh_written_out(x, w_1, b_1, w_2, b_2):
    h = x @ w_1 + b_1
    g = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))
    return g @ w_2 + b_2


def ffn_linear(x, w_1, b_1, w_2, b_2):
    return F.linear(F.gelu(F.linear(x, w_1.T, b_1), approximate="tanh"), w_2.T, b_2)


def ffn_einsum(x, w_1, b_1, w_2, b_2):
    h = torch.einsum("...d,df->...f", x, w_1) + b_1
    return torch.einsum("...f,fd->...d", F.gelu(h, approximate="tanh"), w_2) + b_2


def ffn_sigmoid_form(x, w_1, b_1, w_2, b_2):
    """0.5 (1 + tanh z) = sigmoid(2z): the same GELU, computed differently."""
    h = torch.matmul(x, w_1).add(b_1)
    z = math.sqrt(2.0 / math.pi) * (h + 0.044715 * h.pow(3))
    return (h * torch.sigmoid(2.0 * z)) @ w_2 + b_2


# --- the block -------------------------------------------------------------------------------------------

def _heads_fused(z, a, mask):
    """Multi-head attention, heads as an axis: (out (..., T, D), weights (..., H, T, T))."""
    h = a.n_heads

    def split(t):
        return t.unflatten(-1, (h, -1)).transpose(-3, -2)          # (..., H, T, Dh)
    q, k, v = split(z @ a.w_q + a.b_q), split(z @ a.w_k + a.b_k), split(z @ a.w_v + a.b_v)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    w = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
    return (w @ v).transpose(-3, -2).flatten(-2) @ a.w_o + a.b_o, w


def _heads_loop(z, a, mask):
    """One head at a time, list appends, torch.cat."""
    dh = a.w_q.shape[1] // a.n_heads
    outs, maps = [], []
    for i in range(a.n_heads):
        cols = slice(i * dh, (i + 1) * dh)
        q, k, v = (z @ w[:, cols] + b[cols] for w, b in ((a.w_q, a.b_q), (a.w_k, a.b_k), (a.w_v, a.b_v)))
        s = torch.where(mask, q @ k.transpose(-1, -2) / dh ** 0.5, torch.tensor(float("-inf"), dtype=q.dtype))
        w = F.softmax(s, dim=-1)
        outs.append(w @ v)
        maps.append(w)
    return torch.cat(outs, dim=-1) @ a.w_o + a.b_o, torch.stack(maps, dim=-3)


def _heads_einsum(z, a, mask):
    h = a.n_heads
    dh = a.w_q.shape[1] // h
    q, k, v = (torch.einsum("...td,dhe->...hte", z, w.view(w.shape[0], h, dh)) + b.view(h, 1, dh)
               for w, b in ((a.w_q, a.b_q), (a.w_k, a.b_k), (a.w_v, a.b_v)))
    s = torch.einsum("...hqe,...hke->...hqk", q, k) / math.sqrt(dh)
    s = s - s.masked_fill(~mask, float("-inf")).amax(-1, keepdim=True)     # a stable softmax written out
    e = torch.exp(s) * mask
    w = e / e.sum(-1, keepdim=True)
    out = torch.einsum("...hqk,...hke->...hqe", w, v)
    return torch.einsum("...hte,hed->...td", out, a.w_o.view(h, dh, -1)) + a.b_o, w


def _block(x, blk, mask, heads, ln=ln_by_hand, ffn=ffn_functional):
    a_out, w = heads(ln(x, blk.ln1_g, blk.ln1_b), blk.attn, mask)
    x = x + a_out
    return x + ffn(ln(x, blk.ln2_g, blk.ln2_b), blk.w_1, blk.b_1, blk.w_2, blk.b_2), w


def block_fused(x, block, mask):
    return _block(x, block, mask, _heads_fused)


def block_head_loop(x, block, mask):
    return _block(x, block, mask, _heads_loop, ln_functional, ffn_linear)


def block_einsum(x, block, mask):
    return _block(x, block, mask, _heads_einsum, ln_var_mean_rsqrt, ffn_einsum)


def block_tuple_of_list(x, block, mask):
    """Returns a list [x_out, weights], the residuals named step by step."""
    residual = x
    h = ln_functional(x, block.ln1_g, block.ln1_b)
    attn, weights = _heads_fused(h, block.attn, torch.as_tensor(mask, dtype=torch.bool))
    x = residual + attn
    residual = x
    x = residual + ffn_tanh_written_out(ln_by_hand(x, block.ln2_g, block.ln2_b), block.w_1, block.b_1,
                                        block.w_2, block.b_2)
    return [x, weights]


def block_library_on_tensors(x, block, mask):
    """Notebook 06's library functions, given tensors (they dispatch to torch)."""
    import attention_core as ac
    a = block.attn
    z = F.layer_norm(x, (x.shape[-1],), block.ln1_g, block.ln1_b, 1e-5)
    q, k, v = (ac.split_heads(z @ w + b, a.n_heads) for w, b in ((a.w_q, a.b_q), (a.w_k, a.b_k), (a.w_v, a.b_v)))
    heads, w = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    x = x + ac.merge_heads(heads) @ a.w_o + a.b_o
    return x + ffn_sigmoid_form(ln_second_moment(x, block.ln2_g, block.ln2_b), block.w_1, block.b_1, block.w_2,
                                block.b_2), w


# --- the forward pass ------------------------------------------------------------------------------------

def _causal(t):
    return torch.ones(t, t, dtype=torch.bool).tril()


def _logits(params, x):
    return ln_by_hand(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out


def gpt_indexing(params, ids):
    ids = torch.as_tensor(ids)
    t = ids.shape[-1]
    x = params.tok_emb[ids] + params.pos_emb[:t]
    maps = []
    for blk in params.blocks:
        x, w = block_fused(x, blk, _causal(t))
        maps.append(w)
    return _logits(params, x), torch.stack(maps, dim=-4)


def gpt_embedding(params, ids):
    t = ids.shape[-1]
    x = F.embedding(ids, params.tok_emb) + F.embedding(torch.arange(t), params.pos_emb)
    maps = []
    for blk in params.blocks:
        x, w = block_head_loop(x, blk, _causal(t))
        maps.append(w.unsqueeze(-4))
    return F.linear(F.layer_norm(x, (x.shape[-1],), params.lnf_g, params.lnf_b), params.w_out.T, params.b_out), \
        torch.cat(maps, dim=-4)


def gpt_one_hot(params, ids):
    """Embeddings as one-hot products."""
    t = ids.shape[-1]
    onehot = F.one_hot(ids, params.tok_emb.shape[0]).to(params.tok_emb.dtype)
    x = onehot @ params.tok_emb + params.pos_emb[torch.arange(t)]
    maps = []
    for blk in params.blocks:
        x, w = block_einsum(x, blk, _causal(t))
        maps.append(w)
    return _logits(params, x), torch.stack(maps, -4)


def gpt_batch_first(params, ids):
    """Always batched inside: (T,) made (1, T), squeezed at the end."""
    single = ids.ndim == 1
    ids = ids.unsqueeze(0) if single else ids
    logits, w = gpt_indexing(params, ids)
    return (logits[0], w[0]) if single else (logits, w)


def gpt_mask_from_numpy(params, ids):
    """The mask from NumPy (ac.causal_mask), the blocks in a list comprehension over zip."""
    import attention_core as ac
    t = ids.shape[-1]
    mask = torch.from_numpy(ac.causal_mask(t))
    x = params.tok_emb[ids] + params.pos_emb[:t]
    maps = []
    for blk in params.blocks:
        x, w = block_library_on_tensors(x, blk, mask)
        maps += [w]
    return _logits(params, x), torch.stack(maps, dim=-4)


# --- generation with a KV cache --------------------------------------------------------------------------

def _attend_cached(z, a, keys, values, t0):
    """One layer's attention for the new positions t0 .. t0 + n - 1 over the cached keys 0 .. t0 + n - 1."""
    h = a.n_heads

    def split(t):
        return t.unflatten(-1, (h, -1)).transpose(-3, -2)
    q = split(z @ a.w_q + a.b_q)
    s = q @ keys.transpose(-1, -2) / math.sqrt(q.shape[-1])
    n, total = z.shape[-2], keys.shape[-2]
    allowed = torch.arange(total)[None, :] <= (t0 + torch.arange(n))[:, None]
    w = torch.softmax(s.masked_fill(~allowed, float("-inf")), -1)
    return (w @ values).transpose(-3, -2).flatten(-2) @ a.w_o + a.b_o


def _step_list_cache(params, cache, new):
    """cache: per layer [keys, values] grown with torch.cat."""
    t0 = 0 if cache[0] is None else cache[0][0].shape[-2]
    x = params.tok_emb[torch.tensor(new)] + params.pos_emb[t0:t0 + len(new)]
    for i, b in enumerate(params.blocks):
        a = b.attn
        z = ln_by_hand(x, b.ln1_g, b.ln1_b)
        k = (z @ a.w_k + a.b_k).unflatten(-1, (a.n_heads, -1)).transpose(-3, -2)
        v = (z @ a.w_v + a.b_v).unflatten(-1, (a.n_heads, -1)).transpose(-3, -2)
        if cache[i] is not None:
            k, v = torch.cat([cache[i][0], k], -2), torch.cat([cache[i][1], v], -2)
        cache[i] = [k, v]
        x = x + _attend_cached(z, a, k, v, t0)
        x = x + ffn_functional(ln_by_hand(x, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2)
    return _logits(params, x)


class _Preallocated:
    """A KV cache of fixed size (L, H, T_max, Dh), filled position by position, read up to the current length."""

    def __init__(self, params):
        t_max = params.pos_emb.shape[0]
        a = params.blocks[0].attn
        dh = a.w_q.shape[1] // a.n_heads
        shape = (len(params.blocks), a.n_heads, t_max, dh)
        self.k, self.v, self.length = torch.zeros(shape, dtype=a.w_q.dtype), torch.zeros(shape, dtype=a.w_q.dtype), 0

    def step(self, params, new):
        t0, n = self.length, len(new)
        x = F.embedding(torch.tensor(new), params.tok_emb) + params.pos_emb[t0:t0 + n]
        for i, b in enumerate(params.blocks):
            a = b.attn
            z = F.layer_norm(x, (x.shape[-1],), b.ln1_g, b.ln1_b)
            self.k[i, :, t0:t0 + n] = (z @ a.w_k + a.b_k).view(n, a.n_heads, -1).transpose(0, 1)
            self.v[i, :, t0:t0 + n] = (z @ a.w_v + a.b_v).view(n, a.n_heads, -1).transpose(0, 1)
            x = x + _attend_cached(z, a, self.k[i, :, :t0 + n], self.v[i, :, :t0 + n], t0)
            x = x + ffn_einsum(F.layer_norm(x, (x.shape[-1],), b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2)
        self.length += n
        return _logits(params, x)


def _sample_torch(last, temperature, top_k, g):
    if temperature == 0:
        return int(torch.argmax(last))
    last = last / temperature
    if top_k is not None:
        kth = torch.topk(last, top_k).values[-1]
        last = last.masked_fill(last < kth, float("-inf"))
    return int(torch.multinomial(torch.softmax(last, -1), 1, generator=g))


def generate_list_cache(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    out, cache = list(ids), [None] * len(params.blocks)
    with torch.no_grad():
        logits = _step_list_cache(params, cache, out)
        for i in range(n_new):
            out.append(_sample_torch(logits[-1], temperature, top_k, g))
            if i < n_new - 1:
                logits = _step_list_cache(params, cache, [out[-1]])
    return out


def generate_preallocated(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    cache, out = _Preallocated(params), list(ids)
    with torch.no_grad():
        logits = cache.step(params, out)
        for _ in range(n_new):
            nxt = _sample_torch(logits[-1], temperature, top_k, g)
            out.append(nxt)
            if len(out) < len(ids) + n_new:
                logits = cache.step(params, [nxt])
    return out


def generate_numpy_sampling(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """Sampling with NumPy's generator, from probabilities computed in float64."""
    rng = np.random.default_rng(seed)
    out, cache = list(ids), [None] * len(params.blocks)
    with torch.no_grad():
        logits = _step_list_cache(params, cache, out)
        for i in range(n_new):
            last = logits[-1].double().numpy()
            if temperature == 0:
                nxt = int(np.argmax(last))
            else:
                z = last / temperature
                if top_k is not None:
                    z = np.where(z >= np.sort(z)[-top_k], z, -np.inf)
                p = np.exp(z - z.max())
                nxt = int(rng.choice(len(p), p=p / p.sum()))
            out.append(nxt)
            if i < n_new - 1:
                logits = _step_list_cache(params, cache, [nxt])
    return out


def generate_gumbel_max(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """Sampling by the Gumbel-max trick: argmax(logits / T + Gumbel noise) draws from the softmax."""
    g = torch.Generator().manual_seed(seed)
    cache, out = _Preallocated(params), list(ids)
    with torch.no_grad():
        logits = cache.step(params, out)
        for i in range(n_new):
            last = logits[-1]
            if temperature == 0:
                nxt = int(last.argmax())
            else:
                z = last / temperature
                if top_k is not None:
                    z = z.masked_fill(z < torch.topk(z, top_k).values[-1], float("-inf"))
                u = torch.rand(z.shape, generator=g, dtype=torch.float64).clamp_min(1e-12)
                nxt = int((z - torch.log(-torch.log(u))).argmax())
            out.append(nxt)
            if i < n_new - 1:
                logits = cache.step(params, [nxt])
    return out


def generate_tensor_result(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """Returns a tensor of ids; the prompt fed one token at a time through the cache (still once each)."""
    g = torch.Generator().manual_seed(seed)
    cache = [None] * len(params.blocks)
    with torch.no_grad():
        for tok in ids:
            logits = _step_list_cache(params, cache, [tok])
        out = list(ids)
        for i in range(n_new):
            out.append(_sample_torch(logits[-1], temperature, top_k, g))
            if i < n_new - 1:
                logits = _step_list_cache(params, cache, [out[-1]])
    return torch.tensor(out)


# --- the training step ----------------------------------------------------------------------------------

def step_flatten(forward, params, ids, optimizer):
    logits, _ = forward(params, ids[:, :-1])                          # (B, T, V)
    loss = F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def step_nanogpt_order(forward, params, ids, optimizer):
    x, y = ids[:, :-1], ids[:, 1:]
    logits = forward(params, x)[0]
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.reshape(-1))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)                             # zeroed for the next step, as nanoGPT does
    return loss


def step_nll_of_log_softmax(forward, params, ids, optimizer):
    logp = F.log_softmax(forward(params, ids[:, :-1])[0], dim=-1)
    loss = F.nll_loss(logp.reshape(-1, logp.shape[-1]), ids[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def step_gather_mean(forward, params, ids, optimizer):
    for group in optimizer.param_groups:                               # gradients set to None by hand
        for p in group["params"]:
            p.grad = None
    logits, _ = forward(params, ids[:, :-1])
    picked = torch.gather(torch.log_softmax(logits, -1), 2, ids[:, 1:].unsqueeze(-1))
    loss = -picked.mean()
    loss.backward()
    optimizer.step()
    return loss


def step_class_axis_first(forward, params, ids, optimizer):
    optimizer.zero_grad()
    logits, _ = forward(params, ids[:, :-1])
    loss = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:])        # (B, V, T): the class axis second
    loss.backward()
    optimizer.step()
    return loss


CORRECT = {
    "check_training_step": [step_flatten, step_nanogpt_order, step_nll_of_log_softmax, step_gather_mean,
                            step_class_axis_first],
    "check_tokenizer": TOKENIZERS,
    "check_bpe_merge": [merge_while, merge_skip_flag, merge_recursive, merge_iterator, merge_tuple_result],
    "check_layer_norm": [ln_by_hand, ln_functional, ln_var_mean_rsqrt, ln_einsum, ln_second_moment],
    "check_feed_forward": [ffn_functional, ffn_tanh_written_out, ffn_linear, ffn_einsum, ffn_sigmoid_form],
    "check_transformer_block": [block_fused, block_head_loop, block_einsum, block_tuple_of_list,
                                block_library_on_tensors],
    "check_gpt_forward": [gpt_indexing, gpt_embedding, gpt_one_hot, gpt_batch_first, gpt_mask_from_numpy],
    "check_generate": [generate_list_cache, generate_preallocated, generate_numpy_sampling, generate_gumbel_max,
                       generate_tensor_result],
}
def _name(fn):
    return "+".join(f.__name__ for f in fn) if isinstance(fn, tuple) else fn.__name__


# Generation runs the learner's decoder a dozen times per check (about 10 s a variant on a loaded machine): make
# test runs those rows, make quick does not. The time limit per call is raised: speed is not what is judged here.
ROWS = [pytest.param(name, fn, id=f"{name}-{_name(fn)}",
                     marks=[pytest.mark.slow] if name in ("check_generate", "check_gpt_forward") else [])
        for name, fns in CORRECT.items() for fn in fns]
TIME_LIMIT_S = 60.0


@pytest.mark.slow          # every correct style of 13's pieces: about 3 s (make test runs it)
@pytest.mark.parametrize("name, fn", ROWS)
def test_every_correct_piece_passes(name, fn):
    for lang in ("en", "zh"):
        if name == "check_tokenizer":
            result = checks.check_tokenizer(*fn, lang=lang, timeout=TIME_LIMIT_S)
        else:
            result = getattr(checks, name)(fn, lang=lang, timeout=TIME_LIMIT_S)
        assert result.passed, f"{_name(fn)}: {result.message}"


def test_each_checker_of_notebook_13_has_at_least_five_correct_variants():
    assert all(len(fns) >= 5 for fns in CORRECT.values())
    assert set(CORRECT) == {n for n in dir(checks) if n.startswith("check_")
                            and getattr(getattr(checks, n), "__module__", "") == checks.__name__}
