"""teaching.progress: the one progress display of a training run (notebook 12's make train, notebook 13's runs):
the line in both languages, plain text in a log, one redrawn line in a terminal, an in-place line or a widget in a
kernel, and its argument checks."""
from __future__ import annotations

import io

import pytest

from attention_core.teaching import progress as progress_mod
from attention_core.teaching.progress import Progress, time_text


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _rec(step, steps=100, loss=2.5, valid=None, seconds=None, logged=False):
    return {"step": step, "steps": steps, "loss": loss, "valid": valid,
            "seconds": step / 20 if seconds is None else seconds, "logged": logged}


@pytest.mark.parametrize("lang, words", [("en", ("step 50/100", "loss 2.500", "20.0 steps/s", "2 s left")),
                                          ("zh", ("第 50/100 步", "损失 2.500", "每秒 20.0 步", "还剩 2 秒"))])
def test_the_progress_line_says_loss_rate_and_time_left(lang, words):
    p = Progress("induction", mode="text", lang=lang)
    line = p.line(_rec(50, seconds=2.5))
    assert line.startswith("induction · ") and all(w in line for w in words), line
    done = p.line(_rec(100, seconds=5.0, valid=2.4))
    assert ("done: 100 steps in 5.0 s" if lang == "en" else "完成：100 步，用时 5.0 秒") in done
    assert "2.400" in done


def test_time_left_reads_minutes():
    assert time_text(75, "en") == "1 min 15 s" and time_text(75, "zh") == "1 分 15 秒"
    assert time_text(-3, "en") == "0 s"


def test_plain_text_outside_a_kernel_prints_one_line_per_logged_step():
    stream = io.StringIO()
    p = Progress("text", stream=stream)
    assert p.mode == "text"                                            # pytest is no kernel
    for step in range(1, 11):
        p(_rec(step, steps=10, logged=step % 5 == 0, valid=2.0 if step >= 5 else None))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "step 5/10" in lines[0] and "done: 10 steps" in lines[1]
    assert "\r" not in stream.getvalue() and p.last["step"] == 10
    assert Progress("", mode="text").line(_rec(5, steps=10)).startswith("step 5/10")      # no label, no dot


def test_a_terminal_gets_one_line_redrawn_in_place_at_most_every_interval():
    stream = _Tty()
    p = Progress("", stream=stream, every=3600)      # the first step, logged steps and the end redraw
    for step in range(1, 6):
        p(_rec(step, steps=5, logged=step == 3))
    out = stream.getvalue()
    assert out.count("\r") == 3 and out.count("\n") == 1 and out.endswith("\n")
    assert "step 3/5" in out and "done: 5 steps" in out


def test_the_running_loss_is_smoothed():
    p = Progress(mode="text", stream=io.StringIO(), smoothing=0.5)
    p(_rec(1, loss=4.0))
    p(_rec(2, loss=2.0))
    assert p.loss == pytest.approx(3.0) and "loss 3.000" in p.line(_rec(2, loss=2.0))


def test_the_widget_shows_the_bar_and_the_line(capsys):
    pytest.importorskip("ipywidgets")
    p = Progress("induction", mode="widget", lang="en")
    for step in range(1, 4):
        p(_rec(step, steps=3, logged=True, valid=2.2))
    bar, words = p._view
    assert (bar.value, bar.max, bar.bar_style) == (3, 3, "success")
    assert "done: 3 steps" in words.value and "validation 2.200" in words.value
    assert capsys.readouterr().out.count("done: 3 steps") == 1      # the result once as text, for a static reader


def test_a_kernel_without_widgets_gets_a_display_line_updated_in_place(monkeypatch):
    updates = []

    class Handle:
        def update(self, obj):
            updates.append(obj.data)

    import IPython.display
    monkeypatch.setattr(IPython.display, "display", lambda obj, display_id=None: updates.append(obj.data) or Handle())
    p = Progress("text", mode="display", lang="zh")
    p(_rec(1, steps=2, logged=True))
    p(_rec(2, steps=2, logged=True))
    assert len(updates) == 2 and "第 1/2 步" in updates[0] and "完成" in updates[1]


@pytest.mark.parametrize("kwargs, words", [({"mode": "bar"}, "mode: expected one of"),
                                           ({"every": -1}, "every: expected seconds >= 0"),
                                           ({"lang": "fr"}, "lang: expected")])
def test_progress_refuses_bad_arguments(kwargs, words):
    with pytest.raises(ValueError, match=words):
        Progress(**kwargs)


def test_in_a_kernel_the_default_is_the_line_a_saved_notebook_keeps(monkeypatch):
    """A widget's saved output is empty on a code host; the display line's last state is plain HTML text."""
    monkeypatch.setattr(progress_mod, "_in_kernel", lambda: True)
    assert Progress("x").mode == "display"
    monkeypatch.setattr(progress_mod, "_in_kernel", lambda: False)
    assert Progress("x").mode == "text"
