"""The UI strings of notebook 08's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "rnn_lab.rnn": {"en": "plain RNN", "zh": "普通 RNN"},
    "rnn_lab.gru": {"en": "gated RNN (GRU)", "zh": "门控 RNN（GRU）"},
    "rnn_lab.attention": {"en": "one attention layer", "zh": "一层注意力"},
    "rnn_lab.distance": {"en": "distance k (tokens before the last one)",
                         "zh": "距离 k（在最后一个 token 之前几个位置）"},
    "rnn_lab.influence": {"en": "influence on the last output", "zh": "对最后输出的影响"},
    "rnn_lab.length": {"en": "sequence length n", "zh": "序列长度 n"},
    "rnn_lab.seconds": {"en": "seconds (best of {r} runs)", "zh": "耗时（秒，{r} 次取最快）"},
    "rnn_lab.chance": {"en": "chance (1/8)", "zh": "随机猜（1/8）"},
    "rnn_lab.distractors": {"en": "distance k (distractors between the first token and the question)",
                            "zh": "距离 k（首个 token 与提问之间的干扰 token 数）"},
    "rnn_lab.accuracy": {"en": "accuracy on new sequences", "zh": "新序列上的准确率"},
    "rnn_lab.macs": {"en": "multiply-adds per layer", "zh": "每层乘加次数"},
    "rnn_lab.macs_rnn": {"en": "RNN recurrence n·d², d = {d}", "zh": "RNN 递推 n·d²，d = {d}"},
    "rnn_lab.macs_attention": {"en": "attention scores n²·d, d = {d}", "zh": "注意力分数 n²·d，d = {d}"},
    "rnn_lab.distance_slider": {"en": "distance k", "zh": "距离 k"},
    "rnn_lab.scale_slider": {"en": "RNN recurrent scale", "zh": "RNN 循环权重尺度"},
    "rnn_lab.scale_hint": {"en": "The recurrent scale is the spectral radius of W_h: small values make the chain "
                                 "forget, "
                                 "large ones make its gradient explode. Attention has no chain, so its line never "
                                 "moves.",
                           "zh": "循环权重尺度就是 W_h 的谱半径：取值小，链条会遗忘；取值大，梯度会爆炸。"
                                 "注意力没有链条，所以它的曲线纹丝不动。"},
    "rnn_lab.token_last": {"en": "last token\n(its output)", "zh": "最后一个\ntoken 的输出"},
    "rnn_lab.token_marker": {"en": "early token", "zh": "早先的 token"},
    "rnn_lab.rnn_hops": {"en": "RNN: {k} hand-offs", "zh": "RNN：接力 {k} 次"},
    "rnn_lab.attention_hop": {"en": "attention: 1 step", "zh": "注意力：1 步"},
    "rnn_lab.readout": {"en": "distance k = {k} · RNN: {rnn_path} hand-offs, influence {rnn} ({rnn_kept} × its value "
                              "at "
                              "k = 1) · attention: 1 step, influence {att} ({att_kept} × its value at k = 1)",
                        "zh": "距离 k = {k} · RNN：接力 {rnn_path} 次，影响 {rnn}（k = 1 时的 {rnn_kept} 倍）"
                              " · 注意力：1 步，影响 {att}（k = 1 时的 {att_kept} 倍）"},
    "rnn_lab.fading": {"en": "The RNN has all but lost the early token: each hand-off shrinks what is left of it.",
                       "zh": "RNN 几乎已经丢掉了这个早先的 token：每接力一次，它剩下的影响就再缩小一点。"},
    "rnn_lab.exploding": {"en": "The RNN's influence explodes: each hand-off multiplies it; training would blow up.",
                          "zh": "RNN 的影响在爆炸：每接力一次就放大一次，训练会失控。"},
    "rnn_lab.holding": {"en": "The RNN still feels the early token here; move k further and watch it go.",
                        "zh": "在这个距离上 RNN 还能感受到早先的 token；把 k 再拉远一些，看它如何消失。"},
}
