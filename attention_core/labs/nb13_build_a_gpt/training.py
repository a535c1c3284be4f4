"""Training of notebook 13's two GPTs, with the learner's pieces or the library's: one readable loop.

    python -m attention_core.labs.nb13_build_a_gpt.training --overwrite-shipped   # both runs (make train)
    python -m attention_core.labs.nb13_build_a_gpt.training text --steps 50 --out /tmp/m

- "induction": repeated random letters, the repeat at a random position of the context (attention
  only, 2 layers x 4 heads): a previous-token head and an induction head grow within a minute.
- "text": the course's own prose, both languages, one token per character.

CONFIGS are the recipes the notebook trains live, on the learner's pieces (`run(name, parts.gpt_forward,
progress=Progress(...))`), each within a minute on a 2-core CPU (benchmarks/train_live.py holds what was tried
and its timings); the shipped runs are the recipes SHIPPED_RECIPES names on SHIPPED_SEED (the text run: the
longer recipe "text_long", nanoGPT's CPU recipe cut to 1,200 steps: several minutes on one thread), the
notebook's comparison and the fallback a learner loads when their run fails (`load_run`). `to_model` turns a run
into notebook 12's TrainedModel, so the learner's model is measured, ablated and sampled with the same tools.

`train` runs a forward function (the learner's `gpt_forward` in the notebook; for the shipped runs
`pieces.gpt_forward`, or `pieces.training_forward`, its fused-attention twin) through the library's one loop
(`backends/torch_training.py`: AdamW, a warm-up then cosine schedule, a validation loss every `log_every` steps,
seeded and deterministic on a fixed thread count, torch's settings restored afterwards), with a callback at each
logged step (a live curve) and a progress display after every step (`teaching/progress.py`). `make train`
reproduces the shipped manifests. The data (repeated letters, the course text, the bigram baseline) is
`data.py`; the files and command-line checks are `core/training.py`: the shipped runs live in
attention_core/data/models/nb13_<name>.npz + .json, the format of notebook 12's models, so notebook 12's
`from_files`, widgets and scores read them. torch is imported inside the functions.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.params import DecoderConfig
from attention_core.core.training import (  # the one schedule, file format and argument checks of the course
    add_output_args,
    checked_names,
    manifest_config,
    models_dir,
    output_dir,
    save_model,
    seed_arg,
    start_command,
    steps_arg,
)
from attention_core.core.validation import describe, positive_int
from attention_core.teaching.progress import Progress, time_text  # noqa: F401 -- the notebook's training.Progress

from . import corpus as corpus_mod
from . import experiments, pieces
from .data import (  # noqa: F401 -- the runs' data, also read as training.TextData, training.unigram_bias
    INDUCTION_VOCAB,
    REPEAT_MIN_LEN,
    TextData,
    repeat_at,
    repeat_batch,
    unigram_bias,
)

COMMAND = "python -m attention_core.labs.nb13_build_a_gpt.training"
RUN_NAMES = ("induction", "text")

CONFIGS = {
    "induction": dict(kind="induction", d_model=64, n_heads=4, n_layers=2, d_ff=0, max_len=32, steps=600,
                      batch=64, lr=3e-3, min_lr=0.0, beta2=0.999, weight_decay=0.01, seed=0, log_every=50, warmup=50,
                      threads=1, fused=False),
    "text": dict(kind="text", d_model=64, n_heads=4, n_layers=2, d_ff=256, max_len=64, steps=500, batch=16,
                 lr=6e-3, min_lr=0.0, beta2=0.999, weight_decay=0.01, seed=0, log_every=50, warmup=50, threads=1,
                 fused=True, unigram_bias=True, valid_tokens=2048),
    # nanoGPT's CPU model for character-level Shakespeare (4 layers x 4 heads, 128 wide, context 64, batch 12, beta2
    # 0.99, warm-up 100), 1,200 steps instead of its 2,000 (several minutes on one thread: the shipped run's manifest
    # records 467 s of wall time on a loaded 2-core machine), at 3e-3 instead of 1e-3 (at
    # 1e-3, 1,200 steps ended at 2.09 nats per English character): the text model `make train` ships (SHIPPED_RECIPES)
    # and notebook 13's optional LONG_RUN (benchmarks/train_live.py --long measures it)
    "text_long": dict(kind="text", d_model=128, n_heads=4, n_layers=4, d_ff=512, max_len=64, steps=1200, batch=12,
                      lr=3e-3, min_lr=0.1, beta2=0.99, weight_decay=0.01, seed=0, log_every=100, warmup=100,
                      threads=1, fused=True, unigram_bias=True, valid_tokens=2048),
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
SHIPPED_RECIPES = {"induction": "induction", "text": "text_long"}   # the recipe of each run make train ships


def shipped_recipe(name: str) -> dict:
    """The config `make train` trains run `name` with (SHIPPED_RECIPES; on SHIPPED_SEED)."""
    if not isinstance(name, str) or name not in SHIPPED_RECIPES:
        raise ValueError(f"name: expected one of {tuple(SHIPPED_RECIPES)}, got {name!r}")
    return CONFIGS[SHIPPED_RECIPES[name]]


def text_valid_ids(data: TextData, cfg: dict | None = None) -> np.ndarray:
    """(N, T + 1) the windows a text run's curve is validated on: about cfg["valid_tokens"] characters of each
    language's validation text (the same number of windows per language)."""
    cfg = CONFIGS["text"] if cfg is None else cfg
    per_lang = max(1, cfg["valid_tokens"] // cfg["max_len"])
    return np.concatenate([data.valid_windows(lang, cfg["max_len"], per_lang) for lang in corpus_mod.LANGS])


# --- the loop -------------------------------------------------------------------------------------------
def step(forward, params, ids, optimizer):
    """One training step on a batch of token windows ids (B, T + 1); returns the loss (a 0-d tensor)."""
    import torch
    logits = _logits_of(forward, params, ids[:, :-1])         # (B, T, V): a guess at every position
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
    optimizer.zero_grad()
    loss.backward()                                           # the gradient of every parameter
    optimizer.step()                                          # AdamW moves each one a little
    return loss


def _logits_of(forward, params, ids):
    """forward(params, ids)'s logits (B, T, V), checked: what came back is named when it is not that."""
    import torch
    try:
        out = forward(params, ids)
    except Exception as exc:
        exc.add_note(f"(in forward(params, ids), on a batch of token ids of shape {tuple(ids.shape)})")
        raise
    logits = out[0] if isinstance(out, tuple) and len(out) == 2 else None
    want = (*ids.shape, params.tok_emb.shape[0])
    if not isinstance(logits, torch.Tensor) or tuple(logits.shape) != want or not logits.is_floating_point():
        raise TypeError(f"forward: expected (logits, weights) with logits a float tensor of shape (B, T, V) = {want}, "
                        f"got {describe(out) if logits is None else 'logits ' + describe(logits)}")
    return logits


def train(forward, init: dict, n_heads: int, batches, steps: int, *, lr: float, weight_decay: float = 0.01,
          warmup: int = 50, log_every: int = 50, valid=None, callback=None, seed: int = 0,
          stop_after: int | None = None, threads: int | None = 1, min_lr: float = 0.0, beta2: float = 0.999,
          progress=None, step_fn=None) -> dict:
    """Train the flat weights `init` (name -> array) with `forward(params, ids) -> (logits, weights)`, through the
    library's one loop (backends.torch_training: AdamW, warm-up then cosine, seeded and deterministic).

    batches(step) -> (B, T + 1) ids: the model reads the first T and predicts each next one.
    valid(params) -> a validation loss (called every log_every steps and at the end), or None.
    callback(record) after each logged step: {"step", "steps", "train", "loss", "valid", "seconds"}.
    progress(record) after every step: {"step", "steps", "loss", "seconds", "valid" (the latest, or None)}
    (a Progress display; it decides itself how often to redraw).
    stop_after: stop after this many steps of the schedule (a test reruns the start of a shipped run).
    threads: torch's thread count for the run (restored afterwards, as the deterministic mode; None: as it is).
    step_fn(forward, params, ids, optimizer) -> loss: one step (default `step`; the notebook passes the learner's).
    Returns {"weights": {name: float32 array}, "curve": [[step, train, valid], ...], "seconds"}."""
    import torch

    from attention_core.backends import torch_training
    torch_training.check_knobs(steps=steps, lr=lr, weight_decay=weight_decay, beta2=beta2, warmup=warmup,
                               min_lr=min_lr, log_every=log_every, stop_after=stop_after)
    one_step = step if step_fn is None else step_fn
    if not callable(one_step) or not callable(forward) or not callable(batches):
        raise TypeError("forward, batches, step_fn: expected functions (see train's docstring)")
    with torch_training.session(seed, threads):
        flat = {k: torch.tensor(np.asarray(v), dtype=torch.float32, requires_grad=True) for k, v in init.items()}
        params = pieces.params_from_tensors(flat, n_heads)
        out = torch_training.train(
            lambda i, opt: one_step(forward, params, torch.as_tensor(batches(i)), opt), flat.values(), steps,
            lr=lr, weight_decay=weight_decay, beta2=beta2, warmup=warmup, min_lr=min_lr, log_every=log_every,
            evaluate=None if valid is None else (lambda: valid(params)), on_log=callback, progress=progress,
            stop_after=stop_after)
    weights = {k: t.detach().numpy().astype(np.float32).copy() for k, t in flat.items()}
    return {"weights": weights, "curve": out["curve"], "seconds": out["seconds"]}


def model_loss(forward, params, windows) -> float:
    """Mean cross-entropy (nats per token) of forward on (N, T + 1) windows, in chunks of 16."""
    import torch
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(windows), 16):
            ids = torch.as_tensor(windows[i:i + 16])
            logits = _logits_of(forward, params, ids[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                                                     reduction="sum")
            total += float(loss)
            n += ids[:, 1:].numel()
    return total / n


def recipe(name: str, **changes) -> dict:
    """The config of run `name` with `changes` (keys of CONFIGS[name] only): what a run trains with."""
    if not isinstance(name, str) or name not in CONFIGS:
        raise ValueError(f"name: expected one of {tuple(CONFIGS)}, got {name!r}")
    unknown = sorted(set(changes) - set(CONFIGS[name]))
    if unknown:
        raise ValueError(f"recipe: unknown key(s) {unknown}; expected keys of {sorted(CONFIGS[name])}")
    return {**CONFIGS[name], **changes}


def _check_run_args(name, cfg, *, forward, data, stop_after, callback, progress, step_fn, metrics) -> None:
    """Every knob of a run checked before torch starts, each error naming the argument (or the recipe's key)."""
    for arg, fn in (("forward", forward), ("callback", callback), ("progress", progress), ("step_fn", step_fn)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{arg}: expected a function or None, got {describe(fn)}")
    if not isinstance(metrics, bool):
        raise TypeError(f"metrics: expected True or False, got {describe(metrics)}")
    if data is not None and not isinstance(data, TextData):
        raise TypeError(f"data: expected None or a TextData (training.TextData(text)), got {describe(data)}")
    if stop_after is not None:
        positive_int(stop_after, "stop_after")
    for key in ("batch", "log_every", "valid_tokens", "warmup", "threads"):
        if key in cfg and not (key == "threads" and cfg[key] is None):
            positive_int(cfg[key], f"config[{key!r}]", minimum=0 if key == "warmup" else 1)
    from attention_core.backends.torch_training import check_knobs  # imports torch: a run needs it anyway
    check_knobs(steps=cfg["steps"], lr=cfg["lr"], weight_decay=cfg["weight_decay"], beta2=cfg["beta2"],
                warmup=cfg["warmup"], min_lr=cfg["min_lr"], log_every=cfg["log_every"])
    if name == "induction" and cfg["max_len"] + 1 < REPEAT_MIN_LEN:
        raise ValueError(f"config['max_len']: the induction run's sequences hold a segment of up to 16 letters twice, "
                         f"so max_len must be at least {REPEAT_MIN_LEN - 1}, got {cfg['max_len']}")


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
    steps = cfg["steps"] if steps is None else positive_int(steps, "steps")
    seed = cfg["seed"] if seed is None else positive_int(seed, "seed", minimum=0)
    _check_run_args(name, cfg, forward=forward, data=data, stop_after=stop_after, callback=callback,
                    progress=progress, step_fn=step_fn, metrics=metrics)
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
    config = DecoderConfig(vocab_size=len(vocab), d_model=cfg["d_model"], n_heads=cfg["n_heads"],
                           n_layers=cfg["n_layers"], d_ff=cfg["d_ff"], max_len=cfg["max_len"])
    init = tr.init_decoder(config, seed=rng)
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
        "config": manifest_config(config, {k: cfg[k] for k in RECORDED}
                                  | {"unigram_bias": bool(cfg.get("unigram_bias"))}),
        "vocab": vocab, "torch_version": torch.__version__, "threads": cfg["threads"],
        "forward": f"pieces.{forward.__name__}" if library else "given",
        "train_seconds": round(out["seconds"], 1), "loss_curve": out["curve"], **extra,
    }
    result = {"weights": out["weights"], "manifest": manifest, "curve": out["curve"], "seconds": out["seconds"]}
    if metrics:
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


# --- files ----------------------------------------------------------------------------------------------
def load_run(name: str, folder=None):
    """A shipped run as notebook 12's TrainedModel (params, manifest, vocab; kind "induction" works with
    notebook 12's scores and widgets)."""
    from attention_core.labs.nb12_trained_transformer.model import from_files
    if not isinstance(name, str) or name not in RUN_NAMES:
        raise ValueError(f"name: expected one of {RUN_NAMES}, got {name!r}")
    base = models_dir() if folder is None else Path(folder)
    return from_files(base / f"nb13_{name}.npz", base / f"nb13_{name}.json")


def corpus_file(folder=None) -> Path:
    """Where the text run keeps the corpus it was trained on, beside its weights."""
    return (models_dir() if folder is None else Path(folder)) / "nb13_text_corpus.json"


def save_run_corpus(data: TextData, out_dir) -> Path:
    """Freeze the text the text run learned from: its validation split and bigram baseline stay the run's own
    when the course's markdown (and so the live export, data/course_text.json) changes later."""
    path = corpus_file(out_dir)
    frozen = {"version": corpus_mod.VERSION, "sha256": data.sha256,
              "note": "the course text notebook 13's text run was trained on (a copy of data/course_text.json "
                      "at training time; make train writes both)"}
    frozen.update({lang: data.texts[lang] for lang in corpus_mod.LANGS})
    path.write_text(json.dumps(frozen, ensure_ascii=False, indent=0), encoding="utf-8")   # JSON as save_model's
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
    add_output_args(ap, "nb13_<name>.npz and .json")
    args = ap.parse_args(argv)
    args.names = checked_names(ap, args.names, RUN_NAMES, "run name")
    args.out_dir = output_dir(ap, args)
    return args


def main(argv=None) -> int:
    args, command = start_command(parse_args, COMMAND, argv)    # the arguments checked before torch is looked for
    total = time.perf_counter()
    for name in args.names:
        data = TextData() if name == "text" else None
        result = run(name, steps=args.steps, seed=args.seed, config=shipped_recipe(name), command=command, data=data,
                     progress=Progress(f"nb13 {name}"))
        npz, _ = save_model(result, args.out_dir)
        if data is not None:
            save_run_corpus(data, args.out_dir)
        print(f"nb13 {name}: {result['manifest']['train_seconds']} s, metrics {result['manifest']['metrics']} -> {npz}")
    print(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
