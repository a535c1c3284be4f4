"""UI strings in both languages, in one place; a notebook sets its language once.

    from attention_core import i18n
    i18n.set_language("zh")
    i18n.t("check.ok")            # -> the Chinese string
    i18n.t("shape", got=(2, 3))   # str.format fields

Every key has an "en" and a "zh" text (a test enforces it). Sections below group the keys by the
module that uses them; add new keys to your module's section.
"""
from __future__ import annotations

LANGUAGES = ("en", "zh")
_state = {"lang": "en"}


def set_language(lang: str) -> str:
    """Choose the language of every widget, check and figure label ("en" or "zh")."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang: expected one of {LANGUAGES}, got {lang!r}")
    _state["lang"] = lang
    return lang


def get_language() -> str:
    return _state["lang"]


def t(key: str, lang: str | None = None, **fields) -> str:
    """The text of `key` in `lang` (default: the current language), formatted with `fields`."""
    try:
        entry = STRINGS[key]
    except KeyError:
        raise KeyError(f"i18n: no string named {key!r}") from None
    text = entry[lang or _state["lang"]]
    return text.format(**fields) if fields else text


STRINGS: dict[str, dict[str, str]] = {
    # --- common -------------------------------------------------------------------------------
    "common.error": {"en": "Cannot compute this: {msg}", "zh": "无法计算：{msg}"},
    # --- env (environment report, notebook 00) --------------------------------------------------
    "env.available": {"en": "available", "zh": "可用"},
    "env.missing": {"en": "not installed", "zh": "未安装"},
    "env.no_cuda": {"en": "no CUDA device", "zh": "没有 CUDA 设备"},
    "env.title": {"en": "Backends on this machine", "zh": "本机可用的计算后端"},
    "env.python": {"en": "Python", "zh": "Python 版本"},
    "env.auto": {"en": "backend='auto' uses", "zh": "backend='auto' 使用"},
    "env.install": {"en": "install with `{cmd}`", "zh": "安装命令：`{cmd}`"},
    # --- plots ------------------------------------------------------------------------------------
    # --- widgets ----------------------------------------------------------------------------------
    # --- quiz -------------------------------------------------------------------------------------
    # --- checks -----------------------------------------------------------------------------------
}
