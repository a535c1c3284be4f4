"""nb10 linformer_lab: keys and values projected along the sequence, its distance from full attention, its memory, and
why a causal mask cannot follow the projection."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb10_efficient_attention import linformer_lab as L
from attention_core.teaching import i18n

RNG = np.random.default_rng(0)
Q, K, V = RNG.standard_normal((3, 256, 16))                       # (T, D) each


def test_projections_have_the_stated_shapes_and_rows():
    e = L.segment_projection(10, 4)
    assert e.shape == (4, 10)
    np.testing.assert_allclose(e.sum(axis=1), 1.0)                # each row a mean
    assert [r.tolist() for r in L.mixed_positions(e)] == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]
    np.testing.assert_array_equal(L.segment_projection(5, 5), np.eye(5))
    g = L.random_projection(2000, 50, seed=1)
    assert g.shape == (50, 2000)
    assert np.mean(g ** 2) * 50 == pytest.approx(1.0, rel=0.05)   # variance 1/k
    np.testing.assert_array_equal(g, L.random_projection(2000, 50, seed=1))   # seeded


def test_linformer_is_attention_over_the_projected_rows():
    e = L.random_projection(256, 32, seed=2)
    out, w = L.linformer_attention(Q, K, V, e, need_weights=True)
    assert w.shape == (256, 32) and out.shape == (256, 16)
    ref, _ = ac.scaled_dot_product_attention(Q, e @ K, e @ V)
    np.testing.assert_allclose(out, ref)
    f = L.segment_projection(256, 32)
    shared_not, _ = ac.scaled_dot_product_attention(Q, e @ K, f @ V)
    np.testing.assert_allclose(L.linformer_attention(Q, K, V, e, f), shared_not)


def test_segments_at_k_equal_t_are_exactly_full_attention():
    full, _ = ac.scaled_dot_product_attention(Q, K, V)
    np.testing.assert_allclose(L.linformer_attention(Q, K, V, L.segment_projection(256, 256)), full, atol=1e-12)


def test_error_falls_with_k_on_smooth_inputs_and_the_random_projection_is_no_approximation():
    q, k, v = L.smooth_inputs(256, 16, seed=4)
    rows = L.error_vs_k(q, k, v, (8, 32, 128, 256))
    seg = [r["segments"] for r in rows]
    assert seg == sorted(seg, reverse=True) and seg[-1] < 1e-12 and seg[2] < 0.1
    assert all(r["random"] > 0.5 for r in rows[:-1])              # far from full attention below k = T
    rand_rows = L.error_vs_k(Q, K, V, (32, 128))
    assert all(r["segments"] > 0.5 for r in rand_rows)            # random inputs: not low rank
    assert L.weight_rank(q, k) < L.weight_rank(Q, K)


def test_relative_error_is_zero_for_equal_outputs_and_one_for_zeros():
    assert L.relative_error(V, V) == 0
    assert L.relative_error(np.zeros_like(V), V) == pytest.approx(1.0)


def test_memory_comparison_orders_the_methods_and_linformer_grows_linearly():
    rows = L.memory_comparison([512, 1024, 2048], d=16, k=64, window=64)
    for r in rows:
        assert set(L.MEMORY_METHODS) <= set(r)
        assert r["naive"] > r["linformer"] and r["naive"] >= r["T"] ** 2 * 4
    lin = [r["linformer"] for r in rows]
    naive = [r["naive"] for r in rows]
    assert lin[2] / lin[1] < 2.5 and naive[2] / naive[1] > 3.5   # ~2x per doubling against ~4x
    assert L.memory_comparison([4096], naive_limit_bytes=1)[0]["naive"] is None


def test_the_causal_mask_cannot_follow_the_projection():
    x = np.random.default_rng(5).standard_normal((8, 4))
    c = L.causal_attempts(x, 4)
    future = np.triu(np.ones((8, 8), dtype=bool), 1)
    assert c["leak_causal"] == 0 and (c["causal"][future] == 0).all()
    assert c["leak_starts"] > 0.1                                 # its own segment brings the next token in
    assert c["starts"][0, 1] > 0                                  # query 0 moves with token 1
    assert c["leak_ends"] == 0
    assert c["blind_ends"].tolist() == [0]
    assert (c["ends"][2, 2] == 0) and (c["ends"][3, 3] > 0)       # query 2 cannot see itself, query 3 can
    with pytest.raises(ValueError, match="mask"):
        e = L.segment_projection(8, 4)
        ac.scaled_dot_product_attention(x, e @ x, e @ x, mask=ac.causal_mask(8))
    assert all(r.size == 1024 for r in L.mixed_positions(L.random_projection(1024, 8)))


@pytest.mark.parametrize("call, words", [
    (lambda: L.segment_projection(4, 5), "k: the projection keeps at most T = 4"),
    (lambda: L.random_projection(4, 0), "k"),
    (lambda: L.projection("learned", 4, 2), "kind: expected one of"),
    (lambda: L.linformer_attention(Q, K, V, np.ones((4, 10))), r"e: expected shape \(k, T = 256\)"),
    (lambda: L.linformer_attention(Q, K, V, np.ones((4, 256)), np.ones((5, 256))), "f: expected as many rows"),
    (lambda: L.relative_error(V[:3], V), "approx: expected shape"),
    (lambda: L.plot_memory_comparison([]), "rows"),
    (lambda: L.plot_error_vs_k({}), "rows"),
])
def test_bad_inputs_are_named(call, words):
    with pytest.raises(ValueError, match=words):
        call()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_figures_draw_with_translated_labels(lang):
    i18n.set_language(lang)
    try:
        ax = L.plot_memory_comparison(L.memory_comparison([256, 512], d=8, k=32, window=32))
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert i18n.t("linformer.method_linformer") in labels and len(labels) == 6
        plt.close(ax.figure)
        ax = L.plot_error_vs_k({"x": L.error_vs_k(Q[:64], K[:64], V[:64], (8, 64))})
        assert i18n.t("linformer.k_axis") == ax.get_xlabel()
        assert len(ax.get_legend().get_texts()) == 2
        plt.close(ax.figure)
    finally:
        i18n.set_language("en")
