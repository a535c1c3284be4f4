"""Unit tests of the mask builders and of masks inside attention."""
import numpy as np
import pytest

import attention_core as ac


def test_causal_mask_is_lower_triangle():
    np.testing.assert_array_equal(ac.causal_mask(4), np.tril(np.ones((4, 4), dtype=bool)))


def test_causal_mask_offset_for_kv_cache():
    m = ac.causal_mask(2, 5, offset=3)        # 2 new queries at positions 3 and 4 over 5 keys
    np.testing.assert_array_equal(m, [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])


def test_padding_mask_shape_and_values():
    m = ac.padding_mask([3, 1])
    assert m.shape == (2, 1, 3)
    np.testing.assert_array_equal(m[:, 0], [[1, 1, 1], [1, 0, 0]])
    assert ac.padding_mask([2], max_len=4).shape == (1, 1, 4)


def test_sliding_window_causal_and_symmetric():
    m = ac.sliding_window_mask(5, 2)
    assert m.sum(-1).tolist() == [1, 2, 2, 2, 2]
    assert not m[4, 2] and m[4, 3] and m[4, 4] and not m[3, 4]
    s = ac.sliding_window_mask(5, 2, causal=False)
    assert s.sum(-1).tolist() == [2, 3, 3, 3, 2]


def test_combine_masks_is_logical_and_with_broadcasting():
    pad = ac.padding_mask([3, 2])             # (2, 1, 3)
    causal = ac.causal_mask(3)                # (3, 3)
    m = ac.combine_masks(causal, pad, None)
    assert m.shape == (2, 3, 3)
    np.testing.assert_array_equal(m[1], causal & np.array([1, 1, 0], dtype=bool))


def test_additive_mask():
    a = ac.additive_mask(ac.causal_mask(2))
    assert a[0, 1] == -np.inf and a[1, 0] == 0.0


def test_masked_weights_are_exactly_zero_in_attention():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 8))                      # (B, T, D)
    mask = ac.combine_masks(ac.causal_mask(4), ac.padding_mask([4, 2]))
    _, w = ac.scaled_dot_product_attention(x, x, x, mask=mask)
    assert (w[~np.broadcast_to(mask, w.shape)] == 0).all()
    np.testing.assert_allclose(w.sum(-1), 1.0)


def test_causal_mask_makes_outputs_independent_of_the_future():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 4))
    y = x.copy()
    y[4:] = rng.normal(size=(2, 4))                     # change the last two tokens
    m = ac.causal_mask(6)
    out_x, _ = ac.scaled_dot_product_attention(x, x, x, mask=m)
    out_y, _ = ac.scaled_dot_product_attention(y, y, y, mask=m)
    np.testing.assert_allclose(out_x[:4], out_y[:4], rtol=1e-12)
    assert not np.allclose(out_x[4:], out_y[4:])
    unmasked_x, _ = ac.scaled_dot_product_attention(x, x, x)
    unmasked_y, _ = ac.scaled_dot_product_attention(y, y, y)
    assert not np.allclose(unmasked_x[:4], unmasked_y[:4])


def test_incremental_decoding_with_kv_cache_equals_full_masked_pass():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(3, 7, 4))
    full, _ = ac.scaled_dot_product_attention(q, k, v, mask=ac.causal_mask(7))
    steps = [ac.scaled_dot_product_attention(q[t:t + 1], k[:t + 1], v[:t + 1])[0] for t in range(7)]
    np.testing.assert_allclose(np.concatenate(steps), full, rtol=1e-12)


@pytest.mark.parametrize("bad, exc", [((0,), ValueError), ((2.5,), TypeError), ((True,), TypeError)])
def test_causal_mask_rejects_bad_sizes(bad, exc):
    with pytest.raises(exc, match="t_q"):
        ac.causal_mask(*bad)
