"""Self-test questions (the eight of seed 000): load, validate, check answers, and ask them in a widget.

The questions live in data/quiz/questions.json (format: data/quiz/README.md), both languages side
by side. `check_answer` is a pure function (question, answer) -> Feedback that the widget's
"Check" button calls; the widgets use plain ipywidgets only (no custom JavaScript), so they work
offline in JupyterLab and Voila.

    from attention_core.teaching.quiz import quiz_widget, review_quiz
    quiz_widget("q2")        # one question, at the end of notebook 02
    review_quiz()            # notebook 11: questions that combine topics, then the eight in a new order

The options of a choice question are shown in a shuffled order, seeded by the question's id (so a
stored notebook stays the same from run to run; `option_order`), with a button that reshuffles them;
the reference answer can be opened only after a first attempt.
"""
from __future__ import annotations

import dataclasses
import html
import json
import math
import numbers
import re
import unicodedata
import zlib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np

from attention_core.teaching import checks, i18n
from attention_core.teaching.checks import FAIL_COLOR, PASS_COLOR
from attention_core.teaching.notebook_source import notebook_titles
from attention_core.teaching.static_view import StaticVBox

# This module's UI strings, English and Chinese side by side (registered with i18n on import).
STRINGS: dict[str, dict[str, str]] = {
    "quiz.check": {"en": "Check", "zh": "检查答案"},
    "quiz.show_reference": {"en": "Show reference answer", "zh": "显示参考答案"},
    "quiz.hide_reference": {"en": "Hide reference answer", "zh": "隐藏参考答案"},
    "quiz.reference": {"en": "Reference answer:", "zh": "参考答案："},
    "quiz.correct": {"en": "Correct.", "zh": "回答正确。"},
    "quiz.incorrect": {"en": "Not quite.", "zh": "还不对。"},
    "quiz.choose_first": {"en": "Choose an answer first.", "zh": "请先选择一个答案。"},
    "quiz.bad_choice": {"en": "“{value}” is not one of the {n} options: choose a letter {letters}.",
                        "zh": "“{value}”不是这 {n} 个选项之一：请选择字母 {letters}。"},
    "quiz.select_all": {"en": "Select all that apply.", "zh": "选出所有正确的选项。"},
    "quiz.item_right": {"en": "✔ {option} — {why}", "zh": "✔ {option}——{why}"},
    "quiz.item_wrong": {"en": "✘ {option} — {why}", "zh": "✘ {option}——{why}"},
    "quiz.item_missed": {"en": "You left out option {option}, which is also correct.",
                         "zh": "你漏选了选项 {option}，它也是正确的。"},
    "quiz.enter_number": {"en": "Type a number first.", "zh": "请先输入一个数。"},
    "quiz.not_a_number": {"en": "“{text}” is not a number; type a number such as 0.5.",
                          "zh": "“{text}”不是数字；请输入一个数，例如 0.5。"},
    "quiz.number_wrong": {"en": "Not quite: {value} is not it. Hint: {hint}",
                          "zh": "还不对：{value} 不是答案。提示：{hint}"},
    "quiz.expected_function": {"en": "Expected the function you wrote, got a {got}.",
                               "zh": "这里需要传入你写的函数，收到的却是 {got}。"},
    "quiz.number_placeholder": {"en": "a number", "zh": "输入数字"},
    "quiz.answer_label": {"en": "Answer:", "zh": "答案："},
    "quiz.code_instructions": {"en": "Write the function in a code cell below, then run `{call}` there to check it. "
                                     "Hint: {hint}",
                               "zh": "在下面的代码单元格里写出这个函数，然后在那里运行 `{call}` 来检查。提示：{hint}"},
    "quiz.try_it": {"en": "Try it: notebook {notebook}, section “{section}”, widget `{widget}()`.",
                    "zh": "动手试试：{notebook}，小节“{section}”，控件 `{widget}()`。"},
    "quiz.try_it_section": {"en": "Try it: notebook {notebook}, section “{section}”.",
                            "zh": "动手试试：{notebook}，小节“{section}”。"},
    "quiz.reshuffle": {"en": "Shuffle the options", "zh": "打乱选项顺序"},
    "quiz.reference_after": {"en": "The reference answer opens after your first attempt.",
                             "zh": "先作答一次，才能查看参考答案。"},
    "quiz.reference_after_code": {"en": "The reference answer opens after you run `{call}` once.",
                                  "zh": "先运行一次 `{call}`，才能查看参考答案。"},
    "quiz.combined_title": {"en": "Questions that combine topics", "zh": "综合题"},
    "quiz.combined_intro": {"en": "Each question needs two notebooks at once ({n} questions).",
                            "zh": "每道题都要同时用到两节的内容（共 {n} 道）。"},
    "quiz.eight_again": {"en": "The eight self-test questions again, in another order",
                         "zh": "再做一遍八道自测题（换了顺序）"},
}
i18n.register(STRINGS)

# The notebooks in curriculum order (file stems of notebooks/en/*.ipynb and notebooks/zh/*.ipynb).
NOTEBOOK_STEMS = tuple(notebook_titles())     # every notebook of the course, from the shipped title index
REQUIRED_IDS = tuple(f"q{i}" for i in range(1, 9))
KINDS = ("choice", "number", "code")
BANK = "quiz/questions.json"      # inside the package data, attention_core/data


class QuizDataError(ValueError):
    """The question file breaks the format of data/quiz/README.md."""


@dataclass(frozen=True)
class Option:
    text: dict            # {en, zh}
    feedback: dict        # {en, zh}: why this option is right or wrong


@dataclass(frozen=True)
class Mistake:
    """A typical wrong number and what it reveals."""
    value: float
    tolerance: float
    feedback: dict


@dataclass(frozen=True)
class Pointer:
    """Where the idea is demonstrated: a notebook stem, a section heading per language, a widget."""
    notebook: str
    section: dict         # {en, zh}: heading text in notebooks/en and notebooks/zh
    widget: str | None    # "module.function" inside attention_core, e.g. "widgets.mask_widget";
                          # None while the notebook's widget does not exist yet


@dataclass(frozen=True)
class Question:
    id: str
    topic: dict
    question: dict
    kind: str                                  # "choice" | "number" | "code"
    reference: dict                            # the seed's answer ({zh} is the seed's own text)
    pointer: Pointer
    part_of: str | None = None                 # a sub-question of q1..q8
    combines: tuple = ()                       # a review question of notebook 11: the notebooks it combines
    options: tuple = ()                        # choice
    correct: tuple = ()                        # choice: indices into options
    answer: float | None = None                # number
    tolerance: float = 0.0                     # number: |given - answer| <= tolerance
    mistakes: tuple = ()                       # number: typical wrong values
    hint: dict | None = None                   # number and code
    explanation: dict | None = None            # number: shown when right
    check: str | None = None                   # code: name of a checker of the pointer notebook's lab
    call: str | None = None                    # code: how to check in a cell

    @property
    def multiple(self) -> bool:
        """True when more than one option is correct (the learner selects all that apply)."""
        return len(self.correct) > 1


@dataclass(frozen=True)
class Feedback:
    correct: bool
    message: str

    def __bool__(self) -> bool:
        return self.correct

    def _repr_html_(self) -> str:
        color = PASS_COLOR if self.correct else FAIL_COLOR
        return f'<div style="color:{color}">{_md(self.message)}</div>'


# --- loading and validation ------------------------------------------------------------------------

def _bilingual(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise QuizDataError(f"{where}: expected {{\"en\": ..., \"zh\": ...}}, got {type(value).__name__}")
    for lang in i18n.LANGUAGES:
        if not isinstance(value.get(lang), str) or not value[lang].strip():
            raise QuizDataError(f"{where}: missing language {lang!r} (every text needs en and zh)")
    return {lang: value[lang] for lang in i18n.LANGUAGES}


def _number(value, where: str, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizDataError(f"{where}: expected a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise QuizDataError(f"{where}: expected a number >= {minimum}, got {value!r}")
    return float(value)


def _question(raw: dict, ids: set) -> Question:
    qid = raw.get("id")
    if not isinstance(qid, str) or not qid:
        raise QuizDataError(f"question {raw!r:.60}: missing 'id'")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise QuizDataError(f"{qid}.kind: expected one of {KINDS}, got {kind!r}")
    p = raw.get("pointer")
    if not isinstance(p, dict):
        raise QuizDataError(f"{qid}.pointer: expected {{notebook, section, widget}}, got {p!r}")
    if p.get("notebook") not in NOTEBOOK_STEMS:
        raise QuizDataError(f"{qid}.pointer.notebook: unknown notebook {p.get('notebook')!r}; "
                            f"expected one of {NOTEBOOK_STEMS}")
    if "widget" not in p or not (p["widget"] is None or (isinstance(p["widget"], str) and p["widget"].strip())):
        raise QuizDataError(f"{qid}.pointer.widget: expected the name of an attention_core widget function "
                            f"or null, got {p.get('widget', '(missing)')!r}")
    pointer = Pointer(p["notebook"], _bilingual(p.get("section"), f"{qid}.pointer.section"), p["widget"])
    part_of = raw.get("part_of")
    if part_of is not None and (part_of not in REQUIRED_IDS or part_of not in ids):
        raise QuizDataError(f"{qid}.part_of: expected one of the questions {REQUIRED_IDS}, got {part_of!r}")
    combines = raw.get("combines", [])
    if not isinstance(combines, list) or (combines and (len(combines) < 2 or part_of is not None
                                                        or any(c not in NOTEBOOK_STEMS for c in combines)
                                                        or pointer.notebook not in combines)):
        raise QuizDataError(f"{qid}.combines: expected at least two notebook stems, the pointer's among them, "
                            f"on a question that is no sub-question; got {combines!r}")
    common = dict(id=qid, kind=kind, pointer=pointer, part_of=part_of, combines=tuple(combines),
                  topic=_bilingual(raw.get("topic"), f"{qid}.topic"),
                  question=_bilingual(raw.get("question"), f"{qid}.question"),
                  reference=_bilingual(raw.get("reference"), f"{qid}.reference"))
    if kind == "choice":
        opts = raw.get("options")
        if not isinstance(opts, list) or len(opts) < 2:
            raise QuizDataError(f"{qid}.options: expected a list of at least 2 options")
        options = tuple(Option(_bilingual(o.get("text") if isinstance(o, dict) else None, f"{qid}.options[{i}].text"),
                               _bilingual(o.get("feedback"), f"{qid}.options[{i}].feedback"))
                        for i, o in enumerate(opts))
        correct = raw.get("correct")
        if not isinstance(correct, list) or not correct:
            raise QuizDataError(f"{qid}.correct: expected a non-empty list of option indices")
        for c in correct:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < len(options):
                raise QuizDataError(f"{qid}.correct: index {c!r} is out of range for {len(options)} options "
                                    f"(indices start at 0)")
        if len(set(correct)) != len(correct):
            raise QuizDataError(f"{qid}.correct: repeated index in {correct}")
        return Question(**common, options=options, correct=tuple(sorted(correct)))
    if kind == "number":
        mistakes = tuple(Mistake(_number(m.get("value"), f"{qid}.mistakes[{i}].value"),
                                 _number(m.get("tolerance", 0), f"{qid}.mistakes[{i}].tolerance", 0),
                                 _bilingual(m.get("feedback"), f"{qid}.mistakes[{i}].feedback"))
                         for i, m in enumerate(raw.get("mistakes", [])))
        return Question(**common, answer=_number(raw.get("answer"), f"{qid}.answer"),
                        tolerance=_number(raw.get("tolerance", 0), f"{qid}.tolerance", 0), mistakes=mistakes,
                        hint=_bilingual(raw.get("hint"), f"{qid}.hint"),
                        explanation=_bilingual(raw.get("explanation"), f"{qid}.explanation"))
    check = raw.get("check")
    try:
        checks.lab_checker(pointer.notebook, check)         # the lab of the question's notebook has it
    except (ValueError, LookupError):
        raise QuizDataError(f"{qid}.check: expected the name of a checker in the lab of notebook "
                            f"{pointer.notebook}, got {check!r}") from None
    return Question(**common, check=check, call=raw.get("call") or f"{check}(your_function)",
                    hint=_bilingual(raw.get("hint"), f"{qid}.hint"))


def validate_questions(data) -> list[Question]:
    """Check the parsed JSON (a dict with "questions", or the list itself); return the questions.

    Raises QuizDataError naming the question and field: a missing language, a bad option index,
    an unknown notebook, a duplicate id, a missing one of q1..q8.
    """
    raw = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise QuizDataError("expected a list of questions (or {\"questions\": [...]})")
    ids: set = set()
    for item in raw:
        if not isinstance(item, dict):
            raise QuizDataError(f"expected each question to be an object, got {item!r:.60}")
        if item.get("id") in ids:
            raise QuizDataError(f"duplicate question id {item.get('id')!r}")
        ids.add(item.get("id"))
    missing = [q for q in REQUIRED_IDS if q not in ids]
    if missing:
        raise QuizDataError(f"missing questions {missing}: the eight self-test questions q1..q8 must all be there")
    return [_question(item, ids) for item in raw]


def load_questions(path=None) -> list[Question]:
    """The questions from data/quiz/questions.json (or `path`), validated, in file order."""
    if path is None:
        text = files("attention_core.data").joinpath(BANK).read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return validate_questions(json.loads(text))


def get_question(question, questions=None) -> Question:
    """A Question given itself or its id ("q1".."q8", or a sub-question such as "q2b")."""
    if isinstance(question, Question):
        return question
    questions = load_questions() if questions is None else questions
    for q in questions:
        if q.id == question:
            return q
    raise KeyError(f"no question with id {question!r}; expected one of {[q.id for q in questions]}")


# --- checking --------------------------------------------------------------------------------------

_LETTERS = "ABCDEFGH"
_SHOWN_MAX = 40                   # a learner's answer is quoted back up to this many characters


def _shown(answer) -> str:
    """The learner's answer as they would recognise it, shortened when long (never an exception's repr)."""
    text = answer if isinstance(answer, str) else str(answer)
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_MAX else text[:_SHOWN_MAX - 1] + "…"


def _typed(text: str) -> str:
    """What a keyboard typed, in one spelling: NFKC turns full-width digits, letters and punctuation
    (６４．０, Ｂ, ，) into ASCII; the Chinese full stop and the minus signs are mapped by hand."""
    text = unicodedata.normalize("NFKC", text)
    return text.translate(_TYPED).strip()


_TYPED = str.maketrans({"。": ".", "｡": ".", "−": "-", "–": "-", "、": ","})
# 16,777,216 and 16 777 216 (thousands separators: the first group has no leading zero, so
# "0,665" stays a decimal comma); a single comma otherwise is a decimal comma (0,665).
_GROUPED = re.compile(r"[+-]?[1-9]\d{0,2}(?P<sep>[, '])\d{3}(?:(?P=sep)\d{3})*(?:\.\d*)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
# A Chinese unit after the digits: 万 = 10^4, 亿 = 10^8, 万亿 = 10^12 (1678万 = 16,780,000).
_CJK_UNITS = {"万": 1e4, "亿": 1e8, "万亿": 1e12}
_CJK_UNIT = re.compile(r"(?<=[0-9.])\s*(万亿|亿|万)$")


def _parse_number(answer):
    """A finite float from a number or the text of one in any accepted spelling; None otherwise.

    Accepted: Python and NumPy reals (np.int64(64)), complex numbers with no imaginary part, 0-d
    arrays, and text with full-width characters, a decimal comma or the Chinese full stop as the
    decimal point, thousands separators (16,777,216 / 16 777 216 / 16'777'216), and a Chinese unit
    after the digits (1678万 / 0.1678 亿 / 1.6万亿).
    """
    if isinstance(answer, (bool, np.bool_)):
        return None
    if isinstance(answer, (bytes, bytearray)):
        answer = bytes(answer).decode("utf-8", "replace")
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        answer = answer.item()
    if isinstance(answer, numbers.Complex) and not isinstance(answer, numbers.Real):
        answer = answer.real if answer.imag == 0 else None
    if isinstance(answer, numbers.Number) and not isinstance(answer, numbers.Complex):   # decimal.Decimal
        answer = _float_or_none(answer)
    if isinstance(answer, numbers.Real):
        value = _float_or_none(answer)
        if value is None:
            return None                             # 10**400: beyond any float, so no answer here
    elif isinstance(answer, str):
        text = " ".join(_typed(answer).split())
        unit = _CJK_UNIT.search(text)                   # 1678万, 0.17 亿: the Chinese units of 10^4, 10^8, 10^12
        scale = 1.0
        if unit:
            scale, text = _CJK_UNITS[unit.group(1)], text[:unit.start()].rstrip()
        if _GROUPED.fullmatch(text):
            text = re.sub(r"[, ']", "", text)
        elif _DECIMAL_COMMA.fullmatch(text):
            text = text.replace(",", ".")
        if not re.fullmatch(r"[0-9eE.+-]+", text):      # float() would also take "nan", "inf", "1_0"
            return None
        try:
            value = float(text) * scale
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def _float_or_none(x) -> float | None:
    try:
        return float(x)
    except (OverflowError, ValueError, TypeError):
        return None


def _is_index(a, n: int) -> bool:
    """0, 1, 2.0, np.int64(3) below n; not True, 1.5, 7, 2+0j, None or 10**400."""
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Real):
        return False
    value = _float_or_none(a)
    return value is not None and value.is_integer() and 0 <= value < n


class _NotAnOption(ValueError):
    """An answer to a choice question that names no option; carries what the learner gave."""

    def __init__(self, answer):
        super().__init__("not an option")
        self.answer = answer


def _letters(text: str, n: int):
    """The option indices written as letters: "B", "b.", "(B)", "A, C", "A、C", "A and C", "AC"; None if not letters."""
    text = _typed(text).upper()
    parts = [p.strip(" .)(（）") for p in re.split(r"[,;/&+\s]+|\bAND\b|和|与|及", text)]
    parts = [p for p in parts if p]
    if not parts:
        return None
    if len(parts) == 1 and len(parts[0]) > 1:
        parts = list(parts[0])                                         # "AC" -> A, C
    if not all(len(p) == 1 and p in _LETTERS[:n] for p in parts):
        return None
    return [_LETTERS.index(p) for p in parts]


def _choice_indices(question: Question, answer):
    """The chosen indices as a set, from an index, a list of them, a letter "A".., letters "A, C"
    or "AC", or an option's text. Raises _NotAnOption for anything that names no option."""
    if answer is None:
        return set()
    if isinstance(answer, (bytes, bytearray)):
        answer = bytes(answer).decode("utf-8", "replace")              # b"A" is the letter, not the number 65
    if isinstance(answer, np.ndarray):
        answer = answer.tolist()
    items = [answer] if isinstance(answer, (str, numbers.Number)) or not hasattr(answer, "__iter__") \
        else list(answer)
    n = len(question.options)
    chosen = set()
    for a in items:
        if isinstance(a, str):
            typed = _typed(a)
            if not typed:
                continue                                               # an empty field chooses nothing
            texts = [(_typed(o.text["en"]), _typed(o.text["zh"])) for o in question.options]
            matches = [i for i, pair in enumerate(texts) if typed in pair]
            if not matches:
                matches = _letters(typed, n) or []
            if not matches:
                raise _NotAnOption(a)
            chosen.update(matches)
        elif not _is_index(a, n):
            raise _NotAnOption(a)                                       # 1.5, 7, 2+0j, True, None in a list
        else:
            chosen.add(int(a))
    return chosen


def option_order(question, shuffle: int = 0) -> tuple:
    """The order in which a choice question's options are shown: a permutation of their indices,
    seeded by the question's id and `shuffle` (0: the order a notebook stores; the reshuffle button
    counts up). Letter k of the shown question is option `order[k]` of the file."""
    q = get_question(question)
    rng = np.random.default_rng([zlib.crc32(q.id.encode()), int(shuffle)])
    return tuple(int(i) for i in rng.permutation(len(q.options)))


def _reordered(question: Question, order) -> Question:
    """The question with its options (and correct indices) in the shown order."""
    if order is None:
        return question
    order = tuple(int(i) for i in order)
    if sorted(order) != list(range(len(question.options))):
        raise ValueError(f"order: expected a permutation of 0..{len(question.options) - 1}, got {order}")
    return dataclasses.replace(question, options=tuple(question.options[i] for i in order),
                               correct=tuple(sorted(order.index(i) for i in question.correct)))


def _join(head: str, text: str, lang: str) -> str:
    return head + ("" if lang == "zh" else " ") + text      # Chinese needs no space after 。


def check_answer(question, answer, lang: str | None = None, order=None) -> Feedback:
    """Judge an answer and explain why, in `lang` (default: the current i18n language).

    choice: an option index, a list of indices (select-all questions), a letter "A".., or the
    option's text; indices and letters count in `order` (the shown order, `option_order`; default:
    the file's order); number: a number or a string such as "0.665"; code: the learner's function,
    judged by the checker the question names, from the lab of the question's notebook.
    """
    q = get_question(question)
    lang = i18n.resolve_language(lang)
    if q.kind == "choice":
        q = _reordered(q, order)
        try:
            chosen = _choice_indices(q, answer)
        except _NotAnOption as bad:
            return Feedback(False, i18n.t("quiz.bad_choice", lang, value=_shown(bad.answer), n=len(q.options),
                                          letters=f"A–{_LETTERS[len(q.options) - 1]}"))
        if not chosen:
            return Feedback(False, i18n.t("quiz.choose_first", lang))
        correct = set(q.correct)
        ok = chosen == correct
        head = i18n.t("quiz.correct" if ok else "quiz.incorrect", lang)
        if not q.multiple and len(chosen) == 1:
            (i,) = chosen
            return Feedback(ok, _join(head, q.options[i].feedback[lang], lang))
        lines = [head]
        for i in sorted(chosen | correct):
            label = f"{_LETTERS[i]}. {q.options[i].text[lang]}"
            if i in chosen and i in correct:
                lines.append(i18n.t("quiz.item_right", lang, option=label, why=q.options[i].feedback[lang]))
            elif i in chosen:
                lines.append(i18n.t("quiz.item_wrong", lang, option=label, why=q.options[i].feedback[lang]))
            elif not ok:
                lines.append(i18n.t("quiz.item_missed", lang, option=_LETTERS[i]))
        return Feedback(ok, "\n".join(lines))
    if q.kind == "number":
        value = _parse_number(answer)
        if value is None:
            if answer is None or (isinstance(answer, str) and not answer.strip()):
                return Feedback(False, i18n.t("quiz.enter_number", lang))
            return Feedback(False, i18n.t("quiz.not_a_number", lang, text=_shown(answer)))
        if abs(value - q.answer) <= q.tolerance:
            return Feedback(True, _join(i18n.t("quiz.correct", lang), q.explanation[lang], lang))
        for m in q.mistakes:
            if abs(value - m.value) <= m.tolerance:
                return Feedback(False, _join(i18n.t("quiz.incorrect", lang), m.feedback[lang], lang))
        return Feedback(False, i18n.t("quiz.number_wrong", lang, value=f"{value:g}", hint=q.hint[lang]))
    if not callable(answer):
        return Feedback(False, i18n.t("quiz.expected_function", lang, got=type(answer).__name__))
    result = checks.lab_checker(q.pointer.notebook, q.check)(answer, lang=lang)
    return Feedback(result.passed, result.message)


def pointer_text(question, lang: str | None = None) -> str:
    """ "Try it: notebook 04_masking, section “...”, widget `widgets.mask_widget()`." (without the
    widget part when the pointer names none)."""
    q = get_question(question)
    lang = i18n.resolve_language(lang)
    p = q.pointer
    notebook = _notebook_name(p.notebook, lang)
    if p.widget is None:
        return i18n.t("quiz.try_it_section", lang, notebook=notebook, section=p.section[lang])
    return i18n.t("quiz.try_it", lang, notebook=notebook, section=p.section[lang], widget=p.widget)


def _notebook_name(stem: str, lang: str) -> str:
    """How a pointer names its notebook: the file stem in English ("04_masking"), the notebook's number and title
    in Chinese ("04 · 掩码"), where the stem would be English inside a Chinese sentence."""
    if lang == "en":
        return stem
    from attention_core.teaching.notebook_source import notebook_titles
    title = notebook_titles().get(stem, {}).get(lang)
    return f"{stem[:2]} · {title}" if title else stem


# --- widgets ---------------------------------------------------------------------------------------

def _md(text: str) -> str:
    """The little markdown the questions use (**bold**, `code`, line breaks) as HTML; $math$ is kept."""
    out = html.escape(text, quote=False)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return out.replace("\n", "<br>")


def _feedback_html(fb: Feedback) -> str:
    color = PASS_COLOR if fb.correct else FAIL_COLOR
    return f'<div style="border-left:4px solid {color};padding:2px 8px">{_md(fb.message)}</div>'


def quiz_widget(question, lang: str | None = None, shuffle: int = 0):
    """An interactive question: the choices (in the shuffled order `option_order(question, shuffle)`,
    with a button that reshuffles them) or an answer field, "Check", "Show reference answer" (enabled
    after a first attempt) and where to try the idea. Returns an ipywidgets.VBox (its `answer_widget`,
    `check_button`, `reference_button`, `shuffle_button`, `feedback`, `reference` and `order` let tests
    drive it). Its saved output also carries the question and its choices as static HTML, for a code
    host (see `static_view`)."""
    import ipywidgets as w

    q = get_question(question)
    lang = i18n.resolve_language(lang)
    title = w.HTML(f"<h4 style='margin:4px 0'>{html.escape(q.id.upper())} · {html.escape(q.topic[lang])}</h4>")
    parts = [title, w.HTMLMath(_md(q.question[lang]))]
    state = {"order": option_order(q, shuffle) if q.kind == "choice" else None, "shuffle": int(shuffle)}
    shuffle_button = None
    if q.kind == "choice":
        letters = list(_LETTERS[:len(q.options)])
        listing = w.HTMLMath("")

        def show_options():
            items = "".join(f"<li><b>{letters[k]}.</b> {_md(q.options[i].text[lang])}</li>"
                            for k, i in enumerate(state["order"]))
            listing.value = f"<ul style='list-style:none;padding-left:0'>{items}</ul>"
        show_options()
        parts.append(listing)
        if q.multiple:
            toggles = [w.ToggleButton(description=c, layout=w.Layout(width="3.5em")) for c in letters]
            answer_widget = w.HBox(toggles)
            parts.append(w.HTML(f"<i>{html.escape(i18n.t('quiz.select_all', lang))}</i>"))

            def current():
                return [k for k, tb in enumerate(toggles) if tb.value]

            def clear():
                for tb in toggles:
                    tb.value = False
        else:
            answer_widget = w.ToggleButtons(options=[(c, k) for k, c in enumerate(letters)], value=None,
                                            style={"button_width": "3.5em"})

            def current():
                return answer_widget.value

            def clear():
                answer_widget.value = None
        shuffle_button = w.Button(description=i18n.t("quiz.reshuffle", lang), icon="random",
                                  layout=w.Layout(width="auto"))
    elif q.kind == "number":
        answer_widget = w.Text(placeholder=i18n.t("quiz.number_placeholder", lang),
                               description=i18n.t("quiz.answer_label", lang))

        def current():
            return answer_widget.value
    else:
        answer_widget = w.HTML(_md(i18n.t("quiz.code_instructions", lang, call=q.call, hint=q.hint[lang])))

        def current():
            return None
    parts.append(answer_widget)

    # width "auto": a button as wide as its words (a fixed width clipped "Show reference a…")
    check_button = w.Button(description=i18n.t("quiz.check", lang), button_style="primary",
                            layout=w.Layout(width="auto"))
    reference_button = w.Button(description=i18n.t("quiz.show_reference", lang), disabled=True,
                                layout=w.Layout(width="auto"),
                                tooltip=(i18n.t("quiz.reference_after", lang) if q.kind != "code" else
                                         i18n.t("quiz.reference_after_code", lang, call=q.call)))
    feedback = w.HTMLMath("")
    reference = w.HTMLMath(f"<b>{html.escape(i18n.t('quiz.reference', lang))}</b> {_md(q.reference[lang])}",
                           layout=w.Layout(display="none"))

    def unlock():
        reference_button.disabled = False

    def on_check(_):
        answer = current()
        fb = check_answer(q, answer, lang, order=state["order"])
        feedback.value = _feedback_html(fb)
        if answer not in (None, "", []) and (q.kind != "number" or _parse_number(answer) is not None):
            unlock()                               # a real attempt (not an empty one) opens the reference

    def on_reference(_):
        if reference_button.disabled:
            return
        hidden = reference.layout.display == "none"
        reference.layout.display = None if hidden else "none"
        reference_button.description = i18n.t("quiz.hide_reference" if hidden else "quiz.show_reference", lang)

    def on_shuffle(_):
        state["shuffle"] += 1
        state["order"] = option_order(q, state["shuffle"])
        box.order = state["order"]
        clear()
        feedback.value = ""
        show_options()

    check_button.on_click(on_check)
    reference_button.on_click(on_reference)
    if q.kind == "code":
        checks.on_checked(q.check, unlock, key=q.id)       # its checker, run in a cell (directly or by check_answer)
    row = [check_button, reference_button] if q.kind != "code" else [reference_button]
    if shuffle_button is not None:
        shuffle_button.on_click(on_shuffle)
        row.append(shuffle_button)
    buttons = w.HBox(row)
    pointer = w.HTML(f"<small>{_md(pointer_text(q, lang))}</small>")
    box = StaticVBox(parts + [buttons, feedback, reference, pointer],
                 layout=w.Layout(border="1px solid #ddd", padding="6px", margin="6px 0"))
    box.question, box.answer_widget, box.feedback, box.reference = q, answer_widget, feedback, reference
    box.check_button, box.reference_button, box.shuffle_button = check_button, reference_button, shuffle_button
    box.order = state["order"]
    return box


def questions_for(notebook: str, questions=None) -> list[Question]:
    """The questions whose pointer is `notebook` (a stem such as "02_scaled_dot_product"); notebook 11's
    questions that combine topics are asked there only (`review_quiz`), not in the notebooks they point to."""
    if notebook not in NOTEBOOK_STEMS:
        raise ValueError(f"notebook: expected one of {NOTEBOOK_STEMS}, got {notebook!r}")
    return [q for q in (load_questions() if questions is None else questions)
            if q.pointer.notebook == notebook and not q.combines]


def combined_questions(questions=None) -> list[Question]:
    """Notebook 11's questions that combine topics (those with `combines`), in file order."""
    return [q for q in (load_questions() if questions is None else questions) if q.combines]


def review_order() -> tuple:
    """The order in which notebook 11 asks the eight again: a fixed shuffle, never q1..q8."""
    order = [REQUIRED_IDS[i] for i in np.random.default_rng(11).permutation(len(REQUIRED_IDS))]
    return tuple(order)


def notebook_quiz(notebook: str, lang: str | None = None):
    """All questions of one notebook (its main question and sub-questions) in a VBox."""
    lang = i18n.resolve_language(lang)
    return StaticVBox([quiz_widget(q, lang) for q in questions_for(notebook)])


def review_quiz(lang: str | None = None):
    """Notebook 11's review: the questions that combine topics, one accordion pane each, then the eight
    self-test questions with their sub-questions again, in another order (`review_order`)."""
    import ipywidgets as w
    lang = i18n.resolve_language(lang)
    questions = load_questions()
    combined = combined_questions(questions)
    panes = [quiz_widget(q, lang) for q in combined]
    titles = [f"{q.id.upper()} · {q.topic[lang]} ({' + '.join(c[:2] for c in q.combines)})" for q in combined]
    again_panes, again_titles = [], []
    for main in review_order():
        q = get_question(main, questions)
        group = [q] + [s for s in questions if s.part_of == main]
        again_panes.append(w.VBox([quiz_widget(s, lang) for s in group]))
        again_titles.append(f"{q.id.upper()} · {q.topic[lang]} ({q.pointer.notebook[:2]})")
    intro = html.escape(i18n.t("quiz.combined_intro", lang, n=len(combined)))
    return StaticVBox([w.HTML(f"<h3>{html.escape(i18n.t('quiz.combined_title', lang))}</h3><p>{intro}</p>"),
                       w.Accordion(children=panes, titles=tuple(titles)),
                       w.HTML(f"<h4>{html.escape(i18n.t('quiz.eight_again', lang))}</h4>"),
                       w.Accordion(children=again_panes, titles=tuple(again_titles))])
