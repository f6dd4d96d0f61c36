"""Mondrian's recursive median cuts, run on every open partition at once.

LeFevre, DeWitt and Ramakrishnan (2006), "Mondrian Multidimensional k-Anonymity", section 4,
Figure 4: a partition with no *allowable* cut becomes a class; otherwise it is cut in the
dimension of widest normalized range at the median of that dimension, and both halves are
anonymized in turn. A cut is allowable when both halves satisfy every privacy model (at least
k rows, and l-diversity or t-closeness of a sensitive column when asked). Here the widest
dimension whose median cut is allowable is taken (trying the dimensions in decreasing width),
which is the paper's rule, since a partition with no allowable cut in any dimension is a leaf.

- **strict** partitioning (section 4.1): the median is the weighted median of the values
  (the smallest value at or past half of the rows); the left half holds the values at or
  below it, the right half those above. When the median is the partition's largest value
  (more than half of its rows share that value, as "Male" in a column of sexes), that rule
  leaves the right half empty; the cut then falls just below the median instead (the median
  value alone on the right), still keeping equal values together.
- **relaxed** partitioning: values equal to the median may go either way; the partition's
  combinations, ordered by value (and, among equal values, by their place in the frequency
  set), are cut where the rows reach half. A combination of values (the frequency set's
  unit) is never divided.

How it runs: the recursion is breadth-first, every open partition cut in the same round.
The combinations of the open partitions are kept side by side, partition by partition (each
in frequency-set order), with their ranks in every dimension. A round reads each partition's
extent in every dimension from segment reductions (lowest and highest rank; the distinct
ranks, where the width counts them, from a bit mask of the ranks held), then tries cuts: a
partition's weighted median in the dimension tried comes from the distinct (partition, rank)
pairs with their rows (:class:`Pairs`, a histogram), and a cut is a rank threshold. The split
moves each cut partition's left half before its right half (a stable partition, one pass).
A partition that found no allowable cut is final: later rounds do not read its combinations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pandas_anon.anonymization.mondrian.dimensions import Dimension
from pandas_anon.engine.grouping import weighted_keys
from pandas_anon.privacy.groups import GroupJudge
from pandas_anon.progress import Progress


@dataclass(frozen=True)
class Boxes:
    """The final partitions: ``part`` gives each combination's partition (numbered from 0
    to ``n_parts - 1``), found in ``rounds`` rounds."""

    part: np.ndarray
    n_parts: int
    rounds: int


@dataclass(frozen=True)
class Pairs:
    """The distinct (group, rank) pairs of one dimension over some combinations, sorted by
    group then rank, with their rows; group g's pairs are ``first[g]..last[g]`` (none when
    ``first[g] > last[g]``)."""

    group: np.ndarray
    rank: np.ndarray
    rows: np.ndarray  # float64: sums of counts
    first: np.ndarray
    last: np.ndarray

    @classmethod
    def of(
        cls, group: np.ndarray, rank: np.ndarray, rows: np.ndarray, n_groups: int, n_ranks: int
    ) -> Pairs:
        """The pairs of combinations in ``group`` (ids below ``n_groups``) with ``rank``
        (below ``n_ranks``) and ``rows`` (positive)."""
        held, summed = weighted_keys(group * n_ranks + rank, rows, n_groups * n_ranks)
        group_of, rank_of = np.divmod(held, n_ranks)
        sizes = np.bincount(group_of, minlength=n_groups)
        last = np.cumsum(sizes) - 1
        return cls(group_of, rank_of, summed, last - sizes + 1, last)

    def extents(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per group: the lowest and highest rank and how many distinct ranks it holds (0,
        0 and 0 for a group holding none)."""
        distinct = self.last - self.first + 1
        if not len(self.rank):
            return np.zeros_like(distinct), np.zeros_like(distinct), distinct
        held = distinct > 0
        low = np.where(held, self.rank[np.minimum(self.first, len(self.rank) - 1)], 0)
        high = np.where(held, self.rank[np.maximum(self.last, 0)], 0)
        return low, high, distinct

    def held(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs as :data:`~pandas_anon.anonymization.mondrian.dimensions.Held`."""
        return self.group, self.rank, np.rint(self.rows).astype(np.int64)


def partition(
    dimensions: list[Dimension],
    counts: np.ndarray,
    judge: GroupJudge,
    *,
    relaxed: bool = False,
    rule: str = "width",
    progress: bool | None = None,
) -> Boxes:
    """Cut the combinations (weights ``counts``) until no partition has an allowable cut
    (``judge`` says which halves break a privacy model); ``rule``: which allowable cut a
    partition takes (see :func:`_choose_cuts`)."""
    part = np.zeros(len(counts), dtype=np.int64)
    state = _Round(
        dimensions,
        np.stack([d.rank for d in dimensions]),  # (dimensions, combinations), C order
        counts.astype(np.float64),
        np.arange(len(counts)),
        np.zeros(1, dtype=np.int64),
        np.full(1, len(counts), dtype=np.int64),
        judge,
        relaxed,
    )
    open_ids = np.zeros(1, dtype=np.int64)  # the open partitions' numbers in ``part``
    n_parts = 1
    estimate = max(int(np.log2(max(int(counts.sum()), 2))), 1)
    with Progress("mondrian", total=estimate, unit="round", enabled=progress) as bar:
        while True:
            cuts = _choose_cuts(state, rule)
            if not cuts.allowable.any():
                break
            cut_ids = open_ids[cuts.allowable]
            new_ids = np.arange(n_parts, n_parts + len(cut_ids))
            n_parts += len(cut_ids)
            state = state.split(cuts)
            part[state.active[state.right]] = np.repeat(new_ids, state.lengths[1::2])
            open_ids = np.column_stack([cut_ids, new_ids]).ravel()
            bar.advance(f"{n_parts:,} partitions")
    return Boxes(part, n_parts, state.round)


@dataclass
class _Round:
    """The open partitions of one round, side by side: partition p holds positions
    ``starts[p]`` to ``starts[p] + lengths[p] - 1``; each position is a combination
    (``active``, in frequency-set order within a partition) with its ``ranks`` (one row per
    dimension) and ``counts``. Per dimension and partition: the lowest and highest rank, and
    the distinct ranks held (exact where the dimension's width reads it; elsewhere 1, or 2
    when the lowest and highest differ)."""

    dimensions: list[Dimension]
    ranks: np.ndarray
    counts: np.ndarray
    active: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    judge: GroupJudge
    relaxed: bool
    round: int = 1
    right: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    n: int = field(init=False)
    local: np.ndarray = field(init=False)  # each position's partition
    total: np.ndarray = field(init=False)  # each partition's rows
    low: np.ndarray = field(init=False)
    high: np.ndarray = field(init=False)
    distinct: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.n = len(self.starts)
        self.local = np.repeat(np.arange(self.n), self.lengths)
        self.total = np.add.reduceat(self.counts, self.starts)
        self.low = np.minimum.reduceat(self.ranks, self.starts, axis=1)
        self.high = np.maximum.reduceat(self.ranks, self.starts, axis=1)
        self.distinct = 1 + (self.high > self.low)
        for j, dimension in enumerate(self.dimensions):
            if dimension.reads_distinct:
                self.distinct[j] = self._distinct(j, dimension.n_ranks)

    def _distinct(self, j: int, n_ranks: int) -> np.ndarray:
        """Per partition, the distinct ranks of dimension ``j`` it holds."""
        if n_ranks <= 64:
            bits = np.left_shift(np.uint64(1), self.ranks[j].astype(np.uint64))
            return _ones(np.bitwise_or.reduceat(bits, self.starts))
        pairs = Pairs.of(self.local, self.ranks[j], self.counts, self.n, n_ranks)
        return pairs.last - pairs.first + 1

    def widths(self) -> np.ndarray:
        """Per dimension and partition: the normalized width."""
        return np.stack(
            [
                d.width(self.low[j], self.high[j], self.distinct[j])
                for j, d in enumerate(self.dimensions)
            ]
        )

    def rank_along(self, positions: np.ndarray, dimension: np.ndarray) -> np.ndarray:
        """The rank in ``dimension`` (one per item) of the combinations at ``positions``."""
        return self.ranks.ravel()[dimension * self.ranks.shape[1] + positions]

    def positions(self, parts: np.ndarray) -> _Runs:
        """The positions of partitions ``parts`` (increasing), one after the other."""
        return _Runs(parts, self.starts[parts], self.lengths[parts])

    def cut(self, trying: np.ndarray, chosen: np.ndarray) -> _Cuts:
        """The median cut of each ``trying`` partition in its ``chosen`` dimension (one
        entry per partition)."""
        parts = np.flatnonzero(trying)
        cuts = _Cuts.none(self.n)
        cuts.take(np.arange(len(parts)), self.cut_entries(parts, chosen[parts]))
        return cuts

    def cut_entries(self, parts: np.ndarray, dims: np.ndarray) -> _Cuts:
        """The median cut of partition ``parts[i]`` in dimension ``dims[i]``, per entry i (a
        partition may have several entries when the models read the rows alone)."""
        cuts = _Cuts.entries(parts, dims)
        if not len(parts):
            return cuts
        self._median_cuts(cuts)
        halves = np.column_stack([cuts.left_rows, self.total[parts] - cuts.left_rows])
        if self.judge.width == 1:  # the models read the rows alone
            broken = self.judge.broken_histograms(halves.reshape(-1, 1))
        else:  # one entry per partition: each combination in one group
            runs = self.positions(parts)
            inside = runs.indices()
            entry = np.repeat(np.arange(len(parts)), runs.lengths)
            groups = 2 * entry + cuts.sides(self, inside, entry)
            broken = self.judge(self.active[inside], groups, 2 * len(parts))
        cuts.allowable = np.asarray((halves > 0).all(axis=1) & ~broken.reshape(-1, 2).any(axis=1))
        cuts.halves = halves.ravel()
        return cuts

    def _median_cuts(self, cuts: _Cuts) -> None:
        """Fill in each entry's threshold and rows going left."""
        parts, dims = cuts.part, cuts.dimension
        inside = self.positions(parts)
        at = inside.indices()
        n_ranks = max(self.dimensions[j].n_ranks for j in np.unique(dims))
        owner = np.repeat(np.arange(len(parts)), inside.lengths)
        pairs = Pairs.of(
            owner, self.rank_along(at, np.repeat(dims, inside.lengths)), self.counts[at],
            len(parts), n_ranks,
        )  # fmt: skip
        runs = _Runs(parts, pairs.first, pairs.last - pairs.first + 1)
        rank, rows = pairs.rank, pairs.rows
        firsts, lasts = pairs.first, pairs.last
        running = np.cumsum(rows)
        before = running[firsts] - rows[firsts]
        total = running[lasts] - before
        within = running - np.repeat(before, runs.lengths)
        # the running rows grow along a run: the median is the first pair reaching half
        median = firsts + runs.counted(2 * within < np.repeat(total, runs.lengths))
        if self.relaxed:
            cuts.threshold = rank[median]
            self._relaxed_ties(cuts, within[median] - rows[median], total)
            return
        key = rank.copy()
        along = np.repeat(dims, runs.lengths)
        for j, dimension in enumerate(self.dimensions):
            if type(dimension).cut_key is not Dimension.cut_key and (dims == j).any():
                mine = along == j
                of = np.repeat(parts, runs.lengths)[mine]
                key[mine] = dimension.cut_key(rank[mine], self.low[j, of], self.high[j, of])
        reach = key[median]
        at_top = key[lasts] == reach  # nothing above the median: cut below it
        left = np.where(
            np.repeat(at_top, runs.lengths),
            key < np.repeat(reach, runs.lengths),
            key <= np.repeat(reach, runs.lengths),
        )
        n_left = runs.counted(left)  # keys grow along a run: the left pairs come first
        last_left = np.maximum(firsts + n_left - 1, 0)
        cuts.threshold = np.where(n_left > 0, rank[last_left], -1)
        cuts.left_rows = np.where(n_left > 0, within[last_left], 0)

    def _relaxed_ties(self, cuts: _Cuts, before: np.ndarray, total: np.ndarray) -> None:
        """Relaxed cuts: of the combinations at the median rank (in frequency-set order),
        the left half takes those up to the first whose running rows reach half, with
        ``before`` rows of lower ranks in each entry's partition (of ``total`` rows)."""
        runs = self.positions(cuts.part)
        inside = runs.indices()
        entry = np.repeat(np.arange(len(cuts.part)), runs.lengths)
        tie = self.rank_along(inside, cuts.dimension[entry]) == cuts.threshold[entry]
        at, entry = inside[tie], entry[tie]  # each entry's ties, in order
        firsts = np.flatnonzero(np.r_[True, entry[1:] != entry[:-1]])
        ties = _Runs(cuts.part, firsts, np.diff(np.r_[firsts, len(at)]))  # every entry has ties
        rows = self.counts[at]
        running = np.cumsum(rows)
        within = running - np.repeat(running[firsts] - rows[firsts], ties.lengths)
        reach = np.repeat(total - 2 * before, ties.lengths)  # 2 x within must reach it
        median = firsts + ties.counted(2 * within < reach)  # goes left, with the ties before
        cuts.tie_last = self.active[at[median]]
        cuts.left_rows = before + within[median]

    def loss_after(self, cuts: _Cuts) -> np.ndarray:
        """Per partition, the sum over dimensions of width x rows of its two halves."""
        inside = self.positions(np.flatnonzero(cuts.allowable)).indices()
        groups = 2 * self.local[inside] + cuts.sides(self, inside)
        loss = np.zeros(self.n)
        for j, dimension in enumerate(self.dimensions):
            pairs = Pairs.of(
                groups, self.ranks[j, inside], self.counts[inside], 2 * self.n, dimension.n_ranks
            )
            width = dimension.width(*pairs.extents()) * cuts.halves
            loss += width[0::2] + width[1::2]
        return loss

    def split(self, cuts: _Cuts) -> _Round:
        """The next round: each allowable cut's partition as two, its left half first."""
        cut = self.positions(np.flatnonzero(cuts.allowable))
        inside = cut.indices()
        right = cuts.sides(self, inside).astype(bool)
        # each position's place in its half: a running count of its side along the
        # partition; the right half starts after the left one
        n_right = cut.counted(right)
        lengths = np.column_stack([cut.lengths - n_right, n_right]).ravel()
        starts = np.cumsum(lengths) - lengths
        running_right = np.cumsum(right) - np.repeat(
            np.cumsum(n_right) - n_right, cut.lengths
        )  # fmt: skip
        offset = np.arange(len(inside)) - np.repeat(cut.starts(), cut.lengths)
        half = 2 * np.repeat(np.arange(len(cut.parts)), cut.lengths) + right
        place = starts[half] + np.where(right, running_right - 1, offset - running_right)
        order = np.empty(len(inside), dtype=np.int64)
        order[place] = inside
        return _Round(
            self.dimensions,
            np.take(self.ranks, order, axis=1),
            self.counts[order],
            self.active[order],
            starts,
            lengths,
            self.judge,
            self.relaxed,
            self.round + 1,
            np.repeat(np.arange(len(lengths)) % 2 == 1, lengths),
        )


@dataclass
class _Cuts:
    """Median cuts, one per entry: entry i cuts partition ``part[i]`` in ``dimension[i]``
    (-1: none tried) at the ``threshold`` rank (combinations at or below it go left; -1:
    none do), with relaxed partitioning up to the combination ``tie_last`` at the threshold
    rank (-1: all of them); ``left_rows`` go left; whether the cut is ``allowable``, and the
    rows of each half (two per entry)."""

    part: np.ndarray
    dimension: np.ndarray
    threshold: np.ndarray
    tie_last: np.ndarray
    left_rows: np.ndarray
    allowable: np.ndarray
    halves: np.ndarray

    @classmethod
    def entries(cls, parts: np.ndarray, dims: np.ndarray) -> _Cuts:
        """Cuts of ``parts`` in ``dims``, not yet measured."""
        m = len(parts)
        return cls(
            parts,
            dims,
            np.full(m, -1, dtype=np.int64),
            np.full(m, -1, dtype=np.int64),
            np.zeros(m),
            np.zeros(m, dtype=bool),
            np.zeros(2 * m),
        )

    @classmethod
    def none(cls, n: int) -> _Cuts:
        """One entry per partition of ``n``, none tried."""
        return cls.entries(np.arange(n), np.full(n, -1, dtype=np.int64))

    def take(self, entries: np.ndarray, other: _Cuts) -> None:
        """Keep ``other``'s ``entries`` as the cuts of their partitions (this holds one entry
        per partition)."""
        parts = other.part[entries]
        for name in ("dimension", "threshold", "tie_last", "left_rows", "allowable"):
            getattr(self, name)[parts] = getattr(other, name)[entries]
        self.halves.reshape(-1, 2)[parts] = other.halves.reshape(-1, 2)[entries]

    def sides(
        self, state: _Round, inside: np.ndarray, entry: np.ndarray | None = None
    ) -> np.ndarray:
        """The side (1: right) of the combinations at positions ``inside``, each cut by its
        ``entry`` (default: its partition's, when this holds one entry per partition)."""
        entry = state.local[inside] if entry is None else entry
        rank = state.rank_along(inside, self.dimension[entry])
        threshold = self.threshold[entry]
        right = rank > threshold
        if state.relaxed:
            tie_last = self.tie_last[entry]
            right |= (rank == threshold) & (state.active[inside] > tie_last) & (tie_last >= 0)
        return right.astype(np.int64)


def _choose_cuts(state: _Round, rule: str) -> _Cuts:
    """For each open partition, its cut: the widest dimension whose cut is allowable
    (``rule="width"``), or the allowable cut that lowers the loss most (``"gain"``: the sum
    over dimensions of normalized width x rows, Xu et al.'s NCP)."""
    n = state.n
    widths = state.widths()
    chosen = _Cuts.none(n)
    # a partition of fewer than twice the rows a class needs has no allowable cut
    cuttable = state.total >= 2 * state.judge.min_rows
    if rule == "gain":
        before = (widths * state.total).sum(axis=0)
        best = np.full(n, -np.inf)
        for j in range(len(state.dimensions)):
            trying = cuttable & (widths[j] > 0)
            if not trying.any():
                continue
            cuts = state.cut(trying, np.full(n, j, dtype=np.int64))
            gain = np.where(cuts.allowable, before - state.loss_after(cuts), -np.inf)
            better = cuts.allowable & (gain > best)
            best[better] = gain[better]
            chosen.take(better, cuts)
        return chosen
    preference = np.argsort(-widths, axis=0, kind="stable")  # per partition, widest first
    every = np.arange(n)
    for attempt in range(len(state.dimensions)):
        trying = cuttable & ~chosen.allowable & (widths[preference[attempt], every] > 0)
        if not trying.any():
            break
        chosen.take(np.arange(trying.sum()), state.cut_entries(
            np.flatnonzero(trying), preference[attempt, trying]))  # fmt: skip
        if attempt == 0 and state.judge.width == 1:
            _every_other_dimension(state, widths, preference, trying & ~chosen.allowable, chosen)
            break
    return chosen


def _every_other_dimension(
    state: _Round, widths: np.ndarray, preference: np.ndarray, left: np.ndarray, chosen: _Cuts
) -> None:
    """For the partitions ``left`` without an allowable cut in their widest dimension, the
    next widest dimension with an allowable cut, all tried in one pass (a partition may be
    cut several ways at once when the models read the rows alone)."""
    parts = np.flatnonzero(left)
    if not len(parts):
        return
    dims = preference[1:, parts].T.ravel()  # partition by partition, widest first
    parts = np.repeat(parts, len(state.dimensions) - 1)
    tried = widths[dims, parts] > 0
    entries = state.cut_entries(parts[tried], dims[tried])
    allowable = np.flatnonzero(entries.allowable)
    _, first = np.unique(entries.part[allowable], return_index=True)  # the widest of each
    chosen.take(allowable[first], entries)


def _ones(words: np.ndarray) -> np.ndarray:
    """The bits set in each uint64 word (``np.bitwise_count`` from NumPy 2.0 on)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).astype(np.int64)
    return np.unpackbits(words.view(np.uint8)).reshape(len(words), 64).sum(axis=1)


@dataclass(frozen=True)
class _Runs:
    """Runs of consecutive items: partition ``parts[i]``'s run starts at item ``firsts[i]``
    and holds ``lengths[i]`` items."""

    parts: np.ndarray
    firsts: np.ndarray
    lengths: np.ndarray

    def starts(self) -> np.ndarray:
        """Where each run starts once the runs are taken out side by side."""
        return np.cumsum(self.lengths) - self.lengths

    def indices(self) -> np.ndarray:
        """The items of the runs, one run after the other."""
        return np.repeat(self.firsts - self.starts(), self.lengths) + np.arange(
            int(self.lengths.sum())
        )

    def counted(self, flags: np.ndarray) -> np.ndarray:
        """Per run (taken out side by side), how many of its items ``flags`` marks."""
        running = np.cumsum(flags)
        starts = self.starts()
        lasts = starts + self.lengths - 1
        return running[lasts] - running[starts] + flags[starts]
