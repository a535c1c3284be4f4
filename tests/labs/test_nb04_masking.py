"""labs.nb04_masking.masking_lab: the experiments notebook 04 shows are right, and its figures draw in both
languages."""
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest
from testkit import image_bytes, is_error

import attention_core as ac
from attention_core.labs.nb04_masking import masking_lab
from attention_core.labs.nb04_masking import widgets as W
from attention_core.teaching import i18n

RNG = np.random.default_rng(0)
X = RNG.normal(size=(6, 8))                                       # (T, D), as in the notebook
LAYER = ac.init_multihead(d_model=8, n_heads=1, seed=0)
SCORES = RNG.normal(size=(5, 5))


# --- the hand-written masked softmax ---------------------------------------------------------------
def test_steps_give_exact_zeros_and_agree_with_the_library():
    mask = ac.causal_mask(5)
    steps = masking_lab.masked_softmax_steps(SCORES, mask)
    assert np.isneginf(steps["masked"][~mask]).all()
    np.testing.assert_array_equal(steps["masked"][mask], SCORES[mask])
    assert (steps["exp"][~mask] == 0).all() and (steps["weights"][~mask] == 0).all()
    np.testing.assert_allclose(steps["weights"], ac.softmax(SCORES, mask=mask), atol=1e-15)
    np.testing.assert_allclose(steps["weights"].sum(axis=-1), 1)
    assert steps["max"].shape == steps["sum"].shape == (5, 1)


def test_a_fully_masked_row_is_nan_naively_uniform_with_a_finite_fill_and_zero_in_the_library():
    mask = ac.causal_mask(5).copy()
    mask[2] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")                             # the NaN comes without a RuntimeWarning
        naive = masking_lab.naive_masked_softmax(SCORES, mask)
    assert np.isnan(naive[2]).all() and np.isfinite(np.delete(naive, 2, axis=0)).all()
    filled = masking_lab.naive_masked_softmax(SCORES, mask, fill=-1e9)
    np.testing.assert_allclose(filled[2], 1 / 5)                   # spread over keys it may not see
    library = ac.softmax(SCORES, mask=mask)
    assert (library[2] == 0).all()
    np.testing.assert_allclose(np.delete(library, 2, axis=0), np.delete(naive, 2, axis=0), atol=1e-15)


def test_a_small_fill_leaks_and_a_huge_one_does_not():
    mask = ac.causal_mask(5)
    assert masking_lab.naive_masked_softmax(SCORES, mask, fill=-10.0)[~mask].max() > 1e-6
    assert masking_lab.naive_masked_softmax(SCORES, mask, fill=-1e9)[~mask].max() == 0


def test_naive_attention_matches_the_library_and_its_nan_spreads():
    mask = ac.causal_mask(6)
    out, w = masking_lab.naive_masked_attention(X, X, X, mask)
    ref_out, ref_w = ac.scaled_dot_product_attention(X, X, X, mask=mask)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    left = ac.combine_masks(mask, ac.padding_mask([6, 3])[..., ::-1])[1]       # rows 0-2 see nothing
    assert (left.sum(axis=1) == [0, 0, 0, 1, 2, 3]).all()
    naive_1, _ = masking_lab.naive_masked_attention(X, X, X, left)
    assert np.isnan(naive_1).any(axis=1).tolist() == [True] * 3 + [False] * 3
    naive_2, _ = masking_lab.naive_masked_attention(naive_1, naive_1, naive_1, left)
    assert np.isnan(naive_2).any(axis=1).all()                     # 0 x NaN = NaN reaches every row
    lib_1, _ = ac.scaled_dot_product_attention(X, X, X, mask=left)
    lib_2, _ = ac.scaled_dot_product_attention(lib_1, lib_1, lib_1, mask=left)
    assert (lib_1[:3] == 0).all() and np.isfinite(lib_2).all()
    np.testing.assert_allclose(naive_1[3:], lib_1[3:], atol=1e-12)


# --- padding --------------------------------------------------------------------------------------
def test_pad_batch_and_the_padding_mask_reproduce_each_sequence_alone():
    seqs = [RNG.normal(size=(n, 8)) for n in (6, 4, 2)]
    batch, lengths = masking_lab.pad_batch(seqs, pad_value=0.0)
    assert batch.shape == (3, 6, 8) and lengths.tolist() == [6, 4, 2]
    assert (batch[2, 2:] == 0).all() and np.array_equal(batch[1, :4], seqs[1])
    with_pad, _ = ac.multi_head_attention(batch, batch, batch, LAYER, mask=ac.padding_mask(lengths))
    without, _ = ac.multi_head_attention(batch, batch, batch, LAYER)
    for b, s in enumerate(seqs):
        alone, _ = ac.multi_head_attention(s, s, s, LAYER)
        np.testing.assert_allclose(with_pad[b, :len(s)], alone, atol=1e-12)
        assert (np.abs(without[b, :len(s)] - alone).max() > 0.1) == (len(s) < 6)
    assert masking_lab.pad_batch([np.ones((2, 3))], pad_value=-1.0, max_len=4)[0][0, 2:].tolist() == [[-1.0] * 3] * 2


# --- does the future leak? ------------------------------------------------------------------------
def _layer(mask=None):
    return lambda z: ac.multi_head_attention(z, z, z, LAYER, mask=mask)[0]


def test_influence_is_exactly_the_mask_pattern_with_a_causal_mask_and_full_without():
    causal = masking_lab.influence_matrix(_layer(ac.causal_mask(6)), X, seed=1)
    no_mask = masking_lab.influence_matrix(_layer(), X, seed=1)
    assert causal.shape == no_mask.shape == (6, 6)
    np.testing.assert_array_equal(causal > 0, ac.causal_mask(6))
    assert (causal[~ac.causal_mask(6)] == 0).all()                 # exactly 0, not merely small
    assert (no_mask > 0).all()
    np.testing.assert_array_equal(causal[-1], no_mask[-1])         # the last position sees everything anyway
    window = masking_lab.influence_matrix(_layer(ac.sliding_window_mask(6, 2)), X, seed=1)
    np.testing.assert_array_equal(window > 0, ac.sliding_window_mask(6, 2))


# --- the KV cache --------------------------------------------------------------------------------
@pytest.mark.parametrize("chunks", [[4, 1, 1], [1] * 6, [3, 3], [2, 3, 1], [6]])
@pytest.mark.parametrize("n_layers, n_heads", [(1, 1), (2, 2)])
def test_kv_cache_reproduces_the_full_masked_computation(chunks, n_layers, n_heads):
    layers = [ac.init_multihead(d_model=8, n_heads=n_heads, seed=s) for s in range(n_layers)]
    full = masking_lab.stacked_attention(X, layers, mask=ac.causal_mask(6))
    cached, steps = masking_lab.decode_with_kv_cache(X, layers, chunks)
    np.testing.assert_allclose(cached, full, atol=1e-12)
    assert [(s["start"], s["stop"]) for s in steps] == list(zip(np.cumsum([0] + chunks[:-1]), np.cumsum(chunks)))
    for s in steps:
        tq, tk = s["stop"] - s["start"], s["stop"]
        np.testing.assert_array_equal(s["mask"], ac.causal_mask(tq, tk, offset=tk - tq))
        if tq == 1:
            assert s["mask"].all()                                 # one new token: the cache holds only the past


def test_without_the_mask_the_prompt_sees_its_future_and_deeper_models_spread_it():
    full = masking_lab.stacked_attention(X, LAYER, mask=ac.causal_mask(6))
    one, steps = masking_lab.decode_with_kv_cache(X, LAYER, [4, 1, 1], causal=False)
    diff = np.abs(one - full).max(axis=1)
    assert (diff[:3] > 1e-3).all() and (diff[3:] < 1e-12).all()   # the last prompt token and the new ones are fine
    assert all(s["mask"].all() for s in steps)
    layers = [ac.init_multihead(d_model=8, n_heads=2, seed=s) for s in (0, 1)]
    full_2 = masking_lab.stacked_attention(X, layers, mask=ac.causal_mask(6))
    two, _ = masking_lab.decode_with_kv_cache(X, layers, [4, 1, 1], causal=False)
    assert (np.abs(two - full_2).max(axis=1) > 1e-3).all()        # every position, the generated ones included


def test_stacked_attention_with_one_layer_is_multi_head_attention():
    np.testing.assert_allclose(masking_lab.stacked_attention(X, LAYER), ac.multi_head_attention(X, X, X, LAYER)[0])
    np.testing.assert_allclose(masking_lab.stacked_attention(X, [LAYER]), masking_lab.stacked_attention(X, LAYER))


@pytest.mark.parametrize("call, error, words", [
    (lambda: masking_lab.masked_softmax_steps(SCORES, np.ones((5, 5))), TypeError, "mask"),
    (lambda: masking_lab.masked_softmax_steps(SCORES, ac.causal_mask(4)), ValueError, "mask"),
    (lambda: masking_lab.masked_softmax_steps(SCORES, ac.causal_mask(5), fill=1.0), ValueError, "fill"),
    (lambda: masking_lab.pad_batch([]), TypeError, "sequences"),
    (lambda: masking_lab.pad_batch([np.ones((2, 3)), np.ones((2, 4))]), ValueError, "one width"),
    (lambda: masking_lab.pad_batch([np.ones((5, 3))], max_len=4), ValueError, "max_len"),
    (lambda: masking_lab.influence_matrix("layer", X), TypeError, "fn"),
    (lambda: masking_lab.influence_matrix(lambda z: z[:3], X), ValueError, "fn: expected outputs"),
    (lambda: masking_lab.decode_with_kv_cache(X, LAYER, [4, 1]), ValueError, "chunks: expected sizes summing"),
    (lambda: masking_lab.decode_with_kv_cache(X, LAYER, [6, 0]), ValueError, "chunks"),
    (lambda: masking_lab.decode_with_kv_cache(X, "layer", [6]), TypeError, "params"),
    (lambda: masking_lab.stacked_attention(X, []), TypeError, "params"),
    (lambda: masking_lab.naive_masked_attention(X, X[:, :4], X, ac.causal_mask(6)), ValueError, "q, k, v"),
])
def test_bad_inputs_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()


# --- figures ----------------------------------------------------------------------------------------


def _draw_without_missing_glyphs(fig):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                             # "Glyph ... missing" would fail here
        fig.canvas.draw()


TOKENS = ["The", "cat", "sat", "on", "the", "mat"]


def test_influence_figure(lang):
    causal = masking_lab.influence_matrix(_layer(ac.causal_mask(6)), X, seed=1)
    no_mask = masking_lab.influence_matrix(_layer(), X, seed=1)
    fig = masking_lab.plot_influence([no_mask, causal], TOKENS,
                                     titles=["no mask", "因果掩码"])
    axes = fig.axes[:2]
    assert [a.get_title() for a in axes] == ["no mask", "因果掩码"]     # the notebook's own words
    assert axes[0].get_xlabel() == i18n.t("masking_lab.changed_token")
    assert sum(t.get_text() == "0" for t in axes[1].texts) == 15 and not any(t.get_text() == "0" for t in axes[0].texts)
    _draw_without_missing_glyphs(fig)
    with pytest.raises(ValueError, match="non-negative"):
        masking_lab.plot_influence([-causal])


def test_mask_grid_figure(lang):
    both = ac.combine_masks(ac.causal_mask(6), ac.padding_mask([6, 4, 2]))
    fig = masking_lab.plot_mask_grid(list(both), TOKENS, titles=["a", "b", "c"])
    assert [a.get_title() for a in fig.axes] == ["a", "b", "c"]
    assert fig.axes[-1].get_legend() is not None and fig.axes[0].get_legend() is None
    _draw_without_missing_glyphs(fig)
    with pytest.raises(ValueError, match="labels"):
        masking_lab.plot_mask_grid(list(both), TOKENS[:3])


def test_cache_steps_figure(lang):
    _, steps = masking_lab.decode_with_kv_cache(X, LAYER, [4, 1, 1])
    fig, ax_in = plt.subplots()
    ax = masking_lab.plot_cache_steps(steps, TOKENS, ax=ax_in)
    assert ax is ax_in
    assert sum(t.get_text() == "−∞" for t in ax.texts) == 6        # hidden by the mask inside the prompt step
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert i18n.t("masking_lab.step", k=1, tq=4, tk=4) in legend and i18n.t("masking_lab.not_cached") in legend
    _draw_without_missing_glyphs(ax.figure)
    with pytest.raises(TypeError, match="steps"):
        masking_lab.plot_cache_steps([])


# --- masks (notebook 04) ----------------------------------------------------------------------
def test_mask_state_kinds():
    scores = np.random.default_rng(0).normal(size=(5, 5))
    for kind in W.MASK_KINDS:
        s = W.mask_state(kind, scores, length=3, window=2)
        np.testing.assert_allclose(s["weights"].sum(axis=1), 1)      # every row keeps a visible key
        assert (s["weights"][~s["mask"]] == 0).all()                 # masked weights are exactly 0
    assert W.mask_state("none", scores)["visible"].tolist() == [5] * 5
    assert W.mask_state("causal", scores)["visible"].tolist() == [1, 2, 3, 4, 5]
    assert W.mask_state("padding", scores, length=3)["visible"].tolist() == [3] * 5
    assert W.mask_state("window", scores, window=2)["visible"].tolist() == [1, 2, 2, 2, 2]
    assert W.mask_state("causal_padding", scores, length=3)["visible"].tolist() == [1, 2, 3, 3, 3]
    with pytest.raises(ValueError, match="kind"):
        W.mask_state("diagonal", scores)
    with pytest.raises(ValueError, match="length"):
        W.mask_state("padding", scores, length=9)


def test_mask_widget_switches_masks_and_speaks_chinese():
    i18n.set_language("zh")
    panel = W.mask_widget(5, ["小红", "说", "她", "累", "了"])
    assert not is_error(panel)
    kind = panel.controls["kind"]
    assert (i18n.t("widgets.mask_causal", lang="zh"), "causal") in kind.options
    before = image_bytes(panel.images["weights"])
    kind.value = "none"
    assert image_bytes(panel.images["weights"]) != before
    assert panel.controls["window"].layout.display == "none"
    kind.value = "window"
    panel.controls["window"].value = 1
    np.testing.assert_allclose(panel.state["weights"], np.eye(5))
    assert is_error(W.mask_widget(scores=np.zeros((2, 3))))
    assert is_error(W.mask_widget(0))
