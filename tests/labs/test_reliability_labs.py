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
]


@pytest.mark.parametrize("fn, args, kwargs, expected", STATE_CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(STATE_CASES)])
def test_state_functions_give_finite_numbers_or_a_clear_error(fn, args, kwargs, expected):
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


def test_error_messages_of_builders_come_from_the_package():
    """Every red message of the table was written by attention_core (a `raise` in the package)."""
    seen = []
    original = widget_base.error_html

    def spy(exc):
        seen.append(exc)
        return original(exc)

    widget_base.error_html = spy
    try:
        for builder, kwargs, _ in BUILDER_CASES:
            builder(**kwargs)
    finally:
        widget_base.error_html = original
    assert len(seen) == len(BUILDER_CASES)
    outside = [(type(e).__name__, str(e)[:60]) for e in seen if not widget_base._in_our_words(e)]
    assert not outside, outside
    assert i18n.get_language() == "en"
