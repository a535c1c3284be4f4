"""The one forward with hook points (core.hooked, core.model.HookedDecoder): every hook fires once with its
documented shape, hooks read and replace, the interventions of notebook 12 equal the same computed by hand,
the KV cache equals the full forward, and NumPy and torch run the same model."""
import numpy as np
import pytest

from attention_core.core import hooked
from attention_core.core import transformer as tr
from attention_core.core.interventions import ablate, head_logit_attribution, patch
from attention_core.core.model import HookedDecoder

V, D, H, L, F, T_MAX = 11, 8, 2, 2, 16, 12


def _model(seed=0, d_ff=F, causal=True):
    w = tr.init_decoder(V, D, H, L, d_ff, T_MAX, seed=seed, dtype=np.float64)
    rng = np.random.default_rng(seed + 1)
    w = {k: v + rng.normal(0, 0.05, v.shape) for k, v in w.items()}        # LN gains and biases not trivial
    return HookedDecoder(tr.decoder_from_dict(w, H), causal=causal)


def _shapes(b, t, tk=None):
    """hook name suffix -> expected shape for a batch prefix b (a tuple) and t tokens."""
    tk = t if tk is None else tk
    dh = D // H
    return {"hook_embed": b + (t, D), "hook_pos_embed": (t, D), "hook_resid_pre": b + (t, D),
            "ln1.hook_normalized": b + (t, D), "attn.hook_q_input": b + (t, D), "attn.hook_k_input": b + (t, D),
            "attn.hook_v_input": b + (t, D), "attn.hook_q": b + (H, t, dh), "attn.hook_k": b + (H, tk, dh),
            "attn.hook_v": b + (H, tk, dh), "attn.hook_attn_scores": b + (H, t, tk),
            "attn.hook_pattern": b + (H, t, tk), "attn.hook_z": b + (H, t, dh), "attn.hook_result": b + (H, t, D),
            "hook_attn_out": b + (t, D), "hook_resid_mid": b + (t, D), "ln2.hook_normalized": b + (t, D),
            "mlp.hook_pre": b + (t, F), "mlp.hook_post": b + (t, F), "hook_mlp_out": b + (t, D),
            "hook_resid_post": b + (t, D), "ln_final.hook_normalized": b + (t, D), "hook_logits": b + (t, V)}


@pytest.mark.parametrize("ids", [[1, 2, 3, 4, 5], [[1, 2, 3], [4, 5, 6]]], ids=["one sequence", "a batch"])
def test_every_hook_fires_once_per_forward_with_its_documented_shape(ids):
    model = _model()
    arr = np.asarray(ids)
    b, t = arr.shape[:-1], arr.shape[-1]
    seen = []
    hooks = {name: (lambda value, name: seen.append((name, tuple(value.shape)))) for name in model.hook_names}
    model.run_with_hooks(ids, hooks)
    assert [n for n, _ in seen] == list(model.hook_names)                  # each once, in the documented order
    expected = _shapes(b, t)
    for name, shape in seen:
        assert shape == expected[name.split(".", 2)[-1] if name.startswith("blocks.") else name], name
    assert len(model.hook_names) == 4 + L * len(hooked.BLOCK_HOOKS)


def test_the_cache_holds_what_decoder_forward_returns_and_hook_result_only_when_asked():
    model = _model()
    ids = [3, 1, 4, 1, 5, 9]
    logits, cache = model.run_with_cache(ids)
    ref_logits, weights, hidden = tr.decoder_forward(tr.decoder_from_dict(model.weights, H), ids, return_hidden=True)
    np.testing.assert_array_equal(logits, ref_logits)
    np.testing.assert_array_equal(cache["hook_logits"], logits)
    for layer in range(L):
        np.testing.assert_array_equal(cache[f"blocks.{layer}.attn.hook_pattern"], weights[layer])
        np.testing.assert_array_equal(cache[f"blocks.{layer}.hook_resid_post"], hidden[layer + 1])
    assert "blocks.0.attn.hook_result" not in cache                         # (H, T, D) per layer: only on request
    _, with_result = model.run_with_cache(ids, ["blocks.0.attn.hook_result"])
    result = with_result["blocks.0.attn.hook_result"]
    np.testing.assert_allclose(result.sum(0) + model.weights["l0_b_o"], cache["blocks.0.hook_attn_out"], atol=1e-12)
    with pytest.raises(KeyError, match="did you mean"):
        cache["blocks.0.attn.hook_patern"]


def test_hooks_that_read_or_return_the_same_value_change_nothing():
    model = _model()
    ids = [[2, 7, 1, 8], [2, 8, 1, 8]]
    plain = model(ids)
    # hooking hook_result sums the heads' writes one by one: the same numbers up to rounding
    np.testing.assert_allclose(model.run_with_hooks(ids, {n: lambda v, n: None for n in model.hook_names}), plain,
                               atol=1e-13)
    np.testing.assert_allclose(model.run_with_hooks(ids, [(n, lambda v, n: v) for n in model.hook_names]), plain,
                               atol=1e-13)
    not_result = [n for n in model.hook_names if not n.endswith("hook_result")]
    np.testing.assert_array_equal(model.run_with_hooks(ids, {n: lambda v, n: v for n in not_result}), plain)


def _by_hand(model, ids, layer, head, z_value):
    """The forward written out in NumPy without hooks, with head (layer, head)'s z set to z_value."""
    w = model.weights
    ids = np.asarray(ids)
    t = ids.shape[-1]

    def ln(x, g, b):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * w[g] + w[b]

    x = w["tok_emb"][ids] + w["pos_emb"][:t]
    for i in range(L):
        p = f"l{i}_"
        h = ln(x, p + "ln1_g", p + "ln1_b")
        dh = D // H
        heads = []
        for j in range(H):
            cols = slice(j * dh, (j + 1) * dh)
            q = h @ w[p + "w_q"][:, cols] + w[p + "b_q"][cols]
            k = h @ w[p + "w_k"][:, cols] + w[p + "b_k"][cols]
            v = h @ w[p + "w_v"][:, cols] + w[p + "b_v"][cols]
            s = q @ k.swapaxes(-1, -2) / np.sqrt(dh) + np.where(np.tril(np.ones((t, t))) > 0, 0, -np.inf)
            a = np.exp(s - s.max(-1, keepdims=True))
            z = (a / a.sum(-1, keepdims=True)) @ v
            heads.append(np.broadcast_to(z_value, z.shape) if (i, j) == (layer, head) else z)
        x = x + np.concatenate(heads, -1) @ w[p + "w_o"] + w[p + "b_o"]
        g = ln(x, p + "ln2_g", p + "ln2_b") @ w[p + "w_1"] + w[p + "b_1"]
        x = x + 0.5 * g * (1 + np.tanh(np.sqrt(2 / np.pi) * (g + 0.044715 * g ** 3))) @ w[p + "w_2"] + w[p + "b_2"]
    return ln(x, "lnf_g", "lnf_b") @ w["w_out"] + w["b_out"]


def test_mean_and_zero_ablation_through_hooks_equal_the_same_computed_by_hand():
    model = _model()
    rng = np.random.default_rng(0)
    ids = rng.integers(0, V, (4, 7))
    reference = rng.integers(0, V, (16, 7))
    _, cache = model.run_with_cache(reference, ["blocks.1.attn.hook_z"])
    mean_z = cache["blocks.1.attn.hook_z"][:, 0].reshape(-1, D // H).mean(0)        # head L1H0, every position
    np.testing.assert_allclose(ablate(model, ids, 1, 0, "mean", reference=reference),
                               _by_hand(model, ids, 1, 0, mean_z), atol=1e-10)
    np.testing.assert_allclose(ablate(model, ids, 0, 1, "zero"), _by_hand(model, ids, 0, 1, 0.0), atol=1e-10)
    np.testing.assert_allclose(model(ids), _by_hand(model, ids, None, None, 0.0), atol=1e-10)
    head_mask = np.ones((L, H))
    head_mask[0, 1] = 0
    np.testing.assert_allclose(ablate(model, ids, 0, 1, "zero"),
                               tr.decoder_forward(tr.decoder_from_dict(model.weights, H), ids, head_mask=head_mask)[0])


def test_resample_ablation_from_the_same_sequences_changes_nothing_and_from_others_does():
    model = _model()
    ids = np.random.default_rng(1).integers(0, V, (6, 9))
    np.testing.assert_allclose(ablate(model, ids, 1, 1, "resample", reference=ids), model(ids), atol=1e-12)
    shuffled = ablate(model, ids, 1, 1, "resample", seed=3)
    assert not np.allclose(shuffled, model(ids))
    with pytest.raises(ValueError, match="needs a batch"):
        ablate(model, ids[0], 1, 1, "resample")
    for bad, words in (((5, 0), "layer"), ((0, -1), "head"), ((0, 0, "half"), "how")):
        with pytest.raises(ValueError, match=words):
            ablate(model, ids, *bad)


def test_patching_the_last_residual_stream_gives_the_clean_logits_and_patching_nothing_the_corrupted_ones():
    model = _model()
    clean, corrupted = np.array([1, 2, 3, 4, 5, 6]), np.array([1, 2, 3, 9, 5, 6])
    clean_logits, cache = model.run_with_cache(clean)
    np.testing.assert_allclose(patch(model, corrupted, cache, f"blocks.{L - 1}.hook_resid_post"), clean_logits,
                               atol=1e-12)
    only_after = patch(model, corrupted, cache, "blocks.0.hook_resid_pre", positions=[0, 1, 2])
    np.testing.assert_allclose(only_after, model(corrupted), atol=1e-12)     # positions 0-2 are the same tokens
    one_head = patch(model, corrupted, cache, "blocks.1.attn.hook_z", head=0)
    assert not np.allclose(one_head, model(corrupted)) and not np.allclose(one_head, clean_logits)
    with pytest.raises(ValueError, match="same length"):
        patch(model, corrupted[:4], cache, "blocks.1.attn.hook_z", head=0)


def test_direct_logit_attribution_adds_up_to_the_logit():
    """Each component's write, read through LN_f's scale, plus LN_f's bias and b_out, is the logit itself."""
    model = _model()
    ids = np.array([4, 2, 7, 1, 8, 3])
    target = np.array([2, 7, 1, 8, 3, 4])
    logits, cache = model.run_with_cache(ids)
    dla = head_logit_attribution(model, ids, target)                         # (L, H, T)
    w = model.weights
    final = cache[f"blocks.{L - 1}.hook_resid_post"]
    scale = np.sqrt(final.var(-1, keepdims=True) + 1e-5)
    direction = (w["w_out"][:, target] * w["lnf_g"][:, None]).T              # (T, D)
    others = [cache["blocks.0.hook_resid_pre"]]
    others += [np.broadcast_to(w[f"l{i}_b_o"], final.shape) for i in range(L)]
    others += [cache[f"blocks.{i}.hook_mlp_out"] for i in range(L)]
    rest = sum((((c - c.mean(-1, keepdims=True)) / scale) * direction).sum(-1) for c in others)
    bias = w["lnf_b"] @ w["w_out"][:, target] + w["b_out"][target]
    np.testing.assert_allclose(dla.sum((0, 1)) + rest + bias, logits[np.arange(6), target], atol=1e-9)


def test_the_kv_cache_gives_the_full_forward_one_token_at_a_time():
    model = _model()
    ids = [5, 3, 8, 1, 2, 9, 4]
    full = model(ids)
    logits, past = model.step(ids[:3])
    rows = [logits]
    for token in ids[3:]:
        logits, past = model.step([token], past)
        rows.append(logits)
    np.testing.assert_allclose(np.concatenate(rows), full, atol=1e-12)
    assert past[0][0].shape == (H, len(ids), D // H)
    with pytest.raises(ValueError, match="tokens"):
        model.step(list(range(6)), past)                                     # 7 + 6 > T_MAX
    assert model.generate(ids[:2], 5)[:2] == ids[:2] and len(model.generate(ids[:2], 5)) == 7


def test_an_encoder_reads_every_token():
    model = _model(causal=False)
    _, cache = model.run_with_cache([1, 2, 3, 4], ["blocks.0.attn.hook_pattern"])
    assert (cache["blocks.0.attn.hook_pattern"][:, 0, 1:] > 0).all()         # the first token reads later ones


@pytest.mark.parametrize("call, error, words", [
    (lambda m: m.run_with_hooks([1, 2], {"blocks.0.attn.hook_patern": lambda v, n: None}), ValueError,
     ["not a hook point", "hook_pattern"]),
    (lambda m: m.run_with_hooks([1, 2], {"blocks.0.attn.hook_z": 3}), TypeError, ["function"]),
    (lambda m: m.run_with_hooks([1, 2], {"blocks.0.attn.hook_z": lambda v, n: v[..., :1]}), ValueError,
     ["keep shape"]),
    (lambda m: m.run_with_hooks([1, 2], ["blocks.0.attn.hook_z"]), TypeError, ["(name, function) pairs"]),
    (lambda m: m.run_with_cache([1, 2], ["logits"]), ValueError, ["names", "not a hook point"]),
    (lambda m: m([1.5, 2]), TypeError, ["ids", "integer"]),
    (lambda m: m([]), ValueError, ["ids"]),
    (lambda m: m.step([1], past="cache"), TypeError, ["past"]),
    (lambda m: HookedDecoder(m.weights), TypeError, ["n_heads"]),
    (lambda m: HookedDecoder([1, 2], 2), TypeError, ["params"]),
])
def test_bad_input_at_the_entry_points_gets_a_clear_error(call, error, words):
    with pytest.raises(error) as info:
        call(_model())
    for word in words:
        assert word in str(info.value)


def test_an_overflow_inside_the_forward_names_the_hook_point_and_the_dtype():
    w = tr.init_decoder(V, D, H, 1, F, T_MAX, seed=0, dtype=np.float32)
    w["l0_w_q"] = np.full((D, D), 3e38, np.float32)                          # finite weights, x @ W_q overflows
    model = HookedDecoder(w, H)
    with pytest.raises(FloatingPointError, match=r"overflowed float32 at blocks\.0\.attn\.hook_q"):
        model([1, 2, 3])


def test_numpy_and_torch_run_the_same_model_through_every_hook():
    torch = pytest.importorskip("torch")
    from attention_core.backends.torch_decoder import to_torch_decoder
    model = _model()
    twin = to_torch_decoder(model.weights, H, dtype="float64")
    ids = [[1, 5, 2, 6], [3, 3, 7, 0]]
    logits, cache = model.run_with_cache(ids)
    t_logits, t_cache = twin.model.run_with_cache(torch.tensor(ids))
    np.testing.assert_allclose(t_logits.detach().numpy(), logits, atol=1e-10)
    assert set(cache) == set(t_cache)
    for name in cache:
        np.testing.assert_allclose(t_cache[name].detach().numpy(), cache[name], atol=1e-10, err_msg=name)
    zeroed = ablate(twin.model, torch.tensor(ids), 1, 0, "zero")
    np.testing.assert_allclose(zeroed.detach().numpy(), ablate(model, ids, 1, 0, "zero"), atol=1e-10)


def test_the_model_api_findings_get_errors_that_name_the_argument(tmp_path):
    """Issue 33's findings about the model API: each says which argument and what was expected."""
    import json

    from attention_core.labs.nb12_trained_transformer import model as nb12_model
    w = tr.init_decoder(5, 4, 2, 1, 4, 4, seed=0, dtype=np.float64)
    cases = [
        (lambda: tr.decoder_forward(tr.DecoderParams(w["tok_emb"], w["pos_emb"], (), w["lnf_g"], w["lnf_b"],
                                                     w["w_out"], w["b_out"]), [0]), ValueError, "params.blocks"),
        (lambda: tr.init_decoder(5, 4, 2, 1, 4, 10 ** 12), ValueError, "GiB"),
        (lambda: tr.parameter_shapes(-1, 4, 1, 4, 4), ValueError, "vocab_size"),
        (lambda: tr.decoder_from_dict({**w, "tok_emb": np.zeros(5)}, 2), ValueError, "tok_emb: expected a 2-D"),
        (lambda: tr.decoder_from_dict({**w, "tok_emb": np.float64(1.0)}, 2), ValueError, "tok_emb"),
        (lambda: tr.embed([0], np.zeros((0, 2)), np.zeros((3, 2))), ValueError, "tok_emb: expected a table"),
        (lambda: tr.decoder_forward(tr.decoder_from_dict(w, 2), np.zeros((0, 3), int)), ValueError, "ids"),
        (lambda: tr.decoder_forward(tr.decoder_from_dict(w, 2), [0, 1], attn_mask=np.ones((3, 3), bool)),
         ValueError, "attn_mask"),
        (lambda: tr.transformer_block(np.ones((3, 5)), tr.decoder_from_dict(w, 2).blocks[0]), ValueError,
         "x: expected last dimension d_model=4"),
        (lambda: nb12_model.from_files(None, None), TypeError, "npz_path"),
        (lambda: nb12_model.load_trained(np.array(["coreference"])), ValueError, "name: expected one of"),
    ]
    for call, error, words in cases:
        with pytest.raises(error) as info:
            call()
        assert words in str(info.value), str(info.value)
    npz, js = tmp_path / "m.npz", tmp_path / "m.json"
    np.savez(npz, **{**w, "l0_w_1": np.zeros(4)})                           # a 1-D weight where a matrix belongs
    manifest = {"name": "m", "config": dict(vocab_size=5, d_model=4, n_heads=2, n_layers=1, d_ff=4, max_len=4),
                "vocab": list("abcde")}
    js.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(nb12_model.ModelFileError, match="l0_w_1"):
        nb12_model.from_files(npz, js)
    js.write_text(json.dumps({**manifest, "vocab": list("abcda")}), encoding="utf-8")
    with pytest.raises(nb12_model.ModelFileError, match="more than once"):
        nb12_model.from_files(npz, js)
