"""The backend report as text for learners (notebook 00), in English or Chinese.

The facts (versions, CUDA devices, where backend="auto" computes) come from
`attention_core.backends.backend_report()`; the words are the teaching layer's.
"""
from __future__ import annotations

import html
import unicodedata

from attention_core.backends import INSTALL_HINT, BackendReport, backend_report
from attention_core.teaching import i18n


def format_backend_report(report: BackendReport, lang: str | None = None) -> str:
    """A few aligned lines in English or Chinese (default: the current i18n language)."""
    def t(key, **fields):
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
    return "\n".join([t("env.title")] + [f"  {label}{' ' * (width - display_width(label))}  {value}"
                                         for label, value in rows])


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal or a <pre> block: Chinese characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


class BackendSummary:
    """The report shown in a notebook: text in a terminal, a <pre> block in Jupyter."""

    def __init__(self, report: BackendReport, lang: str | None = None):
        self.report, self.lang = report, lang

    def __repr__(self) -> str:
        return format_backend_report(self.report, self.lang)

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(repr(self))}</pre>"


def show_backends(lang: str | None = None) -> BackendSummary:
    """What this machine offers, for notebook 00: `environment.show_backends()`."""
    return BackendSummary(backend_report(), lang)
