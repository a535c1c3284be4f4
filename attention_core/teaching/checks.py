"""Learner checks (ARENA style): run a learner's function against attention_core and say what is wrong.

    from attention_core.teaching.checks import check_softmax
    check_softmax(my_softmax)     # -> a CheckResult that shows in the notebook, in the i18n language
    check_softmax(my_softmax, lang="zh")      # or in the language you pass

Each check tries normal and edge cases (large logits, rectangular shapes, batches, masks) and
stops at the first problem, naming it in plain words ("weights[2] sums to 1.37, not 1").
The learner's bugs never raise here: their exceptions (SystemExit and KeyboardInterrupt included)
are caught and reported, and each call of their function has a time limit (`timeout=`, in seconds,
TIMEOUT_S by default; see `_call` for how it is enforced). The names do not start with `test_`, so
pytest never collects them.
"""
from __future__ import annotations

import contextvars
import ctypes
import html
import inspect
import math
import re
import signal
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from attention_core.core.attention import attention_scores, scaled_dot_product_attention
from attention_core.core.masks import causal_mask
from attention_core.core.softmax import softmax
from attention_core.core.validation import check_flag, positive_float
from attention_core.teaching import i18n

# This module's UI strings, English and Chinese side by side (registered with i18n on import).
STRINGS: dict[str, dict[str, str]] = {
    "checks.what.output": {"en": "output", "zh": "输出"},
    "checks.what.weights": {"en": "weights", "zh": "权重"},
    "checks.what.scores": {"en": "scores", "zh": "分数"},
    "checks.what.code": {"en": "{name}", "zh": "\u2063{name}\u2063"},
    "checks.raised": {"en": "Your function raised {exc} on the input {case}.",
                      "zh": "你的函数在输入 {case} 上抛出了异常 {exc}。"},
    "checks.timeout": {"en": "Your function did not finish within {seconds} s on the input {case}: is there a loop "
                             "that never ends, or a `time.sleep`? (A slower machine may need more time: pass "
                             "timeout=, in seconds.){more}",
                       "zh": "你的函数在输入 {case} 上 {seconds} 秒内没有结束：是不是有一个永远不会结束的循环，"
                             "或者 `time.sleep`？（机器较慢时可以用 timeout= 给更多时间，单位是秒。）{more}"},
    "checks.still_running": {"en": " It is still running in the background; if the notebook becomes slow, restart "
                                   "the kernel.",
                             "zh": "它仍在后台运行；如果 notebook 变慢，请重启内核。"},
    "checks.exited": {"en": "Your function called exit() or raised SystemExit on the input {case}; a function should "
                            "return its result instead. (The notebook keeps running.)",
                      "zh": "你的函数在输入 {case} 上调用了 exit() 或抛出了 SystemExit；函数应该用 return 返回结果。"
                            "（notebook 仍在正常运行。）"},
    "checks.interrupted": {"en": "Your function was interrupted (KeyboardInterrupt) on the input {case}; the check "
                                 "stopped there. (The notebook keeps running.)",
                           "zh": "你的函数在输入 {case} 上被中断（KeyboardInterrupt），检查到此为止。"
                                 "（notebook 仍在正常运行。）"},
    "checks.complex": {"en": "Your function returned complex numbers for {case}; expected real numbers "
                             "(a square root or power of a negative number gives complex results in NumPy).",
                       "zh": "你的函数对 {case} 返回了复数；这里应该是实数"
                             "（在 NumPy 里，对负数开方或取幂会得到复数）。"},
    "checks.not_function": {"en": "Pass your function itself, as in {name}(my_function), not a {got}.",
                            "zh": "请传入你写的函数本身，例如 {name}(my_function)，而不是 {got}。"},
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
    "checks.hint.times_k": {"en": " Did you multiply the weights by K instead of V?",
                            "zh": "你是不是用权重乘了 K，而不是 V？"},
    "checks.not_finite": {"en": "Your {what} contains NaN or inf ({case}).",
                          "zh": "你的{what}里出现了 NaN 或 inf（{case}）。"},
    "checks.negative": {"en": "Your {what} has a negative entry ({value}), but softmax weights are never negative "
                              "({case}).",
                        "zh": "你的{what}里有负数（{value}），而 softmax 权重不可能为负（{case}）。"},
    "checks.wrong_axis": {"en": "Your {what} sums to 1 down each column, not along each row: normalise over "
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
    "checks.softmax.batch": {"en": "Your softmax works on 1-D and 2-D inputs but not on a batch ({case}): {detail} "
                                   "Use axis=-1 (the last axis) so that any number of leading dimensions works.",
                             "zh": "你的 softmax 对一维、二维输入正确，但对批量输入不对（{case}）：{detail}"
                                   "请用 axis=-1（最后一个轴），这样前面有多少维都能处理。"},
    "checks.softmax.overflow": {"en": "Overflow: for {case} your softmax returns NaN or inf, because exp(1000) is inf "
                                      "in floating point. Subtract each row's maximum before exp "
                                      "(the shift does not change softmax).",
                                "zh": "溢出：对于 {case}，你的 softmax 返回了 NaN 或 inf，因为浮点数里 exp(1000) 就是 "
                                      "inf。"
                                      "请在取 exp 之前减去每一行的最大值（这个平移不改变 softmax 的结果）。"},
    "checks.softmax.global_max": {"en": "For {case}, the first row is fine but the second underflows to 0/0: you "
                                        "subtracted the maximum of the whole array. Subtract each row's own maximum: "
                                        "x.max(axis=-1, keepdims=True).",
                                  "zh": "对于 {case}，第一行没问题，第二行却下溢成 0/0：你减去的是整个数组的最大值。"
                                        "应该减去每一行自己的最大值：x.max(axis=-1, keepdims=True)。"},
    "checks.softmax.ok": {"en": "All good: right values on 1-D, 2-D and batched inputs, every row sums to 1, "
                                "and logits of ±1000 and ±1e4 do not overflow.",
                          "zh": "全部通过：一维、二维和批量输入的数值都正确，每一行之和为 1，"
                                "±1000 和 ±1e4 的大分数也不会溢出。"},
    "checks.scale.none": {"en": "You did not scale ({case}): divide Q K^T by sqrt(d_k) before softmax. With d_k = 2 "
                                "the scores should be [0.707, 0] and the weights [0.670, 0.330].",
                          "zh": "你没有做缩放（{case}）：softmax 之前要把 Q·Kᵀ 除以 √d_k。d_k = 2 时，"
                                "分数应为 [0.707, 0]，权重应为 [0.670, 0.330]。"},
    "checks.scale.by_dk": {"en": "You divided by d_k instead of sqrt(d_k) ({case}): the scores should be [0.707, 0], "
                                 "not [0.5, 0].",
                           "zh": "你除以的是 d_k，而不是 √d_k（{case}）：分数应为 [0.707, 0]，不是 [0.5, 0]。"},
    "checks.scale.multiplied": {"en": "You multiplied by sqrt(d_k) instead of dividing by it ({case}).",
                                "zh": "你把分数乘以了 √d_k，应该是除以它（{case}）。"},
    "checks.batch_transpose": {"en": "Your function works on 2-D inputs but not on a batch ({case}): {detail} "
                                     "For batched arrays use k.swapaxes(-1, -2) instead of k.T (which reverses "
                                     "every axis), and softmax over axis=-1.",
                               "zh": "你的函数对二维输入正确，但对批量输入不对（{case}）：{detail}"
                                     "批量数组请用 k.swapaxes(-1, -2)，不要用 k.T（它会把所有轴都倒过来），"
                                     "softmax 沿 axis=-1。"},
    "checks.scores.ok": {"en": "All good: Q K^T / sqrt(d_k) with shape (Tq, Tk), on the worked example of notebook 01, "
                               "a rectangular case and a batch.",
                         "zh": "全部通过：Q·Kᵀ / √d_k 的形状为 (Tq, Tk)，01 节的例题、长宽不等的情形和批量输入都正确。"
                               ""},
    "checks.attention.not_pair": {"en": "Your function should return a pair (output, weights), like "
                                        "attention_core.scaled_dot_product_attention ({case}). If your exercise "
                                        "returns only the output, use check_attention(fn, returns=\"output\").",
                                  "zh": "你的函数应该像 attention_core.scaled_dot_product_attention 一样返回 "
                                        "(output, weights) 二元组（{case}）。如果练习只要求返回输出，"
                                        "请用 check_attention(fn, returns=\"output\")。"},
    "checks.attention.output": {"en": "Your weights are right but your output is not weights @ V ({case}).",
                                "zh": "你的权重是对的，但输出不等于 weights @ V（{case}）。"},
    "checks.attention.times_k": {"en": "Your output is weights @ K ({case}): the weighted sum runs over the values V; "
                                       "K only decides how much each position gives.",
                                 "zh": "你的输出是 weights @ K（{case}）：加权求和的对象是 V；"
                                       "K 只决定每个位置贡献多少。"},
    "checks.softmax.no_exp": {"en": "For {case} you returned x / x.sum(): softmax exponentiates first, "
                                    "exp(x) / exp(x).sum(), so negative scores still get positive weights.",
                              "zh": "对于 {case}，你返回的是 x / x.sum()：softmax 要先取指数，"
                                    "exp(x) / exp(x).sum()，这样负分数也能得到正的权重。"},
    "checks.attention.overflow": {"en": "Your {what} contains NaN or inf for large scores ({case}): use a stable "
                                        "softmax that subtracts each row's maximum (attention_core.softmax does).",
                                  "zh": "分数很大时，你的{what}出现了 NaN 或 inf（{case}）：请使用数值稳定的 "
                                        "softmax，"
                                        "先减去每一行的最大值（attention_core.softmax 就是这样做的）。"},
    "checks.attention.ok": {"en": "All good: the worked example of notebook 01 ([0.670, 0.330] -> [1.340, 1.321]), "
                                  "rectangular shapes, large scores and batches match attention_core.",
                            "zh": "全部通过：01 节的例题（[0.670, 0.330] -> [1.340, 1.321]）、长宽不等的形状、"
                                  "很大的分数和批量输入都与 attention_core 一致。"},
    "checks.attention.no_mask_tested": {"en": "(The mask was not tested: your function has no `mask` parameter.)",
                                        "zh": "（没有检查 mask：你的函数没有 `mask` 参数。）"},
    "checks.mask.ignored": {"en": "Your output does not change when a causal mask is passed ({case}): the mask is "
                                  "ignored. Set the scores of hidden keys (mask == False) to -inf before softmax.",
                            "zh": "传入因果 mask 后你的输出没有任何变化（{case}）：mask 被忽略了。"
                                  "请在 softmax 之前把被屏蔽位置（mask == False）的分数设为 -inf。"},
    "checks.mask.inverted": {"en": "Your weights are zero exactly where the mask is True ({case}). In attention_core, "
                                   "True means \"may attend\": hide the keys where the mask is False.",
                             "zh": "你的权重恰好在 mask 为 True 的位置是 0（{case}）。在 attention_core 里 True 表示"
                                   "“可以关注”：应该屏蔽 mask 为 False 的位置。"},
    "checks.mask.leak": {"en": "Query {i} gives weight {value} to key {j}, which the mask hides ({case}): masked "
                               "positions must get weight exactly 0. Fill their scores with -inf before softmax.",
                         "zh": "Query {i}（从 0 编号）给被屏蔽的 Key {j} 分配了 {value} 的权重（{case}）："
                               "被屏蔽的位置权重必须严格为 0。请在 softmax 之前把它们的分数填成 -inf。"},
    "checks.mask.after_softmax": {"en": "Masked weights are 0 but the rows no longer sum to 1 ({case}): you applied "
                                        "the mask after softmax. Apply it to the scores, before softmax.",
                                  "zh": "被屏蔽的权重是 0，但每行之和不再是 1（{case}）：你是在 softmax 之后才加的 "
                                        "mask。"
                                        "应该在 softmax 之前作用在分数上。"},
    "checks.mask.additive": {"en": "You returned an additive mask (0 and -inf) for {case}; this exercise asks for the "
                                   "boolean mask (True = may attend). attention_core.additive_mask turns one into the "
                                   "other.",
                             "zh": "你对 {case} 返回的是加性 mask（0 和 -inf）；这个练习要的是布尔 mask"
                                   "（True = 可以关注）。attention_core.additive_mask 可以把后者转换成前者。"},
    "checks.mask.dtype": {"en": "Your mask has dtype {dtype} for {case}; return a boolean array (True = may attend), "
                                "for example with .astype(bool) or np.tril(np.ones((T, T), dtype=bool)).",
                          "zh": "你的 mask 对 {case} 的 dtype 是 {dtype}；请返回布尔数组（True = 可以关注），"
                                "例如用 .astype(bool) 或 np.tril(np.ones((T, T), dtype=bool))。"},
    "checks.mask.bool_inverted": {"en": "Your mask is True where the key lies in the future ({case}): attention_core's "
                                        "convention is True = may attend. Invert it with ~.",
                                  "zh": "你的 mask 在“未来”的位置是 True（{case}）：attention_core 的约定是 "
                                        "True = 可以关注。用 ~ 取反即可。"},
    "checks.mask.upper": {"en": "Your mask lets query i see keys j >= i, that is the future ({case}): the causal mask "
                                "is the lower triangle, j <= i (np.tril, not np.triu).",
                          "zh": "你的 mask 让 Query i 看到 j >= i 的 Key，也就是未来（{case}）：因果 mask 是下三"
                                "角，"
                                "j <= i（用 np.tril，不是 np.triu）。"},
    "checks.mask.no_diagonal": {"en": "Your mask hides the diagonal ({case}): each position must see itself, "
                                      "so use j <= i, not j < i.",
                                "zh": "你的 mask 把对角线也屏蔽了（{case}）：每个位置必须能看到自己，"
                                      "应该用 j <= i，而不是 j < i。"},
    "checks.mask.ok": {"en": "All good: a boolean lower-triangular (T, T) mask, diagonal included, for T = 1, 4 and 7.",
                       "zh": "全部通过：T = 1、4、7 时都是包含对角线的布尔下三角 (T, T) mask。"},
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
class _Msg:
    """A message not yet in words: an i18n key and its fields (a field may itself be a _Msg)."""
    key: str
    fields: dict

    def text(self, lang: str, outer: bool = True) -> str:
        fields = {k: v.text(lang, outer=False) if isinstance(v, _Msg) else v for k, v in self.fields.items()}
        text = i18n.t(self.key, lang, **fields)
        if not outer:
            return text
        # Code set into Chinese text gets a space where it meets a Chinese character, and only there.
        text = re.sub(f"(?<=[\u4e00-\u9fff]){_GAP}|{_GAP}(?=[\u4e00-\u9fff])", " ", text)
        return text.replace(_GAP, "")


def _msg(key: str, **fields) -> _Msg:
    return _Msg(key, fields)


_GAP = "\u2063"                  # invisible separator: where code may need a space inside Chinese text
# The names of what a learner returned, in the message's language ("your weights" / "你的权重").
_WHAT = {"output": "checks.what.output", "weights": "checks.what.weights", "scores": "checks.what.scores"}


class _Fail(Exception):
    """Raised inside a check to stop at the first problem, with an i18n key and its fields."""

    def __init__(self, key: str, **fields):
        super().__init__(key)
        what = fields.get("what")
        if isinstance(what, str):                  # a word translated, or code kept as code (spaced in Chinese)
            fields["what"] = _msg(_WHAT[what]) if what in _WHAT else _msg("checks.what.code", name=what)
        self.key, self.fields = key, fields

    @property
    def message(self) -> _Msg:
        return _Msg(self.key, self.fields)


_NO_FUNCTION = object()          # _run's default: the check takes no learner's function to validate


def _run(name: str, body, lang: str | None, timeout=TIMEOUT_S, fn=_NO_FUNCTION) -> CheckResult:
    """Run a check's body; its verdict (one _Msg, or several sentences) is put in words in `lang`.

    timeout: seconds each call of the learner's function may take (None: no limit); fn: the
    learner's function, if given checked to be one before anything runs.
    """
    lang = i18n.resolve_language(lang)
    limit = None if timeout is None else positive_float(timeout, "timeout", hint=" (seconds)")
    token = _LIMIT_S.set(limit)
    try:
        if fn is not _NO_FUNCTION and not callable(fn):
            raise _Fail("checks.not_function", name=name, got=type(fn).__name__)
        said = body()
        passed = True
    except _Fail as fail:
        said, passed = fail.message, False
    finally:
        _LIMIT_S.reset(token)
    sentences = said if isinstance(said, tuple) else (said,)
    sep = "" if lang == "zh" else " "                     # Chinese sentences join without a space
    return CheckResult(name, passed, sep.join(m.text(lang) for m in sentences))


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


def _alarm_usable() -> bool:
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))


def _with_alarm(call, limit: float):
    """call() interrupted by SIGALRM after `limit` seconds (then every 0.25 s, in case the learner's
    code catches the first one with a bare `except:`)."""
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


def _fmt(a) -> str:
    return np.array2string(np.asarray(a, dtype=float), precision=3, suppress_small=True, separator=", ")


def _call(fn, case: str, *args, **kwargs):
    """Call the learner's function on copies of the inputs, within the check's time limit; report
    exceptions (SystemExit and KeyboardInterrupt included), time-outs and in-place edits."""
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
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
        else:
            out = _with_thread(call, limit)
    except _TimeUp as up:
        more = _msg("checks.still_running") if up.args == ("abandoned",) else ""
        raise _Fail("checks.timeout", seconds=_seconds(limit), case=case, more=more) from None
    except SystemExit:
        raise _Fail("checks.exited", case=case) from None
    except KeyboardInterrupt:
        raise _Fail("checks.interrupted", case=case) from None
    except Exception as exc:                         # noqa: BLE001 -- the learner's bug, reported
        raise _Fail("checks.raised", exc=f"{type(exc).__name__}: {exc}"[:300], case=case) from None
    for before, after in zip(args, copies):
        if isinstance(before, np.ndarray) and not np.array_equal(before, after):
            raise _Fail("checks.mutated", case=case)
    return out


def _array(out, case: str, what: str = "output") -> np.ndarray:
    """The learner's return value as an array, or a failure that says why it is not one."""
    if out is None:
        raise _Fail("checks.returned_none", case=case)
    if isinstance(out, tuple):
        raise _Fail("checks.returned_tuple", n=len(out), case=case)
    if hasattr(out, "detach"):                       # a torch tensor
        out = out.detach().cpu().numpy()
    if np.iscomplexobj(out) or isinstance(out, complex):
        raise _Fail("checks.complex", case=case)
    try:
        arr = np.asarray(out)
    except Exception:                                # noqa: BLE001
        arr = np.asarray(None, dtype=object)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise _Fail("checks.not_array", got=type(out).__name__, case=case)
    return arr


def _shape(arr, expected, what: str, case: str, hint: str = "") -> None:
    expected = tuple(expected)
    if arr.shape != expected and not hint and what in ("scores", "weights") and len(expected) >= 2 \
            and expected[-1] != expected[-2] and arr.shape == expected[:-2] + expected[:-3:-1]:
        hint = "checks.hint.kq"                      # (Tk, Tq) instead of (Tq, Tk)
    if arr.shape != expected:
        raise _Fail("checks.shape", what=what, got=arr.shape, expected=tuple(expected), case=case,
                    hint=_msg(hint) if hint else "")


def _finite(arr, what: str, case: str, key: str = "checks.not_finite") -> None:
    if not np.isfinite(arr.astype(float)).all():
        raise _Fail(key, what=what, case=case)


def _rows_sum_to_one(w, what: str, case: str) -> None:
    """Weights along the last axis must be non-negative and sum to 1; name the wrong axis if so."""
    w = w.astype(float)
    if (w < -ATOL).any():
        raise _Fail("checks.negative", what=what, value=f"{w.min():.3g}", case=case)
    sums = w.sum(axis=-1)
    if np.allclose(sums, 1, atol=1e-5):
        return
    if w.ndim >= 2 and np.allclose(w.sum(axis=-2), 1, atol=1e-5):
        raise _Fail("checks.wrong_axis", what=what, case=case)
    if w.ndim >= 2 and np.isclose(w.sum(), 1, atol=1e-5):
        raise _Fail("checks.global_sum", what=what, case=case)
    if sums.ndim == 0:
        raise _Fail("checks.sum", what=what, value=f"{float(sums):.3g}", case=case)
    flat = sums.reshape(-1)
    i = int(np.argmax(np.abs(flat - 1)))
    index = ", ".join(str(int(j)) for j in np.unravel_index(i, sums.shape)) if sums.ndim else ""
    raise _Fail("checks.row_sum", what=what, index=index, value=f"{flat[i]:.3g}", case=case)


def _close(got, expected, what: str, case: str) -> None:
    if not np.allclose(got.astype(float), expected, atol=1e-5, rtol=1e-4):
        raise _Fail("checks.values", what=what, got=_fmt(got), expected=_fmt(expected), case=case)


def _case(**arrays) -> str:
    """A language-neutral description of the inputs, e.g. "q.shape=(4, 5), k.shape=(3, 5)"."""
    return ", ".join(f"{n}.shape={np.shape(a)}" for n, a in arrays.items())


# --- softmax ---------------------------------------------------------------------------------------

def check_softmax(fn, lang: str | None = None, *, timeout=TIMEOUT_S) -> CheckResult:
    """Check fn(x) -> softmax of x along the last axis (1-D, 2-D and batched x, large logits)."""
    def body():
        x = np.array([2.0, 1.0, 0.0])
        case = "x = [2, 1, 0]"
        out = _array(_call(fn, case, x), case)
        _shape(out, x.shape, "softmax(x)", case)
        _finite(out, "softmax(x)", case)
        if np.allclose(out, x / x.sum(), atol=1e-6):
            raise _Fail("checks.softmax.no_exp", case=case)
        _rows_sum_to_one(out, "softmax(x)", case)
        _close(out, softmax(x), "softmax(x)", case)

        x = np.random.default_rng(0).normal(size=(3, 4))            # (3, 4)
        case = _case(x=x)
        out = _array(_call(fn, case, x), case)
        _shape(out, x.shape, "softmax(x)", case)
        _finite(out, "softmax(x)", case)
        _rows_sum_to_one(out, "softmax(x)", case)
        _close(out, softmax(x), "softmax(x)", case)

        x = np.random.default_rng(1).normal(size=(2, 3, 4))         # (B, T, N)
        case = _case(x=x)
        try:
            out = _array(_call(fn, case, x), case)
            _shape(out, x.shape, "softmax(x)", case)
            _rows_sum_to_one(out, "softmax(x)", case)
            _close(out, softmax(x), "softmax(x)", case)
        except _Fail as fail:
            raise _Fail("checks.softmax.batch", case=case, detail=fail.message) from None

        x = np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1002.0]])
        case = "x = [[1000, 999, 998], [-1000, -1001, -1002]]"
        out = _array(_call(fn, case, x), case).astype(float)
        if not np.isfinite(out[0]).all():
            raise _Fail("checks.softmax.overflow", case=case)
        if not np.isfinite(out[1]).all() or not np.isclose(out[1].sum(), 1, atol=1e-5):
            raise _Fail("checks.softmax.global_max", case=case)
        _close(out, softmax(x), "softmax(x)", case)

        x = np.array([1e4, 0.0, -1e4])
        case = "x = [1e4, 0, -1e4]"
        out = _array(_call(fn, case, x), case)
        _finite(out, "softmax(x)", case, key="checks.softmax.overflow")
        _close(out, softmax(x), "softmax(x)", case)
        return _msg("checks.softmax.ok")
    return _run("check_softmax", body, lang, timeout, fn)


# --- scores and attention --------------------------------------------------------------------------

_SEED_Q = np.array([[1.0, 0.0]])                  # (Tq=1, Dk=2): the worked example of seed 002
_SEED_K = np.array([[1.0, 0.0], [0.0, 1.0]])      # (Tk=2, Dk=2)
_SEED_V = np.array([[2.0, 0.0], [0.0, 4.0]])      # (Tk=2, Dv=2)
_SEED_QK_CASE = "q = [[1, 0]], k = [[1, 0], [0, 1]]"
_SEED_CASE = _SEED_QK_CASE + ", v = [[2, 0], [0, 4]]"


def _scale_variants(q, k):
    """Common scaling mistakes -> the i18n key that explains each one."""
    raw = np.matmul(q, np.swapaxes(k, -1, -2))
    dk = q.shape[-1]
    return {"checks.scale.none": raw, "checks.scale.by_dk": raw / dk,
            "checks.scale.multiplied": raw * math.sqrt(dk)}


def _diagnose_scale(got, make, case: str) -> None:
    """If `got` equals `make(scores)` for a mis-scaled variant of the seed example, say which."""
    for key, scores in _scale_variants(_SEED_Q, _SEED_K).items():
        if np.allclose(got.astype(float), make(scores), atol=1e-4):
            raise _Fail(key, case=case)


def check_scaled_scores(fn, lang: str | None = None, *, timeout=TIMEOUT_S) -> CheckResult:
    """Check fn(q, k) -> Q K^T / sqrt(Dk), shape (..., Tq, Tk)."""
    def body():
        case = _SEED_QK_CASE
        out = _array(_call(fn, case, _SEED_Q, _SEED_K), case)
        _shape(out, (1, 2), "scores", case)
        _diagnose_scale(out, lambda s: s, case)
        _close(out, attention_scores(_SEED_Q, _SEED_K), "scores", case)

        rng = np.random.default_rng(0)
        q, k = rng.normal(size=(4, 5)), rng.normal(size=(3, 5))      # (Tq, Dk), (Tk, Dk)
        case = _case(q=q, k=k)
        out = _array(_call(fn, case, q, k), case)
        hint = "checks.hint.kq" if out.shape == (3, 4) else ""
        _shape(out, (4, 3), "scores", case, hint)
        _close(out, attention_scores(q, k), "scores", case)

        q, k = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5))   # (B, H, T, Dk)
        case = _case(q=q, k=k)
        try:
            out = _array(_call(fn, case, q, k), case)
            _shape(out, (2, 3, 4, 6), "scores", case)
            _close(out, attention_scores(q, k), "scores", case)
        except _Fail as fail:
            raise _Fail("checks.batch_transpose", case=case, detail=fail.message) from None
        return _msg("checks.scores.ok")
    return _run("check_scaled_scores", body, lang, timeout, fn)


def _accepts_mask(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "mask" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def check_attention(fn, *, returns: str = "both", test_mask: bool | None = None,
                    lang: str | None = None, timeout=TIMEOUT_S) -> CheckResult:
    """Check fn(q, k, v[, mask=]) against attention_core.scaled_dot_product_attention.

    returns="both": fn must return (output, weights) like the library; "output": just the output.
    test_mask: also check a causal boolean mask (True = may attend); None = when fn takes `mask`.
    """
    if returns not in ("both", "output"):
        raise ValueError(f"returns: expected 'both' or 'output', got {returns!r}")
    test_mask = _accepts_mask(fn) if test_mask is None else check_flag(test_mask, "test_mask")

    def run(case, q, k, v, **kw):
        out = _call(fn, case, q, k, v, **kw)
        if returns == "output":
            return _array(out, case), None
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise _Fail("checks.attention.not_pair", case=case)
        return _array(out[0], case), _array(out[1], case)

    def body():
        # 1. The worked example of seed 002 / notebook 01: weights [0.670, 0.330], output [1.340, 1.321].
        ref_out, ref_w = scaled_dot_product_attention(_SEED_Q, _SEED_K, _SEED_V)
        out, w = run(_SEED_CASE, _SEED_Q, _SEED_K, _SEED_V)
        _shape(out, (1, 2), "output", _SEED_CASE)
        if w is not None:
            _shape(w, (1, 2), "weights", _SEED_CASE)
            _finite(w, "weights", _SEED_CASE)
            _rows_sum_to_one(w, "weights", _SEED_CASE)
            _diagnose_scale(w, lambda s: softmax(s), _SEED_CASE)
            _close(w, ref_w, "weights", _SEED_CASE)
        else:
            _diagnose_scale(out, lambda s: softmax(s) @ _SEED_V, _SEED_CASE)
        if np.allclose(out, ref_w @ _SEED_K, atol=1e-5):
            raise _Fail("checks.attention.times_k", case=_SEED_CASE)
        _close(out, ref_out, "output", _SEED_CASE)

        # 2. Rectangular: Tq=4, Tk=3, Dk=5, Dv=2 exposes swapped products and axes.
        rng = np.random.default_rng(0)
        q, k, v = rng.normal(size=(4, 5)), rng.normal(size=(3, 5)), rng.normal(size=(3, 2))
        case = _case(q=q, k=k, v=v)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        out, w = run(case, q, k, v)
        if w is not None:
            _shape(w, (4, 3), "weights", case, "checks.hint.kq" if w.shape == (3, 4) else "")
            _finite(w, "weights", case)
            _rows_sum_to_one(w, "weights", case)
            _close(w, ref_w, "weights", case)
        _shape(out, (4, 2), "output", case, "checks.hint.times_k" if out.shape == (4, 5) else "")
        if w is None and np.allclose(out, softmax(attention_scores(q, k), axis=0) @ v, atol=1e-5):
            raise _Fail("checks.wrong_axis", what="softmax", case=case)
        if w is not None and not np.allclose(out, ref_out, atol=1e-5):
            raise _Fail("checks.attention.output", case=case)
        _close(out, ref_out, "output", case)

        # 3. Large scores: a naive exp overflows to inf and inf/inf = NaN.
        q = np.array([[60.0, 60.0, 0.0, 0.0]])
        k = np.array([[60.0, 60.0, 0.0, 0.0], [0.0, 0.0, 60.0, 60.0], [-60.0, -60.0, 0.0, 0.0]])
        v = np.array([[1.0], [2.0], [3.0]])
        case = "q = [[60, 60, 0, 0]], k = [[60, 60, 0, 0], [0, 0, 60, 60], [-60, -60, 0, 0]] (score 3600)"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        out, w = run(case, q, k, v)
        for arr in (out, w):
            if arr is not None:
                _finite(arr, "output" if arr is out else "weights", case, key="checks.attention.overflow")
        _close(out, ref_out, "output", case)

        # 4. A batch (B, H, T, D): k.T would reverse every axis; swapaxes(-1, -2) is what is meant.
        q, k, v = (rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5)),
                   rng.normal(size=(2, 3, 6, 2)))
        case = _case(q=q, k=k, v=v)
        ref_out, ref_w = scaled_dot_product_attention(q, k, v)
        try:
            out, w = run(case, q, k, v)
            _shape(out, ref_out.shape, "output", case)
            _close(out, ref_out, "output", case)
            if w is not None:
                _close(w, ref_w, "weights", case)
        except _Fail as fail:
            raise _Fail("checks.batch_transpose", case=case, detail=fail.message) from None

        if not test_mask:
            return _msg("checks.attention.ok"), _msg("checks.attention.no_mask_tested")
        # 5. A causal mask (True = may attend): masked keys must get weight exactly 0.
        q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
        mask = causal_mask(4)                                            # (Tq, Tk)
        case = _case(q=q, k=k, v=v) + ", mask = causal_mask(4)"
        ref_out, ref_w = scaled_dot_product_attention(q, k, v, mask=mask)
        out, w = run(case, q, k, v, mask=mask.copy())
        unmasked_out, _ = scaled_dot_product_attention(q, k, v)
        if np.allclose(out, unmasked_out, atol=1e-6):
            raise _Fail("checks.mask.ignored", case=case)
        if w is not None:
            _shape(w, (4, 4), "weights", case)
            ok_rows = np.isfinite(w).all(axis=-1)                        # -inf everywhere -> NaN row
            w_ok, m_ok = w[ok_rows], mask[ok_rows]
            if w_ok.size and np.allclose(w_ok[m_ok], 0, atol=1e-9) and (np.abs(w_ok[~m_ok]) > 1e-9).any():
                raise _Fail("checks.mask.inverted", case=case)
            _finite(w, "weights", case)
            leak = np.argwhere(~mask & (np.abs(w) > 1e-9))
            if len(leak):
                i, j = (int(n) for n in leak[0])
                raise _Fail("checks.mask.leak", i=i, j=j, value=f"{w[i, j]:.3g}", case=case)
            if not np.allclose(w.sum(-1), 1, atol=1e-5):
                raise _Fail("checks.mask.after_softmax", case=case)
            _close(w, ref_w, "weights", case)
        else:
            inv_out, _ = scaled_dot_product_attention(q, k, v, mask=~mask | np.eye(4, dtype=bool))
            if np.allclose(out, inv_out, atol=1e-6):
                raise _Fail("checks.mask.inverted", case=case)
        _close(out, ref_out, "output", case)
        return _msg("checks.attention.ok")
    return _run("check_attention", body, lang, timeout, fn)


# --- causal mask -----------------------------------------------------------------------------------

def check_causal_mask(fn, lang: str | None = None, *, timeout=TIMEOUT_S) -> CheckResult:
    """Check fn(T) -> boolean (T, T) look-ahead mask, True where query i may attend to key j <= i."""
    def body():
        for n in (4, 1, 7):
            case = f"T = {n}"
            out = _array(_call(fn, case, n), case)
            _shape(out, (n, n), "mask", case)
            ref = causal_mask(n)
            if out.dtype != bool:
                vals = out.astype(float)
                if np.isneginf(vals).any() or (vals < 0).any():
                    raise _Fail("checks.mask.additive", case=case)
                raise _Fail("checks.mask.dtype", dtype=str(out.dtype), case=case)
            if np.array_equal(out, ref):
                continue
            eye = np.eye(n, dtype=bool)
            if np.array_equal(out, ~ref):
                raise _Fail("checks.mask.bool_inverted", case=case)
            if np.array_equal(out, ref.T):
                raise _Fail("checks.mask.upper", case=case)
            if np.array_equal(out, ref & ~eye):
                raise _Fail("checks.mask.no_diagonal", case=case)
            i = int(np.argmax((out != ref).any(axis=1)))
            raise _Fail("checks.values", what=f"mask[{i}]", got=str(out[i].tolist()),
                        expected=str(ref[i].tolist()), case=case)
        return _msg("checks.mask.ok")
    return _run("check_causal_mask", body, lang, timeout, fn)

from attention_core.teaching.exercise_checks import *  # noqa: E402, F403 -- the exercises' checkers, re-exported
# (exercise_checks.__all__; imported last, see exercise_checks)
