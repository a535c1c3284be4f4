"""What a learner's function returns or does, however odd, ends in a verdict, never in a traceback or a pass
the checker cannot stand behind: a table of hostile learner functions (found by trying to break the checkers),
each with the words its verdict must contain. The machinery under them is teaching/checks.py: every conversion
of a result inside the guard, values compared only at equal shapes, copies of parameter objects, a last net
(`checks.unreadable`) and the torch shortcut of the memory checks refused (`numpy_peak`)."""
from __future__ import annotations

import numpy as np
import pytest
from testkit import assert_plain

import attention_core as ac
from attention_core.labs.nb01_query_key_value.checks import check_attention
from attention_core.labs.nb02_scaled_dot_product.checks import check_dot_product_variance
from attention_core.labs.nb03_softmax.checks import check_softmax
from attention_core.labs.nb05_self_and_cross_attention.checks import check_cross_attention, check_self_attention
from attention_core.labs.nb06_multi_head_attention.checks import check_multi_head_attention
from attention_core.labs.nb08_attention_vs_rnn.checks import check_rnn_forward
from attention_core.labs.nb09_cost_and_context_window.checks import check_kv_cache_bytes, check_kv_cache_decode
from attention_core.labs.nb10_efficient_attention.checks import check_online_attention
from attention_core.labs.nb12_trained_transformer import experiments as nb12
from attention_core.labs.nb12_trained_transformer.checks import check_induction_score
from attention_core.teaching import checks

torch = pytest.importorskip("torch")


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("even its message fails")


def _raise(exc):
    def fn(*args, **kwargs):
        raise exc
    return fn


def _torch_full_attention(q, k, v, *rest):
    """The shortcut the memory checks exist to catch, written in torch, which tracemalloc does not see."""
    q, k, v = (torch.as_tensor(np.asarray(a)) for a in (q, k, v))
    scores = q @ k.T / q.shape[-1] ** 0.5
    if not rest:                                              # the decode exercise: causal
        scores = scores.masked_fill(~torch.as_tensor(ac.causal_mask(len(q))), float("-inf"))
    return (torch.softmax(scores, -1) @ v).numpy()


def _attention_weights_only(q, k, v):
    weights = ac.softmax(q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1]))
    return weights                                            # (Tq, Tk) where the output (Tq, Dv) is expected


def _self_swapped(x, w_q, w_k, w_v):
    output, weights = ac.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    return weights, output                                    # the library's order is (output, weights)


def _cross_swapped(x_dec, x_enc, w_q, w_k, w_v):
    output, weights = ac.scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)
    return weights, output


def _online_squeezed(q, k, v, block_size):
    return ac.scaled_dot_product_attention(q, k, v)[0].squeeze()     # (1, 2) comes back as (2,)


def _gen_variance(d_k, n_samples, seed):
    yield 1 / 0                                               # a generator: its body would run unwatched


def _mha_scale_folded_in_place(x, params, *rest, **kw):
    params.w_q[...] /= np.sqrt(params.d_head)                 # right numbers, but the caller's weights changed
    return ac.multi_head_attention(x, x, x, params)[0] * 0 + ac.multi_head_attention(x, x, x, params)[0]


def _rnn_zeroes_its_weights(xs, params):
    params.w_x[...] = 0
    params.w_h[...] = 0
    params.b[...] = 0
    return np.zeros((len(xs), params.w_h.shape[0]))


HOSTILE = [
    # (checker, learner's function, words the verdict must contain)
    (check_softmax, lambda x: torch.softmax(torch.tensor(x), -1).to(torch.bfloat16), "Tensor"),
    (check_softmax, _raise(_Unprintable()), "_Unprintable"),
    (check_softmax, _raise(GeneratorExit()), "GeneratorExit"),
    (lambda fn, lang: check_attention(fn, returns="output", lang=lang), _attention_weights_only, "weights"),
    (check_self_attention, lambda x, w_q, w_k, w_v: (np.zeros(()), np.zeros(())), "shape"),
    (check_self_attention, _self_swapped, "returns (weights, output)"),
    (check_cross_attention, _cross_swapped, "returns (weights, output)"),
    (check_online_attention, _online_squeezed, "shape"),
    (check_online_attention, _torch_full_attention, "tracemalloc"),
    (check_kv_cache_decode, _torch_full_attention, "tracemalloc"),
    (check_kv_cache_bytes, lambda *a: "2147483648", "'2147483648'"),
    (check_kv_cache_bytes, lambda *a: None, "None"),
    (check_kv_cache_bytes, lambda *a: 2 ** 5000, "10^1505"),
    (check_kv_cache_bytes, lambda l, h, d, t, b: 2 * l * h * d * t * b + 0.5, "2,147,483,648.500"),
    (check_dot_product_variance, lambda d, n, s: (10 ** 400, 1), "10^400"),
    (check_dot_product_variance, _gen_variance, "pair"),
    (check_multi_head_attention, _mha_scale_folded_in_place, "in place"),
    (check_rnn_forward, _rnn_zeroes_its_weights, "in place"),
]


@pytest.mark.parametrize("checker, fn, words", HOSTILE, ids=lambda x: getattr(x, "__name__", None))
def test_a_hostile_function_gets_a_verdict_in_words(checker, fn, words):
    result = checker(fn, lang="en")
    assert not result.passed, result.message
    assert words in result.message, result.message
    assert_plain(result.message)


@pytest.mark.parametrize("fn", [lambda x: torch.softmax(torch.tensor(x, requires_grad=True), -1),
                                lambda x: list(torch.softmax(torch.tensor(x, dtype=torch.float64), -1))],
                         ids=["a tensor that requires grad", "a list of 0-d tensors"])
def test_a_right_answer_in_another_container_still_passes(fn):
    result = check_softmax(fn, lang="en")
    assert result.passed, result.message


def test_the_same_verdicts_are_said_in_chinese():
    result = check_online_attention(_torch_full_attention, lang="zh")
    assert not result.passed and "tracemalloc" in result.message and "NumPy" in result.message, result.message
    result = check_softmax(_raise(_Unprintable()), lang="zh")
    assert result.message.endswith("（输入：x = [2, 1, 0]）。"), result.message


def test_the_torch_shortcut_is_refused_but_the_numpy_shortcut_still_fails_on_memory():
    def numpy_full(q, k, v, block_size):
        return ac.scaled_dot_product_attention(q, k, v)[0]
    result = check_online_attention(numpy_full, lang="en")
    assert not result.passed and "MiB" in result.message and "tracemalloc" not in result.message, result.message


def test_the_induction_score_may_be_a_zero_dimensional_tensor():
    def score(w, half):
        return torch.as_tensor(nb12.induction_score(w, half))     # a 0-d tensor: one number
    result = check_induction_score(score, lang="en")
    assert result.passed, result.message


def test_an_unforeseen_result_ends_in_the_last_net_not_a_traceback():
    def body():
        raise OverflowError("int too large to convert to float")     # what float(10**400) says
    result = checks.run_check("check_x", body, "en")
    assert not result.passed and "could not read your function's result" in result.message
    assert "OverflowError" in result.message


def test_a_parameter_dataclass_is_copied_for_the_learner_and_an_edit_is_seen():
    params = ac.init_multihead(8, 2, seed=0)
    before = params.w_q.copy()

    def edits(p):
        p.w_q[...] = 0

    with pytest.raises(checks.Fail) as failed:
        checks.call_learner(edits, "case", params)
    assert failed.value.key == "checks.mutated"
    assert np.array_equal(params.w_q, before)                  # the checker's own copy is untouched
