"""Checker machinery (ARENA style), course-agnostic: run a learner's function and say what is wrong.

Every lab's checkers (`labs/nbNN_<notebook>/checks.py`) are built from these pieces, reached as one module
(`from attention_core.teaching import checks as ck`), so that a call says it is the shared machinery's:

    def check_double(fn, lang=None, *, timeout=None):
        def body():
            x = np.arange(3.0)
            case = ck.describe(x=x)                                  # "x.shape=(3,)"
            out = ck.as_array(ck.call_learner(fn, case, x), case)    # None, tuples, complex, non-arrays named
            ck.expect_shape(out, x.shape, "output", case)
            ck.expect_close(out, 2 * x, "output", case)              # raises Fail with an i18n key
            return ck.msg("lab.double.ok")
        return ck.run_check("check_double", body, lang, timeout, fn)   # -> CheckResult, in `lang`

A check stops at the first problem, a `Fail` (an i18n key and its fields), and puts it in words in
the language asked for. The learner's bugs never raise here: `call_learner` catches their exceptions
(SystemExit and KeyboardInterrupt included), gives each call a time limit (`timeout=`, in seconds,
TIMEOUT_S by default) and reports edits of the inputs in place. Shared diagnoses: `as_array`,
`expect_shape` (with the K Q^T hint), `expect_finite`, `rows_sum_to_one` (names the wrong axis or row),
`expect_close`, `first_difference` (the first differing row and both values), `same`, `diagnose` (a
known mistake's answer), `bool_mask`, `batched` (a batch's failure said as one: works on one input, not
on a batch). The names of checkers start with `check_`, never `test_`, so pytest never collects them.
"""
from __future__ import annotations

import contextlib
import contextvars
import copy
import ctypes
import dataclasses
import html
import importlib
import re
import signal
import sys
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from attention_core.core.validation import positive_float
from attention_core.teaching import i18n
from attention_core.teaching.measure import traced_peak

# The machinery's UI strings, English and Chinese side by side (registered with i18n on import);
# each lab's checkers keep theirs in the lab's strings.py.
STRINGS: dict[str, dict[str, str]] = {

    "checks.what.output": {"en": "output", "zh": "输出"},
    "checks.what.weights": {"en": "weights", "zh": "权重"},
    "checks.what.scores": {"en": "scores", "zh": "分数"},
    "checks.what.code": {"en": "{name}", "zh": "\u2063{name}\u2063"},
    "checks.raised": {"en": "Your function raised {exc} (on the input {case}).{why}",
                      "zh": "你的函数抛出了异常 {exc}（输入：{case}）。{why}"},
    # The exercise's stub: its NotImplementedError carries the hint.
    "checks.not_written": {"en": "Not written yet (NotImplementedError). Hint: {hint} (it will be checked on {case}).",
                           "zh": "还没有写（NotImplementedError）。提示：{hint}（检查用的输入：{case}）。"},
    "checks.not_written_bare": {"en": "Not written yet (NotImplementedError; it will be checked on {case}).",
                                "zh": "还没有写（NotImplementedError；检查用的输入：{case}）。"},
    # What the common NumPy / torch errors mean, with the shapes of the inputs the learner's function got.
    "checks.why.matmul": {"en": " That is a matrix product whose inner sizes differ: `a @ b` needs a.shape[-1] == "
                                "b.shape[-2]. Your function received {shapes}; is one operand missing a transpose "
                                "(swapaxes(-1, -2)), or transposed twice?",
                          "zh": "这是一次内侧维度对不上的矩阵乘法：`a @ b` 要求 a.shape[-1] == b.shape[-2]。"
                                "你的函数收到的输入形状是 {shapes}；是不是某个操作数少了一次转置"
                                "（swapaxes(-1, -2)），或者多转置了一次？"},
    "checks.why.broadcast": {"en": " Two arrays whose shapes cannot be broadcast together were combined elementwise "
                                   "(sizes must be equal or 1, axis by axis from the right). Your function received "
                                   "{shapes}.",
                             "zh": "两个形状无法广播的数组做了逐元素运算（从最右边的轴起，每一轴的大小必须相等"
                                   "或为 1）。你的函数收到的输入形状是 {shapes}。"},
    "checks.why.dtype": {"en": " The data types do not fit together (an integer or boolean array where floats are "
                               "expected, or float32 mixed with float64). Your function received {dtypes}.",
                         "zh": "数据类型对不上（该用浮点数的地方用了整数或布尔数组，或者 float32 和 float64"
                               " 混在一起）。你的函数收到的输入类型是 {dtypes}。"},
    "checks.why.none": {"en": " A value in your function is None: does a helper forget to `return`?",
                        "zh": "你的函数里有一个值是 None：是不是某个辅助函数忘了写 `return`？"},
    "checks.timeout": {"en": "Your function did not finish within {seconds} s on the input {case}: is there a loop "
                             "that never ends, or a `time.sleep`? (A slower machine may need more time: pass "
                             "timeout=, in seconds.){more}",
                       "zh": "你的函数 {seconds} 秒内没有结束（输入：{case}）：是不是有一个永远不会结束的循环，"
                             "或者 `time.sleep`？（机器较慢时可以用 timeout= 给更多时间，单位是秒。）{more}"},
    "checks.still_running": {"en": " It is still running in the background; if the notebook becomes slow, restart "
                                   "the kernel.",
                             "zh": "它仍在后台运行；如果笔记本变慢，请重启内核。"},
    "checks.exited": {"en": "Your function called exit() or raised SystemExit on the input {case}; a function should "
                            "return its result instead. (The notebook keeps running.)",
                      "zh": "你的函数调用了 exit() 或抛出了 SystemExit（输入：{case}）；函数应该用 return 返回结果。"
                            "（笔记本仍在正常运行。）"},
    "checks.interrupted": {"en": "Your function was interrupted (KeyboardInterrupt) on the input {case}; the check "
                                 "stopped there. (The notebook keeps running.)",
                           "zh": "你的函数被中断了（KeyboardInterrupt；输入：{case}），检查到此为止。"
                                 "（笔记本仍在正常运行。）"},
    "checks.complex": {"en": "Your function returned complex numbers for {case}; expected real numbers "
                             "(a square root or power of a negative number gives complex results in NumPy).",
                       "zh": "你的函数对 {case} 返回了复数；这里应该是实数"
                             "（在 NumPy 里，对负数开方或取幂会得到复数）。"},
    "checks.not_function": {"en": "Pass your function itself, as in {name}(my_function), not a {got}.",
                            "zh": "请传入你写的函数本身，例如 {name}(my_function)，而不是 {got}。"},
    "checks.memory_torch": {
        "en": "Your function computes with torch on the input {case}. This check measures memory with tracemalloc, "
              "which sees NumPy's arrays but not torch's tensors, so it cannot judge this version: write it with "
              "NumPy (the inputs and the result are NumPy arrays).",
        "zh": "你的函数用 torch 做了计算（输入：{case}）。这个检查用 tracemalloc 测量内存，"
              "它看得见 NumPy 的数组，却看不见 torch 的张量，所以没法评判这个版本："
              "请用 NumPy 来写（输入和结果都是 NumPy 数组）。"},
    "checks.unreadable": {
        "en": "The check could not read your function's result ({exc}); return what the exercise asks for (its "
              "docstring says what).",
        "zh": "检查器读不了你的函数返回的结果（{exc}）；请按练习的要求返回"
              "（函数的文档字符串里写着要返回什么）。"},
    "checks.not_number": {"en": "Your function returned {got} for {case}; expected one number.",
                          "zh": "你的函数返回了 {got}（{case}），应当返回一个数。"},
    "checks.mutated": {"en": "Your function changed its input in place ({case}); work on a copy "
                             "(for example `x = x - x.max(...)` instead of `x -= ...`).",
                       "zh": "你的函数原地修改了输入（{case}）；请在副本上计算"
                             "（例如写 `x = x - x.max(...)`，而不是 `x -= ...`）。"},
    "checks.returned_none": {"en": "Your function returned None for {case}: did you forget `return`?",
                             "zh": "你的函数对 {case} 返回了 None：是不是忘了写 `return`？"},
    "checks.returned_tuple": {"en": "Your function returned a tuple of {n} items for {case}; return a single array.",
                              "zh": "你的函数对 {case} 返回了一个含 {n} 项的元组；这里应该只返回一个数组。"},
    "checks.not_array": {"en": "Your function returned a {got} for {case}; expected a NumPy array.",
                         "zh": "你的函数对 {case} 返回了 {got}；应该返回 NumPy 数组。"},
    "checks.shape": {"en": "The {what} you returned has shape {got} but should be {expected} ({case}).{hint}",
                     "zh": "你的{what}形状是 {got}，应该是 {expected}（{case}）。{hint}"},
    "checks.hint.kq": {"en": " Did you multiply K by Q^T (K Q^T) instead of Q K^T?",
                       "zh": "你是不是算成了 K·Qᵀ，而不是 Q·Kᵀ？"},
    "checks.not_finite": {"en": "Your {what} contains NaN or inf ({case}).",
                          "zh": "你的{what}里出现了 NaN 或 inf（{case}）。"},
    "checks.negative": {"en": "Your {what} has a negative entry ({value}), but softmax weights are never negative "
                              "({case}).",
                        "zh": "你的{what}里有负数（{value}），而 softmax 权重不可能为负（{case}）。"},
    "checks.wrong_axis": {"en": "Your {what} array sums to 1 down each column, not along each row: normalise over "
                                "the last axis (axis=-1), one distribution per row, that is per query ({case}).",
                          "zh": "你的{what}是每一列之和为 1，而不是每一行：应该沿最后一个轴（axis=-1）归一化，"
                                "每一行（每个 Query）一个分布（{case}）。"},
    "checks.global_sum": {"en": "Your whole {what} sums to 1, not each row: sum over axis=-1 with keepdims=True "
                                "({case}).",
                          "zh": "你的整个{what}加起来是 1，而不是每一行为 1：求和时用 axis=-1 和 keepdims=True（"
                                "{case}）。"},
    "checks.row_sum": {"en": "Row {index} (counting from 0) of your {what} sums to {value}, not 1 ({case}).",
                       "zh": "你的{what}在行 {index}（从 0 编号）的权重之和是 {value}，不是 1（{case}）。"},
    "checks.sum": {"en": "Your {what} sums to {value}, not 1: divide the exponentials by their sum ({case}).",
                   "zh": "你的{what}之和是 {value}，不是 1：要把各个指数除以它们的总和（{case}）。"},
    "checks.values": {"en": "For {case}, you returned {what} = {got}, but it should be {expected}.",
                      "zh": "对于 {case}，你返回的{what} = {got}，应该是 {expected}。"},
    "checks.values_row": {"en": "For {case}, you returned {what} = {got}, but it should be {expected}.{cause}",
                          "zh": "对于 {case}，你返回的{what} = {got}，应该是 {expected}。{cause}"},
    "checks.first_diff": {"en": "For {case}, you returned {what}{index} = {got}, but it should be {expected}: the "
                                "first of {n} entries (out of {total}) that differ.{cause}",
                          "zh": "对于 {case}，你返回的{what}{index} = {got}，应该是 {expected}：共 {total} 个数，"
                                "其中 {n} 个不同，这是第一个。{cause}"},
    # the usual causes of a mismatch, said after it
    "checks.cause.factor": {"en": " Every entry is off by the same factor, {factor}: a scale missing or applied twice?",
                            "zh": "每个数都差同一个倍数 {factor}：是不是漏了一个缩放因子，或者乘了两次？"},
    "checks.cause.sign": {"en": " Every entry has the opposite sign.", "zh": "每个数的符号都反了。"},
    "checks.cause.offset": {"en": " Every entry is off by the same amount, {offset}.",
                            "zh": "每个数都差同一个量 {offset}。"},
    "checks.cause.transposed": {"en": " Your array is the right one transposed: two axes swapped?",
                                "zh": "你的数组正好是正确答案的转置：是不是交换了两个轴？"},
    "checks.cause.shifted": {"en": " Your rows are the right rows shifted by one position: an index off by one?",
                             "zh": "你的各行正好是正确的各行错开了一个位置：是不是下标差了 1？"},
    "checks.cause.permuted": {"en": " Your rows are the right rows in another order.",
                              "zh": "你的各行都是正确的行，只是顺序不同。"},
    "checks.cause.tiny": {"en": " The entries that differ are all near 0 ({got} instead of {expected}): an exponent "
                                "clipped or a floor added, so that a weight that should vanish does not?",
                          "zh": "不同的数都接近 0（是 {got} 而不是 {expected}）：是不是截断了指数或加了下限，"
                                "让本该消失的权重没有消失？"},
    # the words of the exercises' {what} fields, and the boolean-mask diagnosis
    "exercises.what.output": {"en": "output", "zh": "输出"},
    "exercises.what.weights": {"en": "weights", "zh": "权重"},
    "exercises.what.mask": {"en": "mask", "zh": "mask"},
    "exercises.mask.dtype": {"en": "Your mask has dtype {dtype} ({case}); return a boolean array (True = may "
                                   "attend).",
                             "zh": "你的掩码的 dtype 是 {dtype}（{case}）；请返回布尔数组（True = 可以关注）。"},
}
i18n.register(STRINGS)

ATOL = 1e-6
TIMEOUT_S = 5.0         # default time limit of one call of the learner's function (seconds)
_LIMIT_S: contextvars.ContextVar = contextvars.ContextVar("check_time_limit", default=TIMEOUT_S)
PASS_COLOR, FAIL_COLOR = "#1a7f37", "#b42318"     # the verdicts of checks (and of quiz answers)


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check: passed, and a message (in the language the check was given)."""
    name: str
    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"{'✔' if self.passed else '✘'} {self.name}: {self.message}"

    def _repr_html_(self) -> str:
        color, mark = (PASS_COLOR, "✔") if self.passed else (FAIL_COLOR, "✘")
        return (f'<div style="border-left:4px solid {color};padding:4px 8px">'
                f'<b style="color:{color}">{mark} {html.escape(self.name)}</b>: '
                f'{html.escape(self.message)}</div>')


@dataclass(frozen=True)
class Message:
    """A message not yet in words: an i18n key and its fields (a field may itself be a Message)."""
    key: str
    fields: dict

    def text(self, lang: str, outer: bool = True) -> str:
        fields = {k: v.text(lang, outer=False) if isinstance(v, Message) else v for k, v in self.fields.items()}
        text = i18n.t(self.key, lang, **fields)
        if not outer:
            return text
        # Code set into Chinese text gets a space where it meets a Chinese character, and only there.
        text = re.sub(f"(?<=[\u4e00-\u9fff]){_GAP}|{_GAP}(?=[\u4e00-\u9fff])", " ", text)
        return text.replace(_GAP, "")


def msg(key: str, **fields) -> Message:
    """A check's verdict or a {what} word, put in words later, in the language of the check."""
    return Message(key, fields)


_GAP = "\u2063"                  # invisible separator: where code may need a space inside Chinese text
# The names of what a learner returned, in the message's language ("your weights" / "你的权重").
_WHAT = {"output": "checks.what.output", "weights": "checks.what.weights", "scores": "checks.what.scores"}


class Fail(Exception):
    """Raised inside a check to stop at the first problem, with an i18n key and its fields."""

    def __init__(self, key: str, **fields):
        super().__init__(key)
        what = fields.get("what")
        if isinstance(what, str):                  # a word translated, or code kept as code (spaced in Chinese)
            fields["what"] = msg(_WHAT[what]) if what in _WHAT else msg("checks.what.code", name=what)
        self.key, self.fields = key, fields

    @property
    def message(self) -> Message:
        return Message(self.key, self.fields)


_NO_FUNCTION = object()          # run_check's default: the check takes no learner's function to validate


def run_check(name: str, body, lang: str | None, timeout=None, fn=_NO_FUNCTION) -> CheckResult:
    """Run a check's body; its verdict (one Message, or several sentences) is put in words in `lang`. Every
    checker of the course runs through here.

    timeout: seconds each call of the learner's function may take (None: TIMEOUT_S); fn: the
    learner's function, if given checked to be one before anything runs.
    """
    lang = i18n.resolve_language(lang)
    limit = positive_float(TIMEOUT_S if timeout is None else timeout, "timeout", hint=" (seconds)")
    token = _LIMIT_S.set(limit)
    try:
        if fn is not _NO_FUNCTION and not callable(fn):
            raise Fail("checks.not_function", name=name, got=type(fn).__name__)
        said = body()
        passed = True
    except Fail as fail:
        said, passed = fail.message, False
    except Exception as exc:                              # noqa: BLE001 -- a result no diagnosis foresaw
        said, passed = msg("checks.unreadable", exc=exception_text(exc)), False
    finally:
        _LIMIT_S.reset(token)
    sentences = said if isinstance(said, tuple) else (said,)
    sep = "" if lang == "zh" else " "                     # Chinese sentences join without a space
    for callback in list(_ON_CHECKED.get(name, {}).values()):
        callback()                                        # e.g. a quiz's reference answer may now open
    return CheckResult(name, passed, sep.join(m.text(lang) for m in sentences))


_ON_CHECKED: dict[str, dict] = {}


def on_checked(name: str, callback, key=None) -> None:
    """Call `callback()` each time the checker `name` has judged a function (whatever its verdict): the
    quiz's code questions open their reference answer once the learner has run its check. key: one callback
    per key (a quiz widget shown again replaces its earlier one instead of adding to them)."""
    _ON_CHECKED.setdefault(name, {})[id(callback) if key is None else key] = callback


# --- the learner's call, with a time limit -----------------------------------------------------------
# Why two ways. A Python thread cannot be killed, so `thread.join(timeout)` alone would report the
# time-out and leave an endless loop spinning (and a sleeping function blocks nothing, but still
# runs on). On Unix, in the main thread (where a Jupyter kernel runs cells), a SIGALRM timer
# interrupts the learner's own frame instead: its handler raises _TimeUp there, which stops a
# Python loop and wakes `time.sleep`. Elsewhere (Windows, a call from another thread, a timer
# already in use) the call runs in a daemon thread that is abandoned after `join(timeout)`; an
# asynchronous _TimeUp is then posted to it, which stops a Python loop at its next bytecode. Neither
# can stop one long call inside NumPy's C code before it returns.

class _TimeUp(BaseException):
    """Raised inside the learner's function when its time is up (a BaseException, so that the
    learner's `except Exception:` cannot swallow it)."""


def _threads_usable() -> bool:
    """False in the browser's Python (Pyodide, WebAssembly), which cannot start a thread: there the learner's
    call runs without a time limit (an endless loop needs the kernel restarted, as in any notebook)."""
    return sys.platform not in ("emscripten", "wasi")


def _alarm_usable() -> bool:
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))


def _with_alarm(call, limit: float):
    """call() interrupted by SIGALRM after `limit` seconds (then every 0.25 s, in case the learner's
    code catches the first one with a bare `except:` and goes on). A loop that catches every one of them
    (`while True: try: ... except: pass`) cannot be stopped from inside Python, nor by the kernel's
    Interrupt, which it catches too: only restarting the kernel ends it."""
    active = {"on": True}

    def on_alarm(_signum, _frame):
        if active["on"]:
            raise _TimeUp

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit, 0.25)
    try:
        return call()
    finally:
        active["on"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _with_thread(call, limit: float):
    """call() in a daemon thread; after `limit` seconds it is abandoned (and asked to stop)."""
    box: dict = {}

    def work():
        try:
            box["out"] = call()
        except BaseException as exc:                   # noqa: BLE001 -- handed to the caller's thread
            box["exc"] = exc

    worker = threading.Thread(target=work, name="learner-function", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident), ctypes.py_object(_TimeUp))
        worker.join(0.2)
        raise _TimeUp("abandoned" if worker.is_alive() else "stopped")
    if "exc" in box:
        raise box["exc"]
    return box.get("out")


def _seconds(limit: float) -> str:
    return f"{limit:g}"


def format_array(a) -> str:
    return np.array2string(np.asarray(a, dtype=float), precision=3, suppress_small=True, separator=", ")


# The keys of a Fail that means "the learner's function raised" (a stub's NotImplementedError among them).
RAISED_KEYS = ("checks.raised", "checks.not_written", "checks.not_written_bare")


def call_learner(fn, case: str, *args, **kwargs):
    """Call the learner's function on copies of the inputs, within the check's time limit; report
    exceptions (SystemExit and KeyboardInterrupt included), time-outs and in-place edits."""
    copies = [_private_copy(a) for a in args]
    limit = _LIMIT_S.get()

    def call():
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")          # overflow warnings are reported in words instead
            return fn(*copies, **kwargs)

    try:
        if limit is None:
            out = call()
        elif _alarm_usable():
            out = _with_alarm(call, limit)
        elif _threads_usable():
            out = _with_thread(call, limit)
        else:                                        # the browser (Pyodide): no thread, no timer signal to stop it
            out = call()
    except _TimeUp as up:
        more = msg("checks.still_running") if up.args == ("abandoned",) else ""
        raise Fail("checks.timeout", seconds=_seconds(limit), case=case, more=more) from None
    except SystemExit:
        raise Fail("checks.exited", case=case) from None
    except KeyboardInterrupt:
        raise Fail("checks.interrupted", case=case) from None
    except NotImplementedError as exc:               # the stub, not yet replaced: its message is the hint
        hint = exception_text(exc).partition(": ")[2].strip()
        if hint:
            raise Fail("checks.not_written", hint=hint, case=case) from None
        raise Fail("checks.not_written_bare", case=case) from None
    except (Exception, GeneratorExit) as exc:        # noqa: BLE001 -- the learner's bug, reported
        raise Fail("checks.raised", exc=exception_text(exc), case=case, why=why_raised(exc, args)) from None
    for before, after in zip(args, copies):
        if after is not before and not _same_arrays(before, after):
            raise Fail("checks.mutated", case=case)
    return out


def exception_text(exc: BaseException) -> str:
    """"ValueError: its message", at most 300 characters, even when the exception's str() itself fails."""
    try:
        message = str(exc)
    except Exception:                                # noqa: BLE001 -- a learner's exception class
        message = ""
    return (f"{type(exc).__name__}: {message}" if message else type(exc).__name__)[:300]


def _arrays_in(obj) -> list:
    """The NumPy arrays inside an input: itself, or the fields of a parameter dataclass (nested)."""
    if isinstance(obj, np.ndarray):
        return [obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [a for f in dataclasses.fields(obj) for a in _arrays_in(getattr(obj, f.name))]
    if isinstance(obj, (list, tuple)):
        return [a for item in obj for a in _arrays_in(item)]
    return []


def _private_copy(obj):
    """What the learner's function receives: a copy of an array or of a parameter dataclass holding arrays, so
    that an edit in place neither changes the checker's reference nor goes unseen."""
    if isinstance(obj, np.ndarray):
        return np.array(obj, copy=True)
    return copy.deepcopy(obj) if _arrays_in(obj) and not isinstance(obj, (list, tuple)) else obj


def _same_arrays(before, after) -> bool:
    a, b = _arrays_in(before), _arrays_in(after)
    return len(a) == len(b) and all(x.shape == y.shape and np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


def numpy_peak(fn, case: str, *args):
    """(the learner's result as an array, its peak memory in bytes) for a check that judges memory. The peak is
    tracemalloc's, which sees NumPy's buffers but not torch's: a call that computes with torch is refused (a
    pass would report a peak nothing measured). Torch calls are seen in this thread (the kernel's)."""
    def measured():
        return traced_peak(lambda: as_array(call_learner(fn, case, *args), case))

    if "torch" not in sys.modules:                  # no torch loaded: nothing computed with it
        return measured()
    from attention_core.backends.torch_ops import TorchCallCounter
    with TorchCallCounter() as torch_calls:
        out, peak = measured()
    if torch_calls.count:
        raise Fail("checks.memory_torch", case=case)
    return out, peak


def from_tensor(x):
    """A torch tensor as a NumPy array (detached, on the CPU); anything else as it came. Raises for tensors NumPy
    cannot hold (bfloat16, meta, sparse): the callers say so in words."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def as_array(out, case: str, what: str = "output") -> np.ndarray:
    """The learner's return value as an array, or a failure that says why it is not one."""
    if out is None:
        raise Fail("checks.returned_none", case=case)
    if isinstance(out, tuple):
        raise Fail("checks.returned_tuple", n=len(out), case=case)
    try:
        out = from_tensor(out)
        complex_ = np.iscomplexobj(out) or isinstance(out, complex)
        arr = None if complex_ else np.asarray(out)
    except Exception:                                # noqa: BLE001 -- not convertible: said below
        complex_, arr = False, np.asarray(None, dtype=object)
    if complex_:
        raise Fail("checks.complex", case=case)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise Fail("checks.not_array", got=type(out).__name__, case=case)
    return arr


def as_number(out, case: str) -> float:
    """The learner's return value as one float: a Python or NumPy number, or a 0-d array or tensor; a string, a
    bool, a list or a number too large for a float is a failure that says what came back."""
    try:
        out = from_tensor(out)
        if isinstance(out, np.ndarray) and out.ndim == 0:
            out = out[()]
        number = not isinstance(out, (bool, np.bool_)) and isinstance(out, (int, float, np.integer, np.floating))
        value = float(out) if number else None
    except Exception:                                # noqa: BLE001 -- not readable as a float: said below
        number, value = False, None
    if not number:
        huge = isinstance(out, int) and not isinstance(out, bool)          # beyond float64: show its size only
        shown = f"10^{len(str(abs(out))) - 1}" if huge else repr(out)[:60]
        raise Fail("checks.not_number", got=shown, case=case)
    return value


def expect_shape(arr, expected, what: str, case: str, hint: str = "") -> None:
    expected = tuple(expected)
    if arr.shape != expected and not hint and what in ("scores", "weights") and len(expected) >= 2 \
            and expected[-1] != expected[-2] and arr.shape == expected[:-2] + expected[:-3:-1]:
        hint = "checks.hint.kq"                      # (Tk, Tq) instead of (Tq, Tk)
    if arr.shape != expected:
        raise Fail("checks.shape", what=what, got=arr.shape, expected=tuple(expected), case=case,
                    hint=msg(hint) if hint else "")


def expect_finite(arr, what: str, case: str, key: str = "checks.not_finite") -> None:
    if not np.isfinite(arr.astype(float)).all():
        raise Fail(key, what=what, case=case)


def rows_sum_to_one(w, what: str, case: str) -> None:
    """Weights along the last axis must be non-negative and sum to 1; name the wrong axis if so."""
    w = w.astype(float)
    if (w < -ATOL).any():
        raise Fail("checks.negative", what=what, value=f"{w.min():.3g}", case=case)
    sums = w.sum(axis=-1)
    if np.allclose(sums, 1, atol=1e-5):
        return
    if w.ndim >= 2 and np.allclose(w.sum(axis=-2), 1, atol=1e-5):
        raise Fail("checks.wrong_axis", what=what, case=case)
    if w.ndim >= 2 and np.isclose(w.sum(), 1, atol=1e-5):
        raise Fail("checks.global_sum", what=what, case=case)
    if sums.ndim == 0:
        raise Fail("checks.sum", what=what, value=f"{float(sums):.3g}", case=case)
    flat = sums.reshape(-1)
    i = int(np.argmax(np.abs(flat - 1)))
    index = ", ".join(str(int(j)) for j in np.unravel_index(i, sums.shape)) if sums.ndim else ""
    raise Fail("checks.row_sum", what=what, index=index, value=f"{flat[i]:.3g}", case=case)


def _number(x) -> str:
    """One entry as a learner reads it: 0.667, 1e-22, True, nan."""
    x = x.item() if isinstance(x, np.generic) else x
    return str(x) if isinstance(x, bool) else f"{float(x):.4g}"


def usual_cause(got, expected) -> Message | str:
    """What a mismatch usually means, said after it: a constant factor, a sign, a constant offset,
    transposed axes, rows shifted by one or reordered, or differences only among entries near 0
    (a clipped exponent); "" when none of these fits."""
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if g.shape != e.shape or not (np.isfinite(g).all() and np.isfinite(e).all()) or g.size < 2:
        return ""
    close = np.isclose(g, e, atol=1e-5, rtol=1e-4)
    if np.abs(e).max() > 1e-9 and np.allclose(g, -e, atol=1e-6):
        return msg("checks.cause.sign")
    nonzero = np.abs(e) > 1e-9
    if nonzero.sum() >= 2:
        ratios = g[nonzero] / e[nonzero]
        if np.allclose(ratios, ratios[0], rtol=1e-4) and np.allclose(g[~nonzero], 0, atol=1e-9) \
                and not np.isclose(ratios[0], 1, rtol=1e-4):
            return msg("checks.cause.factor", factor=f"{ratios[0]:.4g}")
    diff = g - e
    if np.allclose(diff, diff.flat[0], atol=1e-6) and abs(diff.flat[0]) > 1e-5:
        return msg("checks.cause.offset", offset=f"{diff.flat[0]:.4g}")
    if g.ndim >= 2 and g.shape[-1] == g.shape[-2] and np.allclose(g, np.swapaxes(e, -1, -2), atol=1e-6):
        return msg("checks.cause.transposed")
    if g.ndim >= 2 and g.shape[0] > 2:
        for shift in (1, -1):
            rolled = np.roll(e, shift, axis=0)
            inner = slice(1, None) if shift == 1 else slice(None, -1)
            if np.allclose(g[inner], rolled[inner], atol=1e-6):
                return msg("checks.cause.shifted")
        rows_g, rows_e = g.reshape(len(g), -1), e.reshape(len(e), -1)
        if all(np.isclose(rows_e, r, atol=1e-6).all(axis=1).any() for r in rows_g) \
                and all(np.isclose(rows_g, r, atol=1e-6).all(axis=1).any() for r in rows_e):
            return msg("checks.cause.permuted")
    wrong = ~close
    if wrong.any() and np.abs(g[wrong]).max() < 1e-3 and np.abs(e[wrong]).max() < 1e-3:
        i = np.argwhere(wrong)[0]
        return msg("checks.cause.tiny", got=f"{g[tuple(i)]:.3g}", expected=f"{e[tuple(i)]:.3g}")
    return ""


def mismatch(got, expected, what, case: str, atol: float = 1e-5, rtol: float = 1e-4) -> Fail | None:
    """The Fail for the first entry where `got` differs from `expected` (same shape): its index, the two
    values, how many entries differ, and the usual cause; None when they agree."""
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if g.shape != e.shape:                           # never compared by broadcasting
        return Fail("checks.shape", what=what, got=g.shape, expected=e.shape, case=case, hint="")
    wrong = ~np.isclose(g, e, atol=atol, rtol=rtol, equal_nan=False)
    if not wrong.any():
        return None
    first = tuple(int(i) for i in np.argwhere(wrong)[0]) if g.ndim else ()
    index = "[" + ", ".join(str(i) for i in first) + "]" if first else ""
    return Fail("checks.first_diff", what=what, index=index, got=_number(np.asarray(got)[first]),
                expected=_number(np.asarray(expected)[first]), n=int(wrong.sum()), total=int(g.size),
                cause=usual_cause(g, e), case=case)


def expect_close(got, expected, what: str, case: str) -> None:
    """Fail at the first entry that differs (its index, both values, how many differ and the usual cause)."""
    fail = mismatch(got, expected, what, case)
    if fail is not None:
        raise fail


def describe(**arrays) -> str:
    """A language-neutral description of the inputs, e.g. "q.shape=(4, 5), k.shape=(3, 5)"."""
    return ", ".join(f"{n}.shape={np.shape(a)}" for n, a in arrays.items())


# --- comparisons shared by the exercises' checkers -------------------------------------------------

W_OUTPUT, W_WEIGHTS, W_MASK = "exercises.what.output", "exercises.what.weights", "exercises.what.mask"


def same(a, b, atol: float = 1e-6) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=atol, rtol=1e-5))


_MATMUL = re.compile(r"matmul: Input operand \d+ has a mismatch in its core dimension|shapes \S+ and \S+ not aligned|"
                     r"mat1 and mat2 shapes cannot be multiplied|size of tensor a \(\d+\) must match the size of "
                     r"tensor b|Expected size for first two dimensions of batch2 tensor|inconsistent tensor size")
_BROADCAST = re.compile(r"could not be broadcast together|The size of tensor a \(\d+\) must match")
_DTYPE = re.compile(r"ufunc '\w+' not supported for the input types|Cannot cast ufunc|UFuncTypeError|"
                    r"expected (?:scalar type|m1 and m2 to have the same dtype)|dtype|must be the same type|"
                    r"not implemented for '(?:Long|Int|Bool)'")
_NONE = re.compile(r"'NoneType'|NoneType")


def why_raised(exc: BaseException, args=()) -> str:
    """What a common NumPy or torch error means (a Message, put in words in the check's language), naming the
    shapes or data types of the arrays the learner's function received; "" for any other error."""
    text = exception_text(exc)
    arrays = [a for a in args if hasattr(a, "shape") and hasattr(a, "dtype")]
    shapes = ", ".join(str(tuple(a.shape)) for a in arrays) or "-"
    dtypes = ", ".join(str(a.dtype) for a in arrays) or "-"
    if _NONE.search(text):
        return msg("checks.why.none")
    if _MATMUL.search(text):
        return msg("checks.why.matmul", shapes=shapes)
    if _BROADCAST.search(text):
        return msg("checks.why.broadcast", shapes=shapes)
    if _DTYPE.search(text) or isinstance(exc, TypeError) and "dtype" in text:
        return msg("checks.why.dtype", dtypes=dtypes)
    return ""


def diagnose(got, variants: dict, case: str, ref=None, **fields) -> None:
    """If the learner's answer equals a known mistake's answer (one that differs from the right
    answer `ref` on this input), fail with that mistake's message."""
    for key, wrong in variants.items():
        if wrong is not None and same(got, wrong) and not (ref is not None and same(wrong, ref)):
            raise Fail(key, case=case, **fields)


def bool_mask(out, case: str) -> np.ndarray:
    if out.dtype != bool:
        raise Fail("exercises.mask.dtype", dtype=str(out.dtype), case=case)
    return out


def first_difference(got, expected, name: str, case: str) -> None:
    """Fail at the first index of axis 0 where two arrays of the same shape differ, naming it
    (`mask[2]`) and showing both values there."""
    if np.array_equal(got, expected):
        return
    axes = tuple(range(1, got.ndim))
    i = int(np.argmax((got != expected).any(axis=axes) if axes else got != expected))
    raise Fail("checks.values_row", what=f"{name}[{i}]", got=str(np.reshape(got[i], -1).tolist()),
               expected=str(np.reshape(expected[i], -1).tolist()), cause=usual_cause(got, expected), case=case)


@contextlib.contextmanager
def batched(key: str, case: str, keep=()):
    """The batched case of a check: a failure inside is said again as `key` (the function works on one input,
    not on a batch), with that failure's words as its `detail`; a failure whose key is in `keep` (a known
    mistake, already named plainly) stands as it is."""
    try:
        yield
    except Fail as fail:
        if fail.key in keep:
            raise
        raise Fail(key, case=case, detail=fail.message) from None


# --- watching how a learner reads its inputs --------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Read:
    """One read of a watched input: which input, which rows (tokens, along axis 0 of the input as given: a range
    when contiguous, else a tuple), and how ("rows": indexed, taken or iterated; "whole": the values used in a
    computation, `k.T @ x`, `np.exp(k)`, `block @ q` for a block split off lazily; "converted": turned into a
    plain array, `np.asarray(k)`, after which the checker cannot see what is read)."""
    name: str
    rows: tuple
    how: str


# Value-blind functions: they rearrange or split an input without reading a number, so they hand back
# watched views (the reads are recorded when the view's values are used); and the functions that only
# make a new array of the input's shape (np.zeros_like(k)), which read nothing at all.
_VIEWS = {np.reshape, np.transpose, np.swapaxes, np.moveaxis, np.rollaxis, np.squeeze, np.expand_dims, np.ravel,
          np.copy, np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.flip, np.flipud, np.fliplr,
          np.atleast_1d, np.atleast_2d, np.atleast_3d, np.broadcast_to, np.roll,
          np.lib.stride_tricks.sliding_window_view}
_VIEWS |= {getattr(np, n) for n in ("permute_dims", "matrix_transpose", "unstack") if hasattr(np, n)}
_SELECTS = {np.take, np.take_along_axis, np.compress, np.diagonal, np.extract}    # a selection: rows read now
_SHAPED_LIKE = {np.empty_like, np.zeros_like, np.ones_like, np.full_like, np.shape, np.ndim, np.size,
                np.result_type}


class Watched:
    """An input (T, ...) that records which of its rows (tokens) the learner's function reads, and in what order.

    Each element carries the row of the input it came from, so every form of indexing NumPy offers is read
    exactly: `k[t]`, `k[:t + 1]`, `k[..., j:j + b, :]`, `k[::-1]`, `k[idx]`, `k[mask]`, `np.take(k, idx, axis=0)`
    hand out copies of the rows selected and record those rows; iteration records one row at a time. Rearranging
    or splitting without reading a number (`k.T`, `k.reshape(...)`, `np.split`, `np.array_split`,
    `np.moveaxis`, `np.flip`, sliding windows) gives watched views: their reads are recorded when their values
    are used, as the rows they hold. An elementwise operation of one input (`k / 8`, `np.exp(k)`, `1 - k`)
    reads nothing yet either: its result carries the rows. Any other use of the values (`@`, np.matmul,
    reductions, other NumPy functions and methods, `float(k)`) records the rows present as read "whole";
    `np.asarray(k)` records them as "converted". A copy,
    `k.copy()`, `k.astype(float)` or `np.copy(k)`, reads nothing: it is watched like the original (judged by
    what is read from it, not by its identity), and may be written into. `np.zeros_like(k)`, shape, dtype,
    len() read nothing. `reads` is shared by the inputs of one call, so their order is the order of the
    learner's steps.
    """
    __array_priority__ = 1000                    # ndarray @ Watched comes here, not to ndarray
    __hash__ = None
    __slots__ = ("_name", "_array", "_rows", "_reads", "_n")      # small: it is measured with the learner's memory

    def __init__(self, name: str, array, reads: list, *, writable: bool = False, rows=None, n: int | None = None):
        if rows is None:                         # an input: a private copy, each element on its row
            array = np.array(array, copy=True)
            n = len(array) if array.ndim else 1
            small = np.int16 if n < 2 ** 15 - 1 else np.int32                  # the rows cost little memory
            rows = np.arange(n, dtype=small).reshape((n,) + (1,) * max(array.ndim - 1, 0))
            rows = np.broadcast_to(rows, array.shape)
        elif writable and not array.flags.writeable:
            array = array.copy()
        elif not writable:
            array = array.view()
        array.setflags(write=writable)
        self._name, self._array, self._rows, self._reads, self._n = name, array, rows, reads, n

    def _view(self, array, rows, writable: bool = False) -> Watched:
        """Part or rearrangement of this input, watched like it (same name, same reads, rows carried along)."""
        return Watched(self._name, array, self._reads, writable=writable, rows=rows, n=self._n)

    # free: what the learner may look at without reading any token
    shape = property(lambda self: self._array.shape)
    ndim = property(lambda self: self._array.ndim)
    dtype = property(lambda self: self._array.dtype)
    size = property(lambda self: self._array.size)
    itemsize = property(lambda self: self._array.itemsize)
    nbytes = property(lambda self: self._array.nbytes)

    def __len__(self):
        return len(self._array)

    def _record(self, rows, how: str) -> None:
        seen = np.zeros(self._n + 1, dtype=bool)        # row -1 (padding the learner added) lands in the spare
        seen[np.asarray(rows)] = True
        found = np.flatnonzero(seen[:-1])
        if not len(found):                                        # k[:0], padding only: no token read
            return
        if found[-1] - found[0] + 1 == len(found):                # contiguous: a range, small whatever its length
            found = range(int(found[0]), int(found[-1]) + 1)       # (the reads are measured with the learner's memory)
        self._reads.append(Read(self._name, tuple(found.tolist()) if isinstance(found, np.ndarray) else found, how))

    def read_all(self, how: str) -> np.ndarray:
        self._record(self._rows, how)
        return np.array(self._array, copy=True)

    def __getitem__(self, key):
        if isinstance(key, Watched) or isinstance(key, tuple) and any(isinstance(i, Watched) for i in key):
            key = tuple(i.read_all("whole") if isinstance(i, Watched) else i for i in key) \
                if isinstance(key, tuple) else key.read_all("whole")
        out = self._array[key]                   # the learner's own IndexError, if any, comes from here
        self._record(self._rows[key], "rows")
        return np.array(out, copy=True)

    def __iter__(self):
        for t in range(len(self._array)):
            yield self[t]

    def __array__(self, dtype=None, copy=None):
        out = self.read_all("converted")
        return out if dtype is None else out.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        elementwise = _elementwise(ufunc, method, inputs, kwargs)
        if elementwise is not None:
            return elementwise
        inputs = tuple(i.read_all("whole") if isinstance(i, Watched) else i for i in inputs)
        outs = kwargs.get("out")
        if outs is not None:                     # np.add(k, 1, out=buffer): into the buffer's own array
            outs = outs if isinstance(outs, tuple) else (outs,)
            kwargs["out"] = tuple(o._array if isinstance(o, Watched) else o for o in outs)  # noqa: SLF001
            getattr(ufunc, method)(*inputs, **kwargs)
            return outs[0] if len(outs) == 1 else outs
        return getattr(ufunc, method)(*inputs, **kwargs)

    def _copied(self, array) -> Watched:
        """A copy of the input, watched like it (same name, same list of reads), reading nothing; the
        learner may write into it (`x[t] = ...`), not into the input itself."""
        return self._view(array, self._rows, writable=True)

    def __setitem__(self, key, value):
        if not self._array.flags.writeable:
            raise TypeError(f"{self._name} is the checker's input, read-only: write into a copy "
                            f"({self._name} = {self._name}.copy())")
        self._array[key] = value.read_all("whole") if isinstance(value, Watched) else value

    def copy(self, order="C"):
        return self._copied(self._array.copy(order))

    def astype(self, dtype, *args, **kwargs):
        return self._copied(self._array.astype(dtype, *args, **kwargs))

    def _rearranged(self, func, args, kwargs):
        """func applied to the values and to their rows alike: a watched view, or a list of them."""
        data = func(self._array, *args, **kwargs)
        rows = func(self._rows, *args, **kwargs)
        if isinstance(data, (list, tuple)):
            return [self._view(d, r) for d, r in zip(data, rows)]
        return self._view(np.asarray(data), np.asarray(rows))

    # value-blind methods: views, read when used
    T = property(lambda self: self._rearranged(np.transpose, (), {}))
    mT = property(lambda self: self._rearranged(np.swapaxes, (-1, -2), {}))

    def reshape(self, *shape, order="C"):
        return self._rearranged(np.reshape, (shape[0] if len(shape) == 1 else shape,), {"order": order})

    def transpose(self, *axes):
        return self._rearranged(np.transpose, (axes[0] if len(axes) == 1 else (axes or None),), {})

    def swapaxes(self, a, b):
        return self._rearranged(np.swapaxes, (a, b), {})

    def squeeze(self, axis=None):
        return self._rearranged(np.squeeze, (), {"axis": axis})

    def ravel(self, order="C"):
        return self._rearranged(np.ravel, (), {"order": order})

    def flatten(self, order="C"):
        return self._rearranged(np.ravel, (), {"order": order}).copy()

    def take(self, indices, axis=None, **kwargs):
        return np.take(self, indices, axis=axis, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        joined = _joined(func, args, kwargs)
        if joined is not None:
            return joined
        if args and args[0] is self and not any(isinstance(a, Watched) for a in (*args[1:], *kwargs.values())):
            if func is np.copy:
                return self.copy()
            if func is np.pad:                  # padding holds no token: its rows are -1 (unless it repeats rows)
                data = func(self._array, *args[1:], **kwargs)
                blind = dict(kwargs, constant_values=-1) if kwargs.get("mode", "constant") == "constant" and \
                    (len(args) < 3 or args[2] == "constant") else kwargs
                return self._view(data, func(self._rows, *args[1:], **blind))
            if func in _SHAPED_LIKE:             # shape and dtype only
                return func(self._array, *args[1:], **kwargs)
            if func in _VIEWS:
                return self._rearranged(func, args[1:], kwargs)
            if func in _SELECTS:
                out = func(self._array, *args[1:], **kwargs)
                self._record(func(self._rows, *args[1:], **kwargs), "rows")
                return np.array(out, copy=True)

        def unwrap(x):
            if isinstance(x, Watched):
                return x.read_all("whole")
            if isinstance(x, (list, tuple)):
                return type(x)(unwrap(i) for i in x)
            return x
        return func(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})

    def __getattr__(self, name):                 # .sum, .max, .tolist, .dot, ...: the values are used
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.read_all("whole"), name)

    def __repr__(self):
        return f"<{self._name}: {self._array.shape} {self._array.dtype}, watched by the checker>"


_JOINS = {np.concatenate, np.stack, np.vstack, np.hstack}


def _joined(func, args, kwargs):
    """np.concatenate / np.stack of parts of one watched input (and plain arrays, the learner's padding): a
    watched view, read when used; None for anything else."""
    if func not in _JOINS or not args or not isinstance(args[0], (list, tuple)):
        return None
    parts = args[0]
    watched = [p for p in parts if isinstance(p, Watched)]
    if not watched or len({w._name for w in watched}) != 1 or len({id(w._reads) for w in watched}) != 1:  # noqa: SLF001
        return None
    if any(isinstance(a, Watched) for a in (*args[1:], *kwargs.values())):
        return None
    first = watched[0]
    data = func([p._array if isinstance(p, Watched) else p for p in parts], *args[1:], **kwargs)  # noqa: SLF001
    rows = func([p._rows if isinstance(p, Watched) else np.full(np.shape(p), -1, dtype=first._rows.dtype)  # noqa: SLF001
                 for p in parts], *args[1:], **kwargs)
    return first._view(np.asarray(data), np.asarray(rows))  # noqa: SLF001


def _elementwise(ufunc, method, inputs, kwargs):
    """An elementwise ufunc (`k / 8`, `np.exp(k)`, `k * scale[None]`) of one watched input with plain numbers or
    arrays reads no row by itself: each element of its result comes from one element of the input, so the result
    is watched like it (rows carried along) and read when used (`q @ (k / 8)[j:j + b].T` reads b rows). None when
    the ufunc is not elementwise (np.matmul, reductions, `out=`), or mixes two inputs."""
    if method != "__call__" or ufunc.signature is not None or ufunc.nout != 1:
        return None
    out = kwargs.get("out")
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if out is not None and not isinstance(out, Watched):
        return None
    watched = [i for i in (*inputs, out) if isinstance(i, Watched)]
    first = watched[0]
    if any(w._name != first._name or w._reads is not first._reads for w in watched):  # noqa: SLF001
        return None
    plain = tuple(i._array if isinstance(i, Watched) else i for i in inputs)                # noqa: SLF001
    try:                                         # a learner's broadcasting mistake: NumPy's own error, below
        shape = np.broadcast_shapes(*(np.shape(i) for i in plain)) if out is None else out.shape
        rows = [np.broadcast_to(w._rows, shape) for w in watched]                          # noqa: SLF001
    except ValueError:
        return None
    if any(not np.array_equal(r, rows[0]) for r in rows[1:]):       # k[::-1] * k: elements of different rows
        return None
    if out is not None:                          # np.exp(kc, out=kc) on a copy; the input itself is read-only
        ufunc(*plain, **dict(kwargs, out=out._array))                                      # noqa: SLF001
        return out
    return first._view(np.asarray(ufunc(*plain, **kwargs)), rows[0])                        # noqa: SLF001


_UFUNC_OPERATORS = {"__add__": np.add, "__sub__": np.subtract, "__mul__": np.multiply, "__truediv__": np.true_divide,
                    "__floordiv__": np.floor_divide, "__mod__": np.remainder, "__pow__": np.power,
                    "__matmul__": np.matmul, "__lt__": np.less, "__le__": np.less_equal, "__gt__": np.greater,
                    "__ge__": np.greater_equal, "__eq__": np.equal, "__ne__": np.not_equal}
_UNARY_OPERATORS = {"__neg__": np.negative, "__pos__": np.positive, "__abs__": np.absolute}


def _operator(name):
    """k + x, x * k, -k, k @ x, ...: through the ufunc (elementwise ones stay watched, np.matmul reads)."""
    if name in _UNARY_OPERATORS:
        return lambda self: _UNARY_OPERATORS[name](self)
    if name in _UFUNC_OPERATORS:
        return lambda self, other: _UFUNC_OPERATORS[name](self, other)
    if name.startswith("__r") and f"__{name[3:]}" in _UFUNC_OPERATORS:
        return lambda self, other: _UFUNC_OPERATORS[f"__{name[3:]}"](other, self)

    def op(self, *other):                        # float(k), int(k), bool(k), operator.index(k): the values
        other = [o.read_all("whole") if isinstance(o, Watched) else o for o in other]
        return getattr(self.read_all("whole"), name)(*other)
    return op


for _name in ("__matmul__", "__rmatmul__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
              "__rpow__", "__neg__", "__pos__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
              "__float__", "__int__", "__bool__", "__index__"):
    setattr(Watched, _name, _operator(_name))


def watch(reads: list, **arrays) -> tuple:
    """The arrays as Watched inputs sharing one list of reads: q, k, v = watch(reads, q=q, k=k, v=v)."""
    return tuple(Watched(name, a, reads) for name, a in arrays.items())


def first_read_ahead(reads) -> tuple | None:
    """The first read that jumps ahead of the tokens seen so far, as (step, Read): a step-by-step pass reads
    row t of any input only after rows 0 .. t-1 of some input; None when every read keeps to that."""
    seen = -1
    for r in reads:
        if r.rows and max(r.rows) > seen + 1:
            return seen + 1, r
        seen = max(seen, max(r.rows, default=seen))
    return None


def lab_checker(notebook: str, name: str):
    """The checker `name` of notebook `notebook`'s lab ("04_masking" -> labs.nb04_masking.checks).

    Course data (a quiz question) names checkers; they are found here by name when asked for, so
    this course-agnostic layer never imports a lab in its code.
    """
    if not (isinstance(name, str) and name.startswith("check_")):
        raise ValueError(f"name: expected the name of a checker, check_..., got {name!r}")
    try:
        module = importlib.import_module(f"attention_core.labs.nb{notebook}.checks")
    except ModuleNotFoundError:
        raise LookupError(f"notebook {notebook!r} has no lab with checkers") from None
    fn = getattr(module, name, None)
    if not callable(fn) or getattr(fn, "__module__", None) != module.__name__:     # its own, not an import
        raise LookupError(f"the lab of notebook {notebook!r} has no checker {name!r}")
    return fn
