"""The strategy study of Pastore et al. (2020), section 3.2 and Table 1.

Pastore, Pellegrino and Scarano, "Detecting and Generalizing Quasi-Identifiers by Affecting
Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797).

For the quasi-identifier (year of birth, place, sex) the paper compares fourteen ways of
generalizing: sex suppressed (S), place raised to its parent level (M), years grouped into
ranges (Y_ran) or replaced by a representative year (Y_avg), each globally (every row) or,
for S and M, locally (``_loc``: only the rows that are singletons), and their combinations.
Each row of the result gives the singletons left, the rows modified and the distinct
combinations; the best strategy has the fewest singletons, then the fewest modified rows.

Everything is computed on integer codes: each column is recoded once per variant and each
strategy is one grouping of three code arrays, so the whole study takes a fraction of a
second on the 87,464 Valle d'Aosta rows.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon import formatting as report
from pandas_anon import plotting
from pandas_anon.anonymization.recoding import HierarchyLike, Recoded, hierarchy_for, recode_codes
from pandas_anon.engine.columns import resolve_columns
from pandas_anon.engine.encoding import factorize
from pandas_anon.engine.grouping import Grouping, group_codes
from pandas_anon.errors import EmptyDataError, InvalidParameterError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.builders import intervals
from pandas_anon.params import whole
from pandas_anon.plugins.registry import claimed_hierarchy

#: Row labels of Table 1 in the paper's order.
STRATEGIES = (
    "original",
    "S_loc",
    "M_loc",
    "S, M_loc",
    "S",
    "M",
    "Y_ran",
    "Y_avg",
    "S, M",
    "S, Y_ran",
    "S, Y_avg",
    "M, Y_ran",
    "M, Y_avg",
    "S,M,Y_ran",
    "S,M,Y_avg",
)
_GLOBAL = {  # strategy -> the global recodings it combines
    "S": ("S",),
    "M": ("M",),
    "Y_ran": ("Y_ran",),
    "Y_avg": ("Y_avg",),
    "S, M": ("S", "M"),
    "S, Y_ran": ("S", "Y_ran"),
    "S, Y_avg": ("S", "Y_avg"),
    "M, Y_ran": ("M", "Y_ran"),
    "M, Y_avg": ("M", "Y_avg"),
    "S,M,Y_ran": ("S", "M", "Y_ran"),
    "S,M,Y_avg": ("S", "M", "Y_avg"),
}


@dataclass(frozen=True, repr=False)
class Study:
    """Table 1 of the seed paper for one dataset, and the strategy it elects."""

    table: pd.DataFrame = field(compare=False)
    best: str
    qid: tuple[Hashable, ...]
    hierarchies: dict[str, str]

    def plot(self, axes: Any = None) -> Any:
        """Each strategy's singletons left and rows modified (the trade-off of the seed
        paper's table 2), side by side, one bar each, the best strategy highlighted; needs
        matplotlib (``pip install 'pandas-anon[plot]'``). Draws on ``axes`` (two, default:
        new ones) and returns them.

        Examples
        --------
        >>> df.anon.study(year="anno_nascita", sex="sesso", place="comune_residenza").plot()  # doctest: +SKIP
        """
        table = self.table.iloc[::-1]  # the original at the top
        if axes is None:
            _, axes = plotting.pyplot().subplots(
                1, 2, figsize=(9.6, 0.9 + 0.3 * len(table)), sharey=True, constrained_layout=True
            )
        names = [str(name) for name in table.index]
        colours = [plotting.HIGHLIGHT if name == self.best else plotting.REST for name in names]
        for ax, column, title in (
            (axes[0], "singletons", "singletons left"),
            (axes[1], "modified", "rows modified"),
        ):
            bars = ax.barh(names, table[column], color=colours)
            plotting.label_bars(ax, bars, table[column].tolist())
            ax.set_xlabel(title)
            ax.margins(x=0.2)
        axes[0].set_title(f"best: {self.best}", fontsize="medium", loc="left")
        return axes

    def to_dict(self) -> dict:
        return {
            "qid": [str(c) for c in self.qid],
            "best": self.best,
            "hierarchies": self.hierarchies,
            "table": self.table.reset_index(names="strategy").to_dict(orient="records"),
        }

    def __repr__(self) -> str:
        shown = self.table.reset_index(names="strategy")
        shown["singletons_pct"] = shown["singletons_pct"].map(lambda p: f"{p:.4f}")
        return report.render(
            f"Strategy study on {report.columns(self.qid)} (Pastore et al. 2020, Table 1)",
            [("best", f"{self.best} (fewest singletons, then fewest modified rows)")]
            + [(f"hierarchy {k}", v) for k, v in self.hierarchies.items()],
            ("", shown),
        )


def study(
    frame: pd.DataFrame,
    qid: Sequence[Hashable] | None = None,
    *,
    year: Hashable,
    sex: Hashable,
    place: Hashable,
    hierarchy: HierarchyLike | None = None,
    level: int = 1,
    year_groups: int = 4,
) -> Study:
    """Run the paper's comparison of generalization strategies.

    For the quasi-identifier (year of birth, place, sex), Pastore et al. compare fourteen
    ways of generalizing [1]_: sex suppressed (S), place raised to its parent level (M),
    years grouped into ranges (Y_ran) or replaced by a representative year (Y_avg), each
    globally (every row) or, for S and M, locally (``_loc``: only the rows that are
    singletons), and their combinations. Each row of the result gives the singletons left,
    the rows modified and the distinct combinations; the best strategy has the fewest
    singletons, then the fewest modified rows.

    Rows missing a value of ``qid`` (by default the year, place and sex) are removed first
    and counted in ``removed`` of ``original``. Everything is computed on integer codes:
    each column is recoded once per variant, and each strategy is one grouping of the code
    arrays.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to study. It is not modified.
    qid : sequence of hashable, optional
        The quasi-identifier: it must hold ``year``, ``sex`` and ``place``, and may hold
        other columns, which no strategy changes. Default None: ``[year, place, sex]``.
    year : hashable
        The year-of-birth column, which Y_ran and Y_avg generalize.
    sex : hashable
        The sex column, which S suppresses.
    place : hashable
        The place column, which M raises along ``hierarchy``.
    hierarchy : Hierarchy, str or callable, optional
        The hierarchy of ``place``: a :class:`~pandas_anon.hierarchy.Hierarchy`, a
        registered name such as ``"it.comune"``, or a builder called with the column.
        Default None: the registered hierarchy that claims the place column.
    level : int, default 1
        The level M raises places to (1: the parent level, the province for
        ``"it.comune"``).
    year_groups : int, default 4
        Y_ran groups the distinct years ``year_groups`` at a time; Y_avg cuts the rows into
        ``year_groups`` equal runs (see :func:`paper_year_average`). A whole number of at
        least 1.

    Returns
    -------
    Study
        ``table``: one row per strategy, in the order of the paper's Table 1
        (``"original"``, ``"S_loc"``, ``"M_loc"``, ``"S, M_loc"``, ``"S"``, ``"M"``,
        ``"Y_ran"``, ``"Y_avg"``, then the global combinations), with the columns
        ``singletons`` (rows unique on the QID), ``singletons_pct`` (their percentage of
        the complete rows), ``modified`` (rows whose values changed), ``touched`` (rows
        selected for recoding), ``removed`` (incomplete rows, on ``"original"``) and
        ``distinct`` (combinations); ``best``, the strategy elected; ``qid``; and
        ``hierarchies``, the names of the place, Y_ran and Y_avg hierarchies. ``plot()``
        draws the trade-off.

    Raises
    ------
    InvalidParameterError
        When ``year_groups`` or ``level`` is not a whole number of at least 1, ``year``, ``sex`` or
        ``place`` is not in ``qid``, no ``hierarchy`` is given and no registered one claims
        the place column, or the complete rows are fewer than ``year_groups``.
    ColumnNotFoundError, InvalidQIDError, DuplicateColumnsError
        When ``qid`` (or the year, place and sex columns) name a column that is not in the
        frame, name one twice, or name a label several columns share.
    EmptyDataError
        When no row is complete on ``qid``.
    HierarchyError
        When ``level`` is above the top of the place hierarchy, a place is missing from it
        (the message quotes those values), or it cannot be built.
    UnknownNameError
        When ``hierarchy`` names a hierarchy that is not registered.

    See Also
    --------
    pandas_anon.generalize : One strategy, written to the frame.
    pandas_anon.best_qid : Elect the quasi-identifier exposing the most singletons.
    pandas_anon.compare : k-anonymity methods side by side.

    References
    ----------
    .. [1] M. Pastore, M. A. Pellegrino and V. Scarano, "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797),
       section 3.2 and Table 1.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "year": [1950, 1950, 1960, 1960, 1970, 1970, 1980, 1980],
    ...     "town": ["Aosta", "Aosta", "Aosta", "Nus", "Fenis", "Aosta", "Ivrea", "Turin"],
    ...     "province": ["AO", "AO", "AO", "AO", "AO", "AO", "TO", "TO"],
    ...     "sex": ["F", "F", "M", "M", "M", "F", "F", "F"],
    ... })
    >>> towns = Hierarchy.from_columns(df, ["town", "province"])
    >>> result = pandas_anon.study(df, year="year", sex="sex", place="town", hierarchy=towns)
    >>> result.best
    'S, M_loc'
    >>> result.table.loc[["original", "M_loc", "S, M_loc"], ["singletons", "modified"]]
              singletons  modified
    original           6         0
    M_loc              2         6
    S, M_loc           0         6
    """
    whole(year_groups, "year_groups", example=4)
    level = whole(level, "level", example=1)  # 0 would leave M without an effect
    qid = resolve_columns(frame, qid if qid is not None else [year, place, sex])
    for role, column in (("year", year), ("sex", sex), ("place", place)):
        if column not in qid:
            raise InvalidParameterError(
                f"{role} column {column!r} must be part of the qid {list(qid)!r}"
            )
    data = frame[list(qid)].dropna()
    if len(data) == 0:
        raise EmptyDataError(f"no row is complete on {list(qid)!r}; the study needs complete rows")
    removed = len(frame) - len(data)
    place_hierarchy = (
        hierarchy_for(data[place], hierarchy)
        if hierarchy is not None
        else hierarchy_for(data[place], _claimed(place))
    )
    variants = _Variants(data, qid)
    global_recodings = {
        "S": (sex, Hierarchy(data[sex].unique(), name="suppression"), 1),
        "M": (place, place_hierarchy, level),
        "Y_ran": (
            year,
            intervals(
                data[year],
                groups_of=year_groups,
                name=f"groups of {year_groups} consecutive distinct years",
            ),
            1,
        ),
        "Y_avg": (year, paper_year_average(data[year], groups=year_groups), 1),
    }
    rows = {"original": variants.measure({}, touched=0)}
    rows["original"]["removed"] = removed
    original_singletons = variants.singleton_rows({})
    sex_loc = variants.recode(sex, global_recodings["S"][1], 1, original_singletons)
    place_loc = variants.recode(place, place_hierarchy, level, original_singletons)
    rows["S_loc"] = variants.measure({sex: sex_loc}, touched=original_singletons.sum())
    rows["M_loc"] = variants.measure({place: place_loc}, touched=original_singletons.sum())
    after_sex = variants.singleton_rows({sex: sex_loc})
    place_after = variants.recode(place, place_hierarchy, level, after_sex)
    rows["S, M_loc"] = variants.measure(
        {sex: sex_loc, place: place_after}, touched=(original_singletons | after_sex).sum()
    )
    recoded = {
        name: variants.recode(column, h, lev) for name, (column, h, lev) in global_recodings.items()
    }
    for strategy, parts in _GLOBAL.items():
        columns = {global_recodings[p][0]: recoded[p] for p in parts}
        rows[strategy] = variants.measure(columns, touched=len(data))
    table = pd.DataFrame.from_dict(rows, orient="index").loc[list(STRATEGIES)]
    table["singletons_pct"] = 100 * table["singletons"] / len(data)
    table = table[["singletons", "singletons_pct", "modified", "touched", "removed", "distinct"]]
    candidates = table.drop(index="original")
    best = candidates.sort_values(["singletons", "modified"], kind="stable").index[0]
    names = {
        "place": place_hierarchy.name or "(unnamed)",
        "Y_ran": global_recodings["Y_ran"][1].name or "(unnamed)",
        "Y_avg": global_recodings["Y_avg"][1].name or "(unnamed)",
    }
    return Study(table=table, best=best, qid=qid, hierarchies=names)


class _Variants:
    """The complete rows of the QID, encoded once, measured under recodings of columns."""

    def __init__(self, data: pd.DataFrame, qid: tuple[Hashable, ...]) -> None:
        self.data, self.qid = data, qid
        self.base = {}
        for column in qid:
            codes, values = factorize(data[column])
            self.base[column] = Recoded(codes, pd.Index(values), np.zeros(len(data), dtype=bool))

    def recode(
        self, column: Hashable, hierarchy: Hierarchy, level: int, selected: np.ndarray | None = None
    ) -> Recoded:
        base = self.base[column]  # factorized once in __init__
        return recode_codes(base.codes, base.values, hierarchy, level, selected, column=column)

    def _grouping(self, changed: dict[Hashable, Recoded]) -> Grouping:
        columns = [changed.get(c, self.base[c]) for c in self.qid]
        return group_codes(
            [c.codes for c in columns], [len(c.values) for c in columns], n_rows=len(self.data)
        )

    def singleton_rows(self, changed: dict[Hashable, Recoded]) -> np.ndarray:
        return self._grouping(changed).row_class_sizes() == 1

    def measure(self, changed: dict[Hashable, Recoded], *, touched: int) -> dict[str, int]:
        grouping = self._grouping(changed)
        modified = np.zeros(len(self.data), dtype=bool)
        for recoded in changed.values():
            modified |= recoded.changed
        return {
            "singletons": grouping.singletons,
            "modified": int(modified.sum()),
            "touched": int(touched),
            "removed": 0,
            "distinct": grouping.distinct,
        }


def paper_year_average(years: pd.Series, *, groups: int = 4) -> Hierarchy:
    """The paper's Y_avg ("substituting values by the mean value of the range").

    What reproduces the paper's figures: the rows, sorted by year, are cut into ``groups``
    runs of ``N // groups`` rows (the last run takes the remainder); each run is labelled by
    the year of its middle row; each year then goes to the *first* run whose [min, max]
    contains it, so a year split across two runs joins the earlier one. The label is a year
    of the data (a representative, not an arithmetic mean).
    """
    whole(groups, "groups", example=4)
    ordered = years.dropna().sort_values(kind="stable").reset_index(drop=True)
    if len(ordered) < groups:
        raise InvalidParameterError(f"{len(ordered)} years cannot be cut into {groups} runs")
    size = len(ordered) // groups
    starts = np.arange(groups) * size
    ends = np.append(starts[1:], len(ordered))
    lows, highs = ordered.iloc[starts].to_numpy(), ordered.iloc[ends - 1].to_numpy()
    middles = ordered.iloc[starts + (ends - starts) // 2].reset_index(drop=True)
    distinct = pd.Index(ordered.unique())
    values = distinct.to_numpy()
    inside = (values[:, None] >= lows[None, :]) & (values[:, None] <= highs[None, :])
    first_run = inside.argmax(axis=1)
    labels = middles.take(first_run).reset_index(drop=True)
    return Hierarchy(distinct, [labels], name=f"year of the middle row of {groups} row runs")


def _claimed(place: Hashable) -> str:
    name = claimed_hierarchy(str(place))
    if name is None:
        raise InvalidParameterError(
            f"no hierarchy given for place column {place!r} and no registered hierarchy claims "
            f"it; pass hierarchy=Hierarchy.from_columns(df, [{place!r}, <parent column>]) or a "
            f"registered name such as 'it.comune'"
        )
    return name
