"""Small actions shared by the browser tests: open and run a notebook in JupyterLab, find a cell, nudge a slider."""
from __future__ import annotations

import re
import time

import pytest


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


NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"     # the notebook on show
RUN_ALL_S = 300          # the slowest notebook runs in about 40 s alone; CI shares two cores with nbval
IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"

# Counts code cells, executed ones (prompt "[12]:"), running ones ("[*]:") and error outputs. Lab 4 draws an error
# with the stderr renderer (data-mime-type "application/vnd.jupyter.stderr", as a warning), so errors are read from
# the notebook's model (window.jupyterapp: the test Lab exposes it); an error stops Run All, and without this the
# wait below would end only at its time limit.
_PROGRESS_JS = """() => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-CodeCell')];
  const prompt = c => (c.querySelector('.jp-InputArea-prompt') || {}).textContent || '';
  const errors = [...document.querySelectorAll(
      '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')]
      .map(e => e.textContent.slice(0, 2000));
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const model = w && w.content && w.content.model;
  if (model && !errors.length) {
    for (let j = 0; j < model.cells.length; j++) {
      const cell = model.cells.get(j);
      if (cell.type !== 'code') { continue; }
      for (let i = 0; i < cell.outputs.length; i++) {
        const out = cell.outputs.get(i).toJSON();
        if (out.output_type === 'error') { errors.push(`${out.ename}: ${out.evalue}`.slice(0, 2000)); }
      }
    }
  }
  return {code: cells.length, done: cells.filter(c => /\\[\\d+\\]/.test(prompt(c))).length,
          running: cells.filter(c => prompt(c).includes('*')).length, errors};
}"""


def run_menu(page, menu: str, command: str) -> None:
    """Click a top menu (e.g. "Run") and its item for a JupyterLab command (e.g. runmenu:run-all)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(f".lm-Menu li.lm-Menu-item[data-command='{command}']").click()


# A cell that started: "[*]:" (queued or running) or "[3]:" (done).
_STARTED_JS = """() => [...document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-CodeCell .jp-InputArea-prompt')]
    .some(p => /\\*|\\d/.test(p.textContent))"""
RUN_ALL_TRIES = 3
RUN_ALL_START_S = 20        # Lab marks every queued cell "[*]" at once: no mark this long means the click was lost

# Closes every open document (and shuts its kernel down), opens `path` and makes it the current widget. Each
# await is bounded (page.evaluate itself has no timeout): a kernel that will not stop is left to the server, a
# notebook that never loads is an error naming the step.
_OPEN_IN_LAB_JS = """async (path) => {
  const within = (promise, s, what) => Promise.race([promise, new Promise((ok, fail) =>
      setTimeout(() => what ? fail(new Error(`${path}: ${what} took more than ${s} s`)) : ok(), s * 1000))]);
  const app = window.jupyterapp;
  for (const w of [...app.shell.widgets('main')]) {
    if (w.sessionContext) { await within(w.sessionContext.shutdown(), 30, null); }
    w.dispose();
  }
  const w = await within(app.commands.execute('docmanager:open', {path, factory: 'Notebook'}), 90, 'opening it');
  await within(w.context.ready, 90, 'loading it');
  app.shell.activateById(w.id);
}"""


# The notebook on show has a kernel connected, or Lab is asking which kernel to start (the execution indicator
# alone says "idle" before there is any kernel).
_KERNEL_OR_DIALOG_JS = """(dialog) => !!document.querySelector(dialog) || (() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!kernel && kernel.connectionStatus === 'connected';
})()"""


def lab_is_open(page, lab_server) -> bool:
    """Whether `page` already shows this server's JupyterLab (started with expose_app_in_browser)."""
    return page.url.startswith(lab_server.base + "/lab") and page.evaluate("() => !!window.jupyterapp")


def open_notebook(page, lab_server, path: str) -> None:
    """Show `path` (relative to notebooks/) in JupyterLab with its kernel idle. A page already showing Lab
    opens it through Lab's own document manager (the previous notebook closed, its kernel shut down), which
    spares the browser a reload of Lab for every notebook; a fresh page loads Lab on it with a reset workspace."""
    if lab_is_open(page, lab_server):
        page.evaluate(_OPEN_IN_LAB_JS, path)
    else:
        page.goto(lab_server.url(f"lab/tree/{path}", "reset"), timeout=90_000)
    page.locator(f"{NOTEBOOK} .jp-CodeCell").first.wait_for(timeout=90_000)
    page.wait_for_function(_KERNEL_OR_DIALOG_JS, arg=KERNEL_DIALOG, timeout=90_000)
    accept_kernel_dialog(page)
    page.locator(IDLE).wait_for(timeout=90_000)                 # kernel started and idle


# Lab's "Select Kernel" dialog (a kernel menu and Select / No Kernel): on a loaded machine Lab sometimes asks
# although the notebook names its kernel and the kernel is idle; the dialog then takes every click.
KERNEL_DIALOG = ".jp-Dialog:has(select)"
FOCUS_TRIES = 3


def accept_kernel_dialog(page) -> bool:
    """Accept Lab's kernel choice (the notebook's own kernel, preselected) if the dialog is up; whether it was."""
    dialog = page.locator(KERNEL_DIALOG)
    if not dialog.count():
        return False
    print("Lab asked which kernel to start: accepting the notebook's own")
    dialog.locator("button.jp-mod-accept").first.click(timeout=10_000)
    dialog.first.wait_for(state="detached", timeout=30_000)
    return True


def _focus_notebook(page) -> None:
    """Click the notebook's margin, so that Lab's menu commands act on it (past a kernel dialog, if Lab asks)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    for attempt in range(1, FOCUS_TRIES + 1):
        accept_kernel_dialog(page)
        try:
            page.locator(NOTEBOOK).first.click(position={"x": 5, "y": 5}, timeout=20_000)
            return
        except PlaywrightTimeout:
            print(f"the notebook took no click in 20 s (try {attempt} of {FOCUS_TRIES})")
    pytest.fail(f"the notebook took no click in {FOCUS_TRIES} tries")


def _run_all(page, path: str) -> None:
    """Run > Run All Cells, clicked again where a loaded machine lost the click (no cell marked as started)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    def started() -> bool:
        try:
            page.wait_for_function(_STARTED_JS, timeout=RUN_ALL_START_S * 1000)
            return True
        except PlaywrightTimeout:
            return False

    for attempt in range(1, RUN_ALL_TRIES + 1):
        _focus_notebook(page)
        run_menu(page, "Run", "runmenu:run-all")
        # a Run All held up by Lab's kernel dialog goes on once the dialog is answered: no second click then
        if started() or (accept_kernel_dialog(page) and started()):
            return
        print(f"{path}: no cell started {RUN_ALL_START_S} s after Run All (try {attempt} of {RUN_ALL_TRIES})")
    pytest.fail(f"{path}: Run All started no cell in {RUN_ALL_TRIES} tries")


def open_and_run(page, lab_server, path: str) -> None:
    """Open `path` (relative to notebooks/), clear every output, run all cells, wait until all ran."""
    open_notebook(page, lab_server, path)
    _focus_notebook(page)
    run_menu(page, "Edit", "editmenu:clear-all")  # stored outputs and widget views go away
    page.wait_for_function("""() => !document.querySelector('.jp-NotebookPanel .jp-OutputArea-output')
        && ![...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt')]
             .some(p => /\\d/.test(p.textContent))""", timeout=30_000)
    _run_all(page, path)
    deadline = time.monotonic() + RUN_ALL_S
    progress = page.evaluate(_PROGRESS_JS)
    while time.monotonic() < deadline:
        progress = page.evaluate(_PROGRESS_JS)
        assert not progress["errors"], f"{path}: a cell raised:\n" + "\n---\n".join(progress["errors"])
        if progress["code"] and progress["done"] == progress["code"] and not progress["running"] \
                and page.locator(IDLE).count():
            return
        time.sleep(0.5)
    pytest.fail(f"{path}: Run All did not finish in {RUN_ALL_S} s: {progress}")


def code_cell(page, source_snippet: str):
    """The code cell whose source contains `source_snippet`."""
    cell = page.locator(".jp-NotebookPanel .jp-CodeCell").filter(
        has=page.locator(".jp-InputArea", has_text=source_snippet))
    assert cell.count() == 1, f"expected one code cell containing {source_snippet!r}, found {cell.count()}"
    return cell
