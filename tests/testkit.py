"""Helpers shared by the tests (imported as `from testkit import ...`: tests/ is on the path through
tests/conftest.py). One copy each, instead of one per test file."""
from __future__ import annotations

from attention_core.teaching.widget_base import ERROR_COLOR

# Text that must never reach a learner: exception reprs and NumPy's or Python's own words.
DEEP = ("Error(", "Traceback", "zero-size array", "Singular matrix", "SeedSequence", "object is not",
        "unsupported operand", "could not convert", "invalid literal", "incompatible")


def image_bytes(image) -> bytes:
    """The PNG an ipywidgets.Image shows, as bytes (to compare two states of a widget)."""
    return bytes(image.value)


def is_error(panel) -> bool:
    """True when a widget panel shows its red message instead of a picture."""
    return ERROR_COLOR in panel.message.value


def assert_plain(message: str) -> None:
    """The message is in our words: none of the DEEP phrases of NumPy, Python or an exception repr."""
    for phrase in DEEP:
        assert phrase not in message, f"{phrase!r} in {message!r}"
