"""Notebook 12 (attention inside a trained Transformer): small models trained on generated corpora,
their learned heads measured (previous-token and induction scores at every position, ablation, Q/K/V
composition, OV copying, training dynamics, a seed sweep), pronoun resolution by an encoder on held-out
Winograd sentences against baselines (beside a causal decoder that cannot), bank / 杜鹃 in context on
held-out sentences, and weight vs removal (Q6).

    from attention_core.labs.nb12_trained_transformer import load_trained
    m = load_trained("coreference"); m.referent("The trophy didn't fit in the suitcase because it was too big.")

Modules: corpora (generated data, held-out split), model (load_trained, the NumPy model),
training (the torch twin, `make train`), experiments (the measurements), widgets, checks, strings.
"""
from attention_core.teaching import i18n

from .model import MODEL_NAMES, TrainedModel, load_trained
from .strings import STRINGS

i18n.register(STRINGS)

__all__ = ["load_trained", "TrainedModel", "MODEL_NAMES"]
