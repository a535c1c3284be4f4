"""Every markdown cell renders without stray emphasis markers (issue 16), in both built editions and with both parsers a
learner's page goes through: markdown-it-py (CommonMark, as JupyterLab's marked) and mistune (nbconvert, Voila).

In CommonMark a closing `**` after punctuation must be followed by a space or punctuation ("**需要的基础：**会一点"
shows its asterisks), and an opening `**` before punctuation must follow one; the Chinese sources keep the punctuation
outside the bold ("**需要的基础**：会一点")."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import rendered

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[ez][nh]/[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("renderer", rendered.RENDERERS)
def test_the_scan_finds_emphasis_that_does_not_render(renderer):
    def left(markdown):
        return rendered.left_markers(rendered.visible_text(markdown, renderer))
    for broken in ("**需要的基础：**会一点 Python", "- **Q1：**同一个函数", "东西。**位置：**距离近的词",
                   "有效：*固定权重；并把证据放到不同位置。*下面", "**为什么是 $d_k$**因为", "__粗体：__文字"):
        assert left(broken), (renderer, broken)
    for fine in ("**需要的基础**：会一点 Python", "- **Q1**：同一个函数", "**Prerequisites:** a little Python",
                 "“**一步直达就等于答对。**”短路径", "*“他”是谁*？周围", "`x ** 2` 与 `__init__`",
                 "$a * b_{i}$ 与 $x^*$",
                 "形状 (B, H, T, d_model)，d_k = d_model / h", "```python\ny = x ** 2  # **不是粗体：**\n```",
                 "| **列：** | 值 |\n|---|---|\n| 1 | **2** |"):
        assert not left(fine), (renderer, fine, left(fine))


def test_visible_text_drops_code_and_formulas_and_keeps_words():
    text = rendered.visible_text("**粗体**：`code` 与 $x_1$，[链接](a.ipynb)\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "粗体：X 与 X，链接" in text and "a | b" in text and "*" not in text and "a.ipynb" not in text
    with pytest.raises(ValueError, match="renderer: expected one of"):
        rendered.visible_text("x", "marked")


@pytest.mark.parametrize("renderer", rendered.RENDERERS)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem[:2]}")
def test_no_emphasis_marker_is_left_in_the_rendered_markdown(path, renderer):
    nb = nbformat.read(path, as_version=4)
    found = [(i, hit) for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
             for hit in rendered.left_markers(rendered.visible_text(cell.source, renderer))]
    assert not found, "\n".join(f"{path.parent.name}/{path.name} cell {i}: {hit!r}" for i, hit in found)
