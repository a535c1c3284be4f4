"""`make bench`: run every benchmark in benchmarks/, print Markdown tables, write results.json.

    .venv/bin/python benchmarks/run.py            # full run (a few minutes on 2 cores)
    .venv/bin/python benchmarks/run.py --quick    # smoke run: every section at its smallest size, once
    .venv/bin/python benchmarks/run.py --only attention memory

Machines of this project may set OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (older OpenBLAS builds
need them on some processors); they make a current NumPy pick a slower kernel. This script, and
only this script, re-executes itself without them, and records what it found and did in
results.json. Tests and CI keep the environment as it is.
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_REEXEC_FLAG = "ATTENTION_LAB_BENCH_UNSET_OPENBLAS"
SECTIONS = ("attention", "memory", "tiled", "import", "widgets", "browser", "notebooks", "training", "gpt",
            "train_live")
# Run only when asked (`run.py --only lite`): every notebook in the browser, ~20 min (benchmarks/lite_time.py).
OPT_IN = ("lite",)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few repetitions")
    parser.add_argument("--only", nargs="+", choices=SECTIONS + OPT_IN, default=SECTIONS)
    parser.add_argument("--keep-openblas-env", action="store_true",
                        help=f"do not unset {' / '.join(OPENBLAS_VARS)} for the run")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write the JSON (default benchmarks/results.json; "
                             "--quick writes benchmarks/out/results-quick.json)")
    args = parser.parse_args(argv)
    found = {name: os.environ[name] for name in OPENBLAS_VARS if name in os.environ}
    if found and not args.keep_openblas_env and _REEXEC_FLAG not in os.environ:
        # OpenBLAS reads these once, when NumPy loads it: start over without them.
        env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_VARS}
        env[_REEXEC_FLAG] = json.dumps(found)
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *(argv or sys.argv[1:])], env)

    sys.path.insert(0, str(HERE))
    started = time.perf_counter()
    results = {"machine": machine_info(), "quick": args.quick, "sections": {}}
    for section in args.only:
        t0 = time.perf_counter()
        # the machine is shared: each section records how busy it was (load average, 1/5/15 min) as it ran
        load = {"started": _now(), "before": _load_average()}
        print(f"[bench] {section} ... (load average {load['before']})", file=sys.stderr, flush=True)
        try:
            results["sections"][section] = _run_section(section, args.quick)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:    # noqa: BLE001 -- pytest.fail (browser helpers) is a BaseException too
            # one broken section must not lose the others' figures: recorded, reported, and the exit status is 1
            traceback.print_exc()
            results["sections"][section] = {"failed": f"{type(exc).__name__}: {exc}"[:2000]}
        results["sections"][section]["section_seconds"] = round(time.perf_counter() - t0, 1)
        results["sections"][section]["load_average"] = {**load, "after": _load_average()}
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    results["machine"]["load_average_after"] = _load_average()
    out = args.out or (HERE / "out" / "results-quick.json" if args.quick else HERE / "results.json")
    failed = sorted(name for name, sec in results["sections"].items() if "failed" in sec)
    if set(args.only) != set(SECTIONS):
        results = merge_into(out, results)
    text = format_markdown(results)
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {out.relative_to(HERE.parent) if out.is_relative_to(HERE.parent) else out}"
          f" in {round(time.perf_counter() - started, 1)} s", file=sys.stderr)
    if failed:
        print(f"FAILED sections: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def merge_into(path: Path, results: dict) -> dict:
    """`--only`: the sections just measured replace theirs in the file's earlier report (of the same kind,
    full or quick), which keeps the rest; each replaced section records its own date and machine load."""
    for section in results["sections"].values():
        section["measured"] = {k: results["machine"][k] for k in ("date", "load_average_before",
                                                                   "load_average_after")}
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return results
    if earlier.get("quick") != results["quick"] or not isinstance(earlier.get("sections"), dict):
        return results
    # a section that failed now keeps its earlier figures (the run's exit status and stderr say it failed)
    fresh = {name: sec for name, sec in results["sections"].items()
             if "failed" not in sec or name not in earlier["sections"]}
    sections = {**earlier["sections"], **fresh}
    return {**earlier, "sections": {name: sections[name] for name in SECTIONS + OPT_IN if name in sections}}


def _run_section(section: str, quick: bool) -> dict:
    if section == "attention":
        mod = importlib.import_module("attention_speed")
        return mod.measure(mod.QUICK_LENGTHS, reps=3) if quick else mod.measure()
    if section == "memory":
        mod = importlib.import_module("memory")
        return mod.measure(mod.QUICK_LENGTHS) if quick else mod.measure()
    if section == "import":
        return importlib.import_module("import_time").measure(reps=3 if quick else 9)
    if section == "widgets":
        if not (HERE / "widget_latency.py").exists():
            return {"skipped": "benchmarks/widget_latency.py does not exist yet"}
        try:
            return importlib.import_module("widget_latency").measure(n_updates=5 if quick else 30)
        except ImportError as exc:                 # ipywidgets or matplotlib missing
            return {"skipped": f"widget benchmark could not import: {exc}"}
    if section == "browser":
        mod = importlib.import_module("browser_latency")
        return mod.measure(presses=5, widgets=mod.WIDGETS[:1]) if quick else mod.measure(presses=30)
    if section == "notebooks":
        return importlib.import_module("notebook_time").measure(quick=quick)
    if section == "training":
        return importlib.import_module("training").measure(quick=quick)
    if section == "gpt":
        return importlib.import_module("gpt").measure(quick=quick)
    if section == "train_live":
        return importlib.import_module("train_live").measure(quick=quick)
    if section == "lite":
        return importlib.import_module("lite_time").measure(quick=quick)
    if section == "tiled":
        mod = importlib.import_module("tiled")
        return mod.measure(mod.QUICK_LENGTHS, reps=3) if quick else mod.measure()
    raise ValueError(section)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def machine_info() -> dict:
    import numpy as np
    info = {
        "date": _now(),
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "load_average_before": _load_average(),
    }
    try:
        import torch
        info["torch"] = torch.__version__
        info["torch_default_threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = None
    try:
        from threadpoolctl import threadpool_info
        info["blas"] = [{k: lib.get(k) for k in ("internal_api", "version", "architecture",
                                                  "threading_layer", "num_threads")}
                        for lib in threadpool_info() if lib.get("user_api") == "blas"]
    except ImportError:
        info["blas"] = "threadpoolctl not installed"
    unset = json.loads(os.environ.get(_REEXEC_FLAG, "{}"))
    info["openblas_env"] = {
        "found": unset or {n: os.environ[n] for n in OPENBLAS_VARS if n in os.environ},
        "unset_for_this_run": bool(unset),
        "note": "OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are unset only for the benchmark run, never in "
                "tests or CI; 'blas.architecture' is the kernel OpenBLAS then chose",
    }
    return info


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load_average():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


# --- Markdown -------------------------------------------------------------------------------------

def format_markdown(results: dict) -> str:
    m = results["machine"]
    blas = m["blas"][0] if isinstance(m.get("blas"), list) and m["blas"] else {}
    lines = [f"## Attention Lab benchmarks ({m['date'][:10]}{', quick' if results['quick'] else ''})", "",
             f"{m['cpu_model']}, {m['cores']} cores; NumPy {m['numpy']} with "
             f"{blas.get('internal_api', '?')} {blas.get('version', '')} ({blas.get('architecture', '?')} kernel); "
             f"torch {m.get('torch')}; load average before/after {m['load_average_before']} / "
             f"{m.get('load_average_after')}."]
    if m["openblas_env"]["unset_for_this_run"]:
        lines.append(f"{', '.join(m['openblas_env']['found'])} were set and unset for this run only.")
    s = {name: sec for name, sec in results["sections"].items() if "failed" not in sec}
    lines += [f"\n**{name}: FAILED** ({sec['failed']})" for name, sec in results["sections"].items()
              if "failed" in sec]
    if "attention" in s:
        lines += _attention_table(s["attention"])
    if "memory" in s:
        lines += _memory_table(s["memory"])
    if "tiled" in s:
        lines += _tiled_table(s["tiled"])
    if "import" in s:
        r = s["import"]
        lines += ["", "### `import attention_core` (fresh interpreter, without torch)", "",
                  f"median {r['median_ms']} ms over {r['reps']} runs (goal < {r['goal_ms']} ms: "
                  f"{'met' if r['goal_met'] else 'NOT met'}); torch imported: {r['torch_imported']}; "
                  f"heavy modules imported: {', '.join(r['heavy_modules_imported']) or 'none'}."]
    if "widgets" in s:
        lines += ["", "### Widget update latency (kernel side)", ""]
        lines += _widget_lines(s["widgets"])
    if "browser" in s:
        lines += ["", "### Key press to new picture in the browser (JupyterLab, headless Chromium)", ""]
        r = s["browser"]
        if "skipped" in r:
            lines.append(f"skipped: {r['skipped']}")
        else:
            lines += ["| widget | presses | median ms | p95 ms | max ms |", "| --- | ---: | ---: | ---: | ---: |"]
            lines += [f"| {row['widget']} | {row['presses']} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | "
                      f"{row['max_ms']:.1f} |" for row in r["rows"]]
            lines.append(f"\n{r['note']}.")
    if "notebooks" in s:
        lines += ["", "### Notebook execution (fresh kernel each, nbclient)", ""]
        r = s["notebooks"]
        if "skipped" in r:
            lines.append(f"skipped: {r['skipped']}")
        else:
            lines += ["| notebook | seconds | ok |", "| --- | ---: | --- |"]
            lines += [f"| {row['notebook']} | {row['seconds']} | "
                      f"{'yes' if row['ok'] else 'NO: ' + row.get('error', '')} |" for row in r["rows"]]
            lines.append(f"\nGoal: each < {r['goal_s']:.0f} s: {'met' if r['goal_met'] else 'NOT met'}.")
    if "training" in s:
        r = s["training"]
        lines += ["", "### Training notebook 12's models (`make train`, torch on the CPU, into a scratch folder)", "",
                  "| model | steps | seconds | final metrics equal the committed manifest |",
                  "| --- | ---: | ---: | --- |"]
        lines += [f"| {row['model']} | {row['steps']} | {row['seconds']} | {row['same_as_committed']} |"
                  for row in r["rows"]]
        lines.append(f"\nTotal {r['total_s']} s (goal < {r['goal_s']:.0f} s: {'met' if r['goal_met'] else 'NOT met'}).")
    if "gpt" in s:
        lines += importlib.import_module("gpt").format_markdown(s["gpt"])
    if "lite" in s:
        lines += importlib.import_module("lite_time").format_markdown(s["lite"])
    if "train_live" in s:
        lines += importlib.import_module("train_live").format_markdown(s["train_live"])
    lines.append(f"\nWhole run: {results['total_seconds']} s.")
    loads = [f"{name} {sec['load_average']['started'][11:16]} {sec['load_average']['before']} -> "
             f"{sec['load_average']['after']}" for name, sec in s.items()
             if isinstance(sec, dict) and isinstance(sec.get("load_average"), dict)]
    if loads:
        lines.append("Load average (1 / 5 / 15 min; UTC start) as each section began -> ended: " + "; ".join(loads)
                     + ".")
    later = [f"{name} ({sec['measured']['date']}, load average before {sec['measured']['load_average_before']})"
             for name, sec in s.items() if isinstance(sec, dict) and "measured" in sec]
    if later:
        lines.append("Measured later with `--only`, outside that run: " + "; ".join(later) + ".")
    return "\n".join(lines)


def _attention_table(r: dict) -> list:
    lines = ["", f"### Attention forward, float32, D = {r['d']}, B = H = 1 (median of {r['reps']} rounds)", "",
             "Times in ms. `% GEMM`: attention's 4 T^2 D flops per second as a share of a same-flop square "
             "float32 GEMM timed in the same rounds. `torch / NumPy`: > 1 means NumPy is faster."]
    for run in r["runs"]:
        lines += ["", f"**{run['threads']} thread{'s' if run['threads'] > 1 else ''}** (BLAS pool and torch)", "",
                  "| T | NumPy, weights | NumPy, no weights | unblocked (before) | torch SDPA "
                  "| torch / NumPy (no weights) | GEMM GFLOP/s | NumPy % GEMM (weights / none / before) "
                  "| torch % GEMM |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for row in run["rows"]:
            lines.append(
                f"| {row['T']} | {row['numpy_weights_ms']:.2f} | {row['numpy_no_weights_ms']:.2f} | "
                f"{row['numpy_unblocked_ms']:.2f} | {_fmt(row.get('torch_sdpa_ms'), '.2f')} | "
                f"{_fmt(row.get('torch_over_numpy_no_weights'), '.2f')} | {row['gemm_gflops']:.0f} | "
                f"{row['numpy_weights_pct_of_gemm']:.0f}% / {row['numpy_no_weights_pct_of_gemm']:.0f}% / "
                f"{row['numpy_unblocked_pct_of_gemm']:.0f}% | {_fmt(row.get('torch_sdpa_pct_of_gemm'), '.0f')}% |")
    p = r["profile"]
    lines += ["", f"Where the time goes at T = {p['T']}, {p['threads']} thread: each step timed alone on one "
                  f"block of {p['block_rows']} query rows, times {p['blocks']} blocks (ms):", "",
              "| step | ms |", "| --- | ---: |"]
    lines += [f"| {name} | {ms:.2f} |" for name, ms in p["ms"].items()]
    return lines


def _memory_table(r: dict) -> list:
    lines = ["", "### Peak memory of one attention call (tracemalloc, MiB)", "",
             "| T | analytic: weights (T, T) + output | measured, weights | "
             "analytic, no weights (block rows) | measured, no weights |",
             "| ---: | ---: | ---: | ---: | ---: |"]
    mib = 1 << 20
    for row in r["rows"]:
        lines.append(f"| {row['T']} | {row['analytic_weights_plus_output_bytes'] / mib:.1f} | "
                     f"{row['measured_peak_weights_bytes'] / mib:.1f} | "
                     f"{row['analytic_no_weights_bytes'] / mib:.1f} ({row['block_rows']}) | "
                     f"{row['measured_peak_no_weights_bytes'] / mib:.1f} |")
    return lines


def _tiled_table(r: dict) -> list:
    lines = ["", f"### Tiled attention (online softmax) vs naive, float32, D = {r['d']}, block {r['block_size']} keys, "
                 f"{r['threads']} BLAS thread (median of {r['reps']} rounds)", "",
             "Peak memory by tracemalloc. Naive returns the (T, T) weights; it runs only where they fit in "
             f"{r['naive_limit_bytes'] >> 20} MiB (else its analytic count, in italics).", "",
             "| T | naive peak (MiB) | tiled peak (MiB) | naive ms | tiled ms | max abs diff |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    mib = 1 << 20
    for row in r["rows"]:
        naive = (f"{row['naive_peak_bytes'] / mib:.1f}" if row["naive_peak_bytes"] is not None
                 else f"*{row['naive_analytic_bytes'] / mib:.0f}*")
        lines.append(f"| {row['T']} | {naive} | {row['tiled_peak_bytes'] / mib:.1f} | "
                     f"{_fmt(row['naive_ms'], '.1f')} | {row['tiled_ms']:.1f} | {_fmt(row['max_abs_diff'], '.1e')} |")
    return lines


def _widget_lines(r: dict) -> list:
    if "skipped" in r:
        return [f"skipped: {r['skipped']}"]
    flat = {k: v for k, v in r.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "section_seconds"}
    lines = ["| measure | value |", "| --- | ---: |"]
    lines += [f"| {k} | {v:.1f} |" if isinstance(v, float) else f"| {k} | {v} |" for k, v in flat.items()]
    for k, v in r.items():
        if isinstance(v, dict):
            lines += [f"| {k}: {kk} | {vv:.1f} |" for kk, vv in v.items() if isinstance(vv, float)]
    return lines


def _fmt(x, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


if __name__ == "__main__":
    sys.exit(main())
