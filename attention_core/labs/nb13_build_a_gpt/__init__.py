"""Notebook 13 (build your own GPT): characters and merges over the course's own prose, the pieces of a
decoder written by the learner in torch and checked against the library, training on repeated
sequences and on the course text, generation with a KV cache, and the learned heads measured with
notebook 12's tools.

Modules: corpus (the exported course text, tokenizer, merges, bigram baseline), pieces (the torch
reference pieces and PARTS, the learner's pieces where they passed), training (batches, the loop,
the shipped runs, `make train`), experiments (scores at every position, perplexity, cache timing),
checks (one checker per piece), strings, questions.
"""
from attention_core.teaching import i18n

from .strings import STRINGS

i18n.register(STRINGS)
