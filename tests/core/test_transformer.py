"""attention_core.core.transformer: layer norm, feed-forward, the pre-LN block and the causal decoder,
unit by unit (the torch twin against this forward: test_torch_decoder.py)."""
import math

import numpy as np
import pytest

import attention_core as ac
from attention_core.core import transformer as tr


@pytest.fixture(scope="module")
def small():
    """A random 2-layer decoder: V 11, D 16, H 4, F 24, T_max 9 (float64 for exact unit checks)."""
    w = tr.init_decoder(11, 16, 4, 2, 24, 9, seed=3, dtype=np.float64)
    rng = np.random.default_rng(1)
    w = {k: v + rng.normal(0, 0.3, v.shape) for k, v in w.items()}      # not the neutral start (LN gains 1, biases 0)
    return tr.decoder_from_dict(w, 4)


def test_layer_norm_normalises_the_last_axis_then_scales_and_shifts():
    x = np.random.default_rng(0).normal(3, 5, (2, 5, 8))
    y = tr.layer_norm(x, np.ones(8), np.zeros(8))
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(-1), 1, rtol=1e-4)                # biased variance, eps 1e-5
    g, b = np.arange(1.0, 9.0), np.full(8, -2.0)
    np.testing.assert_allclose(tr.layer_norm(x, g, b), y * g + b)
    np.testing.assert_allclose(tr.layer_norm(x + 100, g, b), tr.layer_norm(x, g, b), atol=1e-9)  # shift-invariant


def test_gelu_and_the_feed_forward_are_the_formulas():
    x = np.linspace(-4, 4, 9)
    expected = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))) for v in x]
    np.testing.assert_allclose(tr.gelu(x), expected, rtol=1e-10, atol=1e-15)
    rng = np.random.default_rng(2)
    x, w1, b1, w2, b2 = rng.normal(size=(3, 4)), rng.normal(size=(4, 6)), rng.normal(size=6), \
        rng.normal(size=(6, 4)), rng.normal(size=4)
    out = tr.feed_forward(x, w1, b1, w2, b2)
    for t in range(3):                                                 # position-wise: each row on its own
        np.testing.assert_allclose(out[t], tr.gelu(x[t] @ w1 + b1) @ w2 + b2)
    np.testing.assert_allclose(tr.feed_forward(x, np.zeros((4, 0)), np.zeros(0), np.zeros((0, 4)), b2),
                               np.broadcast_to(b2, (3, 4)))            # d_ff = 0: only b_2


def test_the_block_is_two_residual_steps_around_the_package_attention(small):
    x = np.random.default_rng(4).normal(size=(6, 16))
    block = small.blocks[0]
    out, w = tr.transformer_block(x, block, mask=ac.causal_mask(6))
    h = tr.layer_norm(x, block.ln1_g, block.ln1_b)
    attn, w_ref = ac.multi_head_attention(h, h, h, block.attn, mask=ac.causal_mask(6))
    x1 = x + attn
    x2 = x1 + tr.feed_forward(tr.layer_norm(x1, block.ln2_g, block.ln2_b), block.w_1, block.b_1, block.w_2, block.b_2)
    np.testing.assert_allclose(out, x2)
    np.testing.assert_allclose(w, w_ref)
    assert w.shape == (4, 6, 6)


def test_decoder_shapes_batches_and_the_residual_stream(small):
    ids = np.array([1, 4, 2, 9, 0, 3, 3])
    logits, w, hidden = tr.decoder_forward(small, ids, return_hidden=True)
    assert logits.shape == (7, 11) and w.shape == (2, 4, 7, 7) and hidden.shape == (3, 7, 16)
    np.testing.assert_allclose(hidden[0], small.tok_emb[ids] + small.pos_emb[:7])
    np.testing.assert_allclose(w.sum(-1), 1, atol=1e-12)
    assert np.all(np.triu(w, 1) == 0)                                  # causal: no weight on the future
    batch = np.stack([ids, ids[::-1]])
    lb, wb = tr.decoder_forward(small, batch)
    assert lb.shape == (2, 7, 11) and wb.shape == (2, 2, 4, 7, 7)
    np.testing.assert_allclose(lb[0], logits, atol=1e-12)
    np.testing.assert_allclose(lb[1], tr.decoder_forward(small, ids[::-1])[0], atol=1e-12)


def test_the_future_does_not_change_the_past(small):
    a, b = np.array([1, 2, 3, 4, 5]), np.array([1, 2, 3, 7, 8])
    la, lb = tr.decoder_forward(small, a)[0], tr.decoder_forward(small, b)[0]
    np.testing.assert_allclose(la[:3], lb[:3], atol=1e-12)
    assert not np.allclose(la[3:], lb[3:])


def test_head_mask_and_attn_mask(small):
    ids = np.array([5, 1, 2, 8, 3, 6])
    base = tr.decoder_forward(small, ids)[0]
    np.testing.assert_allclose(tr.decoder_forward(small, ids, head_mask=np.ones((2, 4)))[0], base)
    off = np.ones((2, 4))
    off[1, 2] = 0
    assert not np.allclose(tr.decoder_forward(small, ids, head_mask=off)[0], base)
    # attn_mask all True changes nothing; cutting key 0 for the last query changes only the last row
    np.testing.assert_allclose(tr.decoder_forward(small, ids, attn_mask=np.ones((6, 6), bool))[0], base)
    cut = np.ones((6, 6), bool)
    cut[5, 0] = False
    logits, w = tr.decoder_forward(small, ids, attn_mask=cut)
    np.testing.assert_allclose(logits[:5], base[:5], atol=1e-12)
    assert np.all(w[:, :, 5, 0] == 0) and not np.allclose(logits[5], base[5])


def test_flat_names_round_trip(small):
    flat = tr.decoder_to_dict(small)
    assert list(flat) == list(tr.parameter_shapes(11, 16, 2, 24, 9))
    again = tr.decoder_from_dict(flat, 4)
    np.testing.assert_array_equal(tr.decoder_forward(again, [1, 2, 3])[0], tr.decoder_forward(small, [1, 2, 3])[0])


@pytest.mark.parametrize("call, error, match", [
    (lambda p: tr.decoder_forward(p, np.array([1.0, 2.0])), TypeError, "integer token ids"),
    (lambda p: tr.decoder_forward(p, "the cat"), TypeError, "encode it first"),
    (lambda p: tr.decoder_forward(p, [1, 11]), ValueError, r"0\.\.10"),
    (lambda p: tr.decoder_forward(p, [-1, 2]), ValueError, "vocabulary"),
    (lambda p: tr.decoder_forward(p, list(range(10))), ValueError, "max_len"),
    (lambda p: tr.decoder_forward(p, np.zeros((1, 1, 3), int)), TypeError, r"\(T,\) or \(B, T\)"),
    (lambda p: tr.decoder_forward(p, [1, 2], head_mask=np.ones(4)), ValueError, "head_mask"),
    (lambda p: tr.decoder_forward(p, [1, 2], head_mask=np.ones((4, 2))), ValueError, r"\(L, H\) = \(2, 4\)"),
    (lambda p: tr.decoder_forward(p, [1, 2], attn_mask=np.ones((2, 2))), TypeError, "boolean"),
    (lambda p: tr.decoder_forward(p, [1, 2], attn_mask=np.ones((3, 3), bool)), ValueError, r"\(T, T\)"),
    (lambda p: tr.decoder_forward({"tok_emb": 1}, [1]), TypeError, "DecoderParams"),
    (lambda p: tr.layer_norm(np.ones((2, 3)), np.ones(4), np.zeros(3)), ValueError, "gamma"),
    (lambda p: tr.layer_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), eps=0), ValueError, "eps"),
    (lambda p: tr.feed_forward(np.ones((2, 3)), np.ones((3, 5)), np.ones(5), np.ones((4, 3)), np.ones(3)),
     ValueError, "w_2"),
    (lambda p: tr.feed_forward(np.ones((2, 3)), np.ones((2, 5)), np.ones(5), np.ones((5, 3)), np.ones(3)),
     ValueError, "w_1"),
    (lambda p: tr.transformer_block(np.ones((2, 16)), "block"), TypeError, "BlockParams"),
    (lambda p: tr.init_decoder(10, 15, 4, 2, 8, 8), ValueError, "divisible"),
])
def test_bad_input_gets_a_clear_error(small, call, error, match):
    with pytest.raises(error, match=match):
        call(small)


def test_decoder_from_dict_names_missing_and_misshaped_arrays(small):
    flat = dict(tr.decoder_to_dict(small))
    with pytest.raises(ValueError, match="l1_w_2"):
        tr.decoder_from_dict({k: v for k, v in flat.items() if k != "l1_w_2"}, 4)
    flat["l0_b_q"] = np.zeros(3)
    with pytest.raises(ValueError, match=r"l0_b_q: expected shape \(16,\)"):
        tr.decoder_from_dict(flat, 4)

