"""Zero configuration's choice of method: the one whose release keeps the most.

``kanon(k)`` with neither ``qid`` nor ``algo`` k-anonymizes every released column together
and picks the method. Each candidate of :data:`CANDIDATES` (a method, and whether it
generalizes along hierarchies, the registered ones claiming a column or ``auto``'s, or cuts
the columns by their values) that fits its budget decides on the same frequency set; each
decision is written on the frequency set (every combination once, as
:meth:`~pandas_anon.anonymization.transformation.Transformation.write` writes it) and
measured by its share of the released cells left unchanged
(:func:`~pandas_anon.anonymization.utility.unchanged_share`), the figure a person reading the
release sees first. The most unchanged wins; candidates within :data:`TIE` of it are tied,
and of those the one with the most classes (the finest partition) wins, then the fewest
rows suppressed, then the order of :data:`CANDIDATES`. Only the winner is measured in full
(its report).

The budgets keep zero configuration fast; they are counts, not times, so that one table
gets one choice on every machine:

- the full-domain search (``"ola"``) runs when its lattice has at most
  :data:`LATTICE_NODES` nodes (UCI Adult's 8 columns: 640; the licence file's 13: over a
  million);
- local recoding runs when its predicted work (:func:`predicted_local_work`) is at most
  :data:`LOCAL_WORK` (Adult: about 3.6 million; the licence file: about 38 million);
- Mondrian always runs: its cost grows with the rows, not with the lattice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pandas_anon.anonymization.algorithms import Algorithm, Problem, get_algorithm
from pandas_anon.anonymization.transformation import Transformation
from pandas_anon.anonymization.utility import unchanged_share
from pandas_anon.errors import InfeasibleError, InvalidParameterError
from pandas_anon.formatting import percent

#: The candidates zero configuration tries, in the order that breaks ties (the labels of
#: hierarchies, which name their groups, before the ranges and sets of values): a name, the
#: method, and whether it generalizes along hierarchies (else: by the columns' values, for
#: the columns no registered hierarchy claims).
CANDIDATES = (
    ("local", "local", True),
    ("ola", "ola", True),
    ("mondrian with hierarchies", "mondrian", True),
    ("mondrian", "mondrian", False),
)
#: Shares of cells unchanged closer than this to the best are tied.
TIE = 0.01
#: The largest lattice the full-domain search is tried on (nodes).
LATTICE_NODES = 20_000
#: The largest predicted work of local recoding (:func:`predicted_local_work`) tried: about
#: 2 s on the benchmark machines (2 cores) when it was set; local recoding has since become
#: three to four times faster (issue 37), and the budget was kept, so that the choices of
#: zero configuration, and the time of the default beside Mondrian's, stay as they were.
LOCAL_WORK = 10_000_000


@dataclass(frozen=True)
class Choice:
    """What the choice decided: the winner's name, decision and problem, each candidate's
    figures (``candidates``: ``unchanged``, ``suppressed``, ``classes``, ``seconds``; or
    ``skipped``, the reason) and the sentence the report gives."""

    name: str
    decision: Transformation
    problem: Problem
    candidates: dict[str, dict[str, float | str]]
    reason: str


def choose(
    problem_for: Callable[[str, Algorithm, bool], Problem],
    released: pd.DataFrame,
    weights: np.ndarray | None = None,
) -> Choice:
    """Decide with each candidate of :data:`CANDIDATES` within its budget on the problem
    ``problem_for(name, algorithm, hierarchies)`` builds, and keep the one leaving the most
    of ``released`` (the columns released, the rows decided on) unchanged (see the module).
    ``weights``: the rows each row of ``released`` stands for (a Dask frame's digest)."""
    candidates: dict[str, dict[str, float | str]] = {}
    decided: list[tuple[str, Transformation, Problem]] = []
    for name, method, hierarchies in CANDIDATES:
        algorithm = get_algorithm(method)
        problem = problem_for(name, algorithm, hierarchies)
        skipped = _over_budget(method, problem)
        if skipped is not None:
            candidates[name] = {"skipped": skipped}
            continue
        started = time.perf_counter()
        try:
            decision = algorithm.decide(problem)
        except (InfeasibleError, InvalidParameterError) as error:  # its goal, or its options
            candidates[name] = {"skipped": str(error)}
            continue
        written = decision.write(released, weights=weights)
        rows = problem.tabulation.frequencies.n_rows
        share = unchanged_share({c: written.changed[c] for c in problem.qid}, rows)
        suppressed = int(problem.tabulation.frequencies.counts[decision.suppressed].sum())
        label, _ = decision.output_classes()
        kept = ~decision.suppressed
        candidates[name] = {
            "unchanged": share,
            "suppressed": suppressed,
            "classes": len(np.unique(label[kept])),
            "seconds": round(time.perf_counter() - started, 4),
        }
        decided.append((name, decision, problem))
    if not decided:
        raise InfeasibleError(
            "no method reaches the goal on every released column: "
            + "; ".join(f"{n}: {c['skipped']}" for n, c in candidates.items())
        )
    best = max(float(candidates[name]["unchanged"]) for name, _, _ in decided)
    tied = [entry for entry in decided if float(candidates[entry[0]]["unchanged"]) >= best - TIE]
    name, decision, problem = min(
        tied,
        key=lambda entry: (
            -int(candidates[entry[0]]["classes"]),
            int(candidates[entry[0]]["suppressed"]),
        ),
    )  # min keeps the first of equals: the order of CANDIDATES
    return Choice(name, decision, problem, candidates, _reason(name, candidates))


def predicted_local_work(problem: Problem) -> int:
    """What local recoding is predicted to judge, in combinations: those at risk at the
    start (in classes of fewer than k rows) times the columns (each step tries every
    column) times the steps it may take (the hierarchies' heights added up). Measured:
    UCI Adult's 8 columns, 3.6 million predicted for 2.3 million judged; the licence
    file's 13 columns, 45 million for 36 million."""
    frequencies, _ = problem.tabulation.frequencies.project(problem.qid)
    at_risk = int((frequencies.counts < problem.k).sum())
    heights = sum(problem.hierarchies[c].height for c in problem.qid)
    return at_risk * len(problem.qid) * heights


def lattice_nodes(problem: Problem) -> int:
    """The nodes of the full-domain lattice: the product of the levels of the columns."""
    return int(np.prod([problem.hierarchies[c].n_levels for c in problem.qid], dtype=object))


def _over_budget(name: str, problem: Problem) -> str | None:
    """Why method ``name`` is not tried on ``problem``, or None."""
    if name == "ola":
        nodes = lattice_nodes(problem)
        if nodes > LATTICE_NODES:
            return f"a lattice of {nodes:,} nodes, above the {LATTICE_NODES:,} tried"
    if name == "local":
        work = predicted_local_work(problem)
        if work > LOCAL_WORK:
            return f"predicted work of {work:,} combinations judged, above the {LOCAL_WORK:,} tried"
    return None


def _reason(winner: str, candidates: dict[str, dict[str, float | str]]) -> str:
    """The report's sentence on the choice."""
    tried = [
        f"{name} {percent(float(figures['unchanged']), 1)}"
        for name, figures in candidates.items()
        if "unchanged" in figures
    ]
    skipped = [name for name, figures in candidates.items() if "skipped" in figures]
    return (
        f"{winner}: of the methods tried, the one leaving the most released cells unchanged, "
        f"the most classes among those within {percent(TIE, 0)} of the most "
        f"({', '.join(tried)})"
        + (f"; not tried: {', '.join(skipped)} (see candidates)" if skipped else "")
    )
