"""The one training loop, in torch: notebook 12's `make train`, notebook 13's shipped runs and its live run.

    with session(seed=0, threads=1):                   # seeded, deterministic, a fixed thread count
        out = train(step_fn, parameters, steps, lr=3e-3, warmup=50, log_every=50, evaluate=valid, progress=bar)

AdamW with a linear warm-up then a cosine down to min_lr (core.training.lr_factor); step_fn(i, optimizer) does one
step on batch i (forward, loss, zero_grad, backward, optimizer.step) and returns its loss, so each caller keeps
its own batches and loss (next-token prediction, or the answer at one position). Every step: the loss checked
to be finite, the schedule stepped, on_step(i, loss) and progress(record). Every log_every steps (and the
last): evaluate() under no_grad and on_log(record). torch's thread count and deterministic mode are restored
when a session ends, so a notebook's kernel is left as it was (its global seed is not: the seed is the run's).
"""
from __future__ import annotations

import contextlib
import math
import numbers
import time

import numpy as np
import torch

from attention_core.core.training import lr_factor
from attention_core.core.validation import describe, positive_int


@contextlib.contextmanager
def session(seed: int, threads: int | None = 1):
    """torch seeded with `seed`, deterministic algorithms on, `threads` threads (None: as it is); the thread
    count and the deterministic mode are put back afterwards, also when the run fails."""
    seed = positive_int(seed, "seed", minimum=0)
    if threads is not None:
        threads = positive_int(threads, "threads")
    before = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
              torch.is_deterministic_algorithms_warn_only_enabled())
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield torch
    finally:
        torch.set_num_threads(before[0])
        torch.use_deterministic_algorithms(before[1], warn_only=before[2])


def _number(x, name: str, *, low: float, high: float = math.inf, low_open: bool = False) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {describe(x)}")
    value = float(x)
    if not (math.isfinite(value) and (value > low if low_open else value >= low) and value <= high):
        bound = f"> {low}" if low_open else f">= {low}"
        raise ValueError(f"{name}: expected a finite number {bound}" + (f" and <= {high}" if high < math.inf else "")
                         + f", got {value}")
    return value


def check_knobs(*, steps, lr, weight_decay=0.01, beta2=0.999, warmup=50, min_lr=0.0, log_every=50,
                stop_after=None) -> dict:
    """The loop's settings checked, each error naming its argument (also the callers' front door)."""
    return {"steps": positive_int(steps, "steps"), "lr": _number(lr, "lr", low=0.0, low_open=True),
            "weight_decay": _number(weight_decay, "weight_decay", low=0.0),
            "beta2": _number(beta2, "beta2", low=0.0, high=1.0 - 1e-12),
            "warmup": positive_int(warmup, "warmup", minimum=0), "min_lr": _number(min_lr, "min_lr", low=0.0, high=1.0),
            "log_every": positive_int(log_every, "log_every"),
            "stop_after": None if stop_after is None else positive_int(stop_after, "stop_after")}


def train(step_fn, parameters, steps: int, *, lr: float, weight_decay: float = 0.01, beta2: float = 0.999,
          warmup: int = 50, min_lr: float = 0.0, log_every: int = 50, evaluate=None, on_log=None, on_step=None,
          progress=None, stop_after: int | None = None) -> dict:
    """Train `parameters` (tensors with requires_grad) for `steps` steps; run it inside `session`.

    step_fn(i, optimizer) -> the loss of step i (1-based) as a 0-d tensor, after its update.
    evaluate() -> a validation loss, every log_every steps and at the last (no gradients), or None.
    on_log(record) at those steps: {"step", "steps", "train" (mean loss since the last log), "loss" (this step's),
    "valid" (or None), "seconds"}. on_step(i, loss) after every step. progress(record) after every step:
    {"step", "steps", "loss", "valid" (the latest), "seconds", "logged"}. stop_after: stop after that step.
    Returns {"curve": [[step, train, valid], ...], "seconds", "last_step", "last_loss"}."""
    knobs = check_knobs(steps=steps, lr=lr, weight_decay=weight_decay, beta2=beta2, warmup=warmup, min_lr=min_lr,
                        log_every=log_every, stop_after=stop_after)
    steps, log_every, warmup, min_lr = knobs["steps"], knobs["log_every"], knobs["warmup"], knobs["min_lr"]
    parameters = list(parameters)
    if not parameters or not all(isinstance(p, torch.Tensor) and p.requires_grad for p in parameters):
        raise TypeError("parameters: expected tensors with requires_grad=True (what the optimiser moves)")
    opt = torch.optim.AdamW(parameters, lr=knobs["lr"], weight_decay=knobs["weight_decay"], betas=(0.9, knobs["beta2"]))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, steps, warmup, min_lr))
    curve, recent, valid, value, i = [], [], None, math.nan, 0
    start = time.perf_counter()
    for i in range(1, steps + 1):
        loss = step_fn(i, opt)
        if not isinstance(loss, torch.Tensor) or loss.ndim != 0:
            raise TypeError(f"step_fn: expected the batch's loss as a 0-d tensor, got {describe(loss)}")
        value = float(loss.detach())
        if not math.isfinite(value):
            raise FloatingPointError(f"step {i}: the loss is {value}; lower the learning rate (lr={knobs['lr']:g})")
        sched.step()
        recent.append(value)
        if on_step is not None:
            on_step(i, value)
        logged = i % log_every == 0 or i == steps
        if logged:
            if evaluate is not None:
                with torch.no_grad():
                    valid = float(evaluate())
            rec = {"step": i, "steps": steps, "train": float(np.mean(recent)), "loss": value, "valid": valid,
                   "seconds": time.perf_counter() - start}
            recent = []
            curve.append([i, round(rec["train"], 5), None if valid is None else round(valid, 5)])
            if on_log is not None:
                on_log(rec)
        if progress is not None:
            progress({"step": i, "steps": steps, "loss": value, "valid": valid,
                      "seconds": time.perf_counter() - start, "logged": logged})
        if knobs["stop_after"] is not None and i == knobs["stop_after"]:
            break
    return {"curve": curve, "seconds": time.perf_counter() - start, "last_step": i, "last_loss": value}
