"""Unit tests of multi-head attention and position encodings (NumPy path)."""
import numpy as np
import pytest

import attention_core as ac


def test_split_and_merge_heads_are_inverse():
    x = np.arange(2 * 3 * 8, dtype=float).reshape(2, 3, 8)     # (B, T, D)
    h = ac.split_heads(x, 4)
    assert h.shape == (2, 4, 3, 2)                               # (B, H, T, Dh)
    np.testing.assert_array_equal(h[0, 1, 2], x[0, 2, 2:4])
    np.testing.assert_array_equal(ac.merge_heads(h), x)


def test_init_is_seeded():
    a, b, c = ac.init_multihead(8, 2, seed=1), ac.init_multihead(8, 2, seed=1), ac.init_multihead(8, 2, seed=2)
    np.testing.assert_array_equal(a.w_q, b.w_q)
    assert not np.array_equal(a.w_q, c.w_q)


def test_multihead_equals_loop_over_heads():
    p = ac.init_multihead(8, 2, seed=0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 8))
    out, w = ac.multi_head_attention(x, x, x, p)
    assert out.shape == (5, 8) and w.shape == (2, 5, 5)
    heads = []
    for h in range(2):
        cols = slice(4 * h, 4 * h + 4)
        q = (x @ p.w_q + p.b_q)[:, cols]
        k = (x @ p.w_k + p.b_k)[:, cols]
        v = (x @ p.w_v + p.b_v)[:, cols]
        o, wh = ac.scaled_dot_product_attention(q, k, v)
        np.testing.assert_allclose(w[h], wh, rtol=1e-12)
        heads.append(o)
    np.testing.assert_allclose(out, np.concatenate(heads, -1) @ p.w_o + p.b_o, rtol=1e-12)


def test_cross_attention_lengths_and_mask():
    p = ac.init_multihead(8, 4, seed=0)
    rng = np.random.default_rng(1)
    dec, enc = rng.normal(size=(2, 3, 8)), rng.normal(size=(2, 6, 8))
    out, w = ac.multi_head_attention(dec, enc, enc, p, mask=ac.padding_mask([6, 4]))
    assert out.shape == (2, 3, 8) and w.shape == (2, 4, 3, 6)
    assert (w[1, :, :, 4:] == 0).all()


@pytest.mark.parametrize("q_batch, kv_batch, name", [((2,), (3,), "key"), ((2, 1), (5,), None), ((4,), (4, 4), None)])
def test_batch_axes_must_broadcast_without_a_mask(q_batch, kv_batch, name):
    """query batch 2 with key batch 3 was refused only when a mask came too; without one NumPy failed inside."""
    p = ac.init_multihead(d_model=8, n_heads=2, seed=0)
    q, kv = np.ones(q_batch + (3, 8)), np.ones(kv_batch + (4, 8))
    if name is None:                                   # broadcastable batches work
        out, w = ac.multi_head_attention(q, kv, kv, p)
        assert out.shape == np.broadcast_shapes(q_batch, kv_batch) + (3, 8)
        return
    with pytest.raises(ValueError, match=r"query and key: batch dimensions \(2,\) and \(3,\)"):
        ac.multi_head_attention(q, kv, kv, p)


def test_head_mask_ablates_a_head():
    p = ac.init_multihead(8, 2, seed=0, bias=False)
    x = np.random.default_rng(2).normal(size=(4, 8))
    full, _ = ac.multi_head_attention(x, x, x, p)
    none, _ = ac.multi_head_attention(x, x, x, p, head_mask=[0.0, 0.0])
    np.testing.assert_allclose(none, 0.0, atol=1e-15)
    one, _ = ac.multi_head_attention(x, x, x, p, head_mask=[1.0, 0.0])
    other, _ = ac.multi_head_attention(x, x, x, p, head_mask=[0.0, 1.0])
    np.testing.assert_allclose(one + other, full, rtol=1e-12)


def test_sinusoidal_table_values():
    pe = ac.sinusoidal_encoding(50, 16)
    assert pe.shape == (50, 16)
    np.testing.assert_allclose(pe[0, 0::2], 0.0)
    np.testing.assert_allclose(pe[0, 1::2], 1.0)
    np.testing.assert_allclose(pe[3, 2], np.sin(3 / 10000 ** (2 / 16)))
    assert ac.sinusoidal_encoding(4, 5).shape == (4, 5)          # odd widths work


def test_rope_preserves_norm_and_depends_only_on_offset():
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
    def score(m, n):
        qm = ac.apply_rope(q, positions=[m])
        kn = ac.apply_rope(k, positions=[n])
        return float((qm @ kn.T)[0, 0])
    assert score(5, 2) == pytest.approx(score(13, 10), rel=1e-12)
    assert score(5, 2) != pytest.approx(score(5, 3), rel=1e-6)
    x = rng.normal(size=(6, 8))
    np.testing.assert_allclose(np.linalg.norm(ac.apply_rope(x), axis=-1), np.linalg.norm(x, axis=-1))
    np.testing.assert_allclose(ac.apply_rope(x)[0], x[0])       # position 0 is not rotated


def test_rope_rejects_odd_width():
    with pytest.raises(ValueError, match="even"):
        ac.apply_rope(np.ones((3, 5)))
