"""The hand-set coreference demo of notebook 01 must be real: the Winograd twin resolves both ways."""
import math

import numpy as np
import pytest
from testkit import image_bytes, is_error

from attention_core.labs.nb01_query_key_value import coreference as cr
from attention_core.labs.nb01_query_key_value import widgets as W
from attention_core.teaching import i18n


def antecedent(example, params=None):
    result = cr.resolve(example, params)
    return example.tokens[result.antecedent]


@pytest.mark.parametrize("name, expected", [
    ("animal_tired", "animal"), ("animal_wide", "street"),
    ("zh_animal_tired", "动物"), ("zh_animal_wide", "马路"),
    ("xiaohong_she", "小红"), ("xiaoming_he", "小明"),
])
def test_each_example_resolves_to_its_antecedent(name, expected):
    ex = cr.coreference_example(name)
    assert ex.tokens[ex.expected] == expected
    assert antecedent(ex) == expected
    # A clear winner, not a coin toss: the right noun gets most of the pronoun's attention.
    assert cr.resolve(ex).weights[1][ex.pronoun].max() > 0.9


def test_winograd_twin_same_matrices_opposite_answers():
    params = cr.default_params()
    tired, wide = cr.coreference_example("animal_tired"), cr.coreference_example("animal_wide")
    assert tired.tokens[:-1] == wide.tokens[:-1]            # the twins differ in one word only
    assert antecedent(tired, params) == "animal"
    assert antecedent(wide, params) == "street"


def test_step1_pronoun_reads_its_adjective():
    for name, adj in [("animal_tired", "tired"), ("animal_wide", "wide")]:
        ex = cr.coreference_example(name)
        w1 = cr.resolve(ex).weights[0][ex.pronoun]
        assert ex.tokens[int(np.argmax(w1))] == adj


def test_weights_rows_sum_to_one_and_shapes():
    for name in cr.example_names():
        ex = cr.coreference_example(name)
        result = cr.resolve(ex)
        t = len(ex.tokens)
        for w in result.weights:
            assert w.shape == (t, t)
            np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
        assert result.output.shape == (t, len(cr.FEATURES))


def test_flipping_a_feature_moves_the_attention():
    ex = cr.coreference_example("xiaohong_she")
    flipped = cr.with_feature(cr.with_feature(ex, "小明", "female", 1), "小红", "female", 0)
    assert antecedent(flipped) == "小明"
    assert antecedent(ex) == "小红"                          # the original is untouched
    tired = cr.coreference_example("animal_tired")
    swapped = cr.with_feature(cr.with_feature(tired, "animal", "can_be_tired", 0), "street", "can_be_tired", 1)
    assert antecedent(swapped) == "street"


def test_changing_a_matrix_entry_moves_the_attention():
    ex = cr.coreference_example("animal_tired")
    params = cr.default_params()
    # Without the "can be tired" key, only the generic noun match is left: animal and street tie.
    blind = params.set("w_k2", "can_be_tired", "tired", 0.0)
    w = cr.resolve(ex, blind).weights[1][ex.pronoun]
    assert w[ex.tokens.index("animal")] == pytest.approx(w[ex.tokens.index("street")])
    assert params.w_k2[cr.FEATURES.index("can_be_tired"), cr.STEP2_AXES.index("tired")] == 3.0


def test_pronoun_output_takes_the_antecedents_identity():
    for name, feature in [("animal_tired", "animate"), ("animal_wide", "place")]:
        ex = cr.coreference_example(name)
        out = cr.resolve(ex).output[ex.pronoun]
        assert out[cr.FEATURES.index(feature)] > 0.9


def test_tables_and_errors():
    ex = cr.coreference_example("animal_tired")
    text = repr(cr.feature_table(ex))
    assert "animal" in text and "can_be_tired" in text
    assert "<table>" in cr.matrix_table(cr.default_params(), "w_q2")._repr_html_()
    assert "it" in repr(cr.weights_table(cr.resolve(ex)))
    with pytest.raises(ValueError, match="expected one of"):
        cr.coreference_example("nope")
    with pytest.raises(ValueError, match="not one of the tokens"):
        cr.make_example("the cat sat", "it")
    with pytest.raises(ValueError, match="unknown feature"):
        cr.embed(["x"], {"x": {"fluffy": 1}})


def test_widget_flip_moves_the_bars():
    from attention_core.teaching import i18n
    box = cr.coreference_widget("xiaohong_she", lang="en")
    assert "“她” attends most to “小红”" in box.bars.value
    c = box.controls
    c["token"].value, c["feature"].value = "小红", "female"
    c["value"].value = 0.0                                   # 小红 is no longer female
    c["token"].value = "小明"
    c["value"].value = 1.0                                   # ... and 小明 is
    assert "“她” attends most to “小明”" in box.bars.value
    c["reset"].click()
    assert "attends most to “小红”" in box.bars.value
    c["example"].value = "animal_wide"                       # a fresh sentence starts unmodified
    assert "attends most to “street”" in box.bars.value
    assert "<script" not in box.bars.value
    assert "最关注" in cr.pronoun_bars_html(cr.resolve(cr.coreference_example("animal_tired")), lang="zh")
    assert i18n.get_language() in i18n.LANGUAGES


def test_chinese_sentences_use_a_full_width_comma():
    for name in ("zh_animal_tired", "zh_animal_wide", "xiaohong_she", "xiaoming_he"):
        ex = cr.coreference_example(name)
        assert "，" in ex.tokens and "," not in ex.tokens
        assert not any(ch in ex.note["zh"] for ch in ",:;"), ex.note["zh"]
    assert cr.sentence_text(cr.coreference_example("xiaoming_he")) == "小红把书递给小明，因为他想看"
    assert cr.sentence_text(cr.coreference_example("animal_tired")).startswith("The animal didn't cross")


def test_widget_shows_sentences_and_both_steps():
    box = cr.coreference_widget("animal_tired", lang="zh")
    c = box.controls
    assert ("动物没有过马路，因为它太累了", "zh_animal_tired") in c["example"].options
    assert c["example"].value == "animal_tired" and c["value"].description == "特征取值"
    assert "第 1 步" in box.bars.value and "第 2 步" in box.bars.value
    assert "“it”最关注“tired”" in box.bars.value and "“it”最关注“animal”" in box.bars.value
    c["example"].value = "xiaohong_she"                       # no adjective: step 1 is spread evenly
    assert "平均分配" in box.bars.value and "“她”最关注“小红”" in box.bars.value


# --- attention step (notebook 01, seed 002's worked example) ----------------------------------
def test_attention_step_state_reproduces_the_seed_example():
    s = W.attention_step_state([1, 0], [[1, 0], [0, 1]], [[2, 0], [0, 4]])
    np.testing.assert_allclose(s["scores"], [1, 0], atol=1e-12)
    np.testing.assert_allclose(s["scaled"], [0.707, 0], atol=1e-3)
    np.testing.assert_allclose(s["weights"], [0.670, 0.330], atol=1e-3)
    # Exactly [1.3395, 1.3210]; the seed writes 1.320 because it rounds the weights first (4 x 0.330).
    np.testing.assert_allclose(s["output"], [1.340, 1.320], atol=1e-3)
    assert s["scale"] == pytest.approx(1 / math.sqrt(2))
    np.testing.assert_allclose(s["contributions"].sum(axis=0), s["output"])


def test_attention_step_state_validates():
    with pytest.raises(ValueError, match="Dk"):
        W.attention_step_state([1, 0, 0], [[1, 0], [0, 1]], [[2, 0], [0, 4]])
    with pytest.raises(ValueError, match="q"):
        W.attention_step_state([[1, 0]], [[1, 0]], [[1, 0]])


def test_attention_step_widget_shows_every_number_and_redraws():
    panel = W.attention_step_widget()
    assert not is_error(panel)
    for number in ("1.000", "0.707", "0.670", "0.330", "1.340", "1.321"):
        assert number in panel.readout.value
    assert "(the weights sum to 1.000)" in panel.readout.value
    i18n.set_language("zh")
    assert "（权重之和为 1.000）" in W.attention_step_widget().readout.value
    i18n.set_language("en")
    before = image_bytes(panel.images["step"])
    assert before.startswith(b"\x89PNG")
    panel.controls["q1"].value = 1.0                       # q = [1, 1]: both keys equally similar
    np.testing.assert_allclose(panel.state["weights"], [0.5, 0.5])
    assert image_bytes(panel.images["step"]) != before
    panel.controls["v1_1"].value = 2.0                     # v2 = [0, 2]
    np.testing.assert_allclose(panel.state["output"], [1.0, 1.0])


def test_attention_step_widget_extreme_sliders_stay_finite():
    panel = W.attention_step_widget()
    for control in panel.controls.values():
        control.value = control.max
    assert not is_error(panel)
    assert np.isfinite(panel.state["output"]).all()


def test_attention_step_widget_bad_inputs_give_a_message():
    panel = W.attention_step_widget(q=[1, 0, 0])
    assert is_error(panel) and "Dk" in panel.message.value
    panel = W.attention_step_widget(labels=["only one"])
    assert is_error(panel)


def test_attention_step_widget_other_shapes():
    panel = W.attention_step_widget(q=[1, 0, 0], keys=np.eye(3), values=np.eye(3), labels=["a", "b", "c"],
                                    edit_values=False)
    assert not is_error(panel) and set(panel.controls) == {"q0", "q1", "q2"}
