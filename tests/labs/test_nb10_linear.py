"""Notebook 10's linear attention: the regrouped form equals its explicit weights, memory grows
linearly, and its weights are far flatter than softmax's (a planted needle gets little)."""
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb10_efficient_attention import efficient_lab, linear_lab


def test_feature_map_is_positive_and_elu_plus_one():
    x = np.array([-3.0, -0.5, 0.0, 2.0])
    phi = linear_lab.feature_map(x)
    assert (phi > 0).all() and np.allclose(phi, [np.exp(-3), np.exp(-0.5), 1.0, 3.0])


def test_regrouped_equals_explicit_weights():
    q, k, v = np.random.default_rng(0).standard_normal((3, 64, 8))
    w = linear_lab.linear_weights(q, k)
    assert np.allclose(w.sum(-1), 1) and (w > 0).all()
    assert np.allclose(linear_lab.linear_attention(q, k, v), w @ v)


def test_memory_grows_linearly():
    peaks = []
    for t in (1024, 2048, 4096):
        q, k, v = np.random.default_rng(t).standard_normal((3, t, 16))
        peaks.append(efficient_lab.traced_peak(linear_lab.linear_attention, q, k, v)[1])
    assert 1.7 < peaks[1] / peaks[0] < 2.3 and 1.7 < peaks[2] / peaks[1] < 2.3


def test_weights_are_flatter_than_softmax():
    q, k = np.random.default_rng(1).standard_normal((2, 128, 16))
    d = linear_lab.weight_distance(q, k)
    assert d["max_linear"] < d["max_softmax"] and 0 < d["tv"] < 1
    q, k = linear_lab.planted_key(t=512, d=16, strength=10.0, position=100)
    assert ac.scaled_dot_product_attention(q, k, k)[1][0, 100] > 0.99
    assert linear_lab.linear_weights(q, k)[0, 100] < 0.05


def test_inputs_are_checked():
    with pytest.raises((TypeError, ValueError)):
        linear_lab.linear_attention(np.ones(3), np.ones((3, 2)), np.ones((3, 2)))
