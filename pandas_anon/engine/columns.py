"""Turn what a user passes as a quasi-identifier into checked column labels."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol

import pandas as pd

from pandas_anon.errors import (
    ColumnNotFoundError,
    DuplicateColumnsError,
    EmptyDataError,
    InvalidQIDError,
)
from pandas_anon.params import frame as checked_frame


class Labelled(Protocol):
    """A frame of any engine, as far as its column labels go (a pandas or a Dask frame)."""

    @property
    def columns(self) -> pd.Index: ...


def as_label_list(
    columns: Iterable[Hashable] | Hashable, labels: Iterable[Hashable] = ()
) -> list[Hashable]:
    """A single label (``"sex"``, or a tuple that is one of ``labels``, as with MultiIndex
    columns) or an iterable of labels, as a list."""
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Iterable):
        return [columns]
    if isinstance(columns, tuple) and _is_label(columns, labels):
        return [columns]
    return list(columns)


def _is_label(candidate: tuple, labels: Iterable[Hashable]) -> bool:
    try:
        return candidate in set(labels)
    except TypeError:  # a tuple holding a list is no label
        return False


def resolve_columns(frame: Labelled, columns: Iterable[Hashable] | Hashable) -> tuple:
    """Check ``columns`` against ``frame`` and return them in the frame's column order.

    Raises :class:`InvalidQIDError` for an empty or repeated selection,
    :class:`ColumnNotFoundError` (listing the available columns) for unknown names and
    :class:`DuplicateColumnsError` when a selected name labels several columns of the frame
    (before a repeated selection: a frame's repeated name is what to fix), and
    :class:`NotAFrameError` when ``frame`` is no DataFrame.
    """
    available: list[Hashable] = list(checked_frame(frame).columns)  # labels are any Hashable
    requested = as_label_list(columns, available)
    if not requested:
        raise InvalidQIDError("the quasi-identifier is empty: name at least one column")
    ambiguous = [
        c for at, c in enumerate(requested) if c not in requested[:at] and available.count(c) > 1
    ]
    if ambiguous:
        raise _duplicated(ambiguous)
    repeated = sorted({repr(c) for c in requested if requested.count(c) > 1})
    if repeated:
        raise InvalidQIDError(
            f"column{'s' if len(repeated) > 1 else ''} {', '.join(repeated)} named more than "
            f"once in the quasi-identifier; list each column once"
        )
    missing = [c for c in requested if c not in available]  # exact labels, not MultiIndex levels
    if missing:
        raise ColumnNotFoundError(missing, available)
    wanted = set(requested)
    return tuple(c for c in available if c in wanted)


def require_columns(frame: Labelled) -> None:
    """:class:`EmptyDataError` when ``frame`` (of any engine) has no column
    (:class:`NotAFrameError` when it is no DataFrame)."""
    if len(checked_frame(frame).columns) == 0:
        raise EmptyDataError("the frame has no columns: there is nothing to examine")


def require_data(frame: pd.DataFrame) -> None:
    """:class:`EmptyDataError` when ``frame`` has no column or no row."""
    require_columns(frame)
    if len(frame) == 0:
        raise EmptyDataError("the frame has no rows: there is nothing to examine")


def all_columns(frame: Labelled) -> tuple:
    """Every column of ``frame``, refusing duplicated names (and anything but a DataFrame)."""
    duplicated = checked_frame(frame).columns[frame.columns.duplicated()].unique()
    if len(duplicated):
        raise _duplicated(duplicated)
    return tuple(frame.columns)


def _duplicated(names: Iterable[Hashable]) -> DuplicateColumnsError:
    return DuplicateColumnsError(
        f"the frame has several columns named {', '.join(repr(c) for c in names)}; "
        f"rename them (e.g. df.columns = [...]) so each name picks one column"
    )


def columns_except(labels: Iterable[Hashable], *named: Hashable | None) -> list[Hashable]:
    """``labels`` less the columns that parameters name (``sensitive=``, a count column,
    ``target=``...). A parameter left at None names no column, so a column *labelled* None
    stays: comparing each label with the parameter's default would drop it unexamined, and a
    column of tax codes labelled None was once released verbatim that way."""
    given = [name for name in named if name is not None]
    return [label for label in labels if not any(label is g or label == g for g in given)]


def sensitive_outside(qid: Iterable[Hashable], sensitive: Hashable | None) -> None:
    """Refuse a ``sensitive`` column that is one of the ``qid`` columns: a column is either
    a quasi-identifier or the sensitive column whose values a model protects."""
    if sensitive is not None and sensitive in list(qid):
        raise InvalidQIDError(
            f"the sensitive column {sensitive!r} is inside the quasi-identifier; a column is "
            f"either one or the other"
        )


def column_array(frame: pd.DataFrame, column: Hashable) -> Any:
    """The values of ``frame[column]`` as pandas stores them (a numpy array or a pandas
    extension array, such as Arrow text), read without building a Series: ``frame[column]``
    costs 10-25 µs a column (its Series, index and references), a tenth of a writing pass
    over Adult's rows. Through pandas' own accessor of a column's stored values
    (``DataFrame._get_column_array``, pandas 1.3 and later), else the Series' values. The
    values are read, never written; ``column`` must label one column."""
    at = frame.columns.get_loc(column)
    if not isinstance(at, int):
        raise _duplicated([column])
    read = getattr(frame, "_get_column_array", None)
    if read is not None:
        return read(at)
    series = frame.iloc[:, at]
    return (
        series.array
        if isinstance(series.dtype, pd.api.extensions.ExtensionDtype)
        else series.to_numpy()
    )
