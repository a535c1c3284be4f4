"""labs.nb09_cost_and_context_window.cost_lab and the context-cost widget: the counts, measurements and
position claims of notebook 09 are right, and its figures, widget and practice question work in both languages."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb09_cost_and_context_window import cost_lab as cl
from attention_core.labs.nb09_cost_and_context_window import widgets as W
from attention_core.teaching import i18n, quiz
from attention_core.teaching.widget_base import ERROR_COLOR


# --- counting -------------------------------------------------------------------------------------------
def test_pair_count_is_n_squared_and_matches_the_seed_numbers():
    assert cl.pair_count(1_000) == 1_000_000                 # seed 002: 1K tokens -> 100 万 pairs
    assert cl.pair_count(100_000) == 10_000_000_000          # 100K tokens -> 100 亿 pairs
    for n in (1, 7, 4096):
        assert cl.pair_count(2 * n) == 4 * cl.pair_count(n)  # doubling n quadruples the pairs
        assert cl.pair_count(10 * n) == 100 * cl.pair_count(n)
    _, w = ac.scaled_dot_product_attention(np.ones((9, 4)), np.ones((9, 4)), np.ones((9, 4)))
    assert w.size == cl.pair_count(9)


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)])
def test_pair_count_validates(bad, error):
    with pytest.raises(error, match="n_tokens"):
        cl.pair_count(bad)


def test_attention_cost_formulas():
    c = cl.attention_cost(1000, 512, n_heads=8, n_layers=6, dtype="float32")
    assert c["pairs_per_head"] == 1000 ** 2 and c["pairs"] == 1000 ** 2 * 8 * 6
    assert c["score_bytes"] == 8 * 1000 ** 2 * 4 and c["all_layers_bytes"] == 6 * c["score_bytes"]
    assert c["attention_flops"] == 4 * 1000 ** 2 * 512 * 6
    assert c["linear_flops"] == 24 * 1000 * 512 ** 2 * 6
    assert c["crossover"] == 6 * 512 and c["d_head"] == 64
    assert c["quadratic_share"] == pytest.approx(1000 / (1000 + 6 * 512))
    # The n^2 part does not depend on the number of heads; the stored weights do.
    one = cl.attention_cost(1000, 512, n_heads=1)
    assert one["attention_flops"] * 6 == c["attention_flops"] and one["score_bytes"] * 8 == c["score_bytes"]
    # At the crossover the two parts are equal.
    x = cl.attention_cost(6 * 512, 512)
    assert x["attention_flops"] == x["linear_flops"] and x["quadratic_share"] == 0.5
    assert cl.attention_cost(10, 64, dtype="bfloat16")["itemsize"] == 2
    assert cl.attention_cost(10, 64, d_ff=64)["crossover"] == 2 * 64 + 64


def test_score_bytes_match_a_real_multi_head_layer():
    d, h, n = 32, 4, 64
    params = ac.init_multihead(d, h, seed=0, dtype=np.float32)
    x = np.random.default_rng(0).normal(size=(n, d)).astype(np.float32)
    _, w = ac.multi_head_attention(x, x, x, params)                     # (H, T, T)
    assert w.nbytes == cl.attention_cost(n, d, h, dtype="float32")["score_bytes"]


@pytest.mark.parametrize("kwargs, message", [
    ({"n_heads": 3}, "n_heads: expected a divisor of d_model"),
    ({"dtype": "int4"}, "dtype"),
    ({"n_layers": 0}, "n_layers"),
    ({"d_ff": -1}, "d_ff"),
])
def test_attention_cost_validates(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cl.attention_cost(100, 64, **kwargs)


def test_formatting():
    assert cl.format_count(1_048_576, lang="en") == "1.0 M" and cl.format_count(1e10, lang="en") == "10.0 G"
    assert cl.format_count(512, lang="en") == "512"
    # the Chinese edition counts in 万 and 亿 (seed 002: 1K tokens -> 100 万 pairs, 100K tokens -> 100 亿)
    assert cl.format_count(1e6, lang="zh") == "100.0 万" and cl.format_count(1e10, lang="zh") == "100.0 亿"
    assert cl.format_count(1.02e13, lang="zh") == "10.2 万亿" and cl.format_count(512, lang="zh") == "512"
    assert cl.format_count(5.2e15, lang="zh") == "5.2×10¹⁵" and cl.format_count(-3e16, lang="zh") == "-3.0×10¹⁶"
    assert cl.format_bytes(4 * 2 ** 20) == "4.0 MiB" and cl.format_bytes(2 ** 41) == "2.0 TiB"
    assert cl.format_bytes(100) == "100 B"


# --- measuring ------------------------------------------------------------------------------------------
def test_peak_memory_is_the_weight_matrix_and_deterministic():
    rows = cl.measure_sweep((256, 512, 1024), d_k=16, timing=False)
    for r in rows:
        assert r["seconds"] is None
        assert r["weights_bytes"] <= r["peak_bytes"] <= r["weights_bytes"] + 4 * r["n_tokens"] * 16 * 4 + 65536
    again = cl.measure_sweep((256, 512, 1024), d_k=16, timing=False)
    for r, r2 in zip(rows, again):                     # Python's small objects vary by a few hundred bytes
        assert abs(r["peak_bytes"] - r2["peak_bytes"]) < 4096
    assert cl.growth_ratios([r["peak_bytes"] for r in rows])[-1] > 3.5


def test_blocked_attention_keeps_memory_below_the_full_matrix():
    full = cl.measure_attention(2048, d_k=16, timing=False)
    blocked = cl.measure_attention(2048, d_k=16, need_weights=False, timing=False)
    assert full["peak_bytes"] > full["weights_bytes"]
    assert blocked["peak_bytes"] < full["weights_bytes"] / 2


def test_peak_bytes_leaves_tracemalloc_as_it_found_it():
    import tracemalloc
    assert not tracemalloc.is_tracing()
    assert cl.peak_bytes(np.zeros, 1 << 20) >= 8 << 20
    assert not tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        assert cl.peak_bytes(np.zeros, 1 << 18) >= 2 << 20
        assert tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()


def test_timing_and_fits():
    r = cl.measure_attention(64, d_k=8, repeats=2)
    assert isinstance(r["seconds"], float) and r["n_tokens"] == 64 and r["d_k"] == 8   # timed (its value: benchmarks/)
    assert r["weights_bytes"] == 64 * 64 * 4                                     # one float32 (T, T) matrix
    np.testing.assert_allclose(cl.growth_ratios([1.0, 4.0, 16.0]), [4.0, 4.0])
    assert cl.loglog_slope([1, 2, 4, 8], [3, 12, 48, 192]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="at least 2"):
        cl.growth_ratios([1.0])
    with pytest.raises(ValueError, match="positive"):
        cl.loglog_slope([1, 2], [0, 1])


# --- lost in the middle ------------------------------------------------------------------------------------
def test_content_only_weight_does_not_depend_on_position_but_falls_with_n():
    w = cl.planted_key_weights(64, d_k=8, seed=3)
    assert w.shape == (64,)
    np.testing.assert_allclose(w, w[0], rtol=0, atol=1e-12)             # dilution is the same everywhere
    by_n = [cl.planted_key_weights(n, positions=[0, n // 2, n - 1], d_k=8, seed=3) for n in (16, 128, 1024)]
    for row in by_n:
        np.testing.assert_allclose(row, row[0], rtol=0, atol=1e-12)
    assert by_n[0][0] > by_n[1][0] > by_n[2][0]                         # ...and grows with the number of keys


def test_toy_position_bias_gives_a_u_shape():
    n = 256
    bias = cl.toy_position_bias(n)
    assert bias.shape == (n,) and bias[0] == pytest.approx(3.0, abs=0.01) and bias[-1] == pytest.approx(3.0, abs=0.01)
    w = cl.planted_key_weights(n, d_k=16, bias=bias, seed=0)
    flat = cl.planted_key_weights(n, positions=[0], d_k=16, seed=0)[0]
    middle = w[n // 4: 3 * n // 4]
    assert w[0] > 4 * middle.max() and w[-1] > 4 * middle.max()         # the ends beat the middle
    assert middle.max() < flat < min(w[0], w[-1])                       # below content-only in the middle
    assert int(np.argmin(w)) in range(n // 4, 3 * n // 4)
    # No bias, no U: the zero bias gives the content-only curve.
    np.testing.assert_allclose(cl.planted_key_weights(32, d_k=8, bias=np.zeros(32), seed=1),
                               cl.planted_key_weights(32, d_k=8, seed=1))


@pytest.mark.parametrize("kwargs, message", [
    ({"positions": [0, 9]}, "positions"), ({"positions": [0.5]}, "positions"),
    ({"bias": np.zeros(3)}, "bias: expected one number per key position"),
])
def test_planted_key_weights_validates(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cl.planted_key_weights(8, **kwargs)
    with pytest.raises(ValueError, match="at least 2"):
        cl.planted_key_weights(1)
    with pytest.raises(ValueError, match="start"):
        cl.toy_position_bias(8, start=-1.0)


# --- figures -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_figures_draw_into_the_given_axes(lang):
    i18n.set_language(lang)
    fig, axes = plt.subplots(1, 4)
    assert cl.plot_flops(512, ax=axes[0], mark=4096) is axes[0]
    rows = cl.measure_sweep((64, 128), d_k=8, repeats=1)
    assert cl.plot_measured(rows, "seconds", ax=axes[1]) is axes[1]
    assert cl.plot_measured(rows, "peak_bytes", ax=axes[2]) is axes[2]
    assert cl.plot_position_weights({"a": np.ones(5) / 5}, ax=axes[3]) is axes[3]
    assert axes[0].get_xlabel() == i18n.t("cost_lab.tokens")
    fig.canvas.draw()
    with pytest.raises(ValueError, match="key"):
        cl.plot_measured(rows, "flops")
    with pytest.raises(ValueError, match="rows"):
        cl.plot_measured(cl.measure_sweep((64,), d_k=8, timing=False), "seconds")


# --- the widget ------------------------------------------------------------------------------------------------
def test_context_cost_state_matches_attention_cost():
    s = W.context_cost_state(100_000, 32, 32, 4096, "bfloat16")
    c = cl.attention_cost(100_000, 4096, 32, 32, "bfloat16")
    assert all(s[k] == c[k] for k in c)
    assert s["pairs_per_head"] == 10_000_000_000
    assert s["gpu_ratio"] == pytest.approx(32 * 100_000 ** 2 * 2 / (80 * 2 ** 30))
    assert s["curve_n"].shape == s["curve_attention"].shape == s["curve_bytes"].shape
    with pytest.raises(ValueError, match="dtype"):
        W.context_cost_state(dtype="int8")


def test_context_cost_widget_curves_cover_all_layers_and_its_legend_says_so():
    """The widget's FLOP curves are a whole forward pass (L layers), so its legend carries the L of the formulas
    (the one-layer figure of the notebook keeps 4·n²·D and 24·n·D²)."""
    import inspect
    s = W.context_cost_state(4096, 32, 32, 4096, "bfloat16")
    one = W.context_cost_state(4096, 32, 1, 4096, "bfloat16")
    assert np.allclose(s["curve_attention"], 32 * one["curve_attention"])
    assert np.allclose(s["curve_linear"], 32 * one["curve_linear"])
    for lang in ("en", "zh"):
        assert "L·4·n²·D" in i18n.t("cost_lab.quadratic_all", lang)
        assert "L·24·n·D²" in i18n.t("cost_lab.linear_all", lang)
    source = inspect.getsource(W.context_cost_widget)
    assert "cost_lab.quadratic_all" in source and "cost_lab.linear_all" in source


def test_context_cost_widget_redraws_and_reads_out():
    panel = W.context_cost_widget()
    assert ERROR_COLOR not in panel.message.value
    assert "16,777,216" in panel.readout.value and "n = 24,576" in panel.readout.value
    before = bytes(panel.images["cost"].value)
    assert before.startswith(b"\x89PNG")
    panel.controls["n"].value = 1_000
    assert panel.state["pairs_per_head"] == 1_000_000 and "1,000,000" in panel.readout.value
    assert bytes(panel.images["cost"].value) != before
    flops = panel.state["attention_flops"]
    panel.controls["heads"].value = 8                      # heads change the memory, not the FLOPs
    assert panel.state["attention_flops"] == flops and panel.state["n_heads"] == 8
    panel.controls["d_model"].value = 1024
    assert panel.state["crossover"] == 6 * 1024
    panel.controls["n"].value = 1_048_576
    panel.controls["dtype"].value = "float32"
    assert "the memory of an 80 GiB GPU" in panel.readout.value
    panel.controls["layers"].value = 1
    assert panel.state["n_layers"] == 1


def test_context_cost_widget_speaks_chinese_and_reports_bad_input():
    i18n.set_language("zh")
    panel = W.context_cost_widget(n_tokens=100_000)
    assert "个 Query–Key 对" in panel.readout.value and "80 GiB 显卡" in panel.readout.value
    i18n.set_language("en")
    bad = W.context_cost_widget(n_tokens=3000)
    assert ERROR_COLOR in bad.message.value and "n_tokens" in bad.message.value
    assert ERROR_COLOR in W.context_cost_widget(n_heads=3).message.value


# --- the practice question --------------------------------------------------------------------------------------
def test_practice_question_p9():
    q = quiz.get_question("p9")
    assert q.part_of is None and q.kind == "number"
    assert q.pointer.notebook == "09_cost_and_context_window" and q.pointer.widget == "widgets.context_cost_widget"
    assert q.answer == cl.pair_count(4096)                                  # the library's own number
    assert quiz.check_answer(q, "16777216").correct and quiz.check_answer(q, "1.68e7").correct
    assert "n × n" in quiz.check_answer(q, 4096).message
    assert "multiply" in quiz.check_answer(q, 8192).message
    assert "bytes" in quiz.check_answer(q, 67108864).message
    assert "causal" in quiz.check_answer(q, 8390656).message
    assert [x.id for x in quiz.questions_for("09_cost_and_context_window")] == ["p9"]
    # A practice question is not one of the eight: the review quiz leaves it out.
    review = quiz.review_quiz().children
    assert "p9" not in [b.question.id for b in review[1].children]                            # the combined ones
    assert "p9" not in [b.question.id for pane in review[3].children for b in pane.children]  # the eight again
