"""Information loss of a lattice node, the same for every algorithm and output.

- precision (Sweeney): mean over quasi-identifiers of level / height per row, a suppressed
  row counting 1 on every quasi-identifier;
- discernibility DM: the sum over kept classes of |class|^2, plus n for each suppressed row;
- C_avg: (rows kept / classes kept) / k.

Each minimizable metric comes with a lower bound that never decreases towards the top of
the lattice, so an optimal search can skip every node above one whose bound already exceeds
the best. Precision: without its suppression term. DM: sum over classes c of
|c| * max(min(k, n), |c|); in any node above, c lies inside a kept class C (at least k rows
and at least |c|, so its rows add |c| * |C|) or is suppressed (its rows add n * |c|, and n is
at least |c|), and k-anonymity is among the models of every search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import InvalidParameterError
from .evaluation import NodeStats


def generalization(node: tuple[int, ...], heights: tuple[int, ...]) -> float:
    """Mean of level / height over the quasi-identifiers (summed in column order, as
    :func:`generalization_grid` sums, so both give the same float)."""
    total = 0.0
    for level, height in zip(node, heights):
        total = total + level / height
    return total / len(heights)


def generalization_grid(heights: tuple[int, ...]) -> np.ndarray:
    """:func:`generalization` of every node, as an array indexed by node."""
    total = np.zeros((1,) * len(heights))
    for j, height in enumerate(heights):
        shape = [1] * len(heights)
        shape[j] = height + 1
        total = total + (np.arange(height + 1) / height).reshape(shape)
    return total / len(heights)


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
    """What an optimal search minimizes, with lower bounds that never decrease towards the
    top: ``floor`` of a node before anything is evaluated (``floors``: of every node, as an
    array indexed by node), and ``bound`` for an evaluated node and every node above it."""

    name: str
    value: Callable[[NodeStats], float]
    bound: Callable[[NodeStats], float]
    floor: Callable[[tuple[int, ...]], float]
    floors: Callable[[], np.ndarray]


def resolve_metric(metric: str | Callable[[NodeStats], float], heights: tuple[int, ...],
                   n_rows: int, k: int = 1) -> Metric:
    """``"precision"``, ``"dm"``, or a callable taking a NodeStats (no bound: no pruning);
    ``k`` (the k-anonymity every search enforces) tightens the DM bound (a suppressed row
    costs n, so no row costs less than min(k, n))."""
    shape = tuple(h + 1 for h in heights)
    least = min(k, n_rows)
    if metric == "precision":
        return Metric(
            "precision",
            lambda s: precision(s, heights, n_rows),
            lambda s: generalization(s.node, heights),
            lambda node: generalization(node, heights),
            lambda: generalization_grid(heights),
        )
    if metric == "dm":
        return Metric(
            "dm",
            lambda s: discernibility(s, n_rows),
            lambda s: float((s.classes.sizes * np.maximum(s.classes.sizes, least)).sum()),
            lambda _node: 0.0,
            lambda: np.zeros(shape),
        )
    if callable(metric):
        return Metric(getattr(metric, "__name__", "custom"), metric, lambda _s: -np.inf,
                      lambda _node: -np.inf, lambda: np.full(shape, -np.inf))
    raise InvalidParameterError(
        f"metric must be 'precision', 'dm' or a callable taking a NodeStats, got {metric!r}"
    )
