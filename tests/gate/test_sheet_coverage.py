"""A workbook passes the gate only when every cell of it is read (issue 45).

The spreadsheet reader (:mod:`pandas_anon.gate.parsers.sheets`) counts the cells each sheet
holds from the sheet's own XML and says where each went: the table and its column, or a part
left over by name. A property test writes random frames with pandas (openpyxl and odf) and
openpyxl directly (gaps, several sheets, empty header cells) and checks the account against
the cells written; then one test per trick of the issue's hostile round that concerns
workbooks: each passed the gate (exit 0) before the account, each fails it now.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from openpyxl.cell.cell import ERROR_CODES
from test_coverage import CODES, ROWS, check, safe
from test_coverage import repo as repo  # noqa: F401  # the fixture

from pandas_anon.errors import InputFileError
from pandas_anon.gate.parsers import read

# -- property tests: the account equals what was written -------------------------------------

TEXT = st.text(alphabet=st.characters(codec="latin-1", exclude_categories=("Cc", "Cs")), max_size=6)
CELLS = st.one_of(TEXT, st.integers(-(10**6), 10**6), st.booleans(), st.none())


def written(value: object, engine: str | None = None) -> bool:
    """Whether a cell written with ``value`` (by ``engine``) holds one: None and empty text do
    not, nor an error code openpyxl writes as an error cell (``#NULL!``), which pandas reads
    as empty and carries no one's data."""
    errors = ERROR_CODES if engine == "openpyxl" else ()
    return value is not None and value != "" and value not in errors


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    """1 to 8 rows of 1 to 4 columns; names may be empty (not repeated: pandas refuses)."""
    width = draw(st.integers(1, 4))
    columns = draw(st.lists(TEXT, min_size=width, max_size=width, unique_by=str))
    rows = draw(st.integers(1, 8))
    data = {i: draw(st.lists(CELLS, min_size=rows, max_size=rows)) for i in range(width)}
    frame = pd.DataFrame(data, dtype=object)
    frame.columns = columns
    return frame


def assert_read_or_left_over(path: Path, cells: int) -> None:
    """The account of ``path`` counts ``cells`` cells; each is read into the table, or left
    over by name (the file then fails), or the file is refused."""
    try:
        table, account = read(path)
    except InputFileError:
        return  # fails closed
    assert account.units["cells"] == cells
    assert account.unaccounted == 0
    if not account.open():
        assert account.read_total == account.total


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=frames(), engine=st.sampled_from(["openpyxl", "odf"]))
# pandas 2.2: the header row, its one cell empty, was dropped as blank; 0 then read as the header
@example(frame=pd.DataFrame({"": [0]}, dtype=object), engine="openpyxl")
# a header cell of an error code: openpyxl writes an error cell, read as empty
@example(frame=pd.DataFrame({"0": [""], "#NULL!": [","]}, dtype=object), engine="openpyxl")
def test_frames_written_by_pandas_are_counted_whole(tmp_path, frame, engine):
    path = tmp_path / ("t.xlsx" if engine == "openpyxl" else "t.ods")
    try:
        frame.to_excel(path, index=False, engine=engine)
    except (ValueError, openpyxl.utils.exceptions.IllegalCharacterError):
        return  # a text openpyxl refuses
    values = [*frame.columns, *frame.to_numpy().ravel()]
    cells = sum(written(value, engine) for value in values)
    assert_read_or_left_over(path, cells)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sheets=st.lists(
        st.dictionaries(
            st.tuples(st.integers(1, 12), st.integers(1, 6)), CELLS, min_size=0, max_size=20
        ),
        min_size=1,
        max_size=3,
    )
)
# pandas 2.2: the blank first row was dropped, every row read one row up
@example(sheets=[{(2, 1): "0"}])
def test_cells_written_anywhere_are_counted_whole(tmp_path, sheets):
    """Cells anywhere on several sheets (gaps, empty header cells, tables side by side): the
    first sheet's account counts every cell of the workbook."""
    book = openpyxl.Workbook()
    for i, cells in enumerate(sheets):
        sheet = book.active if i == 0 else book.create_sheet(f"S{i}")
        for (row, column), value in cells.items():
            sheet.cell(row, column, value)
    path = tmp_path / "t.xlsx"
    try:
        book.save(path)
    except openpyxl.utils.exceptions.IllegalCharacterError:
        return
    total = sum(written(v) for cells in sheets for v in cells.values())
    assert_read_or_left_over(path, total)


# -- the tricks: each passed the gate (exit 0) before the account ------------------------------


def add_part(path: Path, part: str, content: bytes) -> None:
    """Add the member ``part`` to the workbook ``path`` (a zip archive)."""
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(part, content)


def test_a_formula_without_a_cached_value_fails_closed(repo, capsys):
    """Tax codes written as formulas (``="RSSMRA..."``) with no cached value: the engine
    reads them as empty, so the column was all missing and the file passed."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["anno", "sesso", "cf"])
    for (anno, sesso), code in zip(safe().itertuples(index=False), CODES):
        sheet.append([anno, sesso, f'="{code}"'])
    book.save(repo / "t.xlsx")
    assert check(repo, "t.xlsx") == 2
    err = capsys.readouterr().err
    assert f"t.xlsx:Sheet:C2:C{ROWS + 1} ({ROWS} cells, formulas without a cached value" in err
    assert not any(code in err for code in CODES)


def test_a_second_table_below_the_first_fails_closed(repo, capsys):
    """A table of codes below a blank row, in a column the first table's header leaves
    empty: the reader dropped that column, and the file passed."""
    frame = safe()
    with pd.ExcelWriter(repo / "t.xlsx") as writer:
        frame.to_excel(writer, index=False, sheet_name="Dati")
        codes = pd.DataFrame({"cf": CODES})
        codes.to_excel(writer, index=False, sheet_name="Dati", startrow=ROWS + 2, startcol=2)
    assert check(repo, "t.xlsx") == 2
    err = capsys.readouterr().err
    part = f"C{ROWS + 3}:C{2 * ROWS + 3}"
    assert f"t.xlsx:Dati:{part} ({ROWS + 1} cells, below the table read" in err
    assert not any(code in err for code in CODES)
    (repo / ".pandas-anon.toml").write_text(
        f'[[rules]]\nfiles = "t.xlsx:Dati:{part}"\nskip = true\n'
    )
    assert check(repo, "t.xlsx") == 0  # stated in the configuration, by name


def test_an_empty_header_column_is_read(repo, capsys):
    """400 distinct tax codes under an empty header cell: dropped, the file passed."""
    frame = safe()
    frame.insert(0, "", CODES)
    frame.to_excel(repo / "t.xlsx", index=False)
    assert check(repo, "t.xlsx") == 1
    assert "'column 1'" in capsys.readouterr().out


def test_a_table_in_a_sheet_pandas_does_not_list_fails_closed(repo, capsys):
    """A macro sheet holding the codes: pandas lists worksheets only, so it was never read."""
    safe().to_excel(repo / "t.xlsx", index=False)
    book = openpyxl.Workbook()
    for code in CODES:
        book.active.append([code])
    book.save(repo / "codes.xlsx")
    with zipfile.ZipFile(repo / "codes.xlsx") as archive:
        cells = archive.read("xl/worksheets/sheet1.xml")
    add_part(repo / "t.xlsx", "xl/macrosheets/sheet2.xml", cells)
    assert check(repo, "t.xlsx") == 2
    assert "t.xlsx:xl/macrosheets/sheet2.xml (1 workbook parts, a macro sheet)" in (
        capsys.readouterr().err
    )


def test_another_sheet_is_left_over_when_the_workbook_is_read_by_its_name(tmp_path):
    """Read by its own name (as scan and report read it), a workbook's first sheet is the
    table; each other sheet holding cells is left over by name."""
    with pd.ExcelWriter(tmp_path / "t.xlsx") as writer:
        safe().to_excel(writer, index=False, sheet_name="Dati")
        pd.DataFrame({"cf": CODES}).to_excel(writer, index=False, sheet_name="Altro")
    _, account = read(tmp_path / "t.xlsx")
    assert [(p.name, p.count) for p in account.open()] == [("Altro", ROWS + 1)]


def test_an_embedded_workbook_fails_closed(repo, capsys):
    """A workbook of codes embedded as an object: its part was never read."""
    safe().to_excel(repo / "t.xlsx", index=False)
    pd.DataFrame({"cf": CODES}).to_excel(repo / "inner.xlsx", index=False)
    part = "xl/embeddings/Microsoft_Excel_Worksheet.xlsx"
    add_part(repo / "t.xlsx", part, (repo / "inner.xlsx").read_bytes())
    (repo / "inner.xlsx").unlink()
    assert check(repo, "t.xlsx") == 2
    err = capsys.readouterr().err
    assert f"t.xlsx:{part} (1 workbook parts, an embedded object)" in err
    assert f'files = ["t.xlsx:{part}"] and skip = true' in err
    (repo / ".pandas-anon.toml").write_text(f'[[rules]]\nfiles = "t.xlsx:{part}"\nskip = true\n')
    assert check(repo, "t.xlsx") == 0


def test_whole_numbers_are_read_as_written(tmp_path):
    """Whole numbers under an empty header cell, beside a gap: read as the integers written,
    as on pandas 3 (on pandas 2.2 the cells go through the parser wrapped, and unwrapping
    them by ``DataFrame.map`` cast a column of numbers and missing cells to floats)."""
    book = openpyxl.Workbook()
    for row in ([None, "m"], [1, "x"], [None, "y"], [3, "z"]):
        book.active.append(row)
    book.save(tmp_path / "t.xlsx")
    table, account = read(tmp_path / "t.xlsx")
    assert account.unaccounted == 0
    assert [(type(v), v) for v in table["column 1"].dropna().tolist()] == [(int, 1), (int, 3)]
