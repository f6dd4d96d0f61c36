"""What ``pandas-anon check --engine dask`` reads: a table too large for one process, as a
Dask frame, read only where the verdict is the pandas engine's.

A FILE is then a Parquet file or a folder of them (``dd.read_parquet``), or delimited text,
one file or a glob of them such as ``'exports/*.csv'`` (``dd.read_csv``), plain or compressed
(``.gz``, ``.bz2``, ``.xz``: one partition per file). Dask reads in partitions what the
pandas engine's reading layer (:mod:`pandas_anon.gate.parsers`) reads whole, so each file is
first examined by that layer (:func:`_check_form`): its format told from its content
(:func:`~pandas_anon.gate.parsers.sniff`), the one table it holds
(:func:`~pandas_anon.gate.io.tables_in`: not an archive, a workbook or a ``.txt`` of prose),
and the layout of its start (:func:`~pandas_anon.gate.io.inspect_records`: delimiter,
encoding, title lines above the header, the column names of a file without a header row),
the same for every file of a glob (Dask reads every file as its first). Delimited values are
then read as written, as the pandas engine reads them: text, only an empty cell missing,
every field of every row parsed (the columns are selected after, so that a row longer than
the header is an error, as the pandas engine's) and a file holding a quote character read
whole (Dask cuts a file into blocks at line breaks, which a quoted value may hold).

A Parquet file is accounted for as the pandas engine accounts for it
(:mod:`pandas_anon.gate.parsers.parquet`), Dask given every file of a folder by name
(:func:`_check_parquet`): Dask reads a file whose name starts with ``_`` or ``.`` as the
others, but as the first file, dropping a column the first lacks, so every file of a folder
must have the first file's columns, of its types; a file of a folder that is not Parquet
(notes, checksums, the summary ``_metadata``) is left over by name, unless empty (a
``_SUCCESS`` mark). Each file's footer is read as the pandas engine reads it (text past the
budget, bloom filters, a page index, bytes outside its structure fail it, unless a rule skips
them by name), and each file is read once more as the pandas engine reads it, as Dask tasks,
before Dask's own reading: values its dictionaries or statistics store that no row holds
fail it too (:func:`_check_held`).

Every other form (JSON, JSON Lines, spreadsheets, ``.zip`` archives, a compressed Parquet
file, a Parquet file storing a pandas index, delimited text with an empty header cell, which
the pandas engine reads as a column or, holding row numbers, leaves out) is refused: an
:class:`InputFileError` naming the file and saying to check it with the pandas engine. So is
a table with a header but no row (:func:`require_rows`), as the pandas engine refuses it.
Nothing else is read until the check counts (:mod:`pandas_anon.engine.backends.dask`), on the
cluster of the running ``distributed`` client if any, else on Dask's local scheduler.

What one worker reads is bounded by the input limits (:mod:`pandas_anon.gate.limits`) in
force, checked here first (:func:`read_dask`): each Parquet file's cells (its rows, from
its metadata, times the columns read) against ``max_cells``, for a worker reads a file at a
time, at most; each compressed text file, a partition of its own, decompressed once here and
counted as the pandas engine counts it (``max_expanded_size``, ``max_ratio``,
``max_line_length``); each plain text file's lines against ``max_line_length`` (Dask cuts it
into blocks of :data:`BLOCK_SIZE` at line breaks).
"""

from __future__ import annotations

import glob
import lzma
import mmap
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from pandas_anon.engine.backends import DASK_EXTRA
from pandas_anon.errors import InputFileError, MissingDependencyError
from pandas_anon.gate import formats
from pandas_anon.gate import limits as reading
from pandas_anon.gate.io import (
    TableEntry,
    csv_options,
    decompressing,
    inspect_records,
    no_rows,
    tables_in,
)
from pandas_anon.gate.parsers import parquet, sniff
from pandas_anon.gate.parsers.account import CHARACTERS, Account, Leftover, unread_error
from pandas_anon.gate.parsers.parquet import BYTES

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
    skipped: Callable[[str], bool] = lambda part: False,
) -> Any:
    """``path`` as a lazy Dask frame of the ``usecols`` columns (default: all), ``header``
    saying whether delimited text has a header row (None: detected); an
    :class:`InputFileError` naming the path when Dask cannot open it or it is a form Dask
    does not read (never quoting a value), or when a Parquet file's account leaves a part
    unread that ``skipped`` (given ``file:part``, as a rule names it) does not skip."""
    try:
        import dask.dataframe as dd
    except ImportError as error:
        raise MissingDependencyError(
            f"--engine dask needs dask[dataframe]: {DASK_EXTRA} ({error})"
        ) from None
    columns = list(usecols) if usecols is not None else None
    try:
        if os.path.isdir(path) or _parquet(path):
            files = _check_parquet(path, columns, skipped)
            _check_held(files, skipped)
            return dd.read_parquet(files, columns=columns, index=False)
        files = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
        if not files:
            raise FileNotFoundError(path)
        layout = None
        for file in files:
            layout = _check_form(path, file, layout, sep, encoding, header)
        options = csv_options(files[0], sep=sep, encoding=encoding, header=header)
        for file in files:
            _check_text(path, file, options["compression"])
        blocked = (
            options["compression"] is None
            and options["encoding"] in _BLOCKS
            and not any(map(_has_quotes, files))
        )
        frame = dd.read_csv(
            files if glob.has_magic(path) else path,
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
    # every field parsed, then the columns selected: given usecols, pandas' parser would
    # drop the fields of a row longer than the header, which the pandas engine refuses
    return frame if columns is None else frame[columns]


def _parquet(path: str) -> bool:
    """Whether ``path`` names one Parquet file as it is, not compressed as a whole (its own
    first bytes are Parquet's)."""
    if glob.has_magic(path) or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(4) == b"PAR1"


def _check_parquet(
    path: str, columns: Sequence[str] | None, skipped: Callable[[str], bool]
) -> list[str]:
    """The Parquet files of ``path`` (a file, or every file of a folder and its subfolders),
    for Dask to read them all, each checked from its footer alone.

    Refused: a file of the folder that is not Parquet (a summary Dask or Spark writes,
    ``_metadata``, a checksum, notes), unless empty (a ``_SUCCESS`` mark) or skipped by a
    rule (``folder:name``); a file whose columns differ from the first file's (Dask reads
    every file as the first, dropping a column the first lacks); a file storing a pandas
    index; a file holding more cells (rows times the ``columns`` read, default all) than
    ``max_cells`` (a worker holds a file at a time, at most); a file whose footer holds more
    than the table (:func:`~pandas_anon.gate.parsers.parquet.footer_parts`: text past the
    budget, a bloom filter, a page index, bytes outside the structure) that no rule skips.
    The names of subfolders that are not partitions (``key=value``, a column Dask reads)
    count as text outside the table of the folder.
    """
    import pyarrow.parquet as pq

    found = [path]
    unread = []
    if os.path.isdir(path):
        found = []
        for root, folders, names in os.walk(path):
            folders.sort()
            found += sorted(os.path.join(root, name) for name in names)
            for folder in folders:
                if not _PARTITION.fullmatch(folder):
                    unread.append(_folder_part(os.path.relpath(os.path.join(root, folder), path)))
    files = []
    for file in found:
        size = os.path.getsize(file)
        if not size:
            continue  # holds nothing
        if os.path.basename(file) in _SUMMARIES or not _parquet(file):
            unread.append(_file_part(os.path.relpath(file, path), size))
        else:
            files.append(file)
    _raise_unread(parquet.unread_account(path, unread), skipped)
    first: dict[str, Any] | None = None
    for file in files:
        with pq.ParquetFile(file) as opened:
            metadata, schema = opened.metadata, opened.schema_arrow
        stored = schema.pandas_metadata or {}
        where = file if file == path else f"{path}: {file}"
        if any(isinstance(index, str) for index in stored.get("index_columns", ())):
            raise _refused(where, "a Parquet file storing a pandas index")
        kinds = {field.name: field.type for field in schema}
        first = kinds if first is None else first
        if kinds != first:
            column = next(c for c in [*first, *kinds] if first.get(c) != kinds.get(c))
            raise InputFileError(
                f"{where}: column {column!r} is not in every file of the folder, or of "
                f"another type in {files[0]}; Dask reads every file as the first, so that "
                "a column the first lacks is not read: put files of one schema in a "
                "folder, or check each file with the pandas engine"
            )
        width = metadata.num_columns if columns is None else len(columns)
        reading.check_cells(
            where,
            metadata.num_rows * width,
            "max_cells",
            where=f" ({metadata.num_rows:,} rows of {width:,} column{'s' if width > 1 else ''} read)",
        )
        parts = parquet.footer_parts(file, file, metadata, columns or schema.names)
        _raise_unread(parquet.unread_account(file, parts), skipped)
    return files


#: A subfolder Dask reads as the value of a column (hive partitioning: ``year=2024``).
_PARTITION = re.compile(r"[^=]+=[^=]*")
#: Files of a folder of Parquet files that summarize the others' footers (Dask, Spark).
_SUMMARIES = frozenset({"_metadata", "_common_metadata"})


def _file_part(name: str, size: int) -> Leftover:
    """A file of a folder of Parquet files Dask is not given (not Parquet, or a summary)."""
    return Leftover(
        name,
        BYTES,
        size,
        "a file of the folder that is not one of its Parquet tables (notes, checksums, a "
        "summary of the tables' footers such as _metadata): move it out of the folder",
    )


def _folder_part(name: str) -> Leftover:
    """The name of a subfolder that Dask does not read as a partition."""
    return Leftover(
        f"(folder {name})",
        CHARACTERS,
        len(os.path.basename(name)),
        "the name of a subfolder, not a partition (key=value) read as a column",
        text=True,
    )


def _raise_unread(account: Account, skipped: Callable[[str], bool]) -> None:
    """Raise the error of an ``account`` that leaves a part unread that no rule skips."""
    error = unread_error(account, skipped)
    if error is not None:
        raise error


def _check_held(files: Sequence[str], skipped: Callable[[str], bool]) -> None:
    """Read every one of the Parquet ``files`` as the pandas engine reads it, once, as Dask
    tasks (on the cluster of the running client, if any), under the input limits in force,
    to count the values its column chunks store that no row holds (dictionary values,
    statistics: :func:`_held`): a file holding one that no rule skips is refused."""
    import dask
    import pyarrow.parquet as pq

    limits = reading.current()
    checks = []
    for file in files:
        every = dict.fromkeys(pq.read_schema(file).names, 1)
        skip = frozenset(
            part.name for part in parquet.held_parts(every, every) if skipped(f"{file}:{part.name}")
        )
        checks.append(dask.delayed(_held)(file, os.path.abspath(file), limits, skip))
    dask.compute(*checks)


def _held(file: str, path: str, limits: reading.InputLimits, skip: frozenset[str]) -> None:
    """Refuse the Parquet ``file`` (at ``path``, absolute: a worker of a cluster runs in a
    folder of its own) when its column chunks store values no row holds
    (:func:`~pandas_anon.gate.parsers.parquet.held_parts`) but for the parts ``skip``."""
    with reading.applied(limits):
        _, unused, stray = formats.read_parquet(file, path)
    parts = [part for part in parquet.held_parts(unused, stray) if part.name not in skip]
    _raise_unread(parquet.unread_account(file, parts), lambda part: False)


def _check_text(path: str, file: str, compression: object) -> None:
    """Refuse the delimited text ``file`` (of ``path``) when it is past the limits the
    pandas engine reads it within: a plain file's lines are checked
    (:func:`~pandas_anon.gate.limits.check_lines`, a block read per line's length); a
    compressed one is decompressed once, its bytes counted as they come (it would be one
    partition, held whole by a worker), through the pandas engine's stream reader, so that
    bytes after the last stream or a long gzip comment fail it as they fail that engine."""
    name = file if file == path else f"{path}: {file}"
    if compression is None:
        reading.check_lines(name, file)
        return
    limit = reading.bound(os.path.getsize(file), document=False)
    with open(file, "rb") as compressed, decompressing(name, str(compression), compressed) as raw:
        stream = reading.BoundedStream(raw, name, limit, reading.current().max_line_length)
        while stream.read(_CHUNK):
            pass


#: Bytes decompressed at a time to count a compressed file.
_CHUNK = 1 << 20


def _check_form(
    path: str,
    file: str,
    first: Any,
    sep: str | None,
    encoding: str | None,
    header: bool | None,
) -> Any:
    """Refuse a ``file`` (of the glob ``path``) that Dask would not read as the pandas
    engine reads it: not one table of delimited text (:func:`~pandas_anon.gate.parsers.sniff`,
    :func:`~pandas_anon.gate.io.tables_in`), or delimited text with an empty header cell, or
    laid out otherwise than the ``first`` file of the glob (None for the first). Its layout
    (``inspect_records``) is returned: the next file's ``first``."""
    where = file if file == path else f"{path}: {file}"
    if tables_in(file, sep=sep, encoding=encoding) != [TableEntry(file)]:
        raise _refused(where, "an archive, a workbook or prose, not one table")
    form = sniff(file)
    if form != "delimited":
        names = {"json": "JSON", "jsonl": "JSON Lines", "spreadsheet": "a spreadsheet"}
        raise _refused(where, names.get(form, "Parquet compressed as a whole or in a glob"))
    layout, _ = inspect_records(file, None, sep, encoding, header)
    if layout.renamed:
        raise _refused(where, "delimited text with an empty header cell")
    if layout.titles:  # text outside the table, which the pandas engine accounts for
        raise _refused(where, "delimited text with title lines above its header")
    if first is not None and (layout.sep, layout.encoding, layout.compression, layout.skip) != (
        first.sep,
        first.encoding,
        first.compression,
        first.skip,
    ):
        raise _refused(where, "laid out otherwise than the first file of the glob")
    if first is not None and (layout.header, layout.named) != (first.header, first.named):
        raise _refused(where, "headed otherwise than the first file of the glob")
    return layout


def _refused(where: str, form: str) -> InputFileError:
    """The error for a file Dask would not read as the pandas engine reads it."""
    return InputFileError(
        f"{where} is {form}: --engine dask reads Parquet files or folders and delimited "
        "text (plain, .gz, .bz2 or .xz) with a header of names; check it with the pandas "
        'engine (--engine pandas, or engine = "pandas" in a rule for it)'
    )


def _has_quotes(file: str) -> bool:
    """Whether the plain ``file`` holds a quote character, so maybe a line break inside a
    value, read at the speed of a memory scan."""
    with open(file, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return False
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as content:
            return content.find(b'"') >= 0


def require_rows(frame: Any, path: str) -> None:
    """Refuse a Dask frame without a row, as the pandas engine refuses an empty table.

    The first partition's first row is read; only when it has none are the partitions
    counted (a glob whose first file holds only a header)."""
    if len(frame.head(1, npartitions=1, compute=True)) == 0 and len(frame) == 0:
        raise no_rows(path)
