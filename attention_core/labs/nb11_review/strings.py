"""The UI strings of notebook 11's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "review.col_id": {"en": "#", "zh": "#"},
    "review.col_question": {"en": "Question", "zh": "题目"},
    "review.col_notebook": {"en": "Demonstrated in", "zh": "演示它的那一节"},
    "review.col_section": {"en": "Section", "zh": "小节"},
    "review.col_widget": {"en": "Try it", "zh": "动手试试"},
    "review.q1": {"en": "self: weights T × T; queries from another sequence: cross, Tq × Tk",
                  "zh": "自注意力：权重 T × T；Query 换成另一个序列：交叉注意力，Tq × Tk"},
    "review.q2": {"en": "weights = softmax(scores · 1/√d_k), d_k = {d}",
                  "zh": "权重 = softmax(分数 · 1/√d_k)，d_k = {d}"},
    "review.q3": {"en": "{h} heads of width {d}/{h} = {dh}; largest difference between their weights",
                  "zh": "{h} 个头，每个头的维度为 {d}/{h} = {dh}；两个头的权重最大相差多少"},
    "review.q4": {"en": "largest of the {n} masked weights · largest change of the earlier outputs when the last "
                        "token changes",
                  "zh": "{n} 个被屏蔽的权重中的最大值 · 改动最后一个 token 时，前面各位置输出的最大变化"},
    "review.q5": {"en": "every row sums to 1; the smallest visible weight is still above 0 (not sparse)",
                  "zh": "每行之和为 1；可见位置中最小的权重仍大于 0（不稀疏）"},
    "review.q5_value": {"en": "smallest {v} > 0", "zh": "最小 {v} > 0"},
    "review.q6": {"en": "the output is the weighted mix of the values, then W^O: a weight is a mixing share",
                  "zh": "输出就是按权重混合的 Value，再乘 W^O：权重是混合的份额"},
    "review.q7": {"en": "shuffle the words (no mask): change beyond a reordering, without positions → with them",
                  "zh": "打乱词序（不加掩码）：输出除了换顺序之外的变化，不加位置编码 → 加上位置编码"},
    "review.q8": {"en": "“{last}” reads “{first}” directly, in one step: its weight in each head",
                  "zh": "“{last}”一步直接读取“{first}”：它在每个头里的权重"},
    "review.cost": {"en": "the weights tensor holds H·T² numbers (H = {h}, T = {t}); doubling T: four times as many",
                    "zh": "权重张量有 H·T² 个数（H = {h}，T = {t}）；T 翻倍，数量变为四倍"},
}
