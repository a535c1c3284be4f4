"""Notebook 13's live training runs, timed: the recipes tried for training the learner's GPT inside the notebook
(each run <= 60 s on the 2-core CPU), each with its seconds, steps per second and final metrics.

    .venv/bin/python benchmarks/train_live.py                  # the chosen recipes, 3 timed runs each (~3 min quiet)
    .venv/bin/python benchmarks/train_live.py --quick          # a few seconds: 10 steps of each recipe
    .venv/bin/python benchmarks/train_live.py --try induction '{"steps": 400, "lr": 0.01}' --seeds 0 1 2 --log f.jsonl
    .venv/bin/python benchmarks/train_live.py --long --seeds 1      # the longer text run only (the shipped seed)

A run trains what the notebook trains: `parts.gpt_forward`, the learner's pieces where they passed and the library's
elsewhere (a fresh `pieces.Parts()` here: the library's pieces through the learner's assembly), through
`training.run` with the recipe's thread count. Seconds are the loop's own (`train_seconds`, validation included),
wall clock and CPU time of the process; the machine is shared, so each timing records the load average beside it
and the summary is the median of repeated runs. Metrics are notebook 13's: the best previous-token and induction
heads' mean scores over every position (`experiments.best_heads`; notebook 12's CIRCUIT_MIN = 0.4 is the line) and
the loss on the repeated half; for the text run the validation perplexity of each language on the whole validation
text against the bigram baseline on the same pairs (`experiments.text_losses`). Reported, not asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

GOAL_S = 60.0
QUICK_STEPS = 10


def load_average() -> list | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _forward(kind: str):
    from attention_core.labs.nb13_build_a_gpt import pieces
    if kind == "parts":
        return pieces.Parts().gpt_forward            # the learner's assembly, every piece the library's
    if kind == "gpt":
        return pieces.gpt_forward
    if kind == "fused":
        return pieces.training_forward
    raise ValueError(f"forward: expected parts, gpt or fused, got {kind!r}")


_DATA = {}


def trial(name: str, changes: dict | None = None, *, forward: str = "parts", seed: int = 0,
          steps: int | None = None, metrics: bool = True, warm_up: bool = True) -> dict:
    """One run of `name` with CONFIGS[name] updated by `changes`: seconds, steps/s, load, final metrics."""
    from attention_core.labs.nb13_build_a_gpt import training
    changes = dict(changes or {})
    cfg = training.recipe(name, **changes)
    data = None
    if name == "text":
        data = _DATA.setdefault("text", training.TextData())
    # warm-up: torch's first calls (kernel set-up, the backend's import) are paid before the notebook's live run
    # too, by the cells that check the learner's pieces
    if warm_up:
        training.run(name, _forward(forward), config={**changes, "steps": 2}, seed=seed, data=data, metrics=False)
    load_before = load_average()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    out = training.run(name, _forward(forward), config=changes, seed=seed, steps=steps, data=data, metrics=False)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    n = out["manifest"]["steps"]
    row = {"run": name, "changes": changes, "forward": forward, "seed": seed, "steps": n,
           "threads": cfg["threads"], "train_s": round(out["seconds"], 2), "wall_s": round(wall, 2),
           "cpu_s": round(cpu, 2), "steps_per_s": round(n / out["seconds"], 2),
           "load_before": load_before, "load_after": load_average(),
           "final_valid": out["curve"][-1][2], "curve": out["curve"]}
    if metrics:
        from attention_core.labs.nb13_build_a_gpt import experiments
        m = experiments.final_metrics(name, out, data=data)
        keep = (("previous_head", "previous_mean", "previous_min_over_positions", "induction_head", "induction_mean",
                 "induction_min_over_positions", "repeated_half_loss") if name == "induction" else
                ("en_perplexity", "en_bigram_perplexity", "zh_perplexity", "zh_bigram_perplexity"))
        row["metrics"] = {k: m[k] for k in keep}
        row["goal_met"] = goal_met(name, row["metrics"])
    return row


def goal_met(name: str, m: dict) -> bool:
    """The run's goal: measured heads (best previous-token and induction heads at or above notebook 12's
    CIRCUIT_MIN on average over positions), or a perplexity at least 10% under the bigram's in both languages."""
    from attention_core.labs.nb12_trained_transformer.experiments import CIRCUIT_MIN
    if name == "induction":
        return m["previous_mean"] >= CIRCUIT_MIN and m["induction_mean"] >= CIRCUIT_MIN
    return all(m[f"{lang}_perplexity"] <= 0.9 * m[f"{lang}_bigram_perplexity"] for lang in ("en", "zh"))


def summarise(rows: list) -> dict:
    """Median seconds and steps/s over repeated runs of one recipe, with the loads they ran under."""
    return {"runs": len(rows), "median_train_s": round(statistics.median(r["train_s"] for r in rows), 1),
            "median_cpu_s": round(statistics.median(r["cpu_s"] for r in rows), 1),
            "median_steps_per_s": round(statistics.median(r["steps_per_s"] for r in rows), 1),
            "min_train_s": min(r["train_s"] for r in rows), "max_train_s": max(r["train_s"] for r in rows),
            "loads_1min": [r["load_before"][0] if r["load_before"] else None for r in rows]}


def measure(quick: bool = False, reps: int = 3) -> dict:
    """The chosen recipes (training.CONFIGS), trained as the notebook trains them: `reps` timed runs each on the
    live seed (seeded: the same metrics every time, measured once; the seconds vary with the load), beside the
    shipped run's manifest (the same recipe on SHIPPED_SEED). --quick: QUICK_STEPS steps of each, once, no metrics."""
    from attention_core.labs.nb13_build_a_gpt import training
    out = {"goal_s": GOAL_S, "quick": quick, "recipes": {}}
    for name in training.RUN_NAMES:
        if quick:
            rows = [trial(name, steps=QUICK_STEPS, metrics=False, warm_up=False)]
        else:
            rows = [trial(name, metrics=(i == 0)) for i in range(reps)]
        man = training.load_run(name).manifest
        out["recipes"][name] = {"config": training.CONFIGS[name], "rows": rows, "summary": summarise(rows),
                                "goal_met": None if quick else summarise(rows)["median_train_s"] <= GOAL_S,
                                "shipped": {"seed": man["seed"], "steps": man["steps"],
                                            "train_seconds": man["train_seconds"], "metrics": man.get("metrics")}}
    if not quick:
        out["long"] = long_trial()
    return out


# --- the longer run (notebook 13's optional LONG_RUN, and the text model `make train` ships) --------------------
LONG_GOAL_S = 180.0        # at most 3 minutes on 2 cores
LONG_LOSS_GOAL = 2.0       # English validation loss, nats per character (nanoGPT's char-level Shakespeare: ~1.88)
WORD_GOAL = 0.5            # at least half of the English words sampled at temperature 0.8 occur in the training text


def sample_quality(model, data, n_samples: int = 4, n_chars: int = 240, temperature: float = 0.8) -> dict:
    """Samples of the notebook's two prompts at `temperature`: per language the pooled share of English words that
    occur in the training text (experiments.known_share), of Chinese character pairs that do, and one sample."""
    from attention_core.labs.nb13_build_a_gpt import corpus, experiments, pieces
    params = pieces.torch_params(model.params, dtype="float32")
    tok = corpus.CharTokenizer(model.vocab)
    out = {}
    for prompt, lang in (("The attention weights ", "en"), ("注意力权重", "zh")):
        known = total = 0
        first = None
        for seed in range(n_samples):
            text = tok.decode(experiments.write(pieces.generate, params, tok.encode(prompt), n_chars,
                                                temperature=temperature, seed=seed))
            k = experiments.known_share(text[len(prompt):], data.texts[lang], lang)
            known, total, first = known + k["known"], total + k["total"], first or text
        out[lang] = {"known": known, "total": total, "share": round(known / total, 3) if total else None,
                     "sample": first}
    return out


def long_trial(forward: str = "fused", seed: int | None = None) -> dict:
    """One run of training.CONFIGS["text_long"] (the shipped text model's recipe; seed None: its live seed),
    timed, then its validation loss per language and the quality of its samples at temperature 0.8."""
    from attention_core.labs.nb13_build_a_gpt import experiments, training
    cfg = training.CONFIGS["text_long"]
    data = _DATA.setdefault("text", training.TextData())
    training.run("text", _forward(forward), config={**cfg, "steps": 2}, seed=seed, data=data, metrics=False)
    load_before = load_average()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    out = training.run("text", _forward(forward), config=cfg, seed=seed, data=data, metrics=False)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    model = training.to_model(out)
    losses = experiments.text_losses(model, data)
    quality = sample_quality(model, data)
    row = {"run": "text_long", "forward": forward, "seed": out["manifest"]["seed"], "steps": out["manifest"]["steps"],
           "threads": cfg["threads"], "train_s": round(out["seconds"], 1), "wall_s": round(wall, 1),
           "cpu_s": round(cpu, 1), "load_before": load_before, "load_after": load_average(),
           "loss": {lang: round(r["loss"], 3) for lang, r in losses.items()},
           "bigram_loss": {lang: round(r["bigram_loss"], 3) for lang, r in losses.items()},
           "words_known_en": quality["en"], "pairs_known_zh": quality["zh"]}
    row["goal_met"] = {"seconds": row["train_s"] <= LONG_GOAL_S, "loss_en": row["loss"]["en"] <= LONG_LOSS_GOAL,
                       "words_en": (quality["en"]["share"] or 0) >= WORD_GOAL}
    return row


def format_long(row: dict) -> list:
    en, zh = row["words_known_en"], row["pairs_known_zh"]
    title = "### Notebook 13's longer text run (`training.CONFIGS[\"text_long\"]`, the shipped text model's recipe)"
    return ["", title, "", "| forward | seed | steps | train s | cpu s | load (1 min) | valid loss en / zh (bigram) | "
            "English words known, T = 0.8 | Chinese pairs known |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- |",
            f"| {row['forward']} | {row['seed']} | {row['steps']} | {row['train_s']} | {row['cpu_s']} | "
            f"{row['load_before']} | {row['loss']['en']} / {row['loss']['zh']} ({row['bigram_loss']['en']} / "
            f"{row['bigram_loss']['zh']}) | {en['known']} of {en['total']} ({en['share']}) | "
            f"{zh['known']} of {zh['total']} ({zh['share']}) |"]


def format_markdown(r: dict) -> list:
    lines = ["", "### Notebook 13's live training runs (the learner's `parts.gpt_forward`, `training.run`)", "",
             "| run | steps | median s (runs) | steps/s | load (1 min) | metrics |",
             "| --- | ---: | ---: | ---: | --- | --- |"]
    for name, rec in r["recipes"].items():
        s = rec["summary"]
        m = next((row["metrics"] for row in rec["rows"] if "metrics" in row), {})
        lines.append(f"| {name} | {rec['rows'][0]['steps']} | {s['median_train_s']} ({s['runs']}) | "
                     f"{s['median_steps_per_s']} | {s['loads_1min']} | {_metrics_text(name, m)} |")
        ship = rec.get("shipped")
        if ship and ship.get("metrics"):
            lines.append(f"| {name}, shipped (seed {ship['seed']}) | {ship['steps']} | "
                         f"{ship['train_seconds']} (1) | | | {_metrics_text(name, ship['metrics'])} |")
    if r.get("long"):
        lines += format_long(r["long"])
    return lines


def _metrics_text(name: str, m: dict) -> str:
    if not m:
        return "not measured (quick)"
    if name == "induction":
        return (f"prev {m['previous_head']} {m['previous_mean']:.2f}, ind {m['induction_head']} "
                f"{m['induction_mean']:.2f}, repeat loss {m['repeated_half_loss']:.2f}")
    return (f"ppl en {m['en_perplexity']:.1f} (bigram {m['en_bigram_perplexity']:.1f}), zh {m['zh_perplexity']:.1f} "
            f"(bigram {m['zh_bigram_perplexity']:.1f})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--try", dest="try_", nargs=2, metavar=("RUN", "JSON"), help="one recipe: run name, changes")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--forward", default="parts", choices=("parts", "gpt", "fused"))
    ap.add_argument("--no-metrics", action="store_true")
    ap.add_argument("--log", default=None, help="append each row as a JSON line to this file")
    ap.add_argument("--long", action="store_true", help="only the longer text run (CONFIGS['text_long']), once")
    args = ap.parse_args(argv)
    if args.long:
        row = long_trial(forward=args.forward if args.forward != "parts" else "fused", seed=args.seeds[0])
        print("\n".join(format_long(row)))
        print(json.dumps(row, indent=1, ensure_ascii=False))
        return 0
    if args.try_:
        name, changes = args.try_[0], json.loads(args.try_[1])
        for seed in args.seeds:
            row = trial(name, changes, forward=args.forward, seed=seed, metrics=not args.no_metrics)
            line = json.dumps(row)
            print(line, flush=True)
            if args.log:
                with open(args.log, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
        return 0
    result = measure(quick=args.quick, reps=args.reps)
    print("\n".join(format_markdown(result)))
    print(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
