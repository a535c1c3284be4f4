"""Checkers of the notebooks' exercises (ARENA style): heads, masks, positions, caches, online softmax.

    from attention_core.teaching import checks
    checks.check_split_heads(my_split_heads)          # a CheckResult, in the i18n language
    checks.check_rope(my_rope, lang="zh")              # or in the language you pass

Each checker runs the learner's function on small seeded inputs, compares it with the package's
own function (the reference) and, when the answer is wrong, recomputes the answer of each usual
mistake (heads split without the transpose, sin and cos swapped, the running sum not rescaled,
a future key visible, ...) to name the one the learner made, in plain words. The machinery
(catching the learner's exceptions, copies of the inputs, the verdict) is `checks`'s; these
functions are re-exported there, so `checks.check_rope` is the name a notebook uses.
Contracts follow the package's conventions: NumPy in, NumPy out, masks True = may attend.
"""
from __future__ import annotations

import inspect
import math

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.masks import causal_mask, padding_mask, sliding_window_mask
from attention_core.core.multihead import merge_heads, multi_head_attention, split_heads
from attention_core.core.positional import apply_rope, sinusoidal_encoding
from attention_core.core.softmax import softmax
from attention_core.teaching import i18n
from attention_core.teaching.measure import traced_peak

__all__ = [
    "check_cross_attention",
    "check_dot_product_variance",
    "check_kv_cache_bytes",
    "check_kv_cache_decode",
    "check_merge_heads",
    "check_multi_head_attention",
    "check_online_attention",
    "check_padding_mask",
    "check_rnn_forward",
    "check_rnn_gradient",
    "check_rope",
    "check_self_attention",
    "check_sinusoidal_encoding",
    "check_sliding_window_mask",
    "check_split_heads",
    "check_temperature_softmax",
    "check_weighted_sum",
]

# English and Chinese side by side; every key is spelled out where it is used.
STRINGS: dict[str, dict[str, str]] = {
    # words that fill the {what} of the shared messages
    "exercises.what.output": {"en": "output", "zh": "输出"},
    "exercises.what.weights": {"en": "weights", "zh": "权重"},
    "exercises.what.mask": {"en": "mask", "zh": "mask"},
    "exercises.what.heads": {"en": "heads", "zh": "多头张量"},
    "exercises.what.merged": {"en": "merged heads", "zh": "拼接后的结果"},
    "exercises.what.table": {"en": "position table", "zh": "位置编码表"},
    "exercises.what.rotated": {"en": "rotated x", "zh": "旋转后的 x"},
    "exercises.what.states": {"en": "hidden states", "zh": "隐藏状态"},
    "exercises.what.jacobian": {"en": "Jacobian", "zh": "雅可比矩阵"},
    # weighted sum (01)
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
    # dot-product variance (02)
    "exercises.var.not_pair": {"en": "Return a pair (variance of the raw dot products, variance of the scaled "
                                     "ones) of two numbers ({case}).",
                               "zh": "请返回两个数组成的二元组：（原始点积的方差，缩放后点积的方差）（{case}）。"},
    "exercises.var.std": {"en": "For {case} you returned {got}, close to sqrt(d_k): that is the standard deviation. "
                                "The variance is its square (np.var, not np.std).",
                          "zh": "对于 {case}，你返回了 {got}，接近 √d_k：这是标准差。方差是它的平方（用 np.var，不是 "
                                "np.std）。"},
    "exercises.var.mean": {"en": "For {case} the raw variance is {got}, about 1/d_k: you averaged the d_k "
                                 "products (np.mean) instead of adding them. A dot product is a sum.",
                           "zh": "对于 {case}，原始方差是 {got}，约为 1/d_k：你把 d_k 个乘积取了平均（np.mean），"
                                 "而不是相加。点积是求和。"},
    "exercises.var.raw": {"en": "For {case} the variance of the raw dot products is {got}; it should be close to "
                                "d_k = {dk} (each of the d_k products has variance 1, and variances of independent "
                                "terms add up).",
                          "zh": "对于 {case}，原始点积的方差是 {got}，应该接近 d_k = {dk}"
                                "（d_k 个乘积各自方差为 1，独立项的方差可以相加）。"},
    "exercises.var.by_dk": {"en": "For {case} the scaled variance is {got}, about 1/d_k: you divided by d_k. "
                                  "Divide by sqrt(d_k): variance scales with the square of the factor.",
                            "zh": "对于 {case}，缩放后的方差是 {got}，约为 1/d_k：你除以的是 d_k。应该除以 √d_k："
                                  "方差按缩放因子的平方变化。"},
    "exercises.var.scaled": {"en": "For {case} the variance of the scaled dot products is {got}; dividing by "
                                   "sqrt(d_k) should bring it back to about 1.",
                             "zh": "对于 {case}，缩放后点积的方差是 {got}；除以 √d_k 之后应该回到 1 左右。"},
    "exercises.var.ok": {"en": "All good: the raw variance grows like d_k (4, 64, 512) and the scaled one stays "
                               "near 1.",
                         "zh": "全部通过：原始方差随 d_k（4、64、512）线性增长，缩放后的方差始终在 1 左右。"},
    # temperature (03)
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
    # padding mask (04)
    "exercises.pad.bool_inverted": {"en": "Your mask is True on the padding ({case}): in attention_core True means "
                                          "\"may attend\", so real tokens are True and pads False. Invert it with ~.",
                                    "zh": "你的 mask 在填充位置是 True（{case}）：在 attention_core 里 True 表示“可以"
                                          "关注”，"
                                          "所以真实 token 是 True、填充是 False。用 ~ 取反即可。"},
    "exercises.pad.side": {"en": "Your mask hides the first positions instead of the last ({case}): the pad side "
                                 "is inverted. The sequences are padded at the end, so key j of sequence b is "
                                 "visible when j < lengths[b].",
                           "zh": "你的 mask 遮住的是开头几个位置，而不是末尾（{case}）：填充的方向弄反了。"
                                 "序列是在末尾填充的，所以第 b 条序列的第 j 个 Key 在 j < lengths[b] 时可见。"},
    "exercises.pad.off_by_one": {"en": "Your mask shows one position too many ({case}): a sequence of length n has "
                                       "keys 0 .. n-1, so use j < n, not j <= n.",
                                 "zh": "你的 mask 多露出了一个位置（{case}）：长度为 n 的序列，Key 的编号是 0 到 n-1，"
                                       "所以要用 j < n，而不是 j <= n。"},
    "exercises.pad.no_query_axis": {"en": " Keep a query axis of size 1, (B, 1, Tk), so that the mask broadcasts "
                                          "over every query of its sequence: mask[:, None, :].",
                                    "zh": "请保留一个长度为 1 的 Query 轴，即 (B, 1, Tk)，这样 mask 才能沿该序列的所有"
                                          " Query "
                                          "广播：mask[:, None, :]。"},
    "exercises.pad.max_len": {"en": " Pad to max_len, not to the longest sequence: a batch may be padded further "
                                    "than its longest member.",
                              "zh": "要填充到 max_len，而不是最长序列的长度：一个批次可以填充得比其中最长的序列还长。"},
    "exercises.pad.ok": {"en": "All good: a boolean (B, 1, Tk) mask, True on the real tokens, for lengths [3, 1, 4] "
                               "padded to 4 and to 6, and for a single sequence.",
                         "zh": "全部通过：长度 [3, 1, 4] 填充到 4 和 6、以及单条序列时，都得到布尔 (B, 1, Tk) mask，"
                               "真实 token 处为 True。"},
    "exercises.mask.dtype": {"en": "Your mask has dtype {dtype} ({case}); return a boolean array (True = may "
                                   "attend).",
                             "zh": "你的 mask 的 dtype 是 {dtype}（{case}）；请返回布尔数组（True = 可以关注）。"},
    # self- and cross-attention (05)
    "exercises.self.no_projection": {"en": "You attended over x itself ({case}): self-attention first projects the "
                                           "same x three ways, Q = x W_q, K = x W_k, V = x W_v.",
                                     "zh": "你直接用 x 本身做了注意力（{case}）：自注意力要先把同一个 x 投影成三种角色"
                                           "："
                                           "Q = x W_q，K = x W_k，V = x W_v。"},
    "exercises.self.same_qk": {"en": "Your Query and Key both use W_q ({case}): the keys are x @ w_k. With one "
                                     "matrix for both, the scores are symmetric and a token cannot look for "
                                     "something other than what it is.",
                               "zh": "你的 Query 和 Key 都用了 W_q（{case}）：Key 应该是 x @ w_k。"
                                     "两者共用一个矩阵时，分数矩阵是对称的，一个 token 就没法去找“与自己不同”的东西。"},
    "exercises.self.no_scale": {"en": "You did not divide the scores by sqrt(d_k) ({case}); d_k is the width of "
                                      "the queries, w_q.shape[1].",
                                "zh": "你没有把分数除以 √d_k（{case}）；d_k 是 Query 的宽度，即 w_q.shape[1]。"},
    "exercises.self.ok": {"en": "All good: Q, K and V are three projections of the same x, and the output matches "
                                "attention_core on a sentence of 4 tokens and a batch.",
                          "zh": "全部通过：Q、K、V 是同一个 x 的三种投影，4 个 token 的句子和批量输入的输出都与 "
                                "attention_core 一致。"},
    "exercises.cross.q_from_encoder": {"en": " The weights should have one row per decoder token (Tq = 3) and one "
                                             "column per encoder token (Tk = 5): the Queries come from the "
                                             "decoder, the Keys and Values from the encoder.",
                                       "zh": "权重应该是每个解码器 token 一行（Tq = 3）、每个编码器 token 一列（Tk = "
                                             "5）："
                                             "Query 来自解码器，Key 和 Value 来自编码器。"},
    "exercises.cross.self_on_decoder": {"en": "Your weights are (3, 3): the Keys come from the decoder, so this is "
                                              "self-attention. In cross-attention the Keys and Values are the "
                                              "encoder's ({case}).",
                                        "zh": "你的权重是 (3, 3)：Key 来自解码器，这就成了自注意力。交叉注意力的 Key "
                                              "和 Value "
                                              "都来自编码器（{case}）。"},
    "exercises.cross.masked": {"en": "You applied a causal mask ({case}): cross-attention needs none, because the "
                                     "whole source sentence is known before decoding starts.",
                               "zh": "你加了因果 mask（{case}）：交叉注意力不需要它，因为整句原文在开始解码之前就已经"
                                     "全部已知。"},
    "exercises.cross.ok": {"en": "All good: decoder Queries (3 tokens) against encoder Keys and Values (5 tokens) "
                                 "give (3, 5) weights and the output of attention_core.",
                           "zh": "全部通过：解码器的 Query（3 个 token）对编码器的 Key 和 Value（5 个 token），"
                                 "得到 (3, 5) 的权重，输出与 attention_core 一致。"},
    # split and merge heads (06)
    "exercises.heads.no_transpose": {"en": "Your heads have the right shape but the wrong numbers ({case}): you "
                                           "reshaped (T, D) straight to (H, T, Dh) without the transpose, so a head "
                                           "mixes rows of different tokens. Reshape to (..., T, H, Dh), then swap "
                                           "the T and H axes: .swapaxes(-2, -3).",
                                     "zh": "你的多头张量形状对了，数却不对（{case}）：你把 (T, D) 直接 reshape 成了 "
                                           "(H, T, Dh)，"
                                           "没有转置，于是一个头里混进了不同 token 的行。应该先 reshape 成 (..., T, "
                                           "H, Dh)，"
                                           "再交换 T 和 H 两个轴：.swapaxes(-2, -3)。"},
    "exercises.heads.head_last": {"en": " You reshaped to (..., T, H, Dh) but kept the head axis after T: move it in "
                                        "front with .swapaxes(-2, -3).",
                                  "zh": "你 reshape 成了 (..., T, H, Dh)，但头的轴还在 T 后面：用 .swapaxes(-2, -3) 把"
                                        "它挪到前面。"},
    "exercises.heads.strided": {"en": "Head h takes columns h, h + H, h + 2H, ... in your version ({case}); in the "
                                      "package (and in torch) head h takes the contiguous block of columns "
                                      "h*Dh .. (h+1)*Dh - 1: reshape the last axis as (H, Dh), not (Dh, H).",
                                "zh": "在你的版本里，头 h 取的是列 h、h + H、h + 2H……（{case}）；"
                                      "而在本库（以及 torch）里，头 h 取的是连续的一段列 h*Dh 到 (h+1)*Dh - 1："
                                      "最后一个轴要 reshape 成 (H, Dh)，而不是 (Dh, H)。"},
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
                                     "zh": "你的结果形状对了，数却不对（{case}）：你把 (H, T, Dh) 直接 reshape 成了 "
                                           "(T, H*Dh)，"
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
    # multi-head attention (06, stretch)
    "exercises.mha.no_w_o": {"en": "Your heads are right but the output skips the final projection ({case}): after "
                                   "concatenating, multiply by W_o and add b_o.",
                             "zh": "各个头都算对了，但输出少了最后的投影（{case}）：拼接之后还要乘 W_o、加 b_o。"},
    "exercises.mha.no_bias": {"en": "Your output misses the biases ({case}): each projection is x @ W + b "
                                    "(params.b_q, b_k, b_v, b_o).",
                              "zh": "你的输出漏掉了偏置（{case}）：每个投影都是 x @ W + b（params.b_q、b_k、b_v、b_o）"
                                    "。"},
    "exercises.mha.no_transpose": {"en": "Your heads were split (or merged) without the transpose ({case}): reshape "
                                         "(T, D) to (T, H, Dh) and swap to (H, T, Dh); merge the same way back.",
                                   "zh": "你在拆分（或合并）多头时没有转置（{case}）：先把 (T, D) reshape 成 (T, H, "
                                         "Dh)，"
                                         "再交换成 (H, T, Dh)；合并时按相反的步骤换回来。"},
    "exercises.mha.scale_model": {"en": "You divided the scores by sqrt(d_model) ({case}): each head compares "
                                        "vectors of width Dh = d_model / H, so divide by sqrt(Dh).",
                                  "zh": "你把分数除以了 √d_model（{case}）：每个头比较的是宽度为 Dh = d_model / H 的向"
                                        "量，"
                                        "所以应该除以 √Dh。"},
    "exercises.mha.one_head": {"en": "Your output is single-head attention over the full width ({case}): split the "
                                     "projections into params.n_heads heads before attending.",
                               "zh": "你的输出是整宽度上的单头注意力（{case}）：做注意力之前，要把投影结果拆成 "
                                     "params.n_heads 个头。"},
    "exercises.mha.ok": {"en": "All good: your multi-head attention gives the numbers of attention_core's for 1, "
                               "2 and 4 heads and a batch.",
                         "zh": "全部通过：1 个、2 个、4 个头以及批量输入时，你的多头注意力都与 attention_core 的结果一"
                               "致。"},
    # sinusoidal encoding (07)
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
    # RoPE (07, stretch)
    "exercises.rope.sign": {"en": "You rotate the wrong way ({case}): a pair (a, b) at angle θ becomes "
                                  "(a cos θ − b sin θ, a sin θ + b cos θ); yours turns by −θ.",
                            "zh": "你的旋转方向反了（{case}）：一对 (a, b) 转过角度 θ 后是 (a cos θ − b sin θ, a sin "
                                  "θ + b cos θ)；"
                                  "你的版本转的是 −θ。"},
    "exercises.rope.half": {"en": "You paired dimension i with i + Dh/2 (the 'rotate half' layout of GPT-NeoX and "
                                  "Llama) ({case}); this package pairs neighbours (2i, 2i+1), as in the RoFormer "
                                  "paper: x[..., 0::2] and x[..., 1::2].",
                            "zh": "你把第 i 维和第 i + Dh/2 维配成了一对（GPT-NeoX 和 Llama 的“rotate half”写法）（"
                                  "{case}）；"
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
    # RNN (08)
    "exercises.rnn.not_carried": {"en": "Each of your steps starts again from h = 0 ({case}): step t must use the "
                                        "state of step t-1, h = tanh(x_t W_x + h W_h + b), carried through the loop.",
                                  "zh": "你的每一步都从 h = 0 重新开始（{case}）：第 t 步必须用上第 t-1 步的状态，"
                                        "h = tanh(x_t W_x + h W_h + b)，在循环中一路传下去。"},
    "exercises.rnn.no_tanh": {"en": "Your states are missing the tanh ({case}): h_t = tanh(x_t W_x + h_(t-1) W_h + b).",
                              "zh": "你的状态少了 tanh（{case}）：h_t = tanh(x_t W_x + h_(t-1) W_h + b)。"},
    "exercises.rnn.states_shape": {"en": " Return every state, one row per time step (T, D_h): not only the last, "
                                         "and not h_0 = 0.",
                                   "zh": "请返回每一步的状态，每个时间步一行 (T, D_h)：不要只返回最后一个，也不要包括 "
                                         "h_0 = 0。"},
    "exercises.rnn.ok": {"en": "All good: your RNN gives the states of ac's reference RNN, one step after another.",
                         "zh": "全部通过：你的 RNN 逐步算出的状态与参考 RNN 完全一致。"},
    "exercises.grad.no_tanh": {"en": "Your Jacobian forgets the tanh ({case}): each step multiplies by "
                                     "diag(1 − h_t²) as well as by W_hᵀ, and those factors below 1 are part of why "
                                     "the gradient fades.",
                               "zh": "你的雅可比矩阵忘了 tanh 的导数（{case}）：每一步除了乘 W_hᵀ，还要乘 diag(1 − "
                                     "h_t²)；"
                                     "这些小于 1 的因子正是梯度衰减的原因之一。"},
    "exercises.grad.order": {"en": "Your factors are multiplied in the wrong order ({case}): the chain rule puts the "
                                   "last step first, J = J_T ... J_1 (d h_0 / d x_0).",
                             "zh": "你的各个因子乘的顺序反了（{case}）：链式法则要把最后一步放在最左边，"
                                   "J = J_T ... J_1 (d h_0 / d x_0)。"},
    "exercises.grad.transposed": {"en": " The Jacobian d h_T / d x_0 has one row per hidden unit and one column per "
                                        "input feature: (D_h, D_in).",
                                  "zh": "雅可比矩阵 d h_T / d x_0 每个隐藏单元一行、每个输入特征一列：(D_h, D_in)。"},
    "exercises.grad.ok": {"en": "All good: your chain-rule Jacobian matches finite differences, for 1, 6 and 30 steps.",
                          "zh": "全部通过：你用链式法则求出的雅可比矩阵在 1 步、6 步和 30 步时都与有限差分一致。"},
    # KV cache (09)
    "exercises.kv.future": {"en": "Step {t} of your decoding sees a future key ({case}): when token t is generated, "
                                  "only keys 0 .. t exist. Attend to the cache, not to the whole k.",
                            "zh": "你解码到位置 {t}（从 0 编号）时看到了未来的 Key（{case}）：生成位置 t 的 token 时，"
                                  "只有位置 0 到 t 的 Key 存在。"
                                  "应该只对缓存做注意力，而不是对整个 k。"},
    "exercises.kv.exclusive": {"en": "Your cache misses the current token ({case}): append k[t] and v[t] to the "
                                     "cache first, then attend, so that step t sees keys 0 .. t (itself included).",
                               "zh": "你的缓存里缺了当前 token（{case}）：要先把 k[t] 和 v[t] 放进缓存，再做注意力，"
                                     "这样位置 t 看到的是位置 0 到 t 的 Key（包括它自己）。"},
    "exercises.kv.newest_only": {"en": "Each of your steps attends only to its own key ({case}): the cache must keep "
                                       "every earlier key and value, so step t sees 0 .. t.",
                                 "zh": "你的每一步只关注了自己的 Key（{case}）：缓存必须保留之前所有的 Key 和 Value，"
                                       "这样位置 t 才能看到位置 0 到 t。"},
    "exercises.kv.ok": {"en": "All good: step-by-step decoding with your cache gives exactly the outputs of the full "
                              "causal computation, for 1, 5 and 12 tokens.",
                        "zh": "全部通过：用你的缓存逐步解码，1、5、12 个 token 时都与完整的因果计算结果完全相同。"},
    "exercises.kvbytes.no_two": {"en": "Your count is half the answer ({case}): the cache keeps a Key and a Value "
                                       "for every token, layer and KV head, so there is a factor 2.",
                                 "zh": "你的结果只有正确答案的一半（{case}）：缓存为每个 token、每层、每个 KV 头同时存"
                                       " Key 和 Value，"
                                       "所以要乘 2。"},
    "exercises.kvbytes.squared": {"en": "Your count grows with the square of the context ({case}): that is the score "
                                        "matrix. The cache holds one Key and one Value per token, so it grows "
                                        "linearly.",
                                  "zh": "你的结果随上下文长度的平方增长（{case}）：那是分数矩阵。缓存为每个 token 存一"
                                        "个 Key 和一个 Value，"
                                        "所以它是线性增长的。"},
    "exercises.kvbytes.no_layers": {"en": "Your count is one layer's cache ({case}): every layer keeps its own keys "
                                          "and values; multiply by n_layers.",
                                    "zh": "你算的是一层的缓存（{case}）：每一层都有自己的 Key 和 Value，要乘以 "
                                          "n_layers。"},
    "exercises.kvbytes.bits": {"en": "Your count is 8 times too large ({case}): bytes_per_number is already in "
                                     "bytes (2 for float16), not bits.",
                               "zh": "你的结果大了 8 倍（{case}）：bytes_per_number 的单位已经是字节（float16 是 2），"
                                     "不是比特。"},
    "exercises.kvbytes.wrong": {"en": "For {case} you returned {got} bytes; the cache holds {expected} "
                                      "(2 × layers × KV heads × d_head × tokens × bytes).",
                                "zh": "对于 {case}，你返回了 {got} 字节；缓存实际占 {expected} 字节"
                                      "（2 × 层数 × KV 头数 × d_head × token 数 × 每个数的字节数）。"},
    "exercises.kvbytes.ok": {"en": "All good: Llama-2-7B keeps 0.5 MiB per token (2 GiB at 4,096 tokens); Mistral-7B, "
                                   "with 8 KV heads, a quarter of that per token.",
                             "zh": "全部通过：Llama-2-7B 每个 token 占 0.5 MiB（4,096 个 token 时 2 GiB）；Mistral-7B "
                                   "只有 "
                                   "8 个 KV 头，每个 token 只占它的四分之一。"},
    # sliding window (10)
    "exercises.window.wide": {"en": "Your window shows window + 1 keys ({case}): query i sees keys i-window+1 .. i, "
                                    "that is `window` keys, itself included (0 <= i - j < window).",
                              "zh": "你的窗口露出了 window + 1 个 Key（{case}）：Query i 看到的是 Key i-window+1 "
                                    "到 i，"
                                    "共 window 个，包括它自己（0 <= i - j < window）。"},
    "exercises.window.future": {"en": "Your window lets a query see keys after it ({case}): the causal window looks "
                                      "only backwards, 0 <= i - j < window.",
                                "zh": "你的窗口让 Query 看到了它后面的 Key（{case}）：因果窗口只往回看，0 <= i - j < "
                                      "window。"},
    "exercises.window.no_diagonal": {"en": "Your window hides the diagonal ({case}): each position sees itself, so "
                                           "the condition is 0 <= i - j, not 0 < i - j.",
                                     "zh": "你的窗口把对角线也遮住了（{case}）：每个位置都能看到自己，条件是 0 <= i - "
                                           "j，而不是 0 < i - j。"},
    "exercises.window.inverted": {"en": "Your mask is True outside the window ({case}): True means \"may attend\". "
                                        "Invert it with ~.",
                                  "zh": "你的 mask 在窗口之外是 True（{case}）：True 表示“可以关注”。用 ~ 取反即可。"},
    "exercises.window.ok": {"en": "All good: a causal window of `window` keys, the current one included, for "
                                  "T = 6 with windows 1, 3 and 6.",
                            "zh": "全部通过：T = 6、窗口为 1、3、6 时，都是包含当前位置、共 window 个 Key 的因果窗口。"
                                  ""},
    # online softmax (10, stretch)
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
    "exercises.online.ok": {"en": "All good: the output of softmax attention to 1e-6, a rising maximum, an uneven "
                                  "last block and scores near 1000 handled, and peak memory {got} where the score "
                                  "matrix alone is {full}.",
                            "zh": "全部通过：输出与 softmax 注意力相差不到 1e-6，最大值不断变大、最后一块较短、分数接"
                                  "近 1000 "
                                  "都处理正确；峰值内存 {got}，而单是分数矩阵就要 {full}。"},
}
i18n.register(STRINGS)

_W_OUTPUT, _W_WEIGHTS, _W_MASK = "exercises.what.output", "exercises.what.weights", "exercises.what.mask"


def _verdict(name: str, body, lang, timeout, fn):
    """checks' verdict machinery, with its time limit per call of the learner's function
    (timeout None: checks.TIMEOUT_S), where that version of checks has one."""
    if "timeout" not in inspect.signature(_c._run).parameters:
        return _c._run(name, body, lang)
    return _c._run(name, body, lang, _c.TIMEOUT_S if timeout is None else timeout, fn)


def _what(key: str):
    """A {what} word, put in words in the check's language (a message field may be a message)."""
    return _c._msg(key)


def _same(a, b, atol: float = 1e-6) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=atol, rtol=1e-5))


def _diagnose(got, variants: dict, case: str, ref=None, **fields) -> None:
    """If the learner's answer equals a known mistake's answer (one that differs from the right
    answer `ref` on this input), fail with that mistake's message."""
    for key, wrong in variants.items():
        if wrong is not None and _same(got, wrong) and not (ref is not None and _same(wrong, ref)):
            raise _c._Fail(key, case=case, **fields)


def _bool_mask(out, case: str) -> np.ndarray:
    if out.dtype != bool:
        raise _c._Fail("exercises.mask.dtype", dtype=str(out.dtype), case=case)
    return out


def _output_and_weights(out, case: str):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise _c._Fail("checks.attention.not_pair", case=case)
    return _c._array(out[0], case), _c._array(out[1], case)


# --- 01: the weighted sum ------------------------------------------------------------------------

def check_weighted_sum(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(weights (..., Tq, Tk), v (..., Tk, Dv)) -> the weighted sum weights @ v (..., Tq, Dv)."""
    def body():
        rng = np.random.default_rng(0)
        cases = [(np.array([[0.670, 0.330]]), np.array([[2.0, 0.0], [0.0, 4.0]])),
                 (softmax(rng.normal(size=(2, 3))), rng.normal(size=(3, 4))),
                 (softmax(rng.normal(size=(2, 3, 5))), rng.normal(size=(2, 5, 4)))]
        for weights, v in cases:
            case = _c._case(weights=weights, v=v)
            out = _c._array(_c._call(fn, case, weights, v), case)
            expected = weights @ v
            hint = "exercises.sum.transposed" if out.shape != expected.shape and out.ndim >= 2 else ""
            _c._shape(out, expected.shape, _what(_W_OUTPUT), case, hint)
            if not _same(weights, np.full_like(weights, weights[..., :1])):
                _diagnose(out, {"exercises.sum.ignored": np.broadcast_to(v.mean(axis=-2, keepdims=True),
                                                                         expected.shape)}, case, ref=expected)
            _c._close(out, expected, _what(_W_OUTPUT), case)
        return _c._msg("exercises.sum.ok")
    return _verdict("check_weighted_sum", body, lang, timeout, fn)


# --- 02: the variance of a dot product -----------------------------------------------------------

def check_dot_product_variance(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(d_k, n_samples, seed) -> (variance of q.k, variance of q.k / sqrt(d_k)) for q, k with
    independent standard-normal entries: about d_k and about 1."""
    def body():
        for d_k in (64, 512, 4):
            case = f"d_k = {d_k}, n_samples = 20000, seed = 0"
            out = _c._call(fn, case, d_k, 20000, 0)
            try:
                raw, scaled = (float(x) for x in out)
            except (TypeError, ValueError):
                raise _c._Fail("exercises.var.not_pair", case=case) from None
            got = f"({raw:.3g}, {scaled:.3g})"
            def near(x, target):
                return abs(x - target) <= 0.15 * target
            if not near(raw, d_k):
                if d_k > 4 and near(raw, math.sqrt(d_k)):
                    raise _c._Fail("exercises.var.std", got=got, case=case)
                if d_k > 4 and near(raw, 1.0 / d_k):
                    raise _c._Fail("exercises.var.mean", got=got, case=case)
                raise _c._Fail("exercises.var.raw", got=got, dk=d_k, case=case)
            if not near(scaled, 1.0):
                if near(scaled, 1.0 / d_k):
                    raise _c._Fail("exercises.var.by_dk", got=got, case=case)
                raise _c._Fail("exercises.var.scaled", got=got, case=case)
        return _c._msg("exercises.var.ok")
    return _verdict("check_dot_product_variance", body, lang, timeout, fn)


# --- 03: temperature -----------------------------------------------------------------------------

def check_temperature_softmax(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x, temperature) -> softmax(x / temperature) along the last axis."""
    def body():
        x = np.array([2.0, 1.0, 0.0])
        for temperature in (0.5, 1.0, 4.0):
            case = f"x = [2, 1, 0], temperature = {temperature}"
            out = _c._array(_c._call(fn, case, x, temperature), case)
            _c._shape(out, x.shape, _what(_W_WEIGHTS), case)
            _c._finite(out, _what(_W_WEIGHTS), case)
            if temperature != 1.0:
                _diagnose(out, {"exercises.temp.multiplied": softmax(x * temperature),
                                "exercises.temp.ignored": softmax(x)}, case, ref=softmax(x / temperature))
            _c._rows_sum_to_one(out, _what(_W_WEIGHTS), case)
            _c._close(out, softmax(x / temperature), _what(_W_WEIGHTS), case)
        x = np.random.default_rng(0).normal(size=(2, 3, 4))                   # (B, Tq, Tk)
        case = _c._case(x=x) + ", temperature = 0.7"
        out = _c._array(_c._call(fn, case, x, 0.7), case)
        _c._shape(out, x.shape, _what(_W_WEIGHTS), case)
        _c._rows_sum_to_one(out, _what(_W_WEIGHTS), case)
        _c._close(out, softmax(x / 0.7), _what(_W_WEIGHTS), case)
        x = np.array([[3.0, 2.0, 1.0], [0.0, -1.0, -2.0]])
        case = "x = [[3, 2, 1], [0, -1, -2]], temperature = 0.001"
        out = _c._array(_c._call(fn, case, x, 0.001), case)
        _c._finite(out, _what(_W_WEIGHTS), case, key="exercises.temp.overflow")
        _c._close(out, softmax(x / 0.001), _what(_W_WEIGHTS), case)
        return _c._msg("exercises.temp.ok")
    return _verdict("check_temperature_softmax", body, lang, timeout, fn)


# --- 04: the padding mask ------------------------------------------------------------------------

def check_padding_mask(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(lengths, max_len) -> boolean (B, 1, Tk) mask like ac.padding_mask, True on real tokens."""
    def body():
        for lengths, max_len in (([3, 1, 4], 4), ([3, 1, 4], 6), ([2], 5)):
            case = f"lengths = {lengths}, max_len = {max_len}"
            arr = np.array(lengths)
            out = _c._array(_c._call(fn, case, arr, max_len), case)
            ref = padding_mask(arr, max_len)                                 # (B, 1, Tk)
            hint = ""
            if out.shape == ref.shape[::2]:
                hint = "exercises.pad.no_query_axis"
            elif out.ndim == 3 and out.shape[-1] == arr.max() != max_len:
                hint = "exercises.pad.max_len"
            _c._shape(out, ref.shape, _what(_W_MASK), case, hint)
            out = _bool_mask(out, case)
            j, n = np.arange(max_len)[None, None, :], arr[:, None, None]
            _diagnose(out, {"exercises.pad.bool_inverted": ~ref, "exercises.pad.side": j >= max_len - n,
                            "exercises.pad.off_by_one": j <= n}, case, ref=ref)
            if not np.array_equal(out, ref):
                b = int(np.argmax((out != ref).any(axis=(1, 2))))
                raise _c._Fail("checks.values", what=f"mask[{b}]", got=str(out[b, 0].tolist()),
                               expected=str(ref[b, 0].tolist()), case=case)
        return _c._msg("exercises.pad.ok")
    return _verdict("check_padding_mask", body, lang, timeout, fn)


# --- 05: self- and cross-attention ---------------------------------------------------------------

def _projections(seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))   # w_q, w_k (D, Dk), w_v (D, Dv)


def check_self_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, D), w_q, w_k, w_v) -> (output, weights) of self-attention: Q, K, V = x W_q, x W_k, x W_v."""
    def body():
        w_q, w_k, w_v = _projections()
        rng = np.random.default_rng(1)
        for x in (rng.normal(size=(4, 4)), rng.normal(size=(2, 4, 4))):
            case = _c._case(x=x, w_q=w_q, w_k=w_k, w_v=w_v)
            out, w = _output_and_weights(_c._call(fn, case, x, w_q, w_k, w_v), case)
            ref_out, ref_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
            if out.shape[-1] == x.shape[-1] != ref_out.shape[-1]:
                raise _c._Fail("exercises.self.no_projection", case=case)
            _c._shape(w, ref_w.shape, _what(_W_WEIGHTS), case)
            _c._shape(out, ref_out.shape, _what(_W_OUTPUT), case)
            _diagnose(w, {"exercises.self.same_qk": scaled_dot_product_attention(x @ w_q, x @ w_q, x @ w_v)[1],
                          "exercises.self.no_scale": softmax((x @ w_q) @ np.swapaxes(x @ w_k, -1, -2))},
                      case, ref=ref_w)
            _c._close(w, ref_w, _what(_W_WEIGHTS), case)
            _c._close(out, ref_out, _what(_W_OUTPUT), case)
        return _c._msg("exercises.self.ok")
    return _verdict("check_self_attention", body, lang, timeout, fn)


def check_cross_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x_dec (Tq, D), x_enc (Tk, D), w_q, w_k, w_v) -> (output (Tq, Dv), weights (Tq, Tk)):
    Queries from the decoder, Keys and Values from the encoder."""
    def body():
        w_q, w_k, w_v = _projections()
        rng = np.random.default_rng(2)
        x_dec, x_enc = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
        case = _c._case(x_dec=x_dec, x_enc=x_enc)
        out, w = _output_and_weights(_c._call(fn, case, x_dec, x_enc, w_q, w_k, w_v), case)
        ref_out, ref_w = scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v)
        if w.shape == (3, 3):
            raise _c._Fail("exercises.cross.self_on_decoder", case=case)
        hint = "exercises.cross.q_from_encoder" if w.shape != (3, 5) else ""
        _c._shape(w, (3, 5), _what(_W_WEIGHTS), case, hint)
        _c._shape(out, ref_out.shape, _what(_W_OUTPUT), case)
        for offset in (0, 2):                    # np.tril(...) of (3, 5), or the mask of a cache
            masked = scaled_dot_product_attention(x_dec @ w_q, x_enc @ w_k, x_enc @ w_v,
                                                  mask=causal_mask(3, 5, offset=offset))[1]
            _diagnose(w, {"exercises.cross.masked": masked}, case, ref=ref_w)
        _diagnose(w, {"exercises.self.no_scale": softmax((x_dec @ w_q) @ (x_enc @ w_k).T)}, case, ref=ref_w)
        _c._close(w, ref_w, _what(_W_WEIGHTS), case)
        _c._close(out, ref_out, _what(_W_OUTPUT), case)
        return _c._msg("exercises.cross.ok")
    return _verdict("check_cross_attention", body, lang, timeout, fn)


# --- 06: heads -----------------------------------------------------------------------------------

def _split_no_transpose(x, h):
    *lead, t, d = x.shape
    return x.reshape(*lead, h, t, d // h)


def _split_strided(x, h):
    *lead, t, d = x.shape
    return np.moveaxis(x.reshape(*lead, t, d // h, h), -1, -3)


def check_split_heads(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, D), n_heads) -> (..., H, T, D/H), head h holding columns h*Dh .. (h+1)*Dh - 1."""
    def one(x, h, case):
        out = _c._array(_c._call(fn, case, x, h), case)
        ref = split_heads(x, h)
        *lead, t, d = x.shape
        hint = "exercises.heads.head_last" if out.shape == (*lead, t, h, d // h) else ""
        _c._shape(out, ref.shape, _what("exercises.what.heads"), case, hint)
        _diagnose(out, {"exercises.heads.no_transpose": _split_no_transpose(x, h),
                        "exercises.heads.strided": _split_strided(x, h)}, case, ref=ref)
        _c._close(out, ref, _what("exercises.what.heads"), case)

    def body():
        rng = np.random.default_rng(0)
        x = rng.normal(size=(3, 8))
        one(x, 2, _c._case(x=x) + ", n_heads = 2")
        one(x, 1, _c._case(x=x) + ", n_heads = 1")
        x = rng.normal(size=(2, 5, 12))                                        # (B, T, D)
        case = _c._case(x=x) + ", n_heads = 3"
        try:
            one(x, 3, case)
        except _c._Fail as fail:
            if fail.key in ("exercises.heads.no_transpose", "exercises.heads.strided"):
                raise
            raise _c._Fail("exercises.heads.batch", case=case, detail=fail.message) from None
        return _c._msg("exercises.heads.split_ok")
    return _verdict("check_split_heads", body, lang, timeout, fn)


def check_merge_heads(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., H, T, Dh)) -> (..., T, H*Dh), the inverse of split_heads (the concat step)."""
    def one(x, case):
        out = _c._array(_c._call(fn, case, x), case)
        ref = merge_heads(x)
        *lead, h, t, dh = x.shape
        _c._shape(out, ref.shape, _what("exercises.what.merged"), case)
        _diagnose(out, {"exercises.merge.no_transpose": x.reshape(*lead, t, h * dh),
                        "exercises.merge.strided": np.moveaxis(x, -3, -1).reshape(*lead, t, h * dh)}, case, ref=ref)
        _c._close(out, ref, _what("exercises.what.merged"), case)

    def body():
        rng = np.random.default_rng(0)
        x = rng.normal(size=(2, 3, 4))                                         # (H, T, Dh)
        one(x, _c._case(x=x))
        x = split_heads(rng.normal(size=(2, 5, 12)), 3)                        # (B, H, T, Dh)
        case = _c._case(x=x)
        try:
            one(x, case)
        except _c._Fail as fail:
            if fail.key in ("exercises.merge.no_transpose", "exercises.merge.strided"):
                raise
            raise _c._Fail("exercises.heads.batch", case=case, detail=fail.message) from None
        return _c._msg("exercises.merge.ok")
    return _verdict("check_merge_heads", body, lang, timeout, fn)


def _mha_variant(x, p, *, transpose=True, scale="head", w_o=True, bias=True, one_head=False):
    """Self-attention output of multi-head attention, with one usual mistake switched on."""
    b = (lambda v: v) if bias else (lambda v: 0.0)
    h = 1 if one_head else p.n_heads
    split = split_heads if transpose else _split_no_transpose
    q, k, v = (split(x @ w + b(bb), h) for w, bb in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    d = q.shape[-1] if scale == "head" else x.shape[-1]
    heads = softmax(q @ np.swapaxes(k, -1, -2) / math.sqrt(d)) @ v            # (..., H, T, Dh)
    *lead, hh, t, dh = heads.shape
    merged = merge_heads(heads) if transpose else heads.reshape(*lead, t, hh * dh)
    return merged @ p.w_o + b(p.b_o) if w_o else merged


def check_multi_head_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, D), params) -> the output of ac.multi_head_attention(x, x, x, params) (..., T, D).
    A pair (output, weights) is accepted too."""
    from attention_core.core.multihead import init_multihead

    def body():
        rng = np.random.default_rng(0)
        for n_heads, shape in ((2, (4, 8)), (4, (5, 8)), (1, (3, 8)), (2, (2, 4, 8))):
            params = init_multihead(8, n_heads, seed=n_heads)
            x = rng.normal(size=shape)
            case = _c._case(x=x) + f", n_heads = {n_heads}"
            out = _c._call(fn, case, x, params)
            if isinstance(out, (tuple, list)) and len(out) == 2:
                out = out[0]
            out = _c._array(out, case)
            ref = multi_head_attention(x, x, x, params)[0]
            _c._shape(out, ref.shape, _what(_W_OUTPUT), case)
            variants = {"exercises.mha.no_w_o": None, "exercises.mha.no_bias": _mha_variant(x, params, bias=False)}
            if n_heads > 1:
                variants.update({"exercises.mha.no_transpose": _mha_variant(x, params, transpose=False),
                                 "exercises.mha.scale_model": _mha_variant(x, params, scale="model"),
                                 "exercises.mha.one_head": _mha_variant(x, params, one_head=True)})
            if _same(_mha_variant(x, params, w_o=False), out):
                raise _c._Fail("exercises.mha.no_w_o", case=case)
            _diagnose(out, variants, case, ref=ref)
            _c._close(out, ref, _what(_W_OUTPUT), case)
        return _c._msg("exercises.mha.ok")
    return _verdict("check_multi_head_attention", body, lang, timeout, fn)


# --- 07: position ----------------------------------------------------------------------------------

def _sin_variant(t, d, *, base=10000.0, swap=False, column_exponent=False, blocks=False, start=0):
    pos = np.arange(start, start + t)[:, None]                                # (T, 1)
    freq = base ** (-np.arange(0, d, 2)[None, :] / d)                         # (1, ceil(D/2))
    first, second = (np.cos, np.sin) if swap else (np.sin, np.cos)
    if blocks:
        return np.concatenate([first(pos * freq), second(pos * freq)], axis=1)[:, :d]
    out = np.empty((t, d))
    out[:, 0::2] = first(pos * freq)
    odd_freq = base ** (-np.arange(1, d, 2)[None, :] / d) if column_exponent else freq[:, : d // 2]
    out[:, 1::2] = second(pos * odd_freq)
    return out


def check_sinusoidal_encoding(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(n_positions, d_model) -> the (T, D) table of ac.sinusoidal_encoding
    (PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D)))."""
    def body():
        what = _what("exercises.what.table")
        for t, d in ((50, 16), (7, 6)):
            case = f"n_positions = {t}, d_model = {d}"
            out = _c._array(_c._call(fn, case, t, d), case)
            ref = sinusoidal_encoding(t, d)
            _c._shape(out, ref.shape, what, case)
            _diagnose(out, {"exercises.sin.swapped": _sin_variant(t, d, swap=True),
                            "exercises.sin.blocks": _sin_variant(t, d, blocks=True),
                            "exercises.sin.column_exponent": _sin_variant(t, d, column_exponent=True),
                            "exercises.sin.from_one": _sin_variant(t, d, start=1)}, case, ref=ref)
            if not _same(out, ref) and _same(out[:, :2], ref[:, :2]):          # column pair 0 right: frequencies off
                raise _c._Fail("exercises.sin.base", case=case)
            _c._close(out, ref, what, case)
        return _c._msg("exercises.sin.ok")
    return _verdict("check_sinusoidal_encoding", body, lang, timeout, fn)


def _rope_variant(x, positions, *, sign=1.0, half=False, theta_exponent=2, base=10000.0):
    d = x.shape[-1]
    theta = base ** (-theta_exponent * np.arange(d // 2) / d)                 # (Dh/2,)
    angle = sign * np.asarray(positions, dtype=float)[:, None] * theta        # (T, Dh/2)
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = (x[..., : d // 2], x[..., d // 2:]) if half else (x[..., 0::2], x[..., 1::2])
    ra, rb = a * cos - b * sin, a * sin + b * cos
    if half:
        return np.concatenate([ra, rb], axis=-1)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = ra, rb
    return out


def check_rope(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(x (..., T, Dh), positions (T,)) -> ac.apply_rope(x, positions): pair (2i, 2i+1) turned
    by positions[t] * 10000^(-2i/Dh)."""
    def body():
        what = _what("exercises.what.rotated")
        rng = np.random.default_rng(0)
        cases = [(rng.normal(size=(4, 8)), np.array([3.0, 0.0, 7.0, 1.0])),
                 (rng.normal(size=(6, 4)), np.arange(6.0)),
                 (rng.normal(size=(2, 3, 5, 8)), np.array([0.0, 10.0, 20.0, 30.0, 40.0]))]
        for x, positions in cases:
            case = _c._case(x=x) + f", positions = {positions.astype(int).tolist()}"
            out = _c._array(_c._call(fn, case, x, positions), case)
            ref = apply_rope(x, positions)
            _c._shape(out, ref.shape, what, case)
            _c._finite(out, what, case)
            _diagnose(out, {"exercises.rope.sign": _rope_variant(x, positions, sign=-1.0),
                            "exercises.rope.half": _rope_variant(x, positions, half=True),
                            "exercises.rope.base": _rope_variant(x, positions, theta_exponent=1),
                            "exercises.rope.positions": (None if np.array_equal(positions, np.arange(len(positions)))
                                                         else apply_rope(x, np.arange(float(len(positions)))))},
                      case, ref=ref)
            if not np.allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), atol=1e-6):
                raise _c._Fail("exercises.rope.norm", case=case)
            if not _same(out, ref) and np.allclose(out[..., :2], ref[..., :2], atol=1e-6):
                raise _c._Fail("exercises.rope.base", case=case)
            _c._close(out, ref, what, case)
        return _c._msg("exercises.rope.ok")
    return _verdict("check_rope", body, lang, timeout, fn)


# --- 08: the RNN ---------------------------------------------------------------------------------

def _rnn_params(seed: int = 0):
    from attention_core.core.rnn import init_rnn
    return init_rnn(3, 4, seed=seed, recurrent_scale=0.9)


def _rnn_states(xs, p, *, carried=True, tanh=True):
    h, states = np.zeros(p.w_h.shape[0]), []
    for x in xs:
        a = x @ p.w_x + (h if carried else 0.0 * h) @ p.w_h + p.b
        h = np.tanh(a) if tanh else a
        states.append(h)
    return np.stack(states)                                                     # (T, D_h)


def check_rnn_forward(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(xs (T, D_in), params RNNParams) -> every hidden state (T, D_h),
    h_t = tanh(x_t W_x + h_(t-1) W_h + b), h_(-1) = 0."""
    def body():
        what = _what("exercises.what.states")
        p = _rnn_params()
        rng = np.random.default_rng(0)
        for t in (5, 1):
            xs = rng.normal(size=(t, 3))
            case = _c._case(xs=xs)
            out = _c._array(_c._call(fn, case, xs, p), case)
            ref = _rnn_states(xs, p)
            hint = "exercises.rnn.states_shape" if out.shape in ((4,), (t + 1, 4)) else ""
            _c._shape(out, ref.shape, what, case, hint)
            if t > 1:
                _diagnose(out, {"exercises.rnn.not_carried": _rnn_states(xs, p, carried=False),
                                "exercises.rnn.no_tanh": _rnn_states(xs, p, tanh=False)}, case, ref=ref)
            _c._close(out, ref, what, case)
        return _c._msg("exercises.rnn.ok")
    return _verdict("check_rnn_forward", body, lang, timeout, fn)


def _rnn_jacobian(xs, p, *, tanh_grad=True, reverse=False):
    """d h_(T-1) / d x_0 (D_h, D_in) by the chain rule: J_(T-1) ... J_1 (d h_0 / d x_0), where
    J_t = d h_t / d h_(t-1) = diag(1 - h_t^2) W_h^T. reverse=True multiplies the J_t the wrong way round."""
    states = _rnn_states(xs, p)
    g = (lambda h: np.diag(1.0 - h ** 2)) if tanh_grad else (lambda h: np.eye(len(h)))
    chain = np.eye(p.w_h.shape[0])
    for t in range(1, len(xs)):
        step = g(states[t]) @ p.w_h.T                                          # J_t (D_h, D_h)
        chain = chain @ step if reverse else step @ chain
    return chain @ g(states[0]) @ p.w_x.T                                      # (D_h, D_in)


def check_rnn_gradient(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(xs (T, D_in), params) -> d h_(T-1) / d x_0, the (D_h, D_in) Jacobian of the last state
    with respect to the first input, by the chain rule."""
    def body():
        what = _what("exercises.what.jacobian")
        p = _rnn_params()
        rng = np.random.default_rng(1)
        for t in (6, 30, 1):
            xs = rng.normal(size=(t, 3))
            case = _c._case(xs=xs)
            out = _c._array(_c._call(fn, case, xs, p), case)
            ref = _rnn_jacobian(xs, p)
            hint = "exercises.grad.transposed" if out.shape == (3, 4) else ""
            _c._shape(out, ref.shape, what, case, hint)
            if t > 1:
                _diagnose(out, {"exercises.grad.no_tanh": _rnn_jacobian(xs, p, tanh_grad=False),
                                "exercises.grad.order": _rnn_jacobian(xs, p, reverse=True)}, case, ref=ref)
            if not np.allclose(out, ref, atol=1e-8, rtol=1e-5):
                raise _c._Fail("checks.values", what=what, got=_c._fmt(out), expected=_c._fmt(ref), case=case)
        return _c._msg("exercises.grad.ok")
    return _verdict("check_rnn_gradient", body, lang, timeout, fn)


# --- 09: the KV cache ----------------------------------------------------------------------------

def check_kv_cache_decode(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(q, k, v) (each (T, D)) -> the outputs (T, Dv) of step-by-step causal decoding with a KV cache:
    step t appends k[t], v[t] to the cache and attends with q[t] over keys 0 .. t."""
    def body():
        rng = np.random.default_rng(0)
        for t in (5, 1, 12):
            q, k, v = rng.normal(size=(t, 4)), rng.normal(size=(t, 4)), rng.normal(size=(t, 3))
            case = _c._case(q=q, k=k, v=v)
            out = _c._array(_c._call(fn, case, q, k, v), case)
            ref = scaled_dot_product_attention(q, k, v, mask=causal_mask(t))[0]
            _c._shape(out, ref.shape, _what(_W_OUTPUT), case)
            if t > 1:
                seen = [scaled_dot_product_attention(q, k, v, mask=causal_mask(t, offset=o))[0] for o in (1, t)]
                for wrong in seen:
                    rows = np.flatnonzero(~np.isclose(wrong, ref, atol=1e-9).all(axis=1))
                    if len(rows) and np.allclose(out[rows[0]], wrong[rows[0]], atol=1e-6) \
                            and not np.allclose(out[rows[0]], ref[rows[0]], atol=1e-6):
                        raise _c._Fail("exercises.kv.future", t=int(rows[0]), case=case)
                excl = scaled_dot_product_attention(q[1:], k, v, mask=causal_mask(t - 1, t))[0]   # keys j < i
                if _same(out[1:], excl):
                    raise _c._Fail("exercises.kv.exclusive", case=case)
                _diagnose(out, {"exercises.kv.newest_only": v}, case, ref=ref)
            _c._finite(out, _what(_W_OUTPUT), case)
            _c._close(out, ref, _what(_W_OUTPUT), case)
        return _c._msg("exercises.kv.ok")
    return _verdict("check_kv_cache_decode", body, lang, timeout, fn)


def check_kv_cache_bytes(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number) -> bytes of a KV cache,
    2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number (one sequence)."""
    def body():
        cases = ((32, 32, 128, 4096, 2), (32, 8, 128, 32768, 2), (2, 4, 16, 10, 4), (1, 1, 1, 1, 4))
        for layers, heads, d_head, tokens, nbytes in cases:
            case = (f"n_layers = {layers}, n_kv_heads = {heads}, d_head = {d_head}, n_tokens = {tokens}, "
                    f"bytes_per_number = {nbytes}")
            out = _c._call(fn, case, layers, heads, d_head, tokens, nbytes)
            try:
                got = float(out)
            except (TypeError, ValueError):
                raise _c._Fail("checks.not_array", got=type(out).__name__, case=case) from None
            expected = 2 * layers * heads * d_head * tokens * nbytes
            if got == expected:
                continue
            one = expected // tokens
            variants = {"exercises.kvbytes.no_two": expected / 2, "exercises.kvbytes.no_layers": expected / layers,
                        "exercises.kvbytes.bits": expected * 8, "exercises.kvbytes.squared": one * tokens * tokens}
            for key, wrong in variants.items():
                if tokens > 1 and layers > 1 and got == wrong or (key == "exercises.kvbytes.bits" and got == wrong):
                    raise _c._Fail(key, case=case)
            raise _c._Fail("exercises.kvbytes.wrong", got=f"{got:,.0f}", expected=f"{expected:,}", case=case)
        return _c._msg("exercises.kvbytes.ok")
    return _verdict("check_kv_cache_bytes", body, lang, timeout, fn)


# --- 10: windows and the online softmax ------------------------------------------------------------

def check_sliding_window_mask(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(T, window) -> boolean (T, T) causal window like ac.sliding_window_mask(T, window):
    query i sees keys i-window+1 .. i."""
    def body():
        t = 6
        i, j = np.arange(t)[:, None], np.arange(t)[None, :]
        for window in (3, 1, 6):
            case = f"T = {t}, window = {window}"
            out = _c._array(_c._call(fn, case, t, window), case)
            ref = sliding_window_mask(t, window)
            _c._shape(out, ref.shape, _what(_W_MASK), case)
            out = _bool_mask(out, case)
            _diagnose(out, {"exercises.window.inverted": ~ref,
                            "exercises.window.wide": (i - j >= 0) & (i - j <= window),
                            "exercises.window.future": np.abs(i - j) < window,
                            "exercises.window.no_diagonal": (i - j > 0) & (i - j <= window)}, case, ref=ref)
            if not np.array_equal(out, ref):
                row = int(np.argmax((out != ref).any(axis=1)))
                raise _c._Fail("checks.values", what=f"mask[{row}]", got=str(out[row].tolist()),
                               expected=str(ref[row].tolist()), case=case)
        return _c._msg("exercises.window.ok")
    return _verdict("check_sliding_window_mask", body, lang, timeout, fn)


def _online_variant(q, k, v, block, *, rescale=True, divide=True, drop_last=False, scale=True):
    """The online softmax with one usual mistake switched on (all rows at once, blocks of keys)."""
    tk = k.shape[-2]
    s_scale = 1.0 / math.sqrt(q.shape[-1]) if scale else 1.0
    m = np.full(q.shape[:-1] + (1,), -np.inf)
    acc, total = np.zeros(q.shape[:-1] + (v.shape[-1],)), np.zeros(q.shape[:-1] + (1,))
    stop_at = tk - tk % block if drop_last and tk % block else tk
    for start in range(0, stop_at, block):
        s = q @ k[start:start + block].T * s_scale                            # (Tq, Bk)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - new_m)
        r = np.exp(m - new_m) if rescale else 1.0
        total, acc, m = total * r + p.sum(-1, keepdims=True), acc * r + p @ v[start:start + block], new_m
    return acc / total if divide else acc


def _mib(n_bytes: float) -> str:
    return f"{n_bytes / 2 ** 20:.2f} MiB"


def check_online_attention(fn, lang: str | None = None, *, timeout: float | None = None):
    """Check fn(q (Tq, Dk), k (Tk, Dk), v (Tk, Dv), block_size) -> softmax(q k^T / sqrt(Dk)) v, computed
    one block of keys at a time: the output must match and the peak memory (tracemalloc) must stay
    below half of the (Tq, Tk) score matrix."""
    def body():
        rng = np.random.default_rng(0)
        # A rising maximum: later keys score higher, so every block brings a new maximum.
        q = rng.normal(size=(6, 4))
        k = rng.normal(size=(10, 4)) * np.linspace(0.2, 3.0, 10)[:, None]
        v = rng.normal(size=(10, 3))
        q[:, :] = np.abs(q) + 0.5
        k = np.abs(k)
        longer = tuple(rng.normal(size=s) for s in ((5, 8), (100, 8), (100, 2)))     # q (5, 8), k (100, 8), v (100, 2)
        for block, (qq, kk, vv) in ((4, (q, k, v)), (32, longer)):
            case = _c._case(q=qq, k=kk, v=vv) + f", block_size = {block}"
            out = _c._array(_c._call(fn, case, qq, kk, vv, block), case)
            ref = scaled_dot_product_attention(qq, kk, vv)[0]
            _c._shape(out, ref.shape, _what(_W_OUTPUT), case)
            _c._finite(out, _what(_W_OUTPUT), case)
            _diagnose(out, {"exercises.online.no_rescale": _online_variant(qq, kk, vv, block, rescale=False),
                            "exercises.online.no_divide": _online_variant(qq, kk, vv, block, divide=False),
                            "exercises.online.last_block": (_online_variant(qq, kk, vv, block, drop_last=True)
                                                            if kk.shape[0] % block else None),
                            "exercises.online.no_scale": _online_variant(qq, kk, vv, block, scale=False)},
                      case, ref=ref)
            _c._close(out, ref, _what(_W_OUTPUT), case)
        q = np.array([[40.0, 40.0]])
        k = np.array([[40.0, 40.0], [30.0, 30.0], [-40.0, 0.0], [41.0, 41.0]])
        v = np.arange(8.0).reshape(4, 2)
        case = "q = [[40, 40]], k = [[40, 40], [30, 30], [-40, 0], [41, 41]] (scores near 1000), block_size = 2"
        out = _c._array(_c._call(fn, case, q, k, v, 2), case)
        _c._finite(out, _what(_W_OUTPUT), case, key="exercises.online.overflow")
        _c._close(out, scaled_dot_product_attention(q, k, v)[0], _what(_W_OUTPUT), case)
        # Memory: 1024 x 1024 float64 scores are 8 MiB; a block of 64 keys is 0.5 MiB.
        t, block = 1024, 64
        q, k, v = rng.normal(size=(t, 16)), rng.normal(size=(t, 16)), rng.normal(size=(t, 16))
        case = _c._case(q=q, k=k, v=v) + f", block_size = {block}"
        full = t * t * 8
        out, peak = traced_peak(lambda: _c._array(_c._call(fn, case, q, k, v, block), case))
        _c._close(out, scaled_dot_product_attention(q, k, v)[0], _what(_W_OUTPUT), case)
        budget = full / 2
        if peak > budget:
            raise _c._Fail("exercises.online.memory", got=_mib(peak), full=_mib(full), budget=_mib(budget), case=case)
        return _c._msg("exercises.online.ok", got=_mib(peak), full=_mib(full))
    return _verdict("check_online_attention", body, lang, timeout, fn)


# The shared machinery (the learner's call, the verdict). Imported last: `checks` re-exports the
# functions above from its own last line, so this module must be complete before `checks` runs.
from attention_core.teaching import checks as _c  # noqa: E402
