"""The training and generation entry points of notebooks 12 and 13 as a hostile caller, a careless learner and a
teacher call them: each bad argument is refused before anything runs, with the argument's name; nothing hangs,
nothing is silently read as something else, and the kernel's torch settings are left as they were."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_core.labs.nb12_trained_transformer import load_trained  # noqa: E402
from attention_core.labs.nb13_build_a_gpt import corpus, experiments, pieces, training  # noqa: E402


@pytest.fixture(scope="module")
def params():
    return pieces.torch_params(load_trained("coreference_decoder").params)


# --- generation -----------------------------------------------------------------------------------------
def test_a_batch_of_prompts_is_generated_prompt_by_prompt(params):
    batch = np.array([[1, 2, 3], [4, 5, 6]])
    for gen in (pieces.generate, pieces.generate_uncached):
        out = gen(params, batch, 5)
        assert out == [gen(params, [1, 2, 3], 5), gen(params, [4, 5, 6], 5)]      # never one prompt of 6 tokens
    with pytest.raises(ValueError, match="one sequence"):
        pieces.forward_cached(params, batch, None)


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("0", TypeError),
                                         (None, TypeError)])
def test_generate_refuses_a_seed_that_is_not_a_whole_number(params, seed, error):
    for gen in (pieces.generate, pieces.generate_uncached):
        with pytest.raises(error, match="seed"):
            gen(params, [1, 2], 3, temperature=1.0, seed=seed)


def test_generate_takes_numpy_numbers_and_a_tiny_temperature_is_greedy(params):
    greedy = pieces.generate(params, [1, 2, 3], 6)
    assert pieces.generate(params, [1, 2, 3], 6, temperature=np.float32(1e-30), seed=np.int64(2)) == greedy
    assert pieces.generate(params, np.array([1, 2, 3], dtype=np.int32), np.int64(6)) == greedy
    assert pieces.generate(params, torch.tensor([1, 2, 3]), 6) == greedy


@pytest.mark.parametrize("kwargs, error, words", [
    ({"ids": [1, 10**6], "n_new": 2}, ValueError, "vocabulary"),
    ({"ids": [], "n_new": 2}, ValueError, "at least one token"),
    ({"ids": "the dog", "n_new": 2}, TypeError, "encode it first"),
    ({"ids": [1.0, 2.0], "n_new": 2}, TypeError, "integer"),
    ({"ids": [1], "n_new": -1}, ValueError, "n_new"),
    ({"ids": [1], "n_new": 2.0}, TypeError, "n_new"),
    ({"ids": [1], "n_new": 2, "temperature": -0.1}, ValueError, "temperature"),
    ({"ids": [1], "n_new": 2, "temperature": float("nan")}, ValueError, "temperature"),
    ({"ids": [1], "n_new": 2, "top_k": 0}, ValueError, "top_k"),
    ({"ids": [1], "n_new": 200}, ValueError, "context"),
])
def test_generate_hostile_table(params, kwargs, error, words):
    with pytest.raises(error, match=words):
        pieces.generate(params, **kwargs)


def test_a_diverged_model_gives_an_error_not_a_token(params):
    broken = dict(pieces.flat_tensors(params))
    broken["w_out"] = broken["w_out"] * float("nan")
    with pytest.raises(FloatingPointError, match="not finite|overflowed|NaN"):
        pieces.generate(pieces.params_from_tensors(broken, params.n_heads), [1, 2], 3)


def test_write_stops_on_a_generate_that_writes_nothing(params):
    calls = []

    def lazy(p, ids, n_new, **kw):                   # returns the window and no new token
        calls.append(1)
        if len(calls) > 50:                          # the old loop never ended; end this test instead of hanging
            raise RuntimeError("write kept calling")
        return list(ids)
    with pytest.raises(ValueError, match="generate_fn"):
        experiments.write(lazy, params, [1, 2, 3], 10)
    assert len(calls) == 1


# --- training.run: every knob named -------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, words", [
    ({"steps": -3}, ValueError, "steps"),
    ({"steps": 0}, ValueError, "steps"),
    ({"steps": 2.7}, TypeError, "steps"),
    ({"steps": "10"}, TypeError, "steps"),
    ({"steps": True}, TypeError, "steps"),
    ({"seed": 1.5}, TypeError, "seed"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": "1"}, TypeError, "seed"),
    ({"stop_after": 0}, ValueError, "stop_after"),
    ({"config": {"lr": 0}}, ValueError, "lr"),
    ({"config": {"lr": float("nan")}}, ValueError, "lr"),
    ({"config": {"lr": "fast"}}, TypeError, "lr"),
    ({"config": {"batch": 0}}, ValueError, "batch"),
    ({"config": {"batch": 2.5}}, TypeError, "batch"),
    ({"config": {"max_len": 10}}, ValueError, "max_len"),
    ({"config": {"log_every": 0}}, ValueError, "log_every"),
    ({"config": {"weight_decay": -1}}, ValueError, "weight_decay"),
    ({"config": {"warmup": -5}}, ValueError, "warmup"),
    ({"config": {"beta2": 1.0}}, ValueError, "beta2"),
    ({"config": {"min_lr": 2.0}}, ValueError, "min_lr"),
    ({"config": {"threads": 0}}, ValueError, "threads"),
    ({"config": {"d_model": 0}}, ValueError, "d_model"),
    ({"config": {"colour": 1}}, ValueError, "unknown key"),
    ({"forward": "gpt_forward"}, TypeError, "forward"),
    ({"step_fn": 3}, TypeError, "step_fn"),
    ({"callback": "print"}, TypeError, "callback"),
    ({"progress": True}, TypeError, "progress"),
    ({"metrics": "yes"}, TypeError, "metrics"),
    ({"data": {"en": "x"}}, TypeError, "data"),
])
def test_run_refuses_each_bad_knob_by_name_before_training(kwargs, error, words):
    seen = []
    kwargs = {**kwargs, "callback": kwargs.get("callback", lambda rec: seen.append(rec))}
    with pytest.raises(error, match=words):
        training.run("induction", **kwargs)
    assert not seen                                  # nothing trained


@pytest.mark.parametrize("name", ["shakespeare", ["induction"], None, 3])
def test_run_refuses_an_unknown_name(name):
    with pytest.raises(ValueError, match="name: expected one of"):
        training.run(name, steps=2)


# --- notebook 12's make train: the same loop, its own recipes --------------------------------------------
@pytest.mark.parametrize("kwargs, error, words", [
    ({"name": "inductoin"}, ValueError, "name: expected one of"),
    ({"name": ["induction"]}, ValueError, "name: expected one of"),
    ({"steps": 0}, ValueError, "steps"), ({"steps": 2.5}, TypeError, "steps"), ({"steps": "10"}, TypeError, "steps"),
    ({"seed": -1}, ValueError, "seed"), ({"seed": 1.5}, ValueError, "seed"),
    ({"stop_after": 0}, ValueError, "stop_after"), ({"progress": "yes"}, TypeError, "progress"),
])
def test_notebook_12s_train_refuses_each_bad_argument_by_name(kwargs, error, words):
    from attention_core.labs.nb12_trained_transformer import training as nb12_training
    kwargs = {"name": "induction", "stop_after": 1, **kwargs}
    with pytest.raises(error, match=words):
        nb12_training.train(kwargs.pop("name"), **kwargs)


@pytest.mark.slow          # a torch training step per wrong forward (make test runs it)
def test_a_forward_that_returns_the_wrong_thing_is_named():
    with pytest.raises(TypeError, match="forward: expected .logits, weights."):
        training.run("induction", lambda p, ids: pieces.gpt_forward(p, ids)[0], steps=2, metrics=False)
    with pytest.raises(TypeError, match=r"forward: .*\(B, T, V\)"):
        training.run("induction", lambda p, ids: (pieces.gpt_forward(p, ids)[0][..., :5], None), steps=2,
                     metrics=False)


def test_an_error_inside_the_learners_forward_says_where_it_came_from():
    def broken(p, ids):
        raise IndexError("index 40 is out of bounds")
    with pytest.raises(IndexError) as info:
        training.run("induction", broken, steps=2, metrics=False)
    assert "in forward(params, ids)" in "".join(getattr(info.value, "__notes__", []))


def test_a_run_leaves_torchs_thread_count_and_deterministic_mode_as_they_were():
    threads, det = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    try:
        torch.set_num_threads(2)
        torch.use_deterministic_algorithms(False)
        training.run("induction", steps=2, metrics=False)
        assert torch.get_num_threads() == 2 and not torch.are_deterministic_algorithms_enabled()
        with pytest.raises(FloatingPointError):                  # also when the run fails
            training.run("induction", lambda p, ids: (pieces.gpt_forward(p, ids)[0] * float("nan"), None),
                         steps=2, metrics=False)
        assert torch.get_num_threads() == 2 and not torch.are_deterministic_algorithms_enabled()
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(det)


# --- the text and the corpus helpers ----------------------------------------------------------------------
def test_text_data_refuses_a_corpus_too_short_for_a_window():
    tiny = training.TextData({"en": "the cat sat on the mat. " * 3, "zh": "猫坐在垫子上。" * 3})
    with pytest.raises(ValueError, match="length: windows of 64"):
        tiny.batch(np.random.default_rng(0), 4, 64)
    with pytest.raises(ValueError, match="fewer than one window"):
        tiny.valid_windows("en", 64)
    assert tiny.batch(np.random.default_rng(0), 4, 8).shape == (4, 9)
    empty = training.TextData({"en": "", "zh": ""})
    with pytest.raises(ValueError, match="length"):
        empty.batch(np.random.default_rng(0), 2, 4)
    with pytest.raises(ValueError, match="lang"):
        tiny.valid_windows("fr", 4)


def test_text_data_refuses_a_wrong_sha256_and_a_corpus_that_is_not_one():
    real = corpus.load_corpus()
    with pytest.raises(ValueError, match="sha256"):
        training.TextData({**real, "en": real["en"] + "edited"})
    with pytest.raises(ValueError, match="sha256"):
        training.TextData({"en": "abc " * 40, "zh": "中文" * 40, "sha256": "0" * 64})
    for bad in ("the text", ["en", "zh"], {"en": "x"}, {"en": 1, "zh": 2}):
        with pytest.raises(TypeError, match="corpus"):
            training.TextData(bad)


def test_train_merges_never_hands_out_an_id_already_in_use():
    ids = [0, 1, 0, 1, 0, 1, 2, 3, 2, 3]
    with pytest.raises(ValueError, match="first_id"):
        corpus.train_merges(ids, 3, 2)
    merges = corpus.train_merges(ids, 3, 4)
    assert merges and [new for _, new in merges] == list(range(4, 4 + len(merges)))
    for bad, error in ((("abc", 2, 4), TypeError), (([0, -1], 2, 4), ValueError), (([0, 1], -2, 4), ValueError),
                       (([0, 1], 2, 1.5), TypeError), (([0.5, 1], 2, 4), TypeError)):
        with pytest.raises(error):
            corpus.train_merges(*bad)


@pytest.mark.parametrize("valid", [[], [3]])
def test_bigram_loss_refuses_a_validation_text_without_a_pair(valid):
    with pytest.raises(ValueError, match="valid_ids: expected at least 2"):
        corpus.bigram_loss([0, 1, 2, 3, 1, 2], valid, 4)


def test_bigram_loss_names_ids_beyond_the_vocabulary_and_bad_alphas():
    with pytest.raises(ValueError, match="0..3"):
        corpus.bigram_loss([0, 1, 2, 7], [0, 1, 2], 4)
    with pytest.raises(ValueError, match="alphas"):
        corpus.bigram_loss([0, 1, 2, 3], [0, 1, 2], 4, alphas=(0.0,))
    best = corpus.bigram_loss([0, 1, 2, 3, 0, 1], [0, 1, 2], 4)
    assert np.isfinite(best["loss"]) and best["perplexity"] > 1
