"""Information loss of a lattice node, the same for every algorithm and output.

- precision (Sweeney): mean over quasi-identifiers of level / height per row, a suppressed
  row counting 1 on every quasi-identifier;
- discernibility DM: the sum over kept classes of |class|^2, plus n for each suppressed row;
- C_avg: (rows kept / classes kept) / k.

Each minimizable metric comes with a lower bound that never decreases towards the top of
the lattice, so an optimal search can skip every node above one whose bound already exceeds
the best. Precision: without its suppression term. DM: sum over classes c of
|c| * max(k, |c|); in any node above, c lies inside a kept class C (at least k rows and at
least |c|, so its rows add |c| * |C|) or is suppressed (its rows add n * |c|), and k-anonymity
is among the models of every search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import InvalidParameterError
from .evaluation import NodeStats


def generalization(node: tuple[int, ...], heights: tuple[int, ...]) -> float:
    """Mean of level / height over the quasi-identifiers."""
    return float(np.mean([level / height for level, height in zip(node, heights)]))


def precision(stats: NodeStats, heights: tuple[int, ...], n_rows: int) -> float:
    """((n - s) * g + s) / n, written as g + (1 - g) * s / n so that rounding never puts it
    below its own lower bound g (the optimal search relies on that)."""
    share = generalization(stats.node, heights)
    return share + (1 - share) * stats.suppressed / n_rows


def discernibility(stats: NodeStats, n_rows: int) -> int:
    sizes = stats.kept_sizes
    return int((sizes.astype(np.int64) ** 2).sum()) + n_rows * stats.suppressed


def average_class_size(stats: NodeStats, n_rows: int, k: int) -> float:
    classes = int((~stats.violating).sum())
    return ((n_rows - stats.suppressed) / classes) / k if classes else float("inf")


@dataclass(frozen=True)
class Metric:
    """What an optimal search minimizes, with a lower bound valid for a node's successors."""

    name: str
    value: Callable[[NodeStats], float]
    bound: Callable[[tuple[int, ...], NodeStats | None], float]


def resolve_metric(metric: str | Callable[[NodeStats], float], heights: tuple[int, ...],
                   n_rows: int, k: int = 1) -> Metric:
    """``"precision"``, ``"dm"``, or a callable taking a NodeStats (no bound: no pruning);
    ``k`` (the k-anonymity every search enforces) tightens the DM bound."""
    if metric == "precision":
        return Metric(
            "precision",
            lambda s: precision(s, heights, n_rows),
            lambda node, _stats: generalization(node, heights),
        )
    if metric == "dm":
        return Metric(
            "dm",
            lambda s: discernibility(s, n_rows),
            lambda _node, s: 0.0 if s is None else float(
                (s.classes.sizes * np.maximum(s.classes.sizes, k)).astype(np.int64).sum()),
        )
    if callable(metric):
        return Metric(getattr(metric, "__name__", "custom"), metric, lambda _n, _s: -np.inf)
    raise InvalidParameterError(
        f"metric must be 'precision', 'dm' or a callable taking a NodeStats, got {metric!r}"
    )
