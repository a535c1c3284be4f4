"""Fonts for figures: register a CJK font once so Chinese and Latin labels both render.

matplotlib's default font (DejaVu Sans) has no Chinese glyphs: a label like "小红 说 她 累 了"
comes out as boxes with "Glyph ... missing" warnings. The `noto-cjk-sans-otc` wheel ships
Noto Sans CJK as one file on every OS; we register it and append its family after the current
`font.family` entries. matplotlib (>= 3.6) falls back glyph by glyph along that list, so Latin
text keeps DejaVu Sans and only the Chinese characters come from Noto.

Note that the fallback works along `font.family` only: a generic entry such as "sans-serif"
resolves to ONE font, so putting Noto into `font.sans-serif` behind DejaVu would never be used.

The wheel's file is a collection of faces (JP, KR, SC, TC, HK). matplotlib >= 3.10 registers every face,
"Noto Sans CJK SC" among them; older ones (the browser's, Pyodide's matplotlib 3.8) register only the first,
named "Noto Sans CJK JP". Each face holds every CJK ideograph (only a few differ in shape between regions), so
when no Simplified Chinese face is known, the family matplotlib registered from the wheel's file is used.
"""
from __future__ import annotations

import os

import matplotlib as mpl
from matplotlib import font_manager

CJK_FAMILY = "Noto Sans CJK SC"
# Families that cover Simplified Chinese, tried when the wheel is missing (system fonts).
SYSTEM_CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "WenQuanYi Zen Hei",
                       "WenQuanYi Micro Hei", "Microsoft YaHei", "PingFang SC", "Heiti SC", "SimHei")

_state: dict = {"registered": False, "family": None}


def cjk_font_path() -> str | None:
    """Path of the font file in the `noto-cjk-sans-otc` wheel, or None when it is not installed."""
    try:
        import noto_cjk_sans_otc
    except ImportError:
        return None
    path = getattr(noto_cjk_sans_otc, "FONT_PATH", None)
    if path is None:
        from importlib.resources import files
        path = files("noto_cjk_sans_otc").joinpath("NotoSansCJK-Regular.ttc")
    path = str(path)
    return path if os.path.isfile(path) else None


def _find_family() -> str | None:
    """Register the wheel's font (once) and return the first CJK family matplotlib knows."""
    if not _state["registered"]:
        path = cjk_font_path()
        if path is not None:
            font_manager.fontManager.addfont(path)
        _state["registered"] = True
        known = {f.name for f in font_manager.fontManager.ttflist}
        family = next((fam for fam in SYSTEM_CJK_FAMILIES if fam in known), None)
        if family is None and path is not None:            # only the collection's first face (matplotlib < 3.10)
            family = next((f.name for f in font_manager.fontManager.ttflist if _same_file(f.fname, path)), None)
        _state["family"] = family
    return _state["family"]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def use_cjk_font() -> str | None:
    """Make Chinese text render in every figure created from now on; safe to call many times.

    Returns the CJK family in use, or None when no CJK font is available (then nothing changes,
    nothing is printed: Chinese characters will show as boxes; install `noto-cjk-sans-otc`).
    Cheap after the first call, and re-applies itself if `rcParams` were reset since.
    """
    family = _find_family()
    if family is None:
        return None
    current = mpl.rcParams["font.family"]
    current = [current] if isinstance(current, str) else list(current)
    if family not in current:
        mpl.rcParams["font.family"] = current + [family]
    return family


def cjk_font_available() -> bool:
    """True when a CJK font is available to matplotlib (for the environment report of notebook 00)."""
    return _find_family() is not None
