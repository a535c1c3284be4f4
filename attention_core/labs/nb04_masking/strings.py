"""The UI strings of notebook 04's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "widgets.mask_kind": {"en": "mask", "zh": "mask"},
    "widgets.mask_none": {"en": "none", "zh": "无"},
    "widgets.mask_causal": {"en": "causal (look-ahead)", "zh": "因果（防偷看）"},
    "widgets.mask_padding": {"en": "padding", "zh": "填充"},
    "widgets.mask_window": {"en": "sliding window", "zh": "滑动窗口"},
    "widgets.mask_causal_padding": {"en": "causal + padding", "zh": "因果 + 填充"},
    "widgets.length": {"en": "real length", "zh": "真实长度"},
    "widgets.window": {"en": "window", "zh": "窗口"},
    "widgets.mask_readout": {"en": "keys visible to each query: {counts}", "zh": "每个 Query 可见的 Key 数：{counts}"},
    "masking_lab.changed_token": {"en": "replaced token s", "zh": "被替换的 token s"},
    "masking_lab.output_position": {"en": "output position t", "zh": "输出位置 t"},
    "masking_lab.change": {"en": "largest change of output t", "zh": "输出 t 的最大变化"},
    "masking_lab.no_mask": {"en": "no mask", "zh": "不加 mask"},
    "masking_lab.causal": {"en": "causal mask", "zh": "因果 mask"},
    "masking_lab.step": {"en": "step {k}: Tq = {tq} new, Tk = {tk} cached",
                         "zh": "第 {k} 步：新 Tq = {tq}，缓存 Tk = {tk}"},
    "masking_lab.not_cached": {"en": "key not in the cache yet", "zh": "Key 尚未进入缓存"},
}
