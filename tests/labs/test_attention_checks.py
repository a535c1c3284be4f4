"""The checkers of attention itself (notebooks 01-04's labs) accept correct code and name each typical
mistake in plain words; a quiz question finds its checker in the lab of its notebook."""
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb01_query_key_value.checks import check_attention
from attention_core.labs.nb02_scaled_dot_product.checks import check_scaled_scores
from attention_core.labs.nb03_softmax.checks import check_softmax
from attention_core.labs.nb04_masking.checks import check_causal_mask
from attention_core.teaching import i18n
from attention_core.teaching.checks import CheckResult, lab_checker

pytestmark = pytest.mark.usefixtures("english")   # messages are compared in English


def assert_fails(result, *fragments):
    assert isinstance(result, CheckResult)
    assert not result.passed, result.message
    for fragment in fragments:
        assert fragment in result.message, result.message


# --- softmax ---------------------------------------------------------------------------------------

def softmax_good(x):
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def test_softmax_good_passes():
    result = check_softmax(softmax_good)
    assert result.passed and bool(result)
    assert "All good" in result.message and "✔" in repr(result)
    assert "<div" in result._repr_html_()


@pytest.mark.parametrize("fn, fragments", [
    (lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True), ["Overflow", "Subtract each row's maximum"]),
    (lambda x: softmax_good(x.T).T if x.ndim == 2 else softmax_good(x),
     ["sums to 1 down each column", "axis=-1"]),
    (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(axis=-1, keepdims=True),
     ["the maximum of the whole array", "keepdims=True"]),
    (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), ["sums to", "not 1"]),
    (lambda x: np.exp(x) / np.exp(x).sum(), ["whole softmax(x) sums to 1"]),
    (lambda x: (softmax_good(x), x), ["returned a tuple of 2 items"]),
    (lambda x: None, ["forget `return`"]),
    (lambda x: x / x.sum(axis=-1, keepdims=True), ["exp"]),
])
def test_softmax_mistakes_are_named(fn, fragments):
    assert_fails(check_softmax(fn), *fragments)


def test_softmax_hardcoded_axis_fails_on_batch():
    def axis1(x):
        z = np.exp(x - x.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
    assert_fails(check_softmax(axis1), "raised AxisError")          # already on the 1-D case

    def rows_of_axis1(x):                                            # right for 1-D and 2-D only
        return softmax_good(x) if x.ndim == 1 else np.apply_along_axis(softmax_good, 1, x)
    assert_fails(check_softmax(rows_of_axis1), "not on a batch", "axis=-1")


def test_softmax_exception_and_in_place_edit_are_reported():
    def broken(x):
        raise RuntimeError("oops")
    assert_fails(check_softmax(broken), "raised RuntimeError: oops")

    def in_place(x):
        x -= x.max(axis=-1, keepdims=True)
        np.exp(x, out=x)
        x /= x.sum(axis=-1, keepdims=True)
        return x
    assert_fails(check_softmax(in_place), "changed its input in place")


def test_messages_follow_the_language():
    def unnormalised(x):
        return np.exp(x - x.max(axis=-1, keepdims=True))
    result = check_softmax(unnormalised, lang="zh")                           # passed explicitly ...
    assert not result.passed and "不是 1" in result.message
    assert i18n.get_language() == "en"                                        # ... the global is untouched
    assert "not 1" in check_softmax(unnormalised).message
    assert "一致" in check_attention(attn_good, lang="zh").message
    i18n.set_language("zh")
    result = check_softmax(unnormalised)
    assert not result.passed and "不是 1" in result.message
    def row_bug(x):                         # rows sum to 1 except row 2 of the (3, 4) case
        out = softmax_good(x)
        if out.ndim == 2:
            out = out.copy()
            out[2] *= 1.37
        return out
    result = check_softmax(row_bug)
    assert "行 2（从 0 编号）" in result.message and "1.37" in result.message and "不是 1" in result.message


# --- scores ----------------------------------------------------------------------------------------

def test_scores():
    assert check_scaled_scores(lambda q, k: q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])).passed
    assert_fails(check_scaled_scores(lambda q, k: q @ k.T), "did not scale")
    assert_fails(check_scaled_scores(lambda q, k: q @ k.T / q.shape[-1]), "divided by d_k instead of sqrt(d_k)")
    assert_fails(check_scaled_scores(lambda q, k: k @ q.T / np.sqrt(q.shape[-1])),
                 "shape (2, 1) but should be (1, 2)", "K by Q^T")
    assert_fails(check_scaled_scores(lambda q, k: q @ k.T / np.sqrt(q.shape[-1])), "not on a batch", "swapaxes")


# --- attention -------------------------------------------------------------------------------------

def sm(x, axis=-1):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def attn_good(q, k, v, mask=None):
    return ac.reference_attention(q, k, v, mask)                  # the library's readable reference


def test_attention_good_passes():
    result = check_attention(attn_good)
    assert result.passed, result.message
    assert "mask was not tested" not in result.message
    no_mask = check_attention(lambda q, k, v: attn_good(q, k, v))
    assert no_mask.passed and "mask was not tested" in no_mask.message
    assert check_attention(lambda q, k, v, mask=None: attn_good(q, k, v, mask)[0], returns="output").passed
    assert "notebook 01" in no_mask.message and "1.321" in no_mask.message
    i18n.set_language("zh")
    zh = check_attention(lambda q, k, v: attn_good(q, k, v)).message
    assert "一致。（没有检查掩码" in zh and "01 节的例题" in zh      # Chinese sentences: no space between


def attn_variant(*, scale="sqrt", kq=False, axis=-1, stable=True, transpose=".T", values="v",
                 mask_mode="before"):
    def fn(q, k, v, mask=None):
        kt = k.T if transpose == ".T" else np.swapaxes(k, -1, -2)
        scores = (k @ q.T) if kq else (q @ kt)
        dk = q.shape[-1]
        scores = {"sqrt": scores / np.sqrt(dk), "none": scores, "dk": scores / dk}[scale]
        if mask is not None and mask_mode == "before":
            scores = np.where(mask, scores, -np.inf)
        if mask is not None and mask_mode == "inverted":
            scores = np.where(mask, -np.inf, scores)                 # last row: all -inf -> NaN
        w = sm(scores, axis) if stable else np.exp(scores) / np.exp(scores).sum(axis=axis, keepdims=True)
        if mask is not None and mask_mode == "after":
            w = w * mask
        return w @ (v if values == "v" else k), w
    return fn


@pytest.mark.parametrize("kwargs, fragments", [
    (dict(scale="none"), ["did not scale", "[0.670, 0.330]"]),
    (dict(scale="dk"), ["divided by d_k instead of sqrt(d_k)"]),
    (dict(kq=True), ["raised ValueError"]),
    (dict(axis=-2), ["sums to 1 down each column"]),
    (dict(stable=False), ["NaN or inf for large scores", "stable"]),
    (dict(values="k"), ["weights @ K", "V"]),
    (dict(transpose=".T"), ["not on a batch", "swapaxes(-1, -2)"]),
])
def test_attention_mistakes_are_named(kwargs, fragments):
    kwargs.setdefault("transpose", "swapaxes")
    assert_fails(check_attention(attn_variant(**kwargs)), *fragments)


@pytest.mark.parametrize("mode, fragments", [
    ("after", ["after softmax"]),
    ("inverted", ["True means"]),
    ("ignored", ["mask is ignored"]),
])
def test_attention_mask_mistakes_are_named(mode, fragments):
    assert_fails(check_attention(attn_variant(transpose="swapaxes", mask_mode=mode)), *fragments)


def test_attention_return_contract():
    assert_fails(check_attention(lambda q, k, v: attn_good(q, k, v)[0]), "pair (output, weights)")
    assert_fails(check_attention(lambda q, k, v: attn_good(q, k, v), returns="output"), "returned a tuple")
    with pytest.raises(ValueError):
        check_attention(attn_good, returns="weights")


def test_attention_leak_names_the_position():
    def leaky(q, k, v, mask=None):
        out, w = attn_good(q, k, v, mask)
        if mask is not None:
            w = w.copy()
            w[1, 3] = 0.2
            w[1, :2] *= 0.8 / w[1, :2].sum()     # keep the row sum at 1
        return w @ v, w
    assert_fails(check_attention(leaky), "Query 1 gives weight 0.2 to key 3")


# --- causal mask -----------------------------------------------------------------------------------

def test_causal_mask():
    assert check_causal_mask(lambda t: np.tril(np.ones((t, t), dtype=bool))).passed
    assert_fails(check_causal_mask(lambda t: np.triu(np.ones((t, t), dtype=bool))), "np.triu")
    assert_fails(check_causal_mask(lambda t: np.triu(np.ones((t, t), dtype=bool), k=1)), "Invert it with ~")
    assert_fails(check_causal_mask(lambda t: np.tril(np.ones((t, t), dtype=bool), k=-1)), "j < i")
    assert_fails(check_causal_mask(lambda t: np.tril(np.ones((t, t)))), "dtype float64")
    assert_fails(check_causal_mask(lambda t: np.where(np.tril(np.ones((t, t))) > 0, 0.0, -np.inf)), "additive")
    assert_fails(check_causal_mask(lambda t: np.tril(np.ones((t, t + 1), dtype=bool))), "shape (4, 5)")
    assert_fails(check_causal_mask(lambda t: [][t]), "raised IndexError")


# --- finding a lab's checker by name (the quiz bank names them) ------------------------------------

def test_a_checker_is_found_in_the_lab_of_its_notebook():
    assert lab_checker("04_masking", "check_causal_mask") is check_causal_mask
    assert lab_checker("01_query_key_value", "check_attention") is check_attention
    with pytest.raises(LookupError, match="no checker 'check_softmax'"):
        lab_checker("04_masking", "check_softmax")                       # notebook 03's, not 04's
    with pytest.raises(LookupError, match="no checker 'check_flag'"):
        lab_checker("01_query_key_value", "check_flag")                  # imported there, not its own
    with pytest.raises(LookupError, match="no checker 'check_scaled_scores'"):
        lab_checker("01_query_key_value", "check_scaled_scores")
    with pytest.raises(LookupError, match="no lab with checkers"):
        lab_checker("00_start_here", "check_causal_mask")
    with pytest.raises(ValueError, match="check_"):
        lab_checker("04_masking", "test_mask")
