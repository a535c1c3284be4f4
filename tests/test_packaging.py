"""A normal (non-editable) install works: the package finds its data through importlib.resources,
not through the repository around it; the wheel carries the one version (attention_core.__version__)
and the py.typed marker."""
import ast
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHECK = textwrap.dedent("""
    import sys
    import attention_core as ac
    from attention_core.teaching import quiz
    from attention_core.teaching.notebook_source import notebook_titles
    assert ac.__file__.startswith(sys.argv[1]), ac.__file__          # the installed copy, not the repo
    questions = quiz.load_questions()
    assert {f"q{i}" for i in range(1, 9)} <= {q.id for q in questions}, [q.id for q in questions]
    assert notebook_titles()["01_query_key_value"]["en"].startswith("Query, Key, Value")
    out, w = ac.scaled_dot_product_attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 4.0]])
    assert abs(w[0, 0] - 0.6698) < 1e-4
    print("ok")
""")


@pytest.mark.slow                      # builds and installs a wheel: about 15 s
def test_wheel_install_imports_and_loads_its_data(tmp_path):
    wheels, target = tmp_path / "wheels", tmp_path / "site"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(wheels), str(ROOT)], check=True, env=env, capture_output=True, timeout=300)
    wheel = next(wheels.glob("attention_core-*.whl"))
    version = next(node.value.value for node in ast.parse((ROOT / "attention_core" / "__init__.py").read_text()).body
                   if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__version__")
    assert wheel.name.startswith(f"attention_core-{version}-"), (wheel.name, version)   # pyproject reads it
    assert "attention_core/py.typed" in zipfile.ZipFile(wheel).namelist()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, env=env, capture_output=True, timeout=300)
    run = subprocess.run([sys.executable, "-c", CHECK, str(target)], cwd=tmp_path, capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(target)}, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
