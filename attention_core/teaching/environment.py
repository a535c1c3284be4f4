"""The backend report as text (notebook 00): versions, CUDA devices and where backend="auto" computes.

`attention_core.backends.backend_report()` collects the facts; this module owns their wording in
English and Chinese, so the backends never import the UI.
"""
from __future__ import annotations

import html
import unicodedata

from attention_core.backends import INSTALL_HINT
from attention_core.teaching import i18n

# This module's UI strings, English and Chinese side by side (registered with i18n on import).
STRINGS: dict[str, dict[str, str]] = {
    "env.missing": {"en": "not installed", "zh": "未安装"},
    "env.no_cuda": {"en": "no CUDA device", "zh": "没有 CUDA 设备"},
    "env.title": {"en": "Backends on this machine", "zh": "本机可用的计算后端"},
    "env.python": {"en": "Python", "zh": "Python 版本"},
    "env.auto": {"en": "backend='auto' uses", "zh": "backend='auto' 使用"},
    "env.install": {"en": "install with `{cmd}`", "zh": "安装命令：`{cmd}`"},
}
i18n.register(STRINGS)


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal or a <pre> block (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def format_backend_report(report, lang: str | None = None) -> str:
    """A few aligned lines describing a `BackendReport`, in `lang` (default: the current language)."""
    def t(key: str, **fields) -> str:
        return i18n.t(key, lang, **fields)

    torch_line = report.torch_version or f"{t('env.missing')} ({t('env.install', cmd=INSTALL_HINT)})"
    if report.cuda_available:
        cuda_line = ", ".join(f"cuda:{i} {name}" for i, name in enumerate(report.cuda_devices))
    else:
        cuda_line = t("env.no_cuda")
    auto_line = "NumPy" if report.auto_device == "numpy" else f"torch ({report.auto_device})"
    rows = [(t("env.python"), report.python_version), ("NumPy", report.numpy_version),
            ("torch", torch_line), ("CUDA", cuda_line), (t("env.auto"), auto_line)]
    width = max(display_width(label) for label, _ in rows)
    lines = [f"  {label}{' ' * (width - display_width(label))}  {value}" for label, value in rows]
    return "\n".join([t("env.title"), *lines])


class BackendSummary:
    """The report shown in a notebook: aligned text in a terminal, a <pre> block in Jupyter."""

    def __init__(self, report, lang: str | None = None):
        if lang is not None:                     # None: the language current when it is shown
            i18n.resolve_language(lang)
        self.report, self.lang = report, lang

    def __repr__(self) -> str:
        return format_backend_report(self.report, self.lang)

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(repr(self))}</pre>"


def show_backends(lang: str | None = None) -> BackendSummary:
    """What this machine offers, for notebook 00: `environment.show_backends()`."""
    from attention_core.backends import backend_report
    return BackendSummary(backend_report(), lang)
