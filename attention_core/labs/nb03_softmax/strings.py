"""The UI strings of notebook 03's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "widgets.temperature": {"en": "temperature τ", "zh": "温度 τ"},
    "widgets.temp_readout": {"en": "largest weight {max} · entropy {h} (uniform: {hmax})",
                             "zh": "最大权重 {max} · 熵 {h}（均匀分布时为 {hmax}）"},
    "widgets.temp_hint": {"en": "Low τ: close to one-hot. High τ: close to uniform.",
                          "zh": "τ 越低越接近 one-hot；τ 越高越接近均匀分布。"},
    "widgets.token": {"en": "token", "zh": "token"},
    "softmax_lab.argmax": {"en": "hard max of position {name} (argmax)", "zh": "位置 {name} 的硬最大值（argmax）"},
    "softmax_lab.score_of": {"en": "score of position {name}", "zh": "位置 {name} 的分数"},
    "softmax_lab.varied": {"en": "varied", "zh": "变化"},
    "softmax_lab.score_legend": {"en": "position (score)", "zh": "位置（分数）"},
    "softmax_lab.uniform": {"en": "uniform 1/{n}", "zh": "均匀分布 1/{n}"},
    "softmax_lab.hull": {"en": "convex hull of the values", "zh": "Value 的凸包"},
    "softmax_lab.outputs": {"en": "{m} attention outputs", "zh": "{m} 个注意力输出"},
    "softmax_lab.not_convex": {"en": "raw scores as weights", "zh": "直接用原始分数当权重"},
    "softmax_lab.row_softmax": {"en": "softmax(scores)", "zh": "softmax(分数)"},
    "softmax_lab.row_temperature": {"en": "temperature τ = {t}", "zh": "温度 τ = {t}"},
    "softmax_lab.row_dropout_draw": {"en": "dropout p = {p}, draw {i}", "zh": "暂退法 p = {p}，第 {i} 次抽样"},
    "softmax_lab.row_dropout_mean": {"en": "dropout, mean of {n} draws", "zh": "暂退法，{n} 次抽样的平均"},
    "softmax_lab.row_dropout_eval": {"en": "dropout at inference (off)", "zh": "推理时的暂退法（关闭）"},
    "softmax_lab.col_sum": {"en": "sum", "zh": "合计"},
}
