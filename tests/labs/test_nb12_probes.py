"""Notebook 12's coreference encoder on probes the training never saw: fresh twins in frames that are in
neither the training nor the test set, drawn from a seed no training, split or evaluation uses (issue 18's
targets must hold there too), and role-swapped sentences that test the class shortcut the corpus allows;
the notebook prints these numbers from the functions."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from attention_core.labs.nb12_trained_transformer import corpora, load_trained, training
from attention_core.labs.nb12_trained_transformer import experiments as E

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def coref():
    return load_trained("coreference")


@pytest.fixture(scope="module")
def probe(coref):
    return E.probe_metrics(coref)


@pytest.fixture(scope="module")
def shortcut(coref):
    return E.shortcut_test(coref)


def test_the_probe_seed_is_used_by_no_training_split_sweep_or_evaluation():
    used = ({c["seed"] for c in training.CONFIGS.values()} | set(training.SWEEP_SEEDS)
            | {E.EVAL_SEED, training.DYNAMICS_SEED, 0, 7})   # 0: the split's default seed, 7: the picker's sequence
    assert corpora.PROBE_SEED not in used


def test_probe_sentences_are_new_frames_new_text_and_known_words():
    probes = corpora.probe_sentences()
    corpus = {ex.text for ex in corpora.all_examples()}
    vocab = set(corpora.coreference_vocab())
    assert probes and not {ex.text for ex in probes} & corpus
    for (family, lang), frames in corpora.FRAMES.items():
        new = corpora.probe_frames(family, lang)
        assert new and not set(new) & {f for f, _ in frames}, (family, lang)
    for ex in probes:
        assert set(ex.tokens) <= vocab and ex.answer in ex.tokens and ex.tokens[ex.position] == ex.query
    pairs = corpora.twins(probes, "winograd")
    assert 2 * len(pairs) == len(probes)
    for a, b in pairs:                                              # twins differ in the adjective only
        assert [x != y for x, y in zip(a.tokens, b.tokens)].count(True) == 1 and a.answer != b.answer
    for lang in ("en", "zh"):
        assert {ex.kind for ex in probes if ex.lang == lang} == set(corpora.WINOGRAD)
    again = corpora.probe_sentences()
    assert [ex.text for ex in again] == [ex.text for ex in probes]
    assert [ex.text for ex in corpora.probe_sentences(seed=corpora.PROBE_SEED + 1)] != [ex.text for ex in probes]
    with pytest.raises(ValueError, match="seed"):
        corpora.probe_sentences(seed=-1)
    with pytest.raises(ValueError, match="per_frame"):
        corpora.probe_sentences(per_frame=0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_encoder_meets_the_targets_on_fresh_probes(probe, lang):
    """Issue 18's targets on a held-out set generated with a seed the training never used: >= 95% per
    language, >= 0.15 above the best baseline (first / last noun, animate adjective -> animate noun), and a
    head whose largest weight from the pronoun is on the referent in >= 80% of the sentences."""
    r = probe[lang]
    assert r["sentences"] >= 200
    assert r["accuracy"] >= 0.95, r
    assert r["margin"] >= 0.15, r
    assert r["head_share"] >= 0.8, r


def test_role_swaps_put_nouns_in_the_other_role_and_answer_by_role():
    swaps = corpora.role_swaps()
    for ex in swaps:
        fam = corpora.FAMILIES[ex.kind]
        assert ex.answer in ex.tokens and ex.tokens[ex.position] == ex.query
        role_x = ex.adj in fam["adj"][ex.lang][0]
        if ex.kind == "carry":                                      # the young animal is the carrier
            x_noun = next(n for n in ex.nouns if n in corpora.YOUNG[ex.lang])
            assert (ex.answer == x_noun) == role_x
        else:                                                       # fit: two containers
            assert all(n in corpora.CONTAINERS[ex.lang] for n in ex.nouns if n not in corpora.DISTRACTORS[ex.lang])
    by_text = {ex.text: ex.answer for ex in swaps}
    assert by_text["the puppy couldn't carry the dog because it was too weak"] == "puppy"
    assert by_text["the bag didn't fit in the drawer because it was too big"] == "bag"
    assert by_text["小狗 背不动 狗 ， 因为 它 太 弱 了"] == "小狗"
    with pytest.raises(ValueError, match="Winograd"):
        corpora.class_lookup_answer(next(ex for ex in corpora.all_examples() if ex.kind == "person"))


def test_the_class_shortcut_answers_the_corpus_but_not_the_role_swaps(shortcut):
    """In the corpus a noun's class always coincides with its role, so the class lookup answers every
    Winograd sentence; the role swaps are built so that it cannot."""
    wino = [ex for ex in corpora.all_examples() if ex.kind in corpora.WINOGRAD]
    assert all(corpora.class_lookup_answer(ex) == ex.answer for ex in wino)
    for lang in ("en", "zh"):
        c = shortcut[lang]
        assert c["lookup_held_out"] == 1.0
        assert c["lookup_swapped"] < 0.5


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_encoder_follows_the_shortcut_on_role_swaps(shortcut, lang):
    """What the shipped encoder learned (not a target): right on the held-out set, far below that on role
    swaps, where its answer is a noun of the class the adjective names. A retrained model that reads roles
    would fail this test; then the notebook's section on the shortcut must be rewritten."""
    c = shortcut[lang]
    assert c["model_held_out"] >= 0.95
    assert c["model_swapped"] < c["model_held_out"] - 0.5, c
    assert c["answer_in_class"] > 0.9, c
    assert 0 <= c["absent"] <= c["sentences"]


def _cell_output(lang: str, marker: str) -> str:
    nb = json.loads((ROOT / "notebooks" / lang / "12_trained_transformer.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and marker in "".join(cell["source"]):
            return "".join("".join(o.get("text", "")) for o in cell.get("outputs", [])
                           if o.get("output_type") == "stream")
    raise AssertionError(f"no code cell with {marker!r} in notebooks/{lang}/12_trained_transformer.ipynb")


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_notebook_prints_the_probe_and_shortcut_numbers_the_functions_compute(probe, shortcut, edition):
    text = _cell_output(edition, "experiments.shortcut_test(coref)")
    lines = text.splitlines()
    for lang in ("en", "zh"):
        r, c = probe[lang], shortcut[lang]
        probe_line = next(line for line in lines if line.startswith(f"{lang}") and str(corpora.PROBE_SEED) in line)
        assert f"{r['accuracy']:.3f}" in probe_line and f"{r['head_share']:.2f}" in probe_line
        assert f"{r['margin']:+.3f}" in probe_line
        row = next(line for line in lines if line.strip().startswith(lang + " "))
        numbers = [float(x) for x in re.findall(r"\d+\.\d+", row)[:7]]
        np.testing.assert_allclose(numbers, [c["lookup_held_out"], c["model_held_out"], c["lookup_swapped"],
                                             c["model_swapped"], c["swapped_by_family"]["fit"],
                                             c["swapped_by_family"]["carry"], c["answer_in_class"]], atol=5e-4)
        assert f"{c['absent']} / {c['sentences']}" in row
        assert numbers[3] < numbers[1] - 0.5                       # the printed relation: swaps far below held-out
