"""The UI strings of notebook 00's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "widgets.dot_title": {"en": "Move the two vectors: the dot product measures how much they point the same way.",
                          "zh": "拖动两个向量：点积衡量它们指向同一方向的程度。"},
    "widgets.dot_readout": {"en": "dot product a·b = {dot}; lengths |a| = {na}, |b| = {nb}; cosine = {cos}; "
                                  "angle = {angle}",
                            "zh": "点积 a·b = {dot}；长度 |a| = {na}，|b| = {nb}；余弦 = {cos}；夹角 = {angle}"},
    "widgets.dot_positive": {"en": "positive: the vectors point in similar directions",
                             "zh": "为正：两个向量方向相近"},
    "widgets.dot_zero": {"en": "zero: the vectors are perpendicular (unrelated)",
                         "zh": "为零：两个向量互相垂直（无关）"},
    "widgets.dot_negative": {"en": "negative: the vectors point in opposite directions",
                             "zh": "为负：两个向量方向相反"},
}
STRINGS.update({
    "glossary.head": {"en": "| Term | What it means in this course | Taught in |\n|---|---|---|",
                      "zh": "| 本课程的说法 | 英文 | 含义 | 详见 |\n|---|---|---|---|"},
    "glossary.also": {"en": "also called {names}", "zh": "也叫{names}"},
    "glossary.d2l_head": {"en": "| Term | This course | d2l-zh | Why |\n|---|---|---|---|",
                          "zh": "| 英文 | 本课程 | d2l-zh | 为什么不同 |\n|---|---|---|---|"},
})
