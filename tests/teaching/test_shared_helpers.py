"""Helpers written once and shared by the labs: the chart style, reference lines and the timers."""
import types

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_core.teaching import measure, plots


def test_style_axes_sets_labels_ticks_grid_and_legend():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="line")
    assert plots.style_axes(ax, "x", "y", grid="y", legend={"loc": "upper left"}) is ax
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x", "y")
    assert ax.xaxis.label.get_fontsize() == plots.FONT["label"]
    assert ax.get_legend().get_texts()[0].get_fontsize() == plots.FONT["tick"] - 1
    assert any(line.get_visible() for line in ax.yaxis.get_gridlines())
    assert not any(line.get_visible() for line in ax.xaxis.get_gridlines())
    _, bare = plt.subplots()
    plots.style_axes(bare, grid=None, tick_size=7)
    assert bare.get_legend() is None and bare.get_xlabel() == ""
    assert bare.xaxis.get_major_ticks()[0].label1.get_fontsize() == 7


def test_reference_line_is_dashed_grey_and_needs_one_position():
    _, ax = plt.subplots()
    line = plots.reference_line(ax, y=0.25, label="uniform")
    assert line.get_linestyle() == "--" and line.get_color() == plots.REFERENCE_COLOR
    assert line.get_label() == "uniform" and list(line.get_ydata()) == [0.25, 0.25]
    assert list(plots.reference_line(ax, x=3).get_xdata()) == [3, 3]
    with pytest.raises(ValueError, match="exactly one"):
        plots.reference_line(ax)
    with pytest.raises(ValueError, match="exactly one"):
        plots.reference_line(ax, x=1, y=1)


def test_timers_return_what_they_measure(monkeypatch):
    """On a clock the test controls (each reading 0.25 s after the last): no wall-clock figure is asserted."""
    readings = iter(np.arange(1000) * 0.25)
    monkeypatch.setattr(measure, "time", types.SimpleNamespace(perf_counter=lambda: float(next(readings))))
    result, seconds = measure.timed(sum, [1, 2, 3])
    assert result == 6 and seconds == 0.25
    calls = []
    times = measure.latencies(calls.append, 1, runs=4)
    assert times.tolist() == [0.25] * 4 and len(calls) == 5          # one warm-up call
    measure.latencies(calls.append, 1, runs=2, warmup=False)
    assert len(calls) == 7
    assert measure.best_time(np.zeros, 10, repeats=2, min_seconds=0.001) == 0.25   # one call a round
    assert measure.best_time(np.zeros, 10, repeats=2, min_seconds=1.0) == 0.25 / 4     # four calls a round
    with pytest.raises(ValueError, match="runs"):
        measure.latencies(calls.append, 1, runs=0)
