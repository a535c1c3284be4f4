"""Property tests (hypothesis): invariants that must hold for every input, not just examples."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attention_core as ac

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
dims = st.integers(1, 6)


@st.composite
def qkv(draw, dtype=np.float64):
    tq, tk, dk, dv = draw(dims), draw(dims), draw(dims), draw(dims)
    elements = st.floats(-5, 5, allow_nan=False, width=32)
    q = draw(hnp.arrays(dtype, (tq, dk), elements=elements))
    k = draw(hnp.arrays(dtype, (tk, dk), elements=elements))
    v = draw(hnp.arrays(dtype, (tk, dv), elements=elements))
    mask = draw(hnp.arrays(bool, (tq, tk)))
    return q, k, v, mask


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6), elements=finite))
def test_softmax_rows_sum_to_one_and_are_non_negative(x):
    y = ac.softmax(x)
    assert (y >= 0).all()
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-12)


@given(hnp.arrays(np.float64, st.integers(1, 8), elements=finite), st.floats(-1e3, 1e3))
def test_softmax_is_shift_invariant(x, c):
    np.testing.assert_allclose(ac.softmax(x + c), ac.softmax(x), atol=1e-12)


@given(hnp.arrays(np.float32, st.integers(1, 8), elements=st.floats(-1e4, 1e4, width=32)))
def test_softmax_never_overflows_in_float32(x):
    y = ac.softmax(x)
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y.sum(), 1.0, rtol=1e-5)


@given(qkv())
def test_masked_weights_are_exactly_zero_and_visible_rows_sum_to_one(args):
    q, k, v, mask = args
    out, w = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    assert (w[~mask] == 0).all()
    visible = mask.any(-1)
    np.testing.assert_allclose(w[visible].sum(-1), 1.0, rtol=1e-12)
    assert (w[~visible] == 0).all() and (out[~visible] == 0).all()
    assert np.isfinite(out).all()


@given(qkv(), st.randoms(use_true_random=False))
def test_attention_without_position_is_permutation_equivariant(args, rnd):
    q, k, v, _ = args
    n = min(len(q), len(k))
    x = np.concatenate([q[:n], k[:n]], axis=1)          # one sequence for self-attention
    perm = np.array(rnd.sample(range(n), n))
    out, w = ac.scaled_dot_product_attention(x, x, x)
    out_p, w_p = ac.scaled_dot_product_attention(x[perm], x[perm], x[perm])
    np.testing.assert_allclose(out_p, out[perm], atol=1e-10)
    np.testing.assert_allclose(w_p, w[perm][:, perm], atol=1e-12)


@given(qkv())
def test_output_is_a_convex_combination_of_values(args):
    q, k, v, _ = args
    out, _ = ac.scaled_dot_product_attention(q, k, v)
    assert (out <= v.max(0) + 1e-9).all() and (out >= v.min(0) - 1e-9).all()
