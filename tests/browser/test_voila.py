"""Voila in Chromium: notebook 01 rendered as an app; its widget works and nothing is fetched off-machine."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest
from browser_helpers import nudge_slider

from attention_core.teaching import i18n

pytestmark = pytest.mark.browser

# Voila 0.5's stock "lab" template links Font Awesome from a CDN; `make setup` installs our
# template (tools/voila/templates/attention-lab, selected in <venv>/etc/jupyter/voila.json),
# which drops those links, so the page must make no off-machine request at all.


def _local(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme in ("data", "blob") or parsed.hostname == "127.0.0.1"


def test_voila_en_attention_step_offline(page, voila_server):
    """en 01 in Voila: moving q[0] redraws the picture; every request goes to 127.0.0.1 (no CDN)."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("websocket", lambda ws: requests.append(ws.url))
    # Whatever would leave the machine is recorded, then refused: the page must work as in an
    # offline classroom, and a slow or firewalled network cannot stall the test.
    page.route(lambda url: not _local(url), lambda route: route.abort())
    page.goto(voila_server.url("voila/render/en/01_query_key_value.ipynb"), timeout=120_000)

    output = page.locator(".jp-OutputArea").filter(has_text=i18n.t("widgets.step_title", "en")).first
    image = output.locator("img.widget-image").first
    image.wait_for(timeout=120_000)                        # Voila runs the whole notebook first
    table = output.locator(".widget-html table").first
    table.wait_for()
    before_src, before_table = image.get_attribute("src"), table.text_content()
    assert before_src and "0.670" in before_table, before_table

    handle = output.locator(".widget-slider .noUi-handle").first
    nudge_slider(page, handle, [(image, "src"), (table, None)])                      # q[0]: 1.0 -> 1.5
    assert output.locator(".widget-slider .widget-readout").first.text_content().strip() == "1.50"

    # The last cells (the quiz) rendered too, and the page asked nothing of the outside world.
    page.get_by_role("button", name=i18n.t("quiz.check", "en"), exact=True).wait_for(timeout=60_000)
    page.wait_for_load_state("networkidle", timeout=30_000)
    off_machine = sorted({u for u in requests if not _local(u)})
    assert not off_machine, f"requests that left 127.0.0.1 (a CDN?): {off_machine}"
    assert any(urlparse(u).scheme == "ws" for u in requests), "no kernel websocket seen"
