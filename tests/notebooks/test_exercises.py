"""Every notebook 01-10 has at least two exercises graded by a `checks.check_*` helper of its lab, each with its
solution hidden in a <details> block right after it; notebooks 06, 07 and 10 have a stretch exercise;
every checker of the exercises' contract is used by some notebook."""
import re
from pathlib import Path

import pytest

from attention_core.teaching.checks import lab_checker
from attention_core.teaching.notebook_source import parse_source

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {p.stem[:2]: p for p in sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))}
EXERCISE_CALL = re.compile(r"checks\.(check_\w+)\((\w+)\)")
STRETCH = {"en": "Stretch exercise", "zh": "挑战练习"}
REQUIRED = {"check_split_heads", "check_merge_heads", "check_padding_mask", "check_sinusoidal_encoding", "check_rope",
            "check_multi_head_attention", "check_online_attention", "check_kv_cache_decode"}


def exercises(nn: str) -> list[tuple[str, int]]:
    """[(checker name, index of the cell)] of the cells where a function the learner must write (its body
    raises NotImplementedError until then) meets a checker."""
    cells = parse_source(SOURCES[nn].read_text(encoding="utf-8"), SOURCES[nn].name)
    found = []
    for i, (kind, _, text) in enumerate(cells):
        if kind == "code" and "raise NotImplementedError" in text:
            found += [(m.group(1), i) for m in EXERCISE_CALL.finditer(text) if f"def {m.group(2)}(" in text]
    return found


@pytest.mark.parametrize("nn", [f"{n:02d}" for n in range(1, 11)])
def test_each_notebook_has_two_exercises_with_hidden_solutions(nn):
    cells = parse_source(SOURCES[nn].read_text(encoding="utf-8"), SOURCES[nn].name)
    found = exercises(nn)
    assert len(found) >= 2, f"notebook {nn}: {len(found)} exercises graded by a checker"
    assert len({name for name, _ in found}) >= 2, f"notebook {nn}: the exercises use one checker only"
    for name, i in found:
        assert callable(lab_checker(SOURCES[nn].stem, name)), name          # the checker is its own lab's
        after = [text for kind, lang, text in cells[i + 1:i + 5] if kind == "md"]
        assert any("<details>" in text for text in after), f"notebook {nn} cell {i}: no <details> solution after it"
        both = [lang for kind, lang, text in cells[i + 1:i + 5] if kind == "md" and "<details>" in text]
        assert set(both) >= {"en", "zh"}, f"notebook {nn} cell {i}: the solution is hidden in one edition only"


@pytest.mark.parametrize("nn", ["06", "07", "10"])
def test_stretch_exercise(nn):
    cells = parse_source(SOURCES[nn].read_text(encoding="utf-8"), SOURCES[nn].name)
    for lang, word in STRETCH.items():
        assert any(kind == "md" and cell_lang == lang and re.search(rf"^#+ .*{word}", text, re.M)
                   for kind, cell_lang, text in cells), f"notebook {nn}: no '{word}' heading in the {lang} edition"


def test_every_required_checker_is_used_by_a_notebook():
    used = {name for nn in SOURCES for name, _ in exercises(nn)}
    assert REQUIRED <= used, f"checkers no notebook uses: {sorted(REQUIRED - used)}"


def test_exercise_counts_per_notebook():
    counts = {nn: len(exercises(nn)) for nn in (f"{n:02d}" for n in range(1, 11))}
    assert sum(counts.values()) >= 21 and min(counts.values()) >= 2, counts
