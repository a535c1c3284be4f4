"""The torch backend: attention_core's compute functions on torch tensors, on the CPU or CUDA.

Imported only through `backends.torch_ops`, that is when a tensor comes in or torch is asked for,
never by `import attention_core`. The semantics are the NumPy reference's: boolean masks with
True = may attend, a fully masked query row gets all-zero weights and an all-zero output (never
NaN), and the same validation messages (ValueError/TypeError naming the argument). Everything is
out of place, so autograd can follow. Tested equal to NumPy to 1e-10 in float64, 1e-5 in float32.

Results keep the type that came in: a tensor in -> a tensor on the device where it was computed;
NumPy (or a list) in with backend="torch" -> computed in torch, returned as NumPy.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from attention_core.core import validation as V
from attention_core.backends import BACKENDS, is_torch

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
    if is_torch(like):
        return like.device
    if backend == "auto" and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


# ---- conversion and validation (the messages mirror validation.py) ------------------------------


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
    return x.detach().cpu().numpy() if is_torch(x) else x


def _back(x, numpy_out: bool):
    return x.detach().cpu().numpy() if (numpy_out and x is not None) else x


def torch_dtype(dtype) -> torch.dtype:
    """torch.float32 for np.float32 (or for torch.float32 itself)."""
    if isinstance(dtype, torch.dtype):
        return dtype
    return torch.from_numpy(np.empty(0, dtype=np.dtype(dtype))).dtype


def as_float_tensor(x, name: str, device, *, min_ndim: int = 1, ndim: int | None = None) -> torch.Tensor:
    """validation.as_float_array for torch: the same checks and messages, a float tensor on `device`.

    Non-tensors go through the NumPy checker itself; integer tensors become float64, as in NumPy.
    """
    if not is_torch(x):
        return _from_numpy(V.as_float_array(x, name, min_ndim=min_ndim, ndim=ndim), device)
    shape = tuple(x.shape)
    if x.dtype == torch.bool:
        raise TypeError(f"{name}: expected a float array, got a boolean array of shape {shape}")
    if x.is_complex():
        raise TypeError(f"{name}: expected a float array (float16/32/64), got dtype {x.dtype}")
    if not x.is_floating_point():
        x = x.to(torch.float64)
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name}: expected {ndim} dimensions, got shape {shape} ({x.ndim} dimensions)")
    if x.ndim < min_ndim:
        raise ValueError(f"{name}: expected at least {min_ndim} dimension(s), got shape {shape}")
    if x.numel() and not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name}: contains NaN or infinity; expected finite numbers "
                         "(use `mask=` to hide positions instead of -inf)")
    return x.to(device)


def as_bool_tensor(mask, name: str, device) -> torch.Tensor:
    """validation.as_bool_mask for torch: only booleans (True = may attend), as a tensor on `device`."""
    if not is_torch(mask):
        return _from_numpy(V.as_bool_mask(mask, name), device)
    if mask.dtype != torch.bool:
        raise TypeError(f"{name}: expected a boolean array (True = may attend), got dtype {mask.dtype}; "
                        "convert with `mask.bool()` if 1 means 'may attend'")
    return mask.to(device)


# ---- softmax -----------------------------------------------------------------------------------


def masked_softmax(scores: torch.Tensor, dim: int, temperature: float = 1.0, mask=None) -> torch.Tensor:
    """The steps of the NumPy softmax, out of place: shift by the row max, exp, normalise.
    Masked entries become -inf (weight exactly 0); a fully masked row stays all zeros, not NaN."""
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    row_max = scores.amax(dim=dim, keepdim=True)
    if mask is not None:
        row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    shifted = scores - row_max                                     # every exponent is now <= 0
    if temperature != 1.0:
        shifted = shifted / temperature
    e = torch.exp(shifted)
    total = e.sum(dim=dim, keepdim=True)
    if mask is not None:
        total = torch.where(total == 0, torch.ones_like(total), total)   # fully masked row: 0 / 1
    return e / total


def softmax(x, axis: int = -1, temperature: float = 1.0, mask=None):
    """softmax.softmax on a tensor (see there); computed on x's device."""
    numpy_out = not is_torch(x)
    x = as_float_tensor(x, "x", x.device if is_torch(x) else "cpu")
    axis = V.check_axis(axis, x.ndim)
    t = V.positive_float(temperature, "temperature")
    if mask is not None:
        mask = as_bool_tensor(mask, "mask", x.device)
        V.check_broadcast(tuple(mask.shape), tuple(x.shape), "mask", "x of shape")
    return _back(masked_softmax(x, axis, t, mask), numpy_out)


# ---- scaled dot-product attention --------------------------------------------------------------


def check_attention_inputs(q, k, v, mask, scale, device):
    """attention.check_attention_inputs for torch: tensors on `device` plus the resolved scale."""
    q = as_float_tensor(q, "q", device, min_ndim=2)
    k = as_float_tensor(k, "k", device, min_ndim=2)
    v = as_float_tensor(v, "v", device, min_ndim=2)
    qs, ks, vs = tuple(q.shape), tuple(k.shape), tuple(v.shape)
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v: expected one float dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if qs[-1] != ks[-1]:
        raise ValueError(f"q and k: expected the same width Dk, got q of shape {qs} (Dk={qs[-1]}) "
                         f"and k of shape {ks} (Dk={ks[-1]})")
    if ks[-2] != vs[-2]:
        raise ValueError(f"k and v: expected the same length Tk, got k of shape {ks} (Tk={ks[-2]}) "
                         f"and v of shape {vs} (Tk={vs[-2]})")
    if qs[-2] == 0 or ks[-2] == 0 or qs[-1] == 0:
        raise ValueError(f"q, k: expected at least one query, one key and Dk >= 1, got q {qs}, k {ks}")
    try:
        batch = np.broadcast_shapes(qs[:-2], ks[:-2], vs[:-2])
    except ValueError:
        raise ValueError(f"q, k, v: batch dimensions {qs[:-2]}, {ks[:-2]}, {vs[:-2]} "
                         "do not broadcast together") from None
    if mask is not None:
        mask = as_bool_tensor(mask, "mask", device)
        V.check_broadcast(tuple(mask.shape), batch + (qs[-2], ks[-2]), "mask", "the scores (..., Tq, Tk) of shape")
    if scale is None:
        scale = 1.0 / math.sqrt(qs[-1])
    elif isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale: expected a finite number > 0 (default 1/sqrt(Dk)), got {V.describe(scale)}")
    return q, k, v, mask, float(scale)


def explicit_attention(q, k, v, mask, scale: float):
    """The readable path, step for step the NumPy reference: it materialises the weights."""
    scores = torch.matmul(q * scale, k.transpose(-1, -2))         # (..., Tq, Tk)
    weights = masked_softmax(scores, -1, 1.0, mask)                # (..., Tq, Tk)
    return torch.matmul(weights, v), weights                       # (..., Tq, Dv), (..., Tq, Tk)


def fused_attention(q, k, v, mask, scale: float) -> torch.Tensor:
    """The fast path: torch.nn.functional.scaled_dot_product_attention (FlashAttention or the
    memory-efficient kernel on CUDA, a tiled kernel on the CPU).

    It cannot hand back the weights because it never holds them: it streams tiles of K and V
    past each tile of queries and keeps an online softmax (a running row max and row sum, with
    the partial output rescaled whenever the max grows), so only O(Tq * Dv) is ever stored, not
    the (Tq, Tk) matrix. That is what makes it fast and lets T grow; ask need_weights=True for
    the explicit path when you want to look at the weights.
    """
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    q = q.expand(*batch, *q.shape[-2:])                            # (..., Tq, Dk): kernels want equal batch dims
    k = k.expand(*batch, *k.shape[-2:])                            # (..., Tk, Dk)
    v = v.expand(*batch, *v.shape[-2:])                            # (..., Tk, Dv)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)   # (..., Tq, Dv)
    if mask is not None:
        # Kernels differ on a query that may see no key (NaN, or a mean of V); ours gives zeros.
        dead = ~mask.any(dim=-1, keepdim=True)                     # (..., Tq, 1)
        out = out.masked_fill(dead, 0.0)
    return out


def scaled_dot_product_attention(q, k, v, mask=None, scale=None, *, need_weights: bool = True,
                                 backend: str | None = None, device=None):
    """attention.scaled_dot_product_attention in torch: the explicit path when the weights are
    wanted, the fused kernel (see fused_attention) when need_weights=False. Returns (output, weights)."""
    if backend == "numpy":
        from attention_core.core.attention import scaled_dot_product_attention as numpy_sdpa
        return _via_numpy(numpy_sdpa, (q, k, v), dict(mask=mask, scale=scale, need_weights=need_weights),
                          q, device)
    numpy_out = not is_torch(q)
    dev = resolve_device(backend, device, q)
    q, k, v, mask, scale = check_attention_inputs(q, k, v, mask, scale, dev)
    if need_weights:
        output, weights = explicit_attention(q, k, v, mask, scale)
    else:
        output, weights = fused_attention(q, k, v, mask, scale), None
    return _back(output, numpy_out), _back(weights, numpy_out)


def attention_scores(q, k, scale=None):
    """attention.attention_scores in torch: Q K^T * scale (..., Tq, Tk), on q's device."""
    dev = q.device if is_torch(q) else torch.device("cpu")
    k_t = as_float_tensor(k, "k", dev, min_ndim=2)
    q, k, _, _, scale = check_attention_inputs(q, k_t, k_t[..., :1], None, scale, dev)
    return torch.matmul(q, k.transpose(-1, -2)) * scale            # (..., Tq, Tk)


def _via_numpy(fn, arrays, kwargs, like, device):
    """backend="numpy" with tensors: compute with the NumPy reference, give tensors back."""
    if device is not None and check_device(device).type != "cpu":
        raise ValueError(f"device: the NumPy backend computes on the CPU only, got device={device!r}; "
                         "use backend='torch' to compute on a GPU")
    kwargs = {key: to_numpy(val) for key, val in kwargs.items()}
    out = fn(*(to_numpy(a) for a in arrays), **kwargs, backend="numpy")
    if not is_torch(like):
        return out
    return tuple(None if o is None else from_numpy_like(o, like) for o in out)


# ---- multi-head attention ------------------------------------------------------------------------


def split_heads(x, n_heads: int) -> torch.Tensor:
    """(..., T, D) -> (..., H, T, D/H), as multihead.split_heads."""
    x = as_float_tensor(x, "x", x.device, min_ndim=2)
    n_heads = V.positive_int(n_heads, "n_heads")
    *lead, t, d = x.shape
    if d % n_heads:
        raise ValueError(f"x: width D={d} is not divisible by n_heads={n_heads}")
    x = x.reshape(*lead, t, n_heads, d // n_heads)                 # (..., T, H, Dh)
    return x.transpose(-2, -3)                                     # (..., H, T, Dh)


def merge_heads(x) -> torch.Tensor:
    """(..., H, T, Dh) -> (..., T, H*Dh), as multihead.merge_heads."""
    x = as_float_tensor(x, "x", x.device, min_ndim=3)
    *lead, h, t, dh = x.shape
    return x.transpose(-2, -3).reshape(*lead, t, h * dh)           # (..., T, D)


def _project(x: torch.Tensor, w: np.ndarray, b: np.ndarray) -> torch.Tensor:
    """x @ w + b with NumPy's type promotion (float32 x, float64 weights -> float64)."""
    dtype = torch.promote_types(x.dtype, torch_dtype(w.dtype))
    w_t = _from_numpy(w, x.device).to(dtype)                       # (D_in, D_out)
    b_t = _from_numpy(b, x.device).to(dtype)                       # (D_out,)
    return x.to(dtype) @ w_t + b_t                                 # (..., T, D_out)


def multi_head_attention(query, key, value, params, mask=None, head_mask=None, *,
                         backend: str | None = None, device=None):
    """multihead.multi_head_attention in torch (the NumPy MultiHeadParams are copied to the device).
    Returns (output (..., Tq, D), weights (..., H, Tq, Tk))."""
    from attention_core.core.multihead import MultiHeadParams, multi_head_attention as numpy_mha
    if backend == "numpy":
        return _via_numpy(numpy_mha, (query, key, value, params),
                          dict(mask=mask, head_mask=head_mask), query, device)
    if not isinstance(params, MultiHeadParams):
        raise TypeError(f"params: expected MultiHeadParams (see init_multihead), got {type(params).__name__}")
    numpy_out = not is_torch(query)
    dev = resolve_device(backend, device, query)
    d = params.d_model
    tensors = []
    for name, x in (("query", query), ("key", key), ("value", value)):
        x = as_float_tensor(x, name, dev, min_ndim=2)
        if x.shape[-1] != d:
            raise ValueError(f"{name}: expected last dimension d_model={d}, got shape {tuple(x.shape)}")
        tensors.append(x)
    query, key, value = tensors
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"key and value: expected the same length Tk, got {tuple(key.shape)} "
                         f"and {tuple(value.shape)}")
    h = params.n_heads
    q = split_heads(_project(query, params.w_q, params.b_q), h)    # (..., H, Tq, Dh)
    k = split_heads(_project(key, params.w_k, params.b_k), h)      # (..., H, Tk, Dh)
    v = split_heads(_project(value, params.w_v, params.b_v), h)    # (..., H, Tk, Dh)
    if mask is not None:
        mask = as_bool_tensor(mask, "mask", dev).unsqueeze(-3)     # (..., 1, Tq, Tk): same for every head
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)   # (..., H, Tq, Dh), (..., H, Tq, Tk)
    if head_mask is not None:
        hm = as_float_tensor(head_mask, "head_mask", dev, ndim=1)
        if tuple(hm.shape) != (h,):
            raise ValueError(f"head_mask: expected shape ({h},) (one number per head), got {tuple(hm.shape)}")
        heads = heads * hm[:, None, None]
    output = _project(merge_heads(heads), params.w_o, params.b_o)  # (..., Tq, D)
    return _back(output, numpy_out), _back(weights, numpy_out)


# ---- masks and positions ---------------------------------------------------------------------------


def combine_masks(*masks) -> torch.Tensor:
    """masks.combine_masks on tensors: logical AND with broadcasting, on the first tensor's device."""
    device = next(m.device for m in masks if is_torch(m))
    present = [as_bool_tensor(m, f"masks[{i}]", device) for i, m in enumerate(masks) if m is not None]
    try:
        shape = np.broadcast_shapes(*(tuple(m.shape) for m in present))
    except ValueError:
        raise ValueError("combine_masks: shapes " + ", ".join(str(tuple(m.shape)) for m in present)
                         + " do not broadcast together") from None
    out = torch.ones(shape, dtype=torch.bool, device=device)
    for m in present:
        out = out & m
    return out


def additive_mask(mask, dtype=np.float64) -> torch.Tensor:
    """masks.additive_mask on a tensor: 0 where visible, -inf where not (dtype: NumPy or torch)."""
    mask = as_bool_tensor(mask, "mask", mask.device)
    zeros = torch.zeros(mask.shape, dtype=torch_dtype(dtype), device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))


def apply_rope(x, positions=None, base: float = 10000.0) -> torch.Tensor:
    """positional.apply_rope on a tensor: the angles in float64 (as in NumPy), then x's dtype."""
    from attention_core.core.positional import rope_frequencies
    x = as_float_tensor(x, "x", x.device, min_ndim=2)
    t, d = x.shape[-2:]
    theta = _from_numpy(rope_frequencies(d, base), x.device)       # (Dh/2,) float64
    if positions is None:
        positions = np.arange(t)
    positions = as_float_tensor(positions, "positions", x.device, ndim=1).to(torch.float64)
    if tuple(positions.shape) != (t,):
        raise ValueError(f"positions: expected shape ({t},) (one per row of x), got {V.describe(positions)}")
    angle = positions[:, None] * theta[None, :]                    # (T, Dh/2)
    cos, sin = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]                         # (..., T, Dh/2) each
    out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)   # (..., T, Dh/2, 2)
    return out.flatten(-2)                                         # (..., T, Dh): pairs interleaved
