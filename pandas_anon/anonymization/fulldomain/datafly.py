"""Datafly (Sweeney 2002): greedy full-domain generalization, one column at a time.

Saroha (2014), "Survey of k-Anonymity", section 3.4, "Sweeney's Algorithm", describes it:
starting from the original table, while k-anonymity is not achieved within the suppression
allowance, count the distinct values of every quasi-identifier and generalize the one with the
most by one level; then suppress the rows left in violating classes. It walks a single path
from the bottom of the lattice upwards, so it evaluates at most ``sum(heights) + 1`` nodes and
is very fast, but the node it stops at is often far more general than necessary (the survey's
"disadvantage": it skips many nodes, and nothing guarantees minimal generalization).

Here the stopping test is the same as every other search's (:class:`Evaluator`): the rows of
the classes that violate the privacy models fit the suppression limit. Distinct values are
counted over the classes of the current node (their codes per column, read from the class
keys; missing values count as a value below the top level, as everywhere in the lattice). Ties go to the
first quasi-identifier in ``qid`` order; columns already at their top level are skipped. When
the path reaches the top and even the top is not feasible, ``best`` is None: for k-anonymity
and distinct l-diversity no node is feasible then (:func:`~pandas_anon.privacy.models.merge_safe`); with the
other models a node off the path may still be. ``notes["path"]``: the nodes visited.
"""

from __future__ import annotations

import numpy as np

from pandas_anon.anonymization.fulldomain.base import Search
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.metrics import Metric
from pandas_anon.progress import Progress


def search(evaluator: Evaluator, metric: Metric, *, progress: bool | None = None) -> Search:
    lattice = evaluator.lattice
    start = evaluator.evaluated
    node = lattice.bottom
    path = [node]
    with Progress(
        "datafly",
        total=sum(lattice.heights) + 1,
        unit="step",
        enabled=progress if lattice.size > 2_000 else False,
    ) as bar:
        while True:
            stats = evaluator(node)
            bar.advance(str(node))
            if stats.feasible:
                return Search(
                    "datafly",
                    stats,
                    metric.value(stats),
                    evaluator.evaluated - start,
                    lattice.size,
                    {"path": path},
                )
            codes = [lattice.codes(stats.classes, j) for j in range(len(node))]
            column = _most_distinct(codes, node, lattice.heights)
            if column is None:  # the top is not feasible: nothing is
                return Search(
                    "datafly",
                    None,
                    np.inf,
                    evaluator.evaluated - start,
                    lattice.size,
                    {"path": path},
                )
            node = node[:column] + (node[column] + 1,) + node[column + 1 :]
            path.append(node)


def distinct_counts(codes: list[np.ndarray]) -> list[int]:
    """Distinct values of each column over a node's classes (one code per class)."""
    return [len(np.unique(column_codes)) for column_codes in codes]


def _most_distinct(
    codes: list[np.ndarray], node: tuple[int, ...], heights: tuple[int, ...]
) -> int | None:
    """The column below its top with the most distinct values (first on ties), or None."""
    best, best_count = None, -1
    for j, count in enumerate(distinct_counts(codes)):
        if node[j] < heights[j] and count > best_count:
            best, best_count = j, count
    return best
