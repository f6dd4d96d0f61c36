"""Progress feedback: shown when asked (or on a terminal), silent otherwise."""

from __future__ import annotations

import io

import pandas_anon
from pandas_anon.progress import Progress

from conftest import PERSONAL


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_a_bar_redrawn_in_place_when_enabled():
    """tqdm's bar: the label, the count out of the total, the unit, the last detail; redrawn
    with carriage returns, and one line left when done."""
    stream = io.StringIO()
    with Progress("search", total=3, unit="size", enabled=True, stream=stream) as bar:
        bar.advance("4 subsets")
        bar.advance("6 subsets")
    text = stream.getvalue()
    last = text.rstrip("\n").split("\r")[-1]
    assert last.startswith("search:") and "2/3" in last and "size" in last
    assert "6 subsets" in last
    assert text.endswith("\n") and text.count("\n") == 1


def test_progress_follows_the_terminal_by_default():
    for stream, shown in ((io.StringIO(), False), (Terminal(), True)):
        with Progress("search", total=1, unit="size", stream=stream) as bar:
            bar.advance()
        assert bool(stream.getvalue()) is shown


def test_best_qid_reports_each_size_on_stderr_when_asked(licences, capsys):
    pandas_anon.best_qid(licences, PERSONAL, progress=True)
    err = capsys.readouterr().err
    last = err.rstrip("\n").split("\r")[-1]
    assert last.startswith("best_qid:") and "/4" in last and "size" in last
    pandas_anon.best_qid(licences, PERSONAL)  # not a terminal: silent
    assert capsys.readouterr().err == ""


def test_a_notebook_gets_progress_by_default(monkeypatch, capsys):
    """In a Jupyter kernel (IPython's ZMQ shell) progress shows without asking: tqdm's
    widget with ipywidgets, its text bar on stderr without."""
    import sys
    import types

    shell = type("ZMQInteractiveShell", (), {})()
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # not installed: the text bar
    with Progress("search", total=2, unit="size") as bar:
        bar.advance()
    assert bar.enabled and "search:" in capsys.readouterr().err
