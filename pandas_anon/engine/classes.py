"""Equivalence classes of a generalized frequency set, and the sensitive column beside them.

:class:`Classes` is what a transformation produces from a frequency set: one entry per class
(or per (class, sensitive value) pair when a privacy model reads a sensitive column) with the
rows it holds. :class:`SensitiveDomain` is what l-diversity and t-closeness read besides the
classes. Both are plain data: the privacy models (:mod:`pandas_anon.privacy.models`) judge
them, the anonymization methods build them.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.keys import Words
from pandas_anon.errors import InvalidParameterError

#: A node of a full-domain lattice: one generalization level per quasi-identifier column.
Node = tuple[int, ...]


@dataclass(frozen=True)
class Classes:
    """Equivalence classes of a node. The table's rows are its distinct keys (in no
    particular order): one per class, or (with a sensitive column) one per (class, sensitive
    value) pair, ``pair_class`` naming each pair's class; ``sizes`` counts rows per class."""

    node: Node
    keys: Words  # the table's rows (:mod:`pandas_anon.engine.keys`)
    counts: np.ndarray  # rows per table row
    sizes: np.ndarray  # rows per class
    pair_class: np.ndarray | None = None  # class of each pair
    pair_value: np.ndarray | None = None  # sensitive code of each pair

    @property
    def pair_count(self) -> np.ndarray | None:
        """Rows of each (class, sensitive value) pair."""
        return None if self.pair_class is None else self.counts

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The class, sensitive code and rows of each (class, sensitive value) pair; only for
        classes built with a sensitive column."""
        if self.pair_class is None or self.pair_value is None:
            raise InvalidParameterError(
                "these classes were built without a sensitive column (sensitive=<column>)"
            )
        return self.pair_class, self.pair_value, self.counts

    @property
    def entries(self) -> int:
        """Array entries held (what the roll-up cache budgets)."""
        pairs = 0 if self.pair_class is None else len(self.sizes) + 2 * len(self.counts)
        return (len(self.keys) + 1) * len(self.counts) + pairs


@dataclass(frozen=True)
class SensitiveDomain:
    """What l-diversity and t-closeness read besides the classes: the sensitive column over
    the whole table.

    Codes ``0..m-1`` are the m distinct known values present in the table (a code no row
    holds, such as an unused category, is none of them); a row missing its value has code m.
    A missing value is no value: it counts in its class's size, never among its values.
    ``counts``: rows holding each known value in the whole table; ``rank``: each known code's
    position among the values sorted as pandas sorts the column (an ordered categorical by
    its categories), which the ordered distance of t-closeness walks (None when no model
    needs it).
    """

    counts: np.ndarray
    rank: np.ndarray | None = None

    @property
    def missing(self) -> int:
        """The code of a missing value (m)."""
        return len(self.counts)

    def known(self, classes: Classes) -> np.ndarray:
        """Which (class, value) pairs of ``classes`` hold a known value."""
        return classes.pairs()[1] < self.missing


@dataclass(frozen=True)
class SensitiveColumn:
    """The sensitive column of a frequency set, numbered as :class:`SensitiveDomain` numbers
    it: ``codes`` gives each combination's value, ``0..m-1`` for the m known values present
    (in code order), m for missing; ``values`` are those m values in the column's dtype."""

    column: Hashable
    codes: np.ndarray
    counts: np.ndarray  # rows holding each known value in the whole table
    values: pd.Series
    radix: int  # codes in use: m, plus one when a value is missing

    @classmethod
    def read(cls, frequencies: FrequencySet, column: Hashable) -> SensitiveColumn:
        """The sensitive ``column`` of ``frequencies``."""
        codes = frequencies.codes[:, frequencies.position(column)]
        values = frequencies.values[column]
        present = np.bincount(codes, minlength=len(values)) > 0
        known = present & ~np.asarray(pd.isna(values), dtype=bool)
        m = int(known.sum())
        recode = np.full(len(values), m, dtype=np.int64)  # missing: m
        recode[known] = np.arange(m)
        recoded = recode[codes]
        counts = np.bincount(recoded, weights=frequencies.counts, minlength=m + 1)[:m]
        return cls(
            column,
            recoded,
            counts.astype(np.int64),
            frequencies.decode(column, np.flatnonzero(known)),
            m + int(bool((present & ~known).any())),
        )

    def domain(self, *, ordered: bool = False) -> SensitiveDomain:
        """What the privacy models read; with ``ordered``, the values' order too (an
        :class:`InvalidParameterError` when they do not sort)."""
        return SensitiveDomain(self.counts, self._rank() if ordered else None)

    def _rank(self) -> np.ndarray:
        """Each known code's position among the values, sorted."""
        try:
            order = np.asarray(self.values.argsort(kind="stable"), dtype=np.int64)
        except TypeError as error:
            types = sorted({type(v).__name__ for v in self.values})
            raise InvalidParameterError(
                f"the ordered distance of t-closeness walks the values of the sensitive column "
                f"{self.column!r} in sorted order, but they mix types that do not compare "
                f"({', '.join(types)}); use t=TCloseness(t, ordered=False) for the equal "
                f"distance, or convert the column (e.g. .astype(str))"
            ) from error
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank
