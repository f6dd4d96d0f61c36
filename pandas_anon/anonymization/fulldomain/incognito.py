"""Incognito (LeFevre, DeWitt, Ramakrishnan 2005): every feasible full-domain generalization,
found bottom-up over growing subsets of the quasi-identifier.

Saroha (2014), "Survey of k-Anonymity", section 3.2, "Incognito Algorithm", describes it:
it "produces all the possible k-anonymous full-domain generalizations of a relation, with an
optional tuple suppression threshold", checking single-attribute subsets of the
quasi-identifier first, then larger subsets, with a breadth-first search over each subset's
generalization lattice; the best node can then be picked by any criterion.

For subsets of the quasi-identifier of size 1, 2, ..., n, it finds the feasible nodes of the
subset's lattice (the full-domain generalizations of those columns alone), with two prunings:

- *subset property*: a node of a size-i subset is a candidate only if each of its i
  projections on the size-(i-1) subsets is feasible (candidates are generated a-priori style:
  a feasible node of the subset without its last column, extended by every level of that
  column, then checked against the other projections);
- *generalization property*: within a subset, candidates are visited bottom-up and a candidate
  with a feasible direct predecessor is feasible without being evaluated.

Both rest on one fact. Call a model *merge-safe* when a class made of several classes, at
least one of which satisfies the model, satisfies it: k-anonymity is (the union has at least
as many rows as its largest part, so at least k) and distinct l-diversity is (the union has at
least the distinct sensitive values of any part). Let M be a node and M' a node whose classes
are unions of M's classes; this is the case when M' is a generalization of M on the same
columns (values equal at a level stay equal at higher levels) and when M' is the projection of
M on fewer columns (rows equal on every column of M are equal on the columns kept). A row
suppressed at M' lies in a violating class of M'; by merge-safety every class of M inside it
violates too, so the row is suppressed at M. Hence ``suppressed(M') <= suppressed(M)``: if M
fits the suppression limit, so does M'. Read backwards, a node with an infeasible projection is
infeasible (subset property), and a node above a feasible node is feasible (generalization
property); with ``max_suppression = 0`` this is LeFevre et al.'s k-anonymity lemmas.

Entropy and recursive (c, l)-diversity and t-closeness are not merge-safe (a good class merged
with a bad one can turn bad and take the good class's rows down with it), so neither pruning
holds for them once rows may be suppressed: with any such model the search falls back to
checking every candidate, i.e. evaluating every node of the full lattice (``notes["pruned"]``
is False).

Projections are built from the lattice's frequency set (:meth:`Lattice.project`), not from the table,
so :func:`search` needs only the evaluator; :func:`all_feasible` takes the table itself.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from pandas_anon.anonymization.fulldomain.base import Search, above_all, tie_key
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.lattice import Lattice, Node
from pandas_anon.anonymization.fulldomain.metrics import Metric
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.privacy.models import PrivacyModel, merge_safe
from pandas_anon.progress import Progress


def all_feasible(
    frame: pd.DataFrame,
    qid: Sequence[Hashable],
    hierarchies: Mapping[Hashable, Hierarchy],
    models: Sequence[PrivacyModel],
    max_suppression: float,
    *,
    sensitive: Hashable | None = None,
) -> list[Node]:
    """Every feasible full-domain generalization of ``qid`` (levels in ``qid`` order), bottom
    first in lexicographic order; ``sensitive`` is the column l-diversity and t-closeness
    read."""
    lattice = Lattice.of_frame(frame, qid, hierarchies, sensitive=sensitive)
    return feasible_nodes(Evaluator(lattice, models, max_suppression))[0]


def search(evaluator: Evaluator, metric: Metric, *, progress: bool | None = None) -> Search:
    """The best feasible node by ``metric`` (then :func:`tie_key`), chosen among all of them.

    Picking the best needs each feasible node's statistics, including those of nodes that the
    generalization property marked feasible unevaluated; they are evaluated in increasing order
    of the metric's floor, stopping once the floor exceeds the best value found (an exact tie
    must still go to the lower node; floors and values are exact, :mod:`pandas_anon.anonymization.fulldomain.metrics`).
    ``evaluated`` counts every evaluation, on the projections too; ``notes`` has the number of
    feasible nodes and the breakdown.
    """
    start = evaluator.evaluated
    feasible, notes = feasible_nodes(evaluator, progress=progress)
    before = evaluator.evaluated
    floors = metric.floors()  # scaled: exact integers (Metric)
    best, best_key = None, (above_all(floors),)
    for floor, node in sorted((floors[node], node) for node in feasible):
        if floor > best_key[0]:
            break
        stats = evaluator(node)
        key = tie_key(metric.scaled_value(stats), node)
        if key < best_key:
            best, best_key = stats, key
    notes["evaluated_choosing"] = evaluator.evaluated - before
    evaluated = evaluator.evaluated - start + notes["evaluated_projections"]
    value = metric.exact(best_key[0]) if best is not None else np.inf
    return Search("incognito", best, value, evaluated, evaluator.lattice.size, notes)


def feasible_nodes(
    evaluator: Evaluator, *, progress: bool | None = None
) -> tuple[list[Node], dict]:
    """Every feasible node of ``evaluator.lattice`` (bottom first, lexicographic), and notes:
    ``pruned`` (whether the subset pruning applied), ``evaluated_projections`` (evaluations on
    lattices of proper subsets), ``evaluated_full`` (on the full lattice), ``feasible``,
    ``candidates`` and ``marked`` (feasible without evaluation) per subset size."""
    lattice = evaluator.lattice
    start = evaluator.evaluated
    n = len(lattice.qid)
    if not merge_safe(evaluator.models) or n == 0:
        found = [node for node in lattice.nodes() if evaluator(node).feasible]
        return found, {
            "pruned": False,
            "evaluated_projections": 0,
            "evaluated_full": evaluator.evaluated - start,
            "feasible": len(found),
        }
    notes: dict = {"pruned": True, "candidates": [], "marked": [], "feasible_per_size": []}
    projections = 0
    # feasible nodes of each subset solved so far (subsets as tuples of column indices)
    solved: dict[tuple[int, ...], set[Node]] = {(): {()}}
    with Progress(
        "incognito",
        total=2**n - 1,
        unit="subset",
        enabled=progress if lattice.size > 2_000 else False,
    ) as bar:
        for size in range(1, n + 1):
            candidates_total = marked_total = feasible_total = 0
            for subset in combinations(range(n), size):
                bar.advance(f"{size} of {n} columns")
                if size == n:
                    sub, evaluate = lattice, evaluator
                else:
                    sub = lattice.project(subset)
                    evaluate = Evaluator(sub, evaluator.models, 0.0)
                    evaluate.limit = evaluator.limit  # the same number of rows, not a fraction
                candidates = _candidates(subset, sub.heights, solved)
                feasible, marked = _bottom_up(candidates, sub, evaluate)
                if size < n:
                    projections += evaluate.evaluated
                solved[subset] = feasible
                candidates_total += len(candidates)
                marked_total += marked
                feasible_total += len(feasible)
            notes["candidates"].append(candidates_total)
            notes["marked"].append(marked_total)
            notes["feasible_per_size"].append(feasible_total)
            # subsets of this size are needed by the next size only
            solved = {s: f for s, f in solved.items() if len(s) == size}
            if feasible_total == 0:  # no subset of this size has a feasible node: nor a superset
                solved = {tuple(range(n)): set()}
                break
    found = sorted(solved[tuple(range(n))])
    notes.update(
        evaluated_projections=projections,
        evaluated_full=evaluator.evaluated - start,
        feasible=len(found),
    )
    return found, notes


def _candidates(
    subset: tuple[int, ...], heights: tuple[int, ...], solved: dict[tuple[int, ...], set[Node]]
) -> list[Node]:
    """Nodes of ``subset`` whose projections on every subset one column smaller are feasible.

    A node is its prefix (a feasible node of the subset without the last column) plus a level
    of the last column; the other projections drop one of the prefix's columns."""
    prefixes = solved.get(subset[:-1])
    if not prefixes:
        return []
    others = [(p, solved[subset[:p] + subset[p + 1 :]]) for p in range(len(subset) - 1)]
    found = []
    for prefix in prefixes:
        for level in range(heights[-1] + 1):
            node = prefix + (level,)
            if all(node[:p] + node[p + 1 :] in feasible for p, feasible in others):
                found.append(node)
    return found


def _bottom_up(
    candidates: list[Node], lattice: Lattice, evaluate: Evaluator
) -> tuple[set[Node], int]:
    """The feasible candidates, visited by increasing height: a candidate with a feasible
    direct predecessor is marked feasible without evaluation. Also returns how many were."""
    feasible: set[Node] = set()
    marked = 0
    for node in sorted(candidates, key=lambda node: (sum(node), node)):
        if any(p in feasible for p in lattice.predecessors(node)):
            feasible.add(node)
            marked += 1
        elif evaluate(node).feasible:
            feasible.add(node)
    return feasible, marked
