"""labs.nb10_efficient_attention.efficient_lab and the window-retrieval widget: the claims notebook 10 makes are right,
and its figures and widget draw in both languages."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb10_efficient_attention import efficient_lab as el
from attention_core.labs.nb10_efficient_attention import widgets as W
from attention_core.teaching import i18n
from attention_core.teaching.widget_base import ERROR_COLOR

SCORES = np.array([0.5, 1.0, -0.3, 0.2, 2.5, 0.1, 1.7, -1.0, 3.1, 0.4])
VALUES = np.array([[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1], [-1, 1], [0, 0], [3, 1], [1, 3]], dtype=float)




# --- the online softmax -----------------------------------------------------------------------------------
@pytest.mark.parametrize("block_size", [1, 3, 4, 10, 50])
def test_online_softmax_trace_ends_at_the_softmax_output(block_size):
    trace = el.online_softmax_trace(SCORES, VALUES, block_size)
    assert len(trace) == -(-10 // block_size)
    np.testing.assert_allclose(trace[-1]["output"], ac.softmax(SCORES) @ VALUES, atol=1e-12)
    assert trace[-1]["max"] == SCORES.max()
    assert trace[-1]["sum"] == pytest.approx(np.exp(SCORES - SCORES.max()).sum())
    assert trace[0]["rescale"] == 0.0 and all(0 < s["rescale"] <= 1 for s in trace[1:])
    np.testing.assert_allclose(trace[-1]["output"], ac.tiled_attention(SCORES[None, :], np.eye(10), VALUES,
                                                                        scale=1.0, block_size=block_size)[0])


def test_the_notebook_trace_numbers():
    trace = el.online_softmax_trace(SCORES, VALUES, 4)
    assert [s["max"] for s in trace] == [1.0, 2.5, 3.1]
    np.testing.assert_allclose([s["rescale"] for s in trace], [0.0, 0.223, 0.549], atol=5e-4)
    np.testing.assert_allclose(trace[-1]["output"], [1.395, 1.198], atol=5e-4)
    lse = trace[-1]["max"] + np.log(trace[-1]["sum"])
    np.testing.assert_allclose(np.exp(SCORES - lse), ac.softmax(SCORES), atol=1e-12)


def test_online_softmax_trace_validates():
    with pytest.raises(ValueError, match="values: expected 10 rows"):
        el.online_softmax_trace(SCORES, VALUES[:3], 2)
    with pytest.raises(ValueError, match="block_size: expected an integer >= 1"):
        el.online_softmax_trace(SCORES, VALUES, 0)


# --- memory -----------------------------------------------------------------------------------------------
def test_traced_peak_sees_numpy_buffers_and_nests():
    result, peak = el.traced_peak(np.zeros, (1024, 1024))                # 8 MiB of float64
    assert result.shape == (1024, 1024) and 8 * el.MIB <= peak < 9 * el.MIB
    import tracemalloc
    tracemalloc.start()
    try:
        assert el.traced_peak(np.ones, 1000)[1] >= 8000
        assert tracemalloc.is_tracing()                                  # left running for its owner
    finally:
        tracemalloc.stop()


def test_memory_rows_naive_is_quadratic_and_tiled_is_not():
    rows = el.memory_rows([256, 512, 1024], d=16, naive_limit_bytes=2 * el.MIB)
    assert [r["naive_peak"] is None for r in rows] == [False, False, True]
    for r in rows[:2]:
        assert r["naive_peak"] >= r["naive_analytic"] * 0.99             # the weights are the memory
    assert rows[1]["naive_peak"] / rows[0]["naive_peak"] > 3          # x2 longer: nearly x4 memory
    assert rows[1]["tiled_peak"] < rows[1]["naive_analytic"] and rows[2]["tiled_peak"] < rows[2]["naive_analytic"] / 3
    assert el.naive_bytes(16384, 32) == (16384 ** 2 + 16384 * 32) * 4


# --- windows and sparse patterns --------------------------------------------------------------------------
@pytest.mark.parametrize("t, w", [(1, 1), (5, 1), (16, 3), (40, 7), (10, 30)])
def test_window_pairs_counts_the_library_mask(t, w):
    assert el.window_pairs(t, w) == int(ac.sliding_window_mask(t, w, causal=False).sum())


def test_local_global_mask():
    m = el.local_global_mask(16, 3, n_global=1)
    assert m.sum() == 100 and m[0].all() and m[:, 0].all()
    np.testing.assert_array_equal(m[1:, 1:], ac.sliding_window_mask(16, 3, causal=False)[1:, 1:])
    np.testing.assert_array_equal(el.local_global_mask(8, 2, n_global=0), ac.sliding_window_mask(8, 2, causal=False))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("t, w, block", [(50, 5, 7), (64, 64, 16), (33, 1, 128), (100, 200, 9)])
def test_sliding_window_attention_equals_the_masked_formula(dtype, t, w, block):
    rng = np.random.default_rng(t + w)
    q, k, v = (rng.standard_normal((2, t, 6)).astype(dtype) for _ in range(3))
    out = el.sliding_window_attention(q, k, v, w, block_size=block)
    ref, _ = ac.scaled_dot_product_attention(q, k, v, mask=ac.sliding_window_mask(t, w, causal=False))
    tol = 1e-10 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)
    assert out.dtype == dtype
    rows = np.array([0, 9, t - 1])                                       # a few queries at given positions
    part = el.sliding_window_attention(q[:, rows], k, v, w, positions=rows, block_size=2)
    np.testing.assert_allclose(part, ref[:, rows], rtol=tol, atol=tol)


def test_sliding_window_attention_validates_positions():
    q, k = np.ones((2, 4)), np.ones((6, 4))
    with pytest.raises(ValueError, match="positions: needed when Tq"):
        el.sliding_window_attention(q, k, k, 2)
    with pytest.raises(ValueError, match="positions: expected 2 increasing integers in 0..5"):
        el.sliding_window_attention(q, k, k, 2, positions=np.array([3, 6]))
    with pytest.raises(ValueError, match="positions: expected 2 increasing integers"):
        el.sliding_window_attention(q, k, k, 2, positions=np.array([4, 1]))


# --- the needle task --------------------------------------------------------------------------------------
def test_needle_document_and_planting():
    doc = el.needle_document(300, n_trials=4, d=8, n_classes=5, strength=6.0, seed=1)
    assert doc["q"].shape == (4, 1, 8) and doc["k"].shape == (4, 300, 8) and doc["classes"].shape == (4, 300)
    np.testing.assert_allclose(np.linalg.norm(doc["q"], axis=-1), 6.0, rtol=1e-6)
    k, v = el.plant_needle(doc, 17)
    np.testing.assert_array_equal(k[:, 17], doc["q"][:, 0])
    np.testing.assert_array_equal(v[:, 17].argmax(-1), doc["answer"])
    np.testing.assert_array_equal(v.sum(-1), 1)
    assert not np.shares_memory(k, doc["k"]) and (doc["k"][:, 17] != k[:, 17]).any()   # doc untouched
    with pytest.raises(ValueError, match="position: expected an integer in 0..299"):
        el.plant_needle(doc, 300)
    a, b = el.needle_document(50, 2, seed=3), el.needle_document(50, 2, seed=3)
    np.testing.assert_array_equal(a["k"], b["k"])


def test_full_attention_finds_the_needle_and_the_window_only_when_it_can_see_it():
    doc = el.needle_document(2048, n_trials=16, seed=0)
    positions = el.depth_positions(2048, [0.0, 0.5, 0.9, 0.99])
    assert positions.tolist() == [0, 1024, 1842, 2027]
    acc = el.needle_accuracy(doc, positions, window=256)
    np.testing.assert_array_equal(acc["full"], 1.0)
    visible = (2047 - positions) < 256
    assert visible.tolist() == [False, False, True, True]
    np.testing.assert_array_equal(acc["window"][visible], 1.0)
    assert (acc["window"][~visible] < 0.5).all()
    assert len(set(acc["window"][~visible])) == 1                        # unseen: the needle's place changes nothing


def test_the_question_alone_equals_the_last_row_of_a_full_pass():
    doc = el.needle_document(512, n_trials=1, seed=2)
    q, k, v = el.prefill_inputs(doc, 100)
    assert q.shape == (512, 32) and v.shape == (512, 16)
    np.testing.assert_array_equal(q[-1], doc["q"][0, 0])
    for method in el.METHODS:
        full_pass = el.prefill(method, q, k, v, window=64)[-1]
        alone = el.answer_last_query(doc, k[None], v[None], method, window=64)[0]
        np.testing.assert_allclose(full_pass, alone, atol=1e-5)
    with pytest.raises(ValueError, match="method: expected one of"):
        el.prefill("sparse", q, k, v)
    with pytest.raises(ValueError, match="window: the 'window' method needs a window size"):
        el.prefill("window", q, k, v)


def test_measure_prefill_and_cost_summary():
    doc = el.needle_document(256, n_trials=1, seed=0)
    q, k, v = el.prefill_inputs(doc, 10)
    run = el.measure_prefill("window", q, k, v, window=32, budget_s=0.01, max_runs=4)
    assert 3 <= run["seconds"].size <= 4 and run["peak_bytes"] > 0          # how many runs, not how long they took
    assert run["output"].shape == (256, 16)
    s = el.cost_summary(1000, [0.1, 0.2, 0.3, 0.4])
    assert s["tokens_per_s"] == pytest.approx(4000) and s["median_ms"] == pytest.approx(250)
    assert s["p95_ms"] == pytest.approx(385) and s["runs"] == 4
    assert el.latencies(lambda: None, runs=3).shape == (3,)


def test_blas_threads_is_a_context_manager():
    with el.blas_threads(1):
        assert ac.tiled_attention(np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2))).shape == (2, 2)
    with pytest.raises(ValueError, match="n: expected an integer >= 1"):
        with el.blas_threads(0):
            pass


# --- figures ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_figures_draw_with_translated_labels(lang):
    i18n.set_language(lang)
    fig, axes = plt.subplots(1, 2)
    rows = [{"T": 256, "naive_analytic": 300000, "naive_peak": 310000, "tiled_peak": 90000, "tiled_per_token": 1.0},
            {"T": 1024, "naive_analytic": 4300000, "naive_peak": None, "tiled_peak": 200000, "tiled_per_token": 1.0}]
    assert el.plot_memory(rows, ax=axes[0]) is axes[0]
    acc = {("full", 1024): [1, 1, 1], ("window", 1024): [0.1, 0.1, 1]}
    assert el.plot_accuracy_by_position([0, 0.5, 0.99], acc, ax=axes[1], chance=1 / 16) is axes[1]
    assert axes[0].get_ylabel() == i18n.t("efficient_lab.peak_mib")
    labels = [t.get_text() for t in axes[1].get_legend().get_texts()]
    assert i18n.t("efficient_lab.curve", method=i18n.t("efficient_lab.method_window"), t="1,024") in labels
    fig.canvas.draw()
    plt.close(fig)
    with pytest.raises(ValueError, match="rows: expected at least one row"):
        el.plot_memory([])


# --- the widget -------------------------------------------------------------------------------------------
def test_window_retrieval_state():
    s = W.window_retrieval_state(128, 200, T=512)
    assert not s["visible"] and s["needle_window"] == 0.0 and s["needle_full"] > 0.99
    assert s["correct_full"] and s["position"] == 311
    assert s["weights_window"][~s["in_window"]].sum() == 0 and s["weights_window"].sum() == pytest.approx(1.0)
    assert s["pairs_full"] == 512 ** 2 and s["pairs_window"] == el.window_pairs(512, 128)
    near = W.window_retrieval_state(128, 127, T=512)
    assert near["visible"] and near["needle_window"] > 0.99 and near["correct_window"]
    assert not W.window_retrieval_state(128, 128, T=512)["visible"]        # distance W: just outside
    with pytest.raises(ValueError, match="distance: expected an integer in 0..511"):
        W.window_retrieval_state(128, 512, T=512)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_window_retrieval_widget_redraws_and_reports_errors(lang):
    i18n.set_language(lang)
    panel = W.window_retrieval_widget(256, window=32, distance=100)
    assert repr(panel) == "<window_retrieval widget>" and panel.message.value == ""
    before = bytes(panel.images["weights"].value)
    assert i18n.t("efficient_lab.readout_hidden", d=100, w=32) in panel.readout.value
    panel.controls["window"].value = 200
    assert bytes(panel.images["weights"].value) != before
    assert panel.state["visible"] and panel.state["correct_window"]
    assert i18n.t("efficient_lab.readout_visible", d=100, w=200) in panel.readout.value
    panel.controls["distance"].value = 255
    assert not panel.state["visible"]
    assert ERROR_COLOR in W.window_retrieval_widget(64, distance=64).message.value


def test_sizes_are_shorter_in_the_browser_and_the_full_sweeps_elsewhere(monkeypatch):
    native, browser = el.sizes("linux"), el.sizes("emscripten")
    assert el.sizes("darwin") == native and el.sizes("wasi") == browser
    assert native["needle"] == (1024, 4096, 16384) and native["memory"][-1] == 16384    # the tutorial's 1K, 4K, 16K
    assert set(browser) == set(native)
    for key in native:
        assert max(browser[key]) <= 2048 and min(browser[key]) == min(native[key]), key
        assert len(browser[key]) >= 2, key                          # still a sweep: a slope can be read
    monkeypatch.setattr("sys.platform", "emscripten")
    assert el.sizes() == browser                                   # the default reads the running platform
    browser["needle"] = ()
    assert el.sizes("emscripten")["needle"] == (1024, 2048)         # a copy: the caller cannot change the table
