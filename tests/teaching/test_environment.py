"""The backend report as learners read it (notebook 00): both languages, aligned, in a <pre> block."""
import numpy as np

from attention_core import backends
from attention_core.teaching import environment, i18n


def test_backend_report_fields_and_both_languages():
    report = backends.backend_report()
    assert report.numpy_version == np.__version__
    assert report.auto_device in ("numpy", "cpu") or report.auto_device.startswith("cuda")
    assert report.cuda_available == bool(report.cuda_devices)
    en = environment.format_backend_report(report, "en")
    zh = environment.format_backend_report(report, "zh")
    assert en.splitlines()[0] == i18n.t("env.title", "en")
    assert zh.splitlines()[0] == i18n.t("env.title", "zh")
    assert np.__version__ in en and np.__version__ in zh
    summary = environment.show_backends("zh")
    assert repr(summary) == zh
    assert summary._repr_html_().startswith("<pre>")


def test_report_columns_align_in_chinese():
    zh = environment.format_backend_report(backends.backend_report(), "zh").splitlines()[1:]
    # every value starts in the same display column, Chinese labels counting two columns a character
    starts = {environment.display_width(line[:line.rindex("  ") + 2]) for line in zh}
    assert len(starts) == 1, zh


def test_missing_torch_names_the_install_command():
    report = backends.BackendReport("3.11", np.__version__, None, False)
    for lang in ("en", "zh"):
        assert "pip install torch==2.13.0" in environment.format_backend_report(report, lang)
