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
"""
from __future__ import annotations

import html
import io
import math

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyArrowPatch, Rectangle

from . import i18n, plots
from .attention import scaled_dot_product_attention
from .fonts import use_cjk_font
from .masks import causal_mask, combine_masks, padding_mask, sliding_window_mask
from .positional import sinusoidal_encoding
from .softmax import softmax
from .validation import as_float_array, describe, positive_float, positive_int

DPI = 90                      # crisp enough on a projector, cheap enough to encode per update
ERROR_COLOR = "#B00020"
MASK_KINDS = ("none", "causal", "padding", "window", "causal_padding")


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
        self.fig = Figure(figsize=figsize, dpi=dpi, layout=layout)
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
        self.widget = _image()
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

    def update(self, weights, labels=None, *, y_labels=None, mask=None) -> bytes:
        """Show new weights (and optionally new labels / mask); returns the PNG bytes shown."""
        weights = plots._matrix(weights, "weights")
        tq, tk = weights.shape
        if labels is None and self._key is not None and self._key[0] == weights.shape:
            labels, y_labels = self._key[1], self._key[2]         # same shape: keep the labels
        labels = plots._labels(labels, tk, "labels", "key (column)")
        if y_labels is None and labels is not None and tq == tk:
            y_labels = labels
        y_labels = plots._labels(y_labels, tq, "y_labels", "query (row)")
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
        self.annotate = plots._annotate_flag(self.options["annotate"], shape)
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
class Panel(widgets.VBox):
    """The box every builder returns. Besides its children it exposes, for tests and notebooks:
    `controls` (name -> input widget), `images` (name -> widgets.Image), `readout` (HTML),
    `message` (HTML, red when something is wrong) and `state` (the last dict computed)."""

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


def error_html(exc: BaseException) -> str:
    """A red line in the current language that says what went wrong."""
    text = html.escape(i18n.t("common.error", msg=str(exc)))
    return f'<div style="color:{ERROR_COLOR};font-weight:bold">⚠ {text}</div>'


def _refresh(panel: Panel, compute) -> None:
    """Run one update; on any error show it in the panel instead of raising (learners' inputs)."""
    try:
        panel.state = compute()
        panel.message.value = ""
    except Exception as exc:                       # noqa: BLE001 -- a widget must not die
        panel.message.value = error_html(exc)


def _error_panel(exc: BaseException) -> Panel:
    message = widgets.HTML(error_html(exc))
    return Panel([message], message=message)


def _watch(panel: Panel, compute) -> Panel:
    for control in panel.controls.values():
        control.observe(lambda _change: _refresh(panel, compute), names="value")
    _refresh(panel, compute)
    return panel


class _PngImage(widgets.Image):
    """widgets.Image with a short, stable text form: notebooks store `text/plain` next to the
    widget view, and the default repr would embed the PNG bytes (which nbval would compare)."""

    def __repr__(self) -> str:
        return "Image(png)"


def _image() -> widgets.Image:
    """An image that shrinks with a narrow notebook instead of overflowing it."""
    return _PngImage(format="png", layout={"max_width": "100%", "height": "auto"})


def _title(key: str, **fields) -> widgets.HTML:
    return widgets.HTML(f"<b>{html.escape(i18n.t(key, **fields))}</b>")


def _slider(description, value, limit, step=0.1):
    return widgets.FloatSlider(value=float(np.clip(value, -limit, limit)), min=-limit, max=limit, step=step,
                               description=description, readout_format=".2f", continuous_update=True,
                               style={"description_width": "initial"})


def _nice_limit(values, factor: float = 1.5) -> float:
    """Slider half-range: factor x the largest magnitude, rounded up to a whole number (at least 2)."""
    return float(max(2, math.ceil(factor * float(np.abs(values).max(initial=0.0)))))


def _side_position(v, lim: float):
    """Where to label an arrow that may overlap another one: beside its middle, not at its tip."""
    v = np.asarray(v, dtype=float)
    norm = float(np.hypot(*v))
    if norm == 0:
        return np.array([0.06 * lim, -0.06 * lim])
    side = np.array([v[1], -v[0]]) / norm                  # perpendicular, clockwise
    return v / 2 + 0.09 * lim * side


def _fmt(x, digits: int = 3) -> str:
    """A number, or a vector as [a, b], for readouts."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        return f"{float(arr):.{digits}f}"
    return "[" + ", ".join(f"{v:.{digits}f}" for v in arr.ravel()) + "]"


# --- 00: dot product --------------------------------------------------------------------------
def dot_product_state(a, b) -> dict:
    """a, b (2,) or any equal-length vectors -> dot, lengths, cosine and angle (degrees).

    cos and angle_deg are None when a vector is zero (the angle is undefined there).
    """
    a = as_float_array(a, "a", ndim=1)
    b = as_float_array(b, "b", ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"a and b: expected the same length, got shapes {a.shape} and {b.shape}")
    dot = float(a @ b)
    norm_a, norm_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    cos = dot / (norm_a * norm_b) if norm_a > 0 and norm_b > 0 else None
    angle = math.degrees(math.acos(max(-1.0, min(1.0, cos)))) if cos is not None else None
    return {"a": a, "b": b, "dot": dot, "norm_a": norm_a, "norm_b": norm_b, "cos": cos, "angle_deg": angle}


def dot_product_widget(a=(1.0, 0.5), b=(0.5, 1.0), *, limit: float = 3.0, dpi: int = DPI) -> Panel:
    """Two 2-D vectors on sliders -> arrows, dot product, lengths, cosine and angle (notebook 00)."""
    try:
        start = dot_product_state(a, b)
        limit = positive_float(limit, "limit")
        if start["a"].shape != (2,):
            raise ValueError(f"a: expected 2 numbers (x, y), got shape {start['a'].shape}")
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    controls = {f"{name}{axis}": _slider(f"{name} {'xy'[axis]}", start[name][axis], limit)
                for name in "ab" for axis in (0, 1)}
    live = LiveFigure((4.6, 4.6), dpi=dpi)
    ax = live.fig.add_subplot()
    lim = 1.15 * limit
    plots.setup_vector_axes(ax, lim)
    arrows = live.animate(ax.quiver([0, 0], [0, 0], [1, 1], [1, 1], color=plots.COLORS[:2], angles="xy",
                                    scale_units="xy", scale=1, width=0.014))
    tips = [live.animate(ax.text(0, 0, name, color=c, fontsize=plots.FONT["label"] + 2, ha="center",
                                 va="center")) for name, c in zip("ab", plots.COLORS)]
    image = _image()
    panel = Panel([_title("widgets.dot_title"), widgets.HBox([image, widgets.VBox(list(controls.values()))])],
                  name="dot_product", controls=controls, images={"vectors": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = dot_product_state([controls["a0"].value, controls["a1"].value],
                              [controls["b0"].value, controls["b1"].value])
        vecs = np.stack([s["a"], s["b"]])                                   # (2, 2)
        arrows.set_UVC(vecs[:, 0], vecs[:, 1])
        for text, v in zip(tips, vecs):
            text.set_position(plots.tip_position(v, lim))
        image.value = live.render()
        undefined = i18n.t("plots.undefined")
        meaning = ("widgets.dot_positive" if s["dot"] > 1e-9 else
                   "widgets.dot_negative" if s["dot"] < -1e-9 else "widgets.dot_zero")
        panel.readout.value = (
            "<div style='font-size:15px'>" + html.escape(i18n.t(
                "widgets.dot_readout", dot=_fmt(s["dot"], 2), na=_fmt(s["norm_a"], 2), nb=_fmt(s["norm_b"], 2),
                cos=undefined if s["cos"] is None else _fmt(s["cos"], 2),
                angle=undefined if s["angle_deg"] is None else f"{s['angle_deg']:.0f}°"))
            + "<br>" + html.escape(i18n.t(meaning)) + "</div>")
        return s

    return _watch(panel, compute)


# --- 01: one attention step, every number ----------------------------------------------------
def attention_step_state(q, keys, values, scale=None) -> dict:
    """One query through attention, keeping every intermediate number.

    q (Dk,), keys (Tk, Dk), values (Tk, Dv) -> dict with scores = keys @ q (Tk,),
    scale (1/sqrt(Dk) unless given), scaled (Tk,), weights = softmax(scaled) (Tk,),
    contributions = weights[:, None] * values (Tk, Dv) and output = their sum (Dv,).
    The weights and output come from `scaled_dot_product_attention` itself.
    """
    q = as_float_array(q, "q", ndim=1)
    keys = as_float_array(keys, "keys", ndim=2)
    values = as_float_array(values, "values", ndim=2)
    output, weights = scaled_dot_product_attention(q[None, :], keys, values, scale=scale)  # (1, Dv), (1, Tk)
    used_scale = 1.0 / math.sqrt(q.shape[0]) if scale is None else float(scale)
    scores = keys @ q                                                       # (Tk,)
    weights = weights[0]
    return {"q": q, "keys": keys, "values": values, "d": q.shape[0], "scale": used_scale, "scores": scores,
            "scaled": scores * used_scale, "weights": weights, "contributions": weights[:, None] * values,
            "output": output[0]}


def _step_table(s, names) -> str:
    """HTML table: one column per key, one row per step of the computation."""
    cell = "padding:2px 10px;text-align:right;font-family:monospace"
    head = "".join(f"<th style='{cell}'>{html.escape(n)}</th>" for n in names)
    rows = [("widgets.key", {}, [_fmt(k, 2) for k in s["keys"]]),
            ("widgets.score", {}, [_fmt(x) for x in s["scores"]]),
            ("widgets.scaled", {"d": s["d"]}, [_fmt(x) for x in s["scaled"]]),
            ("widgets.weight", {}, [_fmt(x) for x in s["weights"]]),
            ("widgets.value", {}, [_fmt(v, 2) for v in s["values"]]),
            (None, {}, [_fmt(c) for c in s["contributions"]])]
    body = ""
    for key, fields, cells in rows:
        label = "α·v" if key is None else i18n.t(key, **fields)
        body += (f"<tr><th style='padding:2px 10px;text-align:left'>{html.escape(label)}</th>"
                 + "".join(f"<td style='{cell}'>{c}</td>" for c in cells) + "</tr>")
    output = html.escape(i18n.t("widgets.output")) + f" = <b>{_fmt(s['output'])}</b>"
    total = html.escape(i18n.t("widgets.sum_check", total=_fmt(s["weights"].sum())))
    return (f"<table style='font-size:15px;border-collapse:collapse'><tr><th></th>{head}</tr>{body}</table>"
            f"<div style='font-size:16px;margin-top:6px'>{output} &nbsp; "
            f"<span style='color:#666'>{total}</span></div>")


def attention_step_widget(q=(1.0, 0.0), keys=((1.0, 0.0), (0.0, 1.0)), values=((2.0, 0.0), (0.0, 4.0)),
                          labels=None, *, edit_values: bool = True, limit=None, dpi: int = DPI) -> Panel:
    """Move q (and the values) with sliders; see scores, scaled scores, softmax weights and the
    output change together (notebook 01). Defaults are the worked example of seed 002:
    q=[1,0], k1=[1,0], k2=[0,1], v1=[2,0], v2=[0,4] -> weights [0.670, 0.330], output [1.340, 1.321].
    labels: optional token names of the keys. Plots appear for 2-D q/k (and 2-D values).
    """
    try:
        s0 = attention_step_state(q, keys, values)
        tk, dk, dv = s0["keys"].shape[0], s0["d"], s0["values"].shape[1]
        names = [f"k{j + 1}" for j in range(tk)] if labels is None else plots._labels(labels, tk, "labels", "key")
        if limit is None:       # slider ranges: 1.5x the largest input, q/keys and values apart
            q_limit = _nice_limit(np.concatenate([s0["q"], s0["keys"].ravel()]))
            v_limit = _nice_limit(s0["values"], factor=1.2)
        else:
            q_limit = v_limit = positive_float(limit, "limit")
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    keys_arr = s0["keys"]
    controls = {f"q{i}": _slider(f"q[{i}]", s0["q"][i], q_limit) for i in range(dk)}
    if edit_values:
        controls.update({f"v{j}_{i}": _slider(f"v{j + 1}[{i}]", s0["values"][j, i], v_limit)
                         for j in range(tk) for i in range(dv)})
    panels = (["query"] if dk == 2 else []) + ["weights"] + (["values"] if dv == 2 else [])
    live = LiveFigure((3.3 * len(panels), 3.6), dpi=dpi)
    axes = dict(zip(panels, np.atleast_1d(live.fig.subplots(1, len(panels)))))
    dyn = {}
    if "query" in axes:
        ax, lim = axes["query"], 1.15 * q_limit
        plots.setup_vector_axes(ax, lim)
        ax.set_title(i18n.t("widgets.query_panel"), fontsize=plots.FONT["label"])
        for j, k in enumerate(keys_arr):
            ax.text(*plots.tip_position(k, lim), names[j], color="#666666", fontsize=plots.FONT["tick"],
                    ha="center", va="center")
        dyn["q"] = live.animate(ax.quiver([0], [0], [1], [0], color=plots.COLORS[1], angles="xy",
                                          scale_units="xy", scale=1, width=0.018))
        dyn["q_tip"] = live.animate(ax.text(0, 0, "q", color=plots.COLORS[1], fontsize=plots.FONT["label"] + 1,
                                            ha="center", va="center"))
        # The keys are dashed and drawn after q (animated artists paint over the cached background in
        # order), so a q lying on a key, as q = [1, 0] on k1 does, does not hide it.
        for k in keys_arr:
            live.animate(ax.add_patch(FancyArrowPatch((0, 0), tuple(k), arrowstyle="-|>", mutation_scale=12,
                                                      shrinkA=0, shrinkB=0, color="#555555", linewidth=1.4,
                                                      linestyle=(0, (3, 2)), zorder=5)))
    ax = axes["weights"]
    ax.set_title(i18n.t("widgets.weights_panel"), fontsize=plots.FONT["label"])
    ax.set_ylim(0, 1.12)
    ax.set_xticks(range(tk), names)
    ax.tick_params(labelsize=plots.FONT["tick"])
    bars = ax.bar(range(tk), np.zeros(tk), color=plots.COLORS[0])
    live.animate(*bars)
    dyn["bar_text"] = [live.animate(ax.text(j, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"]))
                       for j in range(tk)]
    if "values" in axes:
        ax, lim = axes["values"], 1.15 * v_limit
        plots.setup_vector_axes(ax, lim)
        ax.set_title(i18n.t("widgets.values_panel"), fontsize=plots.FONT["label"])
        dyn["v"] = live.animate(ax.quiver(np.zeros(tk), np.zeros(tk), np.ones(tk), np.ones(tk), color="#999999",
                                          angles="xy", scale_units="xy", scale=1, width=0.012))
        dyn["v_tips"] = [live.animate(ax.text(0, 0, f"v{j + 1}", color="#666666", fontsize=plots.FONT["tick"],
                                              ha="center", va="center")) for j in range(tk)]
        # The weighted sum drawn head to tail: alpha_1 v_1, then alpha_2 v_2 from its tip, ...
        dyn["chain"] = live.animate(ax.quiver(np.zeros(tk), np.zeros(tk), np.ones(tk), np.ones(tk),
                                              color="#9ad0b8", angles="xy", scale_units="xy", scale=1, width=0.010))
        dyn["out"] = live.animate(ax.quiver([0], [0], [1], [0], color=plots.COLORS[2], angles="xy",
                                            scale_units="xy", scale=1, width=0.018))
        dyn["out_tip"] = live.animate(ax.text(0, 0, "Σαv", color=plots.COLORS[2], fontsize=plots.FONT["label"],
                                              ha="center", va="center"))
    image = _image()
    panel = Panel([_title("widgets.step_title"), image, widgets.HBox(
        [widgets.VBox([c for n, c in controls.items() if n.startswith("q")]),
         widgets.VBox([c for n, c in controls.items() if n.startswith("v")])])],
        name="attention_step", controls=controls, images={"step": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        qv = [controls[f"q{i}"].value for i in range(dk)]
        vv = (np.array([[controls[f"v{j}_{i}"].value for i in range(dv)] for j in range(tk)]) if edit_values
              else s0["values"])
        s = attention_step_state(qv, keys_arr, vv)
        if "q" in dyn:
            dyn["q"].set_UVC([s["q"][0]], [s["q"][1]])
            dyn["q_tip"].set_position(_side_position(s["q"], 1.15 * q_limit))
        for bar, text, w in zip(bars, dyn["bar_text"], s["weights"]):
            bar.set_height(w)
            text.set_position((bar.get_x() + bar.get_width() / 2, w + 0.01))
            text.set_text(f"{w:.3f}")
        if "v" in dyn:
            dyn["v"].set_UVC(s["values"][:, 0], s["values"][:, 1])
            for text, v in zip(dyn["v_tips"], s["values"]):
                text.set_position(plots.tip_position(v, 1.15 * v_limit))
            dyn["out"].set_UVC([s["output"][0]], [s["output"][1]])
            starts = np.cumsum(s["contributions"], axis=0) - s["contributions"]     # (Tk, Dv)
            dyn["chain"].set_offsets(starts)
            dyn["chain"].set_UVC(s["contributions"][:, 0], s["contributions"][:, 1])
            dyn["out_tip"].set_position(plots.tip_position(s["output"], 1.15 * v_limit))
        image.value = live.render()
        panel.readout.value = _step_table(s, names)
        return s

    return _watch(panel, compute)


# --- 03: temperature --------------------------------------------------------------------------
def temperature_state(scores, temperature: float) -> dict:
    """softmax(scores / T) of a score vector (N,), with how peaked it is.

    Returns weights (N,), scaled = scores / T, max_weight, argmax, entropy (nats) and
    max_entropy = ln N (the uniform distribution's).
    """
    scores = as_float_array(scores, "scores", ndim=1)
    t = positive_float(temperature, "temperature")
    weights = softmax(scores, temperature=t)                              # stable at every T
    nonzero = weights[weights > 0]
    return {"scores": scores, "temperature": t, "scaled": scores / t, "weights": weights,
            "max_weight": float(weights.max()), "argmax": int(weights.argmax()),
            "entropy": float(-(nonzero * np.log(nonzero)).sum()), "max_entropy": float(np.log(scores.size))}


def temperature_widget(scores=(2.0, 1.0, 0.5, 0.0, -1.0), labels=None, *, temperature: float = 1.0,
                       t_min: float = 0.01, t_max: float = 100.0, dpi: int = DPI) -> Panel:
    """A log-scale temperature slider over softmax(scores / T): near one-hot -> near uniform (notebook 03)."""
    try:
        s0 = temperature_state(scores, temperature)
        n = s0["scores"].size
        names = [str(j) for j in range(n)] if labels is None else plots._labels(labels, n, "labels", "score")
        lo, hi = math.log10(positive_float(t_min, "t_min")), math.log10(positive_float(t_max, "t_max"))
        if lo >= hi:
            raise ValueError(f"t_min, t_max: expected t_min < t_max, got {t_min} and {t_max}")
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    slider = widgets.FloatLogSlider(value=float(np.clip(s0["temperature"], t_min, t_max)), base=10, min=lo, max=hi,
                                    step=0.01, description=i18n.t("widgets.temperature"), readout_format=".3g",
                                    continuous_update=True, style={"description_width": "initial"},
                                    layout={"width": "420px"})
    live = LiveFigure((max(4.0, 0.8 * n + 2), 3.4), dpi=dpi)
    ax = live.fig.add_subplot()
    ax.set_ylim(0, 1.12)
    ax.set_xticks(range(n), names)
    ax.set_xlabel(i18n.t("widgets.token"), fontsize=plots.FONT["label"])
    ax.set_ylabel(i18n.t("plots.weight"), fontsize=plots.FONT["label"])
    ax.tick_params(labelsize=plots.FONT["tick"])
    ax.axhline(1 / n, color="#999999", linestyle="--", linewidth=1)       # the uniform level
    bars = ax.bar(range(n), np.zeros(n), color=plots.COLORS[0])
    live.animate(*bars)
    texts = [live.animate(ax.text(j, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 1))
             for j in range(n)]
    image = _image()
    panel = Panel([image, slider, widgets.HTML(html.escape(i18n.t("widgets.temp_hint")))],
                  name="temperature", controls={"temperature": slider}, images={"weights": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = temperature_state(s0["scores"], slider.value)
        for bar, text, w in zip(bars, texts, s["weights"]):
            bar.set_height(w)
            text.set_position((bar.get_x() + bar.get_width() / 2, w + 0.01))
            text.set_text(f"{w:.2f}")
        image.value = live.render()
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "widgets.temp_readout", max=_fmt(s["max_weight"]), h=_fmt(s["entropy"]), hmax=_fmt(s["max_entropy"]))) \
            + "</div>"
        return s

    return _watch(panel, compute)


# --- 04: masks --------------------------------------------------------------------------------
def mask_state(kind: str, scores, length=None, window=None) -> dict:
    """Weights of a (T, T) score matrix under one kind of mask.

    kind: "none", "causal", "padding" (keys >= length hidden), "window" (causal sliding window
    of `window` keys), "causal_padding" (both). Returns mask (T, T) bool (True = visible),
    weights (T, T) = softmax(scores, mask) and visible (T,) = keys each query may see.
    """
    scores = plots._matrix(scores, "scores")
    t = scores.shape[1]
    if scores.shape[0] != t:
        raise ValueError(f"scores: expected a square (T, T) matrix, got shape {scores.shape}")
    if kind not in MASK_KINDS:
        raise ValueError(f"kind: expected one of {MASK_KINDS}, got {kind!r}")
    pad = None
    if kind in ("padding", "causal_padding"):
        length = positive_int(length, "length")
        if length > t:
            raise ValueError(f"length: expected at most T = {t}, got {length}")
        pad = padding_mask([length], t)[0]                                 # (1, T)
    causal = causal_mask(t) if kind in ("causal", "causal_padding") else None
    win = sliding_window_mask(t, positive_int(window, "window")) if kind == "window" else None
    if kind == "none":
        mask = np.ones((t, t), dtype=bool)
    else:
        mask = np.broadcast_to(combine_masks(causal, pad, win), (t, t)).copy()
    weights = softmax(scores, mask=mask)
    return {"kind": kind, "mask": mask, "weights": weights, "visible": mask.sum(axis=1)}


def mask_widget(T: int = 6, labels=None, *, scores=None, seed: int = 0, dpi: int = DPI) -> Panel:
    """Pick a mask (none, causal, padding, sliding window, causal + padding) and see the weights
    of the same scores change; masked cells are grey (notebook 04). scores: a (T, T) matrix
    (then T is taken from it); default a seeded standard-normal one."""
    try:
        if scores is None:
            t = positive_int(T, "T")
            scores = np.random.default_rng(seed).normal(size=(t, t))        # (T, T), seeded
        scores = plots._matrix(scores, "scores")
        t = mask_state("none", scores)["mask"].shape[0]
        labels = plots._labels(labels, t, "labels", "token")
        view = HeatmapView(None, labels, dpi=dpi)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    kind = widgets.Dropdown(options=[(i18n.t(f"widgets.mask_{k}"), k) for k in MASK_KINDS], value="causal",
                            description=i18n.t("widgets.mask_kind"))
    length = widgets.IntSlider(value=max(1, t - 2), min=1, max=t, description=i18n.t("widgets.length"),
                               style={"description_width": "initial"})
    window = widgets.IntSlider(value=min(3, t), min=1, max=t, description=i18n.t("widgets.window"),
                               style={"description_width": "initial"})
    panel = Panel([widgets.HBox([kind, length, window]), view.widget],
                  name="mask", controls={"kind": kind, "length": length, "window": window},
                  images={"weights": view.widget})
    panel.children += (panel.readout, panel.message)
    panel.view = view

    def compute():
        length.layout.display = "" if kind.value in ("padding", "causal_padding") else "none"
        window.layout.display = "" if kind.value == "window" else "none"
        s = mask_state(kind.value, scores, length=length.value, window=window.value)
        view.update(s["weights"], labels, mask=s["mask"])
        counts = ", ".join(str(int(c)) for c in s["visible"])
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(
            i18n.t("widgets.mask_readout", counts=counts)) + "</div>"
        return s

    return _watch(panel, compute)


# --- 06: heads --------------------------------------------------------------------------------
def head_widget(weights, labels=None, *, y_labels=None, head_names=None, dpi: int = DPI) -> Panel:
    """Pick one head of weights (H, Tq, Tk) and see its heatmap (notebook 06).
    head_names: optional H names for the menu (default "head 1", ...)."""
    try:
        weights = as_float_array(weights, "weights")
        if weights.ndim != 3 or weights.size == 0:
            raise ValueError(f"weights: expected a non-empty (H, Tq, Tk) array, got shape {weights.shape}")
        h = weights.shape[0]
        names = plots._labels(head_names, h, "head_names", "head") or [i18n.t("plots.head", h=i + 1) for i in range(h)]
        view = HeatmapView(weights[0], labels, y_labels=y_labels, dpi=dpi)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    head = widgets.Dropdown(options=[(name, i) for i, name in enumerate(names)], value=0)
    panel = Panel([head, view.widget], name="head", controls={"head": head}, images={"weights": view.widget})
    panel.children += (panel.message,)
    panel.view = view

    def compute():
        view.update(weights[head.value])
        return {"head": head.value, "weights": weights[head.value]}

    return _watch(panel, compute)


# --- 07: positions ----------------------------------------------------------------------------
def positional_state(n_positions: int, d_model: int, position: int, dim: int, base: float = 10000.0) -> dict:
    """The sinusoidal table (T, D) and one entry of it: value PE[p, i], column i (T,), row p (D,)
    and the wavelength of dimension i, 2*pi*base^(2*floor(i/2)/D) positions."""
    table = sinusoidal_encoding(n_positions, d_model, base)                   # (T, D)
    t, d = table.shape
    for name, value, top in (("position", position, t), ("dim", dim, d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < top:
            raise ValueError(f"{name}: expected an integer in 0..{top - 1}, got {describe(value)}")
    wavelength = 2 * math.pi * float(base) ** (2 * (dim // 2) / d)
    return {"table": table, "value": float(table[position, dim]), "column": table[:, dim], "row": table[position],
            "wavelength": wavelength}


def positional_widget(T: int = 32, D: int = 64, *, base: float = 10000.0, position: int = 5, dim: int = 4,
                      dpi: int = DPI) -> Panel:
    """Sliders over position p and dimension i of the sinusoidal table: the table with a
    crosshair, and dimension i as a wave along the positions (notebook 07)."""
    try:
        s0 = positional_state(T, D, min(position, T - 1), min(dim, D - 1), base)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    t, d = s0["table"].shape
    p_slider = widgets.IntSlider(value=min(position, t - 1), min=0, max=t - 1, description="p",
                                 continuous_update=True)
    i_slider = widgets.IntSlider(value=min(dim, d - 1), min=0, max=d - 1, description="i", continuous_update=True)
    live = LiveFigure((7.5, 6.4), dpi=dpi)
    top, bottom = live.fig.subplots(2, 1, height_ratios=(3, 2))
    plots.plot_positional_encoding(s0["table"], ax=top)
    hline = live.animate(top.axhline(0, color="black", linewidth=1.2))
    vline = live.animate(top.axvline(0, color="black", linewidth=1.2))
    marker = live.animate(top.plot([0], [0], marker="s", markersize=10, markerfacecolor="none",
                                   markeredgecolor=plots.COLORS[4], markeredgewidth=2.5)[0])
    positions = np.arange(t)
    bottom.set_xlim(-0.5, t - 0.5)
    bottom.set_ylim(-1.15, 1.15)
    bottom.set_xlabel(i18n.t("plots.position"), fontsize=plots.FONT["label"])
    bottom.tick_params(labelsize=plots.FONT["tick"])
    bottom.grid(True, color="#dddddd")
    curve = live.animate(bottom.plot(positions, s0["column"], color=plots.COLORS[0], marker="o", markersize=3)[0])
    dot = live.animate(bottom.plot([0], [0], "o", color=plots.COLORS[1], markersize=10)[0])
    bottom.set_ylabel("PE[p, i]", fontsize=plots.FONT["label"])
    bottom.set_title(i18n.t("widgets.pe_column", i=i_slider.value), fontsize=plots.FONT["label"])
    caption = live.animate(bottom.title)
    image = _image()
    panel = Panel([image, widgets.HBox([p_slider, i_slider])], name="positional",
                  controls={"position": p_slider, "dim": i_slider}, images={"table": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = positional_state(t, d, p_slider.value, i_slider.value, base)
        p, i = p_slider.value, i_slider.value
        hline.set_ydata([p, p])
        vline.set_xdata([i, i])
        marker.set_data([i], [p])
        curve.set_ydata(s["column"])
        dot.set_data([p], [s["value"]])
        caption.set_text(i18n.t("widgets.pe_column", i=i))
        image.value = live.render()
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "widgets.pe_readout", p=p, i=i, v=_fmt(s["value"]), wl=f"{s['wavelength']:.1f}")) + "</div>"
        return s

    return _watch(panel, compute)


# --- 02: scaling ------------------------------------------------------------------------------
SCALING_DK = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def scaling_state(d_k: int, scaled: bool, *, seed: int = 0, n_samples: int = 6000, n_keys: int = 16) -> dict:
    """Scores of random unit-variance vectors at width d_k, with or without the 1/sqrt(d_k) scale.

    Returns dot_products (n_samples,) (q·k, or q·k / sqrt(d_k) when scaled) with their variance
    and std, and one row of n_keys scores from `scaling.softmax_saturation` (same seed): scores
    (n_keys,), weights (n_keys,), argmax, max_weight, entropy, jacobian_norm, and the uniform
    row's max_entropy and uniform_jacobian_norm. Switching `scaled` keeps the same vectors.
    """
    from . import scaling
    row = scaling.softmax_saturation(d_k, scaled, seed, n_keys=n_keys)            # validates d_k, scaled, seed
    raw = scaling._cached_dot_products(row["d_k"], positive_int(n_samples, "n_samples", minimum=2), seed)
    dots = raw * row["scale"]                                                     # (n_samples,)
    variance = float(dots.var())
    return {"d_k": row["d_k"], "scaled": row["scaled"], "scale": row["scale"], "dot_products": dots,
            "variance": variance, "std": math.sqrt(variance), "scores": row["scores"][0],
            "weights": row["weights"][0], "argmax": int(row["argmax"][0]), "max_weight": row["max_weight"],
            "entropy": row["entropy"], "jacobian_norm": row["jacobian_norm"], "max_entropy": row["max_entropy"],
            "uniform_jacobian_norm": row["uniform_jacobian_norm"]}


def scaling_widget(d_k: int = 64, scaled: bool = False, *, d_k_values=SCALING_DK, seed: int = 0,
                   n_samples: int = 6000, n_keys: int = 16, bins: int = 200, dpi: int = DPI) -> Panel:
    """A d_k slider and a scaling switch (notebook 02). Left: the histogram of q·k (or q·k / sqrt(d_k))
    for random unit-variance vectors, on one fixed axis, so its spread is visible. Right: the softmax
    weights of one row of n_keys such scores; the readout gives the largest weight, the entropy and
    the Jacobian norm of softmax."""
    from .scaling import SATURATED, _dk_values
    try:
        options = _dk_values(d_k_values)
        if d_k not in options:
            raise ValueError(f"d_k: expected one of {options}, got {describe(d_k)}")
        s0 = scaling_state(d_k, scaled, seed=seed, n_samples=n_samples, n_keys=n_keys)
        bins = positive_int(bins, "bins", minimum=4)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    dk_slider = widgets.SelectionSlider(options=list(options), value=d_k, description=i18n.t("scaling.d_k"),
                                        continuous_update=True, style={"description_width": "initial"},
                                        layout={"width": "420px"})
    mode = widgets.ToggleButtons(options=[(i18n.t("scaling.off"), False), (i18n.t("scaling.on"), True)],
                                 value=bool(scaled), description=i18n.t("scaling.mode"),
                                 style={"description_width": "initial", "button_width": "150px"})
    lim = 4 * math.sqrt(max(options))                 # one x-axis for every setting: the spread shows
    edges = np.linspace(-lim, lim, bins + 1)
    live = LiveFigure((10.0, 3.6), dpi=dpi)
    hist_ax, w_ax = live.fig.subplots(1, 2, width_ratios=(3, 2))
    hist_ax.set_xlim(-lim, lim)
    hist_ax.set_ylim(0, 1.12)
    hist_ax.set_yticks([])
    hist_ax.set_xlabel(i18n.t("scaling.score"), fontsize=plots.FONT["label"])
    hist_ax.set_ylabel(i18n.t("scaling.share"), fontsize=plots.FONT["label"])
    hist_ax.tick_params(labelsize=plots.FONT["tick"])
    bars = hist_ax.bar(edges[:-1], np.zeros(bins), width=np.diff(edges), align="edge", color=plots.COLORS[0])
    live.animate(*bars)
    band = live.animate(Rectangle((-1, 0), 2, 1.12, color=plots.COLORS[1], alpha=0.18, linewidth=0,
                                  label=i18n.t("scaling.std_band")))
    hist_ax.add_patch(band)
    hist_ax.legend(handles=[band], loc="upper right", fontsize=plots.FONT["tick"] - 1, frameon=False)
    hist_ax.set_title(" ", fontsize=plots.FONT["label"])
    caption = live.animate(hist_ax.title)
    n = s0["weights"].size
    w_ax.set_ylim(0, 1.08)
    w_ax.set_xticks(range(n), [str(j + 1) if j == 0 or (j + 1) % 4 == 0 else "" for j in range(n)])
    w_ax.set_xlabel(i18n.t("scaling.key"), fontsize=plots.FONT["label"])
    w_ax.set_ylabel(i18n.t("plots.weight"), fontsize=plots.FONT["label"])
    w_ax.set_title(i18n.t("scaling.weights_title", n=n), fontsize=plots.FONT["label"])
    w_ax.tick_params(labelsize=plots.FONT["tick"] - 1)
    w_ax.axhline(1 / n, color="#999999", linestyle="--", linewidth=1)     # the uniform level
    w_bars = w_ax.bar(range(n), np.zeros(n), color=plots.COLORS[0])
    live.animate(*w_bars)
    image = _image()
    panel = Panel([_title("scaling.title", n=n), image, widgets.HBox([dk_slider, mode])], name="scaling",
                  controls={"d_k": dk_slider, "scaled": mode}, images={"scaling": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = scaling_state(dk_slider.value, mode.value, seed=seed, n_samples=n_samples, n_keys=n_keys)
        counts, _ = np.histogram(np.clip(s["dot_products"], -lim, lim), bins=edges)
        heights = counts / counts.max()                                   # tallest bar = 1
        for bar, h in zip(bars, heights):
            bar.set_height(h)
        std = min(s["std"], lim)
        band.set_x(-std)                                                   # the band of +- 1 std
        band.set_width(2 * std)
        what = i18n.t("scaling.on" if s["scaled"] else "scaling.off")
        caption.set_text(i18n.t("scaling.hist_title", what=what, n=s["dot_products"].size))
        for bar, w in zip(w_bars, s["weights"]):
            bar.set_height(w)
            bar.set_color(plots.COLORS[1] if w >= SATURATED else plots.COLORS[0])
        image.value = live.render()
        verdict = "scaling.saturated" if s["max_weight"] >= SATURATED else "scaling.healthy"
        panel.readout.value = ("<div style='font-size:15px'>" + html.escape(i18n.t(
            "scaling.readout", var=_fmt(s["variance"], 2), std=_fmt(s["std"], 2), max=_fmt(s["max_weight"]),
            h=_fmt(s["entropy"]), hmax=_fmt(s["max_entropy"]), j=_fmt(s["jacobian_norm"]),
            juni=_fmt(s["uniform_jacobian_norm"]))) + "<br>" + html.escape(i18n.t(verdict)) + "</div>")
        return s

    return _watch(panel, compute)


# --- 05: self- and cross-attention ------------------------------------------------------------
def cross_attention_state(pair: str = "cat_mat", mode: str = "cross", order: str = "as_written", query: int = 0,
                          *, seed: int = 0) -> dict:
    """One attention layer of `cross_lab` and one query word's row of it (notebook 05).

    mode "cross": queries = the Chinese decoder sentence, keys and values = the English encoder
    sentence, weights (Tq, Tk); mode "self": queries, keys and values = the English sentence,
    weights (T, T). order reorders the English words (as_written, reversed, shuffled with seed).
    query: index of the query word in the sentence as written (Chinese for cross, English for
    self), so it names the same word whatever the order. Returns weights, the key and query
    tokens, the row (Tk,) of that word, its position after reordering, its top key and weight,
    and for cross the English word it translates (gold).
    """
    from . import cross_lab
    if mode not in cross_lab.MODES:
        raise ValueError(f"mode: expected one of {cross_lab.MODES}, got {describe(mode)}")
    english, chinese, gold = cross_lab.translation_pair(pair)
    perm = cross_lab.order_permutation(len(english.tokens), order, seed)
    source = cross_lab.reorder(english, perm)
    written = chinese if mode == "cross" else english
    n = len(written.tokens)
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 0 <= query < n:
        raise ValueError(f"query: expected an integer in 0..{n - 1}, got {describe(query)}")
    if mode == "cross":
        queries, params, row_index = chinese, cross_lab.cross_params(), int(query)
    else:
        queries, params = source, cross_lab.self_params()
        row_index = int(np.argsort(perm)[query])              # where the word stands after reordering
    output, weights = cross_lab.attend(queries, source, params)          # (Tq, F), (Tq, Tk)
    row = weights[row_index]                                             # (Tk,)
    top = int(row.argmax())
    word = queries.tokens[row_index]
    return {"pair": pair, "mode": mode, "order": order, "permutation": perm, "weights": weights,
            "output": output, "query_tokens": queries.tokens, "key_tokens": source.tokens,
            "row_index": row_index, "query_token": word, "row": row, "top": top,
            "top_token": source.tokens[top], "top_weight": float(row[top]),
            "distinct": bool(np.ptp(row) > 0.05), "gold": gold.get(word) if mode == "cross" else None}


def _row_bars_html(tokens, row, top: int) -> str:
    """One row of weights as HTML bars (the chosen word's row of the heatmap)."""
    return "<table>" + "".join(
        f"<tr><td style='text-align:right;padding-right:6px;{'font-weight:bold' if j == top else ''}'>"
        f"{html.escape(tok)}</td><td><div style='background:{plots.COLORS[0]};height:12px;"
        f"width:{max(1, round(200 * w))}px'></div></td><td style='padding-left:6px'>{w:.2f}</td></tr>"
        for j, (tok, w) in enumerate(zip(tokens, row))) + "</table>"


def cross_attention_widget(pair: str = "cat_mat", mode: str = "cross", *, order: str = "as_written",
                           query: int = 0, seed: int = 0, dpi: int = DPI) -> Panel:
    """Switch between cross-attention (Chinese decoder queries over English encoder keys and
    values) and self-attention (the English sentence over itself), reorder the English words,
    pick a query word: see the whole weight matrix and that word's row (notebook 05)."""
    from . import cross_lab
    try:
        s0 = cross_attention_state(pair, mode, order, query, seed=seed)
        view = HeatmapView(None, dpi=dpi)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)

    def words(p, m):
        english, chinese, _ = cross_lab.translation_pair(p)
        tokens = (chinese if m == "cross" else english).tokens
        return [(f"{tok} ({i + 1})" if tokens.count(tok) > 1 else tok, i) for i, tok in enumerate(tokens)]

    pair_box = widgets.Dropdown(options=[(f"{cross_lab.PAIRS[p][0]} → {cross_lab.PAIRS[p][1].replace(' ', '')}", p)
                                         for p in cross_lab.PAIRS], value=pair, description=i18n.t("cross.pair"),
                                layout={"width": "max-content"})
    mode_box = widgets.ToggleButtons(options=[(i18n.t(f"cross.mode_{m}"), m) for m in cross_lab.MODES], value=mode,
                                     description=i18n.t("cross.mode"),
                                     style={"description_width": "initial", "button_width": "190px"})
    order_box = widgets.Dropdown(options=[(i18n.t(f"cross.order_{o}"), o) for o in cross_lab.ORDERS], value=order,
                                 description=i18n.t("cross.order"), style={"description_width": "initial"})
    query_box = widgets.Dropdown(options=words(pair, mode), value=query, description=i18n.t("cross.query"),
                                 style={"description_width": "initial"})
    bars = widgets.HTML()
    guard = {"busy": False, "mode": None}

    def new_words(_change):                        # runs before the redraw: keep the word list right
        guard["busy"] = True
        keep = query_box.value
        query_box.options = words(pair_box.value, mode_box.value)
        query_box.value = keep if keep < len(query_box.options) else 0
        guard["busy"] = False

    pair_box.observe(new_words, names="value")
    mode_box.observe(new_words, names="value")
    panel = Panel([widgets.HBox([pair_box, order_box]), mode_box, query_box,
                   widgets.HBox([view.widget, bars], layout={"align_items": "center"})],
                  name="cross_attention",
                  controls={"pair": pair_box, "mode": mode_box, "order": order_box, "query": query_box},
                  images={"weights": view.widget})
    panel.children += (panel.readout, panel.message)
    panel.view, panel.bars = view, bars

    def compute():
        if guard["busy"]:                          # the word list is being rebuilt: wait for it
            return panel.state
        s = cross_attention_state(pair_box.value, mode_box.value, order_box.value, query_box.value, seed=seed)
        if guard["mode"] != s["mode"]:              # a new title: rebuild the figure
            view.options["title"] = i18n.t(f"cross.title_{s['mode']}")
            view._key = None
            guard["mode"] = s["mode"]
        view.update(s["weights"], list(s["key_tokens"]), y_labels=list(s["query_tokens"]))
        bars.value = ("<div style='margin-left:12px'><b>" + html.escape(i18n.t("cross.row_title", query=s["query_token"]))
                      + "</b>" + _row_bars_html(s["key_tokens"], s["row"], s["top"]) + "</div>")
        tq, tk = s["weights"].shape
        others = s["row"].copy()
        others[s["top"]] = -1.0
        second = int(others.argmax()) if tk > 1 else s["top"]                # the runner-up
        if s["distinct"] and s["top_weight"] - s["row"][second] < 0.05:      # a tie: say so
            a, b = sorted((s["top"], second))
            line = i18n.t("cross.split", query=s["query_token"], a=s["key_tokens"][a], b=s["key_tokens"][b],
                          weight=f"{s['top_weight']:.2f}")
        elif s["distinct"]:
            line = i18n.t("cross.readout", query=s["query_token"], target=s["top_token"],
                          weight=f"{s['top_weight']:.2f}", tq=tq, tk=tk,
                          square=i18n.t("cross.square" if tq == tk else "cross.not_square"))
        else:
            line = i18n.t("cross.even", query=s["query_token"], weight=f"{s['top_weight']:.2f}")
        if s["gold"] is not None:
            line += " · " + i18n.t("cross.translates", query=s["query_token"], gold=s["gold"])
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(line) + "</div>"
        return s

    return _watch(panel, compute)


# --- 07: scores before softmax (position bias, causal mask, local window) -----------------------
def position_bias_state(scores, query: int, slope: float = 0.0, window: int = 0, causal: bool = False) -> dict:
    """One query's row of content scores (Tk,) after the mechanisms that act before softmax.

    slope >= 0 adds -slope * |query - j|; window > 0 hides keys with |query - j| >= window (0 = no
    window); causal hides keys j > query. Returns visible (Tk,) bool, bias (Tk,), adjusted (Tk,)
    scores (-inf where hidden), weights (Tk,), and the winner's index and weight.
    """
    from .position_lab import distance_bias
    scores = as_float_array(scores, "scores", ndim=1)
    t = scores.size
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 0 <= query < t:
        raise ValueError(f"query: expected an integer in 0..{t - 1}, got {describe(query)}")
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 0:
        raise ValueError(f"window: expected an integer >= 0 (0 = no window), got {describe(window)}")
    bias = distance_bias(t, slope)[query]                                      # (Tk,)
    visible = np.ones(t, dtype=bool)
    if causal:
        visible &= causal_mask(t)[query]
    if window:
        visible &= sliding_window_mask(t, int(window), causal=False)[query]
    weights = softmax(scores + bias, mask=visible)
    adjusted = np.where(visible, scores + bias, -np.inf)
    return {"scores": scores, "bias": bias, "visible": visible, "adjusted": adjusted, "weights": weights,
            "top": int(weights.argmax()), "top_weight": float(weights.max())}


def position_bias_widget(scores=(2.0, 0.5, -0.5, 0.0, 1.0, 0.8, 0.3, 1.8), query: int = 5, *, slope: float = 0.0,
                         window: int = 0, causal: bool = False, max_slope: float = 1.0, dpi: int = DPI) -> Panel:
    """Sliders for a distance bias (slope) and a local window, a causal-mask checkbox, over one query's
    row of content scores: the scores after each change (top) and the weights (bottom) (notebook 07)."""
    try:
        s0 = position_bias_state(scores, query, slope, window, causal)
        max_slope = positive_float(max_slope, "max_slope")
        t = s0["scores"].size
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    slope_slider = widgets.FloatSlider(value=float(np.clip(slope, 0, max_slope)), min=0.0, max=max_slope, step=0.05,
                                       description=i18n.t("position_lab.slope"), readout_format=".2f",
                                       continuous_update=True, style={"description_width": "initial"})
    window_slider = widgets.IntSlider(value=int(np.clip(window, 0, t)), min=0, max=t,
                                      description=i18n.t("position_lab.window"), continuous_update=True,
                                      style={"description_width": "initial"})
    causal_box = widgets.Checkbox(value=bool(causal), description=i18n.t("position_lab.causal"), indent=False)
    live = LiveFigure((7.2, 5.0), dpi=dpi)
    top, bottom = live.fig.subplots(2, 1, sharex=True)
    low = float(min(s0["scores"].min(), 0.0) - max_slope * (t - 1) - 0.5)
    label_y = float(max(s0["scores"].max(), 0.0) + 0.45)                 # one row of score labels
    high = label_y + 0.9
    top.set_ylim(low, high)
    top.axhline(0, color="#999999", linewidth=0.8)
    top.scatter(range(t), s0["scores"], marker="_", s=300, color="#555555", zorder=3,
                label=i18n.t("position_lab.content_score"))
    top.set_ylabel(i18n.t("position_lab.score"), fontsize=plots.FONT["label"])
    top.legend(fontsize=plots.FONT["tick"] - 2, loc="lower left")
    bottom.set_ylim(0, 1.12)
    bottom.set_ylabel(i18n.t("plots.weight"), fontsize=plots.FONT["label"])
    bottom.set_xlabel(i18n.t("position_lab.key_position"), fontsize=plots.FONT["label"])
    bottom.set_xticks(range(t), [str(j) for j in range(t)])
    for ax in (top, bottom):
        ax.axvspan(query - 0.45, query + 0.45, color="#f2f2f2", zorder=0)
        ax.tick_params(labelsize=plots.FONT["tick"])
    score_bars = top.bar(range(t), np.zeros(t), color=plots.COLORS[1], alpha=0.8)
    weight_bars = bottom.bar(range(t), np.zeros(t), color=plots.COLORS[0])
    live.animate(*score_bars, *weight_bars)
    score_texts = [live.animate(top.text(j, label_y, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 2))
                   for j in range(t)]
    weight_texts = [live.animate(bottom.text(j, 0, "", ha="center", va="bottom", fontsize=plots.FONT["tick"] - 2))
                    for j in range(t)]
    image = _image()
    panel = Panel([image, widgets.HBox([slope_slider, window_slider, causal_box])], name="position_bias",
                  controls={"slope": slope_slider, "window": window_slider, "causal": causal_box},
                  images={"row": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = position_bias_state(s0["scores"], query, slope_slider.value, window_slider.value, causal_box.value)
        for j in range(t):
            hidden = not s["visible"][j]
            value = 0.0 if hidden else float(s["adjusted"][j])
            score_bars[j].set_height(value)
            score_texts[j].set_text("−∞" if hidden else f"{value:.2f}")
            w = float(s["weights"][j])
            weight_bars[j].set_height(w)
            weight_texts[j].set_position((j, w + 0.01))
            weight_texts[j].set_text("0" if hidden else f"{w:.2f}")
        image.value = live.render()
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "position_lab.readout", n=int(s["visible"].sum()), t=t, j=s["top"], w=_fmt(s["top_weight"]))) + "</div>"
        return s

    return _watch(panel, compute)


# --- 09: the cost of a context length ----------------------------------------------------------
CONTEXT_LENGTHS = tuple(sorted({2 ** e for e in range(7, 21)} | {1_000, 100_000}))   # 128 .. 1,048,576
COST_HEADS = (1, 2, 4, 8, 16, 32, 64, 128)
COST_WIDTHS = (256, 512, 768, 1024, 2048, 4096, 8192)
COST_DTYPES = ("float32", "bfloat16")
_COST_GRID = 2.0 ** np.arange(7, 20.01, 0.25)              # the curves: 128 .. 2^20, four points an octave


def context_cost_state(n_tokens: int = 4096, n_heads: int = 32, n_layers: int = 32, d_model: int = 4096,
                       dtype: str = "bfloat16") -> dict:
    """Everything the context-cost widget shows, from `cost_lab.attention_cost` (notebook 09).

    Returns the cost of one forward pass at n_tokens (pairs, score-matrix bytes of one layer for a
    naive implementation, FLOPs of attention's n^2 part and of the linear parts, over all layers),
    `gpu_ratio` = score bytes / 80 GiB, and the same quantities along the grid `curve_n` for the plot.
    """
    from . import cost_lab
    if dtype not in COST_DTYPES:
        raise ValueError(f"dtype: expected one of {COST_DTYPES}, got {describe(dtype)}")
    s = cost_lab.attention_cost(n_tokens, d_model, n_heads, n_layers, dtype)
    curves = cost_lab.cost_curves(_COST_GRID, d_model, n_heads, n_layers, dtype)
    return {**s, "dtype": dtype, "gpu_ratio": s["score_bytes"] / cost_lab.GPU_BYTES, "curve_n": curves["n"],
            "curve_attention": curves["attention_flops"], "curve_linear": curves["linear_flops"],
            "curve_bytes": curves["score_bytes"]}


def _byte_ticks(ax, low: float, high: float) -> None:
    """Ticks at 1 KiB, 1 MiB, 1 GiB, ... on a log axis of bytes."""
    from .cost_lab import format_bytes
    ticks = [2.0 ** e for e in range(10, 60, 10) if low <= 2.0 ** e <= high]
    ax.set_yticks(ticks, [format_bytes(t, 0) for t in ticks])
    ax.minorticks_off()


def context_cost_widget(n_tokens: int = 4096, n_heads: int = 32, n_layers: int = 32, d_model: int = 4096,
                        dtype: str = "bfloat16", *, dpi: int = DPI) -> Panel:
    """A context-length slider (log scale, 128 .. 1M tokens) with heads, layers, width and number format:
    FLOPs of attention's n^2 part against the linear parts (left), and the memory of one layer's
    score matrices in a naive implementation against one 80 GiB GPU (right) (notebook 09).
    Defaults: a 7B-class shape (D = 4096, 32 heads, 32 layers, bfloat16) at 4,096 tokens."""
    from . import cost_lab
    try:
        s0 = context_cost_state(n_tokens, n_heads, n_layers, d_model, dtype)
        if n_tokens not in CONTEXT_LENGTHS or n_heads not in COST_HEADS or d_model not in COST_WIDTHS:
            raise ValueError(f"n_tokens, n_heads, d_model: expected values from {CONTEXT_LENGTHS}, {COST_HEADS} "
                             f"and {COST_WIDTHS}, got {n_tokens}, {n_heads}, {d_model}")
        n_layers = positive_int(n_layers, "n_layers")
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    style = {"description_width": "initial"}
    controls = {
        "n": widgets.SelectionSlider(options=[(f"{n:,}", n) for n in CONTEXT_LENGTHS], value=n_tokens,
                                     description=i18n.t("cost_lab.n"), continuous_update=True, style=style,
                                     layout={"width": "520px"}),
        "heads": widgets.Dropdown(options=COST_HEADS, value=n_heads, description=i18n.t("cost_lab.heads"),
                                  style=style, layout={"width": "150px"}),
        "layers": widgets.IntSlider(value=min(n_layers, 128), min=1, max=128, description=i18n.t("cost_lab.layers"),
                                    continuous_update=True, style=style),
        "d_model": widgets.Dropdown(options=COST_WIDTHS, value=d_model, description=i18n.t("cost_lab.d_model"),
                                    style=style, layout={"width": "160px"}),
        "dtype": widgets.ToggleButtons(options=COST_DTYPES, value=dtype, description=i18n.t("cost_lab.dtype"),
                                       style={**style, "button_width": "80px"}),
    }
    live = LiveFigure((10.0, 4.0), dpi=dpi)
    left, right = live.fig.subplots(1, 2)
    flops_lim, bytes_lim = (1e7, 1e22), (1e4, 2e15)
    for ax, ylabel, lim in ((left, i18n.t("cost_lab.flops_pass"), flops_lim),
                            (right, i18n.t("cost_lab.memory_axis"), bytes_lim)):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(_COST_GRID[0], _COST_GRID[-1])
        ax.set_ylim(*lim)
        ax.set_xlabel(i18n.t("cost_lab.tokens"), fontsize=plots.FONT["label"] - 1)
        ax.set_ylabel(ylabel, fontsize=plots.FONT["label"] - 1)
        ax.tick_params(labelsize=plots.FONT["tick"] - 2)
        ax.grid(True, color="#e5e5e5")
        ax.set_xticks(list(cost_lab.N_TICKS), list(cost_lab.N_TICKS.values()))
    _byte_ticks(right, *bytes_lim)
    right.axhline(cost_lab.GPU_BYTES, color="#777777", linestyle="--", linewidth=1)
    right.text(_COST_GRID[0] * 1.2, cost_lab.GPU_BYTES * 1.6, i18n.t("cost_lab.gpu"), fontsize=plots.FONT["tick"] - 2,
               color="#555555")
    quad_line, = left.plot([], [], color=plots.COLORS[1], linewidth=2.5, label=i18n.t("cost_lab.quadratic"))
    lin_line, = left.plot([], [], color=plots.COLORS[0], linewidth=2.5, label=i18n.t("cost_lab.linear"))
    left.legend(fontsize=plots.FONT["tick"] - 3, loc="upper left")
    mem_line, = right.plot([], [], color=plots.COLORS[3], linewidth=2.5)
    cross_line = left.axvline(1, color="#777777", linestyle="--", linewidth=1)
    n_lines = [ax.axvline(1, color=plots.COLORS[2], linewidth=1.5) for ax in (left, right)]
    dots = [left.plot([], [], "o", color=plots.COLORS[1], markersize=7)[0],
            left.plot([], [], "o", color=plots.COLORS[0], markersize=7)[0],
            right.plot([], [], "o", color=plots.COLORS[3], markersize=7)[0]]
    live.animate(quad_line, lin_line, mem_line, cross_line, *n_lines, *dots)
    image = _image()
    panel = Panel([_title("cost_lab.widget_title"), image, controls["n"],
                   widgets.HBox([controls["heads"], controls["d_model"], controls["layers"]]), controls["dtype"]],
                  name="context_cost", controls=controls, images={"cost": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = context_cost_state(controls["n"].value, controls["heads"].value, controls["layers"].value,
                               controls["d_model"].value, controls["dtype"].value)
        quad_line.set_data(s["curve_n"], s["curve_attention"])
        lin_line.set_data(s["curve_n"], s["curve_linear"])
        mem_line.set_data(s["curve_n"], s["curve_bytes"])
        cross_line.set_xdata([s["crossover"]] * 2)
        for line in n_lines:
            line.set_xdata([s["n_tokens"]] * 2)
        dots[0].set_data([s["n_tokens"]], [s["attention_flops"]])
        dots[1].set_data([s["n_tokens"]], [s["linear_flops"]])
        dots[2].set_data([s["n_tokens"]], [s["score_bytes"]])
        image.value = live.render()
        gpu = (i18n.t("cost_lab.over_gpu", x=f"{s['gpu_ratio']:,.1f}") if s["gpu_ratio"] >= 1 else
               i18n.t("cost_lab.under_gpu", pct=f"{100 * s['gpu_ratio']:.2g}"))
        lines = [i18n.t("cost_lab.readout_pairs", n=f"{s['n_tokens']:,}", pairs=f"{s['pairs_per_head']:,}",
                        approx=cost_lab.format_count(s["pairs_per_head"]), total=cost_lab.format_count(s["pairs"]),
                        h=s["n_heads"], l=s["n_layers"]),
                 i18n.t("cost_lab.readout_memory", dtype=s["dtype"], mem=cost_lab.format_bytes(s["score_bytes"]),
                        gpu=gpu),
                 i18n.t("cost_lab.readout_flops", att=cost_lab.format_count(s["attention_flops"]),
                        lin=cost_lab.format_count(s["linear_flops"]), share=f"{100 * s['quadratic_share']:.0f}%",
                        cross=f"{s['crossover']:,}")]
        panel.readout.value = ("<div style='font-size:15px'>" + "<br>".join(html.escape(x) for x in lines)
                               + "</div>")
        return s

    return _watch(panel, compute)


# --- 08: path length (attention versus RNN) ---------------------------------------------------
def path_length_state(distance: int = 10, recurrent_scale: float = 0.9, *, n: int = 48, d: int = 16,
                      seed: int = 0) -> dict:
    """How much a token `distance` positions before the last one still moves the last output (notebook 08).

    The curves come from `rnn_lab.influence_curves(n, d, recurrent_scale, seed)`: a plain RNN
    (exact Jacobians through the chain) and one self-attention layer (finite differences), on the
    same tokens. Returns the curves, the path lengths (distance hand-offs vs 1 step), both
    influences at this distance and the share kept of their value at distance 1.
    """
    from . import rnn_lab
    curves = rnn_lab.influence_curves(n, d, recurrent_scale, seed)
    n = curves["n"]
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or not 1 <= distance < n:
        raise ValueError(f"distance: expected an integer in 1..{n - 1}, got {describe(distance)}")
    rnn_k, att_k = float(curves["rnn"][distance - 1]), float(curves["attention"][distance - 1])
    return {**curves, "distance": int(distance), "marker_index": n - 1 - int(distance),
            "rnn_path": rnn_lab.path_length("rnn", distance), "attention_path": rnn_lab.path_length("attention", distance),
            "rnn_influence": rnn_k, "attention_influence": att_k,
            "rnn_kept": rnn_k / float(curves["rnn"][0]), "attention_kept": att_k / float(curves["attention"][0])}


def path_length_widget(distance: int = 10, recurrent_scale: float = 0.9, *, n: int = 48, d: int = 16, seed: int = 0,
                       max_scale: float = 3.0, dpi: int = DPI) -> Panel:
    """A distance slider (and the RNN's recurrent scale): the path from an early token to the last
    output, k hand-offs along the RNN chain vs one attention step (top), and how much the token
    still moves that output, fading along the chain, flat for attention (bottom) (notebook 08)."""
    try:
        s0 = path_length_state(distance, recurrent_scale, n=n, d=d, seed=seed)
        max_scale = positive_float(max_scale, "max_scale")
        n = s0["n"]
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    k_slider = widgets.IntSlider(value=s0["distance"], min=1, max=n - 1, description=i18n.t("rnn_lab.distance_slider"),
                                 continuous_update=True, style={"description_width": "initial"},
                                 layout={"width": "420px"})
    scale_slider = widgets.FloatSlider(value=float(np.clip(s0["recurrent_scale"], 0.1, max_scale)), min=0.1,
                                       max=max_scale, step=0.1, description=i18n.t("rnn_lab.scale_slider"),
                                       readout_format=".1f", continuous_update=False,
                                       style={"description_width": "initial"}, layout={"width": "420px"})
    live = LiveFigure((7.6, 5.6), dpi=dpi)
    top, bottom = live.fig.subplots(2, 1, height_ratios=[1.25, 2])
    last = n - 1
    top.set_xlim(-1.5, n + 6.5)                                      # room for the last token's label
    top.set_ylim(-1.55, 1.75)
    top.axis("off")
    top.scatter(range(n - 1), np.zeros(n - 1), s=14, color="#bbbbbb", zorder=2)
    top.scatter([last], [0], s=90, color="black", zorder=4)
    top.text(last + 1.2, 0, i18n.t("rnn_lab.token_last"), ha="left", va="center", fontsize=plots.FONT["tick"] - 2)
    marker = live.animate(top.scatter([0], [0], s=90, color=plots.COLORS[4], zorder=5))
    marker_label = live.animate(top.text(0, -0.22, i18n.t("rnn_lab.token_marker"), ha="center", va="top",
                                         color="#8a5a00", fontsize=plots.FONT["tick"] - 2))
    chain, = top.plot([], [], "-o", color=plots.COLORS[1], markersize=3.5, linewidth=1.6, zorder=3)
    arc, = top.plot([], [], "-", color=plots.COLORS[0], linewidth=2.2, zorder=3)
    tip, = top.plot([], [], "v", color=plots.COLORS[0], markersize=8, zorder=4)
    live.animate(chain, arc, tip)
    chain_label = live.animate(top.text(0, -1.3, "", color=plots.COLORS[1], ha="left", va="center",
                                        fontsize=plots.FONT["tick"] - 1))
    arc_label = live.animate(top.text(0, 1.5, "", color=plots.COLORS[0], ha="center", va="center",
                                      fontsize=plots.FONT["tick"] - 1))
    ks = s0["distances"]
    floor, ceiling = 1e-12, 1e6
    bottom.set_yscale("log")
    bottom.set_ylim(floor, ceiling)
    bottom.set_xlim(0, n)
    bottom.plot(ks, s0["attention"], color=plots.COLORS[0], linewidth=2.2, label=i18n.t("rnn_lab.attention"))
    rnn_line, = bottom.plot(ks, s0["rnn"], color=plots.COLORS[1], linewidth=2.2, label=i18n.t("rnn_lab.rnn"))
    cursor = bottom.axvline(s0["distance"], color="#999999", linestyle="--", linewidth=1)
    dots, = bottom.plot([], [], "o", color="black", markersize=6, zorder=5)
    live.animate(rnn_line, cursor, dots)
    bottom.set_xlabel(i18n.t("rnn_lab.distance"), fontsize=plots.FONT["label"])
    bottom.set_ylabel(i18n.t("rnn_lab.influence"), fontsize=plots.FONT["label"])
    bottom.tick_params(labelsize=plots.FONT["tick"])
    bottom.grid(True, which="major", color="#e5e5e5")
    bottom.legend(fontsize=plots.FONT["tick"] - 1, loc="lower left")
    image = _image()
    panel = Panel([image, k_slider, scale_slider, widgets.HTML(html.escape(i18n.t("rnn_lab.scale_hint")))],
                  name="path_length", controls={"distance": k_slider, "recurrent_scale": scale_slider},
                  images={"path": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = path_length_state(k_slider.value, scale_slider.value, n=n, d=d, seed=seed)
        m = s["marker_index"]
        marker.set_offsets([[m, 0]])
        marker_label.set_position((max(m, 2), -0.22))
        chain.set_data(np.arange(m, last + 1), np.full(last + 1 - m, -0.85))       # one dot per hand-off
        near = m >= last - 12                                                       # short chain: label on the right
        chain_label.set_position((last if near else m, -1.3))
        chain_label.set_horizontalalignment("right" if near else "left")
        chain_label.set_text(i18n.t("rnn_lab.rnn_hops", k=s["rnn_path"]))
        u = np.linspace(0.0, 1.0, 60)
        arc.set_data(m + (last - m) * u, 0.25 + 0.9 * 4 * u * (1 - u))              # same height at every distance
        tip.set_data([last], [0.3])
        arc_label.set_position(((m + last) / 2, 1.5))
        arc_label.set_text(i18n.t("rnn_lab.attention_hop"))
        rnn_line.set_ydata(s["rnn"])
        cursor.set_xdata([s["distance"], s["distance"]])
        dots.set_data([s["distance"]] * 2, [s["rnn_influence"], s["attention_influence"]])
        image.value = live.render()
        kept = s["rnn_kept"]
        verdict = ("rnn_lab.exploding" if kept > 1e2 else "rnn_lab.fading" if kept < 1e-2 else "rnn_lab.holding")
        panel.readout.value = "<div style='font-size:15px'>" + html.escape(i18n.t(
            "rnn_lab.readout", k=s["distance"], rnn_path=s["rnn_path"], rnn=f"{s['rnn_influence']:.2e}",
            rnn_kept=f"{kept:.1e}", att=f"{s['attention_influence']:.3f}", att_kept=f"{s['attention_kept']:.3f}")) \
            + "<br>" + html.escape(i18n.t(verdict)) + "</div>"
        return s

    return _watch(panel, compute)


# --- 10: a needle outside the window ------------------------------------------------------------
def window_retrieval_state(window: int, distance: int, *, doc=None, T: int = 512, seed: int = 0) -> dict:
    """The last token's question against a document of T tokens with the needle `distance` tokens
    before it, under full attention and under a sliding window of `window` keys (notebook 10).

    doc: a one-trial `efficient_lab.needle_document` (built from T and seed when None). Returns
    visible (the needle is within the window: distance < window), the last query's weights (T,) under
    full attention and under the window, the needle's weight in each, whether each output names the
    needle's class (its largest entry), and the pairs computed for all T queries (window vs full).
    """
    from . import efficient_lab
    doc = efficient_lab.needle_document(positive_int(T, "T"), 1, seed=seed) if doc is None else doc
    t = doc["T"]
    window = positive_int(window, "window")
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or not 0 <= distance < t:
        raise ValueError(f"distance: expected an integer in 0..{t - 1}, got {describe(distance)}")
    position = t - 1 - int(distance)                                       # where the needle sits
    k, v = efficient_lab.plant_needle(doc, position)                       # (1, T, d), (1, T, C)
    scores = (doc["q"][0] @ k[0].T)[0] / math.sqrt(k.shape[-1])            # (T,) the question's scores
    in_window = (t - 1 - np.arange(t)) < window                            # (T,) keys the window shows
    full = softmax(scores)                                                 # (T,)
    local = softmax(scores, mask=in_window)                                # (T,) 0 outside the window
    answer = int(doc["answer"][0])
    return {"T": t, "window": window, "distance": int(distance), "position": position,
            "visible": bool(in_window[position]), "in_window": in_window,
            "weights_full": full, "weights_window": local,
            "needle_full": float(full[position]), "needle_window": float(local[position]),
            "correct_full": int((full @ v[0]).argmax()) == answer,
            "correct_window": int((local @ v[0]).argmax()) == answer,
            "pairs_window": efficient_lab.window_pairs(t, window), "pairs_full": t * t}


def window_retrieval_widget(T: int = 512, *, window: int = 128, distance: int = 200, seed: int = 0,
                            dpi: int = DPI) -> Panel:
    """Sliders for the window size and the needle's distance from the question: the question's
    weights over the document under full attention (grey) and the sliding window (blue), whether the
    needle is visible, its weight, and the pairs computed against full attention (notebook 10)."""
    from . import efficient_lab
    try:
        doc = efficient_lab.needle_document(positive_int(T, "T"), 1, seed=seed)
        s0 = window_retrieval_state(window, distance, doc=doc)
    except Exception as exc:                       # noqa: BLE001
        return _error_panel(exc)
    t = s0["T"]
    style = {"description_width": "initial"}
    window_slider = widgets.IntSlider(value=min(s0["window"], t), min=1, max=t,
                                      description=i18n.t("efficient_lab.window"), continuous_update=True,
                                      style=style, layout={"width": "420px"})
    distance_slider = widgets.IntSlider(value=s0["distance"], min=0, max=t - 1,
                                        description=i18n.t("efficient_lab.distance"), continuous_update=True,
                                        style=style, layout={"width": "420px"})
    live = LiveFigure((9.0, 3.4), dpi=dpi)
    ax = live.fig.add_subplot()
    ax.set_xlim(-0.5, t - 0.5)
    ax.set_ylim(0, 1.12)
    ax.set_xlabel(i18n.t("efficient_lab.key_position"), fontsize=plots.FONT["label"])
    ax.set_ylabel(i18n.t("plots.weight"), fontsize=plots.FONT["label"])
    ax.tick_params(labelsize=plots.FONT["tick"])
    ax.grid(True, axis="y", color="#e5e5e5")
    x = np.arange(t)
    band = live.animate(ax.add_patch(Rectangle((t - 0.5, 0), 0, 1.12, color="#DCEBF7", zorder=0,
                                               label=i18n.t("efficient_lab.window_band"))))
    full_line, = ax.plot(x, np.zeros(t), color="#999999", linewidth=2.5, label=i18n.t("efficient_lab.method_full"))
    window_line, = ax.plot(x, np.zeros(t), color=plots.COLORS[0], linewidth=1.6,
                           label=i18n.t("efficient_lab.method_window"))
    needle_mark, = ax.plot([0], [1.06], marker="v", markersize=10, linestyle="none", color=plots.COLORS[1],
                           label=i18n.t("efficient_lab.needle"))
    ax.axvline(t - 1, color="#000000", linewidth=1.0)                       # the question: the last token
    ax.text(t - 1, 1.13, "?", ha="center", va="bottom", fontsize=plots.FONT["label"], clip_on=False)
    ax.legend(fontsize=plots.FONT["tick"] - 2, loc="center left", bbox_to_anchor=(1.01, 0.5))
    live.animate(full_line, window_line, needle_mark)
    image = _image()
    panel = Panel([image, widgets.HBox([window_slider, distance_slider])], name="window_retrieval",
                  controls={"window": window_slider, "distance": distance_slider}, images={"weights": image})
    panel.children += (panel.readout, panel.message)

    def compute():
        s = window_retrieval_state(window_slider.value, distance_slider.value, doc=doc)
        band.set_x(t - 0.5 - min(s["window"], t))
        band.set_width(min(s["window"], t))
        full_line.set_ydata(s["weights_full"])
        window_line.set_ydata(s["weights_window"])
        needle_mark.set_xdata([s["position"]])
        image.value = live.render()
        ok = {True: i18n.t("efficient_lab.correct"), False: i18n.t("efficient_lab.wrong")}
        lines = [
            i18n.t("efficient_lab.readout_visible" if s["visible"] else "efficient_lab.readout_hidden",
                   d=s["distance"], w=s["window"]),
            i18n.t("efficient_lab.readout_weight", ww=_fmt(s["needle_window"]), wf=_fmt(s["needle_full"]),
                   aw=ok[s["correct_window"]], af=ok[s["correct_full"]]),
            i18n.t("efficient_lab.readout_pairs", t=t, pw=f"{s['pairs_window']:,}", pf=f"{s['pairs_full']:,}",
                   share=f"{100 * s['pairs_window'] / s['pairs_full']:.1f}%"),
        ]
        panel.readout.value = ("<div style='font-size:15px'>" + "<br>".join(html.escape(x) for x in lines)
                               + "</div>")
        return s

    return _watch(panel, compute)
