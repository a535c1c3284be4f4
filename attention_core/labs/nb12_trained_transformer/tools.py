"""The three researcher's tools notebook 12's learner writes, in the library's version, and the holder that
decides which version the notebook's later cells run (the learner's where its checker passed).

    tools = Tools()
    checks.check_mean_ablation(mean_ablate, tools=tools)      # passes: tools.mean_ablate is the learner's
    logits = tools.mean_ablate(model.hooked, ids, reference, layer=1, head=1)

- mean_ablate: one head's output (hook_z) replaced by its mean over reference sequences AT EACH POSITION;
- head_attribution: direct logit attribution of every head (core.interventions.head_logit_attribution);
- patch_by_position: a head's hook_z patched from the clean run into the corrupted run, one position at a time.
Shapes: N sequences, T tokens, L layers, H heads, Dh head width, V vocabulary.
"""
from __future__ import annotations

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.interventions import head_hook, head_logit_attribution, patch
from attention_core.teaching.learner_pieces import LearnerPieces

NAMES = ("mean_ablate", "head_attribution", "patch_by_position")


def mean_ablate(model, ids, reference, layer: int, head: int):
    """logits (N, T, V) of `model` (a HookedDecoder) on ids (N, T) with head (layer, head)'s output at hook_z
    replaced, at each position t, by its mean output at t over the reference sequences (N_ref, T)."""
    name = f"blocks.{layer}.attn.hook_z"
    _, cache = model.run_with_cache(reference, [name])
    by_position = np.asarray(cache[name])[:, head].mean(axis=0)          # (T, Dh): one mean per position
    return model.run_with_hooks(ids, {name: head_hook(head, by_position)})


def head_attribution(model, ids, target):
    """Direct logit attribution (L, H, T): what each head's write (hook_result) adds to the logit of target[t] at
    position t, through the final layer norm's scale and the unembedding (core.interventions.head_logit_attribution)."""
    return head_logit_attribution(model, ids, target)


def patch_by_position(model, clean_ids, corrupted_ids, layer: int, head: int, metric):
    """(T,): metric(logits) of the corrupted run with head (layer, head)'s hook_z taken from the clean run at
    ONE position t at a time (every other position, and every other head, stays corrupted)."""
    name = f"blocks.{layer}.attn.hook_z"
    _, clean_cache = model.run_with_cache(clean_ids, [name])
    t = np.shape(clean_ids)[-1]
    return np.array([float(metric(patch(model, corrupted_ids, clean_cache, name, head, positions=[p])))
                     for p in range(t)])


class Tools(LearnerPieces):
    """The tools later cells run: the learner's where its checker passed, the library's otherwise.
    tools.mean_ablate(...) etc.; tools.which() -> {name: "yours" | "library"}; tools.report()."""
    names = NAMES
    heading = "nb12.tools_report"

    def library(self, name: str):
        return globals()[name]


def repeat_loss(logits, seqs) -> float:
    """Mean cross-entropy (nats) of letters 2..half of the second copy: the measure of every ablation table here
    (experiments.ablation_methods)."""
    logp = tr.log_softmax(np.asarray(logits, dtype=np.float64))
    half = seqs.shape[1] // 2
    pos = np.arange(half, 2 * half - 1)
    return float(-np.take_along_axis(logp[:, pos], seqs[:, pos + 1][..., None], -1).mean())
