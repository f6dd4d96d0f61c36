"""The input and output of the commands writing a copy (``anonymize``, ``ke-anon``,
``compare``), fast and unchanged (issue 37): the file parsed once, by the gate's reading layer
(issue 45), typed as pandas types it, and written with pyarrow where that gives the bytes
``to_csv`` gives."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pyarrow.csv as pa_csv
import pytest

from pandas_anon.cli.copies import as_written
from pandas_anon.errors import InputFileError
from pandas_anon.gate import io as gate_io
from pandas_anon.gate.io import TextForm, read_table, typed_and_text, write_table
from pandas_anon.gate.parsers import read


def read_typed_and_text(path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A delimited file read once by the reading layer, typed and as text."""
    return typed_and_text(read(path).frame, as_text=True)


#: Files whose typing or reading has a trap: each must read as read_table reads it.
TRICKY = {
    "bools.csv": "a,b,c\nTrue,1,x\nFalse,2,y\n,3,z\n",
    "lower_bools.csv": "a,b\ntrue,1\nFALSE,2\n",
    "ints_missing.csv": "a,b\n1,x\n,y\n3,z\n",
    "leading_zeros.csv": "a,b\n0100,x\n100,y\n007,z\n",
    "quoted.csv": 'a,b,c\n"x,y",1,"he said ""hi"""\n"two\nlines",2,ok\n"12",3," 4"\n',
    "empty_column.csv": "a,b,c\n1,,x\n2,,y\n",
    "crlf.csv": "a;b\r\n1;x\r\n2;y\r\n",
    "title.csv": "Patenti 2024\n\na;b;c\n1;x;2.5\n2;y;3\n",
    "too_big.csv": "a,b\n99999999999999999999,1\n1,2\n",
    "special_floats.csv": "a,b,c,d\ninf,nan,-Infinity,1e5\n1,2,3,4\n",
    "mixed.csv": "a,b\n1,1.5\nx,2\n",
    "spaces.csv": "a,b\n 1 ,x\n2 , y\n",
    "one_column.csv": "a\n1\n\n3\n",
    "short_row.csv": "a,b,c\n1,2\n3,4,5\n",
    "dates.csv": "a,b\n2020-01-01,1\n2021-02-03,2\n",
    "header_only.csv": "a,b\n",
    "tabs.tsv": "a\tb\n1\tx\n",
    "nul.csv": "a,b\nx\x00y,1\nx\x00z,2\n",  # binary: refused
    "unnamed.csv": ",a\n7,x\n1,y\n",
    "floats.csv": "a,b\n1.0,7\n2.50,7.0\n",
    "signs.csv": "a,b\n-1,+2\n-3,4\n",
    "na_texts.csv": "a,b\nNA,1\nNaN,2\nnull,3\n",
}


def _write(folder, name: str) -> str:
    path = folder / name
    if name == "cp1252.csv":
        path.write_bytes("a;b\ncittà;1\nperché;2\n".encode("cp1252"))
    elif name == "bom.csv":
        path.write_bytes("\ufeffa,b\n1,x\n".encode())
    elif name == "gzip.csv.gz":
        with gzip.open(path, "wt") as handle:
            handle.write("a,b\n1,x\n2,y\n")
    else:
        path.write_bytes(TRICKY[name].encode())
    return str(path)


@pytest.mark.parametrize("name", [*TRICKY, "cp1252.csv", "bom.csv", "gzip.csv.gz"])
def test_read_once_gives_what_reading_twice_gives(tmp_path, name):
    path = _write(tmp_path, name)
    try:
        read_table(path)
    except InputFileError as error:  # refused the same way
        with pytest.raises(InputFileError, match=re.escape(str(error))):
            read_typed_and_text(path)
        return
    typed, text = read_typed_and_text(path)
    for ours, theirs in ((typed, read_table(path)), (text, read_table(path, as_text=True))):
        assert list(ours.columns) == list(theirs.columns)
        assert ours.dtypes.to_dict() == theirs.dtypes.to_dict()
        pd.testing.assert_frame_equal(ours, theirs)


def test_a_column_of_row_numbers_is_left_out_as_the_gate_leaves_it(tmp_path):
    path = tmp_path / "index.csv"
    path.write_text(",a\n0,x\n1,y\n")  # DataFrame.to_csv's index
    typed, text = read_typed_and_text(path)
    assert list(typed.columns) == list(text.columns) == ["a"]
    pd.testing.assert_frame_equal(text, read_table(path, as_text=True)[["a"]])


def test_a_value_far_down_a_column_decides_its_type(tmp_path):
    rows = 100_000  # more than the rows looked at first (gate.io._HEAD_ROWS)
    numbers = [str(i % 97) for i in range(rows)]
    frame = pd.DataFrame({"late_text": [*numbers[:-1], "x"], "numbers": numbers})
    frame["late_float"] = [*numbers[:-1], "1.5"]
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    typed, _ = read_typed_and_text(path)
    pd.testing.assert_frame_equal(typed, read_table(path))
    assert typed.dtypes.astype(str).tolist()[1:] == ["int64", "float64"]


def test_a_line_break_in_a_value_across_blocks(tmp_path, monkeypatch):
    # blocks of 8 bytes: pyarrow cutting at any line break would read "y\"" for "x\ny"
    monkeypatch.setattr(gate_io, "_ARROW_BLOCK", 8)
    path = tmp_path / "breaks.csv"
    path.write_text('a,b\npp,0\n"x\ny",1\nz,2\n')
    typed, text = read_typed_and_text(path)
    assert text["a"].tolist() == ["pp", "x\ny", "z"]
    pd.testing.assert_frame_equal(typed, read_table(path))


def test_read_once_parses_the_file_once(tmp_path, monkeypatch):
    path = _write(tmp_path, "leading_zeros.csv")
    calls = []
    parse = gate_io.parse_layout
    monkeypatch.setattr(gate_io, "parse_layout", lambda *a: calls.append(a) or parse(*a))
    typed, _ = read_typed_and_text(path)
    assert calls == []  # pandas never parses the whole file
    assert typed["a"].tolist() == [100, 100, 7]


def test_read_once_errors_are_read_tables(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2,3\n")
    with pytest.raises(InputFileError) as twice:
        read_table(path)
    with pytest.raises(InputFileError) as once:
        read_typed_and_text(path)
    assert str(once.value) == str(twice.value)


FRAMES = {
    "text": pd.DataFrame({"a": ["x", None, ""], "b": pd.Series(["1", np.nan, "z"], dtype="str")}),
    "categorical": pd.DataFrame({"a;b": ["x", "y", "z"], "c": pd.Categorical(["p", None, "q"])}),
    "delimiter": pd.DataFrame({"a": ["x;y", "y", "z"], "c": ["1", "2", "3"]}),
    "quote": pd.DataFrame({"a": ['x"y', "y", "z"], "c": ["1", "2", "3"]}),
    "line break": pd.DataFrame({"a": ["x\ny", "y", "x\rz"], "c": ["1", "2", "3"]}),
    "numbers": pd.DataFrame({"a": [1, 2, 3], "c": [0.5, 2.0, np.nan]}),
    "objects": pd.DataFrame({"a": [1, "x", None], "c": ["1", "2", "3"]}),
    "one column": pd.DataFrame({"a": ["x", "", None]}),
    "accents": pd.DataFrame({"a": ["é", " x ", "*"], "c": ["1", "2", "3"]}),
    "no rows": pd.DataFrame({"a": pd.Series([], dtype=object), "c": pd.Series([], dtype=object)}),
}
FORMS = [
    TextForm(";", "utf-8", "\n"),
    TextForm(",", "utf-8", "\r\n"),
    TextForm(";", "cp1252", "\n"),
]


@pytest.mark.parametrize("form", FORMS, ids=lambda form: repr(form.sep + form.encoding))
@pytest.mark.parametrize("frame", list(FRAMES.values()), ids=list(FRAMES))
def test_a_table_is_written_as_to_csv_writes_it(tmp_path, frame, form):
    path = tmp_path / "out.csv"
    write_table(frame, path, form)
    expected = frame.to_csv(sep=form.sep, index=False, lineterminator=form.lineterminator)
    assert path.read_bytes() == expected.encode(form.encoding)


def test_a_text_table_is_written_by_pyarrow(tmp_path, monkeypatch):
    calls = []
    write = pa_csv.write_csv
    monkeypatch.setattr(pa_csv, "write_csv", lambda *a, **k: calls.append(1) or write(*a, **k))
    write_table(FRAMES["text"], tmp_path / "out.csv", FORMS[0])
    assert calls == [1]


def test_a_column_anonymized_as_text_is_written_as_it_is():
    text = pd.Series(["b", "a", "b"], name="c", dtype=object)
    out = pd.DataFrame({"c": pd.Series(["*", "a", "*"], dtype="category")})
    written = as_written(out, pd.DataFrame({"c": text}), pd.DataFrame({"c": text}), ["c"])
    assert written["c"].dtype == out["c"].dtype  # not converted to objects
    assert written["c"].equals(out["c"])
