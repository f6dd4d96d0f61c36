"""Samarati's algorithm (Samarati 2001): binary search on the height of the lattice.

Saroha (2014), "Survey of k-Anonymity", section 3.3, describes it on the lattice of
*distance vectors* (here: nodes, one level per quasi-identifier); the height of a node is the
sum of its levels. If no node of height h satisfies the privacy models within the suppression
limit, no node below h does; so a binary search over heights finds the lowest height holding a
solution, evaluating only the nodes of the heights it probes. Among the nodes of that height,
the one with the smallest information loss is returned (:func:`tie_key`: metric, then the
lexicographically smaller node); Samarati's *k-minimal generalization* asks for minimal
height, and which of the minimal nodes to prefer is a choice the paper leaves to a criterion.

Why the binary search is exact: a successor's classes are unions of the node's classes. For
k-anonymity a union containing a class of at least k rows has at least k rows (for distinct
l-diversity, at least l values), so every row suppressed at the successor was suppressed at
the node: a feasible node's successors are feasible, and if some node of height h is feasible,
some node at every height from h up to the top is (:func:`~pandas_anon.privacy.models.merge_safe` names these
models; the proof is in :mod:`.incognito`). Entropy and recursive l-diversity and t-closeness
lack the property once rows may be suppressed (a good class merged with a bad one can turn
bad), so a low node can be feasible while the top is not; with any of them the heights are
scanned from the bottom up instead, which still finds the lowest feasible height.

A probe stops at the first feasible node of its height; at the final height every node is
evaluated (the probe's evaluations are reused). ``notes``: ``height`` (the height found, None
when nothing is feasible), ``probed`` (the heights probed, in order: the top first, or from
the bottom up when scanning), ``binary`` (False when scanning).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from pandas_anon.anonymization.fulldomain.base import Search, tie_key
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator, NodeStats
from pandas_anon.anonymization.fulldomain.metrics import Metric
from pandas_anon.privacy.models import merge_safe
from pandas_anon.progress import Progress


def search(evaluator: Evaluator, metric: Metric, *, progress: bool | None = None) -> Search:
    lattice = evaluator.lattice
    start = evaluator.evaluated
    heights = lattice.heights
    seen: dict[tuple[int, ...], NodeStats] = {}

    def probe(height: int) -> bool:
        """Whether some node of ``height`` is feasible (stops at the first)."""
        probed.append(height)
        bar.advance(f"height {height}")
        for node in nodes_at_height(heights, height):
            stats = seen.get(node) or evaluator(node)
            seen[node] = stats
            if stats.feasible:
                return True
        return False

    probed: list[int] = []
    low, high = 0, sum(heights)
    binary = merge_safe(evaluator.models)
    with Progress(
        "samarati",
        total=max(1, high).bit_length() + 1 if binary else high + 1,
        unit="probe",
        enabled=progress if lattice.size > 2_000 else False,
    ) as bar:
        if binary:
            feasible = probe(high)  # if the top is not feasible, nothing is
            while feasible and low < high:  # a node of height `high` is feasible, none below `low`
                middle = (low + high) // 2
                if probe(middle):
                    high = middle
                else:
                    low = middle + 1
        else:
            lowest = next((h for h in range(high + 1) if probe(h)), None)
            feasible = lowest is not None
            high = lowest if lowest is not None else high
    if not feasible:
        return Search(
            "samarati",
            None,
            np.inf,
            evaluator.evaluated - start,
            lattice.size,
            {"height": None, "probed": probed, "binary": binary},
        )
    best, best_key = None, (np.inf,)
    for node in nodes_at_height(heights, high):
        stats = seen.get(node) or evaluator(node)
        if stats.feasible:
            key = tie_key(metric.scaled_value(stats), node)
            if key < best_key:
                best, best_key = stats, key
    return Search(
        "samarati",
        best,
        metric.exact(best_key[0]),
        evaluator.evaluated - start,
        lattice.size,
        {"height": high, "probed": probed, "binary": binary},
    )


def nodes_at_height(heights: tuple[int, ...], height: int) -> Iterator[tuple[int, ...]]:
    """Every node whose levels sum to ``height``, in lexicographic order."""
    # the most the columns after position j can still add
    room = [sum(heights[j:]) for j in range(len(heights) + 1)]

    def extend(prefix: tuple[int, ...], left: int) -> Iterator[tuple[int, ...]]:
        j = len(prefix)
        if j == len(heights):
            if left == 0:
                yield prefix
            return
        for level in range(max(0, left - room[j + 1]), min(heights[j], left) + 1):
            yield from extend(prefix + (level,), left - level)

    if 0 <= height <= room[0]:
        yield from extend((), height)
