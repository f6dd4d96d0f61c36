"""Bounded by what is read, not by the file's size (issue 45): a few KB of spreadsheet or
Parquet that expand to tens of millions of rows are refused by their cells, counted before
they are built (``max_sheet_cells``, ``max_cells``), with a message naming the table, the
limit and how to raise it; checked in a fresh process, each stays within 1.5 GiB and 30 s.
Whatever one file raises, the others' results and the JSON report are kept; a table wider
than the compiled kernels gets a verdict."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pandas_anon.cli.main import main
from pandas_anon.gate import check as gate_check
from pandas_anon.gate import formats

#: What a hostile file may cost, checked in a process of its own.
MAX_PEAK = int(1.5 * 2**30)
MAX_SECONDS = 30.0
#: The address space that process may take (its peak RSS is told apart from it): a file
#: that escapes its limits meets a MemoryError, not the machine's swap or its OOM killer.
ADDRESS_SPACE = 8 << 30
#: Checks the files of its arguments, then writes its peak RSS (KiB) as stderr's last line.
MEASURED = (
    "import resource, sys\n"
    "from pandas_anon.cli.main import main\n"
    "code = main(['check', '--format', 'json', *sys.argv[1:]])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """An empty repository as the current folder: no configuration is looked for above it."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *argv: str) -> tuple[int, dict]:
    """Exit status and JSON report of ``pandas-anon check``."""
    code = main(["check", "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


def refused(capsys, name: str, key: str, *argv: str) -> str:
    """The error of a check refusing the table ``name`` at the cell limit ``key``."""
    code, report = check(capsys, *argv)
    assert code == 2, report
    (entry,) = report["files"]
    assert entry["file"] == name and entry["status"] == "error", entry
    option = "--" + key.replace("_", "-")
    assert f"raise the limit with {option} ({key} in the configuration)" in entry["error"]
    assert re.match(rf"{re.escape(name)}[ :]", entry["error"]), entry["error"]
    return entry["error"]


def _capped() -> None:
    """Cap the address space of the measured process (:data:`ADDRESS_SPACE`)."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def bounded(path: Path, *argv: str) -> tuple[int, dict]:
    """Check ``path`` in a fresh process; it must end within :data:`MAX_SECONDS` and
    :data:`MAX_PEAK`. Its exit status and JSON report."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(path), *argv],
        capture_output=True,
        text=True,
        timeout=4 * MAX_SECONDS,
        check=False,
        preexec_fn=_capped,
    )
    seconds = time.perf_counter() - started
    assert done.returncode in (0, 1, 2), done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    peak = int(done.stderr.splitlines()[-1]) * 1024
    assert seconds <= MAX_SECONDS, seconds
    assert peak <= MAX_PEAK, f"{peak / 2**30:.2f} GiB"
    return done.returncode, json.loads(done.stdout)


# -- spreadsheets ---------------------------------------------------------------------------


def repeated_ods(path: Path, repeat: int) -> Path:
    """An .ods whose sheet ``Sheet1`` holds a header (year, town) and one row repeated
    ``repeat`` times (``table:number-rows-repeated``): under 1 KB whatever ``repeat``."""
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    def cell(value: object) -> TableCell:
        kind = "string" if isinstance(value, str) else "float"
        made = TableCell(valuetype=kind, **({} if kind == "string" else {"value": value}))
        made.addElement(P(text=str(value)))
        return made

    document = OpenDocumentSpreadsheet()
    table = Table(name="Sheet1")
    header, row = TableRow(), TableRow(numberrowsrepeated=repeat)
    for value in ("year", "town"):
        header.addElement(cell(value))
    for value in (1980, "Aosta"):
        row.addElement(cell(value))
    table.addElement(header)
    table.addElement(row)
    document.spreadsheet.addElement(table)
    document.save(str(path))
    return path


def xlsx(path: Path, far: str | None = None, dimension: str | None = None) -> Path:
    """An .xlsx of a header (year, town) and one row, with a cell holding 1 at ``far``, or
    its ``<dimension ref>`` claiming ``dimension``."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet1"
    sheet.append(["year", "town"])
    sheet.append([1980, "Aosta"])
    if far is not None:
        sheet[far] = 1
    book.save(path)
    if dimension is not None:
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        xml = members["xl/worksheets/sheet1.xml"].decode()
        xml = re.sub(r'<dimension ref="[^"]*"', f'<dimension ref="{dimension}"', xml)
        members["xl/worksheets/sheet1.xml"] = xml.encode()
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in members.items():
                archive.writestr(name, content)
    return path


def test_a_row_repeated_thirty_million_times_is_refused_before_it_expands(repo, capsys):
    """863 bytes of .ods: 3 x 10**7 rows took 29 s and 2.5 GB (10**8: a raw MemoryError)."""
    path = repeated_ods(repo / "t.ods", 30_000_000)
    assert path.stat().st_size < 2000
    error = refused(capsys, "t.ods:Sheet1", "max_sheet_cells", "t.ods")
    assert "holds more than 10,000,000 cells (rows times columns)" in error
    code, report = bounded(path)
    assert code == 2 and report["files"][0]["status"] == "error"


def test_a_sheet_s_repeats_count_as_the_cells_they_make(repo, capsys):
    """Within the limit the repeated rows are read (one class of 300 rows: it passes);
    a limit below their cells refuses the sheet, and a configuration key sets it."""
    repeated_ods(repo / "t.ods", 300)
    code, report = check(capsys, "t.ods")
    assert code == 0 and report["files"][0]["rows"] == 300, report
    refused(capsys, "t.ods:Sheet1", "max_sheet_cells", "t.ods", "--max-sheet-cells", "601")
    assert check(capsys, "t.ods", "--max-sheet-cells", "602")[0] == 0  # 301 rows x 2
    (repo / ".pandas-anon.toml").write_text("max_sheet_cells = 600\n")
    refused(capsys, "t.ods:Sheet1", "max_sheet_cells", "t.ods")


def test_one_far_cell_is_refused_by_the_cells_it_would_make(repo, capsys):
    """A 5 KB .xlsx with one cell at XFD1048576: 1.7 x 10**10 cells, 1.9 GB to 20 GB."""
    path = xlsx(repo / "far.xlsx", far="XFD1048576")
    error = refused(capsys, "far.xlsx:Sheet1", "max_sheet_cells", "far.xlsx")
    assert "holds more than 10,000,000 cells" in error
    code, _ = bounded(path)
    assert code == 2


def test_a_far_cell_within_the_limit_is_read(repo, capsys):
    """1,000 rows x 10 columns once the cell at J1000 fills them: read, a verdict (the far
    cell lies outside the table, left over by its range: exit 2)."""
    xlsx(repo / "t.xlsx", far="J1000")
    code, report = check(capsys, "t.xlsx")
    assert code == 2 and "t.xlsx:Sheet1:J1000 (1 cells, below" in report["files"][0]["error"]
    refused(capsys, "t.xlsx:Sheet1", "max_sheet_cells", "t.xlsx", "--max-sheet-cells", "9999")


def test_a_dimension_that_lies_costs_nothing(repo, capsys):
    """The ``<dimension ref>`` is not believed: the cells written are counted."""
    path = xlsx(repo / "t.xlsx", dimension="A1:XFD1048576")
    code, report = check(capsys, "t.xlsx")
    assert code == 1 and report["files"][0]["rows"] == 1, report
    assert bounded(path)[0] == 1


# -- Parquet --------------------------------------------------------------------------------


def identical_rows(path: Path, rows: int, row_group: int = 10_000_000) -> Path:
    """A Parquet file of ``rows`` identical rows (year, town) in row groups of ``row_group``
    rows, dictionary-encoded: 5 x 10**7 rows make 0.4 MB."""
    schema = pa.schema([("year", pa.int64()), ("town", pa.string())])
    with pq.ParquetWriter(path, schema, use_dictionary=True, compression="zstd") as writer:
        for start in range(0, rows, row_group):
            size = min(row_group, rows - start)
            town = pa.DictionaryArray.from_arrays(np.zeros(size, np.int32), ["Aosta"])
            columns = [pa.array(np.full(size, 1980)), town.cast(pa.string())]
            writer.write_table(pa.table(columns, schema=schema))
    return path


def test_fifty_million_identical_rows_are_refused_by_their_metadata(repo, capsys):
    """368 KB of Parquet: 5 x 10**7 rows took 2.1 GB (2 x 10**8: a raw ArrowMemoryError)."""
    path = identical_rows(repo / "t.parquet", 50_000_000)
    assert path.stat().st_size < 1 << 20
    error = refused(capsys, "t.parquet", "max_cells", "t.parquet")
    assert "(50,000,000 rows of 2 columns read) holds more than 50,000,000 cells" in error
    assert "raise the limit with --max-cells (max_cells in the configuration)" in error
    code, _ = bounded(path)
    assert code == 2


def test_parquet_cells_are_the_rows_times_the_columns_read(repo, capsys):
    frame = pd.DataFrame({"a": [0, 1] * 500, "b": ["x", "y"] * 500, "c": [2.5] * 1000})
    frame.to_parquet(repo / "t.parquet")
    refused(capsys, "t.parquet", "max_cells", "t.parquet", "--max-cells", "2999")
    assert check(capsys, "t.parquet", "--max-cells", "3000")[0] == 0
    # a QID's columns and the others: every column is read (for direct identifiers)
    refused(capsys, "t.parquet", "max_cells", "t.parquet", "--max-cells", "2999", "--qid", "a,b")
    assert check(capsys, "t.parquet", "--max-cells", "3000", "--qid", "a,b")[0] == 0
    (repo / ".pandas-anon.toml").write_text("max_cells = 2999\n")
    refused(capsys, "t.parquet", "max_cells", "t.parquet", "--qid", "a,b")


def test_a_parquet_file_read_in_batches_keeps_every_value_apart(repo, monkeypatch):
    """Batches of 3 rows, each dictionary-encoded on its own (a dictionary past 128 values
    widens the indices): the same values, categories and missing values as read whole."""
    frame = pd.DataFrame(
        {
            "text": [f"v{i % 200}" for i in range(400)],
            "number": [i % 7 for i in range(400)],
            "zero": [0.0, -0.0, None, 1.5] * 100,
            "empty": [None] * 400,
        }
    )
    frame["empty"] = frame["empty"].astype(object)
    frame.to_parquet(repo / "t.parquet", row_group_size=50)
    whole = formats.read_parquet("t.parquet", str(repo / "t.parquet")).frame
    monkeypatch.setattr(formats, "_BATCH_ROWS", 3)
    batched = formats.read_parquet("t.parquet", str(repo / "t.parquet")).frame
    pd.testing.assert_frame_equal(batched, whole)
    assert batched["text"].tolist() == frame["text"].tolist()
    assert batched["number"].tolist() == frame["number"].tolist()
    assert np.signbit(batched["zero"].to_numpy(dtype=float)[1])  # -0.0 kept apart from 0.0
    assert batched["empty"].isna().all()


# -- the Dask engine ------------------------------------------------------------------------


def test_the_dask_engine_reads_within_the_same_limits(repo, capsys):
    """A worker reads a Parquet file, or a compressed text file, whole: each is counted here
    first (its metadata; its bytes as they are decompressed); a plain file's lines too."""
    pytest.importorskip("dask.dataframe")
    dask = ("--engine", "dask")
    identical_rows(repo / "t.parquet", 50_000_000)
    error = refused(capsys, "t.parquet", "max_cells", "t.parquet", *dask)
    assert "(50,000,000 rows of 2 columns read)" in error
    (repo / "folder").mkdir()
    identical_rows(repo / "folder" / "part.parquet", 1000)
    refused(capsys, "folder", "max_cells", "folder", *dask, "--max-cells", "1999")
    assert check(capsys, "folder", *dask, "--max-cells", "2000")[0] == 0
    with gzip.open(repo / "t.csv.gz", "wb") as handle:
        handle.write(b"a,b\n" + b"0,x\n1,y\n" * (5 << 20))  # 40 MiB, 100s of times its size
    assert "as a decompression bomb does" in refused(
        capsys, "t.csv.gz", "max_ratio", "t.csv.gz", *dask
    )
    (repo / "line.csv").write_bytes(b"a,b\n0," + b"x" * 4096 + b"\n")
    refused(capsys, "line.csv", "max_line_length", "line.csv", *dask, "--max-line-length", "1KiB")


# -- one file's failure ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "raised",
    [
        RecursionError("maximum recursion depth exceeded: secret-value"),
        MemoryError("secret-value"),
        pa.ArrowMemoryError("malloc of size 12 failed: secret-value"),
        ValueError("kernel: secret-value"),
        KeyError("secret-value"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_whatever_one_file_raises_the_others_are_reported(repo, capsys, monkeypatch, raised):
    """The middle of three files raises: it is an error naming it (never the exception's
    text, which may quote a value), the others are checked and the JSON report holds all."""
    for name in ("a.csv", "b.csv", "c.csv"):
        (repo / name).write_text("x,y\n1,2\n1,2\n")
    read = gate_check._read

    def failing(file: str, *args: object, **kwargs: object) -> object:
        if file == "b.csv":
            raise raised
        return read(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gate_check, "_read", failing)
    code, report = check(capsys, "a.csv", "b.csv", "c.csv")
    assert code == 2
    files = {entry["file"]: entry for entry in report["files"]}
    assert list(files) == ["a.csv", "b.csv", "c.csv"]
    assert files["a.csv"]["status"] == files["c.csv"]["status"] == "pass"
    error = files["b.csv"]["error"]
    assert files["b.csv"]["status"] == "error" and error.startswith("b.csv cannot be checked: ")
    assert "secret-value" not in json.dumps(report)


def test_ctrl_c_still_stops_the_check(repo, monkeypatch):
    (repo / "a.csv").write_text("x,y\n1,2\n1,2\n")

    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(gate_check, "_read", interrupted)
    assert main(["check", "a.csv"]) == 130  # stopped, not one more file in error


# -- wider than the kernels -----------------------------------------------------------------


def test_a_table_wider_than_the_kernels_gets_a_verdict(repo, capsys):
    """1,030 columns (past the kernels' 1,024): a column of distinct codes is an identifier,
    and the election finds an identifying triple within its budget: it fails (exit 1). Its
    names, over fewer rows, are text outside the table: a rule skips them."""
    codes = np.random.default_rng(0).integers(0, 10, (100, 1030))
    codes[:, 0] = np.arange(1000, 1100)
    (repo / ".pandas-anon.toml").write_text(
        '[[rules]]\nfiles = "wide.csv:(column names)"\nskip = true\n'
    )
    header = ",".join(f"c{i}" for i in range(1030))
    np.savetxt(repo / "wide.csv", codes, fmt="%d", delimiter=",", header=header, comments="")
    started = time.perf_counter()
    code, report = check(capsys, "wide.csv")
    assert time.perf_counter() - started < MAX_SECONDS
    (entry,) = report["files"]
    assert code == 1 and entry["status"] == "fail", entry
    assert any(
        "'c0'" in problem and "identifies people" in problem for problem in entry["problems"]
    )


def test_a_thousand_columns_of_small_numbers_get_a_verdict_in_time(repo):
    """1,000 columns of 0 and 1 under names of hexadecimal digits, read as a headerless table
    of counts: the search for a total among them (every set of up to 4 of 999 columns) took
    minutes; past 16 count columns there is none, and the file is refused (exit 2) at once."""
    codes = np.random.default_rng(0).integers(0, 2, (1100, 1000))
    header = ",".join(f"{i:x}" for i in range(1000))
    path = repo / "wide.csv"
    np.savetxt(path, codes, fmt="%d", delimiter=",", header=header, comments="")
    code, report = bounded(path)
    assert code == 2 and "looks like a count table" in report["files"][0]["error"]
