"""Notebook 08 (attention versus RNN): path length, sequential steps, a trained recall task."""
from attention_core.labs.nb08_attention_vs_rnn.strings import STRINGS
from attention_core.teaching import i18n

i18n.register(STRINGS)
