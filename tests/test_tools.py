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
