"""Notebook 13's last section, "Your code runs GPT-2": the learner's gpt_forward and generate on GPT-2.

Offline (the default, and under nbval and on the site): a randomly initialised Hugging Face GPT-2 is
built on this machine (layer norms and biases randomised), loaded with `ac.load_gpt2` (backends/gpt2.py)
and run by the learner's forward, the library's NumPy forward and Hugging Face's own: the differences are
printed. Nothing is downloaded. Online (the learner sets ONLINE = True): GPT-2 small itself (about 500 MB
into the Hugging Face cache, or GPT2_SOURCE: a folder holding the model AND its tokenizer, both saved with
save_pretrained), a sentence, a continuation, and the previous-token and induction scores of its 144 heads
on repeated random tokens, measured with notebook 12's functions. tests/labs/test_nb13_gpt2.py runs that
online cell itself against a tiny random GPT-2 and tokenizer saved locally (a folder, and a hub cache).
transformers and torch are imported inside the functions.
"""
from __future__ import annotations

import numpy as np

from attention_core.core import transformer as tr
from attention_core.labs.nb12_trained_transformer import experiments as nb12

from . import pieces

# What oracle_differences(pieces.gpt_forward) measured (tests/labs/test_nb13_build_a_gpt.py measures it again):
# max |difference| from Hugging Face's forward, float64, 2 layers x 4 heads, d_model 32, 50 tokens, T = 20, batch 2.
RECORDED = {"yours": (1.8e-15, 7.8e-16), "library": (2.2e-15, 6.1e-16),
            "config": {"n_layers": 2, "n_heads": 4, "d_model": 32, "vocab": 50, "t": 20, "batch": 2}}


def config_label(config: dict, lang: str | None = None) -> str:
    """The oracle's configuration ({"n_layers", "n_heads", "d_model", "vocab", "t", "batch"}) in words, per edition."""
    from attention_core.teaching import i18n
    return i18n.t("nb13.gpt2_config", lang, **config)


def random_gpt2(n_layer=2, n_head=4, n_embd=32, n_positions=24, vocab=50, seed=0):
    """A random GPT2LMHeadModel in float64 with its layer norms and biases randomised (none at 1 or 0)."""
    import torch
    import transformers
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(n_layer=n_layer, n_head=n_head, n_embd=n_embd, n_positions=n_positions,
                                  vocab_size=vocab, activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0,
                                  attn_pdrop=0.0, attn_implementation="eager", bos_token_id=None, eos_token_id=None)
    model = transformers.GPT2LMHeadModel(cfg).double().eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln" in name and name.endswith("weight"):
                p.copy_(1 + 0.3 * torch.randn_like(p))
            elif name.endswith("bias"):
                p.copy_(0.3 * torch.randn_like(p))
            else:
                p.mul_(8.0)
    return model


def hf_forward(model, ids):
    import torch
    with torch.no_grad():
        out = model(torch.as_tensor(ids), output_attentions=True)
    return out.logits.numpy(), torch.stack(out.attentions, dim=-4).numpy()          # (..., T, V), (..., L, H, T, T)


def oracle_differences(forward, seed: int = 0) -> dict:
    """The learner's forward and the library's on a random local GPT-2, against Hugging Face's forward:
    {"yours": (logits diff, attention diff), "library": (...), "config": ...} in float64."""
    import torch

    from attention_core.backends import load_gpt2
    model = random_gpt2(seed=seed)
    params = load_gpt2(model)
    ids = np.random.default_rng(seed).integers(0, params.vocab_size, (2, 20))
    logits, maps = hf_forward(model, ids)
    with torch.no_grad():
        lm, wm = forward(pieces.torch_params(params), torch.as_tensor(ids))
    ln, wn = tr.decoder_forward(params, ids)
    return {"yours": (float(np.abs(lm.numpy() - logits).max()), float(np.abs(wm.numpy() - maps).max())),
            "library": (float(np.abs(ln - logits).max()), float(np.abs(wn - maps).max())),
            "config": {"n_layers": params.n_layers, "n_heads": params.n_heads, "d_model": params.d_model,
                       "vocab": params.vocab_size, "t": int(ids.shape[-1]), "batch": int(ids.shape[0])}}


def all_head_scores(forward, params, half: int = 50, n: int = 4, seed: int = 0) -> dict:
    """Previous-token and induction scores (L, H) of every head on n sequences of `half` random token ids
    repeated once (notebook 12's functions); forward(params, ids) -> (logits, weights)."""
    import torch
    rng = np.random.default_rng(seed)
    seg = rng.integers(0, params.tok_emb.shape[0], (n, half))
    seqs = np.concatenate([seg, seg], axis=1)
    with torch.no_grad():
        _, w = forward(params, torch.as_tensor(seqs))
    w = w.numpy().astype(np.float64)
    return {"previous": nb12.previous_token_score(w).mean(axis=0), "induction": nb12.induction_score(w, half).mean(0)}


def top_heads(scores, k: int = 5) -> list[tuple]:
    """The k heads (layer, head, score) with the highest scores of an (L, H) array."""
    order = np.argsort(-scores, axis=None)[:k]
    return [(int(i // scores.shape[1]), int(i % scores.shape[1]), float(scores.flat[i])) for i in order]


def gpt2_small(source: str = "gpt2", download: bool = False, cache_dir=None):
    """(params float32 as tensors, the NumPy params, the HF model, the tokenizer) of GPT-2 from the hub or a
    local folder holding the model and its tokenizer; offline without a folder, the loader says what it needs.
    A folder with the model but no tokenizer gets an error (in the notebook's language) saying how to save it."""
    from attention_core.backends import gpt2, load_gpt2
    from attention_core.teaching import i18n
    model = gpt2.load_pretrained_model(source, download=download, cache_dir=cache_dir)
    try:
        tokenizer = gpt2.load_tokenizer(source, download=download, cache_dir=cache_dir)
    except gpt2.TokenizerMissingError as exc:
        raise FileNotFoundError(i18n.t("nb13.gpt2_no_tokenizer", folder=exc.folder,
                                       commands=gpt2.save_commands(folder=exc.folder))) from exc
    params = load_gpt2(model, dtype=np.float32)
    if len(tokenizer) > params.vocab_size:
        raise ValueError(i18n.t("nb13.gpt2_vocab_mismatch", source=str(source), n_tok=len(tokenizer),
                                vocab=params.vocab_size))
    return pieces.torch_params(params, dtype="float32"), params, model.eval(), tokenizer
