"""Seed 3's route, measured (notebook 12): the shipped seed-3 model is the sweep's seed 3, it predicts the repeat
without a previous-token or an induction head, and the measurements that say how (where each head looks, which
path carries the copy, by activation patching through the hook points) are checked against the canonical seed-0
circuit and against computations written out here."""
import json
from importlib import resources

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_core.core import hooked
from attention_core.labs.nb12_trained_transformer import experiments as E
from attention_core.labs.nb12_trained_transformer import figures, load_trained, training

N = 60


@pytest.fixture(scope="module")
def ind():
    return load_trained("induction")


@pytest.fixture(scope="module")
def seed3():
    return load_trained("induction_seed3")


def test_the_shipped_seed_3_model_is_the_sweeps_seed_3_trained_by_make_train(seed3):
    table = json.loads((resources.files("attention_core.data") / "models" / "induction_sweep.json")
                       .read_text(encoding="utf-8"))
    row = next(r for r in table["rows"] if r["seed"] == 3)
    met = seed3.manifest["metrics"]
    for key in training.SWEEP_KEYS:
        assert met[key] == row[key], key
    assert seed3.manifest["seed"] == 3 and seed3.manifest["config"] == load_trained("induction").manifest["config"]
    assert "induction_seed3" in training.CONFIGS                  # `make train` (every name of CONFIGS) retrains it
    assert training.parse_args(["--overwrite-shipped"]).names == list(training.CONFIGS)


def test_route_scores_hold_the_previous_token_and_induction_scores_at_b_1_and_s_1(ind):
    rs = E.route_scores(ind, n=N)
    sc = E.scores_everywhere(ind, n=N)
    np.testing.assert_allclose(rs["lookback"][rs["backs"].index(1)], sc["previous"], atol=1e-12)
    np.testing.assert_allclose(rs["shifted"][rs["shifts"].index(1)], sc["induction"], atol=1e-12)
    # s = 0 is the earlier occurrence itself, written out for one sequence
    lay = E.random_layout(1, seed=3)
    _, w = ind.forward(lay["ids"])
    f, s, h = int(lay["first"][0]), int(lay["second"][0]), int(lay["half"][0])
    q = np.arange(s, s + h)
    want = w[0][:, :, q, q - (s - f)].mean(-1)
    np.testing.assert_allclose(E.route_scores(ind, n=1, seed=3)["shifted"][0], want, atol=1e-12)
    with pytest.raises(ValueError, match="shifts"):
        E.route_scores(ind, n=2, shifts=(-1,))
    with pytest.raises(ValueError, match="backs"):
        E.route_scores(ind, n=2, backs=(40,))
    with pytest.raises(ValueError, match="induction"):
        E.route_scores(load_trained("coreference"), n=2)


def test_seed_3_predicts_the_repeat_by_a_shifted_circuit(seed3):
    """No head scores 0.4 as previous-token or induction head, yet most of the repeat is predicted: layer 0 looks
    2-4 letters back, and layer 1's best head looks 3 or 4 letters after the earlier occurrence, not 1."""
    sc = E.scores_everywhere(seed3)
    assert sc["previous"][0].max() < E.CIRCUIT_MIN and sc["induction"][1].max() < E.CIRCUIT_MIN
    assert E.in_context(seed3)["accuracy"] > 0.9
    rs = E.route_scores(seed3)
    best_back = rs["backs"][int(np.argmax(rs["lookback"][:, 0].max(-1)))]
    best_shift = rs["shifts"][int(np.argmax(rs["shifted"][:, 1].max(-1)))]
    assert best_back >= 2 and best_shift >= 2
    assert rs["shifted"][:, 1].max() > 0.3                      # a sharp head, just at another offset


@pytest.mark.slow          # every layer-0 head patched into each path of layer 1, two models (make test runs it)
def test_path_patching_finds_key_composition_in_both_seeds(ind, seed3):
    """The clean output of a layer-0 head put into layer 1's keys only recovers most of the loss the corruption
    cost, into the queries or values only nothing (the corrupted letter is matched, not copied). Seed 0: the
    previous-token head; seed 3: its best layer-0 head, whose clean output matters at the changed letter + the
    shift its layer-1 heads use."""
    for model, least in ((ind, 0.9), (seed3, 0.5)):
        pp = E.path_patching(model, n=N)
        best = int(np.argmax(pp["k"]))
        assert pp["k"][best] > least, (model.name, pp["k"])
        assert np.abs(pp["q"]).max() < 0.1 and np.abs(pp["v"]).max() < 0.1, (model.name, pp)
    pt = E.patching_table(seed3, n=N)
    best = int(np.argmax(pt["recovered"][0]))
    assert pt["recovered"][0, best] > 0.5
    where = int(np.argmax(pt["by_position"][0, best]))
    rs = E.route_scores(seed3)
    assert where - E.CORRUPT_AT in rs["backs"][1:]               # the letter is read from 2-4 positions after it
    assert pt["recovered"][1].max() > 0.5                          # and a layer-1 head carries it at the query
    assert int(np.argmax(pt["by_position"][1, int(np.argmax(pt["recovered"][1]))])) == pt["query"]


def test_path_patching_equals_a_forward_written_out(seed3):
    """One head, the keys path, recomputed by hand: layer 1 reads keys from a residual stream in which the
    corrupted run's head output is swapped for the clean one."""
    pp = E.path_patching(seed3, n=8)
    clean, bad = E.patching_pairs(8)
    hm = seed3.hooked
    names = ["blocks.0.attn.hook_result", "blocks.1.hook_resid_pre"]
    _, cc = hm.run_with_cache(clean, names)
    lb, bc = hm.run_with_cache(bad, names)
    lc = hm(clean)
    head = 1
    resid = bc[names[1]] - bc[names[0]][:, head] + cc[names[0]][:, head]
    ln = hooked.layer_norm(resid, hm.weights["l1_ln1_g"], hm.weights["l1_ln1_b"])
    lp = hm.run_with_hooks(bad, {"blocks.1.attn.hook_k_input": lambda x, _: ln})
    query, want = E.HALF + E.CORRUPT_AT, clean[:, E.CORRUPT_AT + 1]

    def metric(logits):
        z = np.asarray(logits, np.float64)[:, query]
        z = z - z.max(-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return logp[np.arange(8), want].mean()

    share = (metric(lp) - metric(lb)) / (metric(lc) - metric(lb))
    assert pp["k"][head] == pytest.approx(share, abs=1e-6)      # float32 activations
    with pytest.raises(ValueError, match="induction"):
        E.path_patching(load_trained("coreference"), n=2)


def test_plot_routes_draws_one_row_per_model(ind, seed3):
    routes = {"0": E.route_scores(ind, n=N), "3": E.route_scores(seed3, n=N)}
    axes = figures.plot_routes(routes)
    assert axes.shape == (2, 2) and "3" in axes[1, 0].get_title()
    plt.close("all")
