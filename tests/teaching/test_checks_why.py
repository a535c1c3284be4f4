"""When a learner's code raises inside NumPy or torch, the checker's verdict says what the common errors mean, in the
learner's language, with the shapes (or data types) of the arrays the function received (issue 16)."""
from __future__ import annotations

import numpy as np
import pytest

from attention_core.teaching import checks

Q, K = np.zeros((1, 2)), np.zeros((3, 2))


def _words(fn, *args, lang: str) -> str:
    with pytest.raises(checks.Fail) as caught:
        checks.call_learner(fn, "q, k", *args)
    return checks.msg(caught.value.key, **caught.value.fields).text(lang)


@pytest.mark.parametrize("lang, words", [("zh", ["矩阵乘法", "(1, 2), (3, 2)", "swapaxes(-1, -2)"]),
                                         ("en", ["matrix product", "(1, 2), (3, 2)", "transpose"])])
def test_a_shape_mismatch_in_a_matrix_product_names_the_shapes(lang, words):
    text = _words(lambda q, k: k @ q, Q, K, lang=lang)
    assert "ValueError" in text and all(w in text for w in words), text


def test_broadcasting_dtype_and_none_are_explained_in_chinese():
    assert "无法广播" in _words(lambda q, k: q + k[:, :1].T, Q, K, lang="zh")
    assert "数据类型" in _words(lambda q, k: np.bitwise_and(q, k), Q, K, lang="zh")
    assert "None" in _words(lambda q, k: None + q, Q, K, lang="zh")
    assert "return" in _words(lambda q, k: (lambda: None)() + q, Q, K, lang="zh")


def test_a_torch_shape_mismatch_is_explained_too():
    torch = pytest.importorskip("torch")
    text = _words(lambda q, k: torch.as_tensor(q) @ torch.as_tensor(q), Q, K, lang="zh")
    assert "矩阵乘法" in text and "(1, 2), (3, 2)" in text, text


def test_any_other_error_gets_no_guess():
    text = _words(lambda q, k: {}["missing"], Q, K, lang="zh")
    assert text.endswith("KeyError: 'missing'（输入：q, k）。"), text        # the exception and the input, no guess


def test_a_worded_error_reaches_a_widget_in_the_learners_language():
    """A lab raises i18n.WordedError (a key and its fields): the widget's red line says it in Chinese in the zh
    edition ("⚠ 无法计算：..." followed by Chinese, not by the library's English)."""
    from attention_core.teaching import i18n, widget_base
    exc = i18n.WordedError("checks.why.dtype", dtypes="int64")
    assert str(exc).startswith(" The data types do not fit together")
    try:
        i18n.set_language("zh")
        assert "数据类型对不上" in widget_base.error_html(exc) and "int64" in widget_base.error_html(exc)
    finally:
        i18n.set_language("en")
    assert "The data types do not fit" in widget_base.error_html(exc)
