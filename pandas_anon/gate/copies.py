"""A table written several times over: judged as one copy.

The gate counts people as rows. A file whose every record is written twice (or ``m`` times)
doubles every count: a column of tax codes, each on two identical rows, is no longer unique,
and every class reaches ``k = 2``, so the gate's rules would pass what one copy fails. Such a
file tells no more than one copy of it: when every distinct record (rows alike on every
column, missing values alike) of a table of two or more columns appears exactly ``m > 1``
times, over at least :data:`MIN_RECORDS` distinct records (and more than ``m``), the gate
judges one copy, and says so.

A real table has records of different counts (one alone, another twice): the same count on
every one of twenty or more records is no chance of people's data. A table of a few records
each written many times (two combinations of 225 rows each, what a release generalized to a
few classes looks like; six towns five times each) may be one by design, and a one-column
table's rows alike are people sharing a value: these are judged as they are.

The copies are found cheaply first: ``m`` divides the count of every value of every column,
so the greatest common divisor of each column's value counts must be 2 or more before the
records are counted.
"""

from __future__ import annotations

import math
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MIN_RECORDS", "copies", "one_copy", "partitions_copies"]

#: Distinct records from which the same count on every one is a table written over.
MIN_RECORDS = 20


def copies(frame: pd.DataFrame) -> int:
    """The ``m`` of ``frame``: how many times each of its distinct records appears, when that
    is the same for every one (and they are at least :data:`MIN_RECORDS`, more than ``m``,
    over two or more columns); 1 otherwise.

    Examples
    --------
    >>> frame = pd.DataFrame({"code": [f"A{i}" for i in range(30)] * 2, "sex": ["F"] * 60})
    >>> copies(frame)
    2
    >>> copies(frame.iloc[:59])
    1
    """
    if len(frame) < 2 * MIN_RECORDS or frame.shape[1] < 2:
        return 1
    bound = 0
    for column in sorted(frame.columns, key=lambda c: not _categorical(frame[c])):
        bound = math.gcd(bound, _divisor(_value_counts(frame[column])))
        if bound < 2:  # a categorical's counts first: a bincount of its codes
            return 1
    return _uniform(_record_counts(frame))


def _uniform(counts: np.ndarray) -> int:
    """The count every record has (``counts``, one a record), when it is the same for all,
    more than 1, and they are at least :data:`MIN_RECORDS` and more than it; else 1."""
    m = int(counts[0]) if len(counts) else 1
    uniform = bool((counts == m).all())
    return m if m > 1 and len(counts) >= max(MIN_RECORDS, m + 1) and uniform else 1


def partitions_copies(frame: Any) -> int:
    """:func:`copies` of the Dask frame ``frame``: each column's value counts in one pass over
    the partitions, then, only when every column's allow an ``m`` of 2 or more, the counts
    of its records in another."""
    import dask

    if frame.shape[1] < 2:
        return 1
    columns = list(frame.columns)
    (counts,) = dask.compute([frame[c].value_counts(dropna=False) for c in columns])
    bound = 0
    for found in counts:
        bound = math.gcd(bound, _divisor(found.to_numpy()))
        if bound < 2:
            return 1
    records = frame.groupby(columns, dropna=False, observed=True).size().compute().to_numpy()
    return _uniform(records)


def one_copy(frame: pd.DataFrame) -> pd.DataFrame:
    """The distinct records of ``frame``, in the order of their first row: one copy of a table
    written over (:func:`copies`), each record one person."""
    return frame.drop_duplicates(keep="first").reset_index(drop=True)


def _divisor(counts: np.ndarray) -> int:
    counts = counts[counts > 0]
    return int(reduce(math.gcd, counts.tolist(), 0)) if len(counts) else 1


def _categorical(column: pd.Series) -> bool:
    return isinstance(column.dtype, pd.CategoricalDtype)


def _value_counts(column: pd.Series) -> np.ndarray:
    """How many rows hold each value of ``column`` (missing one value)."""
    if _categorical(column):
        codes = column.cat.codes.to_numpy().astype(np.int64) + 1  # missing (-1) is 0
        return np.bincount(codes)
    return column.value_counts(dropna=False, sort=False).to_numpy()


def _record_counts(frame: pd.DataFrame) -> np.ndarray:
    """How many rows each distinct record of ``frame`` has."""
    codes = np.column_stack([pd.factorize(frame[c], use_na_sentinel=False)[0] for c in frame])
    _, counts = np.unique(codes, axis=0, return_counts=True)
    return counts
