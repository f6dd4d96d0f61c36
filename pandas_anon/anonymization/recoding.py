"""Replace a column's values by their labels at a hierarchy level, on all or some rows.

The mapping is decided once per distinct value (a few thousand), then applied to the rows
by integer codes. When only some rows are recoded (local recoding), original values and
labels share the column, and a label equal to an original value (the province "AOSTA" and
the municipality "AOSTA") is the same value, as it is to anyone reading the output.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pandas_anon.engine.columns import Labelled, resolve_columns
from pandas_anon.engine.encoding import arrow_text, factorize, inferred
from pandas_anon.engine.hashing import one_array, take_text
from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.hierarchy import Hierarchy

#: A label code meaning "keep the value as read" (:func:`relabel`).
KEEP = -1

#: What a generalization spec maps a column to: a hierarchy (object, registered name, or a
#: builder called with the column) at level 1, or a ``(hierarchy, level)`` pair.
HierarchyLike = Hierarchy | str | Callable[[pd.Series], Hierarchy]
SpecValue = HierarchyLike | tuple[HierarchyLike, int]


@dataclass(frozen=True)
class Recoded:
    """A recoded column as codes into ``values`` (-1: missing) and the rows it changed."""

    codes: np.ndarray
    values: pd.Index
    changed: np.ndarray

    def marked(self, rows: np.ndarray, marker: str) -> tuple[Recoded, np.ndarray]:
        """The column with ``marker`` written on ``rows`` (the suppressed cells; a column of
        text as pandas stores text by default stays so, any other then holds objects, as
        text beside other values), and which of those rows held something else."""
        at = _position(self.values, marker)  # -1: absent
        values = self.values
        if isinstance(values.dtype, pd.StringDtype) and values.dtype == default_text_dtype():
            if at < 0:
                values, at = values.append(pd.Index([marker])), len(values)
        elif at < 0:
            values = _union(self.values, pd.Index([marker], dtype=object))
            at = len(self.values)
        else:
            values = values.astype(object)
        marked = Recoded(np.where(rows, at, self.codes), values, self.changed | rows)
        return marked, rows & (self.codes != at)


@dataclass(frozen=True)
class TextLabels:
    """A column whose every entry is written as a label, the labels held as Arrow text:
    ``text`` (the labels, and the marker of suppressed entries), each entry's code into
    it, which entries changed, and the dtype of the column (:func:`labels_as_text`)."""

    text: pa.Array
    codes: np.ndarray
    changed: np.ndarray
    dtype: Any

    def as_column(
        self,
        index: pd.Index,
        name: Hashable,
        rows: np.ndarray | None = None,
        counts: np.ndarray | None = None,
    ) -> pd.Series:
        """The column, one row per entry, or with ``rows`` entry ``rows[i]`` on row ``i``
        (each row's combination; ``counts``: the rows of each entry, when known), copied
        from the labels' bytes in one pass (:func:`~pandas_anon.engine.hashing.take_text`)."""
        return pd.Series(self.as_array(rows, counts), index=index, name=name, copy=False)

    def as_array(self, rows: np.ndarray | None = None, counts: np.ndarray | None = None) -> Any:
        """The column's values (:meth:`as_column`), as a pandas array of its dtype."""
        return text_array(take_text(self.text, self.codes, rows, counts=counts), self.dtype)


def labels_as_text(
    value_codes: np.ndarray,
    values: pd.Index,
    labels: pd.Index,
    label_codes: np.ndarray,
    marked: np.ndarray,
    marker: str,
    by_value: np.ndarray | None = None,
) -> TextLabels | None:
    """What :func:`relabel` then :meth:`Recoded.marked` write, found without merging the
    values and the labels into one index, when every entry gets a label (none is
    :data:`KEEP`: a full-domain recoding) and the labels are text stored as pandas stores
    text by default (Arrow): the output then holds labels and the marker only. An entry
    changed when its label is not its value (the same text; a value that is not text is no
    label) or it is ``marked`` and its label is not the marker. ``by_value``: each value's
    label code, when every entry holding a value gets the same label
    (:attr:`ColumnRecoding.by_value`): whether a value changes is then found once per value.
    None when the column is not such a column."""
    chunks = arrow_text(labels)
    if (
        chunks is None
        or labels.dtype != default_text_dtype()
        or chunks.null_count
        or (len(label_codes) and int(label_codes.min()) < 0)
    ):
        return None
    text = one_array(chunks)
    if values.dtype == labels.dtype and arrow_text(values) is not None:  # the same texts
        value_of_label = _positions_in(labels, values)
    elif getattr(values.dtype, "kind", "O") in "iufbmM":  # numbers, dates: no label is one
        value_of_label = np.full(len(text), -1, dtype=np.int64)
    else:  # objects, or text of another dtype: compared as pandas compares them
        return None
    codes = np.asarray(label_codes, dtype=np.int64)
    if by_value is not None and len(by_value) == len(values) and int(by_value.min(initial=0)) >= 0:
        changed = (value_of_label[by_value] != np.arange(len(values)))[value_codes]
    else:
        changed = value_of_label[codes] != value_codes
    if marked.any():
        is_marker = _positions_in(labels, [marker]) == 0
        changed |= marked & ~is_marker[codes]  # labels may repeat: compared as text
        at = int(np.argmax(is_marker)) if is_marker.any() else len(text)
        if at == len(text):
            text = pa.concat_arrays([text, pa.array([marker], type=text.type)])
        codes = np.where(marked, at, codes)
    return TextLabels(text, codes, changed, labels.dtype)


#: Texts compared through a dict up to this many (a hierarchy's labels, a column's values):
#: a few µs where a call of Arrow's compute functions costs tens.
_DICT_TEXTS = 4096


def _positions_in(texts: pd.Index, among: pd.Index | list[str]) -> np.ndarray:
    """The position of each of ``texts`` among the distinct ``among`` (text stored by Arrow,
    none missing; or a few Python texts), -1 where absent."""
    if len(texts) + len(among) > _DICT_TEXTS:
        index_in: Any = pc.index_in  # pyarrow-stubs: the Arrow arrays of Arrow-backed text
        value_set = arrow_text(among) if isinstance(among, pd.Index) else pa.array(among)
        found = index_in(arrow_text(texts), value_set=value_set)
        return np.asarray(pc.fill_null(found, -1), dtype=np.int64)
    position_of = {text: at for at, text in enumerate(_python_texts(among))}
    return np.fromiter(
        (position_of.get(text, -1) for text in _python_texts(texts)),
        dtype=np.int64,
        count=len(texts),
    )


def _python_texts(texts: pd.Index | list[str]) -> list[str]:
    """Python's texts of an index of Arrow text (from Arrow: pandas' ``tolist`` costs
    several times more), or the list given."""
    if isinstance(texts, list):
        return texts
    arrow: Any = arrow_text(texts)  # pyarrow-stubs: to_pylist of a ChunkedArray
    return arrow.to_pylist()


#: pandas 3 and later store text as ``str`` (Arrow), whatever a frame holds: its default
#: dtype for text is found once (pandas 2 decides it by an option, read every time).
_PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3


@functools.cache
def _text_dtype_of_pandas_3() -> Any:
    return pd.Index(["text"]).dtype


def text_array(text: pa.Array, dtype: Any) -> Any:
    """A pandas array of ``dtype`` (text stored by Arrow) holding the Arrow array ``text``:
    built around it under pandas 3 (``pd.array`` converts and checks it again, 10 to 50 µs
    a column)."""
    if _PANDAS_3 and isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        around: Any = pd.arrays.ArrowStringArray  # pandas-stubs: its dtype= of pandas 3
        return around(pa.chunked_array([text]), dtype=dtype)
    arrow: Any = text  # pandas-stubs: pd.array takes Arrow arrays
    return pd.array(arrow, dtype=dtype)


def default_text_dtype() -> Any:
    """The dtype pandas gives a column of text it infers (``str`` from pandas 3)."""
    return _text_dtype_of_pandas_3() if _PANDAS_3 else pd.Index(["text"]).dtype


def as_column(codes: np.ndarray, values: pd.Index, index: pd.Index, name: Hashable) -> pd.Series:
    """The column ``values[codes]`` (a code of -1: missing), with ``index`` and ``name``."""
    text = arrow_text(values)
    if text is not None and text.null_count == 0:  # from Arrow's buffers (take_text)
        taken = text_array(take_text(one_array(text), codes), values.dtype)
        return pd.Series(taken, index=index, name=name, copy=False)
    array = values.array
    missing = bool((codes < 0).any())  # -1 is missing, never "the last value"
    if values.dtype == object:
        # pandas infers a dtype for objects (text, dates): infer it from the distinct values
        # written rather than from every row (however many rows there are: the same values
        # give the same dtype), then take from them
        used = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(values)))
        array = inferred(values.to_numpy()[used]).array
        compact = np.full(len(values) + 1, -1, dtype=codes.dtype)  # last: missing
        compact[used] = np.arange(len(used))
        codes = compact[codes]
    taken = array.take(codes, allow_fill=missing)
    # the dtype of the values taken: objects are not inferred again over every row
    return pd.Series(taken, index=index, name=name, dtype=taken.dtype)


#: Whole numbers a float holds exactly: at most 2**53 in magnitude.
_EXACT_WHOLE = 2.0**53


def whole_floats(values: pd.Index) -> bool:
    """Whether ``values`` (the distinct values of a column as read) are floats every known
    one of which is a whole number a float holds exactly (at most 2**53 in magnitude), and
    not a negative zero (``-0.0`` has no whole number of its own): whole numbers pandas read
    as floats, as it reads a column of years with one missing value."""
    if not pd.api.types.is_float_dtype(values.dtype):
        return False
    numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
    known = numbers[~np.isnan(numbers)]
    return bool(len(known)) and bool(_whole(known).all())


def _whole(numbers: np.ndarray) -> np.ndarray:
    """Which of the floats ``numbers`` are whole numbers written as integers: exact (at most
    2**53 in magnitude), and not a negative zero."""
    with np.errstate(invalid="ignore"):  # infinities: not whole
        return (
            (np.floor(numbers) == numbers)
            & (np.abs(numbers) <= _EXACT_WHOLE)
            & ~((numbers == 0) & np.signbit(numbers))
        )


def as_whole_numbers(values: pd.Index) -> pd.Index | None:
    """``values`` (distinct, as a column of whole numbers read as floats is written: its
    values and the labels written over some of them) with each float that is a whole number
    (:func:`whole_floats`) an integer, so that ``1986.0`` is written ``1986``, as the
    nullable integer column it stands for writes it: ``Int64`` when every value is such a
    float, else Python integers beside the other values (the labels, a fractional mean).

    None when no value changes, or when an integer would then be written as another value
    is (a label ``"1986"`` or ``1986`` beside the value ``1986.0``): the values written
    apart stay apart, so the written file holds the classes counted.

    Examples
    --------
    >>> as_whole_numbers(pd.Index([1986.0, 1990.0]))
    Index([1986, 1990], dtype='Int64')
    >>> as_whole_numbers(pd.Index([1986.0, "[1980, 1990)", 1985.5], dtype=object)).tolist()
    [1986, '[1980, 1990)', 1985.5]
    >>> as_whole_numbers(pd.Index([1986.0, "1986"], dtype=object)) is None
    True
    """
    array = values.to_numpy(dtype=object, copy=True)  # written into below
    if pd.api.types.is_float_dtype(values.dtype):
        floats = np.ones(len(array), dtype=bool)
        numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        floats = np.fromiter(
            (isinstance(value, (float, np.floating)) for value in array),
            dtype=bool,
            count=len(array),
        )
        numbers = np.full(len(array), np.nan)
        numbers[floats] = array[floats].astype(np.float64)
    whole = floats & _whole(numbers)
    if not whole.any():
        return None
    integers = numbers[whole].astype(np.int64)
    spelled = pd.Index(array[~whole], dtype=object).map(str)  # as a CSV writes them
    if pd.Index(integers.astype(str)).isin(spelled).any():
        return None
    if whole.all():
        return pd.Index(pd.array(integers, dtype="Int64"))
    array[whole] = integers.astype(object)  # Python integers
    return pd.Index(array, dtype=object)


def whole_as_read(values: pd.Index, read: pd.Index) -> pd.Index:
    """The distinct ``values`` written over a column whose distinct values as read are
    ``read``: each float that is a whole number written as an integer when ``read`` are
    whole numbers, integers or whole numbers read as floats (:func:`whole_floats`,
    :func:`as_whole_numbers`; a mean label made the column float, and its kept years would
    be written ``1944.0``), else ``values`` as they are."""
    whole = pd.api.types.is_integer_dtype(read.dtype) or whole_floats(read)
    integers = as_whole_numbers(values) if whole else None
    return values if integers is None else integers


def _position(values: pd.Index, value: str) -> int:
    """The position of ``value`` among the distinct ``values`` (-1: absent), matched exactly
    (a number is not its text)."""
    try:
        found = values.get_loc(value)
    except (KeyError, TypeError, ValueError):  # absent, or not comparable (dates, numbers)
        return -1
    return found if isinstance(found, int) else -1


def output_copy(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy to write recoded columns into without ever touching ``frame``: shallow under
    copy-on-write (pandas 3, or the option on in pandas 2), deep otherwise."""
    cow = (
        int(pd.__version__.split(".")[0]) >= 3 or pd.get_option("mode.copy_on_write") is True
    )  # "warn" is not copy-on-write
    return frame.copy(deep=not cow)


def recode(
    series: pd.Series, hierarchy: Hierarchy, level: int, selected: np.ndarray | None = None
) -> Recoded:
    """Codes of ``series`` after replacing the ``selected`` rows (all when None) by their
    label at ``level``; missing values stay missing."""
    row_codes, uniques = factorize(series)
    return recode_codes(
        row_codes, pd.Index(uniques), hierarchy, level, selected, column=series.name
    )


def _union(uniques: pd.Index, labels: pd.Index) -> pd.Index:
    """``uniques`` then ``labels``, each value kept exactly: ``Index.append`` infers a dtype
    again for object values, and ``2**63 + 1`` among them became a float."""
    if len(labels) == 0:  # no label written: the values keep their dtype
        return uniques
    if uniques.dtype == object or labels.dtype == object or _inexact_as_floats(uniques, labels):
        return pd.Index(
            np.concatenate([uniques.to_numpy(dtype=object), labels.to_numpy(dtype=object)]),
            dtype=object,
        )
    return uniques.append(labels)


def _inexact_as_floats(uniques: pd.Index, labels: pd.Index) -> bool:
    """Whether ``uniques`` and ``labels`` would lose exactness as one index: their common
    dtype is a float (integers beside floats, and ``uint64`` beside ``int64``) and a whole
    number of either is beyond 2**53 in magnitude."""
    if uniques[:0].append(labels[:0]).dtype.kind != "f":
        return False
    return any(_beyond_floats(side) for side in (uniques, labels) if side.dtype.kind in "iu")


def _beyond_floats(whole: pd.Index) -> bool:
    """Whether an index of whole numbers holds one beyond 2**53 in magnitude."""
    present = whole.dropna()
    return len(present) > 0 and max(abs(int(present.min())), abs(int(present.max()))) > 2**53


def recode_codes(
    row_codes: np.ndarray,
    uniques: pd.Index,
    hierarchy: Hierarchy,
    level: int,
    selected: np.ndarray | None = None,
    *,
    column: Hashable = None,
) -> Recoded:
    """:func:`recode` for a column already factorized (codes into ``uniques``, -1 missing)."""
    counts = np.bincount(row_codes[row_codes >= 0], minlength=len(uniques))
    where = hierarchy.positions(uniques, column=column, counts=counts)
    present = row_codes >= 0
    label = hierarchy.codes(level)[where][np.where(present, row_codes, 0)]
    if selected is not None:
        present &= selected
    return relabel(row_codes, uniques, hierarchy.labels(level), np.where(present, label, KEEP))


def relabel(
    row_codes: np.ndarray, uniques: pd.Index, labels: pd.Index, row_labels: np.ndarray
) -> Recoded:
    """Write ``labels[row_labels]`` over a column factorized as ``row_codes`` into
    ``uniques`` (-1 missing), keeping each row whose label is :data:`KEEP` as it was.

    A label equal to an original value (the province "AOSTA" and the municipality "AOSTA",
    or ``"1944"`` read as 1944.0 and 1944) is the same value: the row keeps the value as read
    and is not counted as changed. A missing value given a label is changed.
    """
    codes, before, values = merged_codes(uniques, labels, row_codes, row_labels)
    return Recoded(codes, values, (row_labels != KEEP) & (codes != before))


def merged_codes(
    uniques: pd.Index, labels: pd.Index, value_codes: np.ndarray, label_codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Codes into one index of values and labels (equal ones merged): of ``labels[label_codes]``
    where the label is not :data:`KEEP`, else of ``uniques[value_codes]`` (-1: missing).
    Returns those codes, the codes of the values as they were, and the index."""
    union_codes, values = factorize(_union(uniques, labels))  # first occurrences first
    dtype = narrow_codes(len(values))
    # a code of -1 (missing, or KEEP) takes the last entry of each table: -1
    original = np.append(union_codes[: len(uniques)], -1).astype(dtype)
    generalized = np.append(union_codes[len(uniques) :], -1).astype(dtype)
    before = original[value_codes]
    codes = np.where(label_codes != KEEP, generalized[label_codes], before)
    return codes, before, pd.Index(values)


def positions_among(values: pd.Index, among: pd.Index) -> np.ndarray:
    """The position of each of the distinct ``values`` among the distinct ``among``, equal
    values matched as :func:`~pandas_anon.engine.encoding.factorize` matches them (the
    engine's one definition of the same value); -1 where absent, and for a missing value."""
    union_codes, distinct = factorize(_union(among, values))
    position_of = np.full(len(distinct) + 1, -1, dtype=np.int64)  # last: a missing value's
    known = np.flatnonzero(union_codes[: len(among)] >= 0)
    position_of[union_codes[known]] = known
    return position_of[union_codes[len(among) :]]


def narrow_codes(n_values: int) -> type[np.signedinteger]:
    """The integer type for codes into ``n_values`` values (and -1): int32 when they fit,
    halving the arrays a column of millions of rows writes through."""
    return np.int32 if n_values < 2**31 - 1 else np.int64


def resolve_spec(
    frame: pd.DataFrame, spec: Mapping[Hashable, SpecValue]
) -> dict[Hashable, tuple[Hierarchy, int]]:
    """Check a spec and turn every entry into ``(Hierarchy, level)``."""
    return {
        column: _resolve_entry(frame, frame[column], spec[column])
        for column in spec_columns(frame, spec)
    }


def spec_columns(frame: Labelled, spec: Mapping[Hashable, SpecValue]) -> tuple[Hashable, ...]:
    """The columns of a spec, checked (a frame of any engine)."""
    if not isinstance(spec, Mapping) or not spec:
        raise InvalidParameterError(
            "spec must map column names to a hierarchy and level, e.g. "
            "{'comune_residenza': ('it.comune', 1)}"
        )
    return resolve_columns(frame, list(spec))


def _resolve_entry(
    frame: pd.DataFrame, series: pd.Series, entry: SpecValue
) -> tuple[Hierarchy, int]:
    if isinstance(entry, tuple):
        if len(entry) != 2:
            raise InvalidParameterError(
                f"spec for column {series.name!r} must be a hierarchy or (hierarchy, level), "
                f"got a tuple of {len(entry)}"
            )
        source, level = entry
    else:
        source, level = entry, 1
    hierarchy = hierarchy_for(series, source, frame)
    hierarchy.labels(level)  # raises HierarchyError naming the valid levels
    return hierarchy, level


def read_beside(frame: Labelled, sources: Mapping[Hashable, object]) -> list[Hashable]:
    """The other columns of ``frame`` that the hierarchies of ``sources`` (a column -> what
    builds its hierarchy: a registered name, a hierarchy, a builder) read to be built: what
    a registered factory taking ``frame=`` names in its ``reads``
    (:func:`~pandas_anon.plugins.registry.columns_read`). A Dask frame's digest holds them
    too, so that such a factory reads them there as it reads them in a pandas frame."""
    from pandas_anon.plugins.registry import columns_read  # plugins load on first use only

    found: list[Hashable] = []
    for column, source in sources.items():
        for other in columns_read(source, column, list(frame.columns)):
            if other not in sources and other not in found:
                found.append(other)
    return found


def spec_sources(spec: Mapping[Hashable, SpecValue]) -> dict[Hashable, object]:
    """What builds each column's hierarchy in a spec (its entry, less the level)."""
    return {
        column: entry[0] if isinstance(entry, tuple) and len(entry) == 2 else entry
        for column, entry in spec.items()
    }


def hierarchy_for(
    series: pd.Series, source: HierarchyLike, frame: pd.DataFrame | None = None
) -> Hierarchy:
    """A Hierarchy from an object, a registered name or a builder given the column (a
    registered factory also gets ``frame``, the frame holding the column, if it takes it:
    :func:`~pandas_anon.plugins.registry.get_hierarchy`)."""
    if isinstance(source, Hierarchy):
        return source
    if isinstance(source, str):
        from pandas_anon.plugins.registry import get_hierarchy  # plugins load on first use only

        return get_hierarchy(source, series, frame=frame)
    if callable(source):
        built = source(series)
        if not isinstance(built, Hierarchy):
            raise HierarchyError(
                f"the builder given for column {series.name!r} returned "
                f"{type(built).__name__}, not a Hierarchy"
            )
        return built
    raise InvalidParameterError(
        f"column {series.name!r}: expected a Hierarchy, a registered hierarchy name or a "
        f"builder, got {type(source).__name__}"
    )
