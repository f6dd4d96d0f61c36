"""The gate fails closed: none of a corpus of risky tables (:mod:`corpus`: 200 rows, each
alone on its columns, in every form ``pandas-anon check`` accepts or might be handed) exits 0,
on the pandas engine or on ``--engine dask`` (on a real LocalCluster). The pandas engine
reads every form it names and fails it (exit 1), but JSON shapes without column names, which
it refuses (exit 2); Dask reads delimited text and Parquet and fails them, and refuses every
other form (exit 2), never reading it as text. Both engines refuse a table with a header but
no row."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pandas_anon.cli.main import main

from corpus import CASES, REFUSED, dask_reads, write_corpus

NAMES = sorted(CASES)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The corpus written in a folder of its own (a repository root: no configuration)."""
    folder = tmp_path_factory.mktemp("corpus")
    (folder / ".git").mkdir()
    write_corpus(folder)
    return folder


def check(folder: Path, name: str, *options: str) -> int:
    """The exit status of ``pandas-anon check`` on one file, run in ``folder``."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return main(["check", name, *options])
    finally:
        os.chdir(cwd)


def test_the_corpus_holds_60_forms_or_more():
    assert len(CASES) >= 60
    assert sum(dask_reads(name) for name in CASES) >= 30  # the Dask engine reads half


@pytest.mark.parametrize("name", NAMES)
def test_no_risky_table_passes_the_pandas_engine(corpus, capsys, name):
    status = check(corpus, name)
    assert status == (2 if name in REFUSED else 1)
    err = capsys.readouterr().err
    assert status == 1 or "pandas-anon: error:" in err


@pytest.mark.parametrize("name", NAMES)
def test_no_risky_table_passes_the_dask_engine(client, corpus, capsys, name):
    status = check(corpus, name, "--engine", "dask")
    err = capsys.readouterr().err
    if dask_reads(name):
        assert status == 1, err
    else:
        assert status == 2
        assert "check it with the pandas engine" in err


@pytest.mark.parametrize("content", ["a;b;c\n", "\ufeffanno,comune\r\n"])
def test_both_engines_refuse_a_table_without_rows(client, tmp_path, capsys, content):
    (tmp_path / "header.csv").write_text(content)
    for engine in ("pandas", "dask"):
        assert check(tmp_path, "header.csv", "--engine", engine) == 2
        assert "has a header but no data rows" in capsys.readouterr().err


def test_a_member_the_gate_cannot_read_fails_the_run_unless_a_rule_skips_it(tmp_path, capsys):
    """A Finder zip: its AppleDouble file is an error naming it and saying how to skip it; a
    rule whose ``files`` names members of the archive skips them, and only them."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "finder.zip").write_bytes(CASES["finder.zip"]())
    assert check(tmp_path, "finder.zip") == 2
    err = capsys.readouterr().err
    assert err.startswith("pandas-anon: error: finder.zip:__MACOSX/dati/._a.csv does not look")
    assert "a macOS AppleDouble file" in err
    assert 'a rule with files = "finder.zip:__MACOSX/dati/._a.csv" and skip = true' in err
    (tmp_path / ".pandas-anon.toml").write_text(
        '[[rules]]\nfiles = "finder.zip:__MACOSX/*"\nskip = true\n'
    )
    assert check(tmp_path, "finder.zip", "--format", "json") == 1  # the table still fails
    files = json.loads(capsys.readouterr().out)["files"]
    assert [(f["file"], f["status"], f.get("reason")) for f in files] == [
        ("finder.zip:dati/a.csv", "fail", None),
        ("finder.zip:__MACOSX/dati/._a.csv", "skipped", "skipped by a rule"),
    ]


def test_a_rule_on_an_archive_applies_to_the_archives_inside(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / "deep.zip").write_bytes(CASES["member_deep_zip.zip"]())
    (tmp_path / ".pandas-anon.toml").write_text(
        '[[rules]]\nfiles = "deep.zip:deep.zip:inner.zip"\nqid = ["sesso"]\nk = 2\n'
    )
    assert check(tmp_path, "deep.zip", "--format", "json") == 0  # 100 rows per sex
    files = json.loads(capsys.readouterr().out)["files"]
    assert [(f["file"], f["status"], f.get("qid")) for f in files] == [
        ("deep.zip:README.txt", "skipped", None),
        ("deep.zip:deep.zip:inner.zip:dati/a.csv", "pass", ["sesso"]),
    ]
