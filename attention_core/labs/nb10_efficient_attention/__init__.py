"""Notebook 10 (efficient attention): online softmax, peak memory, windows and a needle task."""
from attention_core.labs.nb10_efficient_attention.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
