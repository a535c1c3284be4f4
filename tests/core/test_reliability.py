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
    ("rope float64 1.5e308", lambda: ac.apply_rope(np.full((3, 4), 1.5e308))),
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
    _clear_error(call, error, words)


def _clear_error(call, error, words) -> None:
    """call() raises `error` from the package's own code, with each of `words` in its message."""
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


# ---- 5. the Transformer parts (core.transformer): the same rules --------------------------------------------
from attention_core.core import transformer as tr  # noqa: E402


def _ln(x, dtype=np.float64, **kw):
    x = np.asarray(x, dtype)
    d = x.shape[-1]
    return tr.layer_norm(x, np.ones(d, dtype), np.zeros(d, dtype), **kw)


def _tiny(dtype=np.float64, scale=1.0):
    """A one-block decoder (V 5, D 4, H 2, F 4, T_max 4) with its embeddings scaled by `scale`."""
    w = tr.init_decoder(5, 4, 2, 1, 4, 4, seed=0, dtype=np.float64)
    with np.errstate(over="ignore"):
        w = {k: (v * scale if k in ("tok_emb", "pos_emb") else v).astype(dtype) for k, v in w.items()}
    return tr.decoder_from_dict(w, 2)


def _replace(params, **fields):
    import dataclasses
    return dataclasses.replace(params, **fields)


TRANSFORMER_OVERFLOW = [
    ("embed 1e308 tables", lambda: tr.embed([0, 1], np.full((3, 2), 1e308), np.full((4, 2), 1e308)), "float64"),
    ("embed float32 3e38", lambda: tr.embed([0], np.full((1, 2), 3e38, np.float32), np.full((1, 2), 3e38, np.float32)),
     "float32"),
    ("log_softmax 1e308 apart", lambda: tr.log_softmax([1e308, -1e308]), "float64"),
    ("feed_forward x W_1 overflows", lambda: tr.feed_forward(np.full((2, 3), 1e200), np.full((3, 4), 1e200),
                                                             np.zeros(4), np.ones((4, 3)), np.zeros(3)), "float64"),
    ("feed_forward float32 1e20", lambda: tr.feed_forward(*(np.full(s, 1e20, np.float32) for s in
                                                            ((2, 3), (3, 4), (4,), (4, 3), (3,)))), "float32"),
    ("layer_norm gamma 1.5e308", lambda: tr.layer_norm([[1.0, -1.0, 3.0, 0.0]], np.full(4, 1.5e308), np.zeros(4)),
     "float64"),
    ("layer_norm float16 gain 1e4", lambda: tr.layer_norm(np.array([[1, -1, 3, 0]], np.float16),
                                                          np.full(4, 6e4, np.float16), np.zeros(4, np.float16)),
     "float16"),
    ("decoder float32 embeddings 3e38", lambda: tr.decoder_forward(_replace(
        _tiny(np.float32), tok_emb=np.full((5, 4), 3e38, np.float32), pos_emb=np.full((4, 4), 3e38, np.float32)),
        [0, 1, 2]), "float32"),
]


@pytest.mark.parametrize("call, dtype", [c[1:] for c in TRANSFORMER_OVERFLOW], ids=[c[0] for c in TRANSFORMER_OVERFLOW])
def test_transformer_overflow_raises_a_clear_error(call, dtype):
    with pytest.raises(FloatingPointError, match=rf"(overflowed|beyond the largest) {dtype}") as info:
        call()
    assert "attention_core" in traceback.extract_tb(info.tb)[-1].filename


TRANSFORMER_FINITE = [
    # (id, call, expected values or None: finite is enough)
    ("layer_norm 1e200 rows", lambda: _ln([[1e200, -1e200, 1.0, 2.0]]), [[2 ** 0.5, -(2 ** 0.5), 0.0, 0.0]]),
    ("layer_norm float32 3e38", lambda: _ln([[3e38, -3e38, 1.0, 2.0]], np.float32), [[2 ** 0.5, -(2 ** 0.5), 0, 0]]),
    ("layer_norm float16 6e4", lambda: _ln([[6e4, -6e4, 1.0, 2.0]], np.float16), [[2 ** 0.5, -(2 ** 0.5), 0, 0]]),
    ("layer_norm float32 eps 1e-50, constant row", lambda: _ln([[1.0, 1.0, 1.0]], np.float32, eps=1e-50), [[0, 0, 0]]),
    ("layer_norm float32 eps 1e-50", lambda: _ln([[1.0, 2.0, 3.0]], np.float32, eps=1e-50),
     [[-(1.5 ** 0.5), 0.0, 1.5 ** 0.5]]),
    ("layer_norm eps 5e-324, constant 1e-300", lambda: _ln([[1e-300, 1e-300]], eps=5e-324), [[0.0, 0.0]]),
    ("layer_norm subnormal row", lambda: _ln([[5e-324, 0.0]]), [[0.0, 0.0]]),          # var + eps: eps wins
    ("layer_norm tiny spread, tiny eps", lambda: _ln([[1e-160, -1e-160]], eps=5e-324), [[1.0, -1.0]]),
    ("layer_norm eps dwarfs the variance", lambda: _ln([[1e-300, -1e-300]], eps=1e-320), [[1e-140, -1e-140]]),
    ("gelu float16 6e4 and -6e4", lambda: tr.gelu(np.array([6e4, -6e4], np.float16)), [6e4, 0.0]),
    ("gelu float64 1e300", lambda: tr.gelu(np.array([1e300, -1e300])), [1e300, 0.0]),
    ("log_softmax float16 logits", lambda: tr.log_softmax(np.array([6e4, 0.0], np.float16)), None),
    ("decoder float32 embeddings 1e30", lambda: tr.decoder_forward(_tiny(np.float32, 1e30), [0, 1, 2]), None),
    ("decoder float16", lambda: tr.decoder_forward(_tiny(np.float16), [0, 1, 2, 3]), None),
    ("decoder head_mask 1e20 float32", lambda: tr.decoder_forward(_tiny(np.float32), [0, 1], head_mask=np.full((1, 2), 1e20)),
     None),
]


@pytest.mark.parametrize("call, expected", [c[1:] for c in TRANSFORMER_FINITE], ids=[c[0] for c in TRANSFORMER_FINITE])
def test_transformer_parts_give_finite_results(call, expected):
    out = call()
    parts = out if isinstance(out, tuple) else (out,)
    assert finite(*parts)
    if expected is not None:
        np.testing.assert_allclose(np.asarray(out, np.float64), expected, rtol=2e-3, atol=1e-4 * (np.max(np.abs(
            expected)) >= 1e-100))


def test_layer_norm_float32_matches_float64_where_the_old_formula_broke():
    x = np.array([[3e38, 1e38, -2e38, 5.0], [1.0, 2.0, 3.0, 4.0]], np.float32)
    g, b = np.array([1.0, 2.0, 0.5, -1.0]), np.array([0.1, 0.0, -0.2, 0.3])
    got = tr.layer_norm(x, g.astype(np.float32), b.astype(np.float32))
    x64 = x.astype(np.float64) / 1e38                                     # LN is scale-invariant (eps aside)
    ref = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True)) * g + b
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-6)
    assert got.dtype == np.float32


def test_decoder_head_mask_1e20_gives_the_float64_answer():
    p32 = _tiny(np.float32)
    p64 = tr.decoder_from_dict({k: v.astype(np.float64) for k, v in tr.decoder_to_dict(p32).items()}, 2)
    mask = np.full((1, 2), 1e20)
    ids = [0, 3, 1, 2]
    l32, _ = tr.decoder_forward(p32, ids, head_mask=mask)
    l64, _ = tr.decoder_forward(p64, ids, head_mask=mask)
    assert l32[-1].argmax() == l64[-1].argmax()
    np.testing.assert_allclose(l32, l64, rtol=1e-3, atol=1e-3)


_P = _tiny()
TRANSFORMER_SETTINGS = [
    ("feed_forward inf b_1", lambda: tr.feed_forward(np.ones((2, 3)), np.ones((3, 4)), [np.inf] * 4, np.ones((4, 3)),
                                                     np.zeros(3)), ValueError, ["b_1", "NaN or infinity"]),
    ("feed_forward nan b_2", lambda: tr.feed_forward(np.ones((2, 3)), np.ones((3, 4)), np.zeros(4), np.ones((4, 3)),
                                                     [np.nan] * 3), ValueError, ["b_2", "NaN or infinity"]),
    ("feed_forward string b_1", lambda: tr.feed_forward(np.ones((2, 3)), np.ones((3, 4)), "abcd", np.ones((4, 3)),
                                                        np.zeros(3)), TypeError, ["b_1", "real numbers"]),
    ("block inf b_2", lambda: tr.transformer_block(np.ones((3, 4)), _replace(_P.blocks[0], b_2=np.full(4, np.inf))),
     ValueError, ["b_2", "NaN or infinity"]),
    ("block inf b_1", lambda: tr.transformer_block(np.ones((3, 4)), _replace(_P.blocks[0], b_1=np.full(4, -np.inf))),
     ValueError, ["b_1", "NaN or infinity"]),
    ("block nan ln2 gain", lambda: tr.transformer_block(np.ones((3, 4)), _replace(_P.blocks[0], ln2_g=np.full(4, np.nan))),
     ValueError, ["ln2_g", "NaN"]),
    ("decoder nan w_out", lambda: tr.decoder_forward(_replace(_P, w_out=np.full((4, 5), np.nan)), [0, 1]), ValueError,
     ["w_out", "NaN or infinity"]),
    ("decoder inf b_out", lambda: tr.decoder_forward(_replace(_P, b_out=np.full(5, np.inf)), [0, 1]), ValueError,
     ["b_out", "NaN or infinity"]),
    ("decoder w_out shape", lambda: tr.decoder_forward(_replace(_P, w_out=np.zeros((3, 5))), [0, 1]), ValueError,
     ["w_out", "(D, V)", "(3, 5)"]),
    ("decoder nan final LN", lambda: tr.decoder_forward(_replace(_P, lnf_b=np.full(4, np.nan)), [0, 1]), ValueError,
     ["lnf_b", "NaN"]),
    ("decoder return_hidden string", lambda: tr.decoder_forward(_P, [0, 1], return_hidden="no"), TypeError,
     ["return_hidden", "True or False", "'no'"]),
    ("decoder return_hidden 1", lambda: tr.decoder_forward(_P, [0, 1], return_hidden=1), TypeError, ["return_hidden"]),
    ("decoder head_mask beyond float32", lambda: tr.decoder_forward(_tiny(np.float32), [0, 1],
                                                                    head_mask=np.full((1, 2), 1e39)),
     ValueError, ["head_mask", "beyond the largest float32"]),
    ("decoder head_mask inf", lambda: tr.decoder_forward(_P, [0], head_mask=np.full((1, 2), np.inf)), ValueError,
     ["head_mask", "NaN or infinity"]),
    ("decoder ids float", lambda: tr.decoder_forward(_P, [0.5, 1.0]), TypeError, ["ids", "integer token ids"]),
    ("decoder ids ragged", lambda: tr.decoder_forward(_P, [[0], [1, 2]]), TypeError, ["ids", "integer token ids"]),
    ("decoder ids too long", lambda: tr.decoder_forward(_P, [0] * 5), ValueError, ["ids", "1..4 tokens"]),
    ("init_decoder int64", lambda: tr.init_decoder(5, 4, 2, 1, 4, 4, dtype=np.int64), TypeError, ["dtype", "int64"]),
    ("init_decoder bool", lambda: tr.init_decoder(5, 4, 2, 1, 4, 4, dtype=bool), TypeError, ["dtype", "float"]),
    ("layer_norm eps inf", lambda: _ln([[1.0, 2.0]], eps=float("inf")), ValueError, ["eps", "finite"]),
    ("layer_norm eps 0", lambda: _ln([[1.0, 2.0]], eps=0.0), ValueError, ["eps", "> 0"]),
    ("layer_norm eps True", lambda: _ln([[1.0, 2.0]], eps=True), ValueError, ["eps", "bool"]),
    ("layer_norm empty row", lambda: _ln(np.zeros((2, 0))), ValueError, ["x", "empty", "(2, 0)"]),
    ("layer_norm gamma shape", lambda: tr.layer_norm(np.ones((2, 3)), np.ones(2), np.zeros(3)), ValueError,
     ["gamma", "(3,)"]),
    ("log_softmax empty", lambda: tr.log_softmax([]), ValueError, ["logits", "empty"]),
    ("log_softmax axis", lambda: tr.log_softmax([1.0, 2.0], axis=3), ValueError, ["axis", "out of range"]),
    ("log_softmax nan", lambda: tr.log_softmax([1.0, float("nan")]), ValueError, ["logits", "NaN"]),
    ("gelu string", lambda: tr.gelu("1.0"), TypeError, ["x", "real numbers"]),
]


@pytest.mark.parametrize("call, error, words", [c[1:] for c in TRANSFORMER_SETTINGS],
                         ids=[c[0] for c in TRANSFORMER_SETTINGS])
def test_transformer_inputs_get_a_clear_error(call, error, words):
    _clear_error(call, error, words)


def test_the_transformer_table_is_large():
    assert len(TRANSFORMER_OVERFLOW) + len(TRANSFORMER_FINITE) + len(TRANSFORMER_SETTINGS) >= 45


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(DTYPES), st.data(), st.integers(1, 6), st.integers(0, 999))
def test_layer_norm_is_finite_and_normalised_at_any_magnitude(dtype, data, d, seed):
    magnitude = data.draw(magnitudes(dtype))
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        x = (rng.uniform(-1, 1, (3, d)) * magnitude).astype(dtype)
    if not finite(x):
        return
    out = _ln(x, dtype)
    assert out.dtype == dtype and finite(out)
    x64 = x.astype(np.float64)
    spread = x64.max(-1) - x64.min(-1)
    out64 = out.astype(np.float64)
    np.testing.assert_allclose(out64.mean(-1), 0.0, atol=5e-3 * max(1, d))
    clear = spread > 1e-2 * np.abs(x64).max(-1)                      # rows whose variance dwarfs eps and rounding
    clear &= np.abs(x64).max(-1) > 1e-1
    if d > 1 and clear.any():
        np.testing.assert_allclose(out64[clear].std(-1), 1.0, rtol=2e-2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DTYPES), st.data(), st.integers(1, 4), st.booleans())
def test_decoder_gives_finite_logits_or_a_clear_error(dtype, data, t, hidden):
    scale = data.draw(magnitudes(dtype))
    params = _tiny(dtype, scale)
    ids = data.draw(st.lists(st.integers(0, 4), min_size=t, max_size=t))
    if not finite(params.tok_emb, params.pos_emb):
        with pytest.raises(ValueError, match="NaN or infinity"):
            tr.decoder_forward(params, ids)
        return
    try:
        out = tr.decoder_forward(params, ids, return_hidden=hidden)
    except FloatingPointError as exc:
        assert dtype.__name__ in str(exc) and ("overflowed" in str(exc) or "beyond the largest" in str(exc))
        return
    assert len(out) == (3 if hidden else 2) and finite(*out)
    logits, weights = out[:2]
    assert logits.shape == (t, 5) and weights.shape == (1, 2, t, t)
    np.testing.assert_allclose(weights.astype(np.float64).sum(-1), 1.0, atol=2e-2)
    assert finite(tr.log_softmax(logits))


def test_rope_that_overflows_its_dtype_says_so_in_numpy_and_in_torch():
    with pytest.raises(FloatingPointError, match="apply_rope.*overflowed float16"):
        ac.apply_rope(np.full((3, 4), 60000, np.float16))
    torch = pytest.importorskip("torch")
    with pytest.raises(FloatingPointError, match="apply_rope.*overflowed float32"):
        ac.apply_rope(torch.full((3, 4), 3e38))


def test_the_numpy_transformer_block_refuses_a_tensor_and_names_the_torch_twin():
    torch = pytest.importorskip("torch")
    from attention_core.core import transformer as tr
    block = tr.decoder_from_dict(tr.init_decoder(10, 8, 2, 1, 16, 8, seed=0), 2).blocks[0]
    with pytest.raises(TypeError, match="torch tensor.*to_torch_decoder"):
        ac.transformer_block(torch.zeros(5, 8), block)


@pytest.mark.parametrize("call, error, words", [
    (lambda: ac.reference_softmax([]), ValueError, "at least one score"),
    (lambda: ac.padding_mask([[1], [2, 3]]), TypeError, "1-D list of non-negative integers"),
    (lambda: ac.padding_mask(np.array([2 ** 63], np.uint64)), ValueError, "below 2**63"),
    (lambda: ac.sinusoidal_encoding(1000, 1000, base=1e-308), ValueError, "base"),
    (lambda: ac.learned_position_table(4, 4, scale=1e308), FloatingPointError, "learned_position_table"),
], ids=["empty reference softmax", "ragged lengths", "uint64 length", "tiny base", "huge scale"])
def test_edge_inputs_found_by_a_hostile_caller_get_clear_errors(call, error, words):
    with pytest.raises(error, match=words.replace("*", r"\*")):
        call()


def test_a_causal_offset_beyond_any_size_is_all_or_nothing():
    assert ac.causal_mask(3, offset=10 ** 30).all() and not ac.causal_mask(3, offset=-10 ** 30).any()
    expected = np.arange(6)[None, :] <= np.arange(4)[:, None] + 2
    assert np.array_equal(ac.causal_mask(4, 6, offset=2), expected)       # ordinary offsets unchanged
