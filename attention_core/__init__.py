"""attention_core: the attention library behind the Attention Lab notebooks.

`import attention_core as ac` gives the library API: softmax, scaled dot-product attention (a
readable reference and a fast path), tiled attention, masks, multi-head attention, position
encodings. NumPy is the reference backend and always works; torch is optional and imported
lazily, only when a torch tensor comes in or a torch backend is asked for.

The package is four layers, each importing only the ones before it (a test walks the imports):
  core/       the library, NumPy only (these names, without the routing; the Transformer block and
              decoder of notebook 12 are NumPy only and exported as they are)
  backends/   the one dispatch (tensors -> torch_ops) and the torch code
  teaching/   course-agnostic machinery: plots, widget base, quiz, checker machinery, fonts, strings
  labs/       one subpackage per notebook: its experiments, widgets, checkers and strings
Dimension names used everywhere: B batch, H heads, Tq/Tk query/key length, Dk/Dv widths,
D model width, Dh = D / H per head.
"""
from attention_core.backends import compute, from_torch_mha, load_gpt2, table, to_torch_decoder, to_torch_mha
from attention_core.core import attention as _attention
from attention_core.core import masks as _masks
from attention_core.core import multihead as _multihead
from attention_core.core import positional as _positional
from attention_core.core import softmax as _softmax
from attention_core.core import tiled as _tiled
from attention_core.core.attention import reference_attention
from attention_core.core.model import ActivationCache, HookedDecoder
from attention_core.core.multihead import MultiHeadParams, init_multihead
from attention_core.core.params import DecoderConfig
from attention_core.core.softmax import reference_softmax
from attention_core.core.transformer import (
                                             BlockParams,
                                             DecoderParams,
                                             decoder_forward,
                                             decoder_from_dict,
                                             decoder_to_dict,
                                             embed,
                                             feed_forward,
                                             init_decoder,
                                             layer_norm,
                                             transformer_block,
)

__version__ = "0.3.0"

# The library's functions, each routed once: tensors in -> torch, NumPy in -> NumPy (see backends).
softmax = compute(_softmax.softmax, "softmax", ("x", "mask"))
scaled_dot_product_attention = compute(_attention.scaled_dot_product_attention, "scaled_dot_product_attention",
                                       ("q", "k", "v", "mask"), choose_backend=True)
attention_scores = compute(_attention.attention_scores, "attention_scores", ("q", "k"))
tiled_attention = compute(_tiled.tiled_attention, "tiled_attention", ("q", "k", "v", "mask"))
multi_head_attention = compute(_multihead.multi_head_attention, "multi_head_attention",
                               ("query", "key", "value", "mask", "head_mask"), choose_backend=True)
split_heads = compute(_multihead.split_heads, "split_heads", ("x",))
merge_heads = compute(_multihead.merge_heads, "merge_heads", ("x",))
apply_rope = compute(_positional.apply_rope, "apply_rope", ("x", "positions"))
combine_masks = compute(_masks.combine_masks, "combine_masks", ("masks",))
additive_mask = compute(_masks.additive_mask, "additive_mask", ("mask",))

# Tables depend only on integers: computed in NumPy, returned like `like=` (a tensor: on its device).
causal_mask = table(_masks.causal_mask)
padding_mask = table(_masks.padding_mask)
sliding_window_mask = table(_masks.sliding_window_mask)
sinusoidal_encoding = table(_positional.sinusoidal_encoding)
rope_frequencies = table(_positional.rope_frequencies)
learned_position_table = table(_positional.learned_position_table)

__all__ = [
    "softmax", "reference_softmax", "scaled_dot_product_attention", "reference_attention", "attention_scores",
    "tiled_attention",
    "causal_mask", "padding_mask", "sliding_window_mask", "combine_masks", "additive_mask",
    "MultiHeadParams", "init_multihead", "split_heads", "merge_heads", "multi_head_attention",
    "to_torch_mha", "from_torch_mha",
    "sinusoidal_encoding", "rope_frequencies", "apply_rope", "learned_position_table",
    "layer_norm", "feed_forward", "transformer_block", "embed", "decoder_forward", "init_decoder",
    "decoder_from_dict", "decoder_to_dict", "BlockParams", "DecoderParams", "DecoderConfig", "HookedDecoder",
    "ActivationCache", "to_torch_decoder", "load_gpt2",
]
