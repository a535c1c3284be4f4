"""The words of notebook 07's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "exercises.what.table": {"en": "position table", "zh": "位置编码表"},
    "exercises.what.rotated": {"en": "rotated x", "zh": "旋转后的 x"},
    "exercises.sin.swapped": {"en": "Your sin and cos are swapped ({case}): even columns 2i hold sin, odd columns "
                                    "2i+1 hold cos, so row 0 is [0, 1, 0, 1, ...].",
                              "zh": "你把 sin 和 cos 放反了（{case}）：偶数列 2i 放 sin，奇数列 2i+1 放 cos，"
                                    "所以位置 0 那一行是 [0, 1, 0, 1, ...]。"},
    "exercises.sin.blocks": {"en": "You put all the sines first and all the cosines after ({case}): the paper (and "
                                   "the package) interleaves them, sin in column 2i and cos in column 2i+1 of the "
                                   "same frequency.",
                             "zh": "你把所有 sin 放在前半、所有 cos 放在后半（{case}）：论文（以及本库）是交错排列的，"
                                   "同一个频率的 sin 在第 2i 列、cos 在第 2i+1 列。"},
    "exercises.sin.column_exponent": {"en": "The cos columns have the wrong frequency ({case}): you used the column "
                                            "number j in the exponent. Columns 2i and 2i+1 share one frequency, "
                                            "1 / 10000^(2i / d_model).",
                                      "zh": "cos 列的频率不对（{case}）：你在指数里用了列号 j。第 2i 列和第 2i+1 列共"
                                            "用同一个频率 "
                                            "1 / 10000^(2i / d_model)。"},
    "exercises.sin.base": {"en": "Your frequencies are off ({case}): column pair i must turn at "
                                 "1 / 10000^(2i / d_model), from 1 (column 0) down to about 1/10000. Check the base "
                                 "10000, the 2i (not i) in the exponent, and that you divide the position by it.",
                           "zh": "你的频率不对（{case}）：第 i 对列（从 0 编号）的频率必须是 1 / 10000^(2i / d_model)，"
                                 "从 1（列 0）一路降到约 1/10000。请检查底数是否为 10000、指数里是 2i 而不是 i，"
                                 "以及是不是用位置除以它。"},
    "exercises.sin.from_one": {"en": "Your positions start at 1 ({case}): the first row is position 0, "
                                     "so it is [0, 1, 0, 1, ...].",
                               "zh": "你的位置是从 1 开始编号的（{case}）：第一行是位置 0，所以是 [0, 1, 0, 1, ...]。"},
    "exercises.sin.ok": {"en": "All good: your table equals ac.sinusoidal_encoding for 50 x 16 and 7 x 6.",
                         "zh": "全部通过：50 × 16 和 7 × 6 的表都与 ac.sinusoidal_encoding 一致。"},
    "exercises.rope.sign": {"en": "You rotate the wrong way ({case}): a pair (a, b) at angle θ becomes "
                                  "(a cos θ − b sin θ, a sin θ + b cos θ); yours turns by −θ.",
                            "zh": "你的旋转方向反了（{case}）：一对 (a, b) 转过角度 θ 后是 (a cos θ − b sin θ, a sin "
                                  "θ + b cos θ)；"
                                  "你的版本转的是 −θ。"},
    "exercises.rope.half": {"en": "You paired dimension i with i + Dh/2 (the 'rotate half' layout of GPT-NeoX and "
                                  "Llama) ({case}); this package pairs neighbours (2i, 2i+1), as in the RoFormer "
                                  "paper: x[..., 0::2] and x[..., 1::2].",
                            "zh": "你把第 i 维和第 i + Dh/2 维配成了一对，这是 GPT-NeoX 和 Llama 的“前后两半”配对法"
                                  "（{case}）；"
                                  "本库按 RoFormer 论文把相邻两维 (2i, 2i+1) 配对：x[..., 0::2] 和 x[..., 1::2]。"},
    "exercises.rope.base": {"en": "Your angles are off ({case}): pair i turns at theta_i = 10000^(-2i / Dh) radians "
                                  "per position (check the base 10000 and the 2i in the exponent).",
                            "zh": "你的角度不对（{case}）：第 i 对（从 0 编号）每前进一个位置转 "
                                  "theta_i = 10000^(-2i / Dh) 弧度（请检查底数 10000 和指数里的 2i）。"},
    "exercises.rope.positions": {"en": "You ignored `positions` and rotated row t by t ({case}): use the position "
                                       "you are given, positions[t].",
                                 "zh": "你忽略了 `positions`，直接按行号 t 旋转（{case}）：应该使用传入的位置 "
                                       "positions[t]。"},
    "exercises.rope.norm": {"en": "Your function changes the length of the vectors ({case}): a rotation keeps "
                                  "|x| fixed. Check the signs: (a, b) -> (a cos θ − b sin θ, a sin θ + b cos θ).",
                            "zh": "你的函数改变了向量的长度（{case}）：旋转不会改变 |x|。请检查符号："
                                  "(a, b) -> (a cos θ − b sin θ, a sin θ + b cos θ)。"},
    "exercises.rope.ok": {"en": "All good: your rotation equals ac.apply_rope on rows, batches and positions out of "
                                "order, and keeps every vector's length.",
                          "zh": "全部通过：你的旋转在单个矩阵、批量输入和乱序位置上都与 ac.apply_rope 一致，并保持每个"
                                "向量的长度不变。"},
}
