"""Experiments of notebook 08 (attention versus RNN): path length, sequential steps, a trained recall task,
the cost table.

The definitions live elsewhere: the plain RNN in `rnn` (`init_rnn`, `rnn_forward`), attention in
`attention` and `multihead`. This module only measures them, so a notebook can show each claim:

    J = rnn_input_jacobians(params, xs)            # (T, D_in, D_h): d h_last / d x_s, the chain of products
    curves = influence_curves()                    # how much a token k positions back moves the last output
    sequential_steps("rnn", n), sequential_steps("attention", n)     # n and 1: the longest dependency chain
    parallel_rounds(step, xs, h0)                  # all positions at once, round after round: n rounds for an RNN
    recall_comparison(ks)                          # plain RNN, GRU, one attention layer trained on "recall the
                                                   # first token"
    layer_macs("attention", n, d)                  # multiply-adds of one layer, term by term

Everything is a pure function of its inputs (randomness only from a seed you pass). torch is imported
lazily, only by the trained comparison. Plot helpers take `ax=`, return it and never call `show()`.
Dimension names: T (or n) sequence length, D model width, D_h hidden width, k distance in tokens.
"""
from __future__ import annotations

import functools

import numpy as np

import attention_core as ac
from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.multihead import init_multihead, multi_head_attention
from attention_core.core.rnn import RNNParams, init_rnn, rnn_forward
from attention_core.core.validation import as_float_array, as_generator, checked, describe, positive_float, positive_int
from attention_core.teaching import i18n, plots
from attention_core.teaching.measure import blas_threads, latencies, timed

RECURRENT = ("rnn", "gru", "lstm")
KINDS = RECURRENT + ("attention",)
MODEL_KINDS = ("rnn", "gru", "attention")          # the three models of the trained comparison
MODEL_LABELS = {"rnn": "rnn_lab.rnn", "gru": "rnn_lab.gru", "attention": "rnn_lab.attention"}   # i18n keys


def _kind(kind, allowed=KINDS) -> str:
    if kind not in allowed:
        raise ValueError(f"kind: expected one of {allowed}, got {describe(kind)}")
    return kind


# --- path length --------------------------------------------------------------------------------------
def path_inputs(kind: str, distance: int) -> dict:
    """path_length's arguments, checked: a known layer kind and a distance >= 1."""
    return dict(kind=_kind(kind), distance=positive_int(distance, "distance"))


@checked(path_inputs)
def path_length(kind: str, distance: int) -> int:
    """Hops from a token to a position `distance` tokens later: `distance` hidden-state hand-offs
    in a recurrent layer (plain, GRU or LSTM alike), 1 in an attention layer (a direct query-key match)."""
    return 1 if kind == "attention" else distance


def rnn_input_jacobians(params: RNNParams, xs) -> np.ndarray:
    """Exact Jacobians (T, D_in, D_h) of the last hidden state h_{T-1} with respect to every input x_s.

    With row vectors, h_t = tanh(x_t W_x + h_{t-1} W_h + b), so a nudge dx_s moves the last state by
    dh_{T-1} = dx_s W_x G_s W_h G_{s+1} ... W_h G_{T-1}, where G_t = diag(1 - h_t^2) is tanh's slope.
    J[s] is that product: T - 1 - s factors W_h G_t between x_s and the output (backpropagation
    through time computes exactly this, from the end backwards).
    """
    if not isinstance(params, RNNParams):
        raise TypeError(f"params: expected RNNParams (see rnn.init_rnn), got {type(params).__name__}")
    xs = as_float_array(xs, "xs", ndim=2)
    hs = rnn_forward(xs, params)                             # (T, D_h), checks the width
    slopes = 1.0 - hs ** 2                                   # (T, D_h), the diagonal of G_t
    t_len, d_h = hs.shape
    out = np.empty((t_len, params.w_x.shape[0], d_h))
    chain = np.diag(slopes[-1])                              # (D_h, D_h): d h_last / d pre-activation_{T-1}
    for s in range(t_len - 1, -1, -1):                       # from the end backwards
        out[s] = params.w_x @ chain                          # (D_in, D_h)
        if s:
            chain = slopes[s - 1][:, None] * (params.w_h @ chain)   # G_{s-1} W_h (chain): one more link
    return out


def finite_difference_jacobian(layer, xs, position: int, *, eps: float = 1e-6) -> np.ndarray:
    """(D_in, D_out) Jacobian of layer(xs)[-1] (the last output) with respect to xs[position],
    by central differences: an independent check that needs only calls of `layer` (T, D_in) -> (T, D_out)."""
    xs = as_float_array(xs, "xs", ndim=2)
    t_len, d_in = xs.shape
    if isinstance(position, bool) or not isinstance(position, (int, np.integer)) or not 0 <= position < t_len:
        raise ValueError(f"position: expected an integer in 0..{t_len - 1}, got {describe(position)}")
    eps = positive_float(eps, "eps")
    rows = []
    for i in range(d_in):
        up, down = xs.copy(), xs.copy()
        up[position, i] += eps
        down[position, i] -= eps
        rows.append((np.asarray(layer(up))[-1] - np.asarray(layer(down))[-1]) / (2 * eps))
    return np.stack(rows)                                    # (D_in, D_out)


def marker_sequence(distractors, marker, query, distance: int) -> np.ndarray:
    """(T, D) with T = len(distractors) + 2: the distractors in order, `marker` inserted `distance`
    positions before the last one, and `query` last. Every distance uses the same tokens; only
    the marker's place changes."""
    distractors = as_float_array(distractors, "distractors", ndim=2)
    marker = as_float_array(marker, "marker", ndim=1)
    query = as_float_array(query, "query", ndim=1)
    t_len = len(distractors) + 2
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or not 1 <= distance < t_len:
        raise ValueError(f"distance: expected an integer in 1..{t_len - 1}, got {describe(distance)}")
    where = t_len - 1 - distance                             # the marker's index
    return np.concatenate([distractors[:where], marker[None], distractors[where:], query[None]])


def influence_by_distance(jacobian, distractors, marker, query, distances) -> np.ndarray:
    """For each distance k: the largest factor by which a nudge to the marker, k tokens before the
    end, moves the last output: the spectral norm of jacobian(xs, position) (D_in, D_out)."""
    out = []
    for k in distances:
        xs = marker_sequence(distractors, marker, query, int(k))
        out.append(np.linalg.norm(jacobian(xs, len(xs) - 1 - int(k)), 2))
    return np.array(out)


def _influence_setup(n: int, d: int, seed: int):
    rng = as_generator(seed)
    distractors = rng.normal(size=(n - 2, d))                # (n - 2, D)
    marker, query = rng.normal(size=d), rng.normal(size=d)
    return distractors, marker, query


@functools.lru_cache(maxsize=8)
def _attention_curve(n: int, d: int, seed: int) -> np.ndarray:
    params = init_multihead(d_model=d, n_heads=2, seed=seed)
    layer = lambda x: multi_head_attention(x, x, x, params)[0]          # noqa: E731 (T, D) -> (T, D)
    jac = lambda xs, pos: finite_difference_jacobian(layer, xs, pos)    # noqa: E731
    return influence_by_distance(jac, *_influence_setup(n, d, seed), range(1, n))


@functools.lru_cache(maxsize=32)
def _rnn_curve(n: int, d: int, recurrent_scale: float, seed: int) -> np.ndarray:
    params = init_rnn(d, d, seed=seed, recurrent_scale=recurrent_scale)
    jac = lambda xs, pos: rnn_input_jacobians(params, xs)[pos]          # noqa: E731
    return influence_by_distance(jac, *_influence_setup(n, d, seed), range(1, n))


def influence_curves(n: int = 48, d: int = 16, recurrent_scale: float = 0.9, seed: int = 0) -> dict:
    """How much a marker token k = 1 .. n-1 positions back moves the last output, for a plain RNN
    (`rnn.init_rnn(d, d, recurrent_scale=...)`, exact Jacobians) and one two-head self-attention
    layer (`init_multihead(d, 2)`, finite differences), on the same seeded tokens.

    Returns distances (n-1,), rnn (n-1,), attention (n-1,) and the settings.
    """
    n, d = positive_int(n, "n", minimum=3), positive_int(d, "d")
    scale = round(positive_float(recurrent_scale, "recurrent_scale"), 6)
    return {"distances": np.arange(1, n), "rnn": _rnn_curve(n, d, scale, seed).copy(),
            "attention": _attention_curve(n, d, seed).copy(), "n": n, "d": d, "recurrent_scale": scale}


def plot_influence(curves: dict, ax=None, *, distance: int | None = None, **kwargs):
    """Influence of the marker on the last output against its distance k, log scale, one line per layer
    (from `influence_curves`). distance marks one k. kwargs go to `ax.plot`. Returns the Axes."""
    ax = plots.new_axes(ax, (6.4, 3.6))
    ks = curves["distances"]
    for key, color in (("rnn", plots.COLORS[1]), ("attention", plots.COLORS[0])):
        ax.plot(ks, curves[key], color=color, linewidth=2.2, label=i18n.t(MODEL_LABELS[key]), **kwargs)
    if distance is not None:
        plots.reference_line(ax, x=distance)
    ax.set_yscale("log")
    plots.style_axes(ax, i18n.t("rnn_lab.distance"), i18n.t("rnn_lab.influence"), legend={})
    return ax


# --- parallelism --------------------------------------------------------------------------------------
def dependency_graph(kind: str, n: int) -> dict:
    """Which values each output needs, for a layer over n positions: {node: parents}.

    Nodes are ("x", t) inputs and ("h", t) outputs. A recurrent layer's h_t needs x_t and h_{t-1};
    an attention layer's output t needs every input x_0 .. x_{n-1} and no other output.
    """
    n = positive_int(n, "n")
    if _kind(kind) == "attention":
        return {("h", t): [("x", s) for s in range(n)] for t in range(n)}
    return {("h", t): [("x", t)] + ([("h", t - 1)] if t else []) for t in range(n)}


def critical_path(graph: dict) -> int:
    """Length of the longest chain of outputs that must wait for each other (inputs are given):
    the number of rounds even unlimited parallel hardware needs."""
    depth: dict = {}

    def level(node):
        if node not in graph:                                 # an input: ready at round 0
            return 0
        if node not in depth:
            depth[node] = 1 + max((level(p) for p in graph[node]), default=0)
        return depth[node]

    for node in sorted(graph, key=lambda nd: nd[1]):         # in position order: no deep recursion
        level(node)
    return max(depth.values(), default=0)


def sequential_steps(kind: str, n: int) -> int:
    """Rounds of computation that must happen one after another for one layer over n positions:
    the critical path of `dependency_graph` (n for a recurrent layer, 1 for attention)."""
    return critical_path(dependency_graph(kind, n))


def parallel_rounds(step, xs, h0, *, tol: float = 1e-9, max_rounds: int | None = None) -> dict:
    """Try to compute every state of h_t = step(x_t, h_{t-1}) at once, round after round.

    Round r updates ALL positions in one batched call, each from the previous round's guess of its
    left neighbour (a Jacobi iteration, starting from h0 everywhere). The true states are computed
    one by one as the reference. step: (B, D_in), (B, D_h) -> (B, D_h) on NumPy arrays.
    Returns rounds (until every position matches the reference within tol) and correct (R,): how
    many positions are right after each round.
    """
    xs = as_float_array(xs, "xs", ndim=2)
    h0 = as_float_array(h0, "h0", ndim=1)
    t_len = len(xs)
    reference, h = [], h0[None]
    for t in range(t_len):                                   # the sequential answer
        h = np.asarray(step(xs[t:t + 1], h))
        reference.append(h[0])
    reference = np.stack(reference)                          # (T, D_h)
    guess = np.tile(h0, (t_len, 1))                          # (T, D_h): round 0, nothing known
    correct = []
    for _ in range(max_rounds or t_len + 1):
        left = np.concatenate([h0[None], guess[:-1]])        # each position's left neighbour, last round
        guess = np.asarray(step(xs, left))                   # one batched call: every position at once
        ok = np.all(np.abs(guess - reference) <= tol * (1 + np.abs(reference)), axis=1)
        correct.append(int(ok.sum()))
        if ok.all():
            break
    return {"rounds": len(correct) if correct[-1] == t_len else None, "correct": np.array(correct),
            "reference": reference}


def rnn_step(params: RNNParams):
    """The step function h_t = tanh(x_t W_x + h_{t-1} W_h + b) of an `rnn.init_rnn` network, batched."""
    return lambda x, h: np.tanh(x @ params.w_x + h @ params.w_h + params.b)


def time_layers(ns, d: int = 64, *, repeats: int = 5, seed: int = 0, threads: int | None = 1) -> dict:
    """Wall-clock seconds (best of `repeats`) of `rnn_forward` and `scaled_dot_product_attention`
    on one random sequence (n, d) for each n: n (N,), rnn (N,), attention (N,), repeats.
    threads: BLAS threads while timing (1: one core each, steady on a shared machine; None: as is).
    Machine-dependent: never print these in checked output."""
    with blas_threads(threads):
        return _time_layers(ns, d, repeats, seed)


def _time_layers(ns, d, repeats, seed) -> dict:
    d = positive_int(d, "d")
    ns = [positive_int(int(n), "ns") for n in ns]
    params = init_rnn(d, d, seed=seed)
    rng = as_generator(seed)
    out = {"n": np.array(ns), "rnn": [], "attention": []}
    repeats = positive_int(repeats, "repeats")
    for n in ns:
        x = rng.normal(size=(n, d))                          # (n, D)
        for key, run in (("rnn", lambda x=x: rnn_forward(x, params)),
                         ("attention", lambda x=x: scaled_dot_product_attention(x, x, x))):
            out[key].append(latencies(run, runs=repeats, warmup=False).min())    # the best of `repeats`
    return {**{k: np.asarray(v) for k, v in out.items()}, "repeats": repeats}


def plot_timings(timings: dict, ax=None, **kwargs):
    """Seconds against n, log-log, one line per layer (from `time_layers`). kwargs go to `ax.plot`."""
    ax = plots.new_axes(ax, (6.4, 3.6))
    for key, color in (("rnn", plots.COLORS[1]), ("attention", plots.COLORS[0])):
        ax.plot(timings["n"], timings[key], "o-", color=color, linewidth=2, label=i18n.t(MODEL_LABELS[key]), **kwargs)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plots.style_axes(ax, i18n.t("rnn_lab.length"), i18n.t("rnn_lab.seconds", r=timings.get("repeats", 1)), legend={})
    return ax


# --- a trained comparison: recall the first token after k distractors (torch) ---------------------------
N_SYMBOLS = 8                 # what must be recalled: tokens 0..7 (chance = 1/8)
N_DISTRACTORS = 8             # filler tokens 8..15
QUERY_TOKEN = N_SYMBOLS + N_DISTRACTORS
VOCAB = QUERY_TOKEN + 1


def recall_batch(k: int, batch_size: int, generator):
    """A batch of the recall task: tokens (B, k + 2) = [symbol, k distractors, QUERY], targets (B,) = the symbol.

    Symbols and distractors are different tokens, so the task is only about distance: keep (or fetch)
    the first token across k positions. generator: a `torch.Generator` (seeded by the caller).
    """
    import torch
    k, batch_size = positive_int(k, "k", minimum=0), positive_int(batch_size, "batch_size")
    symbol = torch.randint(0, N_SYMBOLS, (batch_size,), generator=generator)
    filler = torch.randint(N_SYMBOLS, QUERY_TOKEN, (batch_size, k), generator=generator)
    query = torch.full((batch_size, 1), QUERY_TOKEN)
    return torch.cat([symbol[:, None], filler, query], dim=1), symbol


@functools.lru_cache(maxsize=1)
def _model_classes():
    import torch
    from torch import nn

    class RecurrentRecall(nn.Module):
        """Embedding -> nn.RNN (tanh) or nn.GRU -> the last hidden state -> logits over the symbols."""

        def __init__(self, cell: str, d: int):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, d)
            self.rnn = (nn.GRU if cell == "gru" else nn.RNN)(d, d, batch_first=True)
            self.out = nn.Linear(d, N_SYMBOLS)

        def forward(self, tokens):                                     # (B, T) -> (B, N_SYMBOLS)
            states, _ = self.rnn(self.embed(tokens))                   # (B, T, D): one step after another
            return self.out(states[:, -1])

    class AttentionRecall(nn.Module):
        """Embedding -> one attention layer, queried from the last token -> logits over the symbols."""

        def __init__(self, d: int):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, d)
            self.w_q, self.w_k, self.w_v = (nn.Linear(d, d, bias=False) for _ in range(3))
            self.out = nn.Linear(d, N_SYMBOLS)

        def forward(self, tokens):                                     # (B, T) -> (B, N_SYMBOLS)
            e = self.embed(tokens)                                     # (B, T, D)
            q = self.w_q(e[:, -1:])                                    # (B, 1, D): the last token asks
            out, _ = ac.scaled_dot_product_attention(q, self.w_k(e), self.w_v(e))   # (B, 1, D), every key at once
            return self.out(out[:, 0])

    return torch, RecurrentRecall, AttentionRecall


def make_recall_model(kind: str, d: int = 32, *, seed: int = 0):
    """A fresh model of the recall task ("rnn", "gru" or "attention"), its weights seeded."""
    torch, recurrent, attention = _model_classes()
    kind, d = _kind(kind, MODEL_KINDS), positive_int(d, "d")
    torch.manual_seed(seed)
    return attention(d) if kind == "attention" else recurrent(kind, d)


def train_recall(kind: str, k: int, *, steps: int = 300, batch_size: int = 32, d: int = 32, lr: float = 5e-3,
                 seed: int = 0, done_loss: float = 0.01):
    """Train one model on distance k with Adam and cross-entropy, for at most `steps` batches; stop early
    once the mean loss of the last 10 batches is below `done_loss` (learned: more steps change nothing).
    Returns (model, losses (steps taken,))."""
    torch, _, _ = _model_classes()
    model = make_recall_model(kind, d, seed=seed)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=positive_float(lr, "lr"))
    losses = []
    for _ in range(positive_int(steps, "steps")):
        tokens, target = recall_batch(k, batch_size, gen)
        loss = torch.nn.functional.cross_entropy(model(tokens), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if len(losses) >= 10 and np.mean(losses[-10:]) < done_loss:
            break
    return model, np.array(losses)


def recall_accuracy(model, k: int, *, n: int = 512, seed: int = 1234) -> float:
    """Share of n fresh sequences (seeded, never seen in training) whose first token the model names."""
    torch, _, _ = _model_classes()
    tokens, target = recall_batch(k, n, torch.Generator().manual_seed(seed))
    with torch.no_grad():
        return float((model(tokens).argmax(-1) == target).float().mean())


def recall_comparison(ks=(2, 4, 8, 16, 32), kinds=MODEL_KINDS, **train_kwargs) -> dict:
    """Train each kind of model at each distance k (a fresh model per k) and measure its accuracy.

    Returns ks (K,), accuracy {kind: (K,)}, models {kind: [model per k]}, steps {kind: (K,) batches
    trained}, seconds {kind: training time (machine-dependent)}.
    train_kwargs go to `train_recall` (steps, batch_size, d, lr, seed).
    """
    _model_classes()                                         # import torch first: a clear error if missing
    ks = [positive_int(int(k), "ks") for k in ks]
    acc, models, seconds, steps = {}, {}, {}, {}
    for kind in kinds:
        runs, seconds[kind] = timed(lambda kind=kind: [train_recall(kind, k, **train_kwargs) for k in ks])
        models[kind] = [model for model, _ in runs]
        steps[kind] = np.array([len(losses) for _, losses in runs])
        acc[kind] = np.array([recall_accuracy(m, k) for m, k in zip(models[kind], ks)])
    return {"ks": np.array(ks), "accuracy": acc, "models": models, "steps": steps, "seconds": seconds}


def recurrent_step(model):
    """The step function of a trained recurrent recall model, for `parallel_rounds`:
    h_t = cell(x_t, h_{t-1}) on NumPy arrays (B, D) -> (B, D), with the model's own weights
    (an nn.GRUCell or nn.RNNCell loaded from its nn.GRU or nn.RNN), and its embedding
    tokens (T,) -> inputs (T, D)."""
    torch, recurrent, _ = _model_classes()
    if not isinstance(model, recurrent):
        raise TypeError(f"model: expected a recurrent recall model (make_recall_model('rnn' or 'gru')), "
                        f"got {type(model).__name__}")
    layer = model.rnn
    cell = (torch.nn.GRUCell if isinstance(layer, torch.nn.GRU) else torch.nn.RNNCell)(layer.input_size,
                                                                                      layer.hidden_size)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(layer, f"{name}_l0"))

    def step(x, h):
        with torch.no_grad():
            return cell(torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(h, dtype=torch.float32)).numpy()

    def embed(tokens):
        with torch.no_grad():
            return model.embed(torch.as_tensor(tokens)).numpy().astype(np.float64)

    return step, embed


def largest_solved(ks, accuracy, threshold: float = 0.9):
    """The largest k up to which every distance reaches `threshold` accuracy (None if even the first fails)."""
    best = None
    for k, a in zip(ks, accuracy):
        if a < threshold:
            break
        best = int(k)
    return best


def plot_recall(result: dict, ax=None, **kwargs):
    """Accuracy against distance k (log scale), one line per model, chance level dashed
    (from `recall_comparison`). kwargs go to `ax.plot`. Returns the Axes."""
    ax = plots.new_axes(ax, (6.4, 3.6))
    colors = {"rnn": plots.COLORS[1], "gru": plots.COLORS[2], "attention": plots.COLORS[0]}
    markers = {"rnn": "o", "gru": "s", "attention": "^"}
    for kind, acc in result["accuracy"].items():
        ax.plot(result["ks"], acc, marker=markers.get(kind, "o"), color=colors.get(kind), linewidth=2,
                label=i18n.t(MODEL_LABELS[kind]), **kwargs)
    plots.reference_line(ax, y=1 / N_SYMBOLS, label=i18n.t("rnn_lab.chance"))
    ax.set_xscale("log", base=2)
    ax.set_xticks(result["ks"], [str(k) for k in result["ks"]])
    ax.set_ylim(0, 1.05)
    plots.style_axes(ax, i18n.t("rnn_lab.distractors"), i18n.t("rnn_lab.accuracy"),
                     legend={"loc": "center left", "bbox_to_anchor": (1.01, 0.5)})
    return ax


# --- the cost table -----------------------------------------------------------------------------------
def layer_macs(kind: str, n: int, d: int) -> dict:
    """Multiply-adds of one layer over n positions of width d, term by term, and their total.

    rnn: per step x_t W_x and h_{t-1} W_h (two d x d products): input n d^2, recurrence n d^2.
    gru: three gates, each with both products: 6 n d^2.  lstm: four gates: 8 n d^2.
    attention (one head of width d): projections Q, K, V and the output W^O: 4 n d^2;
    scores Q K^T: n^2 d; weighted sum of the values: n^2 d.
    """
    n, d = positive_int(n, "n"), positive_int(d, "d")
    gates = {"rnn": 1, "gru": 3, "lstm": 4}
    if _kind(kind) == "attention":
        terms = {"projections": 4 * n * d * d, "scores": n * n * d, "mix": n * n * d}
    else:
        terms = {"input": gates[kind] * n * d * d, "recurrence": gates[kind] * n * d * d}
    return {**terms, "total": sum(terms.values())}


def crossover_length(d: int, recurrent: str = "gru", *, n_max: int = 1 << 20) -> int:
    """The smallest n at which one attention layer needs at least as many multiply-adds as a
    `recurrent` layer of the same width d (found by doubling, then bisection on `layer_macs`)."""
    _kind(recurrent, RECURRENT)
    more = lambda n: layer_macs("attention", n, d)["total"] >= layer_macs(recurrent, n, d)["total"]   # noqa: E731
    if more(1):
        return 1
    hi = 2
    while not more(hi):
        hi *= 2
        if hi > n_max:
            raise ValueError(f"recurrent: attention never catches up with {recurrent!r} below n = {n_max}")
    lo = hi // 2                                             # more(lo) is False, more(hi) is True
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if more(mid) else (mid, hi)
    return hi


def plot_macs(ds=(64, 512), ns=None, ax=None, **kwargs):
    """The growing terms of the table, n d^2 (recurrence) and n^2 d (attention scores), against n,
    log-log, for each width d; the crossover n = d marked. kwargs go to `ax.plot`. Returns the Axes."""
    ax = plots.new_axes(ax, (6.4, 3.8))
    ns = np.unique(np.round(np.logspace(3, 13, 61, base=2)).astype(int)) if ns is None else np.asarray(ns)
    for i, d in enumerate(ds):
        style = "-" if i == 0 else "--"
        ax.plot(ns, [layer_macs("rnn", n, d)["recurrence"] for n in ns], style, color=plots.COLORS[1],
                linewidth=2, label=i18n.t("rnn_lab.macs_rnn", d=d), **kwargs)
        ax.plot(ns, [layer_macs("attention", n, d)["scores"] for n in ns], style, color=plots.COLORS[0],
                linewidth=2, label=i18n.t("rnn_lab.macs_attention", d=d), **kwargs)
        ax.plot([d], [float(d) ** 3], "o", color="black", markersize=6)
        ax.annotate(f"n = d = {d}", (d, float(d) ** 3), textcoords="offset points", xytext=(8, -14),
                    fontsize=plots.FONT["tick"] - 1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plots.style_axes(ax, i18n.t("rnn_lab.length"), i18n.t("rnn_lab.macs"),
                     legend={"fontsize": plots.FONT["tick"] - 2, "loc": "upper left"})
    return ax
