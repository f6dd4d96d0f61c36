"""The generalization lattice of full-domain recodings, evaluated on frequency sets.

A *node* picks one level per quasi-identifier (Saroha 2014, "Survey of k-Anonymity": full-domain
generalization); the lattice orders nodes level by level, the bottom keeping every value and
the top suppressing everything. The table is reduced once to its *frequency set*: the
distinct combinations of hierarchy positions (plus the sensitive value, when a privacy model
needs it) with their row counts. A node's classes are a table of sorted bit-packed keys with
their row counts (:mod:`pandas_anon.engine.keys`); a node is *rolled up* from the cached node below it
with the fewest classes (:mod:`pandas_anon.anonymization.fulldomain.cache`), rewriting the key fields of the
columns whose level differs and sorting again, so coarse nodes cost almost nothing
(docs/architecture.md).

Missing values stay distinguishable: they form their own value at every level below the top.
In the sensitive column a missing value is no value (:class:`SensitiveDomain`).
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterator, Mapping, Sequence
from functools import cached_property
from itertools import product

import numpy as np
import pandas as pd

from pandas_anon.anonymization.fulldomain.cache import ClassCache
from pandas_anon.engine.classes import Classes, Node, SensitiveDomain
from pandas_anon.engine.encoding import EncodedFrame, compress, first_occurrence, group_codes
from pandas_anon.engine.keys import KeyLayout, Words, run_ids, run_starts, run_sums
from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy import Hierarchy


class Lattice:
    """Full-domain generalizations of ``qid`` under ``hierarchies``, on a frame's frequency set."""

    def __init__(
        self,
        frame: pd.DataFrame,
        qid: Sequence[Hashable],
        hierarchies: Mapping[Hashable, Hierarchy],
        *,
        sensitive: Hashable | None = None,
    ) -> None:
        self.qid = tuple(qid)
        self.hierarchies = [hierarchies[c] for c in self.qid]
        self.heights = tuple(h.height for h in self.hierarchies)
        self.sensitive = sensitive
        columns = [*self.qid, sensitive] if sensitive is not None else list(self.qid)
        encoded = EncodedFrame(frame, columns, dropna=False)
        self.n_rows = encoded.n_examined
        positions = [
            h.positions(
                encoded.values[c],
                column=c,
                counts=np.bincount(encoded.codes[c], minlength=encoded.cardinality(c)),
            )
            for c, h in zip(self.qid, self.hierarchies)
        ]
        # each row's hierarchy position per column (-1: missing), then the distinct combinations
        base = [pos[encoded.codes[c]] for c, pos in zip(self.qid, positions)]
        cardinalities = [len(h.values) + 1 for h in self.hierarchies]
        codes = [np.where(b < 0, len(h.values), b) for b, h in zip(base, self.hierarchies)]
        if sensitive is not None:
            codes.append(
                self._sensitive_codes(
                    frame[sensitive], encoded.codes[sensitive], encoded.values[sensitive]
                )
            )
            cardinalities.append(self._sensitive_radix)
        self.row_combination = self._tabulate(codes, cardinalities, weights=None)

    def _sensitive_codes(
        self, column: pd.Series, codes: np.ndarray, values: pd.Index
    ) -> np.ndarray:
        """Recode the sensitive column as :class:`SensitiveDomain` numbers it: its known
        values present, ``0..m-1`` in code order, then m for missing; keep those m values
        (``sensitive_values``, in the column's own dtype, read from the rows)."""
        present = np.bincount(codes, minlength=len(values)) > 0
        known = present & ~np.asarray(pd.isna(values), dtype=bool)
        self.sensitive_known = int(known.sum())
        recode = np.full(len(values), self.sensitive_known, dtype=np.int64)  # missing: m
        recode[known] = np.arange(self.sensitive_known)
        recoded = recode[codes]
        self._sensitive_radix = self.sensitive_known + int(bool((present & ~known).any()))
        first = first_occurrence(recoded, self._sensitive_radix)[: self.sensitive_known]
        self.sensitive_values = column.iloc[first].reset_index(drop=True)
        return recoded

    def _tabulate(
        self, codes: Sequence[np.ndarray], cardinalities: Sequence[int], weights: np.ndarray | None
    ) -> np.ndarray:
        """Set the frequency set to the distinct rows of ``codes`` (with their summed
        ``weights``, or counts) and return each row's combination."""
        group, n = compress(group_codes(codes, cardinalities, n_rows=len(codes[0])))
        first = first_occurrence(group, n)
        self._combinations = np.column_stack([c[first] for c in codes])
        self._counts = np.bincount(group, weights=weights, minlength=n).astype(np.int64)
        self._cache = ClassCache(len(self.qid))
        self._steps: dict[tuple[int, int, int], np.ndarray] = {}  # see _step
        return group

    def project(self, columns: Sequence[int]) -> Lattice:
        """The lattice of the quasi-identifiers at positions ``columns`` (in that order), on
        the same rows, built from this frequency set rather than from the table."""
        columns = tuple(int(j) for j in columns)
        if columns == tuple(range(len(self.qid))):
            return self
        sub = copy.copy(self)
        for derived in ("_lookups", "_layout", "_bottom"):  # per column: recompute
            sub.__dict__.pop(derived, None)
        sub.qid = tuple(self.qid[j] for j in columns)
        sub.hierarchies = [self.hierarchies[j] for j in columns]
        sub.heights = tuple(h.height for h in sub.hierarchies)
        keep = list(columns)
        cardinalities = [len(self.hierarchies[j].values) + 1 for j in columns]  # + missing
        if self.sensitive is not None:
            keep.append(self._combinations.shape[1] - 1)
            cardinalities.append(self._sensitive_radix)
        group = sub._tabulate(
            [self._combinations[:, j] for j in keep], cardinalities, weights=self._counts
        )
        sub.row_combination = group[self.row_combination]
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
        if self.sensitive is not None:
            radixes.append(self._sensitive_radix)
        return KeyLayout(radixes, max_count=self.n_rows)

    def _keys_of_combinations(self, node: Node) -> Words:
        """The key at ``node`` of every combination of the frequency set."""
        codes = [self._lookups[j][level][self._combinations[:, j]] for j, level in enumerate(node)]
        if self.sensitive is not None:
            codes.append(self._combinations[:, -1])
        return self._layout.encode(codes)

    def _step(self, column: int, source: int, target: int) -> np.ndarray:
        """The key shift table (:meth:`KeyLayout.shift_table`) raising ``column`` from level
        ``source`` to level ``target``."""
        cached = self._steps.get((column, source, target))
        if cached is None:
            lookup = self._lookups[column]
            position = np.full(self.cardinality(column, source), -1, dtype=np.int64)
            position[lookup[source][::-1]] = np.arange(len(lookup[source]) - 1, -1, -1)
            cached = self._layout.shift_table(column, lookup[target][position])
            self._steps[(column, source, target)] = cached
        return cached

    @cached_property
    def _bottom(self) -> Classes:
        """The classes of the bottom node, where every roll-up can start (kept, never
        evicted from the cache)."""
        return self._classes_of(
            self.bottom,
            *self._layout.distinct(self._keys_of_combinations(self.bottom), self._counts),
        )

    def classes(self, node: Node) -> Classes:
        """The equivalence classes of ``node``, rolled up from the cached node below it with
        the fewest rows, or from the bottom."""
        cached = self._cache.get(node)
        if cached is not None:
            return cached
        if node == self.bottom:
            return self._bottom
        source = self._cache.coarsest_below(node, self.predecessors(node)) or self._bottom
        keys = source.keys
        changed = [j for j, (level, below) in enumerate(zip(node, source.node)) if level != below]
        for j in changed:
            keys = self._layout.recode(keys, j, self._step(j, source.node[j], node[j]))
        result = self._classes_of(
            node, *self._layout.distinct(keys, source.counts, nearly_sorted=len(changed) == 1)
        )
        self._cache.add(result)
        return result

    def _classes_of(self, node: Node, keys: Words, counts: np.ndarray) -> Classes:
        """Classes from the sorted distinct keys of a node and their row counts."""
        if self.sensitive is None:
            return Classes(node, keys, counts, counts)
        starts = run_starts(self._layout.prefix(keys, len(self.qid)))
        first = np.zeros(len(counts), dtype=np.int64)
        first[starts] = 1
        return Classes(
            node,
            keys,
            counts,
            run_sums(counts, starts),
            np.cumsum(first) - 1,
            self._layout.decode(keys, len(self.qid)),
        )

    def codes(self, classes: Classes, column: int) -> np.ndarray:
        """The code at the node's level of quasi-identifier ``column`` in each table row of
        ``classes`` (each class, or each pair)."""
        return self._layout.decode(classes.keys, column)

    def sensitive_domain(self, *, ordered: bool = False) -> SensitiveDomain:
        """The sensitive column over the whole table; with ``ordered``, its values' order too
        (an :class:`InvalidParameterError` when they do not sort)."""
        if self.sensitive is None:
            raise InvalidParameterError(
                "l-diversity and t-closeness read a sensitive column: build the Lattice with "
                "sensitive=<column>"
            )
        counts = np.bincount(
            self._combinations[:, -1], weights=self._counts, minlength=self._sensitive_radix
        )[: self.sensitive_known]
        return SensitiveDomain(counts.astype(np.int64), self._sensitive_rank() if ordered else None)

    def _sensitive_rank(self) -> np.ndarray:
        """Each known sensitive code's position among the values, sorted."""
        try:
            order = np.asarray(self.sensitive_values.argsort(kind="stable"), dtype=np.int64)
        except TypeError as error:
            types = sorted({type(v).__name__ for v in self.sensitive_values})
            raise InvalidParameterError(
                f"the ordered distance of t-closeness walks the values of the sensitive column "
                f"{self.sensitive!r} in sorted order, but they mix types that do not compare "
                f"({', '.join(types)}); use t=TCloseness(t, ordered=False) for the equal "
                f"distance, or convert the column (e.g. .astype(str))"
            ) from error
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    def assign(self, node: Node) -> tuple[Classes, np.ndarray]:
        """The classes of ``node`` with the class of every row (to apply a chosen node to
        the rows); classes are numbered in key order, as :meth:`classes` lists them."""
        classes = self.classes(node)
        keys = self._layout.prefix(self._keys_of_combinations(node), len(self.qid))
        return classes, run_ids(keys)[self.row_combination]
