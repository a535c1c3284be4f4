"""Hugging Face GPT-2 weights as the library's DecoderParams: the same decoder, read from HF's names.

    params = load_gpt2(model)                     # a transformers GPT2LMHeadModel / GPT2Model object
    params = load_gpt2("path/to/folder")          # a folder written by save_pretrained (no network)
    params = load_gpt2("gpt2", download=True)     # the hub, by name: network, ~500 MB into the HF cache
    logits, weights = decoder_forward(params, ids)    # = HF's logits and attentions (tested to 1e-10)
    tokenizer = load_tokenizer("gpt2-local")      # its tokenizer: the same folder or hub name

A local folder for the model and for text needs both halves saved into it, where there is network:

    transformers.GPT2LMHeadModel.from_pretrained("gpt2").save_pretrained("gpt2-local")
    transformers.AutoTokenizer.from_pretrained("gpt2").save_pretrained("gpt2-local")

`core.transformer.decoder_forward` is GPT-2's architecture: learned positions, pre-LN blocks with
LN eps 1e-5, GELU in its tanh form ("gelu_new"), biases everywhere, a final LN and the unembedding
tied to the token embedding. What differs is only naming and packing:

    transformer.wte (V, D)          -> tok_emb          transformer.wpe (T_max, D)  -> pos_emb
    h.i.ln_1 / ln_2 weight, bias    -> li_ln1_g/_b ...  h.i.attn.c_attn (D, 3D)     -> li_w_q | li_w_k | li_w_v
    h.i.attn.c_proj (D, D)          -> li_w_o, li_b_o   h.i.mlp.c_fc / c_proj       -> li_w_1 / li_w_2 (+ biases)
    transformer.ln_f                -> lnf_g, lnf_b     lm_head.weight = wte (V, D) -> w_out = wte.T, b_out = 0

HF's Conv1D stores y = x @ W + b with W (D_in, D_out), the library's orientation: no transpose but
the unembedding. A configuration the library's forward would compute differently (another
activation, LN eps, attention scaling, cross-attention) is refused with its name, never silently
approximated. `transformers` (and torch) are imported only inside these functions; nothing is ever
downloaded unless the caller passes download=True.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from attention_core.core import transformer as tr
from attention_core.core.validation import describe, float_dtype

TANH_GELUS = ("gelu_new", "gelu_pytorch_tanh")        # both are 0.5 x (1 + tanh(...)), the library's gelu
INSTALL_HINT = "pip install transformers==5.23.0 torch==2.13.0"
HUB_SIZE = "about 500 MB for gpt2, the 124M-parameter model"


def require_transformers():
    """Import and return transformers, or explain how to install it."""
    try:
        import transformers
    except ImportError:
        raise ImportError("Loading GPT-2 weights needs Hugging Face transformers, which is not installed. "
                          f"Install it with `{INSTALL_HINT}`.") from None
    return transformers


def check_config(config) -> None:
    """Refuse a GPT-2 configuration that decoder_forward would not compute exactly."""
    get = lambda name, default=None: getattr(config, name, default)      # noqa: E731
    if get("model_type") != "gpt2":
        raise ValueError(f"config: expected a GPT-2 model (model_type 'gpt2'), got model_type {get('model_type')!r}")
    rules = [
        ("activation_function", get("activation_function") in TANH_GELUS,
         f"one of {TANH_GELUS} (the tanh GELU of core.transformer.gelu)"),
        ("layer_norm_epsilon", get("layer_norm_epsilon") == tr.LN_EPS, f"{tr.LN_EPS} (core.transformer.LN_EPS)"),
        ("scale_attn_weights", get("scale_attn_weights", True) is True, "True (scores scaled by 1/sqrt(Dh))"),
        ("scale_attn_by_inverse_layer_idx", not get("scale_attn_by_inverse_layer_idx", False),
         "False (no extra 1/(layer + 1) scaling)"),
        ("add_cross_attention", not get("add_cross_attention", False), "False (a decoder without an encoder)"),
    ]
    for name, ok, expected in rules:
        if not ok:
            raise ValueError(f"config.{name}: the library's decoder needs {expected}, got {get(name)!r}")


def _to_numpy(x, dtype) -> np.ndarray:
    """A tensor (or array) as a NumPy array in dtype (None: its own float dtype; half precision -> float32)."""
    if type(x).__module__.split(".")[0] == "torch":
        x = x.detach().cpu()
        if x.dtype.itemsize < 4:                              # float16 / bfloat16: NumPy has no bfloat16
            x = x.float()
        x = x.numpy()
    x = np.asarray(x)
    return x.astype(float_dtype(dtype) if dtype is not None else x.dtype, copy=False)


def params_from_state_dict(state, n_heads: int, *, tied: bool | None = None, dtype=None) -> tr.DecoderParams:
    """DecoderParams from a GPT-2 state dict ({HF name: tensor or array}, with or without the
    'transformer.' prefix of GPT2LMHeadModel). tied: the unembedding is wte (GPT-2's tie_word_embeddings);
    False: lm_head.weight; None: lm_head.weight when the dict has one, else wte."""
    if not hasattr(state, "keys"):
        raise TypeError(f"state: expected a state dict {{name: tensor}}, got {describe(state)}")
    state = {k.removeprefix("transformer."): v for k, v in state.items()}
    for name in ("wte.weight", "wpe.weight", "ln_f.weight", "h.0.attn.c_attn.weight"):
        if name not in state:
            raise ValueError(f"state: missing {name!r}; expected the weights of a GPT-2 model "
                             f"(keys such as 'transformer.wte.weight'), got keys {sorted(state)[:6]}")
    a = {k: _to_numpy(v, dtype) for k, v in state.items() if not k.endswith(".attn.bias")}   # old causal buffers
    wte = a["wte.weight"]                                                    # (V, D)
    d = wte.shape[1]
    flat = {"tok_emb": wte, "pos_emb": a["wpe.weight"]}
    n_layers = 0
    while f"h.{n_layers}.ln_1.weight" in a:
        n_layers += 1
    for i in range(n_layers):
        h = f"h.{i}."
        w_qkv, b_qkv = a[h + "attn.c_attn.weight"], a[h + "attn.c_attn.bias"]   # (D, 3D), (3D,): q | k | v
        if w_qkv.shape != (d, 3 * d):
            raise ValueError(f"{h}attn.c_attn.weight: expected shape ({d}, {3 * d}) (D, 3D), got {w_qkv.shape}")
        flat.update({
            f"l{i}_ln1_g": a[h + "ln_1.weight"], f"l{i}_ln1_b": a[h + "ln_1.bias"],
            f"l{i}_w_q": w_qkv[:, :d], f"l{i}_w_k": w_qkv[:, d:2 * d], f"l{i}_w_v": w_qkv[:, 2 * d:],
            f"l{i}_b_q": b_qkv[:d], f"l{i}_b_k": b_qkv[d:2 * d], f"l{i}_b_v": b_qkv[2 * d:],
            f"l{i}_w_o": a[h + "attn.c_proj.weight"], f"l{i}_b_o": a[h + "attn.c_proj.bias"],
            f"l{i}_ln2_g": a[h + "ln_2.weight"], f"l{i}_ln2_b": a[h + "ln_2.bias"],
            f"l{i}_w_1": a[h + "mlp.c_fc.weight"], f"l{i}_b_1": a[h + "mlp.c_fc.bias"],       # (D, F), (F,)
            f"l{i}_w_2": a[h + "mlp.c_proj.weight"], f"l{i}_b_2": a[h + "mlp.c_proj.bias"],   # (F, D), (D,)
        })
    if tied is False and "lm_head.weight" not in a:
        raise ValueError("state: tied=False but there is no 'lm_head.weight' (an untied model's unembedding)")
    head = wte if tied or "lm_head.weight" not in a else a["lm_head.weight"]   # (V, D); tied: wte itself
    flat.update(lnf_g=a["ln_f.weight"], lnf_b=a["ln_f.bias"], w_out=head.T,  # (D, V): a view, no copy
                b_out=np.zeros(head.shape[0], wte.dtype))                   # GPT-2's head has no bias
    return tr.decoder_from_dict(flat, n_heads)                               # every shape checked


def params_from_model(model, *, dtype=None) -> tr.DecoderParams:
    """DecoderParams from a transformers GPT2LMHeadModel or GPT2Model object (its config checked)."""
    config = getattr(model, "config", None)
    if config is None or not hasattr(model, "state_dict"):
        raise TypeError(f"model: expected a transformers GPT-2 model (GPT2LMHeadModel), got {describe(model)}")
    check_config(config)
    state = model.state_dict()
    if not config.tie_word_embeddings and "lm_head.weight" not in state:
        raise ValueError("model: its unembedding is not tied to wte (tie_word_embeddings=False) and it has no "
                         "lm_head; pass the GPT2LMHeadModel, not its GPT2Model")
    return params_from_state_dict(state, config.n_head, tied=bool(config.tie_word_embeddings), dtype=dtype)


def _looks_like_path(source: str) -> bool:
    """A string meant as a folder (a hub name is 'name' or 'owner/name')."""
    return source.startswith(("/", ".", "~")) or "\\" in source or source.endswith("/") or source.count("/") > 1


def _offline_message(name: str, cache_dir, download: bool) -> str:
    where = f"the cache folder {str(cache_dir)!r}" if cache_dir is not None else "the Hugging Face cache (HF_HOME)"
    first = (f"could not download {name!r} from the Hugging Face hub: this machine seems to be offline "
             "(or HF_HUB_OFFLINE is set)." if download else
             f"{name!r} is not in {where}, and nothing is downloaded unless you ask for it.")
    return (f"load_gpt2: {first} Loading GPT-2 by name needs the network once ({HUB_SIZE}, kept in {where}): "
            f"on a machine that is online run `load_gpt2({name!r}, download=True)`. Or point it at a local "
            f"folder: save one where there is network, the model and its tokenizer, with {save_commands(name)}; "
            "copy the folder here and call `load_gpt2('gpt2-local')`.")


def save_commands(name: str = "gpt2", folder: str = "gpt2-local") -> str:
    """The two lines that save a hub model and its tokenizer into a local folder (run where there is network)."""
    return (f"`transformers.GPT2LMHeadModel.from_pretrained({name!r}).save_pretrained({folder!r})` and "
            f"`transformers.AutoTokenizer.from_pretrained({name!r}).save_pretrained({folder!r})`")


TOKENIZER_FILES = ("tokenizer.json", ("vocab.json", "merges.txt"))     # either one: what save_pretrained writes


class TokenizerMissingError(FileNotFoundError):
    """A model folder without tokenizer files (the model was saved, its tokenizer was not). .folder: the folder."""

    def __init__(self, folder):
        self.folder = str(folder)
        super().__init__(
            f"source: the folder {self.folder!r} holds no tokenizer (tokenizer.json, or vocab.json and merges.txt), "
            "only what save_pretrained of the model writes; without one no text can become token ids. Save the "
            f"tokenizer into the same folder where there is network: {save_commands(folder=self.folder)}.")


def has_tokenizer_files(folder) -> bool:
    """True when a folder holds a saved tokenizer (tokenizer.json, or vocab.json and merges.txt)."""
    folder = Path(folder)
    return any(all((folder / f).is_file() for f in ((want,) if isinstance(want, str) else want))
               for want in TOKENIZER_FILES)


def load_tokenizer(source, *, download: bool = False, cache_dir=None):
    """The tokenizer behind `source` (the folder or hub name given to load_gpt2). A folder must hold the tokenizer
    files (TokenizerMissingError otherwise: transformers would return an empty tokenizer that encodes any text as
    []); a hub name is looked up in the cache and fetched only with download=True (OSError saying what to run)."""
    transformers = require_transformers()
    if not isinstance(download, bool):
        raise TypeError(f"download: expected True or False, got {describe(download)}")
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source: expected a folder or a hub name such as 'gpt2', got {describe(source)}")
    folder = Path(source).expanduser()
    if folder.is_dir():
        if not has_tokenizer_files(folder):
            raise TokenizerMissingError(source)
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    elif isinstance(source, os.PathLike) or _looks_like_path(source):
        raise FileNotFoundError(f"source: no folder {str(source)!r}; expected a folder holding a model and its "
                                "tokenizer (save_pretrained of both) or a hub name such as 'gpt2'")
    else:
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(source, local_files_only=not download,
                                                                   cache_dir=cache_dir)
        except OSError as exc:
            raise OSError(_offline_message(source, cache_dir, download)) from exc
    if len(tokenizer) < 2 or not tokenizer("it")["input_ids"]:
        raise ValueError(f"source: the tokenizer of {str(source)!r} is empty ({len(tokenizer)} entries; 'it' encodes "
                         f"as {tokenizer('it')['input_ids']}); expected GPT-2's byte-level BPE, saved with "
                         f"{save_commands()}")
    return tokenizer


def load_pretrained_model(source: str, *, download: bool = False, cache_dir=None):
    """The transformers GPT2LMHeadModel behind `source`: a folder written by save_pretrained, or a hub
    name (looked up in the local cache; fetched only with download=True). In eval mode, eager attention
    (so output_attentions gives the maps). Errors say what to run when the weights are not here."""
    transformers = require_transformers()
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source: expected a GPT-2 model object, a folder or a hub name such as 'gpt2', "
                        f"got {describe(source)}")
    folder = Path(source).expanduser()
    if folder.is_dir():
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(f"source: the folder {str(folder)!r} holds no config.json; expected a folder "
                                    "written by save_pretrained (config.json and model.safetensors)")
        kwargs = {"local_files_only": True}
        label = str(folder)
    elif isinstance(source, os.PathLike) or _looks_like_path(source):
        raise FileNotFoundError(f"source: no folder {str(source)!r}; expected a folder written by "
                                "save_pretrained (config.json and model.safetensors) or a hub name such as 'gpt2'")
    else:
        kwargs = {"local_files_only": not download, "cache_dir": cache_dir}
        label = source
    try:
        config = transformers.AutoConfig.from_pretrained(str(folder) if folder.is_dir() else source, **kwargs)
    except OSError as exc:
        if folder.is_dir():
            raise
        raise OSError(_offline_message(source, cache_dir, download)) from exc
    check_config(config)
    try:
        model = transformers.GPT2LMHeadModel.from_pretrained(str(folder) if folder.is_dir() else source,
                                                             attn_implementation="eager", **kwargs)
    except OSError as exc:
        if folder.is_dir():
            raise FileNotFoundError(f"source: the folder {label!r} holds a config but no weights "
                                    f"(model.safetensors): {exc}") from exc
        raise OSError(_offline_message(source, cache_dir, download)) from exc
    return model.eval()


def load_gpt2(source="gpt2", *, download: bool = False, cache_dir=None, dtype=None) -> tr.DecoderParams:
    """GPT-2 weights as DecoderParams, for decoder_forward (NumPy) or to_torch_decoder (torch).

    source: a transformers GPT-2 model object; a folder written by `save_pretrained` (the model's; keep its
    tokenizer saved in the same folder for `load_tokenizer`, see save_commands()); or a hub name
    ("gpt2", "openai-community/gpt2", ...) looked up in the Hugging Face cache (cache_dir, default
    HF_HOME). download=True lets a hub name be fetched over the network (gpt2: about 500 MB, once);
    without it nothing is downloaded and a missing model raises an OSError that says what to run.
    dtype: np.float32 or np.float64 for every array (default: the weights' own; half -> float32).
    """
    if not isinstance(download, bool):
        raise TypeError(f"download: expected True or False, got {describe(download)}")
    if hasattr(source, "config") and hasattr(source, "state_dict"):
        return params_from_model(source, dtype=dtype)
    return params_from_model(load_pretrained_model(source, download=download, cache_dir=cache_dir), dtype=dtype)
