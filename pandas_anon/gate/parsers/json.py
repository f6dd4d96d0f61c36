"""Read a JSON document or JSON Lines into a table, with the account of every leaf.

A leaf is a value of the document that holds no other: a string, a number, ``true``,
``false``, ``null``, or an empty object or array. :func:`read` counts every leaf of the
document by a walk of its own (iterative, and bounded: a document nested deeper than
:data:`MAX_DEPTH` is refused), then reads one table from it and places each leaf it read in a
column of that table; every leaf outside the table is a :class:`~.account.Leftover` named by
its path (``$.meta``), which fails the file unless a rule skips it by name
(``files = "export.json:$.meta"``, ``skip = true``).

Shapes read:

- an array of records (objects), or JSON Lines of records: ``[{"a": 1, "b": "x"}, ...]``;
  a nested object in a record is flattened into columns of its own (``{"b": {"c": 1}}``
  gives the column ``b.c``, as :func:`pandas.json_normalize` names it); a nested array is a
  value the gate cannot compare, refused when its column is read;
- an object wrapping such an array: ``{"data": [...]}``, ``{"records": [...]}``, ... The
  array read is the one list of records among the object's values; when several are, the one
  under ``data``, ``records``, ``results``, ``items`` or ``rows`` if exactly one is; when none
  is and exactly one value is an object, that object is searched the same way (CKAN's
  ``{"result": {"fields": [...], "records": [...]}}``). Whatever sits beside the array read
  is left over (``$.result.fields``);
- pandas' "split" orientation: ``{"columns": ["a", "b"], "index": [...], "data": [[1, "x"],
  ...]}``;
- pandas' "table" orientation, a Table Schema beside ``"data"``: the schema, when its fields
  are the columns of the records, is read as their description;
- an array of arrays whose first row is the header: ``[["a", "b"], [1, "x"], ...]``.

An index a writer added (the ``primaryKey`` of the "table" orientation, ``"index"`` of the
"split" one) is read as columns, unless it holds exactly the row numbers ``0, 1, ...``, which
are then read and checked to be those, and left out of the table. The other orientations of
:meth:`pandas.DataFrame.to_json` (``columns``, ``index``, ``values``) have no column names in
the shape of a table: they are refused.

Values are compared as written (:func:`pandas_anon.engine.encoding.written_codes`): ``1950``
and ``"1950"`` are two values, and so are ``true``, ``1`` and ``1.0``. Messages name the file,
columns and paths, never a value.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.errors import InputFileError
from pandas_anon.gate.formats import categoricals, select_columns
from pandas_anon.gate.parsers.account import Account, Leftover

#: Levels of nesting read; a deeper document is refused (Python's parser recurses).
MAX_DEPTH = 100
#: Keys preferred when an object holds several lists of records.
WRAPPERS = ("data", "records", "results", "items", "rows")
#: What the leaves are called in an account.
LEAVES = "JSON values"
#: Where the names of a header row go in an account.
NAMES = "(column names)"
#: Where an index of row numbers goes in an account.
ROW_NUMBERS = "(row numbers)"
#: Where a Table Schema describing the columns goes in an account.
SCHEMA = "(table schema)"
_SCALARS = (str, int, float, bool, type(None))
_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}
_SHAPES = (
    'an array of records, an object wrapping one ("data": [...]), pandas\' split form '
    '({"columns": [...], "data": [[...]]}) or an array of arrays under a header row'
)
_LEAVE_OUT = (
    "if it is not a table, leave it out (a skip = true rule, or exclude: in "
    ".pre-commit-config.yaml)"
)


def read(
    name: str,
    content: bytes,
    *,
    usecols: Sequence[str] | None = None,
    encoding: str | None = None,
    lines: bool = False,
) -> tuple[pd.DataFrame, Account]:
    """The table the JSON document (or, with ``lines``, the JSON Lines) ``content`` holds,
    as categoricals of the ``usecols`` columns (default: every column), and its account.

    A ``.json`` file holding JSON Lines is read as such.

    Parameters
    ----------
    name : str
        The file's name, for messages and the account.
    content : bytes
        The whole (decompressed) file.
    usecols : sequence of str, optional
        The columns to keep, in that order; the others are left over as declared.
    encoding : str, optional
        The text's encoding; by default UTF-8 (or UTF-16/32, told by JSON's rules).
    lines : bool
        Read JSON Lines: a record (or, after a header array, a row) per line.

    Raises
    ------
    InputFileError
        Empty, not JSON, nested deeper than :data:`MAX_DEPTH`, not of a shape read, ragged
        rows, nested values in a column kept.
    ColumnNotFoundError
        A ``usecols`` name no record holds.
    """
    if isinstance(usecols, str):
        raise TypeError("usecols must be a sequence of column names, not a string")
    text = _json_text(name, content, encoding)
    if lines:
        document: Any = _json_lines(name, text)
    else:
        try:
            document = _loads(name, text)
        except json.JSONDecodeError as error:
            found = _json_lines_or_none(name, text) if error.msg == "Extra data" else None
            if found is None:
                raise _json_error(name, error, error.lineno) from None
            document = found  # JSON Lines named .json
    units = {LEAVES: leaves(name, document)}
    table = _Table(name, usecols)
    if isinstance(document, list):
        table.array(document)
    elif isinstance(document, dict):
        table.document(document)
    else:
        raise InputFileError(
            f"{name} holds {_JSON_TYPES.get(type(document), 'a value')}, not a table; the "
            f"gate reads {_SHAPES}; {_LEAVE_OUT}"
        )
    assert table.frame is not None
    return table.frame, Account(name, units, table.placed, tuple(table.unread))


def leaves(name: str, document: Any) -> int:
    """The leaves of ``document`` (see the module's docstring), counted without recursion;
    an InputFileError past :data:`MAX_DEPTH` levels."""
    count = 0
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        items = value.values() if isinstance(value, dict) else value
        if not isinstance(value, (dict, list)) or not value:
            count += 1
            continue
        if depth >= MAX_DEPTH:
            raise _too_deep(name)
        for item in items:
            if isinstance(item, _SCALARS):
                count += 1
            else:
                stack.append((item, depth + 1))
    return count


def _too_deep(name: str) -> InputFileError:
    return InputFileError(
        f"{name} nests its values more than {MAX_DEPTH} levels deep, which no table does; "
        "publish the table as records (an array of objects), CSV or Parquet"
    )


def _loads(name: str, text: str) -> Any:
    """``json.loads``; a document too deep for Python's parser, or an object naming a key
    twice, an InputFileError."""
    try:
        return json.loads(text, object_pairs_hook=_object)
    except RecursionError:
        raise _too_deep(name) from None
    except _RepeatedKey:
        raise InputFileError(
            f"{name} has an object that names a key twice: JSON readers keep the last value "
            "and never show the first, so the gate cannot read every value; give each value "
            "a key of its own, or export the table again"
        ) from None


class _RepeatedKey(Exception):
    """An object of the document names a key twice."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``; :class:`_RepeatedKey` when a key comes twice (its first value
    would be lost, as every JSON reader loses it)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _RepeatedKey
    return found


class _Table:
    """The table read from a document, the leaves placed in it and those left over."""

    def __init__(self, name: str, usecols: Sequence[str] | None) -> None:
        self.name, self.usecols = name, usecols
        self.frame: pd.DataFrame | None = None
        self.placed: Counter[tuple[str, str]] = Counter()
        self.unread: list[Leftover] = []
        self.columns: set[str] = set()

    # -- shapes ----------------------------------------------------------------------------

    def array(self, items: list[Any]) -> None:
        """A top-level array (or JSON Lines): records, or rows under a header."""
        name = self.name
        if not items:
            raise InputFileError(f"{name} holds no record; there is nothing to check")
        kinds = set(map(type, items))
        if kinds == {dict}:
            return self.records(items)
        first = type(items[0])
        if kinds == {list}:
            header = items[0]
            if not header or set(map(type, header)) != {str}:
                raise InputFileError(
                    f"{name}: the first row of its array of arrays is not a header (column "
                    "names as strings); put the column names first, or write the rows as "
                    "records (objects)"
                )
            self.placed[name, NAMES] += len(header)
            return self.rows(header, items[1:], first=2)
        if first in (dict, list):
            index = _first_other(items, first)
            raise InputFileError(
                f"{name}: record {index + 1} is {_JSON_TYPES.get(type(items[index]))}, but "
                f"the first is {_JSON_TYPES[first]}; write every record the same way"
            )
        raise InputFileError(
            f"{name} holds values (strings, numbers), not records (objects) or rows "
            f"(arrays); the gate reads {_SHAPES}; {_LEAVE_OUT}"
        )

    def document(self, document: dict[str, Any]) -> None:
        """A top-level object: pandas' split form, else the records it wraps."""
        split = _split(document)
        if split is not None:
            header, rows = split
            self.placed[self.name, NAMES] += len(header) or 1  # [] is one leaf
            self.rows(header, rows, first=1, index=document.get("index"))
            self.leave("$", document, {"columns", "data", "index"})
            return
        path = _records_path(self.name, document)
        parent, where = document, "$"
        for key in path[:-1]:
            self.leave(where, parent, {key})
            parent, where = parent[key], f"{where}.{key}"
        schema = parent.get("schema")
        self.records(parent[path[-1]], index=_table_index(schema))
        if schema is not None and self._describes(schema):  # read as the columns' description
            self.placed[self.name, SCHEMA] += leaves(self.name, schema)
            self.leave(where, parent, {path[-1], "schema"})
        else:
            self.leave(where, parent, {path[-1]})

    def leave(self, path: str, parent: dict[str, Any], read: set[str]) -> None:
        """Leave over every value of ``parent`` (at ``path``) but those under ``read``."""
        for key, value in parent.items():
            if key not in read:
                self.unread.append(
                    Leftover(
                        f"{path}.{key}",
                        LEAVES,
                        leaves(self.name, value),
                        "outside the table read",
                    )
                )

    def _describes(self, schema: Any) -> bool:
        """Whether ``schema`` is a Table Schema whose fields are the table's columns."""
        fields = schema.get("fields") if isinstance(schema, dict) else None
        if not isinstance(fields, list) or not all(isinstance(f, dict) for f in fields):
            return False
        names = [f.get("name") for f in fields]
        return set(names) == self.columns and len(names) == len(self.columns)

    # -- tables ----------------------------------------------------------------------------

    def records(self, records: list[dict[str, Any]], *, index: Sequence[str] = ()) -> None:
        """The table of a list of records; a key missing from a record is a missing value,
        nested objects are flattened (``b.c``)."""
        name = self.name
        flat = [_flat(name, record) for record in records]
        counts: Counter[str] = Counter(chain.from_iterable(flat))
        header = list(dict.fromkeys(chain.from_iterable(flat)))
        self.columns = set(header)
        if not header:
            raise InputFileError(f"{name}: its records hold no field; there is nothing to check")
        sizes = self._sizes(flat, header, counts)
        kept = [c for c in header if not (c in index and _row_numbers(flat, c))]
        for column in header:
            if column not in kept:
                self.placed[name, ROW_NUMBERS] += sizes[column]
        columns = self._select(kept, sizes)
        # objects: each value as parsed (a column of 2 and 2.0 would otherwise be floats)
        frame = pd.DataFrame(flat, columns=columns, dtype=object)
        self.frame = categoricals(name, frame)

    def rows(self, header: list[Any], rows: list[Any], *, first: int, index: Any = None) -> None:
        """The table of rows (arrays) under ``header``; ``first`` is the number of the first
        row in messages; ``index``, pandas' split index, is read as a column ``index``
        unless it holds the row numbers."""
        name = self.name
        wrong = set(map(type, rows)) - {list}
        if wrong:
            at = _first_other(rows, list)
            raise InputFileError(
                f"{name}: row {first + at} is {_JSON_TYPES.get(type(rows[at]))}, not an "
                "array like the header; write every row as an array"
            )
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        ragged = np.flatnonzero(lengths != len(header))
        if ragged.size:
            at = int(ragged[0])
            raise InputFileError(
                f"{name}: row {first + at} has {lengths[at]} values but the header has "
                f"{len(header)}; write every row with a value (or null) for each column"
            )
        if index is not None:
            if not isinstance(index, list) or len(index) != len(rows):
                raise InputFileError(
                    f'{name}: its "index" does not give one label per row of "data"; '
                    "export the table again, without its index (index=False)"
                )
            if index == list(range(len(rows))) and all(type(i) is int for i in index):
                self.placed[name, ROW_NUMBERS] += len(index) or 1
                index = None
            elif "index" in header:
                raise InputFileError(
                    f'{name}: its "index" and a column are both named "index"; export the '
                    "table again with the index reset as a column (reset_index())"
                )
            else:
                header = ["index", *header]
                rows = [[label, *row] for label, row in zip(index, rows)]
        positions = {column: i for i, column in enumerate(header)}
        sizes: dict[str, int] = {}
        for column, at in positions.items():
            sizes[column] = sum(_leaf_size(row[at]) for row in rows)
        self.columns = set(header)
        columns = self._select(header, sizes)
        if not rows:
            self.frame = pd.DataFrame(columns=columns)
            if not sum(sizes.values()) and first == 1:
                self.placed[name, ROW_NUMBERS] += 1  # "data": [] is one leaf, and no row
            return
        values = list(map(itemgetter(*(positions[c] for c in columns)), rows))
        if len(columns) == 1:
            frame = pd.DataFrame({columns[0]: values}, dtype=object)  # each value as parsed
        else:
            frame = pd.DataFrame(values, columns=columns, dtype=object)
        self.frame = categoricals(name, frame)

    def _sizes(
        self, flat: list[dict[str, Any]], header: list[str], counts: Counter[str]
    ) -> dict[str, int]:
        """The leaves each column holds (a nested array in a cell counts its leaves)."""
        sizes = dict(counts)
        for record in flat:
            for column, value in record.items():
                if isinstance(value, list) and value:
                    sizes[column] += leaves(self.name, value) - 1
        return {column: sizes[column] for column in header}

    def _select(self, header: list[str], sizes: dict[str, int]) -> list[str]:
        """The columns read (``usecols``, else all), placing their leaves; the others are
        left over as declared."""
        columns = select_columns(self.name, header, self.usecols)
        for column in header:
            if column in columns:
                self.placed[self.name, str(column)] += sizes[column]
            else:
                self.unread.append(
                    Leftover(
                        str(column), LEAVES, sizes[column], "outside the columns asked for", True
                    )
                )
        return columns


def _flat(name: str, record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its nested objects flattened (``{"b": {"c": 1}}`` as ``{"b.c": 1}``,
    without recursion); a name given twice so is an InputFileError."""
    if not any(isinstance(value, dict) and value for value in record.values()):
        return record
    flat: dict[str, Any] = {}
    stack = [("", record)]
    while stack:
        prefix, current = stack.pop()
        for key, value in current.items():
            column = f"{prefix}{key}"
            if isinstance(value, dict) and value:
                stack.append((column + ".", value))
            elif column in flat:
                raise InputFileError(
                    f"{name}: its records name the field {column!r} twice once nested objects "
                    "are flattened (a key with a point beside an object); rename one of them"
                )
            else:
                flat[column] = value
    return flat


def _leaf_size(value: Any) -> int:
    """The leaves of one cell of a row: 1, or those of a nested array or object."""
    if isinstance(value, _SCALARS) or not value:
        return 1
    return leaves("", value)


def _row_numbers(flat: list[dict[str, Any]], column: str) -> bool:
    """Whether ``column`` holds exactly the row numbers 0, 1, ... in every record."""
    return all(type(r.get(column)) is int and r[column] == i for i, r in enumerate(flat))


def _table_index(schema: Any) -> tuple[str, ...]:
    """The fields of pandas' "table" orientation holding the frame's index: its schema's
    ``primaryKey`` when pandas wrote it (``pandas_version``)."""
    if not isinstance(schema, dict) or "pandas_version" not in schema:
        return ()
    key = schema.get("primaryKey")
    return tuple(k for k in key if isinstance(k, str)) if isinstance(key, list) else ()


def _json_text(name: str, content: bytes, encoding: str | None) -> str:
    """The text of a JSON file, in ``encoding`` or told by JSON's rules (UTF-8 by default)."""
    used = encoding or json.detect_encoding(content)
    try:
        text = content.decode(used)
    except UnicodeDecodeError:
        fix = (
            "set the file's real encoding (encoding in the configuration)"
            if encoding
            else "JSON is UTF-8: re-save it as UTF-8, or set its encoding (encoding in the "
            "configuration)"
        )
        raise InputFileError(f"{name} is not valid {used} text; {fix}") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InputFileError(f"{name} is empty; pass a file holding records")
    return text


def _json_lines_or_none(name: str, text: str) -> list[Any] | None:
    """The values of the non-blank lines of ``text``, or None when a line is not JSON."""
    try:
        return [_loads(name, line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError:
        return None


def _json_lines(name: str, text: str) -> list[Any]:
    """The values of the non-blank lines of ``text``."""
    values = _json_lines_or_none(name, text)
    if values is not None:
        return values
    for number, line in enumerate(text.splitlines(), 1):  # only to say which line is wrong
        if line.strip():
            try:
                json.loads(line)
            except json.JSONDecodeError as error:
                raise _json_error(name, error, number) from None
    raise AssertionError("unreachable: a line failed to parse")  # pragma: no cover


def _json_error(name: str, error: json.JSONDecodeError, line: int) -> InputFileError:
    """The error for text that is not JSON; it never quotes the text."""
    # Python's own parser may quote a character after ':'; "... starting at" ends in the place
    problem = re.sub(r"\s+at$", "", error.msg.split(":")[0])
    return InputFileError(
        f"{name} is not valid JSON: {problem} at line {line}, column {error.colno}; fix the "
        "file there, or export the table again"
    )


def _first_other(items: list[Any], kind: type) -> int:
    """The position of the first item not of type ``kind`` (there is one)."""
    return next(i for i, item in enumerate(items) if type(item) is not kind)


def _split(document: dict[str, Any]) -> tuple[list[Any], list[Any]] | None:
    """The header and rows of pandas' split orientation, or None when it is not that."""
    columns, data = document.get("columns"), document.get("data")
    if not isinstance(columns, list) or not isinstance(data, list):
        return None
    if data and set(map(type, data)) != {list}:
        return None  # e.g. "data" holds records beside a list of column descriptions
    if set(map(type, columns)) - {str}:
        return None
    return columns, data


def _records_path(name: str, document: dict[str, Any]) -> list[str]:
    """The keys leading to the list of records an object wraps (see the module's
    docstring)."""
    path: list[str] = []
    for depth in range(2):
        lists = [key for key, value in document.items() if _is_records(value)]
        if len(lists) > 1:
            known = [key for key in lists if key.lower() in WRAPPERS]
            if len(known) != 1:
                raise InputFileError(
                    f"{name}: {len(lists)} keys of its JSON object hold lists of records; the "
                    'gate reads one table per file: put the table under "data", or publish '
                    "one file per table"
                )
            lists = known
        if lists:
            return [*path, lists[0]]
        if any(value == [] and key.lower() in WRAPPERS for key, value in document.items()):
            break
        objects = [key for key, value in document.items() if isinstance(value, dict)]
        if depth == 1 or len(objects) != 1:
            break
        path.append(objects[0])
        document = document[objects[0]]
    if any(isinstance(value, list) and not value for value in document.values()):
        raise InputFileError(f"{name} holds an empty list of records; there is nothing to check")
    raise InputFileError(
        f"{name}: its JSON object holds no list of records (objects); the gate reads "
        f"{_SHAPES}; {_LEAVE_OUT}"
    )


def _is_records(value: object) -> bool:
    """Whether ``value`` is a non-empty list of objects."""
    return isinstance(value, list) and bool(value) and set(map(type, value)) == {dict}
