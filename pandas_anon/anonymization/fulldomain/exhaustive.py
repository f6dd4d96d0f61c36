"""Exhaustive full-domain search: every node of the lattice evaluated, the best kept.

The reference every other search is measured against (the optimal search must return the
same node, the heuristics a node no better): it prunes nothing, so its answer depends only on
the evaluator and the metric's tie-break (:func:`~pandas_anon.anonymization.fulldomain.base.tie_key`).
Its cost is the lattice's size; ``algo="exhaustive"`` refuses lattices above
:data:`MAX_NODES`.
"""

from __future__ import annotations

import numpy as np

from pandas_anon.anonymization.fulldomain.base import Search, require_size, tie_key
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.metrics import Metric
from pandas_anon.progress import Progress

#: Largest lattice evaluated node by node.
MAX_NODES = 100_000


def search(evaluator: Evaluator, metric: Metric, *, progress: bool | None = None) -> Search:
    """Evaluate every node; the best feasible one by ``metric``, then :func:`tie_key`."""
    lattice = evaluator.lattice
    require_size(
        lattice,
        MAX_NODES,
        "the exhaustive search evaluates one by one",
        "use algo='ola', which finds the same optimum",
    )
    start = evaluator.evaluated
    best, best_key = None, (np.inf,)
    with Progress(
        "exhaustive",
        total=lattice.size,
        unit="node",
        enabled=progress if lattice.size > 2_000 else False,
    ) as bar:
        for node in lattice.nodes():
            stats = evaluator(node)
            if stats.feasible:
                key = tie_key(metric.scaled_value(stats), node)
                if key < best_key:
                    best, best_key = stats, key
            if evaluator.evaluated % 500 == 0:
                bar.advance(f"{evaluator.evaluated - start:,} evaluated")
    return Search(
        "exhaustive",
        best,
        metric.exact(best_key[0]) if best is not None else np.inf,
        evaluator.evaluated - start,
        lattice.size,
    )
