"""``algo="tree"``: Lan et al.'s decision-tree privacy reinforcement.

Lan, Huang, Chen, Chung, Grandison and Tseng, "A Privacy Reinforcement Approach against
De-identified Dataset" (IBM, section III), refine a dataset D towards a privacy goal P with a
utility function U:

1. construct a decision tree with D as training set, the quasi-identifiers as classifying
   attributes and the sensitive attribute as class label
   (:mod:`~pandas_anon.anonymization.reinforcement.forest`);
2. mate the *singular paths* (whose records' classes break P) by U
   (:mod:`~pandas_anon.anonymization.reinforcement.mates`);
3. in each mate, mask the classifying attribute that differentiates its paths and gains most
   utility, on the mate's records only
   (:mod:`~pandas_anon.anonymization.reinforcement.masks`), giving a sub-dataset D_m;
4. if D_m meets P it is done, else go to 1 with D_m.

Here D is the frequency set (a record is a combination of values with its rows) and the
recursion runs breadth-first: a *round* grows one tree per sub-dataset still breaking P, all
in one pass, and mates and masks in each. A sub-dataset's masked columns are alike on all its
records, so each round masks one more column of each mate and at most one round per
quasi-identifier is needed. Records in classes that meet the goal from the start are never
masked; the one exception is a table whose singular records cannot meet the goal together
even all masked (a lone record with no other at risk): its leftover joins the classes around
it (``search["rows_safe_joined"]``), or is suppressed when ``max_suppression`` allows.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from pandas_anon.anonymization.algorithms import Problem
from pandas_anon.anonymization.mondrian.dimensions import HierarchyDimension, dimension
from pandas_anon.anonymization.recoding import KEEP
from pandas_anon.anonymization.reinforcement.forest import Forest, grow
from pandas_anon.anonymization.reinforcement.masks import ColumnMask
from pandas_anon.anonymization.reinforcement.mates import (
    Group,
    Histograms,
    Mating,
    Units,
    Utility,
    scored,
)
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.errors import InvalidParameterError
from pandas_anon.privacy.groups import GroupJudge
from pandas_anon.privacy.models import merge_safe
from pandas_anon.progress import Progress


@dataclass(frozen=True, kw_only=True)
class TreeReinforcement:
    """Lan et al.'s privacy reinforcement (``kanon(k, algo="tree", sensitive=...)``, or
    ``algo=TreeReinforcement(utility=..., max_depth=...)``; see the module).

    Parameters
    ----------
    utility
        The utility of a mate (a callable on a :class:`~pandas_anon.anonymization.reinforcement.mates.Mate`
        returning a real number, higher is better; NaN or anything but a number raises
        :class:`~pandas_anon.errors.InvalidParameterError`); default: the paper's, 1 /
        (records x distance sum of the singular paths)
        (:func:`~pandas_anon.anonymization.reinforcement.mates.paper_utility`).
    max_depth
        The deepest the decision trees grow (default: until every leaf is one class).

    The tree is grown with the sensitive column as its label: ``sensitive=`` is required,
    whatever the goal. Columns given a hierarchy are masked along it; numbers and dates
    without one by threshold ranges, other columns by ``*``.
    """

    utility: Utility | None = None
    max_depth: int | None = None

    name: ClassVar[str] = "tree"
    description: ClassVar[str] = (
        "decision-tree privacy reinforcement (Lan et al.): masks only the classes at risk"
    )
    #: hierarchies only for the columns that have one: numbers are masked by thresholds
    default_hierarchies: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if self.utility is not None and not callable(self.utility):
            raise InvalidParameterError(
                f"utility must be a function of a Mate (higher is better), got "
                f"{type(self.utility).__name__}"
            )
        depth = self.max_depth
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1
        ):
            raise InvalidParameterError(
                f"max_depth must be a positive whole number or None, got {depth!r}"
            )

    def decide(self, problem: Problem) -> Transformation:
        """Reinforce the problem's frequency set (see the module)."""
        if problem.sensitive is None:
            raise InvalidParameterError(
                "algo='tree' grows its decision tree with the sensitive column as the label "
                "(Lan et al.): pass sensitive=<column> (--sensitive on the command line)"
            )
        frequencies = problem.tabulation.frequencies
        qi, qi_of = frequencies.project(problem.qid)
        judge = GroupJudge(
            frequencies, problem.models, problem.sensitive, qi_of=qi_of, n_qi=len(qi)
        )
        judge.require_feasible()
        dimensions = [dimension(qi, c, problem.hierarchies.get(c)) for c in problem.qid]
        budget = math.floor(problem.max_suppression * frequencies.n_rows + 1e-9)
        run = _Run(frequencies, qi_of, problem, judge, [ColumnMask(d) for d in dimensions], self)
        run.reinforce(budget)
        written = Transformation(
            method=self.name,
            tabulation=problem.tabulation,
            qid=problem.qid,
            recodings=run.recodings(qi, qi_of),
            suppressed=run.suppressed[qi_of],
            search=run.statistics(),
        )
        return written.judged(judge, qi_of, np.flatnonzero(~run.suppressed))


class _Run:
    """The state of one reinforcement: per combination of the quasi-identifier, each
    column's written value as an id (its rank, or a mask's id above every rank), whether it
    is masked and at which hierarchy level, and the sub-dataset it is in (-1: settled)."""

    def __init__(
        self,
        frequencies: FrequencySet,
        qi_of: np.ndarray,
        problem: Problem,
        judge: GroupJudge,
        masks: list[ColumnMask],
        method: TreeReinforcement,
    ) -> None:
        self.judge, self.masks, self.method = judge, masks, method
        self.qid: tuple[Hashable, ...] = problem.qid
        self.models_merge_safe = merge_safe(problem.models)
        self.progress = problem.progress
        n = judge.n_qi
        self.ranks = np.column_stack([m.dimension.rank for m in masks]).astype(np.int64)
        self.written = self.ranks.copy()
        self.masked = np.zeros_like(self.ranks, dtype=bool)
        self.level = np.zeros_like(self.ranks)
        self.suppressed = np.zeros(n, dtype=bool)
        self.labels: list[dict[str, int]] = [{} for _ in masks]
        self.sample_combination = qi_of
        self.sample_label = frequencies.codes[:, frequencies.position(problem.sensitive)]
        self.sample_rows = frequencies.counts.astype(float)
        self.sensitive_code = judge.sensitive_codes()  # each sample's column of a histogram
        self.rounds = self.trees = self.mates = 0
        self.rows_at_risk = self.rows_safe_joined = 0

    # the rounds ------------------------------------------------------------------------------

    def reinforce(self, budget: int) -> None:
        """Grow, mate and mask round after round until every sub-dataset meets the goal."""
        n, d = self.ranks.shape
        scope = np.zeros(n, dtype=np.int64)  # the sub-dataset of each combination
        usable = np.ones((1, d), dtype=bool)  # per sub-dataset, the columns not masked
        with Progress("tree", total=d, unit="round", enabled=self.progress) as bar:
            while (scope >= 0).any():
                failing = self._failing(scope)
                if self.rounds == 0:
                    self.rows_at_risk = int(self.judge.counts[failing].sum())
                at_risk = np.zeros(len(usable), dtype=bool)
                at_risk[scope[failing]] = True
                scope[(scope >= 0) & ~at_risk[np.maximum(scope, 0)]] = -1  # meets the goal
                if not at_risk.any():
                    break
                if self.rounds == d:  # each round masks a column left in every mate
                    raise AssertionError("a sub-dataset breaks the goal with every column masked")
                trees = np.flatnonzero(at_risk)
                tree_of_scope = np.full(len(usable), -1, dtype=np.int64)
                tree_of_scope[trees] = np.arange(len(trees))
                tree = np.where(scope >= 0, tree_of_scope[np.maximum(scope, 0)], -1)
                scope, usable = self._round(
                    tree, failing, usable[trees], budget if self.rounds == 0 else 0
                )
                scope[self.suppressed] = -1
                self.rounds += 1
                bar.advance(f"{len(trees):,} trees")

    def _failing(self, scope: np.ndarray) -> np.ndarray:
        """The combinations in classes breaking the goal within their sub-dataset."""
        active = np.flatnonzero(scope >= 0)
        keys = np.column_stack([scope[active], self.written[active]])
        _, classes = np.unique(keys, axis=0, return_inverse=True)
        classes = classes.reshape(-1)
        broken = self.judge(active, classes, int(classes.max(initial=-1)) + 1)
        found = np.zeros(len(scope), dtype=bool)
        found[active] = broken[classes]
        return found

    def _round(
        self, tree: np.ndarray, failing: np.ndarray, usable: np.ndarray, budget: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Grow the trees of the sub-datasets at risk, mate their singular paths and mask
        one column in each mate: each combination's mate (-1: none) and each mate's
        columns left."""
        samples = np.flatnonzero(tree[self.sample_combination] >= 0)
        combination = self.sample_combination[samples]
        forest = grow(
            self.ranks[combination],
            self.sample_label[samples],
            self.sample_rows[samples],
            tree[combination],
            usable,
            max_depth=self.method.max_depth,
        )
        self.trees += len(usable)
        self._remember_cuts(forest)
        leaf_of = np.full(len(tree), -1, dtype=np.int64)
        leaf_of[combination] = forest.leaf
        units, members = self._units(leaf_of, failing, samples)
        mating = Mating(
            forest,
            units,
            self.judge.broken_histograms,
            merge_safe=self.models_merge_safe,
            usable=usable,
            columns=self.qid,
            utility=self.method.utility,
            budget=budget,
        )
        groups = [g for g in mating.run() if g.units]
        if self.rounds == 0:
            self.rows_safe_joined = mating.joined_rows
            for unit in mating.suppressed:
                self.suppressed[members[unit]] = True
        elif mating.suppressed:  # a sub-dataset meets the goal as a whole: never happens
            raise AssertionError("a sub-dataset's paths were suppressed")
        self.mates += len(groups)
        mate = np.full(len(tree), -1, dtype=np.int64)
        for at, group in enumerate(groups):
            for unit in group.units:
                mate[members[unit]] = at
        allowed = usable[forest.tree[[g.node for g in groups]]] if groups else usable[:0]
        columns = self._columns(mating, groups, mate, allowed, forest)
        self._mask(mate, columns)
        allowed[np.arange(len(groups)), columns] = False
        return mate, allowed

    def _remember_cuts(self, forest: Forest) -> None:
        split = forest.column >= 0
        for j, mask in enumerate(self.masks):
            if mask.ranged:
                mask.add_cuts(np.unique(forest.threshold[split & (forest.column == j)]))

    def _units(
        self, leaf_of: np.ndarray, failing: np.ndarray, samples: np.ndarray
    ) -> tuple[Units, list[np.ndarray]]:
        """A leaf's singular records (a singular path) and its other records: units, and
        the combinations of each."""
        combinations = np.flatnonzero(leaf_of >= 0)
        key = leaf_of[combinations] * 2 + failing[combinations]
        order = np.argsort(key, kind="stable")
        combinations, key = combinations[order], key[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        members = np.split(combinations, starts[1:])
        written = self.written[combinations]
        low = np.minimum.reduceat(written, starts, axis=0)
        high = np.maximum.reduceat(written, starts, axis=0)
        unit_ids = np.arange(len(starts))[:, None]
        signature = np.where(low == high, low, -1 - unit_ids)
        rows = np.add.reduceat(self.judge.counts[combinations], starts).astype(np.int64)
        unit_of = np.full(len(leaf_of), -1, dtype=np.int64)
        unit_of[combinations] = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(key)]))
        histograms = Histograms(
            unit_of[self.sample_combination[samples]],
            self.sensitive_code[samples],
            self.sample_rows[samples],
            (len(starts), self.judge.width),
        )
        leaf = key[starts] // 2
        singular = (key[starts] % 2).astype(bool)
        return Units(signature, rows, leaf, singular, histograms), members

    def _columns(
        self,
        mating: Mating,
        groups: list[Group],
        mate: np.ndarray,
        allowed: np.ndarray,
        forest: Forest,
    ) -> np.ndarray:
        """The column to mask in each mate (see
        :mod:`~pandas_anon.anonymization.reinforcement.mates`): of the columns in which its
        records differ, the one whose masking leaves the most utility; on ties the column
        its node splits on, then the one holding the most distinct values, then the first."""
        n = len(groups)
        if not n:
            return np.zeros(0, dtype=np.int64)
        held = np.flatnonzero(mate >= 0)
        order = held[np.argsort(mate[held], kind="stable")]
        owner = mate[order]
        distinct = np.zeros((n, len(self.qid)), dtype=np.int64)
        for j in range(len(self.qid)):
            value = self.written[order, j]
            by = np.lexsort((value, owner))
            new = np.r_[True, (owner[by][1:] != owner[by][:-1]) | (value[by][1:] != value[by][:-1])]
            distinct[:, j] = np.bincount(owner[by][new], minlength=n)
        candidate = allowed & (distinct > 1)
        # chosen among the candidates (else among the columns still allowed): a column
        # outside them changes nothing, and the rounds would not end
        pool = np.where(candidate.any(axis=1, keepdims=True), candidate, allowed)
        if self.method.utility is None:  # the paper's: the column most pairs differ in
            score = np.stack([g.differing for g in groups]).astype(float)
        else:
            score = np.zeros(candidate.shape)
            for at, group in enumerate(groups):
                view = mating.view(group)
                for j in np.flatnonzero(candidate[at]).tolist():
                    score[at, j] = scored(self.method.utility, view.masking(self.qid[j]))
        score = np.where(pool, score, -np.inf)
        best = pool & (score == score.max(axis=1, keepdims=True))
        split = forest.column[[g.node for g in groups]]
        at_split = best[np.arange(n), np.maximum(split, 0)] & (split >= 0)
        most = np.argmax(np.where(best, distinct, -1), axis=1)
        return np.where(at_split, split, most)

    # writing ---------------------------------------------------------------------------------

    def _mask(self, mate: np.ndarray, columns: np.ndarray) -> None:
        """Mask column ``columns[m]`` on the combinations of each mate ``m``."""
        held = np.flatnonzero(mate >= 0)
        for j, mask in enumerate(self.masks):
            chosen = held[columns[mate[held]] == j]
            if not len(chosen):
                continue
            owner = mate[chosen]
            ranks = self.ranks[chosen, j]
            n = int(owner.max()) + 1
            low = np.full(n, np.iinfo(np.int64).max)
            high = np.full(n, -1)
            np.minimum.at(low, owner, ranks)
            np.maximum.at(high, owner, ranks)
            labels, levels = mask.mask(low[owner], high[owner])
            ids = self.labels[j]
            for label in dict.fromkeys(labels):  # Python's equality: whole texts
                ids.setdefault(label, len(ids))
            self.written[chosen, j] = mask.dimension.n_ranks + np.array([ids[x] for x in labels])
            self.masked[chosen, j] = True
            self.level[chosen, j] = levels

    def recodings(self, qi: FrequencySet, qi_of: np.ndarray) -> dict[Hashable, ColumnRecoding]:
        """How each column is written, per combination of the frequency set."""
        found = {}
        for j, (column, mask) in enumerate(zip(self.qid, self.masks)):
            masked = self.masked[:, j]
            if isinstance(mask.dimension, HierarchyDimension):
                hierarchy = mask.dimension.hierarchy
                values = qi.values[column]
                codes = qi.codes[:, qi.position(column)]
                counts = np.bincount(codes, weights=qi.counts, minlength=len(values))
                position = hierarchy.positions(values, column=column, counts=counts)[codes]
                found[column] = ColumnRecoding.at_level(
                    hierarchy,
                    position[qi_of],
                    self.level[qi_of, j],
                    selected=masked[qi_of],
                )
                continue
            texts = list(self.labels[j])  # in id order: ids were handed out in turn
            label_of = self.written[:, j] - mask.dimension.n_ranks
            codes = np.where(masked, label_of, KEEP)
            found[column] = ColumnRecoding(codes[qi_of], pd.Index(texts, dtype=object))
        return found

    def statistics(self) -> dict[str, float]:
        """What the report's ``search`` says of the reinforcement."""
        cells = (self.masked & ~self.suppressed[:, None]).sum(axis=1)
        return {
            "rounds": self.rounds,
            "trees": self.trees,
            "mates": self.mates,
            "rows_at_risk": self.rows_at_risk,
            "rows_masked": int(self.judge.counts[(cells > 0) & ~self.suppressed].sum()),
            "cells_masked": int((cells * self.judge.counts).sum()),
            "rows_safe_joined": self.rows_safe_joined,
        }
