"""A table of malformed calls: each must raise the right error type with a message naming the problem."""
import numpy as np
import pytest

import attention_core as ac

Q = np.zeros((3, 4))
K = np.zeros((5, 4))
V = np.zeros((5, 2))
P = ac.init_multihead(8, 2, seed=0)
X8 = np.zeros((3, 8))

MALFORMED = [
    # (id, call, error type, words the message must contain)
    ("q 1-D", lambda: ac.scaled_dot_product_attention(np.zeros(4), K, V), ValueError, ["q", "at least 2", "(4,)"]),
    ("Dk mismatch", lambda: ac.scaled_dot_product_attention(Q, np.zeros((5, 3)), V), ValueError, ["Dk", "(3, 4)", "(5, 3)"]),
    ("Tk mismatch", lambda: ac.scaled_dot_product_attention(Q, K, np.zeros((6, 2))), ValueError, ["Tk", "(5, 4)", "(6, 2)"]),
    ("int mask", lambda: ac.scaled_dot_product_attention(Q, K, V, mask=np.ones((3, 5), int)), TypeError, ["mask", "boolean", "int"]),
    ("mask shape", lambda: ac.scaled_dot_product_attention(Q, K, V, mask=np.ones((5, 3), bool)), ValueError, ["mask", "(5, 3)", "(3, 5)"]),
    ("string input", lambda: ac.scaled_dot_product_attention("abc", K, V), TypeError, ["q", "real numbers"]),
    ("complex input", lambda: ac.scaled_dot_product_attention(Q + 1j, K, V), TypeError, ["q", "complex"]),
    ("bool input", lambda: ac.softmax(np.array([True, False])), TypeError, ["x", "boolean"]),
    ("NaN input", lambda: ac.softmax([1.0, np.nan]), ValueError, ["x", "NaN"]),
    ("inf input", lambda: ac.scaled_dot_product_attention(Q, K, V + np.inf), ValueError, ["v", "infinity"]),
    ("mixed dtypes", lambda: ac.scaled_dot_product_attention(Q.astype(np.float32), K, V), TypeError, ["dtype", "float32", "float64"]),
    ("batch mismatch", lambda: ac.scaled_dot_product_attention(np.zeros((2, 3, 4)), np.zeros((3, 5, 4)), np.zeros((3, 5, 2))), ValueError, ["batch", "(2,)", "(3,)"]),
    ("negative scale", lambda: ac.scaled_dot_product_attention(Q, K, V, scale=-1.0), ValueError, ["scale", "-1.0"]),
    ("zero temperature", lambda: ac.softmax([1.0, 2.0], temperature=0), ValueError, ["temperature", "> 0"]),
    ("string temperature", lambda: ac.softmax([1.0, 2.0], temperature="hot"), TypeError, ["temperature", "str"]),
    ("axis out of range", lambda: ac.softmax(np.zeros((2, 3)), axis=2), ValueError, ["axis", "2", "2 dimension"]),
    ("ragged list", lambda: ac.softmax([[1.0, 2.0], [3.0]]), TypeError, ["x", "rectangular"]),
    ("softmax mask shape", lambda: ac.softmax(np.zeros((2, 3)), mask=np.ones((3, 2), bool)), ValueError, ["mask", "(3, 2)", "(2, 3)"]),
    ("heads do not divide", lambda: ac.init_multihead(10, 3), ValueError, ["n_heads", "10", "3"]),
    ("mha width", lambda: ac.multi_head_attention(np.zeros((3, 6)), X8, X8, P), ValueError, ["query", "d_model=8", "(3, 6)"]),
    ("mha params type", lambda: ac.multi_head_attention(X8, X8, X8, {"w_q": 1}), TypeError, ["params", "MultiHeadParams", "dict"]),
    ("head_mask length", lambda: ac.multi_head_attention(X8, X8, X8, P, head_mask=[1.0]), ValueError, ["head_mask", "(2,)", "(1,)"]),
    ("split width", lambda: ac.split_heads(np.zeros((3, 7)), 2), ValueError, ["D=7", "n_heads=2"]),
    ("padding lengths", lambda: ac.padding_mask([3.5, 2]), TypeError, ["lengths", "integers"]),
    ("padding too long", lambda: ac.padding_mask([5, 2], max_len=4), ValueError, ["lengths", "5", "max_len"]),
    ("window zero", lambda: ac.sliding_window_mask(4, 0), ValueError, ["window", ">= 1", "0"]),
    ("combine shapes", lambda: ac.combine_masks(np.ones((2, 3), bool), np.ones((3, 2), bool)), ValueError, ["(2, 3)", "(3, 2)", "broadcast"]),
    ("combine nothing", lambda: ac.combine_masks(None), ValueError, ["at least one mask"]),
    ("rope odd", lambda: ac.apply_rope(np.zeros((3, 5))), ValueError, ["d_head", "even", "5"]),
    ("rope positions", lambda: ac.apply_rope(np.zeros((3, 4)), positions=[0, 1]), ValueError, ["positions", "(3,)", "(2,)"]),
    ("sinusoid size", lambda: ac.sinusoidal_encoding(-1, 8), ValueError, ["n_positions", "-1"]),
    ("params bad shape", lambda: ac.MultiHeadParams(*[np.zeros((4, 4))] * 3, np.zeros((4, 3)), *[np.zeros(4)] * 4, n_heads=2), ValueError, ["w_o", "(4, 4)", "(4, 3)"]),
]


def test_the_table_is_large_enough():
    assert len(MALFORMED) >= 15


@pytest.mark.parametrize("name, call, exc, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_call_raises_a_clear_error(name, call, exc, words):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    missing = [w for w in words if w not in message]
    assert not missing, f"message {message!r} lacks {missing}"
    # the error comes from our validation, not from deep inside NumPy
    assert "attention_core" in info.traceback[-1].path.as_posix()
