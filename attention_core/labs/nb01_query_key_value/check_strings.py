"""The words of notebook 01's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "checks.hint.times_k": {"en": " Did you multiply the weights by K instead of V?",
                            "zh": "你是不是用权重乘了 K，而不是 V？"},
    "checks.scale.none": {"en": "You did not scale ({case}): divide Q K^T by sqrt(d_k) before softmax. With d_k = 2 "
                                "the scores should be [0.707, 0] and the weights [0.670, 0.330].",
                          "zh": "你没有做缩放（{case}）：softmax 之前要把 Q·Kᵀ 除以 √d_k。d_k = 2 时，"
                                "分数应为 [0.707, 0]，权重应为 [0.670, 0.330]。"},
    "checks.scale.by_dk": {"en": "You divided by d_k instead of sqrt(d_k) ({case}): the scores should be [0.707, 0], "
                                 "not [0.5, 0].",
                           "zh": "你除以的是 d_k，而不是 √d_k（{case}）：分数应为 [0.707, 0]，不是 [0.5, 0]。"},
    "checks.scale.multiplied": {"en": "You multiplied by sqrt(d_k) instead of dividing by it ({case}).",
                                "zh": "你把分数乘以了 √d_k，应该是除以它（{case}）。"},
    "checks.batch_transpose": {"en": "Your function works on 2-D inputs but not on a batch ({case}): {detail} "
                                     "For batched arrays use k.swapaxes(-1, -2) instead of k.T (which reverses "
                                     "every axis), and softmax over axis=-1.",
                               "zh": "你的函数对二维输入正确，但对批量输入不对（{case}）：{detail}"
                                     "批量数组请用 k.swapaxes(-1, -2)，不要用 k.T（它会把所有轴都倒过来），"
                                     "softmax 沿 axis=-1。"},
    "checks.attention.not_pair": {"en": "Your function should return a pair (output, weights), like "
                                        "attention_core.scaled_dot_product_attention ({case}). If your exercise "
                                        "returns only the output, use check_attention(fn, returns=\"output\").",
                                  "zh": "你的函数应该像 attention_core.scaled_dot_product_attention 一样返回 "
                                        "(output, weights) 二元组（{case}）。如果练习只要求返回输出，"
                                        "请用 check_attention(fn, returns=\"output\")。"},
    "checks.attention.swapped": {"en": "Your function returns (weights, output); the order is (output, weights), like "
                                       "attention_core.scaled_dot_product_attention ({case}).",
                                 "zh": "你的函数返回的是 (weights, output)；顺序应为 (output, weights)，"
                                       "和 attention_core.scaled_dot_product_attention 一样（{case}）。"},
    "checks.attention.output": {"en": "Your weights are right but your output is not weights @ V ({case}).",
                                "zh": "你的权重是对的，但输出不等于 weights @ V（{case}）。"},
    "checks.attention.times_k": {"en": "Your output is weights @ K ({case}): the weighted sum runs over the values V; "
                                       "K only decides how much each position gives.",
                                 "zh": "你的输出是 weights @ K（{case}）：加权求和的对象是 V；"
                                       "K 只决定每个位置贡献多少。"},
    "checks.attention.overflow": {"en": "Your {what} contains NaN or inf for large scores ({case}): use a stable "
                                        "softmax that subtracts each row's maximum (attention_core.softmax does).",
                                  "zh": "分数很大时，你的{what}出现了 NaN 或 inf（{case}）：请使用数值稳定的 "
                                        "softmax，"
                                        "先减去每一行的最大值（attention_core.softmax 就是这样做的）。"},
    "checks.attention.ok": {"en": "All good: the worked example of notebook 01 ([0.670, 0.330] -> [1.340, 1.321]), "
                                  "rectangular shapes, large scores and batches match attention_core.",
                            "zh": "全部通过：01 节的例题（[0.670, 0.330] -> [1.340, 1.321]）、长宽不等的形状、"
                                  "很大的分数和批量输入都与 attention_core 一致。"},
    "checks.attention.no_mask_tested": {"en": "(The mask was not tested: your function has no `mask` parameter.)",
                                        "zh": "（没有检查掩码：你的函数没有 `mask` 参数。）"},
    "checks.mask.finite_fill": {"en": "Query 2 may see no key at all ({case}), yet your weights spread over every "
                                      "key, 1/4 each: filling the masked scores with a large finite number such as "
                                      "-1e9 turns a fully masked row uniform, so hidden keys (padding) are read as "
                                      "content. Fill with -inf (or use ac.softmax(scores, mask=mask)) and give a "
                                      "row with no visible key all-zero weights.",
                                "zh": "第 2 个 Query 一个 Key 都不能看（{case}），"
                                      "你的权重却平均分给了每个 Key，各 1/4："
                                      "用 -1e9 这样很大的有限数填充被屏蔽的分数，整行被屏蔽时就会变成均匀分布，"
                                      "被屏蔽的 Key（比如填充位置）被当成内容读了进来。要用 -inf 填充"
                                      "（或者用 ac.softmax(scores, mask=mask)），并让没有可见 Key 的一行权重全为 0。"},
    "checks.mask.nan_row": {"en": "Query 2 may see no key at all ({case}) and your result has NaN in its row: with "
                                  "-inf everywhere, softmax computes 0/0. A row with no visible key reads nothing: "
                                  "give it all-zero weights and output (ac.softmax(scores, mask=mask) does), so "
                                  "that NaN never spreads to later layers.",
                            "zh": "第 2 个 Query 一个 Key 都不能看（{case}），你的结果在这一行出现了 NaN："
                                  "整行都是 -inf 时，"
                                  "softmax 算的是 0/0。没有可见 Key 的一行什么也不读：要让它的权重和输出全为 0"
                                  "（ac.softmax(scores, mask=mask) 就是这样做的），NaN 才不会传到后面的层。"},
    "checks.mask.ignored": {"en": "Your output does not change when a causal mask is passed ({case}): the mask is "
                                  "ignored. Set the scores of hidden keys (mask == False) to -inf before softmax.",
                            "zh": "传入因果掩码后你的输出没有任何变化（{case}）：掩码被忽略了。"
                                  "请在 softmax 之前把被屏蔽位置（mask == False）的分数设为 -inf。"},
    "checks.mask.inverted": {"en": "Your weights are zero exactly where the mask is True ({case}). In attention_core, "
                                   "True means \"may attend\": hide the keys where the mask is False.",
                             "zh": "你的权重恰好在掩码为 True 的位置是 0（{case}）。在 attention_core 里 True 表示"
                                   "“可以关注”：应该屏蔽掩码为 False 的位置。"},
    "checks.mask.leak": {"en": "Query {i} gives weight {value} to key {j}, which the mask hides ({case}): masked "
                               "positions must get weight exactly 0. Fill their scores with -inf before softmax.",
                         "zh": "Query {i}（从 0 编号）给被屏蔽的 Key {j} 分配了 {value} 的权重（{case}）："
                               "被屏蔽的位置权重必须严格为 0。请在 softmax 之前把它们的分数填成 -inf。"},
    "checks.mask.after_softmax": {"en": "Masked weights are 0 but the rows no longer sum to 1 ({case}): you applied "
                                        "the mask after softmax. Apply it to the scores, before softmax.",
                                  "zh": "被屏蔽的权重是 0，但每行之和不再是 1（{case}）：你是在 softmax 之后才加的"
                                        "掩码。"
                                        "应该在 softmax 之前作用在分数上。"},
    "exercises.sum.ignored": {"en": "Your output is the plain average of the values ({case}): the weights were "
                                    "ignored. Each output row is sum_j weights[i, j] * v[j], that is weights @ v.",
                              "zh": "你的输出是各个 Value 的简单平均（{case}）：权重被忽略了。"
                                    "每一行输出是 sum_j weights[i, j] * v[j]，也就是 weights @ v。"},
    "exercises.sum.transposed": {"en": " The weights have one row per query: use weights @ v, not v.T @ weights.T "
                                       "or weights.T @ v.",
                                 "zh": "权重是每个 Query 一行：应该写 weights @ v，而不是 v.T @ weights.T 或 "
                                       "weights.T @ v。"},
    "exercises.sum.ok": {"en": "All good: each output row is the weighted sum of the value rows, for one query, "
                               "several queries and a batch.",
                         "zh": "全部通过：每一行输出都是各个 Value 行的加权和，单个 Query、多个 Query 和批量输入都正确"
                               "。"},
}
