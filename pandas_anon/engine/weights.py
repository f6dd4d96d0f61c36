"""Row weights: the people each row of an aggregated table stands for.

An aggregated (count) table publishes one row per *cell*, a combination of dimension values
(a date, an area, an age band, a sex), with the number of people in it. Weighted by that
count, its rows are what the table would be exploded into, one row per person: a class's
size is the sum of the counts of its cells, a singleton is a class of one person, and the
rows at risk are the people in classes below k. The frequency set
(:mod:`pandas_anon.engine.frequency`) adds weights where it would count rows, so every figure
read from it (singletons, class sizes, risk, the gate's election) means the same on a count
table and on its exploded form.

:func:`read_weights` turns a count column (or an array) into weights, refusing what no count
of people can be; :func:`melt_counts` turns a wide table with one count column per category
(``m``, ``f``) into the long form, one count column beside a column naming the category.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import cast

import numpy as np
import pandas as pd

from pandas_anon.engine.columns import as_label_list, resolve_columns
from pandas_anon.errors import InvalidParameterError
from pandas_anon.params import frame as checked_frame

#: What a caller may pass as weights: a column label, or one number per row.
Weights = Hashable | Sequence[float] | np.ndarray | pd.Series

_EXACT = 2**53  # counts up to this add up exactly in float64 (np.bincount's weights)


def read_weights(frame: pd.DataFrame, weights: Weights) -> np.ndarray:
    """The weight (people) of each row of ``frame``, as int64.

    ``weights`` is the label of a count column of ``frame``, or one count per row (a list,
    array or Series, taken by position). A missing count is 0: a withheld cell stands for
    nobody the table tells about. Text counts (a CSV read as text) are read as numbers.
    Anything else that is not a whole number of people from 0 up raises
    :class:`~pandas_anon.errors.InvalidParameterError` naming the column, how many cells
    are wrong and the position of the first (never its value).

    Examples
    --------
    >>> frame = pd.DataFrame({"sex": ["m", "f"], "n": [3, None]})
    >>> read_weights(frame, "n").tolist()
    [3, 0]
    """
    if _is_label(frame, weights):
        (column,) = resolve_columns(frame, [cast(Hashable, weights)])
        return counts_of(frame[column], f"count column {column!r}")
    values = np.asarray(weights.to_numpy() if isinstance(weights, pd.Series) else weights)
    if values.ndim != 1 or len(values) != len(frame):
        raise InvalidParameterError(
            f"weights must be a count column's label or one count per row ({len(frame):,} "
            f"rows), got {type(weights).__name__} of shape {values.shape}"
        )
    return counts_of(pd.Series(values), "weights")


def weight_column(frame: pd.DataFrame, weights: Weights | None) -> Hashable | None:
    """The column ``weights`` names, if it names one (None for an array or no weights)."""
    return cast(Hashable, weights) if weights is not None and _is_label(frame, weights) else None


def _is_label(frame: pd.DataFrame, weights: object) -> bool:
    """Whether ``weights`` names a column (a string always does: an unknown name is then a
    :class:`~pandas_anon.errors.ColumnNotFoundError`)."""
    if isinstance(weights, str):
        return True
    if isinstance(weights, (np.ndarray, pd.Series, list)):
        return False
    try:
        return weights in set(frame.columns)
    except TypeError:  # unhashable: no label
        return False


def counts_of(series: pd.Series, where: str) -> np.ndarray:
    """The whole numbers of people in ``series`` (missing: 0), or an
    :class:`~pandas_anon.errors.InvalidParameterError` naming ``where``."""
    if pd.api.types.is_bool_dtype(series.dtype):
        raise InvalidParameterError(
            f"{where} holds true/false values, not counts of people; give a column of whole numbers"
        )
    numbers, text = _as_numbers(series)
    missing = np.asarray(series.isna(), dtype=bool)
    _refuse(where, text & ~missing, "is not a number", "are not numbers")
    numbers = np.where(missing, 0.0, numbers)
    whole = np.isfinite(numbers) & (numbers == np.floor(numbers))
    _refuse(where, ~whole, "is not a whole number", "are not whole numbers")
    _refuse(where, numbers < 0, "is negative", "are negative")
    _refuse(where, numbers > _EXACT, f"exceeds {_EXACT:,}", f"exceed {_EXACT:,}")
    return numbers.astype(np.int64)


def _as_numbers(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Each cell as a float, and which cells hold something that is no number (text that
    does not parse). A categorical is converted through its categories."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        numbers, text = _as_numbers(pd.Series(series.cat.categories))
        codes = series.cat.codes.to_numpy()
        present = codes >= 0
        return (
            np.where(present, numbers[codes], np.nan),
            present & text[np.where(present, codes, 0)],
        )
    if pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(series), bool)
    parsed = pd.to_numeric(series, errors="coerce")
    numbers = np.asarray(parsed.to_numpy(dtype=np.float64, na_value=np.nan))
    return numbers, np.isnan(numbers) & np.asarray(series.notna(), dtype=bool)


def _refuse(where: str, wrong: np.ndarray, one: str, many: str) -> None:
    """Raise when any cell is ``wrong`` (``one`` cell ..., several cells ``many``): how many,
    and the position of the first."""
    if wrong.any():
        n = int(wrong.sum())
        first = int(np.argmax(wrong))
        problem = f"1 cell {one} (at" if n == 1 else f"{n:,} cells {many} (the first at"
        raise InvalidParameterError(
            f"{where}: {problem} row position {first:,}); counts must be whole numbers of "
            f"people, 0 or more (a missing count is a withheld cell)"
        )


def melt_counts(
    frame: pd.DataFrame,
    counts: Sequence[Hashable],
    *,
    dimension: Hashable = "category",
    count: Hashable = "count",
) -> pd.DataFrame:
    """Turn a table with one count column per category into its long form, one count column.

    The long form of a table with one count column per category: one row per (row, count
    column), the other columns repeated, ``dimension`` naming the category (the count
    column's label, as a categorical in the columns' order) and ``count`` its count (as
    given: :func:`read_weights` checks it). The rows come in blocks, every row of the table
    for the first count column, then every row for the next, under a new default index.

    A wide count table (``m`` and ``f`` columns of people per area) describes people by its
    rows *and* by its count columns; in long form the category is a column like the others,
    so that a quasi-identifier can hold it and the count column can be given as
    ``weights=`` to :func:`pandas_anon.singletons`, :func:`pandas_anon.risk` or
    :func:`pandas_anon.best_qid`.

    Parameters
    ----------
    frame : pandas.DataFrame
        The wide table, never modified.
    counts : sequence of labels
        The count columns, one per category (one label alone is taken as a list of one).
        They come out in the frame's column order, whatever their order here.
    dimension : label, default "category"
        The name of the new column naming the category. Its values are the count columns'
        labels as text, the categories of a categorical in the frame's column order.
    count : label, default "count"
        The name of the new column holding the counts, copied as they are (missing counts
        stay missing).

    Returns
    -------
    pandas.DataFrame
        ``len(frame) * len(counts)`` rows: the columns of ``frame`` other than ``counts``,
        then ``dimension``, then ``count``.

    Raises
    ------
    ColumnNotFoundError
        A label of ``counts`` is not a column of the frame.
    InvalidQIDError
        ``counts`` is empty or names a column twice.
    DuplicateColumnsError
        A label of ``counts`` names several columns of the frame.
    InvalidParameterError
        ``dimension`` or ``count`` is the name of a column of the frame other than a count
        column, or ``dimension`` equals ``count``.

    See Also
    --------
    pandas_anon.singletons : Count the singletons of a count table (``weights=``).
    pandas_anon.risk : Risk figures of a count table (``weights=``).
    pandas.DataFrame.melt : The general unpivot of pandas.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon import melt_counts
    >>> wide = pd.DataFrame({"area": ["north", "south"], "m": [4, 0], "f": [1, 7]})
    >>> long = melt_counts(wide, ["m", "f"], dimension="sex", count="n")
    >>> long.to_dict("list")
    {'area': ['north', 'south', 'north', 'south'], 'sex': ['m', 'm', 'f', 'f'], 'n': [4, 0, 1, 7]}
    >>> list(melt_counts(wide, ["f", "m"])["category"].cat.categories)
    ['m', 'f']

    One woman lives in the north: she is a singleton of the long form.

    >>> pandas_anon.singletons(long, ["area", "sex"], weights="n").count
    1
    """
    counts = list(resolve_columns(frame, as_label_list(counts, checked_frame(frame).columns)))
    for name, option in ((dimension, "dimension"), (count, "count")):
        if (name in frame.columns and name not in counts) or dimension == count:
            raise InvalidParameterError(
                f"the long form needs a new column for the {option} ({name!r}), but "
                f"{'the category' if name == dimension == count else 'the table'} already has "
                f"one by that name; choose another ({option}=)"
            )
    others = frame.drop(columns=counts)
    n, m = len(frame), len(counts)
    long = others.iloc[np.tile(np.arange(n), m)].reset_index(drop=True)
    long[dimension] = pd.Categorical.from_codes(
        np.repeat(np.arange(m), n), categories=pd.Index([str(c) for c in counts])
    )
    long[count] = pd.concat([frame[c] for c in counts], ignore_index=True)
    return long
