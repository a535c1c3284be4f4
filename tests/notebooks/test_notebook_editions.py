"""The two editions stay in step: same notebooks, same code, same structure, built from source."""
import importlib.util
import io
import json
import re
import tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
build_notebooks = importlib.util.module_from_spec(_spec)   # a script, not part of the package
_spec.loader.exec_module(build_notebooks)

EN = sorted(p.name for p in (ROOT / "notebooks" / "en").glob("*.ipynb"))
ZH = sorted(p.name for p in (ROOT / "notebooks" / "zh").glob("*.ipynb"))
SOURCES = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
# Cells whose output differs from run to run (timings, versions): few, and each listed here.
MEASUREMENTS = {"00_start_here": 1, "08_attention_vs_rnn": 2, "09_cost_and_context_window": 2,
                "10_efficient_attention": 4, "13_build_a_gpt": 2}     # 13: its two live training runs


def read(lang, name):
    return nbformat.read(ROOT / "notebooks" / lang / name, as_version=4)


def test_both_editions_have_the_same_notebooks_and_each_has_a_source():
    assert EN and EN == ZH
    assert [n[:-6] for n in EN] == SOURCES


def code_skeleton(code: str) -> list[tuple[int, str]]:
    """The tokens of a code cell without its string literals and comments (IPython magics kept as text)."""
    lines = ["#" + line if line.lstrip().startswith(("%", "!")) else line for line in code.split("\n")]
    skip = {tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    skip |= {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)}
    toks = tokenize.generate_tokens(io.StringIO("\n".join(lines)).readline)
    return [(t.type, t.string) for t in toks if t.type not in skip]


@pytest.mark.parametrize("name", EN)
def test_code_cells_are_identical_once_literals_and_comments_are_set_aside(name):
    en, zh = read("en", name), read("zh", name)
    assert [c.cell_type for c in en.cells] == [c.cell_type for c in zh.cells]
    for i, (a, b) in enumerate(zip(en.cells, zh.cells)):
        if a.cell_type == "code":
            assert code_skeleton(a.source) == code_skeleton(b.source), f"{name} cell {i}: the editions' code differs"
            assert a.metadata.get("tags") == b.metadata.get("tags"), f"{name} cell {i}: tags differ"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", EN)
def test_built_code_is_plain_python_in_its_language(name, lang):
    """No lookup call, no [en]/[zh] marker left, and every cell is Python (magics aside)."""
    for i, cell in enumerate(read(lang, name).cells):
        if cell.cell_type != "code":
            continue
        assert "i18n.t(" not in cell.source, f"notebooks/{lang}/{name} cell {i} calls i18n.t"
        assert "[en]" not in cell.source and "[zh]" not in cell.source, f"notebooks/{lang}/{name} cell {i}"
        assert "__LANG__" not in cell.source
        code_skeleton(cell.source)   # tokenizes
    setup = next(c for c in read(lang, name).cells if c.cell_type == "code")
    assert f'LANG = "{lang}"' in setup.source


def test_a_mistyped_marker_is_refused_with_file_and_line():
    from attention_core.teaching.notebook_source import SourceFormatError, parse_source
    good = '# %% [markdown] lang="en"\n# Hi\n\n# %% [markdown] lang="zh"\n# 你好\n\n# %%\nx = 1\n'
    assert [k for k, _, _ in parse_source(good, "ok.py")] == ["md", "md", "code"]
    for bad, line in [("#%% md en", 10), ("# %% [mardown]", 10), ('# %% [markdown] lang="fr"', 10), ("# %%code", 10),
                      ("# %% [md]", 10)]:
        with pytest.raises(SourceFormatError, match=rf"bad\.py:{line}: unknown cell marker"):
            parse_source(good + "\n" + bad + "\ny = 2\n", "bad.py")
    with pytest.raises(SourceFormatError, match="followed by its Chinese twin"):
        parse_source('# %% [markdown] lang="en"\n# Hi\n\n# %%\nx = 1\n', "pair.py")


def test_a_misspelt_or_misplaced_test_marker_is_refused_with_file_and_line(tmp_path):
    """nbval's markers and # MEASUREMENT: a typo, a lowercase one or one below the code would silently become a
    comment (the test plumbing a learner sees, or a check nbval skips); the builder names file and line."""
    head = '# %% [markdown] lang="en"\n# Hi\n\n# %% [markdown] lang="zh"\n# 你好\n\n'
    good = head + "# %%\n# NBVAL_IGNORE_OUTPUT\n# (a timing)\nx = 1\n\n# %% [markdown] lang=\"en\"\n# measurement\n" \
        '\n# %% [markdown] lang="zh"\n# 测量\n'
    src = tmp_path / "good.py"
    src.write_text(good, encoding="utf-8")
    assert build_notebooks.build(src, "en").cells[1].metadata["tags"] == ["nbval-ignore-output"]
    for cell, line, why in [("# NBVAL_SKPI\nx = 1", 8, "unknown test marker"),
                            ("# nbval_skip\nx = 1", 8, "unknown test marker"),
                            ("# Measurement\nx = 1", 8, "unknown test marker"),
                            ("x = 1\n# NBVAL_SKIP", 9, "must open its code cell")]:
        bad = tmp_path / "bad.py"
        bad.write_text(head + "# %%\n" + cell + "\n", encoding="utf-8")
        with pytest.raises(SystemExit, match=rf"bad\.py:{line}: .*{why}"):
            build_notebooks.build(bad, "en")


@pytest.mark.parametrize("code, en, zh", [
    ('print("[en]scores x =[zh]分数 x =", s)', 'print("scores x =", s)', 'print("分数 x =", s)'),
    ('f"[en]sum = {s:.3f}[zh]总和 = {s:.3f}"', 'f"sum = {s:.3f}"', 'f"总和 = {s:.3f}"'),
    ("x = 1  # [en] why [zh] 为什么", "x = 1  # why", "x = 1  # 为什么"),
    ("# [en] only English\n# [zh] 只有中文\nx = 1", "# only English\nx = 1", "# 只有中文\nx = 1"),
    ("x = 1  # [en] only English", "x = 1  # only English", "x = 1"),
    ('def f():\n    """[en] Return it.\n    [zh] 返回它。"""',
     'def f():\n    """Return it."""', 'def f():\n    """返回它。"""'),
    ("%matplotlib inline\ny = '[en]a[zh]b'", "%matplotlib inline\ny = 'a'", "%matplotlib inline\ny = 'b'"),
    ('s = "no markers, [brackets] fine"', 's = "no markers, [brackets] fine"', 's = "no markers, [brackets] fine"'),
])
def test_per_edition_words_resolve(code, en, zh):
    from attention_core.teaching.notebook_source import resolve_code
    assert resolve_code(code, "en") == en
    assert resolve_code(code, "zh") == zh


@pytest.mark.parametrize("code", ['"[zh]中文[en]English"', '"[en]only English"', '"[en]a[zh]b[zh]c"',
                                  "# [zh] 中 [en] E", "x = 1  # see [en] later"])
def test_malformed_per_edition_words_are_refused(code):
    from attention_core.teaching.notebook_source import SourceFormatError, resolve_code
    with pytest.raises(SourceFormatError):
        resolve_code(code, "en")


@pytest.mark.parametrize("name", EN)
def test_markdown_structure_matches(name):
    def outline(nb):
        return [re.findall(r"^(#+) ", c.source, re.M) for c in nb.cells if c.cell_type == "markdown"]
    assert outline(read("en", name)) == outline(read("zh", name))


@pytest.mark.parametrize("name", EN)
def test_committed_notebooks_match_their_source(name):
    src = ROOT / "notebooks" / "src" / name.replace(".ipynb", ".py")
    for lang in ("en", "zh"):
        built = build_notebooks.build(src, lang)
        committed = read(lang, name)
        assert [c.source for c in built.cells] == [c.source for c in committed.cells], \
            f"notebooks/{lang}/{name} differs from its source: run `make notebooks NB={name[:2]}`"


@pytest.mark.parametrize("name", EN)
def test_committed_notebooks_are_executed(name):
    for lang in ("en", "zh"):
        code = [c for c in read(lang, name).cells if c.cell_type == "code"]
        assert all(c.execution_count for c in code), f"notebooks/{lang}/{name} has unexecuted cells"


NBVAL_TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception", "nbval-check-output"}
MARKERS = ("# NBVAL_", "# MEASUREMENT")


@pytest.mark.parametrize("name", EN)
def test_nbval_markers_are_cell_tags_not_visible_comments(name):
    """The source's `# NBVAL_...` lines become cell tags: a learner sees no test plumbing, nbval reads the tag."""
    for lang in ("en", "zh"):
        tagged = 0
        for cell in read(lang, name).cells:
            if cell.cell_type != "code":
                continue
            assert "NBVAL_" not in cell.source and "MEASUREMENT" not in cell.source \
                and "# (a live widget)" not in cell.source, \
                f"notebooks/{lang}/{name}: a marker comment is visible:\n{cell.source[:200]}"
            tags = set(cell.metadata.get("tags", []))
            assert tags <= NBVAL_TAGS | {"teacher-hide", "measurement"}, f"{name}: unknown tags {tags}"
            tagged += bool(tags & NBVAL_TAGS)
        src = (ROOT / "notebooks" / "src" / name.replace(".ipynb", ".py")).read_text(encoding="utf-8")
        markers = sum(src.count(m) for m in MARKERS)
        assert tagged == markers, f"{name}: {tagged} tagged cells for {markers} markers"


@pytest.mark.parametrize("name", EN)
def test_measurement_cells_are_few_and_listed(name):
    for lang in ("en", "zh"):
        found = sum("measurement" in c.metadata.get("tags", []) for c in read(lang, name).cells)
        assert found == MEASUREMENTS.get(name[:-6], 0), f"notebooks/{lang}/{name}: {found} measurement cells"


RUN_DEPENDENT = [(re.compile(r"\b0x[0-9a-f]{6,}\b"), "a memory address"),
                 (re.compile(r"(/tmp/|/root/|/home/|/work/|/Users/|[A-Z]:\\\\Users)"), "an absolute path"),
                 (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"), "a timestamp")]


@pytest.mark.parametrize("name", EN)
def test_stored_notebooks_carry_nothing_run_dependent(name):
    """No memory address, absolute path or timestamp in outputs or metadata; the inputs hash is recorded."""
    for lang in ("en", "zh"):
        nb = read(lang, name)
        assert nb.metadata["language_info"]["name"] == "python" and "pygments_lexer" in nb.metadata["language_info"]
        assert len(nb.metadata.get("attention_lab", {}).get("inputs", "")) == 16
        for i, cell in enumerate(nb.cells):
            assert "execution" not in cell.metadata, f"notebooks/{lang}/{name} cell {i}: timestamps"
            if "measurement" in cell.metadata.get("tags", []):
                continue
            text = json.dumps(cell.get("outputs", []), ensure_ascii=False)
            text = re.sub(r'"image/png": "[^"]*"', "", text)             # base64 pictures match anything
            text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "", text)
            for pattern, what in RUN_DEPENDENT:
                m = pattern.search(text)
                assert not m, f"notebooks/{lang}/{name} cell {i}: {what} in the outputs: {m.group(0)!r}"


def test_the_builder_keeps_outputs_when_only_markdown_changed(tmp_path):
    """take_outputs copies stored outputs over when code and library are unchanged, and refuses otherwise."""
    src = ROOT / "notebooks" / "src" / "03_softmax.py"
    library = build_notebooks.library_hash()
    built = build_notebooks.build(src, "en")
    inputs = build_notebooks.inputs_hash(built, library)
    committed = read("en", "03_softmax.ipynb")
    target = tmp_path / "03_softmax.ipynb"
    committed.metadata["attention_lab"] = {"inputs": inputs}      # as if executed from these very inputs
    nbformat.write(committed, target)
    assert build_notebooks.take_outputs(built, target, inputs)
    stored = [c.outputs for c in committed.cells if c.cell_type == "code"]
    assert [c.outputs for c in built.cells if c.cell_type == "code"] == stored
    assert not build_notebooks.take_outputs(build_notebooks.build(src, "en"), target, inputs[::-1])
    text = src.read_text(encoding="utf-8").replace("# # 03 · Softmax", "# # 03 · Softmax, edited", 1)
    edited = tmp_path / "03_softmax.py"
    edited.write_text(text, encoding="utf-8")
    rebuilt = build_notebooks.build(edited, "en")
    assert build_notebooks.inputs_hash(rebuilt, library) == inputs, "a markdown edit must not change the inputs"
    code_edit = tmp_path / "code.py"
    code_edit.write_text(text.replace("rng = np.random.default_rng(0)", "rng = np.random.default_rng(1)"), "utf-8")
    assert build_notebooks.inputs_hash(build_notebooks.build(code_edit, "en"), library) != inputs
    comment_edit = tmp_path / "comment.py"
    comment_edit.write_text(text.replace("# [en] every random number", "# [en] each random number", 1), "utf-8")
    assert build_notebooks.inputs_hash(build_notebooks.build(comment_edit, "en"), library) == inputs
    assert build_notebooks.inputs_hash(built, library + "x") != inputs, "a library change must re-execute"


def test_a_labs_change_re_executes_only_the_notebooks_that_use_it(tmp_path, monkeypatch):
    """The inputs hash covers core, backends, teaching, shared data and the notebook's own labs: editing
    notebook 12's lab or its models changes 12's hash, not 03's; editing teaching changes both."""
    import shutil
    lib = tmp_path / "attention_core"
    shutil.copytree(ROOT / "attention_core", lib, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(build_notebooks, "LIBRARY", lib)
    monkeypatch.setattr(build_notebooks, "LABS", lib / "labs")

    def labs_of(name):
        nb = build_notebooks.build(ROOT / "notebooks" / "src" / name, "en")
        return build_notebooks.notebook_labs("\n".join(c.source for c in nb.cells if c.cell_type == "code"))

    softmax, trained, gpt = labs_of("03_softmax.py"), labs_of("12_trained_transformer.py"), labs_of("13_build_a_gpt.py")
    assert "nb03_softmax" in softmax and "nb12_trained_transformer" not in softmax
    assert {"nb12_trained_transformer", "nb13_build_a_gpt"} <= gpt, gpt

    def hashes():
        return [build_notebooks.library_hash(labs) for labs in (softmax, trained, gpt)]

    before = hashes()
    (lib / "labs" / "nb12_trained_transformer" / "experiments.py").write_text("# edited\n", encoding="utf-8")
    after_lab = hashes()
    assert after_lab[0] == before[0] and after_lab[1] != before[1] and after_lab[2] != before[2]
    (lib / "data" / "course_text.json").write_text("{}", encoding="utf-8")       # notebook 13's corpus
    after_corpus = hashes()
    assert after_corpus[:2] == after_lab[:2] and after_corpus[2] != after_lab[2]
    (lib / "teaching" / "plots.py").write_text("# edited\n", encoding="utf-8")
    after_teaching = hashes()
    assert all(a != b for a, b in zip(after_teaching, after_corpus)), "a teaching change re-executes every notebook"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("name", EN)
def test_stored_widget_outputs_carry_a_static_fallback(name):
    """Every widget output stored in either edition also has text/html (a code host shows it); those
    with a picture have it as image/png too."""
    for lang in ("en", "zh"):
        for cell in read(lang, name).cells:
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if WIDGET_VIEW not in data:
                    continue
                html = data.get("text/html", "")
                assert "attention-lab-static" in html, \
                    f"notebooks/{lang}/{name}: widget output without a static fallback:\n{cell.source[:200]}"
                if "data:image/png;base64," in html:
                    assert data.get("image/png"), f"notebooks/{lang}/{name}: a picture in the HTML but no image/png"
