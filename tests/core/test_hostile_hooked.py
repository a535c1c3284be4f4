"""The hooked model as a hostile caller meets it (issue 40): every wrong input gets an error of the right type
that names the argument; every hook and every cached value is safe to edit in place; a per-layer mask of the
wrong number of layers is refused; hooks fire or are refused, with a learner's pieces plugged in too."""
import dataclasses

import numpy as np
import pytest

from attention_core.core import hooked
from attention_core.core import transformer as tr
from attention_core.core.interventions import ablate, head_hook, head_logit_attribution, patch
from attention_core.core.model import ActivationCache, HookedDecoder
from attention_core.core.params import DecoderConfig, init_decoder

CONFIG = DecoderConfig(vocab_size=11, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=12)
L, H, T_MAX = CONFIG.n_layers, CONFIG.n_heads, CONFIG.max_len
IDS = np.array([1, 2, 3, 4, 5])
BATCH = np.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])


def _model(dtype=np.float64, **kwargs):
    w = init_decoder(CONFIG, seed=0, dtype=dtype)
    rng = np.random.default_rng(1)
    w = {k: (v + rng.normal(0, 0.05, v.shape)).astype(dtype) for k, v in w.items()}
    return HookedDecoder(w, CONFIG, **kwargs)


class _Trained:
    """Stands in for a TrainedModel: it holds the hooked model as .hooked."""
    def __init__(self, model):
        self.hooked = model


# --- bad one 2: every hook and every cached value is safe to edit in place ---------------------------------
def _zero_in_place(value, name):
    value *= 0


@pytest.mark.parametrize("name", ["hook_pos_embed", "hook_embed", "blocks.0.hook_resid_pre",
                                  "blocks.1.hook_resid_pre", "blocks.0.attn.hook_q_input", "blocks.0.attn.hook_k"])
def test_an_in_place_edit_in_a_hook_changes_this_run_only(name):
    model = _model()
    before = {k: v.copy() for k, v in model.weights.items()}
    plain = model(IDS)
    edited = model.run_with_hooks(IDS, {name: _zero_in_place})
    assert not np.allclose(edited, plain)                                 # the edit reaches this forward ...
    for k, v in model.weights.items():                                    # ... and never the weights
        np.testing.assert_array_equal(v, before[k], err_msg=f"{name} changed {k}")
    np.testing.assert_array_equal(model(IDS), plain)


def test_an_in_place_edit_reaches_only_its_own_hook_point():
    model = _model()
    _, cache = model.run_with_cache(IDS, hooks={"blocks.0.attn.hook_q_input": _zero_in_place})
    assert not cache["blocks.0.attn.hook_q_input"].any()
    assert cache["blocks.0.attn.hook_k_input"].any() and cache["blocks.0.ln1.hook_normalized"].any()
    np.testing.assert_array_equal(cache["blocks.0.attn.hook_k_input"], cache["blocks.0.ln1.hook_normalized"])
    _, plain = model.run_with_cache(IDS)
    np.testing.assert_array_equal(cache["blocks.0.attn.hook_k"], plain["blocks.0.attn.hook_k"])


def test_a_hook_that_edits_in_place_and_returns_none_acts_like_one_that_returns_the_edit():
    model = _model()

    def zero_head(z, name):
        z[..., 1, :, :] = 0
    np.testing.assert_array_equal(model.run_with_hooks(BATCH, {"blocks.1.attn.hook_z": zero_head}),
                                  ablate(model, BATCH, 1, 1, "zero"))


def test_cached_values_are_copies_each_may_be_centred_in_place():
    model = _model()
    plain = model(IDS)
    _, cache = model.run_with_cache(IDS)
    keep = cache["blocks.0.hook_resid_post"].copy()
    cache["blocks.1.hook_resid_pre"] -= cache["blocks.1.hook_resid_pre"].mean(-1, keepdims=True)   # the TL idiom
    np.testing.assert_array_equal(cache["blocks.0.hook_resid_post"], keep)
    cache["hook_pos_embed"] *= 0
    assert model.weights["pos_emb"][: len(IDS)].any()
    np.testing.assert_array_equal(model(IDS), plain)


def test_the_torch_twin_keeps_its_weights_under_no_grad():
    torch = pytest.importorskip("torch")
    from attention_core.backends.torch_decoder import to_torch_decoder
    twin = to_torch_decoder(_model().weights, CONFIG, dtype="float64")
    ids = torch.tensor(IDS)
    before = {k: v.detach().clone() for k, v in twin.model.weights.items()}
    with torch.no_grad():
        plain = twin.model(ids)
        twin.model.run_with_hooks(ids, {"hook_pos_embed": _zero_in_place, "hook_embed": _zero_in_place})
        _, cache = twin.model.run_with_cache(ids)
        cache["hook_pos_embed"].mul_(0)
        after = twin.model(ids)
    for k, v in twin.model.weights.items():
        assert torch.equal(v, before[k]), k
    assert torch.equal(after, plain)


# --- bad one 3: a per-layer mask with the wrong number of layers is refused ---------------------------------
@pytest.mark.parametrize("shape", [(L + 1, 5, 5), (L - 1, 5, 5), (3, L + 1, 5, 5), (1, 1, L, 5, 5)])
def test_a_mask_of_the_wrong_number_of_layers_is_refused(shape):
    model = _model()
    params = tr.decoder_from_dict(model.weights, CONFIG)
    for call in (lambda m: model.forward(IDS, attn_mask=m), lambda m: tr.decoder_forward(params, IDS, attn_mask=m),
                 lambda m: model(BATCH, attn_mask=m)):
        with pytest.raises(ValueError, match="attn_mask") as info:
            call(np.ones(shape, bool))
        assert "layer" in str(info.value)


def test_a_batch_of_per_layer_masks_is_read_sequence_by_sequence():
    model = _model()
    cut = np.ones((2, L, 5, 5), bool)
    cut[1, :, 4, 0] = False                                              # sequence 1: query 4 may not read key 0
    both = model(BATCH, attn_mask=cut)
    np.testing.assert_allclose(both[0], model(BATCH[0]), atol=1e-12)
    np.testing.assert_allclose(both[1], model(BATCH[1], attn_mask=cut[1]), atol=1e-12)
    with pytest.raises(ValueError, match="attn_mask.*sequences"):
        model(IDS, attn_mask=cut)                                        # one sentence, two masks: not a batch
    with pytest.raises(ValueError, match="attn_mask.*sequences"):
        model(np.tile(IDS, (3, 1)), attn_mask=cut)


# --- bad one 4: a batch of prompts is never joined --------------------------------------------------------
def test_generate_runs_each_prompt_of_a_batch_on_its_own():
    model = _model()
    out = model.generate(BATCH, 4)
    assert out == [model.generate(BATCH[0], 4), model.generate(BATCH[1], 4)]
    assert [len(o) for o in out] == [9, 9]


# --- hooks fire or are refused, also with a learner's pieces plugged in --------------------------------------
def _my_feed_forward(x, w_1, b_1, w_2, b_2):
    return hooked.gelu(x @ w_1 + b_1) @ w_2 + b_2


def _my_block(x, w, n_heads, mask, hook, ops, layer, past=None):
    """A block with hooks only around it (as a learner's transformer_block), declaring what fires."""
    x = hook(f"blocks.{layer}.hook_resid_pre", x)
    out, kv = hooked.block(x, w, n_heads, mask, hooked.NO_HOOKS, ops, layer, past)
    return hook(f"blocks.{layer}.hook_resid_post", out), kv


def _undeclared_block(x, w, n_heads, mask, hook, ops, layer, past=None):
    return hooked.block(x, w, n_heads, mask, hooked.NO_HOOKS, ops, layer, past)


_my_block.hook_points = ("hook_resid_pre", "hook_resid_post")
PLUGGED = {
    "library": {},
    "feed_forward": {"ops": dataclasses.replace(hooked.NUMPY_OPS, feed_forward=_my_feed_forward)},
    "block": {"block_fn": _my_block},
    "undeclared block": {"block_fn": _undeclared_block},
}


@pytest.mark.parametrize("plugged", PLUGGED)
def test_every_hook_point_fires_or_is_refused_saying_why(plugged):
    model = _model(**PLUGGED[plugged])
    plain = model(IDS)
    for name in hooked.hook_names(L):
        calls = []

        def spy(value, name, calls=calls):
            calls.append(name)
            return value * 1.5 + 0.25                                     # changes even softmax's scores
        try:
            out = model.run_with_hooks(IDS, {name: spy})
        except ValueError as e:
            assert name in str(e) and ("does not fire" in str(e) or "did not fire" in str(e)), str(e)
            assert name not in model.hook_names or plugged == "undeclared block"
            continue
        assert calls == [name], name
        assert name in model.hook_names
        assert not np.allclose(out, plain), f"a replacement at {name} changed nothing"
    _, cache = model.run_with_cache(IDS)
    assert set(cache) <= set(model.hook_names)


def test_the_refusal_says_which_piece_skips_the_point():
    model = _model(**PLUGGED["feed_forward"])
    with pytest.raises(ValueError, match=r"mlp\.hook_post.*feed-forward is your own function.*hook_mlp_out"):
        model.run_with_hooks(IDS, {"blocks.0.mlp.hook_post": lambda v, n: None})
    with pytest.raises(ValueError, match=r"names: 'blocks.1.mlp.hook_pre' does not fire"):
        model.run_with_cache(IDS, ["blocks.1.mlp.hook_pre"])
    block = _model(**PLUGGED["block"])
    with pytest.raises(ValueError, match=r"attn\.hook_z.*your own block"):
        block.run_with_hooks(IDS, {"blocks.0.attn.hook_z": lambda v, n: None})
    assert "blocks.0.attn.hook_z" not in block.hook_names and "blocks.0.attn.hook_z" in block.skipped_hooks


def test_the_learner_pieces_of_notebook_13_fire_or_refuse_every_hook():
    torch = pytest.importorskip("torch")
    from attention_core.labs.nb13_build_a_gpt import pieces
    params = pieces.torch_params(tr.decoder_from_dict(_model().weights, CONFIG))
    ids = torch.tensor(IDS)
    for piece in ("feed_forward", "transformer_block"):
        parts = pieces.Parts()
        parts.use(piece, (lambda *a: pieces.feed_forward(*a)) if piece == "feed_forward"
                  else (lambda x, block, mask: pieces.transformer_block(x, block, mask)))
        model = pieces.model_of(params, parts)
        for name in hooked.hook_names(L):
            fired = []
            try:
                model.run_with_hooks(ids, {name: lambda v, n, fired=fired: fired.append(n)})
            except ValueError as e:
                assert name in str(e) and "fire" in str(e) or "cannot be edited" in str(e), str(e)
                continue
            assert fired == [name], (piece, name)
        _, cache = model.run_with_cache(ids)                              # what fires is recorded
        assert set(cache) == {n for n in model.hook_names if not n.endswith("hook_result")}


# --- TransformerLens's contract -----------------------------------------------------------------------------
def test_names_as_one_string_a_filter_and_the_shorthand_keys():
    model = _model()
    _, one = model.run_with_cache(IDS, names="blocks.0.attn.hook_z")
    assert list(one) == ["blocks.0.attn.hook_z"]
    _, some = model.run_with_cache(IDS, names_filter=lambda n: n.endswith("hook_pattern"))
    assert list(some) == [f"blocks.{i}.attn.hook_pattern" for i in range(L)]
    _, every = model.run_with_cache(IDS)
    np.testing.assert_array_equal(every["pattern", 1], every["blocks.1.attn.hook_pattern"])
    np.testing.assert_array_equal(every["resid_pre", 0], every["blocks.0.hook_resid_pre"])
    np.testing.assert_array_equal(every["normalized", 0, "ln2"], every["blocks.0.ln2.hook_normalized"])
    np.testing.assert_array_equal(every["embed"], every["hook_embed"])
    assert every["pattern", 0].shape == (H, len(IDS), len(IDS))          # heads before positions
    import attention_core as ac
    assert ac.HookedDecoder is HookedDecoder and ac.ActivationCache is ActivationCache


# --- the hostile table -------------------------------------------------------------------------------------
def _past(model, ids):
    return model.step(ids)[1]


def _nan_hook(value, name):
    return value * np.nan


HOSTILE = [
    # ids
    ("ids text", lambda m: m("the cat"), TypeError, ["ids", "encode"]),
    ("ids floats", lambda m: m([1.0, 2.0]), TypeError, ["ids", "integer"]),
    ("ids 3-D", lambda m: m(np.zeros((1, 1, 3), int)), TypeError, ["ids", "(B, T)"]),
    ("ids ragged", lambda m: m([[1, 2], [3]]), TypeError, ["ids"]),
    ("ids negative", lambda m: m([-1, 2]), ValueError, ["ids", "0..10"]),
    ("ids too long", lambda m: m(list(range(13))), ValueError, ["ids", "12"]),
    ("ids empty", lambda m: m(np.zeros((2, 0), int)), ValueError, ["ids"]),
    # hooks and their return values
    ("hooks a string", lambda m: m.run_with_hooks(IDS, "blocks.0.attn.hook_z"), TypeError, ["hooks"]),
    ("hook of one argument", lambda m: m.run_with_hooks(IDS, {"hook_embed": lambda v: None}), TypeError,
     ["hooks['hook_embed']", "two arguments"]),
    ("hook returns a list", lambda m: m.run_with_hooks(IDS, {"hook_embed": lambda v, n: v.tolist()}), TypeError,
     ["hook on hook_embed", "NumPy array", "list"]),
    ("hook returns a number", lambda m: m.run_with_hooks(IDS, {"hook_embed": lambda v, n: 0.0}), TypeError,
     ["hook on hook_embed", "float"]),
    ("hook returns complex", lambda m: m.run_with_hooks(IDS, {"hook_embed": lambda v, n: v + 0j}), TypeError,
     ["hook on hook_embed", "complex"]),
    ("hook returns int64", lambda m: m.run_with_hooks(IDS, {"blocks.0.attn.hook_z": lambda v, n: v.astype(np.int64)}),
     TypeError, ["hook on blocks.0.attn.hook_z", "int64"]),
    ("hook returns bools", lambda m: m.run_with_hooks(IDS, {"hook_logits": lambda v, n: v > 0}), TypeError,
     ["hook on hook_logits", "bool"]),
    ("hook returns a smaller array", lambda m: m.run_with_hooks(IDS, {"hook_embed": lambda v, n: v[:2]}),
     ValueError, ["hook on hook_embed", "keep shape"]),
    ("hook returns a scalar array", lambda m: m.run_with_hooks(IDS, {"hook_embed": lambda v, n: np.float64(1)}),
     TypeError, ["hook on hook_embed"]),
    ("hook makes NaN", lambda m: m.run_with_hooks(IDS, {"blocks.1.hook_resid_mid": _nan_hook}), FloatingPointError,
     ["hooks['blocks.1.hook_resid_mid']", "NaN or inf"]),
    ("unknown hook name", lambda m: m.run_with_hooks(IDS, {"blocks.0.attn.hook_zz": lambda v, n: None}), ValueError,
     ["hooks", "blocks.0.attn.hook_z"]),
    ("layer out of range", lambda m: m.run_with_hooks(IDS, {"blocks.2.attn.hook_z": lambda v, n: None}), ValueError,
     ["hooks", "not a hook point"]),
    # run_with_cache's names
    ("names a number", lambda m: m.run_with_cache(IDS, 3), TypeError, ["names"]),
    ("names with a number", lambda m: m.run_with_cache(IDS, ["hook_embed", 3]), TypeError, ["names"]),
    ("names and names_filter", lambda m: m.run_with_cache(IDS, ["hook_embed"], names_filter=lambda n: True),
     TypeError, ["names_filter"]),
    ("names_filter not a bool", lambda m: m.run_with_cache(IDS, names_filter=lambda n: "yes"), TypeError,
     ["names_filter", "True or False"]),
    ("names_filter a number", lambda m: m.run_with_cache(IDS, names_filter=3), TypeError, ["names_filter"]),
    ("unrecorded hook_result", lambda m: m.run_with_cache(IDS)[1]["blocks.0.attn.hook_result"], KeyError,
     ["hook_result", "only when named"]),
    ("shorthand of no point", lambda m: m.run_with_cache(IDS)[1]["patern", 0], KeyError, ["short names"]),
    ("shorthand ambiguous", lambda m: m.run_with_cache(IDS)[1]["normalized", 0], KeyError, ["ln1", "ln2"]),
    # masks
    ("attn_mask of ints", lambda m: m(IDS, attn_mask=np.ones((5, 5), int)), TypeError, ["attn_mask", "boolean"]),
    ("attn_mask 5-D", lambda m: m(IDS, attn_mask=np.ones((1, 1, L, 5, 5), bool)), ValueError, ["attn_mask"]),
    ("attn_mask too small", lambda m: m(IDS, attn_mask=np.ones((4, 4), bool)), ValueError, ["attn_mask", "(5, 5)"]),
    ("attn_mask a batch of 3-D", lambda m: m(BATCH, attn_mask=np.ones((2, 5, 5), bool)) if L != 2 else
     m(BATCH, attn_mask=np.ones((3, 5, 5), bool)), ValueError, ["attn_mask", "layers"]),
    ("head_mask wrong shape", lambda m: m.forward(IDS, head_mask=np.ones((H, L + 1))), ValueError, ["head_mask"]),
    ("return_hidden a string", lambda m: m.forward(IDS, return_hidden="yes"), TypeError, ["return_hidden"]),
    # the KV cache
    ("past a string", lambda m: m.step([1], past="cache"), TypeError, ["past"]),
    ("past of one layer", lambda m: m.step([1], past=_past(m, IDS)[:1]), TypeError, ["past"]),
    ("past of another batch", lambda m: m.step([[1], [2], [3]], past=_past(m, BATCH)), ValueError,
     ["past", "batch"]),
    ("past of one sequence for a batch", lambda m: m.step([[1], [2]], past=_past(m, IDS)), ValueError,
     ["past", "batch"]),
    ("past pairs not pairs", lambda m: m.step([1], past=[(1, 2, 3)] * L), TypeError, ["past[0]"]),
    ("past of lists", lambda m: m.step([1], past=[([0.0], [0.0])] * L), TypeError, ["past[0]", "NumPy"]),
    ("past of another model", lambda m: m.step([1], past=[(np.zeros((4, 3, 2)), np.zeros((4, 3, 2)))] * L),
     ValueError, ["past", "(..., 2, T_past, 4)"]),
    ("past with NaN", lambda m: m.step([1], past=[(k * np.nan, v) for k, v in _past(m, IDS)]), ValueError,
     ["past[0]", "NaN"]),
    ("past too long", lambda m: m.step(list(range(5)), past=_past(m, np.arange(10))), ValueError,
     ["10 cached tokens", "5 new", "12"]),
    # generate
    ("generate past the context", lambda m: m.generate(IDS, 8), ValueError, ["n_new", "12"]),
    ("generate n_new a float", lambda m: m.generate(IDS, 2.5), TypeError, ["n_new"]),
    ("generate negative seed", lambda m: m.generate(IDS, 2, temperature=1.0, seed=-1), ValueError, ["rng"]),
    # ablate
    ("ablate a trained model", lambda m: ablate(_Trained(m), IDS, 0, 0), TypeError, ["model", ".hooked"]),
    ("ablate a dict", lambda m: ablate({}, IDS, 0, 0), TypeError, ["model", "HookedDecoder"]),
    ("ablate head a float", lambda m: ablate(m, IDS, 0, 1.0), ValueError, ["head", "0..1"]),
    ("ablate head True", lambda m: ablate(m, IDS, 0, True), ValueError, ["head"]),
    ("ablate layer -1", lambda m: ablate(m, IDS, -1, 0), ValueError, ["layer", "0..1"]),
    ("ablate how None", lambda m: ablate(m, IDS, 0, 0, None), ValueError, ["how", "zero"]),
    ("ablate how a list", lambda m: ablate(m, IDS, 0, 0, ["mean"]), ValueError, ["how"]),
    ("ablate zero with a reference", lambda m: ablate(m, IDS, 0, 0, "zero", reference=BATCH), ValueError,
     ["reference"]),
    ("resample reference of another length", lambda m: ablate(m, BATCH, 0, 0, "resample", reference=BATCH[:, :3]),
     ValueError, ["reference", "(2, 5)"]),
    ("resample reference of another batch", lambda m: ablate(m, BATCH, 0, 0, "resample",
                                                             reference=np.tile(IDS, (3, 1))), ValueError,
     ["reference"]),
    ("mean reference of floats", lambda m: ablate(m, BATCH, 0, 0, "mean", reference=BATCH * 1.0), TypeError,
     ["reference", "integer"]),
    ("ablate seed a float", lambda m: ablate(m, BATCH, 0, 0, "resample", seed=1.5), TypeError, ["seed"]),
    # patch
    ("patch clean_cache None", lambda m: patch(m, IDS, None, "blocks.0.attn.hook_z"), TypeError, ["clean_cache"]),
    ("patch a trained model", lambda m: patch(_Trained(m), IDS, {}, "hook_embed"), TypeError, [".hooked"]),
    ("patch name a number", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], 3), TypeError, ["name"]),
    ("patch name not recorded", lambda m: patch(m, IDS, m.run_with_cache(IDS, "hook_embed")[1],
                                                "blocks.0.attn.hook_z"), ValueError, ["clean_cache", "recorded"]),
    ("patch head on a head-less point", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], "blocks.0.hook_resid_pre",
                                                        head=0), ValueError, ["head", "no head axis"]),
    ("patch head out of range", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z", head=2),
     ValueError, ["head", "0..1"]),
    ("patch positions beyond T", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z",
                                                 positions=[7]), ValueError, ["positions", "0..4"]),
    ("patch positions floats", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z",
                                               positions=[1.5]), ValueError, ["positions"]),
    ("patch positions bools", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z",
                                              positions=[True]), ValueError, ["positions"]),
    ("patch positions 2-D", lambda m: patch(m, IDS, m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z",
                                            positions=[[1]]), ValueError, ["positions"]),
    ("patch between lengths", lambda m: patch(m, IDS[:3], m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z"),
     ValueError, ["corrupted_ids", "same length"]),
    ("patch between batches", lambda m: patch(m, BATCH, m.run_with_cache(IDS)[1], "blocks.0.attn.hook_z"),
     ValueError, ["corrupted_ids", "batch"]),
    ("patch with a clean cache of strings", lambda m: patch(m, IDS, {"hook_embed": "x"}, "hook_embed"), TypeError,
     ["clean_cache['hook_embed']"]),
    # attribution and head_hook
    ("attribution target floats", lambda m: head_logit_attribution(m, IDS, IDS * 1.0), ValueError, ["target"]),
    ("attribution target shape", lambda m: head_logit_attribution(m, IDS, IDS[:3]), ValueError, ["target"]),
    ("attribution target beyond V", lambda m: head_logit_attribution(m, IDS, IDS + 10), ValueError,
     ["target", "0..10"]),
    ("attribution relative a string", lambda m: head_logit_attribution(m, IDS, IDS, relative="yes"), TypeError,
     ["relative"]),
    ("attribution of a trained model", lambda m: head_logit_attribution(_Trained(m), IDS, IDS), TypeError,
     [".hooked"]),
    ("head_hook values of the wrong shape", lambda m: m.run_with_hooks(IDS, {"blocks.0.attn.hook_z": head_hook(
        0, np.zeros((3, 3)))}), ValueError, ["values", "(5, 4)"]),
    ("head_hook head beyond H", lambda m: m.run_with_hooks(IDS, {"blocks.0.attn.hook_z": head_hook(5)}),
     ValueError, ["head", "0..1"]),
    ("head_hook head negative", lambda m: head_hook(-1), ValueError, ["head"]),
    # the model itself
    ("blocks of dicts", lambda m: tr.DecoderParams(m.weights["tok_emb"], m.weights["pos_emb"], [{"w_q": 1}],
                                                   m.weights["lnf_g"], m.weights["lnf_b"], m.weights["w_out"],
                                                   m.weights["b_out"]), TypeError, ["blocks[0]", "BlockParams"]),
    ("config of another width", lambda m: HookedDecoder(m.weights, DecoderConfig(**{**CONFIG.to_dict(), "d_model": 4})),
     ValueError, ["tok_emb"]),
    ("causal a string", lambda m: HookedDecoder(m.weights, CONFIG, causal="no"), TypeError, ["causal"]),
    ("ops a dict", lambda m: HookedDecoder(m.weights, CONFIG, ops={}), TypeError, ["ops"]),
    ("block_fn not callable", lambda m: HookedDecoder(m.weights, CONFIG, block_fn=3), TypeError, ["block_fn"]),
]


@pytest.mark.parametrize("case, call, error, words", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_input_gets_an_error_that_names_the_argument(case, call, error, words):
    with pytest.raises(error) as info:
        call(_model())
    for word in words:
        assert word in str(info.value), f"{case}: {word!r} not in {info.value}"


def test_a_hook_returning_another_float_precision_keeps_the_model_dtype():
    model = _model(np.float32)
    out = model.run_with_hooks(IDS, {"blocks.0.attn.hook_z": lambda v, n: v.astype(np.float64)})
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, model(IDS))


def test_a_hook_returning_a_tensor_to_the_numpy_model_is_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="hook on hook_embed.*NumPy array.*Tensor"):
        _model().run_with_hooks(IDS, {"hook_embed": lambda v, n: torch.as_tensor(v)})


def test_an_overflow_names_the_first_point_that_is_not_finite_not_the_masked_scores():
    w = init_decoder(CONFIG, seed=0, dtype=np.float32)
    w["l1_w_1"] = np.full_like(w["l1_w_1"], 3e38)                          # layer 1's feed-forward overflows
    model = HookedDecoder(w, CONFIG)
    with pytest.raises(FloatingPointError, match=r"overflowed float32 at blocks\.1\.mlp\.hook_pre"):
        model(IDS)


def test_an_interrupted_training_run_is_named_in_the_weights():
    torch = pytest.importorskip("torch")
    from attention_core.backends.torch_decoder import to_torch_decoder
    twin = to_torch_decoder(_model().weights, CONFIG, dtype="float64")
    with torch.no_grad():
        twin.model.weights["l0_w_q"][0, 0] = float("nan")                  # what a too-high learning rate leaves
    with pytest.raises(FloatingPointError, match="l0_w_q.*learning rate"):
        twin.model(torch.tensor(IDS))


def test_an_overflow_made_by_head_mask_is_named_as_head_mask():
    w = init_decoder(CONFIG, seed=0, dtype=np.float32)
    w["l0_w_v"] = np.random.default_rng(0).normal(0, 10, w["l0_w_v"].shape).astype(np.float32)   # outputs ~10
    model = HookedDecoder(w, CONFIG)
    with pytest.raises(FloatingPointError, match=r"head_mask: applied at blocks\.0\.attn\.hook_z, it overflowed"):
        model.forward(IDS, head_mask=np.full((L, H), 3e38))


def test_weights_of_the_other_library_than_the_ops_are_refused():
    torch = pytest.importorskip("torch")
    from attention_core.backends import load_torch_ops
    w = _model().weights
    with pytest.raises(TypeError, match=r"params: these ops compute with torch tensors.*ndarray"):
        HookedDecoder(w, CONFIG, ops=load_torch_ops().ops_for(None))
    plugged = dataclasses.replace(hooked.NUMPY_OPS, feed_forward=_my_feed_forward)
    with pytest.raises(TypeError, match="params: these ops compute with NumPy arrays"):
        HookedDecoder({k: torch.as_tensor(v) for k, v in w.items()}, CONFIG, ops=plugged)


def test_the_interventions_give_numpys_numbers_on_the_torch_twin():
    torch = pytest.importorskip("torch")
    from attention_core.backends.torch_decoder import to_torch_decoder
    model = _model()
    twin = to_torch_decoder(model.weights, CONFIG, dtype="float64").model
    clean, bad = BATCH, BATCH[:, ::-1].copy()
    _, cache = model.run_with_cache(clean)
    _, t_cache = twin.run_with_cache(torch.tensor(clean))
    want = patch(model, bad, cache, "blocks.1.attn.hook_z", head=1, positions=[2, -1])
    for c in (cache, t_cache):                                           # a NumPy or a torch clean cache
        got = patch(twin, torch.tensor(bad), c, "blocks.1.attn.hook_z", head=1, positions=[2, -1])
        np.testing.assert_allclose(got.detach().numpy(), want, atol=1e-10)
    np.testing.assert_allclose(head_logit_attribution(twin, torch.tensor(clean), clean, relative=True),
                               head_logit_attribution(model, clean, clean, relative=True), atol=1e-10)
    np.testing.assert_allclose(ablate(twin, torch.tensor(bad), 0, 1, "mean", reference=clean).detach().numpy(),
                               ablate(model, bad, 0, 1, "mean", reference=clean), atol=1e-10)
