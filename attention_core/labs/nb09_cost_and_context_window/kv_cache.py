"""The KV cache at inference (notebook 09): while a decoder generates, every layer keeps the key and the
value of every token so far, so the cache grows linearly with the context, and one new token costs n
scores, where the prompt pass costs n^2.

kv_cache_bytes counts it for a model shape (published shapes: attention_core/data/published_models.json);
decode_with_cache runs a small decoder token by token in NumPy and records the cache's real size
(ndarray.nbytes) and the scores computed at each step.
Shapes: the cache of one layer is K, V (H_kv, n, Dh) each.
"""
from __future__ import annotations

import json
from importlib.resources import files

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.validation import as_generator, positive_int

# The context each model was trained to, in tokens: a cache sized beyond it is hypothetical (the shape run longer
# than it was trained). GPT-2: n_ctx 1,024 (Radford et al. 2019); Llama-2: 4,096 (Touvron et al. 2023, table 1);
# Mistral-7B: context_len 8,192 with a sliding window of 4,096 (Jiang et al. 2023, table 1).
TRAINED_CONTEXT = {"GPT-2 small": 1_024, "Llama-2-7B": 4_096, "Llama-2-70B": 4_096, "Mistral-7B": 8_192}


def published_shapes() -> dict:
    """{name: {layers, d_model, heads, kv_heads}} of the published models in the package data."""
    data = json.loads(files("attention_core.data").joinpath("published_models.json").read_text(encoding="utf-8"))
    return {m["name"]: m for m in data["models"]}


def kv_cache_bytes(n_layers: int, n_kv_heads: int, d_head: int, n_tokens: int, bytes_per_number: int = 2,
                   batch: int = 1) -> int:
    """Bytes of the KV cache: a key and a value (2) per token, layer and KV head, of d_head numbers each."""
    for name, v in (("n_layers", n_layers), ("n_kv_heads", n_kv_heads), ("d_head", d_head),
                    ("n_tokens", n_tokens), ("bytes_per_number", bytes_per_number), ("batch", batch)):
        positive_int(v, name)
    return 2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number * batch


def model_cache_bytes(name: str, n_tokens: int, bytes_per_number: int = 2, *, window: bool = True) -> int:
    """The KV cache of one sequence of n_tokens for a published model (float16 by default).

    A model with a sliding window (Mistral-7B: 4,096 tokens, Jiang et al. 2023) never reads a key further
    back than the window, so its cache is a rolling buffer of the last `sliding_window` tokens: it stops
    growing there. window=False gives the cache the same shape would need with full attention."""
    shapes = published_shapes()
    if name not in shapes:
        raise ValueError(f"name: expected one of the published models {sorted(shapes)}, got {name!r}")
    m = shapes[name]
    if window and m.get("sliding_window"):
        n_tokens = min(n_tokens, m["sliding_window"])
    return kv_cache_bytes(m["layers"], m["kv_heads"], m["d_model"] // m["heads"], n_tokens, bytes_per_number)


def decode_with_cache(n_tokens: int, *, n_layers: int = 2, n_heads: int = 4, d_head: int = 16,
                      seed: int = 0) -> list[dict]:
    """Generate n_tokens one at a time through n_layers attention layers that keep a KV cache.

    Each step appends the new token's key and value to every layer's cache and attends with its one
    query over the whole cache (no mask is needed: the cache holds only the past and the present).
    Returns one dict per step: t (tokens in the cache), cache_bytes (the arrays' real nbytes) and
    scores (how many query-key scores the step computed: n_layers * n_heads * t).
    """
    n_tokens, n_layers = positive_int(n_tokens, "n_tokens"), positive_int(n_layers, "n_layers")
    n_heads, d_head = positive_int(n_heads, "n_heads"), positive_int(d_head, "d_head")
    rng = as_generator(seed)
    k_cache = [np.empty((n_heads, 0, d_head)) for _ in range(n_layers)]       # (H, t, Dh) per layer
    v_cache = [np.empty((n_heads, 0, d_head)) for _ in range(n_layers)]
    steps = []
    for t in range(1, n_tokens + 1):
        scores = 0
        for layer in range(n_layers):
            q, k, v = rng.normal(size=(3, n_heads, 1, d_head))                 # the new token's q, k, v
            k_cache[layer] = np.concatenate([k_cache[layer], k], axis=1)       # (H, t, Dh)
            v_cache[layer] = np.concatenate([v_cache[layer], v], axis=1)
            _, w = scaled_dot_product_attention(q, k_cache[layer], v_cache[layer])   # (H, 1, t)
            scores += w.size
        steps.append({"t": t, "scores": scores,
                      "cache_bytes": sum(a.nbytes for a in k_cache) + sum(a.nbytes for a in v_cache)})
    return steps
