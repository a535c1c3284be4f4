"""Tiny Hugging Face GPT-2 models and tokenizers built on this machine, for the GPT-2 tests (imported as
`import gpt2kit`: tests/ is on the path through tests/conftest.py). Nothing here touches the network:
the models are random, the tokenizer's vocabulary and merges are written here, and a "hub" is a folder
laid out as a download would leave the Hugging Face cache."""
from __future__ import annotations

import numpy as np
import torch
import transformers

TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}

# name: n_layer, n_head, n_embd, n_positions, vocab, n_inner, T, batch, tied
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


def _byte_chars() -> list[str]:
    """GPT-2's byte-level alphabet: the 256 characters its BPE writes bytes as (a space is 'Ġ')."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = [b for b in range(256) if b not in keep]
    return [chr(b) for b in keep] + [chr(256 + i) for i in range(len(shifted))]


def tiny_tokenizer():
    """A GPT2Tokenizer (byte-level BPE, as GPT-2's) with the 256 bytes, a few merges that make ' it' and
    ' the' single tokens, and <|endoftext|>: 262 tokens, built here without any download."""
    vocab = {c: i for i, c in enumerate(_byte_chars())}
    merges = [("Ġ", "i"), ("Ġi", "t"), ("Ġ", "t"), ("Ġt", "h"), ("Ġth", "e")]
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    return transformers.GPT2Tokenizer(vocab=vocab, merges=merges)


def tiny_gpt2_small(n_positions=128, seed=0):
    """(a float32 GPT2LMHeadModel the size of the tiny tokenizer's vocabulary, the tokenizer): a stand-in for
    GPT-2 small (also float32, tokenizer and model saved together), small enough for a test."""
    tokenizer = tiny_tokenizer()
    model = random_gpt2(2, 4, 32, n_positions, len(tokenizer), None, True, np.float32, seed=seed)
    return model, tokenizer


def hub_cache(root, repo: str, *saved) -> str:
    """A Hugging Face hub cache under root holding `repo` as a download would leave it (refs/main -> a snapshot
    with what each of `saved` (a model, a tokenizer) writes with save_pretrained). Returns the cache folder."""
    cache = root / "hf-cache"
    folder = cache / ("models--" + repo.replace("/", "--"))
    revision = "0123456789abcdef0123456789abcdef01234567"
    for thing in saved:
        thing.save_pretrained(folder / "snapshots" / revision)
    (folder / "refs").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / "main").write_text(revision)
    return str(cache)
