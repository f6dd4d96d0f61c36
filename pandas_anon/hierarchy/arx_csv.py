"""ARX's hierarchy CSV format: read a file into a :class:`Hierarchy`, write one out.

The format of the ARX anonymization tool (``AttributeType.Hierarchy.create(file, charset,
delimiter)`` and ``Hierarchy.save(file, delimiter)``), which is also the format of the UCI
Adult hierarchies: one row per value, one column per level (the value itself first, the top
level last), no header, ``;`` between columns, ``"`` around a value that holds the delimiter,
a quote or a line break (a quote inside doubled), ``\\n`` after every row. Every cell is
text, read literally: ``NA`` stays the string ``"NA"``.

Reading checks the table before building the hierarchy, so that a malformed file is reported
with its line: a row with another number of columns than the first, a value listed twice with
different labels, a label under two parents at the level above. Writing gives back the bytes
ARX writes, so a file read and written again is identical (ARX ends the last row with a line
break; a file without one gains it).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Hashable, Sequence
from typing import IO

import numpy as np
import pandas as pd

from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.hierarchy.model import Hierarchy, require_hierarchy
from pandas_anon.params import encoding as text_encoding
from pandas_anon.params import output_file, writing

#: ARX's default delimiter (``CSVSyntax.DEFAULT_DELIMITER``).
DELIMITER = ";"
#: How many faulty lines a message names before counting the rest.
_LISTED = 5
#: Other delimiters a file with a single column may be using.
_OTHER_DELIMITERS = (",", "\t", "|", ";")

Source = str | os.PathLike[str] | IO[str] | IO[bytes]


def read_arx_csv(
    source: Source,
    *,
    delimiter: str = DELIMITER,
    encoding: str = "utf-8",
    header: bool = False,
    name: str | None = None,
) -> Hierarchy:
    """Read a hierarchy in ARX's CSV format.

    Parameters
    ----------
    source : str, path or file-like
        The file's path, or an open file (text, or binary decoded with ``encoding``).
    delimiter : str, default ";"
        The one character between columns (ARX's ``delimiter``).
    encoding : str, default "utf-8"
        The file's encoding (ARX's ``charset``); a UTF-8 byte-order mark is skipped.
    header : bool, default False
        Whether the first row names the levels (ARX's files have no header).
    name : str, optional
        The hierarchy's name.

    Returns
    -------
    Hierarchy
        Level 0 the first column, one level per further column; a top level ``*`` is added
        when the last column has several labels.

    Raises
    ------
    HierarchyError
        The file is missing, not text in ``encoding``, empty, ragged (a row with another
        number of columns than the first), or not a tree (a value listed twice with different
        labels, a label under two labels of the level above): the message names the file, the
        line(s) and the fix.
    InvalidParameterError
        ``source`` is neither a path nor a buffer, or ``encoding`` is no text encoding.

    Examples
    --------
    >>> import io
    >>> text = "34;30-39;*\\n38;30-39;*\\n51;50-59;*\\n"
    >>> age = read_arx_csv(io.StringIO(text), name="age")
    >>> age
    Hierarchy(age: 3 levels, labels 3 -> 2 -> 1)
    >>> age.generalize(pd.Series([51, 34]), 1).tolist()
    ['50-59', '30-39']
    >>> read_arx_csv(io.StringIO("34;30-39\\n38\\n"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pandas_anon.errors.HierarchyError: the hierarchy buffer, line 2: 1 column where line 1 has 2; ...
    """
    if not isinstance(source, str | os.PathLike) and not hasattr(source, "read"):
        raise InvalidParameterError(
            f"source must be a file path or a buffer (io.StringIO), got "
            f"{type(source).__name__} {source!r}"
        )
    where = _describe(source)
    _check_delimiter(delimiter)
    text_encoding(encoding)
    rows, lines = _rows(_text(source, encoding, where), delimiter, where)
    if not rows:
        raise HierarchyError(
            f"{where} is empty; a hierarchy file has one row per value, one "
            f"{delimiter!r}-separated column per level"
        )
    level_names: list[str] | None = None
    if header:
        level_names, rows, lines = rows[0], rows[1:], lines[1:]
        if not rows:
            raise HierarchyError(f"{where} has a header but no value; add one row per value")
    _check_widths(rows, lines, delimiter, where)
    _check_tree(rows, lines, where)
    columns = list(zip(*rows))
    try:
        return Hierarchy(
            list(columns[0]), [list(c) for c in columns[1:]], name=name, level_names=level_names
        )
    except HierarchyError as error:
        raise HierarchyError(f"{where}: {error}", unmatched=error.unmatched) from None


def write_arx_csv(
    hierarchy: Hierarchy,
    target: str | os.PathLike[str] | IO[str] | None = None,
    *,
    delimiter: str = DELIMITER,
    encoding: str = "utf-8",
) -> str | None:
    """Write ``hierarchy`` in ARX's CSV format, as ARX's ``Hierarchy.save`` does.

    One row per level-0 value (in the hierarchy's order), one column per level, top level
    included; values holding the delimiter, a quote or a line break are quoted. Labels are
    written as text, whole floats without their ``.0`` (``1944.0`` as ``1944``).

    Parameters
    ----------
    hierarchy : Hierarchy
        The hierarchy to write.
    target : str, path or text file, optional
        Where to write; ``None`` returns the text instead.
    delimiter : str, default ";"
        The one character between columns.
    encoding : str, default "utf-8"
        The file's encoding, when ``target`` is a path.

    Returns
    -------
    str or None
        The text when ``target`` is ``None``.

    Raises
    ------
    HierarchyError
        ``hierarchy`` is not a :class:`Hierarchy`, or a label cannot be written in
        ``encoding``.
    OutputFileError
        ``target`` is a directory, in a folder that does not exist, or cannot be written.
    InvalidParameterError
        ``target`` is neither a path, a buffer nor None, or ``encoding`` is no text encoding.

    Examples
    --------
    >>> h = Hierarchy([34, 38, 51], [["30-39", "30-39", "50-59"]])
    >>> print(write_arx_csv(h), end="")
    34;30-39;*
    38;30-39;*
    51;50-59;*
    >>> print(write_arx_csv(Hierarchy(["a;b", "c"])), end="")
    "a;b";*
    c;*
    """
    require_hierarchy(hierarchy, "write_arx_csv")
    _check_delimiter(delimiter)
    text_encoding(encoding)
    if (
        target is not None
        and not isinstance(target, str | os.PathLike)
        and not hasattr(target, "write")
    ):
        raise InvalidParameterError(
            f"target must be a file path, a text buffer (io.StringIO) or None, got "
            f"{type(target).__name__} {target!r}"
        )
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, quotechar='"', lineterminator="\n")
    columns = [
        _as_text(hierarchy.labels(j)).take(hierarchy.codes(j)) for j in range(hierarchy.n_levels)
    ]
    writer.writerows(zip(*columns))
    text = buffer.getvalue()
    if target is None:
        return text
    if isinstance(target, str | os.PathLike):
        where = os.fspath(target)
        output_file(target, "target")
        try:
            with writing(where), open(target, "w", encoding=encoding, newline="") as fh:
                fh.write(text)
        except UnicodeEncodeError:
            raise HierarchyError(
                f"{where}: a label of hierarchy {hierarchy.name or '(unnamed)'} cannot be "
                f"written in {encoding}; write it as UTF-8"
            ) from None
    else:
        target.write(text)
    return None


# -- reading ------------------------------------------------------------------------------------


def _describe(source: Source) -> str:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    named = getattr(source, "name", None)
    return named if isinstance(named, str) else "the hierarchy buffer"


def _check_delimiter(delimiter: str) -> None:
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
        raise HierarchyError(
            f"delimiter {delimiter!r} is not one character; give the character between "
            f"columns, like ';' (ARX's default) or ','"
        )


def _text(source: Source, encoding: str, where: str) -> str:
    """The whole text of ``source``, a UTF-8 byte-order mark dropped."""
    codec = "utf-8-sig" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else encoding
    try:
        if isinstance(source, str | os.PathLike):
            with open(source, encoding=codec, newline="") as fh:
                return fh.read()
        content = source.read()
        return content.decode(codec) if isinstance(content, bytes) else content
    except (FileNotFoundError, NotADirectoryError):
        raise HierarchyError(f"{where}: no such file; check the path") from None
    except IsADirectoryError:
        raise HierarchyError(
            f"{where} is a directory; pass the path of a CSV or TSV file"
        ) from None
    except UnicodeDecodeError:
        raise HierarchyError(
            f"{where} is not valid {encoding.upper()} text; save the hierarchy file as "
            f"{encoding.upper()}"
        ) from None
    except OSError as error:  # no permission, a device gone
        raise HierarchyError(
            f"{where} cannot be read: {error.strerror or error}; check the file and its rights"
        ) from None


def _rows(text: str, delimiter: str, where: str) -> tuple[list[list[str]], list[int]]:
    """The non-blank rows of ``text``, and the line each starts on."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows, lines, line = [], [], 1
    try:
        for row in reader:
            if row:  # ARX skips empty lines
                rows.append(row)
                lines.append(line)
            line = reader.line_num + 1
    except csv.Error as error:
        raise HierarchyError(
            f"{where}, line {line}: {error}; quote a value holding {delimiter!r} or a line break "
            f'as "value", with any quote inside doubled ("")'
        ) from None
    return rows, lines


def _check_widths(rows: list[list[str]], lines: list[int], delimiter: str, where: str) -> None:
    width = len(rows[0])
    ragged = [(line, len(row)) for row, line in zip(rows, lines) if len(row) != width]
    if ragged:
        line, n = ragged[0]
        more = f" (and {len(ragged) - 1:,} more lines)" if len(ragged) > 1 else ""
        raise HierarchyError(
            f"{where}, line {line}: {_columns(n)} where line {lines[0]} has {width}{more}; "
            f"every row must have the same number of {delimiter!r}-separated columns (one per "
            f"level), values with {delimiter!r} quoted"
        )
    if width == 1:
        first = rows[0][0]
        other = next((d for d in _OTHER_DELIMITERS if d != delimiter and d in first), None)
        if other is not None:
            raise HierarchyError(
                f"{where}: every row has one column, and line {lines[0]} holds {other!r}; if "
                f"the file is {other!r}-separated, pass delimiter={other!r}"
            )


def _check_tree(rows: list[list[str]], lines: list[int], where: str) -> None:
    """Each value on one row (or rows identical), each label under one parent."""
    first: dict[str, tuple[list[str], int]] = {}
    for row, line in zip(rows, lines):
        seen = first.setdefault(row[0], (row, line))
        if seen[0] != row:
            raise HierarchyError(
                f"{where}, lines {seen[1]} and {line}: value {row[0]!r} listed more than once "
                f"with different labels; keep one row per value"
            )
    for j in range(1, len(rows[0]) - 1):
        parent: dict[str, tuple[str, int]] = {}
        for row, line in zip(rows, lines):
            above, at = parent.setdefault(row[j], (row[j + 1], line))
            if above != row[j + 1]:
                raise HierarchyError(
                    f"{where}: level {j} label {row[j]!r} falls under {above!r} (line {at}) and "
                    f"{row[j + 1]!r} (line {line}) at level {j + 1}; a label must generalize to "
                    f"one parent: correct one of the two lines"
                )


def _columns(n: int) -> str:
    return f"{n} column" if n == 1 else f"{n} columns"


# -- writing ------------------------------------------------------------------------------------


def _as_text(labels: pd.Index) -> pd.Index:
    """Labels as ARX writes them: text, whole floats without ``.0``, missing as empty."""
    return pd.Index([_cell(v) for v in labels], dtype=object)


def _cell(value: Hashable) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


__all__: Sequence[str] = ["DELIMITER", "read_arx_csv", "write_arx_csv"]
