"""The generalization lattice of full-domain recodings, evaluated on frequency sets.

A *node* picks one level per quasi-identifier (Saroha 2014, "Survey of k-Anonymity": full-domain
generalization); the lattice orders nodes level by level, the bottom keeping every value and
the top suppressing everything. The table is reduced once to its *frequency set*: the
distinct combinations of hierarchy positions (plus the sensitive value, when a privacy model
needs it) with their row counts. A node's classes are a table of bit-packed keys with their
row counts (:mod:`pandas_anon.engine.keys`); a node is *rolled up* from the cached node below
it with the fewest classes (:mod:`pandas_anon.anonymization.fulldomain.cache`), rewriting the
key fields of the columns whose level differs and grouping the keys again in one pass of a
hash table (:mod:`pandas_anon.engine.hashing`), so coarse nodes cost almost nothing
(docs/architecture.md).

Missing values stay distinguishable: they form their own value at every level below the top.
In the sensitive column a missing value is no value (:class:`SensitiveDomain`).
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterator, Mapping, Sequence
from functools import cached_property
from itertools import product
from typing import NamedTuple

import numpy as np
import pandas as pd

from pandas_anon.anonymization.fulldomain.cache import ClassCache
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.engine.classes import Classes, Node, SensitiveColumn, SensitiveDomain
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.hashing import Rewrite, group, rollup
from pandas_anon.engine.keys import KeyLayout, Words
from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy import Hierarchy


class LatticeArrays(NamedTuple):
    """A lattice as the compiled search reads it (:meth:`Lattice.arrays`): each
    quasi-identifier's key field (word, shift, mask, flattened); the words of a key; every
    column's lookups (per level, each hierarchy position's code; the last position:
    missing) joined, where column j's level l starts (``lookup_at[j * levels + l]``,
    ``levels`` the most of any column), and each column's number of positions; the bottom
    node's keys (word-major) and row counts."""

    fields: np.ndarray
    n_words: int
    lookups: np.ndarray
    lookup_at: np.ndarray
    positions: np.ndarray
    keys: np.ndarray
    counts: np.ndarray


class Lattice:
    """Full-domain generalizations of ``qid`` under ``hierarchies``, on a frequency set.

    ``frequencies`` holds the combinations of ``qid`` (and of ``sensitive``, the column
    l-diversity and t-closeness read, when given) with their counts, a missing value counted
    as a value (:func:`pandas_anon.engine.backends.pandas.tabulate` with ``dropna=False``).
    The lattice reduces them once more, to combinations of hierarchy positions.
    """

    def __init__(
        self,
        frequencies: FrequencySet,
        qid: Sequence[Hashable],
        hierarchies: Mapping[Hashable, Hierarchy],
        *,
        sensitive: Hashable | None = None,
    ) -> None:
        self.qid = tuple(qid)
        self.hierarchies = [hierarchies[c] for c in self.qid]
        self.heights = tuple(h.height for h in self.hierarchies)
        self.sensitive = sensitive
        self.n_rows = frequencies.n_rows
        #: per quasi-identifier, the hierarchy position of each of its values (-1: missing),
        #: and the value of each combination of ``frequencies`` (a column of its codes)
        self.positions: list[np.ndarray] = []
        self.value_of: list[np.ndarray] = []
        codes, cardinalities = [], []
        one_to_one = True  # each column's values have distinct positions: nothing merges
        for c, h in zip(self.qid, self.hierarchies):
            column_codes = frequencies.codes[:, frequencies.position(c)]
            counts = frequencies.value_rows(c)
            position = h.positions(frequencies.values[c], column=c, counts=counts)
            held = position[counts > 0]
            one_to_one = one_to_one and len(np.unique(held)) == len(held)
            self.positions.append(position)
            self.value_of.append(column_codes)
            # missing: coded after the hierarchy's values
            codes.append(np.where(position < 0, len(h.values), position)[column_codes])
            cardinalities.append(len(h.values) + 1)
        #: the sensitive column l-diversity and t-closeness read (None without one)
        self.sensitive_column = (
            SensitiveColumn.read(frequencies, sensitive) if sensitive is not None else None
        )
        if self.sensitive_column is not None:
            codes.append(self.sensitive_column.codes)
            cardinalities.append(self.sensitive_column.radix)
        #: the combination of hierarchy positions of each combination of ``frequencies``
        self.combination_of = self._tabulate(frequencies, codes, cardinalities, one_to_one)

    @classmethod
    def of_frame(
        cls,
        frame: pd.DataFrame,
        qid: Sequence[Hashable],
        hierarchies: Mapping[Hashable, Hierarchy],
        *,
        sensitive: Hashable | None = None,
    ) -> Lattice:
        """The lattice of a frame's ``qid`` (and ``sensitive``) columns."""
        columns = [*qid, sensitive] if sensitive is not None else list(qid)
        return cls(tabulate(frame, columns).frequencies, qid, hierarchies, sensitive=sensitive)

    def _tabulate(
        self,
        frequencies: FrequencySet,
        codes: Sequence[np.ndarray],
        cardinalities: Sequence[int],
        one_to_one: bool,
    ) -> np.ndarray:
        """Set the lattice's own frequency set to the distinct rows of ``codes`` (one per
        combination of ``frequencies``, whose counts they add up) and return the new
        combination of each; ``one_to_one``: no two combinations have the same ``codes``
        (each column's recoding is one to one), so they stay as they are."""
        columns = tuple(range(len(codes)))  # positions, then the sensitive code
        values: dict[Hashable, pd.Index] = {
            j: pd.RangeIndex(n) for j, n in enumerate(cardinalities)
        }
        if one_to_one:
            combined = np.empty((len(frequencies), len(codes)), dtype=np.int64, order="F")
            for j, column_codes in enumerate(codes):
                combined[:, j] = column_codes
            reduced = FrequencySet(columns, combined, frequencies.counts, values)
            combination_of = np.arange(len(frequencies), dtype=np.int64)
        else:
            reduced, combination_of = frequencies.regroup(columns, codes, cardinalities, values)
        self._combinations, self._counts = reduced.codes, reduced.counts
        self._reduced = reduced
        self._cache = ClassCache(len(self.qid))
        self._assigned: tuple[Classes, np.ndarray] | None = None
        self._reset_rewrites()
        return combination_of

    def _reset_rewrites(self) -> None:
        """Forget the shift tables (:meth:`_rewrite`): none computed yet."""
        self._tables = np.zeros(0, dtype=np.int64)
        self._table_at: dict[tuple[int, int, int], int] = {}

    def project(self, columns: Sequence[int]) -> Lattice:
        """The lattice of the quasi-identifiers at positions ``columns`` (in that order), on
        the same rows, built from this frequency set rather than from the table."""
        columns = tuple(int(j) for j in columns)
        if columns == tuple(range(len(self.qid))):
            return self
        sub = copy.copy(self)
        for derived in ("_lookups", "_layout", "_fields", "_bottom"):  # per column: recompute
            sub.__dict__.pop(derived, None)
        sub.qid = tuple(self.qid[j] for j in columns)
        sub.hierarchies = [self.hierarchies[j] for j in columns]
        sub.heights = tuple(h.height for h in sub.hierarchies)
        keep = list(columns)
        if self.sensitive is not None:
            keep.append(self._combinations.shape[1] - 1)
        projected, combination_of = self._reduced.project(keep)
        sub._combinations, sub._counts, sub._reduced = projected.codes, projected.counts, projected
        sub._cache = ClassCache(len(sub.qid))
        sub._assigned = None
        sub._reset_rewrites()
        sub.combination_of = combination_of[self.combination_of]
        return sub

    # -- the lattice -------------------------------------------------------------------------

    @property
    def bottom(self) -> Node:
        return (0,) * len(self.qid)

    @property
    def top(self) -> Node:
        return self.heights

    @property
    def size(self) -> int:
        """Number of nodes."""
        return int(np.prod([h + 1 for h in self.heights]))

    def nodes(self) -> Iterator[Node]:
        """Every node, bottom first in lexicographic order."""
        return product(*(range(h + 1) for h in self.heights))

    def successors(self, node: Node) -> list[Node]:
        """Nodes one level higher on one column."""
        return [
            node[:j] + (node[j] + 1,) + node[j + 1 :]
            for j in range(len(node))
            if node[j] < self.heights[j]
        ]

    def predecessors(self, node: Node) -> list[Node]:
        """Nodes one level lower on one column."""
        return [node[:j] + (node[j] - 1,) + node[j + 1 :] for j in range(len(node)) if node[j] > 0]

    def most_classes(self) -> np.ndarray:
        """The most classes each node can have (an array indexed by node): the product of its
        columns' codes at their levels, and never more than the classes of the bottom."""
        most = len(self._bottom.sizes)
        bound = np.ones((1,) * len(self.qid), dtype=np.int64)
        for j, h in enumerate(self.hierarchies):
            shape = [1] * len(self.qid)
            shape[j] = h.height + 1
            cards = np.array([self.cardinality(j, level) for level in range(h.n_levels)])
            bound = np.minimum(bound * cards.reshape(shape), most)  # no overflow: capped
        return bound

    def check(self, node: Sequence[int]) -> Node:
        """``node`` as a tuple, refusing levels outside the hierarchies."""
        node = tuple(int(level) for level in node)
        if len(node) != len(self.qid) or any(not 0 <= l <= h for l, h in zip(node, self.heights)):
            raise InvalidParameterError(
                f"node {list(node)} does not fit the levels 0..{list(self.heights)} of "
                f"{list(self.qid)}"
            )
        return node

    # -- evaluation ---------------------------------------------------------------------------

    @cached_property
    def _lookups(self) -> list[list[np.ndarray]]:
        """Per column and level: position (last entry: missing) -> code at that level."""
        tables = []
        for h in self.hierarchies:
            per_level = []
            for level in range(h.n_levels):
                missing = 0 if level == h.height else len(h.labels(level))
                per_level.append(np.append(h.codes(level), missing))
            tables.append(per_level)
        return tables

    def cardinality(self, column: int, level: int) -> int:
        """Number of codes of a column at a level (its labels, plus missing below the top)."""
        h = self.hierarchies[column]
        return len(h.labels(level)) + (0 if level == h.height else 1)

    @cached_property
    def _layout(self) -> KeyLayout:
        """Key fields: each quasi-identifier (wide enough for its widest level), then the
        sensitive value, so that a class's pairs sort next to each other."""
        radixes = [
            max(self.cardinality(j, level) for level in range(h.n_levels))
            for j, h in enumerate(self.hierarchies)
        ]
        if self.sensitive_column is not None:
            radixes.append(self.sensitive_column.radix)
        return KeyLayout(radixes)

    @cached_property
    def _fields(self) -> np.ndarray:
        """Where each quasi-identifier's key field sits (:meth:`KeyLayout.field_table`)."""
        return self._layout.field_table(range(len(self.qid)))

    def _keys_of_combinations(self, node: Node) -> Words:
        """The key at ``node`` of every combination of the frequency set."""
        codes = [self._lookups[j][level][self._combinations[:, j]] for j, level in enumerate(node)]
        if self.sensitive is not None:
            codes.append(self._combinations[:, -1])
        return self._layout.encode(codes)

    def _rewrite(self, source: Node, node: Node) -> Rewrite:
        """What rolls the keys of ``source`` up to ``node``: each column whose level differs
        raised from its level in ``source`` to its level in ``node``, through shift tables
        kept joined in one array (each computed once)."""
        changed, offsets = [], []
        for j, (below, level) in enumerate(zip(source, node)):
            if level != below:
                changed.append(j)
                offset = self._table_at.get((j, below, level))
                if offset is None:
                    offset = self._add_step(j, below, level)
                offsets.append(offset)
        return Rewrite(self._fields[changed], self._tables, np.array(offsets, dtype=np.int64))

    def _add_step(self, column: int, source: int, target: int) -> int:
        """Join the key shift table (:meth:`KeyLayout.shift_table`) raising ``column`` from
        level ``source`` to level ``target`` to the others; its offset among them."""
        lookup = self._lookups[column]
        position = np.full(self.cardinality(column, source), -1, dtype=np.int64)
        position[lookup[source][::-1]] = np.arange(len(lookup[source]) - 1, -1, -1)
        table = self._layout.shift_table(column, lookup[target][position])
        offset = len(self._tables)
        self._tables = np.concatenate([self._tables, table])
        self._table_at[(column, source, target)] = offset
        return offset

    @cached_property
    def _bottom(self) -> Classes:
        """The classes of the bottom node, where every roll-up can start (kept, never
        evicted from the cache)."""
        keys = self._keys_of_combinations(self.bottom)
        if not all(
            len(np.unique(per_level[0])) == len(per_level[0]) for per_level in self._lookups
        ):
            keys, counts, _ = group(keys, self._counts)  # some combinations merge at the bottom
            return self._classes_of(self.bottom, keys, counts)
        # each column's bottom level tells its positions apart, and the lattice's frequency
        # set holds each combination once: every combination is a class of its own
        return self._classes_of(self.bottom, keys, self._counts)

    def classes(self, node: Node) -> Classes:
        """The equivalence classes of ``node``, rolled up from the cached node below it with
        the fewest rows, or from the bottom."""
        cached = self._cache.get(node)
        if cached is not None:
            return cached
        if not any(node):
            return self._bottom
        source = self._cache.coarsest_below(node) or self._bottom
        keys, counts = rollup(source.keys, source.counts, self._rewrite(source.node, node))
        result = self._classes_of(node, keys, counts)
        self._cache.add(result)
        return result

    def _classes_of(self, node: Node, keys: Words, counts: np.ndarray) -> Classes:
        """Classes from the distinct keys of a node and their row counts."""
        if self.sensitive is None:
            return Classes(node, keys, counts, counts)
        _, sizes, pair_class = group(self._layout.prefix(keys, len(self.qid)), counts)
        return Classes(
            node, keys, counts, sizes, pair_class, self._layout.decode(keys, len(self.qid))
        )

    def arrays(self) -> LatticeArrays:
        """What the compiled search (:mod:`~pandas_anon.anonymization.fulldomain.kernel`)
        reads of the lattice, as int64 arrays."""
        levels = max(self.heights) + 1
        lookup_at = np.full((len(self.qid), levels), -1, dtype=np.int64)
        joined: list[np.ndarray] = []
        at = 0
        for j, per_level in enumerate(self._lookups):
            for level, lookup in enumerate(per_level):
                lookup_at[j, level] = at
                joined.append(lookup)
                at += len(lookup)
        bottom = self._bottom
        return LatticeArrays(
            self._fields.reshape(-1),
            len(bottom.keys),
            np.concatenate(joined).astype(np.int64, copy=False),
            lookup_at.reshape(-1),
            np.array([len(per_level[0]) for per_level in self._lookups], dtype=np.int64),
            np.ascontiguousarray(np.stack(bottom.keys), dtype=np.int64).reshape(-1),
            np.ascontiguousarray(bottom.counts, dtype=np.int64),
        )

    def codes(self, classes: Classes, column: int) -> np.ndarray:
        """The code at the node's level of quasi-identifier ``column`` in each table row of
        ``classes`` (each class, or each pair)."""
        return self._layout.decode(classes.keys, column)

    def sensitive_domain(self, *, ordered: bool = False) -> SensitiveDomain:
        """The sensitive column over the whole table; with ``ordered``, its values' order too
        (an :class:`InvalidParameterError` when they do not sort)."""
        if self.sensitive_column is None:
            raise InvalidParameterError(
                "l-diversity and t-closeness read a sensitive column: build the Lattice with "
                "sensitive=<column>"
            )
        return self.sensitive_column.domain(ordered=ordered)

    def assign(self, node: Node) -> tuple[Classes, np.ndarray]:
        """The classes of ``node`` with the class of every combination of the frequency set
        the lattice was built on (to write a chosen node), numbered as the classes list
        them. The last node assigned is kept (a search's optimum, then written)."""
        if self._assigned is not None and self._assigned[0].node == node:
            return self._assigned
        keys, counts, row = group(self._keys_of_combinations(node), self._counts)
        classes = self._classes_of(node, keys, counts)
        if classes.pair_class is not None:  # a table row is a (class, sensitive value) pair
            row = classes.pair_class[row]
        self._assigned = classes, row[self.combination_of]
        return self._assigned
