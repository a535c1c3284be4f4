"""Notebook 12's researcher's tools on the induction model: the per-position loss (the first letter of a copy
included), mean / resample ablation beside zero ablation, direct logit attribution per head and activation
patching, each against a computation written out here, and bad input answered with a clear error."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_core.core import transformer as tr
from attention_core.core.interventions import head_logit_attribution
from attention_core.core.validation import as_generator
from attention_core.labs.nb12_trained_transformer import corpora, figures, load_trained
from attention_core.labs.nb12_trained_transformer import experiments as E
from attention_core.labs.nb12_trained_transformer import widgets as W

N = 24                         # sequences per measurement here: small, the checks are exact


@pytest.fixture(scope="module")
def ind():
    return load_trained("induction")


@pytest.fixture(scope="module")
def coref():
    return load_trained("coreference")


def _log_probs(model, ids):
    return tr.log_softmax(np.asarray(model.forward(ids)[0], dtype=np.float64))          # (N, T, V)


# --- the per-position loss ----------------------------------------------------------------------------
def test_by_position_reads_the_loss_of_every_letter_the_first_one_of_the_copy_included(ind):
    o, half = 9, 6
    pos = E.by_position(ind, offsets=(o,), half=half, n=N, seed=5)
    ids = corpora.placed_repeats(as_generator(5), N, E.EVAL_LEN, half, o)               # the same draw, by hand
    logp = _log_probs(ind, ids)
    lp = np.array([[logp[i, t, ids[i, t + 1]] for t in range(E.EVAL_LEN - 1)] for i in range(N)])
    np.testing.assert_allclose(pos["loss"][0], -lp.mean(0), atol=1e-9)
    np.testing.assert_allclose(pos["logprob"], -pos["loss"])
    assert pos["first_loss"][0] == pytest.approx(-lp[:, o - 1].mean())                  # predicting letter 1
    assert pos["first_accuracy"][0] == pytest.approx(np.mean(logp[:, o - 1].argmax(-1) == ids[:, o]))
    np.testing.assert_allclose(pos["letter_loss"][0], -lp[:, o:o + half - 1].mean(0), atol=1e-9)
    assert pos["copy_loss"][0] == pytest.approx(pos["letter_loss"][0].mean())
    assert pos["after_loss"][0] == pytest.approx(-lp[:, o + half - 1:].mean())
    end = o + half - 1                                                                    # the copy's last letter
    assert pos["end_top"][0] == pytest.approx(np.mean(logp[:, end].argmax(-1) == ids[:, o]))
    assert pos["end_p"][0] == pytest.approx(np.mean(np.exp(logp[np.arange(N), end, ids[:, o]])))
    top = np.mean([logp[i, t].argmax() == ids[i, 0] for i in range(N) for t in range(1, o - 1)])
    p_first = np.mean([np.exp(logp[i, t, ids[i, 0]]) for i in range(N) for t in range(1, o - 1)])
    assert pos["start_top"][0] == pytest.approx(top) and pos["start_p"][0] == pytest.approx(p_first)
    # a copy that ends the window has no letters after it
    ends_window = E.by_position(ind, offsets=(17,), n=2)
    assert ends_window["after_loss"] == ends_window["end_top"] == ends_window["end_p"] == [None]


def test_the_first_letter_of_a_copy_is_not_predicted_and_its_accuracy_at_6_is_the_window_start(ind):
    pos = E.by_position(ind, n=60)
    chance = np.log(26)
    assert all(abs(x - chance) < 0.5 for x in pos["first_loss"]), pos["first_loss"]
    assert all(c < x - 0.5 for c, x in zip(pos["copy_loss"], pos["first_loss"]))        # letters 2..6 are
    assert min(pos["start_top"]) > 0.5 and max(pos["start_p"]) < 0.1                     # a weak default guess


def test_by_position_refuses_layouts_that_do_not_fit(ind):
    with pytest.raises(ValueError, match="half: expected an integer >= 1"):
        E.by_position(ind, half=0, n=2)
    with pytest.raises(ValueError, match="do not fit"):
        E.by_position(ind, offsets=(20,), n=2)


def test_the_per_position_figure_marks_the_first_letters_and_the_uniform_guess(ind):
    pos = E.by_position(ind, n=4)
    axes = figures.plot_by_position(pos)
    ringed = [ln for ln in axes[0].get_lines() if ln.get_marker() == "o" and ln.get_xdata().size == 1]
    assert sorted(int(ln.get_xdata()[0]) for ln in ringed) == [o - 1 for o in pos["offsets"]]
    assert any(ln.get_ydata()[0] == pytest.approx(np.log(26)) for ln in axes[0].get_lines()
               if ln.get_linestyle() == ":")
    plt.close("all")


# --- ablation four ways -----------------------------------------------------------------------------
@pytest.mark.slow          # every head ablated four ways (make test runs it)
def test_zero_ablation_through_the_hooks_equals_the_head_mask_table(ind):
    rows = {r["ablated"]: r for r in E.ablation_methods(ind)}
    for r in E.ablation_table(ind):
        if r["ablated"] in rows:
            assert rows[r["ablated"]]["zero"] == pytest.approx(r["loss"], abs=1e-6), r["ablated"]
    assert set(rows["-"]) >= set(E.ABLATIONS) and len({rows["-"][h] for h in E.ABLATIONS}) == 1


def test_mean_and_resample_ablation_against_hand_made_references(ind):
    # resampling a head from the very same sequences changes nothing
    same = E.ablation_methods(ind, heads=[(1, 2)], n=N, seed=3, reference_seed=3)
    assert same[1]["resample"] == pytest.approx(same[0]["zero"], abs=1e-9)
    # with one reference sequence, its mean at each position IS its output there: mean_by_position = resample
    one = E.ablation_methods(ind, heads=[(0, 0), (1, 1)], n=1, seed=3)
    for r in one[1:]:
        assert r["mean_by_position"] == pytest.approx(r["resample"], abs=1e-9), r["ablated"]
    # the single mean vector, by hand: run the reference, average head 1 of layer 1 over every position
    seqs, ref = E.eval_sequences(N, E.HALF, 3), E.eval_sequences(N, E.HALF, E.REFERENCE_SEED)
    _, cache = ind.hooked.run_with_cache(ref, ["blocks.1.attn.hook_z"])
    mean = np.asarray(cache["blocks.1.attn.hook_z"])[:, 1].reshape(-1, cache["blocks.1.attn.hook_z"].shape[-1]).mean(0)

    def hook(z, _):
        z = z.copy()
        z[:, 1] = mean
        return z
    logits = ind.hooked.run_with_hooks(seqs, {"blocks.1.attn.hook_z": hook})
    got = E.ablation_methods(ind, heads=[(1, 1)], n=N, seed=3)[1]["mean"]
    assert got == pytest.approx(E.repeat_loss(logits, seqs), abs=1e-9)


@pytest.mark.slow          # every head under each ablation (make test runs it)
def test_the_choice_of_ablation_changes_what_a_head_seems_to_do(ind):
    rows = {r["ablated"]: r for r in E.ablation_methods(ind)}
    base = rows["-"]["zero"]
    assert min(rows["L0H0"][h] for h in E.ABLATIONS) > base + 2                         # essential by every method
    # L1H3's output depends on the position: one mean over every position breaks the model, its mean at each
    # position does not
    assert rows["L1H3"]["mean"] > base + 0.5 and rows["L1H3"]["mean_by_position"] < base + 0.1


@pytest.mark.parametrize("heads, error, match", [
    ([(2, 0)], ValueError, r"heads: layer expected an integer in 0..1, got int 2"),
    ([(0, 4)], ValueError, r"heads: head expected an integer in 0..3"),
    ([(0,)], ValueError, r"heads: expected \(layer, head\) pairs"),
    ("L0H0", TypeError, r"heads: expected None \(every head\) or a list"),
    ([(True, 0)], ValueError, r"heads: layer expected an integer"),
])
def test_ablation_methods_names_a_bad_head(ind, heads, error, match):
    with pytest.raises(error, match=match):
        E.ablation_methods(ind, heads=heads, n=2)


def test_the_research_tools_want_the_induction_model(coref):
    for fn in (E.ablation_methods, E.logit_attribution, E.patching_table):
        with pytest.raises(ValueError, match="expected the induction model"):
            fn(coref)


# --- direct logit attribution --------------------------------------------------------------------------
def test_batched_attribution_equals_the_library_one_sequence_at_a_time(ind):
    seqs = E.eval_sequences(3, E.HALF, 9)
    target = np.roll(seqs, -1, axis=1)
    batched = E.direct_attribution(ind, seqs, target, relative=False)                   # (N, L, H, T)
    for i in range(3):
        np.testing.assert_allclose(batched[i], head_logit_attribution(ind.hooked, seqs[i], target[i]), atol=1e-9)
    # relative: minus the mean over the vocabulary, i.e. minus the library's attribution averaged over all targets
    every = np.mean([head_logit_attribution(ind.hooked, seqs[0], np.full(seqs.shape[1], v)) for v in range(26)], 0)
    rel = E.direct_attribution(ind, seqs[:1], target[:1])[0]
    np.testing.assert_allclose(rel, batched[0] - every, atol=1e-9)


def test_the_induction_heads_write_the_right_letter_and_layer_0_does_not(ind):
    la = E.logit_attribution(ind, n=60)
    assert la["repeat"].shape == la["first_copy"].shape == (2, 4)
    ind_heads = [h for h in range(4) if E.scores_everywhere(ind)["induction"][1, h] >= E.CIRCUIT_MIN]
    assert all(la["repeat"][1, h] > 0.5 for h in ind_heads), la["repeat"]
    assert np.abs(la["repeat"][0]).max() < 0.1 and np.abs(la["first_copy"]).max() < 0.1
    assert la["repeat"].sum() < la["logit"] + 0.5                                      # heads: most of the logit


def test_every_writer_into_the_residual_stream_adds_up_to_the_logit(ind):
    """The heads, the embeddings, the feed-forward blocks and the biases are each read through LN_f on their own;
    their sum is the model's own (right logit - mean logit): a missing writer or a wrong scale would break it."""
    la = E.logit_attribution(ind, n=20)
    assert la["parts"] == pytest.approx(la["repeat"].sum() + la["embeddings"] + la["feed_forward"] + la["biases"])
    assert la["parts"] == pytest.approx(la["logit"], abs=1e-4)
    assert abs(la["embeddings"]) > 1e-3                                     # a writer the heads' sum leaves out
    # the model has no feed-forward hidden layer: its feed-forward blocks write only their bias b_2
    assert ind.hooked.config.d_ff == 0


def test_direct_attribution_refuses_bad_targets(ind):
    seqs = E.eval_sequences(2, E.HALF, 9)
    with pytest.raises(ValueError, match="target: expected integer token ids of the shape of ids"):
        E.direct_attribution(ind, seqs, seqs[:, :3])
    with pytest.raises(ValueError, match=r"target: token ids must lie in 0..25"):
        E.direct_attribution(ind, seqs, seqs + 30)
    with pytest.raises(TypeError, match="relative: expected True or False"):
        E.direct_attribution(ind, seqs, seqs, relative="yes")


# --- activation patching -----------------------------------------------------------------------------
def test_patching_pairs_change_one_letter_of_the_first_copy_to_an_unused_one():
    clean, bad = E.patching_pairs(n=30)
    differ = clean != bad
    assert differ[:, E.CORRUPT_AT].all() and differ.sum() == len(clean)
    assert all(bad[i, E.CORRUPT_AT] not in clean[i] for i in range(len(clean)))
    for at in (-1, E.HALF - 1, 2.0, True):
        with pytest.raises(ValueError, match="at: expected the position of a letter of the first copy"):
            E.patching_pairs(at=at)


@pytest.mark.slow          # patches every position through the model (make test runs it)
def test_patching_recovers_what_a_hand_written_hook_recovers(ind):
    res = E.patching_table(ind, n=N)
    clean, bad = E.patching_pairs(n=N)
    q, want = E.HALF + E.CORRUPT_AT, clean[:, E.CORRUPT_AT + 1]

    def metric(logits):
        logp = tr.log_softmax(np.asarray(logits, np.float64)[:, q])
        return logp[np.arange(N), want].mean()
    _, cache = ind.hooked.run_with_cache(clean, ["blocks.0.attn.hook_z"])
    z_clean = np.asarray(cache["blocks.0.attn.hook_z"])

    def put_back(z, _):                                  # head 0 of layer 0 from the clean run, position 5 only
        z = z.copy()
        z[:, 0, E.CORRUPT_AT + 1] = z_clean[:, 0, E.CORRUPT_AT + 1]
        return z
    patched = metric(ind.hooked.run_with_hooks(bad, {"blocks.0.attn.hook_z": put_back}))
    assert res["clean"] == pytest.approx(metric(ind.hooked(clean)))
    assert res["corrupted"] == pytest.approx(metric(ind.hooked(bad)))
    assert res["by_position"][0, 0, E.CORRUPT_AT + 1] == pytest.approx(
        (patched - res["corrupted"]) / (res["clean"] - res["corrupted"]))
    # causal: before the changed letter the two runs are the same, so patching there recovers exactly nothing
    assert np.abs(res["by_position"][..., :E.CORRUPT_AT]).max() < 1e-9
    assert res["by_position"].shape == (2, 4, 2 * E.HALF) and res["query"] == q


@pytest.mark.slow          # patching every head at every position (make test runs it)
def test_patching_finds_the_previous_token_head_after_the_change_and_the_induction_heads_at_the_query(ind):
    res = E.patching_table(ind, n=60)
    prev = E.circuit_heads(ind)["previous"]
    assert res["recovered"][prev] > 0.8 and res["by_position"][prev][E.CORRUPT_AT + 1] > 0.8
    assert res["recovered"][1].sum() > 0.5 and res["by_position"][1][:, res["query"]].sum() > 0.5


# --- the intervention widget ----------------------------------------------------------------------------
@pytest.mark.slow          # ablates every head (make test runs it)
def test_intervention_state_reads_the_tables_and_ablates_now(ind):
    tables = {"attribution": E.logit_attribution(ind, n=N), "patching": E.patching_table(ind, n=N)}
    s = W.intervention_state(ind, 1, 2, "resample", tables)
    row = E.ablation_methods(ind, heads=[(1, 2)])[1]
    assert s["loss"] == pytest.approx(row["resample"]) and s["attribution"] == tables["attribution"]["repeat"][1, 2]
    assert s["recovered"] == tables["patching"]["recovered"][1, 2]
    with pytest.raises(ValueError, match=r"how: expected one of \('zero', 'mean', 'mean_by_position', 'resample'\)"):
        W.intervention_state(ind, 1, 2, "half", tables)
    with pytest.raises(ValueError, match="head: expected an integer in 0..3"):
        W.intervention_state(ind, 1, 7, "zero", tables)
    with pytest.raises(TypeError, match="tables: expected what intervention_tables"):
        W.intervention_state(ind, 1, 2, "zero", {"attribution": 1})


@pytest.mark.slow          # the widget recomputed for each control (make test runs it)
def test_the_intervention_widget_answers_its_controls(ind, coref):
    panel = W.intervention_widget(ind)
    first = panel.readout.value
    assert "L0H0" in first and not panel.message.value
    panel.controls["head"].value = (1, 2)
    panel.controls["how"].value = "zero"
    assert "L1H2" in panel.readout.value and panel.readout.value != first
    assert panel.state["loss"] == pytest.approx(E.ablation_methods(ind, heads=[(1, 2)])[1]["zero"])
    broken = W.intervention_widget(coref)
    assert "expected the induction model" in broken.message.value


def test_the_new_seeds_are_never_training_seeds():
    from attention_core.labs.nb12_trained_transformer import training
    used = {c["seed"] for c in training.CONFIGS.values()} | set(training.SWEEP_SEEDS) | {training.DYNAMICS_SEED}
    assert not {E.REFERENCE_SEED, E.PATCH_SEED, E.PATCH_SEED + 1} & used
