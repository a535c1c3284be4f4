"""One Transformer forward with named hook points: the model notebooks 12 and 13 run, read and edit.

    x = tok_emb[ids] + pos_emb[past .. past + T - 1]                       hook_embed, hook_pos_embed
    each block l:  x = x + attn(LN1(x));  x = x + MLP(LN2(x))                blocks.{l}.*
    logits = LN_f(x) @ w_out + b_out                                        ln_final.hook_normalized, hook_logits

Every activation a researcher reads passes through a hook point (TransformerLens's names). A hook is a
function `fn(value, name)`: it returns None to only read the value (or after editing it in place: each hook
gets its own copy, so the edit reaches the rest of this forward, never the weights, another point or a cache),
or an array of the same shape that replaces it (ablation, patching). `run_with_cache` records activations
(copies); `run_with_hooks` edits them. The same code runs on NumPy arrays and on torch tensors: every formula
below uses only `@`, `+`, indexing and the few functions of an `ops` namespace (`NUMPY_OPS` here,
`backends.torch_ops.TORCH_OPS` for torch), so the torch twin and the learner's model in notebook 13
are this forward, not copies of it.

Hook points and shapes (B batch, optional; T tokens; H heads; Dh = D / H; F = d_ff; V vocabulary;
Tk = past + T keys; heads before positions, where TransformerLens's q, k, v, z, result are (B, T, H, ...)):
    hook_embed, hook_pos_embed                              (B, T, D), (T, D)
    blocks.{l}.hook_resid_pre / hook_resid_mid / hook_resid_post        (B, T, D)
    blocks.{l}.ln1.hook_normalized, blocks.{l}.ln2.hook_normalized     (B, T, D)
    blocks.{l}.attn.hook_q_input / hook_k_input / hook_v_input         (B, T, D)   what W_q, W_k, W_v read
                                                                                  (one path of composition)
    blocks.{l}.attn.hook_q                                  (B, H, T, Dh)
    blocks.{l}.attn.hook_k, blocks.{l}.attn.hook_v          (B, H, Tk, Dh)   with the cached keys
    blocks.{l}.attn.hook_attn_scores                        (B, H, T, Tk)    scaled, hidden keys -inf
    blocks.{l}.attn.hook_pattern                            (B, H, T, Tk)    the attention weights
    blocks.{l}.attn.hook_z                                  (B, H, T, Dh)    each head's weighted values
    blocks.{l}.attn.hook_result                             (B, H, T, D)     each head's write (z_h W_o^h);
                                                                              computed only when hooked
    blocks.{l}.hook_attn_out, blocks.{l}.hook_mlp_out       (B, T, D)
    blocks.{l}.mlp.hook_pre, blocks.{l}.mlp.hook_post       (B, T, F)        before / after GELU
    ln_final.hook_normalized                                (B, T, D)
    hook_logits                                             (B, T, V)
Weights are the flat dict of `transformer.parameter_shapes` (tok_emb, l0_w_q, ..., w_out), y = x @ W + b.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from attention_core.core.softmax import softmax_rows
from attention_core.core.validation import check_replacement, own_copy

LN_EPS = 1e-5                              # torch.nn.LayerNorm's default
BLOCK_HOOKS = ("hook_resid_pre", "ln1.hook_normalized", "attn.hook_q_input", "attn.hook_k_input",
               "attn.hook_v_input", "attn.hook_q", "attn.hook_k", "attn.hook_v",
               "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z", "attn.hook_result", "hook_attn_out",
               "hook_resid_mid", "ln2.hook_normalized", "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out",
               "hook_resid_post")


def hook_names(n_layers: int) -> tuple:
    """Every hook point of a model with n_layers blocks, in the order the forward reaches them."""
    blocks = tuple(f"blocks.{layer}.{name}" for layer in range(n_layers) for name in BLOCK_HOOKS)
    return ("hook_embed", "hook_pos_embed") + blocks + ("ln_final.hook_normalized", "hook_logits")


# --- the formulas (bare maths: the model's entry points check the inputs) --------------------------------
def layer_norm(x, gamma, beta, eps=LN_EPS):
    """LN(x) = (x - mean) / sqrt(var + eps) * gamma + beta over the last axis (biased variance)."""
    mean = x.mean(-1, keepdims=True)                              # (..., 1)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)               # (..., 1)
    return (x - mean) / (var + eps) ** 0.5 * gamma + beta         # (..., D)


def layer_norm_rescaled(x, gamma, beta, eps=LN_EPS):
    """layer_norm in float64 on each row divided by a power of two near its largest magnitude (exact; LN does not
    change when eps is divided by the same factor squared): the variance of 1e200s, or of float32's 3e38s, cannot
    overflow, and an eps below float32's smallest number is not rounded to 0. NumPy's model uses this one."""
    x64 = np.asarray(x, dtype=np.float64)
    _, exponent = np.frexp(np.abs(x64).max(-1, keepdims=True))      # (..., 1): row max < 2**exponent
    shift = np.maximum(exponent - 1, -1021)                          # row / 2**shift lies in [-2, 2]
    with np.errstate(over="ignore"):                                 # eps / 4**shift: huge for a subnormal row
        eps64 = np.maximum(np.ldexp(float(eps), -2 * shift), np.finfo(np.float64).smallest_subnormal)  # never 0
    out = layer_norm(np.ldexp(x64, -shift), gamma, beta, eps64)
    return out.astype(np.result_type(x, gamma, beta), copy=False)


def gelu(x):
    """GELU, tanh form (GPT-2's): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))


@dataclass(frozen=True)
class Ops:
    """What the forward needs beyond operators, for one array library. Fields are plain functions;
    notebook 13 swaps in the learner's layer_norm and feed_forward (`dataclasses.replace`)."""
    layer_norm: object = layer_norm_rescaled
    gelu: object = gelu
    softmax: object = softmax_rows                                # over the last axis; an all -inf row -> 0s
    where: object = np.where
    stack: object = np.stack                                      # stack(list, axis)
    cat: object = np.concatenate                                  # cat(list, axis)
    as_array: object = np.asarray                                 # a NumPy array (ids, masks) -> this library's
    fused_attention: object = None                                # fused(q, k, v, mask, scale) -> z, or None
    feed_forward: object = None                                   # ff(x, w_1, b_1, w_2, b_2): the MLP, unhooked


NUMPY_OPS = Ops()


# --- hooks -----------------------------------------------------------------------------------------------
@dataclass
class HookSet:
    """Which hook points run which functions (fwd hooks), and which values to record (the cache).

    In-place rule: a hook function gets its own copy of the value (an edit in place changes this point's
    value for the rest of the forward, never the weights, another hook point or a cached value), and the
    cache holds its own copy, so centring a cached activation in place changes nothing else. A replacement
    is checked by validation.check_replacement (same library, float, same shape; cast to the dtype)."""
    fns: dict = field(default_factory=dict)                       # name -> [fn, ...]
    record: object = None                                         # None, or a set of names to cache
    cache: dict = field(default_factory=dict)
    fired: set = field(default_factory=set)                       # the hooked or recorded points reached

    def wants(self, name: str) -> bool:
        return name in self.fns or (self.record is not None and name in self.record)

    def __call__(self, name: str, value):
        if not self.wants(name):
            return value
        self.fired.add(name)
        fns = self.fns.get(name, ())
        if fns:
            value = own_copy(value)                               # e.g. hook_pos_embed: not a view of pos_emb
            for fn in fns:
                out = fn(value, name)
                if out is not None:
                    value = check_replacement(out, value, name)
        if self.record is not None and name in self.record:
            self.cache[name] = own_copy(value)
        return value


NO_HOOKS = HookSet()


# --- the forward -----------------------------------------------------------------------------------------
def split_heads(x, n_heads: int):
    """(..., T, D) -> (..., H, T, Dh): head h takes columns h*Dh .. (h+1)*Dh - 1."""
    *lead, t, d = x.shape
    return x.reshape(*lead, t, n_heads, d // n_heads).swapaxes(-2, -3)     # (..., H, T, Dh)


def merge_heads(z):
    """(..., H, T, Dh) -> (..., T, H*Dh): the concatenation of the heads."""
    *lead, h, t, dh = z.shape
    return z.swapaxes(-2, -3).reshape(*lead, t, h * dh)                    # (..., T, D)


def attend(q, k, v, mask, scale: float, hook, ops: Ops, prefix: str = "attn"):
    """softmax(q k^T * scale) v, every head at once: q (..., Tq, Dh), k (..., Tk, Dh), v (..., Tk, Dv);
    mask None or boolean, broadcastable to (..., Tq, Tk), True = may attend. Returns (z (..., Tq, Dv),
    pattern (..., Tq, Tk)). The torch backend's readable path is this function too."""
    scores = (q * scale) @ k.swapaxes(-1, -2)                                     # (..., Tq, Tk)
    if mask is not None:
        scores = ops.where(mask, scores, -math.inf)        # [en] hidden keys: weight 0 [zh] 被屏蔽的 Key 权重为 0
    pattern = hook(f"{prefix}.hook_pattern", ops.softmax(hook(f"{prefix}.hook_attn_scores", scores)))
    return pattern @ v, pattern                                                   # (..., Tq, Dv)


def attention(x_q, x_k, x_v, w: dict, n_heads: int, mask, hook, ops: Ops, past=None, prefix: str = "attn"):
    """Multi-head attention of notebook 06: queries from x_q (..., Tq, D), keys and values from x_k, x_v
    (..., Tk, D) (the same array three times for self-attention; encoder states for cross-attention).
    Returns (output (..., Tq, D), (k, v) for a cache). w: the weights w_q, b_q, ..., w_o, b_o;
    mask None or boolean (Tq, Tk) (or (..., 1, Tq, Tk)), True = may attend;
    past: the cached (k, v) of earlier tokens, each (..., H, T_past, Dh)."""
    x_q, x_k, x_v = (hook(f"{prefix}.hook_{c}_input", x) for c, x in zip("qkv", (x_q, x_k, x_v)))  # (..., T, D)
    q = hook(f"{prefix}.hook_q", split_heads(x_q @ w["w_q"] + w["b_q"], n_heads))   # (..., H, Tq, Dh)
    k = split_heads(x_k @ w["w_k"] + w["b_k"], n_heads)                             # (..., H, Tk, Dh)
    v = split_heads(x_v @ w["w_v"] + w["b_v"], n_heads)
    if past is not None:
        k, v = ops.cat([past[0], k], -2), ops.cat([past[1], v], -2)              # (..., H, Tk, Dh)
    k, v = hook(f"{prefix}.hook_k", k), hook(f"{prefix}.hook_v", v)
    scale = 1 / math.sqrt(q.shape[-1])
    looked_at = any(hook.wants(f"{prefix}.{n}") for n in ("hook_attn_scores", "hook_pattern"))
    if ops.fused_attention is not None and not looked_at:
        z = ops.fused_attention(q, k, v, mask, scale)          # [en] never holds the weights [zh] 从不存下权重
    else:
        z, _ = attend(q, k, v, mask, scale, hook, ops, prefix)                    # (..., H, Tq, Dh)
    z = hook(f"{prefix}.hook_z", z)
    if hook.wants(f"{prefix}.hook_result"):             # [en] each head's write, summed [zh] 每个头写入的量，再求和
        w_o = w["w_o"].reshape(n_heads, z.shape[-1], -1)                          # (H, Dh, D)
        out = hook(f"{prefix}.hook_result", z @ w_o).sum(-3) + w["b_o"]          # (..., Tq, D)
    else:
        out = merge_heads(z) @ w["w_o"] + w["b_o"]                                # (..., Tq, D)
    return out, (k, v)


def block(x, w: dict, n_heads: int, mask, hook, ops: Ops, layer: int, past=None):
    """One pre-LN block: x + attn(LN1(x)), then + MLP(LN2(x)). Returns (x (..., T, D), (k, v))."""
    name = f"blocks.{layer}"
    x = hook(f"{name}.hook_resid_pre", x)
    ln1 = hook(f"{name}.ln1.hook_normalized", ops.layer_norm(x, w["ln1_g"], w["ln1_b"]))
    attn_out, kv = attention(ln1, ln1, ln1, w, n_heads, mask, hook, ops, past, f"{name}.attn")
    x = hook(f"{name}.hook_resid_mid", x + hook(f"{name}.hook_attn_out", attn_out))
    ln2 = hook(f"{name}.ln2.hook_normalized", ops.layer_norm(x, w["ln2_g"], w["ln2_b"]))
    if ops.feed_forward is not None:  # [en] the learner's own feed-forward network [zh] 你自己写的前馈网络
        mlp_out = ops.feed_forward(ln2, w["w_1"], w["b_1"], w["w_2"], w["b_2"])
    else:
        pre = hook(f"{name}.mlp.hook_pre", ln2 @ w["w_1"] + w["b_1"])            # (..., T, F)
        mlp_out = hook(f"{name}.mlp.hook_post", ops.gelu(pre)) @ w["w_2"] + w["b_2"]
    x = x + hook(f"{name}.hook_mlp_out", mlp_out)
    return hook(f"{name}.hook_resid_post", x), kv


def block_weights(weights: dict, layer: int) -> dict:
    """Block `layer`'s weights under their short names (w_q, ln1_g, ...)."""
    prefix = f"l{layer}_"
    return {k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}


def n_layers_of(weights: dict) -> int:
    n = 0
    while f"l{n}_w_q" in weights:
        n += 1
    return n


def forward(weights: dict, n_heads: int, ids, *, masks, hook=NO_HOOKS, ops: Ops = NUMPY_OPS, past=None,
            block_fn=None):
    """The whole model: ids (..., T) integer -> (logits (..., T, V), the new key/value cache).
    masks: one boolean (T, Tk) mask per layer, True = may attend (the caller's causal mask and extras);
    past: None, or the cache of earlier tokens (a list of (k, v) per layer), the new tokens then sit at
    positions past .. past + T - 1; block_fn: replaces `block` (notebook 13's learner's block)."""
    start = 0 if not past else past[0][0].shape[-2]
    t = ids.shape[-1]
    x = hook("hook_embed", weights["tok_emb"][ids]) + hook("hook_pos_embed", weights["pos_emb"][start:start + t])
    cache = []
    for layer in range(n_layers_of(weights)):
        run = block if block_fn is None else block_fn
        x, kv = run(x, block_weights(weights, layer), n_heads, masks[layer], hook, ops, layer,
                    None if not past else past[layer])
        cache.append(kv)
    x = hook("ln_final.hook_normalized", ops.layer_norm(x, weights["lnf_g"], weights["lnf_b"]))
    return hook("hook_logits", x @ weights["w_out"] + weights["b_out"]), cache
