"""Notebook 02 (scaled dot-product attention): why divide by sqrt(Dk), and its widget."""
from attention_core.labs.nb02_scaled_dot_product.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
