"""The exercises' checkers of notebooks 01-10 (each in its notebook's lab, `labs/nbNN_<notebook>/checks.py`)
pass a right implementation, written as a learner would, and name each usual mistake in plain words, in
both languages."""
import importlib
import inspect
import subprocess
import sys

import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb08_attention_vs_rnn.checks import rnn_jacobian as reference_jacobian
from attention_core.teaching.checks import CheckResult
from attention_core.teaching.notebook_source import notebook_titles

# Each lab's checkers, by name: the notebook is the lab's, and the name says which one.
LAB_CHECKS = {stem: importlib.import_module(f"attention_core.labs.nb{stem}.checks")
              for stem in notebook_titles() if "01" <= stem[:2] <= "10"}
CHECKERS = {name: fn for module in LAB_CHECKS.values() for name, fn in vars(module).items()
            if name.startswith("check_") and inspect.isfunction(fn) and fn.__module__ == module.__name__}
# the checkers of attention itself, tested in test_attention_checks.py
MAIN = {"check_attention", "check_scaled_scores", "check_softmax", "check_causal_mask"}


def assert_passes(result):
    assert isinstance(result, CheckResult)
    assert result.passed, result.message


def assert_fails(result, *fragments):
    assert isinstance(result, CheckResult)
    assert not result.passed, result.message
    for fragment in fragments:
        assert fragment in result.message, result.message


def test_each_lab_has_its_own_checkers():
    assert all(any(n.startswith("check_") for n in vars(m)) for m in LAB_CHECKS.values()), sorted(LAB_CHECKS)
    assert len(LAB_CHECKS) == 10 and MAIN < set(CHECKERS)


# --- learner-style implementations ------------------------------------------------------------------

def softmax_rows(x):
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def attend(q, k, v, mask=None):
    return ac.reference_attention(q, k, v, mask)                  # the library's readable reference


def source_keys(lengths, t_k):
    """(B, 1, Tk) bool: True on the real tokens of each source sentence."""
    return (np.arange(t_k)[None, :] < np.asarray(lengths)[:, None])[:, None, :]


def padded_good(x_dec, x_enc, lengths, w_q, w_k, w_v):
    return attend(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v, mask=source_keys(lengths, x_enc.shape[-2]))


def padded_filled(x_dec, x_enc, lengths, w_q, w_k, w_v, fill=-1e9):
    q, k, v = x_dec @ w_q, x_enc @ w_k, x_enc @ w_v
    s = np.where(source_keys(lengths, x_enc.shape[-2]), q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), fill)
    w = softmax_rows(s)
    return w @ v, w


def cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def contextual(x, w_q, w_k, w_v):
    return x + attend(x @ w_q, x @ w_k, x @ w_v)[0]


def unscaled(x, w_q, w_k, w_v):
    return x + softmax_rows((x @ w_q) @ (x @ w_k).T) @ (x @ w_v)


def similarity_good(x_a, i, x_b, j, w_q, w_k, w_v):
    return cosine(contextual(x_a, w_q, w_k, w_v)[i], contextual(x_b, w_q, w_k, w_v)[j])


def gap(t):
    return np.arange(t)[:, None] - np.arange(t)[None, :]                 # i - j, (T, T)


def dot_variances(d_k, n, seed, *, mean=False, by=None):
    rng = np.random.default_rng(seed)
    prods = rng.normal(size=(n, d_k)) * rng.normal(size=(n, d_k))
    dots = prods.mean(axis=1) if mean else prods.sum(axis=1)
    return dots.var(), (dots / (np.sqrt(d_k) if by is None else by)).var()


def split_good(x, n_heads):
    *lead, t, d = x.shape
    return x.reshape(*lead, t, n_heads, d // n_heads).swapaxes(-2, -3)


def merge_good(x):
    *lead, h, t, dh = x.shape
    return x.swapaxes(-2, -3).reshape(*lead, t, h * dh)


def sin_table(n_positions, d_model, *, swap=False, base=10000.0, exponent_i=False, start=0):
    pos = np.arange(start, start + n_positions)[:, None]
    i = np.arange(d_model // 2)[None, :]
    angle = pos / base ** ((i if exponent_i else 2 * i) / d_model)
    first, second = (np.cos, np.sin) if swap else (np.sin, np.cos)
    pe = np.zeros((n_positions, d_model))
    pe[:, 0::2], pe[:, 1::2] = first(angle), second(angle)
    return pe


def rope(x, positions, *, sign=1, half=False, exponent=2, ignore_positions=False):
    d = x.shape[-1]
    if ignore_positions:
        positions = np.arange(x.shape[-2])
    theta = 10000.0 ** (-exponent * np.arange(d // 2) / d)
    ang = sign * np.asarray(positions, float)[:, None] * theta
    a, b = (x[..., : d // 2], x[..., d // 2:]) if half else (x[..., 0::2], x[..., 1::2])
    ra, rb = a * np.cos(ang) - b * np.sin(ang), a * np.sin(ang) + b * np.cos(ang)
    if half:
        return np.concatenate([ra, rb], -1)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = ra, rb
    return out


def mha(x, p, *, transpose=True, w_o=True, scale_model=False):
    split = split_good if transpose else (lambda a, h: a.reshape(*a.shape[:-2], h, a.shape[-2], a.shape[-1] // h))
    q, k, v = (split(x @ w + b, p.n_heads) for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    d = x.shape[-1] if scale_model else q.shape[-1]
    heads = softmax_rows(q @ np.swapaxes(k, -1, -2) / np.sqrt(d)) @ v
    merged = merge_good(heads) if transpose else heads.reshape(*heads.shape[:-3], heads.shape[-2], -1)
    return merged @ p.w_o + p.b_o if w_o else merged


def online(q, k, v, block_size, *, rescale=True, divide=True, drop_last=False, subtract=True):
    m = np.full((q.shape[0], 1), -np.inf)
    acc, total = np.zeros((q.shape[0], v.shape[1])), np.zeros((q.shape[0], 1))
    stop = k.shape[0] - k.shape[0] % block_size if drop_last else k.shape[0]
    for start in range(0, stop, block_size):
        s = q @ k[start:start + block_size].T / np.sqrt(q.shape[1])
        new_m = np.maximum(m, s.max(axis=1, keepdims=True)) if subtract else np.zeros_like(m)
        p = np.exp(s - new_m)
        r = np.exp(m - new_m) if rescale and subtract else 1.0
        total = total * r + p.sum(axis=1, keepdims=True)
        acc = acc * r + p @ v[start:start + block_size]
        m = new_m
    return acc / total if divide else acc


def decode(q, k, v, *, mode="right"):
    keys, values, outs = [], [], []
    for t in range(len(q)):
        if mode == "exclusive" and t > 0:
            out = attend(q[t:t + 1], np.array(keys), np.array(values))[0][0]
        keys.append(k[t])
        values.append(v[t])
        if mode == "future":
            out = attend(q[t:t + 1], k, v)[0][0]
        elif mode == "newest":
            out = v[t]
        elif mode != "exclusive" or t == 0:
            out = attend(q[t:t + 1], np.array(keys), np.array(values))[0][0]
        outs.append(out)
    return np.array(outs)


def rnn_states(xs, p, *, carried=True, tanh=True):
    h, out = np.zeros(p.w_h.shape[0]), []
    for x in xs:
        a = x @ p.w_x + (h if carried else 0 * h) @ p.w_h + p.b
        h = np.tanh(a) if tanh else a
        out.append(h)
    return np.array(out)


def rnn_jacobian(xs, p, *, tanh_grad=True, reverse=False, transpose=False):
    hs = rnn_states(xs, p)
    d = (lambda h: np.diag(1 - h ** 2)) if tanh_grad else (lambda h: np.eye(len(h)))
    j = d(hs[0]) @ p.w_x.T
    steps = [d(hs[t]) @ p.w_h.T for t in range(1, len(xs))]
    if reverse:
        prod = np.eye(len(hs[0]))
        for s in steps:
            prod = prod @ s
        j = prod @ j
    else:
        for s in steps:
            j = s @ j
    return j.T if transpose else j


# --- each checker: the right answer passes, each usual mistake is named ------------------------------

CASES = {
    "check_weighted_sum": (lambda w, v: w @ v, [
        (lambda w, v: np.broadcast_to(v.mean(axis=-2, keepdims=True), w.shape[:-1] + v.shape[-1:]), "plain average"),
        (lambda w, v: np.swapaxes(v, -1, -2) @ np.swapaxes(w, -1, -2), "weights @ v"),
    ]),
    "check_dot_product_variance": (lambda d, n, seed: dot_variances(d, n, seed), [
        (lambda d, n, seed: tuple(np.sqrt(dot_variances(d, n, seed))), "standard deviation"),
        (lambda d, n, seed: dot_variances(d, n, seed, mean=True), "np.mean"),
        (lambda d, n, seed: dot_variances(d, n, seed, by=d), "divided by d_k"),
        (lambda d, n, seed: dot_variances(d, n, seed)[0], "pair"),
    ]),
    "check_temperature_softmax": (lambda x, t: softmax_rows(x / t), [
        (lambda x, t: softmax_rows(x * t), "multiplied the scores by the temperature"),
        (lambda x, t: softmax_rows(x), "do not change with the temperature"),
        (lambda x, t: np.exp(x / t) / np.exp(x / t).sum(-1, keepdims=True), "overflows"),
    ]),
    "check_padding_mask": (lambda lengths, max_len: (np.arange(max_len)[None, :] < lengths[:, None])[:, None, :], [
        (lambda lengths, max_len: (np.arange(max_len)[None, :] >= lengths[:, None])[:, None, :], "True on the padding"),
        (lambda lengths, max_len: (np.arange(max_len)[None, :] >= max_len - lengths[:, None])[:, None, :],
         "pad side is inverted"),
        (lambda lengths, max_len: (np.arange(max_len)[None, :] <= lengths[:, None])[:, None, :], "j < n"),
        (lambda lengths, max_len: np.arange(max_len)[None, :] < lengths[:, None], "(B, 1, Tk)"),
        (lambda lengths, max_len: (np.arange(lengths.max())[None, :] < lengths[:, None])[:, None, :], "max_len"),
        (lambda lengths, max_len: (np.arange(max_len)[None, :] < lengths[:, None])[:, None, :].astype(int), "dtype"),
    ]),
    "check_self_attention": (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv), [
        (lambda x, wq, wk, wv: attend(x, x, x), "attended over x itself"),
        (lambda x, wq, wk, wv: attend(x @ wq, x @ wq, x @ wv), "both use W_q"),
        (lambda x, wq, wk, wv: attend(x @ wq * np.sqrt(wq.shape[1]), x @ wk, x @ wv), "sqrt(d_k)"),
    ]),
    "check_cross_attention": (lambda xd, xe, wq, wk, wv: attend(xd @ wq, xe @ wk, xe @ wv), [
        (lambda xd, xe, wq, wk, wv: attend(xe @ wq, xd @ wk, xd @ wv), "Queries come from the decoder"),
        (lambda xd, xe, wq, wk, wv: attend(xd @ wq, xd @ wk, xd @ wv), "self-attention"),
        (lambda xd, xe, wq, wk, wv: attend(xd @ wq, xe @ wk, xe @ wv, mask=np.tril(np.ones((3, 5), bool))),
         "causal mask"),
    ]),
    "check_padded_cross_attention": (padded_good, [
        (lambda xd, xe, n, wq, wk, wv: attend(xd @ wq, xe @ wk, xe @ wv), "pads of the short source"),
        (lambda xd, xe, n, wq, wk, wv: padded_good(xd, xe, n + 1, wq, wk, wv), "j < n, not j <= n"),
        (lambda xd, xe, n, wq, wk, wv: attend(xd @ wq, xe @ wk, xe @ wv, mask=~source_keys(n, xe.shape[-2])),
         "mask is inverted"),
        (lambda xd, xe, n, wq, wk, wv: attend(xd @ wq, xe @ wk, xe @ wv, mask=np.broadcast_to(
            (np.arange(xd.shape[-2])[None, :] < n[:, None])[:, :, None], (2, 3, 5))), "decoder rows"),
        (lambda xd, xe, n, wq, wk, wv: attend(xe @ wq, xd @ wk, xd @ wv), "Queries come from the decoder"),
        (lambda xd, xe, n, wq, wk, wv: attend(xd @ wq, xd @ wk, xd @ wv), "self-attention"),
        (lambda xd, xe, n, wq, wk, wv: attend(xd @ wq, xe @ wk, xe @ wv,
                                              mask=source_keys(n, 5) & np.tril(np.ones((3, 5), bool))), "causal mask"),
        (lambda xd, xe, n, wq, wk, wv: attend(xd @ wq * np.sqrt(wq.shape[1]), xe @ wk, xe @ wv,
                                              mask=source_keys(n, 5)), "sqrt(d_k)"),
        (lambda xd, xe, n, wq, wk, wv: padded_good(xd, xe, n, wq, wk, wv)[::-1], "returns (weights, output)"),
        (lambda xd, xe, n, wq, wk, wv: padded_filled(xd, xe, n, wq, wk, wv, fill=-5.0), "pad still gets weight"),
    ]),
    "check_context_similarity": (similarity_good, [
        (lambda *a: 1.0 - similarity_good(*a), "a distance"),
        (lambda xa, i, xb, j, wq, wk, wv: contextual(xa, wq, wk, wv)[i] @ contextual(xb, wq, wk, wv)[j],
         "dot product"),
        (lambda xa, i, xb, j, wq, wk, wv: cosine(xa[i], xb[j]), "before attention"),
        (lambda xa, i, xb, j, wq, wk, wv: cosine(attend(xa @ wq, xa @ wk, xa @ wv)[0][i],
                                                 attend(xb @ wq, xb @ wk, xb @ wv)[0][j]), "add the residual"),
        (lambda xa, i, xb, j, wq, wk, wv: similarity_good(xa, j % len(xa), xb, i % len(xb), wq, wk, wv),
         "token j of sentence a"),
        (lambda xa, i, xb, j, wq, wk, wv: cosine(unscaled(xa, wq, wk, wv)[i], unscaled(xb, wq, wk, wv)[j]),
         "sqrt(d_k)"),
        (lambda xa, i, xb, j, wq, wk, wv: similarity_good(xa, i, xb, j, wq, wk, wv) * 0.9, "expected"),
        (lambda *a: str(similarity_good(*a)), "expected one number"),
    ]),
    "check_split_heads": (split_good, [
        (lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2], x.shape[-1] // h), "straight to (H, T, Dh)"),
        (lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h), ".swapaxes(-2, -3)"),
        (lambda x, h: np.moveaxis(x.reshape(*x.shape[:-1], x.shape[-1] // h, h), -1, -3), "contiguous block"),
        (lambda x, h: x.reshape(x.shape[0], h, x.shape[1] // h).swapaxes(0, 1), "not on a batch"),
    ]),
    "check_merge_heads": (merge_good, [
        (lambda x: x.reshape(*x.shape[:-3], x.shape[-2], x.shape[-3] * x.shape[-1]), "without moving the head axis"),
        (lambda x: np.moveaxis(x, -3, -1).reshape(*x.shape[:-3], x.shape[-2], -1), "interleaves"),
        (lambda x: x.swapaxes(0, 1).reshape(x.shape[1], -1), "not on a batch"),
    ]),
    "check_multi_head_attention": (mha, [
        (lambda x, p: mha(x, p, w_o=False), "final projection"),
        (lambda x, p: mha(x, p, transpose=False), "without the transpose"),
        (lambda x, p: mha(x, p, scale_model=True), "sqrt(d_model)"),
        (lambda x, p: ac.scaled_dot_product_attention(x @ p.w_q + p.b_q, x @ p.w_k + p.b_k,
                                                      x @ p.w_v + p.b_v)[0] @ p.w_o + p.b_o, "single-head"),
        (lambda x, p: mha(x, ac.MultiHeadParams(p.w_q, p.w_k, p.w_v, p.w_o, 0 * p.b_q, 0 * p.b_k, 0 * p.b_v,
                                                0 * p.b_o, p.n_heads)), "biases"),
    ]),
    "check_sinusoidal_encoding": (sin_table, [
        (lambda t, d: sin_table(t, d, swap=True), "sin and cos are swapped"),
        (lambda t, d: sin_table(t, d, base=1000.0), "frequencies are off"),
        (lambda t, d: sin_table(t, d, exponent_i=True), "frequencies are off"),
        (lambda t, d: sin_table(t, d, start=1), "start at 1"),
        (lambda t, d: np.concatenate([sin_table(t, d)[:, 0::2], sin_table(t, d)[:, 1::2]], 1), "interleaves"),
        (lambda t, d: sin_table(t, d).T, "shape"),
    ]),
    "check_rope": (rope, [
        (lambda x, pos: rope(x, pos, sign=-1), "wrong way"),
        (lambda x, pos: rope(x, pos, half=True), "i + Dh/2"),
        (lambda x, pos: rope(x, pos, exponent=1), "angles are off"),
        (lambda x, pos: rope(x, pos, ignore_positions=True), "ignored `positions`"),
        (lambda x, pos: rope(x, pos) * 1.5, "length"),
    ]),
    "check_rnn_forward": (rnn_states, [
        (lambda xs, p: rnn_states(xs, p, carried=False), "h = 0"),
        (lambda xs, p: rnn_states(xs, p, tanh=False), "tanh"),
        (lambda xs, p: rnn_states(xs, p)[-1], "every state"),
    ]),
    "check_rnn_gradient": (rnn_jacobian, [
        (lambda xs, p: rnn_jacobian(xs, p, tanh_grad=False), "diag(1 − h_t²)"),
        (lambda xs, p: rnn_jacobian(xs, p, reverse=True), "wrong order"),
        (lambda xs, p: rnn_jacobian(xs, p, transpose=True), "(D_h, D_in)"),
    ]),
    "check_kv_cache_decode": (decode, [
        (lambda q, k, v: decode(q, k, v, mode="future"), "a future token"),
        (lambda q, k, v: decode(q, k, v, mode="exclusive"), "misses the current token"),
        (lambda q, k, v: decode(q, k, v, mode="newest"), "only to its own key"),
    ]),
    "check_kv_cache_bytes": (lambda layers, heads, dh, t, b: 2 * layers * heads * dh * t * b, [
        (lambda layers, heads, dh, t, b: layers * heads * dh * t * b, "factor 2"),
        (lambda layers, heads, dh, t, b: 2 * layers * heads * dh * t * t * b, "square of the context"),
        (lambda layers, heads, dh, t, b: 2 * heads * dh * t * b, "n_layers"),
        (lambda layers, heads, dh, t, b: 16 * layers * heads * dh * t * b, "8 times"),
        (lambda layers, heads, dh, t, b: 3 * layers * heads * dh * t * b, "2 × layers"),
    ]),
    "check_sliding_window_mask": (lambda t, w: (gap(t) >= 0) & (gap(t) < w), [
        (lambda t, w: (gap(t) >= 0) & (gap(t) <= w), "window + 1"),
        (lambda t, w: np.abs(gap(t)) < w, "keys after it"),
        (lambda t, w: (gap(t) > 0) & (gap(t) <= w), "diagonal"),
        (lambda t, w: ~ac.sliding_window_mask(t, w), "outside the window"),
    ]),
    "check_online_attention": (online, [
        (lambda q, k, v, b: online(q, k, v, b, rescale=False), "not rescaled"),
        (lambda q, k, v, b: online(q, k, v, b, divide=False), "without dividing"),
        (lambda q, k, v, b: online(q, k, v, b, drop_last=True), "last, shorter block"),
        (lambda q, k, v, b: online(q, k, v, b, subtract=False), "NaN or inf"),
        (lambda q, k, v, b: ac.scaled_dot_product_attention(q, k, v)[0], "peak memory"),
    ]),
}


def test_every_checker_has_cases():
    assert sorted(CASES) == sorted(set(CHECKERS) - MAIN)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_right_answer_passes(name, lang):
    assert_passes(CHECKERS[name](CASES[name][0], timeout=30))       # the verdict, not the speed (a loaded host)


@pytest.mark.parametrize("name, index", [(n, i) for n in sorted(CASES) for i in range(len(CASES[n][1]))])
def test_each_usual_mistake_is_named(name, index):
    wrong, fragment = CASES[name][1][index]
    assert_fails(CHECKERS[name](wrong, lang="en", timeout=30), fragment)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_mistake_is_explained_in_chinese(name):
    wrong, _ = CASES[name][1][0]
    result = CHECKERS[name](wrong, lang="zh")
    assert not result.passed
    assert any("\u4e00" <= ch <= "\u9fff" for ch in result.message), result.message


def test_the_what_words_are_translated():
    result = CHECKERS["check_weighted_sum"](lambda w, v: w @ v + 1, lang="zh")
    assert "你返回的输出[0, 0] =" in result.message and "output" not in result.message, result.message
    result = CHECKERS["check_split_heads"](lambda x, h: split_good(x, h) + 1, lang="zh")
    assert "的多头张量[0, 0, 0] =" in result.message and "的 heads" not in result.message, result.message


def test_the_library_passes_its_own_checkers():
    assert_passes(CHECKERS["check_split_heads"](ac.split_heads))
    assert_passes(CHECKERS["check_merge_heads"](ac.merge_heads))
    assert_passes(CHECKERS["check_padding_mask"](ac.padding_mask))
    assert_passes(CHECKERS["check_sinusoidal_encoding"](ac.sinusoidal_encoding))
    assert_passes(CHECKERS["check_rope"](ac.apply_rope))
    assert_passes(CHECKERS["check_sliding_window_mask"](ac.sliding_window_mask))
    assert_passes(CHECKERS["check_multi_head_attention"](lambda x, p: ac.multi_head_attention(x, x, x, p)))
    assert_passes(CHECKERS["check_online_attention"](lambda q, k, v, b: ac.tiled_attention(q, k, v, block_size=b)))


def test_not_implemented_is_reported_not_raised():
    def stub(*args):
        raise NotImplementedError("write it")
    for name in sorted(CASES):
        result = CHECKERS[name](stub, lang="en")
        assert not result.passed and "NotImplementedError" in result.message, (name, result.message)


def test_the_jacobian_reference_matches_finite_differences():
    from attention_core.core.rnn import init_rnn, rnn_forward
    p = init_rnn(3, 4, seed=0, recurrent_scale=0.9)
    xs = np.random.default_rng(3).normal(size=(7, 3))
    jac = reference_jacobian(xs, p)
    eps, fd = 1e-6, np.zeros((4, 3))
    for i in range(3):
        moved = xs.copy()
        moved[0, i] += eps
        fd[:, i] = (rnn_forward(moved, p)[-1] - rnn_forward(xs, p)[-1]) / eps
    assert np.allclose(jac, fd, atol=1e-5)


def test_importing_one_labs_checkers_registers_their_words():
    """A fresh interpreter that imports only notebook 05's checkers can put every verdict in words."""
    code = ("from attention_core.labs.nb05_self_and_cross_attention import checks\n"
            "r = checks.check_cross_attention(lambda *a: None, lang='zh')\n"
            "print(r.passed, r.message)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("False 你的函数") and "return" in out, out
