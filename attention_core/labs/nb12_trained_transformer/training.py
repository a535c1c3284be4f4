"""Training of notebook 12's two models: the torch twin of `core.transformer`, seeded and
deterministic on the CPU, with a progress bar and a loss curve; writes data/models/<name>.npz + .json.

    python -m attention_core.labs.nb12_trained_transformer.training --overwrite-shipped   # both (make train)
    python -m attention_core.labs.nb12_trained_transformer.training induction --steps 200 --out /tmp/m

The shipped models are replaced only on request (`--overwrite-shipped`, which `make train` passes);
any other run names its folder with `--out`. Every argument is checked before torch is imported, and
the manifest records the command line that made it.

The twin is the backend's `TorchDecoder` (`backends/torch_decoder.py`): it holds the SAME flat
parameters as the NumPy model (`parameter_shapes`: tok_emb, l0_w_q, ...), starts from the same
NumPy-seeded values (`init_decoder`) and computes with the backend's attention and layer norm, so its
trained weights load into `decoder_forward` unchanged (tests check the two forwards agree to 1e-5 in
float32). This module holds only the data, the loop and the files. torch is imported inside the
functions: the rest of the lab, and every notebook, works without it. Notebooks never train; they
load the committed files.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.validation import positive_int

from . import corpora

THREADS = 1                     # one thread: the same sums in the same order on every machine

# name -> architecture and schedule (d_model 32/64, 2 layers, 4 heads: small enough for a 2-core CPU)
CONFIGS = {
    # attention only (d_ff = 0), the classic setting: with a feed-forward layer, 3000 steps found a
    # bag-of-tokens solution without clean heads (repeated-half loss 0.33, no head above 0.15)
    "induction": dict(kind="induction", vocab_size=len(corpora.INDUCTION_VOCAB), d_model=64, n_heads=4,
                      n_layers=2, d_ff=0, max_len=corpora.INDUCTION_LEN, steps=3000, batch=64, lr=1e-3,
                      weight_decay=0.01, seed=0, check_steps=150),
    "coreference": dict(kind="coreference", vocab_size=len(corpora.coreference_vocab()), d_model=48, n_heads=2,
                        n_layers=2, d_ff=96, max_len=16, steps=1200, batch=128, lr=3e-3, weight_decay=0.01,
                        seed=0, check_steps=150),
}
LOG_EVERY = 20
COMMAND = "python -m attention_core.labs.nb12_trained_transformer.training"


# --- the torch twin ---------------------------------------------------------------------------
def torch_decoder(weights: dict, n_heads: int):
    """The backend's TorchDecoder holding `weights` (flat name -> array) as parameters of the same
    names (`backends.torch_decoder`: the library's attention and layer norm, tested equal to
    decoder_forward)."""
    from attention_core.backends import to_torch_decoder
    return to_torch_decoder(weights, n_heads)


def _setup_torch(seed: int):
    import torch
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(THREADS)
    return torch


class Progress:
    """A one-line progress bar on stderr: [#####.....] step/steps loss elapsed."""

    def __init__(self, total: int, label: str, stream=None, width: int = 30):
        self.total, self.label, self.width = total, label, width
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()

    def update(self, step: int, loss: float) -> None:
        done = int(self.width * step / self.total)
        bar = "#" * done + "." * (self.width - done)
        self.stream.write(f"\r{self.label:<12} [{bar}] {step:>5}/{self.total} loss {loss:.4f} "
                          f"{time.perf_counter() - self.start:5.1f}s")
        if step == self.total:
            self.stream.write("\n")
        self.stream.flush()


# --- one training loop for both tasks -----------------------------------------------------------
def _coref_tensors(torch, examples, vocab):
    """(N, T_max) ids right-padded with the separator (a causal model never reads the padding),
    (N,) index of the last real token, (N,) answer ids."""
    index = {w: i for i, w in enumerate(vocab)}
    rows = [[index[w] for w in ex.model_input()] for ex in examples]
    t = max(len(r) for r in rows)
    ids = np.full((len(rows), t), index[corpora.SEP], dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = r
    last = np.array([len(r) - 1 for r in rows])
    answers = np.array([index[ex.answer] for ex in examples])
    return torch.as_tensor(ids), torch.as_tensor(last), torch.as_tensor(answers)


def train(name: str, *, steps: int | None = None, stop_after: int | None = None, progress: bool = True,
          stream=None, command: str | None = None) -> dict:
    """Train model `name` (a key of CONFIGS) and return {"weights", "manifest"} (nothing is written).

    stop_after: stop after this many steps of the full schedule and return {"step", "loss"} only
    (the manifest's "check" records the loss of the full run at its check_steps: a test reruns that).
    command: the command line the manifest records (default: the one that trains this name with these steps)."""
    if name not in CONFIGS:
        raise ValueError(f"name: expected one of {tuple(CONFIGS)}, got {name!r}")
    cfg = dict(CONFIGS[name])
    if steps is not None:
        steps = positive_int(steps, "steps")
    if stop_after is not None:
        stop_after = positive_int(stop_after, "stop_after")
    if command is None:
        command = " ".join([COMMAND, name] + ([] if steps is None else ["--steps", str(steps)]))
    steps = cfg["steps"] if steps is None else steps
    torch = _setup_torch(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    init = tr.init_decoder(cfg["vocab_size"], cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["d_ff"],
                           cfg["max_len"], seed=rng)
    model = torch_decoder(init, cfg["n_heads"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(                           # warm up, then cosine down
        opt, lambda s: min(1.0, (s + 1) / 100) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    if cfg["kind"] == "coreference":
        vocab = corpora.coreference_vocab()
        split = corpora.coreference_split(seed=cfg["seed"])
        ids_all, last_all, ans_all = _coref_tensors(torch, split.train, vocab)
    else:
        vocab = corpora.INDUCTION_VOCAB
    bar = Progress(steps, name, stream) if progress else None
    curve, check_loss = [], None
    start = time.perf_counter()
    for step in range(1, steps + 1):
        if cfg["kind"] == "induction":
            # T_max tokens: the model reads the first T_max - 1 and predicts each next one. (Reading
            # all T_max, from T_max + 1 tokens, found a duplicate-token circuit instead: see the notebook.)
            ids = torch.as_tensor(corpora.induction_batch(rng, cfg["batch"], cfg["max_len"]))
            logits, _ = model(ids[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        else:
            pick = torch.as_tensor(rng.choice(len(ids_all), cfg["batch"], replace=False))
            logits, _ = model(ids_all[pick])
            final = logits[torch.arange(len(pick)), last_all[pick]]        # (B, V) after the query word
            loss = torch.nn.functional.cross_entropy(final, ans_all[pick])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        value = float(loss.detach())
        if step % LOG_EVERY == 0 or step == steps:
            curve.append([step, round(value, 5)])
            if bar:
                bar.update(step, value)
        if step == cfg["check_steps"]:
            check_loss = value
        if stop_after is not None and step == stop_after:
            return {"step": step, "loss": value}
    seconds = time.perf_counter() - start
    weights = model.numpy_weights()
    manifest = {
        "name": name, "command": command,
        "make": "make train", "seed": cfg["seed"], "corpus_version": corpora.CORPUS_VERSION, "steps": steps,
        "config": {k: cfg[k] for k in ("kind", "vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "max_len",
                                       "batch", "lr", "weight_decay")},
        "vocab": list(vocab), "torch_version": torch.__version__, "threads": THREADS,
        "train_seconds": round(seconds, 1),
        "check": {"steps": cfg["check_steps"], "loss": None if check_loss is None else round(check_loss, 6)},
        "loss_curve": curve,
    }
    manifest["metrics"] = _final_metrics(name, weights, manifest)
    return {"weights": weights, "manifest": manifest}


def _final_metrics(name: str, weights: dict, manifest: dict) -> dict:
    """What the trained weights achieve, measured with the NumPy forward (the path notebooks use)."""
    from . import experiments
    from . import model as model_mod
    m = model_mod.TrainedModel(name, weights, manifest)
    if manifest["config"]["kind"] == "induction":
        scores = experiments.head_scores(m)
        return {"final_train_loss": manifest["loss_curve"][-1][1],
                "repeated_half_loss": round(experiments.repeated_half_loss(m), 4),
                "best_induction_score": round(float(scores["induction"].max()), 4),
                "best_previous_token_score": round(float(scores["previous"].max()), 4)}
    acc = experiments.coreference_accuracy(m)
    return {"final_train_loss": manifest["loss_curve"][-1][1], **{k: round(v, 4) for k, v in acc.items()}}


def save(result: dict, out_dir) -> tuple[Path, Path]:
    """Write <name>.npz (float32 arrays) and <name>.json (the manifest) into out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    name = result["manifest"]["name"]
    npz, js = out_dir / f"{name}.npz", out_dir / f"{name}.json"
    np.savez_compressed(npz, **{k: np.asarray(v, np.float32) for k, v in result["weights"].items()})
    js.write_text(json.dumps(result["manifest"], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return npz, js


def default_out_dir() -> Path:
    """data/models of the source tree (training is a developer's step; the notebooks read package data)."""
    import attention_core.data as data
    return Path(data.__file__).resolve().parent / "models"


def _steps(text: str) -> int:
    """--steps: an integer >= 1 (argparse turns this ValueError into a usage error, not a traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def parse_args(argv) -> argparse.Namespace:
    """Every argument checked (names, steps, the output folder) before anything is trained or torch imported."""
    ap = argparse.ArgumentParser(prog=COMMAND, description="Train notebook 12's models (seeded, deterministic, CPU).")
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"models to train, of {list(CONFIGS)} (default: both)")
    ap.add_argument("--steps", type=_steps, default=None, help="override the number of steps (quick checks)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--out", default=None, help="output folder for <name>.npz and <name>.json")
    where.add_argument("--overwrite-shipped", action="store_true",
                       help="replace the shipped models in the package's data/models (what make train does)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in CONFIGS]
    if unknown:
        ap.error(f"unknown model name(s) {unknown}: expected names of {list(CONFIGS)}")
    args.names = list(dict.fromkeys(args.names)) or list(CONFIGS)
    if args.out is None and not args.overwrite_shipped:
        ap.error(f"say where to write: --out DIR for a new run, or --overwrite-shipped to replace the shipped "
                 f"models in {default_out_dir()} (make train does that)")
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
    command = " ".join([COMMAND, *map(shlex.quote, argv)])
    out = args.out_dir
    total = time.perf_counter()
    for name in args.names:
        result = train(name, steps=args.steps, command=command)
        npz, js = save(result, out)
        print(f"{name}: {result['manifest']['train_seconds']} s, metrics {result['manifest']['metrics']} -> {npz}")
    print(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
