"""Read delimited text (CSV, TSV, any delimiter, plain or compressed) into a table, with
the account of every cell.

Detection (compression, encoding, delimiter, title lines above the header, a missing header
row) is :mod:`pandas_anon.gate.io`'s, on a bounded sample of the start of the file; the file
is then read by pyarrow's multi-threaded CSV parser with explicit options (the delimiter,
encoding, lines to skip, the column names when the file's own are not used, every value
text, only an empty field missing), or, when pyarrow rejects it, by pandas' C parser, which
then says what is wrong and where.

Every field of every row is a value. Both parsers refuse a row with more fields than the
header (so a row never holds a value outside a column); a row with fewer fields has the
rest missing. The account of a file of ``r`` rows under a header of ``c`` names is then
``r x c`` cells, each read into its column, plus the ``c`` column names; the title lines
above them are text outside the table, counted in characters. A header cell left empty
names its column by position (``column 3``), as the columns of a file without a header are
named: such a column is read like any other (pandas names it ``Unnamed: 2`` and most
readers drop it), unless it holds exactly the row numbers ``0, 1, ...`` that
``DataFrame.to_csv`` writes as its index, which are read, checked to be those, and left out
of the table. The columns outside those asked for (``usecols``; the gate asks for every
column) are left over as declared (:class:`~.account.Leftover`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from pandas_anon.engine.parallel import thread_map
from pandas_anon.errors import InputFileError
from pandas_anon.gate.io import arrow_columns, inspect_records, io_errors, parse_layout
from pandas_anon.gate.parsers.account import CHARACTERS, Account, Leftover

#: What the values are called in an account.
CELLS = "cells"
#: Where the names of a header row go in an account.
NAMES = "(column names)"
#: Where the title lines above a header go in an account.
TITLES = "(title lines)"
#: Where a column of row numbers goes in an account.
ROW_NUMBERS = "(row numbers)"


def read(
    path: str | os.PathLike[str],
    *,
    usecols: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    header: bool | None = None,
) -> tuple[pd.DataFrame, Account]:
    """Read columns of the delimited text ``path`` as categoricals of their values as
    written, fast, and the account of its cells.

    Only the ``usecols`` columns (default: every column) are kept, and pyarrow's
    multi-threaded parser reads the file in blocks, dictionary-encoding each column as it
    goes: memory grows by about 4 bytes per cell kept plus each column's distinct values,
    not with the size of the file. A column whose values are nearly all distinct in the
    file's first rows (:data:`PLAIN_SHARE` of at least :data:`PLAIN_MIN_ROWS`), such as a
    record number, is kept as Arrow-backed text (``string[pyarrow]``) instead: encoding
    millions of distinct values costs more than reading the file, and such a column is
    usually a direct identifier, found without encoding it
    (:func:`pandas_anon.engine.encoding.value_sizes`). ``sep``, ``encoding`` and ``header``
    override detection, as for :func:`pandas_anon.gate.io.read_table`.

    Raises
    ------
    InputFileError
        What :func:`pandas_anon.gate.io.read_table` raises for an unusable file.
    ColumnNotFoundError
        A ``usecols`` name not in the header.
    """
    layout, records = inspect_records(path, usecols, sep, encoding, header)
    names = list(layout.header)
    columns = names if usecols is None else list(dict.fromkeys(usecols))
    if not columns:  # pyarrow would read every column
        raise InputFileError(f"{layout.name}: the header names no column; add a header row")
    plain = _nearly_distinct(records[1:] if layout.named else records, names, columns)
    with io_errors(layout.name, layout.compression, layout.encoding):
        try:
            frame = _frame_of(arrow_columns(layout, columns, plain))
        except (pa.ArrowInvalid, pa.ArrowKeyError):  # its message may quote the row: never shown
            frame = parse_layout(layout, True)
            if not set(columns) <= set(frame.columns):  # the sample's header is not the file's
                raise InputFileError(
                    f"{layout.name}: its first line is a header of no name (an empty quoted "
                    "field), which the parsers read differently; write the column's name, or "
                    "pass --no-header"
                ) from None
            frame = frame[columns].astype("category")
    rows, name = len(frame), layout.name
    read: dict[tuple[str, str], int] = {}
    units = {CELLS: rows * len(names)}
    if layout.named:
        units["column names"] = read[name, NAMES] = len(names)
    positional = [c for c, own in zip(names, records[0][1]) if not own] if layout.renamed else []
    numbers = [c for c in positional if usecols is None and _row_numbers(frame[c])]
    if numbers:
        frame = frame.drop(columns=numbers)
        read[name, ROW_NUMBERS] = rows * len(numbers)
    read.update({(name, str(c)): rows for c in frame.columns})
    unread = [
        Leftover(str(c), CELLS, rows, "outside the columns asked for", declared=True)
        for c in names
        if c not in columns
    ]
    if layout.titles:
        reason = f"{layout.titles} title line{'s' if layout.titles > 1 else ''} above the header"
        unread.append(Leftover(TITLES, CHARACTERS, layout.title_characters, reason, text=True))
    return frame, Account(name, units, read, tuple(unread))


def _row_numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds exactly the row numbers ``0, 1, ...`` as ``to_csv`` writes
    them."""
    written = np.arange(len(column)).astype(str).astype(object)
    return bool(np.array_equal(column.astype(object).to_numpy(), written))


#: A column is read as plain text (not dictionary-encoded) when at least this share of the
#: sample's values are distinct, over at least :data:`PLAIN_MIN_ROWS` rows.
PLAIN_SHARE = 0.99
PLAIN_MIN_ROWS = 500


def _nearly_distinct(
    records: list[tuple[int, list[str]]], header: list[str], columns: list[str]
) -> set[str]:
    """The ``columns`` whose values are nearly all distinct in the sample's rows ``records``."""
    rows = [row for _, row in records]
    if len(rows) < PLAIN_MIN_ROWS:
        return set()
    plain = set()
    for position, name in enumerate(header):
        if name in columns:
            values = [row[position] for row in rows if position < len(row)]
            if len(set(values)) >= PLAIN_SHARE * len(rows):
                plain.add(name)
    return plain


def _frame_of(table: pa.Table) -> pd.DataFrame:
    """The columns of ``table``: dictionary-encoded ones as pandas categoricals, text ones as
    Arrow-backed strings (no copy).

    Each column's chunks are unified into one dictionary and turned into codes on its own,
    and the Arrow column is let go as soon as it is converted: memory holds the table and a
    column or two in flight, never the table twice (unifying every column first would). The
    caller must keep no reference to ``table``.

    pyarrow's own conversion checks again that each dictionary holds no value twice (pandas
    hashes every category): on a column of millions of distinct values, such as a record
    number, that check costs more than reading the file. A dictionary built by pyarrow's
    reader and unified across blocks never repeats a value, so the check is skipped.
    """
    names, rows = table.column_names, table.num_rows
    pending: list[pa.ChunkedArray | None] = list(table.columns)
    del table

    def convert(position: int) -> pd.api.extensions.ExtensionArray:
        chunked = pending[position]
        pending[position] = None  # the table's column, freed once converted
        assert chunked is not None
        if pa.types.is_string(chunked.type):
            return pd.arrays.ArrowStringArray(chunked)
        return _categorical(chunked.unify_dictionaries())

    columns = thread_map(convert, range(len(names)), rows=rows)
    frame = pd.DataFrame(dict(zip(names, columns)))
    pa.default_memory_pool().release_unused()  # the dictionaries' pages, copied out above
    return frame


def _categorical(chunked: pa.ChunkedArray) -> pd.Categorical:
    """One unified dictionary column as a categorical (``-1`` codes for nulls), its codes
    written chunk by chunk straight into the integer type pandas keeps them in."""
    chunks = [_dictionary_array(chunk) for chunk in chunked.chunks]
    if not chunks:
        return pd.Categorical([], categories=pd.Index([], dtype=object))
    categories = pd.Index(chunks[0].dictionary.to_pandas())
    codes = np.empty(len(chunked), dtype=_code_dtype(len(categories)))
    position = 0
    for chunk in chunks:
        codes[position : position + len(chunk)] = chunk.indices.fill_null(-1).to_numpy()
        position += len(chunk)
    fastpath = getattr(pd.CategoricalDtype, "_from_fastpath", None)  # private: may go away
    dtype = pd.CategoricalDtype(categories) if fastpath is None else fastpath(categories, False)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _code_dtype(n_categories: int) -> type[np.signedinteger]:
    """The integer type pandas stores the codes of ``n_categories`` categories in (so that
    it keeps them without a copy)."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_categories < np.iinfo(dtype).max:
            return dtype
    return np.int64


def _dictionary_array(chunk: pa.Array) -> pa.DictionaryArray:
    """A chunk of a column :func:`arrow_columns` asked pyarrow to dictionary-encode."""
    if not isinstance(chunk, pa.DictionaryArray):
        raise TypeError(f"pyarrow read a column as {chunk.type}, not dictionary-encoded")
    return chunk
