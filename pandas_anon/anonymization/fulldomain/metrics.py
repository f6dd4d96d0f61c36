"""What the full-domain searches minimize: precision or discernibility of a lattice node,
with lower bounds for pruning.

The figures are those of :mod:`pandas_anon.anonymization.utility` (precision, a mean of
level / height with a suppressed row counting 1 on every quasi-identifier; DM, the sum over
kept classes of |class|^2 plus n per suppressed row), computed per node from its classes.

Each minimizable metric comes with a lower bound that never decreases towards the top of
the lattice, so an optimal search can skip every node above one whose bound already exceeds
the best. Precision: without its suppression term. DM: sum over classes c of
|c| * max(min(k, n), |c|); in any node above, c lies inside a kept class C (at least k rows
and at least |c|, so its rows add |c| * |C|) or is suppressed (its rows add n * |c|, and n is
at least |c|), and k-anonymity is among the models of every search.

Values are exact, so that equal metrics compare equal and a tie goes to the lower node, as
documented (in floats, two nodes generalizing 7/18 each could differ in the last bit).
Precision is a fraction: with q quasi-identifiers of heights h_j, L = lcm(h_j) and n rows,
g = G / (q L) where G = sum of level_j * L / h_j is an integer, and the precision is
(G n + (q L - G) s) / (q L n). DM is an integer. The searches compare these numbers scaled
to integers (:class:`Metric`: precision times the common denominator q L n), with the
floors of every node in an int64 array; a search's value is the exact ``Fraction`` (DM: the
``int``), and reports show floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pandas_anon.anonymization.fulldomain.evaluation import NodeStats
from pandas_anon.anonymization.utility import discernibility
from pandas_anon.errors import InvalidParameterError

#: An exact metric value (Fraction, int), or what a custom metric returns.
Number = Fraction | int | float
#: Largest number the int64 arrays of floors hold; beyond, they hold Python ints.
_INT64_ROOM = 2**62


class Precision:
    """Sweeney's precision of the nodes of a lattice of ``heights`` over ``n_rows`` rows, in
    integers over one denominator: g(node) = ``share(node) / scale``, and a precision
    counts 1/``unit`` with ``unit = scale * n_rows``."""

    def __init__(self, heights: tuple[int, ...], n_rows: int) -> None:
        self.heights = tuple(heights)
        common = math.lcm(*self.heights)
        self.weights = tuple(common // height for height in self.heights)
        self.scale = len(self.heights) * common
        self.n_rows = n_rows
        self.unit = self.scale * n_rows

    def share(self, node: tuple[int, ...]) -> int:
        """g(node) times ``scale``: the sum of level * lcm / height."""
        return sum(level * weight for level, weight in zip(node, self.weights))

    def floor(self, node: tuple[int, ...]) -> int:
        """g(node) times ``unit``: the precision without its suppression term."""
        return self.share(node) * self.n_rows

    def value(self, stats: NodeStats) -> int:
        """g + (1 - g) s / n times ``unit``, s the rows suppressed."""
        share = self.share(stats.node)
        return share * self.n_rows + (self.scale - share) * stats.suppressed

    def floors(self) -> np.ndarray:
        """:meth:`floor` of every node, as an array indexed by node."""
        dtype = np.int64 if self.unit < _INT64_ROOM else object
        total = np.zeros((1,) * len(self.heights), dtype=dtype)
        for j, (height, weight) in enumerate(zip(self.heights, self.weights)):
            shape = [1] * len(self.heights)
            shape[j] = height + 1
            steps = np.arange(height + 1).astype(dtype) * (weight * self.n_rows)
            total = total + steps.reshape(shape)
        return total


@dataclass(frozen=True)
class CompiledMetric:
    """A built-in metric as the compiled optimal search computes it, in int64 (only when
    its scaled values fit): ``kind`` :data:`PRECISION` (``weights`` and ``scale`` of
    :class:`Precision`) or :data:`DISCERNIBILITY` (``least``, the least a row can cost:
    min(k, n))."""

    kind: int
    weights: tuple[int, ...] = ()
    scale: int = 0
    least: int = 0


#: :attr:`CompiledMetric.kind` of precision and of DM.
PRECISION, DISCERNIBILITY = 0, 1


def mean_level(node: tuple[int, ...], heights: tuple[int, ...]) -> Fraction:
    """Mean of level / height over the quasi-identifiers, exactly."""
    exact = Precision(heights, 1)
    return Fraction(exact.share(node), exact.scale)


@dataclass(frozen=True)
class Metric:
    """What an optimal search minimizes, with lower bounds that never decrease towards the
    top: the floor of a node before anything is evaluated, and the bound of an evaluated
    node, which holds for every node above it.

    The searches compare *scaled* numbers, exact integers for the built-in metrics: a value
    times ``unit`` (``scaled_value``), the same for bounds (``scaled_bound``), floors
    (``scaled_floor``) and ``floors()``, the scaled floor of every node as an array indexed
    by node (int64). :meth:`value`, :meth:`bound` and :meth:`floor` give the metric itself,
    exactly (``Fraction``, ``int``); a custom metric has ``unit`` 1 and no bound.
    """

    name: str
    scaled_value: Callable[[NodeStats], Number]
    scaled_bound: Callable[[NodeStats], Number]
    scaled_floor: Callable[[tuple[int, ...]], Number]
    floors: Callable[[], np.ndarray]
    unit: int = 1
    #: the same metric as the compiled search computes it (None: only in Python)
    compiled: CompiledMetric | None = None

    def exact(self, scaled: Number) -> Number:
        """The metric whose scaled number is ``scaled``."""
        if self.unit == 1:
            return scaled
        assert isinstance(scaled, int)  # a built-in metric's scaled values are integers
        return Fraction(scaled, self.unit)

    def value(self, stats: NodeStats) -> Number:
        return self.exact(self.scaled_value(stats))

    def bound(self, stats: NodeStats) -> Number:
        return self.exact(self.scaled_bound(stats))

    def floor(self, node: tuple[int, ...]) -> Number:
        return self.exact(self.scaled_floor(node))


def resolve_metric(
    metric: str | Callable[[NodeStats], float],
    heights: tuple[int, ...],
    n_rows: int,
    k: int = 1,
    *,
    most_classes: np.ndarray | None = None,
) -> Metric:
    """``"precision"``, ``"dm"``, or a callable taking a NodeStats (no bound: no pruning);
    ``k`` (the k-anonymity every search enforces) tightens the DM bound (a suppressed row
    costs n, so no row costs less than min(k, n)); ``most_classes``, the most classes each
    node can have (:meth:`~pandas_anon.anonymization.fulldomain.lattice.Lattice.most_classes`),
    gives DM its floors (:func:`discernibility_floors`; without it they are 0)."""
    shape = tuple(h + 1 for h in heights)
    least = min(k, n_rows)
    if metric == "precision":
        exact = Precision(heights, n_rows)
        return Metric(
            "precision",
            exact.value,
            lambda s: exact.floor(s.node),
            exact.floor,
            exact.floors,
            exact.unit,
            CompiledMetric(PRECISION, exact.weights, exact.scale)
            if exact.unit < _INT64_ROOM
            else None,
        )
    if metric == "dm":
        dtype = np.int64 if n_rows**2 < _INT64_ROOM else object
        floors = (
            np.zeros(shape, dtype=dtype)
            if most_classes is None
            else discernibility_floors(most_classes, n_rows).astype(dtype)
        )
        return Metric(
            "dm",
            lambda s: discernibility(s.kept_sizes, s.suppressed, n_rows),
            lambda s: int((s.classes.sizes * np.maximum(s.classes.sizes, least)).sum()),
            lambda node: int(floors[node]),
            lambda: floors.copy(),
            compiled=CompiledMetric(DISCERNIBILITY, least=least) if dtype == np.int64 else None,
        )
    if callable(metric):
        return Metric(
            getattr(metric, "__name__", "custom"),
            _checked(metric),
            lambda _s: -np.inf,
            lambda _node: -np.inf,
            lambda: np.full(shape, -np.inf),
        )
    raise InvalidParameterError(
        f"metric must be 'precision', 'dm' or a callable taking a NodeStats, got {metric!r}"
    )


def discernibility_floors(most_classes: np.ndarray, n_rows: int) -> np.ndarray:
    """The least DM of each node that has at most ``most_classes`` classes (an array indexed
    by node), whatever is suppressed: with s of the n rows suppressed (never all), the n - s
    kept rows fill at most C classes, so their squares add up to at least (n - s)^2 / C
    (Cauchy-Schwarz), and DM >= g(s) = (n - s)^2 / C + n s. g is convex; for C >= 2 it rises
    from s = 0, so DM >= n^2 / C, rounded up (DM is an integer); for C = 1 it is least at
    s = n / 2. The fewer classes a node can have (a coarse node), the higher its floor, so
    floors never decrease towards the top. Exact: int64 while n^2 fits, else Python integers.
    """
    n = int(n_rows)
    one_class = min((n - s) ** 2 + n * s for s in {n // 2, (n + 1) // 2} if s <= max(n - 1, 0))
    classes = np.maximum(np.asarray(most_classes), 1)
    if n * n < _INT64_ROOM:  # numpy's integers: exact
        floors = -((-n * n) // classes.astype(np.int64))
    else:
        floors = -((-n * n) // classes.astype(object))
    return np.where(classes <= 1, one_class, floors)


def _checked(metric: Callable[[NodeStats], float]) -> Callable[[NodeStats], float]:
    """A custom metric refusing, by name, a value that is not a number (text, a bool, NaN)."""

    def value(stats: NodeStats) -> float:
        found = metric(stats)
        if (
            isinstance(found, (bool, np.bool_))
            or not isinstance(found, (int, float, np.integer, np.floating))
            or found != found
        ):
            raise InvalidParameterError(
                f"metric {getattr(metric, '__name__', 'custom')!r} returned "
                f"{type(found).__name__} {found!r} for node {stats.node}; a custom metric must "
                f"return a number (lower is better)"
            )
        return found

    return value
