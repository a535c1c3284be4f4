"""Notebook 01 (Query, Key, Value): the hand-set coreference model and the one-step widget."""
from attention_core.labs.nb01_query_key_value.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
