"""attention_core: every definition the Attention Lab notebooks use (attention, softmax, masks,
heads, position encodings, and, in their own modules, plots, widgets, quizzes and checks).

NumPy is the reference backend and always works; torch is optional and imported lazily, only
when a torch tensor comes in or a torch backend is asked for.
Dimension names used everywhere: B batch, H heads, Tq/Tk query/key length, Dk/Dv widths,
D model width, Dh = D / H per head.
"""
from attention_core.core.attention import attention_scores, scaled_dot_product_attention
from attention_core.core.masks import additive_mask, causal_mask, combine_masks, padding_mask, sliding_window_mask
from attention_core.core.multihead import (MultiHeadParams, from_torch_mha, init_multihead, merge_heads,
                        multi_head_attention, split_heads, to_torch_mha)
from attention_core.core.positional import apply_rope, learned_position_table, rope_frequencies, sinusoidal_encoding
from attention_core.core.softmax import softmax
from attention_core.core.tiled import tiled_attention

__version__ = "0.1.0"

__all__ = [
    "softmax", "scaled_dot_product_attention", "attention_scores", "tiled_attention",
    "causal_mask", "padding_mask", "sliding_window_mask", "combine_masks", "additive_mask",
    "MultiHeadParams", "init_multihead", "split_heads", "merge_heads", "multi_head_attention",
    "to_torch_mha", "from_torch_mha",
    "sinusoidal_encoding", "rope_frequencies", "apply_rope", "learned_position_table",
]
