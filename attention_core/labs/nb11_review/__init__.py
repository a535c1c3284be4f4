"""Notebook 11 (review): where each self-test question is demonstrated, one step using everything."""
from attention_core.labs.nb11_review.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
