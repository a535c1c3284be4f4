"""Reliability of the labs' checkers (issue 9, class 5): each checker survives the learner's function.

Every checker hands the learner's function to teaching.checks.call_learner, so each one gives it a
time limit and survives SystemExit, KeyboardInterrupt, complex output and a non-function; each
validates its settings and its `lang=`. (The machinery itself is tested in tests/teaching/test_checks.py.)
"""
from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest
from testkit import assert_plain

from attention_core import softmax
from attention_core.core.attention import attention_scores, scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.labs.nb01_query_key_value.checks import check_attention
from attention_core.labs.nb02_scaled_dot_product.checks import check_scaled_scores
from attention_core.labs.nb03_softmax.checks import check_softmax
from attention_core.labs.nb04_masking.checks import check_causal_mask
from attention_core.teaching.checks import TIMEOUT_S

CHECKERS = {"check_softmax": check_softmax, "check_scaled_scores": check_scaled_scores,
            "check_attention": check_attention, "check_causal_mask": check_causal_mask}


# --- class 5: the checks -------------------------------------------------------------------------
def _sleeps(*args, **kwargs):
    time.sleep(60)


def _sleeper(woke: list):
    """_sleeps that appends to `woke` when it ends: a check that waited for it would see it."""
    def sleeps(*args, **kwargs):
        time.sleep(60)
        woke.append(True)
    return sleeps


def _loops(*args, **kwargs):
    while True:
        pass


def _loops_and_swallows(*args, **kwargs):
    while True:                       # catches the first interruption: the next one still lands
        try:
            while True:
                pass
        except Exception:             # noqa: BLE001 -- a learner's habit, on purpose
            pass


def _exits(*args, **kwargs):
    sys.exit(0)


def _exits_by_builtin(*args, **kwargs):
    raise SystemExit("bye")


def _interrupted(*args, **kwargs):
    raise KeyboardInterrupt


RIGHT = {
    "check_softmax": lambda x: softmax(x),
    "check_scaled_scores": lambda q, k: attention_scores(q, k),
    "check_attention": lambda q, k, v: scaled_dot_product_attention(q, k, v),
    "check_causal_mask": lambda t: causal_mask(t),
}


def _complex(name):
    right = RIGHT[name]

    def fn(*args):
        out = right(*args)
        if isinstance(out, tuple):
            return out[0] + 0j, out[1] + 0j
        return np.asarray(out) + 0j
    return fn


CHECKS = tuple(RIGHT)
# (learner's function, words of the English message, words of the Chinese one)
CHECK_CASES = [
    (_sleeps, "did not finish within 0.2 s", "0.2 秒内没有结束"),
    (_loops, "did not finish within 0.2 s", "0.2 秒内没有结束"),
    (_loops_and_swallows, "did not finish within 0.2 s", "0.2 秒内没有结束"),
    (_exits, "raised SystemExit", "SystemExit"),
    (_exits_by_builtin, "raised SystemExit", "SystemExit"),
    (_interrupted, "interrupted (KeyboardInterrupt)", "被中断"),
    ("complex", "returned complex numbers", "返回了复数"),
    ("not a function", "Pass your function itself", "请传入你写的函数本身"),
    (None, "Pass your function itself", "请传入你写的函数本身"),
]


@pytest.mark.slow          # each checker against a sleeping or looping function: about 5 s (make test runs it)
@pytest.mark.parametrize("name", CHECKS)
@pytest.mark.parametrize("fn, en, zh", CHECK_CASES, ids=[str(getattr(c[0], "__name__", c[0])) for c in CHECK_CASES])
def test_checks_survive_the_learners_function(name, fn, en, zh):
    learner = _complex(name) if fn == "complex" else fn
    woke = []
    learner = _sleeper(woke) if fn is _sleeps else learner
    check = CHECKERS[name]
    for lang, words in (("en", en), ("zh", zh)):
        result = check(learner, lang=lang, timeout=0.2)
        assert not result.passed and words in result.message, result.message
        assert_plain(result.message)
        assert not woke, f"{name} waited for the learner's function to end"


@pytest.mark.parametrize("name", CHECKS)
def test_the_time_limit_does_not_touch_a_right_answer(name):
    for timeout in (TIMEOUT_S, 30, None):
        assert CHECKERS[name](RIGHT[name], timeout=timeout).passed


def test_the_time_limit_from_another_thread_abandons_a_sleeping_function():
    """Off the main thread there is no SIGALRM: the call runs in a daemon thread that is left
    behind, and the message says so; a looping one is stopped by an asynchronous exception."""
    results = {}

    def run(key, fn):
        results[key] = check_softmax(fn, timeout=0.3)

    woke = []
    threads = [threading.Thread(target=run, args=("sleeps", _sleeper(woke))),
               threading.Thread(target=run, args=("loops", _loops))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)                       # a bound on a hang, not a measurement: each check returns at its limit
    assert not any(th.is_alive() for th in threads) and not woke
    assert "did not finish within 0.3 s" in results["sleeps"].message
    assert "still running in the background" in results["sleeps"].message
    assert "did not finish within 0.3 s" in results["loops"].message
    assert "still running" not in results["loops"].message


def test_the_alarm_is_restored_after_a_check():
    import signal
    before = signal.getsignal(signal.SIGALRM)
    check_softmax(_loops, timeout=0.2)
    check_softmax(RIGHT["check_softmax"], timeout=0.2)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("timeout, error, words", [
    (0, ValueError, "timeout: expected a finite number > 0"), (-1, ValueError, "timeout"),
    (float("nan"), ValueError, "timeout"), (float("inf"), ValueError, "timeout"),
    ("5", TypeError, "timeout: expected a positive number (seconds)"), (True, TypeError, "timeout"),
])
def test_check_settings_are_validated(timeout, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        check_softmax(RIGHT["check_softmax"], timeout=timeout)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"test_mask": "no"}, TypeError, "test_mask: expected True or False"),
    ({"returns": "weights"}, ValueError, "returns: expected 'both' or 'output'"),
    ({"lang": "fr"}, ValueError, 'lang: expected "en" \\(English\\) or "zh" \\(Chinese\\)'),
])
def test_check_attention_settings(kwargs, error, words):
    with pytest.raises(error, match=words):
        check_attention(RIGHT["check_attention"], **kwargs)



@pytest.mark.parametrize("lang", ["fr", "EN", "", 0])
@pytest.mark.parametrize("name", ["check_softmax", "check_causal_mask"])
def test_every_lang_argument_names_the_languages(name, lang):
    with pytest.raises(ValueError) as info:
        CHECKERS[name](RIGHT[name], lang=lang)
    assert '"en" (English)' in str(info.value) and '"zh" (Chinese)' in str(info.value)
    assert str(info.value).startswith("lang: ")
