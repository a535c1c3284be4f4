"""The words of notebook 06's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "exercises.what.heads": {"en": "heads", "zh": "多头张量"},
    "exercises.what.merged": {"en": "merged heads", "zh": "拼接后的结果"},
    "exercises.heads.no_transpose": {"en": "Your heads have the right shape but the wrong numbers ({case}): you "
                                           "reshaped (T, D) straight to (H, T, Dh). A (T, D) array is stored row by "
                                           "row, so each head is filled with a few tokens' rows, read in order, "
                                           "instead of its own block of columns from every token.",
                                     "zh": "你的多头张量形状对了，数却不对（{case}）：你把 (T, D) 直接用 reshape "
                                           "变成了 (H, T, Dh)。(T, D) 在内存里是一行一行存的，于是每个头按顺序装进"
                                           "的是少数几个 token 的行，而不是每个 token 里属于它的那一段列。"},
    "exercises.heads.head_last": {"en": " You reshaped to (..., T, H, Dh) but kept the head axis after T: move it in "
                                        "front with .swapaxes(-2, -3).",
                                  "zh": "你用 reshape 变成了 (..., T, H, Dh)，但头的轴还在 T 后面："
                                        "用 .swapaxes(-2, -3) 把它挪到前面。"},
    "exercises.heads.strided": {"en": "Head h takes columns h, h + H, h + 2H, ... in your version ({case}); in the "
                                      "package (and in torch) head h takes the contiguous block of columns "
                                      "h*Dh .. (h+1)*Dh - 1: reshape the last axis as (H, Dh), not (Dh, H).",
                                "zh": "在你的版本里，头 h 取的是列 h、h + H、h + 2H……（{case}）；"
                                      "而在本库（以及 torch）里，头 h 取的是连续的一段列 h*Dh 到 (h+1)*Dh - 1："
                                      "最后一个轴要变形为 (H, Dh)，而不是 (Dh, H)。"},
    "exercises.heads.batch": {"en": "Your function works on (T, D) but not on a batch ({case}): {detail} Unpack the "
                                    "shape as *lead, T, D = x.shape and use negative axes.",
                              "zh": "你的函数对 (T, D) 正确，但对批量输入不对（{case}）：{detail}"
                                    "请用 *lead, T, D = x.shape 拆出形状，并使用负数轴。"},
    "exercises.heads.split_ok": {"en": "All good: (..., T, D) -> (..., H, T, D/H), head h holding columns "
                                       "h*Dh .. (h+1)*Dh - 1, with and without a batch.",
                                 "zh": "全部通过：(..., T, D) -> (..., H, T, D/H)，头 h 取列 h*Dh 到 (h+1)*Dh - 1，"
                                       ""
                                       "有无批量维度都正确。"},
    "exercises.merge.no_transpose": {"en": "Your result has the right shape but the wrong numbers ({case}): you "
                                           "reshaped (H, T, Dh) straight to (T, H*Dh) without moving the head axis "
                                           "back. Swap first (.swapaxes(-2, -3) gives (..., T, H, Dh)), then reshape.",
                                     "zh": "你的结果形状对了，数却不对（{case}）：你把 (H, T, Dh) 直接用 reshape "
                                           "变成了 (T, H*Dh)，"
                                           "没有先把头的轴换回去。应该先 .swapaxes(-2, -3) 得到 (..., T, H, Dh)，再 "
                                           "reshape。"},
    "exercises.merge.strided": {"en": "Your concatenation interleaves the heads column by column ({case}): merge "
                                      "must undo split_heads, putting head 0's Dh columns first, then head 1's, ...",
                                "zh": "你的拼接把各个头按列交错在了一起（{case}）：合并必须是 split_heads 的逆运算，"
                                      "先放头 0 的 Dh 列，再放头 1 的，依此类推。"},
    "exercises.merge.ok": {"en": "All good: (..., H, T, Dh) -> (..., T, H*Dh), and merge_heads(split_heads(x)) "
                                 "gives x back, with and without a batch.",
                           "zh": "全部通过：(..., H, T, Dh) -> (..., T, H*Dh)，并且 merge_heads(split_heads(x)) 能还原"
                                 " x，"
                                 "有无批量维度都正确。"},
    "exercises.mha.no_w_o": {"en": "Your heads are right but the output skips the final projection ({case}): after "
                                   "concatenating, multiply by W_o and add b_o.",
                             "zh": "各个头都算对了，但输出少了最后的投影（{case}）：拼接之后还要乘 W_o、加 b_o。"},
    "exercises.mha.no_bias": {"en": "Your output misses the biases ({case}): each projection is x @ W + b "
                                    "(params.b_q, b_k, b_v, b_o).",
                              "zh": "你的输出漏掉了偏置（{case}）：每个投影都是 x @ W + b（params.b_q、b_k、b_v、b_o）"
                                    "。"},
    "exercises.mha.no_transpose": {"en": "Your heads were split (or merged) without the transpose ({case}): reshape "
                                         "(T, D) to (T, H, Dh) and swap to (H, T, Dh); merge the same way back.",
                                   "zh": "你在拆分（或合并）多头时没有转置（{case}）："
                                         "先用 reshape 把 (T, D) 变成 (T, H, Dh)，"
                                         "再交换成 (H, T, Dh)；合并时按相反的步骤换回来。"},
    "exercises.mha.scale_model": {"en": "You divided the scores by sqrt(d_model) ({case}): each head compares "
                                        "vectors of width Dh = d_model / H, so divide by sqrt(Dh).",
                                  "zh": "你把分数除以了 √d_model（{case}）：每个头比较的是 Dh = d_model / H 维的向"
                                        "量，所以应该除以 √Dh。"},
    "exercises.mha.one_head": {"en": "Your output is single-head attention over the full width ({case}): split the "
                                     "projections into params.n_heads heads before attending.",
                               "zh": "你的输出是在全部 d_model 维上做的单头注意力（{case}）："
                                     "做注意力之前，要把投影结果拆成 params.n_heads 个头。"},
    "exercises.mha.ok": {"en": "All good: your multi-head attention gives the numbers of attention_core's for 1, "
                               "2 and 4 heads and a batch.",
                         "zh": "全部通过：1 个、2 个、4 个头以及批量输入时，你的多头注意力都与 attention_core 的结果一"
                               "致。"},
}
