"""Notebook 09 (cost and the context window): n^2 pairs, measured time and memory."""
from attention_core.labs.nb09_cost_and_context_window.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
