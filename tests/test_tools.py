"""The tools around the notebooks: the learner's working copy and web font (tools/lab_setup.py) and the offline
export's checks (tools/build_site.py)."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)     # scripts, not part of the package
    spec.loader.exec_module(module)
    return module


lab_setup = _load("lab_setup")
build_site = _load("build_site")


@pytest.fixture
def course(tmp_path):
    src = tmp_path / "notebooks"
    for edition in ("en", "zh"):
        (src / edition).mkdir(parents=True)
        (src / edition / "01_a.ipynb").write_text(f'{{"v": 1, "lang": "{edition}"}}')
    return src, tmp_path / "my-notebooks"


def test_copy_fills_refreshes_untouched_and_keeps_changed_notebooks(course):
    src, dest = course
    assert lab_setup.copy(dest=dest, source=src) == []
    assert (dest / "zh" / "01_a.ipynb").read_text() == (src / "zh" / "01_a.ipynb").read_text()
    (src / "en" / "01_a.ipynb").write_text('{"v": 2}')               # a new course version (git pull)
    (src / "zh" / "01_a.ipynb").write_text('{"v": 2}')
    (dest / "zh" / "01_a.ipynb").write_text('{"mine": true}')        # the learner changed this one
    kept = lab_setup.copy(dest=dest, source=src)
    assert (dest / "en" / "01_a.ipynb").read_text() == '{"v": 2}'     # untouched: refreshed
    assert kept == ["zh/01_a.ipynb"] and (dest / "zh" / "01_a.ipynb").read_text() == '{"mine": true}'
    assert lab_setup.copy(reset=True, dest=dest, source=src) == []
    assert (dest / "zh" / "01_a.ipynb").read_text() == '{"v": 2}'
    assert (dest.with_name("my-notebooks.bak") / "zh" / "01_a.ipynb").read_text() == '{"mine": true}'


def test_the_working_copy_is_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert f"/{lab_setup.WORK_COPY.name}/" in ignored and "/.lab/" in ignored and "/_site/" in ignored


def test_webfont_css_covers_chinese_and_keeps_latin_on_the_theme_fonts():
    css = lab_setup.webfont_css("fonts/x.otf")
    assert "U+4E00-9FFF" in css and "U+3000-30FF" in css and 'url("fonts/x.otf")' in css
    assert 'local("Noto Sans CJK SC")' in css
    assert "--jp-ui-font-family" in css and "--jp-content-font-family" in css
    assert "U+0000" not in css and "U+0041" not in css                # Latin is not drawn by the CJK face


def test_webfont_css_reaches_form_controls_and_slide_headings_tables_and_code():
    """Chromium does not let controls inherit the page's font, and reveal.js styles headings, tables and code
    with its own stacks: each of those gets the CJK face first (issue 16: boxes in dropdowns and slides)."""
    import re
    css = re.sub(r"/\*.*?\*/", "", lab_setup.webfont_css("fonts/x.otf"), flags=re.S)
    rules = re.findall(r"([^{}]+)\{([^{}]*)\}", css)
    first = {}
    for selectors, body in rules:
        family = re.search(r"font-family:\s*([^;]+);", body)
        for sel in selectors.split(","):
            sel = sel.strip()
            if family and sel:
                first[sel] = family.group(1)
    for element in ("input", "select", "option", "textarea", "button"):
        assert first.get(f"html {element}", "").startswith(f'"{lab_setup.FONT_FAMILY}"'), element
    for element in ("h1", "h2", "h3", "h4", "h5", "h6", "table", "th", "td", "pre", "code"):
        assert first.get(f"html .reveal {element}", "").startswith(f'"{lab_setup.FONT_FAMILY}"'), element


def test_config_sets_the_interface_language(tmp_path, monkeypatch):
    monkeypatch.setattr(lab_setup, "webfont", lambda folder, name="x": folder)   # no 16 MB font here
    lab_setup.config(tmp_path, "zh")
    settings = tmp_path / "lab" / "user-settings" / "@jupyterlab" / "translation-extension"
    assert json.loads((settings / "plugin.jupyterlab-settings").read_text()) == {"locale": "zh_CN"}


@pytest.mark.parametrize("page, remote", [
    ('<script src="https://cdn.example/require.js"></script>', True),
    ('<link rel="stylesheet" href="//cdn.example/x.css">', True),
    ("<script type=module>import m from 'https://cdn.example/m.mjs';</script>", True),
    ('<script src="../assets/require.js"></script><a href="https://arxiv.org/abs/1706.03762">paper</a>', False),
    ('<img srcset="a.png 1x, https://cdn.example/b.png 2x">', True),
    ("<picture><source srcset='//cdn.example/b.webp'></picture>", True),
    ('<img srcset="a.png 1x, b.png 2x" src="a.png">', False),
    ('<iframe src="https://www.youtube.com/embed/x"></iframe>', True),
    ('<style>@import url("https://fonts.example/css");</style>', True),
    ("<style>@import 'https://cdn.example/x.css';</style>", True),
    ('<div style="background: url(//cdn.example/y.png)"></div>', True),
    ('<div style="background: url(data:image/png;base64,AAAA)"></div>', False),
    ('<video poster="https://cdn.example/p.png" src="v.mp4"></video>', True),
    ('<object data="https://cdn.example/y.svg"></object>', True),
    ('<script>import("https://cdn.example/m.js")</script>', True),
    ("<p>written at http://example.com, not loaded</p>", False),
])
def test_the_site_build_refuses_pages_that_load_from_the_network(page, remote):
    if remote:
        with pytest.raises(SystemExit, match="network"):
            build_site.check_offline(Path("x.html"), page)
    else:
        build_site.check_offline(Path("x.html"), page)


def test_links_between_notebooks_point_at_the_exported_pages():
    page = '<a href="02_scaled_dot_product.ipynb#Softmax">02</a> <a href="https://x.org/a.ipynb">x</a>'
    out = build_site._fix_links(page, "site")
    assert 'href="02_scaled_dot_product.html#Softmax"' in out and "https://x.org/a.ipynb" in out
    assert 'href="02_scaled_dot_product.slides.html"' in build_site._fix_links('<a href="02_scaled_dot_product.ipynb">',
                                                                               "slides")


# --- the working copy's state: atomic, a corrupt one rebuilt, every backup kept, "newer" only when it is ----------
def test_a_notebook_only_the_learner_changed_is_kept_without_saying_the_course_is_newer(course, capsys):
    src, dest = course
    lab_setup.copy(dest=dest, source=src)
    (dest / "en" / "01_a.ipynb").write_text('{"mine": 1}')
    for _ in range(2):                                               # every later `make lab`
        assert lab_setup.copy(dest=dest, source=src) == []
        assert "newer" not in capsys.readouterr().out
    assert (dest / "en" / "01_a.ipynb").read_text() == '{"mine": 1}'
    (src / "en" / "01_a.ipynb").write_text('{"v": 2}')                # now the course changes too
    assert lab_setup.copy(dest=dest, source=src) == ["en/01_a.ipynb"]
    assert "kept your changed my-notebooks/en/01_a.ipynb (the course's version is newer" in capsys.readouterr().out
    assert (dest / "en" / "01_a.ipynb").read_text() == '{"mine": 1}'


@pytest.mark.parametrize("state", ['{"en/01_a.ipynb": "ab', "", "[1, 2]", '{"en/01_a.ipynb": 3}', "\udcff"])
def test_a_corrupt_state_file_is_rebuilt_and_loses_nothing(course, capsys, state):
    src, dest = course
    lab_setup.copy(dest=dest, source=src)
    (dest / "zh" / "01_a.ipynb").write_text('{"mine": true}')
    (dest / ".copied.json").write_text(state, errors="surrogateescape")
    (src / "en" / "01_a.ipynb").write_text('{"v": 2}')
    kept = lab_setup.copy(dest=dest, source=src)
    out = capsys.readouterr().out
    assert "my-notebooks/.copied.json was" in out and "rebuilt it" in out and "Traceback" not in out
    assert kept == ["en/01_a.ipynb", "zh/01_a.ipynb"]                 # unknown base: every differing copy is kept
    assert "it differs from the course's version" in out
    assert (dest / "zh" / "01_a.ipynb").read_text() == '{"mine": true}'
    state = json.loads((dest / ".copied.json").read_text())          # valid again: the course's digests as bases
    assert state == {rel: lab_setup._digest(src / rel) for rel in ("en/01_a.ipynb", "zh/01_a.ipynb")}
    assert lab_setup.copy(dest=dest, source=src) == [] and capsys.readouterr().out == ""


def test_after_a_rebuild_a_changed_notebook_is_named_once_then_only_when_the_course_changes(course, capsys):
    src, dest = course
    lab_setup.copy(dest=dest, source=src)
    (dest / "en" / "01_a.ipynb").write_text('{"mine": 1}')
    (dest / ".copied.json").write_text('{"en/01_a.ipy')              # truncated
    assert lab_setup.copy(dest=dest, source=src) == ["en/01_a.ipynb"]
    assert "kept your changed my-notebooks/en/01_a.ipynb (it differs" in capsys.readouterr().out
    for _ in range(3):                                               # every later `make lab`: not a word
        assert lab_setup.copy(dest=dest, source=src) == []
        assert capsys.readouterr().out == ""
    (src / "en" / "01_a.ipynb").write_text('{"v": 2}')                # the course changes: named again, as newer
    assert lab_setup.copy(dest=dest, source=src) == ["en/01_a.ipynb"]
    assert "(the course's version is newer" in capsys.readouterr().out
    assert (dest / "en" / "01_a.ipynb").read_text() == '{"mine": 1}'


def test_the_state_file_is_written_atomically(course, monkeypatch):
    src, dest = course
    lab_setup.copy(dest=dest, source=src)
    before = (dest / ".copied.json").read_text()

    def crash(_src, _dst):
        raise OSError("disk full")
    monkeypatch.setattr(lab_setup.os, "replace", crash)
    (src / "en" / "01_a.ipynb").write_text('{"v": 3}')
    with pytest.raises(OSError, match="disk full"):
        lab_setup.copy(dest=dest, source=src)
    assert (dest / ".copied.json").read_text() == before             # the old state, whole
    monkeypatch.undo()
    lab_setup.copy(dest=dest, source=src)                            # and the next run is fine
    state = json.loads((dest / ".copied.json").read_text())
    assert state["en/01_a.ipynb"] == lab_setup._digest(src / "en" / "01_a.ipynb")


def test_lab_reset_keeps_every_earlier_backup(course, capsys):
    src, dest = course
    lab_setup.copy(dest=dest, source=src)
    for i in range(1, 4):
        (dest / "en" / "01_a.ipynb").write_text(f'{{"edit": {i}}}')
        lab_setup.copy(reset=True, dest=dest, source=src)
    names = {1: "my-notebooks.bak", 2: "my-notebooks.bak.2", 3: "my-notebooks.bak.3"}
    for i, name in names.items():
        assert (dest.parent / name / "en" / "01_a.ipynb").read_text() == f'{{"edit": {i}}}'
    assert "moved your copy to my-notebooks.bak.3/" in capsys.readouterr().out
    assert (dest / "en" / "01_a.ipynb").read_text() == (src / "en" / "01_a.ipynb").read_text()


def test_numbered_backups_are_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "/my-notebooks.bak/" in ignored and "/my-notebooks.bak.*/" in ignored


def test_site_pages_are_titled_with_the_notebooks_title():
    assert build_site.page_title("01_query_key_value", "en") == "01 · Query, Key, Value: the intuition"
    assert build_site.page_title("04_masking", "zh").startswith("04 · ") and "04_masking" not in \
        build_site.page_title("04_masking", "zh")


def test_side_by_side_builds_fetch_the_site_assets_once(tmp_path):
    """Two builds starting on an empty node_modules (make test's workers build the site and a deck at once):
    one fetch runs, the other waits for it and finds the folder ready; two `npm ci` in one folder delete each
    other's files (the CI failure this guards against)."""
    import os
    import subprocess
    import sys
    pkg = tmp_path / "site"
    pkg.mkdir()
    (pkg / "package.json").write_text(json.dumps({"dependencies": {"mathjax": "2.7.7"}}))
    (pkg / "package-lock.json").write_text("{}")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text("#!/bin/sh\n"
                   "[ -e running ] && { echo 'a second npm in the same folder' >&2; exit 9; }\n"
                   "touch running; sleep 1\n"
                   "mkdir -p node_modules/mathjax && touch node_modules/.package-lock.json\n"
                   "echo fetched >> fetches; rm running\n")
    npm.chmod(0o755)
    script = ("import importlib.util, pathlib, sys\n"
              f"spec = importlib.util.spec_from_file_location('b', {str(ROOT / 'tools' / 'build_site.py')!r})\n"
              "b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)\n"
              f"b.SITE_PKG = pathlib.Path({str(pkg)!r}); b.NODE = b.SITE_PKG / 'node_modules'\n"
              "b.ensure_node_modules()\n")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    builds = [subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    errors = [build.communicate(timeout=60)[1] for build in builds]
    assert [build.returncode for build in builds] == [0, 0], errors
    assert (pkg / "fetches").read_text().splitlines() == ["fetched"]


def test_bench_only_replaces_its_sections_and_keeps_the_rest(tmp_path, monkeypatch):
    """`make bench`'s `--only gpt` updates that section of results.json: the other sections stay, the new one
    records when and under what load it was measured; a quick run never merges into a full report."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = tmp_path / "results.json"
    earlier = {"machine": {"date": "then"}, "quick": False, "total_seconds": 240.0,
               "sections": {"attention": {"rows": [1]}, "gpt": {"old": True}}}
    path.write_text(json.dumps(earlier))
    machine = {"date": "now", "load_average_before": [0.1], "load_average_after": [1.0]}
    merged = bench.merge_into(path, {"machine": machine, "quick": False, "sections": {"gpt": {"training": []}}})
    assert merged["sections"]["attention"] == {"rows": [1]} and merged["machine"] == {"date": "then"}
    assert merged["sections"]["gpt"] == {"training": [], "measured": {"date": "now", "load_average_before": [0.1],
                                                                      "load_average_after": [1.0]}}
    quick = bench.merge_into(path, {"machine": machine, "quick": True, "sections": {"gpt": {}}})
    assert set(quick["sections"]) == {"gpt"}
    path.write_text("not json")
    assert set(bench.merge_into(path, {"machine": machine, "quick": False, "sections": {"gpt": {}}})["sections"]) \
        == {"gpt"}


# --- tools/course.py: the test commands (make test / quick / unit / nbval call them) --------------------------------
course_py = _load("course")


@pytest.fixture
def ran(monkeypatch):
    """course_py.test, replaced by a recorder: what main() would have run (nothing is run)."""
    calls = []
    monkeypatch.setattr(course_py, "test", lambda *args: calls.append(args) or 0)
    return calls


@pytest.mark.parametrize("bad", ["0", "-1", "1.5", "two", "", " ", "٣", "1e3", "auto2"])
@pytest.mark.parametrize("command", ["test", "quick", "unit", "nbval"])
def test_workers_must_be_a_whole_number_from_one_or_auto(command, bad, ran, capsys):
    with pytest.raises(SystemExit) as stop:
        course_py.main([command, "--workers", bad])
    assert stop.value.code == 2 and not ran
    err = capsys.readouterr().err
    assert "--workers: expected a whole number of test processes from 1 up, or 'auto'" in err
    assert f"got {bad!r}" in err


def test_workers_takes_whole_numbers_and_auto(ran):
    for given, passed in (("1", "1"), ("2", "2"), (" 4 ", "4"), ("016", "16"), ("auto", "auto"), ("AUTO", "auto")):
        assert course_py.main(["quick", "--workers", given]) == 0
        assert ran[-1] == ("quick", passed, [])
    course_py.main(["unit", "--", "-k", "softmax"])
    assert ran[-1] == ("unit", "2", ["-k", "softmax"])


def test_each_test_command_runs_one_pytest_session_with_the_tests_environment(tmp_path):
    py = tmp_path / "python"
    commands = {kind: course_py.pytest_command(py, kind, "3", ["-x"]) for kind in ("test", "quick", "unit", "nbval")}
    for kind, (cmd, env) in commands.items():
        assert cmd[:3] == [str(py), "-m", "pytest"] and cmd[-1] == "-x", kind
        assert cmd[cmd.index("-n") + 1] == "3" and "no:cacheprovider" in cmd, kind
        assert cmd[cmd.index("--dist") + 1] == "loadfile", kind                 # a file's tests on one worker
        assert env["HOME"].endswith(".test-home") and env["MPLCONFIGDIR"].endswith("mpl"), kind
        assert env["PYTHONHASHSEED"] == "0" and env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "1", kind
        assert env["JUPYTER_CONFIG_DIR"].endswith("jupyter") and env["IPYTHONDIR"].endswith("ipython"), kind
    quick, env = commands["quick"]
    assert env["HYPOTHESIS_PROFILE"] == "quick" and quick[quick.index("-m", 3) + 1] == "not slow and not browser"
    assert set(course_py.QUICK_PATHS) <= set(quick) and "--nbval" not in quick and "tests/browser" not in quick
    unit = commands["unit"][0]
    assert unit[unit.index("-m", 3) + 1] == "not browser" and "--ignore=tests/browser" in unit and "--nbval" not in unit
    nbval = commands["nbval"][0]
    assert "--nbval" in nbval and nbval[-3:-1] == ["notebooks/en", "notebooks/zh"] and "tests" not in nbval
    full = commands["test"][0]
    assert "--nbval" in full and {"tests", "notebooks/en", "notebooks/zh"} <= set(full)
    assert "HYPOTHESIS_PROFILE" not in commands["test"][1] or commands["test"][1]["HYPOTHESIS_PROFILE"] != "quick"
    with pytest.raises(ValueError, match="no test command 'lint'"):
        course_py.pytest_command(py, "lint", "2", [])


def test_the_makefiles_test_targets_only_call_course_py():
    """Windows has no make: `py tools\\course.py quick` must be the same loop as `make quick`."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("test", "quick", "unit", "nbval"):
        recipe = makefile.split(f"\n{target}: setup\n", 1)[1].split("\n\n", 1)[0].strip().splitlines()
        assert recipe == [f"$(PY) tools/course.py {target} --workers $(TEST_WORKERS)"], (target, recipe)
