"""The package in the browser's Python (Pyodide, `make lite`): what differs there is tested here by imitating it.

Pyodide reports sys.platform "emscripten", cannot start a thread and has no usable timer signal, so a checker
cannot put a time limit on the learner's call: it calls the function directly instead of failing with
"can't start new thread" (tests/browser/test_lite.py runs checkers in the real browser kernel)."""
from __future__ import annotations

import sys
import threading

import numpy as np

import attention_core as ac
from attention_core.labs.nb03_softmax import checks as nb03_checks
from attention_core.teaching import checks


def _like_pyodide(monkeypatch):
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(checks, "_alarm_usable", lambda: False)

    def no_threads(self, *args, **kwargs):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(threading.Thread, "start", no_threads)


def test_checkers_judge_the_learners_function_without_threads(monkeypatch):
    _like_pyodide(monkeypatch)
    assert nb03_checks.check_softmax(ac.softmax).passed
    wrong = nb03_checks.check_softmax(lambda x, axis=-1: np.asarray(x, dtype=float))
    assert not wrong.passed and "thread" not in wrong.message


def test_the_learners_exception_is_still_reported_without_threads(monkeypatch):
    _like_pyodide(monkeypatch)

    def broken(x, axis=-1):
        raise ZeroDivisionError("oops")
    verdict = nb03_checks.check_softmax(broken)
    assert not verdict.passed and "ZeroDivisionError" in verdict.message
