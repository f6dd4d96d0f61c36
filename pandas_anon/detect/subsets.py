"""Level-wise search over column subsets, counting singletons and classes of each.

Used by :func:`pandas_anon.best_qid` and :func:`pandas_anon.identifiers`. The search reads a
frequency set of every candidate column (:class:`~pandas_anon.engine.frequency.FrequencySet`),
never rows: each *entry* is a combination of all the candidates with its count of rows, its
weight (on a large table whose rows are nearly all distinct, the entries are its rows, one row
each: grouping them would cost more than it saves). Every subset's classes are unions of
entries, so a class's size is the sum of its entries' weights; a singleton is a class weighing
1 row; an identifier is a subset on which every class weighs 1 (every row alone); the rows at
risk are the weight of the classes below ``k``. A table of millions of rows repeating a few
hundred thousand combinations is searched on those combinations.

Subsets are visited by size (1, 2, ...), each one built from one of its (size - 1)-subsets by
refining that subset's partition of the entries with the missing column. Three facts keep the
search cheap:

1. **Singletons never merge.** Refining a partition (adding a column) never removes a
   singleton, so once many entries are singletons a subset carries forward only the entries
   that are not; its children refine those entries alone and add the new singletons to the
   count set aside. Deep in the search most rows are already unique and the work shrinks with
   them. (While few entries are singletons, dropping them would copy nearly every entry for
   nothing, so a subset keeps them until a quarter of its entries are singletons.)
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
counts of that subset (the marker is found per entry, and weighs its entries' rows).

Each subset is refined from whichever of its (size - 1)-subsets has the fewest entries left to
split: any of them gives the same partition. A refinement is a multiply-add on integer codes
and one ``np.bincount`` (a hash table when the key space is sparse). Weights cost only where
they are: the entries weighing more than one row (the frequency set's
:attr:`~pandas_anon.engine.frequency.FrequencySet.surplus`) add their surplus to their class
after an unweighted count, so a frequency set whose counts are all 1 (as many combinations as
rows) is searched exactly as rows were, and one with a few repeated combinations nearly so.
The subsets of the largest size have no children: they are only counted, a sparse key space by
sorting, which is several times faster than hashing. Subsets of one size never depend on each
other, so large frequency sets count them in parallel threads.

An election (``prune``, the gate's rule: :meth:`SubsetSearch.elect`) needs only the leader,
so it visits the subsets of each size in a fixed order (``itertools.combinations`` of the
candidates) and stops at the first one nothing can beat: an identifier, or a subset at the
upper bound (every candidate together). It keeps a few numbers per subset and no partition.
On a small frequency set (at most :data:`BATCH_ENTRIES` entries: a wide table of a few
hundred rows) thousands of subsets are counted at once, their keys sorted row by row in one
numpy call (:meth:`SubsetSearch._batch_census`); on a large one each subset is counted from
the codes of its own columns (one mixed-radix key, counted as the largest size is), and those
of the largest size that cannot reach the leader are not counted (:meth:`SubsetSearch.bound`:
from the sizes of the classes of the subsets one column smaller, kept as a histogram of a few
thousand numbers each).

Its work is bounded: it examines at most ``max_subsets`` subsets (:data:`MAX_SUBSETS` by
default), counted in that fixed order whatever the machine, so that the same table gets the
same verdict everywhere. A table whose election needs more (a wide table with no small
identifying subset) raises :class:`~pandas_anon.errors.BudgetExceededError`: the caller names
the quasi-identifier, or raises the budget.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations as subsets_of
from itertools import islice

import numpy as np

from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.grouping import (
    KEY_LIMIT,
    Grouping,
    Scratch,
    SizeHistogram,
    Surplus,
    census,
    class_sizes,
    combinations,
    compress,
    group_labels,
    histogram_census,
    key_dtype,
    mixed_radix,
    size_census,
    size_histogram,
)
from pandas_anon.engine.parallel import workers_for
from pandas_anon.errors import LimitExceededError
from pandas_anon.params import whole

COUNTED, DERIVED, IDENTIFIER = "counted", "derived", "identifier"
#: The statuses by their code in :class:`Examined` (-1: left out by its bound).
STATUSES = (COUNTED, DERIVED, IDENTIFIER)
_IDENTIFIED = STATUSES.index(IDENTIFIER)

#: Column subsets an election examines at most by default (:meth:`SubsetSearch.lead`): on a
#: table of a few hundred rows, a second or two of counting and a few dozen MiB of figures.
#: A file of 14 columns has 469 subsets of up to 3 columns, one of 100 columns 166,750, one of
#: 300 columns 4,455,100 (an election stops at the first identifier, most often far sooner).
MAX_SUBSETS = 1_000_000
#: An election counts many subsets at once (:meth:`SubsetSearch._batch_census`) on frequency
#: sets of up to this many entries, where numpy's cost per call outweighs the counting.
BATCH_ENTRIES = 4096
#: Keys (subsets times entries) sorted in one call of :meth:`SubsetSearch._batch_census`.
BATCH_KEYS = 1 << 20
#: On larger frequency sets, subsets an election counts (in threads) between two looks at
#: its leader: a fixed number, so that what is pruned does not depend on the machine.
CHUNK = 16


@dataclass
class Subset:
    """One evaluated column subset (columns as ascending positions among the candidates)."""

    columns: tuple[int, ...]
    singletons: int
    distinct: int
    status: str
    at_risk: int = 0  # rows in classes of fewer than k rows (k=2: the singletons)
    rows: np.ndarray | None = None  # entries still to split, ascending (None: all of them)
    classes: np.ndarray | None = None  # class of each of those entries (None: a single class)
    n_classes: int = 1
    outside: int = 0  # singletons already counted whose entries were dropped from ``rows``
    surplus: Surplus | None = None  # the frequency set's surplus, positions among ``rows``
    histogram: SizeHistogram | None = None  # its classes' sizes (``prune``, but the largest)

    @property
    def size(self) -> int:
        return len(self.columns)


@dataclass(frozen=True)
class Examined:
    """The figures of the subsets a search counted or derived, a few numbers each: their
    columns (positions among the candidates, ``-1`` past a subset's size), singletons,
    classes, rows at risk and status (its position in :data:`STATUSES`), in the order
    examined."""

    columns: np.ndarray
    singletons: np.ndarray
    distinct: np.ndarray
    at_risk: np.ndarray
    status: np.ndarray

    @classmethod
    def of(cls, subsets: Iterable[Subset | None], max_size: int) -> Examined:
        """The figures of ``subsets`` (None: a subset left out by its bound)."""
        found = list(subsets)
        columns = np.full((len(found), max_size), -1, dtype=np.int32)
        for row, subset in enumerate(found):
            if subset is not None:
                columns[row, : subset.size] = subset.columns

        def each(figure: str) -> np.ndarray:
            return np.array([0 if s is None else getattr(s, figure) for s in found], np.int64)

        return cls(
            columns,
            each("singletons"),
            each("distinct"),
            each("at_risk"),
            np.array([-1 if s is None else STATUSES.index(s.status) for s in found], np.int8),
        )

    @classmethod
    def joined(cls, parts: Sequence[Examined], max_size: int) -> Examined:
        """``parts`` one after the other."""
        if not parts:
            return cls.of((), max_size)
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def __len__(self) -> int:
        return len(self.status)

    def sizes(self) -> np.ndarray:
        """The number of columns of each subset."""
        return np.count_nonzero(self.columns >= 0, axis=1)

    def positions(self, row: int) -> tuple[int, ...]:
        """The columns of the subset in ``row``."""
        return tuple(int(c) for c in self.columns[row] if c >= 0)

    def named(self, names: Sequence[Hashable]) -> list[tuple[Hashable, ...]]:
        """Each subset's columns, by their ``names`` (the candidates')."""
        labels = np.empty(len(names), dtype=object)
        for position, name in enumerate(names):  # a name may be a tuple: one at a time
            labels[position] = name
        rows = labels[self.columns].tolist()
        return [tuple(row[:size]) for row, size in zip(rows, self.sizes().tolist())]

    def figures(self) -> dict[tuple[int, ...], tuple[int, int, int, str]]:
        """Each subset's (singletons, classes, rows at risk, status), by its columns."""
        return {
            self.positions(row): (
                int(self.singletons[row]),
                int(self.distinct[row]),
                int(self.at_risk[row]),
                STATUSES[self.status[row]],
            )
            for row in range(len(self))
        }


@dataclass(frozen=True)
class Lead:
    """What an election found (:meth:`SubsetSearch.lead`): the elected subset, every subset
    counted or derived before it stopped, and the most rows at risk any subset can have
    (None: not computed)."""

    leader: Subset
    examined: Examined
    upper_bound: int | None


#: :meth:`SubsetSearch._few_valued` groups the entries on the columns of fewest values when
#: there are at least this many entries and that makes them at least ``FEW_SHRINK`` times
#: fewer.
FEW_MIN_ENTRIES = 500_000
FEW_SHRINK = 4


@dataclass(frozen=True)
class _Few:
    """The entries grouped on the columns of fewest values: each column's codes (by its
    position among the candidates), the groups, and the surplus of their counts."""

    codes: dict[int, np.ndarray]
    entries: int
    surplus: Surplus


def check_max_size(max_size: object) -> None:
    """Refuse a ``max_size`` that is not a positive integer (or None: no limit)."""
    if max_size is not None:
        whole(max_size, "max_size", example=3)


class SubsetSearch:
    """Enumerate column subsets of ``frequencies`` by size, up to ``max_size`` columns.

    ``frequencies`` is the frequency set of every candidate column (its columns are the
    candidates, its counts the weights of its entries). ``k`` sets what a subset counts as at
    risk (rows in classes below ``k``); ``marked`` gives, for the columns that hold the
    suppression marker, the entries holding it.

    ``prune``: the search is the gate's election (:meth:`lead`, not :meth:`levels`), which
    keeps no partition. Either search examines at most ``max_subsets`` subsets (None: no
    limit): the election counts them as it goes, :meth:`levels` refuses a size whose subsets
    would pass the budget before it builds them.
    """

    def __init__(
        self,
        frequencies: FrequencySet,
        max_size: int | None = None,
        *,
        k: int = 2,
        marked: dict[int, np.ndarray] | None = None,
        prune: bool = False,
        max_subsets: int | None = None,
    ) -> None:
        check_max_size(max_size)
        if max_subsets is not None:
            whole(max_subsets, "max_subsets", example=MAX_SUBSETS)
        self.frequencies = frequencies
        self.k = k
        self.marked = marked or {}
        self.prune = prune
        self.max_subsets = max_subsets
        #: subsets of the largest size left uncounted by their bound (``prune``)
        self.pruned = 0
        #: subsets counted, derived or left out by their bound (``prune``)
        self.examined = 0
        self.names = frequencies.columns
        self.max_size = len(self.names) if max_size is None else min(max_size, len(self.names))
        #: rows examined (the weight of every entry)
        self.n = frequencies.n_rows
        #: entries: the combinations of all candidate columns
        self.entries = len(frequencies)
        self.codes = [np.ascontiguousarray(frequencies.codes[:, j]) for j in range(len(self.names))]
        self.cardinalities = [frequencies.cardinality(c) for c in self.names]
        self.surplus: Surplus | None = frequencies.surplus if len(frequencies.surplus[0]) else None
        self.subsets: dict[tuple[int, ...], Subset] = {}
        self.identifiers: list[tuple[int, ...]] = []
        self._dependencies: list[tuple[frozenset[int], int]] = []
        self._scratch = threading.local()  # each thread's arrays (:meth:`_count`)
        self._few: _Few | None = None  # the columns of fewest values, grouped (prune)
        self._stacked: np.ndarray | None = None  # every candidate's codes (a batched election)

    def levels(self) -> Iterator[list[Subset]]:
        """Yield the subsets of each size in turn, up to ``max_size`` columns."""
        self._root = Subset((), 0, 1, COUNTED, surplus=self.surplus)  # every entry, none counted
        level = [self._root]
        assert not self.prune, "an election is run by lead()"
        planned_before = 0
        for size in range(1, self.max_size + 1):
            last = size == self.max_size  # no child will refine it: count, carry nothing
            planned_before = self._within_budget(level, size, planned_before)
            level = self._evaluate(
                [child for subset in level for child in self._children(subset)], last
            )
            for subset in level:
                self.subsets[subset.columns] = subset
                self._register(subset)
            self._release_parents(level)
            if not level:
                return
            yield level

    def _within_budget(self, level: list[Subset], size: int, before: int) -> int:
        """The subsets planned up to ``size`` (``before`` planned for the smaller sizes, plus
        the supersets of ``level`` by one later column, counted before any is built), or
        :class:`~pandas_anon.errors.LimitExceededError` when they pass ``max_subsets``: the
        search's time and memory grow with the subsets of one size, which a wide frame makes
        numerous (1,030 columns: 181 million subsets of 3)."""
        width = len(self.names)
        planned = before + sum(width - (s.columns[-1] + 1 if s.columns else 0) for s in level)
        if self.max_subsets is not None and planned > self.max_subsets:
            raise LimitExceededError(
                f"the search of the best quasi-identifier would examine {planned:,} column "
                f"subsets (of up to {size} of the {width:,} candidate columns), more than its "
                f"budget of {self.max_subsets:,}; pass fewer columns (columns=), a smaller "
                f"max_size, or a larger max_subsets"
            )
        return planned

    def _children(self, subset: Subset) -> Iterator[Subset | tuple[Subset, int]]:
        """The supersets of ``subset`` by one later column: a derived subset, or the (parent,
        column) refinement that will count it. Subsets of one size never depend on each other
        (an identifier or a dependency found at a size only concerns larger subsets)."""
        start = subset.columns[-1] + 1 if subset.columns else 0
        for position in range(start, len(self.names)):
            columns = subset.columns + (position,)
            if self._contains_identifier(columns):
                continue
            source = self._dependency_source(columns)
            if source is not None:
                yield self._derived(self.subsets[source], columns)
            else:
                yield self._cheapest_parent(subset, columns)

    def _evaluate(self, planned: list[Subset | tuple[Subset, int]], last: bool) -> list[Subset]:
        """Count the planned refinements, in parallel threads on large frequency sets
        (numpy's counting and sorting release the GIL), keeping the planned order. A parent's
        arrays are freed as soon as its last planned child is counted."""
        uses = Counter(plan[0].columns for plan in planned if not isinstance(plan, Subset))
        lock = threading.Lock()

        def evaluate(plan: Subset | tuple[Subset, int]) -> Subset:
            if isinstance(plan, Subset):
                return plan
            parent, position = plan
            child = self._refine(parent, position, last=last)
            with lock:
                uses[parent.columns] -= 1
                if not uses[parent.columns]:  # never refined again: see _release_parents
                    parent.rows = parent.classes = parent.surplus = None
            return child

        workers = workers_for(sum(not isinstance(plan, Subset) for plan in planned), self.entries)
        if workers < 2:
            return [evaluate(plan) for plan in planned]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(evaluate, planned))

    def lead(self) -> Lead:
        """Elect by the gate's rule (``prune``): the subset of up to ``max_size`` columns with
        the most rows at risk, the first identifier found winning outright.

        Subsets are examined by size, each size in ``itertools.combinations`` order, and the
        leader is the first of the most rows at risk of the smallest size holding them (as
        :func:`~pandas_anon.detect.best_qid.elect` ranks). The election stops at the first
        subset nothing can beat: an identifier (every row alone), or a subset holding the
        :meth:`upper_bound` of rows at risk when that is below every row (no identifier can
        then exist); or after a size whose leader holds it. On a large frequency set, a
        subset of the largest size whose :meth:`bound` cannot beat the leader is not counted
        (:attr:`pruned`), nor one whose columns a dependency says partition rows as fewer
        columns do (derived).

        Raises :class:`~pandas_anon.errors.LimitExceededError` when the election has not
        stopped within the first ``max_subsets`` subsets examined (counted, derived or left
        out by their bound).
        """
        assert self.prune, "lead() runs an election (prune=True)"
        bound = self.upper_bound(set()) if self.frequencies.distinct else None
        goal = bound if bound is not None and bound < self.n else None
        batched = self.entries <= BATCH_ENTRIES
        step = max(1, BATCH_KEYS // max(self.entries, 1)) if batched else CHUNK
        workers = 1 if batched else workers_for(CHUNK, self.entries)
        pool = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None
        parts: list[Examined] = []
        best: Subset | None = None
        try:
            for size in range(1, self.max_size + 1):
                last = size == self.max_size
                if size == 2 and not batched:  # before the pairs, the first subsets it serves
                    self._few = self._few_valued()
                plan = subsets_of(range(len(self.names)), size)
                while chunk := self._next_chunk(plan, step):
                    if batched:
                        found = self._batch_census(chunk)
                    else:
                        found = self._one_by_one(chunk, last, best, pool)
                    best, stop = self._look(chunk, found, best, goal)
                    self.examined += len(chunk) if stop is None else stop + 1
                    kept = slice(None) if stop is None else slice(0, stop + 1)
                    counted = found.status[kept] >= 0  # not left out by a bound
                    self.pruned += int(np.count_nonzero(~counted))
                    parts.append(Examined(*(getattr(found, f)[kept][counted] for f in _FIELDS)))
                    if stop is not None:
                        return Lead(best, Examined.joined(parts, self.max_size), bound)
                if best is not None and bound is not None and best.at_risk >= bound:
                    break
        finally:
            if pool is not None:
                pool.shutdown()
        assert best is not None  # the first size has at least one subset
        return Lead(best, Examined.joined(parts, self.max_size), bound)

    def _next_chunk(self, plan: Iterator[tuple[int, ...]], step: int) -> list[tuple[int, ...]]:
        """The next ``step`` subsets of ``plan`` within the budget; a
        :class:`~pandas_anon.errors.LimitExceededError` when the budget is spent and the plan
        still holds one."""
        room = step if self.max_subsets is None else min(step, self.max_subsets - self.examined)
        chunk = list(islice(plan, room))
        if not chunk and room == 0 and next(plan, None) is not None:
            raise LimitExceededError(
                f"the election of a quasi-identifier examined its budget of "
                f"{self.max_subsets:,} column subsets (of up to {self.max_size} of the "
                f"{len(self.names):,} columns) without finding the most exposed one"
            )
        return chunk

    def _look(
        self, chunk: list[tuple[int, ...]], found: Examined, best: Subset | None, goal: int | None
    ) -> tuple[Subset, int | None]:
        """The leader after the subsets of ``chunk`` (their figures ``found``, in order; a
        status of -1 when left out), and where the election stops among them (None: it
        goes on)."""
        at_risk = np.where(found.status >= 0, found.at_risk, -1)
        ends = found.status == _IDENTIFIED
        if goal is not None:
            ends |= at_risk >= goal
        stops = np.flatnonzero(ends)
        stop = int(stops[0]) if len(stops) else None
        seen = at_risk[: len(at_risk) if stop is None else stop + 1]
        row = (
            stop if stop is not None and found.status[stop] == _IDENTIFIED else int(np.argmax(seen))
        )
        if best is None or at_risk[row] > best.at_risk:
            return Subset(
                chunk[row],
                int(found.singletons[row]),
                int(found.distinct[row]),
                STATUSES[found.status[row]],
                at_risk=int(at_risk[row]),
            ), stop
        return best, stop

    def _one_by_one(
        self,
        chunk: list[tuple[int, ...]],
        last: bool,
        best: Subset | None,
        pool: ThreadPoolExecutor | None,
    ) -> Examined:
        """Count the subsets of ``chunk`` one at a time (in threads): derived when a
        dependency says so, left out (status -1) at the largest size when their
        :meth:`bound` cannot beat ``best`` (a tie loses to it, but for an identifier), kept
        with their class sizes below the largest size (they bound the next)."""
        subsets: list[Subset | None] = []
        counted: list[int] = []
        for columns in chunk:
            source = self._dependency_source(columns)
            if source is not None:
                subsets.append(self._derived(self.subsets[source], columns))
                continue
            if last and best is not None:
                most = self.bound(columns)
                if most < best.at_risk or (most == best.at_risk < self.n):
                    subsets.append(None)
                    continue
            counted.append(len(subsets))
            subsets.append(None)
        count = map if pool is None else pool.map
        for row, subset in zip(
            counted, count(lambda row: self._count(chunk[row], histogram=not last), counted)
        ):
            subsets[row] = subset
        if not last:
            for kept in subsets:
                assert kept is not None
                self.subsets[kept.columns] = kept
                self._register(kept)
        return Examined.of(subsets, self.max_size)

    def _batch_census(self, chunk: list[tuple[int, ...]]) -> Examined:
        """Count the subsets of ``chunk`` (of one size) at once: each subset's mixed-radix
        keys over the entries are a row of one array, sorted row by row; a class is a run
        of equal keys, its size the run's length (with a surplus, the sum of its entries'
        counts). Suppressed rows are taken out as :meth:`_counted` does."""
        columns = np.array(chunk, dtype=np.intp)
        entries = self.entries
        if self._stacked is None:  # every candidate's codes, one row each
            self._stacked = np.stack(self.codes).astype(np.int64)
        stacked, radices = self._stacked, np.array(self.cardinalities, dtype=np.int64)
        keys = stacked[columns[:, 0]]
        space = int(radices[columns[:, 0]].max())
        for j in range(1, columns.shape[1]):
            radix = radices[columns[:, j]]
            if space * int(radix.max()) >= KEY_LIMIT:
                keys, space = _ranks(keys), entries
            keys *= radix[:, None]
            keys += stacked[columns[:, j]]
            space *= int(radix.max())
        weights = None if self.surplus is None else self.frequencies.counts
        distinct, singletons, at_risk = _census_by_row(keys, space, weights, self.k)
        found = Examined(
            np.full((len(chunk), self.max_size), -1, dtype=np.int32),
            singletons,
            distinct,
            at_risk,
            np.where(singletons == self.n, _IDENTIFIED, 0).astype(np.int8),
        )
        found.columns[:, : columns.shape[1]] = columns
        if self.marked:
            suppressible = np.isin(columns, list(self.marked)).all(axis=1) & (found.status == 0)
            for row in np.flatnonzero(suppressible):
                rows_out, singles_out = self._suppressed(chunk[row])
                found.at_risk[row] -= rows_out
                found.singletons[row] -= singles_out
        return found

    def bound(self, columns: tuple[int, ...]) -> int:
        """The most rows ``columns`` can have at risk, from the subsets one column smaller
        already counted. Adding column ``c`` splits each class of ``columns - c`` into at
        most as many classes as ``c`` has codes, and a class at risk holds at most ``k - 1``
        rows (``k = 2``: one, a singleton): a class of ``s`` rows leaves at most
        ``min(s, (k - 1) * codes(c))`` of them at risk. Summed over the classes of
        ``columns - c`` (their :data:`~pandas_anon.engine.grouping.SizeHistogram`; without
        it, every class counted as large), the least over the columns ``c``; and at most
        ``k - 1`` rows per entry, ``n`` in all.

        The sizes are of the classes before suppressed rows are taken out, so the bound also
        holds for the rows that ``columns - c`` suppressed and ``columns`` does not."""
        most = min(self.n, (self.k - 1) * self.entries)
        for c in columns:
            smaller = self.subsets.get(tuple(x for x in columns if x != c))
            if smaller is None:
                continue
            cap = (self.k - 1) * self.cardinalities[c]
            if smaller.histogram is None:
                most = min(most, smaller.distinct * cap)
            else:
                sizes, classes = smaller.histogram
                most = min(most, int(classes @ np.minimum(sizes, cap)))
        return most

    def _register(self, subset: Subset) -> None:
        """Note what a counted subset teaches about larger subsets."""
        if subset.status == IDENTIFIER:
            self.identifiers.append(subset.columns)
        elif subset.status == COUNTED:
            self._record_dependencies(subset.columns, subset.distinct)

    def _derived(self, base: Subset, columns: tuple[int, ...]) -> Subset:
        """A subset partitioning rows as ``base`` does; only its suppressed rows may differ."""
        rows, singles = self._suppressed(base.columns)
        now_rows, now_singles = self._suppressed(columns)
        return Subset(
            columns,
            base.singletons + singles - now_singles,
            base.distinct,
            DERIVED,
            at_risk=base.at_risk + rows - now_rows,
            histogram=base.histogram,
        )

    def _suppressed(self, columns: tuple[int, ...]) -> tuple[int, int]:
        """What the rows suppressed on ``columns`` would add to the counts as a class of
        their own: (rows at risk, singletons); counts subtract it, since they form none."""
        if not columns or any(c not in self.marked for c in columns):
            return 0, 0
        mask = self.marked[columns[0]]
        for c in columns[1:]:
            mask = mask & self.marked[c]
        if self.surplus is None:  # every entry is one row
            rows = int(np.count_nonzero(mask))
        else:
            rows = int(self.frequencies.counts[mask].sum())
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

    def _cheapest_parent(self, prefix: Subset, columns: tuple[int, ...]) -> tuple[Subset, int]:
        """The subset of ``columns`` minus one column with the fewest entries left to split.

        Any of them gives the same partition once refined by the missing column; the one
        with the fewest entries left to split has the least work left.
        """
        best, missing = prefix, columns[-1]
        for position in columns[:-1]:
            parent = self.subsets[tuple(c for c in columns if c != position)]
            if self._open_entries(parent) < self._open_entries(best):
                best, missing = parent, position
        return best, missing

    def _open_entries(self, subset: Subset) -> int:
        return self.entries if subset.rows is None else len(subset.rows)

    def _surplus_among(self, rows: np.ndarray | None, parent: Subset) -> Surplus | None:
        """The frequency set's surplus with positions among ``rows``, the entries a subset
        passes on (an entry of more than one row is never a singleton, so it is never dropped:
        all are there); found once per subset, only when it drops entries."""
        if self.surplus is None or rows is None:
            return self.surplus
        if rows is parent.rows:
            return parent.surplus
        heavy, extra = self.surplus
        return np.searchsorted(rows, heavy), extra

    def _refine(self, subset: Subset, position: int, *, last: bool = False) -> Subset:
        """Split the entries of ``subset`` still to split by the column at ``position``;
        with ``last`` only count the classes (nothing is carried to children)."""
        assert subset.status == COUNTED, "supersets of derived subsets are derived too"
        codes = self.codes[position]
        cardinality = self.cardinalities[position]
        if subset.rows is not None:
            codes = codes[subset.rows]
        if subset.classes is None:
            labels = codes
        else:  # int32 class ids widened in the product itself, no copy of their own
            labels = np.multiply(subset.classes, cardinality, dtype=np.int64)
            labels += codes
        n_labels = subset.n_classes * cardinality
        if last:
            grouping = None
            counts = class_sizes(labels, n_labels, subset.surplus)
        else:
            grouping = group_labels(labels, n_labels, subset.surplus)
            counts = grouping.label_counts
        counted = self._counted(
            tuple(sorted(subset.columns + (position,))), *census(counts, self.k), subset.outside
        )
        if grouping is not None and counted.status == COUNTED:
            counted.rows, counted.classes, counted.n_classes, counted.outside = _carry(
                grouping, subset
            )
            counted.surplus = self._surplus_among(counted.rows, subset)
        return counted

    def _count(self, columns: tuple[int, ...], *, histogram: bool = False) -> Subset:
        """Count the classes of ``columns`` from their codes alone (no partition is read or
        kept): one mixed-radix key over the entries, counted by :func:`class_sizes`.
        ``histogram``: keep the sizes of its classes, which bound its supersets'
        (:meth:`bound`)."""
        codes: Mapping[int, np.ndarray] | list[np.ndarray] = self.codes
        entries, surplus = self.entries, self.surplus
        if self._few is not None and all(c in self._few.codes for c in columns):
            codes, entries, surplus = self._few.codes, self._few.entries, self._few.surplus
        cardinalities = [self.cardinalities[c] for c in columns]
        dtype = key_dtype(math.prod(cardinalities), entries)
        if not hasattr(self._scratch, "arrays"):  # this thread's first count
            self._scratch.arrays = Scratch()
        labels, n_labels = mixed_radix(
            [codes[c] for c in columns],
            cardinalities,
            n_rows=entries,
            out=self._scratch.arrays.array(dtype, entries),
        )
        if not histogram:
            return self._counted(
                columns, *size_census(labels, n_labels, surplus, below=self.k, overwrite=True)
            )
        sizes = size_histogram(labels, n_labels, surplus, overwrite=True)
        counted = self._counted(columns, *histogram_census(sizes, self.k))
        counted.histogram = sizes
        return counted

    def _few_valued(self) -> _Few | None:
        """The entries grouped on the columns of fewest values, when that shrinks them
        :data:`FEW_SHRINK` times or more: a subset of those columns alone is counted on those
        groups (an election over millions of rows counts its pairs of small columns, sex by
        province, on thousands of combinations). The columns are taken by increasing number
        of values while their key space stays sortable as 32-bit integers."""
        if self.entries < FEW_MIN_ENTRIES:
            return None
        chosen: list[int] = []
        space = 1
        for position in sorted(range(len(self.names)), key=lambda j: self.cardinalities[j]):
            if space * self.cardinalities[position] > 1 << 32:
                break
            chosen.append(position)
            space *= self.cardinalities[position]
        if len(chosen) < 3:  # a single pair: no saving
            return None
        found = combinations(
            [self.codes[j] for j in chosen],
            [self.cardinalities[j] for j in chosen],
            n_rows=self.entries,
            weights=None if self.surplus is None else self.frequencies.counts,
        )
        if FEW_SHRINK * len(found.counts) > self.entries:
            return None
        heavy = np.flatnonzero(found.counts > 1)
        return _Few(
            {j: np.ascontiguousarray(found.codes[:, i]) for i, j in enumerate(chosen)},
            len(found.counts),
            (heavy, found.counts[heavy] - 1),
        )

    def _counted(
        self, columns: tuple[int, ...], distinct: int, small: np.ndarray, outside: int = 0
    ) -> Subset:
        """The subset ``columns`` whose classes number ``distinct``, ``small[s]`` of them of
        ``s`` rows for each ``s`` below ``k`` (:func:`~pandas_anon.engine.grouping.census`),
        with ``outside`` singletons counted before (entries no longer split)."""
        singletons = outside + int(small[1])
        distinct += outside
        if singletons == self.n:
            return Subset(columns, singletons, distinct, IDENTIFIER, at_risk=self.n)
        at_risk = outside + int(small @ np.arange(self.k))
        marked_rows, marked_singles = self._suppressed(columns)
        return Subset(
            columns, singletons - marked_singles, distinct, COUNTED, at_risk - marked_rows
        )

    def _record_dependencies(self, columns: tuple[int, ...], distinct: int) -> None:
        """Note each column of ``columns`` that adds no class to the other columns."""
        for dependent in columns:
            rest = tuple(c for c in columns if c != dependent)
            base = self.subsets.get(rest) if rest else None
            if rest and base is not None and base.distinct == distinct:
                self._dependencies.append((frozenset(rest), dependent))
            elif not rest and distinct == 1:
                self._dependencies.append((frozenset(), dependent))

    def _release_parents(self, level: list[Subset]) -> None:
        """Free the entry arrays of the smaller subsets: only the newest level refines (a
        released subset is never refined again, so its ``rows=None`` is never read)."""
        size = level[0].size if level else 0
        for subset in self.subsets.values():
            if subset.size < size:
                subset.rows = subset.classes = subset.surplus = None

    def upper_bound(self, excluded: set[int]) -> int:
        """Rows at risk on all candidate columns but ``excluded``: no subset of them has
        more (a row suppressed on a subset may be at risk on a superset, never the reverse).

        With nothing excluded these are the classes of the frequency set itself, whose
        grouping is already paid for; otherwise (or when its entries are rows, not distinct
        combinations) its entries are grouped on the kept columns.
        """
        kept = tuple(i for i in range(len(self.names)) if i not in excluded)
        if len(kept) == len(self.names) and self.frequencies.distinct:
            counts = self.frequencies.counts
        else:
            labels, n_labels = mixed_radix(
                [self.codes[i] for i in kept],
                [self.cardinalities[i] for i in kept],
                n_rows=self.entries,
            )
            counts = class_sizes(labels, n_labels, self.surplus)
        return _rows_below(counts, self.k) - self._suppressed(kept)[0]


def _rows_below(counts: np.ndarray, k: int) -> int:
    """Rows in classes of fewer than ``k`` rows."""
    if k == 2:
        return int(np.count_nonzero(counts == 1))
    return int(counts[counts < k].sum())


#: A refinement drops its singleton entries from what it passes on once they are this share
#: of its entries; below it, copying the other entries would cost more than splitting them
#: again.
COMPACT_SHARE = 0.25


def _carry(grouping: Grouping, parent: Subset) -> tuple[np.ndarray | None, np.ndarray, int, int]:
    """What a refinement passes to its children: entries, dense class ids, classes, outside.

    A singleton is a class of one entry weighing one row: dropped, it is counted in
    ``outside``. Entries weighing more stay, so they keep their place among the entries.
    The arrays are kept until every child of the next size is counted, so they are stored as
    32-bit integers whenever they fit (a search over millions of entries keeps dozens of
    them).
    """
    if grouping.singletons < COMPACT_SHARE * len(grouping.labels):
        if 2 * grouping.distinct >= len(grouping.label_counts):  # labels mostly used: keep
            classes, n_classes = grouping.labels, len(grouping.label_counts)
        else:
            classes, n_classes = compress(grouping)
        return parent.rows, _narrow(classes, n_classes), n_classes, parent.outside
    shared = grouping.label_counts >= 2
    class_of_entry = np.where(shared, np.cumsum(shared) - 1, -1)[grouping.labels]
    positions = np.flatnonzero(class_of_entry >= 0)
    # the parent's entries are narrowed already; positions index every entry it split
    rows = (
        _narrow(positions, len(grouping.labels)) if parent.rows is None else parent.rows[positions]
    )
    n_classes = int(np.count_nonzero(shared))
    return (
        rows,
        _narrow(class_of_entry[positions], n_classes),
        n_classes,
        parent.outside + grouping.singletons,
    )


def _narrow(ids: np.ndarray, bound: int) -> np.ndarray:
    """Non-negative ids below ``bound`` as int32 when they fit."""
    return ids.astype(np.int32, copy=False) if bound <= np.iinfo(np.int32).max else ids


#: The fields of :class:`Examined`, in order.
_FIELDS = ("columns", "singletons", "distinct", "at_risk", "status")


def _census_by_row(
    keys: np.ndarray, space: int, weights: np.ndarray | None, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each row of ``keys`` (keys below ``space``, one per entry; ``weights``: the rows
    each entry weighs, None for one each): its classes (distinct keys), its singletons and
    its rows in classes of fewer than ``k`` rows, three arrays of their own (the caller
    takes suppressed rows out of the last two apart). Each row is sorted (as 32-bit integers
    when they fit, nearly twice as fast); a class is a run of equal keys."""
    subsets, entries = keys.shape
    if space <= np.iinfo(np.int32).max:
        keys = keys.astype(np.int32)
    if weights is None:
        keys.sort(axis=1)
    else:
        order = np.argsort(keys, axis=1)
        keys = np.take_along_axis(keys, order, axis=1)
    heads = _run_heads_by_row(keys)
    distinct = np.count_nonzero(heads, axis=1).astype(np.int64)
    if weights is None and k == 2:  # a singleton starts a run and the next key another
        alone = heads.copy()
        alone[:, :-1] &= heads[:, 1:]
        singletons = np.count_nonzero(alone, axis=1).astype(np.int64)
        return distinct, singletons, singletons.copy()  # two arrays: each is corrected apart
    starts = np.flatnonzero(heads)
    if weights is None:
        runs = np.diff(starts, append=heads.size)
    else:
        runs = np.add.reduceat(weights[order].ravel(), starts)
    rows, small = starts // entries, runs < k
    return (
        distinct,
        np.bincount(rows[runs == 1], minlength=subsets).astype(np.int64),
        np.bincount(rows[small], weights=runs[small], minlength=subsets).astype(np.int64),
    )


def _run_heads_by_row(ordered: np.ndarray) -> np.ndarray:
    """Where a run of equal keys starts in each row of ``ordered`` (sorted row by row)."""
    heads = np.empty(ordered.shape, dtype=bool)
    heads[:, :1] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=heads[:, 1:])
    return heads


def _ranks(keys: np.ndarray) -> np.ndarray:
    """Each key replaced by its rank among the distinct keys of its row (the same classes,
    in a key space no larger than the row)."""
    order = np.argsort(keys, axis=1)
    ranks = np.cumsum(_run_heads_by_row(np.take_along_axis(keys, order, axis=1)), axis=1) - 1
    out = np.empty_like(keys)
    np.put_along_axis(out, order, ranks, axis=1)
    return out
