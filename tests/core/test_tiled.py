"""attention_core.tiled_attention (online softmax over blocks of keys) against the plain formula.

The reference is `scaled_dot_product_attention`, itself tested against torch and the textbook
formula: equal to 1e-10 in float64 and 1e-5 in float32, on random shapes with a fixed seed, with
masks, fully masked rows, block sizes that do not divide Tk, several blocks of queries, and
+-1e4 logits. And the point of it all: peak memory grows linearly, not quadratically, with T.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attention_core as ac
from attention_core.core import tiled
from attention_core.teaching.measure import traced_peak

TOL = {np.float64: dict(rtol=1e-10, atol=1e-10), np.float32: dict(rtol=1e-5, atol=1e-5)}


def _qkv(rng, batch, tq, tk, dk, dv, dtype):
    return (rng.standard_normal(batch + (tq, dk)).astype(dtype), rng.standard_normal(batch + (tk, dk)).astype(dtype),
            rng.standard_normal(batch + (tk, dv)).astype(dtype))


def _check(q, k, v, mask=None, scale=None, block_size=128):
    out = ac.tiled_attention(q, k, v, mask=mask, scale=scale, block_size=block_size)
    ref, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    assert out.dtype == q.dtype and out.shape == ref.shape
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, ref, **TOL[q.dtype.type])
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", range(6))
def test_equal_to_the_plain_formula_on_random_shapes(dtype, seed):
    rng = np.random.default_rng(seed)
    batch = [(), (2,), (2, 3)][seed % 3]
    (tq, tk), (dk, dv) = rng.integers(1, 300, size=2).tolist(), rng.integers(1, 40, size=2).tolist()
    q, k, v = _qkv(rng, batch, tq, tk, dk, dv, dtype)
    for block_size in (1, 7, 64, 128, tk, tk + 5):
        _check(q, k, v, block_size=block_size)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("block_size", [1, 3, 10, 37, 100, 1000])
def test_masks_and_fully_masked_rows(dtype, block_size):
    rng = np.random.default_rng(block_size)
    q, k, v = _qkv(rng, (2,), 50, 101, 8, 5, dtype)                    # 101 keys: no block size divides it
    mask = rng.random((2, 50, 101)) < 0.3
    mask[0, 4] = False                                                 # a fully masked row
    mask[1, :, :60] = False                                            # whole blocks hidden for some sizes
    mask[1, 7] = False
    out = _check(q, k, v, mask=mask, block_size=block_size)
    assert (out[0, 4] == 0).all() and (out[1, 7] == 0).all()
    for m in (ac.causal_mask(50, 101, offset=51), ac.sliding_window_mask(50, 9, t_k=101, causal=False)):
        _check(q, k, v, mask=m, block_size=block_size)


def test_everything_masked_gives_zeros_not_nan():
    rng = np.random.default_rng(0)
    q, k, v = _qkv(rng, (), 6, 9, 4, 3, np.float64)
    out = ac.tiled_attention(q, k, v, mask=np.zeros((6, 9), dtype=bool), block_size=4)
    assert (out == 0).all()


def test_broadcast_batches_and_padding_masks():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 1, 7, 8))                               # (B, 1, Tq, Dk)
    k = rng.standard_normal((1, 3, 11, 8))                              # (1, H, Tk, Dk)
    v = rng.standard_normal((2, 3, 11, 4))                              # (B, H, Tk, Dv)
    mask = ac.padding_mask([11, 5], 11)[:, None]                        # (B, 1, 1, Tk)
    out = _check(q, k, v, mask=mask, block_size=4)
    assert out.shape == (2, 3, 7, 4)


def test_several_blocks_of_queries_with_a_mask(monkeypatch):
    monkeypatch.setattr(tiled, "_TILE_BYTES", 1)                       # the minimum rows per block of queries
    rng = np.random.default_rng(2)
    q, k, v = _qkv(rng, (3,), 70, 45, 6, 6, np.float64)                # 70 queries = 16 + 16 + 16 + 16 + 6
    mask = rng.random((3, 70, 45)) < 0.5
    mask[2, 33] = False
    out = _check(q, k, v, mask=mask, block_size=8)
    assert (out[2, 33] == 0).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_huge_logits_and_a_custom_scale_do_not_overflow(dtype):
    rng = np.random.default_rng(3)
    q, k, v = _qkv(rng, (), 20, 33, 4, 3, dtype)
    q = q * dtype(100)
    k = k * dtype(100)                                                  # logits around +-1e4 / 2
    _check(q, k, v, block_size=5)
    _check(q, k, v, scale=0.01, block_size=5)
    # scores rising block after block: the running max is replaced at every block
    k_rising = np.repeat(np.arange(33, dtype=dtype)[:, None], 4, axis=1) * dtype(50)
    _check(np.ones((2, 4), dtype), k_rising, v, block_size=4)


def test_output_does_not_depend_on_the_block_size():
    rng = np.random.default_rng(4)
    q, k, v = _qkv(rng, (), 40, 200, 16, 8, np.float64)
    outs = [ac.tiled_attention(q, k, v, block_size=b) for b in (1, 13, 64, 200, 999)]
    for out in outs[1:]:
        np.testing.assert_allclose(out, outs[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("block_size, error, match", [
    (0, ValueError, "block_size: expected an integer >= 1, got 0"),
    (2.5, TypeError, "block_size: expected an integer >= 1"),
    (True, TypeError, "block_size: expected an integer >= 1"),
])
def test_bad_block_sizes_are_refused(block_size, error, match):
    with pytest.raises(error, match=match):
        ac.tiled_attention(np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2)), block_size=block_size)


def test_inputs_are_validated_like_scaled_dot_product_attention():
    with pytest.raises(ValueError, match="q and k: expected the same width Dk"):
        ac.tiled_attention(np.ones((2, 3)), np.ones((4, 2)), np.ones((4, 2)))
    with pytest.raises(TypeError, match="mask: expected a boolean array"):
        ac.tiled_attention(np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2)), mask=np.ones((2, 4)))
    with pytest.raises(ValueError, match="scale: expected a finite number > 0"):
        ac.tiled_attention(np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2)), scale=-1.0)
    with pytest.raises(ValueError, match="contains NaN or infinity"):
        ac.tiled_attention(np.full((2, 3), np.nan), np.ones((4, 3)), np.ones((4, 2)))


def test_peak_memory_grows_linearly_not_quadratically():
    peaks = {}
    for t in (1024, 4096):
        rng = np.random.default_rng(0)
        q, k, v = (rng.standard_normal((t, 32)).astype(np.float32) for _ in range(3))
        peaks[t] = traced_peak(ac.tiled_attention, q, k, v)[1]
    assert peaks[4096] < 4096 * 4096 * 4 / 10                            # far below the (T, T) weights
    assert peaks[4096] / peaks[1024] < 4                                 # x4 longer: well under x16 memory


@st.composite
def qkv_mask(draw):
    tq, tk, dk, dv = draw(st.integers(1, 9)), draw(st.integers(1, 40)), draw(st.integers(1, 6)), draw(st.integers(1, 5))
    elements = st.floats(-5, 5, allow_nan=False, width=32)
    q = draw(hnp.arrays(np.float64, (tq, dk), elements=elements))
    k = draw(hnp.arrays(np.float64, (tk, dk), elements=elements))
    v = draw(hnp.arrays(np.float64, (tk, dv), elements=elements))
    mask = draw(st.none() | hnp.arrays(bool, (tq, tk)))
    return q, k, v, mask, draw(st.integers(1, 45))


@given(qkv_mask())
def test_property_equal_to_the_plain_formula(args):
    q, k, v, mask, block_size = args
    out = _check(q, k, v, mask=mask, block_size=block_size)
    if mask is not None:
        assert (out[~mask.any(-1)] == 0).all()
