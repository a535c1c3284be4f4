"""Notebook 04 (masking): naive masked softmax, padded batches, future leaks, a KV cache, the mask widget."""
from attention_core.labs.nb04_masking.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
