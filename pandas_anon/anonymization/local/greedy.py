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
        self.levels = np.zeros((n, len(space.heights)), dtype=np.int64)
        self.ids = np.column_stack(space.ids(self.levels, np.arange(n)))
        self.layout = KeyLayout(space.sizes)
        self.words = np.stack(self.layout.encode(list(self.ids.T)))  # a row per key word
        self.suppressed = np.zeros(n, dtype=bool)
        self.steps = 0
        self.promoted = 0
        self.rows_at_risk = 0
        everything = np.arange(n)
        #: per column, whether each combination is below its top
        self.below = [self.levels[:, column] < h for column, h in enumerate(space.heights)]
        #: per column, what one step up adds to each combination's key word (0 at the top)
        self.up = [self._up(column, everything) for column in range(len(space.heights))]
        #: per column, the label ids written above level 0 (a value equal to one included)
        self.high_ids = [
            np.isin(np.arange(size), table[1:]) for size, table in zip(space.sizes, space.tables)
        ]
        #: per column, whether each combination holds such a label there
        self.high = [ids[self.ids[:, column]] for column, ids in enumerate(self.high_ids)]
        #: the trials by column: the coarsening reuses a round's, the next round carries
        #: them over a step (:meth:`_carry_trials`)
        self._trials: dict[int, _Trial] = {}

    def _up(self, column: int, at: np.ndarray) -> np.ndarray:
        """What one step up ``column`` adds to the key word of the combinations ``at``
        (0 at the top, where they cannot climb)."""
        level = np.minimum(self.levels[at, column] + 1, self.space.heights[column])
        new = self.space.tables[column][level, self.space.slots[column][at]]
        return (new - self.ids[at, column]) << self.layout.fields[column][1]

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
                self._carry_trials(column, moved, was_at_risk & ~at_risk)

    def _raise(self, moved: np.ndarray, column: int, to: np.ndarray | None = None) -> None:
        """Write the combinations ``moved`` one level higher in ``column`` (or at ``to``)."""
        self.levels[moved, column] = self.levels[moved, column] + 1 if to is None else to
        new = self.space.tables[column][self.levels[moved, column], self.space.slots[column][moved]]
        word, shift = self.layout.fields[column]
        self.words[word][moved] += (new - self.ids[moved, column]) << shift
        self.ids[moved, column] = new
        self.up[column][moved] = self._up(column, moved)
        self.below[column][moved] = self.levels[moved, column] < self.space.heights[column]
        self.high[column][moved] = self.high_ids[column][new]

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
        at_risk[trial.combinations[joined[trial.groups]]] = False
        return at_risk

    def _trial(
        self, movable: np.ndarray, column: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The classes one step up ``column`` for the combinations ``movable`` (positions)
        touches: the combinations they hold (positions), each one's class among them, which
        classes break a model, and each movable combination's class (the moved keys the
        grouping set aside, too few rows in all to hold k-anonymity, share one class, broken)."""
        found = self._trials.get(column)
        if found is not None and np.array_equal(found.movable, movable):
            return found.combinations, found.groups, found.broken, found.own
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
        own, others_group = grouped[: len(movable)], grouped[len(movable) :]
        # groups are numbered in the order of their first key: the moved keys' come first
        n_groups = int(own.max(initial=-1)) + 1
        joining = others_group < n_groups  # the kept combinations a moved key joins
        few = own < 0
        judged = np.concatenate([movable[~few], others[joining]])
        judged_groups = np.concatenate([own[~few], others_group[joining]])
        broken = np.append(self.judge(judged, judged_groups, n_groups), True)
        own = np.where(few, n_groups, own)
        combinations = np.concatenate([judged, movable[few]])
        groups = np.concatenate([judged_groups, np.full(int(few.sum()), n_groups)])
        self._trials[column] = _Trial(movable, combinations, groups, broken, own)
        return combinations, groups, broken, own

    def _carry_trials(self, column: int, moved: np.ndarray, settled: np.ndarray) -> None:
        """Carry the trials kept over a step that moved ``moved`` up ``column`` into classes
        that hold, leaving the combinations ``settled`` (a mask) safe: in each trial, the
        settled combinations leave the moved ones (those moved up the trial's own column
        stay in their classes, which they now hold as written) and the classes they leave
        are judged again. A trial where a settled combination would hold a key as written
        (a label above level 0 in the column), which a moved key may share, is dropped, to
        be tried again whole."""
        moved_now = np.zeros(len(settled), dtype=bool)
        moved_now[moved] = True
        for j, trial in list(self._trials.items()):
            gone = settled[trial.movable]
            if not gone.any():
                continue
            leaving = trial.movable[gone]
            stays = moved_now[leaving] if j == column else np.zeros(len(leaving), dtype=bool)
            if (self.high[j][leaving] & ~stays).any():
                del self._trials[j]
                continue
            removed = np.zeros(len(settled), dtype=bool)
            removed[leaving[~stays]] = True
            out = removed[trial.combinations]
            touched = np.unique(trial.groups[out])
            touched = touched[touched < len(trial.broken) - 1]  # the last: too few rows
            combinations, groups = trial.combinations[~out], trial.groups[~out]
            judged = np.isin(groups, touched)
            again = self.judge(
                combinations[judged], np.searchsorted(touched, groups[judged]), len(touched)
            )
            broken = trial.broken.copy()
            broken[touched] = again
            self._trials[j] = _Trial(
                trial.movable[~gone], combinations, groups, broken, trial.own[~gone]
            )

    def _movable(self, at_risk: np.ndarray, column: int) -> np.ndarray:
        """The combinations at risk below the top of ``column`` (positions)."""
        return np.flatnonzero(at_risk & self.below[column])

    def _best_step(self, at_risk: np.ndarray, safe: np.ndarray) -> tuple[int, np.ndarray] | None:
        """The step (column, combinations it rescues) of least cost per row rescued."""
        best: tuple[float, int, int, np.ndarray] | None = None
        for column in self._order():
            movable = self._movable(at_risk, column)
            if not len(movable):
                continue
            if (
                best is not None
                and self.metric == "precision"
                and self._level_cost(column) > best[0]
            ):
                break  # a step's precision cost is its column's, increasing in this order
            movable = self._movable(at_risk, column)
            if not len(movable):
                continue
            combinations, groups, broken, own = self._trial(movable, column)
            rescued = movable[~broken[own]]
            rows = int(self.rows[rescued].sum())
            if rows == 0:
                continue
            cost = self._cost(column, rescued, rows, combinations, groups, broken, safe)
            if best is None or (cost, -rows) < (best[0], -best[1]):
                best = (cost, rows, int(column), rescued)
        return None if best is None else (best[2], best[3])

    def _cost(
        self,
        column: int,
        rescued: np.ndarray,
        rows: int,
        combinations: np.ndarray,
        groups: np.ndarray,
        broken: np.ndarray,
        safe: np.ndarray,
    ) -> float:
        """What a step costs per row it rescues: precision, one level of ``column`` per row;
        DM, the growth of the squared sizes of the classes the rescued rows join (their
        rows counted in their old classes before)."""
        if self.metric == "precision":
            return self._level_cost(column)
        weights = self.rows[combinations]
        n_groups = len(broken)
        sizes = np.bincount(groups, weights=weights, minlength=n_groups)
        before = np.bincount(groups, weights=weights * safe[combinations], minlength=n_groups)
        growth = float((sizes[~broken] ** 2 - before[~broken] ** 2).sum())
        growth -= float((self.rows[rescued] * self._class_rows()[rescued]).sum())
        return growth / rows

    def _level_cost(self, column: int) -> float:
        """What one level of ``column`` costs a row in precision: 1 / its height."""
        return 1.0 / float(self.space.heights[column])

    def _class_rows(self) -> np.ndarray:
        """Per combination, the rows of its class as written now (0: suppressed)."""
        kept = np.flatnonzero(~self.suppressed)
        groups = run_ids(tuple(w[kept] for w in self.words))
        sizes = np.bincount(groups, weights=self.rows[kept])
        found = np.zeros(len(self.rows))
        found[kept] = sizes[groups]
        return found

    def _order(self) -> np.ndarray:
        """The columns, cheapest step first (precision: the tallest hierarchies)."""
        return np.argsort(-self.space.heights, kind="stable")

    def _coarsen(self, at_risk: np.ndarray, safe: np.ndarray) -> tuple[int, np.ndarray] | None:
        """One step up the cheapest column for every combination at risk below its top,
        except those that would join a safe class and break it; None when none can."""
        for column in self._order():
            movable = self._movable(at_risk, column)
            if not len(movable):
                continue
            combinations, groups, broken, own = self._trial(movable, column)
            holds_safe = np.zeros(len(broken), dtype=bool)
            holds_safe[groups[safe[combinations]]] = True
            moved = movable[~(holds_safe & broken)[own]]
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


@dataclass(frozen=True)
class _Trial:
    """One step up a column tried (:meth:`_Search._trial`): the combinations that would
    move (``movable``), the combinations the classes touched hold with each one's class
    (``combinations``, ``groups``), which classes break a model (``broken``; the last: the
    moved keys of too few rows set aside) and each movable combination's class (``own``)."""

    movable: np.ndarray
    combinations: np.ndarray
    groups: np.ndarray
    broken: np.ndarray
    own: np.ndarray
