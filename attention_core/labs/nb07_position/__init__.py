"""Notebook 07 (position): order blindness, sinusoidal tables, RoPE, score bias and windows."""
from attention_core.labs.nb07_position.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
