"""Finite input never gives a silent NaN; every setting is validated like an array; promises hold.

Three parts: a table of extreme and malformed calls (each must return a finite result or raise
the named error with the named words, raised from attention_core rather than from deep inside
NumPy), hypothesis properties over float16/32/64 and magnitudes from 1e-30 to the dtype's
largest number, and the same rules on the torch backend.
"""
import math
import traceback

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attention_core as ac

DTYPES = (np.float16, np.float32, np.float64)


def finite(*arrays) -> bool:
    return all(a is None or bool(np.isfinite(np.asarray(a)).all()) for a in arrays)


def _qkv(scale_value, dtype, t=4, d=64):
    rng = np.random.default_rng(0)
    return tuple((rng.choice([-1.0, 1.0], size=s) * scale_value).astype(dtype)
                 for s in ((t, d), (t, d), (t, 3)))


def _aligned(value, dtype, t=4, d=64):
    # q = k = value everywhere: q·k * scale = d * value^2 / sqrt(d), all of it in one direction
    return np.full((t, d), value, dtype), np.full((t, d), value, dtype), np.ones((t, 3), dtype)


# ---- 1. finite input, non-finite result: now finite, or a FloatingPointError that says so ----------------------
OVERFLOW = [
    # (id, call)
    ("float64 q,k 1e200", lambda: ac.scaled_dot_product_attention(*_qkv(1e200, np.float64))),
    ("float32 q,k 1e20", lambda: ac.scaled_dot_product_attention(*_qkv(1e20, np.float32))),
    ("float64 huge scale", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), scale=1e308)),
    ("tiled float64 1e200", lambda: ac.tiled_attention(*_qkv(1e200, np.float64))),
    ("tiled float32 1e20", lambda: ac.tiled_attention(*_qkv(1e20, np.float32), block_size=2)),
    ("reference float64 1e200", lambda: ac.reference_attention(*_qkv(1e200, np.float64))),
    ("scores float64 1e200", lambda: ac.attention_scores(*_qkv(1e200, np.float64)[:2])),
]


@pytest.mark.parametrize("call", [c for _, c in OVERFLOW], ids=[i for i, _ in OVERFLOW])
def test_overflowing_scores_raise_a_clear_error(call):
    with pytest.raises(FloatingPointError, match=r"overflowed float(32|64)") as info:
        call()
    assert "attention_core" in traceback.extract_tb(info.tb)[-1].filename


FINITE_NOW = [
    # float16: statistics in float32, so these are representable and computed
    ("float16 q,k 100 at Dk=64", lambda: ac.scaled_dot_product_attention(*_aligned(100.0, np.float16))),
    ("float16 tiled 100 at Dk=64", lambda: ac.tiled_attention(*_aligned(100.0, np.float16))),
    ("float16 70k keys", lambda: ac.softmax(np.zeros(70_000, np.float16))),
    ("float16 70k keys attention", lambda: ac.scaled_dot_product_attention(
        np.zeros((1, 4), np.float16), np.zeros((70_000, 4), np.float16), np.ones((70_000, 2), np.float16))),
    # temperatures that round to 0 or inf in the array's dtype
    ("float32 T=1e-50", lambda: ac.softmax(np.array([1.0, 2.0, 3.0], np.float32), temperature=1e-50)),
    ("float16 T=1e-10", lambda: ac.softmax(np.array([1.0, 2.0, 3.0], np.float16), temperature=1e-10)),
    ("float16 T=1e300", lambda: ac.softmax(np.array([1.0, 2.0, 3.0], np.float16), temperature=1e300)),
    ("float64 T=5e-324", lambda: ac.softmax(np.array([1.0, 2.0, 3.0]), temperature=5e-324)),
    ("float32 T tiny, masked", lambda: ac.softmax(np.array([1.0, 2.0, 3.0], np.float32), temperature=1e-45,
                                                 mask=np.array([True, False, True]))),
    ("float64 logits 1e308", lambda: ac.softmax(np.array([1e308, -1e308, 0.0]))),
]


SOFTMAX_CALLS = {c for i, c in FINITE_NOW if "T=" in i or i in ("float16 70k keys", "float64 logits 1e308")}


@pytest.mark.parametrize("call", [c for _, c in FINITE_NOW], ids=[i for i, _ in FINITE_NOW])
def test_extreme_but_representable_inputs_give_finite_results(call):
    out = call()
    parts = out if isinstance(out, tuple) else (out,)
    assert finite(*parts)
    if call in SOFTMAX_CALLS:                                       # softmax: a distribution
        np.testing.assert_allclose(float(np.asarray(out, np.float64).sum()), 1.0, rtol=2e-3)


def test_float16_keeps_its_dtype_and_matches_float64():
    q, k, v = _qkv(3.0, np.float16, t=6, d=8)
    out16, w16 = ac.scaled_dot_product_attention(q, k, v)
    out64, w64 = ac.reference_attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    assert out16.dtype == w16.dtype == np.float16
    np.testing.assert_allclose(out16, out64, atol=5e-3, rtol=5e-3)
    np.testing.assert_allclose(w16, w64, atol=1e-3)


def test_temperature_extremes_are_one_hot_and_uniform():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(ac.softmax(x, temperature=1e-50), [0, 0, 1])
    np.testing.assert_allclose(ac.softmax(x, temperature=1e300), [1 / 3] * 3, rtol=1e-6)


# ---- 2. settings validated like arrays ------------------------------------------------------------------------
SETTINGS = [
    # (id, call, error type, words the message must contain)
    ("additive int32", lambda: ac.additive_mask(ac.causal_mask(3), dtype=np.int32), TypeError, ["dtype", "float", "int32"]),
    ("additive bool", lambda: ac.additive_mask(ac.causal_mask(3), dtype=bool), TypeError, ["dtype", "float"]),
    ("additive banana", lambda: ac.additive_mask(ac.causal_mask(3), dtype="banana"), TypeError, ["dtype", "banana"]),
    ("mha int64", lambda: ac.init_multihead(4, 2, dtype=np.int64), TypeError, ["dtype", "int64"]),
    ("seed string", lambda: ac.init_multihead(4, 2, seed="abc"), TypeError, ["seed", "integer", "abc"]),
    ("seed negative", lambda: ac.init_multihead(4, 2, seed=-1), ValueError, ["seed", ">= 0", "-1"]),
    ("seed float", lambda: ac.init_multihead(4, 2, seed=1.5), TypeError, ["seed", "1.5"]),
    ("seed bool", lambda: ac.learned_position_table(3, 4, seed=True), TypeError, ["seed", "bool"]),
    ("need_weights string", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), need_weights="no"),
     TypeError, ["need_weights", "True or False", "'no'"]),
    ("causal string", lambda: ac.sliding_window_mask(4, 2, causal="False"), TypeError, ["causal", "True or False"]),
    ("bias string", lambda: ac.init_multihead(4, 2, bias="yes"), TypeError, ["bias", "True or False"]),
    ("scale numeric string", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), scale="0.5"),
     TypeError, ["scale", "number", "'0.5'"]),
    ("scale nan", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), scale=float("nan")),
     ValueError, ["scale", "finite"]),
    ("scale bool", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), scale=True), TypeError, ["scale"]),
    ("temperature inf", lambda: ac.softmax([1.0, 2.0], temperature=float("inf")), ValueError, ["temperature", "finite"]),
    ("backend typo", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), backend="torhc"),
     ValueError, ["backend", "'torhc'"]),
    ("backend list", lambda: ac.multi_head_attention(np.zeros((2, 4)), np.zeros((2, 4)), np.zeros((2, 4)),
                                                     ac.init_multihead(4, 2), backend=["numpy"]), ValueError, ["backend"]),
    ("numpy on gpu", lambda: ac.scaled_dot_product_attention(*_qkv(1.0, np.float64), backend="numpy", device="cuda"),
     ValueError, ["device", "CPU only"]),
    ("block_size float", lambda: ac.tiled_attention(*_qkv(1.0, np.float64), block_size=2.5), TypeError, ["block_size"]),
    ("offset float", lambda: ac.causal_mask(3, offset=0.5), TypeError, ["offset", "integer"]),
    ("rope odd width", lambda: ac.apply_rope(np.zeros((3, 5))), ValueError, ["d_head", "even", "5"]),
    ("rope positions shape", lambda: ac.apply_rope(np.zeros((3, 4)), positions=[0, 1]), ValueError, ["positions", "(3,)"]),
]

# ---- 4. errors from inside NumPy, or naming the wrong thing ------------------------------------------------------
INSIDE = [
    ("softmax empty", lambda: ac.softmax(np.zeros((2, 0))), ValueError, ["x", "empty", "(2, 0)"]),
    ("softmax empty list", lambda: ac.softmax([]), ValueError, ["x", "empty"]),
    ("mha 0-d mask", lambda: ac.multi_head_attention(np.zeros((2, 4)), np.zeros((2, 4)), np.zeros((2, 4)),
                                                     ac.init_multihead(4, 2), mask=np.bool_(True)), ValueError, ["mask"]),
    ("mha 1-d mask", lambda: ac.multi_head_attention(np.zeros((2, 4)), np.zeros((2, 4)), np.zeros((2, 4)),
                                                     ac.init_multihead(4, 2), mask=np.ones(2, bool)), ValueError,
     ["mask", "at least 2", "(2,)"]),
    ("mha mask wrong shape, as passed", lambda: ac.multi_head_attention(
        np.zeros((2, 4)), np.zeros((3, 4)), np.zeros((3, 4)), ac.init_multihead(4, 2), mask=np.ones((3, 2), bool)),
     ValueError, ["mask", "(3, 2)", "(2, 3)"]),
    ("object array", lambda: ac.softmax(np.array([object(), 1], dtype=object)), TypeError, ["x", "real numbers"]),
    ("None input", lambda: ac.split_heads(None, 2), TypeError, ["x", "NoneType"]),
    ("lengths 2-D", lambda: ac.padding_mask([[1, 2]]), TypeError, ["lengths", "1-D"]),
    ("combine nothing", lambda: ac.combine_masks(None), ValueError, ["at least one mask"]),
    ("like a list", lambda: ac.causal_mask(3, like=[1.0]), TypeError, ["like", "list"]),
]


@pytest.mark.parametrize("call, error, words", [c[1:] for c in SETTINGS + INSIDE], ids=[c[0] for c in SETTINGS + INSIDE])
def test_bad_settings_and_inputs_get_a_clear_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert "attention_core" in traceback.extract_tb(info.tb)[-1].filename, "raised from deep inside a library"


def test_the_table_is_large():
    # The count the closing note reports; each row is a distinct class member.
    assert len(OVERFLOW) + len(FINITE_NOW) + len(SETTINGS) + len(INSIDE) >= 45


# ---- properties: finite result or a clear error, never a silent NaN ----------------------------------------------


def magnitudes(dtype):
    top = float(np.finfo(dtype).max)
    exponents = st.floats(min_value=-30, max_value=math.log10(top))
    return exponents.map(lambda e: min(top, 10.0 ** min(e, 308.0)))      # 10**log10(max) can round past max


@st.composite
def attention_case(draw):
    dtype = draw(st.sampled_from(DTYPES))
    magnitude = draw(magnitudes(dtype))
    tq, tk, d = draw(st.integers(1, 5)), draw(st.integers(1, 6)), draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        q, k, v = ((rng.standard_normal(s) * magnitude).astype(dtype) for s in ((tq, d), (tk, d), (tk, 2)))
    use_mask = draw(st.booleans())
    mask = (rng.random((tq, tk)) < 0.6) if use_mask else None
    return q, k, v, mask


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attention_case())
def test_attention_gives_finite_results_or_a_clear_error(case):
    q, k, v, mask = case
    if not (finite(q, k, v)):                              # the draw itself overflowed the dtype
        with pytest.raises(ValueError, match="NaN or infinity"):
            ac.scaled_dot_product_attention(q, k, v, mask=mask)
        return
    for fn in (lambda: ac.scaled_dot_product_attention(q, k, v, mask=mask),
               lambda: ac.scaled_dot_product_attention(q, k, v, mask=mask, need_weights=False),
               lambda: (ac.tiled_attention(q, k, v, mask=mask, block_size=2), None),
               lambda: ac.reference_attention(q, k, v, mask=mask)):
        try:
            out, w = fn()
        except FloatingPointError as exc:
            assert "overflowed" in str(exc) and q.dtype.name in str(exc)
            continue
        assert out.dtype == q.dtype and finite(out, w)
        if w is not None:
            sums = w.astype(np.float64).sum(-1)
            alive = np.ones(sums.shape, bool) if mask is None else mask.any(-1)
            np.testing.assert_allclose(sums[alive], 1.0, atol=2e-2)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(DTYPES), st.floats(-30, 300), st.floats(-30, 300), st.integers(1, 50), st.integers(0, 999))
def test_softmax_gives_finite_distributions(dtype, log_magnitude, log_temperature, n, seed):
    top = float(np.finfo(dtype).max)
    magnitude = min(10.0 ** log_magnitude, top)
    x = (np.random.default_rng(seed).uniform(-1, 1, n) * magnitude).astype(dtype)
    if not finite(x):
        return
    out = ac.softmax(x, temperature=10.0 ** log_temperature)
    assert out.dtype == dtype and finite(out)
    np.testing.assert_allclose(float(out.astype(np.float64).sum()), 1.0, rtol=1e-2)


# ---- 3. promises on the torch backend -------------------------------------------------------------------------


@pytest.fixture
def torch_module():
    return pytest.importorskip("torch")


def test_tiled_attention_gives_tensors_for_tensors(torch_module):
    q, k, v = (torch_module.tensor(a) for a in _qkv(1.0, np.float32, t=5, d=4))
    out = ac.tiled_attention(q, k, v, block_size=2)
    assert isinstance(out, torch_module.Tensor) and out.device == q.device and out.dtype == q.dtype
    ref, _ = ac.reference_attention(*(a.numpy() for a in (q, k, v)))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_mixed_numpy_and_tensor_inputs_follow_the_tensor(torch_module):
    q, k, v = _qkv(1.0, np.float64, t=3, d=4)
    for args in ((torch_module.tensor(q), k, v), (q, torch_module.tensor(k), v), (q, k, torch_module.tensor(v))):
        out, w = ac.scaled_dot_product_attention(*args)
        assert isinstance(out, torch_module.Tensor) and isinstance(w, torch_module.Tensor)
    mask = ac.combine_masks(ac.causal_mask(3), torch_module.ones(3, 3, dtype=torch_module.bool))
    assert isinstance(mask, torch_module.Tensor)


def test_torch_overflow_and_float16_follow_the_same_rules(torch_module):
    q, k, v = (torch_module.tensor(a) for a in _qkv(1e20, np.float32))
    with pytest.raises(FloatingPointError, match="overflowed float32"):
        ac.scaled_dot_product_attention(q, k, v)
    q16, k16, v16 = (torch_module.tensor(a) for a in _qkv(100.0, np.float16))
    for need_weights in (True, False):
        out, _ = ac.scaled_dot_product_attention(q16, k16, v16, need_weights=need_weights)
        assert out.dtype == torch_module.float16 and bool(torch_module.isfinite(out).all())
    tiny = ac.softmax(torch_module.tensor([1.0, 2.0, 3.0]), temperature=1e-50)
    assert tiny.tolist() == [0.0, 0.0, 1.0]


def test_from_torch_mha_refuses_what_it_cannot_translate(torch_module):
    nn = torch_module.nn
    with pytest.raises(ValueError, match="add_bias_kv"):
        ac.from_torch_mha(nn.MultiheadAttention(4, 2, add_bias_kv=True))
    with pytest.raises(ValueError, match="add_zero_attn"):
        ac.from_torch_mha(nn.MultiheadAttention(4, 2, add_zero_attn=True))
    with pytest.raises(ValueError, match="kdim"):
        ac.from_torch_mha(nn.MultiheadAttention(4, 2, kdim=3, vdim=3))
    with pytest.raises(TypeError, match="module: expected torch.nn.MultiheadAttention, got str"):
        ac.from_torch_mha("abc")


def test_to_torch_mha_checks_its_arguments(torch_module):
    with pytest.raises(TypeError, match="params: expected MultiHeadParams"):
        ac.to_torch_mha("abc")
    if not torch_module.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device here"):
            ac.to_torch_mha(ac.init_multihead(4, 2), device="cuda")
    with pytest.raises(TypeError, match="dtype"):
        ac.to_torch_mha(ac.init_multihead(4, 2), dtype="banana")


def test_torch_settings_are_validated_like_numpy(torch_module):
    x = torch_module.zeros(3, 4)
    with pytest.raises(TypeError, match="need_weights"):
        ac.scaled_dot_product_attention(x, x, x, need_weights="no")
    with pytest.raises(TypeError, match="dtype"):
        ac.additive_mask(torch_module.ones(2, 2, dtype=torch_module.bool), dtype=np.int32)
    with pytest.raises(ValueError, match="empty"):
        ac.softmax(torch_module.zeros(0))
