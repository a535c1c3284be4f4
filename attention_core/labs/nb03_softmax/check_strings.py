"""The words of notebook 03's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "checks.softmax.batch": {"en": "Your softmax works on 1-D and 2-D inputs but not on a batch ({case}): {detail} "
                                   "Use axis=-1 (the last axis) so that any number of leading dimensions works.",
                             "zh": "你的 softmax 对一维、二维输入正确，但对批量输入不对（{case}）：{detail}"
                                   "请用 axis=-1（最后一个轴），这样前面有多少维都能处理。"},
    "checks.softmax.clipped": {"en": "One remark: for {case} your softmax gives {got} to the score -1000 and "
                                     "{got_100} to -100, instead of 0 (e^-1000 underflows to exactly 0) and "
                                     "{expected_100}: the exponents are clipped (np.maximum, np.clip) or a floor is "
                                     "added. That is well within the tolerance, so it passes; only, no score can "
                                     "then get a weight of exactly 0, a masked one included.",
                               "zh": "还有一点提醒：对于 {case}，你的 softmax 给分数 -1000 的权重是 {got}，"
                                     "给 -100 的是 {got_100}，而精确值是 0（e^-1000 下溢为严格的 0）和 {expected_100}："
                                     "指数被截断了（np.maximum、np.clip），或者加了下限。这远在误差范围之内，所以算通过；"
                                     "只是这样一来，没有哪个分数能得到严格为 0 的权重，被掩码屏蔽的也不例外。"},
    "checks.softmax.overflow": {"en": "Overflow: for {case} your softmax returns NaN or inf, because exp(1000) is inf "
                                      "in floating point. Subtract each row's maximum before exp "
                                      "(the shift does not change softmax).",
                                "zh": "溢出：对于 {case}，你的 softmax 返回了 NaN 或 inf，因为浮点数里 exp(1000) 就是 "
                                      "inf。"
                                      "请在取 exp 之前减去每一行的最大值（这个平移不改变 softmax 的结果）。"},
    "checks.softmax.global_max": {"en": "For {case}, the first row is fine but the second underflows to 0/0: you "
                                        "subtracted the maximum of the whole array. Subtract each row's own maximum: "
                                        "x.max(axis=-1, keepdims=True).",
                                  "zh": "对于 {case}，第一行没问题，第二行却下溢成 0/0：你减去的是整个数组的最大值。"
                                        "应该减去每一行自己的最大值：x.max(axis=-1, keepdims=True)。"},
    "checks.softmax.ok": {"en": "All good: right values on 1-D, 2-D and batched inputs, every row sums to 1, "
                                "and logits of ±1000 and ±1e4 do not overflow.",
                          "zh": "全部通过：一维、二维和批量输入的数值都正确，每一行之和为 1，"
                                "±1000 和 ±1e4 的大分数也不会溢出。"},
    "checks.softmax.no_exp": {"en": "For {case} you returned x / x.sum(): softmax exponentiates first, "
                                    "exp(x) / exp(x).sum(), so negative scores still get positive weights.",
                              "zh": "对于 {case}，你返回的是 x / x.sum()：softmax 要先取指数，"
                                    "exp(x) / exp(x).sum()，这样负分数也能得到正的权重。"},
    "exercises.temp.multiplied": {"en": "You multiplied the scores by the temperature ({case}): divide by it. "
                                        "A low temperature must sharpen the weights, a high one flatten them.",
                                  "zh": "你把分数乘以了温度（{case}）：应该除以温度。温度低，权重应该更尖；温度高，权"
                                        "重应该更平。"},
    "exercises.temp.ignored": {"en": "Your weights do not change with the temperature ({case}): compute "
                                     "softmax(x / temperature).",
                               "zh": "你的权重不随温度变化（{case}）：应该计算 softmax(x / temperature)。"},
    "exercises.temp.overflow": {"en": "At a low temperature your softmax overflows ({case}): x / temperature "
                                      "reaches thousands. Divide first, then subtract each row's maximum (or call "
                                      "ac.softmax on x / temperature).",
                                "zh": "温度很低时你的 softmax 溢出了（{case}）：x / temperature 会达到几千。"
                                      "先除以温度，再减去每一行的最大值（或者直接对 x / temperature 调用 ac.softmax）"
                                      "。"},
    "exercises.temp.ok": {"en": "All good: softmax(x / temperature) at temperatures 0.001 to 4, sharper below 1 "
                                "and flatter above, on rows and batches.",
                          "zh": "全部通过：温度从 0.001 到 4 都等于 softmax(x / temperature)，低于 1 更尖、高于 1 更平"
                                "，"
                                "单行和批量输入都正确。"},
}
