"""Privacy models as predicates on equivalence classes.

Each model names the classes that violate it; an anonymization suppresses those classes'
rows, and a node is acceptable when the suppressed rows fit the suppression limit.
k-anonymity and distinct l-diversity are monotone under generalization with suppression
(merging passing classes never creates a violation), which lets Incognito and Samarati
prune; entropy and recursive l-diversity and t-closeness are not once rows can be
suppressed, so those searches check every candidate for them. The optimal search (ola)
prunes only on the metric's bound and is exact for every model.

- k-anonymity: a class holds at least k rows (survey ``003_a9e852f42da10ca2.txt``).
- l-diversity (Machanavajjhala et al. 2007): *distinct*: at least l sensitive values per
  class; *entropy*: the entropy of the class's sensitive values is at least log(l);
  *recursive (c, l)*: the most frequent value occurs fewer than c times the total of the
  values from the l-th most frequent on.
- t-closeness (Li et al. 2007): the Earth Mover's Distance between a class's sensitive
  distribution and the whole table's is at most t; equal distance between categories, or
  ordered distance for numbers (values sorted, neighbours 1/(m-1) apart).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InvalidParameterError
from .params import fraction, one_of, real, whole
from .lattice import Classes


@dataclass(frozen=True)
class KAnonymity:
    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", whole(self.k, "k", example=5))

    def violations(self, classes: Classes) -> np.ndarray:
        return classes.sizes < self.k

    def reached(self, classes: Classes, kept: np.ndarray) -> tuple[str, float]:
        """What the kept classes reach: the smallest class."""
        return "k", _smallest(classes.sizes[kept])

    def __str__(self) -> str:
        return f"{self.k}-anonymity"


@dataclass(frozen=True)
class LDiversity:
    l: float
    variant: str = "distinct"  # distinct | entropy | recursive
    c: float = 1.0

    def __post_init__(self) -> None:
        """Distinct and recursive l count values (whole); the entropy's l may be fractional."""
        one_of(self.variant, "variant", ("distinct", "entropy", "recursive"))
        l = (real(self.l, "l", low=1, example=2.5) if self.variant == "entropy"  # noqa: E741
             else whole(self.l, "l", example=2))
        object.__setattr__(self, "l", l)
        object.__setattr__(self, "c", real(self.c, "c", low=0, above=True, example=2))

    def violations(self, classes: Classes) -> np.ndarray:
        if self.variant == "distinct":
            return self._distinct(classes) < self.l
        if self.variant == "entropy":
            return self._entropy(classes) < np.log(self.l) - 1e-12
        top, tail = self._recursive(classes)
        return ~(top < self.c * tail)

    def reached(self, classes: Classes, kept: np.ndarray) -> tuple[str, float]:
        """What the kept classes reach: the fewest distinct values; the smallest exp(entropy)
        (the l they are entropy-diverse for); or the largest ratio of the most frequent count
        to the tail from the l-th on (c must exceed it)."""
        if self.variant == "distinct":
            return "distinct l", _smallest(self._distinct(classes)[kept])
        if self.variant == "entropy":
            return "entropy l", _smallest(np.exp(self._entropy(classes)[kept]))
        top, tail = self._recursive(classes)
        with np.errstate(divide="ignore"):
            return f"recursive c (l={self.l:g})", _largest(top[kept] / tail[kept])

    @staticmethod
    def _distinct(classes: Classes) -> np.ndarray:
        return np.bincount(classes.pair_class, minlength=len(classes.sizes))

    @staticmethod
    def _entropy(classes: Classes) -> np.ndarray:
        share = classes.pair_count / classes.sizes[classes.pair_class]
        return np.bincount(classes.pair_class, weights=-share * np.log(share),
                           minlength=len(classes.sizes))

    def _recursive(self, classes: Classes) -> tuple[np.ndarray, np.ndarray]:
        """Per class: the most frequent value's count, and the total from the l-th most
        frequent value on."""
        n = len(classes.sizes)
        order = np.lexsort((-classes.pair_count, classes.pair_class))
        owner, count = classes.pair_class[order], classes.pair_count[order]
        starts = np.searchsorted(owner, np.arange(n))
        rank = np.arange(len(owner)) - starts[owner]  # 0 for the most frequent value
        top = count[rank == 0]
        tail = np.bincount(owner, weights=np.where(rank >= int(self.l) - 1, count, 0), minlength=n)
        return top, tail

    def __str__(self) -> str:
        extra = f"c={self.c:g}, " if self.variant == "recursive" else ""
        return f"{self.variant} l-diversity ({extra}l={self.l:g})"


@dataclass(frozen=True)
class TCloseness:
    t: float
    ordered: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "t", fraction(self.t, "t"))
        if not isinstance(self.ordered, (bool, np.bool_)):
            raise InvalidParameterError(f"ordered must be True or False, got {self.ordered!r}")
        object.__setattr__(self, "ordered", bool(self.ordered))

    def violations(self, classes: Classes, overall: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """``overall``: rows per sensitive code in the whole table; ``rank``: each code's
        position in value order (what the ordered distance walks along)."""
        return self.distances(classes, overall, rank) > self.t + 1e-12

    def reached(self, classes: Classes, kept: np.ndarray, overall: np.ndarray,
                rank: np.ndarray) -> tuple[str, float]:
        """What the kept classes reach: the largest distance."""
        return "t", _largest(self.distances(classes, overall, rank)[kept])

    def distances(self, classes: Classes, overall: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """Each class's Earth Mover's Distance to the whole table."""
        n, m = len(classes.sizes), len(overall)
        cell = classes.pair_class * m + rank[classes.pair_value]
        table = np.bincount(cell, weights=classes.pair_count, minlength=n * m).reshape(n, m)
        reference = np.zeros(m)
        reference[rank] = overall
        gap = table / table.sum(axis=1, keepdims=True) - reference / reference.sum()
        if self.ordered and m > 1:
            return np.abs(np.cumsum(gap, axis=1)).sum(axis=1) / (m - 1)
        return np.abs(gap).sum(axis=1) / 2

    def __str__(self) -> str:
        return f"{'ordered' if self.ordered else 'equal'}-distance t-closeness (t={self.t:g})"


def _smallest(values: np.ndarray) -> float:
    """The smallest value (0 when no class is kept)."""
    return float(values.min()) if len(values) else 0.0


def _largest(values: np.ndarray) -> float:
    """The largest value (0 when no class is kept)."""
    return float(values.max()) if len(values) else 0.0
