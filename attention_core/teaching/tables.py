"""Labelled tables: a matrix with row and column names that prints as aligned text and shows as HTML,
and the hand-set matrices built from named entries that the labs show in them."""
from __future__ import annotations

import html
import unicodedata

import numpy as np


def display_width(text: str) -> int:
    """Columns `text` takes in a monospaced font: Chinese characters and full-width punctuation take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, width: int, align: str = "left") -> str:
    """`text` padded with spaces to `width` display columns, on the right (align="left") or on the left
    (align="right"); str.ljust and str.rjust count a Chinese character as one column, not two."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if align == "right" else text + fill


class Table:
    """A labelled matrix that prints as aligned text and shows as an HTML table in a notebook."""

    def __init__(self, values, row_names, col_names, digits: int = 2, trim: bool = True):
        self.values = np.asarray(values, dtype=float)
        self.row_names, self.col_names, self.digits, self.trim = list(row_names), list(col_names), digits, trim

    def _cell(self, v) -> str:
        """trim (weights: 0.5, and · for an exact 0) or every number with its digits (scores side by side: 0.40)."""
        text = f"{v:.{self.digits}f}"
        if not self.trim:
            return text
        return "·" if v == 0 else text.rstrip("0").rstrip(".") if "." in text else text

    def __repr__(self) -> str:
        cells = [[""] + self.col_names] + [[r] + [self._cell(v) for v in row]
                                             for r, row in zip(self.row_names, self.values)]
        widths = [max(display_width(str(row[j])) for row in cells) for j in range(len(cells[0]))]
        return "\n".join("  ".join(" " * (w - display_width(str(c))) + str(c) for c, w in zip(row, widths))
                         for row in cells)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.col_names)
        body = "".join("<tr><th>" + html.escape(r) + "</th>"
                       + "".join(f"<td>{self._cell(v)}</td>" for v in row) + "</tr>"
                       for r, row in zip(self.row_names, self.values))
        return f"<table><tr><th></th>{head}</tr>{body}</table>"


def named_matrix(entries: dict[tuple[str, str], float], rows, cols) -> np.ndarray:
    """A (len(rows), len(cols)) matrix with the named entries {(row, col): value} set and zeros elsewhere."""
    m = np.zeros((len(rows), len(cols)))
    for (r, c), value in entries.items():
        m[rows.index(r), cols.index(c)] = value
    return m
