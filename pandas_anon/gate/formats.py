"""Read the table formats other than delimited text: JSON, JSON Lines, Parquet, spreadsheets.

:mod:`pandas_anon.gate.io` opens a file named on the command line (plain, compressed or a
member of a ``.zip``), finds its format from its suffix (:data:`KINDS`) and hands its content
here. Each reader returns the columns asked for (default: every named column) as categoricals
of their values as read, as :func:`pandas_anon.gate.io.read_columns` does for delimited text
(a column holding values pandas would merge though they are written differently stays a
column of those values, which the engine compares as written), and raises
:class:`~pandas_anon.errors.InputFileError` (the file, the problem, the fix) or
:class:`~pandas_anon.errors.ColumnNotFoundError`. Messages may quote column names, never a
cell value: they can end up in public CI logs.

Values are compared as written, as the engine defines it
(:func:`pandas_anon.engine.encoding.written_codes`): equal and of the same kind. A JSON number
stays a number and a string a string (``1950`` and ``"1950"`` are two values, ``"0100"`` is
not ``100``); ``true``, ``1`` and ``1.0`` are three values, and so are ``0``, ``0.0`` and
``-0.0``, for JSON writes them so (a number is compared by its kind, integer or not, and its
value: ``2.0`` and ``2.00`` are one number). A spreadsheet cell keeps its type: a boolean
``TRUE`` is not the number ``1`` (a number is its value, whatever format shows it: ``1`` and
``1.00``, one number). A Parquet float column keeps ``-0.0`` apart from ``0.0``.
A nested object or array in a cell is refused, naming its column: the gate compares values,
and a nested value has no single one.

JSON shapes read (:func:`read_json`):

- an array of records (objects): ``[{"a": 1, "b": "x"}, ...]``;
- an object wrapping such an array: ``{"data": [...]}``, ``{"records": [...]}``, ... The array
  used is the one list of records among the object's values; when several are, the one under
  ``data``, ``records``, ``results``, ``items`` or ``rows`` if exactly one is; when none is
  and exactly one value is an object, that object is searched the same way (CKAN's
  ``{"result": {"fields": [...], "records": [...]}}``);
- pandas' "split" orientation: ``{"columns": ["a", "b"], "data": [[1, "x"], ...]}``;
- pandas' "table" orientation, a Table Schema beside ``"data"`` (records): the fields of its
  ``primaryKey`` (the frame's index, ``"index"`` by default) are row labels and left out;
- an array of arrays whose first row is the header: ``[["a", "b"], [1, "x"], ...]``.

JSON Lines (:func:`read_json_lines`) holds one record (or, after a header line, one row) per
line; a ``.json`` file holding JSON Lines is read as such.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from itertools import chain
from operator import itemgetter
from pathlib import PurePath
from typing import IO, Any, Literal

import numpy as np
import pandas as pd

from pandas_anon.engine.encoding import written_codes
from pandas_anon.errors import ColumnNotFoundError, InputFileError

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
#: Keys preferred when an object holds several lists of records.
WRAPPERS = ("data", "records", "results", "items", "rows")
#: Rows of a sheet read to tell a table from an empty sheet (a blank start is read whole).
_HEAD_ROWS = 100
#: Columns pandas writes for an unnamed index of row numbers: not data.
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")
_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}
_SHAPES = (
    'an array of records, an object wrapping one ("data": [...]), pandas\' split form '
    '({"columns": [...], "data": [[...]]}) or an array of arrays under a header row'
)
_LEAVE_OUT = (
    "if it is not a table, leave it out (a skip = true rule, or exclude: in "
    ".pre-commit-config.yaml)"
)


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


# -- JSON -----------------------------------------------------------------------------------


def read_json(
    name: str, content: bytes, *, usecols: Sequence[str] | None = None, encoding: str | None = None
) -> pd.DataFrame:
    """The table the JSON document ``content`` holds, in one of the shapes of this module's
    docstring, as categoricals of the ``usecols`` columns (default: every column).

    Parameters
    ----------
    name : str
        The file's name, for messages.
    content : bytes
        The whole (decompressed) file.
    usecols : sequence of str, optional
        The columns to keep, in that order.
    encoding : str, optional
        The text's encoding; by default UTF-8 (or UTF-16/32, told by JSON's rules).

    Raises
    ------
    InputFileError
        Empty, not JSON, not of a shape read, ragged rows, nested values in a column kept.
    ColumnNotFoundError
        A ``usecols`` name no record holds.
    """
    text = _json_text(name, content, encoding)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        lines = _json_lines_or_none(text) if error.msg == "Extra data" else None
        if lines is None:
            raise _json_error(name, error, error.lineno) from None
        return _table_of_array(name, lines, usecols)  # JSON Lines named .json
    if isinstance(document, list):
        return _table_of_array(name, document, usecols)
    if not isinstance(document, dict):
        raise InputFileError(
            f"{name} holds {_JSON_TYPES.get(type(document), 'a value')}, not a table; the "
            f"gate reads {_SHAPES}; {_LEAVE_OUT}"
        )
    split = _split(document)
    if split is not None:
        header, rows = split
        return _table_of_rows(name, header, rows, usecols, first=1)  # "data"'s first row is 1
    records = _records_in(name, document)
    return _table_of_records(name, records, usecols, index=_pandas_table_index(document))


def _pandas_table_index(document: dict[str, Any]) -> tuple[str, ...]:
    """The fields of pandas' "table" orientation (``df.to_json(orient="table")``: a Table
    Schema beside ``"data"``) that hold the frame's index, its row labels rather than data:
    the schema's ``primaryKey`` when pandas wrote it (``pandas_version``)."""
    schema = document.get("schema")
    if not isinstance(schema, dict) or "pandas_version" not in schema:
        return ()
    key = schema.get("primaryKey")
    return tuple(k for k in key if isinstance(k, str)) if isinstance(key, list) else ()


def read_json_lines(
    name: str, content: bytes, *, usecols: Sequence[str] | None = None, encoding: str | None = None
) -> pd.DataFrame:
    """The table of the JSON Lines text ``content``: a record (object) per line, or a header
    array then a row (array) per line; blank lines are skipped. Parameters and errors are
    those of :func:`read_json`."""
    return _table_of_array(name, _json_lines(name, _json_text(name, content, encoding)), usecols)


def _json_text(name: str, content: bytes, encoding: str | None) -> str:
    """The text of a JSON file, in ``encoding`` or told by JSON's rules (UTF-8 by default)."""
    used = encoding or json.detect_encoding(content)
    try:
        text = content.decode(used)
    except UnicodeDecodeError:
        fix = (
            "set the file's real encoding (encoding in the configuration)"
            if encoding
            else "JSON is UTF-8: re-save it as UTF-8, or set its encoding (encoding in the "
            "configuration)"
        )
        raise InputFileError(f"{name} is not valid {used} text; {fix}") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InputFileError(f"{name} is empty; pass a file holding records")
    return text


def _json_lines_or_none(text: str) -> list[Any] | None:
    """The values of the non-blank lines of ``text``, or None when a line is not JSON."""
    try:
        return list(map(json.loads, filter(str.strip, text.splitlines())))
    except json.JSONDecodeError:
        return None


def _json_lines(name: str, text: str) -> list[Any]:
    """The values of the non-blank lines of ``text``."""
    values = _json_lines_or_none(text)
    if values is not None:
        return values
    for number, line in enumerate(text.splitlines(), 1):  # only to say which line is wrong
        if line.strip():
            try:
                json.loads(line)
            except json.JSONDecodeError as error:
                raise _json_error(name, error, number) from None
    raise AssertionError("unreachable: a line failed to parse")  # pragma: no cover


def _json_error(name: str, error: json.JSONDecodeError, line: int) -> InputFileError:
    """The error for text that is not JSON; it never quotes the text."""
    # Python's own parser may quote a character after ':'; "... starting at" ends in the place
    problem = re.sub(r"\s+at$", "", error.msg.split(":")[0])
    return InputFileError(
        f"{name} is not valid JSON: {problem} at line {line}, column {error.colno}; fix the "
        "file there, or export the table again"
    )


def _table_of_array(name: str, items: list[Any], usecols: Sequence[str] | None) -> pd.DataFrame:
    """The table of a top-level array (or of JSON Lines): records, or rows under a header."""
    if not items:
        raise InputFileError(f"{name} holds no record; there is nothing to check")
    kinds = set(map(type, items))
    if kinds == {dict}:
        return _table_of_records(name, items, usecols)
    first = type(items[0])
    if kinds == {list}:
        header = items[0]
        if not header or set(map(type, header)) != {str}:
            raise InputFileError(
                f"{name}: the first row of its array of arrays is not a header (column names "
                "as strings); put the column names first, or write the rows as records "
                "(objects)"
            )
        return _table_of_rows(name, header, items[1:], usecols, first=2)
    if first in (dict, list):
        index = _first_other(items, first)
        raise InputFileError(
            f"{name}: record {index + 1} is {_JSON_TYPES.get(type(items[index]))}, but the "
            f"first is {_JSON_TYPES[first]}; write every record the same way"
        )
    raise InputFileError(
        f"{name} holds values (strings, numbers), not records (objects) or rows (arrays); the "
        f"gate reads {_SHAPES}; {_LEAVE_OUT}"
    )


def _first_other(items: list[Any], kind: type) -> int:
    """The position of the first item not of type ``kind`` (there is one)."""
    return next(i for i, item in enumerate(items) if type(item) is not kind)


def _split(document: dict[str, Any]) -> tuple[list[Any], list[Any]] | None:
    """The header and rows of pandas' split orientation, or None when it is not that."""
    columns, data = document.get("columns"), document.get("data")
    if not isinstance(columns, list) or not isinstance(data, list):
        return None
    if data and set(map(type, data)) != {list}:
        return None  # e.g. "data" holds records beside a list of column descriptions
    if set(map(type, columns)) - {str}:
        return None
    return columns, data


def _records_in(name: str, document: dict[str, Any], depth: int = 0) -> list[dict[str, Any]]:
    """The list of records an object wraps (see the module's docstring)."""
    lists = [key for key, value in document.items() if _is_records(value)]
    if len(lists) > 1:
        known = [key for key in lists if key.lower() in WRAPPERS]
        if len(known) != 1:
            raise InputFileError(
                f"{name}: {len(lists)} keys of its JSON object hold lists of records; the "
                'gate reads one table per file: put the table under "data", or publish '
                "one file per table"
            )
        lists = known
    if lists:
        return document[lists[0]]
    if any(value == [] and key.lower() in WRAPPERS for key, value in document.items()):
        raise InputFileError(f"{name} holds an empty list of records; there is nothing to check")
    objects = [value for value in document.values() if isinstance(value, dict)]
    if depth == 0 and len(objects) == 1:
        return _records_in(name, objects[0], depth + 1)
    if any(isinstance(value, list) and not value for value in document.values()):
        raise InputFileError(f"{name} holds an empty list of records; there is nothing to check")
    raise InputFileError(
        f"{name}: its JSON object holds no list of records (objects); the gate reads "
        f"{_SHAPES}; {_LEAVE_OUT}"
    )


def _is_records(value: object) -> bool:
    """Whether ``value`` is a non-empty list of objects."""
    return isinstance(value, list) and bool(value) and set(map(type, value)) == {dict}


def _table_of_records(
    name: str,
    records: list[dict[str, Any]],
    usecols: Sequence[str] | None,
    *,
    index: Sequence[str] = (),
) -> pd.DataFrame:
    """The ``usecols`` columns of a list of records; a key missing from a record is a missing
    value. Columns are in the order their names first appear; the ``index`` fields (row
    labels a writer added) are left out unless ``usecols`` names them."""
    header = list(dict.fromkeys(chain.from_iterable(records)))
    if usecols is None:
        header = [column for column in header if column not in index]
    if not header:
        raise InputFileError(f"{name}: its records hold no field; there is nothing to check")
    columns = select_columns(name, header, usecols)
    # objects: each value as parsed (a column of 2 and 2.0 would otherwise be floats)
    return categoricals(name, pd.DataFrame(records, columns=columns, dtype=object))


def _table_of_rows(
    name: str, header: list[Any], rows: list[Any], usecols: Sequence[str] | None, *, first: int
) -> pd.DataFrame:
    """The ``usecols`` columns of rows (arrays) under ``header``; ``first`` is the number of
    the first row in messages (2 when the header is row 1)."""
    wrong = set(map(type, rows)) - {list}
    if wrong:
        index = _first_other(rows, list)
        raise InputFileError(
            f"{name}: row {first + index} is {_JSON_TYPES.get(type(rows[index]))}, not an "
            "array like the header; write every row as an array"
        )
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    ragged = np.flatnonzero(lengths != len(header))
    if ragged.size:
        index = int(ragged[0])
        raise InputFileError(
            f"{name}: row {first + index} has {lengths[index]} values but the header has "
            f"{len(header)}; write every row with a value (or null) for each column"
        )
    columns = select_columns(name, header, usecols)
    if not rows:
        return pd.DataFrame(columns=columns)
    position = {column: i for i, column in enumerate(header)}
    values = list(map(itemgetter(*(position[c] for c in columns)), rows))
    if len(columns) == 1:
        frame = pd.DataFrame({columns[0]: values}, dtype=object)  # each value as parsed
    else:
        frame = pd.DataFrame(values, columns=columns, dtype=object)
    return categoricals(name, frame)


# -- Parquet --------------------------------------------------------------------------------


def read_parquet(
    name: str, source: str | IO[bytes], *, usecols: Sequence[str] | None = None
) -> pd.DataFrame:
    """The ``usecols`` columns (default: every column but pandas' unnamed index) of a Parquet
    file, only those read from it, as categoricals.

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
        Not a Parquet file (or a corrupt one), or a nested column (struct, list, map) kept.
    ColumnNotFoundError
        A ``usecols`` name not in the file's schema.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(source) as parquet:
            schema = parquet.schema_arrow
            header = [column for column in schema.names if not _PANDAS_INDEX.fullmatch(column)]
            columns = select_columns(name, header, usecols)
            for column in columns:
                if pa.types.is_nested(schema.field(column).type):
                    raise _nested_error(name, column)
            table = parquet.read(columns=columns)
    except (pa.ArrowException, OSError) as error:
        if isinstance(error, OSError) and error.errno is not None:
            raise InputFileError(f"{name} cannot be read: {error.strerror}") from None
        raise InputFileError(
            f"{name} is not a valid Parquet file (corrupt, truncated or of another format); "
            "export it again"
        ) from None
    return pd.DataFrame(
        {
            column: _arrow_categorical(chunked)
            for column, chunked in zip(table.column_names, table.columns)
        }
    )


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


# -- spreadsheets ---------------------------------------------------------------------------


def sheets(book: str, source: str | IO[bytes]) -> list[tuple[Sheet, str]]:
    """Each sheet of the workbook ``book``, with why it is skipped (``"an empty sheet"``), or
    ``""`` for a table.

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
    with _workbook(book, source) as workbook:
        for sheet in workbook.sheet_names:
            name = Sheet(book, str(sheet))
            empty = _blank(_read_sheet(name, workbook, sheet, _HEAD_ROWS)) and _blank(
                _read_sheet(name, workbook, sheet, None)
            )
            found.append((name, "an empty sheet" if empty else ""))
    return found


def read_sheet(
    name: str, source: str | IO[bytes], *, usecols: Sequence[str] | None = None
) -> pd.DataFrame:
    """The ``usecols`` columns (default: every named column) of a sheet, as categoricals.

    The header is the sheet's first row holding a value; rows with no value in any column are
    left out; an empty cell is a missing value, and a cell holding text (``"NA"``) is that text.
    A spreadsheet is read whole by its engine, then only the columns asked for are kept.

    Parameters
    ----------
    name : str
        A :class:`Sheet`, or a workbook's name (its first sheet is read).
    source : str or binary file
        The workbook's path or content.
    usecols : sequence of str, optional
        The columns to keep, in that order.

    Raises
    ------
    InputFileError
        The engine is not installed, the file is not a valid workbook, the sheet is empty or its
        header repeats a name.
    ColumnNotFoundError
        A ``usecols`` name not in the header.
    """
    book, sheet = (name.book, name.sheet) if isinstance(name, Sheet) else (name, 0)
    with _workbook(book, source) as workbook:
        raw = _read_sheet(name, workbook, sheet, None)
    filled = np.flatnonzero(raw.notna().to_numpy().any(axis=1))
    if not filled.size:
        raise InputFileError(f"{name} is an empty sheet; there is nothing to check")
    header = ["" if pd.isna(cell) else str(cell) for cell in raw.iloc[filled[0]]]
    columns = select_columns(name, header, usecols)
    position = {column: i for i, column in enumerate(header) if column}
    frame = raw.iloc[filled[1:], [position[c] for c in columns]].set_axis(columns, axis=1)
    return categoricals(name, frame.reset_index(drop=True))


@contextmanager
def _workbook(book: str, source: str | IO[bytes]) -> Iterator[pd.ExcelFile]:
    """The workbook open with the engine of its suffix; a missing engine or an invalid file
    is an InputFileError saying what to do."""
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


def _read_sheet(
    name: str, workbook: pd.ExcelFile, sheet: str | int, nrows: int | None
) -> pd.DataFrame:
    """A sheet's cells as read (no header, each cell its own type; only empty cells are
    missing); the engines' warnings about formatting they drop are silenced."""
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")
            if _parser_merges_cells():
                return _cells_kept_apart(workbook, sheet, nrows)
            return pd.read_excel(workbook, sheet_name=sheet, nrows=nrows, **_AS_READ)
    except Exception:  # each engine raises its own errors for cells it cannot parse
        raise InputFileError(
            f"{name} cannot be read as a sheet of cells (corrupt, or a chart sheet); save the "
            "workbook again from the spreadsheet program"
        ) from None


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
    if isinstance(sheet, str):
        found = reader.get_sheet_by_name(sheet)
    else:
        found = reader.get_sheet_by_index(sheet)
    rows = reader.get_sheet_data(found, None if nrows is None else nrows + 1)
    if hasattr(found, "close"):
        found.close()
    if not rows:
        return pd.DataFrame()
    wrapped = [[v if isinstance(v, str) else _Cell(v) for v in row] for row in rows]
    parsed = TextParser(wrapped, nrows=nrows, **_AS_READ).read(nrows=nrows)
    return parsed.map(lambda v: v.value if isinstance(v, _Cell) else v)


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
        "compare; flatten them into columns of their own (pandas.json_normalize), or name a "
        "QID without this column (--qid, or qid in the configuration)"
    )
