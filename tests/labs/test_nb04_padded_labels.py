"""Notebook 04's figure of a padded batch: each sequence's panel shows its own words and its pads."""
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb04_masking import masking_lab


def test_each_panel_shows_its_own_words():
    both = ac.combine_masks(ac.causal_mask(4), ac.padding_mask(np.array([4, 2]), 4))   # (2, 4, 4)
    words = [["a", "b", "c", "d"], ["x", "y", "<pad>", "<pad>"]]
    fig = masking_lab.plot_mask_grid(list(both), words)
    ticks = [[t.get_text() for t in ax.get_xticklabels()] for ax in fig.axes[:2]]
    assert ticks == words


def test_one_list_per_mask_is_required():
    both = ac.combine_masks(ac.causal_mask(4), ac.padding_mask(np.array([4, 2]), 4))
    with pytest.raises(ValueError, match="one list of tokens per mask"):
        masking_lab.plot_mask_grid(list(both), [["a", "b", "c", "d"]])
    with pytest.raises(ValueError, match="at least 4 tokens"):
        masking_lab.plot_mask_grid(list(both), [["a", "b", "c", "d"], ["x"]])
