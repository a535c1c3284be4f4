"""Small actions shared by the browser tests."""


def nudge_slider(page, handle, watched, presses: int = 5) -> None:
    """Focus a noUi slider handle, press ArrowRight `presses` times, and wait until every watched
    (element, attribute) pair has changed: attribute None means the element's text."""
    before = [(el, attr, el.get_attribute(attr) if attr else el.text_content()) for el, attr in watched]
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(presses):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(100)
    for el, attr, old in before:
        script = ("([el, attr, old]) => (attr ? el.getAttribute(attr) : el.textContent) !== old")
        page.wait_for_function(script, arg=[el.element_handle(), attr, old], timeout=30_000)
