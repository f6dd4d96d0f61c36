"""Rows grouped by their codes: mixed-radix keys, counted densely or through a hash table.

A set of encoded columns (:mod:`pandas_anon.engine.encoding`) is grouped by a mixed-radix
integer key built from the codes and counted with ``np.bincount`` when the key space is
dense, by hashing or by sorting when it is sparse; keys that would overflow int64 are
compressed to dense ids first. No string is hashed twice, and no groupby runs over the
original values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

#: Key spaces up to this many labels per examined row are counted densely with ``np.bincount``;
#: larger (sparser) key spaces are compressed through a hash table first.
DENSE_LABELS_PER_ROW = 8
_DENSE_MIN_LABELS = 1 << 16
_KEY_LIMIT = 1 << 62  # mixed-radix keys stay below this to leave int64 headroom


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


def _dense(n_labels: int, n_rows: int) -> bool:
    """Whether a key space is small enough for ``np.bincount`` over every label."""
    return n_labels <= max(DENSE_LABELS_PER_ROW * n_rows, _DENSE_MIN_LABELS)


def group_labels(labels: np.ndarray, n_labels: int) -> Grouping:
    """Count rows per label, through a hash table when the label space is too sparse."""
    if _dense(n_labels, len(labels)):
        return Grouping(labels, np.bincount(labels, minlength=n_labels))
    dense, _ = pd.factorize(labels, sort=False)
    dense = np.asarray(dense, dtype=np.int64)
    return Grouping(dense, np.bincount(dense))


def class_sizes(labels: np.ndarray, n_labels: int) -> np.ndarray:
    """Rows per label, zeros allowed (labels no row carries), when no row needs its class id.

    Dense key spaces are counted with ``np.bincount``; sparse ones by sorting the labels and
    measuring the runs of equal labels, several times faster than a hash table on millions
    of distinct labels (numpy sorts integers with SIMD instructions).
    """
    if _dense(n_labels, len(labels)):
        return np.bincount(labels, minlength=n_labels)
    if len(labels) == 0:
        return np.zeros(0, dtype=np.int64)
    ordered = np.sort(labels)
    run_starts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    return np.diff(run_starts, prepend=0, append=len(ordered))


def group_codes(
    codes: Sequence[np.ndarray], cardinalities: Sequence[int], *, n_rows: int
) -> Grouping:
    """Group rows by several code columns (codes ``0..cardinality-1``) through a
    mixed-radix key, compressed whenever the key space would overflow int64."""
    labels = np.zeros(n_rows, dtype=np.int64)
    n_labels = 1
    for column_codes, cardinality in zip(codes, cardinalities):
        if n_labels * cardinality >= _KEY_LIMIT:
            labels, n_labels = compress(group_labels(labels, n_labels))
        labels = labels * cardinality + column_codes
        n_labels *= cardinality
    return group_labels(labels, n_labels)


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
