"""The generalization lattice of full-domain recodings, evaluated on frequency sets.

A *node* picks one level per quasi-identifier (survey ``003_a9e852f42da10ca2.txt``: full-domain
generalization); the lattice orders nodes level by level, the bottom keeping every value and
the top suppressing everything. The table is reduced once to its *frequency set*: the
distinct combinations of hierarchy positions (plus the sensitive value, when a privacy model
needs it) with their row counts. Evaluating a node maps each combination through one integer
lookup array per column and counts the classes; a node is *rolled up* from the evaluated
ancestor with the fewest classes, so coarse nodes cost almost nothing (``DESIGN.md``).

Missing values stay distinguishable: they form their own value at every level below the top.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import product

import numpy as np
import pandas as pd

from .encoding import EncodedFrame, compress, first_occurrence, group_codes
from .errors import InvalidParameterError
from .hierarchy import Hierarchy

Node = tuple[int, ...]
#: Class tables kept for roll-ups, in total array entries (8 bytes each): about 200 MB.
_CACHE_ENTRIES = 25_000_000


@dataclass(frozen=True)
class Classes:
    """Equivalence classes of a node: their codes per column, row counts, and (with a
    sensitive column) the (class, sensitive value) pairs with their counts."""

    node: Node
    codes: tuple[np.ndarray, ...]  # per quasi-identifier, each class's code at the node's level
    sizes: np.ndarray  # rows per class
    pair_class: np.ndarray | None = None  # class of each (class, sensitive value) pair
    pair_value: np.ndarray | None = None  # sensitive code of each pair
    pair_count: np.ndarray | None = None  # rows of each pair

    @property
    def entries(self) -> int:
        """Array entries held (what the roll-up cache budgets)."""
        pairs = 0 if self.pair_class is None else 3 * len(self.pair_class)
        return (len(self.codes) + 1) * len(self.sizes) + pairs


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
            h.positions(encoded.values[c], column=c,
                        counts=np.bincount(encoded.codes[c], minlength=encoded.cardinality(c)))
            for c, h in zip(self.qid, self.hierarchies)
        ]
        # each row's hierarchy position per column (-1: missing), then the distinct combinations
        base = [pos[encoded.codes[c]] for c, pos in zip(self.qid, positions)]
        cardinalities = [len(h.values) + 1 for h in self.hierarchies]
        codes = [np.where(b < 0, len(h.values), b) for b, h in zip(base, self.hierarchies)]
        if sensitive is not None:
            codes.append(encoded.codes[sensitive])
            cardinalities.append(encoded.cardinality(sensitive))
            self.sensitive_values = encoded.values[sensitive]
        self.row_combination = self._tabulate(codes, cardinalities, weights=None)

    def _tabulate(self, codes: Sequence[np.ndarray], cardinalities: Sequence[int],
                  weights: np.ndarray | None) -> np.ndarray:
        """Set the frequency set to the distinct rows of ``codes`` (with their summed
        ``weights``, or counts) and return each row's combination."""
        group, n = compress(group_codes(codes, cardinalities, n_rows=len(codes[0])))
        first = first_occurrence(group, n)
        self._combinations = np.column_stack([c[first] for c in codes])
        self._counts = np.bincount(group, weights=weights, minlength=n).astype(np.int64)
        self._cache: OrderedDict[Node, Classes] = OrderedDict()
        self._cached_entries = 0
        return group

    def project(self, columns: Sequence[int]) -> Lattice:
        """The lattice of the quasi-identifiers at positions ``columns`` (in that order), on
        the same rows, built from this frequency set rather than from the table."""
        columns = tuple(int(j) for j in columns)
        if columns == tuple(range(len(self.qid))):
            return self
        sub = copy.copy(self)
        for derived in ("_lookups", "_representatives"):  # cached per column: recompute
            sub.__dict__.pop(derived, None)
        sub.qid = tuple(self.qid[j] for j in columns)
        sub.hierarchies = [self.hierarchies[j] for j in columns]
        sub.heights = tuple(h.height for h in sub.hierarchies)
        keep = list(columns)
        cardinalities = [len(self.hierarchies[j].values) + 1 for j in columns]  # + missing
        if self.sensitive is not None:
            keep.append(self._combinations.shape[1] - 1)
            cardinalities.append(len(self.sensitive_values))
        group = sub._tabulate([self._combinations[:, j] for j in keep], cardinalities,
                              weights=self._counts)
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
        return [node[:j] + (node[j] + 1,) + node[j + 1:]
                for j in range(len(node)) if node[j] < self.heights[j]]

    def predecessors(self, node: Node) -> list[Node]:
        """Nodes one level lower on one column."""
        return [node[:j] + (node[j] - 1,) + node[j + 1:] for j in range(len(node)) if node[j] > 0]

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

    @cached_property
    def _representatives(self) -> list[list[np.ndarray]]:
        """Per column and level: a position holding each code (last entry: missing)."""
        tables = []
        for j, h in enumerate(self.hierarchies):
            per_level = []
            for level in range(h.n_levels):
                lookup = self._lookups[j][level]
                rep = np.full(self.cardinality(j, level), -1, dtype=np.int64)
                rep[lookup[::-1]] = np.arange(len(lookup) - 1, -1, -1)
                rep[rep == len(lookup) - 1] = -1  # the missing slot stays the missing slot
                per_level.append(rep)
            tables.append(per_level)
        return tables

    def cardinality(self, column: int, level: int) -> int:
        """Number of codes of a column at a level (its labels, plus missing below the top)."""
        h = self.hierarchies[column]
        return len(h.labels(level)) + (0 if level == h.height else 1)

    def classes(self, node: Node) -> Classes:
        """The equivalence classes of ``node``, rolled up from the cheapest cached ancestor."""
        cached = self._cache.get(node)
        if cached is not None:
            self._cache.move_to_end(node)
            return cached
        source = self._ancestor(node)
        if source is None:
            codes = [self._lookups[j][node[j]][self._combinations[:, j]] for j in range(len(node))]
            counts, values = self._counts, self._sensitive_of_combinations
        else:
            codes = [
                self._lookups[j][node[j]][self._representatives[j][source.node[j]][source_codes]]
                if source.node[j] != node[j] else source_codes
                for j, source_codes in enumerate(self._pair_codes(source))
            ]
            counts, values = self._pair_weights(source), source.pair_value
        result = self._group(node, codes, counts, values)
        self._remember(result)
        return result

    def _remember(self, classes: Classes) -> None:
        self._cache[classes.node] = classes
        self._cached_entries += classes.entries
        while self._cached_entries > _CACHE_ENTRIES and len(self._cache) > 1:
            _, evicted = self._cache.popitem(last=False)
            self._cached_entries -= evicted.entries

    def _ancestor(self, node: Node) -> Classes | None:
        """The cached direct predecessor with the fewest classes (searches visit nodes after
        their predecessors, so one is usually there); None: start from the frequency set."""
        cached = [self._cache[p] for p in self.predecessors(node) if p in self._cache]
        return min(cached, key=lambda c: len(c.sizes), default=None)

    @cached_property
    def sensitive_counts(self) -> np.ndarray:
        """Rows per sensitive code over the whole table."""
        return np.bincount(self._combinations[:, -1], weights=self._counts,
                           minlength=len(self.sensitive_values)).astype(np.int64)

    @property
    def _sensitive_of_combinations(self) -> np.ndarray | None:
        return self._combinations[:, -1] if self.sensitive is not None else None

    @staticmethod
    def _pair_codes(source: Classes) -> tuple[np.ndarray, ...]:
        """Codes of the rows of a class table to roll up: its pairs, or its classes."""
        if source.pair_class is None:
            return source.codes
        return tuple(c[source.pair_class] for c in source.codes)

    @staticmethod
    def _pair_weights(source: Classes) -> np.ndarray:
        return source.sizes if source.pair_class is None else source.pair_count

    def _group(self, node: Node, codes: list[np.ndarray], counts: np.ndarray,
               values: np.ndarray | None) -> Classes:
        cards = [self.cardinality(j, node[j]) for j in range(len(node))]
        class_of, n_classes = compress(group_codes(codes, cards, n_rows=len(counts)))
        sizes = np.bincount(class_of, weights=counts, minlength=n_classes).astype(np.int64)
        class_codes = tuple(c[first_occurrence(class_of, n_classes)] for c in codes)
        if values is None:
            return Classes(node, class_codes, sizes)
        n_values = len(self.sensitive_values)
        pair_of, n_pairs = compress(group_codes([class_of, values], [n_classes, n_values],
                                                n_rows=len(class_of)))
        pair_first = first_occurrence(pair_of, n_pairs)
        pair_count = np.bincount(pair_of, weights=counts, minlength=n_pairs).astype(np.int64)
        return Classes(node, class_codes, sizes, class_of[pair_first], values[pair_first],
                       pair_count)

    def assign(self, node: Node) -> tuple[Classes, np.ndarray]:
        """The classes of ``node`` computed from the frequency set, with the class of every
        row (to apply a chosen node to the rows)."""
        codes = [self._lookups[j][node[j]][self._combinations[:, j]] for j in range(len(node))]
        classes = self._group(node, codes, self._counts, self._sensitive_of_combinations)
        cards = [self.cardinality(j, node[j]) for j in range(len(node))]
        combination_class, _ = compress(group_codes(codes, cards, n_rows=len(self._counts)))
        return classes, combination_class[self.row_combination]
