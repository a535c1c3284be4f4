"""Static fallbacks: a widget's display bundle carries HTML (and a PNG) of its state for front ends without a kernel."""
import base64

import ipywidgets as widgets
import pytest

from attention_core.teaching import i18n, quiz
from attention_core.teaching.static_view import StaticVBox, first_png, static_html
from attention_core.teaching.widget_base import Panel, png_image, slider_layout

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_panel():
    from attention_core.labs.nb00_start_here import widgets as nb00
    return nb00.dot_product_widget()


def test_panel_bundle_has_widget_view_html_and_png(english):
    panel = _png_panel()
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == repr(panel)
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG_MAGIC) and png == bytes(next(iter(panel.images.values())).value)
    html = bundle["text/html"]
    assert 'src="data:image/png;base64,' in html
    assert i18n.t("static.note", "en") in html
    assert i18n.t("widgets.dot_title", "en") in html        # the title is there as text


def test_static_html_shows_controls_values_and_skips_hidden_parts():
    slider = widgets.FloatSlider(value=1.25, description="q[0]", readout_format=".2f")
    hidden = widgets.HTML("SECRET", layout={"display": "none"})
    choice = widgets.ToggleButtons(options=["A", "B"], value="B")
    html = static_html(StaticVBox([widgets.HTML("<b>title</b>"), widgets.HBox([slider, choice]), hidden]))
    assert "<b>title</b>" in html and "q[0]" in html and "1.25" in html
    assert "<b>[B]</b>" in html and "SECRET" not in html
    assert first_png(StaticVBox([hidden])) is None


def test_quiz_bundle_shows_question_and_choices_not_the_answer():
    box = quiz.quiz_widget("q6", "zh")
    html = box._repr_mimebundle_()["text/html"]
    q = quiz.get_question("q6")
    assert q.topic["zh"] in html
    for option in q.options:
        assert quiz._md(option.text["zh"]) in html
    assert quiz._md(q.reference["zh"]) not in html          # the reference answer stays hidden
    assert "image/png" not in box._repr_mimebundle_()


@pytest.mark.parametrize("maker", [lambda: quiz.notebook_quiz("01_query_key_value", "en"),
                                   lambda: quiz.review_quiz("en")])
def test_quiz_collections_have_static_html(maker):
    html = maker()._repr_mimebundle_()["text/html"]
    assert "Q6" in html and "attention-lab-static" in html


def test_images_are_not_stretched_and_long_labels_get_room():
    assert png_image().layout.align_self == "flex-start"      # a VBox would otherwise stretch the PNG
    long, short = slider_layout("needle distance (tokens before the question)"), slider_layout("W")
    assert int(long["width"][:-2]) - int(short["width"][:-2]) > 250
    assert int(slider_layout("窗口")["width"][:-2]) > int(slider_layout("ab")["width"][:-2])


def test_panel_is_a_static_vbox():
    assert issubclass(Panel, StaticVBox)
