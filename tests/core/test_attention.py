"""Unit tests of softmax and scaled dot-product attention (NumPy path)."""
import math

import numpy as np
import pytest

import attention_core as ac


def test_worked_example_of_seed_002():
    # q = [1, 0], k1 = [1, 0], k2 = [0, 1], d = 2, v1 = [2, 0], v2 = [0, 4]
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_allclose(ac.attention_scores(q, k, scale=1.0), [[1.0, 0.0]])
    np.testing.assert_allclose(ac.attention_scores(q, k), [[1 / math.sqrt(2), 0.0]])
    out, w = ac.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(w, [[0.670, 0.330]], atol=5e-4)
    np.testing.assert_allclose(out, [[1.340, 1.320]], atol=1e-3)
    # The seed mixes the values with the weights rounded to 3 digits: that gives its numbers exactly.
    np.testing.assert_allclose(np.round(w, 3) @ v, [[1.340, 1.320]], rtol=1e-12)
    # and exactly the formula, not just to three digits
    e = math.exp(1 / math.sqrt(2))
    np.testing.assert_allclose(w[0, 0], e / (e + 1), rtol=1e-14)


def test_softmax_rows_sum_to_one_and_order_is_kept():
    x = np.array([[1.0, 2.0, 3.0], [-5.0, 0.0, 5.0]])
    y = ac.softmax(x)
    np.testing.assert_allclose(y.sum(-1), 1.0)
    assert (np.argsort(y, -1) == np.argsort(x, -1)).all()


def test_softmax_is_stable_for_huge_float32_logits():
    x = np.array([1e4, -1e4, 0.0, 1e4], dtype=np.float32)
    y = ac.softmax(x)
    assert y.dtype == np.float32
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y, [0.5, 0.0, 0.0, 0.5])


def test_softmax_axis_and_temperature():
    x = np.array([[0.0, 1.0], [2.0, 4.0]])
    np.testing.assert_allclose(ac.softmax(x, axis=0).sum(0), 1.0)
    cold = ac.softmax([0.0, 1.0, 2.0], temperature=0.01)
    hot = ac.softmax([0.0, 1.0, 2.0], temperature=1000.0)
    np.testing.assert_allclose(cold, [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(hot, [1 / 3] * 3, atol=1e-3)
    np.testing.assert_allclose(ac.softmax([1.0, 3.0], temperature=2.0), ac.softmax([0.5, 1.5]))


def test_softmax_tiny_temperature_does_not_overflow():
    y = ac.softmax(np.array([1e4, 1e4 - 1, -1e4], dtype=np.float32), temperature=1e-30)
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y, [1, 0, 0])


def test_softmax_mask_gives_exact_zeros_and_fully_masked_row_is_zero():
    x = np.arange(6.0).reshape(2, 3)
    mask = np.array([[True, False, True], [False, False, False]])
    y = ac.softmax(x, mask=mask)
    assert y[0, 1] == 0.0
    np.testing.assert_allclose(y[0].sum(), 1.0)
    assert (y[1] == 0).all() and not np.isnan(y).any()


def test_softmax_accepts_integer_lists():
    np.testing.assert_allclose(ac.softmax([0, 0]), [0.5, 0.5])


def test_attention_shapes_batch_and_dv():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(2, 3, 5, 4))        # (B, H, Tq, Dk)
    k = rng.normal(size=(2, 3, 7, 4))        # (B, H, Tk, Dk)
    v = rng.normal(size=(2, 3, 7, 6))        # (B, H, Tk, Dv)
    out, w = ac.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 5, 6) and w.shape == (2, 3, 5, 7)
    np.testing.assert_allclose(w.sum(-1), 1.0)


def test_attention_matches_explicit_formula():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(4, 8)), rng.normal(size=(6, 8)), rng.normal(size=(6, 3))
    s = q @ k.T / math.sqrt(8)
    e = np.exp(s - s.max(-1, keepdims=True))
    w_ref = e / e.sum(-1, keepdims=True)
    out, w = ac.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)
    np.testing.assert_allclose(out, w_ref @ v, rtol=1e-12)


def test_custom_scale():
    q, k, v = np.ones((1, 2)), np.array([[1.0, 1.0], [0.0, 0.0]]), np.eye(2)
    _, w1 = ac.scaled_dot_product_attention(q, k, v, scale=1.0)
    np.testing.assert_allclose(w1, [[math.e ** 2 / (math.e ** 2 + 1), 1 / (math.e ** 2 + 1)]])


def test_attention_fully_masked_row_gives_zero_output_not_nan():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    out, w = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    assert not np.isnan(out).any()
    assert (w[1] == 0).all() and (out[1] == 0).all()
    np.testing.assert_allclose(w[[0, 2]].sum(-1), 1.0)


def test_need_weights_false_returns_same_output():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    out1, w1 = ac.scaled_dot_product_attention(q, k, v)
    out2, w2 = ac.scaled_dot_product_attention(q, k, v, need_weights=False)
    assert w2 is None and w1 is not None
    np.testing.assert_allclose(out1, out2, rtol=1e-12)


def test_float32_stays_float32():
    q = np.ones((2, 4), dtype=np.float32)
    out, w = ac.scaled_dot_product_attention(q, q, q)
    assert out.dtype == np.float32 and w.dtype == np.float32


@pytest.mark.parametrize("t", [1, 2, 5])
def test_single_key_gets_all_the_weight(t):
    rng = np.random.default_rng(t)
    q, k, v = rng.normal(size=(t, 3)), rng.normal(size=(1, 3)), rng.normal(size=(1, 2))
    out, w = ac.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(w, 1.0)
    np.testing.assert_allclose(out, np.repeat(v, t, axis=0))
