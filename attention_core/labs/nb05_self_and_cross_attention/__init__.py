"""Notebook 05 (self- and cross-attention): a translation alignment from hand-set features."""
from attention_core.labs.nb05_self_and_cross_attention.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
