"""``pandas-anon check`` on the table formats besides delimited text: JSON (each shape read),
JSON Lines, Parquet, .xlsx and .ods workbooks (a table per sheet), and .zip archives of them
(:mod:`pandas_anon.gate.formats`, opened by :mod:`pandas_anon.gate.io`)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import pickle
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pandas_anon.cli.main import main
from pandas_anon.engine.encoding import distinct_count
from pandas_anon.errors import ColumnNotFoundError, InputFileError
from pandas_anon.gate import formats
from pandas_anon.gate.check import check_files
from pandas_anon.gate.config import Config
from pandas_anon.gate.formats import Sheet
from pandas_anon.gate.io import TableEntry, read_columns, tables_in
from pandas_anon.gate.parsers.json import read as read_json

from gate_tables import RISKY, SAFE, TOWNS
from verify import naive_counts

#: What must never be printed: the risky rows' values (towns and years).
VALUES = (*TOWNS, *(str(1950 + i) for i in range(10)))


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows as JSON records, numbers as numbers."""
    return json.loads(frame.to_json(orient="records"))


def write_json(path: Path, document: object) -> None:
    data = json.dumps(document).encode()
    path.write_bytes({".gz": gzip.compress, ".bz2": bz2.compress}.get(path.suffix, bytes)(data))


def write_book(path: Path, sheets: dict[str, pd.DataFrame]) -> None:
    """A workbook with a sheet per frame (an empty frame gives an empty sheet)."""
    engine = "odf" if path.suffix == ".ods" else "openpyxl"
    with pd.ExcelWriter(path, engine=engine) as writer:
        for sheet, frame in sheets.items():
            frame.to_excel(writer, sheet_name=sheet, index=False)


#: A file of each format, written from a frame; a workbook holds it as sheet "Patenti" beside
#: an empty sheet "Note".
WRITERS: dict[str, Callable[[Path, pd.DataFrame], None]] = {
    "records.json": lambda path, frame: write_json(path, records(frame)),
    "wrapped.JSON": lambda path, frame: write_json(path, {"data": records(frame)}),
    "split.json": lambda path, frame: path.write_text(frame.to_json(orient="split", index=False)),
    "schema.json": lambda path, frame: path.write_text(frame.to_json(orient="table")),
    "rows.json.gz": lambda path, frame: write_json(
        path, [list(frame.columns), *json.loads(frame.to_json(orient="values"))]
    ),
    "lines.jsonl": lambda path, frame: path.write_text(frame.to_json(orient="records", lines=True)),
    "lines.ndjson.bz2": lambda path, frame: path.write_bytes(
        bz2.compress(frame.to_json(orient="records", lines=True).encode())
    ),
    "table.parquet": lambda path, frame: frame.to_parquet(path, index=False),
    "table.Parquet.xz": lambda path, frame: path.write_bytes(
        lzma.compress(frame.to_parquet(index=False))
    ),
    "book.xlsx": lambda path, frame: write_book(path, {"Patenti": frame, "Note": pd.DataFrame()}),
    "book.ods": lambda path, frame: write_book(path, {"Patenti": frame, "Note": pd.DataFrame()}),
}


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """An empty repository as the current folder: no configuration is looked for above it."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *argv: str) -> tuple[int, list[dict], str]:
    """Exit status, the JSON report's files and stderr; no value in any output."""
    code = main(["check", "--format", "json", *argv])
    out, err = capsys.readouterr()
    assert not any(value in out + err for value in VALUES), out + err
    return code, json.loads(out)["files"], err


def error_of(capsys, *argv: str) -> str:
    """The one error line of a check that cannot read its file (exit 2); no value in it."""
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert not any(value in out + err for value in VALUES), err
    (line,) = err.splitlines()
    assert line.startswith("pandas-anon: error: ")
    return line.removeprefix("pandas-anon: error: ")


# -- every format, risky and safe --------------------------------------------------------------


@pytest.mark.parametrize("name", WRITERS)
@pytest.mark.parametrize(
    ("frame", "status", "singletons"),
    [(RISKY, "fail", 37), (SAFE, "pass", 0)],
    ids=["risky", "safe"],
)
def test_check_reads_every_format(repo, capsys, name, frame, status, singletons):
    WRITERS[name](repo / name, frame)
    code, files, err = check(capsys, name)
    assert (code, err) == ({"fail": 1, "pass": 0}[status], "")
    table = f"{name}:Patenti" if ".xlsx" in name or ".ods" in name else name
    expected = {table: status} | ({f"{name}:Note": "skipped"} if table != name else {})
    assert {f["file"]: f["status"] for f in files} == expected
    assert [f["reason"] for f in files if "reason" in f] == (
        ["an empty sheet"] if table != name else []
    )
    (found,) = (f for f in files if f["file"] == table)
    assert found["qid_elected"]
    assert found["qid"] == (["anno_nascita", "comune"] if singletons else ["anno_nascita"])
    truth = naive_counts(frame, found["qid"])
    assert (found["rows"], found["examined"], found["singletons"], found["distinct"]) == (
        40,
        truth["examined"],
        singletons,
        truth["distinct"],
    )


@pytest.mark.parametrize("name", ["records.json", "wrapped.JSON", "schema.json", "table.parquet"])
def test_a_twin_of_a_risky_csv_fails_exactly_like_it(repo, capsys, name):
    RISKY.to_csv(repo / "patenti.csv", index=False)
    WRITERS[name](repo / name, RISKY)
    for argv in ([], ["--qid", "anno_nascita,comune,sesso", "--k", "2"]):
        code, files, _ = check(capsys, "patenti.csv", name, *argv)
        assert code == 1
        csv, twin = files
        assert (csv["file"], twin["file"]) == ("patenti.csv", name)
        assert {**twin, "file": "patenti.csv"} == csv
        assert twin["status"] == "fail" and twin["singletons"] == 37
        assert check(capsys, name, *argv)[0] == check(capsys, "patenti.csv", *argv)[0] == 1


def test_check_files_reads_a_json_twin(repo):
    WRITERS["records.json"](repo / "patenti.json", RISKY)
    WRITERS["records.json"](repo / "sicuro.json", SAFE)
    results = check_files(["patenti.json", "sicuro.json"], Config(), {})
    assert [(r.file, r.status) for r in results] == [
        ("patenti.json", "fail"),
        ("sicuro.json", "pass"),
    ]


def test_each_sheet_of_a_workbook_is_a_table(repo, capsys):
    write_book(repo / "Patenti.XLSX", {"Rischio": RISKY, "Sicuro": SAFE})
    code, files, _ = check(capsys, "Patenti.XLSX")
    assert code == 1
    assert [(f["file"], f["status"], f["singletons"]) for f in files] == [
        ("Patenti.XLSX:Rischio", "fail", 37),
        ("Patenti.XLSX:Sicuro", "pass", 0),
    ]
    assert tables_in(repo / "Patenti.XLSX") == [
        TableEntry(Sheet(str(repo / "Patenti.XLSX"), "Rischio")),
        TableEntry(Sheet(str(repo / "Patenti.XLSX"), "Sicuro")),
    ]


def test_a_zip_of_json_parquet_and_a_workbook(repo, capsys):
    WRITERS["records.json"](repo / "a.json", RISKY)
    WRITERS["table.parquet"](repo / "b.parquet", SAFE)
    write_book(repo / "c.xlsx", {"Rischio": RISKY, "Vuoto": pd.DataFrame()})
    WRITERS["lines.jsonl"](repo / "d.jsonl", SAFE)
    with zipfile.ZipFile(repo / "open-data.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(repo / "a.json", "2024/patenti.json")
        archive.write(repo / "b.parquet", "2024/patenti.PARQUET")
        archive.write(repo / "c.xlsx", "patenti.xlsx")
        archive.write(repo / "d.jsonl", "patenti.jsonl")
        archive.writestr("mappa.png", b"\x89PNG")
    code, files, _ = check(capsys, "open-data.zip")
    assert code == 2  # every member is read as a table: the image cannot be
    assert [(f["file"], f["status"], f.get("singletons", f.get("reason"))) for f in files] == [
        ("open-data.zip:2024/patenti.json", "fail", 37),
        ("open-data.zip:2024/patenti.PARQUET", "pass", 0),
        ("open-data.zip:patenti.xlsx:Rischio", "fail", 37),
        ("open-data.zip:patenti.xlsx:Vuoto", "skipped", "an empty sheet"),
        ("open-data.zip:patenti.jsonl", "pass", 0),
        ("open-data.zip:mappa.png", "error", None),
    ]


def test_rules_match_the_file_path_for_every_format(repo, capsys):
    (repo / "pyproject.toml").write_text(
        "[tool.pandas_anon]\nmax_singletons = 0\n\n"
        '[[tool.pandas_anon.rules]]\nfiles = "aggregati/*"\nskip = true\n\n'
        '[[tool.pandas_anon.rules]]\nfiles = "*.xlsx"\nk = 5\nqid = ["sesso"]\n'
    )

    (repo / "aggregati").mkdir()
    WRITERS["table.parquet"](repo / "aggregati" / "a.parquet", RISKY)
    write_book(repo / "b.xlsx", {"Rischio": RISKY})
    code, files, _ = check(capsys, "aggregati/a.parquet", "b.xlsx")
    assert code == 0
    assert [(f["file"], f["status"], f.get("qid")) for f in files] == [
        ("aggregati/a.parquet", "skipped", None),
        ("b.xlsx:Rischio", "pass", ["sesso"]),
    ]


# -- unreadable files: exit 2, one line naming the file, no value --------------------------------


@pytest.mark.parametrize("name", ["records.json", "lines.jsonl", "table.parquet", "book.xlsx"])
def test_a_missing_column_names_the_file(repo, capsys, name):
    WRITERS[name](repo / name, RISKY)
    table = f"{name}:Patenti" if name.endswith("xlsx") else name
    assert error_of(capsys, name, "--qid", "anno_nascita,provincia") == (
        f"{table}: column 'provincia' not found; available columns: 'anno_nascita', "
        "'comune', 'sesso'"
    )


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "troncato.json",
            json.dumps(records(RISKY))[:-30],
            "troncato.json is not valid JSON: Unterminated string starting at line 1, column",
        ),
        (
            "troncato.jsonl",
            RISKY.to_json(orient="records", lines=True)[:-20],
            "troncato.jsonl is not valid JSON: Unterminated string starting at line 40, column",
        ),
        ("vuoto.json", " \n", "vuoto.json is empty; pass a file holding records"),
        ("nessuno.json", "[]", "nessuno.json holds no record; there is nothing to check"),
        (
            "pagina.json",
            json.dumps({"meta": {"page": 2}, "results": []}),
            "pagina.json holds an empty list of records; there is nothing to check",
        ),
        (
            "colonne.json",
            json.dumps(RISKY.to_dict()),  # pandas' default: {column: {index: value}}
            "colonne.json: its JSON object holds no list of records (objects); the gate reads "
            "an array of records, an object wrapping one",
        ),
        (
            "valori.json",
            json.dumps(TOWNS),
            "valori.json holds values (strings, numbers), not records (objects) or rows "
            "(arrays); the gate reads",
        ),
        (
            "due.json",
            json.dumps({"uomini": records(RISKY[:3]), "donne": records(RISKY[3:])}),
            "due.json: 2 keys of its JSON object hold lists of records; the gate reads one "
            'table per file: put the table under "data", or publish one file per table',
        ),
        (
            "annidato.json",
            json.dumps([{"comune": [town], "n": 1} for town in TOWNS]),
            "annidato.json: column 'comune' holds nested objects or arrays, which the gate "
            "cannot compare; flatten them",
        ),
        (
            "misto.json",
            json.dumps([*records(RISKY[:2]), list(records(RISKY[2:3])[0].values())]),
            "misto.json: record 3 is an array, but the first is an object; write every "
            "record the same way",
        ),
        (
            "storto.json",
            json.dumps([["anno_nascita", "comune"], [1950, "Aosta"], [1951]]),
            "storto.json: row 3 has 1 values but the header has 2; write every row with a "
            "value (or null) for each column",
        ),
        (
            "intestazione.json",
            json.dumps(json.loads(RISKY.to_json(orient="values"))),
            "intestazione.json: the first row of its array of arrays is not a header",
        ),
        ("latin1.json", '[{"comune": "Forlì"}]'.encode("latin-1"), "latin1.json is not valid"),
    ],
)
def test_bad_json_exits_2_naming_the_file(repo, capsys, name, content, message):
    path = repo / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert error_of(capsys, name).startswith(message)


def test_json_errors_name_no_top_level_key(repo, capsys):
    # keys of a nested object can be values (a town per key): never quoted
    write_json(repo / "per_comune.json", {town: {"n": 1} for town in TOWNS})
    write_json(repo / "liste.json", {town: records(RISKY[:2]) for town in TOWNS})
    for name in ("per_comune.json", "liste.json"):
        error_of(capsys, name)


def test_nested_parquet_column_and_corrupt_files(repo, capsys):
    table = pa.table({"comune": TOWNS, "luogo": [{"nome": town} for town in TOWNS]})
    pq.write_table(table, repo / "annidato.parquet")
    assert error_of(capsys, "annidato.parquet").startswith(  # a part left over, by name
        "annidato.parquet: 1 value of the file were not read into the table checked "
        "(annidato.parquet:luogo (1 column chunks, a nested column (struct, list or map), "
        "not read: flatten it into columns));"
    )
    # a QID leaves no value unexamined: the nested column fails the file all the same
    assert check(capsys, "annidato.parquet", "--qid", "comune")[0] == 2
    (repo / "rotto.parquet").write_bytes(b"PAR1" + b"Aosta" * 10)
    assert error_of(capsys, "rotto.parquet") == (
        "rotto.parquet is not a valid Parquet file (corrupt, truncated or of another format); "
        "export it again"
    )
    (repo / "rotto.xlsx").write_bytes(b"PK\x03\x04" + b"Aosta" * 10)
    assert error_of(capsys, "rotto.xlsx") == (
        "rotto.xlsx is not a valid .xlsx workbook (corrupt, or of another format); save it "
        "again from the spreadsheet program"
    )
    assert error_of(capsys, "assente.parquet") == "assente.parquet: no such file; check the path"


@pytest.mark.parametrize(("suffix", "module"), [(".xlsx", "openpyxl"), (".ods", "odf")])
def test_a_missing_spreadsheet_engine_says_what_to_install(
    repo, capsys, monkeypatch, suffix, module
):
    write_book(repo / f"book{suffix}", {"Patenti": RISKY})
    monkeypatch.setitem(sys.modules, module, None)  # import fails
    package = {"odf": "odfpy"}.get(module, module)
    assert error_of(capsys, f"book{suffix}") == (
        f"book{suffix}: reading {suffix} workbooks needs {package}, which is not installed; "
        'pip install "pandas-anon[excel]"'
    )


# -- values written differently are two values (issue 34, section 2) -----------------------------

#: Values Python finds equal in threes and twos (1 == True, 2 == 2.0, 0 == False == 0.0 ==
#: -0.0), each written its own way in JSON (and in CSV): eight values, each on one row.
WRITTEN_APART = [1, True, 2, 2.0, 0, False, 0.0, -0.0]
#: Each JSON shape holding ``WRITTEN_APART`` as column ``x``, written by json.dumps.
JSON_APART = {
    "records.json": json.dumps([{"x": v} for v in WRITTEN_APART]),
    "lines.jsonl": "\n".join(json.dumps({"x": v}) for v in WRITTEN_APART),
    "split.json": json.dumps({"columns": ["x"], "data": [[v] for v in WRITTEN_APART]}),
    "rows.json": json.dumps([["x"], *([v] for v in WRITTEN_APART)]),
    "table.json": json.dumps({"schema": {"fields": [{"name": "x"}, {"name": "y"}],
        "pandas_version": "1.4.0"}, "data": [{"x": v, "y": "a"} for v in WRITTEN_APART]}),
}  # fmt: skip


@pytest.mark.parametrize("name", JSON_APART)
def test_json_values_written_differently_fail_the_gate(repo, capsys, name):
    """``1`` and ``true``, ``2`` and ``2.0``, ``0``, ``false``, ``0.0`` and ``-0.0``: eight
    rows alone on their value, as in the file's CSV twin (which passed as three classes)."""
    (repo / name).write_text(JSON_APART[name])
    pd.DataFrame({"x": pd.Series(WRITTEN_APART, dtype=object)}).to_csv("twin.csv", index=False)
    for file in (name, "twin.csv"):
        code, (found,), _ = check(capsys, file, "--qid", "x", "--k", "2")
        assert (code, found["status"]) == (1, "fail"), file
        assert (found["singletons"], found["distinct"], found["k"]) == (8, 8, 1), file
    content = JSON_APART[name].encode()
    frame, _ = read_json(name, content, lines=name.endswith(".jsonl"))  # as parsed, own type
    assert [type(v) for v in frame["x"]] == list(map(type, WRITTEN_APART))


@pytest.mark.parametrize("name", ["book.xlsx", "book.ods"])
def test_a_sheets_boolean_is_not_the_number_one(repo, capsys, name):
    """A cell holding TRUE and one holding 1 are two values (and FALSE and 0)."""
    frame = pd.DataFrame({"x": pd.Series([True, 1, False, 0, 1.0], dtype=object)})
    write_book(repo / name, {"Dati": frame})
    code, (found,), _ = check(capsys, name, "--qid", "x", "--k", "2")
    assert (code, found["status"]) == (1, "fail")
    # 1 and 1.0 are one number in a sheet (a cell holds a number, its format shows it)
    assert (found["singletons"], found["distinct"], found["k"]) == (3, 4, 1)


@pytest.mark.parametrize("name", ["book.xlsx", "book.ods"])
def test_a_sheets_cells_are_read_each_of_its_own_type(repo, name):
    """Every cell comes back as the workbook holds it, of its own type: under a pandas whose
    parser merges cells equal in Python (pandas 2.2 read a ``1`` beside a ``TRUE`` as
    ``True``) the sheet's cells are read past that parser; elsewhere ``read_excel`` reads
    them, and the two readings are the same cell for cell, types included (blank rows,
    blank cells, dates, ragged rows)."""
    when = pd.Timestamp("2024-03-01 08:30")
    frame = pd.DataFrame(
        {
            "a": pd.Series([True, 1, None, 0, False, "1", 2.5, when], dtype=object),
            "b": pd.Series(["x", None, None, "", 7, None, "città", None], dtype=object),
        }
    )
    write_book(repo / name, {"Dati": frame})
    with pd.ExcelFile(repo / name) as workbook:
        kept_apart = formats._cells_kept_apart(workbook, "Dati", None)
        read = formats.read_cells(name, workbook, "Dati")
        head = formats._cells_kept_apart(workbook, "Dati", 3)
        if not formats._parser_merges_cells():
            by_pandas = pd.read_excel(workbook, sheet_name="Dati", **formats._AS_READ)
            assert cells(by_pandas) == cells(kept_apart)
    assert cells(read) == cells(kept_apart)
    assert cells(head) == cells(kept_apart)[:3]
    column_a = [row[0] for row in cells(kept_apart)]
    assert column_a[:8] == [
        ("str", "'a'"),
        ("bool", "True"),
        ("int", "1"),
        ("float", "nan"),  # a blank row
        ("int", "0"),
        ("bool", "False"),
        ("str", "'1'"),
        ("float", "2.5"),
    ]
    assert pd.Timestamp(kept_apart[0][8]) == when
    assert [row[1] for row in cells(kept_apart)][4:8] == [
        ("float", "nan"),  # an empty text is a blank cell
        ("int", "7"),
        ("float", "nan"),
        ("str", "'città'"),
    ]


def cells(frame: pd.DataFrame) -> list[list[tuple[str, str]]]:
    """Each cell of ``frame`` as its type and ``repr``, row by row (NaN as NaN)."""
    return [[(type(v).__name__, repr(v)) for v in row] for row in frame.itertuples(index=False)]


def test_a_parquet_float_column_keeps_negative_zero(repo, capsys):
    """pyarrow tells ``0.0`` and ``-0.0`` apart; a categorical of them could not be made."""
    pd.DataFrame({"x": [0.0, -0.0, 0.0, -0.0, 1.5, 1.5, None, None]}).to_parquet("t.parquet")
    code, (found,), _ = check(capsys, "t.parquet", "--qid", "x", "--k", "2")
    assert (code, found["status"]) == (0, "pass")
    assert (found["examined"], found["distinct"], found["k"]) == (8, 4, 2)  # missing: a value
    code, (found,), _ = check(capsys, "t.parquet", "--qid", "x", "--k", "3")
    assert (code, found["k"]) == (1, 2)  # not one class of four zeros


# -- the readers --------------------------------------------------------------------------------


def test_json_values_are_compared_as_written(tmp_path):
    rows = [
        {"codice": "0100", "anno": 1950, "sigla": "NA"},
        {"codice": 100, "anno": "1950", "sigla": None},
        {"codice": "100", "anno": 1950.0},
    ]
    write_json(tmp_path / "t.json", rows)
    frame = read_columns(tmp_path / "t.json")
    assert list(frame.columns) == ["codice", "anno", "sigla"]
    assert frame["codice"].tolist() == ["0100", 100, "100"]  # three values
    assert frame["codice"].nunique() == 3
    assert distinct_count(frame["anno"]) == 3  # 1950, 1950.0 (written so) and "1950" (text)
    assert frame["anno"].tolist() == [1950, "1950", 1950.0]  # kept: a categorical merges them
    assert frame["sigla"].tolist()[0] == "NA" and frame["sigla"].isna().tolist() == [
        False,
        True,
        True,
    ]
    assert [isinstance(frame[c].dtype, pd.CategoricalDtype) for c in frame.columns] == [
        True,
        False,
        True,
    ]


def test_json_usecols_selects_in_the_order_asked(tmp_path):
    write_json(tmp_path / "t.json", {"data": records(RISKY)})
    frame = read_columns(tmp_path / "t.json", usecols=["sesso", "comune", "sesso"])
    assert list(frame.columns) == ["sesso", "comune"]
    assert frame.astype(str).values.tolist() == RISKY[["sesso", "comune"]].values.tolist()
    with pytest.raises(ColumnNotFoundError):
        read_columns(tmp_path / "t.json", usecols=["provincia"])


def test_json_shapes_read_the_same_table(tmp_path):
    shapes = {
        "records": records(RISKY),
        "data": {"data": records(RISKY)},
        "results": {"count": 40, "next": None, "results": records(RISKY)},
        "ckan": {
            "success": True,
            "result": {"fields": [{"id": c} for c in RISKY.columns], "records": records(RISKY)},
        },
        "split": json.loads(RISKY.to_json(orient="split", index=False)),
        "split with index": json.loads(RISKY.to_json(orient="split")),
        "pandas table (its index left out)": json.loads(RISKY.to_json(orient="table")),
        "rows": [list(RISKY.columns), *json.loads(RISKY.to_json(orient="values"))],
    }
    for shape, document in shapes.items():
        frame, _ = read_json(shape, json.dumps(document).encode())
        assert frame.astype(object).values.tolist() == RISKY.values.tolist(), shape


def test_records_missing_keys_are_missing_values():
    frame, _ = read_json("t.json", b'[{"a": 1, "b": "x"}, {"b": "y", "c": true}]')
    assert list(frame.columns) == ["a", "b", "c"]
    assert frame.isna().values.tolist() == [[False, False, True], [True, False, False]]


def test_json_lines_named_json_and_utf8_bom(tmp_path):
    lines = RISKY.to_json(orient="records", lines=True)
    (tmp_path / "t.json").write_bytes(b"\xef\xbb\xbf" + lines.encode())
    assert read_columns(tmp_path / "t.json").astype(object).values.tolist() == (
        RISKY.values.tolist()
    )
    (tmp_path / "l.json").write_text('{"a": 1}\n{"a": ')
    with pytest.raises(InputFileError, match=r"Extra data at line 2"):
        read_columns(tmp_path / "l.json")


def test_json_in_another_encoding(tmp_path):
    (tmp_path / "t.json").write_bytes('[{"comune": "Forlì"}]'.encode("latin-1"))
    frame = read_columns(tmp_path / "t.json", encoding="latin-1")
    assert frame["comune"].tolist() == ["Forlì"]


def test_parquet_reads_only_the_columns_asked(tmp_path, monkeypatch):
    frame = RISKY.assign(comune=RISKY["comune"].astype("category"), nota=None)
    frame.set_axis(pd.Index([*range(0, 80, 2)])).to_parquet(
        tmp_path / "t.parquet"
    )  # an index stored, not the row numbers 0, 1, ...: data, read as a column
    assert "__index_level_0__" in pq.read_schema(tmp_path / "t.parquet").names
    asked = []
    read = pq.ParquetFile.iter_batches

    def spy(self, columns=None, **options):
        asked.append(columns)
        return read(self, columns=columns, **options)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    every = [*RISKY.columns, "nota", "__index_level_0__"]
    assert list(read_columns(tmp_path / "t.parquet").columns) == every
    subset = read_columns(tmp_path / "t.parquet", usecols=["comune", "anno_nascita"])
    assert asked == [every, ["comune", "anno_nascita"]]
    assert (
        subset.astype(object).values.tolist() == RISKY[["comune", "anno_nascita"]].values.tolist()
    )
    assert read_columns(tmp_path / "t.parquet")["nota"].isna().all()


def test_a_sheet_may_start_lower_and_keeps_text(tmp_path):
    path = tmp_path / "t.xlsx"
    frame = pd.DataFrame({2024: ["NA", "RM", None], "codice": ["0100", "0200", "0300"]})
    with pd.ExcelWriter(path) as writer:
        frame.to_excel(writer, sheet_name="Dati", index=False, startrow=3)
    (entry,) = tables_in(path)
    read = read_columns(entry.name)
    assert list(read.columns) == ["2024", "codice"]
    assert read["2024"].tolist()[:2] == ["NA", "RM"] and read["2024"].isna().tolist()[2]
    assert read["codice"].tolist() == ["0100", "0200", "0300"]
    assert read_columns(path).equals(read)  # a workbook's name reads its first sheet


def test_a_sheet_header_repeating_a_name(tmp_path):
    path = tmp_path / "t.ods"
    pd.DataFrame([["a", "a"], [1, 2]]).to_excel(path, header=False, index=False, engine="odf")
    with pytest.raises(InputFileError, match=r"t.ods:Sheet1: the header repeats column name 'a'"):
        read_columns(tables_in(path)[0].name)


def test_sheet_names_pickle():
    sheet = Sheet("a.zip:book.xlsx", "Foglio 1")
    assert pickle.loads(pickle.dumps(sheet)) == "a.zip:book.xlsx:Foglio 1"
    assert pickle.loads(pickle.dumps(sheet)).sheet == "Foglio 1"
