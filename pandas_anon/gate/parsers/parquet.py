"""Parquet, read with pyarrow, and the account of its column chunks.

A Parquet file's values are counted from its own metadata: a column chunk per leaf column per
row group (:data:`CHUNKS`). Each top-level column is read into the table, and its chunks with
it (a leaf column per chunk of each row group, counted from the column's type, apart from the
metadata): the columns pandas stores for an index are columns like any other, named
(``codice_fiscale``) or not (``__index_level_0__``), since an index holds data; only an
unnamed one holding exactly the row numbers ``0, 1, ...`` is checked and left out, as the
index ``to_csv`` writes is (a ``RangeIndex`` is stored as metadata only, and holds no chunk).
A nested column (struct, list, map) is not read: it is left over by name, and fails the file
unless a rule skips it. A column outside the configured QID is left out by that setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.gate import formats, io
from pandas_anon.gate.parsers.account import Account, Leftover
from pandas_anon.gate.parsers.delimited import ROW_NUMBERS

#: What a Parquet file's values are counted as.
CHUNKS = "column chunks"


def read(name: str, usecols: Sequence[str] | None) -> tuple[pd.DataFrame, Account]:
    """The ``usecols`` columns (default: every column that is not nested, index columns
    included) of the Parquet file ``name``, as categoricals of their values as read
    (:func:`pandas_anon.gate.formats.read_parquet`), and the account of its column chunks.

    Raises
    ------
    InputFileError
        Not a Parquet file, a corrupt one, one that repeats a column name, a nested column
        asked for, more cells than ``max_cells``.
    ColumnNotFoundError
        A ``usecols`` name not in the file.
    """
    import pyarrow as pa

    source = io.seekable(name)
    metadata = formats.parquet_metadata(name, source)
    schema = metadata.schema.to_arrow_schema()
    groups = metadata.num_row_groups
    units = {CHUNKS: sum(metadata.row_group(g).num_columns for g in range(groups))}
    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    asked = [f.name for f in schema if f.name not in nested] if usecols is None else list(usecols)
    frame = formats.read_parquet(name, source, usecols=asked)
    chunks = {f.name: groups * _leaves(f.type) for f in schema}
    read: dict[tuple[str, str], int] = {}
    numbers = [
        c
        for c in frame.columns
        if usecols is None and formats.PANDAS_INDEX.fullmatch(c) and _row_numbers(frame[c])
    ]
    if numbers:
        frame = frame.drop(columns=numbers)
        read[name, ROW_NUMBERS] = sum(chunks[c] for c in numbers)
    read.update({(name, str(c)): chunks[c] for c in frame.columns})
    unread = tuple(
        Leftover(
            f.name,
            CHUNKS,
            chunks[f.name],
            "outside the columns asked for"
            if usecols is not None
            else "a nested column (struct, list or map), not read: flatten it into columns",
            declared=usecols is not None,
        )
        for f in schema
        if f.name not in asked
    )
    return frame, Account(name, units, read, unread)


def _leaves(kind: Any) -> int:
    """The leaf columns (one chunk each per row group) Parquet stores an Arrow type in."""
    import pyarrow as pa

    if pa.types.is_struct(kind):
        return sum(_leaves(kind.field(i).type) for i in range(kind.num_fields))
    if pa.types.is_map(kind):
        return _leaves(kind.key_type) + _leaves(kind.item_type)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return _leaves(kind.value_type)
    return 1


def _row_numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds exactly the whole numbers ``0, 1, ...`` (not booleans)."""
    values = column.cat.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    if not pd.api.types.is_integer_dtype(values.dtype) or column.isna().any():
        return False
    return bool(np.array_equal(column.to_numpy(dtype=np.int64), np.arange(len(column))))
