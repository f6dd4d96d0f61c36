"""Individual risk: each record's probability of re-identification under a sampling design,
Benedetti and Franconi's measure as sdcMicro computes it.

A record of a sample (a survey drawn with known weights, or a fraction ``f`` of a register)
sits in a class of ``f_k`` sample records sharing its values on the quasi-identifier; the
class holds an unknown ``F_k`` people of the population. An intruder who links the record to
one of them at random picks the right person with probability ``1 / F_k``. Benedetti and
Franconi [1]_ take ``F_k`` given ``f_k`` to be negative binomial with success probability
``p_k = f_k / F̂_k``, where ``F̂_k`` is the sum of the sampling weights of the class (the
Horvitz-Thompson estimate of ``F_k``), and the risk of the record is the expectation of
``1 / F_k``. sdcMicro (``indivRisk``, ``method = "approx"``, which ``measure_risk`` uses)
computes it as Franconi and Polettini [2]_ (section 3) give it:

- ``f_k = 1``: ``p / (1 - p) * log(1 / p)``;
- ``f_k = 2``: ``p / (1 - p) - (p / (1 - p)) ** 2 * log(1 / p)``;
- ``f_k > 2``: ``p / (f_k - (1 - p))``, the approximation for larger classes;
- ``f_k = F̂_k`` (every weight 1: the sample is the population): ``1 / f_k``.

Without weights or a sampling fraction the table is its own population and the risk is
``1 / f_k`` (sdcMicro's ``survey = FALSE``, the prosecutor risk of
:mod:`pandas_anon.detect.prosecutor`). A sampling fraction ``f`` gives every record the weight
``1 / f``, so ``F̂_k = f_k / f``.

Two choices differ from sdcMicro's code and not from its formula:

- The first two cases are computed from ``e = 1 - p = (F̂_k - f_k) / F̂_k`` and
  ``log1p``, and ``f_k = 2`` as the series ``(1 - e) * sum_j e ** (j - 1) / (j (j + 1))``
  when ``e < 0.05``: the same function without the cancellation that makes sdcMicro's
  figure wrong when the weights of a class are barely above 1 (``f = 1 - 1e-9``); both tend
  to ``1 / f_k`` as ``e`` goes to 0, continuously.
- A missing quasi-identifier value: sdcMicro's ``freqCalc`` lets it match every value (a
  record then belongs to several classes); here the record is left out (``dropna=True``,
  its risk is NaN) or its missing value is a value of its own (``dropna=False``), as every
  other figure of pandas-anon counts it.

The sum of the risks is the *expected number of re-identifications* (sdcMicro's
``global_risk_ER``); over the records, the *global risk*.

How close is it to the truth? On the Valle d'Aosta licence file taken as the population
(87,642 records, quasi-identifier birth year, comune, sex and licence category, a missing
sex a value), simple random samples at ``f = 0.01, 0.1, 0.3`` (five seeds each) compared
with the true expected number of re-identifications (the sum of ``1 / F`` over the sampled
records, ``F`` the record's class size in the population): the model *underestimates* it by
77-81 % at ``f = 0.01``, 29-32 % at ``f = 0.1`` and 11-12 % at ``f = 0.3``
(``benchmarks/bench_individual_risk.py``; ``tests/detect/test_individual.py`` holds these
bounds). The negative binomial spreads the unknown ``F_k`` around ``f_k / f``; on a
register whose uniques are mostly small classes of the population (a sample unique at 1 %
usually comes from a class of a handful of people, not of a hundred) that is too many
people, so each sample unique's risk is too low. The figure is exact at ``f = 1``.

References
----------
.. [1] Benedetti and Franconi (1998), "Statistical and technological solutions for
   controlled data dissemination", Pre-proceedings of New Techniques and Technologies for
   Statistics, vol. 1, pp. 225-232.
.. [2] Franconi and Polettini (2004), "Individual Risk Estimation in mu-Argus: A Review",
   Privacy in Statistical Databases, LNCS 3050, pp. 262-272, section 3.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pandas_anon import formatting as fmt
from pandas_anon import params
from pandas_anon.detect.figures import QID
from pandas_anon.detect.population import check_population
from pandas_anon.engine.backends import is_dask
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.engine.columns import as_label_list, require_data, resolve_columns
from pandas_anon.engine.weights import weight_column
from pandas_anon.errors import InvalidParameterError, InvalidQIDError

#: What a caller may pass as sampling weights: a column label, or one weight per row.
SamplingWeights = Hashable | Sequence[float] | np.ndarray | pd.Series

#: Below this ``e = 1 - p`` the risk of a class of two is summed as a series (16 terms reach
#: the last bit of a double there).
_SERIES_BELOW = 0.05
_SERIES_TERMS = 16


@dataclass(frozen=True, repr=False)
class IndividualRisk:
    """Each record's re-identification risk under a sampling design, and their sum.

    Attributes
    ----------
    qid : tuple of hashable
        The quasi-identifier columns, in the frame's column order.
    design : str
        ``"weights"``, ``"sampling fraction"`` or ``"population"`` (neither given: the table
        is its own population and the risk is ``1 / f_k``).
    sampling_fraction : float or None
        The fraction given, else None.
    risk : pandas.Series
        Each record's risk (float, aligned to the frame's index, named ``individual_risk``),
        NaN on the records left out for a missing value (``dropna=True``).
    sample_frequency : pandas.Series
        Each record's ``f_k``, the records of its class in the table (float, NaN where left
        out).
    population_frequency : pandas.Series
        Each record's ``F̂_k``, the sum of the sampling weights of its class: the estimated
        people of the population sharing its values (NaN where left out).
    examined : int
        The records examined.
    dropped : int
        The records left out for a missing ``qid`` value (0 with ``dropna=False``).
    expected_reidentifications : float
        The sum of the risks: the expected number of records re-identified by an intruder
        linking every record to the population (sdcMicro's ``global_risk_ER``).
    global_risk : float
        That sum over the records examined (sdcMicro's ``global_risk``).
    max_risk : float
        The highest risk of a record.
    threshold : float
        The risk above which a record is counted in ``above_threshold``.
    above_threshold : int
        The records whose risk is above ``threshold``.

    See Also
    --------
    pandas_anon.individual_risk : The function that returns it.
    pandas_anon.risk : Sample and population uniques of a quasi-identifier.
    """

    qid: tuple[Hashable, ...]
    design: str
    sampling_fraction: float | None
    threshold: float
    risk: pd.Series = field(compare=False)
    sample_frequency: pd.Series = field(compare=False)
    population_frequency: pd.Series = field(compare=False)
    dropped: int = 0

    @property
    def examined(self) -> int:
        return int(self.risk.notna().sum())

    @property
    def expected_reidentifications(self) -> float:
        return float(self.risk.sum())

    @property
    def global_risk(self) -> float:
        return self.expected_reidentifications / self.examined

    @property
    def max_risk(self) -> float:
        return float(self.risk.max())

    @property
    def above_threshold(self) -> int:
        return int((self.risk > self.threshold).sum())

    def to_dict(self) -> dict:
        return {
            "qid": list(self.qid),
            "design": self.design,
            "sampling_fraction": self.sampling_fraction,
            "examined": self.examined,
            "dropped": self.dropped,
            "expected_reidentifications": self.expected_reidentifications,
            "global_risk": self.global_risk,
            "max_risk": self.max_risk,
            "threshold": self.threshold,
            "above_threshold": self.above_threshold,
        }

    def __repr__(self) -> str:
        design = self.design
        if self.sampling_fraction is not None:
            design = f"{design} {self.sampling_fraction:g}"
        return fmt.render(
            f"Individual risk of {fmt.columns(self.qid)}",
            [
                ("design", design),
                ("examined / dropped", f"{fmt.count(self.examined)} / {fmt.count(self.dropped)}"),
                ("expected re-identifications", f"{self.expected_reidentifications:,.4f}"),
                ("global risk", fmt.percent(self.global_risk)),
                ("highest risk", f"{self.max_risk:.4f}"),
                (
                    f"records above {self.threshold:g}",
                    f"{fmt.count(self.above_threshold)} "
                    f"({fmt.percent(self.above_threshold / self.examined)})",
                ),
            ],
        )


def individual_risk(
    frame: pd.DataFrame,
    qid: QID,
    *,
    weights: SamplingWeights | None = None,
    sampling_fraction: float | None = None,
    threshold: float = 0.1,
    dropna: bool = True,
) -> IndividualRisk:
    """Each record's probability of re-identification, Benedetti and Franconi's individual
    risk as sdcMicro's ``measure_risk`` computes it, and the expected re-identifications.

    The table is a sample of a population: ``weights`` give each record's sampling weight
    (the people it stands for: 1 / its probability of being drawn), or ``sampling_fraction``
    gives every record the weight ``1 / f``. The records sharing a combination of ``qid``
    values form a class of ``f_k`` records; their weights add up to ``F̂_k``, the estimated
    people of the population in the class. A record's risk is the expected ``1 / F_k`` when
    ``F_k`` given ``f_k`` is negative binomial with ``p = f_k / F̂_k`` [1]_, in Franconi and
    Polettini's closed forms [2]_ (:mod:`pandas_anon.detect.individual`). Without either the
    table is its own population and the risk is ``1 / f_k``. The figures are computed per
    class, on the frequency set, and spread back to the records.
    ``df.anon.individual_risk(qid, ...)`` is the same function as an accessor.

    Against the truth (Valle d'Aosta's licence file as the population, samples at 1 %, 10 %
    and 30 %), the expected re-identifications fall short of the true figure by 77-81 %,
    29-32 % and 11-12 %: read it as a lower bound on a register of small classes.

    Parameters
    ----------
    frame : pandas.DataFrame
        The sample, never modified.
    qid : label or iterable of labels
        The quasi-identifier: one column label, or several.
    weights : label, sequence of float, numpy.ndarray or pandas.Series, optional
        The sampling weight of each record: the label of a column (not in ``qid``), or one
        number per row, taken by position. Each weight is at least 1 (a record stands for
        itself and possibly others), finite and present. These are survey design weights,
        not the people-per-row counts of an aggregated table that :func:`pandas_anon.risk`
        takes as ``weights``. Not with ``sampling_fraction``.
    sampling_fraction : float, optional
        The share of the population drawn, in (0, 1] (or text such as ``"10%"``): every
        record's weight is then ``1 / sampling_fraction``. Not with ``weights``.
    threshold : float, default 0.1
        Count the records whose risk is above this, in [0, 1] (0.1 is the floor of the
        records sdcMicro prints as at high risk).
    dropna : bool, default True
        Leave out the records missing a ``qid`` value (their risk is NaN). False: a missing
        value is a value of its own.

    Returns
    -------
    IndividualRisk
        ``risk`` (a Series aligned to the frame), ``sample_frequency`` and
        ``population_frequency`` (``f_k`` and ``F̂_k`` of each record),
        ``expected_reidentifications`` (the sum of the risks), ``global_risk`` (their mean),
        ``max_risk``, ``above_threshold``, ``examined`` and ``dropped``.

    Raises
    ------
    InvalidParameterError
        Both ``weights`` and ``sampling_fraction``; a ``sampling_fraction`` outside (0, 1];
        ``weights`` not one per row, or holding a weight that is missing, not a number, not
        finite or below 1 (the message counts them and gives the first position, never a
        value); a ``threshold`` outside [0, 1]; a Dask frame.
    InvalidQIDError
        ``qid`` is empty, names a column twice, or holds the ``weights`` column.
    ColumnNotFoundError
        A ``qid`` column, or the ``weights`` column, is not in the frame.
    DuplicateColumnsError
        A name in ``qid`` labels several columns of the frame.
    EmptyDataError
        The frame has no rows, or (``dropna=True``) every row misses a ``qid`` value.
    AllMissingColumnError
        A ``qid`` column holds only missing values.
    UnhashableValueError
        A ``qid`` column holds values that cannot be compared (lists, dicts, sets).

    See Also
    --------
    pandas_anon.risk : Sample uniques, prosecutor risk and population uniques.
    pandas_anon.suda : Special uniques: the records unique on few columns.

    References
    ----------
    .. [1] Benedetti and Franconi (1998), "Statistical and technological solutions for
       controlled data dissemination", Pre-proceedings of New Techniques and Technologies
       for Statistics, vol. 1, pp. 225-232.
    .. [2] Franconi and Polettini (2004), "Individual Risk Estimation in mu-Argus: A
       Review", Privacy in Statistical Databases, LNCS 3050, pp. 262-272, section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {
    ...         "year": [1980, 1980, 1980, 1991, 1975],
    ...         "sex": ["f", "f", "f", "m", "m"],
    ...         "w": [10.0, 20.0, 30.0, 50.0, 1.0],
    ...     }
    ... )
    >>> r = pandas_anon.individual_risk(df, ["year", "sex"], weights="w")
    >>> r.risk.round(4).tolist()
    [0.0244, 0.0244, 0.0244, 0.0798, 1.0]
    >>> round(r.expected_reidentifications, 4), r.above_threshold
    (1.153, 1)

    The last record stands for itself alone: its class is the population's, risk 1.
    With a sampling fraction of 10 % every record weighs 10:

    >>> r = df.anon.individual_risk(["year", "sex"], sampling_fraction=0.1)
    >>> r.risk.round(4).tolist()
    [0.0476, 0.0476, 0.0476, 0.2558, 0.2558]
    """
    if is_dask(frame):
        raise InvalidParameterError(
            "individual_risk reads a pandas DataFrame: compute() the Dask frame into pandas "
            "first (only the qid and weights columns are needed)"
        )
    require_data(params.frame(frame))
    if weights is not None and sampling_fraction is not None:
        raise InvalidParameterError(
            "weights and sampling_fraction both given: pass one of them (each record's "
            "sampling weight, or the share of the population drawn, which weighs every "
            "record 1 / sampling_fraction)"
        )
    check_population(None, sampling_fraction)
    fraction = (
        None
        if sampling_fraction is None
        else params.fraction(sampling_fraction, "sampling_fraction")
    )
    threshold = params.fraction(threshold, "threshold")
    qid = _outside(frame, qid, weights)
    drawn = None if weights is None else sampling_weights(frame, weights)
    tabulation = tabulate(frame, qid, dropna=bool(params.flag(dropna, "dropna")))
    fk = tabulation.frequencies.counts.astype(np.float64)
    big_fk: np.ndarray
    if drawn is not None:
        examined = drawn if tabulation.positions is None else drawn[tabulation.positions]
        big_fk = np.bincount(tabulation.row_combination, weights=examined, minlength=len(fk))
        design = "weights"
    elif fraction is not None:
        big_fk = fk / fraction
        design = "sampling fraction"
    else:
        big_fk = fk
        design = "population"
    per_class = class_risk(fk, big_fk)

    def spread(values: np.ndarray, name: str) -> pd.Series:
        out = np.full(len(frame), np.nan)
        rows = values[tabulation.row_combination]
        if tabulation.positions is None:
            out[:] = rows
        else:
            out[tabulation.positions] = rows
        return pd.Series(out, index=frame.index, name=name)

    return IndividualRisk(
        qid=tabulation.frequencies.columns,
        design=design,
        sampling_fraction=fraction,
        threshold=threshold,
        risk=spread(per_class, "individual_risk"),
        sample_frequency=spread(fk, "fk"),
        population_frequency=spread(big_fk, "Fk"),
        dropped=tabulation.n_dropped,
    )


def class_risk(fk: np.ndarray, big_fk: np.ndarray) -> np.ndarray:
    """Benedetti and Franconi's risk of a record of each class: ``fk`` records in the sample,
    weights adding up to ``big_fk`` (at least ``fk``), in sdcMicro's approximation
    (``indivRisk(method = "approx")``); ``1 / fk`` where ``big_fk == fk``."""
    fk = np.asarray(fk, dtype=np.float64)
    big_fk = np.asarray(big_fk, dtype=np.float64)
    e = (big_fk - fk) / big_fk  # 1 - p, exact where it matters
    p = fk / big_fk
    risk = 1.0 / fk  # f_k == F̂_k: the class is the population's
    sampled = e > 0
    large = sampled & (fk > 2)
    risk[large] = p[large] / (fk[large] - e[large])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_inverse = -np.log1p(-e)  # log(1 / p)
        odds = p / e  # p / (1 - p)
    one = sampled & (fk == 1)
    risk[one] = odds[one] * log_inverse[one]
    two = sampled & (fk == 2)
    direct = two & (e >= _SERIES_BELOW)
    risk[direct] = odds[direct] - odds[direct] ** 2 * log_inverse[direct]
    series = two & (e < _SERIES_BELOW)
    risk[series] = _pair_series(e[series])
    return risk


def _pair_series(e: np.ndarray) -> np.ndarray:
    """``p/(1-p) - (p/(1-p))**2 log(1/p)`` at ``p = 1 - e`` for small ``e``, summed as
    ``(1 - e) sum_{j >= 1} e**(j - 1) / (j (j + 1))`` (no cancellation)."""
    total = np.zeros_like(e)
    for j in range(_SERIES_TERMS, 0, -1):  # Horner, smallest terms first
        total = total * e + 1.0 / (j * (j + 1))
    return (1.0 - e) * total


def sampling_weights(frame: pd.DataFrame, weights: SamplingWeights) -> np.ndarray:
    """Each row's sampling weight (float64) from a column label or one number per row (taken
    by position); :class:`~pandas_anon.errors.InvalidParameterError` naming ``weights`` for
    anything else, or for weights missing, not numbers, not finite or below 1 (counted, the
    first position given, no value shown)."""
    column = weight_column(frame, weights)
    if column is not None:
        (column,) = resolve_columns(frame, [column])
        values = frame[column]
        name = f"weights column {column!r}"
    else:
        array = np.asarray(weights.to_numpy() if isinstance(weights, pd.Series) else weights)
        if array.ndim != 1 or len(array) != len(frame):
            raise InvalidParameterError(
                f"weights must be a column label or one sampling weight per row "
                f"({len(frame):,} rows), got {type(weights).__name__} of shape {array.shape}"
            )
        values = pd.Series(array)
        name = "weights"
    if pd.api.types.is_bool_dtype(values.dtype):
        raise InvalidParameterError(
            f"{name} holds true/false values, not sampling weights: pass each record's weight, "
            f"a number of at least 1 (1 / its probability of being drawn)"
        )
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    missing = ~np.isfinite(numbers)
    small = ~missing & (numbers < 1)
    for bad, what in ((missing, "missing, not a number or not finite"), (small, "below 1")):
        if bad.any():
            raise InvalidParameterError(
                f"{name}: {fmt.plural(int(bad.sum()), 'weight')} {what} (the first at position "
                f"{int(np.flatnonzero(bad)[0])}); a sampling weight is the number of people a "
                f"record stands for, at least 1 (1 / its probability of being drawn): fix or "
                f"drop those records"
            )
    return numbers


def _outside(frame: pd.DataFrame, qid: QID, weights: object) -> QID:
    """``qid``, refused when it holds the ``weights`` column (a weight describes no one)."""
    column = weight_column(frame, weights)
    if column is not None and column in as_label_list(qid, frame.columns):
        raise InvalidQIDError(
            f"the weights column {column!r} is inside the quasi-identifier; a sampling weight "
            f"describes the design, not the person: leave it out"
        )
    return qid
