"""Timing helpers shared by the benchmark modules: round-robin repetitions, medians, BLAS threads."""
from __future__ import annotations

import statistics
import time

from attention_core.teaching.measure import blas_threads  # noqa: F401  (the benchmarks import it from here)


def round_robin(candidates: dict, reps: int) -> dict:
    """Call each candidate once per round, `reps` rounds after one warm-up call each.

    Returns {name: [seconds, ...]}. Interleaving means that a burst of load from other work on a
    shared machine lands on all candidates of a round, so medians of ratios stay meaningful.
    """
    for fn in candidates.values():
        fn()
    samples = {name: [] for name in candidates}
    for _ in range(reps):
        for name, fn in candidates.items():
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return samples


def median_ms(seconds) -> float:
    return statistics.median(seconds) * 1e3
