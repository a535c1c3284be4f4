"""One multi-head attention, one softmax and one layer norm per array library (issue 38), tested equal.

`core.hooked.attention` is the multi-head attention: `multi_head_attention`, the torch path (`attend_heads`),
notebook 04's KV-cache decoder and the model's blocks run it. Each fast path is checked against its readable
reference: the hooked formula against `reference_attention` head by head, NumPy against torch on the CPU,
the cached decoder against the full causal forward.
"""
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import attention_core as ac
from attention_core.core import hooked, softmax
from attention_core.core.multihead import merge_heads, split_heads
from attention_core.labs.nb04_masking import masking_lab

PACKAGE = Path(ac.__file__).parent


def _case(seed=0, tq=5, tk=7, d=8, h=2, dtype=np.float64):
    rng = np.random.default_rng(seed)
    params = ac.init_multihead(d, h, seed=seed, dtype=dtype)
    query, key, value = (rng.normal(size=s).astype(dtype) for s in ((2, tq, d), (2, tk, d), (2, tk, d)))
    mask = rng.random((tq, tk)) < 0.7
    mask[1] = False                                                  # a query that may see nothing
    return params, query, key, value, mask


def _by_hand(query, key, value, p, mask):
    """MultiHead = Concat(head_1..head_H) W_o + b_o, each head by the readable reference."""
    q = split_heads(query @ p.w_q + p.b_q, p.n_heads)                # (B, H, Tq, Dh)
    k = split_heads(key @ p.w_k + p.b_k, p.n_heads)                  # (B, H, Tk, Dh)
    v = split_heads(value @ p.w_v + p.b_v, p.n_heads)
    z, w = ac.reference_attention(q, k, v, mask=mask)                # (B, H, Tq, Dh), (B, H, Tq, Tk)
    return merge_heads(z) @ p.w_o + p.b_o, w


@pytest.mark.parametrize("tq, tk", [(5, 7), (7, 3), (2, 9)])
def test_multi_head_attention_is_the_reference_head_by_head_with_tq_not_tk(tq, tk):
    params, query, key, value, mask = _case(tq=tq, tk=tk)
    out, weights = ac.multi_head_attention(query, key, value, params, mask=mask)
    ref_out, ref_w = _by_hand(query, key, value, params, mask)
    assert out.shape == (2, tq, 8) and weights.shape == (2, 2, tq, tk)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights, ref_w, rtol=1e-12, atol=1e-12)
    assert (weights[:, :, 1] == 0).all()                             # nothing visible: exact zeros


def test_cross_attention_through_hooked_attention_fires_every_hook_with_its_own_length():
    params, query, key, value, mask = _case(tq=3, tk=6)
    seen = {}
    names = [f"attn.hook_{n}" for n in ("q_input", "k_input", "v_input", "q", "k", "v", "attn_scores",
                                        "pattern", "z", "result")]
    hooks = hooked.HookSet(fns={n: [lambda x, name: seen.setdefault(name, x.shape) and None] for n in names})
    out, (k, v) = hooked.attention(query, key, value, params.weights, 2, mask, hooks, hooked.NUMPY_OPS)
    assert seen == {"attn.hook_q_input": (2, 3, 8), "attn.hook_k_input": (2, 6, 8), "attn.hook_v_input": (2, 6, 8),
                    "attn.hook_q": (2, 2, 3, 4), "attn.hook_k": (2, 2, 6, 4), "attn.hook_v": (2, 2, 6, 4),
                    "attn.hook_attn_scores": (2, 2, 3, 6), "attn.hook_pattern": (2, 2, 3, 6),
                    "attn.hook_z": (2, 2, 3, 4), "attn.hook_result": (2, 2, 3, 8)}
    assert k.shape == v.shape == (2, 2, 6, 4)
    np.testing.assert_allclose(out, ac.multi_head_attention(query, key, value, params, mask=mask)[0], atol=1e-12)


def test_key_and_value_inputs_are_read_separately():
    params, query, key, value, _ = _case()
    out, _ = ac.multi_head_attention(query, key, value, params)
    swapped, _ = ac.multi_head_attention(query, key, key, params)   # values from the keys' input
    assert np.abs(out - swapped).max() > 1e-3
    np.testing.assert_allclose(out, _by_hand(query, key, value, params, None)[0], atol=1e-12)


def test_head_mask_scales_each_heads_output_before_w_o():
    params, query, key, value, mask = _case()
    out, _ = ac.multi_head_attention(query, key, value, params, mask=mask, head_mask=[1.0, 0.0])
    q, k, v = (split_heads(x @ w + b, 2) for x, w, b in ((query, params.w_q, params.b_q),
                                                         (key, params.w_k, params.b_k),
                                                         (value, params.w_v, params.b_v)))
    z, _ = ac.reference_attention(q, k, v, mask=mask)
    z[:, 1] = 0                                                      # head 1 ablated
    np.testing.assert_allclose(out, merge_heads(z) @ params.w_o + params.b_o, atol=1e-12)


def test_float16_multi_head_attention_is_computed_in_float32_and_returned_in_float16():
    params, query, key, value, mask = _case(dtype=np.float16)
    out, weights = ac.multi_head_attention(query, key, value, params, mask=mask)
    assert out.dtype == weights.dtype == np.float16
    p64 = ac.MultiHeadParams(**{n: a.astype(np.float64) for n, a in params.weights.items()}, n_heads=2)
    ref, _ = _by_hand(query.astype(np.float64), key.astype(np.float64), value.astype(np.float64), p64, mask)
    np.testing.assert_allclose(out.astype(np.float64), ref, atol=2e-2)


def test_overflowing_scores_raise_a_clear_error_not_nan():
    params, query, key, value, _ = _case()
    with pytest.raises(FloatingPointError, match="overflowed float64"):
        ac.multi_head_attention(query * 1e155, key * 1e155, value, params)


@pytest.mark.parametrize("chunks", [[4, 1, 1], [1] * 6, [3, 3], [2, 3, 1], [6]])
@pytest.mark.parametrize("n_layers", [1, 2])
def test_notebook_04s_cached_decoder_equals_the_full_causal_forward(chunks, n_layers):
    x = np.random.default_rng(3).normal(size=(6, 8))
    layers = [ac.init_multihead(8, 2, seed=s) for s in range(n_layers)]
    full = masking_lab.stacked_attention(x, layers, mask=ac.causal_mask(6))
    cached, steps = masking_lab.decode_with_kv_cache(x, layers, chunks=chunks)
    np.testing.assert_allclose(cached, full, rtol=1e-12, atol=1e-12)
    assert [s["mask"].shape for s in steps] == [(c, sum(chunks[:i + 1])) for i, c in enumerate(chunks)]
    if chunks[0] > 1:                                                # the prompt step needs the mask
        leaky, _ = masking_lab.decode_with_kv_cache(x, layers, chunks=chunks, causal=False)
        assert np.abs(leaky - full).max() > 1e-3


def test_the_decoder_runs_the_models_attention():
    source = inspect.getsource(masking_lab.decode_with_kv_cache)
    assert "hooked.attention(" in source and "split_heads" not in source and "concatenate([" not in source


def test_numpy_softmax_is_one_formula_with_its_fast_path_beside_it():
    assert hooked.NUMPY_OPS.softmax is softmax.softmax_rows is inspect.unwrap(ac.reference_softmax)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6)) * 5
    mask = rng.random((4, 6)) < 0.6
    mask[2] = False
    ref = softmax.softmax_rows(np.where(mask, x, -np.inf))
    assert (ref[2] == 0).all() and not np.isnan(ref).any()
    np.testing.assert_allclose(ac.softmax(x, mask=mask), ref, rtol=1e-13, atol=1e-15)   # the in-place fast path
    np.testing.assert_allclose(ac.reference_softmax(x), ac.softmax(x), rtol=1e-13)


def test_layer_norm_precision_variant_equals_the_formula_where_both_are_finite():
    rng = np.random.default_rng(2)
    x, g, b = rng.normal(size=(3, 5, 16)) * 7 + 2, rng.normal(size=16), rng.normal(size=16)
    np.testing.assert_allclose(hooked.layer_norm_rescaled(x, g, b), hooked.layer_norm(x, g, b), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(ac.layer_norm(x, g, b), hooked.layer_norm(x, g, b), rtol=1e-12, atol=1e-12)
    huge = x * 1e200                           # the formula's variance overflows; the variant's does not
    np.testing.assert_allclose(hooked.layer_norm_rescaled(huge, g, b), hooked.layer_norm(x, g, b, eps=0.0),
                               rtol=1e-12, atol=1e-12)              # eps = 1e-5 is nothing next to 1e400


def test_no_second_softmax_or_layer_norm_in_the_library_and_its_backends():
    """exp( appears only where softmax is defined (NumPy's pair, torch's one, the online pair, log_softmax);
    a layer norm's variance only in the one formula (logit attribution reads LN_f's scale on its own)."""
    allowed_exp = {"core/softmax.py", "core/tiled.py", "core/transformer.py", "backends/torch_ops.py"}
    with_exp, with_var = set(), set()
    for path in [*PACKAGE.glob("core/*.py"), *PACKAGE.glob("backends/*.py")]:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(PACKAGE).as_posix()
        if re.search(r"\b(np|torch|math)\.exp\(", text):
            with_exp.add(rel)
        if re.search(r"\*\* 2\)\.mean\(|\.sqrt\(var", text):            # var = ((x - mean) ** 2).mean(...)
            with_var.add(rel)
    assert with_exp <= allowed_exp, with_exp - allowed_exp
    assert with_var == {"core/hooked.py"}


# --- NumPy against torch, on the CPU -----------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


def test_torch_runs_the_same_formulas():
    _torch()
    from attention_core.backends import torch_ops
    ops = torch_ops.ops_for("cpu")
    assert ops.layer_norm is hooked.layer_norm and ops.softmax is torch_ops.masked_softmax


@pytest.mark.parametrize("tq, tk", [(5, 7), (4, 4)])
def test_hooked_attention_numpy_and_torch_agree_on_the_cpu(tq, tk):
    torch = _torch()
    from attention_core.backends import torch_ops
    params, query, key, value, mask = _case(tq=tq, tk=tk)
    m = mask[None]                                                   # (1, Tq, Tk): every head
    hooks_np, hooks_t = (hooked.HookSet(record={"attn.hook_pattern"}) for _ in range(2))
    out_np, _ = hooked.attention(query, key, value, params.weights, 2, m, hooks_np, hooked.NUMPY_OPS)
    w_t = {n: torch.as_tensor(a) for n, a in params.weights.items()}
    out_t, _ = hooked.attention(*(torch.as_tensor(a) for a in (query, key, value)), w_t, 2, torch.as_tensor(m),
                                hooks_t, torch_ops.ops_for("cpu"))
    np.testing.assert_allclose(out_t.numpy(), out_np, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hooks_t.cache["attn.hook_pattern"].numpy(), hooks_np.cache["attn.hook_pattern"],
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_numpy_and_torch_agree_with_cross_attention(need_weights):
    torch = _torch()
    from attention_core.backends import torch_ops
    params, query, key, value, mask = _case(tq=3, tk=8)
    ref, ref_w = ac.multi_head_attention(query, key, value, params, mask=mask, head_mask=[0.5, 1.0])
    got, got_w = torch_ops.attend_heads(*(torch.as_tensor(a) for a in (query, key, value)), params.weights, 2,
                                        torch.as_tensor(mask), [0.5, 1.0], need_weights=need_weights)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12, atol=1e-12)   # fused kernel included
    if need_weights:
        np.testing.assert_allclose(got_w.numpy(), ref_w, rtol=1e-12, atol=1e-12)
    else:
        assert got_w is None
    via_backend, _ = ac.multi_head_attention(query, key, value, params, mask=mask, backend="torch")
    np.testing.assert_allclose(via_backend, ac.multi_head_attention(query, key, value, params, mask=mask)[0],
                               rtol=1e-12, atol=1e-12)


def test_torch_softmax_and_layer_norm_equal_numpys():
    torch = _torch()
    from attention_core.backends import torch_ops
    rng = np.random.default_rng(4)
    scores = rng.normal(size=(3, 4, 6)) * 4
    scores[0, 1] = -np.inf                                           # every key hidden
    scores[1, 2, :3] = -np.inf
    np.testing.assert_allclose(torch_ops.masked_softmax(torch.as_tensor(scores)).numpy(),
                               softmax.softmax_rows(scores), rtol=1e-14, atol=0)
    x, g, b = rng.normal(size=(2, 5, 8)), rng.normal(size=8), rng.normal(size=8)
    np.testing.assert_allclose(torch_ops.layer_norm(*(torch.as_tensor(a) for a in (x, g, b))).numpy(),
                               hooked.layer_norm(x, g, b), rtol=1e-14, atol=1e-14)


def test_torch_explicit_and_fused_attention_equal_the_reference():
    torch = _torch()
    from attention_core.backends import torch_ops
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 6, 3)), rng.normal(size=(2, 6, 5))
    mask = rng.random((4, 6)) < 0.6
    mask[0] = False
    ref, ref_w = ac.reference_attention(q, k, v, mask=mask)
    tq, tk, tv, tm = (torch.as_tensor(a) for a in (q, k, v, mask))
    out, w = torch_ops.explicit_attention(tq, tk, tv, tm, 3 ** -0.5)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(torch_ops.fused_attention(tq, tk, tv, tm, 3 ** -0.5).numpy(), ref, atol=1e-12)
