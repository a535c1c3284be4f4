"""Shared machinery of every widget module: in-place rendering (`LiveFigure`, `TextStamps`,
`HeatmapView`), the `Panel` each builder returns, error handling and small control helpers.

Used by every notebook's widgets through the other modules of this package; see the package
docstring for why the rendering is done this way.
"""
from __future__ import annotations

import functools
import html
import io
import linecache
import math
import sysconfig
from pathlib import Path

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from attention_core.core.validation import describe, positive_float, positive_int
from attention_core.teaching import i18n, plots
from attention_core.teaching.fonts import use_cjk_font
from attention_core.teaching.static_view import StaticVBox

# This module's UI strings, English and Chinese side by side (registered with i18n on import).
STRINGS: dict[str, dict[str, str]] = {
    "common.error": {"en": "Cannot compute this: {msg}", "zh": "无法计算：{msg}"},
    "common.not_drawable": {"en": "these settings are outside what this widget can compute or draw (numbers too "
                                  "large, too small, empty or not numbers); try values closer to the defaults.",
                            "zh": "这些设置超出了这个控件能计算或绘制的范围（数值太大、太小、为空或不是数字）；"
                                  "请换成更接近默认值的数。"},
}
i18n.register(STRINGS)

DPI = 90                      # crisp enough on a projector, cheap enough to encode per update
DPI_RANGE = (20, 600)         # below: fonts of zero pixels; above: pictures of hundreds of megabytes
MAX_RANGE = 1e12              # largest slider half-range: beyond it a 0.1 step is lost to float64 rounding
MAX_SIDE = 200                # most rows or columns of a live heatmap: its cells keep a few pixels each
ERROR_COLOR = "#B00020"


# --- rendering core ---------------------------------------------------------------------------
def encode_png(rgba: np.ndarray) -> bytes:
    """PNG bytes (RGB) of an opaque (H, W, 4) uint8 buffer; zlib level 1 is faster than the
    default level 6 for about 5% more bytes."""
    from PIL import Image
    buf = io.BytesIO()
    # Figures here are opaque: dropping alpha saves a quarter of the bytes to compress.
    Image.fromarray(rgba, "RGBA").convert("RGB").save(buf, format="png", compress_level=1)
    return buf.getvalue()


class LiveFigure:
    """An Agg figure redrawn in place: static part cached as a bitmap, dynamic artists on top.

    Mark the changing artists with `animate(...)`; `render()` returns PNG bytes. Call
    `invalidate()` after changing anything static (labels, limits) to redraw it in full.
    """

    def __init__(self, figsize, dpi: int = DPI, layout: str | None = "compressed"):
        use_cjk_font()
        self.fig = Figure(figsize=figsize, dpi=check_dpi(dpi), layout=layout)
        FigureCanvasAgg(self.fig)
        self.dynamic: list = []
        self.after_draw = []          # callables(buffer) that paint into the pixels (text stamps)
        self._background = None

    def animate(self, *artists):
        for artist in artists:
            artist.set_animated(True)          # excluded from the full draw, drawn per update
            self.dynamic.append(artist)
        return artists[0] if len(artists) == 1 else artists

    def invalidate(self) -> None:
        self._background = None

    def ensure_background(self) -> bool:
        """Draw the static part if needed; True when it was (re)drawn (the layout may have moved)."""
        if self._background is not None:
            return False
        self.fig.canvas.draw()
        self._background = self.fig.canvas.copy_from_bbox(self.fig.bbox)
        return True

    def render(self) -> bytes:
        canvas = self.fig.canvas
        if not self.ensure_background():
            canvas.restore_region(self._background)
        for artist in self.dynamic:
            self.fig.draw_artist(artist)
        pixels = np.asarray(canvas.buffer_rgba())        # (H, W, 4), a view on Agg's buffer
        for paint in self.after_draw:
            paint(pixels)
        return encode_png(pixels)


class TextStamps:
    """Strings rasterised once by Agg and cached as alpha masks, then composited into a buffer.

    Cell numbers repeat ("0.00" ... "1.00"), so after a few updates every one is cached and a
    label costs ~20 microseconds instead of ~600 for `Text.draw`. Each stamp is centred on its
    ink box, which for digits matches `ha="center", va="center"` to within a pixel.
    """

    def __init__(self, fontsize: float, dpi: int):
        self.prop = FontProperties(size=fontsize)   # picks up the CJK fallback family list
        self.dpi = dpi
        self._cache: dict[str, np.ndarray | None] = {}

    def mask(self, text: str):
        if text not in self._cache:
            px = self.prop.get_size_in_points() * self.dpi / 72
            width, height = int(px * (len(text) + 2)) + 8, int(px * 2) + 8
            renderer = RendererAgg(width, height, self.dpi)
            gc = renderer.new_gc()
            gc.set_foreground("black")
            renderer.draw_text(gc, 4, height * 0.35, text, self.prop, 0)
            alpha = np.asarray(renderer.buffer_rgba())[..., 3]
            rows, cols = np.nonzero(alpha)
            self._cache[text] = None if rows.size == 0 else \
                (alpha[rows.min():rows.max() + 1, cols.min():cols.max() + 1].astype(np.float32) / 255)[..., None]
            if len(self._cache) > 2048:                    # formats with many digits: stay bounded
                self._cache.pop(next(iter(self._cache)))
        return self._cache[text]

    def stamp(self, pixels: np.ndarray, text: str, x: float, y: float, rgb) -> None:
        """Composite `text` centred on pixel (x, y) (y from the top) in colour rgb (0-255)."""
        alpha = self.mask(text)
        if alpha is None:
            return
        h, w = alpha.shape[:2]
        top, left = int(round(y - h / 2)), int(round(x - w / 2))
        t0, l0 = max(top, 0), max(left, 0)
        t1, l1 = min(top + h, pixels.shape[0]), min(left + w, pixels.shape[1])
        if t0 >= t1 or l0 >= l1:
            return
        a = alpha[t0 - top:t1 - top, l0 - left:l1 - left]
        region = pixels[t0:t1, l0:l1, :3]
        region[...] = region * (1 - a) + np.asarray(rgb, dtype=np.float32) * a


_RGB = {"white": (255, 255, 255), "black": (0, 0, 0)}


class HeatmapView:
    """A live attention heatmap: `update(weights)` redraws it in place; show `.widget`.

    weights (Tq, Tk); labels are the key tokens (and the query tokens when Tq == Tk, unless
    y_labels is given). mask (broadcastable to (Tq, Tk), True = visible) greys out masked cells.
    A new shape or new labels rebuild the figure; new values only repaint the cells: their
    colours are filled straight into the pixel buffer (resampling an image artist costs ~6 ms
    per draw), with a 1-pixel white seam between cells, and their numbers are stamped.
    """

    def __init__(self, weights=None, labels=None, *, y_labels=None, annotate="auto", cmap=plots.WEIGHTS_CMAP,
                 vmin=0.0, vmax=1.0, title=None, fmt="{:.2f}", dpi: int = DPI, scale: float = 0.8):
        self.widget = png_image()
        dpi = check_dpi(dpi)
        self.options = dict(annotate=annotate, cmap=cmap, vmin=vmin, vmax=vmax, title=title)
        self.fmt, self.dpi, self.scale = fmt, dpi, scale
        self.live = None
        self._key = None
        self.png = b""
        if weights is not None:
            self.update(weights, labels, y_labels=y_labels)

    @property
    def figure(self):
        return None if self.live is None else self.live.fig

    def rebuild(self) -> None:
        """Draw the figure anew at the next update (after a change of `options`, e.g. a new title)."""
        self._key = None

    def update(self, weights, labels=None, *, y_labels=None, mask=None) -> bytes:
        """Show new weights (and optionally new labels / mask); returns the PNG bytes shown."""
        weights = plots.as_matrix(weights, "weights")
        tq, tk = weights.shape
        check_side(max(tq, tk), "weights", f"shape {weights.shape}")
        if labels is None and self._key is not None and self._key[0] == weights.shape:
            labels, y_labels = self._key[1], self._key[2]         # same shape: keep the labels
        labels = plots.tick_labels(labels, tk, "labels", "key (column)")
        if y_labels is None and labels is not None and tq == tk:
            y_labels = labels
        y_labels = plots.tick_labels(y_labels, tq, "y_labels", "query (row)")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.dtype != bool:
                raise TypeError(f"mask: expected a boolean array (True = visible), got {describe(mask)}")
            try:
                mask = np.broadcast_to(mask, weights.shape)
            except ValueError:
                raise ValueError(f"mask: shape {mask.shape} does not broadcast to the weights "
                                 f"{weights.shape}") from None
        key = (weights.shape, labels, y_labels)
        if key != self._key:
            self._build(*key)
            self._key = key
        self._weights, self._visible = weights, mask
        self.image.set_data(weights)                        # keeps the artist honest (figure, savefig)
        if self.live.ensure_background():
            self._cells = self._cell_boxes(tq, tk)
        self.png = self.live.render()
        self.widget.value = self.png
        return self.png

    def _build(self, shape, labels, y_labels):
        tq, tk = shape
        w, h = plots.heatmap_figsize(tq, tk)
        self.live = LiveFigure((w * self.scale, h * self.scale), dpi=self.dpi)
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap_frame(self.ax, shape, labels, y_labels, cmap=self.options["cmap"],
                                         vmin=self.options["vmin"], vmax=self.options["vmax"], colorbar=True,
                                         title=self.options["title"])
        self.image.set_visible(False)                       # its cells are painted by _paint instead
        self.annotate = plots.annotate_flag(self.options["annotate"], shape)
        self.stamps = TextStamps(plots.cell_fontsize(shape), self.dpi)
        self.live.after_draw.append(self._paint)

    def _cell_boxes(self, tq, tk) -> np.ndarray:
        """(Tq*Tk, 4) integer pixel boxes (top, bottom, left, right) of the cells, rows from the top."""
        height = self.live.fig.canvas.get_width_height()[1]
        xs = self.ax.transData.transform(np.c_[np.arange(tk + 1) - 0.5, np.zeros(tk + 1)])[:, 0]
        ys = height - self.ax.transData.transform(np.c_[np.zeros(tq + 1), np.arange(tq + 1) - 0.5])[:, 1]
        xs, ys = np.round(np.sort(xs)).astype(int), np.round(np.sort(ys)).astype(int)
        return np.array([(ys[i] + 1, ys[i + 1], xs[j] + 1, xs[j + 1]) for i in range(tq) for j in range(tk)])

    def _paint(self, pixels):
        values = self._weights.ravel()
        rgb = (self.image.cmap(self.image.norm(values))[:, :3] * 255).round()          # (Tq*Tk, 3)
        visible = np.ones(values.size, bool) if self._visible is None else self._visible.ravel()
        rgb[~visible] = (232, 232, 232)                                                 # plots.MASK_COLORS[0]
        colors = plots.text_colors(values, self.image.cmap, self.image.norm)
        for k, (top, bottom, left, right) in enumerate(self._cells):
            pixels[top:bottom, left:right, :3] = rgb[k]
            if self.annotate and visible[k]:                # masked: grey cell, no number
                self.stamps.stamp(pixels, self.fmt.format(values[k]), (left + right) / 2, (top + bottom) / 2,
                                  _RGB[colors[k]])


# --- panels and error handling ----------------------------------------------------------------
class Panel(StaticVBox):
    """The box every builder returns. Besides its children it exposes, for tests and notebooks:
    `controls` (name -> input widget), `images` (name -> widgets.Image), `readout` (HTML),
    `message` (HTML, red when something is wrong) and `state` (the last dict computed).
    Its saved output also carries a static picture of its initial state (see `static_view`)."""

    def __init__(self, children=(), *, name="panel", controls=None, images=None, readout=None, message=None,
                 **kwargs):
        self.name = name
        self.controls = dict(controls or {})
        self.images = dict(images or {})
        self.readout = readout if readout is not None else widgets.HTML()
        self.message = message if message is not None else widgets.HTML()
        self.state = None
        super().__init__(children=list(children), **kwargs)

    def __repr__(self) -> str:          # short and stable: stored as text/plain in notebooks
        return f"<{self.name} widget>"


_PACKAGE = Path(__file__).resolve().parents[1]          # attention_core/


_LIBRARIES = tuple({Path(sysconfig.get_paths()[key]).resolve()
                   for key in ("stdlib", "platstdlib", "purelib", "platlib")})


def in_our_words(exc: BaseException) -> bool:
    """False when `exc` comes from inside NumPy, matplotlib or Python itself ("zero-size array...",
    "Singular matrix", "index 5 is out of bounds"), whose words mean nothing to a learner: raised
    in an installed library, or in attention_core by anything but a `raise` statement (an index or
    an operator). True for attention_core's own messages and for code outside any library (the
    learner's own cell, a test), whose words are the writer's."""
    tb = exc.__traceback__
    if tb is None:
        return True                                       # made, not raised: its text is the caller's
    while tb.tb_next is not None:
        tb = tb.tb_next
    name = tb.tb_frame.f_code.co_filename
    if name.endswith((".pyx", ".pxd", ".pxi")) or name.startswith("<frozen"):
        return False                                      # Cython inside NumPy, frozen parts of Python
    filename = Path(name).resolve()
    if _PACKAGE in filename.parents:
        return linecache.getline(str(filename), tb.tb_lineno).lstrip().startswith("raise")
    return not any(lib in filename.parents for lib in _LIBRARIES)


def plain_message(exc: BaseException) -> str:
    """What went wrong, for a learner: our own message, or a plain sentence in the current language
    instead of the text of an error from deep inside a library."""
    if isinstance(exc, i18n.WordedError):
        return exc.text()                                 # said in the current language
    return str(exc) if in_our_words(exc) else i18n.t("common.not_drawable")


def error_html(exc: BaseException) -> str:
    """A red line in the current language that says what went wrong (see plain_message)."""
    text = html.escape(i18n.t("common.error", msg=plain_message(exc)))
    return f'<div style="color:{ERROR_COLOR};font-weight:bold">⚠ {text}</div>'


def _refresh(panel: Panel, compute) -> None:
    """Run one update; on any error show it in the panel instead of raising (learners' inputs)."""
    try:
        panel.state = compute()
        panel.message.value = ""
    except Exception as exc:                       # noqa: BLE001 -- a widget must not die
        panel.message.value = error_html(exc)


def error_panel(exc: BaseException) -> Panel:
    message = widgets.HTML(error_html(exc))
    return Panel([message], message=message)


def watch(panel: Panel, compute) -> Panel:
    for control in panel.controls.values():
        control.observe(lambda _change: _refresh(panel, compute), names="value")
    _refresh(panel, compute)
    return panel


def widget_builder(build):
    """Decorator of every widget builder: whatever goes wrong while the panel is set up (checking
    the settings, building the figure, the first update) gives a Panel with a red message in plain
    words, never a traceback from matplotlib in the middle of a lesson."""
    @functools.wraps(build)
    def guarded(*args, **kwargs):
        try:
            return build(*args, **kwargs)
        except Exception as exc:                   # noqa: BLE001 -- a widget must not die
            return error_panel(exc)
    return guarded


def check_dpi(dpi) -> float:
    """Dots per inch of a widget's picture: a number in DPI_RANGE."""
    value = positive_float(dpi, "dpi")
    lo, hi = DPI_RANGE
    if not lo <= value <= hi:
        raise ValueError(f"dpi: expected a number from {lo} to {hi} (dots per inch of the picture), got {value:g}")
    return value


def check_count(n, name: str, *, maximum: int, minimum: int = 1) -> int:
    """A size a widget can recompute on every move of a slider: an integer from minimum to maximum
    (larger ones would take minutes or more memory than the machine has)."""
    n = positive_int(n, name, minimum=minimum)
    if n > maximum:
        raise ValueError(f"{name}: a widget recomputes sizes up to {maximum} on every move, got {n}; "
                         "call the lab's functions directly for larger ones")
    return n


def check_side(n, name: str, got: str | None = None) -> int:
    """A number of rows or columns a live heatmap can show: an integer from 1 to MAX_SIDE."""
    n = positive_int(n, name) if got is None else n
    if n > MAX_SIDE:
        raise ValueError(f"{name}: a live heatmap shows at most {MAX_SIDE} rows and columns, got "
                         f"{got or n}; pass a shorter sequence")
    return n


def check_range(limit, name: str = "limit", *, largest=None) -> float:
    """A slider half-range: a positive number up to MAX_RANGE (larger ranges overflow the figure's
    arithmetic and lose the slider's steps to rounding). largest: the learner's largest number
    when the range was derived from their inputs (the message then quotes it)."""
    if isinstance(limit, (int, float, np.integer, np.floating)) and not isinstance(limit, bool) \
            and float(limit) > MAX_RANGE:
        got = float(limit) if largest is None else float(largest)
        raise ValueError(f"{name}: the widget's sliders and axes reach at most ±{MAX_RANGE:.0e}, got "
                         f"{'numbers up to ' if largest is not None else ''}{got:.3g}; use smaller numbers")
    return positive_float(limit, name)


class _PngImage(widgets.Image):
    """widgets.Image with a short, stable text form: notebooks store `text/plain` next to the
    widget view, and the default repr would embed the PNG bytes (which nbval would compare)."""

    def __repr__(self) -> str:
        return "Image(png)"


def png_image() -> widgets.Image:
    """An image shown at its natural size: it shrinks with a narrow notebook instead of overflowing it,
    and is never stretched to the width of its box (flex-start: a VBox would stretch it, blurring text)."""
    return _PngImage(format="png", layout={"max_width": "100%", "height": "auto", "align_self": "flex-start"})


def title_html(key: str, **fields) -> widgets.HTML:
    return widgets.HTML(f"<b>{html.escape(i18n.t(key, **fields))}</b>")


def float_slider(description, value, limit, step=0.1):
    limit = check_range(limit)
    return widgets.FloatSlider(value=float(np.clip(value, -limit, limit)), min=-limit, max=limit, step=step,
                               description=description, readout_format=".2f", continuous_update=True,
                               style={"description_width": "initial"})


def slider_layout(description: str, track_px: int = 240) -> dict:
    """A layout wide enough for a slider's label, a usable track (track_px) and its readout.

    With description_width "initial" the label takes its natural width out of the slider's fixed
    width and the track gets the rest: a long label in 420 px left a ~30 px track. The label's width
    is estimated from its characters (13 px font: ~7.5 px Latin, ~14 px CJK)."""
    import unicodedata
    label = sum(14 if unicodedata.east_asian_width(c) in "WF" else 7.5 for c in description)
    return {"width": f"{int(label + track_px + 70)}px", "max_width": "100%"}


def nice_limit(values, factor: float = 1.5) -> float:
    """Slider half-range: factor x the largest magnitude, rounded up to a whole number (at least 2)."""
    top = factor * float(np.abs(values).max(initial=0.0))
    return float(max(2, math.ceil(top))) if math.isfinite(top) else math.inf     # inf: check_range says so


def side_position(v, lim: float):
    """Where to label an arrow that may overlap another one: beside its middle, not at its tip."""
    v = np.asarray(v, dtype=float)
    norm = float(np.hypot(*v))
    if norm == 0:
        return np.array([0.06 * lim, -0.06 * lim])
    side = np.array([v[1], -v[0]]) / norm                  # perpendicular, clockwise
    return v / 2 + 0.09 * lim * side


def fmt_num(x, digits: int = 3) -> str:
    """A number, or a vector as [a, b], for readouts."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        return f"{float(arr):.{digits}f}"
    return "[" + ", ".join(f"{v:.{digits}f}" for v in arr.ravel()) + "]"
