"""Parquet, read with pyarrow, and the account of every value the file stores.

A Parquet file's values are counted from its own footer (:class:`pyarrow.parquet.FileMetaData`,
read apart from the table): a column chunk per leaf column per row group (:data:`CHUNKS`).
Each top-level column is read into the table, and its chunks with it (a leaf column per chunk
of each row group, counted from the column's type): the columns pandas stores for an index are
columns like any other, named (``codice_fiscale``) or not (``__index_level_0__``), since an
index holds data; only an unnamed one holding exactly the row numbers ``0, 1, ...`` is checked
and left out, as the index ``to_csv`` writes is (a ``RangeIndex`` is stored as metadata only,
and holds no chunk). A nested column (struct, list, map) is not read: it is left over by name,
and fails the file unless a rule skips it. A column outside the columns asked for
(``usecols``, which the gate never gives: it reads every column) is left out, its chunks with
all they hold (dictionary, statistics, bloom filter).

Everything else the file stores is read from the footer and either matched with the table
read, counted as text outside the table (:attr:`~.account.Leftover.text`, in characters,
against the file's :data:`~pandas_anon.gate.limits.TEXT_BUDGET`), or left over by name (which fails the file
unless a rule skips it):

- **Key-value metadata** (:func:`footer_parts`). What the writing tools store to describe the
  table is structure, not text, as far as it describes the file's columns: pandas' ``pandas``
  key (the columns' and the index's names, which must be the file's columns, their pandas and
  NumPy types, which must be types, their time zones, which must be zones); the Arrow schema
  pyarrow stores (``ARROW:schema``, decoded and compared with the file's schema: a name that
  differs, a copy of the schema metadata that differs from the file's own, and each field's
  metadata count); Spark's schema (``org.apache.spark.sql.parquet.row.metadata``: names and
  types; a field's metadata, such as a comment, counts); GeoParquet's ``geo`` (column names,
  encodings, geometry types, numbers; the strings of a CRS count). Anything else they hold
  counts as text: pandas' ``attributes`` (``DataFrame.attrs``) and ``PANDAS_ATTRS``, the
  versions and names of the tools, any key of another name, with its value.
- **Field metadata** (``pyarrow.field(..., metadata=...)``, stored in the Arrow schema), a
  part per column (``(field metadata: anno)``), and the time zones of its types that are not
  zones; the metadata of column chunks (``(column chunk metadata: anno)``); the name of the
  program that wrote the file (``created_by``); the name of the schema, but for those writers
  give it (``schema``, ``spark_schema``); column names of more than
  :data:`~.account.LONG_VALUE` characters.
- **Dictionaries.** Text columns are read with the file's own dictionaries, so a dictionary
  value no row points to (a value hidden there, or a pandas categorical's unused category)
  shows, and is left over as values (``cf (unused dictionary values)``): the file stores a
  value the table does not hold. The fix is to write only what the rows hold
  (``Series.cat.remove_unused_categories()``). Counted on the codes the reader builds anyway,
  until every value is seen (:func:`pandas_anon.gate.formats.read_parquet`).
- **Statistics.** Each column chunk's minimum and maximum repeat two values of its column:
  they are looked up among the values read, and those not found are left over as values
  (``anno (statistics)``). Counts (rows, nulls, distinct values, sizes, offsets) are
  structure.
- **Bloom filters** (hashes of a column's values, which tell whether a value not in the table
  was written) and **page indexes** (each page's minimum and maximum, and its place) are not
  read: left over, each named (``cf (bloom filter)``, ``(page index)``, counted by the bytes
  between the column chunks and the footer). pyarrow writes neither by default; Spark writes
  page indexes.
- **Bytes outside the structure.** The file's bytes must be its magic numbers, its column
  chunks, bloom filters, page index and footer: the bytes between them (``(unread bytes)``)
  and the footer's bytes pyarrow does not read (fields it does not know: ``(footer)``, told
  by writing the footer again and comparing lengths) are left over.

Not checked: what a column chunk holds beside its rows' values, which pyarrow reads page by
page: a page header's own statistics, and the dictionary of a column of numbers or dates,
which pyarrow decodes into the rows' values, so that an entry no row points to does not show
(pyarrow's and Spark's writers build those dictionaries from the rows; a file made by hand
can hide values there).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
import re
import struct
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import IO, Any

import numpy as np
import pandas as pd

from pandas_anon.gate import formats
from pandas_anon.gate import io as gate_io
from pandas_anon.gate.parsers.account import CHARACTERS, LONG_VALUE, Account, Leftover
from pandas_anon.gate.parsers.delimited import ROW_NUMBERS
from pandas_anon.gate.parsers.text import LONG_NAMES

#: What a Parquet file's values are counted as.
CHUNKS = "column chunks"
#: What a dictionary's values no row uses are counted as.
UNUSED = "dictionary values"
#: What a statistics' values not among the column's values are counted as.
STRAY = "statistics values"
#: What a bloom filter is counted as.
BLOOM = "bloom filters"
#: What bytes outside the file's structure are counted as.
BYTES = "bytes"


def read(name: str, usecols: Sequence[str] | None) -> tuple[pd.DataFrame, Account]:
    """The ``usecols`` columns (default: every column that is not nested, index columns
    included) of the Parquet file ``name``, as categoricals of their values as read
    (:func:`pandas_anon.gate.formats.read_parquet`), and the account of what it stores:
    its column chunks, and what its footer holds beside them (:func:`footer_parts`).

    Raises
    ------
    InputFileError
        Not a Parquet file, a corrupt one, one that repeats a column name, a nested column
        asked for, more cells than ``max_cells``.
    ColumnNotFoundError
        A ``usecols`` name not in the file.
    """
    import pyarrow as pa

    source = gate_io.seekable(name)
    metadata = formats.parquet_metadata(name, source)
    schema = metadata.schema.to_arrow_schema()
    groups = metadata.num_row_groups
    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    asked = [f.name for f in schema if f.name not in nested] if usecols is None else list(usecols)
    frame, unused, stray = formats.read_parquet(name, source, usecols=asked)
    chunks = {f.name: groups * formats.leaves(f.type) for f in schema}
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
    unread = [
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
    ]
    unread += held_parts(unused, stray)
    unread += footer_parts(name, source, metadata, asked)
    units = {CHUNKS: sum(metadata.row_group(g).num_columns for g in range(groups))}
    units.update(_units(part for part in unread if part.kind != CHUNKS))
    return frame, Account(name, units, read, tuple(unread))


def held_parts(unused: dict[str, int], stray: dict[str, int]) -> list[Leftover]:
    """The values column chunks store that no row holds, left over by column: ``unused``
    dictionary values and ``stray`` statistics (:class:`~pandas_anon.gate.formats.ParquetColumns`)."""
    return [
        Leftover(
            f"{column} (unused dictionary values)",
            UNUSED,
            count,
            "values the column's dictionary stores that no row holds: drop them "
            "(pandas: Series.cat.remove_unused_categories()) and write the file again",
        )
        for column, count in unused.items()
    ] + [
        Leftover(
            f"{column} (statistics)",
            STRAY,
            count,
            "minimum or maximum values of the column's statistics that no row holds: "
            "write the file again",
        )
        for column, count in stray.items()
    ]


def unread_account(name: str, parts: Sequence[Leftover]) -> Account:
    """The account of the parts of ``name`` left over, when nothing of it is read into a
    table here (the Dask engine reads it)."""
    return Account(name, _units(parts), {}, tuple(parts))


def _units(parts: Iterable[Leftover]) -> dict[str, int]:
    """The values of ``parts`` (text aside), by kind."""
    units: dict[str, int] = {}
    for part in parts:
        if not part.text:
            units[part.kind] = units.get(part.kind, 0) + part.count
    return units


def _row_numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds exactly the whole numbers ``0, 1, ...`` (not booleans)."""
    values = column.cat.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    if not pd.api.types.is_integer_dtype(values.dtype) or column.isna().any():
        return False
    return bool(np.array_equal(column.to_numpy(dtype=np.int64), np.arange(len(column))))


# -- the footer -----------------------------------------------------------------------------


def footer_parts(
    name: str, source: str | IO[bytes], metadata: Any, columns: Collection[str]
) -> list[Leftover]:
    """What the footer ``metadata`` of the Parquet file ``name`` (its path or content
    ``source``) holds beside the column chunks of ``columns`` (the top-level columns read):
    its text outside the table (key-value metadata beyond the structure it describes, field
    and column chunk metadata, ``created_by``, long column names), and, left over, the bloom
    filters of ``columns``, a page index, and the bytes no reader reads."""
    schema = metadata.schema.to_arrow_schema()  # the Parquet schema's names
    names = set(schema.names)
    stored = {
        key.decode("utf-8", "replace"): value.decode("utf-8", "replace")
        for key, value in (metadata.metadata or {}).items()
    }
    known = [key for key in stored if key in _STRUCTURE or key == "ARROW:schema"]
    parts = [
        _text(f"(schema metadata: {key})", count, reason)
        for key in known
        for count, reason in [_key_text(key, stored[key], names)]
    ]
    others = [len(key) + len(value) for key, value in stored.items() if key not in known]
    if others:  # named together: a key may itself be data, and a part's name is shown
        reason = f"key-value metadata of {len(others):,} other keys: text beside the table"
        parts.append(_text(OTHER_KEYS, sum(others), reason))
    if "ARROW:schema" in stored:
        parts += _arrow_schema_parts(stored, schema)
    parts.append(
        _text("(created by)", len(metadata.created_by or ""), "the name of the writing program")
    )
    root = _root_name(metadata.schema)
    parts.append(
        _text("(schema name)", 0 if root in _ROOT_NAMES else len(root), "the name of the schema")
    )
    long = [n for n in schema.names if len(n) > LONG_VALUE]
    parts.append(
        _text(
            LONG_NAMES,
            sum(map(len, long)),
            f"column names of more than {LONG_VALUE} characters",
        )
    )
    leaves = _leaf_names(schema)
    chunk_text: dict[str, int] = {}
    blooms: dict[str, int] = {}
    indexed = False
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for leaf in range(row_group.num_columns):
            chunk = row_group.column(leaf)
            column = leaves[leaf]
            kv = getattr(chunk, "metadata", None) or {}  # not in older pyarrow
            chunk_text[column] = chunk_text.get(column, 0) + sum(
                len(k.decode("utf-8", "replace")) + len(v.decode("utf-8", "replace"))
                for k, v in kv.items()
            )
            if getattr(chunk, "bloom_filter_offset", None) is not None and column in columns:
                blooms[column] = blooms.get(column, 0) + 1
            indexed = indexed or chunk.has_column_index or chunk.has_offset_index
    parts += [
        _text(f"(column chunk metadata: {c})", n, "metadata of the column's chunks")
        for c, n in chunk_text.items()
    ]
    parts += [
        Leftover(
            f"{column} (bloom filter)",
            BLOOM,
            count,
            "hashes of the column's values, which tell whether a value not in the table was "
            "written: write the file without bloom filters",
        )
        for column, count in blooms.items()
    ]
    outside, unknown = _layout(source, metadata)
    if indexed or outside:
        parts.append(
            Leftover("(page index)", BYTES, outside, _PAGE_INDEX)
            if indexed
            else Leftover("(unread bytes)", BYTES, outside, _UNREAD_BYTES)
        )
    if unknown:
        parts.append(Leftover("(footer)", BYTES, unknown, _UNKNOWN_FOOTER))
    return [part for part in parts if part.count or not part.text]


_PAGE_INDEX = (
    "a page index (each page's minimum and maximum values, and place), not read: write the "
    "file without one (pyarrow: write_page_index=False, its default)"
)
_UNREAD_BYTES = (
    "bytes between the column chunks and the footer, which no reader reads: write the file again"
)
_UNKNOWN_FOOTER = "fields of the footer pyarrow does not read: write the file again with pyarrow"


def _text(part: str, count: int, reason: str) -> Leftover:
    """A part of ``count`` characters of text outside the table."""
    return Leftover(part, CHARACTERS, count, reason, text=True)


#: The part naming the key-value metadata of keys no known writer writes, together.
OTHER_KEYS = "(schema metadata: other keys)"


#: The names writers give a Parquet schema's root (pyarrow, Spark, DuckDB, Polars, Hive).
_ROOT_NAMES = frozenset({"schema", "spark_schema", "duckdb_schema", "root", "hive_schema"})


def _root_name(schema: Any) -> str:
    """The name of the root of a Parquet schema (which pyarrow shows only in its text:
    ``required group field_id=-1 schema {``); that line whole when it shows otherwise."""
    line = str(schema).split("\n")[1]
    found = re.fullmatch(r"\w+ group field_id=-?\d+ (.*) \{", line)
    return found.group(1) if found else line


def _leaf_names(schema: Any) -> list[str]:
    """The top-level column of each leaf column of the file (a column chunk each)."""
    return [f.name for f in schema for _ in range(formats.leaves(f.type))]


def _layout(source: str | IO[bytes], metadata: Any) -> tuple[int, int]:
    """The bytes of the file outside its magic numbers, column chunks, bloom filters and
    footer (a page index's, or bytes no reader reads), and the bytes of its footer pyarrow
    does not read (the footer's length on disk less the length of the footer pyarrow
    writes again from what it read)."""
    if isinstance(source, str):
        size = os.path.getsize(source)
        with open(source, "rb") as handle:
            handle.seek(size - 8)
            tail = handle.read(8)
    else:
        size = source.seek(0, io.SEEK_END)
        source.seek(size - 8)
        tail = source.read(8)
        source.seek(0)
    (footer,) = struct.unpack("<I", tail[:4])
    spans = []
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for leaf in range(row_group.num_columns):
            chunk = row_group.column(leaf)
            start = chunk.data_page_offset
            if chunk.has_dictionary_page and 0 < chunk.dictionary_page_offset < start:
                start = chunk.dictionary_page_offset
            spans.append((start, start + chunk.total_compressed_size))
            if getattr(chunk, "bloom_filter_length", None):  # not in older pyarrow
                offset = chunk.bloom_filter_offset
                spans.append((offset, offset + chunk.bloom_filter_length))
    outside, at = 0, 4  # after the leading magic number
    for start, end in sorted(spans):
        outside += max(start - at, 0)
        at = max(at, end)
    outside += max(size - 8 - footer - at, 0)
    import pyarrow as pa

    again = io.BytesIO()
    try:
        metadata.write_metadata_file(again)  # the footer between two magic numbers and its length
    except pa.ArrowException:  # a footer pyarrow reads but cannot write again: not all known
        return outside, footer
    return outside, max(footer - (len(again.getvalue()) - 12), 0)


# -- key-value metadata ---------------------------------------------------------------------

#: The keys of pandas' description of a table (``pandas``) that are its structure.
_PANDAS_KEYS = frozenset(
    {
        "index_columns",
        "column_indexes",
        "columns",
        "name",
        "field_name",
        "pandas_type",
        "numpy_type",
        "metadata",
        "kind",
        "start",
        "stop",
        "step",
        "encoding",
        "timezone",
        "num_categories",
        "ordered",
        "precision",
        "scale",
        "creator",
        "library",
        "version",
        "pandas_version",
        "attributes",
    }
)
#: The types pandas names (``pandas_type``) beside NumPy's and pandas' dtypes.
_PANDAS_TYPES = frozenset(
    {
        "empty",
        "bool",
        "boolean",
        "bytes",
        "unicode",
        "string",
        "date",
        "time",
        "datetime",
        "datetimetz",
        "timedelta",
        "decimal",
        "categorical",
        "object",
        "mixed",
        "mixed-integer",
        "mixed-integer-float",
        "integer",
        "floating",
        "complex",
        "period",
        "interval",
        "float16",
        "str",
    }
)
#: Spark's schema's own keys (``org.apache.spark.sql.parquet.row.metadata``).
_SPARK_KEYS = frozenset(
    {
        "type",
        "fields",
        "name",
        "nullable",
        "metadata",
        "elementType",
        "containsNull",
        "keyType",
        "valueType",
        "valueContainsNull",
    }
)
#: A Spark type's name (``string``, ``decimal(10,2)``, ``struct``).
_SPARK_TYPE = re.compile(r"[a-z_]{1,20}(\(\d{1,5}(,\s?\d{1,5})?\))?")
#: GeoParquet's keys (``geo``), and those of the CRS it describes (PROJJSON).
_GEO_KEYS = frozenset(
    {
        "version",
        "primary_column",
        "columns",
        "encoding",
        "geometry_types",
        "crs",
        "bbox",
        "epoch",
        "edges",
        "orientation",
        "covering",
        "xmin",
        "ymin",
        "zmin",
        "xmax",
        "ymax",
        "zmax",
        "$schema",
        "type",
        "name",
        "datum",
        "datum_ensemble",
        "members",
        "ellipsoid",
        "semi_major_axis",
        "semi_minor_axis",
        "inverse_flattening",
        "radius",
        "accuracy",
        "prime_meridian",
        "longitude",
        "coordinate_system",
        "subtype",
        "axis",
        "abbreviation",
        "direction",
        "unit",
        "conversion_factor",
        "scope",
        "area",
        "south_latitude",
        "west_longitude",
        "north_latitude",
        "east_longitude",
        "id",
        "ids",
        "authority",
        "code",
        "base_crs",
        "conversion",
        "method",
        "parameters",
        "value",
        "usages",
        "remarks",
    }
)
#: The values of GeoParquet's enumerations.
_GEO_WORDS = frozenset(
    {
        "WKB",
        "point",
        "linestring",
        "polygon",
        "multipoint",
        "multilinestring",
        "multipolygon",
        "planar",
        "spherical",
        "counterclockwise",
    }
    | {
        f"{kind}{z}"
        for kind in (
            "Point",
            "LineString",
            "Polygon",
            "MultiPoint",
            "MultiLineString",
            "MultiPolygon",
            "GeometryCollection",
        )
        for z in ("", " Z")
    }
)
#: The keys tools write whose value is structure: tools' names and versions count as text.
_STRUCTURE = "ARROW:schema", "pandas", "geo", "org.apache.spark.sql.parquet.row.metadata"


def _key_text(key: str, value: str, columns: set[str]) -> tuple[int, str]:
    """The characters of text outside the table in the key-value metadata ``key: value``
    of a file of ``columns``, and what they are."""
    if key == "ARROW:schema":  # its text is counted by _arrow_schema_parts
        return 0, ""
    try:
        document = json.loads(value)
    except (ValueError, RecursionError):
        return len(value), f"a {key!r} key that is not the JSON its writer writes"
    if key == "pandas":
        count = _json_text(
            document, _PANDAS_KEYS | columns, _pandas_structure(columns), {"attributes"}
        )
        return count, "pandas' description of the table, beyond its columns (DataFrame.attrs)"
    if key == "geo":
        words = _GEO_WORDS | _GEO_KEYS | columns  # a covering names a column and its fields
        count = _json_text(document, _GEO_KEYS | columns, lambda k, v: v in words)
        return count, "GeoParquet's description of the columns, beyond their names and types"
    count = _json_text(document, _SPARK_KEYS | columns, _spark_structure(columns), {"metadata"})
    return count, "Spark's schema, beyond the columns' names and types (comments)"


def _pandas_structure(columns: set[str]) -> Callable[[str | None, str], bool]:
    """Whether a string of pandas' description, under a key, is structure: a column's name,
    a type, a time zone, a range index, the encoding of names."""

    def structure(key: str | None, value: str) -> bool:
        if key in ("name", "field_name", "index_columns"):
            return value in columns
        if key in ("pandas_type", "numpy_type"):
            return _dtype(value)
        if key == "timezone":
            return _zone(value)
        return (key, value) in (("kind", "range"), ("encoding", "UTF-8"))

    return structure


def _dtype(name: str) -> bool:
    """Whether ``name`` names a type pandas writes (``unicode``, ``list[int64]``,
    ``datetime64[ns]``, ``Int64``)."""
    inner = re.fullmatch(r"list\[(.*)\]", name)
    if inner:
        return _dtype(inner.group(1))
    if name in _PANDAS_TYPES:
        return True
    try:  # written as pandas writes it: a name, not a structure of numbers
        return str(pd.api.types.pandas_dtype(name)) == name
    except (TypeError, ValueError):
        return False


def _zone(name: str) -> bool:
    """Whether ``name`` names a time zone (``Europe/Rome``, ``+01:00``)."""
    import pyarrow as pa

    try:
        pa.scalar(0, pa.timestamp("s", tz=name)).as_py()
    except (pa.ArrowException, ValueError, KeyError):
        return False
    return True


def _spark_structure(columns: set[str]) -> Callable[[str | None, str], bool]:
    """Whether a string of Spark's schema, under a key, is structure: a type, a column's
    name."""

    def structure(key: str | None, value: str) -> bool:
        if key == "type":
            return bool(_SPARK_TYPE.fullmatch(value))
        return key == "name" and value in columns

    return structure


def _json_text(
    document: object,
    keys: Collection[str],
    structure: Callable[[str | None, str], bool],
    free: Collection[str] = (),
) -> int:
    """The characters of text in a JSON ``document``: its object keys not among ``keys``,
    its strings that are not ``structure`` (given the key they are under), the numbers under
    keys not among ``keys``, and all the keys, strings and numbers under a key of ``free``
    (``DataFrame.attrs``, a field's comments)."""
    stack: list[tuple[str | None, object, bool]] = [(None, document, False)]
    count = 0
    while stack:
        key, value, text = stack.pop()
        if isinstance(value, dict):
            count += sum(len(k) for k in value if text or k not in keys)
            stack.extend((k, v, text or k in free) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((key, item, text) for item in value)
        elif isinstance(value, str):
            count += len(value) if text or not structure(key, value) else 0
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            count += len(str(value)) if text or key not in keys else 0
    return count


def _arrow_schema_parts(stored: dict[str, str], schema: Any) -> list[Leftover]:
    """The text of the Arrow schema pyarrow stores (``ARROW:schema``) beyond the file's
    schema ``schema``: its names that differ, its copy of the schema metadata where it
    differs from the file's (``(schema metadata: ARROW:schema)``), and each field's metadata
    (``(field metadata: anno)``)."""
    import pyarrow as pa

    value = stored["ARROW:schema"]
    try:
        arrow = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(value, validate=True)))
    except (ValueError, binascii.Error, pa.ArrowException):
        arrow = None
    if arrow is None or len(arrow) != len(schema):
        return [_text("(schema metadata: ARROW:schema)", len(value), _ARROW_SCHEMA)]
    copied = sum(
        len(k) + len(v)
        for k, v in _decoded(arrow.metadata)
        if stored.get(k) != v  # the file's own key is counted once, as the file's
    )
    renamed = 0
    parts = []
    for mine, theirs in zip(schema, arrow):
        names, text = _field_text(mine, theirs)
        renamed += names
        parts.append(_text(f"(field metadata: {mine.name})", text, "metadata of the column"))
    parts.append(_text("(schema metadata: ARROW:schema)", copied + renamed, _ARROW_SCHEMA))
    return parts


_ARROW_SCHEMA = (
    "the Arrow schema pyarrow stores, beyond the file's schema (names that differ, "
    "metadata that is not the file's)"
)


def _field_text(mine: Any, theirs: Any) -> tuple[int, int]:
    """The characters of the names of the Arrow schema's field ``theirs`` (and its children)
    that differ from the file's field ``mine``, and of their metadata (an extension type's
    included); a ``PARQUET:field_id`` of digits is structure."""
    import pyarrow as pa

    names = text = 0
    pairs = [(mine, theirs)]
    while pairs:
        ours, stored = pairs.pop()
        if ours is None or ours.name != stored.name:
            names += len(stored.name)
        text += sum(
            len(k) + len(v)
            for k, v in _decoded(stored.metadata)
            if not (k == "PARQUET:field_id" and v.isdigit())
        )
        kind = stored.type
        if isinstance(kind, pa.BaseExtensionType):
            text += len(kind.extension_name) + len(kind.__arrow_ext_serialize__())  # type: ignore[attr-defined]
            kind = kind.storage_type
        if pa.types.is_timestamp(kind) and kind.tz and not _zone(kind.tz):
            text += len(kind.tz)
        children = list(_children(kind))
        matched = list(_children(ours.type)) if ours is not None else []
        matched += [None] * (len(children) - len(matched))
        pairs.extend(zip(matched, children))
    return names, text


def _children(kind: Any) -> Iterator[Any]:
    """The child fields of an Arrow type (a struct's fields, a list's values, a map's
    entries)."""
    for index in range(kind.num_fields):
        yield kind.field(index)


def _decoded(metadata: dict[bytes, bytes] | None) -> Iterator[tuple[str, str]]:
    """Arrow metadata's keys and values as text."""
    for key, value in (metadata or {}).items():
        yield key.decode("utf-8", "replace"), value.decode("utf-8", "replace")
