"""What every lattice algorithm returns, and the order used to break ties."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pandas_anon.anonymization.fulldomain.evaluation import NodeStats
from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.anonymization.fulldomain.metrics import Number
from pandas_anon.errors import InvalidParameterError

#: Verdicts in :attr:`Explored.status`: known feasible, known infeasible, unknown.
FEASIBLE, INFEASIBLE, UNKNOWN = 1, -1, 0


@dataclass(frozen=True)
class Explored:
    """What a search learned about the lattice of ``qid`` (levels ``0..heights``), as arrays
    indexed by node: ``status``, each node's verdict (:data:`FEASIBLE`, :data:`INFEASIBLE`
    or :data:`UNKNOWN`: evaluated, or settled by predictive tagging from a node evaluated
    above or below it); ``evaluated``, the nodes evaluated; ``optimum``, the node chosen
    (None when none satisfies the constraints). What
    :meth:`~pandas_anon.anonymization.transformation.Transformation.plot_lattice` draws."""

    qid: tuple[str, ...]
    heights: tuple[int, ...]
    status: np.ndarray
    evaluated: np.ndarray
    optimum: tuple[int, ...] | None


@dataclass
class Search:
    """The chosen node (None: no node satisfies the constraints) and search statistics;
    ``value``: the node's metric, exact for the built-in metrics (``Fraction``, ``int``; inf
    when no node)."""

    algorithm: str
    best: NodeStats | None
    value: Number
    evaluated: int
    lattice_size: int
    notes: dict = field(default_factory=dict)
    #: the lattice as the search left it (the optimal search's; None for the others)
    explored: Explored | None = None


def require_size(lattice: Lattice, max_nodes: int, search: str, advice: str) -> None:
    """Refuse a lattice of more than ``max_nodes`` nodes, naming ``search`` and ``advice``."""
    if lattice.size > max_nodes:
        raise InvalidParameterError(
            f"the lattice of {list(map(str, lattice.qid))} has {lattice.size:,} nodes, more than "
            f"the {max_nodes:,} {search}; {advice}"
        )


def tie_key(value: Number, node: tuple[int, ...]) -> tuple:
    """Smaller metric first (exact values, or scaled to integers: equal metrics tie), then
    the lower node, then the lexicographically smaller."""
    return (value, sum(node), node)


def above_all(floors: np.ndarray) -> int | float:
    """A number above every scaled value of a metric whose scaled floors are ``floors``
    (:class:`~pandas_anon.anonymization.fulldomain.metrics.Metric`), for "no best yet": the
    largest int64 for an int64 array (an np.int64 compares with a float inf ten times slower
    than with an int), else inf."""
    return int(np.iinfo(floors.dtype).max) if floors.dtype.kind == "i" else np.inf
