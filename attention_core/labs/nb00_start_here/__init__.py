"""Notebook 00 (start here): the dot-product widget."""
from attention_core.labs.nb00_start_here.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
