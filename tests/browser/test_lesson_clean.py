"""A lesson leaves the repository clean: `make lab` serves the ignored working copy, and a committed notebook
opened as it is is not marked modified (its kernelspec is the one Lab would write)."""
from __future__ import annotations

import subprocess

import pytest
from browser_helpers import IDLE, open_and_run, run_menu

pytestmark = pytest.mark.browser

DIRTY_TAB = ".lm-TabBar-tab.jp-mod-dirty"


def git_status(repo) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout


def test_run_all_and_save_in_the_working_copy_leaves_git_clean(page, lab_server, notebooks_copy):
    repo = notebooks_copy / "lesson-repo"
    assert git_status(repo) == "", "the lesson repository is not clean before the lesson"
    path = "lesson-repo/my-notebooks/en/04_masking.ipynb"
    saved = notebooks_copy / path
    before = saved.read_bytes()
    open_and_run(page, lab_server, path)
    run_menu(page, "File", "docmanager:save")
    page.wait_for_function(f"() => !document.querySelector('{DIRTY_TAB}')", timeout=30_000)
    page.wait_for_timeout(500)
    assert saved.read_bytes() != before, "the notebook was not saved: the test would prove nothing"
    assert git_status(repo) == "", f"git status after a lesson:\n{git_status(repo)}"


def test_a_committed_notebook_is_not_modified_by_opening_it(page, lab_server, notebooks_copy):
    page.goto(lab_server.url("lab/tree/lesson-repo/notebooks/en/11_review.ipynb", "reset"), timeout=90_000)
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-CodeCell").first.wait_for(timeout=90_000)
    page.locator(IDLE).wait_for(timeout=90_000)                 # the kernel is up: Lab has compared its metadata
    page.wait_for_timeout(3000)
    assert not page.locator(DIRTY_TAB).count(), "opening the notebook marked it modified"
    assert git_status(notebooks_copy / "lesson-repo") == ""
