"""Use any widget of the course like a learner: move one of its controls and wait for the kernel's answer.

`exercise(page, output)` takes the output element of a widget view and tries its controls in turn (a slider
handle nudged with the keyboard, a dropdown set to another option, a toggle button or check box clicked; for a
quiz, "Show reference answer" once it is enabled, then "Check", which answers even an empty choice), until the
widget's kernel-drawn parts change: its pictures (img src) or its HTML (readout tables, feedback). Slider
readouts are left out of the comparison: the browser updates them by itself, without the kernel. Returns a
short description of the control that worked; fails if none did.
"""
from __future__ import annotations

import time

# What only the kernel can change: every picture and every HTML/HTMLMath widget's content and visibility.
_SNAPSHOT_JS = """el => [
  ...[...el.querySelectorAll('img')].map(i => i.getAttribute('src') || '')
      .map(src => src.length + ':' + src.slice(-64)),
  ...[...el.querySelectorAll('.widget-html-content, .widget-htmlmath-content')]
      .map(e => (e.offsetParent === null ? 'hidden:' : '') + e.textContent),
  ...[...el.querySelectorAll('button')].map(b => b.textContent),
].join('|')"""

CHANGE_S = 30


def snapshot(output) -> str:
    return output.evaluate(_SNAPSHOT_JS)


def _wait_change(output, before: str, timeout_s: float = CHANGE_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if snapshot(output) != before:
            return True
        time.sleep(0.2)
    return False


def _visible(locator):
    return [locator.nth(i) for i in range(locator.count()) if locator.nth(i).is_visible()]


def _actions(page, output, reference_label: str | None, check_label: str | None = None):
    """(description, callable) for each control of the widget, in the order a learner would try them."""
    actions = []
    if reference_label:                 # opens only after a first attempt: disabled until then
        for button in [b for b in _visible(output.get_by_role("button", name=reference_label, exact=True))
                       if b.is_enabled()][:1]:
            actions.append(("quiz: show reference answer", button.click))
    if check_label:
        for button in _visible(output.get_by_role("button", name=check_label, exact=True))[:1]:
            actions.append(("quiz: check", button.click))
    for i, handle in enumerate(_visible(output.locator(".widget-slider:not(.mod-disabled) .noUi-handle"))[:3]):
        def nudge(handle=handle):
            handle.scroll_into_view_if_needed()
            handle.focus()
            # A slider that starts at its maximum cannot move right: nudge it left instead of waiting 30 s for
            # a change that cannot come.
            at_max = handle.evaluate("h => h.getAttribute('aria-valuenow') !== null"
                                     " && +h.getAttribute('aria-valuenow') >= +h.getAttribute('aria-valuemax')")
            for _ in range(3):
                page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
                page.wait_for_timeout(60)
        def nudge_back(handle=handle):
            handle.focus()
            for _ in range(6):
                page.keyboard.press("ArrowLeft")
                page.wait_for_timeout(60)
        actions += [(f"slider {i}: ArrowRight", nudge), (f"slider {i}: ArrowLeft", nudge_back)]
    for i, select in enumerate(_visible(output.locator(".widget-dropdown select:not([disabled])"))[:2]):
        def choose(select=select):
            options = select.locator("option").all_text_contents()
            current = select.evaluate("s => s.selectedIndex")
            select.select_option(index=(current + 1) % len(options))
        actions.append((f"dropdown {i}", choose))
    buttons = _visible(output.locator(".widget-toggle-buttons button:not(.mod-active):not([disabled])"))
    for i, button in enumerate(buttons[:2]):
        actions.append((f"toggle button {i}", button.click))
    for i, box in enumerate(_visible(output.locator(".widget-checkbox input:not([disabled])"))[:2]):
        actions.append((f"check box {i}", box.click))
    return actions


def exercise(page, output, reference_label: str | None = None, check_label: str | None = None) -> str:
    """Try the widget's controls until its kernel-drawn parts change; return what worked."""
    output.scroll_into_view_if_needed()
    headers = _visible(output.locator(".jupyter-widget-Collapse-header, .lm-AccordionPanel-title"))
    if headers and not _visible(output.locator(".noUi-handle, select, button:not(.jupyter-widget-Collapse-header)")):
        headers[0].click()                              # the review quiz: open its first pane
        page.wait_for_timeout(500)
    tried = []
    for description, act in _actions(page, output, reference_label, check_label):
        before = snapshot(output)
        act()
        tried.append(description)
        if _wait_change(output, before, CHANGE_S if len(tried) < 3 else 10):
            return description
    raise AssertionError(f"no control changed the widget's picture or numbers (tried: {tried or 'nothing found'})")
