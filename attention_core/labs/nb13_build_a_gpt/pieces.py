"""The reference pieces of notebook 13, in torch: the course's one model (`core.model.HookedDecoder`,
run with torch's namespace) and the pieces the learner's functions are checked against.

    params = torch_params(load_trained("induction").params)   # DecoderParams holding float64 tensors
    logits, weights = gpt_forward(params, ids)                  # (T, V), (L, H, T, T)
    model_of(params).run_with_cache(ids)                        # every hook point, as in notebook 12
    generate(params, ids, 20)                                   # greedy, with the KV cache (model.step)

Every forward here is the one of `core.hooked`: `model_of(params, parts)` plugs the learner's layer norm,
feed-forward and block into it (a `Parts`: the learner's pieces that passed their checker, the library's
for the rest), so "your model" is that one object. The notebook holds its own `Parts`; a checker given
`parts=` records there whether the piece passed, and nothing else is kept between cells. torch is
imported inside the functions (tests/test_layers.py: a lab imports torch only when it is used).
Shapes: B batch, T tokens, D = d_model, H heads, Dh = D / H, L layers, V vocabulary size.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from attention_core.core import generation, hooked
from attention_core.core import transformer as tr
from attention_core.core.model import HookedDecoder
from attention_core.core.validation import describe, positive_int
from attention_core.teaching.learner_pieces import LearnerPieces

NAMES = ("layer_norm", "feed_forward", "transformer_block", "gpt_forward", "generate")
MHA_NAMES = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o")


def _ops():
    from attention_core.backends import load_torch_ops
    return load_torch_ops()


# --- parameters as tensors, in the library's structures ------------------------------------------------
def params_from_tensors(flat: dict, n_heads: int) -> tr.DecoderParams:
    """DecoderParams whose arrays are the tensors of `flat` themselves (name -> tensor, the names of
    `parameter_shapes`): autograd reaches them through every piece."""
    return tr.assemble(flat, n_heads)


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


# --- the one model, with the learner's pieces plugged in ---------------------------------------------------
def model_of(params, parts=None, *, fused: bool = False) -> HookedDecoder:
    """HookedDecoder on DecoderParams of tensors, run with torch's namespace and, where `parts` holds the
    learner's layer_norm, feed_forward or transformer_block, with those. fused=True: attention by the fused
    kernel wherever no hook reads the weights (training)."""
    if not isinstance(params, tr.DecoderParams):
        raise TypeError(f"params: expected DecoderParams of tensors (see torch_params), got {describe(params)}")
    mine = {} if parts is None else parts.mine
    device = params.tok_emb.device if hasattr(params.tok_emb, "device") else None
    ops = _ops().ops_for(device, fused=fused)
    ops = dataclasses.replace(ops, layer_norm=mine.get("layer_norm", ops.layer_norm),
                              feed_forward=mine.get("feed_forward"))
    block_fn = _learner_block(mine["transformer_block"], parts) if "transformer_block" in mine else None
    return HookedDecoder(tr.decoder_to_dict(params), params.n_heads, ops=ops, block_fn=block_fn)


def _learner_block(fn, parts):
    """hooked.block's place in the forward, taken by the learner's transformer_block(x, block, mask) -> (x, w):
    the residual stream around it and its weights pass through the block's hook points."""
    def run(x, w, n_heads, mask, hook, ops, layer, past=None):
        if past is not None:
            raise ValueError("your transformer_block has no KV cache; generate runs the library's block")
        name = f"blocks.{layer}"
        x, weights = fn(hook(f"{name}.hook_resid_pre", x), tr.block_params(w, n_heads), mask)
        if weights is not None:
            hook(f"{name}.attn.hook_pattern", weights)
        return hook(f"{name}.hook_resid_post", x), None
    run.hook_points = ("hook_resid_pre", "attn.hook_pattern", "hook_resid_post")   # the rest is refused by name
    run.read_only = ("attn.hook_pattern",)             # the block has already used its weights: recorded, not edited
    return run


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
    """Pre-LN: x + MHA(LN1(x)), then + FFN(LN2(x)) (`core.hooked.block`, with the learner's layer norm and
    feed-forward where `parts` has them). Returns (x_out (..., T, D), weights (..., H, T, T))."""
    import torch
    t = x.shape[-2]
    if mask is None:
        mask = torch.ones((t, t), dtype=torch.bool)
    elif not isinstance(mask, torch.Tensor):
        mask = torch.as_tensor(np.asarray(mask, dtype=bool))
    if mask.ndim > 2:
        mask = mask.unsqueeze(-3)                                             # (..., 1, T, T): every head
    w = {name: arr for name, arr in zip(tr.BLOCK_NAMES, tr.block_arrays(block))}
    mine = {} if parts is None else parts.mine
    ops = _ops().ops_for(x.device, fused=not need_weights)
    ops = dataclasses.replace(ops, layer_norm=mine.get("layer_norm", ops.layer_norm),
                              feed_forward=mine.get("feed_forward"))
    hook = hooked.HookSet(record={"blocks.0.attn.hook_pattern"})
    out, _ = hooked.block(x, w, block.attn.n_heads, mask, hook, ops, 0)
    return out, hook.cache.get("blocks.0.attn.hook_pattern")


def gpt_forward(params, ids, *, parts=None):
    """Token + position embeddings, L blocks with the causal mask, the final LN, the unembedding: the one
    forward (model_of). ids (T,) or (B, T) -> (logits (..., T, V), weights (..., L, H, T, T))."""
    return model_of(params, parts).forward(ids)


def training_forward(params, ids):
    """gpt_forward for training: the same model, but each attention step is the fused kernel, which never
    holds the (T, T) weights that training does not look at (twice as fast at 256 tokens on a CPU; equal
    logits, tested). Returns (logits, None)."""
    return model_of(params, fused=True)(ids), None


# --- generation with a KV cache: the library's one loop (core.generation), on this model ---------------------
def _step_model(params, parts=None) -> HookedDecoder:
    """The model generation runs: the learner's layer norm and feed-forward where they passed, the library's
    block (the learner's has no KV cache)."""
    mine = {} if parts is None else {k: v for k, v in parts.mine.items() if k != "transformer_block"}
    return model_of(params, _Mine(mine))


def forward_cached(params, new_ids, cache=None, *, parts=None):
    """Run only the new tokens, at positions len(cache) .., attending to the cached keys and values
    (HookedDecoder.step). new_ids (T_new,): one sequence (a batch is refused; generate runs each prompt on its
    own); cache: None or a list of (K, V) per layer, each (H, T_past, Dh).
    Returns (logits (T_new, V), the cache with the new keys and values appended)."""
    model = _step_model(params, parts)
    ids = np.asarray(new_ids.detach().cpu() if hasattr(new_ids, "detach") else new_ids)
    if ids.ndim != 1:
        raise ValueError(f"new_ids: expected one sequence of token ids (T_new,), got shape {ids.shape}; run the "
                         "prompts of a batch one at a time (generate does)")
    past = 0 if not cache else int(cache[0][0].shape[-2])
    if past + ids.size > model.max_len:
        raise ValueError(f"the context is full: {past + ids.size} tokens, but the model reads at most {model.max_len}")
    return model.step(ids, cache or None)


def _torch_rng(params, seed):
    """The draw of the notebook's exercise: torch.Generator().manual_seed(seed), in the weights' dtype."""
    from attention_core.backends.torch_generation import TorchRng
    return TorchRng(positive_int(seed, "seed", minimum=0), dtype=params.tok_emb.dtype)


def generate(params, ids, n_new: int, temperature: float = 0.0, top_k: int | None = None, seed: int = 0,
             *, parts=None) -> list:
    """The prompt ids followed by n_new generated ids (a list; a batch (B, T): one list per prompt), one
    forward of the prompt, then one token at a time through the KV cache (core.generation.generate on
    HookedDecoder.step). temperature 0: greedy; else sampling, reproducible from seed (an integer >= 0:
    torch.Generator().manual_seed(seed), one torch.multinomial per token, as the exercise draws)."""
    import torch
    model = _step_model(params, parts)
    rng = _torch_rng(params, seed)
    with torch.no_grad():
        return generation.generate(model.step, ids, n_new, temperature=temperature, top_k=top_k, rng=rng,
                                   max_len=model.max_len, vocab_size=model.vocab_size)


def generate_uncached(params, ids, n_new: int, temperature: float = 0.0, top_k: int | None = None,
                      seed: int = 0, *, parts=None) -> list:
    """generate, recomputing the whole sequence at every step (what the cache saves): the same loop with a
    step whose `past` is the tokens so far."""
    import torch
    forward = gpt_forward if parts is None else parts.gpt_forward

    def step(new, seen):
        seen = new if seen is None else np.concatenate([seen, new])
        return forward(params, torch.as_tensor(seen))[0], seen

    rng = _torch_rng(params, seed)
    with torch.no_grad():
        return generation.generate(step, ids, n_new, temperature=temperature, top_k=top_k, rng=rng,
                                   max_len=int(params.pos_emb.shape[0]), vocab_size=int(params.tok_emb.shape[0]))


def cache_bytes(cache) -> int:
    """Bytes held by a KV cache (every K and V tensor)."""
    return sum(k.element_size() * k.nelement() + v.element_size() * v.nelement() for k, v in cache)


# --- the learner's pieces where they passed, the library's elsewhere --------------------------------------
class _Mine:
    """A Parts-like holder of some learner's pieces (what model_of reads)."""

    def __init__(self, mine: dict):
        self.mine = mine


class Parts(LearnerPieces):
    """The pieces later steps run on: the learner's where its checker passed, the library's otherwise.
    parts.layer_norm(...) etc.; parts.which() -> {name: "yours" | "library"}; parts.report(). The notebook makes
    one (`parts = pieces.Parts()`) and hands it to each checker (`check_layer_norm(fn, parts=parts)`)."""
    names = NAMES
    heading = "nb13.parts_report"

    def library(self, name: str):
        return globals()[name]

    def stand_in(self, name: str):
        ref = self.library(name)
        if name in ("transformer_block", "gpt_forward", "generate"):
            return functools.partial(ref, parts=self)        # the library's assembly of the learner's parts
        return ref

    def clear(self) -> None:
        self.mine.clear()

