"""The words of notebook 10's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "exercises.window.wide": {"en": "Your window shows window + 1 keys ({case}): query i sees keys i-window+1 .. i, "
                                    "that is `window` keys, itself included (0 <= i - j < window).",
                              "zh": "你的窗口多露出了一个 Key（{case}）：宽度为 w 的窗口里，Query i 看到的是 "
                                    "Key i-w+1 到 i，共 w 个，包括它自己（0 <= i - j < w）。"},
    "exercises.window.future": {"en": "Your window lets a query see keys after it ({case}): the causal window looks "
                                      "only backwards, 0 <= i - j < window.",
                                "zh": "你的窗口让 Query 看到了它后面的 Key（{case}）：因果窗口只往回看，0 <= i - j < "
                                      "window。"},
    "exercises.window.no_diagonal": {"en": "Your window hides the diagonal ({case}): each position sees itself, so "
                                           "the condition is 0 <= i - j, not 0 < i - j.",
                                     "zh": "你的窗口把对角线也屏蔽了（{case}）：每个位置都能看到自己，条件是 0 <= i - "
                                           "j，而不是 0 < i - j。"},
    "exercises.window.inverted": {"en": "Your mask is True outside the window ({case}): True means \"may attend\". "
                                        "Invert it with ~.",
                                  "zh": "你的掩码在窗口之外是 True（{case}）：True 表示“可以关注”。用 ~ 取反即可。"},
    "exercises.window.ok": {"en": "All good: a causal window of `window` keys, the current one included, for "
                                  "T = 6 with windows 1, 3 and 6.",
                            "zh": "全部通过：T = 6、窗口宽度为 1、3、6 时，都是包含当前位置、共 w 个 Key 的因果窗口。"},
    "exercises.online.no_rescale": {"en": "When a later block has a larger maximum, your running sum and accumulator "
                                          "are not rescaled ({case}): multiply both by exp(m_old − m_new) before "
                                          "adding the new block.",
                                    "zh": "当后面某一块出现更大的最大值时，你没有重新缩放累计和与累加器（{case}）："
                                          "加入新块之前，要把两者都乘以 exp(m_old − m_new)。"},
    "exercises.online.no_divide": {"en": "You returned the accumulator without dividing by the running sum ({case}): "
                                         "output = acc / l at the end.",
                                   "zh": "你返回的是累加器，没有除以累计和（{case}）：最后要算 output = acc / l。"},
    "exercises.online.last_block": {"en": "The last, shorter block is missing ({case}): with Tk = 100 and blocks of "
                                          "32, the keys 96 .. 99 are a block too. Loop over range(0, Tk, block_size) "
                                          "and slice up to min(start + block_size, Tk).",
                                    "zh": "最后那个较短的块被漏掉了（{case}）：Tk = 100、块大小 32 时，Key 96 到 99 "
                                          "也是一块。"
                                          "循环用 range(0, Tk, block_size)，切片到 min(start + block_size, Tk)。"},
    "exercises.online.no_scale": {"en": "You did not divide the scores by sqrt(d_k) ({case}).",
                                  "zh": "你没有把分数除以 √d_k（{case}）。"},
    "exercises.online.overflow": {"en": "Your output has NaN or inf for scores near 1000 ({case}): subtract the "
                                        "running maximum before exp, as a stable softmax does.",
                                  "zh": "分数接近 1000 时你的输出出现了 NaN 或 inf（{case}）：取 exp 之前要减去当前最"
                                        "大值，"
                                        "就像数值稳定的 softmax 那样。"},
    "exercises.online.memory": {"en": "Your function's peak memory is {got} for {case}, as much as the whole "
                                      "(Tq, Tk) score matrix ({full}): it must work one block of keys at a time and "
                                      "never hold all the scores (the budget here is {budget}).",
                                "zh": "对于 {case}，你的函数峰值内存是 {got}，相当于整个 (Tq, Tk) 分数矩阵（{full}）："
                                      "它必须一次只处理一块 Key，始终不持有全部分数（这里的预算是 {budget}）。"},
    "exercises.online.whole_keys": {"en": "Your function read {n} rows of {name} at once ({case}): the online "
                                          "softmax takes the keys and values one block of block_size = {block} "
                                          "rows at a time (k[start:start + block_size]), keeping a running "
                                          "maximum and sum. Splitting the queries into blocks and running a full "
                                          "softmax over all keys per block is not an online softmax.",
                                    "zh": "你的函数一次读取了 {name} 的 {n} 行（{case}）：在线 softmax 每次只取 "
                                          "block_size = {block} 行 Key 和 Value（k[start:start + block_size]），"
                                          "并维护当前最大值和当前累计和。把 Query 分块、每块对全部 Key 做一次完整的 "
                                          "softmax，并不是在线 softmax。"},
    "exercises.online.query_blocks": {"en": "With {tq} queries and block_size = {block}, your function's peak "
                                            "memory is {got} ({case}), against {full} for the whole score "
                                            "matrix: it scores every key at once. Splitting the queries into "
                                            "blocks does not help when there are few queries; take the keys a "
                                            "block at a time, with a running maximum and sum.",
                                      "zh": "在 {tq} 个 Query、block_size = {block} 时，你的函数峰值内存是 {got}"
                                            "（{case}），而整个分数矩阵也只有 {full}：它一次就给所有 Key 打了分。"
                                            "Query 很少时，把 Query 分块没有用；要把 Key 分块，"
                                            "并维护当前最大值和当前累计和。"},
    "exercises.online.ok": {"en": "All good: the output of softmax attention to 1e-6, a rising maximum, an uneven "
                                  "last block and scores near 1000 handled, and peak memory {got} where the score "
                                  "matrix alone is {full}.",
                            "zh": "全部通过：输出与 softmax 注意力相差不到 1e-6，最大值不断变大、最后一块较短、分数接"
                                  "近 1000 "
                                  "都处理正确；峰值内存 {got}，而单是分数矩阵就要 {full}。"},
}
