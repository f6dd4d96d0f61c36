"""How Mondrian reads one quasi-identifier: an order to cut along, a width, and labels.

Every column becomes a *dimension* over the combinations of the frequency set: each
combination gets a ``rank`` (its value's place in the column's order), a partition's extent
in the column is measured as a *width* in [0, 1] (normalized, so that columns of different
units compare: LeFevre et al. 2006, section 4.2, "choose_dimension"), a cut follows a *key*
(the rank itself, or for a hierarchy the child of the partition's lowest common ancestor),
and a final partition is labelled from the values it holds.

- **numbers** (and dates, as numbers): ranked by value, compared exactly (as floats, whole
  numbers beyond 2**53 would tie or swap); width = the partition's range over
  the column's range; label ``[low-high]`` (``[low, high]`` when the column has negative
  numbers; dates in ISO form), or a summary value (mean, median, mid-range).
- **ordered categories** (an ordered categorical without a hierarchy): ranked in category
  order; width = the partition's span of categories over the column's; label ``[first-last]``.
- **unordered values** without a hierarchy: ranked in sorted order of their text, so that a
  cut splits the partition's set of values in two; width = its distinct values less one over
  the column's less one; label the set, ``{a, b, c}``, or past :data:`LISTED_VALUES` values
  its first values and its size, ``{a, b, c, d, ... (9 values)}`` (two sets of one size
  and the same first values are then one label: one class, larger).
- **a hierarchy** given for the column: values ranked so that every subtree is contiguous;
  the partition's values are generalized to their lowest common ancestor, a cut separates
  that ancestor's children; width = the leaves under the ancestor less one over all leaves
  less one; label the ancestor's label.

A missing value ranks after every value: it is one more value, as everywhere in the library,
and a label covering it says so (``... or missing``), but for dates: a partition holding dates
and missing values is written ``*`` in that column (the top of its hierarchy, as a suppressed
cell is written), so that every date cell of the release reads as a date or a range of dates.
A partition holding a single value of a column keeps it as read.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow

from pandas_anon.anonymization.recoding import KEEP
from pandas_anon.engine.encoding import factorize, numeric_values
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.datetimes import text_dates, zone_of
from pandas_anon.hierarchy.model import TOP

#: How a numeric column's partitions may be written.
REPRESENTATIONS = ("range", "mean", "median", "midrange")
#: The label of missing values in a range that also covers them.
MISSING = "missing"
#: The most values a set is written with; a longer one is written by the first of them and
#: its size (``{a, b, c, d, ... (9 values)}``), so that a label stays readable.
LISTED_VALUES = 5


Held = tuple[np.ndarray, np.ndarray, np.ndarray]  # (partition, rank, rows) pairs, sorted


@dataclass
class Dimension:
    """One quasi-identifier as Mondrian cuts it (see the module): each combination's
    ``rank``, the value of each rank (``values``; a missing value last when ``missing``)."""

    column: Hashable
    rank: np.ndarray  # per combination
    values: pd.Series
    missing: bool

    #: whether :meth:`width` reads the distinct ranks (the others read the extent alone)
    reads_distinct: ClassVar[bool] = False

    @property
    def n_ranks(self) -> int:
        return len(self.values)

    @property
    def present(self) -> int:
        """Ranks that are values (not missing)."""
        return self.n_ranks - int(self.missing)

    def width(self, low: np.ndarray, high: np.ndarray, distinct: np.ndarray) -> np.ndarray:
        """The normalized width of partitions spanning ranks ``low..high`` with ``distinct``
        ranks in use."""
        raise NotImplementedError

    def cut_key(self, rank: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """What a cut follows for combinations of ``rank`` in partitions spanning
        ``low..high``: the rank itself, unless a hierarchy says otherwise."""
        return rank

    def labels(
        self,
        low: np.ndarray,
        high: np.ndarray,
        distinct: np.ndarray,
        held: Held,
        represent: str,
    ) -> tuple[np.ndarray, pd.Index]:
        """Each final partition's label in this column: its code in the returned index, or
        :data:`KEEP` when the partition holds one value. ``held``: the distinct (partition,
        rank) pairs, sorted, with their rows."""
        several = distinct[held[0]] > 1  # a partition of one value keeps it: no label
        held = (held[0][several], held[1][several], held[2][several])
        signature = self._signature(low, high, held) if represent == "range" else None
        if signature is None:
            return _coded(self._labels(low, high, held, represent), distinct, represent != "range")
        # partitions of one signature have one label: write it once, for the first of them
        _, first, inverse = np.unique(
            np.where(distinct > 1, signature, -1), return_index=True, return_inverse=True
        )
        by_appearance = np.argsort(first, kind="stable")
        which = np.empty_like(by_appearance)
        which[by_appearance] = np.arange(len(by_appearance))
        shown = first[by_appearance]
        pick = np.full(len(low), -1, dtype=np.int64)
        pick[shown] = np.arange(len(shown))
        taken = pick[held[0]] >= 0
        held = (pick[held[0][taken]], held[1][taken], held[2][taken])
        texts = self._labels(low[shown], high[shown], held, represent)
        codes, index = _coded(texts, distinct[shown])
        return codes[which[inverse.ravel()]], index

    def _labels(self, low: np.ndarray, high: np.ndarray, held: Held, represent: str) -> np.ndarray:
        raise NotImplementedError

    def _signature(self, low: np.ndarray, high: np.ndarray, held: Held) -> np.ndarray | None:
        """Per partition, a number (at least 0) that is the same for partitions written with
        the same range label (None: no such number), for partitions holding several values:
        here the lowest and highest rank."""
        return low * self.n_ranks + high

    def _ranges(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """``[first-last]`` of each partition (``... or missing`` when it holds missing
        values too), or its one value."""
        with_missing = (high == self.n_ranks - 1) & self.missing
        top = np.where(with_missing, high - 1, high)
        text = self._texts()
        first, last = text[np.maximum(low, 0)], text[np.maximum(top, 0)]
        ranges = np.where(top > low, "[" + first + self._joint() + last + "]", first)
        suffix = np.where(top >= low, " or " + MISSING, MISSING).astype(object)
        with_suffix = np.where(top >= low, ranges, "") + suffix
        return np.where(with_missing, with_suffix, ranges).astype(object)

    def _joint(self) -> str:
        return "-"

    def _texts(self) -> np.ndarray:
        """Each rank's value as text (dates in ISO form, without a time at midnight)."""
        values = self.values
        if pd.api.types.is_datetime64_any_dtype(values.dtype):
            values = _instants(values)
            clock = values.dropna().dt  # read, not normalized: that overflows at the limits
            midnight = bool(
                (
                    (clock.hour == 0)
                    & (clock.minute == 0)
                    & (clock.second == 0)
                    & (clock.microsecond == 0)
                    & (clock.nanosecond == 0)
                ).all()
            )
            form = (
                values.dt.strftime("%Y-%m-%d")
                if midnight
                else values.map(lambda v: v.isoformat(), na_action="ignore")
            )
            return form.fillna(MISSING).to_numpy(dtype=object)
        if _whole_floats(values):  # years read as floats for a missing one: 1967, not 1967.0
            numbers, missing = numeric_values(values)
            texts = np.where(missing, 0, numbers).astype(np.int64).astype(str).astype(object)
            texts[missing] = MISSING
            return texts
        return np.array([str(v) for v in values], dtype=object)


@dataclass
class NumberDimension(Dimension):
    """Numbers and dates, ranked by value: ``numbers`` gives each rank's value as a float
    (dates in their unit since the epoch), ``scale`` each rank's place as widths read it."""

    numbers: np.ndarray
    scale: np.ndarray

    def width(self, low: np.ndarray, high: np.ndarray, distinct: np.ndarray) -> np.ndarray:
        known_high = np.minimum(high, self.present - 1)  # missing ranks last: its extent
        span = self.scale[self.present - 1] - self.scale[0] if self.present else 0.0
        spread = np.where(known_high >= low, self.scale[known_high] - self.scale[low], 0.0)
        mixed = (high >= self.present) & (low < self.present)  # numbers and missing: widest
        if span <= 0:
            return np.where(mixed, 1.0, 0.0)
        return np.where(mixed, 1.0, spread / span)

    def _labels(self, low: np.ndarray, high: np.ndarray, held: Held, represent: str) -> np.ndarray:
        if represent != "range":
            return self._summaries(len(low), held, represent)  # every row, even a missing one
        ranges = self._ranges(low, high)
        if self.dates:  # no range of dates "or missing" reads back as dates: the column's top
            ranges[self.missing & (high == self.n_ranks - 1) & (high > low)] = TOP
            zone = zone_of(pd.Index(self.values))
            if zone is not None:  # dates in a time zone: the label names it, as dates() does
                ranges[np.char.startswith(ranges.astype(str), "[")] += f" {zone}"
        return ranges

    def _joint(self) -> str:
        if self.dates:  # an ISO 8601 interval: 1989-04-14/1989-06-02
            return "/"
        return ", " if self.present > 0 and self.numbers[0] < 0 else "-"

    @property
    def dates(self) -> bool:
        return pd.api.types.is_datetime64_any_dtype(self.values.dtype)

    def _summaries(self, n: int, held: Held, represent: str) -> np.ndarray:
        """Each partition's mean, weighted median or mid-range (missing values left out)."""
        partition, rank, rows = held
        known = rank < self.present
        partition, rank, rows = partition[known], rank[known], rows[known]
        numbers = self.numbers[rank]
        median = np.full(n, -1)  # the rank of each partition's median
        total = np.bincount(partition, weights=rows, minlength=n)
        if represent == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                found = np.bincount(partition, weights=numbers * rows, minlength=n) / total
        elif represent == "midrange":
            low = np.full(n, np.inf)
            high = np.full(n, -np.inf)
            with np.errstate(invalid="ignore"):  # -inf and inf, or a NaN value: no middle
                np.minimum.at(low, partition, numbers)
                np.maximum.at(high, partition, numbers)
                found = low / 2 + high / 2  # halves: no overflow near the float limits
        elif not len(partition):  # no partition holds two values
            found = np.full(n, np.nan)
        else:  # the weighted median: pairs are sorted by partition, then rank (value)
            offset = np.concatenate([[0.0], np.cumsum(total)])[partition]
            past_half = np.flatnonzero(2 * (np.cumsum(rows) - offset) >= total[partition])
            first = past_half[np.r_[True, np.diff(partition[past_half]) != 0]]
            found = np.full(n, np.nan)
            found[partition[first]] = numbers[first]
            median[partition[first]] = rank[first]
        out = found.astype(object)
        out[np.isnan(found)] = ""  # only missing values (kept as read), or no middle
        if pd.api.types.is_integer_dtype(self.values.dtype):
            self._whole(out, found, partition, rank, median)
        return out

    def _whole(
        self,
        out: np.ndarray,
        found: np.ndarray,
        partition: np.ndarray,
        rank: np.ndarray,
        median: np.ndarray,
    ) -> None:
        """Write the summaries of a column of whole numbers as whole numbers where they are
        (values are compared as written: ``1983.0`` is not ``1983``), and as the very value
        where the summary is one of the partition's values (its median, or the mean of a
        partition holding one value): a float has 53 bits, a value near 2**62 more."""
        low = np.full(len(out), np.iinfo(np.int64).max)
        high = np.full(len(out), -1)
        np.minimum.at(low, partition, rank)
        np.maximum.at(high, partition, rank)
        whole = np.flatnonzero(np.isfinite(found) & (np.floor(found) == found))
        out[whole] = [int(v) for v in found[whole]]
        exact = np.where(median >= 0, median, np.where(high == low, low, -1))
        at = np.flatnonzero(exact >= 0)
        out[at] = self.values.to_numpy(dtype=object)[exact[at]]


@dataclass
class TextDateDimension(NumberDimension):
    """Text every value of which writes a date (:func:`~pandas_anon.hierarchy.datetimes.text_dates`):
    ranked by date (``numbers``: seconds since the epoch), a range written from its first and
    last values as read: ``[first/last]``, an ISO 8601 interval, or ``[first, last]`` when
    the dates are written with ``/`` (``21/12/1983/02/01/1984`` would not read back). Like
    dates, written as ranges only."""

    @property
    def dates(self) -> bool:
        return True

    def _joint(self) -> str:
        texts = self.values.iloc[: self.present]
        return ", " if texts.str.contains("/", regex=False).any() else "/"


@dataclass
class OrderedDimension(Dimension):
    """An ordered categorical without a hierarchy, ranked in category order."""

    def width(self, low: np.ndarray, high: np.ndarray, distinct: np.ndarray) -> np.ndarray:
        return (high - low) / max(self.n_ranks - 1, 1)

    def _labels(self, low: np.ndarray, high: np.ndarray, held: Held, represent: str) -> np.ndarray:
        return self._ranges(low, high)


@dataclass
class SetDimension(Dimension):
    """Unordered values without a hierarchy, ranked in sorted order of their text, so that
    a cut splits a partition's set of values in two."""

    reads_distinct: ClassVar[bool] = True

    def width(self, low: np.ndarray, high: np.ndarray, distinct: np.ndarray) -> np.ndarray:
        return (distinct - 1) / max(self.n_ranks - 1, 1)

    def _labels(self, low: np.ndarray, high: np.ndarray, held: Held, represent: str) -> np.ndarray:
        """``{a, b, c}``: the values each partition holds, in rank order (missing last); a
        set of more than :data:`LISTED_VALUES` by its first values and its size,
        ``{a, b, c, d, ... (9 values)}``."""
        partition, rank, _ = held
        text = self._texts()
        if self.missing:
            text[-1] = MISSING
        out = np.full(len(low), "", dtype=object)
        if not len(partition):
            return out
        firsts = np.flatnonzero(np.r_[True, partition[1:] != partition[:-1]])
        sizes = np.diff(np.r_[firsts, len(partition)])
        long = sizes > LISTED_VALUES
        listed = np.where(long, LISTED_VALUES - 1, sizes)
        last = firsts + listed - 1  # the last value written of each set
        pieces = text[rank] + ", "  # each value, then a comma but after the last
        pieces[last] = text[rank[last]] + np.where(
            long, ", ... (" + sizes.astype(str).astype(object) + " values)}", "}"
        )
        pieces[firsts] = "{" + pieces[firsts]
        position = np.arange(len(partition)) - np.repeat(firsts, sizes)
        written = position < np.repeat(listed, sizes)
        starts = np.r_[0, np.cumsum(listed)[:-1]]
        out[partition[firsts]] = np.add.reduceat(pieces[written], starts)
        return out

    def _signature(self, low: np.ndarray, high: np.ndarray, held: Held) -> np.ndarray | None:
        """The set of ranks held, as bits (None beyond 62 ranks)."""
        partition, rank, _ = held
        if self.n_ranks > 62:
            return None
        bits = np.zeros(len(low), dtype=np.int64)
        if len(partition):
            firsts = np.flatnonzero(np.r_[True, partition[1:] != partition[:-1]])
            bits[partition[firsts]] = np.bitwise_or.reduceat(np.left_shift(1, rank), firsts)
        return bits


@dataclass
class HierarchyDimension(Dimension):
    """A column with a hierarchy: ranks in which every subtree is contiguous; ``tree`` gives
    each rank's ancestor code per level, ``leaves`` the leaves under each (level, code)."""

    hierarchy: Hierarchy
    tree: np.ndarray
    leaves: np.ndarray

    def ancestor_level(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The level of the lowest common ancestor of ranks ``low..high`` (every subtree
        being contiguous in rank order, the two ends decide)."""
        level = np.zeros(len(low), dtype=np.int64)
        for at in range(self.tree.shape[0]):
            differs = self.tree[at, low] != self.tree[at, high]
            level = np.where(differs, at + 1, level)
        return level

    def width(self, low: np.ndarray, high: np.ndarray, distinct: np.ndarray) -> np.ndarray:
        level = self.ancestor_level(low, high)
        code = self.tree[level, low]
        total = max(self.tree.shape[1] - 1, 1)  # every leaf (and missing) less one
        return (self.leaves[level, code] - 1) / total

    def cut_key(self, rank: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The child of the partition's common ancestor holding the value."""
        below = np.maximum(self.ancestor_level(low, high) - 1, 0)
        return self.tree[below, rank]

    def levels(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The level each partition is written at (the ancestor's, at most the top)."""
        return np.minimum(self.ancestor_level(low, high), self.hierarchy.height)

    def _labels(self, low: np.ndarray, high: np.ndarray, held: Held, represent: str) -> np.ndarray:
        """The label of each partition's lowest common ancestor (a partition of missing
        values only, whose ancestor below the top is the missing leaf: ``missing``)."""
        level = self.levels(low, high)
        code = self.tree[level, low]
        out = np.empty(len(low), dtype=object)
        for at in np.unique(level):
            chosen = level == at
            labels = self.hierarchy.labels(int(at)).to_numpy(dtype=object)
            out[chosen] = np.append(labels, MISSING)[code[chosen]]
        return out


def dimension(
    frequencies: FrequencySet, column: Hashable, hierarchy: Hierarchy | None
) -> Dimension:
    """The dimension of ``column`` over the combinations of ``frequencies``."""
    codes = frequencies.codes[:, frequencies.position(column)]
    values = frequencies.values[column]
    held = np.bincount(codes, minlength=len(values)) > 0
    missing_code = np.asarray(pd.isna(values), dtype=bool)
    has_missing = bool((held & missing_code).any())
    if hierarchy is not None:
        return _hierarchy_dimension(column, codes, values, held, has_missing, hierarchy)
    decoded = frequencies.decode(column, np.arange(len(values)))
    dtype: Any = frequencies.dtypes.get(column, values.dtype)
    known = np.flatnonzero(held & ~missing_code)
    categories = dtype.categories if isinstance(dtype, pd.CategoricalDtype) else None
    ordered = categories is not None and bool(dtype.ordered)
    stamps = None if _is_number(dtype) or ordered else text_dates(pd.Index(decoded.iloc[known]))
    if stamps is not None:  # text that writes dates: ranked by date, written as read
        order = known[np.argsort(stamps.as_unit("s").asi8, kind="stable")]
        seconds = np.sort(stamps.as_unit("s").asi8).astype(float)
        if has_missing:
            order = np.append(order, np.flatnonzero(held & missing_code)[:1])
            seconds = np.append(seconds, np.nan)
        rank_of = np.full(len(values), len(order) - 1, dtype=np.int64)
        rank_of[order] = np.arange(len(order))
        ranked = decoded.iloc[order].reset_index(drop=True)
        return TextDateDimension(
            column,
            rank_of[codes],
            ranked,
            has_missing,
            seconds,
            _widths_scale(seconds, has_missing),
        )
    if _is_number(dtype):
        order = known[np.argsort(_exact(decoded.iloc[known]), kind="stable")]
    elif categories is not None and ordered:
        order = known[np.argsort(categories.get_indexer(values[known]), kind="stable")]
    else:
        texts = np.array([str(v) for v in decoded.iloc[known]], dtype=object)  # the distinct
        order = known[np.argsort(texts, kind="stable")]  # (Arrow text holds no lone surrogate)
    if has_missing:
        order = np.append(order, np.flatnonzero(held & missing_code)[:1])
    rank_of = np.full(len(values), len(order) - 1, dtype=np.int64)  # every missing code: last
    rank_of[order] = np.arange(len(order))
    ranked = decoded.iloc[order].reset_index(drop=True)
    if _is_number(dtype):
        numbers = _floats(ranked)
        return NumberDimension(
            column,
            rank_of[codes],
            ranked,
            has_missing,
            numbers,
            _widths_scale(numbers, has_missing),
        )
    kind = OrderedDimension if ordered else SetDimension
    return kind(column, rank_of[codes], ranked, has_missing)


def _hierarchy_dimension(
    column: Hashable,
    codes: np.ndarray,
    values: pd.Index,
    held: np.ndarray,
    has_missing: bool,
    hierarchy: Hierarchy,
) -> HierarchyDimension:
    """Ranks in which every subtree of ``hierarchy`` is contiguous: the leaves sorted by their
    ancestors' codes from the top down; a missing value is one more leaf, a child of the top."""
    position = hierarchy.positions(values, column=column, counts=held.astype(np.int64))
    n_leaves = len(hierarchy.values)
    levels = hierarchy.n_levels
    tree = np.zeros((levels, n_leaves + 1), dtype=np.int64)
    for at in range(levels):
        tree[at, :n_leaves] = hierarchy.codes(at)
        tree[at, n_leaves] = 0 if at == hierarchy.height else len(hierarchy.labels(at))
    order = np.lexsort(tuple(tree[at] for at in range(levels)))  # top level most significant
    leaf_rank = np.empty(n_leaves + 1, dtype=np.int64)
    leaf_rank[order] = np.arange(n_leaves + 1)
    leaf = np.where(position < 0, n_leaves, position)
    leaves = np.zeros((levels, int(tree.max()) + 1), dtype=np.int64)
    for at in range(levels):
        leaves[at, : int(tree[at].max()) + 1] = np.bincount(tree[at])
    ranked = pd.Series([*hierarchy.values, None], dtype=object).iloc[order]
    return HierarchyDimension(
        column,
        leaf_rank[leaf[codes]],
        ranked.reset_index(drop=True),
        has_missing,
        hierarchy,
        tree[:, order],
        leaves,
    )


def check_representation(column: Hashable, dimension: Dimension, represent: str) -> None:
    """Refuse a summary representation for a column that holds no numbers."""
    if represent not in REPRESENTATIONS:
        raise InvalidParameterError(
            f"represent for column {column!r} must be one of {', '.join(map(repr, REPRESENTATIONS))}, "
            f"got {represent!r}"
        )
    if represent != "range" and (not isinstance(dimension, NumberDimension) or dimension.dates):
        raise InvalidParameterError(
            f"represent={represent!r} writes a number for each class of column {column!r}, "
            f"which holds no numbers; use 'range' (the default)"
        )


def _coded(
    texts: np.ndarray, distinct: np.ndarray, numbers: bool = False
) -> tuple[np.ndarray, pd.Index]:
    """Codes of each partition's label among the distinct labels; :data:`KEEP` for a
    partition holding a single value, which keeps it as read. ``numbers``: the labels are
    summary values, kept as numbers (a float column, not text)."""
    texts = texts.astype(object)
    texts[distinct == 1] = None
    labelled = pd.Series(texts, dtype=object)
    # numbers as pandas compares them (a whole summary 2 and a mean 2.0 are one label); text
    # as written (told apart past a NUL character)
    codes, labels = pd.factorize(labelled) if numbers else factorize(labelled)
    index = pd.Index(list(labels)) if numbers and len(labels) else pd.Index(labels, dtype=object)
    return np.where(codes < 0, KEEP, codes).astype(np.int64), index


def _is_number(dtype: Any) -> bool:
    return pd.api.types.is_datetime64_any_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    )


def _whole_floats(values: pd.Series) -> bool:
    """Whether ``values`` are floats every known one of which is a whole number a float
    holds exactly (at most 2**53 in magnitude): whole numbers pandas read as floats, as it
    reads a column of years with a missing value."""
    if not pd.api.types.is_float_dtype(values.dtype):
        return False
    numbers, missing = numeric_values(values)
    known = numbers[~missing]
    return bool(len(known)) and bool(
        (np.isfinite(known) & (np.floor(known) == known) & (np.abs(known) <= 2.0**53)).all()
    )


def _widths_scale(numbers: np.ndarray, has_missing: bool) -> np.ndarray:
    """The ranked numbers as widths measure them: halved (no overflow across the float range),
    missing at the largest number; ordinal positions when some are infinite (no range)."""
    scale = numbers / 2
    if has_missing:
        scale[-1] = scale[-2] if len(scale) > 1 else 0.0
    if not np.isfinite(scale).all():
        return np.arange(len(scale), dtype=float)
    return scale


def _exact(values: pd.Series) -> np.ndarray:
    """Numbers or dates (none missing) as an array that sorts them exactly: as floats,
    whole numbers beyond 2**53 (and dates in nanoseconds) tie or swap, and a range written
    from the first and last of a wrongly ordered partition leaves out values it holds."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return _instants(values).astype("int64").to_numpy()
    dtype: Any = getattr(values.dtype, "numpy_dtype", values.dtype)  # a nullable one's numpy's
    return values.to_numpy(dtype=dtype)


def _floats(values: pd.Series) -> np.ndarray:
    """Numbers or dates as floats (dates in their unit since the epoch)."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return _instants(values).astype("int64").to_numpy(dtype=float, copy=True)
    return numeric_values(values)[0]


def _instants(values: pd.Series) -> pd.Series:
    """Dates as instants whose integers pandas can read: a date of Arrow's date types (a
    ``date32[pyarrow]`` column, as ``read_parquet`` or ``dtype_backend="pyarrow"`` gives
    them) has none of its own, so it is taken at midnight, in seconds (every date Arrow
    holds fits); other dates as they are."""
    dtype = values.dtype
    if isinstance(dtype, pd.ArrowDtype) and pyarrow.types.is_date(dtype.pyarrow_dtype):
        return values.astype("datetime64[s]")
    return values
