"""Interactive widgets of the course: thin ipywidgets views over pure `*_state` functions.

Each widget is two parts. A pure function (`dot_product_state`, `attention_step_state`,
`scaling_state`, `temperature_state`, `mask_state`, `positional_state`) computes every number from
`attention_core` and returns a dict; tests call it directly. A builder (`dot_product_widget`,
...) only displays that dict: sliders -> state -> picture + HTML readout. Whatever a learner
sets, the widget never raises: an error becomes a red line of text in the widget (`common.error`).

Why it is fast (a 10x10 annotated heatmap, 2 shared cores; numbers in benchmarks/widget_latency.py):
redrawing a whole figure per change costs ~230 ms, mostly its 100 cell labels (each `Text.draw`
lays out and rasterises glyphs, ~0.6 ms). Here each widget keeps ONE Agg figure: the static part
(axes, ticks, labels, colour bar) is drawn once and cached as a bitmap (`copy_from_bbox`); an
update restores it, redraws only the changing artists (`draw_artist`), and stamps the cell
numbers from a cache of pre-rasterised strings straight into the pixel buffer, then encodes a
PNG (zlib level 1) into a `widgets.Image`. No browser-side code: works offline in Lab and Voila.

Layout: `_core` holds the shared machinery (rendering, `Panel`, error handling, control helpers);
each other module holds one notebook's widgets: `basics` (00, 01), `scaling_view` (02),
`temperature` (03), `masks_view` (04), `cross_view` (05), `heads_view` (06), `positional_view` and
`position_bias` (07), `path_length` (08), `context_cost` (09), `window_retrieval` (10). Every name
is re-exported here, so `widgets.X` works as before (to replace a name for a test, patch it in the
module that uses it, e.g. `widgets.temperature.temperature_state`).
"""
from __future__ import annotations


from . import (_core, basics, context_cost, cross_view, heads_view, masks_view, path_length, position_bias,
               positional_view, scaling_view, temperature, window_retrieval)
from ._core import (DPI, ERROR_COLOR, _RGB, HeatmapView, LiveFigure, Panel, TextStamps, _error_panel, _fmt,
                    _image, _nice_limit, _PngImage, _refresh, _side_position, _slider, _title, _watch, encode_png,
                    error_html)
from .basics import (_step_table, attention_step_state, attention_step_widget, dot_product_state,
                     dot_product_widget)
from .context_cost import (_COST_GRID, CONTEXT_LENGTHS, COST_DTYPES, COST_HEADS, COST_WIDTHS, _byte_ticks,
                           context_cost_state, context_cost_widget)
from .cross_view import _row_bars_html, cross_attention_state, cross_attention_widget
from .heads_view import head_widget
from .masks_view import MASK_KINDS, mask_state, mask_widget
from .path_length import path_length_state, path_length_widget
from .position_bias import position_bias_state, position_bias_widget
from .positional_view import positional_state, positional_widget
from .scaling_view import SCALING_DK, scaling_state, scaling_widget
from .temperature import temperature_state, temperature_widget
from .window_retrieval import window_retrieval_state, window_retrieval_widget
