"""The oracle nobody here wrote: Hugging Face's GPT-2 forward against the library's decoder.

Random-init GPT2LMHeadModel configurations are built locally (several layers, heads, widths, context
sizes and lengths; layer norms and biases randomised, weights large enough that heads attend
sharply), saved with save_pretrained to a temporary folder and loaded back through `load_gpt2`. The
library's NumPy `decoder_forward` and the torch twin (`to_torch_decoder`) must give HF's logits and
every attention map: 1e-10 in float64, 1e-4 in float32. The by-name route is exercised against a
locally built Hugging Face cache (the same code path as load_gpt2("gpt2"), without the download);
nothing here touches the network.
"""
import numpy as np
import pytest

import attention_core as ac
from attention_core import backends
from attention_core.backends import gpt2
from attention_core.core import transformer as tr

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TOL = {np.float64: 1e-10, np.float32: 1e-4}
TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}

# n_layer, n_head, n_embd, n_positions, vocab, n_inner, T, batch, tied
CONFIGS = {
    "L1-H1-D8": (1, 1, 8, 8, 13, None, 8, 1, True),
    "L2-H4-D16": (2, 4, 16, 12, 29, None, 7, 3, True),
    "L3-H2-D24-F40": (3, 2, 24, 16, 31, 40, 16, 2, True),
    "L2-H3-D12-T1": (2, 3, 12, 10, 17, None, 1, 2, True),
    "L4-H8-D32-untied": (4, 8, 32, 20, 50, None, 20, 2, False),
}


def random_gpt2(n_layer, n_head, n_embd, n_positions, vocab, n_inner, tied, dtype, seed=0):
    """A GPT2LMHeadModel with every parameter random: embeddings N(0, 1), projections N(0, 1.5^2 / D),
    LN gains 1 + N(0, 0.3^2), biases N(0, 0.3^2). HF's own init (std 0.02, LN 1, biases 0) would leave
    the heads near uniform and hide a dropped bias or gain."""
    config = transformers.GPT2Config(vocab_size=vocab, n_positions=n_positions, n_embd=n_embd, n_layer=n_layer,
                                     n_head=n_head, n_inner=n_inner, tie_word_embeddings=tied,
                                     bos_token_id=0, eos_token_id=0, attn_implementation="eager")
    torch.manual_seed(seed)
    model = transformers.GPT2LMHeadModel(config).to(TORCH_DTYPE[dtype]).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".bias"):
                p.copy_(0.3 * torch.randn_like(p))
            elif ".ln_" in name:
                p.copy_(1 + 0.3 * torch.randn_like(p))
            elif name.endswith(("wte.weight", "wpe.weight")):
                p.copy_(torch.randn_like(p))
            else:                                            # projections: q.k / sqrt(Dh) of a few units
                p.copy_(1.5 / n_embd ** 0.5 * torch.randn_like(p))
    return model


def hf_forward(model, ids):
    with torch.no_grad():
        out = model(torch.as_tensor(ids), output_attentions=True)
    return out.logits.numpy(), torch.stack(out.attentions, dim=1).numpy()      # (B, T, V), (B, L, H, T, T)


def max_differences(params, model, ids):
    """{path: (max |logits diff|, max |attention diff|)} of the NumPy forward and the torch twin vs HF."""
    logits, maps = hf_forward(model, ids)
    ln, wn = tr.decoder_forward(params, ids)
    with torch.no_grad():
        lt, wt = backends.to_torch_decoder(params)(torch.as_tensor(ids))
    assert ln.shape == logits.shape and wn.shape == maps.shape == tuple(wt.shape)
    return {"numpy": (np.abs(ln - logits).max(), np.abs(wn - maps).max()),
            "torch twin": (np.abs(lt.numpy() - logits).max(), np.abs(wt.numpy() - maps).max())}


@pytest.mark.slow          # imports transformers and builds, saves and reloads HF models: ~10 s of the quick loop
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_hf_gpt2_saved_and_loaded_equals_the_library_forward(name, dtype, tmp_path):
    n_layer, n_head, n_embd, n_positions, vocab, n_inner, t, batch, tied = CONFIGS[name]
    model = random_gpt2(n_layer, n_head, n_embd, n_positions, vocab, n_inner, tied, dtype)
    model.save_pretrained(tmp_path / "model")
    params = ac.load_gpt2(tmp_path / "model")
    assert (params.n_layers, params.n_heads, params.d_model, params.max_len, params.vocab_size) == \
        (n_layer, n_head, n_embd, n_positions, vocab)
    assert params.tok_emb.dtype == dtype and params.blocks[0].w_1.shape == (n_embd, n_inner or 4 * n_embd)
    ids = np.random.default_rng(1).integers(0, vocab, (batch, t))
    diffs = max_differences(params, model, ids)
    for path, (d_logits, d_maps) in diffs.items():
        assert d_logits < TOL[dtype] and d_maps < TOL[dtype], (path, d_logits, d_maps)
    logits, maps = hf_forward(model, ids)
    # not a trivial comparison: logits of size, and heads far from uniform over the 1..T visible keys
    assert np.abs(logits).max() > 0.5 and (t == 1 or maps[..., -1, :].max() > 2 / t)


def test_the_model_object_the_folder_and_the_state_dict_give_the_same_arrays(tmp_path):
    model = random_gpt2(2, 2, 8, 6, 11, None, True, np.float64)
    model.save_pretrained(tmp_path / "m")
    a = tr.decoder_to_dict(ac.load_gpt2(model))
    b = tr.decoder_to_dict(ac.load_gpt2(str(tmp_path / "m")))
    c = tr.decoder_to_dict(gpt2.params_from_state_dict(model.transformer.state_dict(), 2))   # GPT2Model's names
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
        np.testing.assert_array_equal(a[k], c[k])
    np.testing.assert_array_equal(a["w_out"], a["tok_emb"].T)                 # tied unembedding, no bias
    assert np.shares_memory(a["w_out"], a["tok_emb"])                         # a view: GPT-2 small's 150 MB once
    assert not a["b_out"].any()
    as32 = ac.load_gpt2(model, dtype=np.float32)
    assert as32.tok_emb.dtype == np.float32 and as32.blocks[1].attn.w_v.dtype == np.float32


def _hub_cache(tmp_path, repo: str, model) -> str:
    """A Hugging Face hub cache holding `repo` as a download would leave it (refs/main -> a snapshot)."""
    cache = tmp_path / "hf-cache"
    folder = cache / ("models--" + repo.replace("/", "--"))
    revision = "0123456789abcdef0123456789abcdef01234567"
    model.save_pretrained(folder / "snapshots" / revision)
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(revision)
    return str(cache)


def test_a_hub_name_loads_from_the_cache_through_the_hub_route(tmp_path):
    model = random_gpt2(2, 4, 16, 12, 23, None, True, np.float64)
    cache = _hub_cache(tmp_path, "attention-lab/tiny-gpt2", model)
    params = ac.load_gpt2("attention-lab/tiny-gpt2", cache_dir=cache)        # a name, not a folder
    ids = np.random.default_rng(2).integers(0, 23, (2, 12))
    for path, (d_logits, d_maps) in max_differences(params, model, ids).items():
        assert d_logits < 1e-10 and d_maps < 1e-10, path
    loaded = gpt2.load_pretrained_model("attention-lab/tiny-gpt2", cache_dir=cache)
    assert loaded.config._attn_implementation == "eager" and not loaded.training


def test_offline_the_error_says_it_needs_the_network_or_a_folder_and_what_to_run(tmp_path):
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    with pytest.raises(OSError) as info:
        ac.load_gpt2("gpt2", cache_dir=str(empty))                           # download=False: no network tried
    text = str(info.value)
    for words in ("'gpt2' is not in the cache folder", "needs the network", "about 500 MB",
                  "load_gpt2('gpt2', download=True)", "save_pretrained", "local folder"):
        assert words in text, words
    assert not any(empty.iterdir())                                          # nothing was written
    with pytest.raises(FileNotFoundError, match="no folder './no-such-gpt2'"):
        ac.load_gpt2("./no-such-gpt2")
    (tmp_path / "not-a-model").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no config.json"):
        ac.load_gpt2(str(tmp_path / "not-a-model"))
    with pytest.raises(TypeError, match="download: expected True or False"):
        ac.load_gpt2("gpt2", download="yes")


@pytest.mark.parametrize("field, value, words", [
    ("activation_function", "gelu", "activation_function: the library's decoder needs one of"),
    ("layer_norm_epsilon", 1e-6, "layer_norm_epsilon: the library's decoder needs 1e-05"),
    ("scale_attn_by_inverse_layer_idx", True, "scale_attn_by_inverse_layer_idx"),
    ("scale_attn_weights", False, "scale_attn_weights"),
])
def test_a_configuration_the_library_would_compute_differently_is_refused(field, value, words):
    config = transformers.GPT2Config(vocab_size=11, n_positions=6, n_embd=8, n_layer=1, n_head=2,
                                     bos_token_id=0, eos_token_id=0, **{field: value})
    with pytest.raises(ValueError, match=words):
        ac.load_gpt2(transformers.GPT2LMHeadModel(config))
    gpt2.check_config(transformers.GPT2Config(vocab_size=11, n_positions=6, n_embd=8, n_layer=1, n_head=2,
                                              bos_token_id=0, eos_token_id=0))   # the default passes


def test_bad_sources_get_a_clear_error():
    with pytest.raises(TypeError, match="expected a GPT-2 model object, a folder or a hub name"):
        ac.load_gpt2(42)
    with pytest.raises(ValueError, match="no 'lm_head.weight'"):
        gpt2.params_from_state_dict(random_gpt2(1, 2, 8, 6, 11, None, True, np.float32).transformer.state_dict(),
                                    2, tied=False)
    with pytest.raises(ValueError, match="missing 'wte.weight'"):
        gpt2.params_from_state_dict({"encoder.weight": np.zeros(2)}, 2)
    with pytest.raises(ValueError, match="model_type 'gpt2'"):
        gpt2.check_config(transformers.BertConfig())
