"""The Dask backend: a Dask frame's frequency set, counted where its partitions are.

A Dask frame is never collected. Its frequency set is counted where the partitions are:
each partition counts its own combinations with the pandas backend
(:func:`partition_counts`: each column's distinct values, and each combination's codes into
them), and a tree of tasks adds up the counts of equal combinations across partitions
(:func:`_add_counts`: integer codes grouped, no shuffle of the values), in the same pass
that counts the frame's rows. Only the distinct combinations and their counts reach the
caller, at most one row per combination whatever the number of rows. The pandas backend then reads that table, each
combination weighing its count (:func:`pandas_anon.engine.backends.pandas.tabulate` with
``weights``), so every figure comes from the same code, and equals what pandas gives on the
same rows. Rows are reached again only lazily: :meth:`DaskTabulation.mask` is a Dask Series,
each partition's rows joined with the combinations flagged.

Two cells are the same value when they are written the same
(:func:`pandas_anon.engine.encoding.kind_of`, ``docs/engine.md``), which Dask's ``groupby``
and ``merge`` do not know: they compare as pandas does (``0.0 == -0.0``, ``1 == True ==
1.0``). So wherever Dask compares values (adding up the partitions' counts, joining rows
with their combinations, counting a column's values), a float or object column is compared
by a key of its values as written (:func:`written_keys`), and the values read back from the
keys (:func:`values_of`) are the values as the frame holds them.

What does not scale is a quasi-identifier whose combinations are themselves too many for
one machine (nearly one per row, on billions of rows): its frequency set is as large as the
frame. The election (:func:`pandas_anon.best_qid`) counts the combinations of every
candidate column together, so it is bounded by those.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.dataframe.utils import has_known_categories, make_meta

from pandas_anon.engine.backends import pandas as pandas_backend
from pandas_anon.engine.columns import all_columns, resolve_columns
from pandas_anon.engine.encoding import (
    TEXT_MISHASHED,
    check_complete,
    kind_of,
    mishashed,
    mishashed_text,
    python_text,
)
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.grouping import dense_ids, first_occurrence, mixed_radix
from pandas_anon.engine.memory import with_pooled_memory
from pandas_anon.errors import EmptyDataError, InvalidParameterError
from pandas_anon.progress import distributed_watched

#: What an empty Dask frame is told, as an empty pandas frame is.
_NO_ROWS = "the frame has no rows: there is nothing to examine"
#: The column of the flags joined with each partition's rows (:meth:`DaskTabulation.mask`).
_FLAG = "__pandas_anon_flag__"
#: Bits of a row's position within its partition in where a combination's first row is
#: (:attr:`_Counts.firsts`, the partition's number above them): a partition holds fewer
#: than 2^40 rows.
_POSITION_BITS = 40


@dataclass(frozen=True)
class DaskTabulation:
    """A Dask frame read once: its frequency set (computed), and what maps its rows to
    combinations lazily: the distinct combinations as Dask counted them (``combinations``,
    a pandas frame) and the combination of the frequency set each of them is
    (``combination_of``)."""

    frequencies: FrequencySet
    combinations: pd.DataFrame
    combination_of: np.ndarray
    n_rows: int

    @property
    def n_examined(self) -> int:
        """Rows examined: the rows the frequency set counts."""
        return self.frequencies.n_rows

    @property
    def n_dropped(self) -> int:
        """Rows of the frame left out, missing a value (``dropna=True``)."""
        return self.n_rows - self.n_examined

    def mask(self, frame: Any, per_combination: np.ndarray, name: str) -> Any:
        """A lazy boolean per row of ``frame`` (the Dask frame tabulated): its combination's
        value of ``per_combination`` (False on rows not examined), partition by partition: a
        Dask Series (typed ``Any`` as the frame, so that results serve both backends)."""
        columns = list(self.combinations.columns)
        table = written_keys(self.combinations, columns)
        table[_FLAG] = per_combination[self.combination_of]

        def flags(partition: pd.DataFrame, table: pd.DataFrame) -> pd.Series:
            keys = written_keys(partition, columns)
            joined = keys.merge(table, how="left", on=columns, sort=False)
            found = joined[_FLAG].to_numpy(dtype=object)
            return pd.Series(found == True, index=partition.index, name=name)  # noqa: E712

        return frame.map_partitions(flags, _shared(table), meta=pd.Series(dtype=bool, name=name))


@dataclass(frozen=True)
class Digest:
    """A Dask frame reduced to the distinct combinations of some columns: ``frame``, a
    pandas frame of them in the order their first rows come in the Dask frame, ``counts``,
    the rows of each, and ``n_rows``, the rows of the Dask frame.

    Read with ``counts`` as weights, ``frame`` is the Dask frame as far as those columns
    tell: it has the same frequency set, and its values come in the same order (a column's
    values in the order they first appear, as ``pandas.factorize`` reads the rows). So every
    method reading the frequency set decides on it what it decides on the rows, and each row
    is then written as its combination is (:func:`write`)."""

    frame: pd.DataFrame
    counts: np.ndarray
    n_rows: int


def digest(frame: dd.DataFrame, columns: Iterable[Hashable] | Hashable) -> Digest:
    """The :class:`Digest` of ``columns`` of ``frame`` (a missing value is a value of its
    own): one pass over the frame, which also counts its rows."""
    names = list(resolve_columns(frame, columns))
    (counted,) = compute(_counted(frame[names], names), about=[frame[names]])
    n_rows = int(counted.counts.sum())
    if n_rows == 0:
        raise EmptyDataError(_NO_ROWS)
    order = np.argsort(counted.firsts, kind="stable")
    combinations = pd.DataFrame(
        {
            j: keys.take(counted.codes[order, j]).reset_index(drop=True)
            for j, keys in enumerate(counted.keys)
        }
    )
    combinations.columns = names
    for name in names:  # the frame's dtypes, which grouping may change (not unknown categories)
        combinations[name] = values_of(combinations[name], frame[name].dtype)
        if not _unknown_categories(frame[name].dtype):
            combinations[name] = combinations[name].astype(frame[name].dtype)
    return Digest(combinations, counted.counts[order], n_rows)


#: How many partitions' (then groups') counts one task adds up (:func:`_counted`).
_SPLIT_EVERY = 8


def _counted(frame: dd.DataFrame, names: list[Hashable]) -> Any:
    """The :class:`_Counts` of ``frame`` (its columns ``names``), lazily: each partition
    counted where it is (:func:`partition_counts`), then the counts added up by a tree of
    tasks each reading at most :data:`_SPLIT_EVERY` of them (:func:`_add_counts`), so that
    what moves between workers is codes and each partition's distinct values, never rows,
    and no shuffle."""
    counted = [
        dask.delayed(partition_counts)(part, names, number)
        for number, part in enumerate(frame.to_delayed())
    ]
    while len(counted) > 1:
        counted = [
            dask.delayed(_add_counts)(counted[at : at + _SPLIT_EVERY])
            for at in range(0, len(counted), _SPLIT_EVERY)
        ]
    return counted[0]


def tabulate(
    frame: dd.DataFrame, columns: Iterable[Hashable] | Hashable, *, dropna: bool = False
) -> DaskTabulation:
    """Count the combinations of ``columns`` across the partitions of ``frame`` (a missing
    value is a value of its own unless ``dropna``, which leaves the rows missing one out, as
    the pandas backend does, with the same error and warning): one pass over the frame,
    which also counts its rows."""
    names = list(resolve_columns(frame, columns))
    found = digest(frame, names)
    combinations, weights = found.frame, found.counts
    if dropna:  # the rows missing a value, left out as the pandas backend leaves them out
        incomplete = combinations.isna()
        complete = ~incomplete.any(axis=1).to_numpy()
        check_complete(
            names,
            {name: int(weights[incomplete[name].to_numpy()].sum()) for name in names},
            kept=int(weights[complete].sum()),
            total=found.n_rows,
            any_complete=bool(complete.any()),
        )
        combinations = combinations[complete].reset_index(drop=True)
        weights = weights[complete]
    local = pandas_backend.tabulate(combinations, names, weights=weights)
    return DaskTabulation(local.frequencies, combinations, local.row_combination, found.n_rows)


@dataclass(frozen=True)
class _Counts:
    """Combinations of some partitions, dictionary-encoded: per column, its distinct
    values as keys (``keys``, :func:`written_keys`), and per combination its codes into
    them (``codes``, one column each), its rows (``counts``) and where its first row is
    (``firsts``: the partition's number, then the row's position in it, as one integer)."""

    keys: list[pd.Series]
    codes: np.ndarray
    counts: np.ndarray
    firsts: np.ndarray


@with_pooled_memory
def partition_counts(partition: pd.DataFrame, names: list[Hashable], number: int) -> _Counts:
    """The :class:`_Counts` of partition ``number`` on ``names`` (a missing value a value
    of its own): counted by the pandas backend (several times faster than
    ``groupby().size()`` on millions of rows), whose frequency set is dictionary-encoded
    already, or by ``groupby`` on the keys on a partition where a column holds no value
    (which the backend refuses, rightly, for a whole frame).

    Run on the pool of :mod:`pandas_anon.engine.memory`, as :func:`_add_counts` is: Dask
    starts its workers with ``MALLOC_TRIM_THRESHOLD_`` set, so the system's allocator hands
    every large block back when it is freed, and each task would pay a page fault per 4 KiB
    of its arrays again."""
    part = partition[names]
    offset = number << _POSITION_BITS
    if len(part) == 0 or part.isna().all().any():
        positions = pd.Series(np.arange(len(part), dtype=np.int64), index=part.index)
        keys = written_keys(part, names)
        grouped = positions.groupby(
            [keys[name] for name in names], dropna=False, observed=True, sort=False
        )
        found = grouped.agg(["size", "min"])
        table = found.index.to_frame(index=False)
        coded = [pd.factorize(table[j], use_na_sentinel=False) for j in table.columns]
        return _Counts(
            [pd.Series(uniques) for _, uniques in coded],
            np.column_stack([codes for codes, _ in coded]).astype(np.int64),
            found["size"].to_numpy(dtype=np.int64),
            found["min"].to_numpy(dtype=np.int64) + offset,
        )
    tabulation = pandas_backend.tabulate(part, names, dropna=False)
    frequencies = tabulation.frequencies
    first = first_occurrence(tabulation.row_combination, len(frequencies))
    at = [frequencies.columns.index(name) for name in names]
    return _Counts(
        [
            _keys_of(pd.Series(frequencies.values[names[j]]).astype(part[names[j]].dtype))
            for j in range(len(names))
        ],
        np.asarray(frequencies.codes[:, at], dtype=np.int64),
        np.asarray(frequencies.counts, dtype=np.int64),
        first + offset,
    )


def _keys_of(values: pd.Series) -> pd.Series:
    """:func:`written_keys` of one column's values."""
    return written_keys(values.to_frame(0), [0])[0]


@with_pooled_memory
def _add_counts(parts: list[_Counts]) -> _Counts:
    """The :class:`_Counts` of several groups of consecutive partitions together, in the
    partitions' order: each column's keys put together (categoricals as Dask puts their
    partitions together) and numbered anew, each combination's codes read through them,
    and the counts of equal combinations added up (their first rows: the first of them)."""
    n = sum(len(p.counts) for p in parts)
    keys: list[pd.Series] = []
    codes: list[np.ndarray] = []
    for j in range(len(parts[0].keys)):
        joined = _joined([p.keys[j] for p in parts])
        numbered, distinct = pd.factorize(joined, use_na_sentinel=False)
        # read through the new numbers part by part, into one column (32 bits when they fit)
        numbered = numbered.astype(np.int32 if len(distinct) < 2**31 else np.int64)
        column = np.empty(n, dtype=numbered.dtype)
        key_at = row_at = 0
        for p in parts:
            part_numbers = numbered[key_at : key_at + len(p.keys[j])]
            part_numbers.take(p.codes[:, j], out=column[row_at : row_at + len(p.counts)])
            key_at, row_at = key_at + len(p.keys[j]), row_at + len(p.counts)
        codes.append(column)
        keys.append(pd.Series(distinct))
    counts = np.concatenate([p.counts for p in parts])
    firsts = np.concatenate([p.firsts for p in parts])
    combined, n_labels = mixed_radix(codes, [len(k) for k in keys], n_rows=n)
    labels, found = dense_ids(combined, n_labels)
    del combined
    added = np.bincount(labels, weights=counts, minlength=len(found)).astype(np.int64)
    # each group holds whole partitions, in order, and a combination once: its first
    # element is its first row
    heads = first_occurrence(labels, len(found))
    return _Counts(keys, np.column_stack([c[heads] for c in codes]), added, firsts[heads])


def _joined(keys: list[pd.Series]) -> pd.Series:
    """One column's keys from several groups of partitions, one after the other:
    categoricals put together as Dask puts partitions together (their categories in the
    order met; ordered ones must have the same), others concatenated."""
    if all(isinstance(k.dtype, pd.CategoricalDtype) for k in keys):
        return pd.Series(pd.api.types.union_categoricals([k.array for k in keys]))
    return pd.concat(keys, ignore_index=True)


#: The key of every missing float (a NaN of any sign or payload), as pandas groups them.
_NAN_KEY = np.float64(np.nan).view(np.int64)


@dataclass(frozen=True)
class _Written:
    """A number of an object column as a key (:func:`written_keys`): equal to another when
    both are the same value as written, of one kind (:func:`~pandas_anon.engine.encoding.kind_of`,
    a float zero's sign counting) and equal. ``value`` is the cell as it was, which the
    comparison leaves out; ``str()`` is the same for equal keys, since Dask spreads values
    over partitions by the hash of their ``str()``."""

    kind: str
    key: object
    value: object = field(compare=False)

    def __str__(self) -> str:
        return f"{self.kind} {self.key!r}"


def written_keys(frame: pd.DataFrame, names: Iterable[Hashable]) -> pd.DataFrame:
    """The columns ``names`` of ``frame`` (a new frame), each float or object column as keys
    that pandas' equality compares as written, so that Dask's ``groupby``, ``merge`` and
    ``value_counts`` tell apart what :func:`~pandas_anon.engine.encoding.written_codes` tells
    apart, in every partition alike (whatever values each partition holds):

    - a float column: the bits of each value (int64; every missing value one key), so
      ``-0.0`` is not ``0.0``; one comparison a row;
    - an object column: each number (not missing) as a :class:`_Written` of its kind and
      value, so ``1``, ``True`` and ``1.0`` are three keys; a column of text (what
      :func:`pandas.api.types.infer_dtype` finds there) is kept as it is, any other value too;
    - text that this pandas hashes wrongly (:func:`~pandas_anon.engine.encoding.mishashed`:
      before 3.1, text holding a NUL character or a lone surrogate): each such text as a
      :class:`_Written` (a ``string[python]`` column then as objects), which pandas hashes
      whole.

    Every other dtype compares as written already, and is kept. :func:`values_of` reads the
    values back."""
    names = list(names)
    keys = frame[names].copy(deep=False)
    for name in names:
        column = frame[name]
        if pd.api.types.is_float_dtype(column.dtype):
            data = column.to_numpy(dtype=np.float64, na_value=np.nan)
            keys[name] = np.where(np.isnan(data), _NAN_KEY, data.view(np.int64))
        elif pd.api.types.is_object_dtype(column.dtype):
            # as objects: pandas 3 would read a column of texts as str, which holds no
            # lone surrogate
            keys[name] = pd.Series(_object_keys(column.to_numpy()), index=keys.index, dtype=object)
        elif python_text(column.dtype) and TEXT_MISHASHED:  # in every partition alike
            keys[name] = _text_keys(column.to_numpy(dtype=object))
    return keys


def _text_keys(values: np.ndarray) -> np.ndarray:
    """``values`` (objects) with each text this pandas would hash wrongly as a
    :class:`_Written` (:func:`~pandas_anon.engine.encoding.mishashed`); the same key for a
    value whatever partition holds it."""
    if not mishashed(values):
        return values
    rows = np.flatnonzero(
        np.fromiter(
            (isinstance(v, str) and mishashed_text(v) for v in values),
            dtype=bool,
            count=len(values),
        )
    )
    keys = values.copy()
    keys[rows] = np.fromiter(
        (_Written("text", str(v), v) for v in values[rows]), dtype=object, count=len(rows)
    )
    return keys


def _object_keys(values: np.ndarray) -> np.ndarray:
    """:func:`written_keys` of an object column's values: its numbers as :class:`_Written`
    (of the kind :func:`~pandas_anon.engine.encoding.kind_of` gives their type; one key
    made for each distinct number of a kind), text and other values as they are."""
    keys = _text_keys(values)
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        return keys
    type_codes, types = pd.factorize(
        np.fromiter(map(type, values), dtype=object, count=len(values))
    )
    kinds = [kind_of(t) for t in types]  # a type for any kind but numbers'
    present = ~pd.isna(values)
    for kind in {k for k in kinds if not isinstance(k, type)}:
        of_kind = [j for j, k in enumerate(kinds) if k is kind]
        rows = np.flatnonzero(np.isin(type_codes, of_kind) & present)
        if len(rows) == 0:
            continue
        cells = values[rows]
        if kind is kind_of(float):  # by their bits: -0.0 is not 0.0
            codes, _ = pd.factorize(cells.astype(np.float64).view(np.int64))
        else:  # one kind: pandas' equality is the same value's
            codes, _ = pd.factorize(cells)
        firsts = np.unique(codes, return_index=True)[1]
        made = np.empty(len(firsts), dtype=object)
        for at, cell in enumerate(cells[firsts]):
            key = cell.item() if isinstance(cell, np.generic) else cell  # numpy's as Python's
            negative_zero = isinstance(key, float) and key == 0 and np.signbit(key)
            made[at] = _Written(repr(kind) + (" -0" if negative_zero else ""), key, cell)
        keys = keys.copy() if keys is values else keys
        keys[rows] = made[codes]
    return keys


def values_of(keys: pd.Series, dtype: Any) -> pd.Series:
    """The values of a column of ``dtype`` whose keys (:func:`written_keys`) are ``keys``:
    a float column's values from their bits (a missing value NaN), an object column's
    numbers and texts as its cells held them; else ``keys`` themselves."""
    if pd.api.types.is_float_dtype(dtype):
        bits = keys.to_numpy(dtype=np.int64)
        return pd.Series(bits.view(np.float64), index=keys.index, name=keys.name)
    if pd.api.types.is_object_dtype(dtype) or python_text(dtype):
        cells = (k.value if isinstance(k, _Written) else k for k in keys.to_numpy(dtype=object))
        values = np.fromiter(cells, dtype=object, count=len(keys))
        return pd.Series(values, index=keys.index, name=keys.name, dtype=dtype)
    return keys


def distinct(table: pd.DataFrame, keys: list[Hashable]) -> pd.DataFrame:
    """The rows of ``table`` (a pandas frame) whose combination of ``keys`` comes first,
    values compared as written (:func:`written_keys`), numbered anew."""
    return table[~written_keys(table, keys).duplicated().to_numpy()].reset_index(drop=True)


def _shared(table: Any) -> Any:
    """``table`` (any object) as an argument every partition's task reads: sent to the
    workers once (scattered, when a distributed client is running), not embedded in every
    task, and never tokenized by value (objects of our own types have no stable token)."""
    try:
        from distributed import default_client

        return default_client().scatter(table, broadcast=True, hash=False)
    except (ImportError, ValueError):  # no distributed client: the local schedulers
        return dask.delayed(table, pure=False)


def _unknown_categories(dtype: object) -> bool:
    """Whether ``dtype`` is a Dask categorical whose categories are not known yet."""
    return isinstance(dtype, pd.CategoricalDtype) and not has_known_categories(
        pd.Series([], dtype=dtype)
    )


def rewrite(
    frame: dd.DataFrame,
    keys: list[Hashable],
    table: pd.DataFrame,
    replaced: Mapping[Hashable, str],
    *,
    flag: str,
    drop_flagged: bool = False,
    then: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> dd.DataFrame:
    """``frame`` rewritten partition by partition, lazily: each row joined on ``keys`` with
    its combination in ``table`` (one row per combination of the frame), each column of
    ``replaced`` taken from the table's column it names, the rows whose combination is
    ``flag``-ged left out with ``drop_flagged``, then ``then`` applied to the partition.
    The table reaches each worker once, not once per partition; rows and combinations are
    joined on their values as written (:func:`written_keys`)."""
    table = pd.concat([written_keys(table, keys), table.drop(columns=keys)], axis=1)

    def partition(part: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
        joined = written_keys(part, keys).merge(table, how="left", on=keys, sort=False)
        if joined[flag].isna().any():
            raise InvalidParameterError(
                "the frame holds combinations of "
                f"{list(map(str, keys))} that the transformation was not decided on: apply it "
                "to the frame it was decided on"
            )
        out = part.copy(deep=False)  # the partition itself is not changed
        for column, name in replaced.items():
            out[column] = joined[name].set_axis(part.index)
        if drop_flagged:
            out = out.loc[~joined[flag].to_numpy(dtype=bool)]
        return out if then is None else then(out)

    meta = partition(make_meta(frame), table)
    return frame.map_partitions(partition, _shared(table), meta=meta)


def each_partition(
    frame: dd.DataFrame,
    func: Callable[..., pd.DataFrame],
    *tables: Any,
    beside: dd.DataFrame | None = None,
) -> dd.DataFrame:
    """``func`` applied to each partition of ``frame`` lazily, with the partition of
    ``beside`` at the same place (a frame derived from the same one, partition for
    partition) and ``tables`` (pandas or numpy objects, sent to each worker once); the
    output's metadata from ``func`` on the empty partitions."""
    first = [make_meta(frame)] + ([make_meta(beside)] if beside is not None else [])
    meta = func(*first, *tables)
    others = [beside] if beside is not None else []
    shared = [_shared(table) for table in tables]
    return frame.map_partitions(func, *others, *shared, meta=meta, align_dataframes=False)


def with_positions(frame: dd.DataFrame, name: str) -> dd.DataFrame:
    """``frame`` with a column ``name`` holding each row's position in the frame (0 for
    its first row), lazily; the partitions' lengths are counted first, in one pass."""
    (lengths,) = compute(frame.map_partitions(len, meta=(None, np.int64)))
    lengths = lengths.to_numpy()
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)

    def numbered(part: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
        start = 0 if partition_info is None else int(offsets[partition_info["number"]])
        return part.assign(**{name: np.arange(start, start + len(part), dtype=np.int64)})

    return frame.map_partitions(numbered, meta=numbered(make_meta(frame)))


def by_groups(
    frame: dd.DataFrame, key: str, func: Callable[..., pd.DataFrame], *tables: Any
) -> pd.DataFrame:
    """``func`` applied to partitions each holding whole groups of rows sharing a value of
    ``key`` (Dask shuffles the rows on it), with ``tables`` (as :func:`each_partition`
    takes them), and the results gathered (computed)."""
    return compute(each_partition(frame.shuffle(on=key), func, *tables))[0]


def key_divisions(parts: int) -> np.ndarray:
    """Divisions of [0, 1] into at least ``parts`` equal parts, a power of two of them: each
    bound is exact in floating point, so a key's part is the same wherever it is computed
    (``np.searchsorted(divisions, key, side="right") - 1``, as Dask computes it)."""
    count = 1 << max(parts - 1, 0).bit_length()
    return np.arange(count + 1, dtype=float) / count


def sorted_by(
    frame: dd.DataFrame, key: str, divisions: np.ndarray, counts: np.ndarray
) -> dd.DataFrame:
    """``frame`` in the order of its ``key`` column (values in [0, 1)), with a new index
    numbering the rows 0, 1, ... in that order, and without the key, lazily. ``counts``:
    the rows whose key falls in each part of ``divisions`` (:func:`key_divisions`), known
    beforehand, so that numbering costs no pass."""
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    # moved by tasks: Dask's P2P shuffle converts partitions to Arrow, which refuses a
    # column holding numbers and text (a release's "*" among its numbers)
    ordered = frame.set_index(key, divisions=list(divisions), sorted=False, shuffle_method="tasks")

    def numbered(part: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
        start = 0 if partition_info is None else int(offsets[partition_info["number"]])
        part = part.sort_index(kind="stable")
        return part.set_axis(pd.RangeIndex(start, start + len(part)))

    return ordered.map_partitions(numbered, meta=numbered(make_meta(ordered)))


def compute(*collections: Any, about: Iterable[Any] = ()) -> tuple:
    """Several Dask collections computed in one pass, with Dask's progress bar where the
    call asked for progress (:func:`pandas_anon.progress.distributed_work`): on a
    distributed cluster, ``distributed.progress`` (the scheduler's count of the tasks, a
    text bar in a terminal and a widget in a notebook), else tqdm's callback for Dask's
    local schedulers. An ordered categorical whose categories differ between partitions
    (which Dask cannot put together) is refused with our error naming its column (the
    column of ``collections``, or of ``about``: the Dask frames they were made from)."""
    with _ordered_categories_refused([*collections, *about]):
        if not distributed_watched():
            return dask.compute(*collections)
        try:
            from distributed import default_client, progress

            client = default_client()
        except (ImportError, ValueError):  # no distributed client: the local schedulers
            from tqdm.dask import TqdmCallback

            with TqdmCallback(desc="dask", file=sys.stderr):
                return dask.compute(*collections)
        futures = client.compute(list(collections))
        progress(futures)
        return tuple(client.gather(futures))


#: What pandas says when the partitions of an ordered categorical hold other categories.
_ORDERED_MISMATCH = ("ordered Categoricals", "Categorical.ordered must be the same")


@contextmanager
def _ordered_categories_refused(collections: Iterable[Any]) -> Iterator[None]:
    """Turn the TypeError with which pandas refuses to put together the partitions of an
    ordered categorical whose categories differ between them (a partition whose values are
    all missing may have none; Dask's own ``compute()`` fails the same way) into an
    InvalidParameterError naming the ordered categorical columns of ``collections`` and
    how to give every partition the same categories."""
    try:
        yield
    except TypeError as error:
        # pandas 3's words, then pandas 2.2's
        if not any(words in str(error) for words in _ORDERED_MISMATCH):
            raise
        named = sorted({repr(c) for each in collections for c in _ordered_columns(each)})
        which = f"column {', '.join(named)}" if named else "an ordered categorical column"
        raise InvalidParameterError(
            f"{which}: an ordered categorical whose categories differ between partitions (a "
            "partition whose values are all missing may have none), which Dask cannot put "
            "together; give it the same categories in every partition: "
            "ddf[c] = ddf[c].cat.set_categories(categories, ordered=True) with the full "
            "list, or make it unordered: ddf[c] = ddf[c].cat.as_unordered()"
        ) from None


def _ordered_columns(collection: Any) -> list[Hashable]:
    """The labels of the ordered categorical columns (or index levels) of a Dask collection's
    metadata."""
    meta = getattr(collection, "_meta", None)
    found: list[Hashable] = []
    if isinstance(meta, pd.DataFrame):
        found += [c for c, t in meta.dtypes.items() if _is_ordered(t)]
    elif isinstance(meta, pd.Series) and _is_ordered(meta.dtype):
        found.append(meta.name)
    if isinstance(meta, pd.DataFrame | pd.Series):
        index = meta.index
        levels = (
            index.dtypes.items()
            if isinstance(index, pd.MultiIndex)
            else [(index.name, index.dtype)]
        )
        found += [name for name, t in levels if _is_ordered(t)]
    return found


def _is_ordered(dtype: object) -> bool:
    return isinstance(dtype, pd.CategoricalDtype) and bool(dtype.ordered)


def alone_counts(
    frame: dd.DataFrame,
    columns: Iterable[Hashable],
    sharing: Callable[[Hashable, int], int],
) -> tuple[dict[Hashable, int | None], int]:
    """The rows alone on their value in each of ``columns`` (a missing value is one more
    value), and the rows of ``frame``. None for a column on which more rows than
    ``sharing(column, rows)`` share their value already within partitions (they share it in
    the frame too): counting its values across partitions is then spared. Two passes at
    most: the rows sharing a value within each partition, then the values' counts of the
    columns left."""
    columns = list(columns)
    width = len(columns)

    def shared(part: pd.DataFrame) -> pd.DataFrame:
        keys = written_keys(part, columns)
        within = [len(part) - keys[c].nunique(dropna=False) for c in columns]
        return pd.DataFrame([[*within, len(part)]], columns=range(width + 1))

    meta = pd.DataFrame({j: np.zeros(0, dtype=np.int64) for j in range(width + 1)})
    (sums,) = compute(frame[columns].map_partitions(shared, meta=meta).sum())
    total = int(sums[width])
    left = [c for j, c in enumerate(columns) if int(sums[j]) <= sharing(c, total)]
    keyed = frame[left].map_partitions(
        written_keys, left, meta=written_keys(make_meta(frame), left)
    )
    counted = compute(
        *[(keyed[c].value_counts(dropna=False, split_out=True) == 1).sum() for c in left]
    )
    alone: dict[Hashable, int | None] = dict.fromkeys(columns)
    alone.update({c: int(n) for c, n in zip(left, counted, strict=True)})
    return alone, total


def row_count(frame: dd.DataFrame) -> int:
    """The rows of ``frame`` (one pass); :class:`EmptyDataError` when it has none."""
    rows = int(compute(frame.shape[0])[0])
    if rows == 0:
        raise EmptyDataError(_NO_ROWS)
    return rows


def present_columns(frame: dd.DataFrame) -> tuple[Hashable, ...]:
    """The columns of ``frame`` holding at least one value (one pass over the frame)."""
    columns = all_columns(frame)
    if not columns:
        raise EmptyDataError("the frame has no columns: there is nothing to examine")
    (held,) = compute((~frame.isna()).any())
    return tuple(c for c in columns if bool(held[c]))
