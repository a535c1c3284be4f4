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
                               "zh": "你加了因果掩码（{case}）：交叉注意力不需要它，因为整句原文在开始解码之前就已经"
                                     "全部已知。"},
    "exercises.cross.ok": {"en": "All good: decoder Queries (3 tokens) against encoder Keys and Values (5 tokens) "
                                 "give (3, 5) weights and the output of attention_core.",
                           "zh": "全部通过：解码器的 Query（3 个 token）对编码器的 Key 和 Value（5 个 token），"
                                 "得到 (3, 5) 的权重，输出与 attention_core 一致。"},
}
