"""``pandas_anon.attacks``: WP29's three risks of a release, measured by attacking it.

The Article 29 Working Party (Opinion 05/2014 on anonymisation techniques) asks of a release
that it resists singling out, linkability and inference. Giomi, Boenisch, Wehmeyer and
Tasnádi (2023), "A Unified Framework for Quantifying Privacy Risk in Synthetic Data"
(PoPETs 2023 (2), section 3), measure each by an attack that reads the release and is scored
on the original records it was made from, and on *control* records drawn from the same
population but held back from the release: the risk is the attack's success on the original
beyond its success on the control, ``(attack - control) / (1 - control)``. This module runs
their three attacks as their package, anonymeter 1.1.0, does (its
``evaluators/singling_out_evaluator.py``, ``linkability_evaluator.py``,
``inference_evaluator.py``, ``neighbors/mixed_types_kneighbors.py``, ``stats/confidence.py``),
on integer codes instead of query strings and in numpy instead of Numba, seeded:

- **singling out**: predicates formed on the release that match exactly one of its (distinct)
  records, either one rare value or extreme (``univariate``) or ``n_cols`` attributes of a
  release record, each ``==`` or, for a number, ``>=``/``<=`` towards the side of the median
  it lies on (``multivariate``); success is a predicate matching exactly one original
  record; the baseline draws predicates at random from the release's values and operators;
  the control's count is rescaled to the original's size by anonymeter's fit (Cohen and
  Nissim 2020) when the two differ;
- **linkability**: the attacker holds two tables sharing nobody's columns
  (``link_columns``) of the same targets and links them through the release: a target is
  linked when the release record nearest to its first half is among those nearest to its
  second; the baseline links at random;
- **inference**: the attacker knows a target's ``columns`` but its ``secret`` and guesses
  the secret of the nearest release record; the baseline guesses a random release record's.

The release is compared with the original value for value as written (anonymeter refuses
frames whose column types differ): where a column's dtype differs, as when the release was
read back from a file, each release (and control) value is matched to the original value it
is, written alike or read as it, one to one, or the column is refused naming it; a value
matching none, such as a generalized label, is a value of its own.

Distances are anonymeter's Gower-like ones: a number contributes its absolute difference
divided by the column's range over the release and the targets, any other value 1 when it
differs; both missing count 1, one missing puts the record last. Ties between equally near
records are broken at random, for each target on its own: anonymeter's Numba quicksort
breaks them in one fixed order, the same for every target of the same values, which keeps
the expected number of successes but ties the targets' fates together (one draw decides for
all of them), beyond what the binomial confidence interval assumes. The confidence
intervals are Wilson score intervals propagated to the risk as anonymeter's
``EvaluationResults`` does.
"""

from __future__ import annotations

import datetime
import html
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon import formatting, params
from pandas_anon.engine.columns import as_label_list
from pandas_anon.engine.encoding import factorize, kind_of, written_indexer
from pandas_anon.engine.grouping import mixed_radix
from pandas_anon.errors import (
    ColumnNotFoundError,
    DuplicateColumnsError,
    EmptyDataError,
    InvalidParameterError,
    InvalidQIDError,
    NotAFrameError,
)
from pandas_anon.hierarchy.datetimes import TEXT_DATE_FORMATS

#: The singling-out modes.
MODES = ("multivariate", "univariate")

#: Operator codes of a singling-out predicate on integer codes (``-1`` is missing).
EQ, NE, GT, LT, GE, LE, IS_NULL, NOT_NULL = range(8)
_CATEGORICAL_OPS = np.array([EQ, NE])
_NUMERIC_OPS = np.array([EQ, NE, GT, LT, GE, LE])

#: Attempts the multivariate attack forms its predicates in (anonymeter's batch size).
BATCH = 1000

#: Elements (targets x release combinations) of one chunk of the distance computation.
CHUNK = 1 << 22

#: The most attacks of each kind a call makes (``n_attacks``): at 10,000 the Wilson error of
#: a rate is at most 1 % (at 95 % confidence); the singling-out baseline holds that many
#: predicates, and the control's fit a predicate x control-record matrix of them.
MAX_ATTACKS = 10_000

#: The most multivariate predicates a call forms (``max_attempts``; ``None`` means this
#: many): anonymeter's default. A thousand cost a few milliseconds on a small release, more
#: on one of many distinct records (10 million: about 25 s on a release of 200 records that
#: singles out none of them, on a shared 2-core machine).
MAX_ATTEMPTS = 10_000_000


# -- statistics (anonymeter's stats/confidence.py) -------------------------------------------


@dataclass(frozen=True)
class Rate:
    """A success rate and its error bound: Wilson's score estimate (Wilson 1927) of a
    Bernoulli rate, ``(n_success + z²/2) / (n + z²)`` give or take
    ``z / (n + z²) * sqrt(n_success (n - n_success) / n + z²/4)``, z the normal quantile of
    the confidence level (anonymeter's ``success_rate``)."""

    value: float
    error: float

    @classmethod
    def wilson(cls, n_total: int, n_success: float, confidence_level: float) -> Rate:
        """The Wilson estimate of ``n_success`` successes in ``n_total`` trials."""
        z = NormalDist().inv_cdf(0.5 * (1.0 + confidence_level))  # scipy's norm.ppf
        z2 = z * z
        variance = n_success * (n_total - n_success) / n_total
        denominator = n_total + z2
        return cls(
            (n_success + 0.5 * z2) / denominator,
            z / denominator * math.sqrt(variance + 0.25 * z2),
        )

    def residual(self, control: Rate) -> Rate:
        """The excess of this (attack) rate over the ``control`` rate, normalised by the
        control's margin, ``(a - c) / (1 - c)``, its error propagated to first order
        (anonymeter's ``residual_success``)."""
        value = (self.value - control.value) / (1.0 - control.value)
        d_attack = 1 / abs(1 - control.value)
        d_control = (self.value - 1) / (1 - control.value) ** 2
        return Rate(
            value, math.sqrt((self.error * d_attack) ** 2 + (control.error * d_control) ** 2)
        )

    def bound(self) -> tuple[float, tuple[float, float]]:
        """The value and its interval ``value ± error``, each clipped to [0, 1]
        (anonymeter's ``bind_value``)."""
        clip = lambda x: min(max(x, 0.0), 1.0)  # noqa: E731
        return clip(self.value), (clip(self.value - self.error), clip(self.value + self.error))


@dataclass(frozen=True)
class AttackRisk:
    """One attack's outcome: its risk with the confidence interval, and the success rates
    it is computed from.

    Attributes
    ----------
    attack : str
        ``"singling out"``, ``"linkability"`` or ``"inference"``.
    risk : float
        ``(attack_rate - control_rate) / (1 - control_rate)`` clipped to [0, 1]: the share
        of the attack's room for success that it owes to the original records having been in
        the release rather than to what the release says of anybody in the population.
    ci : tuple of float
        The risk's confidence interval, ``risk ± error`` clipped to [0, 1], the error the
        Wilson errors of both rates propagated.
    attack_rate, baseline_rate, control_rate : float
        Wilson estimates of the success rate of the attack on the original, of the random
        baseline on the original, and of the attack on the control.
    attack_error, baseline_error, control_error : float
        Their error bounds at the confidence level.
    n_attacks : tuple of int
        The attacks scored on the original, by the baseline and on the control.
    n_success, n_baseline : int
        Successes on the original, of the baseline.
    n_control : float
        Successes on the control (singling out: rescaled to the original's size when the two
        differ, so not always a whole number).
    n_queries : int or None
        Singling out: the predicates that could be formed on the release (at most the
        attacks asked for; fewer when the release singles out few records).
    """

    attack: str
    risk: float
    ci: tuple[float, float]
    attack_rate: float
    attack_error: float
    baseline_rate: float
    baseline_error: float
    control_rate: float
    control_error: float
    n_attacks: tuple[int, int, int]
    n_success: int
    n_baseline: int
    n_control: float
    n_queries: int | None = None

    @classmethod
    def measure(
        cls,
        attack: str,
        n_attacks: tuple[int, int, int],
        counts: tuple[int, int, float],
        confidence_level: float,
        n_queries: int | None = None,
    ) -> AttackRisk:
        """The risk of ``counts`` (successes on the original, of the baseline, on the
        control) out of ``n_attacks`` each, as anonymeter's ``EvaluationResults.risk``."""
        n_success, n_baseline, n_control = counts
        rate = Rate.wilson(n_attacks[0], n_success, confidence_level)
        baseline = Rate.wilson(n_attacks[1], n_baseline, confidence_level)
        control = Rate.wilson(n_attacks[2], n_control, confidence_level)
        risk, ci = rate.residual(control).bound()
        return cls(
            attack,
            risk,
            ci,
            rate.value,
            rate.error,
            baseline.value,
            baseline.error,
            control.value,
            control.error,
            n_attacks,
            int(n_success),
            int(n_baseline),
            float(n_control),
            n_queries,
        )


_FIGURES = (
    "risk",
    "ci low",
    "ci high",
    "attack rate",
    "baseline rate",
    "control rate",
    "attacks",
    "successes",
    "baseline successes",
    "control successes",
)


@dataclass(frozen=True, repr=False)
class Attacks:
    """WP29's three risks of a release, each measured by an attack (Giomi et al. 2023).

    The result of :func:`attacks`. Each figure is an estimate from ``n_attacks`` attacks
    with a confidence interval; the same ``seed`` gives the same figures. The result prints
    as a table (one row per attack) and converts with ``to_dict()`` for JSON. It holds no
    value of the data.

    Attributes
    ----------
    singling_out, linkability : AttackRisk
        The two attacks on the release.
    inference : AttackRisk or None
        The inference of ``secret``, None when no secret was given.
    columns : tuple
        The columns the attacks read.
    link_columns : tuple of two tuples
        The linkability attacker's two tables.
    secret : hashable or None
        The column the inference attacker guesses.
    mode : str
        The singling-out attack's predicates: ``"multivariate"`` or ``"univariate"``.
    n_attacks : int
        The attacks asked of each.
    confidence_level : float
        The confidence of the intervals.
    seed : int or None
        Where the random draws came from.

    See Also
    --------
    pandas_anon.attacks : The function that returns it.
    pandas_anon.risk : Re-identification risk counted on the table itself.

    References
    ----------
    .. [1] M. Giomi, F. Boenisch, C. Wehmeyer and B. Tasnádi (2023), "A Unified Framework
       for Quantifying Privacy Risk in Synthetic Data", PoPETs 2023 (2), section 3.
    .. [2] Article 29 Data Protection Working Party (2014), "Opinion 05/2014 on
       Anonymisation Techniques", WP216, section 2.2.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> people = pd.DataFrame({
    ...     "age": rng.integers(20, 90, 300),
    ...     "sex": rng.choice(["F", "M"], 300),
    ...     "city": rng.choice(["Aosta", "Ivrea", "Biella", "Susa", "Bard"], 300),
    ... })
    >>> original, control = people.iloc[:200], people.iloc[200:]
    >>> result = pandas_anon.attacks(original, original, control=control, n_attacks=40)
    >>> result.singling_out.n_queries, result.singling_out.n_success
    (20, 20)
    >>> result.linkability.n_attacks
    (40, 40, 40)
    """

    singling_out: AttackRisk
    linkability: AttackRisk
    inference: AttackRisk | None
    columns: tuple[Hashable, ...]
    link_columns: tuple[tuple[Hashable, ...], tuple[Hashable, ...]]
    secret: Hashable | None
    mode: str
    n_attacks: int
    confidence_level: float
    seed: int | None
    risks: tuple[AttackRisk, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        risks = (self.singling_out, self.linkability, self.inference)
        object.__setattr__(self, "risks", tuple(r for r in risks if r is not None))

    @property
    def table(self) -> pd.DataFrame:
        """One row per attack, indexed by its name: the risk and its interval, the three
        success rates and the counts they come from."""
        rows = [
            (
                r.risk,
                r.ci[0],
                r.ci[1],
                r.attack_rate,
                r.baseline_rate,
                r.control_rate,
                r.n_attacks[0],
                r.n_success,
                r.n_baseline,
                r.n_control,
            )
            for r in self.risks
        ]
        return pd.DataFrame(rows, columns=list(_FIGURES), index=[r.attack for r in self.risks])

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain Python values (for JSON)."""
        return {
            "columns": [str(c) for c in self.columns],
            "link_columns": [[str(c) for c in half] for half in self.link_columns],
            "secret": None if self.secret is None else str(self.secret),
            "mode": self.mode,
            "n_attacks": self.n_attacks,
            "confidence_level": self.confidence_level,
            "seed": self.seed,
            "attacks": {
                r.attack: {
                    "risk": r.risk,
                    "ci": list(r.ci),
                    "attack_rate": r.attack_rate,
                    "attack_error": r.attack_error,
                    "baseline_rate": r.baseline_rate,
                    "baseline_error": r.baseline_error,
                    "control_rate": r.control_rate,
                    "control_error": r.control_error,
                    "n_attacks": list(r.n_attacks),
                    "n_success": r.n_success,
                    "n_baseline": r.n_baseline,
                    "n_control": r.n_control,
                    "n_queries": r.n_queries,
                }
                for r in self.risks
            },
        }

    def __repr__(self) -> str:
        fields = [
            ("columns", formatting.columns(self.columns)),
            ("linkability's tables", formatting.column_sets(self.link_columns)),
            ("secret", "none (inference not run)" if self.secret is None else str(self.secret)),
            ("singling out", f"{self.mode}, {self._queries()}"),
            ("confidence", f"{self.confidence_level:g}"),
            ("seed", str(self.seed)),
        ]
        return formatting.render(self._title(), fields, ("", self._shown()))

    def _repr_html_(self) -> str:
        """The table as a notebook shows it."""
        return f"<p>{html.escape(self._title())}</p>" + self._shown().to_html(index=False)

    def _title(self) -> str:
        return f"WP29's three risks, by attack ({self.n_attacks} attacks each)"

    def _queries(self) -> str:
        formed = self.singling_out.n_queries
        return f"{formed} of {self.n_attacks} predicates formed on the release"

    def _shown(self) -> pd.DataFrame:
        table = self.table
        shown = table.reset_index(names="attack").astype(object)
        for column in _FIGURES[:6]:
            shown[column] = [f"{v:.4f}" for v in table[column]]
        shown["control successes"] = [f"{v:.4g}" for v in table["control successes"]]
        return shown


# -- the tables as codes --------------------------------------------------------------------


@dataclass(frozen=True)
class _Column:
    """One attacked column coded jointly over the original, the release and the control:
    ``codes`` (``-1`` missing; for a number, the rank of its value, so that codes compare as
    the values do) and, for a number, ``values`` (float, NaN missing)."""

    codes: tuple[np.ndarray, np.ndarray, np.ndarray]
    numeric: bool
    values: tuple[np.ndarray, np.ndarray, np.ndarray] | None


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )


def _split(codes: np.ndarray, parts: Sequence[pd.Series]) -> tuple[Any, Any, Any]:
    """``codes`` of the three parts joined, cut back into one array per part."""
    sizes = np.cumsum([0, *(len(p) for p in parts)])
    return tuple(codes[sizes[i] : sizes[i + 1]] for i in range(3))  # type: ignore[return-value]


def _ranked(floats: np.ndarray, parts: Sequence[pd.Series]) -> _Column:
    """A column of numbers (float, NaN missing) coded by the rank of each value."""
    present = ~np.isnan(floats)
    _, ranks = np.unique(floats[present], return_inverse=True)
    codes = np.full(len(floats), -1, dtype=np.int64)
    codes[present] = ranks.ravel()
    return _Column(_split(codes, parts), True, _split(floats, parts))


def _floats(series: pd.Series) -> np.ndarray:
    return series.to_numpy(dtype=float, na_value=np.nan)


def _code_column(column: Hashable, parts: Sequence[pd.Series]) -> _Column:
    """Code one column of the original, the release and the control: a number when it is
    one in all three (compared by value), else compared as written. Where the parts' dtypes
    differ, the release and the control are first aligned to the original's values
    (:func:`_align`)."""
    if all(_numeric(p) for p in parts):
        return _ranked(np.concatenate([_floats(p) for p in parts]), parts)
    if all(p.dtype == parts[0].dtype for p in parts[1:]):
        joined = pd.concat([p.reset_index(drop=True) for p in parts], ignore_index=True)
        codes, _ = factorize(joined)
        return _Column(_split(codes, parts), False, None)
    return _align(column, parts)


# -- one column's values compared as written across dtypes ----------------------------------
#
# A release read back from a file may not hold the original's dtype: a zero-padded code read
# as an integer ("0100" -> 100), dates left as text, integers with a missing value read as
# floats. Comparing such columns as they are would find no record of the release among the
# original's, and report no risk. Each value of the release (and of the control) is matched
# to the original value it is, on the original's values as written (engine.encoding's one
# definition of the same value): a value is an original value when it is that value as
# written, when the original value written reads as it (a file's round trip: "0100" read as a
# number is 100) or when it, written, reads as the original value ("1983-12-21 00:00:00" read
# as a date). The match must be one to one; a value matching none is a value of its own (a
# generalized label such as "[10, 20)"), unless which value it is cannot be told, and the
# column is then refused.


def _align(column: Hashable, parts: Sequence[pd.Series]) -> _Column:
    """Code a column whose parts' dtypes differ, each value of the release and of the
    control as the original value it is (:func:`_positions`), the others as values of
    their own, compared with one another as written; codes are numbered by first occurrence,
    as :func:`~pandas_anon.engine.encoding.factorize` numbers them. A number when the
    original is one and every part either is one or holds only original values."""
    o_codes, o_values = factorize(parts[0])
    original = pd.Index(o_values)
    coded = [o_codes]
    positions, labels = [], []
    for part, which in zip(parts[1:], ("released", "control")):
        x_codes, x_values = factorize(part)
        values = pd.Index(x_values)
        at = _positions(column, which, (parts[0].dtype, part.dtype), original, values)
        coded.append(x_codes)
        positions.append(at)
        labels.append(_written(values)[at < 0])
    label_codes = np.asarray(pd.factorize(np.concatenate(labels))[0], dtype=np.int64)
    starts = np.cumsum([0, *(len(t) for t in labels)])
    for i, at in enumerate(positions):
        code_of_value = at.copy()
        code_of_value[at < 0] = len(original) + label_codes[starts[i] : starts[i + 1]]
        coded[i + 1] = np.where(coded[i + 1] >= 0, code_of_value[coded[i + 1]], -1)
    alike = [bool((at >= 0).all()) for at in positions]
    if _numeric(parts[0]) and all(_numeric(p) or a for p, a in zip(parts[1:], alike)):
        numbers = np.append(original.to_numpy(dtype=float, na_value=np.nan), np.nan)
        floats = [_floats(parts[0])]
        floats += [
            _floats(p) if _numeric(p) else numbers[c] for p, c in zip(parts[1:], coded[1:])
        ]  # code -1 takes the last, NaN
        return _ranked(np.concatenate(floats), parts)
    joined = np.concatenate(coded)
    present = joined >= 0
    codes = np.full(len(joined), -1, dtype=np.int64)
    codes[present] = pd.factorize(joined[present])[0]  # numbered by first occurrence
    return _Column(_split(codes, parts), False, None)


#: What the values of each group are called in messages, by group.
_TEXT, _NUMBERS, _BOOLEANS, _DATES = "text", "numbers", "booleans", "dates"


def _dtype_group(dtype: Any) -> str:
    """The group of the values of a column of ``dtype`` (not object, not categorical)."""
    if pd.api.types.is_bool_dtype(dtype):
        return _BOOLEANS
    if pd.api.types.is_complex_dtype(dtype):
        return "complex numbers"
    if pd.api.types.is_numeric_dtype(dtype):
        return _NUMBERS
    if isinstance(dtype, pd.DatetimeTZDtype):
        return f"dates in {dtype.tz}"
    if pd.api.types.is_datetime64_dtype(dtype):
        return _DATES
    if pd.api.types.is_string_dtype(dtype):
        return _TEXT
    return str(dtype)


def _type_group(kind: type) -> str:
    """The group of values of type ``kind`` (:func:`~pandas_anon.engine.encoding.kind_of`:
    integers and floats are numbers)."""
    found = kind_of(kind)
    if found is str:
        return _TEXT
    if found is kind_of(bool):
        return _BOOLEANS
    if found in (kind_of(int), kind_of(float)):
        return _NUMBERS
    if found is kind_of(complex):
        return "complex numbers"
    if issubclass(kind, (datetime.datetime, np.datetime64)):
        return _DATES
    return kind.__name__


def _groups(values: pd.Index) -> np.ndarray:
    """The group of each of ``values`` (distinct, none missing): text, numbers, booleans,
    dates or another type; objects by their type, a category by its categories'."""
    if isinstance(values, pd.CategoricalIndex):
        return _groups(pd.Index(values.categories))[values.codes]
    if not pd.api.types.is_object_dtype(values.dtype):
        return np.full(len(values), _dtype_group(values.dtype), dtype=object)
    types = np.fromiter(map(type, values), dtype=object, count=len(values))
    type_codes, kinds = pd.factorize(types)
    return np.array([_type_group(k) for k in kinds], dtype=object)[type_codes]


def _written(values: pd.Index) -> pd.Index:
    """``values`` as a CSV writer writes them (as pandas' ``to_csv`` does: dates at the
    precision the set of them needs, floats by their shortest repr), as Python text."""
    if isinstance(values, pd.CategoricalIndex):
        values = pd.Index(values.categories.take(values.codes))
    return pd.Index(np.asarray(values.astype(str), dtype=object), dtype=object)


def _read_numbers(texts: pd.Index) -> pd.Index:
    return pd.Index(pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce"), dtype=float)


#: The texts pandas' CSV reader reads as booleans (its ``true_values`` and ``false_values``).
_BOOLEAN_TEXTS = {"True": True, "TRUE": True, "true": True}
_BOOLEAN_TEXTS |= {"False": False, "FALSE": False, "false": False}


def _read_booleans(texts: pd.Index) -> pd.Index:
    return pd.Index(pd.Series(texts, dtype=object).map(_BOOLEAN_TEXTS), dtype=object)


def _read_dates(texts: pd.Index) -> pd.Index:
    """``texts`` read as dates of the first form of
    :data:`~pandas_anon.hierarchy.datetimes.TEXT_DATE_FORMATS` each is (forms that all ask
    for a day, a month and a year: a generalized ``"2019-05"`` or ``"2019"`` is no date)."""
    found = pd.Series(pd.NaT, index=range(len(texts)), dtype="datetime64[ns]")
    for form in TEXT_DATE_FORMATS:
        missing = found.isna().to_numpy()
        if not missing.any():
            break
        read = pd.to_datetime(texts[missing], format=form, errors="coerce")
        found[missing] = np.asarray(read, dtype="datetime64[ns]")
    return pd.Index(found)


#: How text is read as values of each group that a file may hold as text.
_READERS = {_NUMBERS: _read_numbers, _BOOLEANS: _read_booleans, _DATES: _read_dates}


def _as_group(values: pd.Index, group: str) -> pd.Index:
    """``values`` (all of ``group``) in the form their group's reader gives."""
    if group == _NUMBERS:
        return pd.Index(np.asarray(values, dtype=float))
    if group == _DATES:
        return pd.Index(pd.DatetimeIndex(np.asarray(values)).as_unit("ns"))
    return pd.Index(np.asarray(values), dtype=object)


def _find(keys: pd.Index, targets: pd.Index) -> np.ndarray:
    """The position of each of ``targets`` among ``keys`` (missing keys: none): -1 absent,
    -2 found more than once."""
    twice = np.asarray(keys.duplicated(keep=False)) & np.asarray(keys.notna())
    once = np.flatnonzero(~twice & np.asarray(keys.notna()))
    at = keys[once].get_indexer(targets)
    found = np.full(len(targets), -1, dtype=np.int64)
    found[at >= 0] = once[at[at >= 0]]
    if twice.any():
        found[np.asarray(targets.isin(keys[twice]))] = -2
    return found


def _merge(at: np.ndarray, rows: np.ndarray, found: np.ndarray) -> None:
    """Record ``found`` (:func:`_find`) for ``rows`` of ``at``; a value found at two
    different places is found more than once (-2)."""
    known = at[rows]
    clash = (found == -2) | ((known >= 0) & (found >= 0) & (known != found))
    at[rows] = np.where(clash, -2, np.where(known == -1, found, known))


def _positions(
    column: Hashable,
    which: str,
    dtypes: tuple[Any, Any],
    original: pd.Index,
    part: pd.Index,
) -> np.ndarray:
    """The position among ``original`` (the original's distinct values) of each of ``part``
    (the release's or the control's), -1 for a value that is none of them; an
    :class:`InvalidParameterError` naming the column when which it is cannot be told.

    A value is an original value when it is that value as written
    (:func:`~pandas_anon.engine.encoding.written_indexer`, numbers of one group: ``1.0`` is
    the integer 1 read back as a float), when it is text written as the original value is,
    or read as it (``"1983-12-21 00:00:00"``, a date), or when the original value is text
    that, read as the value's type, is it (``"0100"``, read as a number, is 100)."""
    at = written_indexer(original, part)
    if at is None:
        at = original.get_indexer(part)
    o_groups, x_groups = _groups(original), _groups(part)
    at = np.where((at >= 0) & (x_groups == o_groups[np.maximum(at, 0)]), at, -1)
    o_text = o_groups == _TEXT
    texts = original[o_text]
    refuse = _Refusal(column, which, dtypes)
    for group in pd.unique(x_groups[(at < 0) & (x_groups != _TEXT)]):
        rows = np.flatnonzero((x_groups == group) & (at < 0))
        if len(texts):  # as the original's texts are written, or read as the values' type
            text_at = np.flatnonzero(o_text)
            found = _find(_written(texts), _written(part)[rows])
            _merge(at, rows, np.where(found >= 0, text_at[np.maximum(found, 0)], found))
            if group in _READERS:
                read = _READERS[group](texts)
                found = _find(read, _as_group(part[rows], group))
                _merge(at, rows, np.where(found >= 0, text_at[np.maximum(found, 0)], found))
        unknown = rows[at[rows] == -1]
        if len(unknown) and not (o_groups == group).any() and len(original):
            readable = group in _READERS and bool(_READERS[group](texts).notna().all())
            if not len(texts) or not readable:
                refuse.unknown(len(unknown), group, o_groups)
    rows = np.flatnonzero((x_groups == _TEXT) & (at < 0))
    typed = pd.unique(o_groups[~o_text]) if len(rows) else ()
    for group in typed:
        members = np.flatnonzero(o_groups == group)
        found = _find(_written(original[members]), part[rows])
        _merge(at, rows, np.where(found >= 0, members[np.maximum(found, 0)], found))
        unread = rows[at[rows] == -1]  # a text written as an original value is that value
        if group in _READERS and len(unread):
            found = _find(_as_group(original[members], group), _READERS[group](part[unread]))
            _merge(at, unread, np.where(found >= 0, members[np.maximum(found, 0)], found))
    unreadable = [group for group in typed if group not in _READERS]
    if unreadable and (at[rows] == -1).any():
        refuse.unreadable(int(np.count_nonzero(at[rows] == -1)), ", ".join(unreadable))
    if (at == -2).any():
        refuse.ambiguous(int(np.count_nonzero(at == -2)))
    matched = at[at >= 0]
    if len(matched) != len(np.unique(matched)):
        refuse.merged(len(matched) - len(np.unique(matched)))
    return at


@dataclass(frozen=True)
class _Refusal:
    """The errors of a column whose release (or control) values cannot be matched to the
    original's one to one: each names the column, the two dtypes, what cannot be told and
    the fix, never a value."""

    column: Hashable
    which: str
    dtypes: tuple[Any, Any]

    def _error(self, problem: str) -> InvalidParameterError:
        c, w = self.column, self.which
        return InvalidParameterError(
            f"column {c!r}: the original holds {self.dtypes[0]} and {w} {self.dtypes[1]}; "
            f"{problem}, so {w} cannot be compared with the original value for value as "
            f"written; {self._fix()}"
        )

    def _fix(self) -> str:
        """How to give the release's column the original's values as written."""
        c, w, dtype = self.column, self.which, self.dtypes[0]
        column = f"{w}[{c!r}]"
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
            return (
                f"read {w}'s file with the column as text (pd.read_csv(..., dtype={{{c!r}: "
                f"str}})), or write it as the original does, e.g. {column} = "
                f"{column}.astype(str).str.zfill(4) for codes written with leading zeros"
            )
        if pd.api.types.is_datetime64_any_dtype(dtype):
            convert = f"pd.to_datetime({column}, format=...)"
        elif pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            convert = f"pd.to_numeric({column})"
        else:
            convert = f"{column}.astype(original[{c!r}].dtype)"
        return (
            f"convert {w}'s column to the original's type first ({column} = {convert}), or "
            f"pass both columns as text written alike"
        )

    def unknown(self, count: int, group: str, o_groups: np.ndarray) -> None:
        held = ", ".join(pd.unique(o_groups))
        if _TEXT not in held:
            raise self._error(f"{count} of its values are {group}, and the original holds {held}")
        raise self._error(
            f"{count} of its values ({group}) are none of the original's texts read as "
            f"{group}, and some of those texts do not read as {group}: whether they are values "
            "of their own or the original's written otherwise cannot be told"
        )

    def unreadable(self, count: int, group: str) -> None:
        raise self._error(
            f"{count} of its texts are not written as any of the original's values ({group}), "
            f"and whether they are such values written otherwise cannot be told"
        )

    def ambiguous(self, count: int) -> None:
        raise self._error(
            f"{count} of its values are each several of the original's values, once these are "
            "read as the values' type (for instance codes written with and without leading "
            "zeros, read as one number)"
        )

    def merged(self, count: int) -> None:
        raise self._error(
            f"{count} of the original's values are each written by several of its values "
            "(for instance a number written with and without a leading zero)"
        )


@dataclass(frozen=True)
class _Frame:
    """A frame's attacked columns as a code matrix (rows x columns) and, for the numbers,
    their values; its combinations of column sets are kept once counted."""

    codes: np.ndarray
    values: np.ndarray
    kept: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict, compare=False
    )

    def take(self, rows: np.ndarray) -> _Frame:
        return _Frame(self.codes[rows], self.values[rows])

    def distinct(self) -> _Frame:
        """The distinct records in the order of their first occurrence (anonymeter's
        ``unique(maintain_order=True)``)."""
        _, first = np.unique(self.codes, axis=0, return_index=True)
        return self.take(np.sort(first))

    def combinations(self, cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct combinations of ``cols`` (their first row each), the combination of
        each row and the rows of each combination."""
        key = tuple(int(c) for c in cols)
        if key not in self.kept:
            codes = self.codes[:, list(key)]
            labels, _ = mixed_radix(
                [codes[:, j] + 1 for j in range(len(key))],
                [int(codes[:, j].max(initial=-1)) + 2 for j in range(len(key))],
                n_rows=len(codes),
            )
            _, first, inverse, counts = np.unique(
                labels, return_index=True, return_inverse=True, return_counts=True
            )
            self.kept[key] = (first, inverse.ravel(), counts)
        return self.kept[key]


def _frames(
    columns: Sequence[Hashable], frames: Sequence[pd.DataFrame]
) -> tuple[list[_Frame], np.ndarray]:
    """The three frames coded, and which columns are numbers."""
    coded = [_code_column(c, [f[c] for f in frames]) for c in columns]
    out = []
    for i, frame in enumerate(frames):
        codes = np.column_stack([c.codes[i] for c in coded]).reshape(len(frame), len(coded))
        values = np.column_stack(
            [c.values[i] if c.values is not None else np.full(len(frame), np.nan) for c in coded]
        ).reshape(len(frame), len(coded))
        out.append(_Frame(codes, values))
    return out, np.array([c.numeric for c in coded], dtype=bool)


# -- singling out ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Predicates:
    """Conjunctions of ``column op code`` terms, one row each: ``cols``, ``ops``, ``vals``
    (predicates x terms); the terms of a row name distinct columns, in increasing order."""

    cols: np.ndarray
    ops: np.ndarray
    vals: np.ndarray

    def __len__(self) -> int:
        return len(self.cols)

    def take(self, rows: np.ndarray) -> _Predicates:
        return _Predicates(self.cols[rows], self.ops[rows], self.vals[rows])

    def concat(self, other: _Predicates) -> _Predicates:
        return _Predicates(*(np.concatenate([getattr(self, a), getattr(other, a)]) for a in _TERM))

    def keys(self) -> np.ndarray:
        """One row of integers per predicate, equal for equal predicates."""
        return np.concatenate([self.cols, self.ops, self.vals], axis=1)

    def _hits(self, frame: _Frame) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """For each group of predicates on the same columns: its members, which of the
        frame's combinations of those columns each matches, the combination of each of the
        frame's rows and the rows of each combination."""
        out = []
        groups, group_of = np.unique(self.cols, axis=0, return_inverse=True)
        group_of = group_of.ravel()
        for g, cols in enumerate(groups):
            members = np.flatnonzero(group_of == g)
            first, inverse, rows = frame.combinations(cols)
            hit = np.ones((len(members), len(first)), dtype=bool)
            for term in range(len(cols)):
                combos = frame.codes[first, cols[term]]
                hit &= _compare(combos, self.ops[members, term], self.vals[members, term])
            out.append((members, hit, inverse, rows))
        return out

    def matches(self, frame: _Frame) -> np.ndarray:
        """The predicates x the frame's rows: which rows each predicate matches."""
        out = np.zeros((len(self), len(frame.codes)), dtype=bool)
        for members, hit, inverse, _ in self._hits(frame):
            out[members] = hit[:, inverse]
        return out

    def counts(self, frame: _Frame) -> np.ndarray:
        """How many of the frame's rows each predicate matches, counted on the frame's
        combinations of each predicate's columns."""
        out = np.zeros(len(self), dtype=np.int64)
        for members, hit, _, rows in self._hits(frame):
            out[members] = hit.astype(np.int64) @ rows
        return out


_TERM = ("cols", "ops", "vals")


def _compare(codes: np.ndarray, ops: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """predicates x combinations: each combination's code (``-1`` missing) against each
    predicate's term; a missing code satisfies only ``IS_NULL`` and ``NOT_NULL`` decides
    on presence alone (polars' null semantics, which anonymeter's queries have)."""
    a = codes[None, :]
    v = vals[:, None]
    o = ops[:, None]
    present = a >= 0
    return np.select(
        [o == EQ, o == NE, o == GT, o == LT, o == GE, o == LE, o == IS_NULL],
        [
            a == v,
            present & (a != v),
            a > v,
            present & (a < v),
            a >= v,
            present & (a <= v),
            ~present,
        ],
        default=present,
    )


class _SinglingOut:
    """Anonymeter's singling-out evaluator on coded frames."""

    def __init__(
        self,
        original: _Frame,
        released: _Frame,
        control: _Frame,
        numeric: np.ndarray,
        rng: np.random.Generator,
    ) -> None:
        self.original = original.distinct()
        self.released = released.distinct()
        self.control = control.distinct()
        self.numeric = numeric
        self.rng = rng

    def _singling(self, predicates: _Predicates, frame: _Frame) -> np.ndarray:
        return predicates.counts(frame) == 1

    def univariate(self, n: int) -> _Predicates:
        """Rare values (held by one record), extremes of numbers and a value missing once,
        shuffled; the first ``n`` distinct ones that single out a release record."""
        codes = self.released.codes
        terms: list[tuple[int, int, int]] = []
        for c in range(codes.shape[1]):
            column = codes[:, c]
            if np.count_nonzero(column < 0) == 1:
                terms.append((c, IS_NULL, -1))
            present = column[column >= 0]
            if self.numeric[c] and len(present):
                terms += [(c, LE, int(present.min())), (c, GE, int(present.max()))]
            held, count = np.unique(present, return_counts=True)
            terms += [(c, EQ, int(v)) for v in held[count == 1]]
        table = np.array(terms, dtype=np.int64).reshape(-1, 3)
        table = table[self.rng.permutation(len(table))]
        predicates = _Predicates(table[:, :1], table[:, 1:2], table[:, 2:])
        return _first_distinct(
            predicates.take(np.flatnonzero(self._singling(predicates, self.released))), n
        )

    def multivariate(self, n: int, n_cols: int, max_attempts: int) -> _Predicates:
        """Predicates on ``n_cols`` random columns of random release records, batch by batch
        until ``n`` distinct ones single out a release record or ``max_attempts`` were
        formed."""
        codes, values = self.released.codes, self.released.values
        medians = np.full(codes.shape[1], np.nan)
        medians[self.numeric] = np.nanmedian(values[:, self.numeric], axis=0)
        found = _Predicates(*(np.zeros((0, n_cols), dtype=np.int64) for _ in _TERM))
        attempts = 0
        batch = min(BATCH, max_attempts)
        while len(found) < n and attempts < max_attempts:
            rows = self.rng.integers(0, len(codes), size=batch)
            cols = np.sort(
                np.argsort(self.rng.random((batch, codes.shape[1])), axis=1)[:, :n_cols], axis=1
            )
            vals = codes[rows[:, None], cols]
            numbers = values[rows[:, None], cols]
            upper = numbers > medians[cols]
            ops = np.where(self.numeric[cols], np.where(upper, GE, LE), EQ)
            ops = np.where(vals < 0, IS_NULL, ops)
            batch_predicates = _Predicates(cols, ops, vals)
            singling = batch_predicates.take(
                np.flatnonzero(self._singling(batch_predicates, self.released))
            )
            found = _first_distinct(found.concat(singling), n)
            attempts += batch
        return found

    def random(self, n: int, n_cols: int) -> _Predicates:
        """The baseline: ``n`` predicates on ``n_cols`` random columns, each term a random
        value of the release's column (missing included) under a random operator of its
        type."""
        codes = self.released.codes
        n_columns = codes.shape[1]
        cols = np.sort(np.argsort(self.rng.random((n, n_columns)), axis=1)[:, :n_cols], axis=1)
        held = [np.unique(codes[:, c]) for c in range(n_columns)]
        picks = self.rng.random((n, n_cols))
        vals = np.empty((n, n_cols), dtype=np.int64)
        ops = np.empty((n, n_cols), dtype=np.int64)
        choice = self.rng.random((n, n_cols))
        for c in range(n_columns):
            where = cols == c
            options = _NUMERIC_OPS if self.numeric[c] else _CATEGORICAL_OPS
            vals[where] = held[c][(picks[where] * len(held[c])).astype(np.int64)]
            ops[where] = options[(choice[where] * len(options)).astype(np.int64)]
        missing = vals < 0
        ops[missing] = np.where(ops[missing] == EQ, IS_NULL, NOT_NULL)
        return _Predicates(cols, ops, vals)

    def control_correction(self, predicates: _Predicates) -> float:
        """Anonymeter's ``fit_correction_term``: how many predicates single out in samples
        of the control of 10 sizes (5 draws each), fitted by the Cohen-Nissim model; the
        ratio of the fit at the original's size to the fit at the control's."""
        from scipy.optimize import curve_fit

        matches = predicates.matches(self.control)
        n = len(self.control.codes)
        sizes = np.repeat(np.linspace(min(1000, n), n, 10).astype(int), 5)
        successes = np.array(
            [
                np.count_nonzero(matches[:, self.rng.permutation(n)[:s]].sum(axis=1) == 1)
                for s in sizes
            ]
        )
        w_guess = 1 / sizes.max()
        norm_guess = 1 / _singling_out_integral(sizes.max(), w_guess)
        (w, norm), _ = curve_fit(
            _model, sizes, successes, bounds=(0, (1, np.inf)), p0=(w_guess, norm_guess)
        )
        return float(_model(len(self.original.codes), w, norm) / _model(n, w, norm))

    def run(
        self, mode: str, n_attacks: int, n_cols: int, max_attempts: int, level: float
    ) -> AttackRisk:
        if mode == "univariate":
            predicates = self.univariate(n_attacks)
        else:
            predicates = self.multivariate(n_attacks, n_cols, max_attempts)
        n_success = int(np.count_nonzero(self._singling(predicates, self.original)))
        baseline = self.random(n_attacks, 1 if mode == "univariate" else n_cols)
        n_baseline = int(np.count_nonzero(self._singling(baseline, self.original)))
        n_control: float = float(np.count_nonzero(self._singling(predicates, self.control)))
        if n_control and len(self.control.codes) != len(self.original.codes):
            n_control *= self.control_correction(predicates)
        counts = (n_success, n_baseline, n_control)
        return AttackRisk.measure(
            "singling out", (n_attacks,) * 3, counts, level, n_queries=len(predicates)
        )


def _first_distinct(predicates: _Predicates, n: int) -> _Predicates:
    """The first ``n`` distinct predicates, in order."""
    if len(predicates) == 0:
        return predicates
    _, first = np.unique(predicates.keys(), axis=0, return_index=True)
    return predicates.take(np.sort(first)[:n])


def _singling_out_integral(n: Any, w_max: Any) -> Any:
    """The chance that a predicate of weight at most ``w_max`` singles out one of ``n``
    records, integrated over the weight: ``(1 - (n w + 1)(1 - w)^n) / (n + 1)`` (Cohen and
    Nissim 2020; anonymeter's ``singling_out_probability_integral`` from 0)."""
    return (1 - (n * w_max + 1) * (1 - w_max) ** n) / (n + 1)


def _model(n: Any, w_eff: float, norm: float) -> Any:
    return norm * _singling_out_integral(n, w_eff)


# -- nearest neighbours (anonymeter's MixedTypeKNeighbors) ----------------------------------


def _nearest(
    targets: _Frame,
    released: _Frame,
    cols: Sequence[int],
    numeric: np.ndarray,
    n_neighbors: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """The ``n_neighbors`` release rows nearest to each target on ``cols`` (targets x
    neighbours, nearest first), by anonymeter's Gower-like distance; equally near rows in a
    random order drawn for each target.

    The distances are computed to the release's distinct combinations of ``cols`` (a
    k-anonymous release has few) in chunks of targets, and read back to rows."""
    first, inverse, sizes = released.combinations(cols)
    number = [c for c in cols if numeric[c]]
    category = [c for c in cols if not numeric[c]]
    both = np.concatenate([targets.values[:, number], released.values[:, number]])
    span = np.nanmax(both, axis=0, initial=-np.inf) - np.nanmin(both, axis=0, initial=np.inf)
    span = np.where((span == 0) | ~np.isfinite(span), 1.0, span)
    combo_numbers = released.values[first][:, number] / span
    combo_categories = released.codes[first][:, category]
    by_combination = np.argsort(inverse, kind="stable")  # the rows of each combination
    starts = np.cumsum(sizes) - sizes
    step = max(1, CHUNK // max(1, len(first) if n_neighbors == 1 else len(inverse)))
    out = np.empty((len(targets.codes), n_neighbors), dtype=np.int64)
    for start in range(0, len(targets.codes), step):
        part = slice(start, start + step)
        distance = np.zeros((len(targets.codes[part]), len(first)))
        for j in range(len(number)):
            a = targets.values[part, number[j]][:, None] / span[j]
            b = combo_numbers[None, :, j]
            gap = np.abs(a - b)
            gap = np.where(np.isnan(a) & np.isnan(b), 1.0, gap)
            distance += np.where(np.isnan(gap), np.inf, gap)
        for j in range(len(category)):
            distance += targets.codes[part, category[j]][:, None] != combo_categories[None, :, j]
        if n_neighbors == 1:  # a row drawn uniformly among the nearest combinations' rows
            nearest = distance == distance.min(axis=1, keepdims=True)
            tied = np.cumsum(np.where(nearest, sizes[None, :], 0), axis=1)
            draw = (rng.random(len(tied)) * tied[:, -1]).astype(np.int64)
            combination = (tied > draw[:, None]).argmax(axis=1)
            within = draw - (tied[np.arange(len(tied)), combination] - sizes[combination])
            out[part, 0] = by_combination[starts[combination] + within]
        else:  # the rows by distance, ties in a random order of each target's own
            rows = distance[:, inverse]
            order = np.lexsort((rng.random(rows.shape), rows), axis=-1)
            out[part] = order[:, :n_neighbors]
    return out


def _linkability(
    original: _Frame,
    released: _Frame,
    control: _Frame,
    halves: tuple[list[int], list[int]],
    numeric: np.ndarray,
    n_attacks: int,
    n_neighbors: int,
    rng: np.random.Generator,
    level: float,
) -> AttackRisk:
    """Anonymeter's linkability attack: targets drawn from the original (and from the
    control), each half of their columns matched to its nearest release rows; linked when
    the two share one."""
    k = min(n_neighbors, len(released.codes))

    def linked(first: np.ndarray, second: np.ndarray) -> int:
        return int(np.count_nonzero((first[:, :, None] == second[:, None, :]).any(axis=(1, 2))))

    def attack(targets: _Frame) -> tuple[int, int]:
        n = min(n_attacks, len(targets.codes))
        chosen = targets.take(rng.choice(len(targets.codes), size=n, replace=False))
        near = [_nearest(chosen, released, half, numeric, k, rng) for half in halves]
        return n, linked(*near)

    n_original, n_success = attack(original)
    n_control, control_links = attack(control)
    n_baseline = n_original
    guesses = [_random_rows(rng, n_baseline, len(released.codes), k) for _ in range(2)]
    counts = (n_success, linked(*guesses), control_links)
    return AttackRisk.measure("linkability", (n_original, n_baseline, n_control), counts, level)


def _random_rows(rng: np.random.Generator, n: int, n_rows: int, k: int) -> np.ndarray:
    """``k`` distinct random rows of ``n_rows`` for each of ``n`` attacks."""
    if k == 1:
        return rng.integers(0, n_rows, size=(n, 1))
    return np.argpartition(rng.random((n, n_rows)), k - 1, axis=1)[:, :k]


def _inference(
    original: _Frame,
    released: _Frame,
    control: _Frame,
    aux: list[int],
    secret: int,
    numeric: np.ndarray,
    regression: bool,
    n_attacks: int,
    rng: np.random.Generator,
    level: float,
) -> AttackRisk:
    """Anonymeter's inference attack: targets drawn from the original (and the control),
    their secret guessed as the nearest release record's on ``aux``; the baseline guesses
    the secret of random release records."""

    def right(targets: _Frame, rows: np.ndarray) -> int:
        truth, guess = targets.codes[:, secret], released.codes[rows, secret]
        if regression:
            t, g = targets.values[:, secret], released.values[rows, secret]
            # anonymeter divides by the guess; by its size here, so that a negative guess
            # is not always right
            match = np.abs(g - t) / (np.abs(g) + 1e-12) <= 0.05
        else:
            match = truth == guess
        return int(np.count_nonzero(match | ((truth < 0) & (guess < 0))))

    def draw(targets: _Frame, n: int) -> _Frame:
        return targets.take(rng.choice(len(targets.codes), size=n, replace=False))

    n_original = min(n_attacks, len(original.codes))
    n_baseline = min(len(released.codes), n_original)
    n_control = min(n_attacks, len(control.codes))
    baseline_targets = draw(original, n_baseline)
    n_base = right(
        baseline_targets, rng.choice(len(released.codes), size=n_baseline, replace=False)
    )
    targets = draw(original, n_original)
    n_success = right(targets, _nearest(targets, released, aux, numeric, 1, rng)[:, 0])
    controls = draw(control, n_control)
    n_ctrl = right(controls, _nearest(controls, released, aux, numeric, 1, rng)[:, 0])
    return AttackRisk.measure(
        "inference", (n_original, n_baseline, n_control), (n_success, n_base, n_ctrl), level
    )


# -- the function ---------------------------------------------------------------------------


def _not_found(
    missing: Sequence[Hashable], available: Iterable[Hashable], where: str, fix: str
) -> ColumnNotFoundError:
    """:class:`ColumnNotFoundError` saying which parameter and table, and the fix."""
    error = ColumnNotFoundError(missing, available)
    error.args = (f"{where}: {error.args[0]}; {fix}",)
    return error


def _at_most(value: int, most: int, name: str) -> int:
    """``value`` when it is at most ``most``, else an InvalidParameterError naming ``name``."""
    if value > most:
        raise InvalidParameterError(
            f"{name} must be at most {most:,}, got {value:,}; pass {name}={most} or less "
            f"(the limit keeps a call's time and memory bounded)"
        )
    return value


def _column_list(labels: Any, name: str) -> list[Hashable]:
    """The column labels ``name`` holds (one label, or an iterable of them), each once."""
    found = as_label_list(labels)
    repeated = sorted({repr(c) for c in found if found.count(c) > 1})
    if repeated:
        raise InvalidQIDError(
            f"{name} names {', '.join(repeated)} more than once; list each column once"
        )
    return found


def _check_frame(frame: Any, name: str) -> pd.DataFrame:
    """``frame`` when it is a pandas DataFrame with rows, whose index only numbers them (the
    library's rule, :func:`~pandas_anon.params.frame`)."""
    if not isinstance(frame, pd.DataFrame):
        raise NotAFrameError(
            f"{name} must be a pandas DataFrame, got {type(frame).__name__}; "
            "pass the table itself (pd.read_csv(...) first)"
        )
    params.frame(frame, name)
    if frame.empty:
        raise EmptyDataError(f"{name} has no rows; the attacks need records to attack")
    return frame


def attacks(
    original: pd.DataFrame,
    released: pd.DataFrame,
    *,
    control: pd.DataFrame,
    columns: Sequence[Hashable] | None = None,
    secret: Hashable | None = None,
    link_columns: tuple[Sequence[Hashable], Sequence[Hashable]] | None = None,
    n_attacks: int = 500,
    mode: str = "multivariate",
    n_cols: int = 3,
    max_attempts: int | None = 100_000,
    n_neighbors: int = 1,
    regression: bool = False,
    confidence_level: float = 0.95,
    seed: int | None = 0,
) -> Attacks:
    """WP29's three risks of ``released``, measured by attacking it: singling out,
    linkability and inference, as Giomi et al. (2023) define them and anonymeter 1.1.0 runs
    them.

    Each attack reads the release and is scored on the ``original`` records it was made
    from and on ``control`` records of the same population held back from it; the risk is
    the attack's success on the original beyond its success on the control,
    ``(attack - control) / (1 - control)``, with a Wilson confidence interval.

    Parameters
    ----------
    original : pandas.DataFrame
        The records the release was made from (all of them, or a sample).
    released : pandas.DataFrame
        The release, as published (generalized labels are compared as written: the attacker
        here does not read ranges). Where a column's dtype is not the original's (a release
        read back from a file: ``"0100"`` read as the number 100, dates as text, integers
        with a missing value as floats), each of its values is compared as the original
        value it is: written alike, or read as it (``"1983-12-21 00:00:00"`` as a date; the
        original's ``"0100"`` read as a number is 100), one to one; a value that is none of
        them (a label such as ``"[10, 20)"`` or ``"2019-05"``) is a value of its own. When
        which original value a release value is cannot be told, the column is refused (so is
        the control's, aligned the same way).
    control : pandas.DataFrame
        Records of the same population that were *not* used to make the release: its index
        labels must not be the original's. Anonymeter assumes the original and the control
        are random samples of one population (split one table at random before
        anonymizing); a few hundred to a thousand rows suffice.
    columns : sequence of hashable, optional
        The columns the attacks read, in the original, the release and the control.
        Default: the release's columns.
    secret : hashable, optional
        The column the inference attacker guesses from the others of ``columns``. Default
        None: no inference attack.
    link_columns : pair of sequences of hashable, optional
        The linkability attacker's two tables (disjoint column sets). Default: ``columns``
        (less ``secret``) cut in two halves, in order.
    n_attacks : int, default 500
        The attacks of each kind (targets, predicates), at most :data:`MAX_ATTACKS`
        (10,000: the Wilson error of a rate is then at most 1 %).
    mode : {"multivariate", "univariate"}, default "multivariate"
        Singling out by predicates on ``n_cols`` attributes of a release record, or by one
        rare value or extreme.
    n_cols : int, default 3
        The attributes of a multivariate predicate.
    max_attempts : int or None, default 100000
        The multivariate predicates formed at most, up to :data:`MAX_ATTEMPTS`; None means
        that many, anonymeter's default of 10 million (which takes about 25 s on a release
        of 200 distinct records that singles out none of them, and minutes on one of tens of
        thousands), never "until ``n_attacks`` are found".
    n_neighbors : int, default 1
        Linkability: a target is linked when its two halves share one of their
        ``n_neighbors`` nearest release records.
    regression : bool, default False
        Inference: a guess is right within 5 % of a numeric secret rather than equal to it.
    confidence_level : float, default 0.95
        The confidence of the intervals.
    seed : int or None, default 0
        The random draws' seed, a whole number of at least 0 (numpy's rule) or None for
        fresh draws: the same seed, the same figures.

    Returns
    -------
    Attacks
        ``singling_out``, ``linkability`` and ``inference`` (None without a ``secret``),
        each an :class:`AttackRisk`; ``table``; ``to_dict()``.

    Raises
    ------
    NotAFrameError, EmptyDataError
        A table is not a DataFrame or has no rows.
    ColumnNotFoundError
        A column is missing from one of the tables.
    DuplicateColumnsError
        A column read names several columns of one of the tables.
    InvalidQIDError
        ``columns`` or ``link_columns`` names a column twice.
    InvalidParameterError
        The control shares index labels with the original; a count, seed or level out of
        range (``n_attacks`` above :data:`MAX_ATTACKS`, ``max_attempts`` above
        :data:`MAX_ATTEMPTS`, a negative ``seed``); an unknown mode; ``link_columns`` not
        two disjoint non-empty sets; ``secret`` the only column, or not a number with
        ``regression=True``; a column of the release (or the control) whose values cannot
        be matched to the original's one to one (the message names the column, the two
        dtypes and the fix, never a value).

    See Also
    --------
    pandas_anon.risk : Re-identification risk counted on the table itself.

    References
    ----------
    .. [1] M. Giomi, F. Boenisch, C. Wehmeyer and B. Tasnádi (2023), "A Unified Framework
       for Quantifying Privacy Risk in Synthetic Data", PoPETs 2023 (2), section 3.
    .. [2] A. Cohen and K. Nissim (2020), "Towards formalizing the GDPR's notion of
       singling out", PNAS 117 (15).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> people = pd.DataFrame({
    ...     "age": list(range(20, 80)) * 5,
    ...     "sex": ["F", "M", "M"] * 100,
    ...     "city": ["Aosta", "Ivrea", "Biella", "Aosta", "Ivrea"] * 60,
    ... })
    >>> original, control = people.iloc[:200], people.iloc[200:]
    >>> everyone = original.assign(age="*", sex="*", city="*")
    >>> pandas_anon.attacks(original, everyone, control=control, n_attacks=50).singling_out.risk
    0.0
    """
    original = _check_frame(original, "original")
    released = _check_frame(released, "released")
    control = _check_frame(control, "control")
    n_attacks = _at_most(
        params.whole(n_attacks, "n_attacks", example=500), MAX_ATTACKS, "n_attacks"
    )
    n_cols = params.whole(n_cols, "n_cols", example=3)
    n_neighbors = params.whole(n_neighbors, "n_neighbors", example=1)
    limit = MAX_ATTEMPTS if max_attempts is None else max_attempts
    limit = _at_most(
        params.whole(limit, "max_attempts", example=100_000), MAX_ATTEMPTS, "max_attempts"
    )
    mode = params.one_of(mode, "mode", MODES)
    regression = bool(params.flag(regression, "regression"))
    confidence_level = params.real(confidence_level, "confidence_level", low=0, above=True)
    if confidence_level >= 1:
        raise InvalidParameterError(
            f"confidence_level must be between 0 and 1 (exclusive), got {confidence_level!r}; "
            "pass for instance 0.95"
        )
    if seed is not None:
        seed = params.whole(seed, "seed", low=0, example=0)
    names = {"original": original, "released": released, "control": control}
    if columns is None:  # the release's columns, each name once (a repeated one is refused below)
        columns = list(dict.fromkeys(released.columns))
    columns = _column_list(columns, "columns")
    for name, frame in names.items():
        twice = set(frame.columns[frame.columns.duplicated()])
        repeated = [c for c in columns if c in twice]
        if repeated:
            raise DuplicateColumnsError(
                f"{name} has several columns named {', '.join(repr(c) for c in repeated)}; "
                f"rename them (e.g. {name}.columns = [...]) so each name picks one column"
            )
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise _not_found(
                missing,
                frame.columns,
                f"columns, in {name}",
                "the attacks read the same columns in the original, the release and the "
                "control: pass columns= the release's columns that all three hold",
            )
    if not columns:
        raise InvalidParameterError("columns is empty; name the columns the attacks read")
    shared = original.index.intersection(control.index)
    if len(shared):
        raise InvalidParameterError(
            f"control shares {len(shared)} index labels with original; the control must hold "
            "records that were not used to make the release (anonymeter assumes original and "
            "control are disjoint random samples of one population): hold rows back before "
            "anonymizing, e.g. control = df.sample(frac=0.1, random_state=0); original = "
            "df.drop(control.index), and give a control read from another file index labels "
            "of its own"
        )
    if secret is not None and secret not in columns:
        raise _not_found(
            [secret],
            columns,
            "secret, among columns",
            "name the column the inference attacker guesses among the columns the attacks read",
        )
    known = [c for c in columns if c != secret]
    if secret is not None and not known:
        raise InvalidParameterError(
            "secret is the only column; the inference attacker needs other columns to guess from"
        )
    if mode == "multivariate" and n_cols > len(columns):
        raise InvalidParameterError(
            f"n_cols={n_cols} is more than the {len(columns)} columns; pass n_cols <= {len(columns)}"
        )
    if link_columns is None:
        if len(known) < 2:
            raise InvalidParameterError(
                "linkability needs two tables of at least one column each: pass columns= with "
                "at least two columns besides the secret, or link_columns="
            )
        half = len(known) // 2
        link = (tuple(known[:half]), tuple(known[half:]))
    else:
        if len(link_columns) != 2:
            raise InvalidParameterError(
                "link_columns must be two column sets, the attacker's two tables"
            )
        link = (
            tuple(_column_list(link_columns[0], "link_columns")),
            tuple(_column_list(link_columns[1], "link_columns")),
        )
        if not link[0] or not link[1] or set(link[0]) & set(link[1]):
            raise InvalidParameterError(
                "link_columns must be two non-empty column sets sharing no column"
            )
        outside = [c for c in (*link[0], *link[1]) if c not in columns]
        if outside:
            raise _not_found(
                outside,
                columns,
                "link_columns, among columns",
                "pick the linkability attacker's tables among the columns the attacks read",
            )

    frames, numeric = _frames(columns, [original, released, control])
    position = {c: i for i, c in enumerate(columns)}
    if regression and secret is not None and not numeric[position[secret]]:
        raise InvalidParameterError(
            f"regression=True needs a numeric secret; secret={secret!r} is not a number in "
            "all of the original, the release and the control: pass regression=False to "
            "count equal guesses"
        )
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3)]
    original_codes, released_codes, control_codes = frames
    singling_out = _SinglingOut(
        original_codes, released_codes, control_codes, numeric, streams[0]
    ).run(mode, n_attacks, n_cols, limit, confidence_level)
    halves = ([position[c] for c in link[0]], [position[c] for c in link[1]])
    linkability = _linkability(
        original_codes,
        released_codes,
        control_codes,
        halves,
        numeric,
        n_attacks,
        n_neighbors,
        streams[1],
        confidence_level,
    )
    inference = None
    if secret is not None:
        inference = _inference(
            original_codes,
            released_codes,
            control_codes,
            [position[c] for c in known],
            position[secret],
            numeric,
            regression,
            n_attacks,
            streams[2],
            confidence_level,
        )
    return Attacks(
        singling_out,
        linkability,
        inference,
        tuple(columns),
        link,
        secret,
        mode,
        n_attacks,
        confidence_level,
        seed,
    )
