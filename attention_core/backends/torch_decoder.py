"""The decoder's torch twin: the course's one forward (`core.hooked`) as a trainable `torch.nn.Module`.

    x0 = tok_emb[ids] + pos_emb[:T]; each block x += MHA(LN1(x)), x += FFN(LN2(x)); LN_f(x) W_out + b_out

The twin holds the library's own parameters under the library's own flat names (`parameter_shapes`,
`decoder_to_dict`: tok_emb, l0_w_q, ..., w_out) as nn.Parameters, so weights trained here load into
`decoder_forward` unchanged and DecoderParams (a GPT-2 loaded by `backends.gpt2`, say) run here as
they are. It computes nothing of its own: `self.model` is the library's HookedDecoder on these
parameters, run with torch's namespace (`torch_ops.ops_for`: layer norm, GELU and softmax in torch), so
its hook points, run_with_cache and run_with_hooks are the NumPy model's. Tested equal to
`decoder_forward` (1e-10 in float64, 1e-5 in float32) on random weights, on the trained models of
notebook 12 and against Hugging Face's GPT-2.
Imported only when asked for (`backends.to_torch_decoder`); it imports torch.
Shapes: B batch, T tokens, D = d_model, H heads, L layers, V vocabulary size.
"""
from __future__ import annotations

import numpy as np
import torch

from attention_core.backends import torch_ops
from attention_core.core import transformer as tr
from attention_core.core.model import HookedDecoder
from attention_core.core.validation import describe, positive_int


class TorchDecoder(torch.nn.Module):
    """A causal decoder whose parameters are `self.p[name]`, name as in `parameter_shapes`
    (causal=False: the same stack as an encoder, every token reading every token; decoder_forward's causal=False).

    TorchDecoder(weights, config): weights a flat {name: array} dict (`init_decoder`, `decoder_to_dict`)
    with its DecoderConfig (or the older bare n_heads), or DecoderParams (their config travels with them).
    causal: None follows the config (True without one). dtype: cast every parameter (default: keep the
    arrays' dtype); device: where the parameters live.
    """

    def __init__(self, weights, n_heads=None, *, dtype=None, device=None, causal: bool | None = None):
        super().__init__()
        if causal is not None and not isinstance(causal, bool):
            raise TypeError(f"causal: expected True (a decoder) or False (an encoder), got {describe(causal)}")
        if isinstance(weights, tr.DecoderParams):
            config = weights.config if n_heads is None else n_heads
            weights = tr.decoder_to_dict(weights)
        else:
            config = n_heads
        if config is None:
            raise TypeError("n_heads: expected the weights' DecoderConfig or the number of heads (a flat weights "
                            "dict does not say it), got None")
        params = tr.decoder_from_dict(weights, config, causal=causal)   # every name and shape checked, as in NumPy
        self.causal = params.causal                             # False: an encoder, no causal mask
        dev = torch_ops.check_device("cpu" if device is None else device)
        dt = None if dtype is None else torch_ops.torch_dtype(dtype)
        self.n_heads = params.n_heads
        self.n_layers = params.n_layers
        self.names = list(tr.decoder_to_dict(params))
        flat = tr.decoder_to_dict(params)
        # torch.tensor copies: training never writes into the caller's arrays
        self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(torch.tensor(np.asarray(flat[k]), dtype=dt, device=dev))
                                         for k in self.names})
        # the one forward (core.hooked) on these parameters; the optimizer updates them in place
        self.model = HookedDecoder(dict(self.p), params.config, ops=torch_ops.ops_for(dev))

    @property
    def vocab_size(self) -> int:
        return self.p["tok_emb"].shape[0]

    @property
    def max_len(self) -> int:
        return self.p["pos_emb"].shape[0]

    def forward(self, ids, head_mask=None, attn_mask=None, return_hidden: bool = False):
        """decoder_forward's contract on tensors: ids (T,) or (B, T); head_mask (L, H) numbers
        (0 ablates a head); attn_mask boolean (T, T) or (L, T, T), ANDed with the causal mask.
        Returns (logits (..., T, V), weights (..., L, H, T, T)), and with return_hidden=True also
        the residual stream (..., L + 1, T, D). run_with_cache / run_with_hooks: self.model."""
        return self.model.forward(ids, head_mask=head_mask, attn_mask=attn_mask, return_hidden=return_hidden)

    def numpy_weights(self) -> dict:
        """The parameters as a flat {name: NumPy array} dict (copies), in parameter_shapes order."""
        return {k: self.p[k].detach().cpu().numpy().copy() for k in self.names}

    def to_params(self) -> tr.DecoderParams:
        """The parameters as the library's DecoderParams (for decoder_forward)."""
        return tr.decoder_from_dict(self.numpy_weights(), self.model.config)


def to_torch_decoder(weights, n_heads=None, *, dtype=None, device=None, causal: bool | None = None) -> TorchDecoder:
    """TorchDecoder(weights, config, dtype=, device=, causal=) (see there; causal=False: an encoder)."""
    if n_heads is not None and not isinstance(n_heads, (tr.DecoderConfig, dict)):
        n_heads = positive_int(n_heads, "n_heads")
    return TorchDecoder(weights, n_heads, dtype=dtype, device=device, causal=causal)
