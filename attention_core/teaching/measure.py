"""Fair measurements for the notebooks and benchmarks: peak memory with tracemalloc, wall-clock
times (one call, several calls, the best of several rounds), and a BLAS thread limit that keeps
timings steady on a shared machine. Times depend on the machine: never print them in checked output."""
from __future__ import annotations

import contextlib
import math
import sys
import time
import tracemalloc

import numpy as np

from attention_core.core.validation import check_flag, positive_float, positive_int


def traced_peak(fn, *args, **kwargs):
    """(result, peak bytes): the largest total of NumPy buffers (and Python objects) alive at once
    while fn(*args, **kwargs) ran, measured with tracemalloc. Inputs made before are not counted;
    BLAS scratch space is invisible to tracemalloc. Deterministic for a given shape, unlike time.
    Printed output is flushed first: tracemalloc counts every thread, and in a kernel the thread that sends
    printed lines would otherwise build the previous line's message inside the measurement (notebook 10
    printed 1.06 MiB in one run and 1.07 MiB in another for the same call)."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()                                   # ipykernel waits here until the line is sent
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return result, peak - base


def timed(fn, *args, **kwargs):
    """(result, seconds): one call of fn(*args, **kwargs) and its wall-clock time."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def latencies(fn, *args, runs: int = 5, warmup: bool = True, **kwargs) -> np.ndarray:
    """Seconds of `runs` calls of fn(*args, **kwargs) (wall clock), after one warm-up call unless
    warmup=False (when the caller has just run it, for example to trace its memory)."""
    warmup = check_flag(warmup, "warmup")
    runs = positive_int(runs, "runs")
    if warmup:
        fn(*args, **kwargs)
    out = np.empty(runs)
    for r in range(runs):
        start = time.perf_counter()
        fn(*args, **kwargs)
        out[r] = time.perf_counter() - start
    return out


def best_time(fn, *args, repeats: int = 3, min_seconds: float = 0.02, **kwargs) -> float:
    """Seconds per call of fn(*args, **kwargs): the fastest of `repeats` rounds (the least disturbed one).

    Like `timeit`, a round calls fn as many times as it takes to last at least min_seconds, so
    sub-millisecond calls are not lost in the timer's and the scheduler's noise.
    """
    repeats = positive_int(repeats, "repeats")
    min_seconds = positive_float(min_seconds, "min_seconds")
    start = time.perf_counter()
    fn(*args, **kwargs)                                   # also warms caches up
    one = max(time.perf_counter() - start, 1e-9)
    number = max(1, math.ceil(min_seconds / one))
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn(*args, **kwargs)
        best = min(best, (time.perf_counter() - start) / number)
    return best


@contextlib.contextmanager
def blas_threads(n: int | None = 1):
    """Limit NumPy's BLAS thread pool to n threads inside the block; None leaves it as it is, and
    without threadpoolctl nothing changes. On a busy 2-core machine two BLAS threads fighting for
    the cores can make a small product a hundred times slower, so timings use one."""
    if n is None:
        yield
        return
    n = positive_int(n, "n")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                                   # optional: timings are just noisier
        yield
        return
    with threadpool_limits(limits=n, user_api="blas"):
        yield
