"""Words a learner reads per notebook: English words and Chinese characters of the markdown cells of each source.

The editorial goal of the course (issue 32) is about 30,000 English words of prose in all and no notebook over about
an hour for a careful learner; this prints the figures that goal is read against, with a reading-time estimate.

Usage:  python tools/word_count.py [--json]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from attention_core.teaching import notebook_source  # noqa: E402

SRC = ROOT / "notebooks" / "src"
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
HAN = re.compile(r"[\u4e00-\u9fff]")
CODE_SPAN = re.compile(r"```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$]*\$", re.S)


def prose(text: str) -> str:
    """Markdown text without code blocks, inline code and formulas."""
    return CODE_SPAN.sub(" ", text)


def counts() -> dict[str, dict[str, int]]:
    """{notebook: {"en_words": ..., "zh_chars": ..., "en_largest_cell": ...}} from the sources' markdown."""
    table = {}
    for path in sorted(SRC.glob("[0-9][0-9]_*.py")):
        cells = notebook_source.parse_source(path.read_text(encoding="utf-8"), path.name)
        en = [len(WORD.findall(prose(text))) for kind, lang, text in cells if kind == "md" and lang == "en"]
        zh = [len(HAN.findall(prose(text))) for kind, lang, text in cells if kind == "md" and lang == "zh"]
        table[path.stem] = {"en_words": sum(en), "zh_chars": sum(zh), "en_largest_cell": max(en, default=0)}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    table = counts()
    if parser.parse_args().json:
        print(json.dumps(table, indent=1))
        return
    print(f"{'notebook':34} {'en words':>9} {'zh chars':>9} {'largest en cell':>16}")
    for name, row in table.items():
        print(f"{name:34} {row['en_words']:>9} {row['zh_chars']:>9} {row['en_largest_cell']:>16}")
    print(f"{'total':34} {sum(r['en_words'] for r in table.values()):>9} "
          f"{sum(r['zh_chars'] for r in table.values()):>9}")


if __name__ == "__main__":
    main()
