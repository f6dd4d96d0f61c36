"""Guard it: pandera checks that fail a table exposing people on a quasi-identifier.

Importing :mod:`pandas_anon` registers three DataFrame checks with pandera, as soon as pandera
is imported too, before or after (:mod:`pandas_anon.gate.pandera_hook`; ``import pandas_anon``
does not import pandera itself)::

    import pandera.pandas as pa
    import pandas_anon  # registers the checks

    qid = ["anno_nascita", "comune_residenza", "sesso"]
    schema = pa.DataFrameSchema(checks=[
        pa.Check.anon_max_singletons(qid=qid, max_fraction=0.01),  # at most 1 % singletons
        pa.Check.anon_k_anonymous(qid=qid, k=5),                   # every class >= 5 rows
        pa.Check.anon_l_diverse(qid=qid, sensitive="diagnosis", l=2),
    ])

A failing check raises pandera's ``SchemaError`` whose message gives counts, fractions, the
threshold and the QID, never a value: pandera's default report lists the failing rows' values,
which in a public CI log would publish the very quasi-identifiers the check protects. A missing
QID value is a value, and a row whose every QID value is ``*`` is suppressed (in no class), as
:func:`pandas_anon.kanon` counts them (:mod:`pandas_anon.detect.exposure`). The same measure
and verdicts serve ``pandas-anon check`` (:mod:`pandas_anon.gate.check`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.detect.exposure import without_suppressed
from pandas_anon.detect.figures import QID, singletons
from pandas_anon.detect.population import (
    PopulationUniqueness,
    check_population,
    population_size,
    population_uniqueness,
)
from pandas_anon.engine.backends import DASK_WEIGHTS, dask_backend, is_dask
from pandas_anon.engine.columns import as_label_list, resolve_columns
from pandas_anon.errors import AnonError, InvalidParameterError
from pandas_anon.params import fraction, whole
from pandas_anon.privacy.measures import l_diversity


@dataclass(frozen=True)
class Exposure:
    """How exposed the rows of a table are on a quasi-identifier (counts only, no values)."""

    qid: tuple[Hashable, ...]
    rows: int
    examined: int
    singletons: int
    distinct: int
    class_sizes: np.ndarray = field(repr=False, compare=False)
    suppressed: int = 0  # rows whose every QID value is ``*``: in no class
    weighted: bool = False  # an aggregated table: every figure counts people, not rows
    #: for a sample of a population (:meth:`Limits.sampled`): its estimated population uniques
    population: PopulationUniqueness | None = field(default=None, compare=False)
    #: the codes of each class's values (the frequency set's), which the default population
    #: estimate reads beside the class sizes
    combinations: np.ndarray | None = field(default=None, repr=False, compare=False)

    def unit(self, n: int) -> str:
        """``n`` rows, or ``n`` people for an aggregated table."""
        return report.plural(n, "person", "people") if self.weighted else report.plural(n, "row")

    @property
    def fraction(self) -> float:
        """Singletons over rows examined."""
        return self.singletons / self.examined

    @property
    def smallest_class(self) -> int:
        """The k the table reaches: rows in its smallest equivalence class."""
        return int(self.class_sizes.min())

    def rows_below(self, k: int) -> int:
        """Rows in classes of fewer than ``k`` rows."""
        return int(self.class_sizes[self.class_sizes < k].sum())

    def to_dict(self) -> dict:
        return {
            "qid": [str(c) for c in self.qid],
            "rows": self.rows,
            "examined": self.examined,
            "dropped": self.rows - self.examined - self.suppressed,
            "suppressed": self.suppressed,
            "singletons": self.singletons,
            "fraction": self.fraction,
            "distinct": self.distinct,
            "k": self.smallest_class,
            **({"unit": "people"} if self.weighted else {}),
            **({} if self.population is None else self.population.to_dict()),
        }

    def population_unique(self) -> tuple[float, float] | None:
        """For a sample with a population estimate: the rows (people) examined estimated
        unique in the population, and their share of those examined (the estimated fraction
        of the population unique: a population unique is in the sample with the sampling
        fraction's chance); None without an estimate."""
        if self.population is None or self.population.uniques is None:
            return None
        return self.population.uniques * self.examined, self.population.uniques


def measure(
    frame: pd.DataFrame, qid: QID, *, dropna: bool = False, weights: Hashable | None = None
) -> Exposure:
    """Singletons and class sizes of ``frame`` on ``qid``: missing is a value like any other
    (as :func:`pandas_anon.kanon` counts it; with ``dropna``, rows missing a QID value are
    left out instead), and suppressed rows (every QID value ``*``) belong to no class unless
    every row is suppressed (:mod:`pandas_anon.detect.exposure`). ``weights``: the count
    column of an aggregated table; the figures then count people
    (:mod:`pandas_anon.engine.weights`)."""
    if is_dask(frame):  # measured on its digest, each combination weighing its rows
        if weights is not None:
            raise InvalidParameterError(DASK_WEIGHTS)
        digest = dask_backend().digest(frame, resolve_columns(frame, qid))
        local = digest.frame.assign(**{_ROWS: digest.counts})
        return replace(measure(local, qid, dropna=dropna, weights=_ROWS), weighted=False)
    columns = list(resolve_columns(frame, qid))  # each naming one column of a frame
    frame, left_out = without_suppressed(frame, columns, weights)
    found = singletons(frame, qid, dropna=dropna, weights=weights)
    return Exposure(
        qid=found.qid,
        rows=found.examined + found.dropped + left_out,
        examined=found.examined,
        singletons=found.count,
        distinct=found.distinct,
        class_sizes=found.class_sizes,
        suppressed=left_out,
        weighted=weights is not None,
        combinations=found.combinations,
    )


#: The column of a Dask frame's digest counting the rows of each combination (:func:`measure`).
_ROWS = "__pandas_anon_rows__"


def share(fraction: float) -> str:
    """``0.019254`` -> ``'1.93 %'``; a tiny non-zero share is not rounded to zero."""
    return "< 0.01 %" if 0 < fraction < 0.0001 else report.percent(fraction, 2)


@dataclass(frozen=True)
class Limits:
    """Thresholds a table must meet. With none given, no singleton is allowed.

    With ``population`` or ``sampling_fraction`` the table is a sample of a population of
    that size, and the singleton limits read the rows estimated unique in the population
    (:meth:`Exposure.population_unique`, by the default estimate of
    :func:`pandas_anon.detect.population.population_uniqueness` from the sample's
    combinations, the one :func:`pandas_anon.risk` gives) instead of the rows unique
    in the table: ``max_count`` bounds their number rounded to a whole number, ``max_fraction``
    their share of the rows examined. Where the chosen model has no estimate, the table's
    own singletons are read (they include every population unique sampled: fail closed).
    """

    max_count: int | None = None
    max_fraction: float | None = None
    k: int | None = None
    population: int | None = None
    sampling_fraction: float | None = None

    def __post_init__(self) -> None:
        """Each limit given parsed as the API takes it (``max_fraction="1%"`` is 0.01)."""
        parsed = {
            "max_count": _optional(whole, self.max_count, "max_count", low=0, example=10),
            "max_fraction": _optional(fraction, self.max_fraction, "max_fraction"),
            "k": _optional(whole, self.k, "k", example=5),
        }
        if all(value is None for value in parsed.values()):
            parsed["max_count"] = 0
        check_population(self.population, self.sampling_fraction)
        for name, value in parsed.items():
            object.__setattr__(self, name, value)

    @property
    def sampled(self) -> bool:
        """Whether the table is judged as a sample of a population."""
        return self.population is not None or self.sampling_fraction is not None

    def estimated(self, found: Exposure) -> Exposure:
        """``found`` with its population estimate, for a sample (else ``found`` itself)."""
        if not self.sampled:
            return found
        size = population_size(found.examined, self.population, self.sampling_fraction)
        assert size is not None
        estimate = population_uniqueness(found.class_sizes, size, found.combinations)
        return replace(found, population=estimate)

    def describe(self) -> str:
        """``'<= 1 % singletons, k >= 5'`` (a sample: ``'<= 1 % unique in the population'``)."""
        what = "unique in the population" if self.sampled else "singletons"
        parts = [f"<= {self.max_count:,} {what}"] if self.max_count is not None else []
        if self.max_fraction is not None:
            parts.append(f"<= {100 * self.max_fraction:g} % {what}")
        if self.k is not None:
            parts.append(f"k >= {self.k}")
        return ", ".join(parts)

    def violations(self, found: Exposure) -> list[str]:
        """Why ``found`` fails these limits, one sentence per limit exceeded (empty: passes)."""
        qid = report.columns(found.qid)
        count: float = found.singletons
        part = found.fraction
        singles = (
            f"{report.plural(found.singletons, 'singleton')} ({share(found.fraction)} of "
            f"{found.unit(found.examined)} examined) on {qid}"
        )
        estimate = found.population_unique() if self.sampled else None
        if self.sampled and found.population is not None:
            size = report.count(found.population.population)
            if estimate is None:  # no estimate: every sample unique may be one
                singles += f" (no estimate of the population of {size}'s uniques)"
            else:
                count, part = estimate
                singles = (
                    f"an estimated {count:,.1f} of {found.unit(found.examined)} examined "
                    f"({share(part)}) unique in the population of {size} on {qid} "
                    f"(the {found.population.model} model)"
                )
        problems = []
        if self.max_count is not None and round(count) > self.max_count:
            problems.append(f"{singles}: more than the {self.max_count:,} allowed")
        if self.max_fraction is not None and part > self.max_fraction:
            problems.append(f"{singles}: more than the {100 * self.max_fraction:g} % allowed")
        if self.k is not None and found.smallest_class < self.k:
            problems.append(
                f"k = {found.smallest_class} on {qid}, below the {self.k} required: "
                f"{found.unit(found.rows_below(self.k))} in classes of fewer than {self.k}"
            )
        return problems


def _optional(parse: Callable[..., object], value: object, name: str, **options: object) -> object:
    """``parse(value, name, **options)``, or None for a limit not given."""
    return None if value is None else parse(value, name, **options)


def _verdict(check: str, problems: Callable[[], list[str]]) -> bool:
    """True, or a SchemaError carrying our message (so pandera shows no failure cases)."""
    try:
        found = problems()
    except AnonError as error:  # a missing column, no complete row, a bad threshold
        found = [str(error)]
    if found:
        from pandera.errors import SchemaError  # loaded already when pandera runs the check

        raise SchemaError(None, None, message=f"{check}: {'; '.join(found)}")
    return True


def anon_max_singletons(
    frame: pd.DataFrame,
    *,
    qid: QID,
    max_fraction: float | str | None = None,
    max_count: int | None = None,
) -> bool:
    """At most ``max_fraction`` of the rows examined, and at most ``max_count`` rows, are alone
    in their ``qid`` combination (neither given: none may be)."""
    return _verdict(
        "anon_max_singletons",
        lambda: Limits(
            max_count, None if max_fraction is None else fraction(max_fraction, "max_fraction")
        ).violations(measure(frame, qid)),
    )


def anon_k_anonymous(frame: pd.DataFrame, *, qid: QID, k: int) -> bool:
    """Every combination of ``qid`` values is shared by at least ``k`` rows."""
    return _verdict(
        "anon_k_anonymous",  # k is required: Limits() alone allows no singleton
        lambda: Limits(k=whole(k, "k", example=5)).violations(measure(frame, qid)),
    )


def anon_l_diverse(
    frame: pd.DataFrame,
    *,
    qid: QID,
    sensitive: Hashable,
    l: int,  # noqa: E741  (l-diversity)
) -> bool:
    """Every class of ``qid`` holds at least ``l`` distinct known values of ``sensitive`` (a
    missing value is none, as in ``kanon``: :func:`pandas_anon.privacy.measures.l_diversity`)."""

    def problems() -> list[str]:
        wanted = whole(l, "l", example=2)
        reached = l_diversity(frame, qid, sensitive)  # missing QID values: a class, as in measure
        if reached >= wanted:
            return []
        columns = report.columns(as_label_list(qid, frame.columns))
        return [
            f"distinct l = {reached} on {columns} for {sensitive!r}, below the "
            f"{wanted} required: a class holds only {report.plural(reached, 'distinct value')}"
        ]

    return _verdict("anon_l_diverse", problems)


#: The checks :func:`register` adds to ``pandera.Check``, by their function's name.
CHECKS = (anon_max_singletons, anon_k_anonymous, anon_l_diverse)


def register() -> None:
    """Register :data:`CHECKS` with pandera, each once (pandera refuses a name registered
    twice). Run by :mod:`pandas_anon.gate.pandera_hook` when both packages are imported; this
    module itself imports pandera only here and when a check fails, so that ``pandas-anon
    check``, which measures with it, does not load pandera."""
    from pandera.api.checks import Check
    from pandera.extensions import register_check_method

    for check in CHECKS:
        if not hasattr(Check, check.__name__):
            register_check_method(
                check,
                statistics=list(inspect.signature(check).parameters)[1:],
                supported_types=pd.DataFrame,
            )
