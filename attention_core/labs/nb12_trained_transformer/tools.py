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

from attention_core.core.interventions import head_hook, head_logit_attribution, patch

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


class Tools:
    """The tools later cells run: the learner's where its checker passed, the library's otherwise.
    tools.mean_ablate(...) etc.; tools.which() -> {name: "yours" | "library"}."""

    def __init__(self):
        self.mine: dict = {}

    def use(self, name: str, fn) -> None:
        if name not in NAMES:
            raise ValueError(f"name: expected one of {NAMES}, got {name!r}")
        if fn is globals()[name]:
            self.mine.pop(name, None)                        # the library's own: nothing of the learner's
        else:
            self.mine[name] = fn

    def drop(self, name: str) -> None:
        self.mine.pop(name, None)

    def __getattr__(self, name):
        if name not in NAMES:
            raise AttributeError(name)
        return self.__dict__["mine"].get(name, globals()[name])

    def which(self) -> dict:
        return {name: "yours" if name in self.mine else "library" for name in NAMES}

    def report(self, lang: str | None = None) -> str:
        from attention_core.teaching import i18n
        lang = i18n.resolve_language(lang)
        words = {"yours": i18n.t("nb12.tools_yours", lang), "library": i18n.t("nb12.tools_library", lang)}
        sep, gap = ("、", "") if lang == "zh" else (", ", " ")
        return i18n.t("nb12.tools_report", lang) + sep.join(f"{n}{gap}{words[w]}" for n, w in self.which().items())


def repeat_loss(logits, seqs) -> float:
    """Mean cross-entropy (nats) of letters 2..half of the second copy: the measure of every ablation table here
    (experiments.ablation_methods)."""
    from .experiments import _repeat_loss
    return _repeat_loss(logits, seqs)
