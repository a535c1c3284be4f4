"""Reliability of the labs (issue 9, classes 1, 2 and 6): the widgets' state functions and builders
under hostile settings (huge, tiny, negative, zero, NaN, strings, empty lists).

Rules under test:
- a state function returns finite numbers, or raises a clear error that names the argument (a
  FloatingPointError when a number the learner would read overflows float64);
- a builder never raises: it returns a Panel whose red message is in plain words, never the text
  of an error from inside NumPy, matplotlib or ipywidgets.
Two tables of cases (builders, state functions) and hypothesis properties over magnitudes from
1e-30 to float64's largest number.
"""
from __future__ import annotations

import html
import json
import os
import re
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attention_core.labs.nb00_start_here import widgets as W0
from attention_core.labs.nb01_query_key_value import coreference as C1
from attention_core.labs.nb01_query_key_value import widgets as W1
from attention_core.labs.nb02_scaled_dot_product import widgets as W2
from attention_core.labs.nb03_softmax import widgets as W3
from attention_core.labs.nb04_masking import widgets as W4
from attention_core.labs.nb05_self_and_cross_attention import widgets as W5
from attention_core.labs.nb06_multi_head_attention import widgets as W6
from attention_core.labs.nb07_position import widgets as W7
from attention_core.labs.nb08_attention_vs_rnn import widgets as W8
from attention_core.labs.nb09_cost_and_context_window import widgets as W9
from attention_core.labs.nb10_efficient_attention import widgets as W10
from attention_core.teaching import i18n, widget_base
from attention_core.teaching.widget_base import ERROR_COLOR, Panel

NAN, INF = float("nan"), float("inf")
# Words of NumPy, matplotlib, Pillow, ipywidgets and Python that once reached learners.
DEEP = ("zero-size array", "Singular matrix", "incompatible", "SeedSequence", "Unable to allocate",
        "FT_Set_Char_Size", "0..-1", "can't multiply sequence", "dpi must be positive", "cannot write empty image",
        "cannot convert float", "setting max < min", "division by zero", "Error(", "Traceback")


def _text(panel) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", panel.message.value))


def _check_panel(panel, words: str) -> None:
    assert isinstance(panel, Panel)
    assert ERROR_COLOR in panel.message.value, "expected a red message"
    text = _text(panel)
    for phrase in DEEP:
        assert phrase not in text, f"{phrase!r} in {text!r}"
    assert words in text, text


# --- class 6: builders never raise, and say what is wrong in plain words -------------------------------
HEADS = np.full((2, 3, 3), 1 / 3)
BUILDER_CASES = [
    (W0.dot_product_widget, {"limit": 1e308}, "limit: the widget's sliders and axes reach at most ±1e+12, got 1e+308"),
    (W0.dot_product_widget, {"limit": INF}, "limit: expected a finite number > 0"),
    (W0.dot_product_widget, {"limit": NAN}, "limit"),
    (W0.dot_product_widget, {"limit": 0}, "limit: expected a finite number > 0"),
    (W0.dot_product_widget, {"limit": "3"}, "limit: expected a positive number"),
    (W0.dot_product_widget, {"dpi": 0}, "dpi: expected a finite number > 0"),
    (W0.dot_product_widget, {"dpi": 1e200}, "dpi: expected a number from 20 to 600"),
    (W0.dot_product_widget, {"dpi": 2.5}, "dpi: expected a number from 20 to 600"),
    (W0.dot_product_widget, {"dpi": "abc"}, "dpi: expected a positive number"),
    (W0.dot_product_widget, {"dpi": []}, "dpi: expected a positive number"),
    (W0.dot_product_widget, {"dpi": NAN}, "dpi"),
    (W0.dot_product_widget, {"a": "abc"}, "a: expected an array of real numbers"),
    (W0.dot_product_widget, {"a": [], "b": []}, "expected at least one number each"),
    (W0.dot_product_widget, {"a": (NAN, 0.0)}, "a: contains NaN or infinity"),
    (W0.dot_product_widget, {"a": (1.0, 2.0, 3.0), "b": (1.0, 2.0, 3.0)}, "a: expected 2 numbers (x, y)"),
    (W1.attention_step_widget, {"q": (1e308, 1e308)}, "q and keys: the widget's sliders and axes reach at most ±1e+12, "
                                                      "got numbers up to 1e+308"),
    (W1.attention_step_widget, {"q": (1e200, -1e200)}, "q and keys: the widget's sliders"),
    (W1.attention_step_widget, {"keys": ((1e308, 1e308), (1e308, 1e308))}, "q and keys"),
    (W1.attention_step_widget, {"values": ((1e308, 1e308), (-1e308, 1e308))}, "values: the widget's sliders"),
    (W1.attention_step_widget, {"limit": 1e308}, "limit: the widget's sliders"),
    (W1.attention_step_widget, {"limit": -1}, "limit: expected a finite number > 0"),
    (W1.attention_step_widget, {"edit_values": "no"}, "edit_values: expected True or False"),
    (W1.attention_step_widget, {"dpi": 0}, "dpi"),
    (W1.attention_step_widget, {"dpi": "abc"}, "dpi: expected a positive number"),
    (W1.attention_step_widget, {"q": []}, "q"),
    (W2.scaling_widget, {"d_k": 10 ** 9}, "d_k: expected one of"),
    (W2.scaling_widget, {"n_samples": 10 ** 9}, "n_samples: a widget recomputes sizes up to 20000"),
    (W2.scaling_widget, {"n_keys": 10 ** 9}, "n_keys: a widget recomputes sizes up to 1024"),
    (W2.scaling_widget, {"bins": 10 ** 9}, "bins: a widget recomputes sizes up to 1000"),
    (W2.scaling_widget, {"seed": "abc"}, "seed"),
    (W2.scaling_widget, {"seed": -1}, "seed"),
    (W2.scaling_widget, {"scaled": "yes"}, "scaled"),
    (W2.scaling_widget, {"dpi": 1e308}, "dpi"),
    (W3.temperature_widget, {"scores": []}, "at least one score"),
    (W3.temperature_widget, {"temperature": 0}, "temperature"),
    (W3.temperature_widget, {"t_min": NAN}, "t_min"),
    (W3.temperature_widget, {"dpi": -1}, "dpi"),
    (W4.mask_widget, {"T": 10 ** 9}, "T: a live heatmap shows at most 200 rows and columns"),
    (W4.mask_widget, {"T": 0}, "T: expected an integer >= 1"),
    (W4.mask_widget, {"seed": "abc"}, "seed: expected an integer >= 0 or a numpy.random.Generator"),
    (W4.mask_widget, {"seed": -1}, "seed: expected an integer >= 0"),
    (W4.mask_widget, {"seed": 2.5}, "seed: expected an integer >= 0"),
    (W4.mask_widget, {"scores": np.zeros((0, 0))}, "scores: expected a non-empty matrix"),
    (W4.mask_widget, {"scores": np.ones((300, 300))}, "at most 200 rows and columns"),
    (W4.mask_widget, {"dpi": 1e-300}, "dpi"),
    (W5.cross_attention_widget, {"query": 100}, "query: expected an integer in 0..4"),
    (W5.cross_attention_widget, {"query": -1}, "query: expected an integer in 0..4"),
    (W5.cross_attention_widget, {"mode": "sideways"}, "mode"),
    (W5.cross_attention_widget, {"pair": "nope"}, "pair"),
    (W5.cross_attention_widget, {"order": "shuffled", "seed": "abc"}, "seed"),
    (W6.head_widget, {"weights": np.zeros((0, 3, 3))}, "weights: expected a non-empty (H, Tq, Tk) array"),
    (W6.head_widget, {"weights": np.full((2, 3, 3), NAN)}, "weights: contains NaN or infinity"),
    (W6.head_widget, {"weights": [1.0, 2.0]}, "weights"),
    (W6.head_widget, {"weights": np.full((2, 3, 300), 1 / 300)}, "at most 200 rows and columns"),
    (W6.head_widget, {"weights": HEADS, "dpi": 0}, "dpi"),
    (W7.position_bias_widget, {"scores": []}, "scores: expected at least one score"),
    (W7.position_bias_widget, {"max_slope": 1e308}, "max_slope: the widget's sliders and axes reach at most"),
    (W7.position_bias_widget, {"window": -3}, "window: expected an integer >= 0"),
    (W7.position_bias_widget, {"causal": "False"}, "causal: expected True or False"),
    (W7.positional_widget, {"T": 10 ** 6}, "T: a widget recomputes sizes up to 4096"),
    (W7.positional_widget, {"D": 10 ** 6}, "D: a widget recomputes sizes up to 2048"),
    (W7.positional_widget, {"T": "abc"}, "T: expected an integer"),
    (W8.path_length_widget, {"n": 10 ** 9}, "n: a widget recomputes sizes up to 64"),
    (W8.path_length_widget, {"d": 10 ** 9}, "d: a widget recomputes sizes up to 32"),
    (W8.path_length_widget, {"max_scale": 1e-300}, "max_scale: expected a number from 0.2 to 100"),
    (W8.path_length_widget, {"max_scale": 1e308}, "max_scale: expected a number from 0.2 to 100"),
    (W8.path_length_widget, {"recurrent_scale": 0}, "recurrent_scale"),
    (W8.path_length_widget, {"distance": 0}, "distance: expected an integer in 1..47"),
    (W8.path_length_widget, {"seed": "abc"}, "seed"),
    (W9.context_cost_widget, {"dtype": "banana"}, "dtype"),
    (W9.context_cost_widget, {"n_tokens": 0}, "n_tokens"),
    (W9.context_cost_widget, {"dpi": 10 ** 9}, "dpi"),
    (W10.window_retrieval_widget, {"T": 10 ** 9}, "T: a widget recomputes sizes up to 16384"),
    (W10.window_retrieval_widget, {"seed": -1}, "seed: expected an integer >= 0"),
    (W10.window_retrieval_widget, {"window": 0}, "window"),
    (W10.window_retrieval_widget, {"distance": 10 ** 9}, "distance: expected an integer in 0..511"),
    (C1.coreference_widget, {"name": "nope"}, "name: expected one of ('animal_tired'"),
    (C1.coreference_widget, {"name": 3}, "name: expected one of"),
    (C1.coreference_widget, {"lang": "fr"}, 'lang: expected "en" (English) or "zh" (Chinese)'),
]


@pytest.mark.parametrize("builder, kwargs, words", BUILDER_CASES,
                         ids=[f"{b.__name__}-{k}" for b, k, _ in BUILDER_CASES])
def test_builders_never_raise_and_say_why(builder, kwargs, words):
    _check_panel(builder(**kwargs), words)


def test_builders_say_it_in_chinese_too(lang):
    panel = W0.dot_product_widget(limit=1e308)
    assert ("无法计算" if lang == "zh" else "Cannot compute this") in panel.message.value


def test_sliders_at_the_widest_range_still_compute():
    panel = W0.dot_product_widget(limit=1e12)
    for name in ("a0", "a1", "b0", "b1"):
        panel.controls[name].value = -1e12
    assert panel.message.value == ""
    assert panel.state["cos"] == pytest.approx(1.0) and panel.state["dot"] == pytest.approx(2e24)


# --- class 1: state functions give finite numbers or a clear error ---------------------------------
def _finite(value, key: str = "") -> bool:
    """Every float in a state is finite; only the scores of hidden keys ("adjusted") may be -inf."""
    if isinstance(value, dict):
        return all(_finite(v, k) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_finite(v, key) for v in value)
    arr = np.asarray(value) if isinstance(value, (float, np.floating, np.ndarray)) else None
    if arr is None or arr.dtype.kind != "f":
        return True
    if key == "adjusted":
        return not (np.isnan(arr).any() or np.isposinf(arr).any())
    return bool(np.isfinite(arr).all())


STATE_CASES = [
    (W0.dot_product_state, ((1e200, 1e200), (1e200, 1e200)), {},
     (FloatingPointError, "a·b is beyond the largest float64")),
    (W0.dot_product_state, ((1.5e308, 1.5e308), (1e-308, 0.0)), {}, (FloatingPointError, "|a| is beyond the largest")),
    (W0.dot_product_state, ((1e-300, 1e-300), (1e-300, 1e-300)), {}, {"cos": 1.0, "angle_deg": 0.0}),
    (W0.dot_product_state, ((1e-200, 0.0), (0.0, 1e-200)), {}, {"cos": 0.0, "angle_deg": 90.0}),
    (W0.dot_product_state, ((1e200, 0.0), (0.0, 1e200)), {}, {"dot": 0.0, "angle_deg": 90.0}),
    (W0.dot_product_state, ((1e300, 1e300), (1e-300, -1e-300)), {}, {"cos": 0.0}),
    (W0.dot_product_state, ((1e154, 0.0), (-1e154, 0.0)), {}, {"cos": -1.0, "angle_deg": 180.0}),
    (W0.dot_product_state, ((3e-320, 0.0), (5e-324, 0.0)), {}, {"cos": 1.0}),
    (W0.dot_product_state, ((0.0, 0.0), (1.0, 0.0)), {}, {"cos": None, "angle_deg": None}),
    (W0.dot_product_state, ([], []), {}, (ValueError, "expected at least one number each")),
    (W1.attention_step_state, ((1e200, 1e200), ((1e200, 0.0), (0.0, 1e200)), ((1.0,), (2.0,))), {},
     (FloatingPointError, "overflowed float64")),
    (W1.attention_step_state, ((1e-300, 1e-300), ((1e-300, 0.0), (0.0, 1e-300)), ((1.0,), (2.0,))), {},
     {"weights": [0.5, 0.5]}),
    (W1.attention_step_state, ((1.0, 0.0), ((1.0, 0.0), (0.0, 1.0)), ((1e308,), (1e308,))), {}, "finite"),
    (W1.attention_step_state, ((3.0, 3.0), ((6e307, 0.0), (0.0, 6e307)), ((1.0,), (2.0,))), {},
     (FloatingPointError, "q·k is beyond the largest float64 number")),
    (W3.temperature_state, ((1e308, -1e308), 1e-300), {}, (FloatingPointError, "use a larger temperature")),
    (W3.temperature_state, ((1e308, -1e308), 1.0), {}, {"argmax": 0}),
    (W3.temperature_state, ((1.0, 2.0), 1e308), {}, {"max_weight": 0.5}),
    (W3.temperature_state, ((1.0, 2.0), 1e-300), {}, {"max_weight": 1.0}),
    (W3.temperature_state, ((), 1.0), {}, (ValueError, "at least one score")),
    (W7.position_bias_state, ((), 0), {}, (ValueError, "scores: expected at least one score")),
    (W7.position_bias_state, ((1e308, -1e308, 0.0), 1), {"slope": 1e308}, (FloatingPointError, "use a smaller slope")),
    (W7.position_bias_state, ((1e308, -1e308, 0.0), 1), {"slope": 1e300}, "finite"),
    (W7.position_bias_state, ((-1e308, -1.0), 1), {"slope": 1e308}, (FloatingPointError, "scores + bias")),
    (W7.position_bias_state, ((1.0, 2.0, 3.0), 1), {"slope": 1e-300}, "finite"),
    (W7.position_bias_state, ((1.0, 2.0), 0), {"causal": "yes"}, (TypeError, "causal: expected True or False")),
    (W7.positional_state, (10 ** 6, 8, 0, 0), {}, (ValueError, "n_positions: a widget recomputes sizes up to 4096")),
    (W7.positional_state, (16, 8, 3, 2), {"base": 1e308}, "finite"),
    (W7.positional_state, (16, 8, 3, 2), {"base": 1e-300}, "finite"),
    (W8.path_length_state, (), {"recurrent_scale": 1e6}, {"rnn_kept": 0.0}),
    (W8.path_length_state, (), {"recurrent_scale": 1e308}, {"rnn_kept": 0.0}),
    (W8.path_length_state, (), {"recurrent_scale": 1e-300}, (ValueError, "recurrent_scale")),
    (W8.path_length_state, (), {"n": 10 ** 9}, (ValueError, "n: a widget recomputes sizes up to 64")),
    (W2.scaling_state, (10 ** 9, True), {}, (ValueError, "d_k: a widget recomputes sizes up to 4096")),
    (W2.scaling_state, (64, "no"), {}, (TypeError, "scaled")),
    (W4.mask_state, ("causal", np.full((3, 3), 1e308)), {}, "finite"),
    (W4.mask_state, ("causal", np.full((3, 3), -1e308)), {}, "finite"),
    (W10.window_retrieval_state, (16, 20), {"T": 10 ** 9}, (ValueError, "T: a widget recomputes sizes up to 16384")),
    (W9.context_cost_state, (), {"n_tokens": 10 ** 18}, "finite"),
]


from attention_core.labs.nb05_self_and_cross_attention import cross_lab as X5  # noqa: E402
from attention_core.labs.nb07_position import position_lab as P7  # noqa: E402
from attention_core.labs.nb09_cost_and_context_window import cost_lab as K9  # noqa: E402
from attention_core.labs.nb10_efficient_attention import efficient_lab as E10  # noqa: E402

_EXAMPLE = C1.coreference_example(C1.example_names()[0])
STATE_CASES += [                       # the labs' experiment functions under the same rule
    (C1.with_feature, (_EXAMPLE, _EXAMPLE.tokens[-1], "female", "abc"), {}, (TypeError, "value: expected a number")),
    (C1.with_feature, (_EXAMPLE, _EXAMPLE.tokens[-1], "female", NAN), {}, (ValueError, "value: expected a finite")),
    (X5.cross_params, ("strong",), {}, (TypeError, "strength: expected a number")),
    (X5.self_params, (INF,), {}, (ValueError, "strength: expected a finite number")),
    (P7.distance_bias, (4, "abc"), {}, (TypeError, "slope: expected a number")),
    (P7.distance_bias, (4, 1e308), {}, (FloatingPointError, "slope: 1e+308 × distance 3 is beyond")),
    (P7.distance_bias, (4, 1e-300), {}, "finite"),
    (K9.format_bytes, ("abc",), {}, (TypeError, "n_bytes: expected a number")),
    (K9.format_count, (NAN,), {}, (ValueError, "x: expected a finite number")),
    (K9.toy_position_bias, (16,), {"start": "abc"}, (TypeError, "start: expected a number")),
    (K9.toy_position_bias, (16,), {"start": 1e308}, "finite"),
    (E10.needle_document, (64, 2), {"strength": 1e200}, (FloatingPointError, "use a smaller strength")),
    (E10.needle_document, (64, 2), {"strength": 1e300, "dtype": "float64"},
     (FloatingPointError, "largest float64 number")),
    (E10.needle_document, (64, 2), {"strength": 1e-30}, "finite"),
    (E10.memory_rows, ([8],), {"dtype": "int8"}, (TypeError, "dtype: expected a float dtype (float16, float32")),
    (E10.memory_rows, ([8],), {"dtype": bool}, (TypeError, "dtype: expected a float dtype")),
]


@pytest.mark.parametrize("fn, args, kwargs, expected", STATE_CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(STATE_CASES)])
def test_state_functions_give_finite_numbers_or_a_clear_error(fn, args, kwargs, expected):
    _finite_or_clear_error(fn, args, kwargs, expected)


def _finite_or_clear_error(fn, args, kwargs, expected) -> None:
    """fn(*args, **kwargs) raises `expected` (error, words) in plain words, or returns a finite state whose keys
    hold the values of `expected` (a dict), where it gives any."""
    if isinstance(expected, tuple):
        error, words = expected
        with pytest.raises(error) as info:
            fn(*args, **kwargs)
        assert words in str(info.value)
        for phrase in DEEP:
            assert phrase not in str(info.value)
        return
    state = fn(*args, **kwargs)
    assert _finite(state)
    if isinstance(expected, dict):
        for key, value in expected.items():
            if value is None:
                assert state[key] is None
            else:
                np.testing.assert_allclose(state[key], value, atol=1e-6)


# --- hypothesis: magnitudes from 1e-30 to float64's largest number ------------------------------------
def _numbers(low=-30, high=308):
    """Floats m * 10^e with |m| in [1, 10) and e in [low, high], of either sign, kept finite."""
    return st.builds(lambda m, e, s: s * min(m * 10.0 ** e, np.finfo(float).max),
                     st.floats(1.0, 9.99), st.integers(low, high), st.sampled_from((-1.0, 1.0)))


def _exact_cos(a, b) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        da, db = [Decimal(x) for x in a], [Decimal(x) for x in b]
        dot = sum(x * y for x, y in zip(da, db))
        return float(dot / (sum(x * x for x in da) * sum(y * y for y in db)).sqrt())


@given(st.lists(_numbers(), min_size=2, max_size=2), st.lists(_numbers(), min_size=2, max_size=2))
@example([1e200, 1e200], [1e200, 1e200])
@example([1e-300, 1e-300], [1e-300, 1e-300])
def test_dot_product_state_is_finite_and_right_or_says_overflow(a, b):
    try:
        s = W0.dot_product_state(a, b)
    except FloatingPointError as exc:
        assert "beyond the largest float64 number" in str(exc)
        assert max(abs(x) for x in a + b) > 1e150               # only where a·b or a length truly overflows
        return
    assert _finite(s)
    assert -1.0 <= s["cos"] <= 1.0 and 0.0 <= s["angle_deg"] <= 180.0
    assert s["cos"] == pytest.approx(_exact_cos(a, b), abs=1e-9)


@given(_numbers(), _numbers(), _numbers())
@example(-3.0, -6e307, -1.0)                 # q·k overflows before the scale, the scaled scores do not
def test_attention_step_state_is_finite_or_says_overflow(q, k, v):
    try:
        s = W1.attention_step_state((q, -q), ((k, 0.0), (0.0, k)), ((v, 0.0), (0.0, v)))
    except FloatingPointError as exc:
        assert "overflowed float64" in str(exc) or "q·k is beyond the largest float64" in str(exc)
        assert abs(q * k) > 1e307 or abs(v) > 1e307
        return
    assert _finite(s)
    assert s["weights"].sum() == pytest.approx(1.0)


@given(st.lists(_numbers(), min_size=1, max_size=6), _numbers().map(abs))
@example([1e308, -1e308], 1e-30)
def test_temperature_state_is_finite_or_says_overflow(scores, temperature):
    try:
        s = W3.temperature_state(scores, temperature)
    except FloatingPointError as exc:
        assert "use a larger temperature" in str(exc)
        return
    assert _finite(s) and s["weights"].sum() == pytest.approx(1.0)
    assert 0.0 <= s["entropy"] <= s["max_entropy"] + 1e-9


@given(st.lists(_numbers(), min_size=2, max_size=6), _numbers().map(abs), st.integers(0, 3), st.booleans())
@example([-1e308, -1.0], 1e308, 0, False)                 # a finite score plus a finite bias overflow
def test_position_bias_state_is_finite_or_says_overflow(scores, slope, window, causal):
    try:
        s = W7.position_bias_state(scores, len(scores) - 1, slope=slope, window=window, causal=causal)
    except FloatingPointError as exc:
        assert "smaller slope" in str(exc)
        assert slope * (len(scores) - 1) + max(abs(x) for x in scores) > np.finfo(float).max
        return
    assert np.isfinite(s["weights"]).all() and s["weights"].sum() == pytest.approx(1.0)
    assert not np.isnan(s["adjusted"]).any()


@settings(max_examples=20)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 20, 10 ** 20), st.text(max_size=3),
                 st.none(), st.lists(st.integers(), max_size=2)))
@example(1e308)
@example(np.finfo(float).max)
def test_dot_product_widget_never_raises_on_any_limit(limit):
    panel = W0.dot_product_widget(limit=limit)
    assert isinstance(panel, Panel)
    text = _text(panel)
    for phrase in DEEP:
        assert phrase not in text
    if text:
        assert text.startswith("⚠ Cannot compute this: limit")


@pytest.mark.slow          # builds every widget (make test runs it)
def test_error_messages_of_builders_come_from_the_package():
    """Every red message of the table was written by attention_core (a `raise` in the package)."""
    seen = []
    original = widget_base.error_html

    def spy(exc):
        seen.append(exc)
        return original(exc)

    widget_base.error_html = spy
    try:
        for builder, kwargs, _ in BUILDER_CASES + NB12_BUILDERS:     # NB12_BUILDERS: notebook 12, below
            builder(**kwargs)
    finally:
        widget_base.error_html = original
    assert len(seen) == len(BUILDER_CASES + NB12_BUILDERS)
    outside = [(type(e).__name__, str(e)[:60]) for e in seen if not widget_base.in_our_words(e)]
    assert not outside, outside
    assert i18n.get_language() == "en"


# --- notebook 12: the trained models, their loader, experiments and widgets ------------------------------------
from attention_core.labs.nb12_trained_transformer import experiments as E12  # noqa: E402
from attention_core.labs.nb12_trained_transformer import load_trained  # noqa: E402
from attention_core.labs.nb12_trained_transformer import model as M12  # noqa: E402
from attention_core.labs.nb12_trained_transformer import widgets as W12  # noqa: E402

CO, IND = load_trained("coreference_decoder"), load_trained("induction")   # the causal decoder (| it)
_CO_IDS = CO.encode(CO.query_input("the dog didn't cross the road because it was too wide"))

NB12_BUILDERS = [
    (W12.sentence_widget, {"model": None}, "model: expected a trained model (load_trained('coreference'))"),
    (W12.sentence_widget, {"model": "coreference"}, "model: expected a trained model"),
    (W12.sentence_widget, {"model": IND}, "model: expected the coreference model"),
    (W12.sentence_widget, {"model": CO, "sentence": 3}, "sentence: expected a string of space-separated words"),
    (W12.sentence_widget, {"model": CO, "sentence": ["it", 3]}, "sentence: expected a string"),
    (W12.sentence_widget, {"model": CO, "sentence": "zzz qqq"}, "text: 2 word(s) not in the vocabulary"),
    (W12.sentence_widget, {"model": CO, "sentence": ""}, "text: expected at least one word"),
    (W12.sentence_widget, {"model": CO, "sentence": "the dog was tired"}, "sentence: no pronoun"),
    (W12.sentence_widget, {"model": CO, "dpi": 0}, "dpi"),
    (W12.head_picker_widget, {"model": None}, "model: expected a trained model"),
    (W12.head_picker_widget, {"model": CO}, "model: expected the induction model"),
    (W12.head_picker_widget, {"model": IND, "dpi": "abc"}, "dpi: expected a positive number"),
]


@pytest.mark.parametrize("builder, kwargs, words", NB12_BUILDERS,
                         ids=[f"{b.__name__}-{sorted(k)}-{i}" for i, (b, k, _) in enumerate(NB12_BUILDERS)])
def test_nb12_builders_never_raise_and_say_why(builder, kwargs, words):
    _check_panel(builder(**kwargs), words)


@pytest.mark.slow          # redraws the model's widget (make test runs it)
def test_a_failed_sentence_takes_the_old_picture_and_prediction_off_the_screen():
    panel = W12.sentence_widget(CO)
    image = panel.images["weights"]
    assert panel.message.value == "" and panel.readout.value and image.layout.visibility == "visible"
    panel.controls["sentence"].value = "zzz the dog"
    assert ERROR_COLOR in panel.message.value and "'zzz'" in _text(panel)
    assert panel.readout.value == "" and image.layout.visibility == "hidden"
    panel.controls["sentence"].value = "the dog didn't cross the road because it was too wide"
    assert panel.message.value == "" and "road" in panel.readout.value and image.layout.visibility == "visible"


def test_a_sentence_given_as_words_is_joined():
    panel = W12.sentence_widget(CO, sentence=["it"])
    assert panel.message.value == "" and panel.controls["sentence"].value == "it"
    assert panel.state["tokens"][-2:] == ["|", "it"]


NB12_STATES = [
    (E12.previous_token_score, ([[1.0]],), {}, (ValueError, "weights: expected at least 2 tokens")),
    (E12.previous_token_score, (np.zeros((2, 3)),), {}, (ValueError, "weights: expected self-attention maps")),
    (E12.previous_token_score, ([1.0, 0.0],), {}, (ValueError, "weights: expected at least 2 dimension")),
    (E12.previous_token_score, (np.full((3, 3), NAN),), {}, (ValueError, "weights: contains NaN or infinity")),
    (E12.previous_token_score, (np.tril(np.full((3, 3), 1e308)),), {}, "finite"),
    (E12.induction_score, (np.eye(4), 0), {}, (ValueError, "half: expected an integer >= 1, got 0")),
    (E12.induction_score, (np.eye(4), -1), {}, (ValueError, "half: expected an integer >= 1, got -1")),
    (E12.induction_score, (np.eye(4), 3), {}, (ValueError, "half: the two copies of 3 tokens need T >= 6")),
    (E12.induction_score, (np.eye(4), 1.5), {}, (TypeError, "half: expected an integer >= 1, got float 1.5")),
    (E12.induction_score, (np.eye(4), "2"), {}, (TypeError, "half: expected an integer")),
    (E12.induction_score, ([[1.0]], 1), {}, (ValueError, "weights: expected at least 2 tokens")),
    (E12.induction_score, (np.eye(4), 2), {}, "finite"),
    (E12.cosine, ([0.0, 0.0], [1.0, 1.0]), {}, (ValueError, "a: a zero vector has no direction")),
    (E12.cosine, ([1.0, 1.0], [0.0, 0.0]), {}, (ValueError, "b: a zero vector has no direction")),
    (E12.cosine, ([1e200, 1e200], [1e200, 1e200]), {}, "finite"),
    (E12.cosine, ([1e-320, 0.0], [1e-320, 1e-320]), {}, "finite"),
    (E12.cosine, ([1.0, 2.0], [1.0, 2.0, 3.0]), {}, (ValueError, "a and b: expected two vectors of the same length")),
    (E12.cosine, ([], []), {}, (ValueError, "a: expected at least one number")),
    (E12.cosine, ([1.0, INF], [1.0, 1.0]), {}, (ValueError, "a: contains NaN or infinity")),
    (E12.cosine, ("ab", [1.0, 1.0]), {}, (TypeError, "a: expected an array of real numbers")),
    (E12.eval_sequences, (0,), {}, (ValueError, "n: expected an integer >= 1, got 0")),
    (E12.eval_sequences, (2,), {"seed": "abc"}, (TypeError, "seed: expected an integer >= 0")),
    (E12.eval_sequences, (2,), {"half": 0}, (ValueError, "half: expected an integer >= 1")),
    (W12.head_picker_state, (IND, 0, 0), {"sequence": [0]},
     (ValueError, "sequence: expected one sequence of at least 2")),
    (W12.head_picker_state, (IND, 0, 0), {"sequence": []}, (ValueError, "sequence: expected at least one sequence")),
    (W12.head_picker_state, (IND, 0, 0), {"sequence": [0] * 25}, (ValueError, "sequence: expected 1..24")),
    (W12.head_picker_state, (IND, 0, 0), {"sequence": [0.5, 1.5]}, (TypeError, "sequence: expected integer token ids")),
    (W12.head_picker_state, (IND, 0, 0), {"sequence": [99, 1]}, (ValueError, "sequence: token ids must lie in 0..25")),
    (W12.head_picker_state, (IND, 0, 0), {"sequence": "AB"}, (TypeError, "sequence: expected integer token ids")),
    (W12.head_picker_state, (IND, 5, 0), {}, (ValueError, "layer: expected an integer in 0..1")),
    (W12.head_picker_state, (IND, 0, True), {}, (ValueError, "head: expected an integer in 0..3")),
    (W12.head_picker_state, (None, 0, 0), {}, (TypeError, "model: expected a trained model")),
    (W12.head_picker_state, (CO, 0, 0), {}, (ValueError, "model: expected the induction model")),
    (W12.sentence_state, (CO, 3), {}, (TypeError, "sentence: expected a string")),
    (W12.sentence_state, (CO, "the dog was tired because it"), {"ablated": [(9, 9)]},
     (ValueError, "layer: expected an integer in 0..1")),
    (W12.sentence_state, (CO, "the dog was tired because it"), {"ablated": [3]},
     (ValueError, "ablated: expected (layer, head) pairs")),
    (W12.sentence_state, (IND, "A B"), {}, (ValueError, "model: expected the coreference model")),
    (CO.forward, (_CO_IDS,), {"return_hidden": "no"},
     (TypeError, "return_hidden: expected True or False, got str 'no'")),
    (CO.forward, (_CO_IDS,), {"return_hidden": 0}, (TypeError, "return_hidden: expected True or False")),
    (CO.forward, (_CO_IDS,), {"head_mask": np.full((2, 2), 1e20)}, "finite"),
    (CO.forward, (_CO_IDS,), {"head_mask": np.full((2, 2), 1e39)},
     (ValueError, "head_mask: 1e+39 is beyond the largest float32")),
    (CO.forward, (_CO_IDS,), {"head_mask": np.full((2, 2), NAN)}, (ValueError, "head_mask: contains NaN")),
    (CO.forward, (_CO_IDS,), {"head_mask": np.ones(2)}, (ValueError, "head_mask: expected 2 dimension")),
    (CO.forward, (_CO_IDS,), {"attn_mask": np.ones((3, 3))}, (TypeError, "attn_mask: expected a boolean array")),
    (CO.forward, ([[0, 1], [2]],), {}, (TypeError, "ids: expected integer token ids")),
    (CO.encode, ("",), {}, (ValueError, "text: expected at least one word")),
    (CO.encode, (" ".join(f"w{i}" for i in range(10_000)),), {}, (ValueError, "'w9' and 9990 more (it knows")),
    (CO.encode, (["dog", 3],), {}, (TypeError, "text: expected a string of space-separated words or a list of words")),
    (CO.next_token_probs, (_CO_IDS,), {"head_mask": np.full((2, 2), 1e30)}, "finite"),
    (CO.decode, ([999],), {}, (ValueError, "ids: token ids must lie in 0..")),
    (load_trained, ("gpt2",), {},
     (ValueError, "name: expected one of ('induction', 'coreference', 'coreference_decoder', 'induction_seed3'), "
                "got str 'gpt2'")),
    (load_trained, (None,), {}, (ValueError, "name: expected one of")),
]


@pytest.mark.parametrize("fn, args, kwargs, expected", NB12_STATES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(NB12_STATES)])
def test_nb12_functions_give_finite_numbers_or_a_clear_error(fn, args, kwargs, expected):
    _finite_or_clear_error(fn, args, kwargs, expected)


def test_the_head_mask_that_fooled_float32_now_gives_the_float64_answer():
    hm = np.full((2, 2), 1e20)
    w64 = {k: v.astype(np.float64) for k, v in M12.tr.decoder_to_dict(CO.params).items()}
    m64 = M12.TrainedModel("coreference", w64, CO.manifest)
    l32, _ = CO.forward(_CO_IDS, head_mask=hm)
    l64, _ = m64.forward(_CO_IDS, head_mask=hm)
    assert np.isfinite(l32).all()
    # A 1e20 head mask once overflowed float32 into a different answer; now float32 says what float64 says.
    assert CO.vocab[int(l32[-1].argmax())] == CO.vocab[int(l64[-1].argmax())]


def test_cosine_is_exact_at_the_extremes():
    assert E12.cosine([1e200, 1e200], [1e200, 1e200]) == pytest.approx(1.0, abs=1e-15)
    assert E12.cosine([1e-320, 0.0], [0.0, 1e-320]) == 0.0
    assert E12.cosine([1e308, -1e308], [-1e308, 1e308]) == pytest.approx(-1.0, abs=1e-15)


def test_an_encoding_error_stays_short():
    with pytest.raises(ValueError) as info:
        CO.encode(" ".join(f"w{i}" for i in range(10_000)))
    assert len(str(info.value)) < 400
    with pytest.raises(ValueError) as info:
        CO.encode("x" * 100_000)
    assert len(str(info.value)) < 400


@given(st.lists(_numbers(), min_size=2, max_size=2), st.lists(_numbers(), min_size=2, max_size=2))
@example([1e200, 1e200], [1e200, 1e200])
@example([1e-300, 0.0], [1e-300, 1e-300])
def test_nb12_cosine_is_finite_and_right_at_any_magnitude(a, b):
    c = E12.cosine(a, b)
    assert -1.0 <= c <= 1.0 and c == pytest.approx(_exact_cos(a, b), abs=1e-9)


@given(st.integers(2, 12), st.integers(-3, 8), st.integers(0, 999))
def test_nb12_head_scores_are_means_of_weights_or_say_why(t, half, seed):
    rng = np.random.default_rng(seed)
    w = np.tril(rng.random((t, t)) + 1e-3)
    w = w / w.sum(-1, keepdims=True)
    prev = E12.previous_token_score(w)
    assert 0.0 <= prev <= 1.0
    if 1 <= half <= t // 2:
        assert 0.0 <= E12.induction_score(w, half) <= 1.0
    else:
        with pytest.raises(ValueError, match="half"):
            E12.induction_score(w, half)


@settings(max_examples=40, deadline=None)
@given(_numbers(-30, 38).map(abs), st.sampled_from(("coreference", "induction")))
@example(1e20, "coreference")
@example(3.4e38, "coreference")
def test_trained_models_give_finite_logits_for_any_head_mask(scale, name):
    model = CO if name == "coreference" else IND
    ids = _CO_IDS if name == "coreference" else E12.eval_sequences(1, seed=3)[0]
    mask = np.full((model.n_layers, model.n_heads), scale)
    try:
        logits, weights = model.forward(ids, head_mask=mask)
    except ValueError as exc:
        assert "head_mask" in str(exc) and scale > np.finfo(np.float32).max
        return
    except FloatingPointError as exc:
        assert "float32" in str(exc) and scale > 1e30
        return
    assert np.isfinite(logits).all() and np.isfinite(weights).all()
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-4)


# --- the loader: a corrupt file is named, handles are closed, a loaded model cannot be corrupted -----------------
def _model_files(tmp_path, name="coreference"):
    npz, js = M12._files(name)
    a, b = tmp_path / f"{name}.npz", tmp_path / f"{name}.json"
    a.write_bytes(npz.read_bytes())
    b.write_text(js.read_text(encoding="utf-8"), encoding="utf-8")
    return a, b


def _rewrite_npz(path, change):
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)
    np.savez(path, **arrays)


def _rewrite_json(path, change):
    manifest = json.loads(path.read_text(encoding="utf-8"))
    change(manifest)
    path.write_text(json.dumps(manifest), encoding="utf-8")


CORRUPT = [
    ("npz truncated", lambda a, b: a.write_bytes(a.read_bytes()[:200]), "npz", "not a readable .npz weights file"),
    ("npz cut in the middle", lambda a, b: a.write_bytes(a.read_bytes()[: a.stat().st_size // 2]), "npz",
     "not a readable .npz weights file"),
    ("npz empty", lambda a, b: a.write_bytes(b""), "npz", "not a readable .npz weights file"),
    ("npz is text", lambda a, b: a.write_text("hello"), "npz", "not a readable .npz weights file"),
    ("npz holds a pickle", lambda a, b: np.savez(a, tok_emb=np.array([{"x": 1}], dtype=object)), "npz",
     "not a readable .npz weights file"),
    ("npz misses an array", lambda a, b: _rewrite_npz(a, lambda w: w.pop("l0_w_q")), "npz", "l0_w_q"),
    ("npz has NaN", lambda a, b: _rewrite_npz(a, lambda w: w["w_out"].fill(np.nan)), "npz", "w_out: contains NaN"),
    ("npz wrong shape", lambda a, b: _rewrite_npz(a, lambda w: w.update(b_out=np.zeros(3, np.float32))), "npz",
     "b_out: expected shape"),
    ("json truncated", lambda a, b: b.write_text(b.read_text(encoding="utf-8")[:100], encoding="utf-8"), "json",
     "not a readable model manifest (JSON)"),
    ("json not UTF-8", lambda a, b: b.write_bytes(b"\xff\xfe{"), "json", "not a readable model manifest"),
    ("json a list", lambda a, b: b.write_text("[1, 2]"), "json", "expected a JSON object (the manifest), got list"),
    ("json no vocab", lambda a, b: _rewrite_json(b, lambda m: m.pop("vocab")), "json", "has no 'vocab'"),
    ("json no config", lambda a, b: _rewrite_json(b, lambda m: m.pop("config")), "json", "has no 'config'"),
    ("json n_heads a string", lambda a, b: _rewrite_json(b, lambda m: m["config"].update(n_heads="2")), "json",
     "config is not a decoder's (config: n_heads: expected an integer >= 1, got str '2')"),
    ("json vocab of numbers", lambda a, b: _rewrite_json(b, lambda m: m.update(vocab=list(range(144)))), "json",
     "list of words"),
    ("json vocab too short", lambda a, b: _rewrite_json(b, lambda m: m.update(vocab=m["vocab"][:-1])), "npz",
     "words in the vocabulary, but the weights have"),
]


@pytest.mark.parametrize("corrupt, which, words", [c[1:] for c in CORRUPT], ids=[c[0] for c in CORRUPT])
def test_a_corrupt_model_file_is_named_with_what_is_wrong(tmp_path, corrupt, which, words):
    a, b = _model_files(tmp_path)
    corrupt(a, b)
    with pytest.raises(M12.ModelFileError) as info:
        M12.from_files(a, b)
    message = str(info.value)
    assert str(a if which == "npz" else b) in message and words in message, message
    assert "make train" in message
    for phrase in ("Traceback", "Error("):
        assert phrase not in message


def test_load_trained_names_a_corrupt_shipped_file(tmp_path, monkeypatch):
    a, b = _model_files(tmp_path)
    a.write_bytes(a.read_bytes()[:300])
    monkeypatch.setattr(M12, "_files", lambda name: (a, b))
    monkeypatch.setattr(M12, "_CACHE", {})
    with pytest.raises(M12.ModelFileError, match=rf"{a}: not a readable \.npz weights file"):
        load_trained("coreference")


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc (Linux)")
def test_the_loader_closes_its_files_on_every_path(tmp_path, monkeypatch):
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    good_a, good_b = _model_files(tmp_path / "good")
    bad_a, _ = _model_files(tmp_path / "bad")
    bad_a.write_bytes(bad_a.read_bytes()[: bad_a.stat().st_size // 2])
    monkeypatch.setattr(M12, "_CACHE", {})
    before = _open_files()
    for _ in range(20):
        M12.from_files(good_a, good_b)
        with pytest.raises(M12.ModelFileError):
            M12.from_files(bad_a, good_b)
        M12._CACHE.clear()
        load_trained("induction")
    assert _open_files() == before


def test_a_loaded_model_cannot_corrupt_the_next_one():
    a = load_trained("coreference")
    heads, answer = a.config["n_heads"], a.referent("the dog didn't cross the road because it was too wide")
    with pytest.raises(ValueError, match="read-only"):
        a.params.tok_emb[0, 0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        a.params.blocks[0].attn.w_q[:] = 0.0
    a.vocab.append("extra")
    a.manifest["config"]["n_heads"] = 99
    a.manifest["metrics"].clear()
    b = load_trained("coreference")
    assert b is not a and len(b.vocab) == b.params.vocab_size and b.config["n_heads"] == heads and b.manifest["metrics"]
    assert b.referent("the dog didn't cross the road because it was too wide") == answer == "road"


# --- the training command: it never writes over the shipped models unasked, and checks its arguments first -------
_PROBE = r"""
import contextlib, io, json, sys
from attention_core.labs.nb12_trained_transformer import training
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            training.main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code
    out.append([code, err.getvalue()])
print(json.dumps({"results": out, "torch": "torch" in sys.modules}))
"""
BAD_TRAINING = [
    (["induction", "--steps", "1"], "say where to write: --out DIR for a new run, or --overwrite-shipped"),
    ([], "say where to write"),
    (["induction", "--steps", "0", "--out", "{tmp}"], "--steps: expected an integer >= 1, got 0"),
    (["induction", "--steps", "-3", "--out", "{tmp}"], "--steps: expected an integer >= 1, got -3"),
    (["induction", "--steps", "2.5", "--out", "{tmp}"], "--steps: expected an integer >= 1, got '2.5'"),
    (["inductoin", "--out", "{tmp}"], "unknown model name(s) ['inductoin']"),
    (["induction", "gpt2", "--steps", "1", "--out", "{tmp}"], "unknown model name(s) ['gpt2']"),
    (["--out", "{tmp}", "--overwrite-shipped"], "not allowed with argument --out"),
    (["induction", "--out", "{file}"], "exists and is not a folder"),
]


def test_bad_training_commands_stop_before_torch_and_write_nothing(tmp_path):
    import subprocess
    import sys
    (tmp_path / "a_file").write_text("x")
    argvs = [[a.format(tmp=tmp_path / "out", file=tmp_path / "a_file") for a in argv] for argv, _ in BAD_TRAINING]
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argvs)], capture_output=True, text=True,
                          timeout=120)
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    for (argv, words), (code, err) in zip(BAD_TRAINING, report["results"]):
        assert code == 2 and words in err, (argv, code, err)
        assert "Traceback" not in err
    assert not report["torch"], "torch was imported before the arguments were checked"
    assert not (tmp_path / "out").exists()


@pytest.mark.slow          # a short training run (make test runs it)
def test_the_manifest_records_the_full_command_line(tmp_path):
    pytest.importorskip("torch")
    from attention_core.labs.nb12_trained_transformer import training
    out = tmp_path / "my run"
    assert training.main(["induction", "--steps", "2", "--out", str(out)]) == 0
    manifest = json.loads((out / "induction.json").read_text(encoding="utf-8"))
    assert manifest["command"] == ("python -m attention_core.labs.nb12_trained_transformer.training "
                                   f"induction --steps 2 --out '{out}'")
    assert manifest["steps"] == 2 and len(manifest["loss_curve"]) == 1
    model = M12.from_files(out / "induction.npz", out / "induction.json")
    assert np.isfinite(model.forward(E12.eval_sequences(1)[0])[0]).all()


def test_the_default_command_of_train_names_its_steps():
    from attention_core.labs.nb12_trained_transformer import training
    with pytest.raises(ValueError, match="steps: expected an integer >= 1, got 0"):
        training.train("induction", steps=0)
    with pytest.raises(TypeError, match="steps: expected an integer"):
        training.train("induction", steps="10")


def test_make_train_is_the_one_that_overwrites_the_shipped_models():
    from pathlib import Path
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    recipe = makefile.split("\ntrain: setup", 1)[1].split("\n\n", 1)[0]
    assert "nb12_trained_transformer.training --overwrite-shipped" in recipe


# --- notebook 12's check: the learner's function gets a time limit and cannot break the check ------------------
def _ind_loops(w, half):
    while True:
        pass


def _ind_sleeps(w, half):
    import time
    time.sleep(60)


def _ind_interrupted(w, half):
    raise KeyboardInterrupt


def _ind_exits(w, half):
    import sys
    sys.exit(3)


INDUCTION_LEARNERS = [
    (_ind_loops, "did not finish within 0.5 s", "0.5 秒内没有结束"),
    (_ind_sleeps, "did not finish within 0.5 s", "0.5 秒内没有结束"),
    (lambda w, half: exit(), "raised SystemExit", "SystemExit"),
    (_ind_exits, "raised SystemExit", "SystemExit"),
    (_ind_interrupted, "interrupted (KeyboardInterrupt)", "被中断"),
    (lambda w, half: 10 ** 400, "expected one number, got 1000", "应当返回一个数"),
    (lambda w, half: -(10 ** 400), "expected one number, got -1000", "应当返回一个数"),
    (lambda w, half: __import__("fractions").Fraction(1, 3), "you return 0.3333, expected", "你返回 0.3333"),
    (lambda w, half: float("nan"), "expected one number, got nan", "应当返回一个数"),
    (lambda w, half: 1j, "expected one number, got 1j", "应当返回一个数"),
    (lambda w, half: None, "expected one number, got None", "应当返回一个数"),
    (lambda w, half: "0.5", "expected one number, got '0.5'", "应当返回一个数"),
    (lambda w, half: np.array([0.1, 0.2]), "expected one number, got array", "应当返回一个数"),
    (lambda w, half: 1 / 0, "raised ZeroDivisionError: division by zero", "ZeroDivisionError"),
    (lambda w, half: (w.fill(0), 0.0)[1], "changed its input in place", "原地修改了输入"),
    ("not a function", "Pass your function itself", "请传入你写的函数本身"),
]


@pytest.mark.slow          # runs the model under a sleeping learner's function (make test runs it)
@pytest.mark.parametrize("fn, en, zh", INDUCTION_LEARNERS, ids=[str(i) for i in range(len(INDUCTION_LEARNERS))])
def test_check_induction_score_survives_the_learners_function(fn, en, zh):
    import time

    from attention_core.labs.nb12_trained_transformer.checks import check_induction_score
    woke = []
    if fn is _ind_sleeps:
        def fn(w, half):                                        # _ind_sleeps, telling when it ends
            time.sleep(60)
            woke.append(True)
    for lang, words in (("en", en), ("zh", zh)):
        result = check_induction_score(fn, IND, lang=lang, timeout=0.5)
        assert not result.passed and words in result.message, result.message
        assert not woke, "the check waited for the learner's function to end"
        for phrase in ("Traceback", "Error(", "ufunc"):          # the learner's own exception text is theirs to read
            assert phrase not in result.message


def test_check_induction_score_takes_a_right_fraction_and_validates_its_timeout():
    from fractions import Fraction

    from attention_core.labs.nb12_trained_transformer.checks import check_induction_score
    assert check_induction_score(lambda w, half: Fraction(float(E12.induction_score(w, half))), IND).passed
    with pytest.raises(ValueError, match="timeout: expected a finite number > 0"):
        check_induction_score(lambda w, half: 0.0, IND, timeout=0)


def _lab_calls():
    from attention_core.labs.nb09_cost_and_context_window import kv_cache
    from attention_core.labs.nb10_efficient_attention import linear_lab, linformer_lab
    q = np.random.default_rng(0).normal(size=(5, 4))
    return [
        (lambda: kv_cache.model_cache_bytes("gpt-99", 10), "published models"),
        (lambda: kv_cache.decode_with_cache(3, n_heads=-1), "n_heads"),
        (lambda: kv_cache.decode_with_cache(3, n_heads=0), "n_heads"),
        (lambda: linear_lab.linear_attention(q, np.zeros((5, 3)), q[:, :2]), "(Tq, Dk), (Tk, Dk), (Tk, Dv)"),
        (lambda: linformer_lab.weight_rank(q, q, energy=float("nan")), "energy"),
        (lambda: linformer_lab.weight_rank(q, q, energy=1.5), "energy"),
    ]


@pytest.mark.parametrize("index", range(6))
def test_lab_functions_say_what_they_expected_when_a_hostile_caller_passes_nonsense(index):
    call, words = _lab_calls()[index]
    with pytest.raises(ValueError, match=re.escape(words)):
        call()
