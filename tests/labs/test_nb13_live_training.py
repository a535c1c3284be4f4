"""Notebook 13's live training: the recipes, the loop's API with every forward the notebook trains, the progress
display (widget, in-place line, plain text), and the learner's run as a model notebook 12's tools read.
Short runs only; the recipes' seconds are measured in benchmarks/train_live.py, never asserted here."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_core.core.training import lr_factor, save_model  # noqa: E402
from attention_core.labs.nb12_trained_transformer import experiments as nb12_exp  # noqa: E402
from attention_core.labs.nb12_trained_transformer.model import TrainedModel, from_files  # noqa: E402
from attention_core.labs.nb13_build_a_gpt import experiments, pieces, training  # noqa: E402


def _rec(step, steps=100, loss=2.5, valid=None, seconds=None, logged=False):
    return {"step": step, "steps": steps, "loss": loss, "valid": valid,
            "seconds": step / 20 if seconds is None else seconds, "logged": logged}


# --- the recipes ---------------------------------------------------------------------------------------
def test_the_live_recipes_are_the_run_configs_and_the_shipped_runs_are_them_on_another_seed():
    for name in training.RUN_NAMES:
        cfg = training.shipped_recipe(name)          # the live recipe, or for the text run the longer one
        man = training.load_run(name).manifest
        assert man["seed"] == training.SHIPPED_SEED != cfg["seed"]
        assert man["steps"] == cfg["steps"]
        assert {k: man["config"][k] for k in training.RECORDED} == {k: cfg[k] for k in training.RECORDED}


def test_recipe_refuses_unknown_keys_and_run_trains_the_config_it_is_given():
    with pytest.raises(ValueError, match=r"recipe: unknown key\(s\) \['stpes'\]"):
        training.recipe("induction", stpes=10)
    with pytest.raises(ValueError, match="name: expected one of"):
        training.recipe("poetry")
    out = training.run("induction", pieces.gpt_forward, config={"batch": 4, "log_every": 2, "steps": 4}, metrics=False)
    assert out["manifest"]["config"]["batch"] == 4 and [row[0] for row in out["curve"]] == [2, 4]
    assert "metrics" not in out["manifest"] and out["manifest"]["forward"] == "given"


def test_the_schedule_warms_up_then_falls_to_its_floor():
    steps, warmup = 100, 10
    f = [lr_factor(s, steps, warmup, 0.1) for s in range(steps)]
    assert f[0] == pytest.approx(0.1 * (0.1 + 0.9 * math.cos(0) * 1.0), rel=1e-6) or f[0] < f[warmup - 1]
    assert max(f) == pytest.approx(f[warmup - 1]) and f[warmup - 1] <= 1.0
    assert all(a >= b for a, b in zip(f[warmup:], f[warmup + 1:]))   # falls after the warm-up
    assert lr_factor(steps, steps, warmup, 0.1) == pytest.approx(0.1)
    assert lr_factor(steps, steps, warmup, 0.0) == pytest.approx(0.0, abs=1e-12)


# --- the loop takes every forward the notebook trains ---------------------------------------------------------
def test_the_loop_trains_the_library_forwards_and_a_parts_forward_alike():
    """gpt_forward, training_forward (fused) and a Parts object's gpt_forward are the same maths: 6 steps of the
    induction recipe give the same losses, to float32 rounding."""
    curves = {}
    for label, fwd in (("gpt", pieces.gpt_forward), ("fused", pieces.training_forward),
                       ("parts", pieces.Parts().gpt_forward)):
        out = training.run("induction", fwd, config={"batch": 8, "log_every": 1}, steps=6, metrics=False)
        curves[label] = np.array([[t, v] for _, t, v in out["curve"]])
    assert curves["gpt"].shape == (6, 2)
    np.testing.assert_allclose(curves["fused"], curves["gpt"], atol=2e-4)
    np.testing.assert_allclose(curves["parts"], curves["gpt"], atol=2e-4)
    assert curves["gpt"][-1, 0] < curves["gpt"][0, 0] + 0.5          # trained, not diverged


@pytest.mark.filterwarnings(r"ignore:Detected call of `lr_scheduler.step\(\)` before")
def test_the_learners_training_step_is_used_and_a_wrong_one_is_named():
    """step_fn replaces the loop's step: the library's step written again gives the same losses; a step that
    returns no loss, or forgets backward/step (the loss never moves), is caught or visible."""
    calls = []

    def my_step(forward, params, ids, optimizer):
        calls.append(ids.shape)
        logits, _ = forward(params, ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    cfg = {"batch": 8, "log_every": 1}
    ref = training.run("induction", pieces.gpt_forward, config=cfg, steps=5, metrics=False)
    mine = training.run("induction", pieces.gpt_forward, config=cfg, steps=5, metrics=False, step_fn=my_step)
    assert len(calls) == 5 and calls[0] == (8, training.CONFIGS["induction"]["max_len"] + 1)
    np.testing.assert_allclose(np.array(mine["curve"], float), np.array(ref["curve"], float), atol=1e-6)

    def no_update(forward, params, ids, optimizer):          # forgets backward and step: nothing learns
        logits, _ = forward(params, ids[:, :-1])
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))

    frozen = training.run("induction", pieces.gpt_forward, config=cfg, steps=5, metrics=False, step_fn=no_update)
    assert len({row[2] for row in frozen["curve"]}) == 1 != len({row[2] for row in ref["curve"]})
    with pytest.raises(TypeError, match="step_fn: expected the batch's loss as a 0-d tensor, got float"):
        training.run("induction", pieces.gpt_forward, config=cfg, steps=2, metrics=False,
                     step_fn=lambda f, p, ids, o: 1.0)
    with pytest.raises(FloatingPointError, match="step 1: the loss is nan"):
        training.run("induction", pieces.gpt_forward, config=cfg, steps=2, metrics=False,
                     step_fn=lambda f, p, ids, o: torch.tensor(float("nan")))


def test_a_run_uses_its_thread_count_and_restores_torchs():
    before = torch.get_num_threads()
    seen = []
    training.run("induction", pieces.gpt_forward, config={"batch": 4, "threads": 1}, steps=2, metrics=False,
                 progress=lambda rec: seen.append(torch.get_num_threads()))
    assert seen == [1, 1] and torch.get_num_threads() == before


def test_progress_gets_every_step_and_the_callback_every_logged_one():
    steps_seen, logged = [], []
    training.run("induction", pieces.gpt_forward, config={"batch": 4, "log_every": 3, "steps": 7}, metrics=False,
                 progress=lambda rec: steps_seen.append(rec), callback=lambda rec: logged.append(rec["step"]))
    assert [r["step"] for r in steps_seen] == list(range(1, 8)) and logged == [3, 6, 7]
    assert [r["logged"] for r in steps_seen] == [s in (3, 6, 7) for s in range(1, 8)]
    assert steps_seen[0]["valid"] is None and steps_seen[-1]["valid"] is not None
    assert all(np.isfinite(r["loss"]) and "seconds" in r and r["steps"] == 7 for r in steps_seen)


# --- the learner's run is a model like the shipped ones -------------------------------------------------------
def test_a_live_run_becomes_a_model_that_notebook_12s_tools_and_from_files_read(tmp_path):
    out = training.run("induction", pieces.Parts().gpt_forward, config={"batch": 8}, steps=5, metrics=False)
    model = training.to_model(out)
    assert isinstance(model, TrainedModel) and model.config["kind"] == "induction"
    ids = torch.as_tensor(nb12_exp.eval_sequences(3))
    want, _ = pieces.gpt_forward(pieces.torch_params(out["weights"], 4, dtype="float32"), ids)
    got, w = model.forward(nb12_exp.eval_sequences(3))
    np.testing.assert_allclose(got, want.numpy(), atol=1e-4)
    scores = nb12_exp.head_scores(model, n=10)
    assert scores["previous"].shape == (2, 4) and np.isfinite(scores["induction"]).all()
    best = experiments.best_heads(experiments.scores_by_position(experiments.numpy_forward(model), 32, n=4))
    assert set(best) == {"previous", "induction"}
    save_model(out, tmp_path)                                                # the learner may keep their run
    again = training.load_run("induction", tmp_path)
    seqs = nb12_exp.eval_sequences(2)
    np.testing.assert_array_equal(again.forward(seqs)[0], model.forward(seqs)[0])
    assert from_files(tmp_path / "nb13_induction.npz", tmp_path / "nb13_induction.json").name == "nb13_induction"
    with pytest.raises(TypeError, match="result: expected what training.run returns"):
        training.to_model(out["weights"])


def test_the_shipped_manifests_stay_loadable_by_notebook_12():
    for name in training.RUN_NAMES:
        files = training.load_run(name)
        json.dumps(files.manifest)
        assert files.manifest["config"]["kind"] == name and files.params.max_len == training.CONFIGS[name]["max_len"]


@pytest.mark.slow                      # the whole live induction recipe: ~20-30 s on 2 quiet cores
def test_the_live_induction_recipe_grows_both_heads():
    out = training.run("induction", pieces.Parts().gpt_forward, metrics=False)
    best = experiments.best_heads(experiments.scores_by_position(experiments.numpy_forward(training.to_model(out)),
                                                                 training.CONFIGS["induction"]["max_len"]))
    assert best["previous"]["mean"] >= nb12_exp.CIRCUIT_MIN and best["induction"]["mean"] >= nb12_exp.CIRCUIT_MIN
    assert best["previous"]["layer"] == 0 and best["induction"]["layer"] == 1


# --- what the notebook measures on the learner's runs ---------------------------------------------------------
@pytest.mark.slow          # scores the trained and an untrained model (make test runs it)
def test_induction_summary_finds_the_shipped_circuit_and_not_an_untrained_one():
    shipped = experiments.induction_summary(training.load_run("induction"))
    man = training.load_run("induction").manifest["metrics"]
    assert shipped["found"] and shipped["best"]["induction"]["mean"] == pytest.approx(man["induction_mean"], abs=1e-4)
    assert shipped["scores"]["previous"].shape[0] == training.CONFIGS["induction"]["max_len"] - 1
    cfg = training.CONFIGS["induction"]
    untrained = training.run("induction", pieces.gpt_forward, steps=1, metrics=False, config={"batch": 2})
    fresh = experiments.induction_summary(training.to_model(untrained))
    assert not fresh["found"] and fresh["repeated_half_loss"] > shipped["repeated_half_loss"] + 1.0
    assert cfg["max_len"] == training.to_model(untrained).params.max_len


@pytest.mark.parametrize("sample, text, lang, known, total", [
    ("the attention weightz of qxz", "The attention weights sum to one", "en", 2, 5),
    ("THE The the", "the", "en", 3, 3),                              # case does not matter
    ("a b c 1 2", "a b c", "en", 0, 0),                              # one-letter runs are not words
    ("注意力权重", "注意力的权重", "zh", 3, 4),                          # 注意 意力 权重 found, 力权 not
    ("注意 force 力", "注意", "zh", 1, 1),                              # pairs only of adjacent Chinese characters
])
def test_known_share_counts_pieces_of_the_training_text(sample, text, lang, known, total):
    out = experiments.known_share(sample, text, lang)
    assert (out["known"], out["total"]) == (known, total)
    assert out["share"] == (None if total == 0 else pytest.approx(known / total))


def test_known_share_refuses_an_unknown_language_and_non_text():
    with pytest.raises(ValueError, match="lang: expected one of"):
        experiments.known_share("abc", "abc", "fr")
    with pytest.raises(TypeError, match="expected strings"):
        experiments.known_share(["abc"], "abc", "en")


def test_a_sample_that_loops_on_blanks_prints_a_count_not_an_empty_cell():
    from attention_core.teaching import i18n
    sample = "注意力权重，\n\n\n" + " " * 196
    out = experiments.sample_report(sample, "注意力权重", "注意力的权重", "zh")
    assert out.splitlines()[0].strip() == "注意力权重， [196 spaces and 3 line breaks]"
    assert out.splitlines()[-1] == "(no pair of Chinese characters at all: nothing to count)"
    i18n.set_language("zh")
    assert "[196 个空格、3 个换行]" in experiments.sample_report(sample, "注意力权重", "注意", "zh")
    short = "a" + " " * (experiments.BLANK_RUN - 1) + "b"                       # a shorter run stays as it is
    assert experiments.visible(short) == short
    i18n.set_language("en")
    assert experiments.visible("a\n" + " " * 9 + "b") == "a [9 spaces and 1 line break] b"   # singular, ...
    assert experiments.visible("a" + " " * 8 + "b") == "a [8 spaces] b"                     # ... no zero part


@pytest.mark.parametrize("sample, line", [
    ("The " + "the " * 20, "(20 of 20 words occur in the training text: 100%)"),      # 20 words after the prompt
    ("The " + "the " * 18 + "qq", "(only 19 words: too few for a share)"),
    ("The qq", "(only 1 word: too few for a share)"),                            # one word, singular
    ("The 1 2 3", "(no words at all: nothing to count)"),
])
def test_sample_report_gives_a_share_only_when_there_is_enough_to_count(sample, line):
    assert experiments.sample_report(sample, "The ", "the", "en").splitlines()[-1] == line


@pytest.mark.parametrize("sample, prompt, min_counted, match", [
    ("abc", "xyz", 20, "starts with its prompt"), (b"abc", "a", 20, "starts with its prompt"),
    ("abc", "a", 0, "min_counted"), ("abc", "a", True, "min_counted"), ("abc", "a", 2.5, "min_counted"),
])
def test_sample_report_refuses_what_it_cannot_read(sample, prompt, min_counted, match):
    with pytest.raises(ValueError, match=match):
        experiments.sample_report(sample, prompt, "abc", "en", min_counted=min_counted)


def test_the_curves_baseline_is_the_bigram_on_the_curves_own_windows():
    data = training.TextData()
    cfg = training.CONFIGS["text"]
    win = training.text_valid_ids(data)
    per_lang = cfg["valid_tokens"] // cfg["max_len"]
    assert win.shape == (2 * per_lang, cfg["max_len"] + 1)
    for lang in ("en", "zh"):                                           # bigram() is bigram_of() on all windows
        assert data.bigram(lang, cfg["max_len"]) == data.bigram_of(data.valid_windows(lang, cfg["max_len"]))
    pooled = data.bigram_of(win)["loss"]
    parts_ = [data.bigram_of(win[:per_lang])["loss"], data.bigram_of(win[per_lang:])["loss"]]
    assert min(parts_) < pooled < max(parts_)                           # both languages in the one baseline


@pytest.mark.slow          # writes past the context with the torch model (make test runs it)
def test_write_goes_past_the_context_by_cropping_and_keeps_the_prompt():
    p = pieces.torch_params(training.load_run("text").params, dtype="float32")
    context = p.pos_emb.shape[0]
    windows = []

    def spy(params, ids, n_new, **kw):
        windows.append((len(ids), n_new, kw["seed"]))
        return pieces.generate(params, ids, n_new, **kw)

    out = experiments.write(spy, p, [1, 2, 3], 150, temperature=1.0, seed=7)
    assert out[:3] == [1, 2, 3] and len(out) == 153
    assert all(a + b <= context for a, b, _ in windows) and len(windows) > 2
    seeds = [s for _, _, s in windows]
    assert seeds[0] == 7 and len(set(seeds)) == len(seeds)                     # a seed per call
    assert experiments.write(pieces.generate, p, [1, 2, 3], 150, seed=7) == out   # reproducible
    assert experiments.write(pieces.generate, p, [1, 2, 3], 0) == [1, 2, 3]
    for bad, words in (([], "a prompt of 1 to"), (list(range(context)), "a prompt of 1 to")):
        with pytest.raises(ValueError, match=words):
            experiments.write(pieces.generate, p, bad, 5)
    with pytest.raises(ValueError, match="n_new: expected an integer >= 0"):
        experiments.write(pieces.generate, p, [1], -1)
