"""What ``pandas-anon check --engine dask`` reads: a table too large for one process, as a
Dask frame.

A FILE is then a Parquet file or a folder of them (``dd.read_parquet``), or delimited text,
one file or a glob of them such as ``'exports/*.csv'`` (``dd.read_csv``). Delimited values
are read as written, as the pandas engine reads them (:func:`pandas_anon.gate.io.read_columns`):
text, only an empty cell missing; the delimiter is ``,`` unless the settings give one (the
pandas engine sniffs it, Dask reads blocks of the file independently). Nothing is read until
the check counts (:mod:`pandas_anon.engine.backends.dask`), on the cluster of the running
``distributed`` client if any, else on Dask's local scheduler.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pandas_anon.engine.backends import DASK_EXTRA
from pandas_anon.errors import InputFileError, MissingDependencyError

#: Bytes of delimited text per partition.
BLOCK_SIZE = "64MB"


def read_dask(
    path: str,
    *,
    usecols: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
) -> Any:
    """``path`` as a lazy Dask frame of the ``usecols`` columns (default: all); an
    :class:`InputFileError` naming the path when Dask cannot open it (never quoting a value)."""
    try:
        import dask.dataframe as dd
    except ImportError as error:
        raise MissingDependencyError(
            f"--engine dask needs dask[dataframe]: {DASK_EXTRA} ({error})"
        ) from None
    columns = list(usecols) if usecols is not None else None
    try:
        if path.lower().endswith(".parquet") or os.path.isdir(path):
            return dd.read_parquet(path, columns=columns)
        return dd.read_csv(
            path,
            usecols=columns,
            sep=sep or ",",
            encoding=encoding or "utf-8",
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            blocksize=BLOCK_SIZE,
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputFileError(
            f"{path}: Dask cannot read it ({type(error).__name__}): give a Parquet file or "
            f"folder, or delimited text files (a glob such as 'data/*.csv'), with the columns "
            f"named"
        ) from None
