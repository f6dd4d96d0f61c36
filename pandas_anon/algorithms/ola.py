"""Optimal full-domain search: branch and bound over the lattice, bottom up.

Nodes are visited in increasing order of a lower bound on the metric that never decreases
towards the top (:mod:`pandas_anon.metrics`); a node whose bound exceeds the best value found
is not expanded, and the search stops when the smallest bound left exceeds it. Every node
that could beat the incumbent is therefore evaluated, so the result equals exhaustive
search (tested), while most of the lattice is never touched. This plays the part of OLA
(El Emam et al.) and Flash (ARX), which prune with the same monotonicity.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..evaluation import Evaluator
from ..metrics import Metric
from ..progress import Progress
from .base import Search, tie_key


def search(evaluator: Evaluator, metric: Metric, *, progress: bool | None = None) -> Search:
    lattice = evaluator.lattice
    bottom = lattice.bottom
    queue = [(metric.bound(bottom, None), bottom)]
    seen = {bottom}
    best, best_key = None, (np.inf,)
    with Progress("ola", total=lattice.size, unit="node",
                  enabled=progress if lattice.size > 2_000 else False) as bar:
        while queue:
            bound, node = heapq.heappop(queue)
            if bound > best_key[0]:
                break
            stats = evaluator(node)
            if evaluator.evaluated % 500 == 0:
                bar.advance(f"{evaluator.evaluated:,} evaluated")
            if stats.feasible:
                key = tie_key(metric.value(stats), node)
                if key < best_key:
                    best, best_key = stats, key
            own = max(bound, metric.bound(node, stats))
            if own > best_key[0]:
                continue
            for successor in lattice.successors(node):
                if successor not in seen:
                    seen.add(successor)
                    heapq.heappush(queue, (max(own, metric.bound(successor, None)), successor))
    return Search("ola", best, best_key[0], evaluator.evaluated, lattice.size)


def exhaustive(evaluator: Evaluator, metric: Metric) -> Search:
    """Evaluate every node (the reference the optimal search is tested against)."""
    best, best_key = None, (np.inf,)
    for node in evaluator.lattice.nodes():
        stats = evaluator(node)
        if stats.feasible:
            key = tie_key(metric.value(stats), node)
            if key < best_key:
                best, best_key = stats, key
    return Search("exhaustive", best, best_key[0], evaluator.evaluated, evaluator.lattice.size)
