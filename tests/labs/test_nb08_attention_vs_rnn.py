"""labs.nb08_attention_vs_rnn.rnn_lab and the path-length widget: the claims notebook 08 makes are right,
and its figures and widget draw in both languages."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_core.core import rnn
from attention_core.labs.nb08_attention_vs_rnn import rnn_lab as rl
from attention_core.labs.nb08_attention_vs_rnn import widgets as W
from attention_core.teaching import i18n
from attention_core.teaching.widget_base import ERROR_COLOR


# --- path length ----------------------------------------------------------------------------------------
def test_path_length_is_the_distance_for_recurrences_and_one_for_attention():
    assert [rl.path_length(kind, 7) for kind in rl.KINDS] == [7, 7, 7, 1]
    with pytest.raises(ValueError, match="kind"):
        rl.path_length("transformer", 3)
    with pytest.raises(ValueError, match="distance"):
        rl.path_length("rnn", 0)


def test_exact_rnn_jacobians_match_finite_differences():
    params = rnn.init_rnn(5, 7, seed=3, recurrent_scale=1.2)
    xs = np.random.default_rng(1).normal(size=(9, 5))
    jac = rl.rnn_input_jacobians(params, xs)                       # (T, D_in, D_h)
    assert jac.shape == (9, 5, 7)
    def layer(x):
        return rnn.rnn_forward(x, params)
    for s in (0, 4, 8):
        np.testing.assert_allclose(jac[s], rl.finite_difference_jacobian(layer, xs, s), atol=1e-8)


def test_exact_jacobians_agree_with_the_finite_differences_of_rnn_py():
    """rnn.influence_of_first_input nudges x_0 along one random direction: the same number from J[0]."""
    params = rnn.init_rnn(4, 16, seed=0, recurrent_scale=0.9)
    lengths = [1, 5, 20]
    rng = np.random.default_rng(0)                                 # the draws influence_of_first_input makes
    xs = rng.normal(size=(max(lengths), 4))
    nudge = rng.normal(size=4)
    nudge /= np.linalg.norm(nudge)
    exact = [np.linalg.norm(nudge @ rl.rnn_input_jacobians(params, xs[:t])[0]) for t in lengths]
    np.testing.assert_allclose(rnn.influence_of_first_input(params, lengths), exact, rtol=1e-3)


def test_marker_sequence_moves_only_the_marker():
    rng = np.random.default_rng(0)
    distractors, marker, query = rng.normal(size=(6, 3)), rng.normal(size=3), rng.normal(size=3)
    for k in (1, 4, 7):
        xs = rl.marker_sequence(distractors, marker, query, k)
        assert xs.shape == (8, 3)
        np.testing.assert_array_equal(xs[7 - k], marker)
        np.testing.assert_array_equal(xs[-1], query)
        np.testing.assert_array_equal(np.delete(xs, [7 - k, 7], axis=0), distractors)
    with pytest.raises(ValueError, match=r"distance: expected an integer in 1..7"):
        rl.marker_sequence(distractors, marker, query, 8)


def test_influence_fades_along_the_rnn_and_stays_flat_for_attention():
    c = rl.influence_curves(n=32, d=8, recurrent_scale=0.9, seed=1)
    assert c["distances"].tolist() == list(range(1, 32))
    assert c["rnn"][-1] < 1e-5 * c["rnn"][0]
    assert (c["rnn"][8:] < c["rnn"][:-8]).all()                      # 8 more hand-offs always shrink it
    assert np.ptp(c["attention"]) < 1e-6 * c["attention"].mean()     # the same at every distance
    big = rl.influence_curves(n=32, d=8, recurrent_scale=3.0, seed=1)
    np.testing.assert_array_equal(big["attention"], c["attention"])  # attention has no chain to scale
    big = rl.influence_curves(recurrent_scale=3.0)                   # the widget's tokens (n=48, d=16)
    assert big["rnn"][-1] > 100 * big["rnn"][0]                      # here a large recurrent scale explodes
    c["rnn"][:] = 0                                                  # callers get copies, not the cache
    assert rl.influence_curves(n=32, d=8, recurrent_scale=0.9, seed=1)["rnn"][0] > 0


# --- parallelism --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 16, 300])
def test_sequential_steps_are_n_for_a_recurrence_and_one_for_attention(n):
    for kind in rl.RECURRENT:
        assert rl.sequential_steps(kind, n) == n
    assert rl.sequential_steps("attention", n) == 1


def test_critical_path_of_a_small_graph():
    assert rl.critical_path({("h", 0): [("x", 0)]}) == 1
    assert rl.critical_path({}) == 0
    graph = {("h", 0): [("x", 0)], ("h", 1): [("h", 0)], ("h", 2): [("x", 2)], ("h", 3): [("h", 1), ("h", 2)]}
    assert rl.critical_path(graph) == 3


def test_parallel_rounds_need_n_rounds_for_an_rnn_and_one_without_a_chain():
    params = rnn.init_rnn(6, 6, seed=0, recurrent_scale=0.9)
    xs = np.random.default_rng(0).normal(size=(20, 6))
    r = rl.parallel_rounds(rl.rnn_step(params), xs, np.zeros(6))
    assert r["rounds"] == 20 and r["correct"].tolist() == list(range(1, 21))
    np.testing.assert_allclose(r["reference"], rnn.rnn_forward(xs, params))
    def no_chain(x, h):
        return np.tanh(x @ params.w_x)
    assert rl.parallel_rounds(no_chain, xs, np.zeros(6))["rounds"] == 1
    stuck = rl.parallel_rounds(rl.rnn_step(params), xs, np.zeros(6), max_rounds=5)
    assert stuck["rounds"] is None and stuck["correct"].tolist() == [1, 2, 3, 4, 5]


def test_time_layers_returns_positive_seconds_per_length():
    t = rl.time_layers([4, 16], d=8, repeats=1)
    assert t["n"].tolist() == [4, 16] and (t["rnn"] > 0).all() and (t["attention"] > 0).all()
    assert isinstance(rl.plot_timings(t), plt.Axes)
    assert rl.time_layers([4], d=8, repeats=1, threads=None)["repeats"] == 1


# --- cost -----------------------------------------------------------------------------------------------
def test_layer_macs_term_by_term():
    assert rl.layer_macs("rnn", 10, 4) == {"input": 160, "recurrence": 160, "total": 320}
    assert rl.layer_macs("gru", 10, 4)["total"] == 6 * 10 * 16
    assert rl.layer_macs("lstm", 10, 4)["total"] == 8 * 10 * 16
    att = rl.layer_macs("attention", 10, 4)
    assert att == {"projections": 640, "scores": 400, "mix": 400, "total": 1440}


@pytest.mark.parametrize("d", [1, 8, 64, 512, 1000])
def test_crossover_is_at_n_equal_d(d):
    # leading terms n d^2 = n^2 d, and the full counts of a GRU (6 n d^2) and attention (4 n d^2 + 2 n^2 d)
    assert rl.crossover_length(d, "gru") == d
    assert rl.crossover_length(d, "lstm") == 2 * d
    n = d
    assert rl.layer_macs("rnn", n, d)["recurrence"] == rl.layer_macs("attention", n, d)["scores"]


def test_a_plain_rnn_layer_is_cheaper_than_attention_at_every_length():
    # 2 n d^2 against 4 n d^2 + 2 n^2 d: attention needs more multiply-adds from n = 1 on
    assert rl.crossover_length(64, "rnn") == 1
    with pytest.raises(ValueError, match="kind"):
        rl.crossover_length(64, "attention")


def test_largest_solved():
    assert rl.largest_solved([2, 4, 8], [1.0, 0.95, 0.2]) == 4
    assert rl.largest_solved([2, 4, 8], [0.5, 1.0, 1.0]) is None
    assert rl.largest_solved([2, 4, 8], [1.0, 1.0, 1.0]) == 8


# --- the trained comparison (torch) ---------------------------------------------------------------------
def test_recall_batch_and_models():
    torch = pytest.importorskip("torch")
    tokens, target = rl.recall_batch(5, 4, torch.Generator().manual_seed(0))
    assert tokens.shape == (4, 7) and target.shape == (4,)
    assert torch.equal(tokens[:, 0], target) and (target < rl.N_SYMBOLS).all()
    assert ((tokens[:, 1:-1] >= rl.N_SYMBOLS) & (tokens[:, 1:-1] < rl.QUERY_TOKEN)).all()
    assert (tokens[:, -1] == rl.QUERY_TOKEN).all()
    for kind in rl.MODEL_KINDS:
        assert rl.make_recall_model(kind, 8)(tokens).shape == (4, rl.N_SYMBOLS)
    a, b = rl.make_recall_model("gru", 8, seed=3), rl.make_recall_model("gru", 8, seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    with pytest.raises(ValueError, match="kind"):
        rl.make_recall_model("lstm")


def test_attention_learns_the_recall_task_quickly():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    model, losses = rl.train_recall("attention", 8, steps=150, seed=0)
    assert len(losses) < 150                                         # stopped early: learned
    assert rl.recall_accuracy(model, 8) > 0.9
    untrained = rl.make_recall_model("attention", seed=0)
    assert rl.recall_accuracy(untrained, 8) < 0.4                    # a short path alone answers nothing


def test_recurrent_step_reproduces_the_model_states():
    torch = pytest.importorskip("torch")
    tokens, _ = rl.recall_batch(6, 1, torch.Generator().manual_seed(1))
    for kind in ("rnn", "gru"):
        model = rl.make_recall_model(kind, 8, seed=0)
        step, embed = rl.recurrent_step(model)
        r = rl.parallel_rounds(step, embed(tokens[0]), np.zeros(8), tol=1e-5)
        with torch.no_grad():
            states, _ = model.rnn(model.embed(tokens))
        np.testing.assert_allclose(r["reference"], states[0].numpy(), atol=1e-5)
    with pytest.raises(TypeError, match="recurrent recall model"):
        rl.recurrent_step(rl.make_recall_model("attention", 8))


def test_recall_comparison_and_its_plot():
    pytest.importorskip("torch")
    res = rl.recall_comparison((2,), kinds=("attention",), steps=20, d=8)
    assert res["ks"].tolist() == [2] and res["accuracy"]["attention"].shape == (1,)
    assert res["steps"]["attention"][0] <= 20 and len(res["models"]["attention"]) == 1
    assert isinstance(rl.plot_recall(res), plt.Axes)


# --- figures --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_figures_draw_in_both_languages(lang):
    i18n.set_language(lang)
    ax = rl.plot_influence(rl.influence_curves(n=12, d=4), distance=3)
    assert ax.get_yscale() == "log" and ax.get_xlabel() == i18n.t("rnn_lab.distance")
    ax = rl.plot_macs()
    assert len(ax.lines) == 6 and ax.get_ylabel() == i18n.t("rnn_lab.macs")
    ax.figure.canvas.draw()


# --- the widget -----------------------------------------------------------------------------------------
def test_path_length_state():
    s = W.path_length_state(10, 0.9)
    assert s["rnn_path"] == 10 and s["attention_path"] == 1 and s["marker_index"] == 47 - 10
    assert s["rnn_kept"] < 0.05 and s["attention_kept"] == pytest.approx(1.0, abs=1e-6)
    assert s["rnn_influence"] == s["rnn"][9]
    with pytest.raises(ValueError, match="distance"):
        W.path_length_state(48)


def test_path_length_widget_redraws_and_speaks_chinese():
    panel = W.path_length_widget(distance=3)
    assert ERROR_COLOR not in panel.message.value
    assert "3 hand-offs" in panel.readout.value and "1 step" in panel.readout.value
    before = bytes(panel.images["path"].value)
    panel.controls["distance"].value = 40
    assert panel.state["distance"] == 40 and bytes(panel.images["path"].value) != before
    assert "all but lost" in panel.readout.value
    panel.controls["recurrent_scale"].value = 3.0
    assert "explodes" in panel.readout.value
    i18n.set_language("zh")
    assert "接力 10 次" in W.path_length_widget().readout.value
    assert repr(panel) == "<path_length widget>"


def test_path_length_widget_bad_inputs_give_a_message():
    assert ERROR_COLOR in W.path_length_widget(distance=0).message.value
    assert ERROR_COLOR in W.path_length_widget(recurrent_scale=-1).message.value
