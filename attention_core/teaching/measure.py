"""Fair measurements for the notebooks and benchmarks: peak memory with tracemalloc, and a BLAS
thread limit that keeps timings steady on a shared machine."""
from __future__ import annotations

import contextlib
import tracemalloc

from attention_core.core.validation import positive_int


def traced_peak(fn, *args, **kwargs):
    """(result, peak bytes): the largest total of NumPy buffers (and Python objects) alive at once
    while fn(*args, **kwargs) ran, measured with tracemalloc. Inputs made before are not counted;
    BLAS scratch space is invisible to tracemalloc. Deterministic for a given shape, unlike time."""
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
