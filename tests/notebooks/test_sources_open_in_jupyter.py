"""The sources are notebooks to Jupyter: JupyterLab's contents manager with jupytext opens each one as a notebook
with its cells and their languages, and saving it back from Lab changes no byte (the header filters out the
version details jupytext would otherwise add, so opening a source in Lab leaves no diff to review)."""
import asyncio
import concurrent.futures
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


def _contents_manager(root: Path):
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
    from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class
    return build_async_jupytext_contents_manager_class(AsyncLargeFileManager)(root_dir=str(root))


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_a_source_opens_as_a_notebook_and_saves_back_unchanged(src, tmp_path):
    shutil.copyfile(src, tmp_path / src.name)
    cm = _contents_manager(tmp_path)

    async def open_and_save():
        model = await cm.get(src.name)
        await cm.save(model, src.name)
        return model

    # a thread of its own: a browser test before this one in the same worker may leave Playwright's loop running
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        model = pool.submit(asyncio.run, open_and_save()).result()
    assert model["type"] == "notebook"
    cells = model["content"]["cells"]
    langs = [c["metadata"].get("lang") for c in cells if c["cell_type"] == "markdown"]
    assert langs and set(langs) == {"en", "zh"}, f"{src.name}: markdown cells' languages {set(langs)}"
    assert any(c["cell_type"] == "code" for c in cells)
    saved = (tmp_path / src.name).read_text(encoding="utf-8")
    original = src.read_text(encoding="utf-8")
    assert saved == original, f"{src.name}: saving from JupyterLab rewrote the source:\n" + "\n".join(
        f"{a!r} -> {b!r}" for a, b in zip(original.splitlines(), saved.splitlines()) if a != b)[:2000]
