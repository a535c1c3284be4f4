"""The torch backend: only what differs from the NumPy library, on the CPU or CUDA.

Imported only through `backends.load_torch_ops()`, that is when a tensor comes in or torch is asked
for, never by `import attention_core`. The semantics are the library's: boolean masks with
True = may attend, a fully masked query row gets all-zero weights and an all-zero output (never
NaN), float16 computed in float32 (except in CUDA's fused kernels, which accumulate in float32
themselves), overflowing scores raise FloatingPointError, and the validation is the library's own
(`core.validation` reads `.shape` and `.dtype`, so the same checks run on tensors). Everything is
out of place, so autograd can follow. Tested equal to `reference_attention` to 1e-10 in float64,
1e-5 in float32.

What lives here: devices and conversion; torch's one softmax (`masked_softmax`); the fused kernel
(`F.scaled_dot_product_attention`) beside its readable twin; GELU; RoPE's rotation; the namespace
(`ops_for`) with which the library's formulas run on tensors; the translation to and from
`nn.MultiheadAttention`. The formulas themselves are the library's, called on tensors: attention and
multi-head attention are `core.hooked.attend` / `core.hooked.attention` (`attend_heads` also takes
tensors as weights, for notebook 13's trainable pieces), layer norm is `core.hooked.layer_norm`, and
split_heads, merge_heads and combine_masks are the library's functions.
"""
from __future__ import annotations

import functools

import numpy as np
import torch
import torch.nn.functional as F

from attention_core.backends import BACKENDS, is_tensor
from attention_core.core import hooked
from attention_core.core import masks as core_masks
from attention_core.core import multihead as core_multihead
from attention_core.core import validation as V
from attention_core.core.positional import rope_frequencies

# ---- devices ---------------------------------------------------------------------------------


def available_devices() -> list[str]:
    """The devices this backend can compute on, e.g. ['cpu', 'cuda:0 (NVIDIA H200)']."""
    names = ["cpu"]
    if torch.cuda.is_available():
        names += [f"cuda:{i} ({torch.cuda.get_device_name(i)})" for i in range(torch.cuda.device_count())]
    return names


def check_device(device) -> torch.device:
    """A torch.device for 'cpu', 'cuda' or 'cuda:i', or an error that names the devices there are."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:<index>', got {device!r}; "
                         f"available devices: {', '.join(available_devices())}") from None
    if dev.type == "cuda":
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if n == 0:
            raise ValueError(f"device: {device!r} was asked for, but there is no CUDA device here "
                             f"(torch {torch.__version__}, torch.cuda.is_available() is False); "
                             f"available devices: {', '.join(available_devices())}. "
                             "Use device='cpu', or backend='auto' to take CUDA only when present.")
        if dev.index is not None and dev.index >= n:
            raise ValueError(f"device: {device!r} does not exist; available devices: "
                             f"{', '.join(available_devices())}")
    elif dev.type != "cpu":
        raise ValueError(f"device: expected 'cpu' or 'cuda', got {device!r}; "
                         f"available devices: {', '.join(available_devices())}")
    return dev


def resolve_device(backend, device, like=None) -> torch.device:
    """Where the torch path computes: `device` when given; else a tensor input's own device
    (tensors are never moved unasked); else CUDA for backend="auto" when present; else the CPU."""
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of None, 'numpy', 'torch', 'auto', got {backend!r}")
    if device is not None:
        return check_device(device)
    if is_tensor(like):
        return like.device
    if backend == "auto" and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


# ---- conversion --------------------------------------------------------------------------------


def _from_numpy(arr: np.ndarray, device) -> torch.Tensor:
    if not arr.flags.writeable or any(s < 0 for s in arr.strides):
        arr = arr.copy()                                   # torch wants writable, positive strides
    return torch.from_numpy(arr).to(device)


def from_numpy_like(arr: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    """A NumPy result as a tensor on like's device; a float result takes like's float dtype."""
    out = _from_numpy(np.asarray(arr), like.device)
    if out.is_floating_point() and like.is_floating_point():
        out = out.to(like.dtype)
    return out


def to_numpy(x):
    """A tensor as a NumPy array (detached, on the CPU); anything else unchanged."""
    return x.detach().cpu().numpy() if is_tensor(x) else x


def to_numpy_outputs(out):
    """NumPy in, torch computed: give NumPy back (a tuple stays a tuple)."""
    if isinstance(out, tuple):
        return tuple(to_numpy(o) for o in out)
    return to_numpy(out)


def numpy_on_tensors(numpy_fn, bound, arrays, like, device):
    """backend="numpy" with tensors: the NumPy library computes, tensors come back on like's device."""
    if device is not None and check_device(device).type != "cpu":
        raise ValueError(f"device: the NumPy backend computes on the CPU only, got device={device!r}; "
                         "use backend='torch' to compute on a GPU")
    for name in arrays:
        value = bound.arguments.get(name)
        bound.arguments[name] = tuple(map(to_numpy, value)) if name == "masks" else to_numpy(value)
    out = numpy_fn(*bound.args, **bound.kwargs)
    if isinstance(out, tuple):
        return tuple(None if o is None else from_numpy_like(o, like) for o in out)
    return from_numpy_like(out, like)


def torch_dtype(dtype) -> torch.dtype:
    """torch.float32 for np.float32 or 'float32' (or for torch.float32 itself); floats only."""
    if isinstance(dtype, torch.dtype):
        if not dtype.is_floating_point or dtype == torch.bfloat16:
            raise TypeError(f"dtype: expected a float dtype (float16, float32 or float64), got {dtype}")
        return dtype
    return torch.from_numpy(np.empty(0, dtype=V.float_dtype(dtype))).dtype


def as_float_tensor(x, name: str, device, *, min_ndim: int = 1, ndim: int | None = None) -> torch.Tensor:
    """The library's float-array rules on a tensor on `device` (NumPy input is converted, integer
    tensors become float64, as in NumPy)."""
    if not is_tensor(x):
        return _from_numpy(V.as_float_array(x, name, min_ndim=min_ndim, ndim=ndim), device)
    if not (x.is_floating_point() or x.is_complex() or x.dtype == torch.bool):
        x = x.to(torch.float64)
    return V.check_float_array(x, name, min_ndim=min_ndim, ndim=ndim).to(device)


def as_bool_tensor(mask, name: str, device) -> torch.Tensor:
    """The library's mask rules (booleans only, True = may attend), as a tensor on `device`."""
    if not is_tensor(mask):
        return _from_numpy(V.as_bool_mask(mask, name), device)
    return V.check_bool_mask(mask, name).to(device)


def _compute(x: torch.Tensor) -> torch.Tensor:
    """float16 is computed in float32 (its sums overflow past ~65k terms)."""
    return x.float() if x.dtype == torch.float16 else x


# ---- softmax -----------------------------------------------------------------------------------


def masked_softmax(scores: torch.Tensor, dim: int = -1, temperature: float = 1.0, mask=None) -> torch.Tensor:
    """torch's one softmax, the steps of NumPy's (`core.softmax.softmax_rows`), out of place: shift by the row
    max, exp, normalise. Masked entries (and scores of -inf) get weight exactly 0; a row with nothing visible
    is all zeros, not NaN. The model's namespace (`ops_for`) uses it over the last axis."""
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    row_max = scores.amax(dim=dim, keepdim=True)
    row_max = torch.where(torch.isneginf(row_max), torch.zeros_like(row_max), row_max)   # all hidden: shift by 0
    shifted = scores - row_max                                     # every exponent is now <= 0
    if temperature != 1.0:
        shifted = (shifted.double() / temperature).to(shifted.dtype)   # T in float64: never rounds to 0
    e = torch.exp(shifted)
    total = e.sum(dim=dim, keepdim=True)
    return e / torch.where(total == 0, torch.ones_like(total), total)   # an all-hidden row: 0 / 1


def softmax(x, axis: int = -1, temperature: float = 1.0, mask=None, *, device):
    """core.softmax.softmax on a tensor (see there)."""
    x = as_float_tensor(x, "x", device)
    axis = V.check_axis(axis, x.ndim)
    t = V.positive_float(temperature, "temperature")
    if x.numel() == 0:
        raise ValueError(f"x: expected at least one score, got an empty array of shape {tuple(x.shape)}")
    if mask is not None:
        mask = as_bool_tensor(mask, "mask", device)
        V.check_broadcast(tuple(mask.shape), tuple(x.shape), "mask", "x of shape")
    return masked_softmax(_compute(x), axis, t, mask).to(x.dtype)


# ---- scaled dot-product attention --------------------------------------------------------------


def attention_inputs(q, k, v, mask, scale, device):
    """q, k, v, mask as tensors on `device` under the library's rules, plus the resolved scale."""
    q = as_float_tensor(q, "q", device, min_ndim=2)
    k = as_float_tensor(k, "k", device, min_ndim=2)
    v = as_float_tensor(v, "v", device, min_ndim=2)
    if mask is not None:
        mask = as_bool_tensor(mask, "mask", device)
    return q, k, v, mask, V.check_attention_inputs(q, k, v, mask, scale)


def explicit_attention(q, k, v, mask, scale: float):
    """The readable path: the model's formula (`core.hooked.attend`) with torch's softmax; it materialises
    the weights. Scores beyond the dtype make a weight NaN: a clear error instead."""
    dtype = q.dtype
    q, k, v = _compute(q), _compute(k), _compute(v)
    out, weights = hooked.attend(q, k, v, mask, scale, hooked.NO_HOOKS, ops_for(q.device))   # (..., Tq, Dv)
    V.check_finite_scores(weights.amax(dim=-1), V.dtype_name(q))   # overflow: a clear error, not NaN
    return out.to(dtype), weights.to(dtype)                        # (..., Tq, Dv), (..., Tq, Tk)


def fused_attention(q, k, v, mask, scale: float) -> torch.Tensor:
    """The fast path: torch.nn.functional.scaled_dot_product_attention (FlashAttention or the
    memory-efficient kernel on CUDA, a tiled kernel on the CPU).

    It cannot hand back the weights because it never holds them: it streams tiles of K and V
    past each tile of queries and keeps an online softmax (a running row max and row sum, with
    the partial output rescaled whenever the max grows), so only O(Tq * Dv) is ever stored, not
    the (Tq, Tk) matrix. That is what makes it fast and lets T grow; ask need_weights=True for
    the explicit path when you want to look at the weights.
    """
    dtype = q.dtype
    if q.device.type == "cpu":
        q, k, v = _compute(q), _compute(k), _compute(v)
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    q = q.expand(*batch, *q.shape[-2:])                            # (..., Tq, Dk): kernels want equal batch dims
    k = k.expand(*batch, *k.shape[-2:])                            # (..., Tk, Dk)
    v = v.expand(*batch, *v.shape[-2:])                            # (..., Tk, Dv)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)   # (..., Tq, Dv)
    if mask is not None:
        # Kernels differ on a query that may see no key (NaN, or a mean of V); ours gives zeros.
        dead = ~mask.any(dim=-1, keepdim=True)                     # (..., Tq, 1)
        out = out.masked_fill(dead, 0.0)
    V.check_finite_result(out, "the attention output", V.dtype_name(q))
    return out.to(dtype)


def scaled_dot_product_attention(q, k, v, mask=None, scale=None, *, need_weights: bool = True, device):
    """core.attention.scaled_dot_product_attention in torch: the explicit path when the weights are
    wanted, the fused kernel (see fused_attention) when need_weights=False. Returns (output, weights)."""
    need_weights = V.check_flag(need_weights, "need_weights")
    q, k, v, mask, scale = attention_inputs(q, k, v, mask, scale, device)
    if need_weights:
        return explicit_attention(q, k, v, mask, scale)
    return fused_attention(q, k, v, mask, scale), None


def tiled_attention(q, k, v, mask=None, scale=None, block_size: int = 128, *, device):
    """core.tiled.tiled_attention on tensors: torch's fused kernel is the same online softmax,
    tile by tile, in C++ or CUDA (block_size is checked, the kernel chooses its own tiles)."""
    V.positive_int(block_size, "block_size")
    q, k, v, mask, scale = attention_inputs(q, k, v, mask, scale, device)
    return fused_attention(q, k, v, mask, scale)


def attention_scores(q, k, scale=None, *, device):
    """core.attention.attention_scores in torch: Q K^T * scale (..., Tq, Tk)."""
    k_t = as_float_tensor(k, "k", device, min_ndim=2)
    q, k, _, _, scale = attention_inputs(q, k_t, k_t[..., :1], None, scale, device)
    scores = torch.matmul(_compute(q), _compute(k).transpose(-1, -2)) * scale   # (..., Tq, Tk)
    V.check_finite_scores(scores.amax(dim=-1), V.dtype_name(q))
    return scores.to(q.dtype)


# ---- multi-head attention ------------------------------------------------------------------------


def split_heads(x, n_heads: int, *, device) -> torch.Tensor:
    """core.multihead.split_heads itself, on a tensor."""
    return core_multihead.split_heads(as_float_tensor(x, "x", device, min_ndim=2), n_heads)


def merge_heads(x, *, device) -> torch.Tensor:
    """core.multihead.merge_heads itself, on a tensor."""
    return core_multihead.merge_heads(as_float_tensor(x, "x", device, min_ndim=3))


def _common_dtype(inputs, weights: dict, device, keep_half: bool) -> tuple:
    """The inputs and w_q, b_q, ... as tensors on `device` in the one dtype NumPy's promotion gives (float32
    inputs, float64 weights -> float64; float16 -> float32, as _compute, unless keep_half: CUDA's fused kernels
    accumulate in float32 themselves). NumPy weights are copied there; tensors are used as they are (autograd
    reaches them)."""
    w = {n: a if is_tensor(a) else _from_numpy(np.asarray(a), device) for n, a in weights.items()}
    dtype = functools.reduce(torch.promote_types, [t.dtype for t in (*inputs, *w.values())])
    dtype = torch.float32 if dtype == torch.float16 and not keep_half else dtype
    return tuple(x.to(dtype) for x in inputs), {n: t.to(dtype) for n, t in w.items()}


MHA_NAMES = core_multihead.MHA_NAMES


def attend_heads(query, key, value, weights, n_heads: int, mask=None, head_mask=None, *, need_weights: bool = True):
    """core.multihead.multi_head_attention on checked tensors: `core.hooked.attention` with torch's namespace.
    `weights` maps w_q, b_q, ... w_o, b_o to arrays or tensors (a trainable model passes its nn.Parameters).
    mask: boolean (..., Tq, Tk) tensor, True = may attend. need_weights=False: the fused kernel
    (fused_attention), which never holds the weights: what training wants, twice as fast at 256 tokens on a
    CPU. Returns (output (..., Tq, D), weights (..., H, Tq, Tk) or None)."""
    need_weights = V.check_flag(need_weights, "need_weights")
    keep_half = query.device.type == "cuda" and not need_weights
    (query, key, value), w = _common_dtype((query, key, value), weights, query.device, keep_half)
    if mask is not None:
        mask = mask.unsqueeze(-3)                                  # (..., 1, Tq, Tk): same for every head
    hooks = hooked.HookSet(record={"attn.hook_pattern"} if need_weights else None)
    if head_mask is not None:
        hm = as_float_tensor(head_mask, "head_mask", query.device, ndim=1)
        core_multihead.check_head_mask(hm, n_heads)
        hooks.fns["attn.hook_z"] = [lambda z, name: z * hm[:, None, None].to(z.dtype)]   # 0 ablates a head
    ops = ops_for(query.device, fused=not need_weights)
    output, _ = hooked.attention(query, key, value, w, n_heads, mask, hooks, ops)          # (..., Tq, D)
    attn = hooks.cache.get("attn.hook_pattern")                                            # (..., H, Tq, Tk)
    if attn is not None:
        V.check_finite_scores(attn.amax(dim=-1), V.dtype_name(attn))   # overflow: a clear error, not NaN
    V.check_finite_result(output, "multi_head_attention: the output", V.dtype_name(output))
    return output, attn


def multi_head_attention(query, key, value, params, mask=None, head_mask=None, *, device):
    """core.multihead.multi_head_attention in torch (the NumPy MultiHeadParams are copied to the
    device). Returns (output (..., Tq, D), weights (..., H, Tq, Tk))."""
    tensors = [as_float_tensor(x, name, device, min_ndim=2)
               for name, x in (("query", query), ("key", key), ("value", value))]
    mask = None if mask is None else as_bool_tensor(mask, "mask", device)
    core_multihead.check_mha_inputs(*tensors, params, mask)
    dtype = torch.promote_types(tensors[0].dtype, tensors[1].dtype)
    output, attn = attend_heads(*tensors, params.weights, params.n_heads, mask, head_mask)
    if dtype == torch.float16:                                     # computed in float32, returned as given
        output, attn = output.to(dtype), attn.to(dtype)
    return output, attn


# ---- layer norm and GELU (the Transformer block's other two steps) ------------------------------


layer_norm = hooked.layer_norm          # the library's formula runs on tensors as it is (the same numbers, tested)


def gelu(x: torch.Tensor) -> torch.Tensor:
    """core.transformer.gelu: the tanh form (GPT-2's), torch's own kernel for it."""
    return F.gelu(x, approximate="tanh")


def ops_for(device=None, *, fused: bool = False) -> hooked.Ops:
    """The namespace `core.hooked.forward` runs torch with: masks and ids made tensors on `device`; fused=True
    computes attention with the fused kernel wherever no hook reads the scores or the pattern (training)."""
    dev = check_device("cpu" if device is None else device)
    return hooked.Ops(layer_norm=layer_norm, gelu=gelu, softmax=masked_softmax, where=torch.where, stack=torch.stack,
                      cat=torch.cat, as_array=lambda a: torch.as_tensor(a, device=dev),
                      fused_attention=fused_attention if fused else None)


# ---- masks and positions ---------------------------------------------------------------------------


def combine_masks(*masks, device) -> torch.Tensor:
    """core.masks.combine_masks itself, with every mask a boolean tensor on one device."""
    return core_masks.combine_masks(*(None if m is None else as_bool_tensor(m, f"masks[{i}]", device)
                                      for i, m in enumerate(masks)))


def additive_mask(mask, dtype=np.float64, *, device) -> torch.Tensor:
    """core.masks.additive_mask on a tensor: 0 where visible, -inf where not (dtype: NumPy or torch)."""
    mask = as_bool_tensor(mask, "mask", device)
    zeros = torch.zeros(mask.shape, dtype=torch_dtype(dtype), device=device)
    return zeros.masked_fill(~mask, float("-inf"))


def apply_rope(x, positions=None, base: float = 10000.0, *, device) -> torch.Tensor:
    """core.positional.apply_rope on a tensor: the angles in float64 (as in NumPy), then x's dtype."""
    x = as_float_tensor(x, "x", device, min_ndim=2)
    t, d = x.shape[-2:]
    theta = _from_numpy(rope_frequencies(d, base), device)        # (Dh/2,) float64
    positions = torch.arange(t, device=device) if positions is None else positions
    positions = as_float_tensor(positions, "positions", device, ndim=1).to(torch.float64)
    if tuple(positions.shape) != (t,):
        raise ValueError(f"positions: expected shape ({t},) (one per row of x), got {V.describe(positions)}")
    angle = positions[:, None] * theta[None, :]                    # (T, Dh/2)
    cos, sin = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]                         # (..., T, Dh/2) each
    out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)   # (..., T, Dh/2, 2)
    V.check_finite_result(out, "apply_rope: the rotated pairs", V.dtype_name(x))
    return out.flatten(-2)                                         # (..., T, Dh): pairs interleaved


# ---- nn.MultiheadAttention ----------------------------------------------------------------------------


def to_torch_mha(params, dtype=None, device=None):
    """A `torch.nn.MultiheadAttention` (batch_first=True) holding exactly these weights.

    Remember torch's mask convention there: a boolean attn_mask marks positions NOT allowed,
    the opposite of this package and of F.scaled_dot_product_attention; pass `~mask`.
    """
    if not isinstance(params, core_multihead.MultiHeadParams):
        raise TypeError(f"params: expected MultiHeadParams (see init_multihead), got {V.describe(params)}")
    dtype = torch_dtype(dtype) if dtype is not None else (
        torch.float64 if params.w_q.dtype == np.float64 else torch.float32)
    dev = check_device("cpu" if device is None else device)
    mha = torch.nn.MultiheadAttention(params.d_model, params.n_heads, bias=True, batch_first=True,
                                      dtype=dtype, device=dev)
    with torch.no_grad():
        w_in = np.concatenate([params.w_q.T, params.w_k.T, params.w_v.T], axis=0)   # (3D, D)
        b_in = np.concatenate([params.b_q, params.b_k, params.b_v])
        mha.in_proj_weight.copy_(torch.as_tensor(w_in, dtype=dtype))
        mha.in_proj_bias.copy_(torch.as_tensor(b_in, dtype=dtype))
        mha.out_proj.weight.copy_(torch.as_tensor(params.w_o.T, dtype=dtype))
        mha.out_proj.bias.copy_(torch.as_tensor(params.b_o, dtype=dtype))
    return mha


def from_torch_mha(module):
    """Read the weights of a `torch.nn.MultiheadAttention` (packed in_proj, with or without biases).
    Options this package has no equivalent for (add_bias_kv, add_zero_attn, kdim/vdim other than
    embed_dim) are refused rather than silently dropped."""
    if not isinstance(module, torch.nn.MultiheadAttention):
        raise TypeError(f"module: expected torch.nn.MultiheadAttention, got {V.describe(module)}")
    if module.bias_k is not None or module.bias_v is not None:
        raise ValueError("module: add_bias_kv=True appends learned key/value rows that multi_head_attention "
                         "has no place for; build the module with add_bias_kv=False")
    if module.add_zero_attn:
        raise ValueError("module: add_zero_attn=True appends a zero key/value that multi_head_attention "
                         "does not have; build the module with add_zero_attn=False")
    if getattr(module, "in_proj_weight", None) is None:
        raise ValueError(f"module: kdim={module.kdim} and vdim={module.vdim} differ from embed_dim="
                         f"{module.embed_dim}; MultiHeadParams needs square (D, D) projections")
    d = module.embed_dim
    w_in = module.in_proj_weight.detach().cpu().numpy()
    b_in = (module.in_proj_bias.detach().cpu().numpy() if module.in_proj_bias is not None
            else np.zeros(3 * d, dtype=w_in.dtype))
    w_o = module.out_proj.weight.detach().cpu().numpy()
    b_o = (module.out_proj.bias.detach().cpu().numpy() if module.out_proj.bias is not None
           else np.zeros(d, dtype=w_in.dtype))
    return core_multihead.MultiHeadParams(
        w_in[:d].T.copy(), w_in[d:2 * d].T.copy(), w_in[2 * d:].T.copy(), w_o.T.copy(),
        b_in[:d].copy(), b_in[d:2 * d].copy(), b_in[2 * d:].copy(), b_o.copy(), n_heads=module.num_heads)



class TorchCallCounter(torch.overrides.TorchFunctionMode):
    """`with TorchCallCounter() as calls: ...` counts the torch functions called inside (calls.count), in this
    thread: a checker that measures memory with tracemalloc, which does not see torch's allocations, learns
    whether a function it judges computed with torch."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))
