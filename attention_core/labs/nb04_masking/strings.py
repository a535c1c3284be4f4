"""The UI strings of notebook 04's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "widgets.mask_kind": {"en": "mask", "zh": "掩码"},
    "widgets.mask_none": {"en": "none", "zh": "无"},
    "widgets.mask_causal": {"en": "causal (look-ahead)", "zh": "因果（前瞻）"},
    "widgets.mask_padding": {"en": "padding", "zh": "填充"},
    "widgets.mask_window": {"en": "sliding window", "zh": "滑动窗口"},
    "widgets.mask_causal_padding": {"en": "causal + padding", "zh": "因果 + 填充"},
    "widgets.length": {"en": "real length", "zh": "真实长度"},
    "widgets.window": {"en": "window", "zh": "窗口"},
    "widgets.mask_readout": {"en": "keys visible to each query: {counts}", "zh": "每个 Query 可见的 Key 数：{counts}"},
    "masking_lab.changed_token": {"en": "replaced token s", "zh": "被替换的 token s"},
    "masking_lab.output_position": {"en": "output position t", "zh": "输出位置 t"},
    "masking_lab.change": {"en": "largest change of output t", "zh": "输出 t 的最大变化"},
    "masking_lab.step": {"en": "step {k}: Tq = {tq} new, Tk = {tk} keys (cache + new)",
                         "zh": "第 {k} 步：新 Tq = {tq}，Key 共 Tk = {tk}（缓存 + 新）"},
    "masking_lab.not_cached": {"en": "key not in the cache yet", "zh": "Key 尚未进入缓存"},
    "decision.title": {"en": "Choose a query position i and a key position j: which branch does the pair take, "
                             "and what row of weights comes out?",
                       "zh": "选一个 Query 位置 i 和一个 Key 位置 j：这一对走哪条分支？最后得到怎样的一行权重？"},
    "decision.i": {"en": "query position i", "zh": "Query 位置 i"},
    "decision.j": {"en": "key position j", "zh": "Key 位置 j"},
    "decision.yes": {"en": "yes", "zh": "是"},
    "decision.no": {"en": "no", "zh": "否"},
    "decision.node_query": {"en": "query at position i = {i} ({token})", "zh": "位置 i = {i} 的 Query（{token}）"},
    "decision.node_test": {"en": "key j = {j} ({token}): j ≤ {i}?", "zh": "Key j = {j}（{token}）：j ≤ {i}？"},
    "decision.node_score": {"en": "score normally: {s}", "zh": "正常打分：{s}"},
    "decision.node_fill": {"en": "fill −∞", "zh": "填 −∞"},
    "decision.node_softmax": {"en": "softmax of row {i}", "zh": "对第 {i} 行做 softmax"},
    "decision.node_past": {"en": "weights only from the past: key {j} gets {w}",
                           "zh": "权重仅来自过去：Key {j} 得到 {w}"},
    "decision.key_axis": {"en": "key position j", "zh": "Key 位置 j"},
    "decision.row_title": {"en": "weights of row i = {i}: {n} keys visible",
                           "zh": "第 i = {i} 行的权重：{n} 个 Key 可见"},
    "decision.readout_score": {"en": "j = {j} ≤ i = {i}: the score {s} is kept; after softmax key {j} gets "
                                     "weight {w}. Row {i} spreads its weight over its {n} visible keys (sum {total}).",
                               "zh": "j = {j} ≤ i = {i}：分数 {s} 保留；softmax 之后 Key {j} 的权重是 {w}。"
                                     "第 {i} 行把权重分给它可见的 {n} 个 Key（和为 {total}）。"},
    "decision.readout_fill": {"en": "j = {j} > i = {i}: the score {s} is replaced by −∞; after softmax key {j} "
                                    "gets weight exactly {w}. Row {i} keeps its weight on its {n} visible keys "
                                    "(sum {total}).",
                              "zh": "j = {j} > i = {i}：分数 {s} 被换成 −∞；softmax 之后 Key {j} 的权重严格为 {w}。"
                                    "第 {i} 行的权重只落在它可见的 {n} 个 Key 上（和为 {total}）。"},
}
