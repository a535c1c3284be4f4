"""Notebook 13's training step, written by the learner (issue 39): check_training_step accepts every correct
step (flatten or view, a log-softmax written out, the class axis moved, the whole window read, gradients set to
None by hand) and names each mistake of the table in both languages: no shift, the shift the wrong way, logits and
targets flattened in different orders, a missing zero_grad, no update, a float instead of the loss tensor.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import nb13_solutions as sol  # noqa: E402

from attention_core.labs.nb13_build_a_gpt import checks, training  # noqa: E402


def step_view(forward, params, ids, optimizer):
    optimizer.zero_grad()
    logits = forward(params, ids[:, :-1])[0]
    b, t, v = logits.shape
    loss = F.cross_entropy(logits.view(b * t, v), ids[:, 1:].reshape(b * t))
    loss.backward()
    optimizer.step()
    return loss


def step_whole_window(forward, params, ids, optimizer):
    logits, _ = forward(params, ids)                 # reads all T + 1 (causal: the first T logits are the same)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
    for p in optimizer.param_groups[0]["params"]:
        p.grad = None
    loss.backward()
    optimizer.step()
    return loss


def step_log_softmax(forward, params, ids, optimizer):
    logp = torch.log_softmax(forward(params, ids[:, :-1])[0], -1)
    loss = -logp.gather(-1, ids[:, 1:, None]).mean()
    optimizer.zero_grad(set_to_none=False)
    loss.backward()
    optimizer.step()
    return loss


def step_class_axis(forward, params, ids, optimizer):
    logits, _ = forward(params, ids[:, :-1])
    loss = F.cross_entropy(logits.permute(0, 2, 1), ids[:, 1:])     # (B, V, T): torch's class axis is 1
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def step_zero_after(forward, params, ids, optimizer):
    """nanoGPT's order: backward, step, then zero_grad for the next step."""
    logits, _ = forward(params, ids[:, :-1])
    loss = F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def _body(loss_fn, zero=True, update=True):
    def step(forward, params, ids, optimizer):
        loss = loss_fn(forward, params, ids)
        if zero:
            optimizer.zero_grad()
        loss.backward()
        if update:
            optimizer.step()
        return loss
    return step


def _ce(inputs, targets, flat_t=False):
    def loss(forward, params, ids):
        logits, _ = forward(params, inputs(ids))
        if flat_t:
            return F.cross_entropy(logits.transpose(0, 1).reshape(-1, logits.shape[-1]), targets(ids).reshape(-1))
        return F.cross_entropy(logits.flatten(0, 1), targets(ids).flatten())
    return loss


no_shift = _body(_ce(lambda i: i[:, :-1], lambda i: i[:, :-1]))
own_token = _body(_ce(lambda i: i, lambda i: i))
wrong_way = _body(_ce(lambda i: i[:, 1:], lambda i: i[:, :-1]))
across_batch = _body(_ce(lambda i: i[:, :-1], lambda i: i[:, 1:], flat_t=True))
no_zero_grad = _body(_ce(lambda i: i[:, :-1], lambda i: i[:, 1:]), zero=False)
no_step = _body(_ce(lambda i: i[:, :-1], lambda i: i[:, 1:]), update=False)


def zero_grad_after_backward(forward, params, ids, optimizer):
    loss = _ce(lambda i: i[:, :-1], lambda i: i[:, 1:])(forward, params, ids)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    return loss


def returns_float(forward, params, ids, optimizer):
    return sol.training_step(forward, params, ids, optimizer).item()


TABLE = [
    (sol.training_step, True, "matches the library's", "都和库里的一致"),
    (training.step, True, "matches the library's", "都和库里的一致"),
    (step_view, True, "matches the library's", "都和库里的一致"),
    (step_whole_window, True, "matches the library's", "都和库里的一致"),
    (step_log_softmax, True, "matches the library's", "都和库里的一致"),
    (step_class_axis, True, "matches the library's", "都和库里的一致"),
    (step_zero_after, True, "matches the library's", "都和库里的一致"),
    (no_shift, False, "the token it is reading", "自己正在读的 token"),
    (own_token, False, "the token it is reading", "自己正在读的 token"),
    (wrong_way, False, "the token BEFORE it", "**前面**的那个 token"),
    (across_batch, False, "flattened in different orders", "按不同的顺序展平"),
    (no_zero_grad, False, "optimizer.zero_grad()", "optimizer.zero_grad()"),
    (no_step, False, "did not move the parameters", "没有更新参数"),
    (zero_grad_after_backward, False, "did not move the parameters", "没有更新参数"),
    (returns_float, False, "returned a float", "返回了 float"),
]


# make quick runs the first right step and the first mistake; make test the whole table (two steps a row: about 8 s)
ROWS = [pytest.param(*row, marks=[] if i in (0, 7) else [pytest.mark.slow], id=row[0].__name__)
        for i, row in enumerate(TABLE)]


@pytest.mark.parametrize("fn, passes, en, zh", ROWS)
def test_each_step_gets_its_verdict_and_words(fn, passes, en, zh):
    for lang, words in (("en", en), ("zh", zh)):
        result = checks.check_training_step(fn, lang=lang, timeout=60)
        assert result.passed is passes, result.message
        assert words in result.message, result.message


@pytest.mark.slow          # two torch training steps (make test runs it)
def test_a_step_that_raises_is_reported():
    def broken(forward, params, ids, optimizer):
        raise RuntimeError("shape '[-1, 13]' is invalid")
    r = checks.check_training_step(broken, lang="en")
    assert not r.passed and "RuntimeError" in r.message
