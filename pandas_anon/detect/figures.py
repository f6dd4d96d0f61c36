"""See the risk: singletons, identifiers and risk figures of a quasi-identifier.

Definitions follow Pastore et al. (2020), "Detecting and Generalizing Quasi-Identifiers by
Affecting Singletons", section 3.1: a
*singleton* is a row whose combination of values on the quasi-identifier (QID) occurs once;
an *identifier* (ID) is a column set whose values are all distinct.

Every figure is read from the frequency set of the columns (the backend's
:func:`~pandas_anon.engine.backends.pandas.tabulate`): a singleton is a combination of count 1,
the class sizes are the counts. Rows are reached again only when a result is asked for them
(:attr:`~pandas_anon.detect.results.Singletons.mask`), through the backend's map from rows to
combinations.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pandas_anon.detect.results import Risk, Singletons, class_size_table
from pandas_anon.detect.subsets import SubsetSearch, check_max_size
from pandas_anon.engine.backends import dask_backend, is_dask, tabulate
from pandas_anon.engine.columns import all_columns, as_label_list, require_data, resolve_columns
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.weights import Weights, weight_column
from pandas_anon.errors import InvalidQIDError

QID = Iterable[Hashable] | Hashable

if TYPE_CHECKING:
    from pandas_anon.engine.backends.dask import DaskTabulation
    from pandas_anon.engine.backends.pandas import Tabulation


def singletons(
    frame: pd.DataFrame, qid: QID, *, dropna: bool = True, weights: Weights | None = None
) -> Singletons:
    """Count (and locate) the rows unique on ``qid``.

    With ``dropna=True`` rows missing any QID value are dropped first and reported in
    ``.dropped``; with ``dropna=False`` missing is a value like any other.

    ``weights``: for an aggregated table, the count column (or one count per row) giving
    the people each row stands for (:mod:`pandas_anon.engine.weights`). Every figure is then
    about people, as on the table exploded to one row per person: a singleton is a
    combination counting one person, and ``mask`` marks the rows (cells) holding one.
    """
    _outside(frame, qid, weights)
    return _singletons(frame, tabulate(frame, qid, dropna=dropna, weights=weights))


def _singletons(frame: pd.DataFrame, tabulation: Tabulation | DaskTabulation) -> Singletons:
    frequencies = tabulation.frequencies
    return Singletons(
        qid=frequencies.columns,
        count=int(np.count_nonzero(frequencies.counts == 1)),
        distinct=len(frequencies),
        examined=tabulation.n_examined,
        dropped=tabulation.n_dropped,
        _frame=frame,
        _tabulation=tabulation,
    )


def identifiers(
    frame: pd.DataFrame, columns: QID | None = None, *, max_size: int = 1
) -> list[tuple[Hashable, ...]]:
    """Minimal column sets of up to ``max_size`` columns whose values are all distinct.

    Every row counts: a missing value is a value, so a column with two empty cells is not an
    identifier. Columns with no value at all are skipped when ``columns`` is None.
    """
    check_max_size(max_size)
    frequencies, _ = candidate_frequencies(frame, columns, dropna=False)
    search = SubsetSearch(frequencies, max_size=max_size)
    for _ in search.levels():
        pass
    return [tuple(frequencies.columns[i] for i in ids) for ids in search.identifiers]


def risk(
    frame: pd.DataFrame, qid: QID, *, dropna: bool = True, weights: Weights | None = None
) -> Risk:
    """Risk figures of ``qid``: sample uniques, prosecutor and marketer risk, class sizes,
    and how many singletons disappear when each column is dropped from the QID
    (``weights``: people per row of an aggregated table, as :func:`singletons` takes them)."""
    _outside(frame, qid, weights)
    tabulation = tabulate(frame, qid, dropna=dropna, weights=weights)
    found = _singletons(frame, tabulation)
    frequencies = tabulation.frequencies
    sizes = found.class_sizes
    uniques = found.count
    without = {
        column: _singleton_count(frequencies, [c for c in frequencies.columns if c != column])
        for column in frequencies.columns
    }
    contributions = pd.DataFrame(
        {
            "column": [str(c) for c in without],
            "singletons without it": list(without.values()),
            "singletons removed": [uniques - left for left in without.values()],
        }
    )
    smallest = int(sizes.min())
    return Risk(
        uniques=found,
        smallest_class=smallest,
        highest_risk_records=int(sizes[sizes == smallest].sum()),
        class_sizes=class_size_table(sizes),
        contributions=contributions,
    )


def _singleton_count(frequencies: FrequencySet, columns: list[Hashable]) -> int:
    """Combinations of ``columns`` carrying one row (the frequency set projected on them)."""
    projected, _ = frequencies.project(columns)
    return int(np.count_nonzero(projected.counts == 1))


def candidate_columns(
    frame: pd.DataFrame, columns: QID | None, weights: Weights | None = None
) -> tuple[Hashable, ...]:
    """``columns`` checked, or (None) every column of the frame holding at least one value,
    less the count column ``weights`` names; :class:`EmptyDataError` for a frame without
    rows or columns."""
    if is_dask(frame):  # checked as the frame is read, in one pass
        return (
            dask_backend().present_columns(frame)
            if columns is None
            else resolve_columns(frame, columns)
        )
    require_data(frame)
    if columns is not None:
        _outside(frame, columns, weights)
        return resolve_columns(frame, columns)
    counted = weight_column(frame, weights)
    return tuple(c for c in all_columns(frame) if c != counted and frame[c].notna().any())


def candidate_frequencies(
    frame: pd.DataFrame, columns: QID | None, *, dropna: bool, weights: Weights | None = None
) -> tuple[FrequencySet, int]:
    """The frequency set of the :func:`candidate_columns`, and the rows of the frame it
    leaves out (missing a value, with ``dropna``; people, with ``weights``); the map back to
    rows is not kept."""
    tabulation = tabulate(
        frame, candidate_columns(frame, columns, weights), dropna=dropna, weights=weights
    )
    return tabulation.frequencies, tabulation.n_dropped


def _outside(frame: pd.DataFrame, qid: QID, weights: Weights | None) -> None:
    """Refuse a count column inside the quasi-identifier: it counts people, it describes
    none."""
    counted = weight_column(frame, weights)
    if counted is not None and counted in as_label_list(qid, frame.columns):
        raise InvalidQIDError(
            f"the count column {counted!r} (weights=) is inside the quasi-identifier; it counts "
            f"the people of each row and describes none of them: leave it out"
        )
