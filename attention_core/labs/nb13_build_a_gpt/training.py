"""Training of notebook 13's two GPTs, with the learner's pieces or the library's: one readable loop.

    python -m attention_core.labs.nb13_build_a_gpt.training --overwrite-shipped   # both runs (make train)
    python -m attention_core.labs.nb13_build_a_gpt.training text --steps 50 --out /tmp/m

- "induction": repeated random letters, the repeat at a random position of the context (attention
  only, 2 layers x 4 heads): a previous-token head and an induction head grow within a minute.
- "text": the course's own prose, both languages, one token per character (context 256).

The loop (`train`) takes the forward function to train (the learner's `gpt_forward` in the notebook;
for the shipped runs `pieces.gpt_forward`, or `pieces.training_forward`, its fused-attention twin), AdamW,
a warm-up then cosine schedule, a validation loss every `log_every` steps and a callback for the notebook's
progress line and live curve. Seeded, a fixed thread count per run, deterministic algorithms: `make train`
reproduces the shipped manifests. The shipped runs live in attention_core/data/models/nb13_<name>.npz + .json
(the manifests of notebook 12's kind, so notebook 12's `from_files`, widgets and scores read them). torch is
imported inside the functions.
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
    steps_arg,
)

from . import corpus as corpus_mod
from . import pieces

COMMAND = "python -m attention_core.labs.nb13_build_a_gpt.training"
INDUCTION_VOCAB = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")          # notebook 12's letters
RUN_NAMES = ("induction", "text")

CONFIGS = {
    "induction": dict(kind="induction", d_model=64, n_heads=4, n_layers=2, d_ff=0, max_len=32, steps=1500,
                      batch=64, lr=3e-3, weight_decay=0.01, seed=0, log_every=50, warmup=100, threads=1, fused=False),
    "text": dict(kind="text", d_model=64, n_heads=4, n_layers=2, d_ff=256, max_len=256, steps=600, batch=8,
                 lr=6e-3, weight_decay=0.01, seed=0, log_every=50, warmup=50, threads=2, fused=True,
                 unigram_bias=True),
}
# threads: torch's thread count (a fixed count gives the same sums in the same order on every machine with that
# many cores). fused: the shipped run trains pieces.training_forward (the fused attention kernel; the text run's
# 256 x 256 weights are most of its time) instead of pieces.gpt_forward; the two give equal logits.
# unigram_bias: the output bias starts at each character's log-frequency in the training text (see run).
SHORT_STEPS = {"induction": 100, "text": 24}                      # the notebook's live runs (seconds each)


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
        win = self.valid_windows(lang, length)
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


def unigram_bias(data: TextData) -> np.ndarray:
    """(V,) the log-frequency of each character in the training text (add-one counts): an output bias that
    starts the model as the unigram model, so the first steps are not spent learning how common each
    character is (the text run starts there; without it, its 600 steps end above the bigram baseline)."""
    counts = np.bincount(np.concatenate(list(data.train.values())), minlength=len(data.tokenizer)) + 1.0
    return np.log(counts / counts.sum())


# --- the loop -------------------------------------------------------------------------------------------
def setup_torch(seed: int, threads: int | None = 1):
    """Seed torch, ask for deterministic algorithms and set its thread count (None: leave it as it is)."""
    import torch
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    if threads is not None:
        torch.set_num_threads(threads)
    return torch


def train(forward, init: dict, n_heads: int, batches, steps: int, *, lr: float, weight_decay: float = 0.01,
          warmup: int = 50, log_every: int = 50, valid=None, callback=None, seed: int = 0,
          stop_after: int | None = None, threads: int | None = 1) -> dict:
    """Train the flat weights `init` (name -> array) with `forward(params, ids) -> (logits, weights)`.

    batches(step) -> (B, T + 1) ids: the model reads the first T and predicts each next one.
    valid(params) -> a validation loss (called every log_every steps and at the end), or None.
    callback(record) after each logged step: {"step", "steps", "train", "valid", "seconds"}.
    stop_after: stop after this many steps of the schedule (a test reruns the start of a shipped run).
    Returns {"weights": {name: float32 array}, "curve": [[step, train, valid], ...], "seconds"}."""
    torch = setup_torch(seed, threads)
    flat = {k: torch.tensor(np.asarray(v), dtype=torch.float32, requires_grad=True) for k, v in init.items()}
    params = pieces.params_from_tensors(flat, n_heads)
    opt = torch.optim.AdamW(list(flat.values()), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    curve, start, recent = [], time.perf_counter(), []
    for step in range(1, steps + 1):
        ids = torch.as_tensor(batches(step))
        logits, _ = forward(params, ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        recent.append(float(loss.detach()))
        if step % log_every == 0 or step == steps:
            v = None
            if valid is not None:
                with torch.no_grad():
                    v = float(valid(params))
            rec = {"step": step, "steps": steps, "train": float(np.mean(recent)), "valid": v,
                   "seconds": time.perf_counter() - start}
            recent = []
            curve.append([step, round(rec["train"], 5), None if v is None else round(v, 5)])
            if callback is not None:
                callback(rec)
        if stop_after is not None and step == stop_after:
            break
    weights = {k: t.detach().numpy().astype(np.float32).copy() for k, t in flat.items()}
    return {"weights": weights, "curve": curve, "seconds": time.perf_counter() - start}


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


def run(name: str, forward=None, *, steps: int | None = None, callback=None, data: TextData | None = None,
        stop_after: int | None = None, metrics: bool = True, command: str | None = None) -> dict:
    """One of the two runs with its config: {"weights", "manifest"} (nothing written).
    forward: what to train (default: the library's pieces, pieces.training_forward where the config says
    fused, with the config's thread count; a forward passed in trains on torch's current thread count).
    stop_after: return {"curve"} after that many steps of the full schedule. metrics=False: skip the final
    measurements (a live run); the result then holds "weights" and "curve". command: the command line the
    manifest records (main passes its own, argv included; default: the one that trains this name with
    these steps)."""
    if name not in CONFIGS:
        raise ValueError(f"name: expected one of {tuple(CONFIGS)}, got {name!r}")
    cfg = dict(CONFIGS[name])
    steps = cfg["steps"] if steps is None else int(steps)
    shipped = forward is None         # the run make train ships: its config's forward and thread count
    if shipped:
        forward = pieces.training_forward if cfg["fused"] else pieces.gpt_forward
    rng = np.random.default_rng(cfg["seed"])
    if name == "induction":
        vocab = list(INDUCTION_VOCAB)
        batches = lambda step: repeat_batch(rng, cfg["batch"], cfg["max_len"] + 1)   # noqa: E731
        valid_ids = repeat_batch(np.random.default_rng(999), 64, cfg["max_len"] + 1)
        valid = lambda params: model_loss(forward, params, valid_ids)                 # noqa: E731
        extra = {}
    else:
        data = TextData() if data is None else data
        vocab = list(data.tokenizer.chars)
        batches = lambda step: data.batch(rng, cfg["batch"], cfg["max_len"])           # noqa: E731
        valid_ids = np.concatenate([data.valid_windows(lang, cfg["max_len"], 8) for lang in corpus_mod.LANGS])
        valid = lambda params: model_loss(forward, params, valid_ids)                 # noqa: E731
        extra = {"corpus_sha256": data.sha256, "corpus_version": corpus_mod.VERSION}
    init = tr.init_decoder(len(vocab), cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["d_ff"], cfg["max_len"],
                           seed=rng)
    if cfg.get("unigram_bias"):
        init["b_out"] = unigram_bias(data).astype(init["b_out"].dtype)
    # A short run (the notebook's live one) logs about ten times, so its curve has points to draw.
    log_every = cfg["log_every"] if steps >= cfg["steps"] else max(1, min(cfg["log_every"], steps // 10))
    out = train(forward, init, cfg["n_heads"], batches, steps, lr=cfg["lr"], weight_decay=cfg["weight_decay"],
                warmup=cfg["warmup"], log_every=log_every, valid=valid, callback=callback, seed=cfg["seed"],
                stop_after=stop_after, threads=cfg["threads"] if shipped else None)
    if stop_after is not None:
        return {"curve": out["curve"]}
    if not metrics:
        return {"weights": out["weights"], "curve": out["curve"], "seconds": out["seconds"]}
    import torch
    if command is None:
        command = " ".join([COMMAND, name] + ([] if steps == cfg["steps"] else ["--steps", str(steps)]))
    manifest = {
        "name": f"nb13_{name}", "command": command,
        "make": "make train", "seed": cfg["seed"], "steps": steps,
        "config": {k: cfg[k] for k in ("kind", "d_model", "n_heads", "n_layers", "d_ff", "max_len", "batch", "lr",
                                       "weight_decay", "warmup")} | {"unigram_bias": bool(cfg.get("unigram_bias")),
                                                                "vocab_size": len(vocab)},
        "vocab": vocab, "torch_version": torch.__version__,
        "threads": cfg["threads"] if shipped else torch.get_num_threads(),
        "forward": f"pieces.{forward.__name__}" if shipped else "given",
        "train_seconds": round(out["seconds"], 1), "loss_curve": out["curve"], **extra,
    }
    result = {"weights": out["weights"], "manifest": manifest}
    from . import experiments
    manifest["metrics"] = experiments.final_metrics(name, result, data=data)
    return result


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
        result = run(name, steps=args.steps, command=command, data=data)
        npz, _ = save(result, args.out_dir)
        if data is not None:
            save_run_corpus(data, args.out_dir)
        print(f"nb13 {name}: {result['manifest']['train_seconds']} s, metrics {result['manifest']['metrics']} -> {npz}")
    print(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
