"""The words of notebook 05's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
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
                                "zh": "你没有把分数除以 √d_k（{case}）；d_k 是 Query 的维度，即 w_q.shape[1]。"},
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
                               "zh": "你加了因果掩码（{case}）：交叉注意力不需要它，因为整句原文在开始解码之前就已经"
                                     "全部已知。"},
    "exercises.cross.ok": {"en": "All good: decoder Queries (3 tokens) against encoder Keys and Values (5 tokens) "
                                 "give (3, 5) weights and the output of attention_core.",
                           "zh": "全部通过：解码器的 Query（3 个 token）对编码器的 Key 和 Value（5 个 token），"
                                 "得到 (3, 5) 的权重，输出与 attention_core 一致。"},
    "exercises.padded.no_mask": {"en": "Your weights give the pads of the short source sentence a share ({case}): "
                                       "hide every key j >= src_lengths[b] before the softmax.",
                                 "zh": "短句末尾的填充位置也分到了权重（{case}）：softmax 之前要把 j >= src_lengths[b] "
                                       "的 Key 全部屏蔽。"},
    "exercises.padded.off_by_one": {"en": "You kept one pad too many ({case}): a sentence of length n has its real "
                                          "tokens at positions 0 .. n-1, so the test is j < n, not j <= n.",
                                    "zh": "你多留了一个填充位置（{case}）：长度为 n 的句子，"
                                          "真实 token 在位置 0 到 n-1，"
                                          "条件是 j < n，不是 j <= n。"},
    "exercises.padded.pads_kept": {"en": "Your mask is inverted ({case}): the weights go to the pads and the real "
                                         "words get none. True (may attend) belongs on j < src_lengths[b].",
                                   "zh": "你的掩码反了（{case}）：权重都给了填充位置，真实的词一点没分到。"
                                         "True（可以关注）应该在 j < src_lengths[b] 的位置上。"},
    "exercises.padded.queries_masked": {"en": "You hid decoder rows instead of encoder columns ({case}): "
                                              "src_lengths are the lengths of the source sentences, the Keys.",
                                        "zh": "你屏蔽的是解码器的行，而不是编码器的列（{case}）：src_lengths "
                                              "是原文句子的长度，对应的是 Key。"},
    "exercises.padded.pad_weight": {"en": "A pad still gets weight {got} ({case}); a hidden key must get exactly 0.",
                                    "zh": "有一个填充位置的权重还是 {got}（{case}）；被屏蔽的 Key 权重必须严格为 0。"},
    "exercises.padded.ok": {"en": "All good: two source sentences of lengths 5 and 2, padded to 5; every decoder "
                                  "token reads only the real words of its own source, and the pads get exactly 0.",
                            "zh": "全部通过：两句原文长度分别为 5 和 2，都填充到 5；每个解码器 token 只读自己那句原文里"
                                  "真实的词，填充位置的权重严格为 0。"},
    "exercises.similarity.distance": {"en": "You returned 1 - cosine, a distance ({case}); the exercise asks for "
                                            "the similarity itself, the cosine.",
                                      "zh": "你返回的是 1 - 余弦，这是距离（{case}）；"
                                            "题目要的是相似度本身，也就是余弦。"},
    "exercises.similarity.dot": {"en": "You returned the dot product ({case}); divide it by the two lengths to "
                                       "get the cosine, which does not grow with the vectors.",
                                 "zh": "你返回的是点积（{case}）；再除以两个向量的长度才是余弦，"
                                       "它不随向量变长而变大。"},
    "exercises.similarity.embeddings": {"en": "You compared the vectors before attention ({case}): the contextual "
                                              "vector is h = x + attention(x), computed in each sentence.",
                                        "zh": "你比较的是注意力之前的向量（{case}）："
                                              "上下文表示是 h = x + attention(x)，"
                                              "要在各自的句子里算。"},
    "exercises.similarity.no_residual": {"en": "You compared the attention outputs alone ({case}): add the residual, "
                                               "h = x + attention(x), so the word keeps its own features.",
                                         "zh": "你只比较了注意力的输出（{case}）：要加上残差，h = x + attention(x)，"
                                               "词才保留它自己的特征。"},
    "exercises.similarity.wrong_token": {"en": "You compared token j of sentence a with token i of sentence b "
                                               "({case}); i belongs to x_a, j to x_b.",
                                         "zh": "你拿句子 a 的第 j 个 token 和句子 b 的第 i 个 token 比较了（{case}）；"
                                               "i 属于 x_a，j 属于 x_b。"},
    "exercises.similarity.wrong": {"en": "Your similarity is {got}, expected {expected} ({case}). Steps: "
                                         "h = x + softmax(x W_q (x W_k)^T / sqrt(d_k)) x W_v in each sentence, then "
                                         "the cosine of h_a[i] and h_b[j].",
                                   "zh": "你算出的相似度是 {got}，应为 {expected}（{case}）。步骤：在每个句子里算 "
                                         "h = x + softmax(x W_q (x W_k)^T / sqrt(d_k)) x W_v，"
                                         "再求 h_a[i] 与 h_b[j] 的余弦。"},
    "exercises.similarity.ok": {"en": "All good: on random sentences and on the two 银行 sentences, where the "
                                      "cosine is {value}, as in the table.",
                                "zh": "全部通过：随机句子和两个“银行”句子都对，后者的余弦是 {value}，与表中一致。"},
}
