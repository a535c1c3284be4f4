"""Notebook 12's lab: the generated corpora and their held-out split, the loader contract, what the
committed trained weights do (learned heads, held-out twins, bank / 银行), a short retrain against the
manifest, the widgets' state functions and the exercise check."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from attention_core.labs.nb12_trained_transformer import checks, corpora, load_trained
from attention_core.labs.nb12_trained_transformer import experiments as E
from attention_core.labs.nb12_trained_transformer import widgets as W
from attention_core.labs.nb12_trained_transformer.model import MODEL_NAMES
from attention_core.teaching.widget_base import ERROR_COLOR


@pytest.fixture(scope="module")
def ind():
    return load_trained("induction")


@pytest.fixture(scope="module")
def coref():
    return load_trained("coreference")


@pytest.fixture(scope="module")
def split():
    return corpora.coreference_split()


# --- corpora --------------------------------------------------------------------------------------
def test_the_held_out_split_is_disjoint_and_uses_only_known_words(split):
    train_text = {ex.text for ex in split.train}
    test_text = {ex.text for ex in split.test}
    assert not train_text & test_text
    assert not {ex.twin for ex in split.train} & {ex.twin for ex in split.test}       # whole twins held out
    train_words = {w for ex in split.train for w in ex.model_input() + (ex.answer,)}
    assert {w for ex in split.test for w in ex.model_input() + (ex.answer,)} <= train_words
    for kind in ("it", "person", "bank"):
        for lang in ("en", "zh"):
            n_test = sum(ex.kind == kind and ex.lang == lang for ex in split.test)
            n_all = n_test + sum(ex.kind == kind and ex.lang == lang for ex in split.train)
            assert 0.15 < n_test / n_all < 0.25, (kind, lang)
    again = corpora.coreference_split()
    assert again.test == split.test and corpora.coreference_split(seed=1).test != split.test


def test_the_seed_sentences_are_held_out_and_twins_differ_in_their_answer(split):
    test_text = {ex.text: ex.answer for ex in split.test}
    assert test_text["the animal didn't cross the street because it was too tired"] == "animal"
    assert test_text["the animal didn't cross the street because it was too wide"] == "street"
    assert test_text["动物 没有 过 马路 ， 因为 它 太 累 了"] == "动物"
    assert test_text["小红 把 书 递给 小明 ， 因为 他 想 看"] == "小明"
    for a, b in corpora.twins(split.test):
        assert a.answer != b.answer and len(a.tokens) == len(b.tokens)
        assert sum(x != y for x, y in zip(a.tokens, b.tokens)) == (2 if a.kind == "bank" and a.lang == "zh" else 1) \
            or a.kind == "bank"


def test_bank_sentences_of_a_language_have_one_length():
    for lang in ("en", "zh"):
        lengths = {len(ex.tokens) for ex in corpora.all_examples() if ex.kind == "bank" and ex.lang == lang}
        assert len(lengths) == 1, (lang, lengths)


def test_induction_sequences_repeat_a_segment_of_distinct_tokens():
    seqs = corpora.induction_batch(np.random.default_rng(0), 50)
    assert seqs.shape == (50, corpora.INDUCTION_LEN)
    found = set()
    for row in seqs:
        n = next(n for n in range(corpora.INDUCTION_LEN // 2, 3, -1)
                 if np.array_equal(row[-n:], row[-2 * n:-n]) and len(set(row[-n:])) == n)
        found.add(n)
    assert len(found) > 4                                  # the length of the repeat varies
    rep = corpora.repeated_sequences(np.random.default_rng(0), 3, 11)
    np.testing.assert_array_equal(rep[:, :11], rep[:, 11:])


# --- the loader contract --------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_load_trained_contract_and_manifest(name):
    m = load_trained(name)
    assert isinstance(m.vocab, list) and all(isinstance(w, str) for w in m.vocab)
    ids = m.encode(" ".join(m.vocab[:5]))
    assert ids.dtype.kind == "i" and m.decode(ids) == m.vocab[:5]
    logits, weights = m.forward(ids)
    assert isinstance(weights, np.ndarray) and weights.shape == (m.n_layers, m.n_heads, 5, 5)
    assert logits.shape == (5, len(m.vocab))
    for key in ("command", "seed", "corpus_version", "steps", "metrics", "torch_version", "check", "loss_curve"):
        assert key in m.manifest, key
    assert m.manifest["corpus_version"] == corpora.CORPUS_VERSION
    with pytest.raises(ValueError, match="expected one of"):
        load_trained("gpt")


def test_unknown_words_are_named(coref):
    with pytest.raises(ValueError, match=r"'giraffe'.*'purple'|'purple'.*'giraffe'"):
        coref.encode("the giraffe didn't cross the purple street")
    with pytest.raises(ValueError, match="Separate the words with spaces"):
        coref.encode("小红把书递给小明")
    with pytest.raises(ValueError, match="no pronoun"):
        coref.referent("the dog saw the road")
    with pytest.raises(TypeError, match="space-separated"):
        coref.encode(42)


def test_the_numpy_path_never_imports_torch():
    code = ("import sys\nfrom attention_core.labs.nb12_trained_transformer import load_trained\n"
            "m = load_trained('coreference')\n"
            "print(m.referent('the cat didn\\'t cross the road because it was too wide'))\n"
            "load_trained('induction').forward([1, 2, 3])\nassert 'torch' not in sys.modules, 'torch was imported'\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "road"


# --- what the committed weights do ----------------------------------------------------------------
def test_referent_on_every_held_out_twin(coref):
    for lang in ("en", "zh"):
        acc = E.twin_accuracy(coref, lang)
        assert acc["twins"] > 100 and acc["accuracy"] >= 0.95 and acc["both_right"] >= 0.9, (lang, acc)
    assert coref.referent("The animal didn't cross the street because it was too tired") == "animal"
    assert coref.referent("The animal didn't cross the street because it was too wide") == "street"
    assert coref.referent("小红 把 书 递给 小明 ， 因为 她 想 帮忙") == "小红"


def test_manifest_metrics_are_what_the_weights_do(coref, ind):
    acc = E.coreference_accuracy(coref)
    for key, value in coref.manifest["metrics"].items():
        if key != "final_train_loss":
            assert acc[key] == pytest.approx(value, abs=1e-4), key
    scores = E.head_scores(ind)
    assert scores["induction"].max() == pytest.approx(ind.manifest["metrics"]["best_induction_score"], abs=1e-4)
    assert E.repeated_half_loss(ind) == pytest.approx(ind.manifest["metrics"]["repeated_half_loss"], abs=1e-4)


def test_a_previous_token_head_in_layer_0_and_induction_heads_in_layer_1(ind):
    s = E.head_scores(ind)
    assert s["previous"].shape == s["induction"].shape == (2, 4)
    assert s["previous"][0].max() > 0.6 and s["previous"][1].max() < 0.2
    assert s["induction"][1].max() > 0.6 and s["induction"][0].max() < 0.2
    # uniform attention over the visible keys would score about 1/T: the heads are far above chance
    assert s["induction"][1].min() > 5 / (2 * E.HALF)


def test_ablation_finds_the_essential_and_the_redundant_heads(ind):
    rows = {r["ablated"]: r["loss"] for r in E.ablation_table(ind)}
    base = rows["-"]
    prev = int(np.argmax(E.head_scores(ind)["previous"][0]))
    assert rows[f"L0H{prev}"] > base + 2                   # the one previous-token head: essential
    others = [rows[f"L0H{h}"] - base for h in range(4) if h != prev]
    assert max(others) < 0.1                               # the other layer-0 heads: nearly redundant
    assert rows["L1 all"] > max(rows[f"L1H{h}"] for h in range(4)) + 1   # induction heads back each other up


def test_bank_is_identical_at_the_embedding_and_separates_by_sense(coref):
    for lang in ("en", "zh"):
        s = E.bank_similarity(coref, lang)
        np.testing.assert_allclose([s["same"][0], s["other"][0]], 1.0, atol=1e-6)
        assert s["same"][-1] > 0.95 and s["other"][-1] < 0.5, (lang, s)


def test_weight_and_removal_disagree_on_the_seed_sentence(coref):
    r = E.weight_vs_removal(coref, "the animal didn't cross the street because it was too tired")
    rows = {row["word"]: row for row in r["rows"]}
    assert r["answer"] == "animal"
    assert rows["tired"]["weight"] < 0.05 and rows["tired"]["answer_without"] != "animal"   # no weight, decisive
    assert rows["animal"]["weight"] > 0.5
    assert E.disagreement(r)["disagree"]
    mask = E.removal_mask(4, 1)
    assert mask[:, 1].tolist() == [False, True, False, False] and mask.sum() == 13


def test_head_table_names_layers_and_heads():
    table = E.head_table(np.array([[0.5, 0.25], [0.125, 1.0]]), lang="zh")
    assert "第 1 层" in repr(table) and "头 1" in repr(table)
    with pytest.raises(ValueError, match=r"\(L, H\)"):
        E.head_table(np.ones(3))


# --- training reruns ----------------------------------------------------------------------------
@pytest.mark.slow                      # two short torch retrains: about 30 s each on 2 cores
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_a_short_retrain_reproduces_the_manifest(name):
    """The first check_steps of the full schedule, from the same seed: the loss the manifest recorded
    (tolerance 1e-3: identical with the same torch and thread count; other CPUs may round differently)."""
    pytest.importorskip("torch")
    from attention_core.labs.nb12_trained_transformer import training
    manifest = load_trained(name).manifest
    out = training.train(name, stop_after=manifest["check"]["steps"], progress=False)
    assert out["loss"] == pytest.approx(manifest["check"]["loss"], abs=1e-3)


@pytest.mark.skipif(os.environ.get("NB12_FULL_TRAIN") != "1", reason="the full run (about a minute): NB12_FULL_TRAIN=1")
def test_the_full_run_reproduces_the_committed_metrics(tmp_path):
    from attention_core.labs.nb12_trained_transformer import training
    for name in MODEL_NAMES:
        result = training.train(name, progress=False)
        committed = load_trained(name).manifest["metrics"]
        for key, value in committed.items():
            assert result["manifest"]["metrics"][key] == pytest.approx(value, abs=2e-3), (name, key)


def test_progress_bar_writes_one_line(capsys):
    from attention_core.labs.nb12_trained_transformer.training import Progress
    bar = Progress(4, "demo", stream=sys.stdout, width=8)
    bar.update(2, 1.5)
    bar.update(4, 0.25)
    text = capsys.readouterr().out
    assert "[####....]" in text and "[########]" in text and text.endswith("\n") and "0.2500" in text


def test_manifests_are_small_and_complete():
    from importlib import resources
    folder = resources.files("attention_core.data") / "models"
    total = sum((folder / f"{n}.npz").stat().st_size if hasattr(folder / n, "stat") else
                len((folder / f"{n}.npz").read_bytes()) for n in MODEL_NAMES)
    assert total < 3 * 2 ** 20
    for n in MODEL_NAMES:
        manifest = json.loads((folder / f"{n}.json").read_text(encoding="utf-8"))
        assert manifest["steps"] == manifest["loss_curve"][-1][0]


# --- widgets and the exercise check ----------------------------------------------------------------
def test_head_picker_state(ind):
    s = W.head_picker_state(ind, 1, 1)
    assert s["weights"].shape == (2 * E.HALF, 2 * E.HALF)
    np.testing.assert_allclose(s["weights"].sum(-1), 1, atol=1e-5)
    assert s["induction"] == pytest.approx(float(E.head_scores(ind)["induction"][1, 1]))
    assert s["stripe"] > 0.3 and len(s["tokens"]) == 2 * E.HALF
    with pytest.raises(ValueError, match="layer"):
        W.head_picker_state(ind, 2, 0)


def test_sentence_state_and_ablation_change_the_prediction(coref):
    s = W.sentence_state(coref, "the cat didn't cross the road because it was too wide", 1, 0)
    assert s["tokens"][-2:] == ["|", "it"] and s["answer"] == "road" and s["top"][0][1] > 0.5
    assert s["weights"].shape == (len(s["tokens"]),) * 2
    every = [(l, h) for l in range(coref.n_layers) for h in range(coref.n_heads)]
    off = W.sentence_state(coref, "the cat didn't cross the road because it was too wide", 1, 0, every)
    assert off["top"][0] != s["top"][0] and off["baseline"] == "road"
    bank = W.sentence_state(coref, "tom saw the ducks at the bank", 0, 0)
    assert bank["tokens"][-1] == "bank" and bank["answer"] == "river"
    with pytest.raises(ValueError, match="'giraffe'"):
        W.sentence_state(coref, "the giraffe was tired", 0, 0)
    with pytest.raises(ValueError, match="ablated"):
        W.sentence_state(coref, "tom saw the ducks at the bank", 0, 0, [1])


def test_widgets_build_update_and_show_errors_in_red(coref, ind):
    panel = W.sentence_widget(coref)
    assert panel.state is not None and panel.message.value == ""
    panel.controls["sentence"].value = "the giraffe was tired"
    assert ERROR_COLOR in panel.message.value and "giraffe" in panel.message.value
    panel.controls["sentence"].value = "小红 把 书 递给 小明 ， 因为 他 想 看"
    assert panel.message.value == "" and panel.state["answer"] == "小明"
    panel.controls["off L1H0"].value = True
    assert panel.state["ablated"] == [(1, 0)]
    picker = W.head_picker_widget(ind)
    picker.controls["head"].value = (1, 2)
    assert picker.state["layer"] == 1 and picker.state["head"] == 2 and "0." in picker.readout.value


def test_check_induction_score_passes_the_reference_and_names_mistakes(ind):
    def right(w, half):
        q = np.arange(half, 2 * half)
        return w[q, q - half + 1].mean()

    def same_token(w, half):
        q = np.arange(half, 2 * half)
        return w[q, q - half].mean()

    assert checks.check_induction_score(right, ind)
    bad = checks.check_induction_score(same_token, ind, lang="en")
    assert not bad and "EARLIER OCCURRENCE" in bad.message
    diag = checks.check_induction_score(lambda w, half: np.diagonal(w, -(half - 1)).mean(), ind, lang="zh")
    assert not diag and "对角线" in diag.message
    boom = checks.check_induction_score(lambda w, half: 1 / 0, ind)
    assert not boom and "ZeroDivisionError" in boom.message
    assert "number" in checks.check_induction_score(lambda w, half: "x", ind, lang="en").message
