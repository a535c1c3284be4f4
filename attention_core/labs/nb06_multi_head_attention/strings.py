"""The UI strings of notebook 06's lab, English and Chinese side by side per key."""

STRINGS: dict[str, dict[str, str]] = {
    "heads_lab.head.prev": {"en": "previous token", "zh": "前一个词"},
    "heads_lab.head.same": {"en": "same word", "zh": "相同的词"},
    "heads_lab.head.subject": {"en": "verb → subject", "zh": "动词 → 主语"},
    "heads_lab.head.noun": {"en": "nearest noun", "zh": "最近的名词"},
    "heads_lab.h": {"en": "number of heads h", "zh": "头数 h"},
    "heads_lab.d_k": {"en": "width per head d_k", "zh": "每个头的宽度 d_k"},
    "heads_lab.mib": {"en": "weights tensor at T = {t} (MiB)", "zh": "T = {t} 时的权重张量（MiB）"},
    "heads_lab.tradeoff_title": {"en": "d_model = {d}: more heads, narrower heads, bigger weights tensor",
                                 "zh": "d_model = {d}：头越多，每个头越窄，权重张量越大"},
    "published.layers": {"en": "layers", "zh": "层数"},
    "published.d_model": {"en": "d_model", "zh": "d_model"},
    "published.heads": {"en": "heads h", "zh": "头数 h"},
    "published.d_k": {"en": "d_k = d_model / h", "zh": "d_k = d_model / h"},
    "published.kv_heads": {"en": "KV heads", "zh": "KV 头数"},
    "pronoun_lab.view_syntax": {"en": "syntax: a subject pronoun looks for a subject", "zh": "语法：主语代词找主语"},
    "pronoun_lab.view_semantics": {"en": "meaning: who can be comfortable?", "zh": "语义：谁会觉得 comfortable？"},
    "pronoun_lab.view_position": {"en": "position: the nearest noun", "zh": "位置：最近的名词"},
    "pronoun_lab.all_views": {"en": "the three views together", "zh": "三种视角合起来"},
    "pronoun_lab.without_semantics": {"en": "syntax + position only", "zh": "只有语法 + 位置"},
}
