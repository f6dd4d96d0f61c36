"""Special uniques: the minimal sample uniques of each record, SUDA scores and DIS scores, as
sdcMicro's ``suda2`` computes them.

A *minimal sample unique* (MSU) of a record is a set of columns on which the record's values
occur in no other record, while on every proper subset they occur in some other record [1]_.
A record unique on few columns is riskier than one unique only on many: an intruder needs to
know less. SUDA [1]_ scores each record by its MSUs, SUDA2 [2]_ finds them by a recursive
search; sdcMicro (``suda2``, ``original_scores = TRUE``) scores them as Elliot et al. do, and
adds the DIS score of Skinner and Elliot [3]_.

**The search.** On the frequency set of the quasi-identifier (one entry per distinct
combination, with its count of records), level by level: a subset of ``k`` columns refines
the partition of one of its ``(k - 1)``-subsets (its columns less the last) by the last
column. An entry alone in its class (weighing one record) is unique on the subset, and on
every superset; such entries neither split nor share a class again, so each subset carries
forward only the entries in classes of two records or more (*open* entries), and the work
shrinks as the levels deepen. An entry that becomes unique on a subset is an MSU of it when it
is open on each of the subset's ``(k - 1)``-subsets (uniqueness only grows with the columns,
so those subsets decide minimality); a subset one of whose ``(k - 1)``-subsets left no entry
open yields no MSU and is not counted. Records in classes of two or more on the whole
quasi-identifier have no MSU. A missing value is a value of its own that never belongs to an
MSU: sdcMicro's SUDA2 ignores the items holding its missing code, so a record's MSUs avoid its
missing cells, while other records' missing cells differ from its values. The work is at
most one grouping of the open entries per subset of up to ``max_size`` columns:
``sum_k C(columns, k)`` groupings, each over fewer entries than the last.

**The score** of a record is the sum over its MSUs of Elliot et al.'s weight for an MSU of
``k`` columns out of ``M`` with a largest size ``m`` searched: ``prod_{i=k}^{m} (M - i)``.
sdcMicro always searches every size (``m = M``), where the factor ``M - M = 0`` would
weigh every MSU 0; it leaves that factor out, so an MSU of ``k`` columns weighs
``(M - k)!``. Here the product runs to ``min(m, M - 1)``: sdcMicro's weights for the default
``max_size`` (every column), Elliot et al.'s for a smaller one.

**The DIS score** [3]_ estimates the probability that a record's unique match in the
population is correct. With ``U`` sample uniques, ``P`` records in classes of exactly two, and
the sampling fraction ``f`` (sdcMicro's ``DisFraction``, 0.01 by default), the file-level
probability that a unique match is correct is ``dis = U f / (U f + P (1 - f))``; a record of
score ``s > 0`` gets ``1 / (1 + (U / dis - U) / (s ** Q * sum_r s_r ** -Q))`` with
``Q = 1 + (8 - M) / 20`` and the sum over the records of positive score; 0 elsewhere. As in
sdcMicro, ``dis``, ``U / dis - U`` and ``Q`` are computed in single precision.

How close is it to the truth? On the Valle d'Aosta licence file taken as the population
(quasi-identifier birth year, comune, sex, licence category), simple random samples at
``f = 0.01, 0.1, 0.3`` (five seeds each): the sum of a sample's DIS scores, an estimate of
how many of its uniques are unique in the population too (the unique matches that are
correct), is 32-44 % short of the count at ``f = 0.01``, within -11 % to +3 % at ``f = 0.1``
and -4 % to +2 % at ``f = 0.3`` (``benchmarks/bench_individual_risk.py``;
``tests/detect/test_suda.py`` holds these bounds).

Where this module departs from sdcMicro's C++ code (``src/Suda2.h``), each a defect there:

- ``U`` is the number of sample uniques. sdcMicro counts a unique only when it is alone in
  its bucket of a 16-bit hash of its values (its test for a unique sharing a bucket,
  ``k == g_NbPerHash[i]``, can never hold), so on large files its ``U``, and with it every
  DIS score, depends on hash collisions.
- A quasi-identifier of one or two columns is searched as it is. sdcMicro's search needs
  three columns and pads the data with constant columns, which changes ``M`` in the weights
  and in ``Q`` (it warns that the result "might be wrong").

References
----------
.. [1] Elliot, Manning, Mayes, Gurd and Bane (2002), "SUDA: A Program for Detecting Special
   Uniques", Joint UNECE/Eurostat Work Session on Statistical Data Confidentiality,
   sections 2-3.
.. [2] Manning, Haglin and Keane (2008), "A recursive search algorithm for statistical
   disclosure assessment", Data Mining and Knowledge Discovery 16, pp. 165-196, section 4.
.. [3] Skinner and Elliot (2002), "A Measure of Disclosure Risk for Microdata", Journal of
   the Royal Statistical Society: Series B 64(4), pp. 855-867, section 3.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from pandas_anon import formatting as fmt
from pandas_anon import params
from pandas_anon.detect.figures import QID
from pandas_anon.detect.population import check_population
from pandas_anon.detect.subsets import check_max_size
from pandas_anon.engine.backends import is_dask
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.engine.columns import require_data
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.grouping import compress, group_labels
from pandas_anon.errors import InvalidParameterError

#: sdcMicro's ``DisFraction`` when none is given.
DIS_FRACTION = 0.01


@dataclass(frozen=True)
class _Open:
    """A subset's entries in classes of two records or more (ascending positions among the
    frequency set's entries) and the class of each (ids below ``n_classes``)."""

    entries: np.ndarray
    classes: np.ndarray
    n_classes: int


def minimal_uniques(
    frequencies: FrequencySet, max_size: int
) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
    """Each subset of at most ``max_size`` columns (positions, ascending) with its minimal
    sample uniques: the entries of ``frequencies`` (distinct combinations, each weighing its
    count of records) alone on those columns, on none of its proper subsets, and missing no
    value in them. Subsets come by size, then in :func:`itertools.combinations` order; those
    without an MSU are not yielded."""
    n, width = len(frequencies), len(frequencies.columns)
    counts = frequencies.counts.astype(np.float64)
    codes = [np.ascontiguousarray(frequencies.codes[:, j]) for j in range(width)]
    cardinalities = [frequencies.cardinality(c) for c in frequencies.columns]
    missing = [_missing_code(frequencies.values[c]) for c in frequencies.columns]
    everything = _Open(np.arange(n), np.zeros(n, dtype=np.int64), 1)
    previous: dict[tuple[int, ...], _Open] = {(): everything}
    for size in range(1, min(max_size, width) + 1):
        current: dict[tuple[int, ...], _Open] = {}
        for subset in combinations(range(width), size):
            parents = [subset[:i] + subset[i + 1 :] for i in range(size)]
            if any(p not in previous for p in parents):
                continue  # a parent left nothing open: every record is unique on it already
            *_, column = subset
            parent = previous[subset[:-1]]
            key = parent.classes * cardinalities[column] + codes[column][parent.entries]
            grouping = group_labels(key, parent.n_classes * cardinalities[column])
            ids, n_ids = compress(grouping)
            weight = np.bincount(ids, weights=counts[parent.entries], minlength=n_ids)[ids]
            alone = weight == 1
            found = parent.entries[alone]
            for other in parents[:-1]:  # open on each (k - 1)-subset: minimal
                found = found[_member(found, previous[other].entries)]
            for j in subset:
                if missing[j] is not None:
                    found = found[codes[j][found] != missing[j]]
            if len(found):
                yield subset, found
            if size < max_size and not alone.all():
                shared = ~alone
                classes = ids[shared].astype(np.int64, copy=False)  # times a cardinality next
                current[subset] = _Open(parent.entries[shared], classes, n_ids)
        previous = current
        if not previous:
            return


def _member(values: np.ndarray, ascending: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in the ascending array ``ascending``."""
    at = np.searchsorted(ascending, values)
    inside = at < len(ascending)
    held = np.zeros(len(values), dtype=bool)
    held[inside] = ascending[at[inside]] == values[inside]
    return held


def _missing_code(values: pd.Index) -> int | None:
    """The code of the missing value among a column's ``values`` (None: no missing value)."""
    where = np.flatnonzero(values.isna())
    return int(where[0]) if len(where) else None


def score_weights(width: int, max_size: int) -> np.ndarray:
    """Elliot et al.'s weight of an MSU of each size ``1..max_size`` among ``width`` columns:
    ``prod_{i=k}^{min(max_size, width - 1)} (width - i)`` (sdcMicro's ``(width - k)!`` when
    every size is searched)."""
    last = min(max_size, width - 1)
    return np.array(
        [float(np.prod([width - i for i in range(k, last + 1)])) for k in range(1, max_size + 1)]
    )


def dis_scores(
    scores: np.ndarray, width: int, uniques: int, paired: int, fraction: float
) -> tuple[float, np.ndarray]:
    """sdcMicro's file-level ``dis`` and each score's DIS score (0 for a score of 0), its
    single-precision steps kept: ``uniques`` sample uniques, ``paired`` records in classes of
    exactly two, sampling fraction ``fraction``, ``width`` columns."""
    f32 = np.float32
    f = f32(fraction)
    with np.errstate(divide="ignore", invalid="ignore"):
        dis = f32(uniques) * f / (f32(uniques) * f + f32(paired) * (f32(1) - f))
        excess = float(f32(uniques) / dis - f32(uniques))
    q = float(f32(1) + (f32(8) - f32(width)) / f32(20))
    scored = scores > 0
    powered = np.power(scores[scored], q)
    adjust = float(np.sum(1.0 / powered))
    out = np.zeros(len(scores))
    out[scored] = 1.0 / (1.0 + excess / (powered * adjust))
    return float(dis), out


@dataclass(frozen=True, repr=False)
class Suda:
    """Minimal sample uniques per record, with their SUDA and DIS scores.

    Attributes
    ----------
    qid : tuple of hashable
        The quasi-identifier columns, in the frame's column order.
    max_size : int
        The largest MSU searched (columns).
    sampling_fraction : float
        The sampling fraction the DIS score assumes.
    score : pandas.Series
        Each record's SUDA score (float, aligned to the frame's index, named
        ``suda_score``): the sum of its MSUs' weights; 0 for a record without MSU.
    dis_score : pandas.Series
        Each record's DIS score (``dis_suda_score``): the estimated probability that its
        unique match in the population is correct; 0 without MSU.
    msu_counts : pandas.DataFrame
        Each record's MSUs by size: one int column per size ``1..max_size``.
    column_contributions : pandas.Series
        Each QID column's share of the total score, in percent (sdcMicro's
        ``attribute_contributions``): the weights of the MSUs holding the column over the
        sum of the scores (a column shares each MSU it is in; the shares add up to more
        than 100 when MSUs hold several columns). NaN when no record has an MSU.
    msus_by_size : dict
        The MSUs found, by size (over every record).
    dis : float
        The file-level probability that a unique match is correct (``U f / (U f + P (1 -
        f))``); NaN for a table with neither sample uniques nor pairs.
    sample_uniques : int
        Records unique on the whole QID (``U``).
    records_with_msus : int
        Records with at least one MSU: the special uniques of size up to ``max_size``.

    See Also
    --------
    pandas_anon.suda : The function that returns it.
    """

    qid: tuple[Hashable, ...]
    max_size: int
    sampling_fraction: float
    dis: float
    sample_uniques: int
    msus_by_size: dict[int, int]
    score: pd.Series = field(compare=False)
    dis_score: pd.Series = field(compare=False)
    msu_counts: pd.DataFrame = field(compare=False)
    column_contributions: pd.Series = field(compare=False)

    @property
    def records_with_msus(self) -> int:
        return int((self.score > 0).sum())

    def to_dict(self) -> dict:
        return {
            "qid": list(self.qid),
            "max_size": self.max_size,
            "sampling_fraction": self.sampling_fraction,
            "sample_uniques": self.sample_uniques,
            "records_with_msus": self.records_with_msus,
            "msus_by_size": dict(self.msus_by_size),
            "dis": self.dis,
            "column_contributions": {
                str(c): float(v) for c, v in self.column_contributions.items()
            },
        }

    def __repr__(self) -> str:
        by_size = ", ".join(f"{k}: {fmt.count(v)}" for k, v in self.msus_by_size.items())
        contributions = pd.DataFrame(
            {
                "column": [str(c) for c in self.column_contributions.index],
                "contribution %": self.column_contributions.to_numpy(),
            }
        )
        return fmt.render(
            f"SUDA of {fmt.columns(self.qid)}",
            [
                ("largest MSU searched", fmt.plural(self.max_size, "column")),
                ("sample uniques", fmt.count(self.sample_uniques)),
                ("records with MSUs", fmt.count(self.records_with_msus)),
                ("MSUs by size", by_size or "none"),
                ("highest SUDA score", fmt.number(float(self.score.max()))),
                (f"DIS (sampling fraction {self.sampling_fraction:g})", f"{self.dis:.6f}"),
                ("highest DIS score", f"{float(self.dis_score.max()):.6f}"),
            ],
            ("Column contributions to the total score", contributions),
        )


def suda(
    frame: pd.DataFrame,
    qid: QID,
    *,
    max_size: int | None = None,
    sampling_fraction: float = DIS_FRACTION,
) -> Suda:
    """Find each record's minimal sample uniques and score it, as sdcMicro's ``suda2`` does.

    A minimal sample unique (MSU) of a record is a set of ``qid`` columns on which no other
    record shares its values, while on each smaller set some record does [1]_: the fewer
    columns, the less an intruder must know. Each MSU of ``k`` columns adds Elliot et al.'s
    weight to the record's SUDA score, ``(M - k)!`` for ``M`` columns when every size is
    searched (sdcMicro's default); the DIS score [3]_ turns the scores into the probability
    that the record's unique match in the population is correct, given the sampling
    fraction. The search runs on the frequency set, level by level, each subset refining one
    of its parents on the records not yet unique (:mod:`pandas_anon.detect.suda`, where the
    two departures from sdcMicro's code are described). ``df.anon.suda(qid, ...)`` is the
    same function as an accessor.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, never modified.
    qid : label or iterable of labels
        The quasi-identifier (sdcMicro's key variables). A missing value is a value of its
        own that never belongs to an MSU.
    max_size : int, optional
        The largest MSU searched, in columns (default: every column, as sdcMicro). The work
        grows with the subsets of up to ``max_size`` columns, ``sum_k C(M, k)``, each one
        grouping of the records still not unique; with a smaller ``max_size`` a record
        unique only on more columns scores 0, and the weights are Elliot et al.'s for that
        size.
    sampling_fraction : float, default 0.01
        The fraction of the population the table holds, in (0, 1], for the DIS score
        (sdcMicro's ``DisFraction``, whose default this is).

    Returns
    -------
    Suda
        ``score`` and ``dis_score`` (Series aligned to the frame), ``msu_counts`` (a
        DataFrame of each record's MSUs by size), ``msus_by_size``, ``column_contributions``,
        ``dis``, ``sample_uniques`` and ``records_with_msus``.

    Raises
    ------
    InvalidParameterError
        A ``max_size`` that is not a whole number of at least 1; a ``sampling_fraction``
        outside (0, 1]; a Dask frame.
    InvalidQIDError, ColumnNotFoundError, DuplicateColumnsError
        ``qid`` is empty, repeats a column, or names a column the frame lacks (or holds
        twice).
    EmptyDataError
        The frame has no rows.
    AllMissingColumnError
        A ``qid`` column holds only missing values.
    UnhashableValueError
        A ``qid`` column holds values that cannot be compared (lists, dicts, sets).

    See Also
    --------
    pandas_anon.individual_risk : Each record's re-identification risk under a sampling
        design.
    pandas_anon.risk : Sample uniques, prosecutor risk and population uniques.

    References
    ----------
    .. [1] Elliot, Manning, Mayes, Gurd and Bane (2002), "SUDA: A Program for Detecting
       Special Uniques", Joint UNECE/Eurostat Work Session on Statistical Data
       Confidentiality, sections 2-3.
    .. [2] Manning, Haglin and Keane (2008), "A recursive search algorithm for statistical
       disclosure assessment", Data Mining and Knowledge Discovery 16, pp. 165-196.
    .. [3] Skinner and Elliot (2002), "A Measure of Disclosure Risk for Microdata", Journal
       of the Royal Statistical Society: Series B 64(4), pp. 855-867.

    Examples
    --------
    The example of the SDC Practice Guide (Benschop, Machingauta and Welch 2019, section
    "SUDA"): ten records, four columns.

    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {
    ...         "residence": ["U", "U", "U", "U", "R", "U", "U", "U", "U", "U"],
    ...         "gender": ["F", "F", "F", "M", "F", "M", "F", "M", "F", "F"],
    ...         "education": ["SI", "SI", "PI", "SC", "SC", "SC", "PC", "PS", "SI", "SI"],
    ...         "labour": ["E", "E", "N", "E", "U", "E", "N", "U", "N", "N"],
    ...     }
    ... )
    >>> s = pandas_anon.suda(df, list(df.columns))
    >>> s.score.tolist()
    [0.0, 0.0, 6.0, 0.0, 12.0, 0.0, 6.0, 10.0, 0.0, 0.0]

    The fifth record is the only rural one (an MSU of one column, weight 3! = 6), the only
    woman with a complete secondary education (``SC``), the only unemployed woman and the
    only unemployed with a complete secondary education (three MSUs of two columns, 2! = 2
    each):

    >>> s.msu_counts.iloc[4].tolist()
    [1, 3, 0, 0]
    >>> s.msus_by_size
    {1: 4, 2: 5, 3: 0, 4: 0}
    """
    if is_dask(frame):
        raise InvalidParameterError(
            "suda reads a pandas DataFrame: compute() the Dask frame into pandas first (only "
            "the qid columns are needed)"
        )
    require_data(params.frame(frame))
    check_max_size(max_size)
    check_population(None, sampling_fraction)  # above 0
    fraction = params.fraction(sampling_fraction, "sampling_fraction")  # and not None
    tabulation = tabulate(frame, qid, dropna=False)
    frequencies = tabulation.frequencies
    width = len(frequencies.columns)
    largest = width if max_size is None else min(int(max_size), width)
    weights = score_weights(width, largest)
    per_size = np.zeros((len(frequencies), largest), dtype=np.int64)
    by_column = np.zeros(width)
    for subset, entries in minimal_uniques(frequencies, largest):
        per_size[entries, len(subset) - 1] += 1
        by_column[list(subset)] += len(entries) * weights[len(subset) - 1]
    scores = per_size @ weights
    counts = frequencies.counts
    uniques = int(np.count_nonzero(counts == 1))
    dis, dis_per_entry = dis_scores(
        scores, width, uniques, 2 * int(np.count_nonzero(counts == 2)), fraction
    )
    rows = tabulation.row_combination
    total = float(scores.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        contributions = 100 * by_column / total
    return Suda(
        qid=frequencies.columns,
        max_size=largest,
        sampling_fraction=fraction,
        dis=dis,
        sample_uniques=uniques,
        msus_by_size={k + 1: int(n) for k, n in enumerate(per_size.sum(axis=0))},
        score=pd.Series(scores[rows], index=frame.index, name="suda_score"),
        dis_score=pd.Series(dis_per_entry[rows], index=frame.index, name="dis_suda_score"),
        msu_counts=pd.DataFrame(per_size[rows], index=frame.index, columns=range(1, largest + 1)),
        column_contributions=pd.Series(
            contributions, index=pd.Index(frequencies.columns, dtype=object), name="contribution"
        ),
    )
