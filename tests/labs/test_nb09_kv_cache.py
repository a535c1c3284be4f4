"""Notebook 09's KV cache: it grows linearly with the context (measured on a small decoder), and the
counts for published models follow 2 * layers * KV heads * d_head * tokens * bytes."""
import pytest

from attention_core.labs.nb09_cost_and_context_window import kv_cache


def test_the_measured_cache_grows_by_the_same_bytes_per_token():
    steps = kv_cache.decode_with_cache(64, n_layers=2, n_heads=4, d_head=16)
    growth = {b["cache_bytes"] - a["cache_bytes"] for a, b in zip(steps, steps[1:])}
    assert growth == {2 * 2 * 4 * 16 * 8}
    assert steps[-1]["cache_bytes"] == 2 * steps[31]["cache_bytes"]          # twice the tokens, twice the bytes
    assert [s["scores"] for s in steps[:3]] == [8, 16, 24]                      # n scores per head per step


def test_published_models():
    assert kv_cache.model_cache_bytes("Llama-2-7B", 4096) == 2 * 2**30
    assert kv_cache.model_cache_bytes("Mistral-7B", 4096) == kv_cache.model_cache_bytes("Llama-2-7B", 4096) // 4
    # Mistral-7B's sliding window of 4,096 caps its cache (a rolling buffer): the same at 4K and at 128K
    assert kv_cache.model_cache_bytes("Mistral-7B", 131_072) == kv_cache.model_cache_bytes("Mistral-7B", 4096)
    assert kv_cache.model_cache_bytes("Mistral-7B", 131_072, window=False) == 16 * 2**30
    assert kv_cache.model_cache_bytes("Llama-2-7B", 131_072) == 32 * kv_cache.model_cache_bytes("Llama-2-7B", 4096)
    assert kv_cache.model_cache_bytes("Llama-2-70B", 1) == 2 * 80 * 8 * 128 * 2
    with pytest.raises(ValueError):
        kv_cache.kv_cache_bytes(0, 1, 1, 1)


def test_trained_contexts_name_published_models_and_mark_128k_as_hypothetical():
    shapes = kv_cache.published_shapes()
    for name, context in kv_cache.TRAINED_CONTEXT.items():
        assert name in shapes and 1_024 <= context < 131_072          # notebook 09's 128K column is beyond every one
    assert kv_cache.TRAINED_CONTEXT["Mistral-7B"] > shapes["Mistral-7B"]["sliding_window"]   # window < context
