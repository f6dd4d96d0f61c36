"""The reading layer of the gate: one module per format, behind a format -> reader table.

:func:`read` finds a file's format from its content (:func:`sniff`: magic bytes, else JSON's
first non-space character, else delimited text; the name only breaks ties), reads it with
the reader :data:`READERS` names for that format, and returns the table with its
:class:`~pandas_anon.gate.parsers.account.Account`: the values the file holds and where each
went. ``pandas-anon check`` passes a file only when that account is closed.

Delimited text (:mod:`.delimited`), JSON (:mod:`.json`), Parquet (:mod:`.parquet`) and
workbooks (:mod:`.sheets`, a sheet each) are read here, and archives (zip and tar, told by their content) are opened by
:func:`pandas_anon.gate.io.tables_in`, which accounts for every member: each read here as a
file of its own, or named as what is not read.
"""

from __future__ import annotations

import json as stdjson
import os
from collections.abc import Callable, Sequence
from typing import NamedTuple

import pandas as pd

from pandas_anon.errors import InputFileError
from pandas_anon.gate import io
from pandas_anon.gate.formats import Sheet
from pandas_anon.gate.parsers import delimited, parquet, sheets
from pandas_anon.gate.parsers import json as json_reader
from pandas_anon.gate.parsers.account import Account, Leftover
from pandas_anon.gate.parsers.text import with_text

__all__ = ["READERS", "Account", "Leftover", "Read", "read", "sniff"]


class Read(NamedTuple):
    """A table read from a file, and the account of the file's values."""

    frame: pd.DataFrame
    account: Account


#: A reader: (name, usecols, sep, encoding, header) -> the table and its account.
Reader = Callable[[str, Sequence[str] | None, str | None, str | None, bool | None], Read]


def _delimited(
    name: str,
    usecols: Sequence[str] | None,
    sep: str | None,
    encoding: str | None,
    header: bool | None,
) -> Read:
    return Read(*delimited.read(name, usecols=usecols, sep=sep, encoding=encoding, header=header))


def _json(lines: bool) -> Reader:
    def reader(
        name: str,
        usecols: Sequence[str] | None,
        sep: str | None,
        encoding: str | None,
        header: bool | None,
    ) -> Read:
        if encoding is not None:
            io.check_options(name, None, encoding)
        content = io.document_bytes(name)
        return Read(
            *json_reader.read(name, content, usecols=usecols, encoding=encoding, lines=lines)
        )

    return reader


def _parquet(
    name: str,
    usecols: Sequence[str] | None,
    sep: str | None,
    encoding: str | None,
    header: bool | None,
) -> Read:
    return Read(*parquet.read(name, usecols))


def _spreadsheet(
    name: str,
    usecols: Sequence[str] | None,
    sep: str | None,
    encoding: str | None,
    header: bool | None,
) -> Read:
    return Read(*sheets.read(name, usecols))


#: The reader of each format :func:`sniff` names.
READERS: dict[str, Reader] = {
    "delimited": _delimited,
    "json": _json(lines=False),
    "jsonl": _json(lines=True),
    "parquet": _parquet,
    "spreadsheet": _spreadsheet,
}
#: Bytes read from the start of a file to tell its format.
SNIFF_BYTES = 4096
#: Leading bytes of the binary formats read, and their format.
_MAGIC = {b"PAR1": "parquet", b"PK\x03\x04": "spreadsheet"}
#: Suffixes (before a compression suffix) that break a tie between formats.
_SUFFIXES = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".xlsx": "spreadsheet",
    ".ods": "spreadsheet",
}


def sniff(name: str) -> str:
    """The format of the file (or archive member, or sheet) ``name``: a key of
    :data:`READERS`.

    The decompressed content decides first: Parquet's and a workbook's magic bytes (a zip
    not named as a workbook is left to the delimited reader, which refuses it as binary),
    then the name, when it names a format read here (a file named ``.json`` that holds no
    JSON is refused by the JSON reader, not read as text), then JSON's first character (a
    BOM and spaces aside), which opens an object or an array of values; anything else is
    delimited text: JSON named ``.csv`` or ``.txt`` is read as JSON.
    """
    if isinstance(name, Sheet):
        return "spreadsheet"
    suffix = _SUFFIXES.get(io.inner_suffix(name))
    head = io.head_bytes(name, SNIFF_BYTES)
    for magic, found in _MAGIC.items():
        if head.startswith(magic) and (found != "spreadsheet" or suffix == "spreadsheet"):
            return found
    if suffix is not None:
        return suffix
    return "json" if _json_start(head) else "delimited"


def _json_start(head: bytes) -> bool:
    """Whether ``head`` starts as a JSON object, or an array of objects, arrays, strings or
    nothing (a header row such as ``[id],name`` starts otherwise)."""
    try:
        text = head.decode(stdjson.detect_encoding(head), errors="ignore")
    except LookupError:  # pragma: no cover - detect_encoding names Python codecs
        return False
    text = text.removeprefix("\ufeff").lstrip()
    if text.startswith("{"):
        return True
    return text.startswith("[") and text[1:].lstrip()[:1] in ("{", "[", '"', "]")


def read(
    path: str | os.PathLike[str],
    *,
    usecols: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    header: bool | None = None,
) -> Read:
    """The table of the file ``path`` (plain, compressed, an archive member or a sheet),
    the ``usecols`` columns (default: all) as categoricals of their values as read, and its
    account; the reader of its format (:func:`sniff`) raises what is wrong with it.

    ``sep`` and ``header`` apply to delimited text; ``encoding`` to text and JSON. The
    account also counts the text the table holds outside its values, whatever the format
    (:func:`~pandas_anon.gate.parsers.text.with_text`: long cells, names that are not a
    schema).
    """
    name = os.fspath(path)
    if isinstance(usecols, str):
        raise TypeError("usecols must be a sequence of column names, not a string")
    if not isinstance(name, (Sheet, io.ZipMember)) and os.path.isdir(name):
        raise InputFileError(f"{name} is a directory; pass the path of a CSV or TSV file")
    frame, account = READERS[sniff(name)](name, usecols, sep, encoding, header)
    return Read(frame, with_text(frame, account))
