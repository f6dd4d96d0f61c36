"""``algo="local"``: k-anonymity (with l-diversity and t-closeness when asked) by local
recoding of the classes that break the privacy goal.

Pastore et al. (2020, "Protecting Personal Data in Open Data", section 3.2) generalize the
municipality of the singletons only and leave every other row as it was; this method does
the same for any goal. It works on the frequency set of the quasi-identifier, each
combination of values carrying one level per column (level 0: the value itself):

1. combinations in classes that meet every privacy model are *safe* and never change;
2. while some class breaks a model, each column is tried: one step up its hierarchy for the
   combinations at risk still below its top. The step *rescues* the combinations whose new
   class meets the models (safe combinations written alike joining it). Of the steps that
   rescue rows, the one that costs least per row rescued is applied, to the rescued
   combinations only: with ``metric="precision"`` a step in column c costs 1 / (height of
   c's hierarchy) per row, so the finest hierarchies go first; with ``metric="dm"`` the
   growth of the classes' squared sizes;
3. when no step rescues anything, the combinations at risk all climb one step in the
   cheapest column that leaves every safe class intact, and the search goes on (a step
   costs less than suppressing, which writes ``*`` in every column);
4. combinations at risk at the top of every column form one class (``*`` everywhere); if it
   still breaks a model, it is suppressed when its rows fit ``max_suppression``; otherwise
   other classes are written at the top too
   until it holds: classes of rows already recoded first, then the smallest of the rows
   safe from the start (the report counts those, ``rows_promoted``; a table that does not
   meet the goal as a whole is refused first).

A column is thus written at several levels: the report gives the rows at each level.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pandas_anon.anonymization.algorithms import Problem
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.engine.encoding import factorize
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.hashing import step_groups
from pandas_anon.engine.keys import KeyLayout, run_ids
from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.privacy.groups import GroupJudge


@dataclass(frozen=True)
class LocalRecoding:
    """k-anonymity by local recoding (``kanon(k, algo="local")``): only the rows of classes
    that break the privacy models are generalized, one hierarchy step at a time (see the
    module). ``metric`` ranks the steps: ``"precision"`` or ``"dm"``."""

    name: ClassVar[str] = "local"
    description: ClassVar[str] = (
        "local recoding: only the classes breaking the goal climb their hierarchies"
    )

    def decide(self, problem: Problem) -> Transformation:
        """Recode the combinations at risk of the problem's frequency set (see the module)."""
        if problem.metric not in ("precision", "dm"):
            raise InvalidParameterError(
                f"algo='local' ranks its steps by metric='precision' or metric='dm', got "
                f"{problem.metric!r}"
            )
        frequencies = problem.tabulation.frequencies
        qi, qi_of = frequencies.project(problem.qid)
        judge = GroupJudge(
            frequencies, problem.models, problem.sensitive, qi_of=qi_of, n_qi=len(qi)
        )
        judge.require_feasible()
        space = _LabelSpace(qi, problem.qid, problem.hierarchies)
        budget = math.floor(problem.max_suppression * frequencies.n_rows + 1e-9)
        search = _Search(space, judge, str(problem.metric))
        search.run(budget)
        recodings = {
            c: ColumnRecoding.at_level(
                problem.hierarchies[c],
                space.positions[j][qi_of],
                search.levels[qi_of, j],
                selected=search.levels[qi_of, j] > 0,  # level 0: the value as read
            )
            for j, c in enumerate(problem.qid)
        }
        written = Transformation(
            method=self.name,
            tabulation=problem.tabulation,
            qid=problem.qid,
            recodings=recodings,
            suppressed=search.suppressed[qi_of],
            search={
                "steps": search.steps,
                "rows_at_risk": search.rows_at_risk,
                "rows_promoted": search.promoted,
            },
        )
        return written.judged(judge, qi_of, np.flatnonzero(~search.suppressed))


class _LabelSpace:
    """What each combination is written as at each level, as one integer id per column, so
    that the combinations written alike have equal ids whatever the levels that wrote them
    (a value kept at level 0 and an equal label of a higher level share one).

    At level 0 a value is kept as read; above, it is its hierarchy's label. A missing value
    stays missing below the top (one id of its own) and is written as the top's label at
    the top, as :meth:`ColumnRecoding.at_level` writes it.
    """

    def __init__(
        self, qi: FrequencySet, qid: Sequence[Hashable], hierarchies: Mapping[Hashable, Hierarchy]
    ) -> None:
        #: per column, the hierarchy position of each combination's value (-1: missing)
        self.positions: list[np.ndarray] = []
        #: per column, (levels, distinct values) ids: each value's label at each level
        self.tables: list[np.ndarray] = []
        self.sizes: list[int] = []
        self.heights = np.array([hierarchies[c].height for c in qid], dtype=np.int64)
        #: per column, each combination's value (its code in the frequency set)
        self.slots: list[np.ndarray] = []
        for c in qid:
            hierarchy = hierarchies[c]
            column_codes = qi.codes[:, qi.position(c)]
            values = qi.values[c]
            counts = np.bincount(column_codes, weights=qi.counts, minlength=len(values))
            position = hierarchy.positions(values, column=c, counts=counts)
            present = position >= 0
            written = [np.asarray(values, dtype=object)] + [
                np.asarray(hierarchy.labels(level), dtype=object)
                for level in range(1, hierarchy.n_levels)
            ]
            ids, _ = factorize(np.concatenate(written))  # as written: -0.0 is not 0.0
            missing = int(ids.max(initial=-1)) + 1
            table = np.empty((hierarchy.n_levels, len(values)), dtype=np.int64)
            table[0] = np.where(ids[: len(values)] < 0, missing, ids[: len(values)])
            offset = len(values)
            for level in range(1, hierarchy.n_levels):
                label = ids[offset + hierarchy.codes(level)[np.where(present, position, 0)]]
                top = level == hierarchy.height
                table[level] = np.where(present | top, label, missing)
                offset += len(hierarchy.labels(level))
            self.positions.append(position[column_codes])
            self.tables.append(table)
            self.sizes.append(missing + 1)
            self.slots.append(column_codes)

    def ids(self, levels: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
        """The label ids of the combinations at ``rows`` written at ``levels`` (one row of
        levels per combination of ``rows``), one array per column."""
        return [
            table[levels[:, j], slots[rows]]
            for j, (table, slots) in enumerate(zip(self.tables, self.slots))
        ]


class _Search:
    """The state of the search: each combination's levels and label ids, its key (the ids
    bit-packed, :mod:`pandas_anon.engine.keys`), which are suppressed, and the statistics
    the report gives.

    A step is judged on the classes it touches only: the combinations it moves and the kept
    combinations already written as one of their new keys, grouped together by key in one
    pass of the compiled hash table (:func:`pandas_anon.engine.hashing.group`). A key one
    step up a column holds one of that column's labels above level 0 there, so only the
    kept combinations holding such a label in the column (``high``, kept up to date as
    combinations climb) can share it: those few are grouped with the moved ones, not the
    whole table. What one step up adds to each combination's key is kept per column
    (``up``), so that a trial is a gather and an add.
    """

    def __init__(self, space: _LabelSpace, judge: GroupJudge, metric: str) -> None:
        self.space, self.judge, self.metric = space, judge, metric
        n = judge.n_qi
        self.rows = judge.counts
        self.whole_rows = self.rows.astype(np.int64)  # counts: whole numbers
        # a column's levels and ids side by side in memory: the steps read them by column
        self.levels = np.zeros((n, len(space.heights)), dtype=np.int64, order="F")
        self.ids = np.asfortranarray(np.column_stack(space.ids(self.levels, np.arange(n))))
        self.layout = KeyLayout(space.sizes)
        self.words = np.stack(self.layout.encode(list(self.ids.T)))  # a row per key word
        self.suppressed = np.zeros(n, dtype=bool)
        self.steps = 0
        self.promoted = 0
        self.rows_at_risk = 0
        #: per column, whether each combination is below its top
        self.below = [self.levels[:, column] < h for column, h in enumerate(space.heights)]
        #: per column, what one step up adds to each combination's key word (0 at the top)
        self.up = [
            self._up(column, self.levels[:, column], space.slots[column], self.ids[:, column])
            for column in range(len(space.heights))
        ]
        #: per column, the label ids written above level 0 (a value equal to one included)
        self.high_ids = [
            np.isin(np.arange(size), table[1:]) for size, table in zip(space.sizes, space.tables)
        ]
        #: per column, whether each combination holds such a label there
        self.high = [ids[self.ids[:, column]] for column, ids in enumerate(self.high_ids)]
        #: the trials by column: the coarsening reuses a round's, the next round carries
        #: them over a step (:meth:`_carry_trials`)
        self._trials: dict[int, _Trial] = {}
        self._written_class_rows: np.ndarray | None = None  # :meth:`_class_rows`

    def _up(self, column: int, level: np.ndarray, slots: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """What one step up ``column`` adds to the key word of combinations at ``level``
        there, holding the values ``slots`` written as ``ids`` (0 at the top, where they
        cannot climb)."""
        above = np.minimum(level + 1, self.space.heights[column])
        return (self.space.tables[column][above, slots] - ids) << self.layout.fields[column][1]

    def run(self, budget: int) -> None:
        """Recode until no kept class breaks a model (see the module)."""
        at_risk = self._at_risk()
        self.rows_at_risk = int(self.rows[at_risk].sum())
        #: the rows safe from the start: promoted last, and counted
        self.untouched = ~at_risk
        while at_risk.any():
            safe = ~at_risk & ~self.suppressed  # in classes that hold: never spoiled
            step = self._best_step(at_risk, safe)
            if step is not None:
                column, moved = step
            else:
                coarsened = self._coarsen(at_risk, safe)
                if coarsened is None:  # at the top of every column: one class of '*'
                    self._promote(at_risk, budget)
                    break
                column, moved = coarsened
            self._raise(moved, column)
            self.steps += 1
            was_at_risk = at_risk
            if step is None:  # the combinations at risk climbed: every trial changes
                at_risk = self._at_risk()
                self._trials = {}
            else:
                at_risk = self._rescued(column, moved, was_at_risk)
                self._carry_trials(column, moved, np.flatnonzero(was_at_risk & ~at_risk))

    def _raise(self, moved: np.ndarray, column: int, to: np.ndarray | None = None) -> None:
        """Write the combinations ``moved`` one level higher in ``column`` (or at ``to``)."""
        level = self.levels[moved, column] + 1 if to is None else to
        self.levels[moved, column] = level
        slots = self.space.slots[column][moved]
        new = self.space.tables[column][level, slots]
        word, shift = self.layout.fields[column]
        self.words[word][moved] += (new - self.ids[moved, column]) << shift
        self.ids[moved, column] = new
        self.up[column][moved] = self._up(column, level, slots, new)
        self.below[column][moved] = level < self.space.heights[column]
        self.high[column][moved] = self.high_ids[column][new]
        self._written_class_rows = None

    def _at_risk(self) -> np.ndarray:
        """Per combination, whether it is kept in a class breaking a model."""
        kept = np.flatnonzero(~self.suppressed)
        found = step_groups(
            self.words, kept, len(kept), 0, None, self.whole_rows, self.judge.min_rows
        )
        few = found < 0  # in a class of fewer than k rows
        at_risk = np.zeros(len(self.rows), dtype=bool)
        at_risk[kept[few]] = True
        grouped, groups = kept[~few], found[~few]
        at_risk[grouped] = self.judge(grouped, groups, int(groups.max(initial=-1)) + 1)[groups]
        return at_risk

    def _rescued(self, column: int, moved: np.ndarray, at_risk: np.ndarray) -> np.ndarray:
        """The combinations at risk once ``moved`` climbed ``column`` into the classes its
        trial found holding: where the models read the rows alone, those moved and the
        kept combinations already written as they now are leave, and every other class is
        as it was (a class the moved combinations left held too few rows, and holds fewer);
        otherwise every class judged again (:meth:`_at_risk`)."""
        trial = self._trials.get(column)
        if self.judge.width != 1 or trial is None:
            return self._at_risk()
        joined = np.zeros(len(trial.broken), dtype=bool)
        joined[trial.own[np.searchsorted(trial.movable, moved)]] = True
        at_risk = at_risk.copy()
        at_risk[moved] = False
        at_risk[trial.combinations[joined[trial.groups] & trial.present]] = False
        return at_risk

    def _tried(self, at_risk: np.ndarray, column: int) -> _Trial | None:
        """The trial of one step up ``column`` for the combinations at risk below its top:
        the one kept (carried over the steps since it was made, :meth:`_carry_trials`),
        else a new one (:meth:`_trial`); None when every combination at risk is at the top
        of ``column``."""
        found = self._trials.get(column)
        if found is not None:
            return found
        movable = self._movable(at_risk, column)
        return self._trial(movable, column) if len(movable) else None

    def _trial(self, movable: np.ndarray, column: int) -> _Trial:
        """A new trial of one step up ``column`` for the combinations ``movable``
        (positions): the classes it touches, the combinations they hold (positions), each
        one's class among them, which classes break a model, and each movable combination's
        class (the moved keys the grouping set aside, too few rows in all to hold
        k-anonymity, share one class, broken)."""
        # the kept combinations that may already be written as a moved key, less the moved
        staying = self.high[column] & ~self.suppressed
        staying[movable] = False
        others = np.flatnonzero(staying)
        word = self.layout.fields[column][0]
        entries = np.concatenate([movable, others])
        grouped = step_groups(
            self.words,
            entries,
            len(movable),
            word,
            self.up[column],
            self.whole_rows,
            self.judge.min_rows,
        )
        trial = _Trial(entries, len(movable), grouped, self.whole_rows, self.judge)
        self._trials[column] = trial
        return trial

    def _carry_trials(self, column: int, moved: np.ndarray, settled: np.ndarray) -> None:
        """Carry the trials kept over a step that moved ``moved`` up ``column`` into classes
        that hold, leaving the combinations ``settled`` (positions, ascending) safe: in each
        trial, the settled combinations leave the moved ones (those moved up the trial's own
        column stay in their classes, which they now hold as written) and the classes they
        leave are judged again (:meth:`_Trial.leave`). A trial where a settled combination
        would hold a key as written (a label above level 0 in the column), which a moved key
        may share, is dropped, to be tried again whole. The work is the settled
        combinations' and their classes', not the trials'."""
        moved_now = np.zeros(len(self.rows), dtype=bool)
        moved_now[moved] = True
        for j, trial in list(self._trials.items()):
            at = trial.entries(settled)
            if not len(at):
                continue
            leaving = trial.movable[at]
            stays = moved_now[leaving] if j == column else np.zeros(len(leaving), dtype=bool)
            if (self.high[j][leaving] & ~stays).any():
                del self._trials[j]
                continue
            trial.leave(at, stays)

    def _movable(self, at_risk: np.ndarray, column: int) -> np.ndarray:
        """The combinations at risk below the top of ``column`` (positions)."""
        return np.flatnonzero(at_risk & self.below[column])

    def _best_step(self, at_risk: np.ndarray, safe: np.ndarray) -> tuple[int, np.ndarray] | None:
        """The step (column, combinations it rescues) of least cost per row rescued."""
        best: tuple[float, int, int, _Trial] | None = None
        for column in self._order():
            if (
                best is not None
                and self.metric == "precision"
                and self._level_cost(column) > best[0]
            ):
                break  # a step's precision cost is its column's, increasing in this order
            trial = self._tried(at_risk, column)
            if trial is None or trial.rescued_rows == 0:
                continue
            rows = trial.rescued_rows
            cost = self._cost(column, trial, safe)
            if best is None or (cost, -rows) < (best[0], -best[1]):
                best = (cost, rows, int(column), trial)
        return None if best is None else (best[2], best[3].rescued())

    def _cost(self, column: int, trial: _Trial, safe: np.ndarray) -> float:
        """What a step costs per row it rescues: precision, one level of ``column`` per row;
        DM, the growth of the squared sizes of the classes the rescued rows join (their
        rows counted in their old classes before)."""
        if self.metric == "precision":
            return self._level_cost(column)
        # a movable combination is at risk: the safe ones are among the others
        staying = trial.staying()
        safe_at = staying[safe[trial.combinations[staying]]]
        before = np.bincount(
            trial.groups[safe_at],
            weights=self.rows[trial.combinations[safe_at]],
            minlength=len(trial.broken),
        )
        holding = ~trial.broken
        growth = float((trial.class_rows[holding] ** 2 - before[holding] ** 2).sum())
        rescued = trial.rescued()
        growth -= float((self.rows[rescued] * self._class_rows()[rescued]).sum())
        return growth / trial.rescued_rows

    def _level_cost(self, column: int) -> float:
        """What one level of ``column`` costs a row in precision: 1 / its height."""
        return 1.0 / float(self.space.heights[column])

    def _class_rows(self) -> np.ndarray:
        """Per combination, the rows of its class as written now (0: suppressed), found
        once per state of the search (:meth:`_raise` and suppression forget it)."""
        if self._written_class_rows is None:
            kept = np.flatnonzero(~self.suppressed)
            groups = step_groups(self.words, kept, len(kept), 0, None, self.whole_rows, 1)
            sizes = np.bincount(groups, weights=self.rows[kept])
            self._written_class_rows = np.zeros(len(self.rows))
            self._written_class_rows[kept] = sizes[groups]
        return self._written_class_rows

    def _order(self) -> np.ndarray:
        """The columns, cheapest step first (precision: the tallest hierarchies)."""
        return np.argsort(-self.space.heights, kind="stable")

    def _coarsen(self, at_risk: np.ndarray, safe: np.ndarray) -> tuple[int, np.ndarray] | None:
        """One step up the cheapest column for every combination at risk below its top,
        except those that would join a safe class and break it; None when none can."""
        for column in self._order():
            trial = self._tried(at_risk, column)
            if trial is None:
                continue
            holds_safe = np.zeros(len(trial.broken), dtype=bool)
            holds_safe[trial.groups[safe[trial.combinations] & trial.present]] = True
            movable, own = trial.movable[trial.moving], trial.own[trial.moving]
            moved = movable[~(holds_safe & trial.broken)[own]]
            if len(moved):
                return int(column), moved
        return None

    def _promote(self, at_risk: np.ndarray, budget: int) -> None:
        """No step is left for the combinations at risk (at the top of every column, or
        blocked below it): write them at the top; if the class written ``*`` everywhere
        still breaks a model, suppress it whole when its rows fit the budget (a suppressed
        row reads like that class), else write other classes at the top with it, those with
        the fewest rows safe from the start first, then the smallest, until it holds."""
        tops = np.broadcast_to(self.space.heights, (int(at_risk.sum()), len(self.space.heights)))
        for column in range(len(self.space.heights)):
            self._raise(np.flatnonzero(at_risk), column, to=tops[:, column])
        at_risk = self._at_risk()
        if not at_risk.any():
            return
        starred = self._starred()
        if self.rows[starred | self.suppressed].sum() <= budget:
            self.suppressed |= starred
            self._written_class_rows = None
            return
        kept = np.flatnonzero(~self.suppressed)
        group_of = np.full(len(self.rows), -1, dtype=np.int64)
        group_of[kept] = run_ids(tuple(w[kept] for w in self.words))
        untouched_rows = np.bincount(
            group_of[kept], weights=self.rows[kept] * self.untouched[kept]
        )[np.maximum(group_of, 0)]
        size_of = self._class_rows()
        safe = np.flatnonzero(~at_risk & ~self.suppressed)
        candidates = safe[np.lexsort((size_of[safe], untouched_rows[safe]))]
        while at_risk.any() and len(candidates):
            joining = candidates[group_of[candidates] == group_of[candidates[0]]]
            candidates = candidates[group_of[candidates] != group_of[candidates[0]]]
            for column, height in enumerate(self.space.heights):
                self._raise(joining, column, to=np.full(len(joining), height))
            self.promoted += int(self.rows[joining[self.untouched[joining]]].sum())
            at_risk = self._at_risk()

    def _starred(self) -> np.ndarray:
        """The kept combinations written as the top of every column (``*`` everywhere, a
        value ``*`` kept as read included)."""
        top = self.layout.encode([np.array([table[-1, 0]]) for table in self.space.tables])
        kept = ~self.suppressed
        return kept & np.logical_and.reduce([w == t[0] for w, t in zip(self.words, top)])


class _Trial:
    """One step up a column tried (:meth:`_Search._trial`), carried over the steps that
    follow (:meth:`_Search._carry_trials`).

    ``movable``: the combinations that would move (positions, ascending); ``combinations``:
    the combinations grouped, the movable ones first, with each one's class (``groups``;
    ``own``, the movable ones'); ``broken``: which classes break a model (the last: the
    moved keys the grouping set aside, too few rows in all to hold k-anonymity, and no
    other); ``rescued_rows``: the rows of the movable combinations in classes that hold.

    A combination that settles leaves in place: ``moving`` and ``present`` mark the entries
    still in the trial, and the arrays are compacted once a quarter of the movable ones have
    left, so that a step costs what its settled combinations and their classes hold, not
    what the trial does. Each class's rows (``class_rows``) and the rows of its movable
    combinations (``moving_rows``) are kept up to date as they leave (not the last's).
    """

    def __init__(
        self,
        entries: np.ndarray,
        n_moved: int,
        grouped: np.ndarray,
        rows: np.ndarray,
        judge: GroupJudge,
    ) -> None:
        """The trial of the first ``n_moved`` of ``entries`` (positions) moved and grouped
        with the kept combinations that follow (``grouped``, by
        :func:`~pandas_anon.engine.hashing.step_groups`, which it takes over: -1 for a moved
        key set aside); ``rows``: each combination's rows; ``judge``: the privacy models."""
        # groups are numbered in the order of their first key: the moved keys' come first
        n_groups = int(grouped[:n_moved].max(initial=-1)) + 1
        inside = (grouped >= 0) & (grouped < n_groups)  # in a class a moved key is in
        self.movable, self.combinations = entries[:n_moved], entries
        self.present = inside.copy()  # a kept combination no moved key joins is not
        self.present[:n_moved] = True
        grouped[~inside] = n_groups  # the moved keys set aside share the last class
        self.groups, self.rows, self.judge = grouped, rows, judge
        self.moving = np.ones(n_moved, dtype=bool)
        self.left = 0  # movable entries that left since the last compaction
        # rows counted in the classes judged only (most moved keys are set aside)
        counted = np.flatnonzero(inside)
        weights = rows[entries[counted]]
        moving = int(np.searchsorted(counted, n_moved))
        size = n_groups + 1
        self.class_rows = np.bincount(grouped[counted], weights=weights, minlength=size)
        self.moving_rows = np.bincount(
            grouped[counted[:moving]], weights=weights[:moving], minlength=size
        )
        self.broken = np.ones(size, dtype=bool)
        self.broken[:n_groups] = self._judged(np.arange(n_groups))
        self.rescued_rows = int(self.moving_rows[~self.broken].sum())

    @property
    def own(self) -> np.ndarray:
        """Each movable combination's class."""
        return self.groups[: len(self.movable)]

    def entries(self, positions: np.ndarray) -> np.ndarray:
        """The indices into ``movable`` of the combinations ``positions`` (ascending) still
        moving in this trial."""
        at = np.searchsorted(self.movable, positions)
        inside = at < len(self.movable)
        at, positions = at[inside], positions[inside]
        at = at[self.movable[at] == positions]
        return at[self.moving[at]]

    def staying(self) -> np.ndarray:
        """The entries in the trial that do not move (indices into ``combinations``)."""
        m = len(self.movable)
        return np.concatenate(
            [np.flatnonzero(self.present[:m] & ~self.moving), m + np.flatnonzero(self.present[m:])]
        )

    def rescued(self) -> np.ndarray:
        """The movable combinations whose class holds: the step's rescued (positions)."""
        return self.movable[self.moving & ~self.broken[self.own]]

    def leave(self, at: np.ndarray, stays: np.ndarray) -> None:
        """The movable combinations ``at`` (indices into ``movable``) settled: they no longer
        move; those where ``stays`` is false leave their classes too, which are judged
        again."""
        self.moving[at] = False
        classes, rows = self.groups[at], self.rows[self.movable[at]]
        self.rescued_rows -= int(rows[~self.broken[classes]].sum())
        np.subtract.at(self.moving_rows, classes, rows)
        out = at[~stays]
        self.present[out] = False
        np.subtract.at(self.class_rows, self.groups[out], rows[~stays])
        touched = np.unique(self.groups[out])
        touched = touched[touched < len(self.broken) - 1]  # the last: too few rows
        again = self._judged(touched)
        changed = again != self.broken[touched]
        gained = self.moving_rows[touched[changed]]
        self.rescued_rows += int(gained[~again[changed]].sum() - gained[again[changed]].sum())
        self.broken[touched] = again
        self.left += len(at)
        if 4 * self.left > len(self.movable):
            self._compact()

    def _judged(self, classes: np.ndarray) -> np.ndarray:
        """Whether each of ``classes`` (ascending) breaks a model: from its rows where the
        models read the rows alone, else from the combinations it holds."""
        if self.judge.width == 1:
            return self.judge.broken_histograms(self.class_rows[classes, None])
        inside = np.zeros(len(self.broken), dtype=bool)
        inside[classes] = True
        judged = inside[self.groups] & self.present
        numbered = np.cumsum(inside) - 1  # each class's place among ``classes``
        return self.judge(self.combinations[judged], numbered[self.groups[judged]], len(classes))

    def _compact(self) -> None:
        """Drop the entries that left, the movable ones still first."""
        keep = np.concatenate([np.flatnonzero(self.moving), self.staying()])
        self.movable = self.movable[self.moving]
        self.combinations, self.groups = self.combinations[keep], self.groups[keep]
        self.moving = np.ones(len(self.movable), dtype=bool)
        self.present = np.ones(len(self.combinations), dtype=bool)
        self.left = 0
