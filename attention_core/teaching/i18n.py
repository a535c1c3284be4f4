"""UI strings in both languages: the lookup. Each owner keeps its own strings next to its code.

    from attention_core.teaching import i18n
    i18n.set_language("zh")
    i18n.t("checks.softmax.ok")          # -> the Chinese string
    i18n.t("plots.head", h=2)            # str.format fields

A lab keeps its strings in `labs/<lab>/strings.py` (registered by the lab package); a teaching
module keeps a `STRINGS` table at its top. Both register it here with `register`, English and
Chinese side by side per key. Keys are spelled out in full where they are used (never built with
an f-string), so a test can find every unused and every missing key in both languages.
"""
from __future__ import annotations

LANGUAGES = ("en", "zh")
_state = {"lang": "en"}

# Every registered key -> {"en": text, "zh": text}: filled by the owners' `register` calls.
STRINGS: dict[str, dict[str, str]] = {}


def register(strings: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """Add an owner's strings ({key: {"en": ..., "zh": ...}}) to the lookup and return them.

    Raises ValueError if a key is already registered by another table (keys are unique across the
    package) or if an entry does not have exactly one text per language.
    """
    for key, entry in strings.items():
        if not isinstance(key, str) or not isinstance(entry, dict) or set(entry) != set(LANGUAGES):
            raise ValueError(f"i18n: {key!r}: expected a text for each of {LANGUAGES}, got {entry!r}")
        if key in STRINGS and STRINGS[key] is not entry:
            raise ValueError(f"i18n: the key {key!r} is registered twice")
    STRINGS.update(strings)
    return strings


def resolve_language(lang=None) -> str:
    """`lang` checked ("en" or "zh"), or the current language when it is None.

    Every public `lang=` argument of the package goes through here, so `lang="fr"` gets one clear
    error that names the languages there are, never a bare KeyError from a table.
    """
    if lang is None:
        return _state["lang"]
    if not isinstance(lang, str) or lang not in LANGUAGES:
        shown = repr(lang) if len(repr(lang)) <= 40 else repr(lang)[:39] + "…"
        raise ValueError(f"lang: expected \"en\" (English) or \"zh\" (Chinese), got {shown}")
    return lang


def set_language(lang: str) -> str:
    """Choose the language of every widget, check and figure label ("en" or "zh")."""
    if lang is None:                       # resolve_language would read None as "keep the current one"
        raise ValueError('lang: expected "en" (English) or "zh" (Chinese), got None')
    _state["lang"] = resolve_language(lang)
    return _state["lang"]


def get_language() -> str:
    return _state["lang"]


def t(key: str, lang: str | None = None, **fields) -> str:
    """The text of `key` in `lang` (default: the current language), formatted with `fields`."""
    try:
        entry = STRINGS[key]
    except KeyError:
        raise KeyError(f"i18n: no string named {key!r} (is the module that owns it imported?)") from None
    text = entry[resolve_language(lang)]
    return text.format(**fields) if fields else text


class WordedError(ValueError):
    """A ValueError whose message is an i18n key and its fields, so that a widget or a checker can say it in the
    learner's language; str() gives the English text (what a traceback or a log shows).

        raise i18n.WordedError("nb12.unknown_words", n=2, words="'foo', 'bar'")
    """

    def __init__(self, key: str, **fields):
        self.key, self.fields = key, fields
        super().__init__(t(key, "en", **fields))

    def text(self, lang: str | None = None) -> str:
        return t(self.key, lang, **self.fields)
