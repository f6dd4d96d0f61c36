"""The frequency set: the distinct combinations of some columns, with how many rows carry each.

Every method of the library reads a table through its frequency set (El Emam et al. 2009,
"A Globally Optimal k-Anonymity Method for the De-Identification of Health Data", section
3: the *frequency set* of a quasi-identifier). A table of millions of rows usually has
thousands of combinations, so a search, a partitioning or a privacy check costs what the
combinations cost, not the rows. The rows are read again only when an output is written
(:class:`~pandas_anon.engine.backends.pandas.Tabulation` keeps the map from rows to
combinations for that step).

What a method needs besides the combinations is a column of the frequency set too: a
sensitive column tabulated with the quasi-identifier gives each class its histogram of
sensitive values (the combinations sharing the class's quasi-identifier codes, with their
counts); a numeric column gives each class its values, hence its minimum, maximum and sum
(:meth:`FrequencySet.decode`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from functools import cached_property

import numpy as np
import pandas as pd

from pandas_anon.engine.grouping import compress, first_occurrence, group_codes


class FrequencySet:
    """Distinct combinations of ``columns`` and the rows carrying each.

    Parameters
    ----------
    columns
        The column labels, in order.
    codes
        Array of shape (combinations, columns): the code of each column in each combination,
        an index into ``values[column]`` (the backend builds it column by column, in Fortran
        order, so that reading one column reads contiguous memory).
    counts
        Rows carrying each combination (int64, all positive).
    values
        Per column, the value of each code. A missing value counted as a value
        (``dropna=False``) is one of them, the last.
    dtypes
        Per column, the dtype of the column the codes were read from (an ordered categorical
        keeps its order here, which ``values`` alone would lose).
    distinct
        Whether the combinations are distinct, as grouping rows makes them. False: the rows
        themselves, each with its count (one, or its weight), read as entries where grouping
        them would barely shrink them
        (:func:`~pandas_anon.engine.backends.pandas.search_entries`); a method that only sums
        the counts of the entries falling into each class reads both alike.
    """

    def __init__(
        self,
        columns: Sequence[Hashable],
        codes: np.ndarray,
        counts: np.ndarray,
        values: Mapping[Hashable, pd.Index],
        dtypes: Mapping[Hashable, object] | None = None,
        *,
        distinct: bool = True,
    ) -> None:
        self.columns: tuple[Hashable, ...] = tuple(columns)
        self.codes = codes
        self.counts = counts
        self.values = dict(values)
        self.dtypes = dict(dtypes) if dtypes is not None else {}
        self.distinct = distinct
        self._value_rows: dict[Hashable, np.ndarray] = {}  # found when first asked
        self._weights: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.counts)

    def __repr__(self) -> str:
        return (
            f"FrequencySet({len(self):,} {'combinations' if self.distinct else 'rows'} of "
            f"{list(map(str, self.columns))} over {self.n_rows:,} rows)"
        )

    @cached_property
    def n_rows(self) -> int:
        """Rows tabulated: the sum of the counts."""
        return int(self.counts.sum())

    @cached_property
    def surplus(self) -> tuple[np.ndarray, np.ndarray]:
        """The combinations carrying more than one row, and the rows each carries beyond one:
        what grouping the combinations again adds to counting them
        (:data:`~pandas_anon.engine.grouping.Surplus`); empty when every count is 1."""
        heavy = np.flatnonzero(self.counts > 1)
        return heavy, self.counts[heavy] - 1

    def position(self, column: Hashable) -> int:
        """The index of ``column`` among the columns."""
        return self.columns.index(column)

    def value_rows(self, column: Hashable) -> np.ndarray:
        """The rows holding each code of ``column`` (float64, as ``np.bincount`` adds
        weights; a code no row holds: 0), counted once: the lattice, the recodings and the
        report all read them."""
        found = self._value_rows.get(column)
        if found is None:
            codes = self.codes[:, self.position(column)]
            if self._weights is None:  # the counts as weights, converted once
                self._weights = self.counts.astype(np.float64)
            found = np.bincount(codes, weights=self._weights, minlength=self.cardinality(column))
            self._value_rows[column] = found
        return found

    def cardinality(self, column: Hashable) -> int:
        """Number of codes of ``column`` (values, plus missing when counted as a value)."""
        return len(self.values[column])

    def decode(self, column: Hashable, codes: np.ndarray | None = None) -> pd.Series:
        """The values of ``codes`` of ``column`` (default: each combination's), in the
        column's dtype (a categorical stays categorical, ordered as it was)."""
        codes = self.codes[:, self.position(column)] if codes is None else codes
        dtype = self.dtypes.get(column)
        if isinstance(dtype, pd.CategoricalDtype):
            values = self.values[column]
            positions = dtype.categories.get_indexer(values)  # missing: -1
            return pd.Series(pd.Categorical.from_codes(positions[codes], dtype=dtype))
        return pd.Series(self.values[column].take(codes), dtype=self.values[column].dtype)

    def project(self, columns: Sequence[Hashable]) -> tuple[FrequencySet, np.ndarray]:
        """The frequency set of ``columns`` (a subset, in any order), summing the counts of
        the combinations that become equal; and the new combination of each old one."""
        columns = tuple(columns)
        positions = [self.position(c) for c in columns]
        return self.regroup(
            columns,
            [self.codes[:, j] for j in positions],
            [self.cardinality(c) for c in columns],
            {c: self.values[c] for c in columns},
            {c: self.dtypes[c] for c in columns if c in self.dtypes},
        )

    def regroup(
        self,
        columns: Sequence[Hashable],
        codes: Sequence[np.ndarray],
        cardinalities: Sequence[int],
        values: Mapping[Hashable, pd.Index],
        dtypes: Mapping[Hashable, object] | None = None,
    ) -> tuple[FrequencySet, np.ndarray]:
        """A frequency set whose combinations are given by new ``codes`` of each current
        combination (codes ``0..cardinality-1`` into ``values``, such as hierarchy
        positions), summing the counts of those that coincide; and the new combination of
        each current one."""
        if len(self) == 0:
            empty = np.zeros((0, len(columns)), dtype=np.int64)
            return FrequencySet(columns, empty, self.counts, values, dtypes), np.zeros(0, np.int64)
        group, n = compress(group_codes(codes, cardinalities, n_rows=len(self)))
        first = first_occurrence(group, n)
        combined = np.empty((n, len(codes)), dtype=np.int64, order="F")
        for j, column_codes in enumerate(codes):
            combined[:, j] = np.asarray(column_codes)[first]
        counts = np.bincount(group, weights=self.counts, minlength=n).astype(np.int64)
        return FrequencySet(columns, combined, counts, values, dtypes), group

    def to_frame(self) -> pd.DataFrame:
        """One row per combination: the columns' values and a ``count``."""
        data = {
            column: self.values[column].take(self.codes[:, j])
            for j, column in enumerate(self.columns)
        }
        out = pd.DataFrame(data)
        out["count"] = self.counts
        return out
