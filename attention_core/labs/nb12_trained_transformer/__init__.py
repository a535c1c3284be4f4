"""Notebook 12 (attention inside a trained Transformer): two small decoders trained on generated
corpora, their learned heads measured (previous-token and induction scores, ablation), pronoun
resolution on held-out Winograd twins, bank / 银行 in context, and weight vs removal (Q6).

    from attention_core.labs.nb12_trained_transformer import load_trained
    m = load_trained("coreference"); m.referent("the cat didn't cross the road because it was too wide")

Modules: corpora (generated data, held-out split), model (load_trained, the NumPy model),
training (the torch twin, `make train`), experiments (the measurements), widgets, checks, strings.
"""
from attention_core.teaching import i18n

from .model import MODEL_NAMES, TrainedModel, load_trained
from .strings import STRINGS

i18n.register(STRINGS)

__all__ = ["load_trained", "TrainedModel", "MODEL_NAMES"]
