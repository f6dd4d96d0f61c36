"""Accounts for the formats still read by :mod:`pandas_anon.gate.formats`: Parquet and
spreadsheets.

A Parquet file's account is its own, from its metadata: a column chunk per column per row
group, index columns included. The columns pandas stores for an index
(``__index_level_0__``), which the reader leaves out, are left over by name, so a file whose
index holds data fails closed instead of passing unread. A sheet's account, until its own
reader counts the sheet's cells (the next step, in docs/check.md), is that of the table read:
the cells of its columns and rows and its header row.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pandas_anon.errors import InputFileError
from pandas_anon.gate import formats, io
from pandas_anon.gate.formats import Sheet
from pandas_anon.gate.parsers.account import Account, Leftover

#: What a Parquet file's values are counted as.
CHUNKS = "column chunks"


def read_parquet(name: str, usecols: Sequence[str] | None) -> tuple[pd.DataFrame, Account]:
    """The table :func:`pandas_anon.gate.formats.read_parquet` reads, and the account of the
    file's column chunks."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = io.seekable(name)
    frame = formats.read_parquet(name, source, usecols=usecols)
    if not isinstance(source, str):
        source.seek(0)
    try:
        with pq.ParquetFile(source) as parquet:
            groups, names = parquet.metadata.num_row_groups, parquet.schema_arrow.names
    except (pa.ArrowException, OSError):  # read above: cannot happen but on a race
        raise InputFileError(
            f"{name} cannot be read again; check that it is not being written"
        ) from None
    read = {(name, str(column)): groups for column in frame.columns}
    unread = tuple(
        Leftover(
            column,
            CHUNKS,
            groups,
            "an index pandas stored"
            if formats.PANDAS_INDEX.fullmatch(column)
            else "outside the columns asked for",
            declared=usecols is not None and not formats.PANDAS_INDEX.fullmatch(column),
        )
        for column in names
        if column not in frame.columns
    )
    return frame, Account(name, {CHUNKS: groups * len(names)}, read, unread)


def read_sheet(name: str, usecols: Sequence[str] | None) -> tuple[pd.DataFrame, Account]:
    """The table :func:`pandas_anon.gate.formats.read_sheet` reads, and its account (the
    table's own cells: see the module's docstring)."""
    book = name.book if isinstance(name, Sheet) else name
    frame = formats.read_sheet(name, io.seekable(book), usecols=usecols)
    rows = len(frame)
    read = {(name, "(column names)"): frame.shape[1]}
    read.update({(name, str(column)): rows for column in frame.columns})
    units = {"cells of the table read": rows * frame.shape[1], "column names": frame.shape[1]}
    return frame, Account(name, units, read)
