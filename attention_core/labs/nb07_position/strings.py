"""The UI strings of notebook 07's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "widgets.pe_readout": {"en": "PE[{p}, {i}] = {v} · dimension {i} repeats every {wl} positions",
                           "zh": "PE[{p}, {i}] = {v} · 维度 {i}（从 0 编号）每隔 {wl} 个位置重复一次"},
    "widgets.pe_column": {"en": "dimension {i} along the positions", "zh": "维度 {i} 随位置的变化"},
    "position_lab.pos_m": {"en": "position m (query)", "zh": "位置 m（Query）"},
    "position_lab.pos_n": {"en": "position n (key)", "zh": "位置 n（Key）"},
    "position_lab.key_position": {"en": "key position j", "zh": "Key 的位置 j"},
    "position_lab.distance": {"en": "distance |i − j|", "zh": "距离 |i − j|"},
    "position_lab.mean_weight": {"en": "average weight", "zh": "平均权重"},
    "position_lab.variant_content": {"en": "content only", "zh": "只看内容"},
    "position_lab.variant_causal": {"en": "+ causal mask", "zh": "+ 因果掩码"},
    "position_lab.variant_bias": {"en": "+ distance bias", "zh": "+ 距离偏置"},
    "position_lab.variant_window": {"en": "+ local window", "zh": "+ 局部窗口"},
    "position_lab.variant_causal_bias": {"en": "+ causal mask + bias", "zh": "+ 因果掩码 + 偏置"},
    "position_lab.slope": {"en": "bias slope", "zh": "偏置斜率 slope"},
    "position_lab.window": {"en": "window (0 = off)", "zh": "窗口（0 = 不用）"},
    "position_lab.causal": {"en": "causal mask", "zh": "因果掩码"},
    "position_lab.score": {"en": "score", "zh": "分数"},
    "position_lab.content_score": {"en": "content score q·k/√d", "zh": "内容分数 q·k/√d"},
    "position_lab.readout": {"en": "{n} of {t} keys visible · largest weight: key {j} ({w})",
                             "zh": "{t} 个 Key 中有 {n} 个可见 · 权重最大：Key {j}（{w}）"},
}
