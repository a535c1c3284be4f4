"""What a training run needs besides torch: the learning-rate schedule, the model files, the command line.

    lr_factor(step, steps, warmup=50)        # the share of the peak learning rate at `step` (warm-up, cosine)
    save_model(result, out_dir)             # <name>.npz (float32 weights) + <name>.json (the manifest)
    read_weights(npz), read_manifest(json)   # checked, with errors that name the file and what is wrong
    int_arg("3000"), output_dir(parser, args) # the training CLIs' argument checks, before torch is imported

The model-file format, once for every trained model of the course: <name>.npz holds the flat float32 weights
(names of `parameter_shapes`: tok_emb, l0_w_q, ...), never pickled; <name>.json is the manifest, a JSON object
with at least "name", "config" (the model's DecoderConfig, `manifest_config`: vocab_size, d_model, n_heads,
n_layers, d_ff, max_len, causal; the training recipe beside them) and "vocab" (the token of each id), plus what
the run recorded (command, seed, steps, loss curve, metrics). The loop itself is torch's: backends/torch_training.py.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shlex
import sys
import zipfile
import zlib
from importlib import resources
from pathlib import Path

import numpy as np

from .params import DecoderConfig
from .validation import describe

FIX = "retrain it with `make train` or restore it with `git checkout`"


class ModelFileError(ValueError):
    """A model file that cannot be read (truncated, not an .npz or JSON, missing arrays or keys); the
    message names the file and what is wrong with it."""


# --- the schedule ---------------------------------------------------------------------------------------
def lr_factor(step: int, steps: int, warmup: int, min_lr: float = 0.0) -> float:
    """The learning rate of step `step` (0-based) as a share of the peak: a linear warm-up over `warmup`
    steps, then a cosine from 1 down to `min_lr` at the last step."""
    cos = 0.5 * (1 + math.cos(math.pi * min(step, steps) / steps))
    return min(1.0, (step + 1) / max(1, warmup)) * (min_lr + (1 - min_lr) * cos)


# --- the files --------------------------------------------------------------------------------------------
def models_dir() -> Path:
    """The package's data/models folder (the shipped models; `make train` writes there)."""
    return Path(str(resources.files("attention_core.data") / "models"))


def save_model(result: dict, out_dir) -> tuple[Path, Path]:
    """Write a training run's result {"weights": {name: array}, "manifest": {"name", ...}} as <name>.npz (float32
    arrays) and <name>.json (the manifest, UTF-8, indented) into out_dir. Returns the two paths."""
    if not isinstance(result, dict) or not isinstance(result.get("weights"), dict):
        raise TypeError(f"result: expected a run's {{'weights': dict, 'manifest': dict}}, got {describe(result)}")
    manifest = result.get("manifest")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("name"), str) or not manifest["name"]:
        raise ValueError(f"result['manifest']: expected a dict with a non-empty 'name', got {describe(manifest)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    name = manifest["name"]
    npz, js = out_dir / f"{name}.npz", out_dir / f"{name}.json"
    np.savez_compressed(npz, **{k: np.asarray(v, np.float32) for k, v in result["weights"].items()})
    js.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return npz, js


def decoder_config(manifest: dict) -> DecoderConfig:
    """The model's DecoderConfig, read from its manifest's "config" (which also holds the training recipe)."""
    return DecoderConfig.from_dict(manifest["config"], allow_extra=True)


def manifest_config(config: DecoderConfig, recipe: dict) -> dict:
    """A manifest's "config": the model's DecoderConfig (every size, causal included) and the training recipe
    beside it (kind, batch, lr, ...); decoder_config reads the first back."""
    return {**config.to_dict(), **{k: v for k, v in recipe.items() if k not in DecoderConfig.keys()}}


def read_manifest(path) -> str:
    """The manifest's text, checked to be a JSON object with the keys a model needs."""
    try:
        text = path.read_text(encoding="utf-8")
        manifest = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{path}: not a readable model manifest (JSON): {exc}; {FIX}") from None
    if not isinstance(manifest, dict):
        raise ModelFileError(f"{path}: expected a JSON object (the manifest), got {type(manifest).__name__}; {FIX}")
    for key, kind in (("name", str), ("config", dict), ("vocab", list)):
        if not isinstance(manifest.get(key), kind):
            raise ModelFileError(f"{path}: the manifest has no {key!r} ({kind.__name__}); {FIX}")
    try:
        decoder_config(manifest)
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"{path}: the manifest's config is not a decoder's ({exc}); {FIX}") from None
    if not all(isinstance(w, str) for w in manifest["vocab"]):
        raise ModelFileError(f"{path}: the vocabulary must be a list of words (strings); {FIX}")
    seen: set = set()
    twice = [w for w in manifest["vocab"] if w in seen or seen.add(w)]
    if twice:
        raise ModelFileError(f"{path}: the vocabulary holds {twice[:5]} more than once (each word needs one id); "
                             f"{FIX}")
    return text


def read_weights(path) -> dict:
    """{name: read-only array} from an .npz file (never pickles); the file is closed on every path."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
            weights = {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as exc:
        raise ModelFileError(f"{path}: not a readable .npz weights file ({type(exc).__name__}: {exc}); "
                             f"{FIX}") from None
    for arr in weights.values():
        arr.setflags(write=False)                   # shared by every model built from a cache
    return weights


# --- the command line ---------------------------------------------------------------------------------
def int_arg(text: str, minimum: int = 1) -> int:
    """A command-line integer >= minimum (argparse turns this error into a usage error, not a traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {value}")
    return value


def steps_arg(text: str) -> int:
    """--steps, --jobs: an integer >= 1."""
    return int_arg(text, 1)


def seed_arg(text: str) -> int:
    """--seed: an integer >= 0."""
    return int_arg(text, 0)


def add_output_args(ap: argparse.ArgumentParser, what: str) -> None:
    """--out DIR or --overwrite-shipped (one of them, never both): where a training CLI writes `what`."""
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--out", default=None, help=f"output folder for {what}")
    where.add_argument("--overwrite-shipped", action="store_true",
                       help="replace the shipped models in the package's data/models (what make train does)")


def output_dir(ap: argparse.ArgumentParser, args: argparse.Namespace, shipped=None) -> Path:
    """The folder a training CLI writes into, checked before anything is trained: --out DIR, or the shipped
    models' folder with --overwrite-shipped (`shipped`, default models_dir()); a usage error otherwise."""
    shipped = models_dir() if shipped is None else Path(shipped)
    if args.out is None and not args.overwrite_shipped:
        ap.error(f"say where to write: --out DIR for a new run, or --overwrite-shipped to replace the shipped "
                 f"models in {shipped} (make train does that)")
    out = shipped if args.overwrite_shipped else Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        ap.error(f"--out: {out} exists and is not a folder")
    parent = next((p for p in (out, *out.parents) if p.exists()), None)
    if parent is None or not os.access(parent, os.W_OK):
        ap.error(f"--out: cannot write into {out} ({parent} is not writable)")
    return out


def checked_names(ap: argparse.ArgumentParser, names: list, known, what: str = "name") -> list:
    """The names a training CLI was given, each one of `known` (a usage error names the others), once each in
    the order given; none given: all of `known`."""
    unknown = [n for n in names if n not in known]
    if unknown:
        ap.error(f"unknown {what}(s) {unknown}: expected names of {list(known)}")
    return list(dict.fromkeys(names)) or list(known)


def command_line(prog: str, argv) -> str:
    """The command line as typed (what a manifest records), quoted for a shell."""
    return " ".join([prog, *map(shlex.quote, argv)])


def require_torch() -> None:
    """A training CLI's check, after its arguments (a typo never waits for torch): torch must be installed."""
    if importlib.util.find_spec("torch") is None:
        raise SystemExit("training needs torch: pip install torch==2.13.0 (the CPU wheel is enough)")


def start_command(parse_args, prog: str, argv=None):
    """A training CLI's start: its arguments (argv, or sys.argv[1:] when None) checked by `parse_args`, then torch
    looked for (a typo never waits for torch). Returns (args, the command line as typed)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    require_torch()
    return args, command_line(prog, argv)
