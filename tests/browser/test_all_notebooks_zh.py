"""The Chinese edition in JupyterLab, with the same check as the English one (test_all_notebooks.py)."""
from __future__ import annotations

import pytest
from test_all_notebooks import notebooks, run_and_move_every_widget

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", notebooks("zh"))
def test_notebook_runs_and_its_widgets_answer(page, lab_server, path):
    run_and_move_every_widget(page, lab_server, path)
