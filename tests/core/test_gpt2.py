"""The oracle nobody here wrote: Hugging Face's GPT-2 forward against the library's decoder.

Random-init GPT2LMHeadModel configurations are built locally (several layers, heads, widths, context
sizes and lengths; layer norms and biases randomised, weights large enough that heads attend
sharply), saved with save_pretrained to a temporary folder and loaded back through `load_gpt2`. The
library's NumPy `decoder_forward` and the torch twin (`to_torch_decoder`) must give HF's logits and
every attention map: 1e-10 in float64, 1e-4 in float32. The by-name route is exercised against a
locally built Hugging Face cache (the same code path as load_gpt2("gpt2"), without the download), and
so is the tokenizer saved next to the model (a folder with the model alone is refused with the
command that saves the tokenizer); nothing here touches the network. The builders are in
tests/gpt2kit.py, shared with notebook 13's tests (tests/labs/test_nb13_gpt2.py).
"""
import numpy as np
import pytest

import attention_core as ac
from attention_core import backends
from attention_core.backends import gpt2
from attention_core.core import transformer as tr

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from gpt2kit import CONFIGS, hf_forward, hub_cache, random_gpt2  # noqa: E402  (tests/gpt2kit.py)

from attention_core.core.model import HookedDecoder  # noqa: E402

TOL = {np.float64: 1e-10, np.float32: 1e-4}


def max_differences(params, model, ids):
    """{path: (max |logits diff|, max |attention diff|)} of the NumPy forward and the torch twin vs HF."""
    logits, maps = hf_forward(model, ids)
    ln, wn = tr.decoder_forward(params, ids)
    with torch.no_grad():
        lt, wt = backends.to_torch_decoder(params)(torch.as_tensor(ids))
    assert ln.shape == logits.shape and wn.shape == maps.shape == tuple(wt.shape)
    # hooks on: a function at every hook point (hook_result too, so each head's write is summed one by one)
    model_np = HookedDecoder(params)
    hooked_logits = model_np.run_with_hooks(ids, {n: (lambda v, n: v) for n in model_np.hook_names})
    return {"numpy": (np.abs(ln - logits).max(), np.abs(wn - maps).max()),
            "numpy, every hook on": (np.abs(hooked_logits - logits).max(), 0.0),
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


@pytest.mark.slow          # builds, saves and reloads a Hugging Face model: ~4 s
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


@pytest.mark.slow          # saves and reloads a Hugging Face model (make test runs it)
def test_a_hub_name_loads_from_the_cache_through_the_hub_route(tmp_path):
    model = random_gpt2(2, 4, 16, 12, 23, None, True, np.float64)
    cache = hub_cache(tmp_path, "attention-lab/tiny-gpt2", model)
    params = ac.load_gpt2("attention-lab/tiny-gpt2", cache_dir=cache)        # a name, not a folder
    ids = np.random.default_rng(2).integers(0, 23, (2, 12))
    for path, (d_logits, d_maps) in max_differences(params, model, ids).items():
        assert d_logits < 1e-10 and d_maps < 1e-10, path
    loaded = gpt2.load_pretrained_model("attention-lab/tiny-gpt2", cache_dir=cache)
    assert loaded.config._attn_implementation == "eager" and not loaded.training


def test_the_tokenizer_comes_from_the_same_folder_or_hub_name_and_a_missing_one_is_named(tmp_path):
    from gpt2kit import tiny_tokenizer
    tok = tiny_tokenizer()
    sentence = "The animal didn't cross the street because it was too tired."
    model = random_gpt2(1, 2, 8, 6, len(tok), None, True, np.float32)
    model.save_pretrained(tmp_path / "both")
    tok.save_pretrained(tmp_path / "both")
    loaded = gpt2.load_tokenizer(tmp_path / "both")
    assert len(loaded) == len(tok) == 262 and loaded(sentence)["input_ids"] == tok(sentence)["input_ids"]
    assert "Ġit" in loaded.convert_ids_to_tokens(loaded(sentence)["input_ids"])
    assert loaded.decode(loaded(sentence)["input_ids"]) == sentence
    cache = hub_cache(tmp_path, "attention-lab/tiny-gpt2", model, tok)      # the hub route: a name, the cache
    by_name = gpt2.load_tokenizer("attention-lab/tiny-gpt2", cache_dir=cache)
    assert by_name(sentence)["input_ids"] == tok(sentence)["input_ids"]
    # the model saved alone, as the old instructions said: transformers would hand back an empty tokenizer
    model.save_pretrained(tmp_path / "model-only")
    assert len(transformers.AutoTokenizer.from_pretrained(str(tmp_path / "model-only"), local_files_only=True)) < 2
    with pytest.raises(gpt2.TokenizerMissingError) as info:
        gpt2.load_tokenizer(str(tmp_path / "model-only"))
    text = str(info.value)
    assert info.value.folder == str(tmp_path / "model-only") and isinstance(info.value, FileNotFoundError)
    for words in ("holds no tokenizer", "tokenizer.json", "AutoTokenizer.from_pretrained('gpt2').save_pretrained(",
                  "GPT2LMHeadModel.from_pretrained('gpt2').save_pretrained("):
        assert words in text, words
    with pytest.raises(OSError, match="AutoTokenizer.from_pretrained"):
        gpt2.load_tokenizer("gpt2", cache_dir=str(tmp_path / "empty"))      # offline: the message says what to run
    with pytest.raises(FileNotFoundError, match="no folder './no-such-gpt2'"):
        gpt2.load_tokenizer("./no-such-gpt2")
    with pytest.raises(TypeError, match="expected a folder or a hub name"):
        gpt2.load_tokenizer(42)


def test_offline_the_error_says_it_needs_the_network_or_a_folder_and_what_to_run(tmp_path):
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    with pytest.raises(OSError) as info:
        ac.load_gpt2("gpt2", cache_dir=str(empty))                           # download=False: no network tried
    text = str(info.value)
    for words in ("'gpt2' is not in the cache folder", "needs the network", "about 500 MB",
                  "load_gpt2('gpt2', download=True)", "local folder", "the model and its tokenizer",
                  "GPT2LMHeadModel.from_pretrained('gpt2').save_pretrained('gpt2-local')",
                  "AutoTokenizer.from_pretrained('gpt2').save_pretrained('gpt2-local')"):
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
