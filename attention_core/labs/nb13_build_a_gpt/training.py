"""Training of notebook 13's two GPTs, with the learner's pieces or the library's: one readable loop.

    python -m attention_core.labs.nb13_build_a_gpt.training --overwrite-shipped   # both runs (make train)
    python -m attention_core.labs.nb13_build_a_gpt.training text --steps 50 --out /tmp/m

- "induction": repeated random letters, the repeat at a random position of the context (attention
  only, 2 layers x 4 heads): a previous-token head and an induction head grow within a minute.
- "text": the course's own prose, both languages, one token per character.

CONFIGS are the recipes the notebook trains live, on the learner's pieces (`run(name, parts.gpt_forward,
progress=Progress(...))`), each within a minute on a 2-core CPU (benchmarks/train_live.py holds what was tried
and its timings); the shipped runs are the same recipes on SHIPPED_SEED, the notebook's comparison and the
fallback a learner loads when their run fails (`load_run`). `to_model` turns a run into notebook 12's
TrainedModel, so the learner's model is measured, ablated and sampled with the same tools.

The loop (`train`) takes the forward function to train (the learner's `gpt_forward` in the notebook;
for the shipped runs `pieces.gpt_forward`, or `pieces.training_forward`, its fused-attention twin), AdamW,
a warm-up then cosine schedule, a validation loss every `log_every` steps, a callback at each logged step (a live
curve) and a progress display after every step (`Progress`: a bar, the loss, steps per second and the time left;
an ipywidgets bar in a kernel, plain text elsewhere). Seeded, a fixed thread count per run (one: on two shared
cores a second thread made each step several times slower), deterministic algorithms: `make train` reproduces
the shipped manifests. The shipped runs live in attention_core/data/models/nb13_<name>.npz + .json (the
manifests of notebook 12's kind, so notebook 12's `from_files`, widgets and scores read them). torch is imported
inside the functions.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from importlib import resources
from pathlib import Path

import numpy as np

from attention_core.core import transformer as tr
from attention_core.labs.nb12_trained_transformer.training import (  # one file format for both notebooks' models
    default_out_dir,
    save,
    seed_arg,
    steps_arg,
)

from . import corpus as corpus_mod
from . import pieces

COMMAND = "python -m attention_core.labs.nb13_build_a_gpt.training"
INDUCTION_VOCAB = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")          # notebook 12's letters
RUN_NAMES = ("induction", "text")

CONFIGS = {
    "induction": dict(kind="induction", d_model=64, n_heads=4, n_layers=2, d_ff=0, max_len=32, steps=600,
                      batch=64, lr=3e-3, min_lr=0.0, beta2=0.999, weight_decay=0.01, seed=0, log_every=50, warmup=50,
                      threads=1, fused=False),
    "text": dict(kind="text", d_model=64, n_heads=4, n_layers=2, d_ff=256, max_len=64, steps=500, batch=16,
                 lr=6e-3, min_lr=0.0, beta2=0.999, weight_decay=0.01, seed=0, log_every=50, warmup=50, threads=1,
                 fused=True, unigram_bias=True, valid_tokens=2048),
}
# The live recipes (benchmarks/train_live.py and benchmarks/README.md hold what was tried): the induction run's heads
# form at about step 275 with lr 3e-3 (6e-3 and 1e-2 stayed on the plateau for 400-500 steps; batch 32 had not left
# it at 600); the text run reads 64 characters, not 256 (a step of 16 x 64 costs a third of one of 8 x 256 and
# its perplexities end further under the bigram's). threads: torch's thread count, one (a fixed count gives the same
# sums in the same order on every machine; on two shared cores a second thread made steps several times slower).
# fused: the shipped run trains pieces.training_forward (the fused attention kernel) instead of pieces.gpt_forward;
# the two give equal logits.
# unigram_bias: the output bias starts at each character's log-frequency in the training text (see run).
# min_lr: the cosine ends at this share of lr. valid_tokens: the text run's validation windows hold about this many
# characters per language.
RECORDED = ("kind", "d_model", "n_heads", "n_layers", "d_ff", "max_len", "batch", "lr", "min_lr", "beta2",
            "weight_decay", "warmup")                                  # the config keys a manifest records
SHIPPED_SEED = 1                  # make train: the live recipe on another seed (the notebook's comparison)


# --- data -----------------------------------------------------------------------------------------------
def repeat_batch(rng: np.random.Generator, batch: int, length: int, min_n: int = 6, max_n: int = 16) -> np.ndarray:
    """(B, length) random letters holding a segment of n distinct letters (n in min_n..max_n) twice: the
    first copy at a random position, the second at a random later one (never overlapping)."""
    v = len(INDUCTION_VOCAB)
    out = rng.integers(0, v, (batch, length))
    for row in out:
        n = int(rng.integers(min_n, max_n + 1))
        seg = rng.permutation(v)[:n]
        a = int(rng.integers(0, length - 2 * n + 1))             # first copy
        b = int(rng.integers(a + n, length - n + 1))             # second copy, after the first
        row[a:a + n] = seg
        row[b:b + n] = seg
    return out


def repeat_at(rng: np.random.Generator, n_seq: int, length: int, start: int, half: int) -> np.ndarray:
    """(N, length) random letters with `half` distinct letters at start .. start + half - 1, repeated right
    after (the evaluation sequences: the repeat moved to every position of the context)."""
    v = len(INDUCTION_VOCAB)
    out = rng.integers(0, v, (n_seq, length))
    for row in out:
        seg = rng.permutation(v)[:half]
        row[start:start + half] = seg
        row[start + half:start + 2 * half] = seg
    return out


class TextData:
    """The course text as ids: train and validation parts per language, windows of length + 1."""

    def __init__(self, corpus: dict | None = None, chars=None):
        """chars: the vocabulary to encode with (a trained model's; default every character of the corpus)."""
        corpus = corpus_mod.load_corpus() if corpus is None else corpus
        self.tokenizer = (corpus_mod.CharTokenizer.from_corpus(corpus) if chars is None
                          else corpus_mod.CharTokenizer(chars))
        self.sha256 = corpus["sha256"]
        self.texts = {lang: corpus[lang] for lang in corpus_mod.LANGS}
        self.train, self.valid = {}, {}
        for lang in corpus_mod.LANGS:
            a, b = corpus_mod.split(corpus[lang])
            try:
                self.train[lang] = np.array(self.tokenizer.encode(a), dtype=np.int64)
                self.valid[lang] = np.array(self.tokenizer.encode(b), dtype=np.int64)
            except ValueError as exc:
                raise ValueError(f"{exc}: the corpus export has characters the model never saw; retrain it "
                                 "(make train)") from None

    def batch(self, rng: np.random.Generator, batch: int, length: int) -> np.ndarray:
        """(B, length + 1) windows of the training text, each language in proportion to its length."""
        langs = corpus_mod.LANGS
        sizes = np.array([len(self.train[lang]) for lang in langs], dtype=float)
        which = rng.choice(len(langs), batch, p=sizes / sizes.sum())
        rows = []
        for w in which:
            ids = self.train[langs[w]]
            s = int(rng.integers(0, len(ids) - length - 1))
            rows.append(ids[s:s + length + 1])
        return np.stack(rows)

    def valid_windows(self, lang: str, length: int, limit: int | None = None) -> np.ndarray:
        """(N, length + 1) non-overlapping windows of the validation text of `lang`."""
        ids = self.valid[lang]
        n = (len(ids) - 1) // length
        rows = np.stack([ids[i * length:i * length + length + 1] for i in range(n)])
        return rows if limit is None else rows[:limit]

    def bigram(self, lang: str, length: int) -> dict:
        """The bigram baseline on exactly the pairs the model is scored on (the validation windows)."""
        return self.bigram_of(self.valid_windows(lang, length))

    def bigram_of(self, win: np.ndarray) -> dict:
        """The bigram baseline on the next-character pairs of windows (N, T + 1): {"loss", "perplexity", "alpha"},
        with the add-alpha smoothing that suits these pairs best."""
        if not hasattr(self, "_counts"):                  # n(a, b) over the training text of both languages
            v = len(self.tokenizer)
            pairs = np.concatenate([self.train[lg][:-1] * v + self.train[lg][1:] for lg in corpus_mod.LANGS])
            self._counts = np.bincount(pairs, minlength=v * v).reshape(v, v).astype(np.float64)
            self._row = self._counts.sum(axis=1)
        prev, nxt = win[:, :-1].ravel(), win[:, 1:].ravel()
        best = None
        for alpha in (0.003, 0.01, 0.03, 0.1, 0.3, 1.0):
            p = (self._counts[prev, nxt] + alpha) / (self._row[prev] + alpha * len(self.tokenizer))
            loss = float(-np.log(p).mean())
            if best is None or loss < best["loss"]:
                best = {"loss": loss, "perplexity": math.exp(loss), "alpha": alpha}
        return best


def text_valid_ids(data: TextData, cfg: dict | None = None) -> np.ndarray:
    """(N, T + 1) the windows a text run's curve is validated on: about cfg["valid_tokens"] characters of each
    language's validation text (the same number of windows per language)."""
    cfg = CONFIGS["text"] if cfg is None else cfg
    per_lang = max(1, cfg["valid_tokens"] // cfg["max_len"])
    return np.concatenate([data.valid_windows(lang, cfg["max_len"], per_lang) for lang in corpus_mod.LANGS])


def unigram_bias(data: TextData) -> np.ndarray:
    """(V,) the log-frequency of each character in the training text (add-one counts): an output bias that
    starts the model as the unigram model, so the first steps are not spent learning how common each
    character is (the text run starts there; without it, its 600 steps end above the bigram baseline)."""
    counts = np.bincount(np.concatenate(list(data.train.values())), minlength=len(data.tokenizer)) + 1.0
    return np.log(counts / counts.sum())


# --- the loop -------------------------------------------------------------------------------------------
def step(forward, params, ids, optimizer):
    """One training step on a batch of token windows ids (B, T + 1); returns the loss (a 0-d tensor)."""
    import torch
    logits, _ = forward(params, ids[:, :-1])                  # (B, T, V): a guess at every position
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
    optimizer.zero_grad()
    loss.backward()                                           # the gradient of every parameter
    optimizer.step()                                          # AdamW moves each one a little
    return loss


def setup_torch(seed: int, threads: int | None = 1):
    """Seed torch, ask for deterministic algorithms and set its thread count (None: leave it as it is)."""
    import torch
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    if threads is not None:
        torch.set_num_threads(threads)
    return torch


def lr_factor(step: int, steps: int, warmup: int, min_lr: float = 0.0) -> float:
    """The learning rate of step `step` (0-based) as a share of the peak: a linear warm-up over `warmup`
    steps, then a cosine from 1 down to `min_lr` at the last step."""
    cos = 0.5 * (1 + math.cos(math.pi * min(step, steps) / steps))
    return min(1.0, (step + 1) / max(1, warmup)) * (min_lr + (1 - min_lr) * cos)


def train(forward, init: dict, n_heads: int, batches, steps: int, *, lr: float, weight_decay: float = 0.01,
          warmup: int = 50, log_every: int = 50, valid=None, callback=None, seed: int = 0,
          stop_after: int | None = None, threads: int | None = 1, min_lr: float = 0.0, beta2: float = 0.999,
          progress=None, step_fn=None) -> dict:
    """Train the flat weights `init` (name -> array) with `forward(params, ids) -> (logits, weights)`.

    batches(step) -> (B, T + 1) ids: the model reads the first T and predicts each next one.
    valid(params) -> a validation loss (called every log_every steps and at the end), or None.
    callback(record) after each logged step: {"step", "steps", "train", "valid", "seconds"}.
    progress(record) after every step: {"step", "steps", "loss", "seconds", "valid" (the latest, or None)}
    (a Progress display; it decides itself how often to redraw).
    stop_after: stop after this many steps of the schedule (a test reruns the start of a shipped run).
    threads: torch's thread count for the run (restored afterwards; None: leave it as it is).
    step_fn(forward, params, ids, optimizer) -> loss: one step (default `step`; the notebook passes the learner's).
    Returns {"weights": {name: float32 array}, "curve": [[step, train, valid], ...], "seconds"}."""
    import torch
    before = torch.get_num_threads()
    setup_torch(seed, threads)
    try:
        flat = {k: torch.tensor(np.asarray(v), dtype=torch.float32, requires_grad=True) for k, v in init.items()}
        params = pieces.params_from_tensors(flat, n_heads)
        opt = torch.optim.AdamW(list(flat.values()), lr=lr, weight_decay=weight_decay, betas=(0.9, beta2))
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, steps, warmup, min_lr))
        curve, start, recent, v = [], time.perf_counter(), [], None
        one_step = step if step_fn is None else step_fn
        for i in range(1, steps + 1):
            ids = torch.as_tensor(batches(i))                                         # (B, T + 1)
            loss = one_step(forward, params, ids, opt)
            if not isinstance(loss, torch.Tensor) or loss.ndim != 0:
                raise TypeError(f"step_fn: expected the batch's loss as a 0-d tensor, got {type(loss).__name__}")
            value = float(loss.detach())
            if not math.isfinite(value):
                raise FloatingPointError(f"step {i}: the loss is {value}; lower the learning rate")
            sched.step()
            recent.append(value)
            logged = i % log_every == 0 or i == steps
            if logged:
                if valid is not None:
                    with torch.no_grad():
                        v = float(valid(params))
                rec = {"step": i, "steps": steps, "train": float(np.mean(recent)), "valid": v,
                       "seconds": time.perf_counter() - start}
                recent = []
                curve.append([i, round(rec["train"], 5), None if v is None else round(v, 5)])
                if callback is not None:
                    callback(rec)
            if progress is not None:
                progress({"step": i, "steps": steps, "loss": value, "valid": v,
                          "seconds": time.perf_counter() - start, "logged": logged})
            if stop_after is not None and i == stop_after:
                break
        weights = {k: t.detach().numpy().astype(np.float32).copy() for k, t in flat.items()}
        return {"weights": weights, "curve": curve, "seconds": time.perf_counter() - start}
    finally:
        torch.set_num_threads(before)


def model_loss(forward, params, windows) -> float:
    """Mean cross-entropy (nats per token) of forward on (N, T + 1) windows, in chunks of 16."""
    import torch
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(windows), 16):
            ids = torch.as_tensor(windows[i:i + 16])
            logits, _ = forward(params, ids[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                                                     reduction="sum")
            total += float(loss)
            n += ids[:, 1:].numel()
    return total / n


def recipe(name: str, **changes) -> dict:
    """The config of run `name` with `changes` (keys of CONFIGS[name] only): what a run trains with."""
    if name not in CONFIGS:
        raise ValueError(f"name: expected one of {tuple(CONFIGS)}, got {name!r}")
    unknown = sorted(set(changes) - set(CONFIGS[name]))
    if unknown:
        raise ValueError(f"recipe: unknown key(s) {unknown}; expected keys of {sorted(CONFIGS[name])}")
    return {**CONFIGS[name], **changes}


def run(name: str, forward=None, *, steps: int | None = None, seed: int | None = None, config: dict | None = None,
        callback=None, progress=None, data: TextData | None = None, stop_after: int | None = None,
        metrics: bool = True, command: str | None = None, step_fn=None) -> dict:
    """One of the two runs with its config: {"weights", "manifest", "curve", "seconds"} (nothing written).
    forward: what to train, forward(params, ids) -> (logits, weights) (the learner's `parts.gpt_forward` in the
    notebook; default: the library's pieces, pieces.training_forward where the config says fused). Either way the
    run uses the config's thread count (torch's own is restored afterwards).
    seed: default the config's (the live run's; the shipped run is the same recipe on SHIPPED_SEED).
    config: the recipe to use instead of CONFIGS[name] (see `recipe`; the benchmarks try others).
    progress: called after every step (a Progress display); callback: after every logged step.
    stop_after: return {"curve"} after that many steps of the full schedule. metrics=False: skip the final
    measurements (a live run: the manifest then has no "metrics"). command: the command line the manifest records
    (main passes its own, argv included; default: the one that trains this name with these steps and seed).
    step_fn: one training step, as `step` (the notebook passes the learner's own)."""
    cfg = recipe(name) if config is None else recipe(name, **config)
    steps = cfg["steps"] if steps is None else int(steps)
    seed = cfg["seed"] if seed is None else int(seed)
    library = forward is None         # the library's pieces, as make train ships them
    if library:
        forward = pieces.training_forward if cfg["fused"] else pieces.gpt_forward
    rng = np.random.default_rng(seed)
    if name == "induction":
        vocab = list(INDUCTION_VOCAB)
        batches = lambda step: repeat_batch(rng, cfg["batch"], cfg["max_len"] + 1)   # noqa: E731
        valid_ids = repeat_batch(np.random.default_rng(999), 64, cfg["max_len"] + 1)
        extra = {}
    else:
        data = TextData() if data is None else data
        vocab = list(data.tokenizer.chars)
        batches = lambda step: data.batch(rng, cfg["batch"], cfg["max_len"])           # noqa: E731
        valid_ids = text_valid_ids(data, cfg)
        extra = {"corpus_sha256": data.sha256, "corpus_version": corpus_mod.VERSION}
    valid = lambda params: model_loss(forward, params, valid_ids)                     # noqa: E731
    init = tr.init_decoder(len(vocab), cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["d_ff"], cfg["max_len"],
                           seed=rng)
    if cfg.get("unigram_bias"):
        init["b_out"] = unigram_bias(data).astype(init["b_out"].dtype)
    # A short run (a test's, or a quick check) logs about ten times, so its curve has points to draw.
    log_every = cfg["log_every"] if steps >= cfg["steps"] else max(1, min(cfg["log_every"], steps // 10))
    out = train(forward, init, cfg["n_heads"], batches, steps, lr=cfg["lr"], weight_decay=cfg["weight_decay"],
                warmup=cfg["warmup"], log_every=log_every, valid=valid, callback=callback, seed=seed,
                stop_after=stop_after, threads=cfg["threads"], min_lr=cfg["min_lr"], beta2=cfg["beta2"],
                progress=progress, step_fn=step_fn)
    if stop_after is not None:
        return {"curve": out["curve"]}
    import torch
    if command is None:
        command = " ".join([COMMAND, name] + ([] if steps == cfg["steps"] else ["--steps", str(steps)])
                           + ([] if seed == SHIPPED_SEED else ["--seed", str(seed)]))
    manifest = {
        "name": f"nb13_{name}", "command": command,
        "make": "make train", "seed": seed, "steps": steps,
        "config": {k: cfg[k] for k in RECORDED} | {"unigram_bias": bool(cfg.get("unigram_bias")),
                                                   "vocab_size": len(vocab)},
        "vocab": vocab, "torch_version": torch.__version__, "threads": cfg["threads"],
        "forward": f"pieces.{forward.__name__}" if library else "given",
        "train_seconds": round(out["seconds"], 1), "loss_curve": out["curve"], **extra,
    }
    result = {"weights": out["weights"], "manifest": manifest, "curve": out["curve"], "seconds": out["seconds"]}
    if metrics:
        from . import experiments
        manifest["metrics"] = experiments.final_metrics(name, result, data=data)
    return result


def to_model(result: dict):
    """A run's result (run's {"weights", "manifest"}) as notebook 12's TrainedModel: the learner's trained model,
    measured, ablated and sampled with the same tools as a shipped run (load_run)."""
    from attention_core.labs.nb12_trained_transformer.model import TrainedModel
    if not isinstance(result, dict) or "weights" not in result or "manifest" not in result:
        raise TypeError("result: expected what training.run returns (a dict with 'weights' and 'manifest'), got "
                        f"{type(result).__name__}")
    man = result["manifest"]
    return TrainedModel(man["name"], result["weights"], man)


# --- the progress display -----------------------------------------------------------------------------
def _in_kernel() -> bool:
    """True inside a Jupyter kernel (where a widget or a display handle can be redrawn in place)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def time_text(seconds: float, lang: str | None = None) -> str:
    """12 s, 1 min 05 s: a time left, in whole seconds."""
    from attention_core.teaching import i18n
    n = max(0, int(round(seconds)))
    if n < 60:
        return i18n.t("nb13.live_seconds", lang, n=n)
    return i18n.t("nb13.live_minutes", lang, m=n // 60, s=n % 60)


class Progress:
    """A training run's progress, redrawn in place: a bar, the step, the loss (a running mean of the last steps),
    the latest validation loss, steps per second and the time left. Pass it to `run` (or `train`) as progress=.

    mode: "widget" (an ipywidgets bar with the line beside it), "display" (the line as text, updated in place
    through an IPython display handle), "text" (plain lines: a line redrawn with a carriage return in a terminal,
    one line per logged step in a log file) or None: the display line inside a Jupyter kernel (its last state is what
    a saved notebook shows, on a code host too), plain text elsewhere. every: redraw at most every `every` seconds
    (and always at a logged step and at the end). The record of the last step is kept in `last`; `lines` holds
    every line written in text mode."""

    MODES = ("widget", "display", "text")

    def __init__(self, label: str = "", *, mode: str | None = None, every: float = 0.25, stream=None,
                 lang: str | None = None, smoothing: float = 0.9):
        from attention_core.teaching import i18n
        self.lang = i18n.resolve_language(lang)
        if mode is None:                  # in a kernel, a line redrawn in place: a saved notebook keeps its last state
            mode = "display" if _in_kernel() else "text"
        if mode not in self.MODES:
            raise ValueError(f"mode: expected one of {self.MODES} or None, got {mode!r}")
        if isinstance(every, bool) or not isinstance(every, (int, float)) or not every >= 0:
            raise ValueError(f"every: expected seconds >= 0 between redraws, got {every!r}")
        self.label, self.mode, self.every, self.smoothing = str(label), mode, float(every), float(smoothing)
        self.stream = sys.stdout if stream is None else stream
        self.last, self.lines, self.loss = None, [], None
        self._drawn_at, self._view, self._tty = -math.inf, None, bool(getattr(self.stream, "isatty", lambda: False)())

    # the text, a pure function of the record
    def line(self, rec: dict) -> str:
        """The progress line of one record {"step", "steps", "loss", "valid", "seconds"}."""
        from attention_core.teaching import i18n
        step, steps, seconds = rec["step"], rec["steps"], max(rec["seconds"], 1e-9)
        rate = step / seconds
        valid = "-" if rec.get("valid") is None else f"{rec['valid']:.3f}"
        loss = rec["loss"] if self.loss is None else self.loss
        if step >= steps:
            text = i18n.t("nb13.live_done", self.lang, steps=steps, seconds=seconds, rate=rate, loss=loss, valid=valid)
        else:
            text = i18n.t("nb13.live_line", self.lang, step=step, steps=steps, loss=loss, valid=valid, rate=rate,
                          left=time_text((steps - step) / rate, self.lang))
        return f"{self.label} {text}".strip()

    def bar(self, rec: dict, width: int = 24) -> str:
        done = int(width * rec["step"] / rec["steps"])
        return f"[{'#' * done}{'.' * (width - done)}]"

    def __call__(self, rec: dict) -> None:
        """One step's record (train calls this after every step)."""
        a = self.smoothing
        self.loss = rec["loss"] if self.loss is None else a * self.loss + (1 - a) * rec["loss"]
        self.last = rec
        final = rec["step"] >= rec["steps"]
        now = time.perf_counter()
        if not (final or rec.get("logged") or now - self._drawn_at >= self.every):
            return
        self._drawn_at = now
        self.draw(rec)

    def draw(self, rec: dict) -> None:
        final = rec["step"] >= rec["steps"]
        text = self.line(rec)
        if self.mode in ("widget", "display"):
            if self.mode == "widget":
                self._widget(rec, text)
            else:
                self._display(f"{self.bar(rec)} {text}")
            if final and self.mode == "widget":      # the result as text too: a saved widget shows nothing
                print(text, file=self.stream, flush=True)
                self.lines.append(text)
        elif self._tty:                                    # a terminal: one line, redrawn
            self.stream.write(f"\r{self.bar(rec)} {text}\x1b[K" + ("\n" if final else ""))
            self.stream.flush()
            self.lines.append(text)
        elif final or rec.get("logged"):                   # a log: one line per logged step
            print(f"{self.bar(rec)} {text}", file=self.stream, flush=True)
            self.lines.append(text)

    def _widget(self, rec, text) -> None:
        import html

        import ipywidgets as widgets
        if self._view is None:
            from IPython.display import display
            bar = widgets.IntProgress(value=0, min=0, max=rec["steps"], description=self.label,
                                      layout=widgets.Layout(width="40%"),
                                      style={"description_width": "initial"})
            words = widgets.HTML()
            self._view = (bar, words)
            display(widgets.HBox([bar, words]))
        bar, words = self._view
        bar.max, bar.value = rec["steps"], rec["step"]
        if rec["step"] >= rec["steps"]:
            bar.bar_style = "success"
        words.value = f"<code>{html.escape(text)}</code>"

    def _display(self, text) -> None:
        import html

        from IPython.display import HTML, display
        shown = HTML(f"<pre>{html.escape(text)}</pre>")
        if self._view is None:
            self._view = display(shown, display_id=True)
        else:
            self._view.update(shown)


# --- files ----------------------------------------------------------------------------------------------
def load_run(name: str, folder=None):
    """A shipped run as notebook 12's TrainedModel (params, manifest, vocab; kind "induction" works with
    notebook 12's scores and widgets)."""
    from attention_core.labs.nb12_trained_transformer.model import from_files
    if name not in RUN_NAMES:
        raise ValueError(f"name: expected one of {RUN_NAMES}, got {name!r}")
    if folder is None:
        base = resources.files("attention_core.data") / "models"
        npz, js = Path(str(base / f"nb13_{name}.npz")), Path(str(base / f"nb13_{name}.json"))
    else:
        npz, js = Path(folder) / f"nb13_{name}.npz", Path(folder) / f"nb13_{name}.json"
    return from_files(npz, js)


def corpus_file(folder=None) -> Path:
    """Where the text run keeps the corpus it was trained on, beside its weights."""
    base = resources.files("attention_core.data") / "models" if folder is None else Path(folder)
    return Path(str(base / "nb13_text_corpus.json"))


def save_run_corpus(data: TextData, out_dir) -> Path:
    """Freeze the text the text run learned from: its validation split and bigram baseline stay the run's own
    when the course's markdown (and so the live export, data/course_text.json) changes later."""
    path = corpus_file(out_dir)
    frozen = {"version": corpus_mod.VERSION, "sha256": data.sha256,
              "note": "the course text notebook 13's text run was trained on (a copy of data/course_text.json "
                      "at training time; make train writes both)"}
    frozen.update({lang: data.texts[lang] for lang in corpus_mod.LANGS})
    path.write_text(json.dumps(frozen, ensure_ascii=False, indent=0), encoding="utf-8")   # as save() writes its json
    return path


def run_corpus(run, folder=None) -> dict:
    """The corpus a text run was trained on (see save_run_corpus), checked against the run's manifest."""
    path = corpus_file(folder)
    try:
        frozen = json.loads(path.read_text(encoding="utf-8"))
        texts = {lang: frozen[lang] for lang in corpus_mod.LANGS}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise FileNotFoundError(f"{path}: the text run's training corpus is missing or damaged ({exc}); "
                                "run `make train`") from None
    want = run.manifest.get("corpus_sha256")
    if corpus_mod.corpus_sha(texts) != frozen.get("sha256") or frozen.get("sha256") != want:
        raise ValueError(f"{path}: its text does not match the run's manifest (corpus_sha256 {want}); "
                         "run `make train` to retrain the text run and freeze its corpus again")
    return {**texts, "sha256": frozen["sha256"]}


def parse_args(argv) -> argparse.Namespace:
    """Every argument checked (names, steps, the output folder) before anything is trained or torch imported
    (notebook 12's rules: --out DIR or --overwrite-shipped)."""
    ap = argparse.ArgumentParser(prog=COMMAND,
                                 description="Train notebook 13's GPTs (seeded, deterministic, CPU).")
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"runs to train, of {list(RUN_NAMES)} (default: both)")
    ap.add_argument("--steps", type=steps_arg, default=None, help="override the number of steps (quick checks)")
    ap.add_argument("--seed", type=seed_arg, default=SHIPPED_SEED,
                    help=f"the seed (default {SHIPPED_SEED}, the shipped runs'; the notebook's live runs use "
                         f"{CONFIGS['induction']['seed']})")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--out", default=None, help="output folder for nb13_<name>.npz and .json")
    where.add_argument("--overwrite-shipped", action="store_true",
                       help="replace the shipped runs in the package's data/models (what make train does)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in RUN_NAMES]
    if unknown:
        ap.error(f"unknown run name(s) {unknown}: expected names of {list(RUN_NAMES)}")
    args.names = list(dict.fromkeys(args.names)) or list(RUN_NAMES)
    if args.out is None and not args.overwrite_shipped:
        ap.error(f"say where to write: --out DIR for a new run, or --overwrite-shipped to replace the shipped runs in "
                 f"{default_out_dir()} (make train does that)")
    out = default_out_dir() if args.overwrite_shipped else Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        ap.error(f"--out: {out} exists and is not a folder")
    parent = next((p for p in (out, *out.parents) if p.exists()), None)
    if parent is None or not os.access(parent, os.W_OK):
        ap.error(f"--out: cannot write into {out} ({parent} is not writable)")
    args.out_dir = out
    return args


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    try:
        import torch  # noqa: F401 -- checked here, after the arguments, so a typo never waits for torch
    except ImportError:
        raise SystemExit("training needs torch: pip install torch==2.13.0 (the CPU wheel is enough)") from None
    command = " ".join([COMMAND, *map(shlex.quote, argv)])          # the command line, as typed
    total = time.perf_counter()
    for name in args.names:
        data = TextData() if name == "text" else None
        result = run(name, steps=args.steps, seed=args.seed, command=command, data=data,
                     progress=Progress(f"nb13 {name}"))
        npz, _ = save(result, args.out_dir)
        if data is not None:
            save_run_corpus(data, args.out_dir)
        print(f"nb13 {name}: {result['manifest']['train_seconds']} s, metrics {result['manifest']['metrics']} -> {npz}")
    print(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
