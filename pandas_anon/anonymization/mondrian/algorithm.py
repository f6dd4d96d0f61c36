"""``algo="mondrian"``: multidimensional k-anonymity on the frequency set.

LeFevre, DeWitt and Ramakrishnan (2006), "Mondrian Multidimensional k-Anonymity" (ICDE):
the space of quasi-identifier values is cut recursively at medians
(:mod:`~pandas_anon.anonymization.mondrian.partition`) and each final partition (a box) is
written on its own (:mod:`~pandas_anon.anonymization.mondrian.dimensions`): a range, a set,
a hierarchy's ancestor, or a summary value. Unlike full-domain generalization, a rare value
does not drag its whole column up a hierarchy, and nothing is suppressed.

The partitioning reads the frequency set: its unit is a combination of quasi-identifier
values with its count, so the cost grows with the distinct combinations, not the rows.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pandas_anon.anonymization.algorithms import Problem
from pandas_anon.anonymization.mondrian.dimensions import (
    REPRESENTATIONS,
    Dimension,
    HierarchyDimension,
    NumberDimension,
    check_representation,
    dimension,
)
from pandas_anon.anonymization.mondrian.partition import Boxes, Pairs, partition
from pandas_anon.anonymization.recoding import KEEP
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.errors import InvalidParameterError
from pandas_anon.params import flag, one_of
from pandas_anon.privacy.groups import GroupJudge


@dataclass(frozen=True, kw_only=True)
class Mondrian:
    """Mondrian multidimensional k-anonymity (``kanon(k, algo="mondrian")``, or
    ``algo=Mondrian(relaxed=True, represent={"age": "mean"})`` to choose its options).

    Parameters
    ----------
    relaxed
        Values equal to the median may go to either half (relaxed partitioning), which
        gives classes closer to k rows; strict partitioning (the default) keeps equal values
        together.
    choose
        Which dimension a partition is cut in: ``"width"`` (the default, the paper's rule:
        the widest normalized range whose median cut is allowable) or ``"gain"`` (the
        allowable median cut that lowers the information loss most, the sum over columns of
        normalized width x rows; slower: every dimension is tried on every partition).
    represent
        How a numeric column's classes are written: ``"range"`` (``[30-39]``, the default),
        or a summary value for analysts who need numbers: ``"mean"``, ``"median"`` or
        ``"midrange"``. One choice for every numeric column, or a mapping from column to
        choice (the others: ranges). A summary is written on every row of the class, those
        missing the value included.

    Columns given a hierarchy (``hierarchies=``, or a registered one that claims the column)
    are cut along it; other columns are cut by value (numbers and dates), by category order
    (ordered categoricals), or by splitting their set of values (everything else).
    """

    relaxed: bool = False
    choose: str = "width"
    represent: str | Mapping[Hashable, str] = "range"

    name: ClassVar[str] = "mondrian"
    description: ClassVar[str] = (
        "multidimensional partitioning at medians (LeFevre et al. 2006): no suppression"
    )
    #: hierarchies only for the columns that have one (no ``auto`` intervals): the other
    #: columns are cut by their values
    default_hierarchies: ClassVar[bool] = False

    def __post_init__(self) -> None:
        flag(self.relaxed, "relaxed")
        one_of(self.choose, "choose", ("width", "gain"))
        chosen = [self.represent] if isinstance(self.represent, str) else None
        if chosen is None:
            if not isinstance(self.represent, Mapping):
                raise InvalidParameterError(
                    f"represent must be one of {', '.join(map(repr, REPRESENTATIONS))} or a "
                    f"mapping from columns to them, got {self.represent!r}"
                )
            chosen = list(self.represent.values())
        for found in chosen:
            one_of(found, "represent", REPRESENTATIONS)

    def decide(self, problem: Problem) -> Transformation:
        """Partition the problem's frequency set and write each partition's box."""
        frequencies = problem.tabulation.frequencies
        qi, qi_of = frequencies.project(problem.qid)
        dimensions = [dimension(qi, c, problem.hierarchies.get(c)) for c in problem.qid]
        represent = self._representations(problem.qid, dimensions)
        judge = GroupJudge(
            frequencies, problem.models, problem.sensitive, qi_of=qi_of, n_qi=len(qi)
        )
        judge.require_feasible()
        boxes = partition(
            dimensions,
            qi.counts,
            judge,
            relaxed=self.relaxed,
            rule=self.choose,
            progress=problem.progress,
        )
        recodings = self._write(dimensions, boxes, qi.counts, qi_of, represent)
        ranges = {c: "range" for c, found in represent.items() if found != "range"}
        written = Transformation(
            method=self.name,
            tabulation=problem.tabulation,
            qid=problem.qid,
            recodings=recodings,
            suppressed=np.zeros(len(frequencies), dtype=bool),
            search={"partitions": boxes.n_parts, "rounds": boxes.rounds},
            described=self._write(dimensions, boxes, qi.counts, qi_of, ranges) if ranges else {},
        )
        return written.judged(judge, qi_of)

    def _representations(
        self, qid: tuple[Hashable, ...], dimensions: list[Dimension]
    ) -> dict[Hashable, str]:
        """Each column's representation, checked."""
        if isinstance(self.represent, str):
            chosen = {
                c: (self.represent if isinstance(d, NumberDimension) and not d.dates else "range")
                for c, d in zip(qid, dimensions)
            }
        else:
            chosen = {c: self.represent.get(c, "range") for c in qid}
        for column, found in zip(qid, dimensions):
            check_representation(column, found, chosen[column])
        return chosen

    def _write(
        self,
        dimensions: list[Dimension],
        boxes: Boxes,
        counts: np.ndarray,
        qi_of: np.ndarray,
        represent: Mapping[Hashable, str],
    ) -> dict[Hashable, ColumnRecoding]:
        """Each column's label for each combination of the frequency set, for the columns
        ``represent`` names (written as it says)."""
        recodings = {}
        for found in dimensions:
            if found.column not in represent:
                continue
            pairs = Pairs.of(boxes.part, found.rank, counts, boxes.n_parts, found.n_ranks)
            low, high, distinct = pairs.extents()
            codes, labels = found.labels(low, high, distinct, pairs.held(), represent[found.column])
            levels = None
            hierarchy = None
            if isinstance(found, HierarchyDimension):
                hierarchy = found.hierarchy
                levels = np.where(codes == KEEP, 0, found.levels(low, high))[boxes.part][qi_of]
            recodings[found.column] = ColumnRecoding(
                codes[boxes.part][qi_of], labels, hierarchy, levels
            )
        return recodings
