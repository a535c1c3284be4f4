"""The solutions of notebook 13's exercises, written as a learner would (the tests' correct pieces)."""
import torch

import attention_core as ac
from attention_core.labs.nb13_build_a_gpt import corpus, pieces

parts = pieces.Parts()
chars = corpus.vocabulary()
stoi = {c: i for i, c in enumerate(chars)}

def encode(text):
    out = []
    for i, c in enumerate(text):
        if c not in stoi:
            raise ValueError(f"unknown character {c!r} at index {i}")
        out.append(stoi[c])
    return out

def decode(ids):
    return "".join(chars[i] for i in ids)

def merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out

def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta

def feed_forward(x, w_1, b_1, w_2, b_2):
    return torch.nn.functional.gelu(x @ w_1 + b_1, approximate="tanh") @ w_2 + b_2

def transformer_block(x, block, mask):
    attn_out, weights = pieces.self_attention(parts.layer_norm(x, block.ln1_g, block.ln1_b), block.attn, mask)
    x = x + attn_out
    h = parts.layer_norm(x, block.ln2_g, block.ln2_b)
    x = x + parts.feed_forward(h, block.w_1, block.b_1, block.w_2, block.b_2)
    return x, weights

def gpt_forward(params, ids):
    ids = torch.as_tensor(ids)
    t = ids.shape[-1]
    x = params.tok_emb[ids] + params.pos_emb[:t]
    mask = torch.as_tensor(ac.causal_mask(t))
    maps = []
    for block in params.blocks:
        x, w = parts.transformer_block(x, block, mask)
        maps.append(w)
    logits = parts.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out
    return logits, torch.stack(maps, dim=-4)

def generate(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = list(ids)
    cache = [None] * len(params.blocks)

    def step(new):
        t0 = 0 if cache[0] is None else cache[0][0].shape[-2]
        x = params.tok_emb[torch.tensor(new)] + params.pos_emb[t0:t0 + len(new)]
        mask = torch.as_tensor(ac.causal_mask(len(new), t0 + len(new), offset=t0))
        for i, b in enumerate(params.blocks):
            a, h = b.attn, b.attn.n_heads
            z = parts.layer_norm(x, b.ln1_g, b.ln1_b)
            q = ac.split_heads(z @ a.w_q + a.b_q, h)
            k = ac.split_heads(z @ a.w_k + a.b_k, h)
            v = ac.split_heads(z @ a.w_v + a.b_v, h)
            if cache[i] is not None:
                k = torch.cat([cache[i][0], k], dim=-2)
                v = torch.cat([cache[i][1], v], dim=-2)
            cache[i] = (k, v)
            heads, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask)
            x = x + ac.merge_heads(heads) @ a.w_o + a.b_o
            x = x + parts.feed_forward(parts.layer_norm(x, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2)
        return parts.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out

    with torch.no_grad():
        logits = step(out)
        for i in range(n_new):
            last = logits[-1]
            if temperature == 0:
                nxt = int(torch.argmax(last))
            else:
                last = last / temperature
                if top_k is not None:
                    kth = torch.topk(last, top_k).values[-1]
                    last = last.masked_fill(last < kth, float("-inf"))
                nxt = int(torch.multinomial(torch.softmax(last, -1), 1, generator=g))
            out.append(nxt)
            if i < n_new - 1:
                logits = step([nxt])
    return out

def training_step(forward, params, ids, optimizer):
    logits, _ = forward(params, ids[:, :-1])
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
