"""The widget machinery (teaching.widget_base): a persistent figure updated in place, pre-rasterised
cell labels. Each notebook's widgets are tested with its lab (tests/labs)."""
import io
import warnings

import numpy as np
import pytest
from testkit import image_bytes

from attention_core.teaching import i18n
from attention_core.teaching import widget_base as W


# --- HeatmapView ------------------------------------------------------------------------------
def test_heatmap_view_updates_in_place():
    from PIL import Image
    rng = np.random.default_rng(1)
    w1, w2 = (rng.dirichlet(np.ones(10), size=10) for _ in range(2))
    view = W.HeatmapView(w1, [f"t{i}" for i in range(10)])
    figure, first = view.figure, image_bytes(view.widget)
    assert first.startswith(b"\x89PNG") and Image.open(io.BytesIO(first)).size[0] > 300
    assert view.update(w2) != first and view.figure is figure        # same figure, new picture
    assert view.update(w1) == first                                  # deterministic
    view.update(w1, mask=np.tril(np.ones((10, 10), bool)))
    assert image_bytes(view.widget) != first
    view.update(w1[:4, :4], ["a", "b", "c", "d"])                    # new shape: rebuilt
    assert view.figure is not figure


def test_heatmap_view_chinese_labels_render_cleanly():
    i18n.set_language("zh")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        W.HeatmapView(np.full((5, 5), 0.2), ["小红", "说", "她", "累", "了"])


def test_heatmap_view_validates():
    view = W.HeatmapView()
    with pytest.raises(ValueError, match="weights"):
        view.update(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="labels"):
        view.update(np.zeros((2, 2)), ["a"])
    with pytest.raises(TypeError, match="mask"):
        view.update(np.zeros((2, 2)), mask=np.ones((2, 2)))


def test_text_stamps_cache_and_clip():
    stamps = W.TextStamps(11, 90)
    pixels = np.full((20, 20, 4), 255, np.uint8)
    stamps.stamp(pixels, "0.50", 2, 2, (0, 0, 0))                    # partly outside: clipped
    assert (pixels[..., :3] < 255).any()
    assert stamps.mask("0.50") is stamps.mask("0.50")
    assert stamps.mask("") is None
