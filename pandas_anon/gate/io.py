"""Read a delimited text file named on the command line into a DataFrame, or say why not.

:func:`read_table` detects the compression (from the file name), the encoding and the
delimiter on a bounded sample of the start of the file, then lets pandas' C parser stream the
whole file; :func:`read_columns` streams only the columns asked for through pyarrow instead,
for large files. :func:`tables_in` says which tables a file named on the command line holds:
itself, each table of a ``.zip`` (named ``archive.zip:member.csv``, a :class:`ZipMember`,
which both readers open; archives inside archives too), each sheet of a workbook (``book.xlsx:Sheet1``, a
:class:`~pandas_anon.gate.formats.Sheet`), or none (a ``.txt`` of prose). :func:`read_columns`
also reads JSON, JSON Lines, Parquet and spreadsheets: it opens them here and
:mod:`pandas_anon.gate.formats` parses them. Every way a file can be unusable becomes an
:class:`~pandas_anon.errors.InputFileError` whose one-line message names the file, says what
is wrong and how to fix it. Messages may quote header names but never cell values:
they can end up in public CI logs. Every stream is read within the limits of
:mod:`pandas_anon.gate.limits` (expanded size, compression ratio, document size, longest
line): past one, reading stops with such an error, naming the option that raises the limit.

The gate fails closed: whatever it is handed is read as a table unless it is a folder or a
``.txt`` of prose (:func:`tables_in`), also inside archives, and what cannot be read is an
error. Detection stays the standard library's, extended (title lines above the header, a
space delimiter, one-column files, a missing header row: :func:`_headerless`), rather than
a library's: ``clevercsv`` (MIT) found the same delimiters on the gate's cases but took
0.3 s on 64 KiB and 5 s on the 1 MiB sample (``csv.Sniffer`` plus field counts: 0.02 s),
pulls in ``chardet`` and ``regex``, and finds no header below a title either;
``charset-normalizer`` (MIT) named an Italian cp1252 file ``mac_roman``. The fixed order
UTF-8, cp1252, Latin-1 (BOMs honoured) never fails to decode and maps distinct bytes to
distinct text, so a wrong guess cannot merge two values; the gate's safety comes from
refusing what it cannot read, not from better guesses.

:func:`write_table` writes a table in the form :func:`text_form` found in another (delimiter,
encoding, line ending), all at once or not at all (:class:`~pandas_anon.errors.OutputFileError`);
:func:`read_hierarchy` reads a hierarchy file named on the command line.
"""

from __future__ import annotations

import codecs
import csv
import io
import lzma
import os
import re
import secrets
import shutil
import stat
import tarfile
import tempfile
import warnings
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import PurePath
from typing import IO, TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

from pandas_anon.errors import (
    AnonWarning,
    ColumnNotFoundError,
    HierarchyError,
    InputFileError,
    warn,
)
from pandas_anon.gate import formats, limits
from pandas_anon.gate.formats import Sheet
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.params import output_file, writing

if TYPE_CHECKING:
    from pandas_anon.gate.parsers.containers import Part

#: Bytes (after decompression) read from the start of the file to detect encoding and delimiter.
SAMPLE_BYTES = 1 << 20
#: Lines of the sample used to sniff the delimiter and check the first rows.
_SNIFF_LINES = 1000
_DELIMITERS = (",", ";", "\t", "|")
#: Split on when no delimiter above gives every record the same fields, but it does
#: (a table exported with spaces); never guessed from a majority of records.
_SPACE = " "
#: Leading records that may be titles above the header (``Patenti 2024``, a source line).
_TITLE_LINES = 10
#: Archives inside archives read, counting the one named on the command line.
MAX_ZIP_DEPTH = 4
_ENCODINGS = ("utf-8", "cp1252", "latin-1")  # latin-1 decodes any byte: the last resort
#: How a file's bytes are held, as pandas names it: a compressed stream, a zip archive (a
#: single file's, or the one holding a member), the tar archive holding a member.
Compression = Literal["gzip", "bz2", "xz", "zstd", "zip", "tar"]
#: The compressions written, by the output's suffix.
_COMPRESSIONS: dict[str, Compression] = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
#: Suffixes of compressed names, set aside to find the table's own suffix.
_COMPRESSED_SUFFIXES = (*_COMPRESSIONS, ".zst")


def _zstd_open(source: io.RawIOBase) -> Any:
    """A Zstandard stream (a binary file) decompressed by pyarrow's codec."""
    return pa.CompressedInputStream(pa.PythonFile(source, mode="r"), "zstd")


@contextmanager
def decompressing(name: str, compression: str, raw: Any) -> Iterator[Any]:
    """The decompressed bytes of ``raw`` (the file ``name``'s, or an archive member's), every
    byte of it in a stream read (:class:`~pandas_anon.gate.parsers.containers.Streams`; a
    Zstandard file's frames followed by
    :class:`~pandas_anon.gate.parsers.containers.ZstdFrames` as pyarrow's codec reads them):
    any other fails reading it, as an InputFileError naming the part."""
    from pandas_anon.gate.parsers import containers

    if compression == "zstd":
        with containers.ZstdFrames(raw, name) as frames, _zstd_open(frames) as handle:
            yield handle
        return
    with containers.Streams(raw, name, compression) as handle:
        yield handle


#: Leading bytes of the compressed streams read, and their compression (bz2's are
#: :data:`_BZ2`).
_COMPRESSION_MAGIC: dict[bytes, Compression] = {
    b"\x1f\x8b": "gzip",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}
#: bz2's header, then the magic of its first block (or of the end of an empty stream).
_BZ2 = re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)")
#: A Zstandard skippable frame's magic, which a Zstandard file may start with.
_ZSTD_SKIPPABLE = re.compile(rb"[\x50-\x5f]\x2a\x4d\x18")
#: Leading bytes of a zip archive (one with members, an empty one).
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
#: Leading bytes of a 7-Zip archive, which no dependency of the gate reads.
_7Z_MAGIC = b"7z\xbc\xaf\x27\x1c"
#: Where a tar archive's first header says ``ustar`` (POSIX and GNU tar alike).
_TAR_MAGIC = slice(257, 262)
#: Leading bytes read to tell a file's compression or archive.
_MAGIC_BYTES = 512
_EXPORT = "export it as a CSV or TSV text file"
#: Leading bytes of binary formats given a text name by mistake: what they are, how to fix.
_SIGNATURES = {
    b"\x89PNG": ("a PNG image", _EXPORT),
    b"PK\x03\x04": ("a ZIP archive or .xlsx workbook", "name it .zip or .xlsx, as it is"),
    b"\xd0\xcf\x11\xe0": (
        "an .xls workbook or other Office document",
        f"save it as .xlsx, or {_EXPORT}",
    ),
    b"PAR1": ("a Parquet file", "name it .parquet"),
    b"%PDF": ("a PDF document", _EXPORT),
    b"\x1f\x8b": ("a gzip archive", "name it .gz (e.g. data.csv.gz)"),
    b"\x00\x05\x16\x07": (
        "a macOS AppleDouble file (Finder metadata, __MACOSX/._*)",
        "zip the folder without it (zip -d archive.zip '__MACOSX/*'), or skip it by name "
        "with a skip = true rule",
    ),
}
#: Compression methods :mod:`zipfile` can read.
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
#: Errors of a corrupt or truncated compressed stream (bz2 and gzip also raise errno-less OSError).
_CORRUPT = (EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, tarfile.TarError)
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_OPEN_QUOTE = re.compile(r"EOF inside string starting at row (\d+)")
#: Bytes pyarrow parses per block (one block per thread at a time).
_ARROW_BLOCK = 1 << 22


def read_table(
    path: str | os.PathLike[str],
    *,
    usecols: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    as_text: bool = False,
    header: bool | None = None,
) -> pd.DataFrame:
    """Read the delimited text file ``path`` (optionally .gz, .bz2, .xz or single-file .zip,
    suffixes in any case), or the member of a .zip a :class:`ZipMember` names.

    ``sep`` and ``encoding`` override detection: otherwise the encoding is UTF-8 (a BOM is
    stripped), falling back to cp1252 and then latin-1, and the delimiter is one of
    ``, ; TAB |`` (always TAB for a ``.tsv`` name). Only empty fields are missing: "NA" (the
    province of Napoli) stays a string. Dtypes are inferred over whole columns. ``usecols``
    selects columns, returned in the order asked. ``as_text`` keeps every value as written
    (no type inference): "0100" and "100" stay two values, as they are to a reader.
    ``header`` says whether the first line (below any title lines) is a header row; by
    default :func:`_headerless` decides, and a file without one gets the columns
    :func:`column_names` names, its first line a row.

    A file with a header but no data rows gives an empty frame with those columns: whether
    that is an error is the caller's decision.

    Raises :class:`InputFileError` for a file that is missing, unreadable, binary, empty,
    undecodable, corrupt, ragged (a row with more fields than the header) or whose header
    repeats a name, and :class:`ColumnNotFoundError` for ``usecols`` names not in the header.
    """
    layout = _inspect(path, usecols, sep, encoding, header)
    with io_errors(layout.name, layout.compression, layout.encoding):
        frame = parse_layout(layout, as_text)
    # usecols is applied after parsing: given usecols, pandas ignores extra fields in a row.
    return frame if usecols is None else frame[list(dict.fromkeys(usecols))]


def typed_and_text(frame: pd.DataFrame, *, as_text: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table :func:`pandas_anon.gate.parsers.read` read, typed (numbers as numbers, to
    anonymize) and as its file writes it (to write every cell left as it was so): same
    columns and rows.

    Delimited text (``as_text``: its values read as text) is read as text: the text frame is its values in
    pandas' text dtype (``str`` on pandas 3, objects on older pandas; NaN where missing), as
    ``read_table(path, as_text=True)`` gives them, and each column is typed as pandas' parser
    types it reading the whole file (:func:`_typed_column`, from the column's distinct values
    only). Any other format (JSON, Parquet, a sheet) is read typed: the typed
    frame is its values, each column of the type its values share (``infer_objects``), and
    the text frame each value as Python spells it (``1950``, ``1.5``, ``2`` for a sheet's
    whole number), so that numbers spelled two ways (``1`` and ``1.0`` in JSON) stay apart.
    """
    text_dtype = pd.Series([], dtype=str).dtype
    typed, text = {}, {}
    for name, column in frame.items():
        if as_text:
            text[name] = column.astype(text_dtype)
            typed[name] = _typed_column(column, text[name])
        else:
            typed[name] = column.astype(object).infer_objects()
            text[name] = _spelled(column).astype(text_dtype)
    return (
        pd.DataFrame(typed, index=frame.index, columns=frame.columns),
        pd.DataFrame(text, index=frame.index, columns=frame.columns),
    )


def _spelled(column: pd.Series) -> pd.Series:
    """Each value of ``column`` as Python spells it (``str``), missing kept missing; one
    spelling per distinct value."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    spelling = np.array([*(str(value) for value in uniques), None], dtype=object)
    return pd.Series(spelling[codes], index=column.index, name=column.name)


#: Texts that pandas' parser may read as something else than text, a superset of what it
#: reads as a number or a boolean: digits and points with a sign and an exponent, or inf,
#: infinity, nan, true, false in any case, spaces around (a date such as 2020-01-31 is not).
_MAYBE_TYPED = r"^\s*[+-]?(?:[0-9.]*(?:[eE][+-]?[0-9]*)?|(?i:inf|infinity|nan|true|false))\s*$"


def _typed_column(column: pd.Series, text: pd.Series) -> pd.Series:
    """The text ``column`` (``text`` in pandas' text dtype) as pandas' parser types it
    reading the whole file: its
    distinct values written as a one-column file of their own, read back by
    ``pd.read_csv`` with the options of :func:`_read_csv`, then spread over the rows: the
    parser's inference depends on the set of values, not on their number or order. A column
    with a value that cannot be a number or a boolean (:data:`_MAYBE_TYPED`), or that pandas
    reads as text, is ``text`` itself. The values left (no comma, quote or delimiter in
    them) are written comma-separated, as the file's own delimiter would write them."""
    import pyarrow.compute as pc

    codes, uniques = pd.factorize(column, use_na_sentinel=True)  # a categorical's own codes
    present = pa.array(np.asarray(uniques, dtype=object), type=pa.large_string())
    if len(present) and not pc.all(pc.match_substring_regex(present, _MAYBE_TYPED)).as_py():
        return text
    missing = [""] if (codes < 0).any() else []  # the last row, for code -1
    rows = io.StringIO()
    csv.writer(rows, lineterminator="\n").writerows(
        [value]
        for value in ["value", *present.to_pylist(), *missing]  # a header: no row, no column
    )
    rows.seek(0)
    values = pd.read_csv(
        rows,
        engine="c",
        keep_default_na=False,
        na_values=[""],
        index_col=False,
        low_memory=False,
        skip_blank_lines=False,
    ).iloc[:, 0]
    if values.dtype == text.dtype and pd.api.types.infer_dtype(values, skipna=True) in (
        "string",
        "empty",
    ):
        return text
    return pd.Series(values.to_numpy().take(codes), index=text.index, name=text.name)


def read_columns(
    path: str | os.PathLike[str],
    *,
    usecols: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    header: bool | None = None,
) -> pd.DataFrame:
    """The table :func:`pandas_anon.gate.parsers.read` reads from ``path`` (any format,
    told by its content), without its account: the ``usecols`` columns (default: all) as
    categoricals of their values as read. Errors are the reader's."""
    from pandas_anon.gate.parsers import read

    return read(path, usecols=usecols, sep=sep, encoding=encoding, header=header).frame


def head_bytes(name: str, size: int) -> bytes:
    """The first ``size`` decompressed bytes of ``name`` (plain, compressed or a zip
    member), or fewer when it is shorter; an InputFileError when it cannot be read."""
    compression = _compression_of(name)
    with io_errors(name, compression), _open_binary(name, compression) as handle:
        return handle.read(size)


def document_bytes(name: str) -> bytes:
    """The whole decompressed content of ``name``, read within the limits of a document
    parsed in memory (``max_document_size``)."""
    compression = _compression_of(name)
    with io_errors(name, compression), _open_binary(name, compression, "document") as handle:
        return handle.read()


def seekable(name: str) -> str | io.BytesIO:
    """What a reader needing random access opens (see :func:`_seekable`)."""
    return _seekable(name)


def other_format(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is read as when it is not delimited text (``"a .zip archive"``,
    ``"JSON"``, ``"JSON Lines"``, ``"Parquet"``, ``"a spreadsheet"``), from its name as
    :func:`read_columns` reads it; None for delimited text (any other name)."""
    name = os.fspath(path)
    if _is_zip(name):
        return "a .zip archive"
    kind = _kind(name)
    return None if kind is None else _FORMAT_NAMES[kind]


_FORMAT_NAMES = {
    "json": "JSON",
    "jsonl": "JSON Lines",
    "parquet": "Parquet",
    "spreadsheet": "a spreadsheet",
}


def csv_options(
    path: str | os.PathLike[str],
    *,
    sep: str | None = None,
    encoding: str | None = None,
    header: bool | None = None,
) -> dict[str, object]:
    """The options of ``pandas.read_csv`` that read the delimited text file ``path`` as
    :func:`read_columns` does (delimiter, encoding, title lines above the header,
    compression, and for a file without a header row the names it is read with), detected
    on a sample of its start (``sep``, ``encoding`` and ``header`` override detection); for
    readers of ``read_csv``'s options, such as Dask's. Raises what :func:`read_table` raises
    for a file whose start is unusable."""
    layout = _inspect(path, None, sep, encoding, header)
    return {
        "sep": layout.sep,
        "encoding": layout.encoding,
        "skiprows": layout.skip,
        "compression": layout.compression,
        **({"header": None, "names": layout.header} if layout.given_names else {}),
    }


def no_rows(name: str) -> InputFileError:
    """The error for a table with a header but no row: the gate has nothing to vouch for."""
    return InputFileError(f"{name} has a header but no data rows; there is nothing to check")


def _kind(name: str) -> formats.Kind | None:
    """The format :mod:`pandas_anon.gate.formats` reads ``name`` as, or None for delimited
    text."""
    if isinstance(name, Sheet):
        return "spreadsheet"
    return formats.KINDS.get(inner_suffix(name))


def _seekable(name: str) -> str | io.BytesIO:
    """What a reader needing random access opens: the path of a plain file (checked to be
    readable), else the decompressed content in memory (a zip member, a .gz file), within
    the limits; a workbook's members are checked too (:func:`limits.check_workbook`)."""
    compression = _compression_of(name)
    workbook = _kind(name) == "spreadsheet"
    with io_errors(name, compression):
        with _open_binary(name, compression, "document" if workbook else "data") as handle:
            source = name if compression is None else io.BytesIO(handle.read())
        if workbook:
            limits.check_workbook(name, source)
    return source


def _compression_of(name: str) -> Compression | None:
    """How ``name``'s bytes are held: ``tar`` or ``zip`` for a member of such an archive
    (its own compression is told when it is opened, :func:`_open_binary`), else as the
    file's leading bytes say (:func:`_compression_in`), whatever its name: a gzip stream named
    ``.csv`` is read decompressed, text named ``.gz`` as text. A file that is not a regular
    file (a pipe, read once) is taken at its name's last suffix."""
    if isinstance(name, TarMember):
        return "tar"
    if isinstance(name, ZipMember):
        return "zip"
    with io_errors(name, None):
        if not stat.S_ISREG(os.stat(name).st_mode):
            return _COMPRESSIONS.get(PurePath(name).suffix.lower())
        with open(name, "rb") as handle:
            return _compression_in(name, handle.read(_MAGIC_BYTES))


def _compression_in(name: str, head: bytes) -> Compression | None:
    """The compression of the content of ``name`` that starts with ``head``, told by its
    magic bytes: gzip, bz2, xz, Zstandard (also from a skippable frame), or ``zip`` for a zip archive not named as a
    workbook (``.xlsx``, ``.ods``: zip archives read whole); None for anything else. A 7-Zip
    archive is an InputFileError: nothing the gate depends on reads it."""
    for magic, compression in _COMPRESSION_MAGIC.items():
        if head.startswith(magic):
            return compression
    if _BZ2.match(head):
        return "bz2"
    if _ZSTD_SKIPPABLE.match(head):
        return "zstd"
    if head.startswith(_7Z_MAGIC):
        raise InputFileError(
            f"{name} is a 7-Zip archive, which the gate cannot read; extract it (7z x) and "
            "check the files it holds, or publish them as a .zip or .tar.gz"
        )
    if head.startswith(_ZIP_MAGIC) and formats.KINDS.get(inner_suffix(name)) != "spreadsheet":
        return "zip"
    return None


class ZipMember(str):
    """The name ``archive.zip:member`` of one file inside an archive (a zip archive; a tar
    archive's member is a :class:`TarMember`).

    It is the string a report shows; :func:`read_table` and :func:`read_columns` given one
    open that member of that archive (a plain string naming a path with a colon is a path).

    Parameters
    ----------
    archive : str
        Path of the archive (or the name of an archive inside another).
    member : str
        The member's name in the archive, as :attr:`zipfile.ZipInfo.filename`.
    """

    archive: str
    member: str

    def __new__(cls, archive: str, member: str) -> ZipMember:
        name = super().__new__(cls, f"{archive}:{member}")
        name.archive, name.member = archive, member
        return name

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return self.archive, self.member


class TarMember(ZipMember):
    """The name ``archive.tar.gz:member`` of one file inside a tar archive (plain, or
    compressed as a whole: ``.tar.gz``, ``.tgz``, ``.tar.xz``), its name as
    :attr:`tarfile.TarInfo.name`; read as a :class:`ZipMember` is."""


@dataclass(frozen=True)
class TableEntry:
    """One table a file named on the command line holds, or one thing in it that is skipped
    or cannot be read.

    Attributes
    ----------
    name : str
        The file's path, or a :class:`ZipMember` for a file inside an archive.
    skipped : str
        Why it is not read as a table (no cell value is quoted); empty for a table.
    error : str
        Why it cannot be read (an archive inside the archive that is corrupt or nested too
        deep), as an :class:`InputFileError`'s message naming it; empty otherwise.
    """

    name: str
    skipped: str = ""
    error: str = ""


def tables_in(
    path: str | os.PathLike[str], *, sep: str | None = None, encoding: str | None = None
) -> list[TableEntry]:
    """The tables the file ``path`` holds, and what in it is skipped or cannot be read.

    An archive, told by its content whatever its name (a zip archive not named as a
    workbook; a tar archive, plain or compressed as a whole: ``.tar``, ``.tar.gz``, ``.tgz``),
    holds a table per member that is not a folder, whatever its name, as a file named on the
    command line is (``__MACOSX/`` too: a macOS AppleDouble file there is then an error saying
    what it is): one entry each, named ``archive.zip:member``, plus a skipped entry for each
    folder. Every member is accounted for: a table, a folder, or an ``error`` entry naming it
    (which a rule skipping it by name leaves out): a name two members share (the archive's
    tools would show one, the gate cannot tell them apart), a tar member that is a link or a
    device, an archive inside that cannot be opened or lies deeper than
    :data:`MAX_ZIP_DEPTH` archives. A member compressed on its own (``a.csv.gz``, or gzip
    bytes under any name) is read decompressed; a member that is itself an archive holds
    tables the same way (``outer.zip:inner.tgz:a.csv``). An archive with no table (only
    folders and skipped members) is one skipped entry. A workbook (``.xlsx``, ``.ods``, also
    as a member) holds a table per sheet, named ``book.xlsx:Sheet1`` (a
    :class:`~pandas_anon.gate.formats.Sheet`); an empty sheet is skipped. A ``.txt`` file or
    member (also ``.txt.gz``, ...) is a table when its first lines parse as one of two or
    more records (:func:`_txt_entry`), else prose, skipped. Any other file is a table.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    sep, encoding : str, optional
        As for :func:`read_table`, used to tell a ``.txt`` table from prose.

    Returns
    -------
    list of TableEntry
        In the archive's order; a table's entry has empty ``skipped`` and ``error``.

    Raises
    ------
    InputFileError
        A file that is missing or unreadable, an archive that is not a valid one, a 7-Zip
        archive. A table (or workbook) that cannot be read is returned as a table: reading it
        says what is wrong.
    """
    name = os.fspath(path)
    kind = _archive_kind(name)
    if kind is None:
        return _entries(name, sep, encoding)
    entries = _archive_entries(name, kind, sep, encoding, depth=1)
    if any(not entry.skipped for entry in entries):
        return entries
    files = sum(entry.skipped != _FOLDER for entry in entries)
    return [TableEntry(name, f"holds no table among its {files} file{'' if files == 1 else 's'}")]


#: Why a folder inside an archive is skipped.
_FOLDER = "a folder"


def _is_zip(name: str) -> bool:
    """Whether ``name`` (a path or a zip member) is named as a zip archive."""
    own = name.member if isinstance(name, ZipMember) else name
    return PurePath(own).suffix.lower() == ".zip"


def _archive_kind(name: str) -> Literal["zip", "tar"] | None:
    """Whether the file or member ``name`` is a zip or a tar archive, by its content (a tar
    archive's decompressed): None for anything else."""
    if not isinstance(name, ZipMember) and _compression_of(name) == "zip":
        return None if _office_document(name) else "zip"
    head = head_bytes(name, _MAGIC_BYTES)
    if isinstance(name, ZipMember) and _compression_in(name, head) == "zip":
        return None if _office_document(name) else "zip"
    return "tar" if head[_TAR_MAGIC] == b"ustar" else None


def _office_document(name: str) -> bool:
    """Whether the zip archive ``name`` is an Office Open XML or OpenDocument file (a
    workbook under another name: ``.xlsm``), which is read, or refused, as one file."""
    with io_errors(name, "zip"), _zip_archive(name) as archive:
        names = archive.namelist()
    return "[Content_Types].xml" in names or names[:1] == ["mimetype"]


def _archive_entries(
    name: str, kind: Literal["zip", "tar"], sep: str | None, encoding: str | None, depth: int
) -> list[TableEntry]:
    """The entries of every member of the ``kind`` archive ``name``, ``depth`` archives
    deep, and an ``error`` entry for each part of its bytes in no structure read that fails
    it (:func:`_unread_parts`)."""
    from pandas_anon.gate.parsers import containers

    members: list[tuple[ZipMember, bool, str]] = []  # each member, a folder, what it is else
    with io_errors(name, kind), _archive_bytes(name) as handle:
        if kind == "zip":
            with zipfile.ZipFile(handle) as archive:
                infos = archive.infolist()
            members = [(ZipMember(name, i.filename), i.is_dir(), "") for i in infos]
            parts = containers.zip_parts(handle, infos)
        else:
            with tarfile.open(fileobj=handle, mode="r:") as tar:
                tar_infos = tar.getmembers()
            members = [
                (TarMember(name, i.name), i.isdir(), "" if i.isfile() else _tar_kind(i))
                for i in tar_infos
            ]
            parts = containers.tar_parts(handle, tar_infos)
    shared = Counter(member.member for member, _, _ in members)
    entries, seen = [], set()
    for member, folder, other in members:
        if shared[member.member] > 1:
            if member.member not in seen:
                seen.add(member.member)
                entries.append(TableEntry(member, error=_shared_name(member, shared)))
        elif folder:
            entries.append(TableEntry(member, _FOLDER))
        elif other:
            entries.append(
                TableEntry(
                    member,
                    error=f"{member} is {other}, not a file of the archive; the gate does not "
                    "follow it: archive the file itself",
                )
            )
        else:
            entries.extend(_member_entries(member, sep, encoding, depth))
    return entries + _unread_parts(name, kind, parts)


def _unread_parts(name: str, kind: str, parts: list[Part]) -> list[TableEntry]:
    """An ``error`` entry for each of the ``parts`` of the archive ``name`` that fails it
    (:func:`~pandas_anon.gate.parsers.containers.unread`: bytes in no structure read, text
    past the budget), named ``archive.zip:(zip comment)`` so that a rule can skip it."""
    from pandas_anon.gate.parsers import containers

    member = ZipMember if kind == "zip" else TarMember
    return [
        TableEntry(member(name, part.name), error=containers.message(name, part, parts))
        for part in containers.unread(parts)
    ]


def _shared_name(member: ZipMember, shared: Counter[str]) -> str:
    """The error for the name of ``member``, which several members of its archive share."""
    return (
        f"{member}: {shared[member.member]} members of the archive have this name, and a tool "
        "extracting it shows only one of them; the gate cannot tell them apart and reads none: "
        "rebuild the archive with one member of each name"
    )


def _tar_kind(info: tarfile.TarInfo) -> str:
    """What a tar member that is not a regular file is."""
    if info.issym():
        return "a symbolic link"
    if info.islnk():
        return "a hard link"
    return "a device, a FIFO or another special file"


def _member_entries(
    member: ZipMember, sep: str | None, encoding: str | None, depth: int
) -> list[TableEntry]:
    """The entries of the archive member ``member`` (``depth`` archives deep): its own
    tables, or those of the archive it is, or an ``error`` entry naming it."""
    try:
        kind = _archive_kind(member)
    except InputFileError as error:
        return [TableEntry(member, error=str(error))]
    if kind is None:
        return _entries(member, sep, encoding)
    if depth >= MAX_ZIP_DEPTH:
        return [
            TableEntry(
                member,
                error=f"{member} is an archive {depth + 1} archives deep, deeper than the "
                f"{MAX_ZIP_DEPTH} read; extract it and check its tables",
            )
        ]
    try:
        return _archive_entries(member, kind, sep, encoding, depth + 1)
    except InputFileError as error:
        return [TableEntry(member, error=str(error))]


def _entries(name: str, sep: str | None, encoding: str | None) -> list[TableEntry]:
    """The entries of a file (or zip member): a sheet each for a workbook, else one."""
    kind = _kind(name)
    if kind is None:
        return [
            _txt_entry(name, sep, encoding) if inner_suffix(name) == ".txt" else TableEntry(name)
        ]
    if kind != "spreadsheet":
        return [TableEntry(name)]
    try:
        source = _seekable(name)
        sheets = formats.sheets(name, source)
    except InputFileError:
        return [TableEntry(name)]  # reading it says what is wrong
    if not sheets:
        return [TableEntry(name, "holds no sheet")]
    return [TableEntry(sheet, skipped) for sheet, skipped in sheets] + _workbook_parts(name, source)


def _workbook_parts(name: str, source: str | io.BytesIO) -> list[TableEntry]:
    """An ``error`` entry for each part of the bytes of the workbook ``name`` (a zip archive
    of XML, its path or content ``source``) in no structure read that fails it
    (:func:`_unread_parts`); none when it is no zip archive (its reader refuses it)."""
    from pandas_anon.gate.parsers import containers

    with (
        io_errors(name, "zip"),
        open(source, "rb") if isinstance(source, str) else nullcontext(source) as book,
    ):
        try:
            with zipfile.ZipFile(book) as archive:
                infos = archive.infolist()
        except zipfile.BadZipFile:
            return []
        return _unread_parts(name, "zip", containers.zip_parts(book, infos))


#: Why a ``.txt`` that does not parse as a table is skipped.
PROSE = (
    "not a table: no delimiter (, ; TAB | or space) splits its lines into the same columns, "
    "and they are not one value each"
)


def _txt_entry(name: str, sep: str | None, encoding: str | None) -> TableEntry:
    """A ``.txt`` file (or zip member) to read as a table, unless it is prose.

    It is a table when its first lines (title lines above aside, :func:`_title_records`) are
    two or more records that the delimiter found splits alike into two or more fields, or
    that are one value each with no space or delimiter in it (a column of codes, with or
    without a header); or when, up to :data:`_TITLE_LINES` lines of any kind left out, a
    delimiter (a space too) splits three or more lines alike into two or more fields (a
    space-separated table below a title of several words: read, it fails closed, each line
    one value), or when a delimiter splits half its lines or more, three or more, alike
    (:func:`_mostly_split`: a space-separated table of values holding spaces, which read as
    a table fails closed). A file named as pip's requirements whose every line is one of
    theirs is skipped (:func:`_pip_requirements`). Otherwise (a README, a single line) it is
    prose: skipped when the whole file is at most
    :data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters, an error naming it past that.
    """
    try:
        check_options(name, sep, encoding)
        found = _detect(name, sep, encoding)
    except InputFileError:
        return TableEntry(name)  # reading it says what is wrong
    if found is None:
        return TableEntry(name, "empty")
    layout, records, complete = found
    if _PIP_NAME.fullmatch(str(name)):
        whole = _whole_text(name, encoding)
        if whole is not None and _pip_requirements(whole):
            return TableEntry(name, REQUIREMENTS)
    if complete and len(records) < 2:  # no row: nothing to protect, unless the line is long
        return _not_a_table(name, encoding, "not a table: a single line")
    if len(layout.header) > 1 or all(
        len(row) == 1 and not _SPACES.search(row[0]) and not _SPLITS.search(row[0])
        for _, row in records
    ):
        return TableEntry(name)
    head = _sample_head(name, encoding)
    delimiters = (sep,) if sep else (*_DELIMITERS, _SPACE)
    if head is not None and (
        _rows_below(head[2], delimiters) or _mostly_split(head[2], delimiters)
    ):
        return TableEntry(name)
    why = f"not a table: {sep!r} does not split its lines into columns" if sep else PROSE
    return _not_a_table(name, encoding, why)


def _not_a_table(name: str, encoding: str | None, why: str) -> TableEntry:
    """The entry of a ``.txt`` that is no table (``why``): skipped when the whole file is a
    note (at most :data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters), else an error."""
    whole = _whole_text(name, encoding)
    if whole is not None and len(whole) <= limits.TEXT_BUDGET:
        return TableEntry(name, why)
    return TableEntry(name, error=_prose_error(name, why))


def _whole_text(name: str, encoding: str | None) -> str | None:
    """The whole text of ``name`` when its sample holds all of it, else None."""
    compression = _compression_of(name)
    with io_errors(name, compression):
        sample, complete = _read_sample(name, compression)
    return _sample_text(name, sample, complete, encoding)[1] if complete else None


#: Why a ``.txt`` of pip's requirement lines is skipped.
REQUIREMENTS = "not a table: a list of Python packages (pip's requirements)"
#: A version as PEP 440 writes one (``2``, ``2.1.*``, ``1.0rc1``, ``2.0.post1+local``).
_VERSION = r"(\d+!)?\d+(\.\d+)*(\.\*)?((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[a-z0-9.]+)?"
#: A version specifier (``>=2``, ``==1.4.*``).
_SPEC = rf"(===|==|!=|~=|>=|<=|<|>)\s*{_VERSION}"
#: One line of a pip requirements or constraints file: a comment, an option (``-r dev.txt``,
#: ``--index-url ...``), or a package with its extras and version specifiers, or a URL,
#: and a marker.
_PIP_LINE = re.compile(
    rf"\s*(#.*|-{{1,2}}[A-Za-z][\w-]*(\s.*|=.*)?|[A-Za-z0-9][\w.-]*(\[[\w.,\s-]*\])?\s*"
    rf"(@\s*\S+|{_SPEC}(\s*,\s*{_SPEC})*)?\s*(;[^#]*)?(\s+#.*)?)?\s*",
    re.IGNORECASE,
)
#: The name of a pip requirements or constraints file (``requirements.txt``,
#: ``dev-requirements.txt``, ``requirements/test.txt``, ``constraints.txt``).
_PIP_NAME = re.compile(
    r"(?i)(^|.*[/:])([\w.-]*(requirements|constraints)[\w.-]*\.txt|requirements/[^/]*\.txt)"
)
#: What makes a line one of pip's rather than a bare word: an option, a specifier, a URL or a
#: marker.
_PIP_SIGN = re.compile(r"^\s*-|===|==|!=|~=|>=|<=|[<>@;]")


def _pip_requirements(text: str) -> bool:
    """Whether every line of ``text`` (a file named as pip's requirements or constraints,
    :data:`_PIP_NAME`) is one of theirs (versions as PEP 440 writes them), at least one with
    an option, a version specifier, a URL or a marker: a list of bare words (a column of
    codes, or of package names), or a table under that name, is read as a table."""
    lines = [line for line in text.splitlines() if line.strip()]
    return (
        bool(lines)
        and all(_PIP_LINE.fullmatch(line) for line in lines)
        and any(_PIP_SIGN.search(line.split("#")[0]) for line in lines)
    )


def _prose_error(name: str, why: str) -> str:
    """The error for a ``.txt`` that is not a table (``why``) and holds more text than a file
    may carry unread (:data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters)."""
    return (
        f"{name} is text the gate cannot read as a table ({why.removeprefix('not a table: ')}),"
        f" of more than {limits.TEXT_BUDGET:,} characters: it may name people in its lines; if "
        f'it holds no one\'s data, skip it by name: a rule with files = "{name}" and skip = true'
    )


def _rows_below(head: str, delimiters: Sequence[str]) -> bool:
    """Whether one of ``delimiters`` splits three or more lines of ``head`` alike into two or
    more fields, up to :data:`_TITLE_LINES` of its first lines left out."""
    for sep in delimiters:
        rows = [len(row) for _, row in _records(head, sep)]
        for start in range(min(_TITLE_LINES, len(rows) - 3) + 1):
            if _alike(rows[start:]):
                return True
    return False


def _mostly_split(head: str, delimiters: Sequence[str]) -> bool:
    """Whether one of ``delimiters`` splits at least half the lines of ``head``, and three or
    more, into the same number (two or more) of fields: a table some of whose values hold
    the delimiter (a space-separated table of towns named in two words), read as a table
    rather than skipped as prose, so that the gate refuses it or reads it."""
    for sep in delimiters:
        counts = Counter(len(row) for _, row in _records(head, sep))
        total = sum(counts.values())
        fields, lines = max(counts.items(), key=lambda item: item[1], default=(0, 0))
        if fields > 1 and lines >= max(3, total / 2):
            return True
    return False


_SPACES = re.compile(r"\s")
_SPLITS = re.compile("[" + re.escape("".join(_DELIMITERS)) + "]")


@dataclass(frozen=True)
class _Layout:
    """What the start of a file says about all of it."""

    name: str
    compression: Compression | None
    sep: str
    encoding: str
    header: list[str]
    skip: int = 0  # lines above the header: titles (and blank lines between)
    #: False when the first line is a row (:func:`_headerless`): ``header`` then holds
    #: generated names (:func:`column_names`)
    named: bool = True
    #: True when the header leaves a cell empty: that column is named by its position
    #: (``column 3``), and ``skip`` includes the header line
    renamed: bool = False
    #: Title lines above the header (among the ``skip`` lines)
    titles: int = 0
    #: Characters of those title lines: text outside the table
    title_characters: int = 0

    @property
    def given_names(self) -> bool:
        """Whether the parsers are given the names in ``header`` rather than reading them
        from the file."""
        return self.renamed or not self.named


def _inspect(
    path: str | os.PathLike[str],
    usecols: Sequence[str] | None,
    sep: str | None,
    encoding: str | None,
    header: bool | None = None,
) -> _Layout:
    """Check the options, detect compression, encoding, delimiter and header row on a
    bounded sample, and check the header and the sample's rows."""
    return inspect_records(path, usecols, sep, encoding, header)[0]


def inspect_records(
    path: str | os.PathLike[str],
    usecols: Sequence[str] | None,
    sep: str | None,
    encoding: str | None,
    header: bool | None,
) -> tuple[_Layout, list[tuple[int, list[str]]]]:
    """What :func:`_inspect` finds, and the sample's records (the header first). A plain
    file's lines are checked here (a compressed one's as it is decompressed)."""
    name = os.fspath(path)
    if isinstance(usecols, str):
        raise TypeError("usecols must be a sequence of column names, not a string")
    check_options(name, sep, encoding)
    found = _detect(name, sep, encoding, header)
    if found is None:
        raise InputFileError(f"{name} is empty; pass a file with a header row")
    layout, records, _ = found
    if layout.compression is None:
        limits.check_lines(name, name)
    _check_header(name, layout.header, usecols)
    _check_rows(layout, records)
    return layout, records


def _detect(
    name: str, sep: str | None, encoding: str | None, header: bool | None = None
) -> tuple[_Layout, list[tuple[int, list[str]]], bool] | None:
    """The layout of ``name``, the records of its sample and whether that is all the file,
    or None when it is empty. ``header`` says whether its first line is a header row (None:
    :func:`_headerless` decides)."""
    found = _sample_head(name, encoding)
    if found is None:
        return None
    compression, encoding, head, complete = found
    if sep is None:
        sep = "\t" if inner_suffix(name) == ".tsv" else _sniff(head)
    records = _records(head, sep)
    titles = _title_records([row for _, row in records])
    characters = sum(len(cell) for _, row in records[:titles] for cell in row)
    skip = 0
    if titles:  # the lines up to the last title's, and the blank lines after it
        skip = records[titles - 1][0]
        lines = head.splitlines()
        while skip < len(lines) and not lines[skip].strip():
            skip += 1
    records = records[titles:]
    named = not _headerless(records) if header is None else header
    if records and not named:
        layout = _Layout(
            name,
            compression,
            sep,
            encoding,
            column_names(len(records[0][1])),
            skip,
            False,
            titles=titles,
            title_characters=characters,
        )
    elif records and not all(records[0][1]):  # an empty header cell: named by position
        names = [cell or f"column {at}" for at, cell in enumerate(records[0][1], 1)]
        layout = _Layout(
            name,
            compression,
            sep,
            encoding,
            names,
            records[0][0],
            renamed=True,
            titles=titles,
            title_characters=characters,
        )
    else:
        header_ = records[0][1] if records else []
        layout = _Layout(
            name,
            compression,
            sep,
            encoding,
            header_,
            skip,
            titles=titles,
            title_characters=characters,
        )
    return layout, records, complete


def _sample_head(
    name: str, encoding: str | None
) -> tuple[Compression | None, str, str, bool] | None:
    """The compression, encoding and first whole lines of ``name``'s sample, and whether that
    is all the file; None when it is empty."""
    compression = _compression_of(name)
    with io_errors(name, compression):
        sample, complete = _read_sample(name, compression)
    encoding, text = _sample_text(name, sample, complete, encoding)
    if complete and not text.strip():
        return None
    return compression, encoding, _head(text, complete), complete


def _title_records(rows: list[list[str]]) -> int:
    """How many of the leading records ``rows`` are title lines above the header: one field
    each, holding words (``Patenti 2024``, ``Fonte: Regione``), at most :data:`_TITLE_LINES`,
    followed by a header of several named fields that every later record of the sample has
    too. 0 when there is no such header: the first record is the header (and a row longer than
    it an error), as without titles. A one-word first line is a header, not a title: the
    header of a one-column file whose values hold a delimiter (``comune``, then ``Forlì;FC``)."""
    for titles in range(1, min(_TITLE_LINES, len(rows) - 2) + 1):
        title = rows[titles - 1]
        if len(title) != 1 or not _SPACES.search(title[0].strip()):
            return 0
        header, *after = rows[titles:]
        if len(header) > 1 and all(header) and all(len(row) == len(header) for row in after):
            return titles
    return 0


def column_names(count: int) -> list[str]:
    """The names of the ``count`` columns of a file without a header row: ``column 1``,
    ``column 2``, ... (numbered from 1, as a spreadsheet user counts them)."""
    return [f"column {position}" for position in range(1, count + 1)]


#: A column's values in at least this many rows of the sample are needed for its shape to
#: tell a header from a row (:func:`_headerless`).
SHAPE_ROWS = 2
#: A number as a table writes it: a sign, digits with a decimal point or comma, an exponent.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?")
_DIGIT_RUN = re.compile(r"\d+")


def _headerless(records: list[tuple[int, list[str]]]) -> bool:
    """Whether the first of ``records`` (a sample's, title lines set aside) is a row of data,
    not a header.

    Each column whose non-empty values in the rows below (at least :data:`SHAPE_ROWS`) all
    have one shape (:data:`_SHAPES`) votes: for a row when the first line's field has that
    shape too (a tax code above tax codes, a number above numbers), for a header when not
    (``anno`` above years, ``sesso`` above ``M`` and ``F``); an empty field above a column
    without an empty value votes for a header (the unnamed index column pandas writes). The
    first line is a row when some column votes so and none votes for a header. A column of
    values of no common shape (names of varying length) does not vote, nor does an empty
    field above a column with empty values, so a file whose columns are all such keeps its
    first line as the header. ``csv.Sniffer.has_header`` votes alike (on a type, else a
    length) but on 20 rows only, by a majority (one column showing a header is enough here),
    and finds no header when no column votes: a file of names and towns, for one.
    """
    if len(records) <= SHAPE_ROWS:
        return False
    first, rows = records[0][1], [row for _, row in records[1:]]
    voted = False
    for position, field in enumerate(first):
        values = [row[position] for row in rows if position < len(row)]
        if not field and all(values) and len(values) >= SHAPE_ROWS:
            return False  # an unnamed column (the index pandas writes) above values only
        values = [value for value in values if value]
        if not field or len(values) < SHAPE_ROWS:
            continue
        for shape_of in _SHAPES:
            shape = shape_of(values[0])
            if shape is not None and all(shape_of(value) == shape for value in values[1:]):
                if shape_of(field) != shape:
                    return False
                voted = True
                break
    return voted


def _number(value: str) -> object:
    """A field's shape as a number: ``number``, or None for another text."""
    return "number" if _NUMBER.fullmatch(value.strip()) else None


def _length_and_classes(value: str) -> object:
    """A field's shape as its length and the classes of its characters
    (:func:`_character_class`): ``RSSMRA85T10A562S`` is 16 digits and capitals, ``1985-03-10``
    10 digits and dashes."""
    value = value.strip()
    return len(value), frozenset(map(_character_class, value))


def _digit_runs(value: str) -> object:
    """A field's shape as its text with each run of digits one ``9``: ``9/9/9`` for
    ``1/3/1985``."""
    return _DIGIT_RUN.sub("9", value.strip())


#: The shapes :func:`_headerless` compares, in the order it tries them.
_SHAPES: tuple[Callable[[str], object], ...] = (_number, _length_and_classes, _digit_runs)


def _character_class(character: str) -> str:
    """``9`` for a digit, ``A`` for a capital, ``a`` for another letter, a space for any
    space, else the character itself."""
    if character.isdigit():
        return "9"
    if character.isalpha():
        return "A" if character.isupper() else "a"
    return " " if character.isspace() else character


def arrow_columns(
    layout: _Layout,
    columns: list[str],
    plain: set[str],
    text_type: pa.DataType | None = None,
    *,
    quoted_breaks: bool = True,
) -> pa.Table:
    """Read ``columns`` of the file with pyarrow's multi-threaded CSV reader, dictionary-encoded
    but for those in ``plain``, kept as text of ``text_type`` (default ``string``;
    ``large_string`` is what pandas' ``str`` holds, taken without a copy). Without
    ``quoted_breaks`` (for a file that has no quote character, so no line break in a value),
    pyarrow cuts the file into blocks at any line break, which is faster."""
    text, text_type = pa.dictionary(pa.int32(), pa.string()), text_type or pa.string()
    # pyarrow skips a UTF-8 BOM itself; other encodings are transcoded by Python's codecs
    read_options = pa_csv.ReadOptions(
        block_size=_ARROW_BLOCK,
        skip_rows=layout.skip,
        column_names=layout.header if layout.given_names else None,
        encoding="utf8" if layout.encoding in ("utf-8", "utf-8-sig") else layout.encoding,
    )
    parse_options = pa_csv.ParseOptions(delimiter=layout.sep, newlines_in_values=quoted_breaks)
    convert_options = pa_csv.ConvertOptions(
        include_columns=columns,
        column_types={c: text_type if c in plain else text for c in columns},
        strings_can_be_null=True,
        null_values=[""],
    )
    if layout.compression is None:  # opened as plain: pyarrow takes a path's suffix
        with pa.OSFile(layout.name, mode="r") as stored:  # for its compression
            return pa_csv.read_csv(
                stored,  # type: ignore[arg-type]  # pyarrow-stubs: any NativeFile is read
                read_options=read_options,
                parse_options=parse_options,
                convert_options=convert_options,
            )
    with _open_binary(layout.name, layout.compression, "text") as handle:
        return pa_csv.read_csv(
            # pyarrow-stubs type a file object as typing.IO, which io.RawIOBase (the bounded
            # stream of a gzip, bz2 or lzma file) is not; pyarrow reads from any object that
            # has read()
            handle,  # type: ignore[arg-type]
            read_options=read_options,
            parse_options=parse_options,
            convert_options=convert_options,
        )


def check_options(name: str, sep: str | None, encoding: str | None) -> None:
    """Reject a separator the C parser cannot use and an encoding Python does not know."""
    if sep is not None and len(sep.encode("utf-8")) != 1:
        raise InputFileError(
            f"{name}: cannot split on separator {sep!r}: it must be one ASCII character, "
            "e.g. ',' ';' '|' or a tab"
        )
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise InputFileError(
                f"{name}: unknown encoding {encoding!r}; pass a Python codec name such as "
                "utf-8, cp1252 or latin-1"
            ) from None


@contextmanager
def io_errors(name: str, compression: str | None, encoding: str | None = None) -> Iterator[None]:
    """Turn errors from opening, decompressing and decoding ``name`` into InputFileError.

    The messages of the original exceptions are dropped: some quote bytes of the file.
    """
    try:
        yield
    except FileNotFoundError:
        raise InputFileError(f"{name}: no such file; check the path") from None
    except IsADirectoryError:
        raise InputFileError(f"{name} is a directory; pass the path of a CSV or TSV file") from None
    except PermissionError:
        raise InputFileError(
            f"{name} cannot be read: permission denied; check the file's permissions"
        ) from None
    except UnicodeDecodeError:
        raise InputFileError(
            f"{name} is not valid {encoding} text past its first MiB; pass --encoding with the "
            "file's real encoding (e.g. --encoding cp1252 or --encoding latin-1)"
        ) from None
    except (*_CORRUPT, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise InputFileError(f"{name} cannot be read: {exc.strerror}") from None
        raise InputFileError(
            f"{name} is not a valid {compression or 'text'} file (corrupt or truncated); "
            "re-download or re-compress it"
        ) from None


def _read_sample(name: str, compression: str | None) -> tuple[bytes, bool]:
    """The first SAMPLE_BYTES of the decompressed content (more when its first line is
    longer, up to the longest line allowed), and whether that is all of it."""
    with _open_binary(name, compression, "text") as handle:
        sample = handle.read(SAMPLE_BYTES)
        if b"\n" not in sample and b"\r" not in sample:  # the first line goes on
            sample += handle.read(limits.current().max_line_length + 1 - len(sample))
        return sample, not handle.read(1)


#: What a stream is read for, which sets its limits (:mod:`pandas_anon.gate.limits`):
#: delimited ``text`` (its lines checked), a ``document`` parsed whole in memory (JSON,
#: a workbook), other ``data`` (Parquet, an archive copied out of another).
_Reading = Literal["text", "document", "data"]


@contextmanager
def _open_binary(
    name: str, compression: str | None, reading: _Reading = "data"
) -> Iterator[limits.BoundedStream]:
    """Open ``name`` for reading its decompressed bytes as a stream, within the current
    limits for what it is read for: past one, reading raises an InputFileError naming the
    limit (a zip member's declared size, and its archive's, are checked before it is
    opened)."""
    lines = limits.current().max_line_length if reading == "text" else None
    document = reading == "document"
    if compression is None:
        with open(name, "rb") as plain:
            limit = limits.bound(None, document=document)
            limits.check_size(name, os.fstat(plain.fileno()).st_size, limit)
            yield limits.BoundedStream(plain, name, limit, lines)
    elif compression == "tar":
        assert isinstance(name, ZipMember)
        with _tar_archive(name.archive) as tar:
            entry = _tar_member(name, tar)
            limit = limits.bound(entry.size, document=document)
            limits.check_size(name, entry.size, limit)
            stream = tar.extractfile(entry)
            assert stream is not None  # a regular file (_tar_member)
            with stream, _decompressed(name, stream) as member:
                yield limits.BoundedStream(member, name, limit, lines)
    elif compression == "zip":
        with _zip_archive(name.archive if isinstance(name, ZipMember) else name) as archive:
            info = _zip_member(name, archive)
            limit = limits.bound(info.compress_size, document=document)
            limits.check_size(name, info.file_size, limit)
            limits.check_archive(name, archive)
            with archive.open(info) as stream, _decompressed(name, stream) as member:
                yield limits.BoundedStream(member, name, limit, lines)
    else:
        limit = limits.bound(os.path.getsize(name), document=document)
        with open(name, "rb") as raw, decompressing(name, compression, raw) as handle:
            yield limits.BoundedStream(handle, name, limit, lines)


@contextmanager
def _decompressed(name: str, stream: Any) -> Iterator[Any]:
    """An archive member's ``stream`` (which has ``peek``: a zip or a tar member's),
    decompressed when its leading bytes say it is compressed on its own (``a.csv.gz``, or
    gzip bytes named ``a.csv``)."""
    compression = _compression_in(name, stream.peek(_MAGIC_BYTES)[:_MAGIC_BYTES])
    if compression is None or compression == "zip":  # an archive inside is read as one
        yield stream
        return
    with decompressing(name, compression, stream) as handle:
        yield handle


#: Bytes of an archive inside an archive held in memory while it is read; more spill to a
#: temporary file.
_NESTED_IN_MEMORY = 1 << 26


@contextmanager
def _copied(name: str) -> Iterator[IO[bytes]]:
    """The decompressed bytes of ``name`` (an archive member, or a compressed file) copied
    to a seekable file, within the limits (zipfile and tarfile seek; a decompressing stream
    cannot seek back without decompressing again from its start)."""
    with tempfile.SpooledTemporaryFile(_NESTED_IN_MEMORY) as copy:
        with _open_binary(name, _compression_of(name)) as stream:
            shutil.copyfileobj(stream, copy)
        copy.seek(0)
        yield copy


@contextmanager
def _archive_bytes(name: str) -> Iterator[IO[bytes]]:
    """The bytes of the archive ``name``, seekable: the file itself (a zip archive, a plain
    tar archive), else its decompressed bytes copied out (of a ``.tar.gz``, or of the archive
    holding it, :func:`_copied`)."""
    if not isinstance(name, ZipMember) and _compression_of(name) in (None, "zip"):
        with open(name, "rb") as handle:
            yield handle
        return
    with _copied(name) as copy:
        yield copy


@contextmanager
def _zip_archive(name: str) -> Iterator[zipfile.ZipFile]:
    """Open the zip archive ``name``: a path, or a :class:`ZipMember` that is itself an
    archive, copied out of its own archive first."""
    with _archive_bytes(name) as handle, zipfile.ZipFile(handle) as archive:
        yield archive


@contextmanager
def _tar_archive(name: str) -> Iterator[tarfile.TarFile]:
    """Open the tar archive ``name``: a plain file, or its decompressed bytes copied out
    (of a ``.tar.gz``, or of the archive holding it)."""
    with _archive_bytes(name) as handle, tarfile.open(fileobj=handle, mode="r:") as archive:
        yield archive


def _tar_member(name: ZipMember, archive: tarfile.TarFile) -> tarfile.TarInfo:
    """The regular file of ``archive`` the :class:`TarMember` ``name`` names, the only one
    of its name."""
    found = [info for info in archive.getmembers() if info.name == name.member]
    if not found:
        raise InputFileError(f"{name}: the archive has no such member; list it with tar -tvf")
    if len(found) > 1:
        raise InputFileError(_shared_name(name, Counter({name.member: len(found)})))
    if not found[0].isfile():
        raise InputFileError(
            f"{name} is {_tar_kind(found[0])}, not a file of the archive; the gate does not "
            "follow it: archive the file itself"
        )
    return found[0]


def _zip_member(name: str, archive: zipfile.ZipFile) -> zipfile.ZipInfo:
    """The member a :class:`ZipMember` names, else the one file in ``archive`` (ignoring
    folders and macOS ``__MACOSX/`` metadata), checked to be one zipfile can decompress."""
    if isinstance(name, ZipMember):
        found = [info for info in archive.infolist() if info.filename == name.member]
        if not found:
            raise InputFileError(f"{name}: the archive has no such member; list it with unzip -l")
        if len(found) > 1:
            raise InputFileError(_shared_name(name, Counter({name.member: len(found)})))
        info = found[0]
    else:
        members = [
            info
            for info in archive.infolist()
            if not info.is_dir() and not info.filename.startswith("__MACOSX/")
        ]
        if len(members) != 1:
            raise InputFileError(
                f"{name} contains {len(members)} files, not one; extract the table you want "
                "and pass it (or a .zip holding only it)"
            )
        info = members[0]
    if info.flag_bits & 0x1:
        raise InputFileError(
            f"{name} is encrypted; decrypt it, or zip the table without a password"
        )
    if info.compress_type not in _ZIP_METHODS:
        raise InputFileError(
            f"{name} is compressed with a method Python cannot read (zip "
            f"method {info.compress_type}); re-zip it with deflate"
        )
    return info


def _sample_text(name: str, sample: bytes, complete: bool, encoding: str | None) -> tuple[str, str]:
    """Return the encoding and the decoded sample, rejecting binary content.

    The encoding is the given one, a BOM's, else the first of UTF-8, cp1252 and latin-1 that
    decodes the sample. A multi-byte character cut at the end of the sample is not an error.
    """
    for signature, (kind, fix) in _SIGNATURES.items():
        if sample.startswith(signature):
            raise _binary_error(name, f": {kind}", fix)
    if encoding is not None:
        candidates: Sequence[str] = (encoding,)
    elif sample.startswith(codecs.BOM_UTF8):
        candidates = ("utf-8-sig",)
    elif sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        candidates = ("utf-16",)
    else:
        candidates = _ENCODINGS
    for candidate in candidates:
        try:
            text = codecs.getincrementaldecoder(candidate)().decode(sample, final=complete)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            raise _binary_error(name, "", f"{_EXPORT} (or pass --encoding utf-16 for UTF-16 text)")
        return candidate, text.removeprefix("\ufeff")  # the C parser drops a BOM too
    raise InputFileError(
        f"{name} is not valid {candidates[0]} text; pass --encoding with the file's real "
        "encoding (e.g. --encoding cp1252 or --encoding latin-1)"
    )


def _binary_error(name: str, detail: str, fix: str) -> InputFileError:
    """The error for a file that is not text at all."""
    return InputFileError(f"{name} does not look like a text table (binary content{detail}); {fix}")


def inner_suffix(name: str) -> str:
    """The suffix of the table's format, before any compression suffix, in lower case
    (``.tsv`` for ``a.TSV.gz``, also as a zip member; ``""`` for a name without one)."""
    own = name.member if isinstance(name, ZipMember) else name
    suffixes = [suffix.lower() for suffix in PurePath(own).suffixes]
    if suffixes[-1:] and suffixes[-1] in _COMPRESSED_SUFFIXES:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _head(text: str, complete: bool) -> str:
    """The first whole lines of the decoded sample, for sniffing and checking the header."""
    lines = text.splitlines(keepends=True)
    if not complete:
        lines = lines[:-1]  # the sample may end mid-line
    return "".join(lines[:_SNIFF_LINES])


def _records(head: str, sep: str) -> list[tuple[int, list[str]]]:
    """Non-blank records of ``head`` split on ``sep`` (with CSV quoting), with their end line."""
    reader = csv.reader(io.StringIO(head, newline=""), delimiter=sep)
    records = []
    try:
        for row in reader:
            if len(row) > 1 or (row and row[0].strip()):  # pandas skips blank lines too
                records.append((reader.line_num, row))
    except csv.Error:  # e.g. a field over csv's size limit: judge on the records before it
        pass
    return records


def _sniff(head: str) -> str:
    """Guess the delimiter of ``head`` among ``, ; TAB |``, else a space.

    Title lines above the header (:func:`_title_records`) are set aside first. A candidate
    under which every record has the header's field count (> 1) is kept when it is the only
    one, or csv.Sniffer's guess; otherwise a space when it splits every record alike;
    otherwise the candidate under which most records match a multi-field header wins, which
    also copes with a ragged row, and a one-column file gets a delimiter that splits nothing.
    """
    counts = {}
    for sep in (*_DELIMITERS, _SPACE):
        rows = [row for _, row in _records(head, sep)]
        counts[sep] = [len(row) for row in rows[_title_records(rows) :]]
    consistent = [sep for sep in _DELIMITERS if _alike(counts[sep])]
    if len(consistent) == 1:  # what the rules below choose, without the (slow) Sniffer
        return consistent[0]
    try:
        sniffed = csv.Sniffer().sniff(head, delimiters="".join(_DELIMITERS)).delimiter
    except csv.Error:
        sniffed = ""
    if sniffed in consistent:
        return sniffed
    if not consistent and _alike(counts[_SPACE]):
        return _SPACE

    def score(sep: str) -> tuple[bool, int, int]:
        header, *rows = counts[sep] or [0]
        return header > 1, sum(n == header for n in rows), header

    return max(_DELIMITERS, key=score)


def _alike(fields: list[int]) -> bool:
    """Whether records of ``fields`` fields each are a header of several fields and rows
    that all have as many."""
    return bool(fields) and fields[0] > 1 and len(set(fields)) == 1


def _check_header(name: str, header: list[str], usecols: Sequence[str] | None) -> None:
    """Reject repeated header names (pandas would rename them) and unknown ``usecols``."""
    # Empty names are not repeats: pandas names them "Unnamed: <position>".
    repeated = [c for c, n in Counter(header).items() if n > 1 and c]
    if repeated:
        raise InputFileError(
            f"{name}: the header repeats column name{'s' if len(repeated) > 1 else ''} "
            f"{', '.join(map(repr, repeated))}; rename the columns so that each name is unique"
        )
    missing = [c for c in usecols or () if c not in header]
    if missing:
        raise ColumnNotFoundError(missing, header)


def _check_rows(layout: _Layout, records: list[tuple[int, list[str]]]) -> None:
    """Reject a row of the sample with more fields than the header (or first row).

    pandas' C parser reports such rows, except the first data row: with one extra field it
    would silently drop it (or make the first column the index).
    """
    if not records:
        return
    expected = len(records[0][1])
    for line, row in records[1:]:
        if len(row) > expected:
            raise _ragged_error(layout, line, expected, len(row))


def _ragged_error(layout: _Layout, line: int, expected: int, found: int) -> InputFileError:
    """The error for a row with more fields than the header (or the first row of a file
    without one); it never quotes the row."""
    first = "the header" if layout.named else "the first line"
    return InputFileError(
        f"{layout.name}: line {line} has {found} fields but {first} has {expected} "
        f"(delimiter {layout.sep!r}); quote values that contain the delimiter, or pass --sep "
        "if that is not the delimiter"
    )


def parse_layout(layout: _Layout, as_text: bool) -> pd.DataFrame:
    """Parse the whole file with pandas' C engine, inferring each column's dtype once.

    pandas infers dtypes per chunk by default, which can leave a column holding both 1 and
    "1" (a different value for equality): if it warns about that, re-read in one piece.
    """
    if as_text:
        return _read_csv(layout, low_memory=True, dtype=str)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.DtypeWarning)
        try:
            return _read_csv(layout, low_memory=True)
        except pd.errors.DtypeWarning:
            pass
    return _read_csv(layout, low_memory=False)


def _read_csv(layout: _Layout, *, low_memory: bool, dtype: type[str] | None = None) -> pd.DataFrame:
    """One ``pd.read_csv`` call, its parse errors turned into InputFileError.

    A plain file goes to pandas by name (its lines were checked by :func:`inspect_records`);
    a compressed file or zip member is streamed from the bounded handle opened here.
    """
    name, compression, sep = layout.name, layout.compression, layout.sep

    def read(source: str | limits.BoundedStream) -> pd.DataFrame:
        return pd.read_csv(
            source,
            sep=sep,
            encoding=layout.encoding,
            skiprows=layout.skip,
            header=None if layout.given_names else "infer",
            names=layout.header if layout.given_names else None,
            engine="c",
            keep_default_na=False,
            na_values=[""],
            index_col=False,
            low_memory=low_memory,
            dtype=dtype,
            compression=None,  # told by the content (_compression_of), not the name
        )

    try:
        if compression is None:
            return read(name)
        with _open_binary(name, compression, "text") as handle:
            return read(handle)
    except pd.errors.EmptyDataError:
        raise InputFileError(f"{name} is empty; pass a file with a header row") from None
    except pd.errors.ParserError as exc:
        raise _parser_error(layout, str(exc)) from None


def _parser_error(layout: _Layout, message: str) -> InputFileError:
    """Rephrase a pandas ParserError without any text of the file."""
    name, sep = layout.name, layout.sep
    if ragged := _RAGGED.search(message):
        expected, line, found = map(int, ragged.groups())
        return _ragged_error(layout, line, expected, found)
    if open_quote := _OPEN_QUOTE.search(message):
        line = int(open_quote.group(1)) + 1  # pandas counts rows from 0, lines from 1
        return InputFileError(
            f"{name}: the quoted field starting on line {line} is never closed; "
            'check that line for a stray double quote (")'
        )
    return InputFileError(
        f"{name} cannot be parsed as a table with delimiter {sep!r}; check its quoting, "
        "or pass --sep"
    )


# -- writing a table like the one read, and reading a hierarchy file ----------------------------


@dataclass(frozen=True)
class TextForm:
    """How a delimited file is written: what :func:`write_table` needs to write another like
    it (same delimiter, encoding and line ending)."""

    sep: str
    encoding: str
    lineterminator: str


def text_form(
    path: str | os.PathLike[str], *, sep: str | None = None, encoding: str | None = None
) -> TextForm:
    """The delimiter and encoding :func:`read_table` uses for ``path`` (``sep`` and
    ``encoding`` override detection as there) and its line ending (``\\r\\n`` when its first
    line ends so, else ``\\n``). Raises what :func:`read_table` raises for an unusable file."""
    layout = _inspect(path, None, sep, encoding)
    with io_errors(layout.name, layout.compression):
        sample, complete = _read_sample(layout.name, layout.compression)
    _, text = _sample_text(layout.name, sample, complete, layout.encoding)
    end = text.find("\n")
    return TextForm(layout.sep, layout.encoding, "\r\n" if text[end - 1 : end] == "\r" else "\n")


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str], form: TextForm) -> None:
    """Write ``frame`` (header, no index) to ``path`` in ``form``, compressed as the name
    says (``.gz``, ``.bz2``, ``.xz``, ``.zip``), never leaving a half-written file.

    The rows go to a temporary file in the same folder, which then replaces the target in one
    step (``os.replace``): on any failure the target is as it was and the temporary file is
    removed. A symbolic link is followed (its target is replaced, as ``>`` in a shell writes
    through it); the new file keeps the permissions of the file it replaces. Text that
    ``form.encoding`` cannot hold (a label in a legacy encoding) is written as UTF-8 with a
    warning. Raises :class:`OutputFileError`, naming the file, when it cannot be written.
    """
    name = os.fspath(path)
    target = output_file(name)
    compression: Compression | dict[str, str] | None = _COMPRESSIONS.get(
        PurePath(name).suffix.lower()
    )
    if compression == "zip":  # the member is named as the archive without .zip (a.csv.zip)
        member = PurePath(name).stem  # or a.zip: a.csv
        if not PurePath(member).suffix:
            member += ".tsv" if form.sep == "\t" else ".csv"
        compression = {"method": "zip", "archive_name": member}
    # Named before the try and created inside it, so that a signal arriving at any point
    # (SIGTERM and Ctrl-C are exceptions in the command line) finds the finally clause
    # below ready to remove it: tempfile.mkstemp, called before the try, left a window.
    temporary = _temporary_name(target)

    def write(encoding: str) -> None:
        if compression is None and _write_arrow(frame, temporary, form, encoding):
            return
        frame.to_csv(
            temporary,
            encoding=encoding,
            index=False,
            sep=form.sep,
            lineterminator=form.lineterminator,
            compression=compression,
        )

    try:
        with writing(name):
            while not _created(temporary):  # a name taken (1 in 2**64): another one
                temporary = _temporary_name(target)
            try:
                write(form.encoding)
            except UnicodeEncodeError:
                warn(
                    f"{name} is written as UTF-8: its input's encoding {form.encoding} cannot "
                    "hold every generalized label",
                    AnonWarning,
                )
                write("utf-8")
            os.chmod(temporary, _new_file_mode(target))
            os.replace(temporary, target)
    finally:
        with suppress(FileNotFoundError):  # gone once it has replaced the target
            os.unlink(temporary)


def _write_arrow(frame: pd.DataFrame, path: str, form: TextForm, encoding: str) -> bool:
    """Write ``frame`` as ``frame.to_csv`` writes it (header, no index, ``form``), with
    pyarrow's multi-threaded writer; False, having written nothing that counts, where that
    would not give the same bytes: a column that is not text (numbers are formatted
    otherwise), an encoding other than UTF-8, a single column (the csv module quotes an
    empty row), or a value that needs quoting (a delimiter, quote or line break, which
    pyarrow's writer, told not to quote, refuses)."""
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8") or frame.shape[1] < 2:
        return False
    columns = []
    for name in frame.columns:
        column = _arrow_text(frame[name])
        if column is None:
            return False
        columns.append(column)
    table = pa.table(columns, names=[str(name) for name in frame.columns])
    header = io.StringIO()
    csv.writer(header, delimiter=form.sep, lineterminator=form.lineterminator).writerow(
        frame.columns
    )
    ending: dict[str, Any] = {"eol": form.lineterminator} if form.lineterminator != "\n" else {}
    try:  # eol is not in pyarrow-stubs, nor in every pyarrow
        options = pa_csv.WriteOptions(
            include_header=False, delimiter=form.sep, quoting_style="none", **ending
        )
    except TypeError:
        return False
    with open(path, "wb") as handle:
        handle.write(header.getvalue().encode(encoding))
        try:  # its message quotes the value: never shown
            pa_csv.write_csv(table, handle, write_options=options)
        except pa.ArrowInvalid:
            return False
    return True


def _arrow_text(series: pd.Series) -> pa.Array | pa.ChunkedArray | None:
    """The column as Arrow text (missing values null), or None when it holds anything
    but text and missing values."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        categories = series.cat.categories
        if not (len(categories) == 0 or pd.api.types.infer_dtype(categories) == "string"):
            return None
        codes = pa.array(series.cat.codes.to_numpy(), mask=series.isna().to_numpy())
        dictionary = pa.array(categories.to_numpy(dtype=object), type=pa.string())
        return pa.DictionaryArray.from_arrays(codes, dictionary).dictionary_decode()
    if not pd.api.types.is_string_dtype(series.dtype):
        return None
    try:
        return pa.array(series, type=pa.large_string(), from_pandas=True)
    except (pa.ArrowException, UnicodeError):  # another object, or a lone surrogate
        return None


def _temporary_name(target: str) -> str:
    """A new hidden name beside ``target`` (``.out.csv.<16 hex digits>.tmp``)."""
    folder, base = os.path.split(target)
    return os.path.join(folder, f".{base}.{secrets.token_hex(8)}.tmp")


def _created(path: str) -> bool:
    """Create the empty file ``path`` readable by its owner only, as :func:`tempfile.mkstemp`
    does; False when the name is taken."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    return True


def _new_file_mode(target: str) -> int:
    """The permissions of the file ``target`` replaces, or those a new file gets by default."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def read_hierarchy(path: str | os.PathLike[str]) -> Hierarchy:
    """A hierarchy file named on the command line, read by :meth:`Hierarchy.from_csv` (ARX's
    format: ``;``-separated UTF-8, no header, one row per value, one column per level) and
    named by its path; every way it can fail is one error naming the file."""
    name = os.fspath(path)
    with io_errors(name, None):
        try:
            return Hierarchy.from_csv(name, name=name)
        except HierarchyError as exc:  # most messages name the hierarchy: it is named name
            if str(exc).startswith(name) or f"hierarchy {name}" in str(exc):
                raise
            raise HierarchyError(f"{name}: {exc}") from None
