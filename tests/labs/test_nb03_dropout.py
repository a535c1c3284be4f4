"""Notebook 03's dropout lab: dropout zeroes random weights while training and keeps the expected weights;
at inference it is off; the temperature, not dropout, sets how peaked the weights are."""
import numpy as np
import pytest

from attention_core.core.softmax import softmax
from attention_core.labs.nb03_softmax import dropout_lab


def test_dropout_zeroes_some_weights_and_keeps_the_mean():
    w = softmax(np.array([2.0, 1.0, 0.5, 0.0, -1.0]))
    draws = dropout_lab.attention_dropout(np.broadcast_to(w, (20000, 5)), 0.5, 0)
    assert (draws == 0).any() and set(np.unique(np.round(draws[0] / w, 6))) <= {0.0, 2.0}
    assert np.allclose(draws.mean(axis=0), w, atol=0.01)
    assert np.array_equal(dropout_lab.attention_dropout(w, 0.5, 0, training=False), w)


def test_dropout_rejects_a_probability_of_one():
    with pytest.raises(ValueError, match="probability"):
        dropout_lab.attention_dropout(np.ones(3) / 3, 1.0, 0)


def test_the_table_shows_both_ways(lang):
    table = dropout_lab.dropout_vs_temperature(np.array([2.0, 1.0, 0.0]), seed=0, lang=lang)
    sums = table.values[:, -1]
    assert np.allclose(sums[:3], 1) and np.isclose(sums[-1], 1)      # softmax, two temperatures, inference
    assert table.values[1, 0] > table.values[0, 0] > table.values[2, 0]   # T = 0.5 sharper, T = 2 flatter
    assert np.allclose(table.values[-2, :-1], table.values[0, :-1], atol=0.02)   # the mean of many draws
    assert len(table.row_names) == 7 and "\n" in repr(table)
