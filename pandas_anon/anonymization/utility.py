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
- **unchanged share**: the share of the released quasi-identifier cells written as read
  (:func:`unchanged_share`): one less the report's cells modified (its ``changed`` rows per
  quasi-identifier, suppressed cells included, values compared as written) over rows times
  quasi-identifiers. The columns outside the quasi-identifier are released as read and are
  not counted (they would only dilute it). Known once the output is written.
- **query error** (:func:`query_error`): the mean relative error of every 1- and 2-way count
  query over the quasi-identifier columns, as an open-data user estimates it from the
  release under the uniform-spread assumption of LeFevre, DeWitt and Ramakrishnan 2006
  ("Mondrian Multidimensional k-Anonymity", section "Experimental Evaluation": a workload
  of count queries answered with values uniform within each region) and Xiao and Tao 2006
  ("Anatomy: Simple and Effective Privacy Preservation", section 1: estimating a count
  query from a generalized table by assuming values uniform within each generalized value). The queries: for
  each column, each value the original holds (missing is a value); for each pair of
  columns, each pair of values some original row holds. A query's true count is its rows in
  the original; its estimate spreads each released label's rows evenly over the original
  values it stands for (the values of the table written as it, as GCP reads it), and the two
  labels of a released row independently over their values' pairs, and a suppressed row
  evenly over all the column's values (pairs of values). Its relative error is
  ``|estimate - true| / true``; the figure is the mean over all queries, 1- and 2-way
  pooled. Computed on the frequency set with numpy: one table of weighted keys per column
  pair; a pair whose estimate would expand to more than :data:`QUERY_WORK_CAP` entries is
  left out (``queries`` says how many were counted).
- **risk after**: prosecutor risk (:mod:`pandas_anon.detect.prosecutor`) and sample
  uniques of the kept classes.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pandas_anon.anonymization.recoding import KEEP
from pandas_anon.detect import prosecutor
from pandas_anon.engine.encoding import numeric_values
from pandas_anon.engine.grouping import weighted_keys
from pandas_anon.engine.hashing import COMPILED, group, kernels
from pandas_anon.engine.parallel import PARALLEL_MIN_ROWS, thread_map

if TYPE_CHECKING:  # the transformation's report is measured here: no import at run time
    from pandas_anon.anonymization.transformation import Transformation, WrittenCodes


@dataclass(frozen=True)
class Utility:
    """The figures of one transformation (see the module)."""

    rows: int
    suppressed: int
    kept_sizes: np.ndarray
    precision: Fraction | None
    ncp: dict[Hashable, float]  # per quasi-identifier: the mean NCP of its cells
    k: int
    query_error: float = 0.0  # the mean relative error of the 1- and 2-way count queries
    queries: int = 0  # how many queries it is the mean of

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
        found.update(
            dm=self.dm,
            c_avg=self.c_avg,
            gcp=self.gcp,
            query_error=self.query_error,
            queries=self.queries,
        )
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
    error, queries = query_error(transformation, written)
    return Utility(
        rows=frequencies.n_rows,
        suppressed=n_suppressed,
        kept_sizes=sizes,
        precision=_precision(transformation),
        ncp=_ncp_by_column(transformation, written),
        k=k,
        query_error=error,
        queries=queries,
    )


def unchanged_share(changed: Mapping[Any, int], rows: int) -> float:
    """The share of the quasi-identifier cells released as read: one less the cells
    ``changed`` (rows whose value changed, per quasi-identifier, suppressed cells included)
    over ``rows`` times the quasi-identifiers; 1.0 when there is no cell."""
    cells = rows * len(changed)
    return 1.0 - sum(int(n) for n in changed.values()) / cells if cells else 1.0


#: The most entries the 2-way estimates of one pair of columns may expand to (released
#: label pairs times the values of a label, plus, unless gathered by a matrix product,
#: queried pairs times the labels of a value; in the cheaper orientation): a pair beyond
#: it is left out of :func:`query_error` (and of its count of queries).
QUERY_WORK_CAP = 1 << 25


@dataclass(frozen=True)
class _Spread:
    """One quasi-identifier as :func:`query_error` reads it: value and label codes with
    missing a code of its own (the last), and which original values each label stands for."""

    original: np.ndarray  # each combination's value code
    written: np.ndarray  # each output class's label code
    n_values: int
    n_labels: int
    truth: np.ndarray  # the rows holding each value, in the original
    present: int  # the values the original holds
    label_rows: np.ndarray  # the kept rows written as each label
    share: np.ndarray  # per label: one over the values it stands for (0: none)
    label_start: np.ndarray  # (label, value) members by label: where each label's start
    member_labels: np.ndarray  # ... their labels
    label_values: np.ndarray  # ... and their values
    value_start: np.ndarray  # the same members by value: where each value's start
    value_labels: np.ndarray  # ... and their labels
    #: labels by values, each label's share on the values it stands for (few of both)
    matrix: np.ndarray | None


def query_error(transformation: Transformation, written: WrittenCodes) -> tuple[float, int]:
    """The mean relative error of the 1- and 2-way count queries over the quasi-identifier
    (see the module), and how many queries it is the mean of. ``written``: the
    transformation's :meth:`~Transformation.written_codes`."""
    frequencies = transformation.tabulation.frequencies
    counts = frequencies.counts.astype(np.float64)
    suppressed = transformation.suppressed
    kept: slice | np.ndarray = np.flatnonzero(~suppressed) if suppressed.any() else slice(None)
    cut = np.flatnonzero(suppressed)
    n_suppressed = float(counts[cut].sum())
    kept_at = np.arange(len(counts))[kept]
    heads: np.ndarray = kept_at  # a combination of each output class, and its rows
    class_rows: np.ndarray = counts[kept_at]
    if len(kept_at):  # the output classes: each written alike in every column
        label, n_classes = transformation.output_classes(written)
        class_rows = np.bincount(label[kept_at], weights=counts[kept_at], minlength=n_classes)
        first = np.zeros(n_classes, dtype=np.int64)
        first[label[kept_at[::-1]]] = kept_at[::-1]
        some = np.flatnonzero(class_rows)
        heads, class_rows = first[some], class_rows[some]
    spreads = [
        _spread(
            frequencies.codes[:, frequencies.position(column)],
            len(frequencies.values[column]),
            *written[column],
            counts,
            kept,
            cut,
            heads,
        )
        for column in transformation.qid
    ]
    total, queries = 0.0, 0
    for one in spreads:
        estimate = (
            np.bincount(
                one.label_values,
                weights=(one.label_rows * one.share)[one.member_labels],
                minlength=one.n_values,
            )
            + n_suppressed / one.present
        )
        held = one.truth > 0
        total += float((np.abs(estimate[held] - one.truth[held]) / one.truth[held]).sum())
        queries += int(held.sum())
    pairs = list(combinations(spreads, 2))
    for found in thread_map(  # in threads on large tables: the kernels release the GIL
        lambda pair: _two_way(*pair, frequencies.counts, class_rows, n_suppressed),
        pairs,
        rows=PARALLEL_MIN_ROWS if len(counts) >= THREADED_PAIRS else 0,
    ):
        if found is not None:
            total += found[0]
            queries += found[1]
    return (total / queries if queries else 0.0), queries


def _spread(
    original: np.ndarray,
    n_read: int,
    codes: np.ndarray,
    labels: pd.Index,
    counts: np.ndarray,
    kept: slice | np.ndarray,
    suppressed: np.ndarray,
    heads: np.ndarray,
) -> _Spread:
    """A column's :class:`_Spread`: ``original``, each combination's value code (-1:
    missing) among ``n_read`` values; ``codes``, its written code (-1: missing) into
    ``labels``; ``counts``, its rows; ``kept`` and ``suppressed``, the combinations kept
    and suppressed; ``heads``, a combination of each output class."""
    n_values, n_labels = n_read + 1, len(labels) + 1
    original = np.where(original < 0, n_read, original).astype(np.int64, copy=False)
    written = np.where(codes < 0, len(labels), codes).astype(np.int64, copy=False)
    members, member_rows = weighted_keys(  # the (label, value) pairs of the kept rows
        written[kept] * n_values + original[kept], counts[kept], n_labels * n_values
    )
    label, value = members // n_values, members % n_values  # by label, then value
    size = np.bincount(label, minlength=n_labels)
    labels_of = np.bincount(value, minlength=n_values)
    truth = np.bincount(value, weights=member_rows, minlength=n_values)
    cut = original[suppressed]
    if len(cut):
        truth += np.bincount(cut, weights=counts[suppressed], minlength=n_values)
    narrow = np.int16 if n_values <= np.iinfo(np.int16).max else np.int64  # a radix sort
    by_value = np.argsort(value.astype(narrow), kind="stable")
    matrix = _matrix(label, value, size, n_labels, n_values)
    return _Spread(
        original=original,
        written=written[heads],
        n_values=n_values,
        n_labels=n_labels,
        truth=truth,
        present=int((truth > 0).sum()),
        label_rows=np.bincount(label, weights=member_rows, minlength=n_labels),
        share=np.divide(1.0, size, out=np.zeros(n_labels), where=size > 0),
        label_start=_starts(size),
        member_labels=label,
        label_values=value,
        value_start=_starts(labels_of),
        value_labels=label[by_value],
        matrix=matrix,
    )


#: The combinations from which a table's column pairs are estimated in threads (below, a
#: pair's work is too small to pay for a thread's hand-over).
THREADED_PAIRS = 20_000

#: The most cells of a column's labels-by-values matrix (:func:`_matrix`), and of the
#: table of labels of one column by values of another it multiplies (:func:`_estimate`);
#: the product's multiplications at most 64 times as many.
_MATRIX = 1 << 18


def _matrix(
    label: np.ndarray, value: np.ndarray, size: np.ndarray, n_labels: int, n_values: int
) -> np.ndarray | None:
    """The labels-by-values matrix of each label's share of its rows on each value it stands
    for, when it is small (:data:`_MATRIX`); else None."""
    if n_labels * n_values > _MATRIX:
        return None
    matrix = np.zeros((n_labels, n_values))
    matrix[label, value] = 1.0 / size[label]
    return matrix


def _starts(sizes: np.ndarray) -> np.ndarray:
    """Where each of consecutive runs of ``sizes`` starts, and the end (one more entry)."""
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    return starts


def _expand(starts: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs ``at`` (indices into ``starts``, :func:`_starts`) laid end to end: for each
    entry, which of ``at`` it expands, and its position in the runs' array."""
    sizes = starts[at + 1] - starts[at]
    if (sizes == 1).all():  # one entry each (a value written one way): no expansion
        return np.arange(len(at)), starts[at]
    which = np.repeat(np.arange(len(at)), sizes)
    ends = np.cumsum(sizes)
    position = np.arange(len(which)) - np.repeat(ends - sizes, sizes) + starts[at][which]
    return which, position


def _two_way(
    a: _Spread,
    b: _Spread,
    counts: np.ndarray,
    class_rows: np.ndarray,
    n_suppressed: float,
) -> tuple[float, int] | None:
    """The summed relative errors of the 2-way queries of columns ``a`` and ``b``, and how
    many; None when their estimate would expand past :data:`QUERY_WORK_CAP`. ``counts``:
    the rows of every combination (whole numbers); ``class_rows``, of each output class."""
    # the pairs of values the original holds with their rows: from a table of every pair
    # where they are few, else hashed in the order of their first combination (no sort)
    keys, cells = a.original * b.n_values + b.original, a.n_values * b.n_values
    if cells <= max(8 * len(keys), 1 << 16):
        truth_keys, truth = weighted_keys(keys, counts, cells)
    else:
        (truth_keys,), whole, _ = group((keys,), counts)
        truth = whole.astype(np.float64)
    value_a, value_b = truth_keys // b.n_values, truth_keys % b.n_values
    label_a, label_b, rows = a.written, b.written, class_rows
    if a.n_labels * b.n_labels <= max(8 * len(rows), 1 << 16):  # by a table: label pairs
        released, rows = weighted_keys(
            label_a * b.n_labels + label_b, rows, a.n_labels * b.n_labels
        )
        label_a, label_b = released // b.n_labels, released % b.n_labels
    work = (  # spread over b's values then gather over a's labels, the other way round,
        _work(a, b, label_b, value_a),  # or gather the label pairs of both values
        _work(b, a, label_a, value_b),
        int((np.diff(a.value_start)[value_a] * np.diff(b.value_start)[value_b]).sum()),
    )
    if min(work) > QUERY_WORK_CAP:
        return None
    way = _cheapest(work)
    if way == 0:
        estimate = _estimate(a, b, label_a, label_b, rows, value_a, value_b)
    elif way == 1:
        estimate = _estimate(b, a, label_b, label_a, rows, value_b, value_a)
    else:
        estimate = _gathered(a, b, label_a, label_b, rows, value_a, value_b)
    estimate += n_suppressed / (a.present * b.present)
    return float((np.abs(estimate - truth) / truth).sum()), len(truth)


def _cheapest(work: tuple[int, ...]) -> int:
    """Which of the ways to estimate a pair's queries expands to the fewest entries."""
    return work.index(min(work))


def _multiplied(x: _Spread, y: _Spread) -> np.ndarray | None:
    """``x``'s matrix when :func:`_estimate` gathers its labels by a matrix product (few
    cells), else None."""
    size = x.n_labels * y.n_values
    return x.matrix if size <= _MATRIX and size * x.n_values <= _MATRIX << 6 else None


def _work(x: _Spread, y: _Spread, label_y: np.ndarray, value_x: np.ndarray) -> int:
    """The entries :func:`_estimate` expands to: the values of ``y``'s labels ``label_y``,
    then (unless by a matrix product) the labels of ``x``'s values ``value_x``."""
    spread = int(np.diff(y.label_start)[label_y].sum())
    if _multiplied(x, y) is not None:
        return spread
    return spread + int(np.diff(x.value_start)[value_x].sum())


def _estimate(
    x: _Spread,
    y: _Spread,
    label_x: np.ndarray,
    label_y: np.ndarray,
    rows: np.ndarray,
    value_x: np.ndarray,
    value_y: np.ndarray,
) -> np.ndarray:
    """The estimated rows of each queried pair (``value_x``, ``value_y``) from the released
    label pairs (``label_x``, ``label_y``, repeated or not) and their ``rows``: each pair's rows
    spread over ``y``'s values of its label (a table of (x label, y value) weights), then
    each query gathering the weights of the ``x`` labels standing for its ``x`` value. By a
    matrix product when both are small, else in the compiled kernel, else by numpy (where
    the kernels could not be compiled, and in the tests that check the kernel)."""
    which, position = _expand(y.label_start, label_y)
    keys = label_x[which] * y.n_values + y.label_values[position]
    weights = (rows * y.share[label_y])[which]
    size = x.n_labels * y.n_values
    matrix = _multiplied(x, y)
    if matrix is not None:  # each value's labels gathered by a product
        table = np.bincount(keys, weights=weights, minlength=size).reshape(x.n_labels, -1)
        return (matrix.T @ table)[value_x, value_y]
    if COMPILED:
        return _spread_gather(x, y, label_x, label_y, rows, value_x, value_y)
    query, position = _expand(x.value_start, value_x)
    labels = x.value_labels[position]
    wanted = labels * y.n_values + value_y[query]
    if size <= max(8 * len(keys), 1 << 16):  # a table of every (x label, y value)
        found = np.bincount(keys, weights=weights, minlength=size)[wanted]
    elif not len(keys):  # every row suppressed
        found = np.zeros(len(wanted))
    else:
        spread_keys, spread = weighted_keys(keys, weights, size)  # distinct: hashed
        at = pd.Index(spread_keys).get_indexer(wanted)  # -1: no released row spreads there
        found = np.where(at >= 0, spread[at], 0.0)
    return np.bincount(query, weights=found * x.share[labels], minlength=len(value_x))


#: The most cells of the compiled estimate's table of (x label, y value) weights (16 MiB).
_BLOCK_CELLS = 1 << 21


def _spread_gather(
    x: _Spread,
    y: _Spread,
    label_x: np.ndarray,
    label_y: np.ndarray,
    rows: np.ndarray,
    value_x: np.ndarray,
    value_y: np.ndarray,
) -> np.ndarray:
    """:func:`_estimate` in the compiled kernel (``kernels.c``): the released pairs sorted by
    ``x`` label spread into a table of as many ``x`` labels as :data:`_BLOCK_CELLS` allows at
    a time, each query gathering from it as its labels come."""
    assert kernels is not None  # see COMPILED
    order = np.argsort(label_x, kind="stable")
    weights = np.ascontiguousarray((rows * y.share[label_y])[order], dtype=np.float64)
    label_x, label_y = (np.ascontiguousarray(a[order], dtype=np.int64) for a in (label_x, label_y))
    value_x, value_y = (np.ascontiguousarray(a, dtype=np.int64) for a in (value_x, value_y))
    out = np.empty(len(value_x))
    kernels.spread_gather(
        len(label_x),
        label_x,
        label_y,
        weights,
        y.label_start,
        y.label_values,
        len(value_x),
        value_x,
        value_y,
        x.value_start,
        x.value_labels,
        x.share,
        x.n_labels,
        y.n_values,
        max(1, _BLOCK_CELLS // y.n_values),
        out,
    )
    return out


def _gathered(
    x: _Spread,
    y: _Spread,
    label_x: np.ndarray,
    label_y: np.ndarray,
    rows: np.ndarray,
    value_x: np.ndarray,
    value_y: np.ndarray,
) -> np.ndarray:
    """What :func:`_estimate` computes, each queried pair (``value_x``, ``value_y``)
    gathering the rows of every released pair of labels standing for its two values, each
    share of them; cheaper when labels stand for many values (wide ranges) but each value
    for few labels."""
    released, released_rows = weighted_keys(
        label_x * y.n_labels + label_y, rows, x.n_labels * y.n_labels
    )
    query, position = _expand(x.value_start, value_x)
    labels_x = x.value_labels[position]
    pair, position = _expand(y.value_start, value_y[query])
    labels_x, labels_y = labels_x[pair], y.value_labels[position]
    wanted = labels_x * y.n_labels + labels_y
    at = np.minimum(np.searchsorted(released, wanted), max(len(released) - 1, 0))
    found = np.zeros(len(wanted))
    if len(released):  # else every row suppressed
        hit = released[at] == wanted
        found[hit] = released_rows[at[hit]] * x.share[labels_x[hit]] * y.share[labels_y[hit]]
    return np.bincount(query[pair], weights=found, minlength=len(value_x))


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
    numbers, _ = numeric_values(values)  # missing: NaN
    return np.where(np.isfinite(numbers), numbers, np.nan)
