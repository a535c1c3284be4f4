"""Notebook 00: the dot-product widget (pure state, redraws, a message instead of an exception)."""
import pytest
from testkit import image_bytes, is_error

from attention_core.labs.nb00_start_here import widgets as W
from attention_core.teaching import i18n


# --- dot product (notebook 00) ----------------------------------------------------------------
def test_dot_product_state():
    s = W.dot_product_state([1, 0], [0, 2])
    assert s["dot"] == 0 and s["cos"] == 0 and s["angle_deg"] == pytest.approx(90)
    s = W.dot_product_state([3, 4], [3, 4])
    assert s["dot"] == 25 and s["norm_a"] == 5 and s["cos"] == pytest.approx(1)
    s = W.dot_product_state([0, 0], [1, 1])
    assert s["cos"] is None and s["angle_deg"] is None


def test_dot_product_widget_updates_and_handles_zero_vector():
    panel = W.dot_product_widget()
    before = image_bytes(panel.images["vectors"])
    panel.controls["a0"].value = 0.0
    panel.controls["a1"].value = 0.0
    assert not is_error(panel)
    assert i18n.t("plots.undefined") in panel.readout.value
    # "·" is the dot itself and "|a|" a length, so neither separates the parts of the readout.
    assert panel.readout.value.count("·") == 1 and "; lengths |a|" in panel.readout.value
    assert image_bytes(panel.images["vectors"]) != before
    assert W.dot_product_widget(a=[1, 2, 3]).message.value          # not 2-D: message, no exception


def test_text_form_is_short_and_stable():
    panel = W.dot_product_widget()
    assert panel._repr_mimebundle_()["text/plain"] == "<dot_product widget>"
    assert repr(panel.images["vectors"]) == "Image(png)"
