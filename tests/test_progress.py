"""Progress feedback: shown when asked (or on a terminal), silent otherwise."""

from __future__ import annotations

import io

import pandas_anon
from pandas_anon.progress import Progress

from conftest import PERSONAL


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_writes_one_redrawn_line_when_enabled():
    stream = io.StringIO()
    with Progress("search", total=3, unit="size", enabled=True, stream=stream) as bar:
        bar.advance("4 subsets")
        bar.advance()
    text = stream.getvalue()
    assert text.startswith("\rsearch: size 1/3 (4 subsets)") and "\rsearch: size 2/3 " in text
    assert text.endswith("\n") and text.count("\n") == 1


def test_progress_follows_the_terminal_by_default():
    for stream, shown in ((io.StringIO(), False), (Terminal(), True)):
        with Progress("search", total=1, unit="size", stream=stream) as bar:
            bar.advance()
        assert bool(stream.getvalue()) is shown


def test_best_qid_reports_each_size_on_stderr_when_asked(licences, capsys):
    pandas_anon.best_qid(licences, PERSONAL, progress=True)
    err = capsys.readouterr().err
    assert "best_qid: size 1/4 (4 subsets)" in err and "size 3/4" in err
    pandas_anon.best_qid(licences, PERSONAL)  # not a terminal: silent
    assert capsys.readouterr().err == ""
