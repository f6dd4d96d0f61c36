"""Result objects of the detection functions: figures as attributes, a readable repr, a dict.

Results print as tables and convert with ``to_dict()`` (JSON-able: counts, fractions, column
names). Their figures come from frequency sets; row-level data (``.mask``, ``.rows``) is
available on request, through the backend's map from rows to combinations, and never printed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pandas_anon import formatting as fmt
from pandas_anon import plotting
from pandas_anon.detect import prosecutor
from pandas_anon.detect.population import PopulationUniqueness
from pandas_anon.engine.backends.pandas import Tabulation

if TYPE_CHECKING:
    from pandas_anon.engine.backends.dask import DaskTabulation


@dataclass(frozen=True, repr=False)
class Singletons:
    """Rows that are alone in their combination of quasi-identifier values.

    A *singleton* is a row whose combination of values on the quasi-identifier (QID) occurs
    once: the seed paper's measure of exposure [1]_. The figures come from the QID's
    frequency set (a singleton is a combination of count 1, the class sizes are the counts);
    the rows are reached again only when :attr:`mask` or :attr:`rows` is asked for. The result
    prints as a table and converts with ``to_dict()`` (JSON-able: counts, fractions, column
    names); ``plot()`` draws the rows by the size of their class.

    Attributes
    ----------
    qid : tuple of hashable
        The quasi-identifier columns, in the frame's column order.
    count : int
        The singletons: rows alone in their combination (people, with ``weights``).
    distinct : int
        The distinct combinations of the QID (its equivalence classes).
    examined : int
        The rows counted (people, with ``weights``).
    dropped : int
        The rows left out for a missing QID value (people, with ``weights``; 0 with
        ``dropna=False``).
    fraction : float
        Singletons over rows examined (``count / examined``).
    class_sizes : numpy.ndarray
        Rows in each equivalence class (classes in no particular order): the counts of the
        QID's frequency set.
    mask : pandas.Series
        Boolean Series aligned to the input, named ``singleton``: True on singleton rows
        (False on dropped rows); of a Dask frame, a lazy Dask Series. Computed when first
        read, then kept.
    rows : pandas.DataFrame
        The singleton rows (every column) as a new DataFrame (of a Dask frame, lazy).

    See Also
    --------
    pandas_anon.singletons : The function that returns it.
    pandas_anon.risk : The risk figures of a QID (its ``uniques`` is this result).

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), section 3.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {"year": [1980, 1980, 1991, 1991, 1975], "sex": ["f", "f", "m", "f", "m"]}
    ... )
    >>> found = pandas_anon.singletons(df, ["year", "sex"])
    >>> found.count, found.distinct, found.examined, found.dropped, found.fraction
    (3, 4, 5, 0, 0.6)
    >>> found.mask.tolist()
    [False, False, True, True, True]
    >>> found.rows.index.tolist()
    [2, 3, 4]
    """

    qid: tuple[Hashable, ...]
    count: int
    distinct: int
    examined: int
    dropped: int
    _frame: Any = field(compare=False)  # the pandas or Dask frame tabulated
    _tabulation: Tabulation | DaskTabulation = field(compare=False)

    @property
    def fraction(self) -> float:
        """Singletons over rows examined."""
        return self.count / self.examined

    @property
    def class_sizes(self) -> np.ndarray:
        """Rows in each equivalence class (classes in no particular order): the counts of
        the QID's frequency set."""
        return self._tabulation.frequencies.counts

    @property
    def combinations(self) -> np.ndarray:
        """The codes of each class's values, one column per QID column (the frequency
        set's codes, in the order of :attr:`class_sizes`)."""
        return self._tabulation.frequencies.codes

    @cached_property
    def mask(self) -> pd.Series:
        """Boolean Series aligned to the input: True on singleton rows (False on dropped rows);
        of a Dask frame, a lazy Dask Series."""
        counts = self._tabulation.frequencies.counts
        return self._tabulation.mask(self._frame, counts == 1, "singleton")

    @property
    def rows(self) -> pd.DataFrame:
        """The singleton rows (every column) as a new DataFrame (of a Dask frame, lazy)."""
        if not isinstance(self.mask, pd.Series):
            return self._frame[self.mask]
        return self._frame.loc[self.mask.to_numpy()]

    def plot(self, axes: Any = None) -> Any:
        """The rows by the size of their class (1, 2, 3-4, 5-9, 10-99, 100+), the singletons'
        bar highlighted; needs matplotlib (``pip install 'pandas-anon[plot]'``). Draws on
        ``axes`` (default: new ones) and returns them.

        Examples
        --------
        >>> df.anon.singletons(["anno_nascita", "comune_residenza", "sesso"]).plot()  # doctest: +SKIP
        """
        table = class_size_table(self.class_sizes)
        ax = plotting.axes_for(axes, (6.4, 3.6))
        colours = [plotting.HIGHLIGHT] + [plotting.REST] * (len(table) - 1)
        bars = ax.bar(table["class size"], table["rows"], color=colours)
        plotting.label_bars(ax, bars, table["rows"].tolist())
        ax.set_xlabel("rows in the class (class size)")
        ax.set_ylabel("rows")
        plotting.title(
            ax,
            f"{self.count:,} singletons ({fmt.percent(self.fraction, 2)}) on "
            f"{fmt.columns(self.qid)}",
        )
        return ax

    def to_dict(self) -> dict:
        return {
            "qid": list(self.qid),
            "rows": self.examined + self.dropped,
            "dropped": self.dropped,
            "examined": self.examined,
            "singletons": self.count,
            "fraction": self.fraction,
            "distinct": self.distinct,
        }

    def __repr__(self) -> str:
        return fmt.render(
            f"Singletons on {fmt.columns(self.qid)}",
            [
                ("rows", fmt.count(self.examined + self.dropped)),
                ("dropped (incomplete)", fmt.count(self.dropped)),
                ("examined", fmt.count(self.examined)),
                ("singletons", fmt.count(self.count)),
                ("singletons %", fmt.percent(self.fraction)),
                ("distinct combinations", fmt.count(self.distinct)),
            ],
        )


@dataclass(frozen=True, repr=False)
class BestQID:
    """The best quasi-identifier elected among column subsets, with every subset counted.

    The seed paper's best quasi-identifier [1]_: most singletons, then fewest columns (with
    ``k`` above 2: most rows in classes of fewer than ``k`` rows, ``at_risk``). Subsets still
    tied are listed in ``ties``; identifiers (column sets whose rows are all distinct) and
    their supersets cannot be elected and are listed in ``identifiers``. The result prints
    as a table (the figures, then the ten most exposed subsets), converts with ``to_dict()``
    and draws the subsets with ``plot()``.

    Attributes
    ----------
    columns : tuple of hashable
        The elected subset, in the frame's column order.
    singletons : int
        The elected subset's singletons.
    fraction : float
        Singletons over rows examined (``singletons / examined``).
    distinct : int
        The elected subset's distinct combinations (its equivalence classes).
    examined : int
        The rows counted (people, with ``weights``).
    dropped : int
        The rows left out for a missing candidate value.
    ties : tuple of tuple of hashable
        The other subsets with the same count and the same size as the elected one.
    identifiers : tuple of tuple of hashable
        The minimal identifier column sets found, never elected.
    candidates : tuple of hashable
        The candidate columns.
    table : pandas.DataFrame
        Every subset counted: its ``columns``, ``size``, ``singletons``, ``fraction`` (with
        ``k`` above 2, ``rows below k=<k>``), ``distinct`` classes and ``status``
        (``"counted"``, ``"derived"`` or ``"identifier"``), the most exposed first. Built
        when it is first read (the gate's election never reads it), then kept.
    table_of : callable
        What builds :attr:`table` when it is first read.
    max_size : int, default 0
        The most columns in a subset examined.
    upper_bound : int or None, default None
        The most rows at risk any subset can have; None when not computed (the gate's rule
        on a large table of nearly distinct rows, searched row by row).
    k : int, default 2
        Subsets are ranked by the rows in classes of fewer than ``k`` rows (2: the
        singletons).
    at_risk : int, default 0
        The elected subset's rows in classes below ``k`` (``k=2``: the singletons).
    pruned : int, default 0
        Subsets of the largest size left uncounted: they could not win.

    See Also
    --------
    pandas_anon.best_qid : The function that returns it.
    pandas_anon.singletons : The singletons of one quasi-identifier.

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), introduction and section 3.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {"year": [1980, 1980, 1991, 1991, 1975], "sex": ["f", "f", "m", "f", "m"]}
    ... )
    >>> best = pandas_anon.best_qid(df, ["year", "sex"])
    >>> best.columns, best.singletons, best.fraction, best.ties, best.identifiers
    (('year', 'sex'), 3, 0.6, (), ())
    >>> best.table[["size", "singletons", "status"]].values.tolist()
    [[2, 3, 'counted'], [1, 1, 'counted'], [1, 0, 'counted']]
    """

    columns: tuple[Hashable, ...]
    singletons: int
    distinct: int
    examined: int
    dropped: int
    ties: tuple[tuple[Hashable, ...], ...]
    identifiers: tuple[tuple[Hashable, ...], ...]
    candidates: tuple[Hashable, ...]
    #: builds :attr:`table` when it is first read (the gate's election never reads it)
    table_of: Callable[[], pd.DataFrame] = field(compare=False)
    max_size: int = 0
    #: the most rows at risk any subset can have; None when not computed (the gate's rule
    #: on a large table of nearly distinct rows, searched row by row)
    upper_bound: int | None = None
    k: int = 2
    at_risk: int = 0  # rows in classes below k (k=2: the singletons)
    pruned: int = 0  # subsets of the largest size left uncounted: they could not win

    @cached_property
    def table(self) -> pd.DataFrame:
        """Every subset counted: its columns, size, singletons (and rows below k), classes
        and status, the most exposed first."""
        return self.table_of()

    @property
    def fraction(self) -> float:
        """Singletons over rows examined."""
        return self.singletons / self.examined

    def plot(self, axes: Any = None, *, top: int = 15) -> Any:
        """The column subsets counted with the most singletons (rows in classes below k for
        k > 2), at most ``top`` of them, the elected one highlighted; needs matplotlib
        (``pip install 'pandas-anon[plot]'``). Draws on ``axes`` (default: new ones) and
        returns them.

        Examples
        --------
        >>> df.anon.best_qid(["anno_nascita", "comune_residenza", "sesso"]).plot()  # doctest: +SKIP
        """
        table = self.table.sort_values("singletons", ascending=False, kind="stable").head(top)
        table = table.iloc[::-1]  # the largest at the top
        ax = plotting.axes_for(axes, (7.2, 0.9 + 0.32 * len(table)))
        names = [plotting.literal(", ".join(map(str, columns))) for columns in table["columns"]]
        colours = [
            plotting.HIGHLIGHT if tuple(columns) == tuple(self.columns) else plotting.REST
            for columns in table["columns"]
        ]
        bars = ax.barh(names, table["singletons"], color=colours)
        plotting.label_bars(ax, bars, table["singletons"].tolist())
        ax.set_xlabel("singletons" if self.k == 2 else f"rows in classes below k={self.k}")
        plotting.title(ax, f"elected: {fmt.columns(self.columns)}")
        return ax

    def to_dict(self) -> dict:
        return {
            "columns": list(self.columns),
            "singletons": self.singletons,
            "fraction": self.fraction,
            "distinct": self.distinct,
            "examined": self.examined,
            "dropped": self.dropped,
            "ties": [list(t) for t in self.ties],
            "identifiers": [list(i) for i in self.identifiers],
            "candidates": list(self.candidates),
            "max_size": self.max_size,
            **({"k": self.k, "at_risk": self.at_risk} if self.k != 2 else {}),
            "evaluated": int((self.table["status"] != "derived").sum()),
            "derived": int((self.table["status"] == "derived").sum()),
            **({"pruned": self.pruned} if self.pruned else {}),
        }

    def __repr__(self) -> str:
        top = self.table.head(10).copy()
        top["columns"] = top["columns"].map(fmt.columns)
        fields = [
            ("best QID", fmt.columns(self.columns)),
            ("singletons", fmt.count(self.singletons)),
            ("singletons %", fmt.percent(self.fraction)),
            *(
                [(f"rows in classes below k={self.k}", fmt.count(self.at_risk))]
                if self.k != 2
                else []
            ),
            ("distinct combinations", fmt.count(self.distinct)),
            ("examined / dropped", f"{fmt.count(self.examined)} / {fmt.count(self.dropped)}"),
            ("ties", fmt.column_sets(self.ties)),
            ("identifiers", fmt.column_sets(self.identifiers)),
            ("subsets in table", fmt.count(len(self.table))),
        ]
        return fmt.render("Best quasi-identifier", fields, ("Top subsets", top))


@dataclass(frozen=True, repr=False)
class Risk:
    """Re-identification risk of a quasi-identifier, measured on its equivalence classes.

    ``uniques`` is the :class:`Singletons` result of the same QID [1]_ (its ``.mask`` locates
    the sample uniques). Without a population model the sample is taken as the population
    [2]_: prosecutor risk of a row is 1 / (size of its class); the average prosecutor risk
    and the marketer risk (the expected share of rows an attacker linking everyone
    re-identifies) are both classes / rows. The result prints as tables and converts with
    ``to_dict()``.

    Attributes
    ----------
    uniques : Singletons
        The singletons of the same QID; its ``mask`` locates the sample uniques.
    qid : tuple of hashable
        The quasi-identifier columns (``uniques.qid``).
    examined : int
        The rows counted (``uniques.examined``).
    dropped : int
        The rows left out for a missing QID value (``uniques.dropped``).
    classes : int
        The equivalence classes (``uniques.distinct``).
    sample_uniques : int
        The rows alone in their class (``uniques.count``).
    sample_uniques_fraction : float
        Sample uniques over rows examined.
    smallest_class : int
        The size of the smallest class.
    prosecutor_max : float
        The highest prosecutor risk of a row: 1 / ``smallest_class``.
    prosecutor_avg : float
        The prosecutor risk averaged over the rows: ``classes / examined``.
    marketer : float
        Expected share of rows re-identified by matching every row: the same figure as the
        average prosecutor risk on the sample itself.
    highest_risk_records : int
        The rows in classes of the smallest size.
    highest_risk_fraction : float
        Those rows over rows examined.
    class_sizes : pandas.DataFrame
        The ``classes`` and ``rows`` per ``class size`` bucket: 1, 2, 3-4, 5-9, 10-99, 100+.
    contributions : pandas.DataFrame
        For each QID ``column``, the ``singletons without it`` and the ``singletons
        removed`` by dropping it.
    population_estimate : PopulationUniqueness or None
        With a population (``risk(..., population=)`` or ``sampling_fraction=``): its size,
        the sampling fraction, the model Dankar et al.'s rule chose and each model's figure
        (:mod:`pandas_anon.detect.population`); else None.
    population_uniques : float or None
        The estimated fraction of the population's records unique on the QID, what ARX
        calls "population uniqueness", by the log-linear model (``population_estimate.uniques``);
        None without a population.
    population_uniques_by_model : dict or None
        ``zayatz``, ``pitman``, ``snb``, ``dankar`` (ARX's) and ``loglinear``: each model's
        estimate of that fraction, None where it has none; None without a population.

    See Also
    --------
    pandas_anon.risk : The function that returns it.
    pandas_anon.singletons : The singletons alone, and the rows holding them.

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), section 3.1.
    .. [2] El Emam et al. (2009), "A Globally Optimal k-Anonymity Method for the
       De-Identification of Health Data", section 2.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {"year": [1980, 1980, 1991, 1991, 1975], "sex": ["f", "f", "m", "f", "m"]}
    ... )
    >>> r = pandas_anon.risk(df, ["year", "sex"])
    >>> r.classes, r.sample_uniques, r.smallest_class, r.highest_risk_records
    (4, 3, 1, 3)
    >>> r.prosecutor_max, r.prosecutor_avg, r.marketer
    (1.0, 0.8, 0.8)
    >>> r.contributions["singletons removed"].tolist()
    [3, 2]
    """

    uniques: Singletons
    smallest_class: int
    highest_risk_records: int
    class_sizes: pd.DataFrame = field(compare=False)
    contributions: pd.DataFrame = field(compare=False)
    population_estimate: PopulationUniqueness | None = None

    @property
    def qid(self) -> tuple[Hashable, ...]:
        return self.uniques.qid

    @property
    def population_uniques(self) -> float | None:
        estimate = self.population_estimate
        return None if estimate is None else estimate.uniques

    @property
    def population_uniques_by_model(self) -> dict[str, float | None] | None:
        estimate = self.population_estimate
        return None if estimate is None else dict(estimate.by_model)

    @property
    def examined(self) -> int:
        return self.uniques.examined

    @property
    def dropped(self) -> int:
        return self.uniques.dropped

    @property
    def classes(self) -> int:
        return self.uniques.distinct

    @property
    def sample_uniques(self) -> int:
        return self.uniques.count

    @property
    def sample_uniques_fraction(self) -> float:
        return self.sample_uniques / self.examined

    @property
    def prosecutor_max(self) -> float:
        return prosecutor.highest(self.smallest_class)

    @property
    def prosecutor_avg(self) -> float:
        return prosecutor.average(self.classes, self.examined)

    @property
    def marketer(self) -> float:
        """Expected share of rows re-identified by matching every row: the same figure as
        the average prosecutor risk on the sample itself."""
        return self.prosecutor_avg

    @property
    def highest_risk_fraction(self) -> float:
        return self.highest_risk_records / self.examined

    def to_dict(self) -> dict:
        return {
            "qid": list(self.qid),
            "examined": self.examined,
            "dropped": self.dropped,
            "classes": self.classes,
            "sample_uniques": self.sample_uniques,
            "sample_uniques_fraction": self.sample_uniques_fraction,
            "prosecutor_max": self.prosecutor_max,
            "prosecutor_avg": self.prosecutor_avg,
            "marketer": self.marketer,
            "highest_risk_records": self.highest_risk_records,
            "highest_risk_fraction": self.highest_risk_fraction,
            "class_sizes": self.class_sizes.to_dict(orient="records"),
            "contributions": self.contributions.to_dict(orient="records"),
            **({} if self.population_estimate is None else self.population_estimate.to_dict()),
        }

    def __repr__(self) -> str:
        fields = [
            ("examined / dropped", f"{fmt.count(self.examined)} / {fmt.count(self.dropped)}"),
            ("equivalence classes", fmt.count(self.classes)),
            (
                "sample uniques",
                f"{fmt.count(self.sample_uniques)} ({fmt.percent(self.sample_uniques_fraction)})",
            ),
            ("prosecutor risk max", f"{self.prosecutor_max:.4f}"),
            ("prosecutor risk avg", f"{self.prosecutor_avg:.4f}"),
            ("marketer risk", f"{self.marketer:.4f}"),
            (
                "records at highest risk",
                f"{fmt.count(self.highest_risk_records)} "
                f"({fmt.percent(self.highest_risk_fraction)})",
            ),
        ]
        if self.population_estimate is not None:
            fields += self.population_estimate.fields()
        return fmt.render(
            f"Risk of {fmt.columns(self.qid)}",
            fields,
            ("Class sizes", self.class_sizes),
            ("Singletons removed by dropping one column", self.contributions),
        )


def class_size_table(sizes: np.ndarray) -> pd.DataFrame:
    """Classes and rows by class size bucket (1, 2, 3-4, 5-9, 10-99, 100+)."""
    edges = [(1, 1), (2, 2), (3, 4), (5, 9), (10, 99), (100, np.inf)]
    rows = []
    for low, high in edges:
        inside = (sizes >= low) & (sizes <= high)
        label = str(low) if low == high else (f"{low}+" if high == np.inf else f"{low}-{high}")
        rows.append(
            {"class size": label, "classes": int(inside.sum()), "rows": int(sizes[inside].sum())}
        )
    return pd.DataFrame(rows)
