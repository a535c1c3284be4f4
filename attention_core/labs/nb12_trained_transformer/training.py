"""Training of notebook 12's two models: the torch twin of `core.transformer`, seeded and
deterministic on the CPU, with a progress bar and a loss curve; writes data/models/<name>.npz + .json.

    python -m attention_core.labs.nb12_trained_transformer.training --overwrite-shipped   # all three (make train)
    python -m attention_core.labs.nb12_trained_transformer.training --sweep --overwrite-shipped   # make train-sweep
    python -m attention_core.labs.nb12_trained_transformer.training induction --steps 200 --out /tmp/m

The shipped models are replaced only on request (`--overwrite-shipped`, which `make train` passes);
any other run names its folder with `--out`. Every argument is checked before torch is imported, and
the manifest records the command line that made it.

The twin is the backend's `TorchDecoder` (`backends/torch_decoder.py`): it holds the SAME flat
parameters as the NumPy model (`parameter_shapes`: tok_emb, l0_w_q, ...), starts from the same
NumPy-seeded values (`init_decoder`) and computes with the backend's attention and layer norm, so its
trained weights load into `decoder_forward` unchanged (tests check the two forwards agree to 1e-5 in
float32). This module holds the recipes (CONFIGS), the batches and each task's loss; the loop, its
schedule and torch set-up are the library's one (`backends/torch_training.py`), the progress line is
`teaching/progress.py`, the files and the command-line checks `core/training.py`. torch is imported inside
the functions: the rest of the lab, and every notebook, works without it. Notebooks never train; they
load the committed files.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.training import (
    add_output_args,
    checked_names,
    decoder_config,
    manifest_config,
    output_dir,
    save_model,
    start_command,
    steps_arg,
)
from attention_core.core.validation import describe, positive_int
from attention_core.teaching.progress import Progress

from . import corpora, experiments
from . import model as model_mod

THREADS = 1                     # one thread: the same sums in the same order on every machine

# name -> architecture and schedule (d_model 32/64, 2 layers, 4 heads: small enough for a 2-core CPU)
CONFIGS = {
    # attention only (d_ff = 0), the classic setting: with a feed-forward layer (corpus 1, not rerun on
    # corpus 2), 3000 steps found a low loss without clean previous-token or induction heads.
    # Corpus 2 puts the repeat at random places, so the circuit must work at every position.
    "induction": dict(kind="induction", vocab_size=len(corpora.INDUCTION_VOCAB), d_model=64, n_heads=4,
                      n_layers=2, d_ff=0, max_len=corpora.INDUCTION_LEN, steps=3000, batch=64, lr=1e-3,
                      weight_decay=0.01, seed=0, check_steps=150, causal=True),
    # an ENCODER (no causal mask): the pronoun's own attention can read the adjective after it
    "coreference": dict(kind="coreference", vocab_size=len(corpora.coreference_vocab()), d_model=64, n_heads=4,
                        n_layers=2, d_ff=128, max_len=16, steps=1500, batch=128, lr=3e-3, weight_decay=0.01,
                        seed=0, check_steps=150, causal=False),
    # the same corpus read by a causal DECODER (sentence | pronoun, answered after the restated word): the
    # contrast of the notebook, whose pronoun cannot see the adjective that follows it
    "coreference_decoder": dict(kind="coreference", vocab_size=len(corpora.coreference_vocab()), d_model=48,
                                n_heads=2, n_layers=2, d_ff=96, max_len=18, steps=1500, batch=128, lr=3e-3,
                                weight_decay=0.01, seed=0, check_steps=150, causal=True),
}
# the same induction recipe from seed 3, the seed of the sweep that predicts the repeat without a clean
# previous-token + induction pair: shipped so that notebook 12 can measure its route
CONFIGS["induction_seed3"] = dict(CONFIGS["induction"], seed=3)
SWEEP_SEEDS = (0, 1, 2, 3, 4)              # `make train-sweep`: the induction recipe from each seed
DYNAMICS_EVERY = 50                        # induction: head scores and in-context loss logged every 50 steps
DYNAMICS_SEED, DYNAMICS_N = 777, 100       # on fixed fresh sequences (a seed the training stream never uses)
LOG_EVERY = 20
WARMUP = 100                               # steps of linear warm-up before the cosine (core.training.lr_factor)
COMMAND = "python -m attention_core.labs.nb12_trained_transformer.training"


# --- one training loop for both tasks -----------------------------------------------------------
def _coref_tensors(torch, examples, vocab, causal: bool = False):
    """(N, T_max) ids right-padded with `|`, (N,) lengths, (N,) index of the word where the model answers
    (an encoder: the query word; a decoder reads `sentence | query` and answers after the last word),
    (N,) answer ids."""
    index = {w: i for i, w in enumerate(vocab)}
    if causal:
        rows = [[index[w] for w in ex.tokens + (corpora.SEP, ex.query)] for ex in examples]
    else:
        rows = [[index[w] for w in ex.model_input()] for ex in examples]
    t = max(len(r) for r in rows)
    ids = np.full((len(rows), t), index[corpora.SEP], dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = r
    lengths = np.array([len(r) for r in rows])
    last = lengths - 1 if causal else np.array([ex.position for ex in examples])
    answers = np.array([index[ex.answer] for ex in examples])
    return torch.as_tensor(ids), torch.as_tensor(lengths), torch.as_tensor(last), torch.as_tensor(answers)


def padding_mask(lengths, t: int, n_layers: int) -> np.ndarray:
    """(N, L, T, T) boolean: every query may read the keys of its own sentence, never the padding (the
    per-layer form, so a batch of L sentences is never read as one mask per layer)."""
    keys = np.arange(t)[None, :] < np.asarray(lengths)[:, None]           # (N, T)
    return np.broadcast_to(keys[:, None, None, :], (len(keys), n_layers, t, t))


def _group_weights(examples) -> np.ndarray:
    """Sampling probabilities giving every (kind, language, role-crossing or not) group the same share of
    the batches (the role-crossing twins of fit and carry are groups of their own)."""
    keys = [(ex.kind, ex.lang, ex.crossed) for ex in examples]
    counts = {k: keys.count(k) for k in set(keys)}
    w = np.array([1.0 / counts[k] for k in keys])
    return w / w.sum()


def _dynamics_probe(torch, model):
    """A function step -> one row of training dynamics: the previous-token and induction scores of every
    head and the in-context loss / accuracy, on fixed fresh sequences at random places (no gradients)."""
    layout = experiments.random_layout(DYNAMICS_N, DYNAMICS_SEED)
    ids = torch.as_tensor(layout["ids"])

    def probe(step: int, train_loss: float) -> list:
        with torch.no_grad():
            logits, w = model(ids)
        sc = experiments.layout_head_scores(w.double().numpy(), layout)
        ic = experiments.in_context(layout=layout, logits=logits.double().numpy())
        return [step, round(train_loss, 5), round(ic["loss"], 4), round(ic["accuracy"], 4),
                np.round(sc["previous"], 4).tolist(), np.round(sc["induction"], 4).tolist()]
    return probe


def train(name: str, *, steps: int | None = None, stop_after: int | None = None, progress: bool = True,
          stream=None, command: str | None = None, seed: int | None = None) -> dict:
    """Train model `name` (a key of CONFIGS) and return {"weights", "manifest"} (nothing is written).

    stop_after: stop after this many steps of the full schedule and return {"step", "loss"} only
    (the manifest's "check" records the loss of the full run at its check_steps: a test reruns that).
    command: the command line the manifest records (default: the one that trains this name with these steps).
    seed: another seed for the same recipe (the seed sweep); default the config's."""
    if not isinstance(name, str) or name not in CONFIGS:
        raise ValueError(f"name: expected one of {tuple(CONFIGS)}, got {name!r}")
    cfg = dict(CONFIGS[name])
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")
        cfg["seed"] = int(seed)
    if steps is not None:
        steps = positive_int(steps, "steps")
    if stop_after is not None:
        stop_after = positive_int(stop_after, "stop_after")
    if not isinstance(progress, bool):
        raise TypeError(f"progress: expected True or False, got {describe(progress)}")
    if command is None:
        command = " ".join([COMMAND, name] + ([] if steps is None else ["--steps", str(steps)]))
    steps = cfg["steps"] if steps is None else steps
    import torch

    from attention_core.backends import to_torch_decoder, torch_training
    with torch_training.session(cfg["seed"], THREADS):
        rng = np.random.default_rng(cfg["seed"])
        config = decoder_config({"config": cfg})                        # the sizes of CONFIGS[name]
        init = tr.init_decoder(config, seed=rng)
        model = to_torch_decoder(init, config)
        dynamics, probe = [], None
        if cfg["kind"] == "coreference":
            vocab = corpora.coreference_vocab()
            split = corpora.coreference_split(seed=cfg["seed"])
            ids_all, len_all, pos_all, ans_all = _coref_tensors(torch, split.train, vocab, cfg["causal"])
            probs = _group_weights(split.train)
        else:
            vocab = corpora.INDUCTION_VOCAB
            probe = _dynamics_probe(torch, model)

        def one_step(step: int, opt):
            if cfg["kind"] == "induction":
                # T_max tokens: the model reads the first T_max - 1 and predicts each next one. (An earlier
                # run that read all T_max, from windows of T_max + 1, was noted to grow a duplicate-token
                # circuit instead; it was not rerun on corpus 2, and the notebook does not discuss it.)
                ids = torch.as_tensor(corpora.induction_batch(rng, cfg["batch"], cfg["max_len"]))
                logits, _ = model(ids[:, :-1])
                loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                         ids[:, 1:].reshape(-1))
            else:
                pick = rng.choice(len(ids_all), cfg["batch"], replace=False, p=probs)
                t = int(len_all[pick].max())
                mask = torch.as_tensor(padding_mask(len_all[pick].numpy(), t, cfg["n_layers"]).copy())
                logits, _ = model(ids_all[pick, :t], attn_mask=mask)
                final = logits[torch.arange(len(pick)), pos_all[pick]]          # (B, V) at the query word
                loss = torch.nn.functional.cross_entropy(final, ans_all[pick])
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        curve, check = [], {}

        def on_step(step: int, value: float) -> None:
            if step % LOG_EVERY == 0 or step == steps:
                curve.append([step, round(value, 5)])
            if probe is not None and (step % DYNAMICS_EVERY == 0 or step == 1):
                dynamics.append(probe(step, value))
            if step == cfg["check_steps"]:
                check["loss"] = value

        out = torch_training.train(one_step, model.parameters(), steps, lr=cfg["lr"],
                                   weight_decay=cfg["weight_decay"], warmup=WARMUP, log_every=LOG_EVERY,
                                   on_step=on_step, stop_after=stop_after,
                                   progress=Progress(name, mode="text", stream=stream or sys.stderr)
                                   if progress else None)
    if stop_after is not None:
        return {"step": out["last_step"], "loss": out["last_loss"]}
    check_loss = check.get("loss")
    seconds = out["seconds"]
    weights = model.numpy_weights()
    manifest = {
        "name": name, "command": command,
        "make": "make train", "seed": cfg["seed"], "corpus_version": corpora.corpus_version(cfg["kind"]),
        "steps": steps,
        "config": manifest_config(config, {k: cfg[k] for k in ("kind", "batch", "lr", "weight_decay")}),
        "vocab": list(vocab), "torch_version": torch.__version__, "threads": THREADS,
        "train_seconds": round(seconds, 1),
        "check": {"steps": cfg["check_steps"], "loss": None if check_loss is None else round(check_loss, 6)},
        "loss_curve": curve,
    }
    if dynamics:
        manifest["dynamics"] = {"every": DYNAMICS_EVERY, "seed": DYNAMICS_SEED, "n": DYNAMICS_N,
                                "columns": ["step", "train_loss", "in_context_loss", "in_context_accuracy",
                                            "previous (L, H)", "induction (L, H)"], "rows": dynamics}
    manifest["metrics"] = _final_metrics(name, weights, manifest)
    return {"weights": weights, "manifest": manifest}


def _final_metrics(name: str, weights: dict, manifest: dict) -> dict:
    """What the trained weights achieve, measured with the NumPy forward (the path notebooks use)."""
    m = model_mod.TrainedModel(name, weights, manifest)
    if manifest["config"]["kind"] == "induction":
        out = {"final_train_loss": manifest["loss_curve"][-1][1],
               "repeated_half_loss": round(experiments.repeated_half_loss(m), 4)}
        for k, v in experiments.circuit_summary(m).items():
            out[k] = round(v, 4) if isinstance(v, float) else v
        out["phase_change_step"] = experiments.phase_change(manifest)["step"]
        return out
    out = {"final_train_loss": manifest["loss_curve"][-1][1]}
    for k, v in experiments.coreference_metrics(m).items():
        out[k] = round(v, 4) if isinstance(v, float) else v
    return out


SWEEP_KEYS = ("best_previous_token_score", "best_induction_score", "n_induction_heads", "in_context_accuracy",
              "early_accuracy", "late_accuracy", "phase_change_step", "route")


def _sweep_row(seed: int) -> dict:
    """One row of the seed sweep (a top-level function, so that worker processes can run it)."""
    result = train("induction", seed=seed, progress=False)
    met = result["manifest"]["metrics"]
    return {"seed": seed, **{k: met[k] for k in SWEEP_KEYS}, "train_seconds": result["manifest"]["train_seconds"]}


def sweep(seeds=SWEEP_SEEDS, jobs: int = 1) -> dict:
    """The induction recipe from each seed: which seeds grow a previous-token + induction pair, which find
    another route (the table `make train-sweep` writes to data/models/induction_sweep.json). jobs > 1 trains
    that many seeds at once in worker processes (one thread each: the numbers do not depend on jobs)."""
    jobs = positive_int(jobs, "jobs")
    if jobs == 1:
        rows = [_sweep_row(seed) for seed in seeds]
    else:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            rows = list(pool.map(_sweep_row, seeds))
    note = (f"rows computed by training._sweep_row in one --sweep run ({jobs} seed(s) at once, one thread each); "
            "seeded and deterministic: train_seconds depend on the machine and its load, the other columns do not")
    return {"name": "induction_sweep", "command": f"{COMMAND} --sweep", "make": "make train-sweep",
            "corpus_version": corpora.CORPUS_VERSION, "config": CONFIGS["induction"], "seeds": list(seeds),
            "columns": list(SWEEP_KEYS), "note": note, "rows": rows}


def parse_args(argv) -> argparse.Namespace:
    """Every argument checked (names, steps, the output folder) before anything is trained or torch imported."""
    ap = argparse.ArgumentParser(prog=COMMAND, description="Train notebook 12's models (seeded, deterministic, CPU).")
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"models to train, of {list(CONFIGS)} (default: all of them)")
    ap.add_argument("--steps", type=steps_arg, default=None, help="override the number of steps (quick checks)")
    ap.add_argument("--jobs", type=steps_arg, default=1, help="--sweep: seeds trained at once (default 1)")
    ap.add_argument("--sweep", action="store_true",
                    help=f"train the induction recipe from each seed of {list(SWEEP_SEEDS)} and write the table "
                         "induction_sweep.json (what make train-sweep does)")
    add_output_args(ap, "<name>.npz and <name>.json")
    args = ap.parse_args(argv)
    if args.sweep and (args.names or args.steps is not None):
        ap.error("--sweep trains the full induction recipe from each seed: give it no names and no --steps")
    args.names = checked_names(ap, args.names, CONFIGS, "model name")
    args.out_dir = output_dir(ap, args)
    return args


def main(argv=None) -> int:
    args, command = start_command(parse_args, COMMAND, argv)    # the arguments checked before torch is looked for
    out = args.out_dir
    total = time.perf_counter()
    if args.sweep:
        table = sweep(jobs=args.jobs)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "induction_sweep.json"
        path.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        for row in table["rows"]:
            print(row)
        print(f"-> {path}; total {time.perf_counter() - total:.1f} s")
        return 0
    for name in args.names:
        result = train(name, steps=args.steps, command=command)
        npz, js = save_model(result, out)
        print(f"{name}: {result['manifest']['train_seconds']} s, metrics {result['manifest']['metrics']} -> {npz}")
    print(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
