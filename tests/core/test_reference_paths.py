"""Every fast path against the library's readable reference, `ac.reference_attention` / `ac.reference_softmax`.

The blocked NumPy attention (a block of query rows at a time, in place; without weights it
normalises the output instead of the weights), the tiled online-softmax path and the in-place
softmax are compared with the references computed in float64 from the same inputs, on random
shapes with a fixed seed, including blocks that do not divide T, masks, fully masked rows and
+-1e4 logits. The torch explicit and fused paths are held to the same oracle in test_torch_backend.
"""
import numpy as np
import pytest

import attention_core as ac
from attention_core import scaled_dot_product_attention, softmax
from attention_core.core import attention


def reference_attention(q, k, v, mask=None, scale=None):
    """The library's reference, computed in float64 from the same numbers."""
    return ac.reference_attention(*(np.asarray(x, dtype=np.float64) for x in (q, k, v)), mask=mask, scale=scale)


def reference_softmax(x, axis=-1, temperature=1.0, mask=None):
    """ac.reference_softmax in float64; a masked entry is a score so low that its weight is 0, a
    slice with every entry masked is all zeros (the library's convention)."""
    x = np.asarray(x, dtype=np.float64) / temperature
    if mask is None:
        return ac.reference_softmax(x, axis)
    mask = np.broadcast_to(mask, x.shape)
    out = ac.reference_softmax(np.where(mask, x, -1e300), axis)
    return np.where(mask.any(axis=axis, keepdims=True), out, 0.0)


def test_reference_attention_is_the_worked_example():
    # The source tutorial's example: weights [0.670, 0.330], output [1.340, 1.321].
    out, w = ac.reference_attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_allclose(w, [[0.66976155, 0.33023845]], rtol=1e-7)
    np.testing.assert_allclose(out, [[1.3395231, 1.3209538]], rtol=1e-7)


def test_reference_softmax_is_the_textbook_definition():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ac.reference_softmax(x), np.exp(x) / np.exp(x).sum(), rtol=1e-12)
    assert np.isfinite(ac.reference_softmax(np.array([1e4, -1e4]))).all()


@pytest.mark.parametrize("block_size", [1, 3, 7, 64])
def test_tiled_attention_matches_reference(block_size):
    rng = np.random.default_rng(11)
    q, k, v = rng.standard_normal((2, 9, 4)), rng.standard_normal((2, 13, 4)), rng.standard_normal((2, 13, 3))
    mask = rng.random((2, 9, 13)) < 0.6
    mask[0, 2] = False                                                     # a query that sees nothing
    for m in (None, mask):
        ref, _ = reference_attention(q, k, v, m)
        np.testing.assert_allclose(ac.tiled_attention(q, k, v, m, block_size=block_size), ref,
                                   rtol=1e-10, atol=1e-12)


TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


def check(q, k, v, mask=None, scale=None):
    """Run both need_weights settings; compare with the reference and with each other."""
    dtype = q.dtype.type
    ref_out, ref_w = reference_attention(q, k, v, mask, scale)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    out_nw, none = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale, need_weights=False)
    assert none is None
    assert out.dtype == w.dtype == out_nw.dtype == q.dtype                  # float32 stays float32
    assert out.shape == out_nw.shape == ref_out.shape and w.shape == ref_w.shape
    assert np.isfinite(out).all() and np.isfinite(w).all() and np.isfinite(out_nw).all()
    np.testing.assert_allclose(w, ref_w, **TOL[dtype])
    np.testing.assert_allclose(out, ref_out, **TOL[dtype])
    np.testing.assert_allclose(out_nw, ref_out, **TOL[dtype])
    return out, w, out_nw


@pytest.fixture
def small_blocks(monkeypatch):
    """Force blocks of 3 query rows, so that T = 10 runs as 3 + 3 + 3 + 1."""
    monkeypatch.setattr(attention, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(attention, "_MIN_BLOCK_ROWS", 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_random_shapes_match_reference(dtype, seed, small_blocks):
    rng = np.random.default_rng(seed)
    b, h = rng.integers(1, 3, size=2)
    tq, tk = rng.integers(1, 12, size=2)
    dk, dv = rng.integers(1, 9, size=2)
    q = rng.standard_normal((b, h, tq, dk)).astype(dtype)                  # (B, H, Tq, Dk)
    k = rng.standard_normal((b, h, tk, dk)).astype(dtype)                  # (B, H, Tk, Dk)
    v = rng.standard_normal((b, h, tk, dv)).astype(dtype)                  # (B, H, Tk, Dv)
    mask = rng.random((b, 1, tq, tk)) < 0.7                                 # (B, 1, Tq, Tk)
    check(q, k, v)
    check(q, k, v, mask=mask, scale=0.37)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_default_blocks_with_a_remainder(dtype):
    # 1500 float32 keys: 4 MiB blocks of 699 rows, so 699 + 699 + 102 with the real settings.
    rng = np.random.default_rng(1)
    t, d = 1500, 16
    row_bytes = t * np.dtype(dtype).itemsize
    rows = max(attention._MIN_BLOCK_ROWS, attention._BLOCK_BYTES // row_bytes)
    assert t % rows != 0 and rows < t                                      # several blocks, uneven
    q, k, v = (rng.standard_normal((t, d)).astype(dtype) for _ in range(3))
    causal = np.tril(np.ones((t, t), dtype=bool))
    check(q, k, v)
    check(q, k, v, mask=causal)


@pytest.mark.parametrize("need_weights", [True, False])
def test_fully_masked_rows_give_exact_zeros(need_weights, small_blocks):
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((2, 10, 4)).astype(np.float32) for _ in range(3))
    mask = rng.random((2, 10, 10)) < 0.5
    mask[0, [0, 4, 9]] = False                                             # rows in different blocks
    mask[1, :] = False                                                     # a whole batch entry
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, need_weights=need_weights)
    assert np.all(out[0, [0, 4, 9]] == 0) and np.all(out[1] == 0)
    if need_weights:
        assert np.all(w[0, [0, 4, 9]] == 0) and np.all(w[1] == 0)
        rows_with_keys = mask.any(axis=-1)
        np.testing.assert_allclose(w.sum(-1)[rows_with_keys], 1, rtol=1e-6)
        assert np.all(w[~np.broadcast_to(mask, w.shape)] == 0)             # masked weights exactly 0
    check(q, k, v, mask=mask)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_logits_stay_finite(dtype, small_blocks):
    # Scores of +-1e4: exp would overflow without the row-max shift.
    rng = np.random.default_rng(3)
    q = (rng.choice([-1.0, 1.0], size=(10, 4)) * 100).astype(dtype)
    k = (rng.choice([-1.0, 1.0], size=(7, 4)) * 50).astype(dtype)
    v = rng.standard_normal((7, 3)).astype(dtype)
    out, w, _ = check(q, k, v, scale=1.0)                                  # scores in {0, +-1e4, +-2e4}
    assert np.abs(q @ k.T).max() >= 1e4


def test_batch_broadcasting_shapes(small_blocks):
    rng = np.random.default_rng(4)
    q = rng.standard_normal((10, 5))                                       # (Tq, Dk), shared
    k = rng.standard_normal((3, 8, 5))                                     # (H, Tk, Dk)
    v = rng.standard_normal((8, 2))                                        # (Tk, Dv), shared
    out, w, _ = check(q, k, v)
    assert out.shape == (3, 10, 2) and w.shape == (3, 10, 8)
    # Only v batched: the weights keep q/k's shape, the output takes v's batch.
    out, w, _ = check(q, k[0], np.stack([v, 2 * v]))
    assert out.shape == (2, 10, 2) and w.shape == (10, 8)
    # A mask per batch entry of v over shared q, k: one set of weights per mask.
    mask = rng.random((4, 10, 8)) < 0.6
    out, w, _ = check(q, k[0], np.stack([v] * 4), mask=mask)
    assert out.shape == (4, 10, 2) and w.shape == (4, 10, 8)
    # A 1-D key-padding mask (Tk,) broadcasts over every query row.
    check(q, k, rng.standard_normal((3, 8, 2)), mask=np.arange(8) < 6)


def test_inputs_are_not_modified(small_blocks):
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((10, 4)).astype(np.float32) for _ in range(3))
    mask = rng.random((10, 10)) < 0.5
    copies = [x.copy() for x in (q, k, v, mask)]
    for need_weights in (True, False):
        scaled_dot_product_attention(q, k, v, mask=mask, need_weights=need_weights)
    for x, c in zip((q, k, v, mask), copies):
        np.testing.assert_array_equal(x, c)


def test_non_contiguous_inputs(small_blocks):
    # Views such as split heads' transposes reach the products without a copy.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((10, 2, 6)).astype(np.float32)                 # (T, H, Dh)
    q = k = v = np.swapaxes(x, 0, 1)                                       # (H, T, Dh), a view
    assert not q.flags.c_contiguous
    check(q, k, v, mask=np.tril(np.ones((10, 10), dtype=bool)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_in_place_core_matches_reference(dtype, axis):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((4, 5, 6)) * 30).astype(dtype)
    mask = rng.random((4, 5, 6)) < 0.6
    for temperature in (1.0, 0.01, 7.5):
        for m in (None, mask):
            got = softmax(x, axis=axis, temperature=temperature, mask=m)
            assert got.dtype == dtype
            np.testing.assert_allclose(got, reference_softmax(x, axis, temperature, m), **TOL[dtype])


def test_softmax_huge_logits_and_fully_masked_slice():
    x = np.array([[1e4, -1e4, 0.0], [3.0, 2.0, 1.0]], dtype=np.float32)
    mask = np.array([[True, True, True], [False, False, False]])
    got = softmax(x, mask=mask)
    np.testing.assert_array_equal(got[1], 0)
    np.testing.assert_allclose(got[0], [1, 0, 0])
    assert np.isfinite(softmax(x)).all()


@pytest.mark.parametrize("need_weights", [True, False])
def test_empty_batch(need_weights):
    q = np.zeros((0, 3, 4), dtype=np.float32)                              # (B=0, T, D)
    out, w = scaled_dot_product_attention(q, q, q, need_weights=need_weights)
    assert out.shape == (0, 3, 4) and (w is None or w.shape == (0, 3, 3))
