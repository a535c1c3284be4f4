"""The library functions the notebooks print are bare formulas: their inputs are checked at the entry point
(`validation.checked`), so the printed body has no guard lines; and every printed function is in this list."""
import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import attention_core as ac
from attention_core.core import hooked, rnn
from attention_core.core.tiled import online_attention
from attention_core.labs.nb04_masking import masking_lab
from attention_core.labs.nb05_self_and_cross_attention import cross_lab
from attention_core.labs.nb08_attention_vs_rnn import rnn_lab
from attention_core.labs.nb10_efficient_attention import linear_lab, linformer_lab

SOURCES = Path(__file__).resolve().parents[2] / "notebooks" / "src"
PRINTED = {
    "ac.reference_attention": ac.reference_attention,
    "rnn.rnn_forward": rnn.rnn_forward, "rnn_lab.path_length": rnn_lab.path_length,
    "online_attention": online_attention, "linear_lab.linear_attention": linear_lab.linear_attention,
    "linformer_lab.linformer_attention": linformer_lab.linformer_attention, "cross_lab.attend": cross_lab.attend,
    "masking_lab.decode_with_kv_cache": masking_lab.decode_with_kv_cache, "hooked.block": hooked.block,
    "hooked.attention": hooked.attention, "ac.reference_softmax": ac.reference_softmax,
}
# notebook 13 prints its training loop: a recipe with its settings, read as a whole (not a formula)
LIBRARY_PRINTED_ELSEWHERE = {"training.train"}
GUARDS = re.compile(r"\braise\b|as_float_array|as_bool_mask|errstate|check_\w+\(|positive_int|isinstance|describe\(")


def _printed_names() -> set:
    names = set()
    for path in SOURCES.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"(?:inspect\.getsource|formula\.source)\(([\w.]+)\)", text))   # cells and text
    return names


def test_every_printed_library_function_is_listed_here():
    assert _printed_names() - LIBRARY_PRINTED_ELSEWHERE == set(PRINTED)


@pytest.mark.parametrize("name", sorted(PRINTED))
def test_a_printed_formula_has_no_guard_lines(name):
    source = inspect.getsource(PRINTED[name])
    tree = ast.parse(source.lstrip())
    fn = tree.body[0]
    body = fn.body[1:] if isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) else fn.body
    code = "\n".join(ast.unparse(node) for node in body)
    assert not GUARDS.search(code), f"{name} prints a guard line: {GUARDS.search(code).group(0)}"


def test_the_checks_still_stand_in_front_of_the_printed_formulas():
    with pytest.raises(ValueError, match="q"):
        ac.reference_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(TypeError, match="params"):
        ac.multi_head_attention(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4)), params=None)
    with pytest.raises(ValueError, match="block_size"):
        online_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), block_size=0)
    with pytest.raises(ValueError, match="chunks"):
        masking_lab.decode_with_kv_cache(np.ones((3, 4)), ac.init_multihead(4, 2), [1, 1])
    with pytest.raises(ValueError, match="kind"):
        rnn_lab.path_length("lstmm", 3)
    with pytest.raises(FloatingPointError, match="overflowed float64"):
        ac.reference_attention(np.full((1, 2), 1e200), np.full((1, 2), 1e200), np.ones((1, 2)))


@pytest.mark.parametrize("dtype, block", [(np.float64, 1), (np.float64, 3), (np.float64, 100), (np.float32, 4)])
def test_online_attention_is_the_tiled_and_the_reference_formula(dtype, block):
    rng = np.random.default_rng(block)
    q, k, v = (rng.normal(size=s).astype(dtype) for s in ((2, 6, 4), (2, 9, 4), (2, 9, 5)))
    mask = rng.random((6, 9)) < 0.6
    mask[0] = False                                                   # a query that sees nothing: zeros
    got = online_attention(q, k, v, mask=mask, block_size=block)
    ref, _ = ac.reference_attention(q, k, v, mask=mask)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, ref, atol=tol)
    np.testing.assert_allclose(got, ac.tiled_attention(q, k, v, mask=mask, block_size=block), atol=tol)
    assert got.dtype == dtype and not got[:, 0].any()


def _formula_printed_names() -> set:
    return {name for path in SOURCES.glob("*.py")
            for name in re.findall(r"formula\.source\(([\w.]+)\)", path.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("name", sorted(_formula_printed_names()))
def test_formula_source_prints_the_def_and_body_with_comments_in_the_edition_language(name):
    from attention_core.teaching import formula
    en, zh = formula.source(PRINTED[name], "en"), formula.source(PRINTED[name], "zh")
    for text in (en, zh):
        assert text.startswith("def ") and '"""' not in text and "@checked" not in text, text
        assert "[en]" not in text and "[zh]" not in text, text
    comments = [line.split("#", 1)[1] for line in zh.splitlines() if "#" in line]
    words = r"[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}"                     # three English words in a row
    english = [c for c in comments if re.search(words, re.sub(r"\w*_\w*|\w+\(", " ", c))]
    assert not english, f"{name}: English comments in the Chinese edition: {english}"
