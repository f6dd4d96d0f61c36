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
  combinations, ordered by value, are cut where the rows reach half. A combination of values
  (the frequency set's unit) is never divided.

How it runs: the recursion is breadth-first, every open partition cut in the same round. The
combinations are kept sorted once per dimension (``order[j]``: by rank in dimension j), every
partition a contiguous segment of each order; a cut splits each of its segments in two
without sorting again (a stable partition by side, from running sums), so a round costs a
few passes per dimension over the combinations of the partitions still open, whatever their
number: a partition that found no allowable cut is final, and later rounds copy out only the
open partitions' segments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pandas_anon.anonymization.mondrian.dimensions import Dimension
from pandas_anon.progress import Progress

#: ``violating(combinations, groups, n_groups)``: which groups of combinations break a model.
Judge = Callable[[np.ndarray, np.ndarray, int], np.ndarray]


@dataclass(frozen=True)
class Boxes:
    """The final partitions: ``order[j]`` lists the combinations sorted by partition then
    by rank in dimension j; partition p holds positions ``start[p]:end[p]`` of every order."""

    order: np.ndarray  # (dimensions, combinations)
    start: np.ndarray
    end: np.ndarray
    rounds: int

    @property
    def n_parts(self) -> int:
        return len(self.start)

    def segment_of_position(self) -> np.ndarray:
        """The partition of each position of the orders."""
        by_position = np.argsort(self.start, kind="stable")
        return np.repeat(by_position, (self.end - self.start)[by_position])

    def part(self) -> np.ndarray:
        """The partition of each combination."""
        found = np.empty(self.order.shape[1], dtype=np.int64)
        found[self.order[0]] = self.segment_of_position()
        return found


def partition(
    dimensions: Sequence[Dimension],
    counts: np.ndarray,
    violating: Judge,
    *,
    relaxed: bool = False,
    rule: str = "width",
    progress: bool | None = None,
) -> Boxes:
    """Cut the combinations (weights ``counts``) until no partition has an allowable cut;
    ``rule``: which allowable cut a partition takes (see :func:`_choose_cuts`). The final
    partitions are numbered in the order of their positions (``start`` increasing)."""
    ranks = np.stack([d.rank for d in dimensions])
    order = np.stack([np.argsort(d.rank, kind="stable") for d in dimensions])
    start = np.zeros(1, dtype=np.int64)
    end = np.full(1, len(counts), dtype=np.int64)
    open_ids = np.zeros(1, dtype=np.int64)
    rounds = 0
    estimate = max(int(np.log2(max(int(counts.sum()), 2))), 1)
    with Progress("mondrian", total=estimate, unit="round", enabled=progress) as bar:
        while len(open_ids):
            rounds += 1
            # the round reads the open partitions only, copied out side by side
            opened = _Runs.of(Boxes(order, start, end, rounds), open_ids)
            sub_order = np.take(order, opened.positions, axis=1)  # C order: rows contiguous
            boxes = Boxes(sub_order, opened.firsts, opened.firsts + opened.lengths, rounds)
            segment = np.repeat(np.arange(len(open_ids)), opened.lengths)
            low, high, distinct = extents(
                dimensions, ranks, boxes.order, segment, boxes.start, boxes.end
            )
            state = _Round(
                dimensions, ranks, counts, boxes, segment, low, high, distinct, violating, relaxed
            )
            split_at, cut_dimension = _choose_cuts(state, rule)
            cut = split_at >= 0
            if not cut.any():
                break
            _split(boxes.order, boxes, split_at, cut_dimension, len(counts))
            order[:, opened.positions] = boxes.order
            cut_ids = open_ids[cut]
            new_start = start[cut_ids] + split_at[cut] - boxes.start[cut]
            new_ids = np.arange(len(start), len(start) + len(cut_ids))
            start = np.concatenate([start, new_start])
            end = np.concatenate([end, end[cut_ids]])
            end[cut_ids] = new_start
            open_ids = np.concatenate([cut_ids, new_ids])
            bar.advance(f"{len(start):,} partitions")
    by_start = np.argsort(start, kind="stable")  # partitions numbered in position order
    return Boxes(order, start[by_start], end[by_start], rounds)


def extents(
    dimensions: Sequence[Dimension],
    ranks: np.ndarray,
    order: np.ndarray,
    segment: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per dimension and partition: the lowest and highest rank, and how many distinct ranks
    (the orders keep each partition sorted by rank)."""
    q, n = len(dimensions), len(start)
    low = np.zeros((q, n), dtype=np.int64)
    high = np.zeros((q, n), dtype=np.int64)
    distinct = np.ones((q, n), dtype=np.int64)
    same_segment = segment[1:] == segment[:-1]
    for j in range(q):
        rank = ranks[j][order[j]]  # a row, then its items: faster than ranks[j, ...]
        low[j], high[j] = rank[start], rank[end - 1]
        changes = np.flatnonzero((rank[1:] != rank[:-1]) & same_segment) + 1
        distinct[j] += np.bincount(segment[changes], minlength=n)
    return low, high, distinct


@dataclass(frozen=True)
class _Round:
    """What one round of cuts reads: the partitions (``boxes``, each position's
    ``segment``), their extents per dimension, and how cuts are judged."""

    dimensions: Sequence[Dimension]
    ranks: np.ndarray
    counts: np.ndarray
    boxes: Boxes
    segment: np.ndarray
    low: np.ndarray
    high: np.ndarray
    distinct: np.ndarray
    violating: Judge
    relaxed: bool

    def widths(self) -> np.ndarray:
        """Per dimension and partition: the normalized width."""
        return np.stack(
            [
                d.width(self.low[j], self.high[j], self.distinct[j])
                for j, d in enumerate(self.dimensions)
            ]
        )

    def cut(self, trying: np.ndarray, chosen: np.ndarray) -> _Cuts:
        """The median cut of each ``trying`` partition in its ``chosen`` dimension."""
        n, boxes = self.boxes.n_parts, self.boxes
        runs = _Runs.of(boxes, np.flatnonzero(trying))
        positions, owner = runs.positions, runs.owner
        dimension_of = chosen[owner]
        width = boxes.order.shape[1]
        combinations = boxes.order.ravel()[dimension_of * width + positions]
        key = self.ranks.ravel()[dimension_of * self.ranks.shape[1] + combinations]
        for j, dimension in enumerate(self.dimensions):
            if type(dimension).cut_key is Dimension.cut_key:
                continue  # the rank itself
            along = dimension_of == j
            if along.any():
                key[along] = dimension.cut_key(
                    key[along], self.low[j, owner[along]], self.high[j, owner[along]]
                )
        rows = self.counts[combinations]
        left_size = np.zeros(n, dtype=np.int64)
        left_size[runs.parts] = _median_cut(key, rows, runs, self.relaxed)
        side = (runs.offsets() >= left_size[owner]).astype(np.int64)
        groups = 2 * owner + side
        halves = np.bincount(groups, weights=rows, minlength=2 * n)
        broken = self.violating(combinations, groups, 2 * n)
        allowable = trying & (halves[0::2] > 0) & (halves[1::2] > 0) & ~broken[0::2] & ~broken[1::2]
        return _Cuts(allowable, left_size, positions, owner, combinations, side, halves)

    def loss_after(self, cuts: _Cuts) -> np.ndarray:
        """Per partition, the sum over dimensions of width x rows of its two halves."""
        n = self.boxes.n_parts
        side_of = np.zeros(self.ranks.shape[1], dtype=np.int64)
        side_of[cuts.combinations] = cuts.side
        group = 2 * cuts.owner
        loss = np.zeros(n)
        for d, dimension in enumerate(self.dimensions):
            combinations = self.boxes.order[d, cuts.positions]
            halves = group + side_of[combinations]
            rank = self.ranks[d, combinations]
            by_half = np.argsort(halves, kind="stable")  # each half keeps its rank order
            halves, rank = halves[by_half], rank[by_half]
            starts = np.flatnonzero(np.r_[True, halves[1:] != halves[:-1]])
            ends = np.r_[starts[1:] - 1, len(halves) - 1]
            low = np.zeros(2 * n, dtype=np.int64)
            high = np.zeros(2 * n, dtype=np.int64)
            low[halves[starts]], high[halves[ends]] = rank[starts], rank[ends]
            changes = np.flatnonzero((rank[1:] != rank[:-1]) & (halves[1:] == halves[:-1])) + 1
            distinct = 1 + np.bincount(halves[changes], minlength=2 * n)
            width = dimension.width(low, high, distinct) * cuts.halves
            loss += width[0::2] + width[1::2]
        return loss


@dataclass(frozen=True)
class _Cuts:
    """Median cuts of some partitions: which are allowable, how many combinations go left,
    and, per position tried, its partition, combination and side (1: right)."""

    allowable: np.ndarray
    left_size: np.ndarray
    positions: np.ndarray
    owner: np.ndarray
    combinations: np.ndarray
    side: np.ndarray
    halves: np.ndarray  # rows of each half, 2 per partition


def _choose_cuts(state: _Round, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """For each partition, where its allowable cut falls (a position of the chosen
    dimension's order; -1: none) and in which dimension: the widest dimension whose cut is
    allowable (``rule="width"``), or the allowable cut that lowers the loss most
    (``"gain"``: the sum over dimensions of normalized width x rows, Xu et al.'s NCP)."""
    n = state.boxes.n_parts
    widths = state.widths()
    split_at = np.full(n, -1, dtype=np.int64)
    cut_dimension = np.full(n, -1, dtype=np.int64)
    if rule == "gain":
        rows = np.bincount(state.segment, weights=state.counts[state.boxes.order[0]], minlength=n)
        before = (widths * rows).sum(axis=0)
        best = np.full(n, -np.inf)
        for j in range(len(state.dimensions)):
            trying = widths[j] > 0
            if not trying.any():
                continue
            cuts = state.cut(trying, np.full(n, j, dtype=np.int64))
            gain = np.where(cuts.allowable, before - state.loss_after(cuts), -np.inf)
            better = cuts.allowable & (gain > best)
            best[better] = gain[better]
            split_at[better] = state.boxes.start[better] + cuts.left_size[better]
            cut_dimension[better] = j
        return split_at, cut_dimension
    preference = np.argsort(-widths, axis=0, kind="stable")  # per partition, widest first
    undecided = np.ones(n, dtype=bool)
    every = np.arange(n)
    for attempt in range(len(state.dimensions)):
        chosen = preference[attempt]
        trying = undecided & (widths[chosen, every] > 0)
        if not trying.any():
            break
        cuts = state.cut(trying, chosen)
        split_at[cuts.allowable] = (
            state.boxes.start[cuts.allowable] + cuts.left_size[cuts.allowable]
        )
        cut_dimension[cuts.allowable] = chosen[cuts.allowable]
        undecided &= ~cuts.allowable
    return split_at, cut_dimension


@dataclass(frozen=True)
class _Runs:
    """The positions of some partitions (``parts``), one partition after the other: run i
    holds ``lengths[i]`` positions from index ``firsts[i]`` of ``positions``."""

    parts: np.ndarray
    lengths: np.ndarray
    firsts: np.ndarray
    positions: np.ndarray
    owner: np.ndarray  # the partition of each position

    @classmethod
    def of(cls, boxes: Boxes, parts: np.ndarray) -> _Runs:
        lengths = boxes.end[parts] - boxes.start[parts]
        firsts = np.cumsum(lengths) - lengths
        positions = np.repeat(boxes.start[parts] - firsts, lengths) + np.arange(int(lengths.sum()))
        return cls(parts, lengths, firsts, positions, np.repeat(parts, lengths))

    @property
    def lasts(self) -> np.ndarray:
        return self.firsts + self.lengths - 1

    def offsets(self) -> np.ndarray:
        """Each position's place in its run."""
        return np.arange(len(self.positions)) - np.repeat(self.firsts, self.lengths)

    def counted(self, flags: np.ndarray) -> np.ndarray:
        """Per run, how many of its items ``flags`` marks."""
        running = np.cumsum(flags)
        return running[self.lasts] - running[self.firsts] + flags[self.firsts]


def _median_cut(key: np.ndarray, rows: np.ndarray, runs: _Runs, relaxed: bool) -> np.ndarray:
    """How many combinations of each run go left (its cut keys are sorted along the run;
    see the module for the strict and relaxed rules)."""
    running = np.cumsum(rows)
    base = running[runs.firsts] - rows[runs.firsts]
    total = running[runs.lasts] - base
    within = running - np.repeat(base, runs.lengths)
    # the running rows grow along a run: the median is the first item reaching half
    short = 2 * within < np.repeat(total, runs.lengths)
    median_index = runs.firsts + runs.counted(short)
    if relaxed:
        return median_index - runs.firsts + 1
    median = key[median_index]
    at_top = key[runs.lasts] == median  # nothing above the median: cut below it
    reach = np.repeat(median, runs.lengths)
    left = np.where(np.repeat(at_top, runs.lengths), key < reach, key <= reach)
    return runs.counted(left)


def _split(
    order: np.ndarray,
    boxes: Boxes,
    split_at: np.ndarray,
    cut_dimension: np.ndarray,
    n_combinations: int,
) -> None:
    """Split the cut partitions' segments of every order in place: the left half's
    combinations first, each half keeping its rank order (a stable partition)."""
    runs = _Runs.of(boxes, np.flatnonzero(split_at >= 0))
    positions, owner = runs.positions, runs.owner
    goes_left = np.zeros(n_combinations, dtype=bool)
    chosen = order.ravel()[cut_dimension[owner] * order.shape[1] + positions]
    goes_left[chosen] = positions < split_at[owner]
    # A running count of lefts along a row, less the lefts of the partitions before (the
    # same in every row: split_at - start per partition), is each item's place in its half.
    lefts = split_at[runs.parts] - boxes.start[runs.parts]
    earlier = np.repeat(np.cumsum(lefts) - lefts, runs.lengths)
    left_base = boxes.start[owner] - earlier - 1  # the first left: running count 1
    right_base = split_at[owner] + positions - boxes.start[owner] + earlier
    for j in range(order.shape[0]):
        row = order[j]
        moving = row[positions]
        left = goes_left[moving]
        running = np.cumsum(left)
        row[np.where(left, left_base + running, right_base - running)] = moving
