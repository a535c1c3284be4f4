"""Notebook 12's coreference claims as measured: the model against the strongest rule that reads no roles (the
class shortcut included) on the sets where that rule fails by construction, and "the pronoun's head attends to its
referent" as a head's mean weight, its argmax share and its effect by patching from the twin sentence."""
import numpy as np
import pytest

from attention_core.labs.nb12_trained_transformer import corpora, load_trained
from attention_core.labs.nb12_trained_transformer import experiments as E


@pytest.fixture(scope="module")
def coref():
    return load_trained("coreference")


@pytest.fixture(scope="module")
def decoder():
    return load_trained("coreference_decoder")


@pytest.fixture(scope="module")
def comparison(coref):
    return E.baseline_comparison(coref)


@pytest.fixture(scope="module")
def claims(coref):
    return {lang: E.attention_claim(coref, lang) for lang in ("en", "zh")}


@pytest.mark.slow          # every family through the model (make test runs it)
def test_the_class_shortcut_is_right_on_plain_sentences_and_wrong_on_role_swaps_by_construction(comparison):
    for lang in ("en", "zh"):
        plain, swaps = comparison[lang]["held_out"], comparison[lang]["role_swaps"]
        assert plain["rules"]["class"] == 1.0 and plain["best_rule"] == "class"
        assert swaps["rules"]["class"] <= 0.5                 # one sentence of every crossing twin contradicts it
        assert swaps["sentences"] > 100


@pytest.mark.slow          # every family through the model (make test runs it)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_model_beats_the_strongest_rule_where_the_shortcut_fails(comparison, lang):
    swaps = comparison[lang]["role_swaps"]
    assert swaps["best"] == max(swaps["rules"].values())
    assert swaps["model"] >= 0.9 and swaps["margin"] >= 0.3, swaps


def test_baseline_comparison_counts_what_a_loop_counts(coref, comparison):
    split = corpora.coreference_split()
    swaps = [ex for ex in corpora.role_swaps(split) if ex.lang == "zh"]
    right = np.mean([coref.referent(list(ex.tokens)) == ex.answer for ex in swaps[:40]])
    first = np.mean([ex.nouns[0] == ex.answer for ex in swaps])
    assert comparison["zh"]["role_swaps"]["rules"]["first"] == pytest.approx(first)
    pred = E.predictions(coref, swaps[:40])
    assert np.mean([p == ex.answer for p, ex in zip(pred, swaps[:40])]) == pytest.approx(right)
    with pytest.raises(ValueError, match="coreference"):
        E.baseline_comparison(load_trained("induction"))


@pytest.mark.slow          # patches every head from every twin, both languages (make test runs it)
def test_the_attention_claim_is_measured_three_ways(coref, claims):
    for lang, c in claims.items():
        assert c["mean_weight"].shape == c["argmax"].shape == c["follows"].shape == (coref.n_layers, coref.n_heads)
        assert c["model_accuracy"] >= 0.95
        share = E.head_share(coref, lang)["share"]
        np.testing.assert_allclose(c["argmax"], share, atol=1e-12)     # the same sentences, the same measure
        # the attention claim holds as attention: every head of layer 1 puts its largest weight on the referent
        # in most sentences, but none carries the answer alone (its twin's output moves few answers); the layer does
        assert c["argmax"][-1].min() >= 0.75, (lang, c["argmax"])
        assert c["follows"][-1].max() <= 0.2, (lang, c["follows"])
        assert c["layer_follows"][-1] >= 0.8, (lang, c["layer_follows"])
        # the decision is read from the adjective: the layer-0 head that carries most answers alone is the one
        # that looks at the adjective most
        h = int(np.argmax(c["follows"][0]))
        assert c["follows"][0, h] >= 0.4 and h == int(np.argmax(c["adjective_weight"][0])), (lang, c)
    with pytest.raises(ValueError, match="lang"):
        E.attention_claim(coref, "fr")


@pytest.mark.slow          # the same patching for the decoder (make test runs it)
def test_the_decoders_answer_moves_with_its_last_layer_at_the_restated_pronoun(decoder):
    """The decoder answers after `| it`: there, its last layer's heads patched from the twin move the answer."""
    for lang in ("en", "zh"):
        c = E.attention_claim(decoder, lang)
        assert c["model_accuracy"] >= 0.95
        assert c["layer_follows"][-1] >= 0.9, (lang, c["layer_follows"])


@pytest.mark.slow          # removes each word through the model (make test runs it)
def test_the_weight_vs_removal_figure_names_the_words_that_matter(coref):
    """Notebook 12's Q6 figure labels the words whose removal moves the answer and the most weighted one, and
    no other (words of small weight and no effect piled their labels on each other)."""
    import matplotlib.pyplot as plt

    from attention_core.labs.nb12_trained_transformer import figures
    q6 = E.weight_vs_removal(coref, "the animal didn't cross the street because it was too wide")
    ax = figures.plot_weight_vs_effect(q6)
    labels = {t.get_text() for t in ax.texts}
    top = max(q6["rows"], key=lambda r: r["weight"])["word"]
    want = {r["word"] for r in q6["rows"] if r["effect"] > 0.1} | {top}
    assert labels == want and "wide" in labels, (labels, want)
    plt.close("all")
