"""The checker machinery (teaching.checks), course-agnostic: the learner's call with its time limit, the
shared diagnoses and comparisons, the verdict in each language. Tested on a toy checker built here the
way every lab builds its own; each lab's checkers are tested in tests/labs/."""
import signal
import sys
import threading
import time

import numpy as np
import pytest

import attention_core.teaching.checks as checks_module
from attention_core.teaching import checks
from attention_core.teaching.checks import (
    TIMEOUT_S,
    CheckResult,
    Fail,
    as_array,
    bool_mask,
    call_learner,
    describe,
    diagnose,
    expect_close,
    expect_finite,
    expect_shape,
    first_difference,
    msg,
    rows_sum_to_one,
    run_check,
    same,
)


def check_double(fn, lang=None, *, timeout=None):
    """A toy checker: fn(x) -> 2 * x, on a vector and a (2, 3) batch."""
    def body():
        for x in (np.arange(3.0), np.arange(6.0).reshape(2, 3)):
            case = describe(x=x)
            out = as_array(call_learner(fn, case, x), case)
            expect_shape(out, x.shape, "output", case)
            expect_finite(out, "output", case)
            diagnose(out, {"checks.hint.kq": x}, case, ref=2 * x)          # any key stands for "a known mistake"
            expect_close(out, 2 * x, "output", case)
        return msg("checks.what.code", name="ok")
    return run_check("check_double", body, lang, timeout, fn)


def verdict(fn, lang="en", **kwargs) -> CheckResult:
    result = check_double(fn, lang=lang, **kwargs)
    assert isinstance(result, CheckResult)
    return result


def fails(result: CheckResult, *fragments) -> None:
    assert not result.passed, result.message
    for fragment in fragments:
        assert fragment in result.message, result.message


def test_a_right_function_passes_and_the_result_shows_itself():
    result = verdict(lambda x: 2 * x)
    assert result.passed and bool(result) and result.message == "ok"
    assert repr(result) == "✔ check_double: ok"
    assert "✘" in repr(verdict(lambda x: x)) and "check_double" in repr(verdict(lambda x: x))


def _in_place(x):
    x *= 2
    return x


def _exits(x):
    sys.exit(0)


def _interrupted(x):
    raise KeyboardInterrupt


# (learner's function, words of the English message, words of the Chinese one)
MISTAKES = [
    (lambda x: None, "forget `return`", "忘了写 `return`"),
    (lambda x: (2 * x, x), "a tuple of 2 items", "含 2 项的元组"),
    (lambda x: 2 * x + 0j, "complex numbers", "复数"),
    (lambda x: "2x", "returned a str", "返回了 str"),
    (lambda x: np.zeros((3, 2)), "has shape (3, 2) but should be (3,)", "形状是 (3, 2)，应该是 (3,)"),
    (lambda x: x * np.inf, "NaN or inf", "NaN 或 inf"),
    (lambda x: x, "K by Q^T", "K·Qᵀ"),                                    # the known mistake (the key above)
    (lambda x: 2 * x + 1, "you returned output[0] = 1, but it should be 0: the first of 3", "应该是 0"),
    (lambda x: 1 / 0, "raised ZeroDivisionError: division by zero", "抛出了异常 ZeroDivisionError"),
    (_in_place, "changed its input in place", "原地修改了输入"),
    (_exits, "called exit()", "调用了 exit()"),
    (_interrupted, "interrupted (KeyboardInterrupt)", "被中断"),
    ("not a function", "Pass your function itself, as in check_double(my_function), not a str", "请传入你写的函数本身"),
]


@pytest.mark.parametrize("fn, en, zh", MISTAKES, ids=[m[1][:24] for m in MISTAKES])
def test_each_mistake_is_named_in_both_languages(fn, en, zh):
    fails(verdict(fn, "en"), en)
    zh_result = verdict(fn, "zh")
    fails(zh_result, zh)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh_result.message), zh_result.message


@pytest.mark.parametrize("learner", ["sleeps", "loops", "loops_and_swallows"])
def test_the_time_limit_stops_the_learners_function(learner):
    woke = []

    def sleeps(x):
        time.sleep(60)
        woke.append(True)                 # reached only if the check waited for the whole sleep

    def loops(x):
        while True:
            pass

    def loops_and_swallows(x):
        while True:                       # catches the first interruption: the next one still lands
            try:
                while True:
                    pass
            except Exception:             # noqa: BLE001 -- a learner's habit, on purpose
                pass
    fn = {"sleeps": sleeps, "loops": loops, "loops_and_swallows": loops_and_swallows}[learner]
    fails(verdict(fn, timeout=0.2), "did not finish within 0.2 s")
    fails(verdict(fn, "zh", timeout=0.2), "0.2 秒内没有结束")
    assert not woke                       # the verdict came before the learner's function could end


def test_one_runner_whose_none_is_the_default_limit():
    def slow_double(x):
        time.sleep(0.3)
        return 2 * x

    assert verdict(slow_double, timeout=None).passed                   # None: the default limit (TIMEOUT_S)
    fails(verdict(slow_double, timeout=0.1), "within 0.1 s")
    assert TIMEOUT_S >= 1
    assert not hasattr(checks_module, "run_exercise")                  # one checker runner: run_check


def test_a_quiz_shown_again_replaces_its_callback_instead_of_adding_one():
    calls = []
    for _ in range(5):                                                 # a cell re-run five times
        checks_module.on_checked("check_cb", lambda: calls.append(1), key="q-cb")
    run_check("check_cb", lambda: msg("checks.what.code", name="ok"), "en")
    assert calls == [1]


@pytest.mark.parametrize("timeout, error", [(0, ValueError), (-1, ValueError), (float("inf"), ValueError),
                                            ("5", TypeError), (True, TypeError)])
def test_the_time_limit_is_validated(timeout, error):
    with pytest.raises(error, match="timeout"):
        verdict(lambda x: 2 * x, timeout=timeout)


def test_the_time_limit_from_another_thread_abandons_a_sleeping_function():
    """Off the main thread there is no SIGALRM: the call runs in a daemon thread that is left behind,
    and the message says so; a looping one is stopped by an asynchronous exception."""
    results = {}

    def sleeps(x):
        time.sleep(60)

    def loops(x):
        while True:
            pass

    threads = [threading.Thread(target=lambda k=k, f=f: results.__setitem__(k, verdict(f, timeout=0.3)))
               for k, f in (("sleeps", sleeps), ("loops", loops))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert "did not finish within 0.3 s" in results["sleeps"].message
    assert "still running in the background" in results["sleeps"].message
    assert "did not finish within 0.3 s" in results["loops"].message
    assert "still running" not in results["loops"].message


def test_the_alarm_is_restored_after_a_check():
    before = signal.getsignal(signal.SIGALRM)

    def loops(x):
        while True:
            pass
    verdict(loops, timeout=0.2)
    verdict(lambda x: 2 * x, timeout=0.2)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_call_learner_hands_copies_and_a_torch_like_result_is_an_array():
    seen = []

    class Tensor:                                           # what a torch tensor offers
        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return np.ones(2)

    x = np.zeros(2)
    out = call_learner(lambda a: seen.append(a) or Tensor(), "x", x)
    assert seen[0] is not x and np.array_equal(seen[0], x)
    assert np.array_equal(as_array(out, "x"), np.ones(2))


def _failure(call) -> Fail:
    with pytest.raises(Fail) as info:
        call()
    return info.value


def _words(fail: Fail, lang: str = "en") -> str:
    return fail.message.text(lang)


def test_rows_sum_to_one_names_the_axis_the_row_and_negative_weights():
    w = np.full((3, 4), 0.25)
    rows_sum_to_one(w, "weights", "c")                                   # rows of 4 x 0.25: fine
    assert "down each column" in _words(_failure(lambda: rows_sum_to_one(np.full((4, 3), 0.25), "weights", "c")))
    assert "whole weights sums to 1" in _words(_failure(lambda: rows_sum_to_one(w / 3, "weights", "c")))
    bad = w.copy()
    bad[2] *= 1.37
    said = _words(_failure(lambda: rows_sum_to_one(bad, "weights", "c")))
    assert "Row 2 (counting from 0)" in said and "1.37" in said
    assert "negative entry (-0.5)" in _words(_failure(lambda: rows_sum_to_one(np.array([1.5, -0.5]), "weights", "c")))
    assert "sums to 0.5, not 1" in _words(_failure(lambda: rows_sum_to_one(np.array([0.25, 0.25]), "weights", "c")))


def test_first_difference_names_the_first_differing_row_and_both_values():
    ref = np.tril(np.ones((4, 4), dtype=bool))
    first_difference(ref.copy(), ref, "mask", "T = 4")                   # equal: silent
    got = ref.copy()
    got[2, 3] = got[3, 0] = True
    fail = _failure(lambda: first_difference(got, ref, "mask", "T = 4"))
    assert fail.key == "checks.values_row"
    assert _words(fail) == ("For T = 4, you returned mask[2] = [True, True, True, True], "
                            "but it should be [True, True, True, False].")
    assert "你返回的 mask[2] =" in _words(fail, "zh")                        # code set in Chinese gets spaces
    padded = np.ones((2, 1, 3), dtype=bool)
    fail = _failure(lambda: first_difference(~padded, padded, "mask", "c"))
    assert "mask[0] = [False, False, False]" in _words(fail)             # a (1, Tk) row shown flat


def test_a_known_mistake_is_named_only_where_it_differs_from_the_answer():
    ref = np.arange(3.0)
    diagnose(ref, {"checks.hint.kq": ref.copy()}, "c", ref=ref)          # the "mistake" is right here: silent
    diagnose(ref, {"checks.hint.kq": None}, "c", ref=ref)                # no such mistake on this input
    assert _failure(lambda: diagnose(ref + 1, {"checks.hint.kq": ref + 1}, "c", ref=ref)).key == "checks.hint.kq"
    assert same(ref, ref + 1e-9) and not same(ref, ref[:2]) and not same(ref, ref + 1)



def test_a_batch_failure_is_said_as_one_and_a_kept_mistake_stands():
    with checks.batched("outer.key", "B = 2"):
        pass                                                             # nothing fails: silent

    def fail_inside(key, keep=()):
        def run():
            with checks.batched("outer.key", "B = 2", keep=keep):
                raise Fail(key, case="inner case")
        return _failure(run)

    fail = fail_inside("checks.hint.kq")
    assert (fail.key, fail.fields["case"]) == ("outer.key", "B = 2")
    assert fail.fields["detail"] == Fail("checks.hint.kq", case="inner case").message   # the inner words, as detail
    assert fail.__suppress_context__                                     # one failure, not a chained traceback
    assert fail_inside("checks.hint.kq", keep=("checks.hint.kq",)).key == "checks.hint.kq"   # a named mistake stands
    with pytest.raises(ValueError, match="not a check's failure"):      # only a Fail is said again
        with checks.batched("outer.key", "B = 2"):
            raise ValueError("not a check's failure")

def test_shape_hint_bool_mask_and_the_what_words():
    fail = _failure(lambda: expect_shape(np.zeros((3, 4)), (4, 3), "weights", "c"))
    assert "K by Q^T" in _words(fail) and "你的权重形状是 (3, 4)" in _words(fail, "zh")
    assert bool_mask(np.ones(2, dtype=bool), "c").dtype == bool
    assert "dtype int64" in _words(_failure(lambda: bool_mask(np.ones(2, dtype=np.int64), "c")))
    expect_close(np.array([1.0]), np.array([1.0 + 1e-7]), "output", "c")
    assert describe(q=np.zeros((4, 5)), k=np.zeros(3)) == "q.shape=(4, 5), k.shape=(3,)"


def test_several_sentences_join_per_language():
    def body():
        return msg("checks.what.code", name="A."), msg("checks.what.code", name="B.")
    assert run_check("check_two", body, "en").message == "A. B."
    assert run_check("check_two", body, "zh").message == "A.B."           # Chinese sentences join without a space


def test_the_machinery_is_nobodys_checker():
    """Course-agnostic: teaching.checks defines no learner checker (those are the labs')."""
    own = [n for n, v in vars(checks).items() if n.startswith("check_") and callable(v)]
    assert own == []
