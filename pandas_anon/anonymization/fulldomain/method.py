"""Full-domain generalization as an algorithm: a lattice search, then its node as a
transformation.

Each built-in search (:mod:`~pandas_anon.anonymization.fulldomain.ola`, ``datafly``,
``samarati``, ``incognito``, ``exhaustive``) has the signature ``search(evaluator, metric,
*, progress) -> Search``; :class:`FullDomainSearch` wraps one in the interface every
algorithm shares (:mod:`pandas_anon.anonymization.algorithms`): build the lattice on the
problem's frequency set, search it, and write the chosen node as a per-combination recoding
(every value of a column at the node's level) with the violating classes suppressed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pandas_anon.anonymization.algorithms import Problem
from pandas_anon.anonymization.fulldomain.base import Search
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.anonymization.fulldomain.metrics import Metric, resolve_metric
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.errors import InfeasibleError

Searcher = Callable[..., Search]


@dataclass(frozen=True)
class FullDomainSearch:
    """A full-domain search ``search(evaluator, metric, *, progress)`` as an algorithm."""

    name: str
    search: Searcher
    description: str

    def decide(self, problem: Problem) -> Transformation:
        """The best node the search finds, as a transformation; :class:`InfeasibleError`
        when it finds none."""
        lattice = Lattice(
            problem.tabulation.frequencies,
            problem.qid,
            problem.hierarchies,
            sensitive=problem.sensitive,
        )
        evaluator = Evaluator(lattice, problem.models, problem.max_suppression)
        metric: Metric = resolve_metric(
            problem.metric,
            lattice.heights,
            lattice.n_rows,
            problem.k,
            most_classes=lattice.most_classes() if problem.metric == "dm" else None,
        )
        found = self.search(evaluator, metric, progress=problem.progress)
        if found.best is None:
            raise self._infeasible(problem, lattice, evaluator)
        classes, class_of = lattice.assign(found.best.node)
        stats = evaluator.judge(classes)
        return Transformation(
            method=self.name,
            tabulation=problem.tabulation,
            qid=problem.qid,
            recodings={
                column: ColumnRecoding.at_level(hierarchy, positions, level, of=value_of)
                for column, hierarchy, positions, value_of, level in zip(
                    lattice.qid,
                    lattice.hierarchies,
                    lattice.positions,
                    lattice.value_of,
                    stats.node,
                )
            },
            suppressed=stats.violating[class_of],
            privacy=evaluator.reached(stats),
            search={"lattice_size": found.lattice_size, "evaluated": found.evaluated},
            lattice=found.explored,
        )

    def _infeasible(
        self, problem: Problem, lattice: Lattice, evaluator: Evaluator
    ) -> InfeasibleError:
        qid, models = list(map(str, problem.qid)), ", ".join(map(str, problem.models))
        if evaluator.limit == lattice.n_rows - 1:  # only suppressing every row would do
            return InfeasibleError(
                f"every generalization of {qid} suppresses all {lattice.n_rows:,} rows to "
                f"satisfy {models}, and a release of no row is no result; lower k/l, raise t, "
                f"or choose other columns (qid=, sensitive=)"
            )
        return InfeasibleError(
            f"no generalization of {qid} satisfies {models} with at most "
            f"{problem.max_suppression:.2%} of the {lattice.n_rows:,} rows suppressed (no node "
            f"found by {self.name}); allow more suppression (max_suppression=), lower k/l or "
            f"raise t"
        )
