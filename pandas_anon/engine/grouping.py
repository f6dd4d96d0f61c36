"""Rows grouped by their codes: mixed-radix keys, counted densely or through a hash table.

A set of encoded columns (:mod:`pandas_anon.engine.encoding`) is grouped by a mixed-radix
integer key built from the codes and counted with ``np.bincount`` when the key space is
dense, by hashing or by sorting when it is sparse; keys that would overflow int64 are
compressed to dense ids first. No string is hashed twice, and no groupby runs over the
original values. :func:`combinations` reads each distinct key back into the codes of its
combination, so a frequency set is built without gathering a single row.

What is grouped may be combinations rather than rows, each carrying a count of rows (a
frequency set grouped again on fewer columns): a *surplus* then names the elements carrying
more than one row and the rows each carries beyond one, and the counts become rows. Only
those elements cost anything more than plain counting, so a frequency set whose counts are
nearly all 1 is grouped nearly as fast as rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from pandas_anon.engine.hashing import COMPILED, group

#: Key spaces up to this many labels per examined row are counted densely with ``np.bincount``;
#: larger (sparser) key spaces are compressed through a hash table first.
DENSE_LABELS_PER_ROW = 8
_DENSE_MIN_LABELS = 1 << 16
#: :func:`class_sizes` counts densely up to this many labels per row: beyond, sorting the
#: labels (as 32-bit integers) is as fast, and needs no table as large as the key space.
SIZES_DENSE_LABELS_PER_ROW = 1
KEY_LIMIT = 1 << 62  # mixed-radix keys stay below this to leave int64 headroom
#: Sparse keys of at most this many rows are grouped in the compiled hash table, which
#: numbers each row's combination in the same pass (3-5 ns a row against 18 for sorting on
#: Adult's 30,162 rows); beyond, sorting, whose memory does not grow with a table of at
#: least twice as many slots as rows (16 bytes a row more).
HASHED_ROWS = 1 << 21

#: The elements weighing more than one row (positions among the labels grouped) and the rows
#: each carries beyond one; every other element is one row.
Surplus = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Grouping:
    """Examined rows grouped by their combination of values on some columns.

    ``labels`` gives each examined row a label below ``len(label_counts)``; ``label_counts``
    counts rows per label and may contain zeros (labels of a dense key space no row uses).
    """

    labels: np.ndarray
    label_counts: np.ndarray

    @cached_property
    def distinct(self) -> int:
        """Number of distinct combinations (equivalence classes)."""
        return int(np.count_nonzero(self.label_counts))

    @cached_property
    def singletons(self) -> int:
        """Number of rows alone in their class."""
        return int(np.count_nonzero(self.label_counts == 1))

    @property
    def class_sizes(self) -> np.ndarray:
        """Size of each non-empty class."""
        return self.label_counts[self.label_counts > 0]

    def row_class_sizes(self) -> np.ndarray:
        """Size of the class of each examined row."""
        return self.label_counts[self.labels]


def dense_limit(n_rows: int) -> int:
    """The largest key space of ``n_rows`` rows counted in a table of every key (as
    ``np.bincount`` counts) rather than hashed or sorted."""
    return max(DENSE_LABELS_PER_ROW * n_rows, _DENSE_MIN_LABELS)


def _dense(n_labels: int, n_rows: int) -> bool:
    """Whether a key space is small enough for ``np.bincount`` over every label."""
    return n_labels <= dense_limit(n_rows)


def group_labels(labels: np.ndarray, n_labels: int, surplus: Surplus | None = None) -> Grouping:
    """Count rows per label, through a hash table when the label space is too sparse (with a
    ``surplus``, the elements grouped are weighted: the counts are rows): the kernels' up to
    :data:`HASHED_ROWS` labels, else pandas' (the same ids, in the order of first
    occurrence)."""
    if _dense(n_labels, len(labels)):
        grouping = Grouping(labels, np.bincount(labels, minlength=n_labels))
    elif COMPILED and len(labels) <= HASHED_ROWS:
        _, sizes, ids = group((np.asarray(labels, dtype=np.int64),), np.ones(len(labels), np.int64))
        grouping = Grouping(ids, sizes)
    else:
        dense, _ = pd.factorize(labels, sort=False)
        dense = np.asarray(dense, dtype=np.int64)
        grouping = Grouping(dense, np.bincount(dense))
    if surplus is not None and len(surplus[0]):
        np.add.at(grouping.label_counts, grouping.labels[surplus[0]], surplus[1])
    return grouping


def _sizes_dense(n_labels: int, n_rows: int) -> bool:
    """Whether :func:`class_sizes` counts a key space with ``np.bincount``."""
    return n_labels <= max(SIZES_DENSE_LABELS_PER_ROW * n_rows, _DENSE_MIN_LABELS)


def class_sizes(labels: np.ndarray, n_labels: int, surplus: Surplus | None = None) -> np.ndarray:
    """Rows per label, zeros allowed (labels no row carries), when no row needs its class id
    (with a ``surplus``, the elements grouped are weighted: the counts are rows).

    Dense key spaces (at most :data:`SIZES_DENSE_LABELS_PER_ROW` labels per row) are counted
    with ``np.bincount``; sparse ones by sorting the labels and measuring the runs of equal
    labels, several times faster than a hash table on millions of distinct labels (numpy
    sorts integers with SIMD instructions), and with no table as large as the key space.
    """
    weighted = surplus is not None and len(surplus[0]) > 0
    if _sizes_dense(n_labels, len(labels)):
        sizes = np.bincount(labels, minlength=n_labels)
        if weighted:
            assert surplus is not None
            np.add.at(sizes, labels[surplus[0]], surplus[1])
        return sizes
    if len(labels) == 0:
        return np.zeros(0, dtype=np.int64)
    ordered = _sorted(labels, n_labels)
    heads = _run_heads(ordered)
    sizes = _run_lengths(heads, len(ordered))
    if weighted:
        assert surplus is not None
        run_labels = ordered[heads]
        runs = np.searchsorted(run_labels, labels[surplus[0]])
        np.add.at(sizes, runs, surplus[1])
    return sizes


def mixed_radix(
    codes: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    *,
    n_rows: int,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """The mixed-radix key of each row over several code columns (codes
    ``0..cardinality-1``) and the size of its key space; whenever the space would overflow
    int64, the key so far is compressed to dense ids first.

    ``out``: an array of ``n_rows`` to build the key in (a caller counting many keys reuses
    one, :class:`Scratch`), whose dtype holds the whole key space (:func:`key_dtype`).
    """
    labels: np.ndarray | None = None
    n_labels = 1
    for column_codes, cardinality in zip(codes, cardinalities):
        if labels is None:
            if out is None:
                labels = np.array(column_codes, dtype=np.int64)  # a copy: the caller's stay
            else:
                labels = out
                np.copyto(labels, column_codes, casting="unsafe")  # codes are >= 0
        else:
            if n_labels * cardinality >= KEY_LIMIT:
                labels, n_labels = compress(group_labels(labels, n_labels))
            np.multiply(labels, cardinality, out=labels, casting="unsafe")
            np.add(labels, column_codes, out=labels, casting="unsafe")
        n_labels *= cardinality
    if labels is None:  # no column: every row is one class
        labels = np.zeros(n_rows, dtype=np.int64) if out is None else out
        labels[:] = 0
    return labels, n_labels


def key_dtype(n_labels: int, n_rows: int) -> type[np.integer]:
    """The dtype in which :func:`size_census` counts a key space fastest: int64 for a dense
    one (``np.bincount`` reads no other without a copy), uint32 when a sparse one fits
    (sorted nearly twice as fast as int64)."""
    return np.uint32 if not _sizes_dense(n_labels, n_rows) and n_labels <= 1 << 32 else np.int64


class Scratch:
    """Arrays one thread reuses from one count to the next: a fresh array of millions of
    elements costs its page faults each time (in a search of a hundred subsets of millions
    of rows, seconds of system time)."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def array(self, dtype: type[np.integer], n: int) -> np.ndarray:
        """An array of ``n`` elements of ``dtype``, its content undefined."""
        kept = self._arrays.get(np.dtype(dtype).str)
        if kept is None or len(kept) < n:
            kept = self._arrays[np.dtype(dtype).str] = np.empty(n, dtype=dtype)
        return kept[:n]


def census(sizes: np.ndarray, below: int) -> tuple[int, np.ndarray]:
    """The classes of ``sizes`` (rows per label, zeros for labels no row carries): how many
    there are, and how many hold each number of rows below ``below`` (``small[s]`` classes
    of ``s`` rows; ``small[0]`` is 0)."""
    small = np.bincount(sizes, minlength=below)[:below]
    distinct = len(sizes) - int(small[0])
    small[0] = 0
    return distinct, small


#: The sizes of a partition's classes as a histogram: the distinct sizes (ascending, each at
#: least one row) and how many classes have each.
SizeHistogram = tuple[np.ndarray, np.ndarray]


def size_histogram(
    labels: np.ndarray,
    n_labels: int,
    surplus: Surplus | None = None,
    *,
    overwrite: bool = False,
) -> SizeHistogram:
    """The classes the ``labels`` form, as a :data:`SizeHistogram` (see :func:`class_sizes`;
    with a ``surplus``, sizes are rows). ``overwrite``: the labels may be sorted in place
    (a sparse key space of unweighted rows is then measured with no copy of them)."""
    weighted = surplus is not None and len(surplus[0]) > 0
    if (
        weighted
        or not overwrite
        or len(labels) == 0
        or labels.dtype != key_dtype(n_labels, len(labels))
        or _sizes_dense(n_labels, len(labels))
    ):
        sizes = class_sizes(labels, n_labels, surplus)
    else:
        labels.sort()
        sizes = _run_lengths(_run_heads(labels), len(labels))
    per_size = np.bincount(sizes)
    per_size[:1] = 0  # labels no row carries are no class
    sizes = np.flatnonzero(per_size)
    return sizes, per_size[sizes]


def histogram_census(histogram: SizeHistogram, below: int) -> tuple[int, np.ndarray]:
    """:func:`census` read off a :data:`SizeHistogram`."""
    sizes, classes = histogram
    small = np.zeros(below, dtype=np.int64)
    kept = sizes < below
    small[sizes[kept]] = classes[kept]
    return int(classes.sum()), small


def size_census(
    labels: np.ndarray,
    n_labels: int,
    surplus: Surplus | None = None,
    *,
    below: int,
    overwrite: bool = False,
) -> tuple[int, np.ndarray]:
    """:func:`census` of the classes the ``labels`` form (see :func:`class_sizes`).

    For the singletons alone (``below=2``) of unweighted rows on a sparse key space, the
    sorted labels say it without measuring every run: a label is a class where it differs
    from the one before, a singleton where it also differs from the one after.
    ``overwrite``: the labels may be sorted in place.
    """
    weighted = surplus is not None and len(surplus[0]) > 0
    if below != 2 or weighted or len(labels) == 0 or _sizes_dense(n_labels, len(labels)):
        return census(class_sizes(labels, n_labels, surplus), below)
    if overwrite and labels.dtype == key_dtype(n_labels, len(labels)):
        labels.sort()
        ordered = labels
    else:
        ordered = _sorted(labels, n_labels)
    starts = np.empty(len(ordered) + 1, dtype=bool)  # where a run starts (and past the end)
    starts[0] = starts[-1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:-1])
    singletons = int(np.count_nonzero(starts[:-1] & starts[1:]))
    return int(np.count_nonzero(starts[:-1])), np.array([0, singletons])


def group_codes(
    codes: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    *,
    n_rows: int,
    surplus: Surplus | None = None,
) -> Grouping:
    """Group rows by several code columns (codes ``0..cardinality-1``) through a
    mixed-radix key (:func:`mixed_radix`; with a ``surplus``, the elements grouped are
    weighted: the counts are rows)."""
    labels, n_labels = mixed_radix(codes, cardinalities, n_rows=n_rows)
    return group_labels(labels, n_labels, surplus)


@dataclass(frozen=True)
class Combinations:
    """Rows grouped into their distinct combinations of codes (:func:`combinations`).

    ``codes`` has shape (combinations, columns), each column contiguous (Fortran order);
    ``counts`` gives the rows of each combination. ``labels`` gives each row a label: its
    combination when ``keys`` is None, otherwise a key, ``keys`` (ascending) holding the key
    of each combination.
    """

    codes: np.ndarray
    counts: np.ndarray
    labels: np.ndarray
    keys: np.ndarray | None


def combinations(
    codes: Iterable[np.ndarray],
    cardinalities: Sequence[int],
    *,
    n_rows: int,
    weights: np.ndarray | None = None,
) -> Combinations:
    """Group rows by several code columns (as :func:`group_codes` does) and read each
    combination's codes back from its key, by division: no row is gathered, and the rows'
    labels are left as the keys when relabelling them would cost a pass over every row. A
    sparse key space is counted in the compiled hash table (:data:`HASHED_ROWS`), else by
    sorting the keys (several times faster than pandas' hashing), unless the rows are
    weighted.
    With ``weights`` (positive, one per row) a combination's count is its rows' weight.

    ``codes`` may be a generator: each column is read once, in order, so the caller can
    release it as soon as it is folded into the keys.
    """
    cardinalities = [int(c) for c in cardinalities]
    labels: np.ndarray | None = None  # the keys, built in place
    n_labels = 1
    # Each compression starts a stage: the key of each of its ids in the stage before, and
    # the radixes of the columns the stage adds.
    stages: list[tuple[np.ndarray | None, list[int]]] = [(None, [])]
    for column_codes, cardinality in zip(codes, cardinalities):
        if labels is None:
            labels = np.array(column_codes, dtype=np.int64)  # a copy: the caller's codes stay
        else:
            if n_labels * cardinality >= KEY_LIMIT:
                labels, stage_keys = dense_ids(labels, n_labels)
                n_labels = len(stage_keys)
                stages.append((stage_keys, []))
            labels *= cardinality
            labels += column_codes
        n_labels *= cardinality
        stages[-1][1].append(cardinality)
    if labels is None:  # no column: every row is one combination
        labels = np.zeros(n_rows, dtype=np.int64)
    if _dense(n_labels, n_rows):
        label_counts = np.bincount(labels, weights=weights, minlength=n_labels)
        found = np.flatnonzero(label_counts)
        counts = label_counts[found]
        keys: np.ndarray | None = None if len(found) in (0, n_labels) else found
    elif weights is None and COMPILED and len(labels) <= HASHED_ROWS:
        (found,), counts, labels = group((labels,), np.ones(len(labels), dtype=np.int64))
        keys = None  # the rows' labels are their combinations, in order of first occurrence
    elif weights is None:  # sorted: the keys and their runs, the rows keep their keys
        ordered = _sorted(labels, n_labels)
        heads = _run_heads(ordered)
        found = ordered[heads].astype(np.int64)
        del ordered
        counts = _run_lengths(heads, len(labels))
        keys = found
    else:
        labels, found = _factorize(labels)
        counts = np.bincount(labels, weights=weights)
        keys = None
    counts = counts.astype(np.int64, copy=False)  # weighted sums are floats, exact below 2**53
    combination_codes = np.empty((len(found), len(cardinalities)), dtype=np.int64, order="F")
    key, column = found.copy(), len(cardinalities)  # divided in place: ``found`` may be kept
    for previous_keys, radixes in reversed(stages):
        for radix in reversed(radixes):
            column -= 1
            np.divmod(key, radix, out=(key, combination_codes[:, column]))
        if previous_keys is not None:
            key = previous_keys[key]
    return Combinations(combination_codes, counts, labels, keys)


def _run_heads(ordered: np.ndarray) -> np.ndarray:
    """Where each run of equal values of ``ordered`` (sorted) starts: 0 first, ascending."""
    if len(ordered) == 0:
        return np.zeros(0, dtype=np.int64)
    changes = ordered[1:] != ordered[:-1]
    heads = np.empty(int(np.count_nonzero(changes)) + 1, dtype=np.int64)
    heads[0] = 0
    heads[1:] = np.flatnonzero(changes)
    heads[1:] += 1
    return heads


def _run_lengths(heads: np.ndarray, n: int) -> np.ndarray:
    """The length of each run starting at ``heads`` among ``n`` elements (no temporary as
    long as the runs)."""
    lengths = np.empty_like(heads)
    if len(heads):
        lengths[:-1] = heads[1:]
        lengths[:-1] -= heads[:-1]
        lengths[-1] = n - heads[-1]
    return lengths


def _sorted(labels: np.ndarray, n_labels: int) -> np.ndarray:
    """``labels`` (below ``n_labels``) sorted, as 32-bit integers when they fit: numpy sorts
    those nearly twice as fast as 64-bit ones."""
    if n_labels <= 1 << 32:
        return np.sort(labels.astype(np.uint32, copy=False))
    return np.sort(labels)


def dense_ids(labels: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of ``labels`` (below ``n_labels``), and the label of each id: in label
    order, through a table of every label, when the label space is dense; else in the order
    of first occurrence (hashed)."""
    if not _dense(n_labels, len(labels)):
        return _factorize(labels)
    table = np.bincount(labels, minlength=n_labels)
    keys = np.flatnonzero(table)
    if len(keys) == n_labels:
        return labels, keys
    table[keys] = np.arange(len(keys))  # the table, reused: each label's id
    return table[labels], keys


def _factorize(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of the labels in order of appearance (a hash table), and the label of each."""
    dense, uniques = pd.factorize(labels, sort=False)
    return np.asarray(dense, dtype=np.int64), np.asarray(uniques, dtype=np.int64)


def first_occurrence(labels: np.ndarray, n: int) -> np.ndarray:
    """Position of the first element carrying each label ``0..n-1`` (every label present)."""
    first = np.empty(n, dtype=np.int64)
    first[labels[::-1]] = np.arange(len(labels) - 1, -1, -1)  # reversed: the first one wins
    return first


def compress(grouping: Grouping) -> tuple[np.ndarray, int]:
    """Relabel a grouping's rows with dense class ids ``0..distinct-1``."""
    used = grouping.label_counts > 0
    if used.all():
        return grouping.labels, len(used)
    new_id = np.cumsum(used) - 1
    return new_id[grouping.labels], int(new_id[-1]) + 1


def weighted_keys(key: np.ndarray, weights: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key`` (integers below ``size``), sorted, with the sum of the
    ``weights`` (positive) of each: from a table of every value when it is small beside the
    keys, else by sorting."""
    if size <= max(8 * len(key), 1 << 16):
        table = np.bincount(key, weights=weights, minlength=size)
        held = np.flatnonzero(table)
        return held, table[held]
    held, inverse = np.unique(key, return_inverse=True)
    return held, np.bincount(inverse.ravel(), weights=weights, minlength=len(held))
