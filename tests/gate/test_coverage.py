"""The gate passes a file only when it has read every value in it (issue 45).

Each reader of :mod:`pandas_anon.gate.parsers` returns an account of the file: the values it
holds and where each went. Property tests write random frames in every delimited form and
every JSON orientation and check that the account counts exactly the values written, and
that every value is read, or left over by name (which fails the file), or the file is
refused. Then one test per trick of the issue's hostile round that applies to text and JSON:
each passed the gate (exit 0) before the account, each fails it now.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pandas_anon.cli.main import main
from pandas_anon.errors import InputFileError
from pandas_anon.gate.parsers import json as json_reader
from pandas_anon.gate.parsers import read, sniff
from pandas_anon.gate.parsers.account import UNACCOUNTED, Account, Leftover

COMPRESS = {"": bytes, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
ROWS = 400
CODES = [f"RSSMRA{i % 100:02d}A{i // 100 + 1:02d}H501{chr(65 + i % 26)}" for i in range(ROWS)]


def safe() -> pd.DataFrame:
    """400 people in 8 classes of 50 on every column: the gate passes it."""
    return pd.DataFrame(
        {"anno": [1950 + i % 4 for i in range(ROWS)], "sesso": ["MF"[i % 2] for i in range(ROWS)]}
    )


def check(folder: Path, name: str, *options: str) -> int:
    """The exit status of ``pandas-anon check`` on one file, run in ``folder``."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return main(["check", name, *options])
    finally:
        os.chdir(cwd)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


# -- the account --------------------------------------------------------------------------------


def test_an_account_that_does_not_add_up_is_open():
    account = Account("t.csv", {"cells": 10}, {("t.csv", "a"): 8})
    assert [part.name for part in account.open()] == [UNACCOUNTED]
    declared = Leftover("b", "cells", 2, "outside the columns asked for", declared=True)
    assert Account("t.csv", {"cells": 10}, {("t.csv", "a"): 8}, (declared,)).open() == []
    with pytest.raises(TypeError):
        account.units["cells"] = 8  # type: ignore[index]


# -- property tests: the account equals what was written ------------------------------------------

TEXT = st.text(alphabet=st.characters(codec="latin-1", exclude_categories=("Cc", "Cs")), max_size=8)
CELLS = st.one_of(TEXT, st.integers(-(10**6), 10**6), st.none())


@st.composite
def frames(draw: st.DrawFn, *, names: st.SearchStrategy[str] = TEXT) -> pd.DataFrame:
    """A frame of 1 to 12 rows and 1 to 4 columns of text, numbers and missing values; names
    may be empty or repeated."""
    width = draw(st.integers(1, 4))
    columns = draw(st.lists(names, min_size=width, max_size=width))
    rows = draw(st.integers(1, 12))
    data = [draw(st.lists(CELLS, min_size=rows, max_size=rows)) for _ in columns]
    frame = pd.DataFrame(dict(enumerate(data)), dtype=object)
    frame.columns = columns
    return frame


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@example(  # found by the search: a one-column header "|" is split on "|" into two columns,
    # so the short rows' missing cells are counted too: more values, never fewer
    frame=pd.DataFrame({"|": [None]}, dtype=object),
    sep=",",
    encoding="utf-8",
    compression="",
)
@example(  # found by the search: a header line holding only "" is blank to the sniffer,
    # not to pyarrow, whose KeyError escaped; now an InputFileError
    frame=pd.DataFrame({"": [0]}, dtype=object),
    sep=",",
    encoding="utf-8",
    compression="",
)
@example(  # found by the search: a row of missing values, space-separated, is a line of
    # spaces, blank to every parser; no row read, the check refuses the table
    frame=pd.DataFrame({"": [None], " ": [None], ";": [None]}, dtype=object),
    sep=" ",
    encoding="utf-8",
    compression="",
)
@given(
    frame=frames(),
    sep=st.sampled_from([",", ";", "\t", "|", " "]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "cp1252", "latin-1"]),
    compression=st.sampled_from(sorted(COMPRESS)),
)
def test_delimited_text_is_read_whole_or_refused(tmp_path, frame, sep, encoding, compression):
    """Every cell and column name written is counted (a misread delimiter may count more
    parts, never fewer); read, or the file is refused."""
    try:
        data = frame.to_csv(sep=sep, index=False).encode(encoding)
    except UnicodeEncodeError:
        return  # not representable in that encoding
    path = tmp_path / f"t.csv{compression}"
    path.write_bytes(COMPRESS[compression](data))
    try:
        table, account = read(path)
    except InputFileError:
        return  # fails closed
    if table.empty:
        return  # no row read: the check refuses the table (no_rows), it fails closed
    assert account.open() == []
    rows, columns = frame.shape
    assert account.total >= (rows + 1) * columns  # header and cells, or titles and rows
    assert account.read_total == account.total


def leaf_count(value: object) -> int:
    """The leaves of a parsed JSON value, counted the obvious (recursive) way."""
    if isinstance(value, dict) and value:
        return sum(map(leaf_count, value.values()))
    if isinstance(value, list) and value:
        return sum(map(leaf_count, value))
    return 1


ORIENTS = ["records", "columns", "index", "split", "table", "values", "lines"]
NAMES = st.text(alphabet="abcxyz_ ", min_size=1, max_size=4)


@settings(max_examples=80, deadline=None)
@given(
    frame=frames(names=NAMES),
    orient=st.sampled_from(ORIENTS),
    wrap=st.sampled_from(["", "data", "meta"]),
)
@example(  # the split index of row numbers: read, checked, left out
    frame=pd.DataFrame({"a": [1, 2]}, dtype=object), orient="split", wrap=""
)
def test_json_leaves_are_read_or_left_over_by_name(frame, orient, wrap):
    """Every leaf of the document is counted (as a plain recursive count does); each is read
    into the table, or left over by its path, or the file is refused."""
    if frame.columns.duplicated().any() and orient != "split" and orient != "values":
        return  # pandas refuses to write these
    lines = orient == "lines"
    text = frame.to_json(orient="records" if lines else orient, lines=lines)
    if wrap and not lines:
        document = {"data": json.loads(text)}
        if wrap == "meta":
            document["meta"] = {"source": "Regione", "rows": len(frame)}
        text = json.dumps(document)
    try:
        table, account = json_reader.read("t.json", text.encode(), lines=lines)
    except InputFileError:
        return  # fails closed
    parsed = [json.loads(line) for line in text.splitlines()] if lines else json.loads(text)
    assert account.total == leaf_count(parsed)
    assert account.unaccounted == 0
    left = {part.name for part in account.open()}
    assert left == ({"$.meta"} if wrap == "meta" and not lines else set())
    if not left:
        assert account.read_total == account.total


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_json_nested_100000_deep_is_refused_not_a_recursion_error(opening):
    content = (opening * 100_000).encode()
    with pytest.raises(InputFileError, match="levels deep"):
        json_reader.read("deep.json", content)
    closing = {"[": "]", '{"a":': "}"}[opening]
    content = (opening * 200 + "1" + closing * 200).encode()  # valid, deeper than read
    with pytest.raises(InputFileError, match="levels deep"):
        json_reader.read("deep.json", content)


def test_nested_objects_are_flattened_into_columns():
    content = json.dumps([{"a": {"b": 1, "c": {"d": "x"}}, "e": None}] * 2).encode()
    frame, account = json_reader.read("t.json", content)
    assert list(frame.columns) == ["a.b", "a.c.d", "e"] or set(frame.columns) == {
        "a.b",
        "a.c.d",
        "e",
    }
    assert account.total == account.read_total == 6


@pytest.mark.parametrize(
    "name, content, found",
    [
        ("t.csv", b'[{"a": 1}]', "json"),  # content first
        ("t.txt", b'  {"data": []}', "json"),
        ("t.csv", b"[id],name\n1,x\n", "delimited"),
        ("t.json", b"a,b\n1,2\n", "json"),  # refused by the JSON reader, not read as text
        ("t.dat", b"PAR1....", "parquet"),
        ("t.jsonl", b'{"a": 1}\n', "jsonl"),
    ],
)
def test_the_format_is_sniffed_from_the_content(tmp_path, name, content, found):
    (tmp_path / name).write_bytes(content)
    assert sniff(str(tmp_path / name)) == found


# -- the tricks: each passed the gate (exit 0) before the account --------------------------------


def test_an_empty_header_cell_is_read_as_a_column(repo, capsys):
    """400 distinct tax codes under an empty header cell: pandas names the column
    ``Unnamed: 0`` and the reader dropped it, so the file passed. Now the column is
    ``column 1``, read, and a direct identifier."""
    frame = safe()
    frame.insert(0, "", CODES)
    frame.to_csv(repo / "t.csv", index=False)
    assert check(repo, "t.csv") == 1
    assert "'column 1'" in capsys.readouterr().out


def test_the_index_to_csv_writes_is_checked_and_left_out(repo):
    """An unnamed column holding exactly the row numbers is no one's data."""
    safe().to_csv(repo / "t.csv")  # index written, header cell empty
    assert check(repo, "t.csv") == 0


@pytest.mark.parametrize("where", ["beside", "below"])
def test_json_records_beside_or_below_the_list_read_fail_closed(repo, capsys, where):
    """The reader chose ``data``; the risky records under ``extra`` (beside) or
    ``meta.people`` (below) were never read, and the file passed. Now they are left over by
    path: exit 2, naming the rule that skips them."""
    people = [{"cf": code, "anno": 1950} for code in CODES]
    extra = {"extra": people} if where == "beside" else {"meta": {"people": people}}
    part = "$.extra" if where == "beside" else "$.meta"
    (repo / "t.json").write_text(json.dumps({"data": safe().to_dict("records"), **extra}))
    assert check(repo, "t.json") == 2
    err = capsys.readouterr().err
    assert f"t.json:{part} (800 JSON values, outside the table read)" in err
    assert f'files = ["t.json:{part}"] and skip = true' in err
    assert not any(code in err for code in CODES)
    (repo / ".pandas-anon.toml").write_text(f'[[rules]]\nfiles = "t.json:{part}"\nskip = true\n')
    assert check(repo, "t.json") == 0  # stated in the configuration, by name


@pytest.mark.parametrize("orient", ["table", "split"])
def test_pandas_index_in_json_is_read_as_a_column(repo, orient):
    """``to_json(orient="table")`` keeps the index as the schema's primary key, which the
    reader left out (``split`` as ``"index"``): tax codes there passed. Now the index is a
    column; an index of row numbers is checked and left out."""
    indexed = safe().set_axis(pd.Index(CODES, name="cf" if orient == "table" else None))
    (repo / "codes.json").write_text(indexed.to_json(orient=orient))
    assert check(repo, "codes.json") == 1
    (repo / "numbers.json").write_text(safe().to_json(orient=orient))
    assert check(repo, "numbers.json") == 0


def test_a_space_separated_txt_table_is_not_taken_for_prose(repo):
    """Towns named in several words split the rows into different numbers of fields, so no
    delimiter split every line alike and the ``.txt`` was skipped as prose."""
    towns = ["Aosta", "Citta Nuova", "Pont Saint Martin", "Gressan"]
    lines = ["anno comune sesso"] + [
        f"{1930 + i % 67} {towns[i % 4]}{i % 53} {'MF'[i % 2]}" for i in range(ROWS)
    ]
    (repo / "t.txt").write_text("\n".join(lines) + "\n")
    assert check(repo, "t.txt") in (1, 2)
