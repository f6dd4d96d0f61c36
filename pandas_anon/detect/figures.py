"""See the risk: singletons, identifiers and risk figures of a quasi-identifier.

Definitions follow Pastore et al. (2020), "Detecting and Generalizing Quasi-Identifiers by
Affecting Singletons", section 3.1: a
*singleton* is a row whose combination of values on the quasi-identifier (QID) occurs once;
an *identifier* (ID) is a column set whose values are all distinct.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import pandas as pd

from pandas_anon.detect.results import Risk, Singletons, class_size_table
from pandas_anon.detect.subsets import SubsetSearch, check_max_size
from pandas_anon.engine.columns import all_columns, require_data, resolve_columns
from pandas_anon.engine.encoding import EncodedFrame

QID = Iterable[Hashable] | Hashable


def singletons(frame: pd.DataFrame, qid: QID, *, dropna: bool = True) -> Singletons:
    """Count (and locate) the rows unique on ``qid``.

    With ``dropna=True`` rows missing any QID value are dropped first and reported in
    ``.dropped``; with ``dropna=False`` missing is a value like any other.
    """
    return _singletons(frame, EncodedFrame(frame, qid, dropna=dropna))


def _singletons(frame: pd.DataFrame, encoded: EncodedFrame) -> Singletons:
    grouping = encoded.grouping()
    return Singletons(
        qid=encoded.columns,
        count=grouping.singletons,
        distinct=grouping.distinct,
        examined=encoded.n_examined,
        dropped=encoded.n_dropped,
        _frame=frame,
        _encoded=encoded,
        _grouping=grouping,
    )


def identifiers(
    frame: pd.DataFrame, columns: QID | None = None, *, max_size: int = 1
) -> list[tuple[Hashable, ...]]:
    """Minimal column sets of up to ``max_size`` columns whose values are all distinct.

    Every row counts: a missing value is a value, so a column with two empty cells is not an
    identifier. Columns with no value at all are skipped when ``columns`` is None.
    """
    check_max_size(max_size)
    encoded = EncodedFrame(frame, candidate_columns(frame, columns), dropna=False)
    search = SubsetSearch(encoded, max_size=max_size)
    for _ in search.levels():
        pass
    return [tuple(encoded.columns[i] for i in ids) for ids in search.identifiers]


def risk(frame: pd.DataFrame, qid: QID, *, dropna: bool = True) -> Risk:
    """Risk figures of ``qid``: sample uniques, prosecutor and marketer risk, class sizes,
    and how many singletons disappear when each column is dropped from the QID."""
    encoded = EncodedFrame(frame, qid, dropna=dropna)
    found = _singletons(frame, encoded)
    sizes = found.class_sizes
    uniques = found.count
    without = {
        column: encoded.grouping([c for c in encoded.columns if c != column]).singletons
        for column in encoded.columns
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


def candidate_columns(frame: pd.DataFrame, columns: QID | None) -> tuple[Hashable, ...]:
    """``columns`` checked, or (None) every column of the frame holding at least one value;
    :class:`EmptyDataError` for a frame without rows or columns."""
    require_data(frame)
    if columns is not None:
        return resolve_columns(frame, columns)
    return tuple(c for c in all_columns(frame) if frame[c].notna().any())
