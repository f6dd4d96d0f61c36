"""Level-wise search over column subsets, counting singletons and classes of each.

Used by :func:`pandas_anon.best_qid` and :func:`pandas_anon.identifiers`. Subsets are visited
by size (1, 2, ...), each one built from one of its (size - 1)-subsets by refining that
subset's partition with the missing column. Three facts keep the search cheap:

1. **Singletons never merge.** Refining a partition (adding a column) never removes a
   singleton, so once many rows are singletons a node carries forward only the rows that
   are not; its children refine those rows alone and add the new singletons to the count
   set aside. Deep in the search most rows are already unique and the work shrinks with
   them. (While few rows are singletons, dropping them would copy nearly every row for
   nothing, so a node keeps them until a quarter of its rows are singletons.)
2. **Identifiers end their branch.** A subset whose rows are all distinct is an identifier;
   it and every superset are left out (reported, never elected), as Pastore et al. (2020,
   section 3.1) separate IDs from QIDs.
3. **Functional dependencies are derived, not counted.** When adding column ``c`` to ``X``
   leaves the number of classes unchanged, ``c`` is a function of ``X`` on these rows; then
   any superset ``T`` of ``X + c`` partitions rows exactly as ``T - c`` does, so its figures
   are copied from ``T - c`` (same counts, one column more: it can never win an election).
   A constant column (a single province in a regional file) is the common case.

For the gate (:mod:`pandas_anon.detect.exposure`) a subset also counts its rows *at risk*: rows in
classes of fewer than ``k`` rows (``k=2``: the singletons). Refining never takes a row out of
a class smaller than ``k`` either, so fact 1 and the upper bound hold for them too. Rows that
are *suppressed* on a subset (the marker ``*`` in every one of its columns,
:func:`pandas_anon.detect.exposure.suppressed_rows`) belong to no class: they are taken out of the
counts of that subset.

Each subset is refined from whichever of its (size - 1)-subsets has the fewest rows left to
split: any of them gives the same partition. Every column is encoded once
(:class:`~pandas_anon.engine.encoding.EncodedFrame`); a refinement is a multiply-add on integer codes
and one ``np.bincount`` (a hash table when the key space is sparse). The subsets of the largest
size have no children: they are only counted, a sparse key space by sorting, which is several
times faster than hashing. Subsets of one size never depend on each other, so large tables
count them in parallel threads.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from pandas_anon.engine.encoding import PARALLEL_MIN_ROWS, EncodedFrame
from pandas_anon.engine.grouping import Grouping, class_sizes, compress, group_labels
from pandas_anon.params import whole

COUNTED, DERIVED, IDENTIFIER = "counted", "derived", "identifier"


@dataclass
class Node:
    """One evaluated column subset (columns as ascending positions among the candidates)."""

    columns: tuple[int, ...]
    singletons: int
    distinct: int
    status: str
    at_risk: int = 0  # rows in classes of fewer than k rows (k=2: the singletons)
    rows: np.ndarray | None = None  # examined rows still to split (None: all of them)
    classes: np.ndarray | None = None  # class of each of those rows (None: a single class)
    n_classes: int = 1
    outside: int = 0  # singletons already counted whose rows were dropped from ``rows``

    @property
    def size(self) -> int:
        return len(self.columns)


def check_max_size(max_size: object) -> None:
    """Refuse a ``max_size`` that is not a positive integer (or None: no limit)."""
    if max_size is not None:
        whole(max_size, "max_size", example=3)


class SubsetSearch:
    """Enumerate column subsets of ``encoded`` by size, up to ``max_size`` columns.

    ``k`` sets what a node counts as at risk (rows in classes below ``k``); ``marked`` gives,
    for the columns that hold the suppression marker, the examined rows holding it.
    """

    def __init__(
        self,
        encoded: EncodedFrame,
        max_size: int | None = None,
        *,
        k: int = 2,
        marked: dict[int, np.ndarray] | None = None,
    ) -> None:
        check_max_size(max_size)
        self.encoded = encoded
        self.k = k
        self.marked = marked or {}
        self.names = encoded.columns
        self.max_size = len(self.names) if max_size is None else min(max_size, len(self.names))
        self.n = encoded.n_examined
        self.nodes: dict[tuple[int, ...], Node] = {}
        self.identifiers: list[tuple[int, ...]] = []
        self._dependencies: list[tuple[frozenset[int], int]] = []

    def levels(self) -> Iterator[list[Node]]:
        """Yield the nodes of each size in turn, up to ``max_size`` columns."""
        root = Node((), 0, 1, COUNTED)  # every row still to split, none counted yet
        level = [root]
        for size in range(1, self.max_size + 1):
            last = size == self.max_size  # no child will refine it: count, carry nothing
            level = self._evaluate(
                [child for node in level for child in self._children(node)], last
            )
            for node in level:
                self.nodes[node.columns] = node
                self._register(node)
            self._release_parents(level)
            if not level:
                return
            yield level

    def _children(self, node: Node) -> Iterator[Node | tuple[Node, int]]:
        """The supersets of ``node`` by one later column: a derived node, or the (parent,
        column) refinement that will count it. Nodes of one size never depend on each other
        (an identifier or a dependency found at a size only concerns larger subsets)."""
        start = node.columns[-1] + 1 if node.columns else 0
        for position in range(start, len(self.names)):
            columns = node.columns + (position,)
            if self._contains_identifier(columns):
                continue
            source = self._dependency_source(columns)
            if source is not None:
                yield self._derived(self.nodes[source], columns)
            else:
                yield self._cheapest_parent(node, columns)

    def _evaluate(self, planned: list[Node | tuple[Node, int]], last: bool) -> list[Node]:
        """Count the planned refinements, in parallel threads on large tables (numpy's
        counting and sorting release the GIL), keeping the planned order. A parent's arrays
        are freed as soon as its last planned child is counted."""
        uses = Counter(plan[0].columns for plan in planned if not isinstance(plan, Node))
        lock = threading.Lock()

        def evaluate(plan: Node | tuple[Node, int]) -> Node:
            if isinstance(plan, Node):
                return plan
            parent, position = plan
            child = self._refine(parent, position, last=last)
            with lock:
                uses[parent.columns] -= 1
                if not uses[parent.columns]:  # never refined again: see _release_parents
                    parent.rows = parent.classes = None
            return child

        refinements = sum(not isinstance(plan, Node) for plan in planned)
        workers = min(refinements, os.cpu_count() or 1)
        if workers < 2 or self.n < PARALLEL_MIN_ROWS:
            return [evaluate(plan) for plan in planned]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(evaluate, planned))

    def _register(self, node: Node) -> None:
        """Note what a counted node teaches about larger subsets."""
        if node.status == IDENTIFIER:
            self.identifiers.append(node.columns)
        elif node.status == COUNTED:
            self._record_dependencies(node.columns, node.distinct)

    def _derived(self, base: Node, columns: tuple[int, ...]) -> Node:
        """A node partitioning rows as ``base`` does; only its suppressed rows may differ."""
        rows, singles = self._suppressed(base.columns)
        now_rows, now_singles = self._suppressed(columns)
        return Node(
            columns,
            base.singletons + singles - now_singles,
            base.distinct,
            DERIVED,
            at_risk=base.at_risk + rows - now_rows,
        )

    def _suppressed(self, columns: tuple[int, ...]) -> tuple[int, int]:
        """What the rows suppressed on ``columns`` would add to the counts as a class of
        their own: (rows at risk, singletons); counts subtract it, since they form none."""
        if not columns or any(c not in self.marked for c in columns):
            return 0, 0
        mask = self.marked[columns[0]]
        for c in columns[1:]:
            mask = mask & self.marked[c]
        rows = int(np.count_nonzero(mask))
        return (rows if 0 < rows < self.k else 0), int(rows == 1)

    def _contains_identifier(self, columns: tuple[int, ...]) -> bool:
        chosen = set(columns)
        return any(chosen.issuperset(identifier) for identifier in self.identifiers)

    def _dependency_source(self, columns: tuple[int, ...]) -> tuple[int, ...] | None:
        """The subset whose partition equals that of ``columns``, by a known dependency."""
        chosen = set(columns)
        for determinant, dependent in self._dependencies:
            if dependent in chosen and determinant <= chosen - {dependent}:
                return tuple(c for c in columns if c != dependent)
        return None

    def _cheapest_parent(self, prefix: Node, columns: tuple[int, ...]) -> tuple[Node, int]:
        """The subset of ``columns`` minus one column with the fewest rows left to split.

        Any of them gives the same partition once refined by the missing column; the one
        with the fewest rows left to split has the least work left.
        """
        best, missing = prefix, columns[-1]
        for position in columns[:-1]:
            parent = self.nodes[tuple(c for c in columns if c != position)]
            if self._open_rows(parent) < self._open_rows(best):
                best, missing = parent, position
        return best, missing

    def _open_rows(self, node: Node) -> int:
        return self.n if node.rows is None else len(node.rows)

    def _refine(self, node: Node, position: int, *, last: bool = False) -> Node:
        """Split the rows of ``node`` still to split by the column at ``position``; with
        ``last`` only count the classes (nothing is carried to children)."""
        assert node.status == COUNTED, "supersets of derived nodes are derived too"
        name = self.names[position]
        codes = self.encoded.codes[name]
        cardinality = self.encoded.cardinality(name)
        if node.rows is not None:
            codes = codes[node.rows]
        labels = (
            codes if node.classes is None else node.classes.astype(np.int64) * cardinality + codes
        )
        n_labels = node.n_classes * cardinality
        if last:
            grouping = None
            counts = class_sizes(labels, n_labels)
        else:
            grouping = group_labels(labels, n_labels)
            counts = grouping.label_counts
        columns = tuple(sorted(node.columns + (position,)))
        singletons = node.outside + int(np.count_nonzero(counts == 1))
        distinct = node.outside + int(np.count_nonzero(counts))
        if singletons == self.n:
            return Node(columns, singletons, distinct, IDENTIFIER, at_risk=self.n)
        at_risk = node.outside + _rows_below(counts, self.k)
        marked_rows, marked_singles = self._suppressed(columns)
        carried = () if grouping is None else _carry(grouping, node)
        return Node(
            columns, singletons - marked_singles, distinct, COUNTED, at_risk - marked_rows, *carried
        )

    def _record_dependencies(self, columns: tuple[int, ...], distinct: int) -> None:
        """Note each column of ``columns`` that adds no class to the other columns."""
        for dependent in columns:
            rest = tuple(c for c in columns if c != dependent)
            base = self.nodes.get(rest) if rest else None
            if rest and base is not None and base.distinct == distinct:
                self._dependencies.append((frozenset(rest), dependent))
            elif not rest and distinct == 1:
                self._dependencies.append((frozenset(), dependent))

    def _release_parents(self, level: list[Node]) -> None:
        """Free the row arrays of the previous level: only the newest level refines (a
        released node is never refined again, so its ``rows=None`` is never read)."""
        size = level[0].size - 1 if level else 0
        for node in self.nodes.values():
            if node.size == size:
                node.rows = node.classes = None

    def upper_bound(self, excluded: set[int]) -> int:
        """Rows at risk on all candidate columns but ``excluded``: no subset of them has
        more (a row suppressed on a subset may be at risk on a superset, never the reverse)."""
        kept = tuple(i for i in range(len(self.names)) if i not in excluded)
        counts = self.encoded.grouping([self.names[i] for i in kept]).label_counts
        return _rows_below(counts, self.k) - self._suppressed(kept)[0]


def _rows_below(counts: np.ndarray, k: int) -> int:
    """Rows in classes of fewer than ``k`` rows."""
    if k == 2:
        return int(np.count_nonzero(counts == 1))
    return int(counts[counts < k].sum())


#: A refinement drops its singleton rows from what it passes on once they are this share of
#: its rows; below it, copying the other rows would cost more than splitting them again.
COMPACT_SHARE = 0.25


def _carry(grouping: Grouping, parent: Node) -> tuple[np.ndarray | None, np.ndarray, int, int]:
    """What a refinement passes to its children: rows, dense class ids, classes, outside.

    They are kept until every child of the next size is counted, so they are stored as 32-bit
    integers whenever they fit (a search over millions of rows keeps dozens of them).
    """
    if grouping.singletons < COMPACT_SHARE * len(grouping.labels):
        if 2 * grouping.distinct >= len(grouping.label_counts):  # labels mostly used: keep
            classes, n_classes = grouping.labels, len(grouping.label_counts)
        else:
            classes, n_classes = compress(grouping)
        return parent.rows, _narrow(classes, n_classes), n_classes, parent.outside
    shared = grouping.label_counts >= 2
    class_of_row = np.where(shared, np.cumsum(shared) - 1, -1)[grouping.labels]
    positions = np.flatnonzero(class_of_row >= 0)
    # the parent's rows are narrowed already; positions index every examined row
    rows = (
        _narrow(positions, len(grouping.labels)) if parent.rows is None else parent.rows[positions]
    )
    n_classes = int(np.count_nonzero(shared))
    return (
        rows,
        _narrow(class_of_row[positions], n_classes),
        n_classes,
        parent.outside + grouping.singletons,
    )


def _narrow(ids: np.ndarray, bound: int) -> np.ndarray:
    """Non-negative ids below ``bound`` as int32 when they fit."""
    return ids.astype(np.int32, copy=False) if bound <= np.iinfo(np.int32).max else ids
