"""The UI strings of notebook 12's widgets, checks and tables, English and Chinese side by side."""
from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    # widgets
    "nb12.layer_head": {"en": "layer {layer} · head {head}", "zh": "第 {layer} 层 · 第 {head} 个头"},
    "nb12.unknown_words": {"en": "{arg}: {n} word(s) not in the vocabulary of the {name} model: {words}{more} "
                                 "(it knows {size} words; see .vocab).{hint}",
                           "zh": "{arg}：有 {n} 个词不在 {name} 模型的词表里：{words}{more}（它认识 {size} 个词，"
                                 "见 .vocab）。{hint}"},
    "nb12.unknown_more": {"en": " and {k} more", "zh": "，另有 {k} 个"},
    "nb12.unknown_hint": {"en": " Separate the words with spaces (小红 把 书 递给 小明).",
                          "zh": "请像训练句子那样，在词与词之间加空格。"},
    "nb12.head_menu": {"en": "head", "zh": "头"},
    "nb12.head_readout": {"en": "on 200 fresh repeated sequences: previous-token score {prev}, induction score {ind}",
                          "zh": "在 200 条新的重复随机序列上：前一个 token 得分 {prev}，induction 得分 {ind}"},
    "nb12.sentence": {"en": "sentence", "zh": "句子"},
    "nb12.layer": {"en": "layer", "zh": "层"},
    "nb12.head": {"en": "head", "zh": "头"},
    "nb12.switch_off": {"en": "switch off:", "zh": "关掉："},
    "nb12.prediction": {"en": "prediction at “{query}”:", "zh": "在“{query}”处的预测："},
    "nb12.baseline": {"en": " (with every head on: {word})", "zh": "（所有头都开着时：{word}）"},
    # tables
    "nb12.row_layer": {"en": "layer {layer}", "zh": "第 {layer} 层"},
    "nb12.col_head": {"en": "head {head}", "zh": "头 {head}"},
    # figures
    "nb12.fig_step": {"en": "training step", "zh": "训练步数"},
    "nb12.fig_loss": {"en": "training loss (nats)", "zh": "训练损失（纳特）"},
    "nb12.fig_same": {"en": "{word}: same sense", "zh": "{word}：同一词义"},
    "nb12.fig_other": {"en": "{word}: other sense", "zh": "{word}：另一词义"},
    "nb12.fig_embedding": {"en": "embedding", "zh": "嵌入层"},
    "nb12.fig_after_layer": {"en": "after layer {layer}", "zh": "第 {layer} 层之后"},
    "nb12.fig_cosine": {"en": "mean cosine similarity", "zh": "平均余弦相似度"},
    "nb12.fig_weight": {"en": "attention weight (layer {layer}, head {head})",
                        "zh": "注意力权重（第 {layer} 层第 {head} 个头）"},
    "nb12.fig_effect": {"en": "drop of P({word}) when the word is removed", "zh": "去掉这个词后 P({word}) 的下降"},
    "nb12.fig_offset": {"en": "second copy at {offset}", "zh": "第二遍从位置 {offset} 开始"},
    "nb12.fig_accuracy": {"en": "accuracy of the next token", "zh": "下一个 token 的准确率"},
    "nb12.fig_loss_next": {"en": "loss: −log P(right next token) (nats)",
                           "zh": "损失：−log P（正确的下一个 token）（纳特）"},
    "nb12.fig_uniform": {"en": "uniform guess, ln {v} = {value}", "zh": "均匀乱猜：ln {v} = {value}"},
    "nb12.fig_first_letter": {"en": "first letter of the second copy", "zh": "第二遍的第一个字母"},
    "nb12.fig_position": {"en": "position t (predicting token t + 1)", "zh": "位置 t（预测第 t + 1 个 token）"},
    "nb12.fig_icl_loss": {"en": "in-context loss (nats)", "zh": "上下文内损失（纳特）"},
    "nb12.fig_best_prev": {"en": "best previous-token score (layer 0)", "zh": "最高的“前一个 token”得分（第 0 层）"},
    "nb12.fig_best_ind": {"en": "best induction score (layer 1)", "zh": "最高的 induction 得分（第 1 层）"},
    "nb12.fig_score": {"en": "head score", "zh": "头的得分"},
    "nb12.how_zero": {"en": "zero", "zh": "置零"},
    "nb12.how_mean": {"en": "one mean", "zh": "一个均值"},
    "nb12.how_mean_by_position": {"en": "mean at each position", "zh": "各位置的均值"},
    "nb12.how_resample": {"en": "resample", "zh": "重采样"},
    "nb12.fig_intact": {"en": "intact model ({value})", "zh": "完整的模型（{value}）"},
    "nb12.fig_repeat_loss": {"en": "loss on the repeat (nats)", "zh": "重复片段上的损失（纳特）"},
    "nb12.fig_dla": {"en": "direct logit attribution", "zh": "直接 logit 归因"},
    "nb12.fig_recovered": {"en": "log P recovered (whole head)", "zh": "找回的 log P（整个头）"},
    "nb12.fig_recovered_pos": {"en": "log P recovered, one head at one position",
                               "zh": "找回的 log P：一个头、一个位置"},
    "nb12.fig_patched_position": {"en": "patched position ({after}: right after the changed letter; "
                                        "{query}: the query)",
                                  "zh": "修补的位置（{after}：紧跟在被改的字母之后；{query}：Query 所在的位置）"},
    "nb12.fig_recovered_share": {"en": "share of log P recovered", "zh": "找回的 log P 比例"},
    "nb12.fig_lookback": {"en": "layer 0: weight on key t − b", "zh": "第 0 层：落在 Key t − b 上的权重"},
    "nb12.fig_shifted": {"en": "layer 1: weight on the key s after the earlier occurrence",
                         "zh": "第 1 层：落在上一次出现之后第 s 个 Key 上的权重"},
    # the models, as figure legends name them
    "nb12.model_induction": {"en": "induction (seed 0)", "zh": "induction 模型（种子 0）"},
    "nb12.model_induction_seed3": {"en": "induction (seed 3)", "zh": "induction 模型（种子 3）"},
    "nb12.model_coreference": {"en": "coreference encoder", "zh": "指代编码器"},
    "nb12.model_coreference_decoder": {"en": "coreference decoder", "zh": "指代解码器"},
    # the intervention widget
    "nb12.how_menu": {"en": "ablation", "zh": "消融方式"},
    "nb12.intervention_readout": {
        "en": "{head}, ablation “{how}”: loss on the repeat {loss} nats (intact model {base}). Direct logit "
              "attribution to the right letter: {dla}. Patching its output from the clean run recovers {rec} of log P.",
        "zh": "{head}，消融方式“{how}”：重复片段上的损失 {loss} 纳特（完整的模型 {base}）。"
              "对正确字母的直接 logit 归因：{dla}。从干净的运行修补它的输出，找回 log P 的 {rec}。"},
    # the exercise check
    "nb12.check_ok": {"en": "your induction score matches on {n} heads and sequences (largest difference {diff}).",
                      "zh": "你的 induction 得分在 {n} 个头和序列上都对（最大差 {diff}）。"},
    "nb12.check_error": {"en": "your function raised {err} (on {case}).", "zh": "你的函数抛出了异常 {err}（{case}）。"},
    "nb12.check_not_number": {"en": "expected one number, got {got} on {case}.",
                              "zh": "应当返回一个数，却得到 {got}（{case}）。"},
    "nb12.check_same_token": {"en": "on {case} you return {got}, the weight on the EARLIER OCCURRENCE of the same "
                                    "token (key t - half); an induction head looks one step later, at the token "
                                    "that came next: expected {want}.",
                              "zh": "{case}：你返回 {got}，这是落在同一个 token 上一次出现处"
                                    "（Key t - half）的权重；induction head 要看的是再往后一格、"
                                    "当时紧跟着出现的那个 token，应为 {want}。"},
    "nb12.check_all_rows": {"en": "on {case} you return {got}, the mean of the whole diagonal w[t, t - half + 1]; it "
                                  "starts at query t = half - 1, which belongs to the first copy and has no earlier "
                                  "occurrence. Use only the queries of the second copy, t = half .. 2 half - 1: "
                                  "expected {want}.",
                            "zh": "{case}：你返回 {got}，这是整条对角线 w[t, t - half + 1] 的平均；它从 Query "
                                  "t = half - 1 开始，而这个 Query 属于第一遍，前面并没有出现过。只用第二遍的 Query，"
                                  "即 t = half .. 2 half - 1：应为 {want}。"},
    "nb12.check_wrong": {"en": "on {case} you return {got}, expected {want}.",
                         "zh": "{case}：你返回 {got}，应为 {want}。"},
}

# the names of experiments.ABLATIONS, as the figures and the widget say them
HOW_KEYS = {"zero": "nb12.how_zero", "mean": "nb12.how_mean", "mean_by_position": "nb12.how_mean_by_position",
            "resample": "nb12.how_resample"}
