"""A training run's progress, redrawn in place: a bar, the step, the loss, the validation loss, steps per second
and the time left; an in-place line (or an ipywidgets bar) in a Jupyter kernel, plain text in a terminal or a log.
Notebook 12's `make train` and notebook 13's runs (make train and the live run in the notebook) show this one."""
from __future__ import annotations

import math
import sys
import time

from attention_core.teaching import i18n

# This module's UI strings, English and Chinese side by side (registered with i18n on import).
STRINGS: dict[str, dict[str, str]] = {
    "progress.line": {"en": "step {step}/{steps}  loss {loss:.3f}  validation {valid}  {rate:.1f} steps/s  "
                            "{left} left",
                      "zh": "第 {step}/{steps} 步 · 损失 {loss:.3f} · 验证 {valid} · 每秒 {rate:.1f} 步 · "
                            "还剩 {left}"},
    "progress.done": {"en": "done: {steps} steps in {seconds:.1f} s ({rate:.1f} steps/s), loss {loss:.3f}, "
                            "validation {valid}",
                      "zh": "完成：{steps} 步，用时 {seconds:.1f} 秒（每秒 {rate:.1f} 步），损失 {loss:.3f}，"
                            "验证 {valid}"},
    "progress.seconds": {"en": "{n} s", "zh": "{n} 秒"},
    "progress.minutes": {"en": "{m} min {s:02d} s", "zh": "{m} 分 {s:02d} 秒"},
}
i18n.register(STRINGS)


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (where a widget or a display handle can be redrawn in place)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def time_text(seconds: float, lang: str | None = None) -> str:
    """12 s, 1 min 05 s: a time left, in whole seconds."""
    n = max(0, int(round(seconds)))
    if n < 60:
        return i18n.t("progress.seconds", lang, n=n)
    return i18n.t("progress.minutes", lang, m=n // 60, s=n % 60)


class Progress:
    """A training run's progress, redrawn in place: a bar, the step, the loss (a running mean of the last steps),
    the latest validation loss, steps per second and the time left. Pass it to a training run as progress=
    (backends.torch_training.train calls it after every step).

    mode: "widget" (an ipywidgets bar with the line beside it), "display" (the line as text, updated in place
    through an IPython display handle), "text" (plain lines: a line redrawn with a carriage return in a terminal,
    one line per logged step in a log file) or None: the display line inside a Jupyter kernel (its last state is what
    a saved notebook shows, on a code host too), plain text elsewhere. every: redraw at most every `every` seconds
    (and always at a logged step and at the end). The record of the last step is kept in `last`; `lines` holds
    every line written in text mode."""

    MODES = ("widget", "display", "text")

    def __init__(self, label: str = "", *, mode: str | None = None, every: float = 0.25, stream=None,
                 lang: str | None = None, smoothing: float = 0.9):
        self.lang = i18n.resolve_language(lang)
        if mode is None:                  # in a kernel, a line redrawn in place: a saved notebook keeps its last state
            mode = "display" if _in_kernel() else "text"
        if mode not in self.MODES:
            raise ValueError(f"mode: expected one of {self.MODES} or None, got {mode!r}")
        if isinstance(every, bool) or not isinstance(every, (int, float)) or not every >= 0:
            raise ValueError(f"every: expected seconds >= 0 between redraws, got {every!r}")
        self.label, self.mode, self.every, self.smoothing = str(label), mode, float(every), float(smoothing)
        self.stream = sys.stdout if stream is None else stream
        self.last, self.lines, self.loss = None, [], None
        self._drawn_at, self._view, self._tty = -math.inf, None, bool(getattr(self.stream, "isatty", lambda: False)())

    # the text, a pure function of the record
    def line(self, rec: dict) -> str:
        """The progress line of one record {"step", "steps", "loss", "valid", "seconds"}."""
        step, steps, seconds = rec["step"], rec["steps"], max(rec["seconds"], 1e-9)
        rate = step / seconds
        valid = "-" if rec.get("valid") is None else f"{rec['valid']:.3f}"
        loss = rec["loss"] if self.loss is None else self.loss
        if step >= steps:
            text = i18n.t("progress.done", self.lang, steps=steps, seconds=seconds, rate=rate, loss=loss, valid=valid)
        else:
            text = i18n.t("progress.line", self.lang, step=step, steps=steps, loss=loss, valid=valid, rate=rate,
                          left=time_text((steps - step) / rate, self.lang))
        return f"{self.label} · {text}" if self.label else text   # a dot, not a space, between a zh label and 完成

    def bar(self, rec: dict, width: int = 24) -> str:
        done = int(width * rec["step"] / rec["steps"])
        return f"[{'#' * done}{'.' * (width - done)}]"

    def __call__(self, rec: dict) -> None:
        """One step's record (train calls this after every step)."""
        a = self.smoothing
        self.loss = rec["loss"] if self.loss is None else a * self.loss + (1 - a) * rec["loss"]
        self.last = rec
        final = rec["step"] >= rec["steps"]
        now = time.perf_counter()
        if not (final or rec.get("logged") or now - self._drawn_at >= self.every):
            return
        self._drawn_at = now
        self.draw(rec)

    def draw(self, rec: dict) -> None:
        final = rec["step"] >= rec["steps"]
        text = self.line(rec)
        if self.mode in ("widget", "display"):
            if self.mode == "widget":
                self._widget(rec, text)
            else:
                self._display(f"{self.bar(rec)} {text}")
            if final and self.mode == "widget":      # the result as text too: a saved widget shows nothing
                print(text, file=self.stream, flush=True)
                self.lines.append(text)
        elif self._tty:                                    # a terminal: one line, redrawn
            self.stream.write(f"\r{self.bar(rec)} {text}\x1b[K" + ("\n" if final else ""))
            self.stream.flush()
            self.lines.append(text)
        elif final or rec.get("logged"):                   # a log: one line per logged step
            print(f"{self.bar(rec)} {text}", file=self.stream, flush=True)
            self.lines.append(text)

    def _widget(self, rec, text) -> None:
        import html

        import ipywidgets as widgets
        if self._view is None:
            from IPython.display import display
            bar = widgets.IntProgress(value=0, min=0, max=rec["steps"], description=self.label,
                                      layout=widgets.Layout(width="40%"),
                                      style={"description_width": "initial"})
            words = widgets.HTML()
            self._view = (bar, words)
            display(widgets.HBox([bar, words]))
        bar, words = self._view
        bar.max, bar.value = rec["steps"], rec["step"]
        if rec["step"] >= rec["steps"]:
            bar.bar_style = "success"
        words.value = f"<code>{html.escape(text)}</code>"

    def _display(self, text) -> None:
        import html

        from IPython.display import HTML, display
        shown = HTML(f"<pre>{html.escape(text)}</pre>")
        if self._view is None:
            self._view = display(shown, display_id=True)
        else:
            self._view.update(shown)
