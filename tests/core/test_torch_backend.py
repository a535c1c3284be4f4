"""The torch backend equals the NumPy reference, and both agree with torch's own modules.

Parity: every public function, NumPy vs torch, on seeded random shapes and masks, in float64
(tolerance 1e-10) and float32 (1e-5), on the CPU and -- where there is one -- on CUDA (the "cuda"
parameter is marked `cuda` and skipped with the reason "no CUDA device" elsewhere; `make gpu-check`
runs just those). Oracle: our NumPy attention vs torch.nn.functional.scaled_dot_product_attention,
our multi_head_attention vs torch.nn.MultiheadAttention.
"""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import attention_core as ac
from attention_core import backends

HAS_CUDA = torch.cuda.is_available()
DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.cuda,
                                              pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")])]
DTYPES = [np.float64, np.float32]
TOL = {np.float64: 1e-10, np.float32: 1e-5}     # atol = rtol


def close(actual, expected, dtype):
    """Compare a tensor or array with the NumPy reference at the dtype's documented tolerance."""
    actual = actual.detach().cpu().numpy() if torch.is_tensor(actual) else actual
    np.testing.assert_allclose(actual, expected, rtol=TOL[dtype], atol=TOL[dtype])


def on(device, *arrays):
    return [torch.as_tensor(a, device=device) for a in arrays]


def random_case(rng, dtype):
    """q, k, v with 0-2 broadcastable batch dimensions, a random mask with some dead rows."""
    batch = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(0, 3)))
    tq, tk, dk, dv = (int(n) for n in rng.integers(1, 9, size=4))
    q_batch = tuple(1 if rng.random() < 0.3 else n for n in batch)      # exercise broadcasting
    q = rng.normal(size=q_batch + (tq, dk)).astype(dtype)
    k = rng.normal(size=batch + (tk, dk)).astype(dtype)
    v = rng.normal(size=batch + (tk, dv)).astype(dtype)
    mask = rng.random(batch + (tq, tk)) < 0.7
    mask[..., rng.integers(tq), :] = rng.random() < 0.5                  # sometimes a fully masked row
    return q, k, v, (mask if rng.random() < 0.8 else None)


# ---- parity with NumPy ---------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_explicit_and_fused_equal_the_reference(device, dtype):
    rng = np.random.default_rng(1)
    for _ in range(25):
        q, k, v, mask = random_case(rng, dtype)
        ref_out, ref_w = ac.reference_attention(q, k, v, mask=mask)   # the readable oracle
        tq, tk, tv = on(device, q, k, v)
        tmask = None if mask is None else torch.as_tensor(mask, device=device)
        out, w = ac.scaled_dot_product_attention(tq, tk, tv, mask=tmask)
        assert out.device.type == device and out.dtype == tq.dtype and w.shape == ref_w.shape
        close(out, ref_out, dtype)
        close(w, ref_w, dtype)
        fused, none = ac.scaled_dot_product_attention(tq, tk, tv, mask=tmask, need_weights=False)
        assert none is None
        close(fused, ref_out, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_in_backend_torch_gives_numpy_out(device):
    rng = np.random.default_rng(2)
    q, k, v, mask = random_case(rng, np.float64)
    ref_out, ref_w = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    for need_weights in (True, False):
        out, w = ac.scaled_dot_product_attention(q, k, v, mask=mask, backend="torch", device=device,
                                                 need_weights=need_weights)
        assert isinstance(out, np.ndarray) and out.dtype == np.float64
        close(out, ref_out, np.float64)
        if need_weights:
            close(w, ref_w, np.float64)
    out, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask, backend="auto")
    assert isinstance(out, np.ndarray)
    close(out, ref_out, np.float64)


def test_backend_numpy_with_tensors_gives_tensors_back():
    rng = np.random.default_rng(3)
    q, k, v, mask = random_case(rng, np.float32)
    ref_out, ref_w = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    tq, tk, tv = on("cpu", q, k, v)
    out, w = ac.scaled_dot_product_attention(tq, tk, tv, mask=mask, backend="numpy")
    assert torch.is_tensor(out) and out.dtype == torch.float32
    close(out, ref_out, np.float32)
    close(w, ref_w, np.float32)
    params = ac.init_multihead(4, 2, dtype=np.float32)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    ref_mha, _ = ac.multi_head_attention(x, x, x, params)
    got_mha, _ = ac.multi_head_attention(*on("cpu", x, x, x), params, backend="numpy")
    assert torch.is_tensor(got_mha)
    close(got_mha, ref_mha, np.float32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_equals_numpy(device, dtype):
    rng = np.random.default_rng(4)
    for _ in range(20):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rng.integers(1, 4)))
        x = (rng.normal(size=shape) * 10).astype(dtype)
        axis = int(rng.integers(-len(shape), len(shape)))
        temperature = float(rng.choice([0.1, 1.0, 3.0]))
        mask = rng.random(shape) < 0.6 if rng.random() < 0.7 else None
        ref = ac.softmax(x, axis=axis, temperature=temperature, mask=mask)
        tmask = None if mask is None else torch.as_tensor(mask, device=device)
        got = ac.softmax(torch.as_tensor(x, device=device), axis=axis, temperature=temperature, mask=tmask)
        assert got.device.type == device
        close(got, ref, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_masks_follow_like_and_tensor_inputs(device):
    like = torch.zeros(1, device=device)
    for args in [(4,), (3, 6), (3, 6, 2)]:
        got = ac.causal_mask(*args, like=like)
        assert got.dtype == torch.bool and got.device.type == device
        np.testing.assert_array_equal(got.cpu().numpy(), ac.causal_mask(*args))
    for causal in (True, False):
        got = ac.sliding_window_mask(5, 2, 7, causal=causal, like=like)
        np.testing.assert_array_equal(got.cpu().numpy(), ac.sliding_window_mask(5, 2, 7, causal=causal))
    lengths = torch.tensor([3, 1, 4], device=device)
    got = ac.padding_mask(lengths, 5)
    assert got.device.type == device and got.dtype == torch.bool
    np.testing.assert_array_equal(got.cpu().numpy(), ac.padding_mask([3, 1, 4], 5))
    np.testing.assert_array_equal(ac.padding_mask([3, 1], like=like).cpu().numpy(), ac.padding_mask([3, 1]))
    a, b = ac.causal_mask(4, like=like), ac.padding_mask([4, 2], like=like)
    combined = ac.combine_masks(a, None, b)
    np.testing.assert_array_equal(combined.cpu().numpy(),
                                  ac.combine_masks(ac.causal_mask(4), ac.padding_mask([4, 2])))
    for dtype in (np.float32, torch.float64):
        add = ac.additive_mask(a, dtype)
        assert add.dtype == (torch.float32 if dtype is np.float32 else torch.float64)
        np.testing.assert_array_equal(add.cpu().numpy(), ac.additive_mask(ac.causal_mask(4)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_positions_equal_numpy(device, dtype):
    rng = np.random.default_rng(5)
    like = torch.zeros(1, device=device, dtype=torch.float32 if dtype is np.float32 else torch.float64)
    table = ac.sinusoidal_encoding(7, 6, like=like)
    assert table.device.type == device and table.dtype == like.dtype
    close(table, ac.sinusoidal_encoding(7, 6).astype(dtype), dtype)
    close(ac.rope_frequencies(8, like=like), ac.rope_frequencies(8).astype(dtype), dtype)
    close(ac.learned_position_table(3, 4, seed=1, like=like),
          ac.learned_position_table(3, 4, seed=1).astype(dtype), dtype)
    for _ in range(10):
        t, d = int(rng.integers(1, 9)), 2 * int(rng.integers(1, 5))
        x = rng.normal(size=(2, 3, t, d)).astype(dtype)
        positions = rng.integers(0, 1000, size=t) if rng.random() < 0.5 else None
        got = ac.apply_rope(torch.as_tensor(x, device=device), positions)
        close(got, ac.apply_rope(x, positions), dtype)
        tpos = None if positions is None else torch.as_tensor(positions, device=device)
        close(ac.apply_rope(torch.as_tensor(x, device=device), tpos), ac.apply_rope(x, positions), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_head_attention_equals_numpy(device, dtype):
    rng = np.random.default_rng(6)
    for _ in range(8):
        h = int(rng.integers(1, 4))
        d = h * int(rng.integers(1, 5))
        params = ac.init_multihead(d, h, seed=int(rng.integers(1000)), dtype=dtype)
        tq, tk = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        query = rng.normal(size=(2, tq, d)).astype(dtype)
        key = rng.normal(size=(2, tk, d)).astype(dtype)
        mask = rng.random((2, tq, tk)) < 0.7
        mask[0, 0] = False                                               # a dead row
        head_mask = rng.integers(0, 2, size=h).astype(dtype)
        ref_out, ref_w = ac.multi_head_attention(query, key, key, params, mask=mask, head_mask=head_mask)
        tquery, tkey, tmask = on(device, query, key, mask)
        out, w = ac.multi_head_attention(tquery, tkey, tkey, params, mask=tmask, head_mask=head_mask)
        assert out.device.type == device
        close(out, ref_out, dtype)
        close(w, ref_w, dtype)
        out_np, _ = ac.multi_head_attention(query, key, key, params, mask=mask, head_mask=head_mask,
                                            backend="torch", device=device)
        assert isinstance(out_np, np.ndarray)
        close(out_np, ref_out, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_split_merge_heads_and_scores_equal_numpy(device):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 5, 12))
    heads = ac.split_heads(torch.as_tensor(x, device=device), 3)
    np.testing.assert_array_equal(heads.cpu().numpy(), ac.split_heads(x, 3))
    np.testing.assert_array_equal(ac.merge_heads(heads).cpu().numpy(), x)
    q, k = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 6, 3))
    scores = ac.attention_scores(*on(device, q, k))
    close(scores, ac.attention_scores(q, k), np.float64)


# ---- our conventions on the torch path -------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("need_weights", [True, False])
def test_fully_masked_row_gives_zeros_not_nan(device, need_weights):
    q, k, v = on(device, *np.random.default_rng(8).normal(size=(3, 2, 4, 4)).astype(np.float32))
    mask = torch.ones(4, 4, dtype=torch.bool, device=device)
    mask[2] = False
    out, w = ac.scaled_dot_product_attention(q, k, v, mask=mask, need_weights=need_weights)
    assert torch.isfinite(out).all()
    assert (out[:, 2] == 0).all()
    if need_weights:
        assert (w[:, 2] == 0).all() and torch.allclose(w[:, [0, 1, 3]].sum(-1), torch.ones(2, 3, device=device))
    soft = ac.softmax(q, mask=mask)
    assert (soft[:, 2] == 0).all() and torch.isfinite(soft).all()


def test_need_weights_false_takes_the_fused_kernel(monkeypatch):
    from attention_core.backends import torch_ops as torch_backend
    calls = []
    fused = torch_backend.F.scaled_dot_product_attention
    monkeypatch.setattr(torch_backend.F, "scaled_dot_product_attention",
                        lambda *a, **kw: calls.append(a[0].shape) or fused(*a, **kw))
    q = torch.ones(2, 3, 4)
    ac.scaled_dot_product_attention(q, q, q, need_weights=True)
    assert calls == []                                                   # weights wanted: explicit path
    ac.scaled_dot_product_attention(q, q, q, need_weights=False)
    assert calls == [(2, 3, 4)]


def test_gradients_flow_and_stay_finite_through_a_dead_row():
    rng = np.random.default_rng(9)
    q, k, v = (torch.tensor(a, requires_grad=True) for a in rng.normal(size=(3, 3, 4)))
    mask = torch.tensor(rng.random((3, 3)) < 0.7)
    mask[1] = False
    for need_weights in (True, False):
        out, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask, need_weights=need_weights)
        grads = torch.autograd.grad(out.sum(), (q, k, v))
        assert all(torch.isfinite(g).all() for g in grads)
        assert (grads[0][1] == 0).all()                                  # the dead query gets no gradient
    def explicit(q, k, v):
        return ac.scaled_dot_product_attention(q, k, v, mask=mask)[0]
    assert torch.autograd.gradcheck(explicit, (q, k, v))


# ---- the same error messages -------------------------------------------------------------------------

BAD_CALLS = {
    "bool q": lambda x, m: ac.scaled_dot_product_attention(m(np.ones((2, 3), bool)), x, x),
    "1-d q": lambda x, m: ac.scaled_dot_product_attention(m(np.ones(3)), x, x),
    "Dk differs": lambda x, m: ac.scaled_dot_product_attention(m(np.ones((2, 4))), x, x),
    "Tk differs": lambda x, m: ac.scaled_dot_product_attention(x, x, m(np.ones((4, 3)))),
    "dtypes differ": lambda x, m: ac.scaled_dot_product_attention(x, x, m(np.ones((2, 3), np.float32))),
    "nan": lambda x, m: ac.scaled_dot_product_attention(m(np.full((2, 3), np.nan)), x, x),
    "mask shape": lambda x, m: ac.scaled_dot_product_attention(x, x, x, mask=m(np.ones((3, 2), bool))),
    "int mask": lambda x, m: ac.scaled_dot_product_attention(x, x, x, mask=m(np.ones((2, 2), int))),
    "batch": lambda x, m: ac.scaled_dot_product_attention(m(np.ones((2, 2, 3))), m(np.ones((3, 2, 3))),
                                                          m(np.ones((3, 2, 3)))),
    "scale": lambda x, m: ac.scaled_dot_product_attention(x, x, x, scale=-1.0),
    "softmax axis": lambda x, m: ac.softmax(m(np.ones((2, 3))), axis=2),
    "softmax temperature": lambda x, m: ac.softmax(m(np.ones((2, 3))), temperature=0),
    "softmax mask": lambda x, m: ac.softmax(m(np.ones((2, 3))), mask=m(np.ones((3, 3), bool))),
    "split heads": lambda x, m: ac.split_heads(m(np.ones((2, 5))), 2),
    "mha width": lambda x, m: ac.multi_head_attention(m(np.ones((2, 3))), x, x, ac.init_multihead(4, 2)),
    "head_mask": lambda x, m: ac.multi_head_attention(m(np.ones((2, 4))), m(np.ones((2, 4))),
                                                      m(np.ones((2, 4))), ac.init_multihead(4, 2),
                                                      head_mask=[1.0]),
    "rope odd": lambda x, m: ac.apply_rope(m(np.ones((2, 3)))),
    "rope positions": lambda x, m: ac.apply_rope(m(np.ones((2, 4))), positions=[0, 1, 2]),
    "combine": lambda x, m: ac.combine_masks(m(np.ones((2, 3), bool)), m(np.ones((4, 3), bool))),
}


def _message(exc):
    # Type and dtype names differ ("ndarray", "float32" vs "Tensor", "torch.float32"), and so does
    # the suggested fix (`mask.astype(bool)` vs `mask.bool()`); the rest must be the same.
    text = re.sub(r"\b(Tensor|ndarray) of shape", "array of shape", str(exc))
    return re.sub(r"torch\.", "", text).split(";")[0]


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_torch_errors_match_numpy_errors(case):
    call = BAD_CALLS[case]
    with pytest.raises((ValueError, TypeError)) as numpy_error:
        call(np.ones((2, 3)), np.asarray)
    with pytest.raises((ValueError, TypeError)) as torch_error:
        call(torch.ones(2, 3, dtype=torch.float64), torch.as_tensor)
    assert torch_error.type is numpy_error.type
    assert _message(torch_error.value) == _message(numpy_error.value)


@pytest.mark.skipif(HAS_CUDA, reason="checks the message on a machine without CUDA")
def test_asking_for_missing_cuda_names_the_devices_there_are():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"device: 'cuda' was asked for, but there is no CUDA device.*"
                                         r"available devices: cpu"):
        ac.scaled_dot_product_attention(x, x, x, device="cuda")
    with pytest.raises(ValueError, match="device: 'cuda:1' was asked for"):
        ac.multi_head_attention(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4)), ac.init_multihead(4, 2),
                                backend="torch", device="cuda:1")


def test_bad_device_names_and_numpy_on_gpu_are_refused():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"device: expected 'cpu', 'cuda' or 'cuda:<index>', got 'gpu0'"):
        ac.scaled_dot_product_attention(x, x, x, backend="torch", device="gpu0")
    with pytest.raises(ValueError, match=r"device: expected 'cpu' or 'cuda', got 'meta'"):
        ac.scaled_dot_product_attention(x, x, x, device="meta")
    if HAS_CUDA:
        with pytest.raises(ValueError, match="the NumPy backend computes on the CPU only"):
            ac.scaled_dot_product_attention(x, x, x, backend="numpy", device="cuda")


def test_report_sees_torch():
    report = backends.backend_report()
    assert report.torch_version == torch.__version__
    assert report.cuda_available == HAS_CUDA
    assert report.auto_device == ("cuda:0" if HAS_CUDA else "cpu")


# ---- oracle: torch's own modules ----------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_sdpa_matches_torch_functional_sdpa(device):
    rng = np.random.default_rng(10)
    for _ in range(20):
        q, k, v, mask = random_case(rng, np.float64)
        ref, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask)
        tq, tk, tv = on(device, q, k, v)
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
        tq = tq.expand(*batch, *q.shape[-2:])                            # (..., Tq, Dk) like k
        tmask = None if mask is None else torch.as_tensor(mask, device=device)
        theirs = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask).cpu().numpy()
        alive = np.ones(ref.shape[:-1], bool) if mask is None else np.broadcast_to(mask.any(-1), ref.shape[:-1])
        # torch's output on a query that sees no key is kernel-dependent (NaN or 0): compare the rest
        np.testing.assert_allclose(theirs[alive], ref[alive], rtol=1e-10, atol=1e-10)
        assert (ref[~alive] == 0).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_head_attention_matches_torch_module(device, dtype):
    rng = np.random.default_rng(11)
    params = ac.init_multihead(12, 3, seed=3, dtype=dtype)
    query = rng.normal(size=(2, 5, 12)).astype(dtype)
    key = rng.normal(size=(2, 7, 12)).astype(dtype)
    mask = ac.combine_masks(ac.causal_mask(5, 7, offset=2), ac.padding_mask([7, 4]))   # (2, 5, 7)
    ref_out, ref_w = ac.multi_head_attention(query, key, key, params, mask=mask)
    mha = ac.to_torch_mha(params, device=device)
    attn_mask = torch.as_tensor(~mask, device=device).repeat_interleave(3, dim=0)  # (B*H, Tq, Tk), True = blocked
    tquery, tkey = on(device, query, key)
    with torch.no_grad():
        out, w = mha(tquery, tkey, tkey, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    close(out, ref_out, dtype)
    close(w, ref_w, dtype)
    back = ac.from_torch_mha(mha)
    for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"):
        np.testing.assert_array_equal(getattr(back, name), getattr(params, name))
    assert back.n_heads == params.n_heads
