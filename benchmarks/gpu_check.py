"""GPU check: the fused attention kernel vs the explicit path, in time and peak memory, on CUDA.

    python benchmarks/gpu_check.py        # `make gpu-check` runs the CUDA parity tests first

Both paths go through the public `scaled_dot_product_attention` on (B, H, T, D) tensors:
need_weights=False takes torch's fused kernel (FlashAttention in float16), need_weights=True the
explicit path that materialises the (T, T) weights of every head. Time: CUDA events around each
call, median of several repetitions after a warm-up. Memory: the peak allocated during one call,
above what the inputs already hold. Prints a table and writes benchmarks/out/gpu_check.json.
Without CUDA (or without torch) it says so and exits with code 0.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys

OUT = pathlib.Path(__file__).resolve().parent / "out" / "gpu_check.json"


def time_call(torch, fn, reps: int) -> float:
    """Median milliseconds of fn() measured with CUDA events (after two warm-up calls)."""
    for _ in range(2):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def peak_mib(torch, fn) -> float:
    """MiB allocated at the peak of one fn() call, beyond what was allocated before it."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - before) / 2**20


def measure(torch, sdpa, t: int, args) -> list[dict]:
    gen = torch.Generator(device="cuda").manual_seed(t)
    shape = (args.batch, args.heads, t, args.head_dim)                   # (B, H, T, D)
    dtype = getattr(torch, args.dtype)
    q, k, v = (torch.randn(shape, generator=gen, device="cuda", dtype=dtype) for _ in range(3))
    paths = {"fused": lambda: sdpa(q, k, v, need_weights=False)[0],
             "explicit": lambda: sdpa(q, k, v, need_weights=True)[0]}
    rows, outputs = [], {}
    for name, fn in paths.items():
        row = {"T": t, "path": name}
        try:
            with torch.no_grad():
                row["median_ms"] = round(time_call(torch, fn, args.reps), 3)
                row["peak_mib"] = round(peak_mib(torch, fn), 1)
                outputs[name] = fn().float()
        except torch.cuda.OutOfMemoryError:
            row["error"] = "out of memory"
        torch.cuda.empty_cache()
        rows.append(row)
    if len(outputs) == 2:                                                # the two paths agree?
        rows[0]["max_abs_diff_vs_explicit"] = float((outputs["fused"] - outputs["explicit"]).abs().max())
    return rows


def print_table(report: dict) -> None:
    print(f"{report['device']} | torch {report['torch']} | {report['dtype']} | "
          f"B={report['B']} H={report['H']} D={report['D']} | median of {report['reps']} reps")
    print(f"{'T':>6}  {'path':<8}  {'ms':>10}  {'peak MiB':>10}  {'max |fused - explicit|':>22}")
    for row in report["rows"]:
        if "error" in row:
            print(f"{row['T']:>6}  {row['path']:<8}  {row['error']}")
            continue
        diff = row.get("max_abs_diff_vs_explicit")
        print(f"{row['T']:>6}  {row['path']:<8}  {row['median_ms']:>10.3f}  {row['peak_mib']:>10.1f}  "
              f"{'' if diff is None else f'{diff:.2e}':>22}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1024, 4096, 16384])
    parser.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default="float16")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to measure (install it with `pip install torch==2.13.0`).")
        return 0
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to measure here (the CPU numbers come from `make bench`).")
        return 0
    from attention_core import scaled_dot_product_attention

    report = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "dtype": args.dtype,
              "B": args.batch, "H": args.heads, "D": args.head_dim, "reps": args.reps, "rows": []}
    for t in args.lengths:
        report["rows"] += measure(torch, scaled_dot_product_attention, t, args)
    print_table(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
