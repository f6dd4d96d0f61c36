"""Read the table formats other than delimited text and JSON: Parquet, spreadsheets.

:mod:`pandas_anon.gate.parsers` finds a file's format from its content; its readers of
Parquet and workbooks (which count what the file holds) read the cells here. Each reader
returns the columns asked for (default: every named column) as categoricals of their values
as read (a column holding values pandas would merge though they are written differently
stays a column of those values, which the engine compares as written), and raises
:class:`~pandas_anon.errors.InputFileError` (the file, the problem, the fix) or
:class:`~pandas_anon.errors.ColumnNotFoundError`. Messages may quote column names, never a
cell value: they can end up in public CI logs.

Values are compared as written, as the engine defines it
(:func:`pandas_anon.engine.encoding.written_codes`): equal and of the same kind (JSON's own
values too: :func:`categoricals` serves :mod:`pandas_anon.gate.parsers.json`). A spreadsheet
cell keeps its type: a boolean ``TRUE`` is not the number ``1`` (a number is its value,
whatever format shows it: ``1`` and ``1.00``, one number). A Parquet float column keeps ``-0.0`` apart from ``0.0``.
A nested object or array in a cell is refused, naming its column: the gate compares values,
and a nested value has no single one.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import PurePath
from typing import IO, Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from pandas_anon.engine.encoding import written_codes
from pandas_anon.errors import ColumnNotFoundError, InputFileError
from pandas_anon.gate import limits as reading

#: The formats read here.
Kind = Literal["json", "jsonl", "parquet", "spreadsheet"]
#: The format of each table suffix read here (before any compression suffix, in lower case).
KINDS: dict[str, Kind] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".xlsx": "spreadsheet",
    ".ods": "spreadsheet",
}
#: The pandas engine reading each spreadsheet suffix, and the package that provides it.
_ENGINES: dict[str, tuple[Literal["openpyxl", "odf"], str]] = {
    ".xlsx": ("openpyxl", "openpyxl"),
    ".ods": ("odf", "odfpy"),
}
#: Rows of a sheet read to tell a table from an empty sheet (a blank start is read whole).
_HEAD_ROWS = 100
#: Columns pandas writes for an unnamed index: read as columns, left out only when they hold
#: the row numbers (:mod:`pandas_anon.gate.parsers.parquet`).
PANDAS_INDEX = re.compile(r"__index_level_\d+__")


class Sheet(str):
    """The name ``book.xlsx:Sheet1`` of one sheet of a workbook.

    It is the string a report shows; :func:`pandas_anon.gate.io.read_columns` given one reads
    that sheet (given a workbook's own path, it reads the first sheet).

    Parameters
    ----------
    book : str
        The workbook: its path, or a :class:`~pandas_anon.gate.io.ZipMember`.
    sheet : str
        The sheet's name in the workbook.
    """

    book: str
    sheet: str

    def __new__(cls, book: str, sheet: str) -> Sheet:
        name = super().__new__(cls, f"{book}:{sheet}")
        name.book, name.sheet = book, sheet
        return name

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return self.book, self.sheet


# -- Parquet --------------------------------------------------------------------------------


class ParquetColumns(NamedTuple):
    """The columns :func:`read_parquet` read, and what the file stores in them that no row
    holds."""

    #: The columns read, as categoricals (a float column holding both zeros as its floats).
    frame: pd.DataFrame
    #: Values a column's dictionaries store that no row holds, by column (none: not listed).
    unused: dict[str, int]
    #: Distinct values of a column's statistics (minimum, maximum) that no row holds, by
    #: column (none: not listed).
    stray: dict[str, int]


def read_parquet(
    name: str, source: str | IO[bytes], *, usecols: Sequence[str] | None = None
) -> ParquetColumns:
    """The ``usecols`` columns (default: every column, those pandas stores for an index
    included: ``__index_level_0__``, or the index's name) of a Parquet file, only those read
    from it, as categoricals; and the values their column chunks store that no row holds.

    Its cells (rows times the columns read) are counted against ``max_cells``
    (:func:`pandas_anon.gate.limits.check_cells`): from its metadata before anything is read,
    then batch by batch as they are read. Each batch's columns are kept dictionary-encoded
    (text as the file encodes it, other values encoded batch by batch), so that memory grows
    with the rows read, by a few bytes a cell, not with the values' size.

    Text is read as the file encodes it: its dictionaries as they are, so that a dictionary
    entry no row points to (a pandas categorical's unused category, a value hidden there)
    shows as a category no row holds, counted (:attr:`ParquetColumns.unused`). The
    statistics of each column chunk (its minimum and maximum, from the file's metadata) are
    looked up among the values read, and those not found counted
    (:attr:`ParquetColumns.stray`; a float's zero matches either sign, as Parquet writers
    write ``-0.0`` for a minimum of ``0.0``).

    Parameters
    ----------
    name : str
        The file's name, for messages.
    source : str or binary file
        The file's path, or its content (a member of a zip archive).
    usecols : sequence of str, optional
        The columns to keep, in that order.

    Raises
    ------
    InputFileError
        Not a Parquet file (or a corrupt one), a nested column (struct, list, map) kept, or
        more cells than ``max_cells``.
    ColumnNotFoundError
        A ``usecols`` name not in the file's schema.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(source) as parquet:
            schema = parquet.schema_arrow
            columns = select_columns(name, schema.names, usecols)
            for column in columns:
                if pa.types.is_nested(schema.field(column).type):
                    raise _nested_error(name, column)
            _check_parquet_cells(name, parquet.metadata.num_rows, columns)
            metadata = parquet.metadata
        with pq.ParquetFile(source, metadata=metadata, read_dictionary=columns) as parquet:
            chunks: dict[str, list[Any]] = {column: [] for column in columns}
            kept: set[str] = set()  # columns read with the file's own dictionaries
            rows = 0
            for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
                rows += batch.num_rows
                _check_parquet_cells(name, rows, columns)
                for column, array in zip(columns, batch.columns):
                    if pa.types.is_dictionary(array.type):
                        kept.add(column)
                    chunks[column].append(_encoded(array))
    except (pa.ArrowException, OSError) as error:
        raise _parquet_error(name, error) from None
    first = _leaf_columns(schema)
    frame: dict[str, Any] = {}
    unused: dict[str, int] = {}
    stray: dict[str, int] = {}
    for column in columns:  # each column's chunks freed once it is converted
        pieces = chunks.pop(column)
        found = _stray_statistics(metadata, first[column], pieces)
        if found:
            stray[column] = found
        if pieces and pa.types.is_dictionary(pieces[0].type):  # one index type, fitting all
            size = sum(len(piece.dictionary) for piece in pieces)
            pieces = [_indexed(piece, size) for piece in pieces]
        typed = None if pieces else schema.field(column).type  # no row: the schema's type
        values = frame[column] = _arrow_categorical(pa.chunked_array(pieces, typed))
        if column in kept and isinstance(values, pd.Categorical):
            found = _unused(values.codes, len(values.categories))
            if found:
                unused[column] = found
    pa.default_memory_pool().release_unused()  # pyarrow's allocator keeps what it freed
    return ParquetColumns(pd.DataFrame(frame), unused, stray)


def _leaf_columns(schema: Any) -> dict[str, int]:
    """Each top-level column of a Parquet file's Arrow ``schema``, with the position of its
    first leaf column (a column chunk each per row group) among the file's."""
    first, at = {}, 0
    for field in schema:
        first[field.name] = at
        at += leaves(field.type)
    return first


def leaves(kind: Any) -> int:
    """The leaf columns (one chunk each per row group) Parquet stores an Arrow type in."""
    import pyarrow as pa

    if pa.types.is_struct(kind):
        return sum(leaves(kind.field(i).type) for i in range(kind.num_fields))
    if pa.types.is_map(kind):
        return leaves(kind.key_type) + leaves(kind.item_type)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return leaves(kind.value_type)
    return 1


def parquet_metadata(name: str, source: str | IO[bytes]) -> Any:
    """The metadata (:class:`pyarrow.parquet.FileMetaData`: row groups, column chunks,
    schema) of the Parquet file ``name`` (its path or content ``source``, left at its
    start); an InputFileError when it is not a readable Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(source) as parquet:
            return parquet.metadata
    except (pa.ArrowException, OSError) as error:
        raise _parquet_error(name, error) from None
    finally:
        if not isinstance(source, str):
            source.seek(0)


def _parquet_error(name: str, error: Exception) -> InputFileError:
    """The error for a Parquet file pyarrow cannot read (its message may quote the file)."""
    if isinstance(error, OSError) and error.errno is not None:
        return InputFileError(f"{name} cannot be read: {error.strerror}")
    return InputFileError(
        f"{name} is not a valid Parquet file (corrupt, truncated or of another format); "
        "export it again"
    )


#: Rows of a Parquet file read at a time.
_BATCH_ROWS = 1 << 20


def _check_parquet_cells(name: str, rows: int, columns: Sequence[str]) -> None:
    """Refuse a Parquet file of ``rows`` rows (read so far, or in all) of ``columns`` past
    ``max_cells``."""
    reading.check_cells(
        name,
        rows * len(columns),
        "max_cells",
        where=f" ({rows:,} rows of {len(columns):,} column{'s' if len(columns) > 1 else ''} read)",
    )


def _encoded(array: Any) -> Any:
    """One batch's column dictionary-encoded, its indices as narrow as its dictionary
    allows (a column of nulls as it is: it holds nothing; a float16's as float32s)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_null(array.type):
        return array
    if pa.types.is_float16(array.type):  # pandas has no index of float16: the same floats
        array = array.cast(pa.float32())
    if not pa.types.is_dictionary(array.type):
        array = pc.dictionary_encode(array)
    return _indexed(array, len(array.dictionary))


def _indexed(array: Any, size: int) -> Any:
    """The dictionary array ``array`` with the narrowest signed indices that number ``size``
    values (int8 up to 128, int16, else int32)."""
    import pyarrow as pa

    index = pa.int8() if size <= 1 << 7 else pa.int16() if size <= 1 << 15 else pa.int32()
    if array.type.index_type == index:
        return array
    return array.cast(pa.dictionary(index, array.type.value_type))


def _arrow_categorical(chunked: Any) -> pd.Categorical | np.ndarray:
    """One column read by pyarrow as a categorical, dictionary-encoded by pyarrow; a float
    column holding both ``0.0`` and ``-0.0`` (two values, which a categorical would merge)
    as its floats."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_null(chunked.type):  # every value missing
        return pd.Categorical([None] * len(chunked))
    if not pa.types.is_dictionary(chunked.type):
        chunked = pc.dictionary_encode(chunked)
    value_type = chunked.type.value_type
    if pa.types.is_floating(value_type) and chunked.num_chunks:
        chunked = chunked.unify_dictionaries()  # pyarrow tells 0.0 and -0.0 apart
        if written_codes(chunked.chunk(0).dictionary.to_numpy()) is not None:
            return pc.cast(chunked, value_type).to_numpy()  # missing: NaN
    return pd.Categorical(chunked.to_pandas())


def _stray_statistics(metadata: Any, leaf: int, pieces: Sequence[Any]) -> int:
    """The distinct values of the statistics (minimum, maximum) of the leaf column
    ``leaf``'s chunks that are not among its values read (``pieces``: its batches,
    dictionary-encoded); statistics that cannot be typed as the column's values all count."""
    import pyarrow as pa
    import pyarrow.compute as pc

    bounds = []
    for group in range(metadata.num_row_groups):
        stats = metadata.row_group(group).column(leaf).statistics
        if stats is not None and stats.has_min_max:
            bounds += [stats.min, stats.max]
    if not bounds:
        return 0
    kind = pieces[0].type if pieces else pa.null()
    kind = getattr(kind, "value_type", kind)
    if pa.types.is_floating(kind) and isinstance(bounds[0], bytes):  # a float16's, as stored
        bounds = np.frombuffer(b"".join(bounds), "<f2").tolist()
    try:
        wanted = pc.unique(_zero(pa.array(bounds, type=kind)))
    except (pa.ArrowException, TypeError, ValueError, OverflowError):  # not of the column's type
        return len(bounds)
    found = np.zeros(len(wanted), dtype=bool)
    for piece in pieces:
        values = piece.dictionary if pa.types.is_dictionary(piece.type) else piece
        found[pc.index_in(_zero(values), value_set=wanted).drop_null().to_numpy()] = True
        if found.all():
            return 0
    return int(len(found) - np.count_nonzero(found))


def _zero(values: Any) -> Any:
    """``values`` with a float's ``-0.0`` as ``0.0`` (the sign a Parquet writer may give the
    minimum of a column of zeros); other values as they are."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_float32(values.type) or pa.types.is_float64(values.type):
        return pc.add(values, pa.scalar(0, values.type))
    return values


#: Codes looked at first for categories no row holds; each further block is twice as long.
_FIRST_CODES = 1 << 16


def _unused(codes: np.ndarray, size: int) -> int:
    """The categories of ``size`` that no code of ``codes`` (``-1``: missing) points to.

    The codes are looked at in blocks that double, until every category is seen: a column
    holding each of its categories (the rule) is done with early, in a few blocks."""
    seen = np.zeros(size + 1, dtype=bool)  # the last one for the missing values' -1
    start, step = 0, _FIRST_CODES
    while start < len(codes):
        seen[codes[start : start + step]] = True
        start, step = start + step, step * 2
        if seen[:size].all():
            return 0
    return size - int(np.count_nonzero(seen[:size]))


# -- spreadsheets ---------------------------------------------------------------------------


def sheets(book: str, source: str | IO[bytes]) -> list[tuple[Sheet, str]]:
    """Each sheet of the workbook ``book``, with why it is skipped (``"an empty sheet"``: no
    cell holding anything, read or not), or ``""`` for a table; then each part of the
    workbook that can hold values outside its sheets (:attr:`Parts.unread`), named as a sheet
    (``book.xlsx:xl/embeddings/x.bin``), which its reader
    (:mod:`pandas_anon.gate.parsers.sheets`) refuses by name. When no sheet holds a table,
    the first is still read if the text the workbook stores outside its cells fails it
    (:func:`pandas_anon.gate.parsers.workbook_text.fails`), so that its account names that
    text.

    Parameters
    ----------
    book : str
        The workbook's name (``.xlsx`` or ``.ods``, any case), for messages and the sheets'
        names.
    source : str or binary file
        Its path or content.

    Raises
    ------
    InputFileError
        The engine is not installed, or the file is not a valid workbook.
    """
    found = []
    with open_workbook(book, source) as workbook:
        for sheet in workbook.sheet_names:
            name = Sheet(book, str(sheet))
            cells = _sheet_cells(name, workbook, sheet)
            empty = not cells or (
                cells <= reading.current().max_sheet_cells  # past it, reading it refuses it
                and _blank(read_cells(name, workbook, sheet, _HEAD_ROWS))
                and _blank(read_cells(name, workbook, sheet, None))
            )
            if empty and any(run.unread for run in written_cells(name, workbook, sheet)):
                empty = False  # only cells read as empty: its reader names them
            found.append((name, "an empty sheet" if empty else ""))
        parts = workbook_parts(workbook, source)
        if found and all(skipped for _, skipped in found):
            from pandas_anon.gate.parsers import workbook_text  # the reader's, below this module

            if workbook_text.fails(workbook_text.leftovers(workbook, source, parts)):
                found[0] = (found[0][0], "")
        found.extend((Sheet(book, part), "") for part in parts.unread)
    return found


@contextmanager
def open_workbook(book: str, source: str | IO[bytes]) -> Iterator[pd.ExcelFile]:
    """The workbook ``book`` (its path or content ``source``) open with the engine of its
    suffix; a missing engine or an invalid file is an InputFileError saying what to do."""
    suffixes = [suffix.lower() for suffix in PurePath(book).suffixes]
    suffix = next((s for s in reversed(suffixes) if s in _ENGINES), ".xlsx")  # a.ods.gz: .ods
    engine, package = _ENGINES[suffix]
    try:
        workbook = pd.ExcelFile(source, engine=engine)
    except ImportError:
        raise InputFileError(
            f"{book}: reading {suffix} workbooks needs {package}, which is not "
            'installed; pip install "pandas-anon[excel]"'
        ) from None
    except Exception as error:  # each engine raises its own errors for a file it cannot parse
        raise _workbook_error(book, suffix, error) from None
    with workbook:
        yield workbook


def _workbook_error(book: str, suffix: str, error: Exception) -> InputFileError:
    """The error for a workbook its engine cannot open; it never quotes the file."""
    if isinstance(error, OSError) and error.errno is not None:
        return InputFileError(f"{book} cannot be read: {error.strerror}")
    return InputFileError(
        f"{book} is not a valid {suffix} workbook (corrupt, or of another format); save it "
        "again from the spreadsheet program"
    )


def read_cells(
    name: str, workbook: pd.ExcelFile, sheet: str | int, nrows: int | None = None
) -> pd.DataFrame:
    """The cells of the sheet ``sheet`` (named ``name``) of ``workbook`` as read, the first
    ``nrows`` rows (default: all): no header, each cell its own type, only empty cells
    missing, row ``i`` and column ``j`` the sheet's row ``i + 1`` and column ``j + 1``
    (blank rows kept). Its cells are counted against ``max_sheet_cells`` first; the engines'
    warnings about formatting they drop are silenced."""
    reading.check_cells(name, _sheet_cells(name, workbook, sheet), "max_sheet_cells")
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")
            if _parser_merges_cells():
                return _cells_kept_apart(workbook, sheet, nrows)
            return pd.read_excel(workbook, sheet_name=sheet, nrows=nrows, **_AS_READ)
    except Exception:  # each engine raises its own errors for cells it cannot parse
        raise _sheet_error(name) from None


def _sheet_error(name: str) -> InputFileError:
    """The error for a sheet its engine cannot read; it never quotes a cell."""
    return InputFileError(
        f"{name} cannot be read as a sheet of cells (corrupt, or a chart sheet); save the "
        "workbook again from the spreadsheet program"
    )


def _sheet_of(workbook: pd.ExcelFile, sheet: str | int) -> Any:
    """The engine's sheet ``sheet`` (a name, or a position) of ``workbook``."""
    reader: Any = workbook._reader  # type: ignore[attr-defined]  # the engine's reader
    if isinstance(sheet, str):
        return reader.get_sheet_by_name(sheet)
    return reader.get_sheet_by_index(sheet)


class Written(NamedTuple):
    """A run of written cells of a sheet: ``columns`` cells from the sheet's row ``row`` and
    column ``column`` (numbered from 1), repeated on ``rows`` rows (an OpenDocument table
    repeats cells and rows; a ``.xlsx`` cell is a run of one).

    ``unread`` says why the reader reads the run as empty though it holds something
    (:data:`FORMULA`, :data:`UNTYPED`, :data:`NOT_AN_ERROR`), or is ``""`` for values it
    reads.
    """

    row: int
    column: int
    rows: int
    columns: int
    unread: str = ""


#: Why a formula cell without a cached value is read as empty.
FORMULA = (
    "formulas without a cached value, read as empty: open and save the workbook in a "
    "spreadsheet program, which computes them"
)
#: Why an OpenDocument cell holding text but no value type is read as empty.
UNTYPED = "cells of text without a value type, read as empty"
#: Why a ``.xlsx`` cell read as an error (pandas reads errors as empty) is left over when
#: its sheet wrote no error value in it.
NOT_AN_ERROR = (
    "cells read as errors though they hold no error value (text typed as an error, a date "
    "out of range), read as empty"
)
#: The error values a ``.xlsx`` cell of the error type holds; any other text in such a cell
#: is a value read as empty.
ERRORS = frozenset(
    {
        "#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA",
        "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#CONNECT!", "#BUSY!", "#UNKNOWN!",
        "#EXTERNAL!", "#PYTHON!",
    }
)  # fmt: skip


def written_cells(name: str, workbook: pd.ExcelFile, sheet: str | int) -> Iterator[Written]:
    """The runs of cells holding something in the sheet ``sheet`` (named ``name``) of
    ``workbook``, from the sheet's own XML, one look at each written cell, nothing expanded:
    a cell holds a value when pandas' reader reads one (not an empty text, nor an error such
    as ``#N/A``), or something it reads as empty (:attr:`Written.unread`). An InputFileError
    when the engine cannot parse the sheet."""
    try:
        found = _sheet_of(workbook, sheet)
        engine = workbook.engine  # type: ignore[attr-defined]  # not in the stubs
        yield from _ods_written(found) if engine == "odf" else _xlsx_written(found)
    except InputFileError:
        raise
    except Exception:  # each engine raises its own errors for cells it cannot parse
        raise _sheet_error(name) from None


def _sheet_cells(name: str, workbook: pd.ExcelFile, sheet: str | int) -> int:
    """The cells pandas' reader builds for the sheet ``sheet`` (named ``name``) of
    ``workbook``: its rows up to the last holding a value, each as wide as the widest up to
    its last value (0: no value at all). Counted from :func:`written_cells` before anything
    is expanded (the engines' readers expand a repeated row, and fill every empty cell
    before a written one, as they go)."""
    rows = width = 0
    for run in written_cells(name, workbook, sheet):
        if not run.unread:
            rows = max(rows, run.row + run.rows - 1)
            width = max(width, run.column + run.columns - 1)
    return rows * width


def _xlsx_written(sheet: Any) -> Iterator[Written]:
    """:func:`written_cells` of a read-only openpyxl worksheet, parsed as openpyxl parses it
    (cached values), each formula cell without a cached value told apart."""
    with sheet._get_source() as source:  # the sheet's XML, as openpyxl's read-only mode reads it
        parser = _formula_parser()(source, sheet._shared_strings, data_only=True)
        for row, cells in parser.parse():
            for cell in cells:
                if cell["value"] not in (None, "") and cell["data_type"] != "e":
                    yield Written(row, cell["column"], 1, 1)
                elif cell["value"] is None and cell["formula"]:
                    yield Written(row, cell["column"], 1, 1, FORMULA)
                elif cell["data_type"] == "e" and not cell["error"]:
                    yield Written(row, cell["column"], 1, 1, NOT_AN_ERROR)


@cache
def _formula_parser() -> Any:
    """openpyxl's parser of read-only sheets, each cell it parses also saying whether it
    holds a formula (``"formula"``: with cached values read, a formula without one is
    None, as an empty cell is) and, for a cell it reads as an error (which pandas reads as
    empty), whether the sheet wrote that error (``"error"``: a cell of the error type
    holding one of :data:`ERRORS`)."""
    from openpyxl.worksheet._reader import (  # type: ignore[import-untyped]  # no stubs
        FORMULA_TAG,
        WorkSheetParser,
    )

    class FormulaParser(WorkSheetParser):  # openpyxl's parser, untyped
        def parse_cell(self, element: Any) -> dict[str, Any]:
            cell: dict[str, Any] = super().parse_cell(element)
            cell["formula"] = element.find(FORMULA_TAG) is not None
            cell["error"] = element.get("t") == "e" and cell["value"] in ERRORS
            return cell

    return FormulaParser


def _ods_written(sheet: Any) -> Iterator[Written]:
    """:func:`written_cells` of an OpenDocument table, read as pandas' ``odf`` reader reads
    it: a cell holds a value when it has a value type (a string type with some text), and
    is not ``#N/A``; a cell without a value type holding a formula or text is read as
    empty. A cell's comment (an annotation, which pandas does not read) is not its text:
    :mod:`pandas_anon.gate.parsers.workbook_text` counts it."""
    from odf.namespaces import OFFICENS, TABLENS  # type: ignore[import-not-found]  # no stubs
    from odf.office import Annotation  # type: ignore[import-not-found]
    from odf.table import CoveredTableCell, TableCell, TableRow  # type: ignore[import-not-found]

    names, annotation = {CoveredTableCell().qname, TableCell().qname}, Annotation().qname
    kind, row_repeat = (OFFICENS, "value-type"), (TABLENS, "number-rows-repeated")
    column_repeat, formula = (TABLENS, "number-columns-repeated"), (TABLENS, "formula")
    position = 1
    for row in sheet.getElementsByType(TableRow):
        rows, column = int(row.attributes.get(row_repeat, 1)), 1
        for cell in row.childNodes:
            if getattr(cell, "qname", None) not in names:
                continue
            columns, typed = int(cell.attributes.get(column_repeat, 1)), cell.attributes.get(kind)
            text = "".join(
                str(part) for part in cell.childNodes if getattr(part, "qname", None) != annotation
            )
            if typed is not None and text != "#N/A" and (typed != "string" or text):
                yield Written(position, column, rows, columns)
            elif typed is None and formula in cell.attributes:
                yield Written(position, column, rows, columns, FORMULA)
            elif typed is None and text and text != "#N/A":
                yield Written(position, column, rows, columns, UNTYPED)
            column += columns
        position += rows


#: The parts of a workbook that hold no free text, by engine: the package's structure,
#: themes, the calculation chain, printer settings, an OpenDocument's manifest, thumbnail
#: and user interface settings, folders.
_STRUCTURAL_PARTS = {
    "openpyxl": re.compile(
        r"\[Content_Types\]\.xml|xl/theme/theme\d+\.xml|xl/calcChain\.xml"
        r"|xl/printerSettings/printerSettings\d+\.bin|.*/"
    ),
    "odf": re.compile(
        r"META-INF/manifest\.xml|manifest\.rdf|Thumbnails/thumbnail\.png|Configurations2/.*|.*/"
    ),
}
#: The parts whose text is counted as text outside the table, by engine
#: (:mod:`pandas_anon.gate.parsers.workbook_text`): besides the sheets read, a ``.xlsx``'s
#: relationships (links), properties, names, styles, shared strings, comments, drawings,
#: table definitions and the metadata of cells (dynamic arrays); an OpenDocument's content
#: (its cells read), styles, metadata and settings.
TEXT_PARTS = {
    "openpyxl": re.compile(
        r"(?:.*/)?_rels/[^/]*\.rels|docProps/(?:app|core|custom)\.xml|xl/workbook\.xml"
        r"|xl/styles\.xml|xl/sharedStrings\.xml|xl/comments(?:/[^/]+|[^/]*)\.xml"
        r"|xl/threadedComments/[^/]+\.xml|xl/persons/[^/]+\.xml"
        r"|xl/drawings/[^/]+\.(?:xml|vml)|xl/tables/table\d+\.xml|xl/metadata\.xml"
    ),
    "odf": re.compile(r"mimetype|content\.xml|styles\.xml|meta\.xml|settings\.xml"),
}
#: What a part left unread holds, by its folder; any other part is "a part not read".
_PART_KINDS = {
    "xl/embeddings/": "an embedded object",
    "xl/pivotCache/": "a pivot table's copy of its data",
    "xl/pivotTables/": "a pivot table",
    "xl/externalLinks/": "a copy of another workbook's cells",
    "xl/charts/": "a chart and its copy of the values it draws",
    "xl/chartsheets/": "a chart sheet",
    "xl/media/": "an image",
    "xl/macrosheets/": "a macro sheet",
    "xl/vbaProject": "macros (a VBA project)",
    "xl/model/": "a data model",
    "customXml/": "custom XML data",
    "Object ": "an embedded object",
    "ObjectReplacements/": "an embedded object's picture",
    "Pictures/": "an image",
}


#: What a part of a name another part has holds: readers read one of them only.
_REPEATED = "parts of one name, of which readers read one only"


class Parts(NamedTuple):
    """The parts of a workbook (names in its zip archive), by what the gate does with them.

    Attributes
    ----------
    sheets : list of str
        The parts of the ``.xlsx`` sheets pandas lists, whose cells are read (an
        OpenDocument's are in ``content.xml``, one of ``text``).
    text : list of str
        The other parts whose text the gate counts (:data:`TEXT_PARTS`).
    unread : dict of str to str
        The parts that can hold values and are not read, with what each holds: any part
        neither read, nor counted, nor known to hold no free text.
    """

    sheets: list[str]
    text: list[str]
    unread: dict[str, str]


def workbook_parts(workbook: pd.ExcelFile, source: str | IO[bytes]) -> Parts:
    """The parts of the workbook ``workbook`` (open on ``source``), by what the gate does
    with them (:class:`Parts`): a part is read (a sheet pandas lists), its text counted
    (:data:`TEXT_PARTS`), known to hold no free text, or unread (``xl/embeddings/
    oleObject1.bin``, with what it holds; a part the gate does not know is unread too, and
    so is a name the archive holds twice)."""
    import zipfile

    if not isinstance(source, str):
        source.seek(0)
    with zipfile.ZipFile(source) as archive:
        names = archive.namelist()
    engine: str = workbook.engine  # type: ignore[attr-defined]  # not in the stubs
    sheets = []
    if engine != "odf":
        reader: Any = workbook._reader  # type: ignore[attr-defined]  # the engine's reader
        sheets = [sheet._worksheet_path.lstrip("/") for sheet in reader.book.worksheets]
    text = [part for part in names if part not in sheets and TEXT_PARTS[engine].fullmatch(part)]
    unread = {
        part: next(
            (kind for start, kind in _PART_KINDS.items() if part.startswith(start)),
            "a part not read",
        )
        for part in names
        if part not in sheets and part not in text and not _STRUCTURAL_PARTS[engine].fullmatch(part)
    }
    unread.update((part, _REPEATED) for part, count in Counter(names).items() if count > 1)
    return Parts(sheets, text, unread)


#: How a sheet's cells are parsed: no header, each cell its own type, only empty cells missing.
_AS_READ: dict[str, Any] = {
    "header": None,
    "dtype": object,
    "keep_default_na": False,
    "na_values": [""],
}


@cache
def _parser_merges_cells() -> bool:
    """Whether pandas' parsers make one value of cells equal in Python but of different
    types (a ``TRUE`` cell and a ``1`` cell both read as ``True``): pandas before 3.0
    memoized cells by Python's equality (pandas-dev/pandas#60088). Told by trying."""
    from pandas.io.parsers import TextParser  # type: ignore[attr-defined]  # not in the stubs

    read = TextParser([[True], [1]], header=None, dtype=object).read()[0].tolist()
    return [type(value) for value in read] != [bool, int]


class _Cell:
    """A cell's value, hidden from pandas' parser in an object equal only to itself."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


def _cells_kept_apart(workbook: pd.ExcelFile, sheet: str | int, nrows: int | None) -> pd.DataFrame:
    """``read_excel``'s sheet (:data:`_AS_READ`) under a pandas whose parser merges cells
    (:func:`_parser_merges_cells`): the engine's cells (read by pandas' reader of the
    workbook, as ``read_excel`` reads them) go through the same parser, each value other
    than text wrapped so that none is taken for another, then unwrapped."""
    from pandas.io.parsers import TextParser  # type: ignore[attr-defined]  # not in the stubs

    reader: Any = workbook._reader  # type: ignore[attr-defined]  # the engine's reader
    found = _sheet_of(workbook, sheet)
    rows = reader.get_sheet_data(found, None if nrows is None else nrows + 1)
    if hasattr(found, "close"):
        found.close()
    if not rows:
        return pd.DataFrame()
    wrapped = [[v if isinstance(v, str) else _Cell(v) for v in row] for row in rows]
    # read_excel keeps blank rows (skip_blank_lines=False); TextParser's default drops them
    parser = TextParser(wrapped, nrows=nrows, skip_blank_lines=False, **_AS_READ)
    parsed = parser.read(nrows=nrows)
    values = parsed.to_numpy(dtype=object, copy=True)  # unwrapped in place: each cell's type
    for at, value in np.ndenumerate(values):  # kept (DataFrame.map casts 0 and NaN to floats)
        if isinstance(value, _Cell):
            values[at] = value.value
    return pd.DataFrame(values, index=parsed.index, columns=parsed.columns, dtype=object)


def _blank(frame: pd.DataFrame) -> bool:
    """Whether no cell of ``frame`` holds a value."""
    return not frame.notna().to_numpy().any()


# -- shared ---------------------------------------------------------------------------------


def select_columns(name: str, header: Sequence[str], usecols: Sequence[str] | None) -> list[str]:
    """The columns to read: ``usecols`` (repeats dropped), else every named column of
    ``header``.

    Raises
    ------
    InputFileError
        ``header`` repeats a name.
    ColumnNotFoundError
        A ``usecols`` name is not in ``header``.
    """
    if isinstance(usecols, str):
        raise TypeError("usecols must be a sequence of column names, not a string")
    repeated = [column for column, n in Counter(header).items() if n > 1 and column]
    if repeated:
        raise InputFileError(
            f"{name}: the header repeats column name{'s' if len(repeated) > 1 else ''} "
            f"{', '.join(map(repr, repeated))}; rename the columns so that each name is unique"
        )
    if usecols is None:
        named = [column for column in header if column]
        if not named:
            raise InputFileError(f"{name}: the header names no column; add a header row")
        return named
    missing = [column for column in usecols if column not in header]
    if missing:
        raise ColumnNotFoundError(missing, [column for column in header if column])
    return list(dict.fromkeys(usecols))


def categoricals(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Each column of ``frame`` as a categorical of its values, or as those values when a
    categorical would merge some written differently (JSON's ``1`` and ``true``, a sheet's
    ``TRUE`` and ``1``: :func:`~pandas_anon.engine.encoding.written_codes`); a column holding
    nested objects or arrays (which have no single value to compare) is an InputFileError
    naming it."""
    out: dict[str, Any] = {}
    for column in frame.columns:
        values = frame[column]
        try:
            categorical = pd.Categorical(values)
            written = written_codes(values)
        except TypeError:  # unhashable: a dict or a list in a cell
            raise _nested_error(name, str(column)) from None
        merged = written is not None and written.max(initial=-1) >= len(categorical.categories)
        out[column] = values if merged else categorical
    return pd.DataFrame(out, columns=frame.columns)


def _nested_error(name: str, column: str) -> InputFileError:
    """The error for a column of nested values; it names the column, never a value."""
    return InputFileError(
        f"{name}: column {column!r} holds nested objects or arrays, which the gate cannot "
        "compare; flatten them into columns of their own (pandas.json_normalize), or, if it "
        "holds no one's data, drop the column"
    )
