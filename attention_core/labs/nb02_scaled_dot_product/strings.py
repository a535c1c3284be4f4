"""The UI strings of notebook 02's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "scaling.row_raw": {"en": "q·k", "zh": "q·k"},
    "scaling.row_scaled": {"en": "q·k / √d_k", "zh": "q·k / √d_k"},
    "scaling.panel": {"en": "d_k = {d}", "zh": "d_k = {d}"},
    "scaling.var": {"en": "var {v}", "zh": "方差 {v}"},
    "scaling.largest_weight": {"en": "largest weight of a row", "zh": "每行的最大权重"},
    "scaling.jacobian": {"en": "Jacobian norm ‖diag(p) − p pᵀ‖", "zh": "雅可比矩阵的范数 ‖diag(p) − p pᵀ‖"},
    "scaling.without": {"en": "q·k (no scaling)", "zh": "q·k（不缩放）"},
    "scaling.with": {"en": "q·k / √d_k", "zh": "q·k / √d_k"},
    "scaling.uniform": {"en": "uniform over {n} keys", "zh": "{n} 个 Key 上的均匀分布"},
    "scaling.title": {"en": "Choose d_k and switch the scaling. Left: q·k of random unit-variance vectors. "
                            "Right: softmax of one row of {n} such scores.",
                      "zh": "选择 d_k，打开或关闭缩放。左图：分量方差为 1 的随机向量的 q·k；"
                            "右图：一行 {n} 个这样的分数经过 softmax 之后的权重。"},
    "scaling.d_k": {"en": "d_k", "zh": "d_k"},
    "scaling.mode": {"en": "scores", "zh": "分数"},
    "scaling.off": {"en": "q·k (no scaling)", "zh": "q·k（不缩放）"},
    "scaling.on": {"en": "q·k / √d_k", "zh": "q·k / √d_k"},
    "scaling.hist_title": {"en": "{what}, {n} random pairs", "zh": "{what}，{n} 对随机向量"},
    "scaling.share": {"en": "share of pairs (tallest bar = 1)", "zh": "占比（最高的柱 = 1）"},
    "scaling.score": {"en": "score", "zh": "分数"},
    "scaling.std_band": {"en": "± 1 std", "zh": "± 1 个标准差"},
    "scaling.weights_title": {"en": "softmax of one row of {n} scores", "zh": "一行 {n} 个分数的 softmax"},
    "scaling.key": {"en": "key", "zh": "Key"},
    "scaling.readout": {"en": "variance of the scores {var} (std {std}) · largest weight {max} · entropy {h} "
                              "(uniform: {hmax}) · Jacobian norm {j} (uniform: {juni})",
                        "zh": "分数的方差 {var}（标准差 {std}）· 最大权重 {max} · 熵 {h}（均匀分布时为 {hmax}）"
                              "· 雅可比矩阵的范数 {j}（均匀分布时为 {juni}）"},
    "scaling.saturated": {"en": "Saturated: one key takes almost everything and the gradient through softmax "
                                "has almost vanished.",
                          "zh": "已饱和：几乎所有权重都落在一个 Key 上，经过 softmax 回传的梯度几乎消失。"},
    "scaling.healthy": {"en": "Not saturated: several keys share the weight and gradients flow.",
                        "zh": "未饱和：权重分摊在多个 Key 上，梯度可以正常回传。"},
}
