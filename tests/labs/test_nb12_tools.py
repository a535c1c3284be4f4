"""Notebook 12's three checked tools (issue 39): mean ablation by position, direct logit attribution and
patching one position at a time. Every correct style passes in both languages (loops, einsum, hooks that copy
or edit in place, the library's own), every mistake of the table fails with words that name it, the library's
tools agree with the measurements the notebook prints, and `Tools` runs the learner's version only once it passed.
"""
from __future__ import annotations

import nb12_solutions as sol
import numpy as np
import pytest

from attention_core.labs.nb12_trained_transformer import checks, experiments, load_trained, tools

ABLATE, DLA, PATCH = checks.check_mean_ablation, checks.check_logit_attribution, checks.check_patching

TABLE = [
    # right, in every style
    (ABLATE, sol.ablate_copy, True, "matches the library's", "都和库里的一致"),
    (ABLATE, sol.ablate_in_place, True, "matches the library's", "都和库里的一致"),
    (ABLATE, sol.ablate_loop, True, "matches the library's", "都和库里的一致"),
    (ABLATE, sol.ablate_einsum, True, "matches the library's", "都和库里的一致"),
    (ABLATE, tools.mean_ablate, True, "matches the library's", "都和库里的一致"),
    (DLA, sol.dla_loop, True, "matches head_logit_attribution", "都和 head_logit_attribution 一致"),
    (DLA, sol.dla_einsum, True, "matches head_logit_attribution", "都和 head_logit_attribution 一致"),
    (DLA, sol.dla_per_position, True, "matches head_logit_attribution", "都和 head_logit_attribution 一致"),
    (DLA, tools.head_attribution, True, "matches head_logit_attribution", "都和 head_logit_attribution 一致"),
    (PATCH, sol.patch_copy, True, "matches the library's", "都和库里的一致"),
    (PATCH, sol.patch_in_place, True, "matches the library's", "都和库里的一致"),
    (PATCH, sol.patch_with_library, True, "matches the library's", "都和库里的一致"),
    # the mistakes, each named
    (ABLATE, sol.ablate_one_mean, False, "ONE mean vector", "一个**平均向量"),
    (ABLATE, sol.ablate_per_sequence, False, "positions of each sequence (the wrong axis)", "每条序列内部"),
    (ABLATE, sol.ablate_over_heads, False, "average over the heads (the wrong axis)", "在各个头之间求了平均"),
    (ABLATE, sol.ablate_every_head, False, "EVERY head of layer 1", "**每个**头都换成了均值"),
    (ABLATE, sol.ablate_zero, False, "zero ablation", "置零消融"),
    (DLA, sol.dla_no_scale, False, "skip the final layer norm's scale", "跳过了最后一次层归一化的缩放"),
    (DLA, sol.dla_wrong_token, False, "the token AT each position", "**当前** token"),
    (DLA, sol.dla_summed, False, "sum over the heads", "所有头的总和"),
    (DLA, sol.dla_no_gain, False, "lnf_g", "lnf_g"),
    (PATCH, sol.patch_all_at_once, False, "EVERY position at once", "**所有**位置"),
    (PATCH, sol.patch_every_head, False, "EVERY head of layer", "层的**每个**头"),
    (PATCH, sol.patch_wrong_run, False, "CORRUPTED run", "**被破坏**的运行"),
    (PATCH, sol.patch_not_restored, False, "patches pile up", "越积越多"),
]


def _rows():
    """make quick runs a right answer and a named mistake of each tool; make test the whole table (about 6 s)."""
    seen = set()
    for row in TABLE:
        checker, fn, passes = row[:3]
        marks = [pytest.mark.slow] if (checker, passes) in seen else []
        seen.add((checker, passes))
        yield pytest.param(*row, marks=marks, id=f"{checker.__name__}-{fn.__name__}")


@pytest.mark.parametrize("checker, fn, passes, en, zh", list(_rows()))
def test_each_tool_gets_its_verdict_and_words(checker, fn, passes, en, zh):
    for lang, words in (("en", en), ("zh", zh)):
        result = checker(fn, lang=lang, timeout=60)           # the verdict is judged, not the speed
        assert result.passed is passes, result.message
        assert words in result.message, result.message


def test_a_crash_or_a_wrong_shape_is_reported_not_raised():
    def crashes(model, ids, reference, layer, head):
        raise KeyError("blocks.1.attn.hook_q")

    def wrong_shape(model, ids, target):
        return np.zeros((2, 2))
    for lang in ("en", "zh"):
        r = ABLATE(crashes, lang=lang)
        assert not r.passed and "KeyError" in r.message
        r = DLA(wrong_shape, lang=lang)
        assert not r.passed and "(2, 2)" in r.message and "(2, 4, 22)" in r.message


def test_the_library_tools_are_the_notebooks_measurements():
    """tools.mean_ablate is ablation_methods' "mean_by_position"; patch_by_position is patching_table's
    by-position row; head_attribution is experiments.direct_attribution without the mean logit removed."""
    from attention_core.core import transformer as tr
    model = load_trained("induction")
    rows = experiments.ablation_methods(model, heads=[(1, 1)], n=40)
    seqs = experiments.eval_sequences(40)
    ref = experiments.eval_sequences(40, seed=experiments.REFERENCE_SEED)
    logp = tr.log_softmax(np.asarray(tools.mean_ablate(model.hooked, seqs, ref, 1, 1), np.float64))
    pos = np.arange(experiments.HALF, 2 * experiments.HALF - 1)
    loss = float(-np.take_along_axis(logp[:, pos], seqs[:, pos + 1][..., None], -1).mean())
    assert loss == pytest.approx(rows[1]["mean_by_position"], abs=1e-9)

    table = experiments.patching_table(model, n=8)
    clean, bad = experiments.patching_pairs(n=8)
    query = experiments.HALF + experiments.CORRUPT_AT
    got = tools.patch_by_position(model.hooked, clean, bad, 0, 0, checks.patching_metric(clean, query))
    assert np.allclose((got - table["corrupted"]) / (table["clean"] - table["corrupted"]), table["by_position"][0, 0])

    dla = tools.head_attribution(model.hooked, seqs[0], np.roll(seqs[0], -1))
    assert np.allclose(dla, experiments.direct_attribution(model, seqs[0], np.roll(seqs[0], -1), relative=False)[0])


def test_tools_runs_the_learners_version_only_after_it_passed():
    holder = tools.Tools()
    assert set(holder.which().values()) == {"library"}
    assert ABLATE(sol.ablate_copy, tools=holder).passed
    assert holder.mean_ablate is sol.ablate_copy and holder.which()["mean_ablate"] == "yours"
    assert not ABLATE(sol.ablate_one_mean, tools=holder).passed
    assert holder.mean_ablate is tools.mean_ablate and holder.which()["mean_ablate"] == "library"
    assert DLA(tools.head_attribution, tools=holder).passed                # the library's own: nothing of theirs
    assert holder.which()["head_attribution"] == "library"
    assert "mean_ablate (the library's)" in holder.report("en") and "（库里的）" in holder.report("zh")
    with pytest.raises(ValueError, match="expected one of"):
        holder.use("ablate", sol.ablate_copy)


def test_a_model_of_another_kind_is_named():
    r = ABLATE(sol.ablate_copy, model=load_trained("coreference"), lang="en")
    assert not r.passed and "coreference" in r.message
