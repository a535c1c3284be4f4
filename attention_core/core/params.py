"""The decoder's parameters: its configuration (`DecoderConfig`), the shape of every weight, the seeded
starting weights, and the two forms the weights take (a flat {name: array} dict, `DecoderParams`).

    config = DecoderConfig(vocab_size=40, d_model=64, n_heads=4, n_layers=2, d_ff=128, max_len=32)
    weights = init_decoder(config, seed=0)                  # flat dict: tok_emb, l0_w_q, ..., w_out
    params = decoder_from_dict(weights, config)             # DecoderParams, every shape checked
    params.config == config                                 # the config travels with the weights

The weights imply every size but the number of heads and whether the model is causal; a config holds
all of them, so `n_heads` is never passed beside the weights. Model files store `config.to_dict()`.
Shapes: V vocabulary, D = d_model, F = d_ff, L layers, T_max = max_len, H heads.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields

import numpy as np

from . import hooked
from .multihead import MultiHeadParams
from .validation import as_float_array, as_generator, check_flag, describe, float_dtype, positive_int


@dataclass(frozen=True)
class DecoderConfig:
    """The sizes of a decoder: vocab_size V, d_model D, n_heads H, n_layers L, d_ff F (0: no feed-forward),
    max_len T_max, and causal (False: the same stack read as an encoder). Checked when made."""
    vocab_size: int
    d_model: int
    n_heads: int
    n_layers: int
    d_ff: int
    max_len: int
    causal: bool = True

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "causal":
                object.__setattr__(self, "causal", check_flag(value, "causal"))
            else:
                object.__setattr__(self, f.name, positive_int(value, f.name, minimum=0 if f.name == "d_ff" else 1))
        if self.d_model % self.n_heads:
            raise ValueError(f"n_heads: d_model={self.d_model} is not divisible by n_heads={self.n_heads} "
                             f"(each head reads D / H columns)")

    @property
    def d_head(self) -> int:
        """Dh = D / H, the width of one head."""
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        """{field: value} of plain ints and a bool (what a model file's JSON stores)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d, *, allow_extra: bool = False) -> DecoderConfig:
        """The config a dict describes (to_dict's output; "causal" may be absent: a decoder). Unknown keys are
        refused unless allow_extra (a manifest's config also holds training settings such as lr)."""
        if not isinstance(d, dict):
            raise TypeError(f"config: expected a dict with keys {cls.keys()}, got {describe(d)}")
        names = cls.keys()
        missing = [n for n in names if n not in d and n != "causal"]
        if missing:
            raise ValueError(f"config: missing {missing} (a decoder config has keys {names}), got keys {list(d)}")
        extra = [k for k in d if k not in names]
        if extra and not allow_extra:
            raise ValueError(f"config: unexpected keys {extra} (a decoder config has keys {names})")
        try:
            return cls(**{n: d[n] for n in names if n in d})
        except (TypeError, ValueError) as e:
            raise type(e)(f"config: {e}") from None

    @classmethod
    def keys(cls) -> list:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_weights(cls, weights: dict, n_heads: int, *, causal: bool = True) -> DecoderConfig:
        """The config of a flat weights dict: every size read from the shapes, n_heads and causal given."""
        if not isinstance(weights, dict):
            raise TypeError(f"weights: expected a dict of arrays, got {describe(weights)}")
        for name in ("tok_emb", "pos_emb", "l0_w_q", "l0_w_1"):
            if name not in weights:
                raise ValueError(f"weights: missing the array {name!r}")
        for name in ("tok_emb", "pos_emb", "l0_w_1"):                 # their shapes give V, D, T_max and F
            if np.ndim(weights[name]) != 2:
                raise ValueError(f"{name}: expected a 2-D array, got {describe(weights[name])}")
        v, d = tuple(np.shape(weights["tok_emb"]))
        if v == 0 or d == 0:
            raise ValueError(f"tok_emb: expected a (V, D) table with V >= 1 tokens and D >= 1, got shape {(v, d)}")
        max_len = tuple(np.shape(weights["pos_emb"]))[0]
        if max_len == 0:
            raise ValueError("pos_emb: expected a (T_max, D) table with T_max >= 1 positions, got 0 rows")
        return cls(vocab_size=v, d_model=d, n_heads=n_heads, n_layers=hooked.n_layers_of(weights),
                   d_ff=tuple(np.shape(weights["l0_w_1"]))[1], max_len=max_len, causal=causal)

    def parameter_shapes(self) -> dict:
        """{flat name: shape} of every weight of this config (see `parameter_shapes`)."""
        return parameter_shapes(self.vocab_size, self.d_model, self.n_layers, self.d_ff, self.max_len)


def as_config(config, what: str = "config") -> DecoderConfig:
    """A DecoderConfig from a DecoderConfig or its dict (to_dict's form)."""
    if isinstance(config, DecoderConfig):
        return config
    if isinstance(config, dict):
        return DecoderConfig.from_dict(config)
    raise TypeError(f"{what}: expected a DecoderConfig (or its dict), got {describe(config)}")


@dataclass(frozen=True)
class BlockParams:
    """One pre-LN block: LN1, multi-head self-attention, LN2, feed-forward."""
    ln1_g: np.ndarray          # (D,)
    ln1_b: np.ndarray          # (D,)
    attn: MultiHeadParams      # W_q, W_k, W_v, W_o (D, D) and biases (D,)
    ln2_g: np.ndarray          # (D,)
    ln2_b: np.ndarray          # (D,)
    w_1: np.ndarray            # (D, F)
    b_1: np.ndarray            # (F,)
    w_2: np.ndarray            # (F, D)
    b_2: np.ndarray            # (D,)


def block_arrays(b: BlockParams) -> tuple:
    """One block's arrays in the order of BLOCK_NAMES."""
    a = b.attn
    return (b.ln1_g, b.ln1_b, a.w_q, a.b_q, a.w_k, a.b_k, a.w_v, a.b_v, a.w_o, a.b_o, b.ln2_g, b.ln2_b,
            b.w_1, b.b_1, b.w_2, b.b_2)


@dataclass(frozen=True)
class DecoderParams:
    """A decoder's weights: embeddings, L blocks, a final LN and the unembedding; causal=False reads the
    same stack as an encoder. `config` gives all its sizes (the number of heads sits in each block)."""
    tok_emb: np.ndarray        # (V, D)
    pos_emb: np.ndarray        # (T_max, D)
    blocks: tuple              # L BlockParams
    lnf_g: np.ndarray          # (D,)
    lnf_b: np.ndarray          # (D,)
    w_out: np.ndarray          # (D, V)
    b_out: np.ndarray          # (V,)
    causal: bool = True

    def __post_init__(self):
        if not isinstance(self.blocks, (tuple, list)):
            raise TypeError(f"blocks: expected a tuple of BlockParams, got {describe(self.blocks)}")
        for i, b in enumerate(self.blocks):
            if not isinstance(b, BlockParams):
                raise TypeError(f"blocks[{i}]: expected BlockParams (see block_params), got {describe(b)}")
        object.__setattr__(self, "blocks", tuple(self.blocks))
        object.__setattr__(self, "causal", check_flag(self.causal, "causal"))

    @property
    def n_layers(self) -> int:
        return len(self.blocks)

    @property
    def n_heads(self) -> int:
        return self.blocks[0].attn.n_heads

    @property
    def d_model(self) -> int:
        return self.tok_emb.shape[1]

    @property
    def vocab_size(self) -> int:
        return self.tok_emb.shape[0]

    @property
    def max_len(self) -> int:
        return self.pos_emb.shape[0]

    @property
    def config(self) -> DecoderConfig:
        """The DecoderConfig these weights implement."""
        return DecoderConfig(vocab_size=int(self.vocab_size), d_model=int(self.d_model), n_heads=self.n_heads,
                             n_layers=self.n_layers, d_ff=int(self.blocks[0].w_1.shape[-1]) if self.blocks else 0,
                             max_len=int(self.max_len), causal=self.causal)


_SYMBOLS = {"tok_emb": "(V, D)", "pos_emb": "(T_max, D)", "lnf_g": "(D,)", "lnf_b": "(D,)", "w_out": "(D, V)",
            "b_out": "(V,)", "w_1": "(D, F)", "b_1": "(F,)", "w_2": "(F, D)",
            **{n: "(D, D)" for n in ("w_q", "w_k", "w_v", "w_o")},
            **{n: "(D,)" for n in ("b_q", "b_k", "b_v", "b_o", "ln1_g", "ln1_b", "ln2_g", "ln2_b", "b_2")}}
BLOCK_NAMES = ("ln1_g", "ln1_b", "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o",
                "ln2_g", "ln2_b", "w_1", "b_1", "w_2", "b_2")


def parameter_shapes(vocab_size: int, d_model: int, n_layers: int, d_ff: int, max_len: int) -> dict:
    """{flat name: shape} of every parameter, in the order used by files and by the torch twin.
    Block parameters are named l{i}_{name}, e.g. l0_w_q (D, D), l1_w_1 (D, F)."""
    v, d = positive_int(vocab_size, "vocab_size"), positive_int(d_model, "d_model")
    n_layers, f = positive_int(n_layers, "n_layers"), positive_int(d_ff, "d_ff", minimum=0)
    max_len = positive_int(max_len, "max_len")
    shapes = {"tok_emb": (v, d), "pos_emb": (max_len, d)}
    per_block = {"ln1_g": (d,), "ln1_b": (d,), "w_q": (d, d), "b_q": (d,), "w_k": (d, d), "b_k": (d,),
                 "w_v": (d, d), "b_v": (d,), "w_o": (d, d), "b_o": (d,), "ln2_g": (d,), "ln2_b": (d,),
                 "w_1": (d, f), "b_1": (f,), "w_2": (f, d), "b_2": (d,)}
    for i in range(n_layers):
        shapes.update({f"l{i}_{name}": per_block[name] for name in BLOCK_NAMES})
    shapes.update({"lnf_g": (d,), "lnf_b": (d,), "w_out": (d, v), "b_out": (v,)})
    return shapes


MAX_INIT_BYTES = 8 << 30         # a model of more weights than this machine's memory is a typo, not a model


def init_decoder(config, d_model: int | None = None, n_heads: int | None = None, n_layers: int | None = None,
                 d_ff: int | None = None, max_len: int | None = None, *, seed: int | np.random.Generator = 0,
                 dtype=np.float32) -> dict:
    """Seeded starting weights as a flat {name: array} dict (GPT-2 style: normal(0, 0.02), with the
    projections into the residual stream scaled by 1/sqrt(2L); LN gains 1, biases 0).
    init_decoder(config, seed=) with a DecoderConfig; the older positional form
    init_decoder(vocab_size, d_model, n_heads, n_layers, d_ff, max_len) still works."""
    sizes = (d_model, n_heads, n_layers, d_ff, max_len)
    if isinstance(config, (DecoderConfig, dict)):
        if any(s is not None for s in sizes):
            raise TypeError("init_decoder: pass either a DecoderConfig or the six sizes, not both")
        config = as_config(config)
    else:
        if any(s is None for s in sizes):
            raise TypeError("init_decoder: expected a DecoderConfig, or vocab_size, d_model, n_heads, n_layers, "
                            "d_ff, max_len")
        config = DecoderConfig(vocab_size=config, d_model=d_model, n_heads=n_heads, n_layers=n_layers, d_ff=d_ff,
                               max_len=max_len)
    dtype = float_dtype(dtype)                             # an integer dtype would round every weight to 0
    shapes = config.parameter_shapes()
    size = sum(math.prod(s) for s in shapes.values())
    if size * dtype.itemsize > MAX_INIT_BYTES:
        raise ValueError(f"vocab_size, d_model, n_layers, d_ff, max_len: these sizes need {size:,} weights "
                         f"({size * dtype.itemsize / 2**30:.3g} GiB of {dtype.name}); expected at most "
                         f"{MAX_INIT_BYTES / 2**30:.0f} GiB")
    rng = as_generator(seed)
    out = {}
    for name, shape in shapes.items():
        short = name.split("_", 1)[1] if name[0] == "l" and name[1].isdigit() else name
        if short.endswith("_g"):
            arr = np.ones(shape)
        elif len(shape) == 1:
            arr = np.zeros(shape)
        else:
            std = 0.02 / math.sqrt(2 * config.n_layers) if short in ("w_o", "w_2") else 0.02
            arr = rng.normal(0.0, std, shape)
        out[name] = arr.astype(dtype)
    return out


def _config_of(weights: dict, config, causal=None) -> DecoderConfig:
    """The DecoderConfig that `config` (a DecoderConfig, its dict, or the older bare n_heads) gives weights."""
    if isinstance(config, (DecoderConfig, dict)):
        config = as_config(config)
        return config if causal is None else DecoderConfig(**{**config.to_dict(), "causal": causal})
    if config is None:
        raise TypeError("config: a flat weights dict does not say how many heads; pass its DecoderConfig")
    return DecoderConfig.from_weights(weights, positive_int(config, "n_heads"),
                                      causal=True if causal is None else causal)


def decoder_from_dict(weights: dict, config, *, causal: bool | None = None) -> DecoderParams:
    """Assemble DecoderParams from flat arrays named as in `parameter_shapes`, checking every name and shape
    against `config` (a DecoderConfig; a bare n_heads still works and reads the other sizes off the weights)."""
    if not isinstance(weights, dict):
        raise TypeError(f"weights: expected a dict of arrays, got {type(weights).__name__}")
    if not isinstance(config, (DecoderConfig, dict, numbers.Integral)) or isinstance(config, bool):
        raise TypeError(f"config: expected a DecoderConfig (or the older bare n_heads, an integer >= 1), "
                        f"got {describe(config)}")
    if isinstance(config, numbers.Integral):
        positive_int(config, "n_heads")                            # checked before the arrays are read
    config = _config_of(weights, config, causal)
    expected = config.parameter_shapes()
    missing = [n for n in expected if n not in weights]
    extra = [n for n in weights if n not in expected]
    if missing or extra:
        raise ValueError(f"weights: missing {missing}, unexpected {extra} (for {config})")
    arrays = {}
    for name, shape in expected.items():
        arr = as_float_array(weights[name], name)
        if arr.shape != shape:
            short = name.split("_", 1)[1] if name[0] == "l" and name[1].isdigit() else name
            raise ValueError(f"{name}: expected shape {shape} = {_SYMBOLS[short]}, got {arr.shape}")
        arrays[name] = arr
    return assemble(arrays, config)


def assemble(flat: dict, config) -> DecoderParams:
    """DecoderParams holding the arrays of `flat` themselves (NumPy arrays or tensors, not copied: autograd
    reaches a tensor through every piece). decoder_from_dict checks a dict first, then assembles it.
    config: the DecoderConfig (or the older bare n_heads, causal then True)."""
    n_heads, causal = (config.n_heads, config.causal) if isinstance(config, DecoderConfig) else (config, True)
    blocks = tuple(block_params(hooked.block_weights(flat, i), n_heads) for i in range(hooked.n_layers_of(flat)))
    return DecoderParams(flat["tok_emb"], flat["pos_emb"], blocks, flat["lnf_g"], flat["lnf_b"],
                         flat["w_out"], flat["b_out"], causal)


def block_params(g: dict, n_heads: int) -> BlockParams:
    """BlockParams of one block's arrays under their short names (ln1_g, w_q, ..., b_2), not copied."""
    attn = MultiHeadParams(g["w_q"], g["w_k"], g["w_v"], g["w_o"], g["b_q"], g["b_k"], g["b_v"], g["b_o"],
                           n_heads=n_heads)
    return BlockParams(g["ln1_g"], g["ln1_b"], attn, g["ln2_g"], g["ln2_b"], g["w_1"], g["b_1"], g["w_2"], g["b_2"])


def decoder_to_dict(params: DecoderParams) -> dict:
    """The flat {name: array} form of DecoderParams (what files store and the torch twin holds);
    params.config holds what the arrays do not say (n_heads, causal)."""
    out = {"tok_emb": params.tok_emb, "pos_emb": params.pos_emb}
    for i, b in enumerate(params.blocks):
        out.update({f"l{i}_{name}": arr for name, arr in zip(BLOCK_NAMES, block_arrays(b))})
    out.update(lnf_g=params.lnf_g, lnf_b=params.lnf_b, w_out=params.w_out, b_out=params.b_out)
    return out
