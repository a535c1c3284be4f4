"""A hostile caller's arguments get a clear error at the entry point of each public function, naming the argument
and the values it takes, never a silent NaN, a silent cut or a deep NumPy traceback (issue 33's findings for the
labs of notebooks 09 and 12, and for the tools that build the notebooks and the site)."""
from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from attention_core.labs.nb09_cost_and_context_window import cost_lab
from attention_core.labs.nb12_trained_transformer import experiments as E
from attention_core.labs.nb12_trained_transformer import load_trained
from attention_core.labs.nb12_trained_transformer import widgets as W

ROOT = Path(__file__).resolve().parents[2]
CO = load_trained("coreference")
IND = load_trained("induction")
SENTENCE = "the dog was tired because it"

CASES = [
    # twin_accuracy: a NaN accuracy with RuntimeWarnings before
    (E.twin_accuracy, (CO, "en"), {"kind": "xyz"},
     ValueError, "kind: expected one of ('winograd', None, 'cross', 'fit', 'carry', 'person', 'bank'), got str 'xyz'"),
    (E.twin_accuracy, (CO, "fr"), {}, ValueError, "lang: expected one of ('en', 'zh'), got str 'fr'"),
    (E.twin_accuracy, (CO, None), {}, ValueError, "lang: expected one of ('en', 'zh'), got None"),
    # removal_mask: an IndexError, and -1 silently cut the last key
    (E.removal_mask, (3, 5), {}, ValueError, "j: expected the position of a token, an integer in 0..2, got int 5"),
    (E.removal_mask, (3, -1), {}, ValueError, "j: expected the position of a token, an integer in 0..2, got int -1"),
    (E.removal_mask, (3, 1.0), {}, ValueError, "j: expected the position of a token"),
    (E.removal_mask, (0, 0), {}, ValueError, "t: expected an integer >= 1, got 0"),
    # weight_vs_removal: layer=5 alone was ignored (layer=5, head=0 an IndexError), -1 accepted
    (E.weight_vs_removal, (CO, SENTENCE), {"layer": 5}, ValueError, "layer and head: give both"),
    (E.weight_vs_removal, (CO, SENTENCE), {"layer": 5, "head": 0}, ValueError, "layer: expected an integer in 0..1"),
    (E.weight_vs_removal, (CO, SENTENCE), {"layer": -1, "head": -1}, ValueError,
     "layer: expected an integer in 0..1, got int -1"),
    (E.weight_vs_removal, (CO, SENTENCE), {"layer": 0, "head": 9}, ValueError, "head: expected an integer in 0..3"),
    (E.weight_vs_removal, (IND, SENTENCE), {}, ValueError, "model: expected the coreference model"),
    # sentence_state: raw TypeErrors and IndexErrors before
    (W.sentence_state, (CO, SENTENCE), {"top": 0}, ValueError,
     "top: expected the number of predictions to show, an integer in 1..218, got int 0"),
    (W.sentence_state, (CO, SENTENCE), {"top": "3"}, TypeError, "top: expected the number of predictions to show"),
    (W.sentence_state, (CO, SENTENCE), {"top": True}, TypeError, "top: expected the number of predictions"),
    (W.sentence_state, (CO, SENTENCE), {"ablated": "L0H1"}, TypeError,
     "ablated: expected a list of (layer, head) pairs, got str 'L0H1'"),
    (W.sentence_state, (CO, SENTENCE), {"ablated": 3}, TypeError, "ablated: expected a list of (layer, head) pairs"),
    # disagreement: "max() arg is an empty sequence"
    (E.disagreement, ({"rows": []},), {}, ValueError, "result: expected what weight_vs_removal returns"),
    (E.disagreement, (None,), {}, ValueError, "result: expected what weight_vs_removal returns"),
    (E.disagreement, ({"rows": [{"word": "a"}]},), {}, ValueError, "result: expected what weight_vs_removal"),
    # head_table: NumPy's "could not convert string to float"
    (E.head_table, ("abc",), {}, TypeError, "values: expected an array of real numbers, got str 'abc'"),
    (E.head_table, ([[1.0, np.nan]],), {}, ValueError, "values: contains NaN or infinity"),
    (E.head_table, (np.ones(3),), {}, ValueError, "values: expected an (L, H) array"),
    # the induction model's measures given the coreference model: "ids: expected 1..16 tokens" before
    (E.head_scores, (CO,), {}, ValueError, "model: expected the induction model (load_trained('induction')), got the "
                                           "coreference model"),
    (E.ablation_table, (CO,), {}, ValueError, "model: expected the induction model"),
    (E.repeated_half_loss, (CO,), {}, ValueError, "model: expected the induction model"),
    (E.head_scores, ("induction",), {}, TypeError, "model: expected a trained model"),
    # cost_curves: 128.7 was cut to 128 silently
    (cost_lab.cost_curves, ([128.7], 64), {}, ValueError, "n_values: expected whole numbers of tokens, got 128.7"),
    (cost_lab.cost_curves, ([np.nan], 64), {}, ValueError, "n_values: expected whole numbers of tokens, got nan"),
    (cost_lab.cost_curves, ([], 64), {}, TypeError, "n_values: expected context lengths, whole numbers of tokens"),
    (cost_lab.cost_curves, ("128", 64), {}, TypeError, "n_values: expected context lengths"),
    (cost_lab.cost_curves, ([True], 64), {}, TypeError, "n_values: expected context lengths"),
    (cost_lab.cost_curves, ([0], 64), {}, ValueError, "n_values: expected an integer >= 1, got 0"),
]


@pytest.mark.parametrize("fn, args, kwargs, error, words", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_a_hostile_argument_gets_an_error_naming_it(fn, args, kwargs, error, words):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no RuntimeWarning on the way
        with pytest.raises(error, match=re.escape(words)):
            fn(*args, **kwargs)


@pytest.mark.slow          # every kind of twin in both languages through the model (make test runs it)
def test_the_right_arguments_still_give_the_same_twin_accuracy():
    for kind in E.TWIN_KINDS:
        for lang in E.LANGS:
            r = E.twin_accuracy(CO, lang, kind=kind)
            assert r["twins"] > 0 and 0.9 <= r["accuracy"] <= 1.0


@pytest.mark.slow          # every entry point through the model (make test runs it)
def test_the_right_arguments_still_give_the_same_answers():
    assert E.removal_mask(3, 2)[:, 2].tolist() == [False, False, True]
    assert E.removal_mask(np.int64(3), np.int64(0))[0].tolist() == [True, True, True]
    default = E.weight_vs_removal(CO, SENTENCE)
    chosen = E.weight_vs_removal(CO, SENTENCE, layer=default["layer"], head=default["head"])
    assert chosen["rows"] == default["rows"]
    assert E.disagreement(default)["top_weight"]["word"] in SENTENCE.split()
    assert W.sentence_state(CO, SENTENCE, ablated=None)["top"] == W.sentence_state(CO, SENTENCE)["top"]
    assert len(W.sentence_state(CO, SENTENCE, top=np.int64(5))["top"]) == 5
    assert cost_lab.cost_curves([128.0, 256], 64)["n"].tolist() == [128.0, 256.0]
    assert "layer 0    0.50    1.00" in str(E.head_table([[0.5, 1]]))


@pytest.mark.slow          # every sentence widget through the model (make test runs it)
def test_full_width_latin_letters_read_as_ascii_where_a_learner_types_a_sentence():
    from attention_core.labs.nb12_trained_transformer import corpora
    assert corpora.halfwidth("ＴＨＥ　ｄｏｇ ２") == "THE dog 2"
    assert corpora.halfwidth("奖杯放不进箱子，因为它太大了。") == "奖杯放不进箱子，因为它太大了。"   # Chinese kept
    typed = W.sentence_state(CO, "ＴＨＥ ＤＯＧ was tired because it")
    assert typed["tokens"] == W.sentence_state(CO, SENTENCE)["tokens"]        # not split like Chinese characters
    assert E.weight_vs_removal(CO, "ＴＨＥ dog was tired because it")["tokens"][:2] == ["the", "dog"]


# --- the tools ---------------------------------------------------------------------------------------

def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow          # runs the corpus export in a subprocess: about 2 s (make test runs it)
def test_a_source_that_is_not_utf8_is_named_with_its_line(tmp_path):
    build_notebooks = _tool("build_notebooks")
    src = tmp_path / "98_latin1.py"
    src.write_bytes(b'# %% [markdown] lang="en"\n# caf\xe9\n')
    with pytest.raises(SystemExit, match=re.escape("98_latin1.py:2: not UTF-8 text (byte 0xe9")):
        build_notebooks.build(src, "en")


@pytest.mark.parametrize("text", ["", "\n\n", "print('no marker')\n"])
def test_an_empty_source_is_refused_not_built_into_an_empty_notebook(tmp_path, text):
    build_notebooks = _tool("build_notebooks")
    src = tmp_path / "99_empty.py"
    src.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit, match=re.escape("99_empty.py: no cells")):
        build_notebooks.build(src, "en")


@pytest.mark.parametrize("content", [b'{"cells": 3}', b"\xff\xfe", b"not json", b'{"nbformat": 4}'])
def test_build_site_names_the_notebook_that_is_not_valid(tmp_path, content):
    build_site = _tool("build_site")
    bad = tmp_path / "en" / "03_softmax.ipynb"
    bad.parent.mkdir()
    bad.write_bytes(content)
    with pytest.raises(SystemExit, match=re.escape("en/03_softmax.ipynb: not a valid notebook")):
        build_site.read_notebook(bad)
    good = ROOT / "notebooks" / "en" / "03_softmax.ipynb"
    assert build_site.read_notebook(good).cells


def test_the_working_copy_refuses_a_file_as_its_folder(tmp_path):
    lab_setup = _tool("lab_setup")
    a_file = tmp_path / "my-notebooks"
    a_file.write_text("not a folder")
    with pytest.raises(SystemExit, match="dest: .*my-notebooks is a file, not a folder"):
        lab_setup.copy(dest=a_file, source=tmp_path)
    with pytest.raises(SystemExit, match="dest: cannot make the folder .*inside"):
        lab_setup.copy(dest=a_file / "inside", source=tmp_path)
    assert a_file.read_text() == "not a folder"                # nothing moved or overwritten


def test_the_trained_models_read_full_width_letters_and_name_the_sentence():
    from attention_core.labs.nb12_trained_transformer import load_trained
    model = load_trained("coreference")
    assert model.tokens("ＴＨＥ dog") == ["the", "dog"]
    with pytest.raises(ValueError, match="sentence: expected at least one word"):
        model.referent("")
    with pytest.raises(TypeError, match="sentence: expected a string"):
        model.referent(3)
