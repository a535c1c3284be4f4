"""nbval honours the cell tags the builder writes instead of `# NBVAL_...` comments (run on a tiny notebook)."""
import os
import subprocess
import sys

import nbformat
import pytest


def _notebook(path, tags):
    """One cell whose stored output ("stale") differs from what it prints now ("fresh")."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    cell = nbformat.v4.new_code_cell('print("fresh")', execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="stale\n")]
    if tags:
        cell.metadata["tags"] = tags
    nb.cells.append(cell)
    nbformat.write(nb, path)


def _nbval(path, tmp_path) -> int:
    env_home = {"HOME": str(tmp_path), "IPYTHONDIR": str(tmp_path / "ipython"),
                "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", str(path)],
                          cwd=tmp_path, env={**os.environ, **env_home}, capture_output=True, text=True,
                          timeout=300).returncode


@pytest.mark.slow                      # runs pytest --nbval on a notebook with a kernel: about 20 s each
@pytest.mark.parametrize("tags, passes", [([], False), (["nbval-ignore-output"], True), (["nbval-skip"], True)])
def test_nbval_reads_the_tags(tmp_path, tags, passes):
    path = tmp_path / "tagged.ipynb"
    _notebook(path, tags)
    assert (_nbval(path, tmp_path) == 0) is passes, f"tags {tags}: nbval {'failed' if passes else 'passed'}"
