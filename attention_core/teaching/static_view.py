"""Static fallbacks of widgets: what a notebook shows where no kernel runs (a code host, nbviewer, an HTML export).

A widget's output in a saved notebook is a model id (`application/vnd.jupyter.widget-view+json`) that only a
live widget manager can draw; GitHub shows its `text/plain` instead (`VBox(children=(HTML(...`). `StaticVBox`
adds, beside the widget view, a `text/html` rendering of the widget tree as it is at display time (titles,
pictures at their natural size, readouts, the controls and their values, a quiz's question and choices) and,
when it holds a picture, that picture as `image/png`. Front ends with a widget manager (JupyterLab, Voila)
still show the live widget: they rank the widget view above HTML and PNG.

    box = StaticVBox([...])          # a VBox whose saved output reads without a kernel
    static_html(widget)              # the HTML of any widget tree
"""
from __future__ import annotations

import base64
import html

import ipywidgets as widgets

from attention_core.teaching import i18n

STRINGS: dict[str, dict[str, str]] = {
    "static.note": {"en": "Static picture of the initial state: run the notebook to use the controls.",
                    "zh": "初始状态的静态画面：运行笔记本后即可操作控件。"},
}
i18n.register(STRINGS)

_BOX = "display:flex;gap:8px;align-items:flex-start;flex-wrap:wrap"
_CONTROL = "display:inline-block;border:1px solid #ccc;border-radius:3px;padding:1px 6px;margin:2px;color:#333"


def _hidden(widget) -> bool:
    layout = getattr(widget, "layout", None)
    return layout is not None and (layout.display == "none" or layout.visibility == "hidden")


def _label(widget) -> str:
    description = getattr(widget, "description", "") or ""
    return f"{html.escape(description)} " if description else ""


def _png(data: bytes) -> str:
    return base64.b64encode(bytes(data)).decode("ascii")


def _options(widget) -> list[str]:
    """The visible labels of a selection widget (Dropdown, ToggleButtons, RadioButtons, ...)."""
    return [str(label) for label in getattr(widget, "_options_labels", ())]


def static_html(widget) -> str:
    """HTML of a widget tree as it is now; hidden parts are left out. Never raises on an unknown widget."""
    if _hidden(widget):
        return ""
    if isinstance(widget, widgets.Image):
        if widget.format != "png" or not widget.value:
            return ""
        return (f'<img src="data:image/png;base64,{_png(widget.value)}" alt="" '
                'style="max-width:100%;height:auto;align-self:flex-start">')
    if isinstance(widget, widgets.Label):
        return f"<span>{html.escape(widget.value)}</span>"
    if isinstance(widget, (widgets.HTML, widgets.HTMLMath)):
        return f"<div>{_label(widget)}{widget.value}</div>"
    if isinstance(widget, (widgets.Accordion, widgets.Tab)):
        titles = list(widget.titles) + [""] * len(widget.children)
        return "".join(f"<details open><summary><b>{html.escape(titles[i] or '')}</b></summary>{static_html(c)}"
                       "</details>" for i, c in enumerate(widget.children))
    if isinstance(widget, widgets.Box):
        parts = [p for p in (static_html(c) for c in widget.children) if p]
        row = isinstance(widget, widgets.HBox)
        style = _BOX if row else "display:flex;flex-direction:column;gap:4px"
        return f'<div style="{style}">{"".join(parts)}</div>'
    if isinstance(widget, widgets.Button):
        return f'<span style="{_CONTROL};background:#eee">{html.escape(widget.description)}</span>'
    if isinstance(widget, (widgets.ToggleButton, widgets.Checkbox)):
        mark = "☑" if widget.value else "☐"
        return f'<span style="{_CONTROL}">{mark} {html.escape(widget.description)}</span>'
    if isinstance(widget, (widgets.ToggleButtons, widgets.RadioButtons, widgets.Dropdown, widgets.Select,
                           widgets.SelectionSlider)):
        current = getattr(widget, "label", None)
        items = " ".join(f"<b>[{html.escape(o)}]</b>" if o == current else html.escape(o) for o in _options(widget))
        return f'<span style="{_CONTROL}">{_label(widget)}{items}</span>'
    if isinstance(widget, (widgets.Text, widgets.Textarea)):
        shown = widget.value or widget.placeholder
        return f'<span style="{_CONTROL}">{_label(widget)}<i>{html.escape(shown)}</i></span>'
    if hasattr(widget, "value") and hasattr(widget, "description"):      # sliders and number fields
        value = widget.value
        text = f"{value:.{_digits(widget)}f}" if isinstance(value, float) else str(value)
        return f'<span style="{_CONTROL}">{_label(widget)}<b>{html.escape(text)}</b></span>'
    return ""


def _digits(widget) -> int:
    """Decimals of a float control's readout (".2f" -> 2); 2 when it has no such format."""
    fmt = getattr(widget, "readout_format", ".2f") or ".2f"
    try:
        return int(fmt.strip(".").rstrip("fe%")) if fmt.startswith(".") else 2
    except ValueError:
        return 2


def first_png(widget) -> bytes | None:
    """The PNG bytes of the first visible picture in a widget tree, or None."""
    if _hidden(widget):
        return None
    if isinstance(widget, widgets.Image) and widget.format == "png" and widget.value:
        return bytes(widget.value)
    for child in getattr(widget, "children", ()):
        found = first_png(child)
        if found:
            return found
    return None


class StaticVBox(widgets.VBox):
    """A VBox whose display bundle also carries `text/html` (and `image/png`) of its state at display time."""

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if not bundle:                                   # a closed widget: nothing to add to
            return bundle
        note = html.escape(i18n.t("static.note"))
        bundle["text/html"] = (f'<div class="attention-lab-static">{static_html(self)}'
                               f'<div style="color:#777;font-size:smaller">{note}</div></div>')
        png = first_png(self)
        if png:
            bundle["image/png"] = _png(png)
        return bundle
