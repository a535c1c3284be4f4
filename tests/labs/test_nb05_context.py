"""Notebook 05's 银行倒闭 / 银行对面: one embedding, two contextual vectors after self-attention."""
import numpy as np

from attention_core.labs.nb05_self_and_cross_attention import context_lab


def test_bank_leans_to_the_side_its_context_cues():
    v = context_lab.bank_vectors()
    org, place = (context_lab.FEATURES.index(f) for f in context_lab.SENSES)
    a, b = v["collapse"]["vector"], v["opposite"]["vector"]
    assert a[org] > a[place] and b[place] > b[org]
    assert v["collapse"]["weights"].argmax() == 1 and v["opposite"]["weights"].argmax() == 1   # 倒闭, 对面
    assert context_lab.cosine(a, b) < context_lab.cosine(a, v["embedding"]) < 1


def test_the_table_in_both_languages(lang):
    table = context_lab.bank_table(lang=lang)
    n = len(context_lab.FEATURES)
    assert table.values.shape == (3, n + 2) and np.allclose(table.values[0, n:], 1)
    assert "银行" in repr(table)
    # every feature the cosines use is shown: recomputing a cosine from the table's columns gives its value
    a, b = table.values[1, :n], table.values[2, :n]
    assert np.isclose(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)), table.values[1, n + 1])
    assert np.isclose(table.values[1, n + 1], 3.5 / 4.5)
