"""nb09 long_context: the tutorial's 200K and 1M examples for a published shape, naive, KV cache and tiled."""
import pytest

from attention_core.labs.nb09_cost_and_context_window import kv_cache
from attention_core.labs.nb09_cost_and_context_window import long_context as LC


def test_the_tutorial_examples_are_named_with_their_lengths():
    assert dict(LC.TUTORIAL_EXAMPLES) == {"Claude": 200_000, "Gemini": 1_000_000}


def test_tiled_overhead_is_constant_and_the_rest_is_linear():
    rows = LC.tiled_overhead([2048, 4096], d_head=64)           # from 2,048 rows on, the tile is full size
    for r in rows:
        assert r["linear_bytes"] == 2 * r["n"] * 64 * 4
        assert r["peak_bytes"] == r["linear_bytes"] + r["rest_bytes"]
        assert 0 < r["rest_bytes"] < 8 * 2 ** 20                  # a tile and its temporaries, not n x n
    assert rows[1]["rest_bytes"] == pytest.approx(rows[0]["rest_bytes"], rel=0.05)
    assert rows[1]["peak_bytes"] < 4096 * 4096 * 4 / 8             # far below one score matrix
    small = LC.tiled_overhead([256], d_head=64)[0]
    assert small["rest_bytes"] < rows[0]["rest_bytes"]              # a short sequence fills a smaller tile


def test_long_context_rows_count_the_naive_matrix_the_cache_and_the_tiled_path():
    r200, r1m = LC.long_context_rows([200_000, 1_000_000], tiled_rest_bytes=3 * 2 ** 20)
    assert (r200["layers"], r200["heads"], r200["kv_heads"], r200["d_head"]) == (80, 64, 8, 128)
    assert r200["pairs"] == 4 * 10 ** 10 and r1m["pairs"] == 10 ** 12
    assert r200["score_head_bytes"] == 200_000 ** 2 * 2                         # bfloat16
    assert r200["score_layer_bytes"] == 64 * r200["score_head_bytes"]
    assert r200["kv_cache_bytes"] == kv_cache.kv_cache_bytes(80, 8, 128, 200_000) == 327_680 * 200_000
    assert r1m["kv_cache_bytes"] == 5 * r200["kv_cache_bytes"]                   # linear
    assert r1m["score_head_bytes"] == 25 * r200["score_head_bytes"]             # quadratic
    assert r200["tiled_head_bytes"] == 2 * 200_000 * 128 * 4 + 3 * 2 ** 20
    assert r200["tiled_layer_bytes"] == 64 * r200["tiled_head_bytes"]
    assert r1m["attention_flops"] == 4 * 10 ** 12 * 8192 * 80
    assert r200["score_layer_bytes"] > 300 * r200["tiled_layer_bytes"]
    assert kv_cache.kv_cache_bytes(80, 8, 128, 262_144) == 80 * 2 ** 30         # the notebook's self-test


def test_the_default_tiled_rest_is_measured():
    (row,) = LC.long_context_rows([1000], model="GPT-2 small", dtype="float32")
    assert row["d_head"] == 64 and row["score_head_bytes"] == 1000 ** 2 * 4
    assert row["tiled_head_bytes"] > 2 * 1000 * 64 * 4


@pytest.mark.parametrize("call, words", [
    (lambda: LC.long_context_rows([1000], model="Claude"), "model: expected one of"),
    (lambda: LC.long_context_rows([1000], dtype="int8"), "dtype: expected one of"),
    (lambda: LC.long_context_rows([0]), "lengths"),
    (lambda: LC.tiled_overhead([16], d_head=0), "d_head"),
])
def test_bad_inputs_are_named(call, words):
    with pytest.raises(ValueError, match=words):
        call()
