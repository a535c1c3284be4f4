"""The decoder's torch twin: `core.transformer.decoder_forward` as a trainable `torch.nn.Module`.

    x0 = tok_emb[ids] + pos_emb[:T]; each block x += MHA(LN1(x)), x += FFN(LN2(x)); LN_f(x) W_out + b_out

The twin holds the library's own parameters under the library's own flat names (`parameter_shapes`,
`decoder_to_dict`: tok_emb, l0_w_q, ..., w_out) as nn.Parameters, so weights trained here load into
`decoder_forward` unchanged and DecoderParams (a GPT-2 loaded by `backends.gpt2`, say) run here as
they are. It computes nothing of its own: attention is `torch_ops.attend_heads` (the backend's
explicit path, the one tested against `reference_attention`), layer norm and GELU are torch_ops's
copies of the library's formulas, the causal mask is `core.masks.causal_mask`. Tested equal to
`decoder_forward` (1e-10 in float64, 1e-5 in float32) on random weights, on the trained models of
notebook 12 and against Hugging Face's GPT-2.
Imported only when asked for (`backends.to_torch_decoder`); it imports torch.
Shapes: B batch, T tokens, D = d_model, H heads, L layers, V vocabulary size.
"""
from __future__ import annotations

import numpy as np
import torch

from attention_core.backends import is_tensor, torch_ops
from attention_core.core import transformer as tr
from attention_core.core.masks import causal_mask
from attention_core.core.validation import describe, positive_int

# one block's parameter names (ln1_g, ..., b_2), read off the library's own table
BLOCK_NAMES = tuple(k.removeprefix("l0_") for k in tr.parameter_shapes(1, 1, 1, 1, 1) if k.startswith("l0_"))


class TorchDecoder(torch.nn.Module):
    """A causal decoder whose parameters are `self.p[name]`, name as in `parameter_shapes`
    (causal=False: the same stack as an encoder, every token reading every token; decoder_forward's causal=False).

    TorchDecoder(weights, n_heads): weights a flat {name: array} dict (`init_decoder`,
    `decoder_to_dict`) or DecoderParams (then n_heads comes from it). dtype: cast every parameter
    (default: keep the arrays' dtype); device: where the parameters live.
    """

    def __init__(self, weights, n_heads: int | None = None, *, dtype=None, device=None, causal: bool = True):
        super().__init__()
        if not isinstance(causal, bool):
            raise TypeError(f"causal: expected True (a decoder) or False (an encoder), got {describe(causal)}")
        self.causal = causal                                    # False: an encoder, no causal mask
        if isinstance(weights, tr.DecoderParams):
            n_heads = weights.n_heads if n_heads is None else n_heads
            weights = tr.decoder_to_dict(weights)
        if n_heads is None:
            raise TypeError("n_heads: expected the number of heads (a flat weights dict does not say it), got None")
        params = tr.decoder_from_dict(weights, n_heads)        # every name and shape checked, as in NumPy
        dev = torch_ops.check_device("cpu" if device is None else device)
        dt = None if dtype is None else torch_ops.torch_dtype(dtype)
        self.n_heads = params.n_heads
        self.n_layers = params.n_layers
        self.names = list(tr.decoder_to_dict(params))
        flat = tr.decoder_to_dict(params)
        # torch.tensor copies: training never writes into the caller's arrays
        self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(torch.tensor(np.asarray(flat[k]), dtype=dt, device=dev))
                                         for k in self.names})

    @property
    def vocab_size(self) -> int:
        return self.p["tok_emb"].shape[0]

    @property
    def max_len(self) -> int:
        return self.p["pos_emb"].shape[0]

    def _ids(self, ids) -> torch.Tensor:
        """Token ids under the library's rules (check_ids), as an int64 tensor on the parameters' device."""
        dev = self.p["tok_emb"].device
        if is_tensor(ids):
            if ids.is_floating_point() or ids.dtype == torch.bool:
                raise TypeError(f"ids: expected integer token ids of shape (T,) or (B, T), got {describe(ids)}")
            tr.check_ids(ids.detach().cpu().numpy(), self.vocab_size, self.max_len)
            return ids.to(device=dev, dtype=torch.int64)
        return torch.as_tensor(tr.check_ids(ids, self.vocab_size, self.max_len), device=dev)

    def _masks(self, attn_mask, t: int) -> list:
        """The causal mask of each layer, ANDed with an optional boolean (T, T) or (L, T, T) mask."""
        dev = self.p["tok_emb"].device
        causal = torch.as_tensor(causal_mask(t) if self.causal else np.ones((t, t), dtype=bool),
                                 device=dev)                                         # (T, T), True = may attend
        if attn_mask is None:
            return [causal] * self.n_layers
        extra = torch_ops.as_bool_tensor(attn_mask, "attn_mask", dev)
        if tuple(extra.shape[-2:]) != (t, t):
            raise ValueError(f"attn_mask: expected its last two axes to be (T, T) = ({t}, {t}), "
                             f"got {tuple(extra.shape)}")
        if extra.ndim >= 3 and extra.shape[-3] == self.n_layers:
            return [extra[..., i, :, :] & causal for i in range(self.n_layers)]
        return [extra & causal] * self.n_layers

    def forward(self, ids, head_mask=None, attn_mask=None, return_hidden: bool = False):
        """decoder_forward's contract on tensors: ids (T,) or (B, T); head_mask (L, H) numbers
        (0 ablates a head); attn_mask boolean (T, T) or (L, T, T), ANDed with the causal mask.
        Returns (logits (..., T, V), weights (..., L, H, T, T)), and with return_hidden=True also
        the residual stream (..., L + 1, T, D)."""
        p = self.p
        ids = self._ids(ids)
        t = ids.shape[-1]
        if head_mask is not None:
            head_mask = torch_ops.as_float_tensor(head_mask, "head_mask", p["tok_emb"].device, ndim=2)
            if tuple(head_mask.shape) != (self.n_layers, self.n_heads):
                raise ValueError(f"head_mask: expected shape (L, H) = ({self.n_layers}, {self.n_heads}), "
                                 f"got {tuple(head_mask.shape)}")
        masks = self._masks(attn_mask, t)
        x = p["tok_emb"][ids] + p["pos_emb"][:t]                                    # (..., T, D)
        hidden, maps = [x], []
        for i in range(self.n_layers):
            g = {name: p[f"l{i}_{name}"] for name in BLOCK_NAMES}
            z = torch_ops.layer_norm(x, g["ln1_g"], g["ln1_b"])                    # (..., T, D)
            attn_out, w = torch_ops.attend_heads(z, z, z, g, self.n_heads, masks[i],
                                                 None if head_mask is None else head_mask[i])   # w (..., H, T, T)
            x = x + attn_out                                                        # residual 1
            z = torch_ops.layer_norm(x, g["ln2_g"], g["ln2_b"])
            x = x + torch_ops.gelu(z @ g["w_1"] + g["b_1"]) @ g["w_2"] + g["b_2"]   # residual 2
            hidden.append(x)
            maps.append(w)
        logits = torch_ops.layer_norm(x, p["lnf_g"], p["lnf_b"]) @ p["w_out"] + p["b_out"]   # (..., T, V)
        weights = torch.stack(maps, dim=-4)                                         # (..., L, H, T, T)
        if return_hidden:
            return logits, weights, torch.stack(hidden, dim=-3)                     # (..., L + 1, T, D)
        return logits, weights

    def numpy_weights(self) -> dict:
        """The parameters as a flat {name: NumPy array} dict (copies), in parameter_shapes order."""
        return {k: self.p[k].detach().cpu().numpy().copy() for k in self.names}

    def to_params(self) -> tr.DecoderParams:
        """The parameters as the library's DecoderParams (for decoder_forward)."""
        return tr.decoder_from_dict(self.numpy_weights(), self.n_heads)


def to_torch_decoder(weights, n_heads: int | None = None, *, dtype=None, device=None,
                     causal: bool = True) -> TorchDecoder:
    """TorchDecoder(weights, n_heads, dtype=, device=, causal=) (see there; causal=False: an encoder)."""
    if n_heads is not None:
        n_heads = positive_int(n_heads, "n_heads")
    return TorchDecoder(weights, n_heads, dtype=dtype, device=device, causal=causal)
