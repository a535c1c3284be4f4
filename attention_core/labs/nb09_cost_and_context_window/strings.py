"""The UI strings of notebook 09's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "cost_lab.tokens": {"en": "context length n (tokens)", "zh": "上下文长度 n（token 数）"},
    "cost_lab.quadratic": {"en": "attention, n² part: 4·n²·D", "zh": "注意力的 n² 部分：4·n²·D"},
    "cost_lab.linear": {"en": "projections + FFN: 24·n·D²", "zh": "投影 + 前馈网络：24·n·D²"},
    "cost_lab.quadratic_all": {"en": "attention, n² part: L·4·n²·D", "zh": "注意力的 n² 部分：L·4·n²·D"},
    "cost_lab.linear_all": {"en": "projections + FFN: L·24·n·D²", "zh": "投影 + 前馈网络：L·24·n·D²"},
    "cost_lab.crossover": {"en": "6·D = {n:,}", "zh": "6·D = {n:,}"},
    "cost_lab.mark": {"en": "n = {n:,}", "zh": "n = {n:,}"},
    "cost_lab.flops_layer": {"en": "FLOPs of one layer", "zh": "单层的 FLOPs"},
    "cost_lab.flops_title": {"en": "One layer of width D = {d}", "zh": "D = {d} 的一层"},
    "cost_lab.measured_seconds": {"en": "measured time", "zh": "实测时间"},
    "cost_lab.measured_peak_bytes": {"en": "measured peak memory", "zh": "实测峰值内存"},
    "cost_lab.n_squared": {"en": "∝ n² (reference)", "zh": "∝ n²（参考线）"},
    "cost_lab.axis_seconds": {"en": "seconds (fastest run)", "zh": "秒（最快的一次）"},
    "cost_lab.axis_peak_bytes": {"en": "peak memory (MiB)", "zh": "峰值内存（MiB）"},
    "cost_lab.position": {"en": "position of the matching key", "zh": "匹配的 Key 所在位置"},
    "cost_lab.weight_on_key": {"en": "weight on the matching key", "zh": "匹配的 Key 得到的权重"},
    "cost_lab.widget_title": {"en": "Slide the context length: where does the n² part take over, and what would a "
                                    "naive "
                                    "implementation have to hold?",
                              "zh": "拖动上下文长度：n² 部分从哪里开始占上风？朴素实现又得存下多少？"},
    "cost_lab.n": {"en": "context n", "zh": "上下文 n"},
    "cost_lab.heads": {"en": "heads H", "zh": "头数 H"},
    "cost_lab.layers": {"en": "layers L", "zh": "层数 L"},
    "cost_lab.d_model": {"en": "width D", "zh": "模型维度 D"},
    "cost_lab.dtype": {"en": "numbers", "zh": "数值格式"},
    "cost_lab.flops_pass": {"en": "FLOPs of one forward pass", "zh": "一次前向计算的 FLOPs"},
    "cost_lab.memory_axis": {"en": "score matrices of one layer (naive)", "zh": "一层的分数矩阵（朴素实现）"},
    "cost_lab.gpu": {"en": "80 GiB: one large GPU", "zh": "80 GiB：一块大显卡"},
    "cost_lab.over_gpu": {"en": "{x}× the memory of an 80 GiB GPU", "zh": "是一块 80 GiB 显卡的 {x} 倍"},
    "cost_lab.under_gpu": {"en": "{pct}% of an 80 GiB GPU", "zh": "占一块 80 GiB 显卡的 {pct}%"},
    "cost_lab.readout_pairs": {"en": "n = {n} tokens: {pairs} (≈ {approx}) query–key pairs per head and layer; "
                                     "{total} in all ({h} heads × {l} layers)",
                               "zh": "n = {n} 个 token：每个头、每层 {pairs}（≈ {approx}）个 Query–Key 对；"
                                     "总计 {total}（{h} 个头 × {l} 层）"},
    "cost_lab.readout_memory": {"en": "score matrices of one layer, naive, {dtype}: {mem}, {gpu}",
                                "zh": "一层的分数矩阵（朴素实现，{dtype}）：{mem}，{gpu}"},
    "cost_lab.readout_flops": {"en": "FLOPs of one forward pass: n² part {att}, linear parts {lin}; the n² part is "
                                     "{share} of the total (the two are equal at n = {cross})",
                               "zh": "一次前向计算的 FLOPs：n² 部分 {att}，线性部分 {lin}；n² 部分占总量的 {share}"
                                     "（两者在 n = {cross} 时相等）"},
}
