"""The checkers of notebook 08's exercises: the RNN's forward pass and its Jacobian by the chain rule."""
from __future__ import annotations

import numpy as np

from attention_core.teaching import checks as ck
from attention_core.teaching import i18n

from .check_strings import STRINGS

i18n.register(STRINGS)         # this lab's checkers' own words


def _rnn_params(seed: int = 0):
    from attention_core.core.rnn import init_rnn
    return init_rnn(3, 4, seed=seed, recurrent_scale=0.9)


def _rnn_states(xs, p, *, carried=True, tanh=True):
    h, states = np.zeros(p.w_h.shape[0]), []
    for x in xs:
        a = x @ p.w_x + (h if carried else 0.0 * h) @ p.w_h + p.b
        h = np.tanh(a) if tanh else a
        states.append(h)
    return np.stack(states)                                                     # (T, D_h)


def check_rnn_forward(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(xs (T, D_in), params RNNParams) -> every hidden state (T, D_h),
    h_t = tanh(x_t W_x + h_(t-1) W_h + b), h_(-1) = 0."""
    def body():
        what = ck.msg("exercises.what.states")
        p = _rnn_params()
        rng = np.random.default_rng(0)
        for t in (5, 1):
            xs = rng.normal(size=(t, 3))
            case = ck.describe(xs=xs)
            out = ck.as_array(ck.call_learner(fn, case, xs, p), case)
            ref = _rnn_states(xs, p)
            hint = "exercises.rnn.states_shape" if out.shape in ((4,), (t + 1, 4)) else ""
            ck.expect_shape(out, ref.shape, what, case, hint)
            if t > 1:
                ck.diagnose(out, {"exercises.rnn.not_carried": _rnn_states(xs, p, carried=False),
                                   "exercises.rnn.no_tanh": _rnn_states(xs, p, tanh=False)}, case, ref=ref)
            ck.expect_close(out, ref, what, case)
        return ck.msg("exercises.rnn.ok")
    return ck.run_check("check_rnn_forward", body, lang, timeout, fn)


def rnn_jacobian(xs, p, *, tanh_grad=True, reverse=False):
    """d h_(T-1) / d x_0 (D_h, D_in) by the chain rule: J_(T-1) ... J_1 (d h_0 / d x_0), where
    J_t = d h_t / d h_(t-1) = diag(1 - h_t^2) W_h^T. reverse=True multiplies the J_t the wrong way round."""
    states = _rnn_states(xs, p)
    g = (lambda h: np.diag(1.0 - h ** 2)) if tanh_grad else (lambda h: np.eye(len(h)))
    chain = np.eye(p.w_h.shape[0])
    for t in range(1, len(xs)):
        step = g(states[t]) @ p.w_h.T                                          # J_t (D_h, D_h)
        chain = chain @ step if reverse else step @ chain
    return chain @ g(states[0]) @ p.w_x.T                                      # (D_h, D_in)


def check_rnn_gradient(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(xs (T, D_in), params) -> d h_(T-1) / d x_0, the (D_h, D_in) Jacobian of the last state
    with respect to the first input, by the chain rule."""
    def body():
        what = ck.msg("exercises.what.jacobian")
        p = _rnn_params()
        rng = np.random.default_rng(1)
        for t in (6, 30, 1):
            xs = rng.normal(size=(t, 3))
            case = ck.describe(xs=xs)
            out = ck.as_array(ck.call_learner(fn, case, xs, p), case)
            ref = rnn_jacobian(xs, p)
            hint = "exercises.grad.transposed" if out.shape == (3, 4) else ""
            ck.expect_shape(out, ref.shape, what, case, hint)
            if t > 1:
                ck.diagnose(out, {"exercises.grad.no_tanh": rnn_jacobian(xs, p, tanh_grad=False),
                                   "exercises.grad.order": rnn_jacobian(xs, p, reverse=True)}, case, ref=ref)
            if not np.allclose(out, ref, atol=1e-8, rtol=1e-5):
                raise ck.Fail("checks.values", what=what, got=ck.format_array(out), expected=ck.format_array(ref),
                              case=case)
        return ck.msg("exercises.grad.ok")
    return ck.run_check("check_rnn_gradient", body, lang, timeout, fn)
