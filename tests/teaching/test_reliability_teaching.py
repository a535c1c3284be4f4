"""Reliability of the teaching layer (issue 9, classes 2 and 7): hostile and unusual calls.

A table of cases per class, each asserting the exact outcome (a right verdict, or plain words in
the message and no text from deep inside NumPy or Python), and hypothesis properties:
- class 7: the quiz reads what a Chinese keyboard types (full-width digits and letters, the
  Chinese full stop as decimal point, thousands separators, "A, C" and "AC");
- class 5 (the checks): the machinery in test_checks.py, each lab's checkers in
  tests/labs/test_reliability_checks.py;
- class 2: every `lang=` says which languages there are; every check validates its settings;
- the widgets' red messages never show a library's words (widget_base.plain_message).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit import assert_plain

from attention_core.teaching import checks, i18n, quiz, widget_base

# --- class 7: the quiz ---------------------------------------------------------------------------
# (question, answer, expected): True/False is the verdict; a string must appear in the message
# (and the verdict is then False).
QUIZ_CASES = [
    # q1's correct option is C (index 2) in the bank's stored order; q6's are B and D (1, 3).
    ("q1", "C", True), ("q1", "Ｃ", True), ("q1", " C. ", True), ("q1", "(c)", True), ("q1", "c)", True),
    ("q1", "ｃ．", True), ("q1", 2, True), ("q1", np.int64(2), True), ("q1", np.int32(2), True),
    ("q1", 2.0, True), ("q1", np.float64(2.0), True), ("q1", "A", False), ("q1", 0, False),
    ("q1", 1.5, "is not one of the 4 options"), ("q1", 2 + 0j, "is not one of the 4 options"),
    ("q1", 1j, "is not one of the 4 options"), ("q1", True, "is not one of the 4 options"),
    ("q1", 7, "is not one of the 4 options"), ("q1", -1, "is not one of the 4 options"),
    ("q1", np.int64(9), "is not one of the 4 options"), ("q1", "Z", "“Z” is not one of"),
    ("q1", "1", "“1” is not one of"), ("q1", "E", "choose a letter A–D"), ("q1", float("nan"), "not one of"),
    ("q1", "x" * 200, "xxxxxxxx…” is not one of"), ("q1", [0, "Q"], "“Q” is not one of"),
    ("q1", "", "Choose an answer first"), ("q1", "   ", "Choose an answer first"),
    ("q1", "\u3000", "Choose an answer first"), ("q1", None, "Choose an answer first"),
    ("q1", [], "Choose an answer first"),
    ("q6", "B, D", True), ("q6", "BD", True), ("q6", "bd", True), ("q6", "B、D", True), ("q6", "B和D", True),
    ("q6", "Ｂ，Ｄ", True), ("q6", "B D", True), ("q6", "B and D", True), ("q6", "D, B", True),
    ("q6", ["B", "D"], True), ("q6", [1, 3], True), ("q6", np.array([1, 3]), True), ("q6", (3, 1), True),
    ("q6", "B", "left out option D"), ("q6", "ABD", False), ("q6", "B, Z", "“B, Z” is not one of"),
    ("q2b", 64, True), ("q2b", np.int64(64), True), ("q2b", np.float32(64), True), ("q2b", np.array(64.0), True),
    ("q2b", 64 + 0j, True), ("q2b", "64", True), ("q2b", " 64.0 ", True), ("q2b", "６４．０", True),
    ("q2b", "６４", True), ("q2b", "+64", True), ("q2b", "64.", True), ("q2b", "6.4e1", True),
    ("q2b", "64。0", True), ("q2b", "64,0", True),
    ("q2b", "8", "standard deviation"), ("q2b", "6 4", "is not a number"), ("q2b", "nan", "is not a number"),
    ("q2b", "inf", "is not a number"), ("q2b", "1_0", "is not a number"), ("q2b", 64 + 1j, "is not a number"),
    ("q2b", "sixty-four", "“sixty-four” is not a number"), ("q2b", "9" * 100 + "x", "…” is not a number"),
    ("q2b", "9" * 100, "1e+100 is not it"),
    ("q2b", float("inf"), "is not a number"), ("q2b", True, "is not a number"), ("q2b", [64], "is not a number"),
    ("q2b", "", "Type a number first"), ("q2b", "  ", "Type a number first"), ("q2b", None, "Type a number first"),
    ("q5b", "0.665", True), ("q5b", "0,665", True), ("q5b", "0。665", True), ("q5b", "０．６６５", True),
    ("q5b", "0，665", True), ("q5b", ".665", True), ("q5b", "0.667", "exponentiates"),
    ("p9", "16,777,216", True), ("p9", "16 777 216", True), ("p9", "16\u00a0777\u00a0216", True),
    ("p9", "16\u202f777\u202f216", True), ("p9", "16\u2009777\u2009216", True), ("p9", "16'777'216", True),
    ("p9", "１６，７７７，２１６", True), ("p9", "１６ ７７７ ２１６", True), ("p9", "16777216", True),
    ("p9", "16,777,216.0", True), ("p9", "1.6777216e7", True), ("p9", "16,77,216", "is not a number"),
]


@pytest.mark.parametrize("qid, answer, expected", QUIZ_CASES, ids=[f"{c[0]}-{c[1]!r:.20}" for c in QUIZ_CASES])
def test_quiz_answers(qid, answer, expected):
    fb = quiz.check_answer(qid, answer, lang="en")
    assert_plain(fb.message)
    if isinstance(expected, bool):
        assert fb.correct is expected, fb.message
    else:
        assert not fb.correct and expected in fb.message, fb.message


@pytest.mark.parametrize("qid, answer, words", [
    ("q1", "Ｚ", "“Ｚ”不是这 4 个选项之一"), ("q1", "", "请先选择一个答案"), ("q2b", "六十四", "“六十四”不是数字"),
    ("q2b", "６４．０", "回答正确"), ("q6", "Ｂ、Ｄ", "回答正确"),
])
def test_quiz_answers_in_chinese(qid, answer, words):
    assert words in quiz.check_answer(qid, answer, lang="zh").message


def _spellings(value: int, decimals: str):
    """The ways a learner may type value.decimals: plain, grouped by commas, spaces or narrow
    spaces, full-width, with a decimal comma or the Chinese full stop."""
    grouped = f"{value:,}"
    point = f".{decimals}" if decimals else ""
    out = [f"{value}{point}", grouped + point, grouped.replace(",", " ") + point,
           grouped.replace(",", "\u202f") + point]
    if decimals:
        out += [f"{value}。{decimals}"]
        if not (1 <= value <= 999 and len(decimals) == 3):      # "1,234" reads as one thousand two hundred...
            out += [f"{value},{decimals}"]                      # ... any other single comma is a decimal comma
    full = str.maketrans("0123456789.,", "０１２３４５６７８９．，")
    return out + [s.translate(full) for s in out]


@given(st.integers(min_value=0, max_value=10 ** 12), st.text("0123456789", max_size=4))
def test_quiz_reads_numbers_in_every_accepted_spelling(value, decimals):
    expected = float(f"{value}.{decimals}" if decimals else value)
    for text in _spellings(value, decimals):
        assert quiz._parse_number(text) == expected, text
        assert quiz._parse_number("-" + text) == -expected, text


@given(st.text(max_size=30))
def test_quiz_never_raises_on_any_text(text):
    for qid in ("q1", "q6", "q2b"):
        fb = quiz.check_answer(qid, text, lang="en")
        assert isinstance(fb.message, str) and fb.message
        assert_plain(fb.message)


@given(st.one_of(st.integers(), st.floats(allow_nan=True), st.complex_numbers(), st.booleans(),
                 st.lists(st.integers(-3, 10), max_size=4)))
def test_quiz_never_raises_on_any_value(answer):
    for qid in ("q1", "q6", "q2b"):
        fb = quiz.check_answer(qid, answer, lang="zh")
        assert fb.message
        assert_plain(fb.message)


# --- class 2: every lang= names the languages there are ---------------------------------------------
LANG_CALLS = [
    ("i18n.t", lambda lang: i18n.t("common.error", lang, msg="x")),
    ("i18n.set_language", lambda lang: i18n.set_language(lang)),
    ("i18n.resolve_language", lambda lang: i18n.resolve_language(lang)),
    ("quiz.check_answer", lambda lang: quiz.check_answer("q1", "B", lang=lang)),
    ("checks.run_check", lambda lang: checks.run_check("check_x", lambda: checks.msg("checks.mutated", case=""),
                                                        lang)),
    ("quiz.pointer_text", lambda lang: quiz.pointer_text("q1", lang=lang)),
    ("quiz.quiz_widget", lambda lang: quiz.quiz_widget("q1", lang=lang)),
    ("quiz.notebook_quiz", lambda lang: quiz.notebook_quiz("00_start_here", lang=lang)),
    ("quiz.review_quiz", lambda lang: quiz.review_quiz(lang=lang)),
    ("environment.show_backends", lambda lang: __import__("attention_core.teaching.environment",
                                                          fromlist=["x"]).show_backends(lang=lang)),
]


@pytest.mark.parametrize("lang", ["fr", "EN", "", "english", 0, ["en"]])
@pytest.mark.parametrize("where, call", LANG_CALLS, ids=[c[0] for c in LANG_CALLS])
def test_every_lang_argument_names_the_languages(where, call, lang):
    with pytest.raises(ValueError) as info:
        call(lang)
    assert '"en" (English)' in str(info.value) and '"zh" (Chinese)' in str(info.value)
    assert str(info.value).startswith("lang: ")


def test_set_language_none_is_refused_and_the_language_is_kept():
    i18n.set_language("zh")
    with pytest.raises(ValueError, match="got None"):
        i18n.set_language(None)
    assert i18n.get_language() == "zh"


# --- widget_base: red messages in plain words --------------------------------------------------------
def _raised(fn):
    try:
        fn()
    except Exception as exc:           # noqa: BLE001
        return exc
    raise AssertionError("expected an exception")


def _inside_attention_core(code: str):
    """Run `code` as if it were a line of attention_core that is not a `raise` (an index, a call)."""
    def run():
        exec(compile(code, str(widget_base._PACKAGE / "labs" / "somewhere.py"), "exec"), {"np": np})
    return run


def _agg(**kwargs):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    return FigureCanvasAgg(Figure(**kwargs))


DEEP_ERRORS = [
    lambda: np.zeros(0).max(),                                    # zero-size array to reduction...
    lambda: np.linalg.inv(np.zeros((2, 2))),                      # Singular matrix
    lambda: _agg(dpi=-1).draw(),                                  # dpi must be positive (matplotlib's words)
    _inside_attention_core("np.random.default_rng('abc')"),       # SeedSequence expects int...
    _inside_attention_core("np.ones(3)[5]"),                      # index 5 is out of bounds
    _inside_attention_core("int('x')"),                           # invalid literal for int()
]


@pytest.mark.parametrize("make", DEEP_ERRORS)
@pytest.mark.parametrize("lang, words", [("en", "outside what this widget can compute or draw"),
                                         ("zh", "超出了这个控件能计算或绘制的范围")])
def test_errors_from_inside_libraries_become_plain_words(make, lang, words):
    i18n.set_language(lang)
    exc = _raised(make)
    shown = widget_base.error_html(exc)
    assert words in shown and str(exc) not in shown


def test_our_own_messages_and_the_learners_are_kept():
    from attention_core.core.validation import positive_float
    ours = _raised(lambda: positive_float("x", "limit"))
    assert "limit: expected a positive number" in widget_base.error_html(ours)

    def learners_cell():
        raise ValueError("my own words")
    assert "my own words" in widget_base.error_html(_raised(learners_cell))
    assert "made by hand" in widget_base.error_html(ValueError("made by hand"))


@pytest.mark.parametrize("dpi, words", [(0, "dpi: expected a finite number > 0"), (-5, "dpi"), (2.5, "from 20 to 600"),
                                        (1e9, "from 20 to 600"), ("abc", "dpi: expected a positive number"),
                                        (float("nan"), "dpi"), ([], "dpi")])
def test_figures_validate_their_dpi(dpi, words):
    for make in (lambda: widget_base.LiveFigure((2, 2), dpi=dpi), lambda: widget_base.HeatmapView(dpi=dpi)):
        with pytest.raises((TypeError, ValueError), match=words.replace("(", r"\(")):
            make()


def test_a_heatmap_refuses_more_cells_than_it_can_draw():
    view = widget_base.HeatmapView()
    with pytest.raises(ValueError, match="at most 200 rows and columns"):
        view.update(np.full((3, 500), 1 / 500))


@pytest.mark.parametrize("limit, error, words", [
    (1e308, ValueError, "at most ±1e+12, got 1e+308"), (float("inf"), ValueError, "at most ±1e+12"),
    (0, ValueError, "limit: expected a finite number > 0"), (float("nan"), ValueError, "limit"),
    ("3", TypeError, "limit: expected a positive number"),
])
def test_slider_ranges_are_validated(limit, error, words):
    with pytest.raises(error, match=words.replace("+", r"\+")):
        widget_base.check_range(limit)


def test_a_builder_that_fails_anywhere_returns_a_panel():
    @widget_base.widget_builder
    def builder():
        np.linalg.inv(np.zeros((2, 2)))                           # as matplotlib does with an inf range

    panel = builder()
    assert isinstance(panel, widget_base.Panel)
    assert "outside what this widget can compute or draw" in panel.message.value
    assert "Singular" not in panel.message.value


# --- plots: figure helpers refuse what their axes cannot draw, in plain words ------------------------
from attention_core.teaching import plots  # noqa: E402

PLOT_CASES = [
    (lambda: plots.plot_vectors_2d({"a": (1e308, 1e308)}), ValueError, "vectors: the axes reach at most ±1e+300"),
    (lambda: plots.plot_vectors_2d({"a": (1.0, 1.0)}, limit=1e308), ValueError, "limit: the axes reach at most"),
    (lambda: plots.plot_vectors_2d({"a": (1.0, 1.0)}, limit="3"), TypeError, "limit: expected a positive number"),
    (lambda: plots.plot_vectors_2d({"a": (1.0, 1.0)}, limit=0), ValueError, "limit: expected a finite number > 0"),
    (lambda: plots.plot_vectors_2d({"a": (1.0, 1.0), "b": (0.0, 1.0)}, show_dot="no"), TypeError,
     "show_dot: expected 'auto', True or False"),
    (lambda: plots.plot_vectors_2d({"a": (1e200, 1e200), "b": (1e200, 1.0)}), FloatingPointError,
     "a·b is beyond the largest float64 number"),
]


@pytest.mark.parametrize("make, error, words", PLOT_CASES)
def test_plot_helpers_refuse_what_they_cannot_draw(make, error, words):
    with pytest.raises(error) as info:
        make()
    assert words in str(info.value)


@pytest.mark.parametrize("a, b, cos", [((1e-300, 1e-300), (1e-300, 0.0), "0.71"), ((1e150, 0.0), (0.0, 1e150), "0.00"),
                                       ((1.0, 0.5), (0.5, 1.0), "0.80"), ((0.0, 0.0), (1.0, 0.0), "undefined")])
def test_dot_text_cosine_is_right_at_any_scale(a, b, cos):
    assert f"cos θ = {cos}" in plots.dot_text("a", "b", a, b)


@pytest.mark.parametrize("make, words", [
    (lambda: plots.plot_positional_encoding(np.zeros((4, 4)), colorbar="no"), "colorbar: expected True or False"),
    (lambda: plots.plot_mask(np.ones((3, 3), dtype=bool), legend="no"), "legend: expected True or False"),
    (lambda: __import__("attention_core.teaching.measure", fromlist=["x"]).latencies(lambda: 1, warmup="no"),
     "warmup: expected True or False"),
])
def test_teaching_flags_are_true_or_false(make, words):
    with pytest.raises(TypeError, match=words):
        make()


@pytest.mark.parametrize("answer, qid, words", [
    (10 ** 400, "q1", "is not one of the 4 options"),          # float() of it overflows: no answer, no traceback
    (10 ** 400, "q2b", "is not a number"),
    ([0, 10 ** 400], "q1", "is not one of the 4 options"),
    (chr(65 + quiz.get_question("q1").correct[0]).encode(), "q1", "Correct"),   # bytes: the text they hold
    (bytearray(b"64"), "q2b", "Correct"),
])
def test_quiz_reads_huge_integers_and_bytes_without_raising(answer, qid, words):
    fb = quiz.check_answer(qid, answer, lang="en")
    assert words in fb.message, fb.message
    assert_plain(fb.message)


def test_quiz_reads_a_decimal_as_the_number_it_is():
    from decimal import Decimal
    assert quiz.check_answer("q3b", Decimal("64"), lang="en").correct
    assert not quiz.check_answer("q3b", Decimal("0.665"), lang="en").correct
