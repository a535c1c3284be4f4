"""Kernel-side latency of the course widgets: median milliseconds per update (one slider move).

The headline number is the 10x10 annotated attention heatmap (`widgets.HeatmapView`), measured
against the naive `interact` way in the same run: a new figure per change, drawn in full with
100 cell labels and saved as a PNG with bbox_inches="tight" (what the inline backend does).
Same size, same dpi, same data. Browser-side time (transfer, decode) is not included.

    python benchmarks/widget_latency.py          # prints a table
    from benchmarks.widget_latency import measure; measure(30)   # -> dict (used by run.py)
"""
from __future__ import annotations

import io
import statistics
import time

import numpy as np


def _median_ms(fn, args_list, warmup: int = 3) -> float:
    for args in args_list[:warmup]:
        fn(*args)
    times = []
    for args in args_list:
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def _random_weights(rng, n_updates, t=10):
    scores = rng.normal(size=(n_updates, t, t)) * 1.5
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)                                   # (N, T, T)


def measure(n_updates: int = 30, seed: int = 0) -> dict:
    """Median kernel time per update (ms) of each widget, and of the naive redraw for comparison.

    Keys: heatmap_ms (HeatmapView, 10x10, annotated), heatmap_naive_ms (new figure per update,
    timed interleaved with it), speedup (naive / fast), heatmap_build_ms (the first picture,
    built once per widget), heatmap_plain_ms (10x10 without numbers), dot_product_ms,
    attention_step_ms, temperature_ms, mask_ms, positional_ms, n_updates.
    """
    import ipywidgets  # noqa: F401  -- fail early with a clear ImportError
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from attention_core.labs.nb00_start_here.widgets import dot_product_widget
    from attention_core.labs.nb01_query_key_value.widgets import attention_step_widget
    from attention_core.labs.nb03_softmax.widgets import temperature_widget
    from attention_core.labs.nb04_masking.widgets import MASK_KINDS, mask_widget
    from attention_core.labs.nb07_position.widgets import positional_widget
    from attention_core.teaching import plots
    from attention_core.teaching import widget_base as W

    rng = np.random.default_rng(seed)
    labels = [f"tok{i}" for i in range(10)]
    frames = [(w,) for w in _random_weights(rng, n_updates)]
    result = {"n_updates": n_updates}

    start = time.perf_counter()
    view = W.HeatmapView(frames[0][0], labels)          # first picture: full draw, empty text cache
    result["heatmap_build_ms"] = 1000 * (time.perf_counter() - start)
    figsize = tuple(view.figure.get_size_inches())

    def naive(weights):
        fig = Figure(figsize=figsize, dpi=W.DPI, layout="compressed")
        FigureCanvasAgg(fig)
        plots.attention_heatmap(weights, labels, ax=fig.add_subplot())
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()

    # Interleaved, so that load from other work on a shared machine hits both alike.
    for (w,) in frames[:3]:
        view.update(w)
        naive(w)
    fast, slow = [], []
    for (w,) in frames:
        for fn, times in ((view.update, fast), (naive, slow)):
            start = time.perf_counter()
            fn(w)
            times.append(time.perf_counter() - start)
    result["heatmap_ms"] = 1000 * statistics.median(fast)
    result["heatmap_naive_ms"] = 1000 * statistics.median(slow)
    result["speedup"] = result["heatmap_naive_ms"] / result["heatmap_ms"]
    plain = W.HeatmapView(frames[0][0], labels, annotate=False)
    result["heatmap_plain_ms"] = _median_ms(plain.update, frames)

    def slider_ms(panel, name, values):
        control = panel.controls[name]
        return _median_ms(lambda v: setattr(control, "value", v), [(v,) for v in values])

    sweep = np.linspace(-2.0, 2.0, n_updates)
    result["dot_product_ms"] = slider_ms(dot_product_widget(), "a0", sweep)
    result["attention_step_ms"] = slider_ms(attention_step_widget(), "q0", sweep)
    result["temperature_ms"] = slider_ms(temperature_widget(), "temperature", np.geomspace(0.02, 50, n_updates))
    result["mask_ms"] = slider_ms(mask_widget(10, labels), "kind",
                                  [MASK_KINDS[i % len(MASK_KINDS)] for i in range(n_updates)])
    result["positional_ms"] = slider_ms(positional_widget(), "position", [i % 32 for i in range(n_updates)])
    return result


def main() -> None:
    import matplotlib
    matplotlib.use("Agg")
    r = measure()
    print(f"median kernel time per update over {r['n_updates']} updates (ms)")
    print(f"  heatmap 10x10 annotated, HeatmapView : {r['heatmap_ms']:7.1f}")
    print(f"  heatmap 10x10 annotated, naive redraw: {r['heatmap_naive_ms']:7.1f}   "
          f"(HeatmapView is {r['speedup']:.1f}x faster)")
    print(f"  heatmap 10x10 without numbers        : {r['heatmap_plain_ms']:7.1f}")
    print(f"  heatmap 10x10, first picture (once)  : {r['heatmap_build_ms']:7.1f}")
    for name in ("dot_product", "attention_step", "temperature", "mask", "positional"):
        print(f"  {name + ' widget':<37}: {r[name + '_ms']:7.1f}")


if __name__ == "__main__":
    main()
