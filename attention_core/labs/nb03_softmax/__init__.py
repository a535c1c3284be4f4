"""Notebook 03 (softmax): its steps, overflow, Jacobian, competition, and the temperature widget."""
from attention_core.labs.nb03_softmax.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
