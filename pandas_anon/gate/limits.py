"""Limits on what the gate reads from one table: decompression and parsing are bounded.

A small file can cost minutes and gigabytes: a 400 KB ``.json.gz`` expanding to a JSON
document of hundreds of MB, a 2 MB zip holding a CSV of 1 GB, a file of 50 MB with no line
break. The gate refuses such input (fail closed: an :class:`~pandas_anon.errors.InputFileError`,
exit 2) at six limits, each a configuration key and a ``pandas-anon check`` option:

========================  =========================  ========  ===================================
key                       option                     default   what it bounds
========================  =========================  ========  ===================================
``max_expanded_size``     ``--max-expanded-size``    4 GiB     bytes decompressed from a
                                                               compressed file or archive member
``max_ratio``             ``--max-ratio``            100       those bytes per compressed byte,
                                                               past :data:`RATIO_FROM` (a bomb)
``max_document_size``     ``--max-document-size``    64 MiB    a JSON, JSON Lines or workbook
                                                               (its XML), parsed whole in memory
``max_line_length``       ``--max-line-length``      1 MiB     the longest line of delimited text
``max_cells``             ``--max-cells``            5x10**7    cells (rows x columns read) of a
                                                               Parquet file, also of each file
                                                               a Dask worker reads
``max_sheet_cells``       ``--max-sheet-cells``      10**7     cells of a sheet as its repeated
                                                               rows and cells and the empty
                                                               cells before its last expand
========================  =========================  ========  ===================================

Every byte decompressed passes through a :class:`BoundedStream`, which counts it and raises
as soon as a limit is crossed, before the parser holds more; a zip member's declared size is
checked before it is opened, with the sizes all the archive's members declare (against the
ratio to the archive's size: an overlapping zip bomb's members share their compressed bytes),
and a workbook's members' declared sizes before its engine opens it (Python's :mod:`zipfile`
never yields more than a member declares). A plain delimited file
is parsed from its path (pyarrow's fast reader); its lines are checked first by
:func:`check_lines`, which jumps from line break to line break a limit apart and so reads
a small block per limit's length of the file. The limits in force are :func:`current`'s: the defaults, or those
:func:`applied` sets for the reading done inside it (``pandas-anon check`` applies each file's
settings). Messages name the file, the limit and how to raise it, never a value of the file.

Cells are counted before they are built: a Parquet file's rows from its metadata, then each
batch as it is read (:func:`check_cells`); a sheet's cells from its rows' and cells' repeat
counts and the positions of its written cells, before the engine expands them (one
``table:number-rows-repeated`` of an 863-byte ``.ods``, or one far cell of a 5 KB ``.xlsx``,
would otherwise be tens of millions of rows, or billions of cells, in memory).
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO

from pandas_anon.errors import InputFileError, InvalidParameterError
from pandas_anon.params import from_text, real, whole

#: Characters of text outside the table (titles, notes, properties, comments) a file may
#: carry in all, unread (:class:`pandas_anon.gate.parsers.account.Leftover`).
TEXT_BUDGET = 1_000
#: Expanded bytes under which the ratio is not checked: small compressed files of repetitive
#: text (a column of zeros) expand 1,000 times and are not bombs.
RATIO_FROM = 16 << 20
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS.update({"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40})
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*")


@dataclass(frozen=True)
class InputLimits:
    """The limits on reading one table (see the module's docstring).

    Attributes
    ----------
    max_expanded_size : int
        Bytes a compressed file or archive member may expand to.
    max_ratio : float
        Expanded bytes per compressed byte, checked past :data:`RATIO_FROM`.
    max_document_size : int
        Bytes of a JSON, JSON Lines or workbook (after decompression), parsed whole.
    max_line_length : int
        Bytes of the longest line of delimited text (line breaks: LF, CR or CRLF).
    max_cells : int
        Cells (rows times columns read) of a Parquet file, on either engine.
    max_sheet_cells : int
        Cells of a sheet once its repeats and empty cells are expanded.
    """

    max_expanded_size: int = 4 << 30
    max_ratio: float = 100.0
    max_document_size: int = 64 << 20
    max_line_length: int = 1 << 20
    max_cells: int = 5 * 10**7
    max_sheet_cells: int = 10**7


#: The limits when none are :func:`applied`.
DEFAULTS = InputLimits()
_LIMITS: ContextVar[InputLimits] = ContextVar("input_limits", default=DEFAULTS)


def current() -> InputLimits:
    """The limits reading obeys here: those :func:`applied` set, else the defaults."""
    return _LIMITS.get()


@contextmanager
def applied(limits: InputLimits) -> Iterator[None]:
    """Read under ``limits`` inside the block (then the previous limits again)."""
    token = _LIMITS.set(limits)
    try:
        yield
    finally:
        _LIMITS.reset(token)


# -- the values of the keys and options -------------------------------------------------------


def byte_size(value: object, name: str) -> int:
    """``value`` as a number of bytes: a whole number (``1048576``), or text with a unit,
    decimal (``"500 MB"``) or binary (``"64 MiB"``, ``"4GiB"``), in any case; an
    :class:`~pandas_anon.errors.InvalidParameterError` naming ``name`` otherwise."""
    if isinstance(value, str):
        match = _SIZE.fullmatch(value)
        factor = _UNITS.get(match.group(2).lower()) if match else None
        if match is not None and factor is not None and float(match.group(1)) * factor >= 1:
            return int(float(match.group(1)) * factor)
        raise InvalidParameterError(
            f"{name} must be a size in bytes such as 1048576, '64 MiB' or '4 GiB', got {value!r}"
        )
    return whole(value, name, example=1 << 20)


def cell_count(value: object, name: str) -> int:
    """``value`` as a number of cells: a whole number of at least 1 (text from the command
    line spelling one, ``"100000000"``, too)."""
    return whole(from_text(value), name, example=5 * 10**7)


def ratio(value: object, name: str) -> float:
    """``value`` as a compression ratio: a finite number above 1."""
    return float(real(value, name, low=1, above=True, example=100))


def size_text(size: int) -> str:
    """``size`` bytes in binary units, as messages and the docs give them (``64 MiB``)."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{size:,} bytes"


def _raise_it(key: str) -> str:
    """How to raise the limit ``key``: its option and its configuration key."""
    return f"raise the limit with --{key.replace('_', '-')} ({key} in the configuration)"


def check_cells(name: str, cells: int, key: str, *, where: str = "") -> None:
    """Refuse the table ``name`` when it holds more cells than the ``key`` limit
    (``max_cells`` or ``max_sheet_cells``) allows (every column is read, a QID's and the
    others); ``where`` says what was counted, for the message."""
    limit: int = getattr(current(), key)
    if cells > limit:
        raise InputFileError(
            f"{name}{where} holds more than {limit:,} cells (rows times columns), which the "
            f"gate would hold in memory; if it is a real table, {_raise_it(key)}"
        )


# -- what a stream may expand to --------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    """The most bytes a stream may yield, and the limit that sets it (for the message)."""

    size: int
    key: str
    problem: str  # what the file does past the bound: "expands to more than 4 GiB ..."

    def error(self, name: str) -> InputFileError:
        """The error for ``name`` past this bound."""
        fix = _raise_it(self.key)
        if self.key == "max_document_size":
            fix += ", or publish the table as CSV or Parquet"
        else:
            fix = f"if it is a real table, {fix}"
        return InputFileError(f"{name} {self.problem}; {fix}")


def bound(compressed: int | None, *, document: bool) -> Bound | None:
    """The tightest bound the current limits set on a stream's bytes: ``compressed`` is its
    compressed size (None for a plain file), ``document`` whether it is parsed whole in
    memory; None when nothing bounds it."""
    limits = current()
    bounds = []
    if compressed is not None:
        bounds.append(
            Bound(
                limits.max_expanded_size,
                "max_expanded_size",
                f"expands to more than {size_text(limits.max_expanded_size)} when decompressed",
            )
        )
        by_ratio = max(RATIO_FROM, int(limits.max_ratio * compressed))
        bounds.append(
            Bound(
                by_ratio,
                "max_ratio",
                f"expands to more than {limits.max_ratio:g} times its compressed size of "
                f"{size_text(compressed)}, as a decompression bomb does",
            )
        )
    if document:
        bounds.append(
            Bound(
                limits.max_document_size,
                "max_document_size",
                f"holds more than {size_text(limits.max_document_size)}, which the gate "
                "would parse whole in memory",
            )
        )
    return min(bounds, key=lambda b: b.size, default=None)


def check_size(name: str, size: int, limit: Bound | None) -> None:
    """Refuse ``name`` when its (declared) ``size`` is past ``limit``."""
    if limit is not None and size > limit.size:
        raise limit.error(name)


class BoundedStream(io.RawIOBase):
    """A binary stream read through: its bytes counted against ``limit`` and, given
    ``line_length``, its lines checked (:class:`_LineScanner`); an InputFileError as soon
    as either is crossed. Closing it leaves ``raw`` open (its opener closes it).

    Parameters
    ----------
    raw : binary file
        The stream, e.g. a decompressor.
    name : str
        The file's name, for messages.
    limit : Bound, optional
        The most bytes ``raw`` may yield.
    line_length : int, optional
        The longest line allowed.
    """

    def __init__(
        self,
        raw: IO[bytes] | io.BufferedIOBase,
        name: str,
        limit: Bound | None,
        line_length: int | None = None,
    ) -> None:
        super().__init__()
        self._raw, self._name, self._limit = raw, name, limit
        self._count = 0
        self._lines = _LineScanner(name, line_length) if line_length is not None else None

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all, when negative), checked against the limits."""
        size = -1 if size is None else size
        if self._limit is None:
            data = self._raw.read(size)
        else:  # one byte past the room left tells whether there is more
            room = self._limit.size - self._count + 1
            data = self._raw.read(room if size < 0 else min(size, room))
        if self._lines is not None:
            self._lines.feed(data)
        self._count += len(data)
        if self._limit is not None and self._count > self._limit.size:
            raise self._limit.error(self._name)
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def check_workbook(name: str, source: str | IO[bytes]) -> None:
    """Refuse a workbook (a zip archive of XML, as ``.xlsx`` and ``.ods`` are) whose members
    declare more bytes than the current limits allow a document: :mod:`zipfile` yields no
    more than a member declares, so its engine then reads no more. A file that is no zip
    archive is left to its engine, which says what is wrong."""
    try:
        with zipfile.ZipFile(source) as book:
            expanded, size = _declared(book)
    except (zipfile.BadZipFile, OSError):
        return
    finally:
        if not isinstance(source, str):
            source.seek(0)
    check_size(name, expanded, bound(size, document=True))


def check_archive(name: str, archive: zipfile.ZipFile) -> None:
    """Refuse the member ``name`` of ``archive`` when all its members together declare more
    than ``max_ratio`` times the archive's size (past :data:`RATIO_FROM`): many members each
    too small for the ratio to apply, or members sharing their compressed bytes (an
    overlapping zip bomb), expand as much as one bomb."""
    expanded, size = _declared(archive)
    limits = current()
    check_size(
        name,
        expanded,
        Bound(
            max(RATIO_FROM, int(limits.max_ratio * size)),
            "max_ratio",
            f"is in an archive whose members expand to more than {limits.max_ratio:g} times "
            f"its size of {size_text(size)}, as a decompression bomb's do",
        ),
    )


def _declared(archive: zipfile.ZipFile) -> tuple[int, int]:
    """The bytes the members of ``archive`` declare in all, and the archive's own size."""
    assert archive.fp is not None  # open: its members are being read
    position = archive.fp.tell()
    size = archive.fp.seek(0, io.SEEK_END)
    archive.fp.seek(position)
    return sum(member.file_size for member in archive.infolist()), size


# -- lines ------------------------------------------------------------------------------------


class _LineScanner:
    """Checks that no line of a stream fed in pieces is longer than ``limit`` bytes.

    From the last line break found, the next must lie within ``limit`` bytes: the last break
    in that window (``rfind``, which stops at the first break from the window's end) is the
    next start. A piece of ``n`` bytes costs about ``n / limit`` searches of a line's length
    each, not a look at every byte.
    """

    def __init__(self, name: str, limit: int) -> None:
        self.name, self.limit = name, limit
        self.run = 0  # bytes of the current line before the piece being fed
        self.start = 0  # offset of the current line in the stream
        self.offset = 0  # offset of the piece being fed

    def feed(self, data: bytes | _FileBytes) -> None:
        """Check the next ``data`` of the stream."""
        position, size = 0, len(data)
        while True:
            end = position + self.limit - self.run + 1  # a break must come before end
            last = _last_break(data, position, min(end, size))
            if last >= 0:
                self.run, self.start, position = 0, self.offset + last + 1, last + 1
            elif end <= size:
                raise InputFileError(
                    f"{self.name} has a line longer than {size_text(self.limit)} (from byte "
                    f"{self.start:,} of its content): a table has a line break after each row; "
                    f"if its rows are that long, {_raise_it('max_line_length')}"
                )
            if end > size:
                self.run += size - position
                self.offset += size
                return


class _FileBytes:
    """The bytes of an open file as :class:`_LineScanner` searches them: backwards from a
    position, a block read at a time, so that a search ending in a short line reads one
    block, never the file."""

    BLOCK = 1 << 14

    def __init__(self, file: io.FileIO, size: int) -> None:
        self.file, self.size = file, size

    def __len__(self) -> int:
        return self.size

    def rfind(self, byte: bytes, start: int, end: int) -> int:
        """The last position of the one-byte ``byte`` in ``[start, end)``, or -1."""
        while end > start:
            low = max(start, end - self.BLOCK)
            self.file.seek(low)
            found = self.file.read(end - low).rfind(byte)
            if found >= 0:
                return low + found
            end = low
        return -1


def _last_break(data: bytes | _FileBytes, start: int, end: int) -> int:
    """The position of the last line break (LF, else CR) in ``data[start:end]``, or -1."""
    last = data.rfind(b"\n", start, end)
    return last if last >= 0 else data.rfind(b"\r", start, end)


def check_lines(name: str, path: str, limit: int | None = None) -> None:
    """Refuse the plain file ``path`` (named ``name``) when a line is longer than ``limit``
    (default: the current ``max_line_length``). The file is not read whole: only a block
    before each line break found (:class:`_FileBytes`)."""
    limit = current().max_line_length if limit is None else limit
    with open(path, "rb", buffering=0) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            _LineScanner(name, limit).feed(_FileBytes(handle, size))
