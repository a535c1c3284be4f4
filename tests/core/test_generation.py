"""core.generation: the one sampler and the one decoding loop, on NumPy and torch, and their hostile callers."""
from __future__ import annotations

import numpy as np
import pytest

from attention_core.core.generation import generate, pick_token, token_probs, write


def _counting_step(vocab: int = 7):
    """A toy model: the next token is (last + 1) % vocab, most likely by a margin of 3; records every call."""
    calls = []

    def step(new, past):
        calls.append((list(new), past))
        seen = list(new) if past is None else past + list(new)
        logits = np.zeros((len(new), vocab))
        for i, tok in enumerate(new):
            logits[i, (tok + 1) % vocab] = 3.0
        return logits, seen
    return step, calls


# --- the sampler ---------------------------------------------------------------------------------------
def test_pick_token_greedy_is_the_argmax_and_sampling_follows_the_probabilities():
    logits = np.array([0.0, 2.0, 1.0, -1.0])
    assert pick_token(logits) == 1
    rng = np.random.default_rng(0)
    draws = np.bincount([pick_token(logits, 1.0, None, rng) for _ in range(4000)], minlength=4) / 4000
    p = np.exp(logits) / np.exp(logits).sum()
    assert np.abs(draws - p).max() < 0.03
    assert set(pick_token(logits, 5.0, 2, rng) for _ in range(300)) == {1, 2}     # only the top 2


def test_token_probs_at_a_tiny_temperature_is_the_argmax_not_nan():
    p = token_probs(np.array([1e308, -1e308, 0.5]), 1e-300)                  # the old path: inf / inf = NaN
    assert np.array_equal(p, [1.0, 0.0, 0.0])
    assert pick_token(np.array([0.1, 0.3, 0.2]), 1e-12, rng=3) == 1
    assert np.isclose(token_probs(np.array([0.0, np.log(3.0)]), np.float32(1.0))[1], 0.75)   # NumPy float32


def test_pick_token_refuses_a_row_that_is_not_finite():
    for bad in (np.array([0.5, np.nan, 0.1]), np.array([np.nan] * 3), np.array([0.0, np.inf])):
        for temperature in (0.0, 1.0):
            with pytest.raises(FloatingPointError, match="not finite"):
                pick_token(bad, temperature, rng=0)
    with pytest.raises(FloatingPointError, match="-inf"):
        pick_token(np.full(4, -np.inf))
    assert pick_token(np.array([-np.inf, 0.0, -np.inf]), 1.0, rng=0) == 1          # masked tokens are fine


def test_pick_token_default_rng_draws_and_a_seed_reproduces():
    logits = np.zeros(50)
    assert 0 <= pick_token(logits, 1.0) < 50                                       # rng=None: fresh randomness
    assert [pick_token(logits, 1.0, rng=np.random.default_rng(5)) for _ in range(3)] == [
        pick_token(logits, 1.0, rng=5)] * 3


@pytest.mark.parametrize("temperature, top_k, rng, error, words", [
    (-0.5, None, 0, ValueError, "temperature"),
    (float("nan"), None, 0, ValueError, "temperature"),
    (float("inf"), None, 0, ValueError, "temperature"),
    ("hot", None, 0, TypeError, "temperature"),
    (True, None, 0, TypeError, "temperature"),
    (None, None, 0, TypeError, "temperature"),
    (1.0, 0, 0, ValueError, "top_k"),
    (1.0, -3, 0, ValueError, "top_k"),
    (1.0, 2.5, 0, TypeError, "top_k"),
    (1.0, True, 0, TypeError, "top_k"),
    (1.0, "5", 0, TypeError, "top_k"),
    (1.0, None, -1, ValueError, "rng"),
    (1.0, None, 1.5, TypeError, "rng"),
    (1.0, None, "seed", TypeError, "rng"),
])
def test_pick_token_hostile_arguments_are_named(temperature, top_k, rng, error, words):
    with pytest.raises(error, match=words):
        pick_token(np.array([0.1, 0.2, 0.3]), temperature, top_k, rng)


@pytest.mark.parametrize("logits, error", [
    (np.zeros((2, 3)), ValueError), (np.zeros(0), ValueError), ("abc", TypeError), (None, TypeError),
    (np.float64(1.0), ValueError),
])
def test_pick_token_refuses_what_is_not_one_row(logits, error):
    with pytest.raises(error, match="logits"):
        pick_token(logits)


def test_top_k_larger_than_the_vocabulary_keeps_every_token():
    assert np.allclose(token_probs(np.zeros(3), 1.0, 10), 1 / 3)


# --- the loop ------------------------------------------------------------------------------------------
def test_generate_runs_the_prompt_once_then_one_token_per_step():
    step, calls = _counting_step()
    assert generate(step, [2, 3], 4) == [2, 3, 4, 5, 6, 0]
    assert [c[0] for c in calls] == [[2, 3], [4], [5], [6]]                 # the last token is never run
    assert calls[0][1] is None and calls[1][1] == [2, 3]


def test_generate_a_batch_generates_each_prompt_on_its_own():
    step, calls = _counting_step()
    assert generate(step, np.array([[1, 2], [5, 6]]), 2) == [[1, 2, 3, 4], [5, 6, 0, 1]]
    assert [c[0] for c in calls if c[1] is None] == [[1, 2], [5, 6]]        # never one prompt of 4 tokens


def test_generate_sampling_is_seeded_and_n_new_zero_returns_the_prompt():
    step, _ = _counting_step()
    a = generate(step, [1], 10, temperature=3.0, rng=4)
    assert a == generate(step, [1], 10, temperature=3.0, rng=4)
    assert len({tuple(generate(step, [1], 10, temperature=3.0, rng=s)) for s in range(5)}) > 1
    assert generate(step, [1, 2], 0) == [1, 2]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"ids": [], "n_new": 2}, ValueError, "at least one token"),
    ({"ids": np.zeros((2, 0), int), "n_new": 2}, ValueError, "at least one token"),
    ({"ids": "abc", "n_new": 2}, TypeError, "encode it first"),
    ({"ids": [0.5, 1.0], "n_new": 2}, TypeError, "integer token ids"),
    ({"ids": [[1, 2], [3]], "n_new": 2}, TypeError, "ids"),
    ({"ids": np.zeros((1, 1, 2), int), "n_new": 2}, ValueError, "shape"),
    ({"ids": [1, 9], "n_new": 2, "vocab_size": 7}, ValueError, "0..6"),
    ({"ids": [-1], "n_new": 2, "vocab_size": 7}, ValueError, "0..6"),
    ({"ids": [1], "n_new": -1}, ValueError, "n_new"),
    ({"ids": [1], "n_new": 2.0}, TypeError, "n_new"),
    ({"ids": [1], "n_new": True}, TypeError, "n_new"),
    ({"ids": [1, 2], "n_new": 7, "max_len": 8}, ValueError, "context of 8"),
    ({"ids": [1], "n_new": 2, "temperature": -1}, ValueError, "temperature"),
    ({"ids": [1], "n_new": 2, "temperature": 1.0, "rng": -1}, ValueError, "rng"),
    ({"ids": [1], "n_new": 2, "temperature": 1.0, "rng": 1.5}, TypeError, "rng"),
    ({"ids": [1], "n_new": 2, "rng": -3}, ValueError, "rng"),                 # greedy: still a wrong seed
])
def test_generate_hostile_arguments_are_named(kwargs, error, words):
    step, calls = _counting_step()
    with pytest.raises(error, match=words):
        generate(step, **kwargs)
    assert not calls                                                       # refused before any forward


def test_generate_names_a_step_that_returns_the_wrong_shape():
    with pytest.raises(ValueError, match="step: expected logits"):
        generate(lambda new, past: (np.zeros(7), None), [1, 2], 3)


def test_generate_a_diverged_model_is_an_error_not_a_token():
    with pytest.raises(FloatingPointError, match="not finite"):
        generate(lambda new, past: (np.full((len(new), 5), np.nan), None), [1, 2], 3)


# --- writing past the context ---------------------------------------------------------------------------
def _fake_generate(window, room, temperature, top_k, seed):
    return list(window) + [(window[-1] + 1 + i) % 50 for i in range(room)]


def test_write_restarts_on_the_last_half_of_the_context():
    calls = []

    def gen(window, room, **kw):
        calls.append((len(window), room, kw["seed"]))
        return _fake_generate(window, room, **kw)
    out = write(gen, [1, 2, 3], 30, context=8, temperature=1.0, seed=5)
    assert out[:3] == [1, 2, 3] and len(out) == 33
    assert calls[0] == (3, 5, 5) and all(w == 4 for w, _, _ in calls[1:])  # then windows of context // 2
    seeds = [s for _, _, s in calls]
    assert seeds[0] == 5 and len(set(seeds)) == len(seeds)           # the first call keeps the seed; no repeats


def test_neighbouring_seeds_share_no_call_seed():
    """With seed + call, seed 0's second call was seed 1's first: two samples shared a 91-character run."""
    seen = {}
    for seed in range(20):
        calls = []

        def gen(window, room, calls=calls, **kw):
            calls.append(kw["seed"])
            return _fake_generate(window, room, **kw)
        write(gen, [1, 2, 3], 30, context=8, seed=seed)
        for c in calls:
            assert seen.setdefault(c, seed) == seed, f"seeds {seen[c]} and {seed} both draw with {c}"


@pytest.mark.parametrize("bad", [
    lambda window, room, **kw: list(window),                      # no new token: the old loop never ended
    lambda window, room, **kw: list(window) + [1] * (room - 1 if room > 1 else 0),
    lambda window, room, **kw: [0] * (len(window) + room),        # not the window
])
def test_write_refuses_a_generate_that_does_not_write_what_was_asked(bad):
    with pytest.raises(ValueError, match="generate_fn"):
        write(bad, [1, 2, 3], 10, context=8)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"ids": [], "n_new": 3}, ValueError, "1 to 7"),
    ({"ids": list(range(8)), "n_new": 3}, ValueError, "1 to 7"),
    ({"ids": [[1, 2], [3, 4]], "n_new": 3}, ValueError, "one prompt"),
    ({"ids": [1], "n_new": -2}, ValueError, "n_new"),
    ({"ids": [1], "n_new": 2, "seed": -1}, ValueError, "seed"),
    ({"ids": [1], "n_new": 2, "seed": 1.5}, TypeError, "seed"),
    ({"ids": [1], "n_new": 2, "context": 1}, ValueError, "context"),
    ({"ids": [1], "n_new": 2, "temperature": "warm"}, TypeError, "temperature"),
])
def test_write_hostile_arguments_are_named(kwargs, error, words):
    kwargs = {"context": 8, **kwargs}
    with pytest.raises(error, match=words):
        write(_fake_generate, **kwargs)


# --- torch: the same sampler, torch's draw ---------------------------------------------------------------
def test_torch_logits_and_torch_rng_draw_as_a_torch_loop_does():
    torch = pytest.importorskip("torch")
    from attention_core.backends.torch_generation import TorchRng
    logits = torch.randn(20, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    g = torch.Generator().manual_seed(3)
    rng = TorchRng(3)
    for temperature, top_k in ((1.0, None), (0.7, 5), (2.0, 3)):
        scaled = logits / temperature
        if top_k:
            scaled = scaled.masked_fill(scaled < torch.topk(scaled, top_k).values[-1], float("-inf"))
        want = int(torch.multinomial(torch.softmax(scaled, -1), 1, generator=g))
        assert pick_token(logits, temperature, top_k, rng) == want
    with pytest.raises(FloatingPointError):
        pick_token(torch.tensor([0.0, float("nan")]), 1.0, rng=rng)
    with pytest.raises(TypeError, match="TorchRng"):
        pick_token(logits, 1.0, rng=torch.Generator())
    with pytest.raises(ValueError, match="seed"):
        TorchRng(-1)
