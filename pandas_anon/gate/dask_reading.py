"""What ``pandas-anon check --engine dask`` reads: a table too large for one process, as a
Dask frame.

A FILE is then a Parquet file or a folder of them (``dd.read_parquet``), or delimited text,
one file or a glob of them such as ``'exports/*.csv'`` (``dd.read_csv``), plain or compressed
(``.gz``, ``.bz2``, ``.xz``: one partition per file). Delimited values are read as written,
as the pandas engine reads them (:func:`pandas_anon.gate.io.read_columns`): text, only an
empty cell missing, with the delimiter, encoding, title lines above the header and column
names of a file without a header row (``column 1``, ...) that the pandas engine detects
(:func:`pandas_anon.gate.io.csv_options`), on the first file of a glob (Dask reads blocks of
a file apart: every file of a glob is read as its first is).

Every other form the pandas engine reads (JSON, JSON Lines, spreadsheets, ``.zip``
archives, a compressed Parquet file) is refused, an :class:`InputFileError` naming the file
and saying to check it with the pandas engine: read as delimited text it would pass unread.
So is a table with a header but no row (:func:`require_rows`), as the pandas engine refuses
it. Nothing else is read until the check counts (:mod:`pandas_anon.engine.backends.dask`),
on the cluster of the running ``distributed`` client if any, else on Dask's local scheduler.

What one worker reads is bounded by the input limits (:mod:`pandas_anon.gate.limits`) in
force, checked here first (:func:`check_parts`): each Parquet file's cells (its rows, from
its metadata, times the columns read) against ``max_cells``, for a worker reads a file at a
time, at most; each compressed text file, a partition of its own, decompressed once here and
counted as the pandas engine counts it (``max_expanded_size``, ``max_ratio``,
``max_line_length``); each plain text file's lines against ``max_line_length`` (Dask cuts it
into blocks of :data:`BLOCK_SIZE` at line breaks).
"""

from __future__ import annotations

import bz2
import glob
import gzip
import io
import lzma
import os
from collections.abc import Callable, Sequence
from typing import Any

from pandas_anon.engine.backends import DASK_EXTRA
from pandas_anon.errors import InputFileError, MissingDependencyError
from pandas_anon.gate import limits as reading
from pandas_anon.gate.io import csv_options, no_rows, other_format

#: Bytes of delimited text per partition.
BLOCK_SIZE = "64MB"
#: Encodings whose text Dask may cut into blocks at a newline byte (ASCII-compatible ones).
_BLOCKS = ("utf-8", "utf-8-sig", "cp1252", "latin-1")


def read_dask(
    path: str,
    *,
    usecols: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    header: bool | None = None,
) -> Any:
    """``path`` as a lazy Dask frame of the ``usecols`` columns (default: all), ``header``
    saying whether delimited text has a header row (None: detected); an
    :class:`InputFileError` naming the path when Dask cannot open it or it is a form Dask
    does not read (never quoting a value)."""
    try:
        import dask.dataframe as dd
    except ImportError as error:
        raise MissingDependencyError(
            f"--engine dask needs dask[dataframe]: {DASK_EXTRA} ({error})"
        ) from None
    columns = list(usecols) if usecols is not None else None
    try:
        if os.path.isdir(path) or other_format(path) == "Parquet" and _plain(path):
            _check_parquet(path, columns)
            return dd.read_parquet(path, columns=columns)
        files = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
        if not files:
            raise FileNotFoundError(path)
        for file in files:
            _check_form(path, file)
        options = csv_options(files[0], sep=sep, encoding=encoding, header=header)
        for file in files:
            _check_text(path, file, options["compression"])
        blocked = options["compression"] is None and options["encoding"] in _BLOCKS
        return dd.read_csv(
            files if glob.has_magic(path) else path,
            usecols=columns,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            blocksize=BLOCK_SIZE if blocked else None,
            **options,
        )
    except (OSError, EOFError, lzma.LZMAError, ValueError, KeyError, TypeError) as error:
        raise InputFileError(
            f"{path}: Dask cannot read it ({type(error).__name__}): give a Parquet file or "
            f"folder, or delimited text files (a glob such as 'data/*.csv'), with the columns "
            f"named"
        ) from None


def _check_parquet(path: str, columns: Sequence[str] | None) -> None:
    """Refuse the Parquet file or folder ``path`` when one of its files holds more cells
    (rows times the ``columns`` read, default all) than ``max_cells``: a worker holds a file
    at a time, at most. Only the files' metadata is read."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    for file in ds.dataset(path, format="parquet").files:
        with pq.ParquetFile(file) as parquet:
            metadata = parquet.metadata
        width = metadata.num_columns if columns is None else len(columns)
        where = file if file == path else f"{path}: {file}"
        reading.check_cells(
            where,
            metadata.num_rows * width,
            "max_cells",
            where=f" ({metadata.num_rows:,} rows of {width:,} column{'s' if width > 1 else ''} read)",
            columns=True,
        )


#: The reader of each compression Dask reads (a partition per file).
_OPENERS: dict[object, Callable[[str], io.BufferedIOBase]] = {
    "gzip": gzip.GzipFile,
    "bz2": bz2.BZ2File,
    "xz": lzma.LZMAFile,
}


def _check_text(path: str, file: str, compression: object) -> None:
    """Refuse the delimited text ``file`` (of ``path``) when it is past the limits the
    pandas engine reads it within: a plain file's lines are checked
    (:func:`~pandas_anon.gate.limits.check_lines`, a block read per line's length); a
    compressed one is decompressed once, its bytes counted as they come (it would be one
    partition, held whole by a worker)."""
    name = file if file == path else f"{path}: {file}"
    if compression is None:
        reading.check_lines(name, file)
        return
    limit = reading.bound(os.path.getsize(file), document=False)
    with _OPENERS[compression](file) as raw:
        stream = reading.BoundedStream(raw, name, limit, reading.current().max_line_length)
        while stream.read(_CHUNK):
            pass


#: Bytes decompressed at a time to count a compressed file.
_CHUNK = 1 << 20


def _plain(path: str) -> bool:
    """Whether ``path`` names a Parquet file as it is, not compressed as a whole."""
    return path.lower().endswith(".parquet")


def _check_form(path: str, file: str) -> None:
    """Refuse a ``file`` (of the glob ``path``) that Dask would read as delimited text but is
    not."""
    form = other_format(file)
    if form is None:
        return
    if form == "Parquet":  # a plain Parquet file is read as such, but not in a glob of text
        form = "Parquet" if _plain(file) else "Parquet compressed as a whole"
    where = file if file == path else f"{path}: {file}"
    raise InputFileError(
        f"{where} is {form}: --engine dask reads Parquet files or folders and delimited "
        "text (plain, .gz, .bz2 or .xz); check it with the pandas engine (drop --engine dask, "
        'or engine = "pandas" in a rule for it)'
    )


def require_rows(frame: Any, path: str) -> None:
    """Refuse a Dask frame without a row, as the pandas engine refuses an empty table.

    The first partition's first row is read; only when it has none are the partitions
    counted (a glob whose first file holds only a header)."""
    if len(frame.head(1, npartitions=1, compute=True)) == 0 and len(frame) == 0:
        raise no_rows(path)
