"""The checkers cannot be fooled (issue 19): each wrong implementation a careful learner submitted, with
the verdict it must get and the words that name its mistake, in both languages; and the right ones pass.

The checkers of stateful or memory claims observe behaviour, not only results: the KV-cache decoder and
the online softmax get watched inputs (`teaching.checks.Watched`, which record the rows read and in
what order), the online softmax's peak memory is measured with fewer queries than a block, the variance
exercise must sample (another seed, another estimate; the same seed, the same one; the draws counted
through the generators np.random.default_rng makes; four samples scatter as four samples do), every mask
checker has a fully masked row, and a mismatch names its first differing entry, both values and the usual
cause. A copy or conversion of a watched input (`np.asarray(q)`, `q.copy()`) is judged by what follows
it, not by its identity: a right decoder that starts with one passes.
"""
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb01_query_key_value.checks import check_attention
from attention_core.labs.nb02_scaled_dot_product.checks import check_dot_product_variance
from attention_core.labs.nb03_softmax.checks import check_softmax
from attention_core.labs.nb04_masking.checks import check_padding_mask
from attention_core.labs.nb09_cost_and_context_window.checks import check_kv_cache_decode
from attention_core.labs.nb10_efficient_attention.checks import check_online_attention
from attention_core.teaching.checks import Fail, Read, Watched, first_read_ahead, mismatch, watch

# --- learner-style implementations ------------------------------------------------------------------

def attention_filled(q, k, v, mask=None, fill=-1e9):
    """Attention that hides masked scores with a fill value, then a plain stable softmax."""
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, fill)
    z = np.exp(s - s.max(axis=-1, keepdims=True))
    w = z / z.sum(axis=-1, keepdims=True)
    return w @ v, w


def attention_good(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    w = ac.softmax(s, mask=mask)                               # a fully masked row stays 0
    return w @ v, w


def softmax_clipped(x):
    z = np.exp(np.maximum(x - x.max(axis=-1, keepdims=True), -50.0))    # exponents clipped at -50
    return z / z.sum(axis=-1, keepdims=True)


def softmax_good(x):
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def decode_good(q, k, v):
    keys, values, outs = [], [], []
    for t in range(len(q)):
        keys.append(k[t])                                     # the cache grows by one token
        values.append(v[t])
        outs.append(ac.scaled_dot_product_attention(q[t:t + 1], np.array(keys), np.array(values))[0][0])
    return np.array(outs)


def decode_one_masked_call(q, k, v):
    """Right outputs, no cache: one masked call over the whole sequence."""
    return ac.scaled_dot_product_attention(q, k, v, mask=ac.causal_mask(len(q)))[0]


def decode_asarray_first(q, k, v):
    """Right: converts the queries first (the checker then judges by k, v and memory)."""
    return decode_good(np.asarray(q), k, v)


def decode_copies_first(q, k, v):
    """Right: copies and converts its inputs first (copies stay watched)."""
    return decode_good(q.copy(), k.astype(float), np.copy(v))


def decode_everything_converted(q, k, v):
    """Right: converts all three first (nothing left to watch: memory judges)."""
    return decode_good(np.asarray(q), np.asarray(k), np.array(v, dtype=float))


def _causal_attention(q, k, v):
    """Plain NumPy masked attention (fast: the memory case runs it 384 times, within the check's time limit)."""
    s = q @ k.T / np.sqrt(q.shape[-1])
    s = np.where(np.tri(len(q), len(k), dtype=bool), s, -np.inf)
    return softmax_good(s) @ v


def decode_recompute_prefix(q, k, v):
    """Right outputs, no cache: the prefix recomputed at every step."""
    outs = []
    for t in range(len(q)):
        out = _causal_attention(q[:t + 1], k[:t + 1], v[:t + 1])
        outs.append(out[-1])
    return np.array(outs)


def decode_recompute_prefix_converted(q, k, v):
    """The same after converting the queries: the keys read again give it away."""
    return decode_recompute_prefix(np.asarray(q), k, v)


def decode_recompute_prefix_hidden(q, k, v):
    """The same after converting everything: its peak memory gives it away."""
    return decode_recompute_prefix(np.asarray(q), np.asarray(k), np.asarray(v))


def decode_slices_of_given_keys(q, k, v):
    """Right: the new query against k[:t + 1], the keys given up to t serving as the cache."""
    return np.array([ac.scaled_dot_product_attention(q[t:t + 1], k[:t + 1], v[:t + 1])[0][0] for t in range(len(q))])


def decode_forgot_offset(q, k, v):
    outs = []
    for t in range(len(q)):
        mask = ac.causal_mask(1, t + 1)                       # offset=t forgotten: sees key 0 only
        outs.append(ac.scaled_dot_product_attention(q[t:t + 1], k[:t + 1], v[:t + 1], mask=mask)[0][0])
    return np.array(outs)


def decode_peeks_ahead(q, k, v):
    outs = []
    for t in range(len(q)):
        _ = k[min(t + 2, len(q) - 1)]                           # looks two tokens ahead, then decodes right
        outs.append(ac.scaled_dot_product_attention(q[t:t + 1], k[:t + 1], v[:t + 1])[0][0])
    return np.array(outs)


def online_good(q, k, v, block_size):
    q = q / np.sqrt(q.shape[-1])
    m, total = np.full((len(q), 1), -np.inf), np.zeros((len(q), 1))
    acc = np.zeros((len(q), v.shape[-1]))
    for start in range(0, len(k), block_size):
        s = q @ k[start:start + block_size].T
        new_m = np.maximum(m, s.max(axis=1, keepdims=True))
        r, p = np.exp(m - new_m), np.exp(s - new_m)
        total, acc, m = total * r + p.sum(axis=1, keepdims=True), acc * r + p @ v[start:start + block_size], new_m
    return acc / total


def online_converted_first(q, k, v, block_size):
    """Right, after k.astype(float) and v.copy() (copies stay watched)."""
    return online_good(q, k.astype(float), v.copy(), block_size)


def online_query_blocks(q, k, v, block_size):
    """Blocks of queries, a full softmax over all keys per block: never an online softmax."""
    out = []
    for i in range(0, len(q), block_size):
        s = q[i:i + block_size] @ k.T / np.sqrt(q.shape[1])
        out.append(softmax_good(s) @ v)
    return np.concatenate(out)


def online_query_blocks_converted(q, k, v, block_size):
    """The same, after np.asarray (which hides the reads): the memory case still sees it."""
    return online_query_blocks(np.asarray(q), np.asarray(k), np.asarray(v), block_size)


def variance_good(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    dots = (rng.standard_normal((n_samples, d_k)) * rng.standard_normal((n_samples, d_k))).sum(axis=1)
    return dots.var(), (dots / np.sqrt(d_k)).var()


def variance_without_sampling(d_k, n_samples, seed):
    return d_k, 1.0


def variance_seeded_noise(d_k, n_samples, seed):
    """d_k plus seeded noise: varies with the seed, repeats with it, samples nothing."""
    rng = np.random.default_rng(seed)
    return d_k + rng.normal(), 1.0 + 0.01 * rng.normal()


def variance_noise_without_generator(d_k, n_samples, seed):
    """The same, with noise made from the seed by arithmetic (no generator for the checker to watch)."""
    wobble = ((seed * 7919) % 13 - 6) / 600
    return d_k * (1 + wobble), 1 + wobble


def variance_ignores_n_samples(d_k, n_samples, seed):
    return variance_good(d_k, 20000, seed)


def variance_legacy_seed(d_k, n_samples, seed):
    """Right, through the legacy global generator (not watched; the scatter of four samples judges)."""
    np.random.seed(seed)
    dots = (np.random.randn(n_samples, d_k) * np.random.randn(n_samples, d_k)).sum(axis=1)
    return dots.var(), (dots / np.sqrt(d_k)).var()


def variance_one_pair_at_a_time(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    dots = np.array([rng.standard_normal(d_k) @ rng.standard_normal(d_k) for _ in range(n_samples)])
    return dots.var(ddof=1), (dots / np.sqrt(d_k)).var(ddof=1)


_UNSEEDED = np.random.default_rng()


def variance_unseeded(d_k, n_samples, seed):
    dots = (_UNSEEDED.standard_normal((n_samples, d_k)) * _UNSEEDED.standard_normal((n_samples, d_k))).sum(axis=1)
    return dots.var(), (dots / np.sqrt(d_k)).var()


def padding_good(lengths, max_len):
    return (np.arange(max_len)[None, :] < lengths[:, None])[:, None, :]


def padding_at_least_one(lengths, max_len):
    """Keeps key 0 visible for every sequence, an empty one included."""
    return ((np.arange(max_len)[None, :] < lengths[:, None]) | (np.arange(max_len) == 0))[:, None, :]


def check_induction_score_coreference(fn, lang=None, timeout=None):
    """check_induction_score given notebook 12's coreference model, which is not an induction model."""
    from attention_core.labs.nb12_trained_transformer import load_trained
    from attention_core.labs.nb12_trained_transformer.checks import check_induction_score
    return check_induction_score(fn, load_trained("coreference"), lang=lang, timeout=timeout)


def check_induction_score_not_a_model(fn, lang=None, timeout=None):
    from attention_core.labs.nb12_trained_transformer.checks import check_induction_score
    return check_induction_score(fn, "induction", lang=lang, timeout=timeout)


def check_induction_score_default(fn, lang=None, timeout=None):
    """check_induction_score with its default model, notebook 12's induction model."""
    from attention_core.labs.nb12_trained_transformer.checks import check_induction_score
    return check_induction_score(fn, lang=lang, timeout=timeout)


def induction_score_library(weights, half):
    from attention_core.labs.nb12_trained_transformer import experiments
    return experiments.induction_score(weights, half)


def check_attention_output(fn, lang=None, timeout=None):
    """check_attention of an exercise that returns only the output."""
    return check_attention(fn, returns="output", lang=lang, timeout=timeout)


def output_only(fn):
    def attention(q, k, v, mask=None):
        return fn(q, k, v, mask)[0]
    return attention


# (checker, implementation, passes, English words, Chinese words): issue 19's five first, then the others
TABLE = [
    # the five that passed before
    (check_attention, attention_filled, False, "-1e9", "-1e9"),
    (check_kv_cache_decode, decode_one_masked_call, False, "one masked computation over the whole sequence",
     "一次带掩码的计算"),
    (check_online_attention, online_query_blocks, False, "not an online softmax", "并不是在线 softmax"),
    (check_dot_product_variance, variance_without_sampling, False, "without sampling", "没有采样"),
    # more mistakes of the same families
    (check_attention, lambda q, k, v, mask=None: attention_filled(q, k, v, mask, -np.inf), False,
     "0/0", "0/0"),
    (check_attention_output, output_only(attention_filled), False, "-1e9", "-1e9"),
    (check_kv_cache_decode, decode_forgot_offset, False, "offset = t", "offset = t"),
    (check_kv_cache_decode, decode_peeks_ahead, False, "a future token", "未来的 token"),
    (check_online_attention, online_query_blocks_converted, False, "scores every key at once",
     "一次就给所有 Key 打了分"),
    (check_dot_product_variance, variance_unseeded, False, "same seed", "同一个种子"),
    # a cache that is none, and sampling that is none (observed: rows read, memory, draws, scatter)
    (check_kv_cache_decode, decode_recompute_prefix, False, "recomputes the prefix at every step",
     "前缀重算一遍"),
    (check_kv_cache_decode, decode_recompute_prefix_converted, False, "the prefix recomputed at every step",
     "前缀重算一遍"),
    (check_kv_cache_decode, decode_recompute_prefix_hidden, False, "the prefix recomputed at every step",
     "前缀重算一遍"),
    (check_dot_product_variance, variance_seeded_noise, False, "without sampling", "没有采样"),
    (check_dot_product_variance, variance_noise_without_generator, False, "barely move from seed to seed",
     "几乎不随种子变化"),
    (check_dot_product_variance, variance_ignores_n_samples, False, "n_samples ignored", "忽略了 n_samples"),
    # the model checked before its heads are scored
    (check_induction_score_coreference, induction_score_library, False, "got the coreference model",
     "收到的却是 coreference 模型"),
    (check_induction_score_not_a_model, induction_score_library, False, "it got a str", "收到的却是 str"),
    (check_padding_mask, padding_at_least_one, False, "lengths = [2, 0, 3]", "lengths = [2, 0, 3]"),
    # the right ones, and the library's own
    (check_attention, attention_good, True, "All good", "全部通过"),
    (check_attention_output, output_only(attention_good), True, "All good", "全部通过"),
    (check_attention, ac.scaled_dot_product_attention, True, "All good", "全部通过"),
    (check_kv_cache_decode, decode_good, True, "All good", "全部通过"),
    (check_kv_cache_decode, decode_asarray_first, True, "All good", "全部通过"),
    (check_kv_cache_decode, decode_copies_first, True, "All good", "全部通过"),
    (check_kv_cache_decode, decode_everything_converted, True, "All good", "全部通过"),
    (check_online_attention, online_good, True, "All good", "全部通过"),
    (check_online_attention, online_converted_first, True, "All good", "全部通过"),
    (check_online_attention, lambda q, k, v, b: ac.tiled_attention(q, k, v, block_size=b), True, "All good",
     "全部通过"),
    (check_dot_product_variance, variance_good, True, "All good", "全部通过"),
    (check_dot_product_variance, variance_legacy_seed, True, "All good", "全部通过"),
    (check_dot_product_variance, variance_one_pair_at_a_time, True, "All good", "全部通过"),
    (check_softmax, softmax_good, True, "All good", "全部通过"),
    (check_softmax, softmax_clipped, True, "exponents are clipped", "指数被截断"),     # passes, with a remark
    (check_kv_cache_decode, decode_slices_of_given_keys, True, "All good", "全部通过"),
    (check_softmax, ac.softmax, True, "All good", "全部通过"),
    (check_padding_mask, padding_good, True, "All good", "全部通过"),
    (check_padding_mask, ac.padding_mask, True, "All good", "全部通过"),
    (check_induction_score_default, induction_score_library, True, "matches", "都对"),
]


# check_dot_product_variance draws thousands of samples through the learner's function and check_kv_cache_decode
# decodes token by token (10-30 s a row on a loaded machine): make test runs their rows, make quick the others
# (and test_exercise_checks.py's right answer of every checker).
SLOW_CHECKERS = ("check_dot_product_variance", "check_kv_cache_decode")


@pytest.mark.parametrize("checker, fn, passes, en, zh",
                         [pytest.param(*row, marks=[pytest.mark.slow] if row[0].__name__ in SLOW_CHECKERS else [])
                          for row in TABLE],
                         ids=[f"{c.__name__}-{getattr(f, '__name__', 'lambda')}-{p}" for c, f, p, *_ in TABLE])
def test_each_implementation_gets_its_verdict_and_words(checker, fn, passes, en, zh):
    for lang, words in (("en", en), ("zh", zh)):
        result = checker(fn, lang=lang, timeout=30)          # the verdict is judged, not the speed (a loaded host)
        assert result.passed is passes, result.message
        assert words in result.message, result.message
        if not passes:
            assert "NotImplementedError" not in result.message


# --- the machinery behind it ------------------------------------------------------------------------

def test_watched_inputs_record_rows_whole_uses_and_conversions():
    reads: list = []
    q, k = watch(reads, q=np.ones((4, 2)), k=np.arange(8.0).reshape(4, 2))
    assert isinstance(k, Watched) and k.shape == (4, 2) and len(k) == 4 and reads == []   # free to look at
    row = k[1]
    row[0] = 99.0                                               # a copy: the checker's data stays intact
    assert k[1][0] == 2.0
    assert [tuple(r.rows) for r in reads] == [(1,), (1,)]
    _ = k[:3]
    assert tuple(reads[-1].rows) == (0, 1, 2) and reads[-1].how == "rows"
    _ = q[0:1] @ k.T
    assert reads[-1].name == "k" and reads[-1].how == "whole" and len(reads[-1].rows) == 4
    _ = np.asarray(k)
    assert reads[-1].how == "converted"
    n = len(reads)
    elementwise = np.exp(k), k * 2, 1 - k                       # each element from one element: still watched
    assert len(reads) == n and all(isinstance(e, Watched) for e in elementwise)
    _ = elementwise[1][2:4]
    assert reads[-1] == Read("k", range(2, 4), "rows")
    _ = np.sum(k), k @ np.ones(2), np.ones(4) @ k
    assert all(r.how == "whole" and len(r.rows) == 4 for r in reads[-3:])
    n = len(reads)
    swapped = np.swapaxes(k, 0, 1)                              # value-blind: a view, read when used
    assert isinstance(swapped, Watched) and len(reads) == n
    _ = swapped[:, 1:3]
    assert reads[-1] == Read("k", range(1, 3), "rows")
    n = len(reads)
    copies = k.copy(), k.astype(np.float32), np.copy(k)        # copies read nothing and stay watched
    assert len(reads) == n and all(isinstance(c, Watched) for c in copies)
    assert copies[1].dtype == np.float32 and copies[0][2].tolist() == [4.0, 5.0]
    assert reads[-1] == Read("k", range(2, 3), "rows")
    assert [t.tolist() for t in k][0] == [0.0, 1.0]


def test_first_read_ahead_finds_the_first_jump():
    reads: list = []
    q, k = watch(reads, q=np.ones((5, 2)), k=np.ones((5, 2)))
    for t in range(5):
        _ = k[t], q[t:t + 1], k[:t + 1]
    assert first_read_ahead(reads) is None                      # step by step, re-reading the past is fine
    reads.clear()
    _ = k[0], k[3]
    step, read = first_read_ahead(reads)
    assert step == 1 and tuple(read.rows) == (3,)


def test_a_mismatch_names_the_first_entry_both_values_and_the_usual_cause():
    expected = np.arange(1.0, 7.0).reshape(2, 3)
    cases = [
        (expected * 2, "[0, 0] = 2, but it should be 1", "factor, 2"),
        (-expected, "[0, 0] = -1", "opposite sign"),
        (expected + 0.5, "6 entries (out of 6)", "same amount, 0.5"),
        (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]), "[1, 2] = 7, but it should be 6: the first of 1", ""),
    ]
    for got, where, cause in cases:
        fail = mismatch(got, expected, "output", "c")
        assert isinstance(fail, Fail)
        words = fail.message.text("en")
        assert where in words and cause in words, words
        assert "[[" not in words                                # never both full arrays
    square = np.arange(9.0).reshape(3, 3)
    assert "transposed" in mismatch(square.T, square, "w", "c").message.text("en")
    rows = np.arange(12.0).reshape(4, 3)
    assert "shifted by one" in mismatch(np.roll(rows, 1, axis=0), rows, "w", "c").message.text("en")
    assert "another order" in mismatch(rows[[0, 2, 1, 3]], rows, "w", "c").message.text("en")
    tiny = np.array([1.0, 1e-44, 0.0])
    assert "near 0" in mismatch(np.array([1.0, 2e-4, 2e-4]), tiny, "w", "c").message.text("en")
    assert mismatch(expected, expected + 1e-9, "w", "c") is None
    assert "共 6 个数，其中 1 个不同" in mismatch(cases[3][0], expected, "output", "c").message.text("zh")


def test_a_mask_mismatch_names_its_first_row_and_the_usual_cause():
    from attention_core.labs.nb10_efficient_attention.checks import check_sliding_window_mask

    def window_transposed(t, w):
        return ac.sliding_window_mask(t, w).T                  # keys and queries swapped
    result = check_sliding_window_mask(window_transposed, lang="en")
    assert not result.passed and "mask[0]" in result.message and "transposed" in result.message, result.message
