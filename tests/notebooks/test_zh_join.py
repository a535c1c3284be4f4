"""The Chinese edition has no seams: the builder joins the wrapped lines of zh markdown paragraphs
(a line break renders as a space, which Chinese text does not have) and keeps every block intact."""
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
build_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_notebooks)
join = build_notebooks.join_zh_lines
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
HAN = "\u4e00-\u9fff"


def test_a_paragraph_is_joined_without_stray_spaces():
    assert join("同一个向量\n做三种投影。") == "同一个向量做三种投影。"
    assert join("分数是，\n然后") == "分数是，然后"
    assert join("*“他”是谁？*\n周围") == "*“他”是谁？* 周围"      # the emphasis must still close


def test_an_emphasis_mark_or_a_link_at_the_break_is_looked_through():
    """The characters beside the mark decide (issue 16: "**机构** （" and "。 **交叉注意力**" showed stray spaces)."""
    assert join("它叫**机构**\n（mechanism）") == "它叫**机构**（mechanism）"
    assert join("第一种说法。\n**交叉注意力**是") == "第一种说法。**交叉注意力**是"
    assert join("这是**两个来源**\n而不是三个") == "这是**两个来源**而不是三个"
    assert join("看到的 **Key**\n与 Query") == "看到的 **Key** 与 Query"
    assert join("其余的都是**学出来的**。\n这里") == "其余的都是**学出来的**。这里"
    assert join("见 [12 · 训练好的模型](12_trained_transformer.ipynb)\n在同样的句子上") == \
        "见 [12 · 训练好的模型](12_trained_transformer.ipynb)在同样的句子上"
    assert join("读完\n[第 12 节](12_x.ipynb)") == "读完[第 12 节](12_x.ipynb)"
    # where no join can both close the emphasis and drop the space, the space stays (the emphasis renders)
    assert join("**学出来的。**\n这里") == "**学出来的。** 这里"
    assert join("顺序是：\n**“先查掩码”**") == "顺序是：**“先查掩码”**"


def test_chinese_next_to_latin_gets_one_space():
    assert join("看到的 Key\n与 Query") == "看到的 Key 与 Query"
    assert join("输出为 $[1, 2]$\n再看") == "输出为 $[1, 2]$ 再看"


def test_latin_lines_keep_their_break():
    assert join("a = 1\nb = 2") == "a = 1\nb = 2"


def test_blocks_stay_intact():
    text = ("## 标题\n\n| 列 | 值 |\n|---|---|\n| 一 | 二 |\n\n- 第一项\n- 第二项，写得很长\n  接着写\n\n"
            "1. 步骤一\n2. 步骤二\n\n```python\nx = 1  # 中文\ny = 2\n```\n$$\n中 = 文\n$$\n> 引用\n> 第二行\n"
            "<details><summary>答案</summary>\n\n内容\n</details>")
    out = join(text)
    assert "- 第二项，写得很长接着写" in out
    for kept in ("| 列 | 值 |\n|---|---|\n| 一 | 二 |", "- 第一项\n- 第二项", "1. 步骤一\n2. 步骤二",
                 "```python\nx = 1  # 中文\ny = 2\n```", "$$\n中 = 文\n$$", "> 引用\n> 第二行",
                 "<details><summary>答案</summary>\n\n内容\n</details>", "## 标题\n\n"):
        assert kept in out, out


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_no_built_zh_cell_breaks_a_line_between_two_chinese_characters(src):
    nb = build_notebooks.build(src, "zh")
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"```.*?```|\$\$.*?\$\$", "", cell.source, flags=re.S)
        assert not re.search(f"[{HAN}，。：；、）][ \t]*\n[ \t]*[{HAN}（]", prose), cell.source


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_the_committed_zh_edition_is_the_joined_one(src):
    committed = nbformat.read(ROOT / "notebooks" / "zh" / f"{src.stem}.ipynb", as_version=4)
    built = build_notebooks.build(src, "zh")
    assert [c.source for c in committed.cells] == [c.source for c in built.cells]
