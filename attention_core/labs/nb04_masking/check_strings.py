"""The words of notebook 04's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "checks.mask.additive": {"en": "You returned an additive mask (0 and -inf) for {case}; this exercise asks for the "
                                   "boolean mask (True = may attend). attention_core.additive_mask turns one into the "
                                   "other.",
                             "zh": "你对 {case} 返回的是加性掩码（0 和 -inf）；这个练习要的是布尔掩码"
                                   "（True = 可以关注）。attention_core.additive_mask 可以把后者转换成前者。"},
    "checks.mask.dtype": {"en": "Your mask has dtype {dtype} for {case}; return a boolean array (True = may attend), "
                                "for example with .astype(bool) or np.tril(np.ones((T, T), dtype=bool)).",
                          "zh": "你的掩码对 {case} 的 dtype 是 {dtype}；请返回布尔数组（True = 可以关注），"
                                "例如用 .astype(bool) 或 np.tril(np.ones((T, T), dtype=bool))。"},
    "checks.mask.bool_inverted": {"en": "Your mask is True where the key lies in the future ({case}): attention_core's "
                                        "convention is True = may attend. Invert it with ~.",
                                  "zh": "你的掩码在“未来”的位置是 True（{case}）：attention_core 的约定是 "
                                        "True = 可以关注。用 ~ 取反即可。"},
    "checks.mask.upper": {"en": "Your mask lets query i see keys j >= i, that is the future ({case}): the causal mask "
                                "is the lower triangle, j <= i (np.tril, not np.triu).",
                          "zh": "你的掩码让 Query i 看到 j >= i 的 Key，也就是未来（{case}）：因果掩码是下三"
                                "角，"
                                "j <= i（用 np.tril，不是 np.triu）。"},
    "checks.mask.no_diagonal": {"en": "Your mask hides the diagonal ({case}): each position must see itself, "
                                      "so use j <= i, not j < i.",
                                "zh": "你的掩码把对角线也屏蔽了（{case}）：每个位置必须能看到自己，"
                                      "应该用 j <= i，而不是 j < i。"},
    "checks.mask.ok": {"en": "All good: a boolean lower-triangular (T, T) mask, diagonal included, for T = 1, 4 and 7.",
                       "zh": "全部通过：T = 1、4、7 时都是包含对角线的布尔下三角 (T, T) 掩码。"},
    "exercises.pad.bool_inverted": {"en": "Your mask is True on the padding ({case}): in attention_core True means "
                                          "\"may attend\", so real tokens are True and pads False. Invert it with ~.",
                                    "zh": "你的掩码在填充位置是 True（{case}）：在 attention_core 里 True 表示“可以"
                                          "关注”，"
                                          "所以真实 token 是 True、填充是 False。用 ~ 取反即可。"},
    "exercises.pad.side": {"en": "Your mask hides the first positions instead of the last ({case}): the pad side "
                                 "is inverted. The sequences are padded at the end, so key j of sequence b is "
                                 "visible when j < lengths[b].",
                           "zh": "你的掩码屏蔽的是开头几个位置，而不是末尾（{case}）：填充的方向弄反了。"
                                 "序列是在末尾填充的，所以第 b 条序列的第 j 个 Key 在 j < lengths[b] 时可见。"},
    "exercises.pad.off_by_one": {"en": "Your mask shows one position too many ({case}): a sequence of length n has "
                                       "keys 0 .. n-1, so use j < n, not j <= n.",
                                 "zh": "你的掩码多露出了一个位置（{case}）：长度为 n 的序列，Key 的编号是 0 到 n-1，"
                                       "所以要用 j < n，而不是 j <= n。"},
    "exercises.pad.no_query_axis": {"en": " Keep a query axis of size 1, (B, 1, Tk), so that the mask broadcasts "
                                          "over every query of its sequence: mask[:, None, :].",
                                    "zh": "请保留一个长度为 1 的 Query 轴，即 (B, 1, Tk)，这样掩码才能沿该序列的所有"
                                          " Query "
                                          "广播：mask[:, None, :]。"},
    "exercises.pad.max_len": {"en": " Pad to max_len, not to the longest sequence: a batch may be padded further "
                                    "than its longest member.",
                              "zh": "要填充到 max_len，而不是最长序列的长度：一个批次可以填充得比其中最长的序列还长。"},
    "exercises.pad.ok": {"en": "All good: a boolean (B, 1, Tk) mask, True on the real tokens, for lengths [3, 1, 4] "
                               "padded to 4 and to 6, and for a single sequence.",
                         "zh": "全部通过：长度 [3, 1, 4] 填充到 4 和 6、以及单条序列时，都得到布尔 (B, 1, Tk) 掩码，"
                               "真实 token 处为 True。"},
}
