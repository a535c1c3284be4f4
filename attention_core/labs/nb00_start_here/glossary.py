"""Notebook 00's glossary: the course's term list (attention_core/data/terms.json) as a Markdown table per edition.

The same file holds the variants each edition avoids; tests/notebooks/test_terms.py reads them. Here only what a
learner needs is shown: the term, its meaning, the notebook that teaches it ("first"), its aliases, and d2l-zh's
term where the course's differs (Chinese edition).
"""
from __future__ import annotations

import json
import re
from importlib.resources import files

from attention_core.teaching import i18n
from attention_core.teaching.notebook_source import notebook_titles

TERMS = "terms.json"
_FIELDS = ("id", "en", "zh", "concept", "first", "avoid")


def load_terms() -> list[dict]:
    """Every entry of the term file that ships with the package, checked by `parse_terms`."""
    return parse_terms(json.loads(files("attention_core.data").joinpath(TERMS).read_text(encoding="utf-8")))


def parse_terms(data) -> list[dict]:
    """The entries of a term file's contents, checked: each has an id (unique), en, zh, concept {en, zh}, first (a
    two-digit notebook number) and avoid {en, zh}, whose items are a text or {"regex", "shows"} with a regex that
    compiles. Raises ValueError naming the entry and the field that is missing or malformed."""
    terms = data.get("terms") if isinstance(data, dict) else None
    if not isinstance(terms, list) or not terms:
        raise ValueError(f"{TERMS}: expected an object with a non-empty list 'terms', got {type(data).__name__}")
    seen = set()
    for i, term in enumerate(terms):
        where = f"{TERMS}: entry {i} ({term.get('id', '?') if isinstance(term, dict) else term!r})"
        if not isinstance(term, dict) or any(f not in term for f in _FIELDS):
            raise ValueError(f"{where}: expected the fields {', '.join(_FIELDS)}")
        for field in ("concept", "avoid"):
            if not isinstance(term[field], dict) or set(term[field]) != set(i18n.LANGUAGES):
                raise ValueError(f"{where}: {field} expected one value per language {i18n.LANGUAGES}, "
                                 f"got {term[field]!r}")
        if not (isinstance(term["first"], str) and len(term["first"]) == 2 and term["first"].isdigit()):
            raise ValueError(f"{where}: first expected a two-digit notebook number such as \"04\", "
                             f"got {term['first']!r}")
        for lang, variants in term["avoid"].items():
            for variant in variants:
                if isinstance(variant, dict):
                    try:
                        re.compile(variant["regex"])
                    except (KeyError, TypeError, re.error) as exc:
                        raise ValueError(f"{where}: avoid.{lang}: expected {{\"regex\": a valid pattern, \"shows\": "
                                         f"an example}}, got {variant!r} ({exc})") from None
                elif not isinstance(variant, str) or not variant:
                    raise ValueError(f"{where}: avoid.{lang}: expected a text or {{\"regex\", \"shows\"}}, "
                                     f"got {variant!r}")
        if term["id"] in seen:
            raise ValueError(f"{where}: the id {term['id']!r} is used twice")
        seen.add(term["id"])
    return terms


def avoid_patterns(term: dict, lang: str) -> list[tuple[str, re.Pattern]]:
    """(what it shows, compiled pattern) for each variant `lang` avoids for `term`: a text matches itself."""
    found = []
    for variant in term["avoid"][i18n.resolve_language(lang)]:
        if isinstance(variant, dict):
            found.append((variant.get("shows", variant["regex"]), re.compile(variant["regex"])))
        else:
            found.append((variant, re.compile(re.escape(variant))))
    return found


def _cell(text: str) -> str:
    """Text for one table cell: a pipe would end the cell, a newline the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _aliases(term: dict, lang: str) -> str:
    """"; also called ..." for a term's aliases; in Chinese each with its English: 前瞻掩码（look-ahead mask）."""
    aliases = term.get("aliases", {})
    names = aliases.get(lang, [])
    if lang == "zh":
        names = [f"{n}（{e}）" for n, e in zip(names, aliases.get("en", []))] + names[len(aliases.get("en", [])):]
    if not names:
        return ""
    joined = "、".join(names) if lang == "zh" else ", ".join(names)
    return ("；" if lang == "zh" else "; ") + i18n.t("glossary.also", lang, names=joined)


def _first(number: str, lang: str) -> str:
    """The notebook that teaches a term, as a link to it ("[04](04_masking.ipynb)"; 04 节 in Chinese)."""
    stem = next((s for s in notebook_titles() if s.startswith(number + "_")), None)
    shown = f"{number} 节" if lang == "zh" else number
    return f"[{shown}]({stem}.ipynb)" if stem else shown


def glossary_markdown(lang: str | None = None) -> str:
    """The glossary as a Markdown table in `lang` (default: the current language), terms in the order the course
    introduces them. The Chinese edition adds a second table: d2l-zh's term where the course's differs, and why."""
    lang = i18n.resolve_language(lang)
    terms = sorted((t for t in load_terms() if t.get("glossary", True)), key=lambda t: t["first"])
    rows = [i18n.t("glossary.head", lang)]
    for term in terms:
        meaning = _cell(term["concept"][lang] + _aliases(term, lang))
        if lang == "zh":
            rows.append(f"| {_cell(term['zh'])} | {_cell(term['en'])} | {meaning} | {_first(term['first'], lang)} |")
        else:
            rows.append(f"| {_cell(term['en'])} | {meaning} | {_first(term['first'], lang)} |")
    if lang != "zh":
        return "\n".join(rows) + "\n"
    differ = [t for t in terms if t.get("d2l_zh")]
    d2l = [i18n.t("glossary.d2l_head", lang)]
    for t in differ:
        d2l.append(f"| {_cell(t['en'])} | {_cell(t['zh'])} | {_cell(t['d2l_zh']['term'])} "
                   f"| {_cell(t['d2l_zh']['why'][lang])} |")
    return "\n".join(rows) + "\n\n" + "\n".join(d2l) + "\n"


def table(lang: str | None = None):
    """The glossary for a notebook cell: an IPython Markdown object (rendered as tables, stored as text/markdown)."""
    from IPython.display import Markdown  # only where a notebook shows it
    return Markdown(glossary_markdown(lang))
