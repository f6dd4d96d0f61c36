"""How privacy reinforcement masks one quasi-identifier on the records of a mate.

Lan et al. ("A Privacy Reinforcement Approach against De-identified Dataset", section II.B)
mask by generalization along a hierarchy (``11058`` as ``1105*``), by recoding with
thresholds (``> 180``) or by suppressing the value. A column is masked, on the records of
one mate, in the one way its kind allows:

- **a hierarchy** (given, or registered for the column): the records' lowest common
  ancestor, written at its level (``1105*``);
- **numbers and dates** (and ordered categories) without one: the narrowest range between
  two thresholds the decision trees split the column at that holds every record of the mate
  (``< 63``, ``[24.6, 27.2)``, ``>= 55.5``; for ordered categories ``[b-d]``), ``*`` when no
  threshold bounds it; the thresholds are the short numbers between the two values a tree
  separated (between 62 and 66: 63), so a range never prints a value of the data;
- **anything else** (text without a hierarchy, booleans): ``*``.

A range that also covers missing values says so (``... or missing``), as Mondrian's do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
import pandas as pd

from pandas_anon.anonymization.mondrian.dimensions import (
    MISSING,
    Dimension,
    HierarchyDimension,
    NumberDimension,
    OrderedDimension,
)

#: What a masked value is written as when nothing narrower holds.
STAR = "*"


@dataclass
class ColumnMask:
    """One quasi-identifier's masks (see the module): ``dimension`` ranks its values;
    ``cuts`` are the thresholds (a rank: values of that rank and below go left) the trees
    split it at so far."""

    dimension: Dimension
    cuts: set[int] = field(default_factory=set)
    _sorted: np.ndarray | None = None

    @property
    def ranged(self) -> bool:
        return isinstance(self.dimension, (NumberDimension, OrderedDimension))

    def add_cuts(self, thresholds: Iterable[int]) -> None:
        """Remember thresholds the trees split the column at."""
        before = len(self.cuts)
        self.cuts.update(int(t) for t in thresholds)
        if len(self.cuts) != before:
            self._sorted = None

    def mask(self, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The label masking each group of values whose ranks run from ``low`` to ``high``
        (two distinct values at least), and its hierarchy level (0 without a hierarchy)."""
        dimension = self.dimension
        if isinstance(dimension, HierarchyDimension):
            labels = dimension._labels(low, high, _NOTHING, "range")
            return labels.astype(str).astype(object), dimension.levels(low, high)
        levels = np.zeros(len(low), dtype=np.int64)
        if not self.ranged:
            return np.full(len(low), STAR, dtype=object), levels
        present = dimension.present
        with_missing = dimension.missing & (high >= present)
        top = np.minimum(high, present - 1)
        if self._sorted is None:
            self._sorted = np.array(sorted(self.cuts), dtype=np.int64)
        cuts = self._sorted[self._sorted < present - 1]  # a cut above every number: no bound
        below = np.searchsorted(cuts, low, side="left") - 1  # the last cut under low
        above = np.searchsorted(cuts, top, side="left")  # the first cut at top or over
        start = np.zeros(len(low), dtype=np.int64)  # the first rank the range holds
        end = np.full(len(low), present - 1, dtype=np.int64)  # the last
        if len(cuts):
            start = np.where(below >= 0, cuts[np.maximum(below, 0)] + 1, start)
            end = np.where(above < len(cuts), cuts[np.minimum(above, len(cuts) - 1)], end)
        keys = np.column_stack([start, end, with_missing, top < low])
        distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
        texts = np.array(
            [self._text(int(a), int(b), bool(m), bool(none)) for a, b, m, none in distinct],
            dtype=object,
        )
        return texts[inverse.reshape(-1)], levels

    def _text(self, start: int, end: int, with_missing: bool, only_missing: bool) -> str:
        """The range of ranks ``start..end``, with missing values too when ``with_missing``."""
        if only_missing:  # missing values only (never two distinct: not masked)
            return MISSING
        text = self._bounded(start, end, self.dimension.present)
        return f"{text} or {MISSING}" if with_missing else text

    def _bounded(self, start: int, end: int, present: int) -> str:
        """The text of the range of ranks ``start..end`` among ``present`` ranked values."""
        if start == 0 and end == present - 1:
            return STAR
        if isinstance(self.dimension, NumberDimension):
            low = self._threshold(start - 1) if start > 0 else None
            high = self._threshold(end) if end < present - 1 else None
            if low is None:
                return f"< {high}"
            if high is None:
                return f">= {low}"
            return f"[{low}, {high})"
        texts = self.dimension._texts()
        return f"[{texts[start]}-{texts[end]}]"

    def _threshold(self, rank: int) -> str:
        """A short value between the values of ``rank`` and ``rank + 1`` (above the first,
        at most the second): what a cut after ``rank`` prints."""
        values = self.dimension.values
        if pd.api.types.is_datetime64_any_dtype(values.dtype):
            return str(self.dimension._texts()[rank + 1])
        below, above = values.iloc[rank], values.iloc[rank + 1]
        if isinstance(below, (int, np.integer)) and isinstance(above, (int, np.integer)):
            return str(_short_integer(int(below), int(above)))
        return _short_decimal(float(below), float(above))


#: no (partition, rank, rows) pairs: labels of a hierarchy read only the ranks
_NOTHING = (np.zeros(0, dtype=np.int64),) * 3


def _short_integer(below: int, above: int) -> int:
    """The integer in (below, above] with the most trailing zeros (the smallest of them)."""
    scale = 10 ** len(str(abs(above - below)))
    while scale > 1:
        candidate = -((-(below + 1)) // scale) * scale  # the first multiple above below
        if candidate <= above:
            return candidate
        scale //= 10
    return below + 1


def _short_decimal(below: float, above: float) -> str:
    """The number of fewest decimals in (below, above], as text (``25``, ``27.25``)."""
    if not (math.isfinite(below) and math.isfinite(above)):
        return repr(above)
    middle = below / 2 + above / 2
    for digits in range(-18, 18):
        candidate = round(middle, digits)
        if below < candidate <= above:
            text = format(Decimal(repr(candidate)).normalize(), "f")
            return text.rstrip("0").rstrip(".") if "." in text else text
    return repr(above)
