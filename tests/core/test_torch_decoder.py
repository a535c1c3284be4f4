"""The decoder's torch twin (backends/torch_decoder.py) equals the NumPy decoder_forward.

On seeded random weights (LN gains and every bias randomised, so a dropped term shows), several
shapes, with and without head_mask / attn_mask / return_hidden, in float64 (1e-10) and float32 (1e-5);
on notebook 12's two shipped models; gradients reach every parameter (it trains); and no lab carries
its own torch attention or layer norm (one torch path: the backend's).
"""
import ast
from pathlib import Path

import numpy as np
import pytest

from attention_core import backends
from attention_core.core import transformer as tr

torch = pytest.importorskip("torch")

TOL = {np.float64: 1e-10, np.float32: 1e-5}
PACKAGE = Path(__file__).resolve().parents[2] / "attention_core"


def random_decoder(v, d, h, n_layers, f, t_max, dtype, seed=0) -> tr.DecoderParams:
    """init_decoder's shapes with every array random (GPT-2's init leaves LN at 1 and biases at 0)."""
    rng = np.random.default_rng(seed)
    flat = {k: (rng.normal(0, 0.5, a.shape) + (1.0 if k.endswith("_g") else 0.0)).astype(dtype)
            for k, a in tr.init_decoder(v, d, h, n_layers, f, t_max, seed=seed).items()}
    return tr.decoder_from_dict(flat, h)


def close(actual, expected, dtype):
    np.testing.assert_allclose(actual.detach().numpy(), expected, atol=TOL[dtype], rtol=TOL[dtype])


CONFIGS = [  # V, D, H, L, F, T_max, batch shape
    (11, 16, 4, 2, 32, 12, (3,)),
    (7, 12, 3, 3, 0, 9, ()),            # attention only (F = 0), ids (T,)
    (20, 8, 1, 1, 24, 6, (2,)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("config", CONFIGS)
def test_the_twin_equals_decoder_forward_on_random_weights(config, dtype):
    v, d, h, n_layers, f, t_max, batch = config
    params = random_decoder(v, d, h, n_layers, f, t_max, dtype)
    twin = backends.to_torch_decoder(params)
    assert twin.p["tok_emb"].dtype == torch.from_numpy(np.zeros(1, dtype)).dtype
    rng = np.random.default_rng(1)
    ids = rng.integers(0, v, batch + (t_max,))
    head_mask = rng.uniform(0, 1, (n_layers, h)).astype(dtype)
    head_mask[0, 0] = 0
    cut = np.ones((n_layers, t_max, t_max), bool)
    cut[-1, -1, 0] = False                                  # one query -> key path cut in the last layer
    with torch.no_grad():
        for kwargs in ({}, {"head_mask": head_mask}, {"attn_mask": cut}, {"attn_mask": cut[0]}):
            logits, weights, hidden = tr.decoder_forward(params, ids, return_hidden=True, **kwargs)
            lt, wt, ht = twin(torch.as_tensor(ids), return_hidden=True, **kwargs)
            assert lt.shape == logits.shape and wt.shape == weights.shape and ht.shape == hidden.shape
            close(lt, logits, dtype)
            close(wt, weights, dtype)
            close(ht, hidden, dtype)
            if kwargs.get("attn_mask") is cut:              # the cut path carries no weight, the others do
                assert float(wt[..., -1, :, -1, 0].abs().max()) == 0.0
                assert n_layers == 1 or float(wt[..., 0, :, -1, 0].min()) > 0
        lt2, _ = twin(ids[..., :3])                         # NumPy ids, shorter than T_max
        close(lt2, tr.decoder_forward(params, ids[..., :3])[0], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["induction", "coreference", "coreference_decoder"])
def test_the_twin_equals_decoder_forward_on_the_shipped_models(name, dtype):
    from attention_core.labs.nb12_trained_transformer import load_trained
    m = load_trained(name)
    weights = {k: a.astype(dtype) for k, a in tr.decoder_to_dict(m.params).items()}
    params = tr.decoder_from_dict(weights, m.n_heads)
    twin = backends.to_torch_decoder(weights, m.n_heads, causal=m.causal)   # coreference: an encoder
    assert {n for n, _ in twin.named_parameters()} == {f"p.{k}" for k in weights}   # the library's names
    assert list(twin.numpy_weights()) == list(weights)                              # in the library's order
    ids = np.random.default_rng(0).integers(0, len(m.vocab), (8, m.params.max_len))
    mask = np.ones((m.n_layers, m.n_heads), dtype)
    mask[-1, 0] = 0
    with torch.no_grad():
        lt, wt = twin(torch.as_tensor(ids))
        lt2, _ = twin(torch.as_tensor(ids), head_mask=torch.as_tensor(mask))
    ln, wn = tr.decoder_forward(params, ids, causal=m.causal)
    assert wn.shape == tuple(wt.shape) == (8, m.n_layers, m.n_heads) + ids.shape[-1:] * 2
    # the trained weights on random ids: float32 logits differ by summation order up to ~2e-5 (the encoder of
    # corpus 2.3: 1.8e-5 at logits of 0.3), so the float32 bound is 5e-5 here; float64 keeps 1e-10
    tol = 5e-5 if dtype == np.float32 else TOL[dtype]
    np.testing.assert_allclose(lt.detach().numpy(), ln, atol=tol, rtol=tol)
    close(wt, wn, dtype)
    masked = tr.decoder_forward(params, ids, head_mask=mask, causal=m.causal)[0]
    np.testing.assert_allclose(lt2.detach().numpy(), masked, atol=tol, rtol=tol)
    for k, a in twin.numpy_weights().items():              # a round trip changes nothing
        np.testing.assert_array_equal(a, weights[k])


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_twin_on_cuda_equals_decoder_forward():
    params = random_decoder(11, 16, 4, 2, 32, 12, np.float32)
    twin = backends.to_torch_decoder(params, device="cuda")
    ids = np.random.default_rng(1).integers(0, 11, (3, 12))
    with torch.no_grad():
        lt, wt = twin(torch.as_tensor(ids, device="cuda"), head_mask=np.ones((2, 4), np.float32))
    assert lt.device.type == "cuda"
    logits, weights = tr.decoder_forward(params, ids)
    close(lt.cpu(), logits, np.float32)
    close(wt.cpu(), weights, np.float32)


def test_gradients_reach_every_parameter_and_training_does_not_touch_the_callers_arrays():
    flat = tr.init_decoder(9, 8, 2, 2, 16, 6, seed=3, dtype=np.float64)
    before = {k: a.copy() for k, a in flat.items()}
    twin = backends.to_torch_decoder(flat, 2)
    ids = torch.as_tensor(np.random.default_rng(0).integers(0, 9, (4, 6)))
    logits, _ = twin(ids[:, :-1])
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 9), ids[:, 1:].reshape(-1))
    loss.backward()
    no_grad = [n for n, p in twin.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
    assert no_grad == [], no_grad
    with torch.no_grad():
        for p in twin.parameters():
            p.add_(1.0)
    for k, a in flat.items():
        np.testing.assert_array_equal(a, before[k])
    back = twin.to_params()
    np.testing.assert_allclose(back.tok_emb, flat["tok_emb"] + 1.0)


def test_bad_input_gets_a_clear_error():
    params = random_decoder(5, 8, 2, 1, 8, 4, np.float64)
    twin = backends.to_torch_decoder(params)
    with pytest.raises(ValueError, match=r"token ids must lie in 0\.\.4"):
        twin(torch.tensor([1, 5]))
    with pytest.raises(TypeError, match="integer token ids"):
        twin(torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"1\.\.4 tokens"):
        twin(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match=r"head_mask: expected shape \(L, H\) = \(1, 2\)"):
        twin(torch.tensor([1, 2]), head_mask=np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"attn_mask: expected its last two axes to be \(T, T\) = \(2, 2\)"):
        twin(torch.tensor([1, 2]), attn_mask=np.ones((3, 3), bool))
    with pytest.raises(TypeError, match="n_heads"):
        backends.to_torch_decoder(tr.decoder_to_dict(params))
    with pytest.raises(ValueError, match="missing"):
        backends.to_torch_decoder({"tok_emb": params.tok_emb}, 2)


TORCH_BUILDING_BLOCKS = {"softmax", "log_softmax", "layer_norm", "LayerNorm", "MultiheadAttention",
                         "scaled_dot_product_attention", "TransformerEncoderLayer", "TransformerDecoderLayer"}


def _torch_chain(node):
    """'torch.nn.functional.softmax' for an attribute chain rooted at torch / nn / F, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in ("torch", "nn", "F"):
        return ".".join([node.id, *reversed(parts)])
    return None


def test_no_lab_reimplements_torch_attention_or_layer_norm():
    """One torch path: labs use the backend (ac.scaled_dot_product_attention, to_torch_decoder),
    never torch's attention, softmax or layer norm of their own (notebook 08's recall model included)."""
    found = []
    files = sorted((PACKAGE / "labs").rglob("*.py"))
    assert len(files) > 30
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            chain = _torch_chain(node) if isinstance(node, ast.Attribute) else None
            if chain and chain.rsplit(".", 1)[-1] in TORCH_BUILDING_BLOCKS:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {chain}")
    assert not found, "labs must use the backend's attention and layer norm:\n" + "\n".join(found)
    # the check can fail: the old training twin called torch.softmax
    assert _torch_chain(ast.parse("torch.softmax(x, -1)").body[0].value.func) == "torch.softmax"
