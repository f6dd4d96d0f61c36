"""Typed ranges for analysts: a release's range labels read back as pandas intervals or as
low/high columns.

A release writes a generalized number or date as text a person reads (``[30-39]``,
``[30, 40)``, ``>= 55.5``, ``[1989-04-14/1989-06-02]``, ``1983-10``, ``1980/1989``); an analyst
wants numbers. :func:`intervals` reads those labels, on the frame ``kanon`` returned or on the
CSV a user downloaded (the labels are all it needs), and writes each range column as a pandas
``IntervalDtype`` column closed on both sides, or as two columns of inclusive bounds,
``<column>_low`` and ``<column>_high``, in the column's own type (``Int64`` for whole numbers,
``Float64``, ``datetime64``).

Every bound is exact in the values' own resolution: a half-open ``[30, 40)`` of whole numbers
is ``[30, 39]``; of decimals, ``[30.0, 39.99999999999999]`` (the float before 40); a month
``1983-10`` of dates at midnight is ``[1983-10-01, 1983-10-31]``, of date-times it ends at the
last instant of the month in the column's unit. A value kept as read is its own interval.

What has no bounds is missing: a missing value, a suppressed cell (``*``) and a range that
also covers missing values (``[30-39] or missing``: its people may have no value at all). A
set of values (``{a, b}``) is no range: a column holding one is not converted.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from pandas_anon.anonymization.mondrian.dimensions import MISSING
from pandas_anon.engine.columns import require_columns, resolve_columns
from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy.model import TOP
from pandas_anon.params import one_of

#: The forms :func:`intervals` writes.
FORMS = ("interval", "bounds")

_NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|-?inf"
_DATE = r"\d{4}-\d{2}(?:-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?)?|\d{4}"
_SIDES = {"[": True, "(": False, "]": True, ")": False}
_OPEN_ENDED = re.compile(rf"^(?P<op>>=|<=|>|<)\s*(?P<x>{_NUMBER})$")
_BRACKETED = re.compile(
    rf"^(?P<lo>[\[(])(?P<a>{_NUMBER}|{_DATE})(?:\s*,\s*|-|/)(?P<b>{_NUMBER}|{_DATE})(?P<hi>[\])])$"
)
_DATE_SPAN = re.compile(rf"^(?P<a>{_DATE})/(?P<b>{_DATE})$")
_ONE_DATE = re.compile(rf"^(?:{_DATE})$")
_ONE_NUMBER = re.compile(rf"^(?:{_NUMBER})$")
_DATE_SHAPED = re.compile(r"(?<!\d)\d{4}-(?:0[1-9]|1[0-2])(?!\d)")  # not [1944-1948]


@dataclass(frozen=True)
class _Range:
    """One label read: its bounds as text (None: unbounded) and whether each is included."""

    low: str | None
    high: str | None
    low_in: bool = True
    high_in: bool = True
    period: bool = False  # one text writing a period: a month (1983-10)

    @property
    def point(self) -> bool:
        """Whether the label is one value (kept as read)."""
        return self.low == self.high and self.low_in and self.high_in and not self.period


def intervals(
    released: pd.DataFrame,
    columns: Hashable | Sequence[Hashable] | None = None,
    *,
    form: str = "interval",
) -> pd.DataFrame:
    """The range labels of a release as typed intervals or low/high columns.

    Parameters
    ----------
    released : pandas.DataFrame
        A release (from :func:`~pandas_anon.kanon` or read from its file). Not modified.
    columns : hashable or sequence of hashable, optional
        The columns to convert. Default None: every column holding at least one range label
        whose every other cell reads as a number or a date (a column of sets or of text is
        left as it is).
    form : {"interval", "bounds"}, default "interval"
        ``"interval"``: each column becomes a pandas ``IntervalDtype`` column closed on both
        sides; ``"bounds"``: it is replaced by ``<column>_low`` and ``<column>_high``, its
        inclusive bounds, in the column's own type.

    Returns
    -------
    pandas.DataFrame
        A new frame, the other columns as they were. Missing values, suppressed cells
        (``*``) and ranges that also cover missing values (``... or missing``) have no bounds
        (missing).

    Raises
    ------
    InvalidParameterError
        When ``form`` is not one of :data:`FORMS`, or a column named in ``columns`` holds
        cells that are neither a number, a date nor a range of them (how many is said,
        never their values).
    ColumnNotFoundError
        When ``columns`` names a column the frame lacks.

    See Also
    --------
    pandas_anon.kanon : Writes the labels this function reads.

    Notes
    -----
    A column is read as dates when it holds dates (a ``datetime64`` dtype, or a label
    written ``YYYY-MM`` or finer); a column whose every label is a year (``1983``,
    ``1980/1989``) is read as numbers, as the years they are.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> released = pd.DataFrame({"age": ["[30-39]", "[30-39]", "41", "[40, 50)", "*"]})
    >>> pandas_anon.intervals(released)["age"]
    0    [30.0, 39.0]
    1    [30.0, 39.0]
    2    [41.0, 41.0]
    3    [40.0, 49.0]
    4             NaN
    Name: age, dtype: interval
    >>> pandas_anon.intervals(released, form="bounds")
       age_low  age_high
    0       30        39
    1       30        39
    2       41        41
    3       40        49
    4     <NA>      <NA>
    """
    require_columns(released)
    form = one_of(form, "form", FORMS)
    named = columns is not None
    chosen = resolve_columns(released, columns) if named else list(released.columns)
    out = released.copy(deep=False)
    for column in chosen:
        bounds = _bounds(released[column], column, required=named)
        if bounds is None:
            continue
        low, high = bounds
        if form == "interval":
            out[column] = pd.Series(
                pd.arrays.IntervalArray.from_arrays(
                    _interval_side(low), _interval_side(high), closed="both"
                ),
                index=released.index,
                name=column,
            )
        else:
            at = out.columns.get_loc(column)
            out = out.drop(columns=[column])
            out.insert(at, f"{column}_low", low)
            out.insert(at + 1, f"{column}_high", high)
    return out


def _bounds(series: pd.Series, column: Hashable, *, required: bool) -> tuple[Any, Any] | None:
    """The inclusive low and high bound of each cell of ``series``; None when it is no
    range column (refused when ``required``)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    if not (
        pd.api.types.is_object_dtype(series.dtype) or pd.api.types.is_string_dtype(series.dtype)
    ):
        orderable = not pd.api.types.is_bool_dtype(series.dtype) and (
            pd.api.types.is_numeric_dtype(series.dtype)
            or pd.api.types.is_datetime64_any_dtype(series.dtype)
        )
        if not required:
            return None  # typed: nothing generalized
        if not orderable:
            raise _unreadable(column, int(series.notna().sum()))
        typed = series.astype("Float64") if series.dtype.kind == "f" else series
        return typed.rename(f"{column}_low"), typed.rename(f"{column}_high")
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    read = [_read(v) for v in uniques]
    unreadable = [i for i, r in enumerate(read) if r is False]
    if unreadable:
        if required:
            raise _unreadable(column, int(np.isin(codes, unreadable).sum()))
        return None
    ranges = [r if isinstance(r, _Range) else None for r in read]
    if not required and all(r is not None and r.point for r in ranges):
        return None  # no range: values as read
    dates = any(
        isinstance(v, pd.Timestamp) or (isinstance(v, str) and _DATE_SHAPED.search(v))
        for v in uniques
    )
    low, high = _dates(ranges, uniques) if dates else _numbers(ranges)
    at = np.where(codes >= 0, codes, len(ranges))  # missing: the last, no bounds
    return (
        pd.Series(low[at], index=series.index, name=f"{column}_low"),
        pd.Series(high[at], index=series.index, name=f"{column}_high"),
    )


def _unreadable(column: Hashable, cells: int) -> InvalidParameterError:
    return InvalidParameterError(
        f"column {column!r}: {cells:,} cells are neither a number, a date nor a range of them "
        f"(a set of values, a category, text); name only range columns in columns="
    )


def _read(value: Any) -> _Range | None | bool:
    """One distinct cell read: its range, None (no bounds), or False (unreadable)."""
    if isinstance(value, pd.Timestamp):
        text = value.isoformat()
        return _Range(text, text)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, int, float, np.number)):
        return False
    text = str(value).strip()
    if text in (TOP, MISSING) or text.endswith(" or " + MISSING):
        return None
    if _ONE_NUMBER.match(text) or _ONE_DATE.match(text):
        return _Range(text, text, period=len(text) == len("1983-10"))
    found = _OPEN_ENDED.match(text)
    if found:
        op, x = found["op"], found["x"]
        if op[0] == ">":
            return _Range(x, None, op == ">=", True)
        return _Range(None, x, True, op == "<=")
    found = _BRACKETED.match(text) or _DATE_SPAN.match(text)
    if found:
        sides = found.groupdict()
        return _Range(
            found["a"], found["b"], _SIDES[sides.get("lo") or "["], _SIDES[sides.get("hi") or "]"]
        )
    return False


def _numbers(ranges: list[_Range | None]) -> tuple[Any, Any]:
    """Inclusive bounds of number labels (and one missing bound more, last): whole numbers
    as ``Int64`` (``Float64`` when a bound is infinite), others as ``Float64``."""
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    whole = all(re.fullmatch(r"-?\d+", t) for t in texts)
    unbounded = any(r is not None and (r.low is None or r.high is None) for r in ranges)
    if whole and not unbounded:
        low = [None if r is None else int(cast(str, r.low)) + (not r.low_in) for r in ranges]
        high = [None if r is None else int(cast(str, r.high)) - (not r.high_in) for r in ranges]
        known = [v for v in low + high if v is not None]
        dtype: Any = "UInt64" if known and max(known) > np.iinfo(np.int64).max else "Int64"
        return (pd.array([*low, None], dtype=dtype), pd.array([*high, None], dtype=dtype))
    low_f = np.array(
        [np.nan if r is None else -np.inf if r.low is None else float(r.low) for r in ranges]
        + [np.nan]
    )
    high_f = np.array(
        [np.nan if r is None else np.inf if r.high is None else float(r.high) for r in ranges]
        + [np.nan]
    )
    up = np.array([r is not None and not r.low_in for r in ranges] + [False])
    down = np.array([r is not None and not r.high_in for r in ranges] + [False])
    if whole:  # whole numbers with an open end: the next whole number in
        low_f[up] += 1
        high_f[down] -= 1
    else:  # the float next to an excluded bound
        low_f[up] = np.nextafter(low_f[up], np.inf)
        high_f[down] = np.nextafter(high_f[down], -np.inf)
    return pd.array(low_f, dtype="Float64"), pd.array(high_f, dtype="Float64")


def _dates(ranges: list[_Range | None], uniques: Any) -> tuple[Any, Any]:
    """Inclusive bounds of date labels (and one missing bound more, last): a bound written
    to the year, month or day covers that whole period, up to its last day when every date
    is at midnight, else up to its last instant in the column's unit."""
    stamps = [v for v in uniques if isinstance(v, pd.Timestamp)]
    unit = stamps[0].unit if stamps else "s"
    zone = stamps[0].tz if stamps else None
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    timed = any(len(t) > 10 and not t[11:].startswith("00:00:00") for t in texts)
    step = pd.Timedelta(1, unit=unit) if timed else pd.Timedelta(days=1)
    low: list = []
    high: list = []
    for r in ranges:
        if r is None or r.low is None or r.high is None:
            low.append(pd.NaT)
            high.append(pd.NaT)
        else:
            low.append(_period(r.low, zone, step)[0])
            high.append(_period(r.high, zone, step)[1] - step)
    dtype: Any = f"datetime64[{unit}]" if zone is None else pd.DatetimeTZDtype(unit, zone)
    return (
        pd.array([*low, pd.NaT], dtype=dtype),
        pd.array([*high, pd.NaT], dtype=dtype),
    )


def _period(text: str, zone: Any, step: pd.Timedelta) -> tuple[pd.Timestamp, pd.Timestamp]:
    """The first instant of the period ``text`` writes (a year, a month, a day, or one
    instant) and the first after it."""
    stamp = pd.Timestamp(text)
    if zone is not None:
        stamp = stamp.tz_localize(zone) if stamp.tz is None else stamp.tz_convert(zone)
    if len(text) == 4:
        return stamp, stamp + pd.DateOffset(years=1)
    if len(text) == 7:
        return stamp, stamp + pd.DateOffset(months=1)
    if len(text) == 10:
        return stamp, stamp + pd.DateOffset(days=1)
    return stamp, stamp + step


def _interval_side(bounds: pd.Series) -> Any:
    """One side of an interval column: whole numbers with a missing bound as floats (an
    integer interval holds no missing value on pandas 2.2)."""
    if pd.api.types.is_integer_dtype(bounds.dtype):
        return bounds.to_numpy(dtype="float64" if bounds.isna().any() else "int64", na_value=np.nan)
    if pd.api.types.is_float_dtype(bounds.dtype):
        return bounds.to_numpy(dtype="float64", na_value=np.nan)
    return bounds.array
