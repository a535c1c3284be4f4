"""core.params: DecoderConfig travels with the weights, so n_heads is never passed beside them."""
import numpy as np
import pytest

import attention_core as ac
from attention_core.core import params as P
from attention_core.core import transformer as tr
from attention_core.core.model import HookedDecoder

CONFIG = P.DecoderConfig(vocab_size=11, d_model=8, n_heads=2, n_layers=2, d_ff=12, max_len=7)


def test_round_trip_through_a_dict_and_the_weights():
    assert P.DecoderConfig.from_dict(CONFIG.to_dict()) == CONFIG
    assert CONFIG.to_dict() == dict(vocab_size=11, d_model=8, n_heads=2, n_layers=2, d_ff=12, max_len=7, causal=True)
    weights = P.init_decoder(CONFIG, seed=3)
    assert P.DecoderConfig.from_weights(weights, 2) == CONFIG
    params = P.decoder_from_dict(weights, CONFIG)
    assert params.config == CONFIG and CONFIG.d_head == 4
    encoder = P.DecoderConfig(**{**CONFIG.to_dict(), "causal": False})
    assert P.decoder_from_dict(weights, encoder).config == encoder
    assert HookedDecoder(weights, encoder).causal is False
    assert HookedDecoder(P.decoder_from_dict(weights, encoder)).config == encoder


def test_the_older_positional_forms_give_the_same_model():
    new = P.init_decoder(CONFIG, seed=5)
    old = ac.init_decoder(11, 8, 2, 2, 12, 7, seed=5)
    assert new.keys() == old.keys() and all(np.array_equal(new[k], old[k]) for k in new)
    assert P.decoder_from_dict(old, 2).config == CONFIG                 # a bare n_heads reads the rest off the weights
    ids = np.array([1, 2, 3, 4])
    a = HookedDecoder(new, CONFIG)(ids)
    b = HookedDecoder(old, 2)(ids)
    np.testing.assert_array_equal(a, b)
    assert tr.init_decoder is P.init_decoder                           # the names stay importable where they were
    assert tr.DecoderParams is P.DecoderParams


def test_a_manifest_config_with_training_settings_is_read_when_asked():
    manifest = {**CONFIG.to_dict(), "lr": 3e-3, "batch": 16, "kind": "text"}
    with pytest.raises(ValueError, match=r"unexpected keys \['lr', 'batch', 'kind'\]"):
        P.DecoderConfig.from_dict(manifest)
    assert P.DecoderConfig.from_dict(manifest, allow_extra=True) == CONFIG
    old = {k: v for k, v in CONFIG.to_dict().items() if k != "causal"}  # manifests before corpus 2: decoders
    assert P.DecoderConfig.from_dict(old).causal is True


BAD_DICTS = [
    ([1, 2], TypeError, "config"),
    (None, TypeError, "config"),
    ({}, ValueError, "missing"),
    ({**CONFIG.to_dict(), "n_heads": "2"}, TypeError, "n_heads"),
    ({**CONFIG.to_dict(), "n_heads": 2.0}, TypeError, "n_heads"),
    ({**CONFIG.to_dict(), "n_heads": True}, TypeError, "n_heads"),
    ({**CONFIG.to_dict(), "n_heads": 3}, ValueError, "n_heads"),       # 8 is not divisible by 3
    ({**CONFIG.to_dict(), "n_layers": 0}, ValueError, "n_layers"),
    ({**CONFIG.to_dict(), "d_ff": -1}, ValueError, "d_ff"),
    ({**CONFIG.to_dict(), "causal": "no"}, TypeError, "causal"),
    ({**CONFIG.to_dict(), "max_len": None}, TypeError, "max_len"),
    ({**CONFIG.to_dict(), "heads": 2}, ValueError, "heads"),
]


@pytest.mark.parametrize("bad, error, word", BAD_DICTS)
def test_a_bad_dict_is_refused_naming_the_key(bad, error, word):
    with pytest.raises(error, match=word):
        P.DecoderConfig.from_dict(bad)


def test_weights_that_disagree_with_their_config_are_refused():
    weights = P.init_decoder(CONFIG, seed=0)
    other = P.DecoderConfig(**{**CONFIG.to_dict(), "max_len": 9})
    with pytest.raises(ValueError, match="pos_emb: expected shape"):
        P.decoder_from_dict(weights, other)
    deeper = P.DecoderConfig(**{**CONFIG.to_dict(), "n_layers": 3})
    with pytest.raises(ValueError, match="missing"):
        HookedDecoder(weights, deeper)
    with pytest.raises(TypeError, match="config"):
        HookedDecoder(weights)
    with pytest.raises(TypeError, match="config"):
        P.decoder_from_dict(weights, "two")
    with pytest.raises(TypeError, match="init_decoder"):
        P.init_decoder(CONFIG, 8)
    with pytest.raises(TypeError, match="init_decoder"):
        P.init_decoder(11, 8)


def test_the_package_exports_the_hooked_model():
    assert ac.HookedDecoder is HookedDecoder and ac.DecoderConfig is P.DecoderConfig
    assert {"HookedDecoder", "ActivationCache", "DecoderConfig"} <= set(ac.__all__)


def test_the_torch_twin_takes_the_config_and_keeps_its_causal_flag():
    pytest.importorskip("torch")
    from attention_core.backends import to_torch_decoder
    encoder = P.DecoderConfig(**{**CONFIG.to_dict(), "causal": False})
    weights = P.init_decoder(CONFIG, seed=0)
    assert to_torch_decoder(weights, encoder).causal is False
    assert to_torch_decoder(P.decoder_from_dict(weights, encoder)).model.config == encoder
    assert to_torch_decoder(weights, 2).model.config == CONFIG          # the older bare n_heads
    assert to_torch_decoder(weights, encoder, causal=True).causal is True
