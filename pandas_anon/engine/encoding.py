"""Columns of a pandas frame -> dense integer codes, encoded once.

Each column is encoded once to integer codes (whole numbers by subtraction, everything else
through ``pandas.factorize``); sets of columns are then grouped by their codes
(:mod:`pandas_anon.engine.grouping`) into frequency sets
(:mod:`pandas_anon.engine.frequency`). Missing values mean what they mean in ``groupby``.

Two cells hold **the same value when they are written the same**: equal, and of the same
kind. Within one kind this is ``groupby``'s equality; across kinds it is not, for pandas
compares numbers across Python's numeric tower (``True == 1 == 1.0``, ``0 == False``,
``2 == 2.0``) and ignores the sign of zero (``0.0 == -0.0``), while every writer spells them
apart: a CSV ``True``, ``1`` and ``1.0``, JSON ``true``, ``1`` and ``1.0``, both ``-0.0``.
The kinds are text, booleans, integers, floating-point numbers (a negative zero apart),
complex numbers, and any other type by itself; numpy's scalars are of Python's kinds, so
``numpy.int64(2)`` and ``2`` (both written ``2``) are one value. :func:`written_codes` codes
a column so when pandas would merge such values, and the gate's readers, detection and
anonymization all code through :func:`factorize` and :func:`encode_column`: the classes
reported are the classes a file written from the frame holds (one definition, documented
in ``docs/engine.md``).

Missing values are explicit: with ``dropna=True`` a row missing any encoded column is not
examined (Pastore et al. 2020, section 3.1, drop incomplete rows first and report how
many); with ``dropna=False`` missing is one more value of the column, equal to itself.
"""

from __future__ import annotations

import numbers
import re
import weakref
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pandas_anon.engine.columns import require_data, resolve_columns
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.grouping import Grouping, Surplus, compress, first_occurrence, group_codes
from pandas_anon.engine.hashing import COMPILED, factorize_text
from pandas_anon.engine.parallel import thread_map
from pandas_anon.engine.weights import Weights, read_weights
from pandas_anon.errors import (
    AllMissingColumnError,
    EmptyDataError,
    IncompleteRowsWarning,
    UnhashableValueError,
    warn,
)

#: Integer and integral float columns whose value range is at most this many times the row
#: count are coded arithmetically (value - min) instead of through a hash table.
_ARITHMETIC_RANGE_PER_ROW = 2
_EXACT_FLOAT = 2.0**53  # whole floats up to this magnitude are exact integers


def encode_column(series: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Encode one column to int64 codes ``0..len(values)-1``, ``-1`` marking a missing value.

    Returns the codes and ``values``, the value of each code. Whole-number columns with a
    compact range are coded by subtraction (no hashing); everything else goes through
    ``pandas.factorize``, whose notion of equality (and of missing) matches ``groupby``.
    """
    arithmetic = _arithmetic_codes(series)
    if arithmetic is not None:
        return arithmetic
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.codes.to_numpy(dtype=np.int64), pd.Index(series.cat.categories)
    codes, values = factorize(series)
    return codes, pd.Index(values)


def factorize(
    values: pd.Series | pd.Index | np.ndarray, *, where: str | None = None
) -> tuple[np.ndarray, Any]:
    """``pandas.factorize`` (int64 codes, ``-1`` for missing, in the order of first
    occurrence) refusing unhashable cells, two cells sharing a code when they hold the same
    value as written (:func:`written_codes`).

    Every place that hashes the values of a column (encoding, the hierarchy builders,
    recoding) goes through here, so a list, dict or set in a cell raises
    :class:`~pandas_anon.errors.UnhashableValueError` naming ``where`` (default: the column,
    from the values' name), the type and row position of the first such cell (never its
    value) and the fix, rather than pandas' bare ``TypeError``.
    """
    text = arrow_text(values)
    if text is not None:  # hashed from Arrow's buffers: the same codes, 3-4x faster
        codes, first = factorize_text(text)
        return codes, _take(values, first)
    try:
        written = written_codes(values)
        if written is not None:  # values pandas would merge, written differently
            return written, _take(values, _first_rows(written))
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError as exc:
        name = getattr(values, "name", None)
        named = where is None and name is not None  # a column of the caller's frame
        where = where or (f"column {name!r}" if named else "the data")
        convert = f"df[{name!r}].map(tuple)" if named else ".map(tuple)"
        raise UnhashableValueError(
            f"{where} holds values that cannot be compared for equality "
            f"({_unhashable_type(values)}); convert them first, e.g. {convert} for lists or "
            f".astype(str)"
        ) from exc
    return np.asarray(codes, dtype=np.int64), uniques


def _take(values: pd.Series | pd.Index | np.ndarray, rows: np.ndarray) -> Any:
    """The values at ``rows``: an Index for a Series or an Index (as ``pandas.factorize``
    gives), else an array of the same type."""
    if isinstance(values, (pd.Series, pd.Index)):
        return pd.Index(values.array.take(rows))
    return values.take(rows)


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """The row of each code's first occurrence, for codes numbered by it (-1: none): where
    their running maximum rises."""
    if len(codes) == 0:
        return np.empty(0, dtype=np.int64)
    running = np.maximum.accumulate(codes)
    rises = np.flatnonzero(running[1:] != running[:-1]) + 1
    return rises if running[0] < 0 else np.concatenate(([0], rises))


# -- the same value -------------------------------------------------------------------------

#: What :func:`pandas.api.types.infer_dtype` says of object values among which pandas may
#: merge values written differently: several numeric kinds (``True == 1 == 1.0``), or floats
#: (``0.0 == -0.0``). Any other answer is one kind (text, integers, booleans, dates, ...),
#: which pandas compares as written.
_MAY_MERGE = frozenset({"mixed", "mixed-integer", "mixed-integer-float", "floating"})

#: Whether this pandas hashes Python text as C strings, cut at the first NUL character, so
#: that ``factorize``, ``unique`` and ``groupby`` merge ``"a\x00b"`` with ``"a\x00c"`` and
#: ``""`` with ``"\x00"`` (pandas before 3.1: pandas-dev/pandas#34551, fixed by #66512).
#: Told by trying, not from the version number.
TEXT_CUT_AT_NUL = pd.factorize(np.array(["", "\x00"], dtype=object))[0].tolist() == [0, 0]

#: Whether this pandas hashes a Python text that UTF-8 cannot write (one holding a lone
#: surrogate, ``"\udf85"``) from the buffer of a temporary it has already freed, so that
#: ``factorize``, ``unique`` and ``groupby`` merge such texts with one another, or with other
#: texts, or not, as the allocator happens to reuse that memory: 50 distinct such texts are
#: one value, and the same texts may be coded two ways by two calls (pandas-dev/pandas#34550,
#: fixed by #66403, which pandas 3.1.1 holds). Told from the version number (before 3.1.1:
#: 3.1.0 may hold it too), since the outcome of a try depends on the heap.
_PANDAS_VERSION = tuple(int(part) for part in re.findall(r"\d+", pd.__version__)[:3])
UNWRITABLE_TEXT_MISHASHED = _PANDAS_VERSION < (3, 1, 1)

#: Whether this pandas hashes some Python texts wrongly (either of the above).
TEXT_MISHASHED = TEXT_CUT_AT_NUL or UNWRITABLE_TEXT_MISHASHED


class _Kind:
    """A kind of number (:func:`kind_of`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_BOOLEAN, _INTEGER, _FLOAT, _COMPLEX = map(_Kind, ("boolean", "integer", "float", "complex"))


def kind_of(kind: type) -> object:
    """The kind of the values of type ``kind``: two values are the same value when they are
    of one kind and equal (a float zero's sign counting). Booleans, integers, floats and
    complex numbers are four kinds (numpy's scalar types of Python's), text one (``str``),
    and any other type its own.

    Examples
    --------
    >>> kind_of(bool), kind_of(np.bool_), kind_of(int), kind_of(np.uint8), kind_of(np.float32)
    (<boolean>, <boolean>, <integer>, <integer>, <float>)
    >>> kind_of(np.str_) is str, kind_of(pd.Timestamp) is pd.Timestamp
    (True, True)
    """
    if issubclass(kind, (bool, np.bool_)):
        return _BOOLEAN
    if issubclass(kind, numbers.Integral):  # int and numpy's integers
        return _INTEGER
    if issubclass(kind, (float, np.floating)):
        return _FLOAT
    if issubclass(kind, (complex, np.complexfloating)):
        return _COMPLEX
    return str if issubclass(kind, str) else kind


def written_codes(values: pd.Series | pd.Index | np.ndarray) -> np.ndarray | None:
    """Codes of ``values`` (int64, numbered by first occurrence, ``-1`` missing), two values
    sharing a code when they are the same value as written (of one :func:`kind_of` and
    equal, ``0.0`` and ``-0.0`` apart), when pandas' equality would merge values written
    differently; else None (the common case, told cheaply).

    Three kinds of column can hold such values: objects that
    :func:`pandas.api.types.infer_dtype` finds of several kinds (``1`` and ``True``, ``2``
    and ``2.0``), each kind then factorized on its own; floats holding both zeros; and,
    under a pandas that hashes some texts wrongly (before 3.1, :func:`mishashed`), Python
    text holding a NUL character (``""`` and ``"\\x00"``) or a lone surrogate
    (``"\\udf85"``), whose texts are then hashed whole. A float column without a zero costs
    one comparison per row; Arrow text, integer, boolean, date and categorical columns cost
    nothing, objects of one kind a scan of their types (and, for Python text under such a
    pandas, one pass over the texts joined).

    Examples
    --------
    >>> written_codes(pd.Series([1, True, 1.0, 1, None], dtype=object)).tolist()
    [0, 1, 2, 0, -1]
    >>> written_codes(pd.Series([0.0, -0.0, 0.0, np.nan])).tolist()
    [0, 1, 0, -1]
    >>> written_codes(pd.Series([1, 2, 1], dtype=object)) is None
    True
    """
    dtype = values.dtype
    if pd.api.types.is_object_dtype(dtype) or python_text(dtype):
        array = np.asarray(values, dtype=object)
        found = pd.api.types.infer_dtype(array, skipna=True)
        if found == "string" and mishashed(array):
            return factorize_objects(array)
        if found not in _MAY_MERGE:
            return None
        if found != "floating":
            return _object_codes(array)
        data = numeric_values(pd.Index(array, dtype=object))[0]  # missing (pd.NA too): NaN
    elif pd.api.types.is_float_dtype(dtype):
        data = (
            values.to_numpy(dtype=np.float64, na_value=np.nan)
            if isinstance(values, (pd.Series, pd.Index))
            else np.asarray(values, dtype=np.float64)
        )
    else:
        return None
    return _float_codes(data) if all(_signed_zeros(data)) else None


def _float_codes(data: np.ndarray) -> np.ndarray:
    """Codes of floats (``NaN``: -1) with ``0.0`` and ``-0.0`` two values: pandas' codes,
    the zeros of the sign the first one lacks given a code of their own."""
    codes = np.asarray(pd.factorize(data, use_na_sentinel=True)[0], dtype=np.int64)
    zeros = np.flatnonzero(data == 0)
    negative = np.signbit(data[zeros])
    apart = zeros[negative != negative[:1]]
    if len(apart):  # numbered after the codes met before its first row, as pandas would
        new = int(codes[: apart[0]].max(initial=-1)) + 1
        codes[codes >= new] += 1
        codes[apart] = new
    return codes


def _object_codes(array: np.ndarray) -> np.ndarray:
    """:func:`written_codes` of objects of several types: the values of each kind
    (:func:`kind_of`) factorized on their own (floats by :func:`_float_codes`; a missing
    value is missing in any kind), the codes then numbered by first occurrence."""
    type_codes, types = pd.factorize(np.fromiter(map(type, array), dtype=object, count=len(array)))
    kind_codes, kinds = pd.factorize(np.array([kind_of(t) for t in types], dtype=object))
    row_kinds = kind_codes[type_codes]
    codes = np.full(len(array), -1, dtype=np.int64)
    firsts: list[np.ndarray] = []  # the first row of each code, in the order of the codes
    for at, kind in enumerate(kinds):
        rows = np.flatnonzero(row_kinds == at)
        of_kind = array[rows]
        if kind is _FLOAT:
            coded = _float_codes(of_kind.astype(np.float64))
        else:
            coded = factorize_objects(of_kind)
        present = coded >= 0
        codes[rows[present]] = coded[present] + sum(map(len, firsts))
        firsts.append(rows[_first_rows(coded)])
    first = np.concatenate(firsts)
    rank = np.empty(len(first) + 1, dtype=np.int64)
    rank[np.argsort(first)], rank[-1] = np.arange(len(first)), -1  # code -1: the last, -1
    return rank[codes]


def inferred(values: Any, build: Any = pd.Series) -> Any:
    """``build(values)`` (``pd.Series`` or ``pd.Index``) with the dtype pandas infers, or as
    Python objects where that fails on text Arrow cannot hold: pandas 3 infers Arrow text
    for a list of texts, and one holding a lone surrogate raises UnicodeEncodeError."""
    try:
        return build(values)
    except UnicodeEncodeError:
        return build(values, dtype=object)


def python_text(dtype: Any) -> bool:
    """Whether ``dtype`` holds text as Python strings (``string[python]``): hashed as
    objects are."""
    return isinstance(dtype, pd.StringDtype) and dtype.storage == "python"


def mishashed(array: np.ndarray) -> bool:
    """Whether this pandas would hash some text of ``array`` (objects) wrongly: cut at a NUL
    character (:data:`TEXT_CUT_AT_NUL`), or from freed memory when UTF-8 cannot write it
    (:data:`UNWRITABLE_TEXT_MISHASHED`). One pass over the texts, joined."""
    if not TEXT_MISHASHED:
        return False
    try:
        joined = "".join(array)
    except TypeError:  # missing values or other objects among the texts
        joined = "".join(value for value in array if isinstance(value, str))
    return mishashed_text(joined)


def mishashed_text(text: str) -> bool:
    """Whether this pandas would hash ``text`` wrongly (:func:`mishashed`)."""
    return (TEXT_CUT_AT_NUL and "\x00" in text) or (
        UNWRITABLE_TEXT_MISHASHED and not _writable(text)
    )


#: A lone surrogate: a code point UTF-8 cannot write.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _writable(text: str) -> bool:
    """Whether UTF-8 can write ``text``: it holds no lone surrogate. Told at once for ASCII,
    by a copy for text of code points below 256 (Latin-1: held a byte a character), else by
    a search (a third of the time of encoding it)."""
    if text.isascii():
        return True
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return _SURROGATE.search(text) is None
    return True


class _Text:
    """The tag of a text hashed whole (:func:`factorize_objects`): a key ``(_TEXT, text)``
    is a tuple, which pandas hashes by Python's hash and equality of its items, and which no
    cell of a column can equal."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<text>"


_TEXT = _Text()


def factorize_objects(array: np.ndarray) -> np.ndarray:
    """``pandas.factorize``'s codes of objects (int64, -1 missing; pandas' equality, so
    ``1 == 1.0``), texts compared whole where this pandas would hash some of them wrongly
    (:func:`mishashed`: past a NUL character, or a lone surrogate): each text is then
    hashed as the key ``(_TEXT, text)``, which pandas hashes and compares with Python's
    hash and equality of the text, whole, and which equals no other value."""
    if mishashed(array):
        array = np.fromiter(
            ((_TEXT, value) if isinstance(value, str) else value for value in array),
            dtype=object,
            count=len(array),
        )
    return np.asarray(pd.factorize(array, use_na_sentinel=True)[0], dtype=np.int64)


def written_indexer(values: pd.Index, targets: pd.Index) -> np.ndarray | None:
    """The position of each of ``targets`` among ``values`` (distinct as written; -1:
    absent) when either holds values pandas would merge (:func:`written_codes`), else None:
    ``values.get_indexer(targets)`` is then exact.

    A target is found as written; failing that, as pandas finds it among the values it tells
    apart from every other (a float ``1.0`` looked up among integers). So a value listed as
    written keeps its place, and a value pandas would confuse between two listed ones
    (``0`` among ``0.0`` and ``-0.0``) is absent.

    Examples
    --------
    >>> values = pd.Index([0.0, -0.0, 1.0])
    >>> written_indexer(values, pd.Index([-0.0, 0.0, 1, 2.0])).tolist()
    [1, 0, 2, -1]
    >>> written_indexer(pd.Index([0.0, 1.0]), pd.Index([1, 2])) is None
    True
    """
    if written_codes(values) is None and written_codes(targets) is None:
        return None
    both = np.concatenate([np.asarray(values, dtype=object), np.asarray(targets, dtype=object)])
    codes = written_codes(both)
    if codes is None:  # one kind, one sign of zero, once together: pandas' equality is exact
        codes = np.asarray(pd.factorize(both, use_na_sentinel=True)[0], dtype=np.int64)
    at = np.full(int(codes.max(initial=-1)) + 2, -1, dtype=np.int64)  # code -1: the last, -1
    at[codes[: len(values)]] = np.arange(len(values))
    found = at[codes[len(values) :]]
    absent = np.flatnonzero(found < 0)
    if len(absent):
        apart = np.flatnonzero(~values.duplicated(keep=False))  # pandas tells them apart
        loose = values.take(apart).get_indexer(targets.take(absent))
        if len(apart):  # else pandas tells no value apart (0.0 and -0.0 only): none found
            found[absent] = np.where(loose >= 0, apart[loose], -1)
    return found


def _signed_zeros(floats: np.ndarray) -> tuple[bool, bool]:
    """Whether ``floats`` hold ``0.0``, and whether they hold ``-0.0``."""
    zeros = floats == 0
    if not zeros.any():
        return False, False
    negative = np.signbit(floats[zeros])
    return not negative.all(), bool(negative.any())


def arrow_text(values: pd.Series | pd.Index | np.ndarray) -> pa.ChunkedArray | None:
    """The Arrow array of a column of text stored by Arrow (pandas' ``str`` and
    ``string[pyarrow]``, ``ArrowDtype(pa.string())``), else None."""
    dtype = getattr(values, "dtype", None)
    arrow_text = (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow") or (
        isinstance(dtype, pd.ArrowDtype)
        and (
            pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype)
        )
    )
    if not arrow_text or not COMPILED:
        return None
    array: Any = getattr(values, "array", values)  # a Series' or an Index's, or the array
    return array.__arrow_array__()


def check_complete(
    columns: Sequence[Hashable],
    missing: Mapping[Hashable, int],
    *,
    kept: int,
    total: int,
    any_complete: bool,
    people: bool = False,
) -> None:
    """What leaving out the rows missing a value (``dropna=True``) may not do silently:
    leave none (:class:`EmptyDataError`), or leave fewer than half of them (people, with
    weights): an :class:`IncompleteRowsWarning` naming the emptiest columns, the usual
    culprits. ``missing``: rows (people) missing a value, per column; ``kept`` of ``total``
    are complete."""
    if not any_complete:
        raise EmptyDataError(
            f"every row has a missing value in at least one of {list(columns)!r}; "
            f"pass dropna=False to treat missing as a value of its own"
        )
    if kept < total / 2:
        emptiest = sorted(((n, name) for name, n in missing.items()), key=lambda pair: -pair[0])
        worst = ", ".join(f"{name!r} ({n:,} missing)" for n, name in emptiest[:3] if n)
        unit = "people are" if people else "rows are"
        warn(
            f"only {kept:,} of {total:,} {unit} complete on the examined columns; "
            f"emptiest: {worst}. Leave such columns out, or count missing as a value "
            f"(dropna=False; --keep-missing on the command line)",
            IncompleteRowsWarning,
        )


def value_sizes(series: pd.Series, weights: np.ndarray | None = None) -> np.ndarray:
    """Rows per distinct value of ``series`` (the ``weights`` they carry, when given), the
    missing ones first, as one value of their own (zero when none is missing); the order of
    the others is unspecified.

    An Arrow-backed text column whose every value is an integer written canonically (``"42"``,
    ``"-7"``; not ``"007"``, ``"+7"`` or ``" 42"``) is counted on those integers, by sorting:
    equal texts are then equal integers and distinct texts distinct ones, and sorting
    millions of integers is many times faster than hashing as many distinct texts (a record
    number read as text). Anything else is factorized (:func:`factorize`).
    """
    integers = None if weights is not None else _canonical_integers(series)
    if integers is None:
        codes, _ = factorize(series)
        return np.bincount(codes + 1, weights=weights)
    values, missing = integers
    if len(values) == 0:
        return np.array([missing], dtype=np.int64)
    ordered = np.sort(values)
    starts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    return np.concatenate(([missing], np.diff(starts, prepend=0, append=len(ordered))))


def distinct_count(series: pd.Series, head: int | None = None) -> int | None:
    """How many distinct values ``series`` holds (in its first ``head`` rows, default all),
    compared as written (:func:`written_codes`), a missing value counting as one value of
    its own; None when its values cannot be compared (lists or dicts in cells). Arrow-backed
    text is counted from Arrow's buffers (:func:`~pandas_anon.engine.hashing.factorize_text`,
    2-3 times faster than Arrow's own count), without making Python strings.

    Examples
    --------
    >>> distinct_count(pd.Series(["a", "b", None, "a"], dtype="string[pyarrow]"))
    3
    >>> distinct_count(pd.Series(["a", "b", None, "a"], dtype="string[pyarrow]"), head=2)
    2
    """
    text = arrow_text(series)
    if text is not None:
        text = text if head is None else text.slice(0, head)
        _, first = factorize_text(text)
        return len(first) + int(text.null_count > 0)
    if head is not None:
        series = series.iloc[:head]
    try:
        written = written_codes(series)
        if written is not None:  # values pandas would merge, written differently
            return int(written.max(initial=-1)) + 1 + int((written < 0).any())
        return int(series.nunique(dropna=False))
    except TypeError:
        return None


#: :func:`_canonical_integers` casts this many values first: a column of words fails on
#: them without a cast of every value (which takes milliseconds to fail on a few thousand).
_INTEGER_PROBE = 64


def _canonical_integers(series: pd.Series) -> tuple[np.ndarray, int] | None:
    """The non-missing values of an Arrow-backed text column as int64, and how many are
    missing, when every value is an integer written canonically; else None.

    Arrow reads an integer from its digits after an optional sign and leading zeros; any such
    text other than the canonical one (``"+7"``, ``"007"``, ``"-0"``) is longer than it, so a
    text is canonical exactly when its length in bytes is the canonical length of its value.
    """
    if not isinstance(series.array, pd.arrays.ArrowStringArray | pd.arrays.ArrowExtensionArray):
        return None
    text = series.array.__arrow_array__()
    if not (pa.types.is_string(text.type) or pa.types.is_large_string(text.type)):
        return None
    try:
        pc.cast(text.slice(0, _INTEGER_PROBE), pa.int64())  # words fail here, cheaply
        present = pc.drop_null(text)
        integers = pc.cast(present, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    values = np.asarray(
        integers.combine_chunks() if isinstance(integers, pa.ChunkedArray) else integers
    )
    lengths = pc.binary_length(present)
    lengths = np.asarray(
        lengths.combine_chunks() if isinstance(lengths, pa.ChunkedArray) else lengths
    )
    canonical = np.array_equal(lengths, _written_length(values))
    del present, integers, lengths
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed pages
    return (values, text.null_count) if canonical else None


def _written_length(values: np.ndarray) -> np.ndarray:
    """Characters of each int64 written canonically: its digits, and a minus sign."""
    negative = values < 0
    magnitude = values.astype(np.uint64)
    magnitude[negative] = ~magnitude[negative] + np.uint64(1)  # exact for INT64_MIN too
    length = 1 + negative.astype(np.int64)
    largest = int(magnitude.max()) if len(magnitude) else 0
    power = 10
    while power <= largest:
        length += magnitude >= np.uint64(power)
        power *= 10
    return length


def _arithmetic_codes(series: pd.Series) -> tuple[np.ndarray, pd.Index] | None:
    """Codes ``value - min`` for whole-number columns whose range is small, else None.

    The range is measured in Python integers, so it cannot overflow: a column spanning int64
    (``INT64_MIN`` sentinels, hashed ids) or holding uint64 values above 2**63 is simply not
    compact, and goes to ``factorize``. Unsigned columns are subtracted as uint64, signed ones
    as int64; below the range limit ``value - min`` fits either exactly. Floats qualify only
    when every value is a whole number of magnitude at most 2**53 (exact integers), and not
    when they hold ``-0.0`` (a value of its own, :func:`written_codes`, which the range
    ``min..max`` would write ``0.0``).
    """
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":  # no missing value: a fast path
        return whole_number_codes(series)
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        return None
    if pd.api.types.is_float_dtype(dtype):
        kind: type[np.generic] = np.float64
    elif pd.api.types.is_integer_dtype(dtype):
        kind = np.uint64 if pd.api.types.is_unsigned_integer_dtype(dtype) else np.int64
    else:
        return None  # complex
    missing = series.isna().to_numpy()
    data = series.to_numpy(dtype=kind, na_value=0)  # missing rows get code -1 below
    present = data[~missing] if missing.any() else data
    if present.size == 0:
        return None
    if kind is np.float64 and not (
        np.isfinite(present).all() and np.array_equal(present, np.floor(present))
    ):
        return None
    low, high = present.min(), present.max()
    if kind is np.float64 and (
        max(-float(low), float(high)) > _EXACT_FLOAT
        or (low <= 0 <= high and _signed_zeros(present)[1])
    ):
        return None  # beyond exact integers, or -0.0: low + (value - low) would write 0.0
    if int(high) - int(low) > max(_ARITHMETIC_RANGE_PER_ROW * len(series), 1024):
        return None
    codes = (data - low).astype(np.int64)  # a missing row's difference may wrap: overwritten
    codes[missing] = -1
    span = low + np.arange(int(high) - int(low) + 1, dtype=kind)  # low..high, no overflow
    return codes, pd.Index(pd.array(span, dtype=dtype))


def whole_number_codes(series: pd.Series | np.ndarray) -> tuple[np.ndarray, pd.Index] | None:
    """:func:`_arithmetic_codes` of a column of numpy integers (which hold no missing value;
    a Series or its numpy array): codes ``value - min`` and the values ``min..max``, when
    the range is compact; else None."""
    kind = np.uint64 if series.dtype.kind == "u" else np.int64
    data = np.asarray(series, dtype=kind)
    if data.size == 0:
        return None
    low, high = data.min(), data.max()
    if int(high) - int(low) > max(_ARITHMETIC_RANGE_PER_ROW * len(series), 1024):
        return None
    codes = (data - low).astype(np.int64, copy=False)  # exact: the range is small
    span = low + np.arange(int(high) - int(low) + 1, dtype=kind)  # low..high, no overflow
    return codes, pd.Index(span.astype(series.dtype, copy=False))


def nullable_integer_codes(array: Any) -> tuple[np.ndarray, pd.Index] | None:
    """:func:`_arithmetic_codes` of a pandas nullable integer array (``Int64``, ``UInt8``
    and their kin) with a missing value coded last, after ``min..max``, as
    :class:`EncodedFrame` codes it without ``dropna``; None for another array, a range that
    is not compact, or a column of missing values only."""
    if not isinstance(array, pd.arrays.IntegerArray):
        return None
    coded = _arithmetic_codes(pd.Series(array, copy=False))
    if coded is None:
        return None
    codes, values = coded
    missing = codes < 0
    if missing.any():
        codes[missing] = len(values)
        values = with_missing(values)
    return codes, values


def all_missing(column: Hashable, *, weighted: bool = False) -> AllMissingColumnError:
    """The error of a column holding only missing values (on the rows counting someone,
    ``weighted``): it cannot tell rows apart."""
    return AllMissingColumnError(
        f"column {column!r} holds only missing values"
        f"{' on the rows counting someone' if weighted else ''}, so it cannot tell rows apart; "
        f"remove it from the columns examined"
    )


def arrow_source(series: pd.Series | Any) -> weakref.ref | None:
    """A weak reference to the Arrow array holding ``series``' values (a Series or its
    array), when pyarrow holds them: Arrow arrays are immutable (pandas writes a new one on
    assignment), so while the reference lives the values are the ones it was taken from.
    None for other storage."""
    array = getattr(series, "array", series)
    if not isinstance(array, pd.arrays.ArrowExtensionArray | pd.arrays.ArrowStringArray):
        return None
    return weakref.ref(array.__arrow_array__())


def same_source(series: pd.Series | Any, source: weakref.ref | None) -> bool:
    """Whether ``series`` (a Series or its array) holds the very Arrow array ``source`` was
    taken from."""
    array = getattr(series, "array", series)
    return (
        source is not None
        and arrow_source(array) is not None
        and (array.__arrow_array__() is source())
    )


def with_missing(values: pd.Index) -> pd.Index:
    """``values`` followed by a missing value, each value kept exactly: Int64 stays Int64
    (not float), and object values are not inferred to float (``2**63 + 1`` stays itself).
    The missing value is the dtype's own (``pd.NA`` for a nullable one, ``NaT`` for dates):
    a ``NaN`` given to a nullable float that pandas tells from ``pd.NA``
    (``future.distinguish_nan_and_na``) would be a value, not missing."""
    if values.dtype == object or (
        isinstance(values.dtype, np.dtype) and values.dtype.kind in "iub"
    ):
        return pd.Index(np.append(values.to_numpy(dtype=object), np.nan), dtype=object)
    return values.insert(len(values), None)


def numeric_values(
    values: pd.Series | pd.Index, dtype: Any = np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of ``values`` as a numpy array of ``dtype``, and which of them are missing.

    How a column's values, or a frequency set's ``values`` of its codes, are read as numpy
    numbers (Mondrian's order, widths and labels, the utility figures, the noise of
    (k, ε)-anonymity), whatever holds them: numpy's numbers, pandas' nullable ones (``Int8``
    to ``UInt64``, ``Float32``, ``Float64``, ``boolean``, whose ``pd.NA`` numpy cannot hold
    nor Python compare: ``bool(pd.NA)`` raises), or Python numbers as objects (whole numbers
    with a missing value, :func:`with_missing`). ``missing`` is ``pandas.isna``, as encoding
    reads it; a missing entry of ``numbers`` holds ``NaN`` (0 for a ``dtype`` of whole
    numbers). A nullable float's ``NaN`` that pandas tells from ``pd.NA`` (pandas 2.2 after
    arithmetic, ``future.distinguish_nan_and_na`` in pandas 3) is a value, as
    :func:`encode_column` codes it: ``NaN`` in ``numbers``, not missing.

    Examples
    --------
    >>> numbers, missing = numeric_values(pd.Series([1.5, None, 2.0], dtype="Float64"))
    >>> numbers.tolist(), missing.tolist()
    ([1.5, nan, 2.0], [False, True, False])
    >>> numeric_values(pd.Index([3, 2**40, None], dtype=object), np.int64)[0].tolist()
    [3, 1099511627776, 0]
    """
    missing = np.asarray(pd.isna(values), dtype=bool)
    fill = np.nan if np.dtype(dtype).kind in "fc" else 0
    if pd.api.types.is_object_dtype(values.dtype):  # Python numbers: their numpy dtype
        values = pd.to_numeric(pd.Series(np.asarray(values, dtype=object)).where(~missing))
    return np.asarray(values.to_numpy(dtype=dtype, na_value=fill)), missing


def _unhashable_type(values: pd.Series | pd.Index | np.ndarray) -> str:
    """Name the type of the first unhashable cell (its type, never its value)."""
    for position, value in enumerate(getattr(values, "array", values)):
        try:
            hash(value)
        except TypeError:
            return f"first at row position {position}: a {type(value).__name__}"
    return "mixed types"


def _encode_all(series: Mapping[Hashable, pd.Series], narrow: bool) -> list:
    """Encode columns, in threads on large frames (:func:`~.parallel.thread_map`); with
    ``narrow``, each column's codes as int32 as soon as they are found, when they fit."""

    def encode(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
        codes, values = encode_column(column)
        if narrow and len(values) < np.iinfo(np.int32).max:  # room for missing, coded last
            codes = codes.astype(np.int32)
        return codes, values

    columns = list(series.values())
    return thread_map(encode, columns, rows=len(columns[0]) if columns else 0)


def _weight(rows: np.ndarray, weights: np.ndarray | None) -> int:
    """How many of the rows flagged in ``rows`` there are, or the people they weigh."""
    return int(rows.sum()) if weights is None else int(weights[rows].sum())


class EncodedFrame:
    """Columns of a frame encoded once, restricted to the rows examined.

    Build it once, then ask for groupings of any subset of its columns: the cost of reading
    the original values is paid a single time. The codes are int64, or with ``narrow`` int32
    where they fit (half the memory, for a reader that does its arithmetic in int64).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        columns: Iterable[Hashable] | Hashable,
        *,
        dropna: bool = True,
        weights: Weights | None = None,
        narrow: bool = False,
    ) -> None:
        require_data(frame)
        self.columns: tuple[Hashable, ...] = resolve_columns(frame, columns)
        self.dropna = dropna
        self.n_rows = len(frame)
        # the people each row stands for (None: one each), refused first when no count
        row_weights = None if weights is None else read_weights(frame, weights)
        if row_weights is not None and not row_weights.any():
            raise EmptyDataError(
                "every row counts nobody (a count of 0, or missing): there is nothing to examine"
            )
        raw: dict[Hashable, np.ndarray] = {}
        self.values: dict[Hashable, pd.Index] = {}
        series = {c: frame[c] for c in self.columns}  # each read once (a Series each time)
        #: each column's dtype, which the values of a categorical do not keep
        self.dtypes: dict[Hashable, object] = {c: s.dtype for c, s in series.items()}
        #: the immutable Arrow data each Arrow-backed column was read from (weakly held)
        self.sources = {
            c: source for c, s in series.items() if (source := arrow_source(s)) is not None
        }
        for column, (codes, values) in zip(self.columns, _encode_all(series, narrow)):
            held = codes >= 0 if row_weights is None else (codes >= 0) & (row_weights > 0)
            if not held.any():
                raise all_missing(column, weighted=row_weights is not None)
            if not dropna and (codes < 0).any():  # missing becomes one more value, the last
                codes = np.where(codes < 0, codes.dtype.type(len(values)), codes)
                values = with_missing(values)
            raw[column], self.values[column] = codes, values
        self.positions = self._examined_positions(raw, row_weights)
        self.codes: dict[Hashable, np.ndarray] = (
            raw
            if self.positions is None
            else {column: codes[self.positions] for column, codes in raw.items()}
        )
        #: the weight of each examined row (None: one each; every weight is at least 1)
        self.weights = (
            row_weights
            if row_weights is None or self.positions is None
            else row_weights[self.positions]
        )
        #: the people the frame's rows stand for: its rows, or the sum of their weights
        self.total = self.n_rows if row_weights is None else int(row_weights.sum())

    def _examined_positions(
        self, raw: dict[Hashable, np.ndarray], weights: np.ndarray | None
    ) -> np.ndarray | None:
        """Positions of the rows examined (complete ones with ``dropna``, and weighing at
        least one person), or None when every row is."""
        examined = np.ones(self.n_rows, dtype=bool) if weights is None else weights > 0
        if self.dropna:
            complete = np.ones(self.n_rows, dtype=bool)
            for codes in raw.values():
                complete &= codes >= 0
            check_complete(
                self.columns,
                {name: _weight(c < 0, weights) for name, c in raw.items()},
                kept=_weight(complete, weights),
                total=_weight(examined, weights),
                any_complete=bool((complete & examined).any()),
                people=weights is not None,
            )
            examined &= complete
        return None if examined.all() else np.flatnonzero(examined)

    @property
    def n_examined(self) -> int:
        """Rows examined (complete rows when ``dropna``, weighing someone with weights)."""
        return self.n_rows if self.positions is None else len(self.positions)

    @property
    def n_dropped(self) -> int:
        """Rows left out: missing a value (``dropna``) or, with weights, weighing nobody."""
        return self.n_rows - self.n_examined

    @property
    def surplus(self) -> Surplus | None:
        """The examined rows weighing more than one person, and the people each weighs
        beyond one (what :func:`~pandas_anon.engine.grouping.group_codes` adds to a count of
        rows); None without weights."""
        if self.weights is None:
            return None
        heavy = np.flatnonzero(self.weights > 1)
        return heavy, self.weights[heavy] - 1

    def cardinality(self, column: Hashable) -> int:
        """Number of codes of a column: its distinct values (for a whole-number column coded
        by subtraction, every value of its min..max range), plus missing if kept."""
        return len(self.values[column])

    def grouping(self, columns: Sequence[Hashable] | None = None) -> Grouping:
        """Group the examined rows by their values on ``columns`` (default: all encoded)."""
        columns = self.columns if columns is None else tuple(columns)
        return group_codes(
            [self.codes[c] for c in columns],
            [self.cardinality(c) for c in columns],
            n_rows=self.n_examined,
            surplus=self.surplus,
        )

    def frequency_set(self, columns: Sequence[Hashable] | None = None) -> FrequencySet:
        """Distinct combinations of ``columns`` (default: all encoded) with their counts."""
        return self.tabulate(columns)[0]

    def tabulate(
        self, columns: Sequence[Hashable] | None = None
    ) -> tuple[FrequencySet, np.ndarray]:
        """The frequency set of ``columns`` (default: all encoded) and the combination of
        each examined row."""
        columns = self.columns if columns is None else tuple(columns)
        grouping = self.grouping(columns)
        row_combination, n = compress(grouping)
        first_row = first_occurrence(row_combination, n)
        codes = np.empty((n, len(columns)), dtype=np.int64)
        for j, column in enumerate(columns):
            codes[:, j] = self.codes[column][first_row]
        frequencies = FrequencySet(
            columns,
            codes,
            grouping.class_sizes,
            {c: self.values[c] for c in columns},
            {c: self.dtypes[c] for c in columns},
        )
        return frequencies, row_combination

    def frame_mask(self, examined: np.ndarray) -> np.ndarray:
        """Spread a boolean array over examined rows to all rows of the frame (False elsewhere)."""
        if self.positions is None:
            return examined
        mask = np.zeros(self.n_rows, dtype=bool)
        mask[self.positions] = examined
        return mask
