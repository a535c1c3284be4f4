"""The reference pieces of notebook 13, in torch: what the learner's functions are checked against.

Each is the library's own formula on tensors, computed by the backend's torch code
(`backends.torch_ops`: layer_norm, gelu, attend_heads, the attention step) with the library's
signatures and structures (`core.transformer`: BlockParams, DecoderParams, the flat parameter names),
so the same functions train (autograd) and load notebook 12's weights unchanged:

    params = torch_params(load_trained("induction").params)   # DecoderParams holding float64 tensors
    logits, weights = gpt_forward(params, ids)                  # (T, V), (L, H, T, T)
    generate(params, ids, 20)                                   # greedy, with a KV cache

`PARTS` holds the learner's pieces that passed their checker (a checker that passes puts the
function there, one that fails takes it out); `PARTS.gpt_forward` etc. is the learner's version where
it passed and this module's otherwise, and `PARTS.which()` says which. torch is imported inside the
functions (tests/test_layers.py: a lab imports torch only when it is used).
Shapes: B batch, T tokens, D = d_model, H heads, Dh = D / H, L layers, V vocabulary size.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.masks import causal_mask
from attention_core.core.multihead import MultiHeadParams, merge_heads, split_heads
from attention_core.core.validation import describe, positive_int

NAMES = ("layer_norm", "feed_forward", "transformer_block", "gpt_forward", "generate")
MHA_NAMES = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o")


def _ops():
    from attention_core.backends import load_torch_ops
    return load_torch_ops()


# --- parameters as tensors, in the library's structures ------------------------------------------------
def _mha(g: dict, n_heads: int) -> MultiHeadParams:
    """MultiHeadParams holding tensors (its NumPy validation would turn them into arrays; the shapes
    were checked by decoder_from_dict on the NumPy side)."""
    mha = object.__new__(MultiHeadParams)
    for name in MHA_NAMES:
        object.__setattr__(mha, name, g[name])
    object.__setattr__(mha, "n_heads", n_heads)
    return mha


def params_from_tensors(flat: dict, n_heads: int) -> tr.DecoderParams:
    """DecoderParams whose arrays are the tensors of `flat` themselves (name -> tensor, the names of
    `parameter_shapes`): autograd reaches them through every piece."""
    blocks = []
    i = 0
    while f"l{i}_w_q" in flat:
        g = {name[len(f"l{i}_"):]: t for name, t in flat.items() if name.startswith(f"l{i}_")}
        blocks.append(tr.BlockParams(g["ln1_g"], g["ln1_b"], _mha(g, n_heads), g["ln2_g"], g["ln2_b"],
                                     g["w_1"], g["b_1"], g["w_2"], g["b_2"]))
        i += 1
    return tr.DecoderParams(flat["tok_emb"], flat["pos_emb"], tuple(blocks), flat["lnf_g"], flat["lnf_b"],
                            flat["w_out"], flat["b_out"])


def torch_params(params, n_heads: int | None = None, dtype="float64", requires_grad: bool = False):
    """DecoderParams (or a flat {name: array} dict with n_heads) as DecoderParams of torch tensors
    (copies, every shape checked as in NumPy). Returns the DecoderParams."""
    import torch
    if isinstance(params, tr.DecoderParams):
        n_heads = params.n_heads
        flat = tr.decoder_to_dict(params)
    elif isinstance(params, dict):
        if n_heads is None:
            raise TypeError("n_heads: a flat weights dict does not say how many heads; pass n_heads=")
        flat = params
    else:
        raise TypeError(f"params: expected DecoderParams or a flat dict of arrays, got {describe(params)}")
    numpy_flat = {k: v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v) for k, v in flat.items()}
    tr.decoder_from_dict(numpy_flat, n_heads)                    # every name and shape checked
    dt = getattr(torch, str(dtype))
    tensors = {k: torch.tensor(v, dtype=dt, requires_grad=requires_grad) for k, v in numpy_flat.items()}
    return params_from_tensors(tensors, n_heads)


def flat_tensors(params) -> dict:
    """{name: tensor} of DecoderParams holding tensors (what an optimizer updates)."""
    return tr.decoder_to_dict(params)


def to_numpy_params(params) -> tr.DecoderParams:
    """DecoderParams of tensors -> the library's NumPy DecoderParams (float32 copies)."""
    flat = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in tr.decoder_to_dict(params).items()}
    return tr.decoder_from_dict(flat, params.blocks[0].attn.n_heads)


# --- the pieces ---------------------------------------------------------------------------------
def layer_norm(x, gamma, beta, eps: float = tr.LN_EPS):
    """(x - mean) / sqrt(var + eps) * gamma + beta over the last axis, biased variance."""
    return _ops().layer_norm(x, gamma, beta, eps)


def feed_forward(x, w_1, b_1, w_2, b_2):
    """GELU(x W_1 + b_1) W_2 + b_2, GELU in the tanh form."""
    return _ops().gelu(x @ w_1 + b_1) @ w_2 + b_2


def self_attention(x, attn, mask=None, *, need_weights: bool = True):
    """Multi-head self-attention of notebook 06 on tensors: (output (..., T, D), weights (..., H, T, T));
    need_weights=False: the fused kernel, weights None."""
    import torch
    if mask is not None and not isinstance(mask, torch.Tensor):
        mask = torch.as_tensor(np.asarray(mask, dtype=bool))
    return _ops().attend_heads(x, x, x, {n: getattr(attn, n) for n in MHA_NAMES}, attn.n_heads, mask,
                               need_weights=need_weights)


def transformer_block(x, block, mask=None, *, parts=None, need_weights: bool = True):
    """Pre-LN: x + MHA(LN1(x)), then + FFN(LN2(x)). Returns (x_out (..., T, D), weights (..., H, T, T) or None
    with need_weights=False)."""
    p = _Reference if parts is None else parts
    a, weights = self_attention(p.layer_norm(x, block.ln1_g, block.ln1_b), block.attn, mask,
                                need_weights=need_weights)
    x = x + a
    x = x + p.feed_forward(p.layer_norm(x, block.ln2_g, block.ln2_b), block.w_1, block.b_1, block.w_2, block.b_2)
    return x, weights


def _ids(params, ids):
    import torch
    if isinstance(ids, torch.Tensor):
        if ids.is_floating_point() or ids.dtype == torch.bool:
            raise TypeError(f"ids: expected integer token ids, got {describe(ids)}")
        arr = ids.detach().cpu().numpy()
    else:
        arr = ids
    return torch.as_tensor(tr.check_ids(arr, params.tok_emb.shape[0], params.pos_emb.shape[0]))


def gpt_forward(params, ids, *, parts=None):
    """Token + position embeddings, L blocks with the causal mask, the final LN, the unembedding.
    ids (T,) or (B, T) -> (logits (..., T, V), weights (..., L, H, T, T))."""
    import torch
    p = _Reference if parts is None else parts
    ids = _ids(params, ids)
    t = ids.shape[-1]
    x = params.tok_emb[ids] + params.pos_emb[:t]                               # (..., T, D)
    mask = torch.as_tensor(causal_mask(t))                                     # (T, T), True = may attend
    maps = []
    for block in params.blocks:
        x, w = p.transformer_block(x, block, mask)                             # w (..., H, T, T)
        maps.append(w)
    logits = p.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out   # (..., T, V)
    return logits, torch.stack(maps, dim=-4)                                    # (..., L, H, T, T)


def training_forward(params, ids):
    """gpt_forward for training: the same blocks, but each attention step is the fused kernel
    (transformer_block with need_weights=False), which never holds the (T, T) weights that training
    does not look at. Twice as fast at 256 tokens on a CPU; equal logits (tested). Returns (logits, None)."""
    import torch
    ids = _ids(params, ids)
    t = ids.shape[-1]
    x = params.tok_emb[ids] + params.pos_emb[:t]                               # (..., T, D)
    mask = torch.as_tensor(causal_mask(t))                                     # (T, T), True = may attend
    for block in params.blocks:
        x, _ = transformer_block(x, block, mask, need_weights=False)
    return layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out, None   # (..., T, V)


# --- generation with a KV cache -----------------------------------------------------------------
def forward_cached(params, new_ids, cache=None, *, parts=None):
    """Run only the new tokens, at positions len(cache) .., attending to the cached keys and values.
    new_ids (T_new,); cache: None or a list of (K, V) per layer, each (H, T_past, Dh). Returns
    (logits (T_new, V), the cache with the new keys and values appended)."""
    import torch
    p = _Reference if parts is None else parts
    ops = _ops()
    past = 0 if not cache else cache[0][0].shape[-2]
    new_ids = torch.as_tensor(new_ids, dtype=torch.int64).reshape(-1)
    t_new = new_ids.shape[0]
    if past + t_new > params.pos_emb.shape[0]:
        raise ValueError(f"the context is full: {past + t_new} tokens, but the model reads at most "
                         f"{params.pos_emb.shape[0]}")
    x = params.tok_emb[new_ids] + params.pos_emb[past:past + t_new]            # (T_new, D)
    mask = torch.as_tensor(causal_mask(t_new, past + t_new, offset=past))      # (T_new, T_past + T_new)
    new_cache = []
    for i, block in enumerate(params.blocks):
        a, h = block.attn, block.attn.n_heads
        z = p.layer_norm(x, block.ln1_g, block.ln1_b)
        q = split_heads(z @ a.w_q + a.b_q, h)                                   # (H, T_new, Dh)
        k = split_heads(z @ a.w_k + a.b_k, h)
        v = split_heads(z @ a.w_v + a.b_v, h)
        if cache:
            k = torch.cat([cache[i][0], k], dim=-2)                            # (H, T_past + T_new, Dh)
            v = torch.cat([cache[i][1], v], dim=-2)
        new_cache.append((k, v))
        heads, _ = ops.explicit_attention(q, k, v, mask, 1 / math.sqrt(q.shape[-1]))   # (H, T_new, Dh)
        x = x + merge_heads(heads) @ a.w_o + a.b_o
        x = x + p.feed_forward(p.layer_norm(x, block.ln2_g, block.ln2_b), block.w_1, block.b_1, block.w_2, block.b_2)
    logits = p.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out   # (T_new, V)
    return logits, new_cache


def pick_next(logits, temperature: float = 0.0, top_k: int | None = None, generator=None) -> int:
    """The next token from one row of logits (V,): the argmax when temperature == 0, else a sample
    of softmax(logits / temperature) restricted to the top_k largest (torch.multinomial, generator)."""
    import torch
    if temperature == 0:
        return int(torch.argmax(logits))
    scaled = logits / temperature
    if top_k is not None:
        kth = torch.topk(scaled, min(int(top_k), scaled.shape[-1])).values[-1]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    from attention_core.backends import torch_ops  # the one torch softmax (shifted, -inf safe)
    probs = torch_ops.masked_softmax(scaled, -1)
    return int(torch.multinomial(probs, 1, generator=generator))


def check_generate_args(params, ids, n_new, temperature, top_k) -> list:
    n_new = positive_int(n_new, "n_new", minimum=0)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature < math.inf:
        raise ValueError(f"temperature: expected a number >= 0 (0: greedy), got {describe(temperature)}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1):
        raise ValueError(f"top_k: expected None or an integer >= 1, got {describe(top_k)}")
    ids = [int(i) for i in np.ravel(np.asarray(ids.detach().cpu() if hasattr(ids, "detach") else ids))]
    tr.check_ids(np.asarray(ids, dtype=np.int64), params.tok_emb.shape[0], params.pos_emb.shape[0])
    if len(ids) + n_new > params.pos_emb.shape[0]:
        raise ValueError(f"{len(ids)} prompt tokens + n_new={n_new} is more than the model's context of "
                         f"{params.pos_emb.shape[0]} tokens")
    return ids


def generate(params, ids, n_new: int, temperature: float = 0.0, top_k: int | None = None, seed: int = 0,
             *, parts=None) -> list[int]:
    """The prompt ids followed by n_new generated ids (a list), one forward of the prompt, then one
    token at a time through the KV cache. temperature 0: greedy; else sampling, reproducible from seed
    (torch.Generator().manual_seed(seed), one torch.multinomial per token)."""
    import torch
    ids = check_generate_args(params, ids, n_new, temperature, top_k)
    g = torch.Generator().manual_seed(int(seed))
    out = list(ids)
    with torch.no_grad():
        logits, cache = forward_cached(params, out, None, parts=parts)
        for step in range(n_new):
            out.append(pick_next(logits[-1], temperature, top_k, g))
            if step < n_new - 1:
                logits, cache = forward_cached(params, out[-1:], cache, parts=parts)
    return out


def generate_uncached(params, ids, n_new: int, temperature: float = 0.0, top_k: int | None = None,
                      seed: int = 0, *, parts=None) -> list[int]:
    """generate, recomputing the whole sequence at every step (what the cache saves)."""
    import torch
    p = _Reference if parts is None else parts
    ids = check_generate_args(params, ids, n_new, temperature, top_k)
    g = torch.Generator().manual_seed(int(seed))
    out = list(ids)
    with torch.no_grad():
        for _ in range(n_new):
            logits, _ = p.gpt_forward(params, torch.tensor(out))
            out.append(pick_next(logits[-1], temperature, top_k, g))
    return out


def cache_bytes(cache) -> int:
    """Bytes held by a KV cache (every K and V tensor)."""
    return sum(k.element_size() * k.nelement() + v.element_size() * v.nelement() for k, v in cache)


# --- the learner's pieces where they passed, the library's elsewhere --------------------------------------
class _ReferenceParts:
    """The reference pieces under the names of PARTS (pure: every piece is this module's)."""
    layer_norm = staticmethod(layer_norm)
    feed_forward = staticmethod(feed_forward)
    transformer_block = staticmethod(transformer_block)
    gpt_forward = staticmethod(gpt_forward)
    generate = staticmethod(generate)


_Reference = _ReferenceParts()


class Parts:
    """The pieces later steps run on: the learner's where its checker passed, the library's otherwise.
    parts.layer_norm(...) etc.; parts.which() -> {name: "yours" | "library"}."""

    def __init__(self):
        self.mine: dict = {}

    def use(self, name: str, fn) -> None:
        if name not in NAMES:
            raise ValueError(f"name: expected one of {NAMES}, got {name!r}")
        if fn is globals()[name] or fn is getattr(_Reference, name):
            self.mine.pop(name, None)                        # the library's own: nothing of the learner's
        else:
            self.mine[name] = fn

    def drop(self, name: str) -> None:
        self.mine.pop(name, None)

    def clear(self) -> None:
        self.mine.clear()

    def __getattr__(self, name):
        if name not in NAMES:
            raise AttributeError(name)
        mine = self.__dict__["mine"]
        if name in mine:
            return mine[name]
        ref = globals()[name]
        if name in ("transformer_block", "gpt_forward", "generate"):
            return functools.partial(ref, parts=self)        # the library's assembly of the learner's parts
        return ref

    def which(self) -> dict:
        return {name: "yours" if name in self.mine else "library" for name in NAMES}

    def report(self, lang: str | None = None) -> str:
        from attention_core.teaching import i18n
        lang = i18n.resolve_language(lang)
        words = {"yours": i18n.t("nb13.parts_yours", lang), "library": i18n.t("nb13.parts_library", lang)}
        sep, gap = ("、", "") if lang == "zh" else (", ", " ")
        return i18n.t("nb13.parts_report", lang) + sep.join(f"{n}{gap}{words[w]}" for n, w in self.which().items())


PARTS = Parts()
