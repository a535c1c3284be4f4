"""Notebook 11's helpers: the question table stays true to the quiz data, and the recap's checks measure real facts."""
import dataclasses
import re

import ipywidgets as w
import numpy as np
import pytest

import attention_core as ac
from attention_core.labs.nb11_review import review
from attention_core.teaching import i18n, notebook_source, quiz

QUESTIONS = quiz.load_questions()
# notebook 11's own questions are asked there, and those of the models (12, 13) after it, not tabled
TABLED = [q for q in QUESTIONS if not q.combines and q.pointer.notebook not in review.AFTER_THE_REVIEW]


# --- notebook titles and links --------------------------------------------------------------------

def test_titles_come_from_the_sources():
    assert review.notebook_title("04_masking", "en") == "Masking"
    assert review.notebook_title("04_masking", "zh") == "掩码"
    assert review.notebook_title("11_review", "zh") == "总复习"
    assert review.notebook_title("00_start_here", "zh") == "从这里开始"


@pytest.mark.slow          # reads every notebook: about 2.5 s (make test runs it)
def test_a_source_title_is_its_first_heading_and_unknown_stems_are_refused():
    cells = notebook_source.parse_source('# %% [markdown] lang="en"\n# # 08 · Attention and the RNN\n#\n# text\n\n'
                                         '# %% [markdown] lang="zh"\n# # 08 · 注意力与循环网络\n\n'
                                         '# %%\n# 08 · not a title\n')
    assert notebook_source.source_title(cells, "en") == "Attention and the RNN"
    assert notebook_source.source_title(cells, "zh") == "注意力与循环网络"
    assert review.notebook_title("09_cost_and_context_window", "zh") == "计算代价与上下文窗口"
    assert review.notebook_title("10_efficient_attention", "en") == "Efficient attention"
    with pytest.raises(ValueError, match="stem"):
        review.notebook_title("13_magic", "en")
    with pytest.raises(ValueError, match="lang"):
        review.notebook_title("04_masking", "fr")


def test_link_is_relative_with_the_hover_text():
    link = review.notebook_link("04_masking", "en", title='say "hi"')
    assert link == "[04 · Masking](04_masking.ipynb \"say 'hi'\")"
    assert review.notebook_link("03_softmax", "zh") == "[03 · Softmax](03_softmax.ipynb)"


# --- the question table -----------------------------------------------------------------------------

@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_table_has_one_row_per_question_true_to_the_data(lang):
    table = review.question_table(lang)
    lines = table.splitlines()
    assert len(lines) == 2 + len(TABLED)
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines[:1] + lines[2:])
    header_cells = lines[0].count(" | ") + 1
    order = [r.id for r in review.question_rows(lang)]
    assert sorted(order) == sorted(q.id for q in TABLED)
    for q, line in zip([quiz.get_question(i, QUESTIONS) for i in order], lines[2:]):
        cells = re.split(r"(?<!\\) \| ", line[2:-2])
        assert len(cells) == header_cells, line
        assert (q.id.upper() in cells[0]) == (q.part_of is None)
        assert cells[1] == (q.question if q.part_of is None else q.topic)[lang].replace("|", r"\|")
        assert f"]({q.pointer.notebook}.ipynb " in cells[2]                    # a relative link
        assert quiz.pointer_text(q, lang) in cells[2]                          # hover text: the quiz's Try-it line
        assert cells[3] == q.pointer.section[lang]
        assert cells[4] == (f"`{q.pointer.widget}()`" if q.pointer.widget else "–")
        assert q.pointer.section[lang] in quiz.pointer_text(q, lang)
    if lang == "zh":
        assert "题目" in lines[0] and "演示它的那一节" in lines[0]
    assert review.question_table(lang) == table                                # deterministic


def test_rows_follow_the_review_quiz_order():
    q = {x.id: x for x in QUESTIONS}
    extra = dataclasses.replace(q["q1"], id="x9")
    shuffled = [extra, q["q2b"], q["q8"], q["q2"], q["q1"]]
    assert [r.id for r in review.question_rows("en", shuffled)] == ["q1", "q2", "q2b", "q8", "x9"]
    assert [r.main for r in review.question_rows("en", shuffled)] == [True, True, False, True, True]


def test_table_follows_a_changed_pointer():
    q8 = quiz.get_question("q8", QUESTIONS)
    moved = dataclasses.replace(q8, pointer=dataclasses.replace(q8.pointer, widget="widgets.mask_widget",
                                                                section={"en": "Elsewhere", "zh": "别处"}))
    rows = review.question_rows("en", [moved])
    assert rows[0].widget == "widgets.mask_widget" and rows[0].section == "Elsewhere"
    assert "| `widgets.mask_widget()` |" in review.question_table("en", [moved])


def test_table_cells_escape_pipes_and_newlines():
    q1 = quiz.get_question("q1", QUESTIONS)
    odd = dataclasses.replace(q1, question={"en": "a | b\nc", "zh": "甲 | 乙"})
    line = review.question_table("en", [odd]).splitlines()[2]
    assert r"a \| b c" in line and "\n" not in line


# --- the review quiz renders in both languages ------------------------------------------------------

@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_review_quiz_renders_new_questions_then_the_eight_in_another_order(lang):
    box = quiz.review_quiz(lang=lang)
    title, combined, again_title, again = box.children
    assert i18n.t("quiz.combined_title", lang) in title.value
    assert isinstance(combined, w.Accordion) and len(combined.children) >= 8
    for pane, heading in zip(combined.children, combined.titles):
        q = pane.question
        assert q.combines and q.id not in quiz.REQUIRED_IDS and q.part_of is None
        assert len({c[:2] for c in q.combines}) >= 2 and heading.startswith(f"{q.id.upper()} · {q.topic[lang]}")
    assert isinstance(again, w.Accordion) and len(again.children) == 8
    order = quiz.review_order()
    assert order != quiz.REQUIRED_IDS and sorted(order) == list(quiz.REQUIRED_IDS)
    for main, pane, heading in zip(order, again.children, again.titles):
        q = quiz.get_question(main, QUESTIONS)
        assert heading == f"{main.upper()} · {q.topic[lang]} ({q.pointer.notebook[:2]})"
        ids = [b.question.id for b in pane.children]
        assert ids == [main] + [s.id for s in QUESTIONS if s.part_of == main]
        for b in pane.children:
            assert b.check_button.description == i18n.t("quiz.check", lang)
            assert quiz._md(quiz.pointer_text(b.question, lang)) in b.children[-1].value


# --- the recap --------------------------------------------------------------------------------------

def test_recap_shapes_and_library_numbers():
    r = review.recap_step()
    t, d, h = len(r.tokens), 8, 2
    assert (r.x.shape, r.pe.shape, r.h.shape, r.output.shape) == ((t, d),) * 4
    assert r.q.shape == r.k.shape == r.v.shape == (h, t, d // h)
    assert r.weights.shape == (h, t, t)
    np.testing.assert_array_equal(r.pe, ac.sinusoidal_encoding(t, d))
    np.testing.assert_array_equal(r.mask, ac.causal_mask(t))
    out, weights = ac.multi_head_attention(r.h, r.h, r.h, r.params, mask=r.mask)
    np.testing.assert_allclose(weights, r.weights)
    np.testing.assert_allclose(out, r.output)
    # the per-head q, k, v are the layer's: the single-head function gives the same weights
    np.testing.assert_allclose(ac.scaled_dot_product_attention(r.q, r.k, r.v, mask=r.mask)[1], r.weights)
    # a repeated word gets the same embedding; the seed decides everything
    twice = review.recap_step(("a", "b", "a"))
    np.testing.assert_array_equal(twice.x[0], twice.x[2])
    np.testing.assert_array_equal(review.recap_step().weights, r.weights)
    assert not np.allclose(review.recap_step(seed=1).weights, r.weights)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_recap_check_holds(lang):
    checks = review.recap_checks(review.recap_step(), lang)
    assert [c.question for c in checks] == [f"Q{i}" for i in range(1, 9)] + ["n²"]
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]
    assert [c.notebook for c in checks] == ["05", "02", "06", "04", "03", "01", "07", "08", "09"]
    text = review.format_checks(checks)
    assert len(text.splitlines()) == 9 and "✗" not in text
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", checks[0].label)


def test_recap_checks_catch_a_broken_step():
    """The checks are measurements: a step without its mask, or with the future leaking, fails them."""
    r = review.recap_step()
    out, weights = ac.multi_head_attention(r.h, r.h, r.h, r.params)          # no mask: the future leaks
    leaky = {c.question: c for c in review.recap_checks(
        dataclasses.replace(r, mask=np.ones_like(r.mask), weights=weights, output=out))}
    assert leaky["Q5"].ok and not leaky["Q4"].ok                             # rows sum to 1, but outputs move
    wrong_weights = dataclasses.replace(r, weights=np.full_like(r.weights, 1 / len(r.tokens)))
    failed = {c.question for c in review.recap_checks(wrong_weights) if not c.ok}
    assert {"Q2", "Q4", "Q6"} <= failed


def test_recap_validates_its_input():
    with pytest.raises(ValueError, match="tokens"):
        review.recap_step(())
    with pytest.raises(ValueError, match="tokens"):
        review.recap_step(("a", 3))
    with pytest.raises(ValueError, match="n_heads"):
        review.recap_step(d_model=8, n_heads=3)


def test_complexity_rows_match_the_table():
    rows = review.complexity_rows(512, (128, 512, 8192))
    assert [r["attention_ops"] / r["rnn_ops"] for r in rows] == [0.25, 1.0, 16.0]   # equal at n = d
    assert all(r["attention_steps"] == r["attention_path"] == 1 for r in rows)
    assert review.complexity_rows(64, (1_000,))[0]["pairs"] == 1_000_000
    assert review.complexity_rows(64, (100_000,))[0]["pairs"] == 10_000_000_000
    with pytest.raises(ValueError, match="d_model"):
        review.complexity_rows(0)
