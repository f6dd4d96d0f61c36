"""What a transformation keeps and what it risks, measured the same way for every method.

:func:`measure` reads a :class:`~pandas_anon.anonymization.transformation.Transformation`
(never the method that made it): its output classes are the combinations grouped by what the
quasi-identifiers are written as, suppressed rows in none. The figures:

- **precision** (Sweeney 2002, "Achieving k-Anonymity Privacy Protection Using
  Generalization and Suppression", section 4): the mean over rows and quasi-identifiers of
  level / height, a suppressed row counting 1 on every quasi-identifier; only when every
  column is written along a hierarchy, else None. Exact: a fraction over lcm(heights).
- **discernibility** DM (Bayardo and Agrawal 2005): the sum over kept classes of
  |class|^2, plus n for each suppressed row.
- **C_avg** (LeFevre et al. 2006): (rows kept / classes kept) / k.
- **GCP**, the global certainty penalty (Ghinita et al. 2007, "Fast Data Anonymization with
  Low Information Loss", section 2, built on Xu et al. 2006's NCP): the mean over rows and
  quasi-identifiers of the NCP of the value written, in [0, 1]. A written value stands for
  every original value of the table written as it (a reader cannot tell them apart): for a
  number or a date, NCP is their range over the column's range; otherwise their count less
  one over the column's distinct values less one. A value kept as read and written for no
  other costs 0, a missing one 0, a suppressed one 1.
- **risk after**: prosecutor risk (:mod:`pandas_anon.detect.prosecutor`) and sample
  uniques of the kept classes.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.anonymization.recoding import KEEP
from pandas_anon.anonymization.transformation import Transformation, WrittenCodes
from pandas_anon.detect import prosecutor
from pandas_anon.engine.grouping import weighted_keys


@dataclass(frozen=True)
class Utility:
    """The figures of one transformation (see the module)."""

    rows: int
    suppressed: int
    kept_sizes: np.ndarray
    precision: Fraction | None
    ncp: dict[Hashable, float]  # per quasi-identifier: the mean NCP of its cells
    k: int

    @property
    def gcp(self) -> float:
        """The global certainty penalty: the mean of the columns' NCP."""
        return sum(self.ncp.values()) / len(self.ncp) if self.ncp else 0.0

    @property
    def classes(self) -> int:
        return len(self.kept_sizes)

    @property
    def smallest(self) -> int:
        """The k reached: the smallest kept class (0 when none is kept)."""
        return int(self.kept_sizes.min()) if len(self.kept_sizes) else 0

    @property
    def dm(self) -> int:
        return discernibility(self.kept_sizes, self.suppressed, self.rows)

    @property
    def c_avg(self) -> float:
        return average_class_size(self.kept_sizes, self.k)

    def metrics(self) -> dict[str, float]:
        """The information-loss figures, as reports show them."""
        found: dict[str, float] = {}
        if self.precision is not None:
            found["precision"] = float(self.precision)
        found.update(dm=self.dm, c_avg=self.c_avg, gcp=self.gcp)
        return found

    def risk(self) -> dict[str, float]:
        """The risk left in the kept classes, as reports show it."""
        return {
            "prosecutor_max": prosecutor.highest(self.smallest) if self.classes else 0.0,
            "prosecutor_avg": (
                prosecutor.average(self.classes, int(self.kept_sizes.sum()))
                if self.classes
                else 0.0
            ),
            "sample_uniques": int((self.kept_sizes == 1).sum()),
        }


def discernibility(kept_sizes: np.ndarray, suppressed: int, n_rows: int) -> int:
    """DM: the sum of |class|^2 over kept classes, plus n for each suppressed row (exact)."""
    return int((kept_sizes.astype(np.int64) ** 2).sum()) + n_rows * suppressed


def average_class_size(kept_sizes: np.ndarray, k: int) -> float:
    """C_avg: the mean kept class size over k (inf when no class is kept)."""
    return (int(kept_sizes.sum()) / len(kept_sizes)) / k if len(kept_sizes) else float("inf")


def level_shares(levels: Sequence[np.ndarray], heights: Sequence[int]) -> tuple[np.ndarray, int]:
    """Each combination's levels (``levels``: one array per quasi-identifier) as an integer
    G, with the denominator D such that G / D is the mean of level / height
    (D = q lcm(heights))."""
    common = math.lcm(*heights)
    share = np.zeros(len(levels[0]), dtype=np.int64)
    for level, height in zip(levels, heights):
        share += level * (common // height)
    return share, len(heights) * common


def measure(transformation: Transformation, k: int) -> Utility:
    """The utility and risk figures of ``transformation``, for a release meant to be
    ``k``-anonymous (what C_avg divides by)."""
    frequencies = transformation.tabulation.frequencies
    counts, suppressed = frequencies.counts, transformation.suppressed
    kept = ~suppressed
    written = transformation.written_codes()
    if kept.any():
        label, n = transformation.output_classes(written)
        sizes = np.bincount(label[kept], weights=counts[kept], minlength=n).astype(np.int64)
        sizes = sizes[sizes > 0]  # classes of suppressed combinations only are no classes
    else:
        sizes = np.zeros(0, dtype=np.int64)
    n_suppressed = int(counts[suppressed].sum())
    return Utility(
        rows=frequencies.n_rows,
        suppressed=n_suppressed,
        kept_sizes=sizes,
        precision=_precision(transformation),
        ncp=_ncp_by_column(transformation, written),
        k=k,
    )


def _precision(transformation: Transformation) -> Fraction | None:
    """Exact precision, or None unless every column is written along a hierarchy."""
    recodings = [transformation.recodings[c] for c in transformation.qid]
    heights = tuple(r.hierarchy.height for r in recodings if r.hierarchy is not None)
    written = [r.levels for r in recodings if r.levels is not None]
    if len(heights) < len(recodings) or len(written) < len(recodings):
        return None
    counts, suppressed = transformation.tabulation.frequencies.counts, transformation.suppressed
    n_suppressed = int(counts[suppressed].sum())
    if len(counts) and all(r.by_value is not None for r in recodings):  # one level each
        common = math.lcm(*heights)
        share = sum(int(level[0]) * (common // h) for level, h in zip(written, heights))
        total = share * (int(counts.sum()) - n_suppressed)
        scale = len(heights) * common
    else:
        shares, scale = level_shares(written, heights)
        total = int((shares[~suppressed] * counts[~suppressed]).sum())
    return Fraction(total + scale * n_suppressed, scale * transformation.n_rows)


def _ncp_by_column(transformation: Transformation, written: WrittenCodes) -> dict[Hashable, float]:
    """Each quasi-identifier's NCP, averaged over the rows (a suppressed cell costs 1)."""
    frequencies = transformation.tabulation.frequencies
    suppressed = transformation.suppressed
    kept: slice | np.ndarray = (
        np.flatnonzero(~suppressed) if suppressed.any() else slice(None)  # all: no copies
    )
    counts = frequencies.counts[kept]
    penalty = float(frequencies.counts[suppressed].sum())  # a suppressed cell costs 1
    found: dict[Hashable, float] = {}
    for column in transformation.qid:
        original = frequencies.codes[:, frequencies.position(column)]
        values = frequencies.values[column]
        by_value = frequencies.value_rows(column)
        held = by_value > 0
        if values.hasnans:  # the values present in the table
            held &= ~np.asarray(pd.isna(values), dtype=bool)
        numbers = _as_numbers(values, frequencies.dtypes.get(column))
        codes, labels = written[column]
        recoding = transformation.recodings[column]
        label_of = (  # each value's written code, known when labels are what is written
            np.where(recoding.by_value == KEEP, -1, recoding.by_value)
            if recoding.by_value is not None and labels is recoding.labels
            else None
        )
        label, code, rows = _pairs(
            codes[kept],
            original[kept],
            counts,
            len(values),
            by_value if isinstance(kept, slice) else None,
            label_of,
        )
        found[column] = (_cost(held, numbers, label, code, rows) + penalty) / frequencies.n_rows
    return found


def _pairs(
    written: np.ndarray,
    original: np.ndarray,
    rows: np.ndarray,
    n_values: int,
    by_value: np.ndarray | None = None,
    label_of: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (written code, original code) pairs of the combinations whose written
    value is not missing, with their rows, sorted: per value when each value is written one
    way (a full-domain recoding), else from a table of every pair when it is small beside
    the combinations, else by sorting (:func:`weighted_keys`). The rows of a pair are
    added up in the combinations' order either way (the same floats). ``by_value``: the
    rows of each value, when every combination is read (the frequency set's own count);
    ``label_of``: each value's written code, when known to be written one way."""
    if label_of is None:
        label_of = np.full(n_values, -1, dtype=np.int64)
        label_of[original] = written
        one_way = np.array_equal(label_of[original], written)
    else:
        one_way = True
    if one_way:  # each value written one way
        if by_value is None:
            by_value = np.bincount(original, weights=rows, minlength=n_values)
        code = np.flatnonzero((by_value > 0) & (label_of >= 0))
        code = code[np.argsort(label_of[code], kind="stable")]  # by label, then by code
        return label_of[code], code, by_value[code]
    present = written >= 0
    key = written[present].astype(np.int64) * n_values + original[present]
    if not len(key):
        return key, key, rows[:0]
    pairs, found = weighted_keys(key, rows[present], (int(written.max()) + 1) * n_values)
    return pairs // n_values, pairs % n_values, found


def _cost(
    held: np.ndarray,
    numbers: np.ndarray | None,
    label: np.ndarray,
    code: np.ndarray,
    rows: np.ndarray,
) -> float:
    """The rows times NCP of the written values, read from the (``label``, original ``code``)
    pairs with their ``rows``: a written value's NCP is the spread of the original values
    written as it, over the spread of the values the table holds (``held``, per value code;
    ``numbers``: the values as finite floats, NaN otherwise, or None for values that are
    not numbers). A value written as itself and as nothing else costs 0; a missing one too."""
    if not len(label):
        return 0.0
    n = int(label.max()) + 1
    if numbers is not None:
        numbers = numbers / 2  # ranges of halves: no overflow from -1e308 to 1e308
        finite = np.isfinite(numbers) & held
        if not finite.any():
            return 0.0
        domain = float(numbers[finite].max() - numbers[finite].min())
        if domain <= 0:
            return 0.0
        known = finite[code]
        low = np.full(n, np.inf)
        high = np.full(n, -np.inf)
        np.minimum.at(low, label[known], numbers[code[known]])
        np.maximum.at(high, label[known], numbers[code[known]])
        spread = np.where(high >= low, (high - low) / domain, 0.0)
    else:
        domain = int(held.sum()) - 1
        if domain <= 0:
            return 0.0
        distinct = np.bincount(label[held[code]], minlength=n)
        spread = np.maximum(distinct - 1, 0) / domain
    return float(np.bincount(label, weights=rows, minlength=n) @ spread)


def _as_numbers(values: pd.Index, dtype: Any) -> np.ndarray | None:
    """The values of a column of ``dtype`` as floats (dates as nanoseconds), missing and
    infinite ones as NaN; None when the column holds neither numbers nor dates."""
    if dtype is None or isinstance(dtype, pd.StringDtype):
        return None
    if pd.api.types.is_datetime64_any_dtype(dtype):
        numbers = pd.DatetimeIndex(values).asi8.astype(float)
        numbers[np.asarray(pd.isna(values), dtype=bool)] = np.nan
        return numbers
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        return None
    if values.dtype.kind in "iuf":  # plain numpy numbers: no object round trip
        numbers = values.to_numpy(dtype=float)
    else:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    return np.where(np.isfinite(numbers), numbers, np.nan)
