"""Backend selection without torch: lazy import, NumPy-only use with torch blocked, the report.

These tests need no torch (the blocked-torch ones run in a subprocess), so they also run where
torch is not installed; the torch computations themselves are in test_torch_backend.py.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import attention_core as ac

BLOCK_SYS_MODULES = "import sys; sys.modules['torch'] = None\n"
BLOCK_META_PATH = textwrap.dedent("""
    import sys
    class _NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
    sys.meta_path.insert(0, _NoTorch())
""")

NUMPY_ONLY_SCRIPT = textwrap.dedent("""
    import numpy as np
    import attention_core as ac
    from attention_core import backends
    assert not backends.torch_available()
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 6))
    mask = ac.combine_masks(ac.causal_mask(3, 5), ac.padding_mask([5, 2]))
    out, w = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    out_auto, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask, backend="auto")   # falls back
    assert isinstance(out_auto, np.ndarray) and np.allclose(out, out_auto)
    params = ac.init_multihead(8, 2)
    x = rng.normal(size=(2, 3, 8))
    ac.multi_head_attention(x, x, x, params, mask=ac.causal_mask(3))
    ac.softmax(q, mask=q > 0)
    ac.apply_rope(q)
    ac.sinusoidal_encoding(4, 6, like=q)
    report = backends.backend_report()
    assert report.torch_version is None and report.auto_device == "numpy", report
    from attention_core.teaching.environment import format_backend_report
    assert "pip install torch==2.13.0" in format_backend_report(report, "en")
    try:
        ac.scaled_dot_product_attention(q, k, v, backend="torch")
    except ImportError as exc:
        assert "pip install torch==2.13.0" in str(exc), exc
    else:
        raise AssertionError("backend='torch' without torch should raise ImportError")
    import sys
    assert "attention_core.backends.torch_ops" not in sys.modules
    print("ok")
""")


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_attention_core_does_not_import_torch():
    proc = run_python("import sys, attention_core, attention_core.backends\n"
                      "print('torch' in sys.modules, 'attention_core.backends.torch_ops' in sys.modules)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_numpy_use_does_not_import_torch():
    proc = run_python("import sys, numpy as np, attention_core as ac\n"
                      "x = np.ones((2, 3, 4))\n"
                      "ac.scaled_dot_product_attention(x, x, x, mask=ac.causal_mask(3))\n"
                      "print('torch' in sys.modules)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize("blocker", [BLOCK_SYS_MODULES, BLOCK_META_PATH], ids=["sys.modules", "meta_path"])
def test_numpy_only_use_with_torch_unimportable(blocker):
    proc = run_python(blocker + NUMPY_ONLY_SCRIPT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_unknown_backend_names_the_choices():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"backend: expected one of None, 'numpy', 'torch', 'auto', got 'jax'"):
        ac.scaled_dot_product_attention(x, x, x, backend="jax")
    with pytest.raises(ValueError, match="backend: expected one of"):
        ac.multi_head_attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4)),
                                ac.init_multihead(4, 2), backend="gpu")


def test_like_numpy_sets_the_float_dtype_and_keeps_masks_boolean():
    like = np.zeros(3, dtype=np.float32)
    assert ac.sinusoidal_encoding(5, 4, like=like).dtype == np.float32
    assert ac.rope_frequencies(4, like=like).dtype == np.float32
    assert ac.causal_mask(3, like=like).dtype == bool
    np.testing.assert_array_equal(ac.causal_mask(3, like=like), ac.causal_mask(3))
    with pytest.raises(TypeError, match="like: expected a NumPy array or a torch tensor, got list"):
        ac.causal_mask(3, like=[1.0])
