"""Unit tests of the RNN baseline."""
import numpy as np
import pytest

from attention_core.core import rnn


def test_rnn_states_follow_the_recurrence():
    p = rnn.init_rnn(3, 5, seed=0)
    xs = np.random.default_rng(0).normal(size=(4, 3))
    hs = rnn.rnn_forward(xs, p)
    assert hs.shape == (4, 5)
    np.testing.assert_allclose(hs[2], np.tanh(xs[2] @ p.w_x + hs[1] @ p.w_h + p.b))


def test_batched_rnn_equals_one_by_one():
    p = rnn.init_rnn(3, 5, seed=1)
    xs = np.random.default_rng(1).normal(size=(2, 6, 3))
    np.testing.assert_allclose(rnn.rnn_forward(xs, p)[1], rnn.rnn_forward(xs[1], p))


def test_influence_of_the_first_input_fades_with_distance():
    p = rnn.init_rnn(4, 16, seed=0, recurrent_scale=0.9)
    infl = rnn.influence_of_first_input(p, [1, 5, 20, 40])
    assert (np.diff(infl) < 0).all() and infl[-1] < 1e-3 * infl[0]


def test_rnn_rejects_wrong_width():
    with pytest.raises(ValueError, match="D_in=3"):
        rnn.rnn_forward(np.zeros((4, 2)), rnn.init_rnn(3, 5))
