"""Notebook 06 (multi-head attention): readable hand-set heads, ablation, the cost of h."""
from attention_core.labs.nb06_multi_head_attention.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
