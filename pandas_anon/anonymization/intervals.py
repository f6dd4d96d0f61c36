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
        _refuse_named(codes, unreadable, column, required)
        return None
    ranges = [r if isinstance(r, _Range) else None for r in read]
    if not required and all(r is not None and r.point for r in ranges):
        return None  # no range: values as read
    dates = any(
        isinstance(v, pd.Timestamp) or (isinstance(v, str) and _DATE_SHAPED.search(v))
        for v in uniques
    )
    if dates:
        low, high, unparsed = _dates(ranges, uniques, column)
        if unparsed.any():
            _refuse_named(codes, np.flatnonzero(unparsed), column, required)
            return None
    else:
        low, high = _numbers(ranges)
    at = np.where(codes >= 0, codes, len(ranges))  # missing: the last, no bounds
    return (
        pd.Series(low[at], index=series.index, name=f"{column}_low"),
        pd.Series(high[at], index=series.index, name=f"{column}_high"),
    )


def _refuse_named(codes: np.ndarray, unreadable: Any, column: Hashable, required: bool) -> None:
    """Refuse a column named in ``columns=`` (``required``) holding unreadable distinct
    values (their codes), counting its cells; a column not named is left as it is."""
    if required:
        raise _unreadable(column, int(np.isin(codes, unreadable).sum()))


def _unreadable(column: Hashable, cells: int) -> InvalidParameterError:
    return InvalidParameterError(
        f"column {column!r}: {cells:,} cells are neither a number, a date nor a range of them "
        f"(a set of values, a category, text, a date no calendar has); name only range "
        f"columns in columns="
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
    if text.startswith((">", "<")):  # the one form opening so: open-ended
        found = _OPEN_ENDED.match(text)
        if not found:
            return False
        op, x = found["op"], found["x"]
        if op[0] == ">":
            return _Range(x, None, op == ">=", True)
        return _Range(None, x, True, op == "<=")
    if text.startswith(("[", "(")):  # the one form opening so: bracketed
        found = _BRACKETED.match(text)
    elif _ONE_NUMBER.match(text) or _ONE_DATE.match(text):
        return _Range(text, text, period=len(text) == len("1983-10"))
    else:
        found = _DATE_SPAN.match(text)
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


def _dates(ranges: list[_Range | None], uniques: Any, column: Hashable) -> tuple[Any, Any, Any]:
    """Inclusive bounds of date labels (and one missing bound more, last), and which labels
    write no calendar date (a month 13, a 30 February, a number): a bound written to the
    year, month or day covers that whole period, up to its last day when every date is at
    midnight, else up to its last instant in the column's unit.

    The labels are read by form, each form at once (numpy parses a year, a month or a day
    in its own unit; a time zone is applied to all of them in one call), not one by one.
    """
    at_stamp = [i for i, v in enumerate(uniques) if isinstance(v, pd.Timestamp)]
    stamps = [uniques[i] for i in at_stamp]
    unit: Any = stamps[0].unit if stamps else "s"  # Any: numpy's stubs list units as literals
    zone = stamps[0].tz if stamps else None
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    timed = any(len(t) > 10 and not t[11:].startswith("00:00:00") for t in texts)
    step = np.timedelta64(1, unit) if timed else np.timedelta64(1, "D")
    low = np.full(len(ranges) + 1, np.datetime64("NaT", unit))  # wall times, UTC when zoned
    high = low.copy()
    unparsed = np.zeros(len(ranges) + 1, dtype=bool)
    stamped = set(at_stamp)
    at = [
        i
        for i, r in enumerate(ranges)
        if r is not None and r.low is not None and r.high is not None and i not in stamped
    ]
    try:
        for side, out in (("low", low), ("high", high)):
            read, bad = _read_dates([getattr(ranges[i], side) for i in at], zone, unit, step, side)
            out[at] = read
            unparsed[at] |= bad
        if stamps:
            low[at_stamp] = high[at_stamp] = _stamps(stamps, zone, unit)
    except (pd.errors.OutOfBoundsDatetime, OverflowError) as error:
        raise InvalidParameterError(
            f"column {column!r}: a date bound lies outside what datetime64[{unit}] (the unit "
            f"of its dates) can hold; convert the column's dates to datetime64[s] before "
            f"anonymizing, or read the release from its file (text, read in seconds)"
        ) from error
    if zone is None:
        return pd.array(low), pd.array(high), unparsed
    return (
        pd.array(low).tz_localize("UTC").tz_convert(zone),
        pd.array(high).tz_localize("UTC").tz_convert(zone),
        unparsed,
    )


#: numpy's unit for the period a date bound writes, by its length: a year, a month, a day.
_PERIODS = {4: "Y", 7: "M", 10: "D"}


def _read_dates(
    texts: list[str], zone: Any, unit: Any, step: np.timedelta64, side: str
) -> tuple[np.ndarray, np.ndarray]:
    """The first instant (``side="low"``) or the last (``"high"``: the first after the
    period less ``step``) of the period each text writes, in ``unit``, UTC when ``zone``,
    read form by form; and which texts write no date."""
    out = np.full(len(texts), np.datetime64("NaT", unit))
    unparsed = np.zeros(len(texts), dtype=bool)
    forms = np.array([_form(t) for t in texts], dtype=object)
    for form in set(forms.tolist()):
        group = np.flatnonzero(forms == form)
        if form is None:
            unparsed[group] = True
            continue
        start, unparsed[group] = _parse([texts[i] for i in group], form)
        first = _localized(start, zone)  # refuses an ambiguous or nonexistent start
        if side == "high" and form:  # a period: its last instant
            first = _localized(start + np.timedelta64(1, form), zone, calendar=True) - step
        out[group] = _utc(first, unit)
    return out, unparsed


def _form(text: str) -> str | None:
    """The form of a date bound: its period's numpy unit (a year, a month, a day), ``""``
    for an instant, None for no date (a number)."""
    if len(text) == 4:
        return "Y" if text.isdigit() else None
    if text[:4].isdigit() and text[4:5] == "-":  # no number has a "-" there
        return _PERIODS.get(len(text), "")
    return None


def _parse(texts: list[str], form: Any) -> tuple[np.ndarray, np.ndarray]:
    """``texts`` of one form read at once by numpy, in the form's unit (an instant in its
    own), NaT and True where a text writes no calendar date."""
    try:
        values = np.asarray(texts, dtype=f"datetime64[{form}]" if form else "datetime64")
    except ValueError:  # one text at least is no date: find which, one by one
        values = np.asarray([_parse_one(t, form) for t in texts])
    if np.datetime_data(values.dtype)[0] == "ns":  # numpy wraps what ns cannot hold
        days = np.asarray([t[:10] for t in texts], dtype="datetime64[D]")
        if (values.astype("datetime64[D]") != days).any():
            raise pd.errors.OutOfBoundsDatetime("a date past what nanoseconds hold")
    return values, np.isnat(values)


def _parse_one(text: str, form: Any) -> np.datetime64:
    """One text read by numpy, NaT when it writes no calendar date."""
    try:
        return np.datetime64(text, form) if form else np.datetime64(text)
    except ValueError:
        return np.datetime64("NaT", form or "s")


def _localized(values: np.ndarray, zone: Any, *, calendar: bool = False) -> pd.DatetimeIndex:
    """Wall times as a DatetimeIndex localized to ``zone`` at once: an ambiguous or
    nonexistent time refused, or, ``calendar`` (the end of a period, as adding a calendar
    period to a date gives it), the first of an ambiguous time, the end of a gap."""
    if np.datetime_data(values.dtype)[0] in ("Y", "M", "W", "D", "h", "m", "generic"):
        values = values.astype("datetime64[s]")  # the coarsest unit pandas holds
    index = pd.DatetimeIndex(values)
    if zone is None:
        return index
    if calendar:
        first = np.ones(len(index), dtype=bool)
        return index.tz_localize(zone, ambiguous=first, nonexistent="shift_forward")
    return index.tz_localize(zone)


def _utc(index: pd.DatetimeIndex, unit: Any) -> np.ndarray:
    """Dates as numpy values in ``unit`` (floored), UTC when they have a zone."""
    if index.tz is not None:
        index = index.tz_convert(None)
    return index.as_unit(unit).to_numpy()


def _stamps(stamps: list[pd.Timestamp], zone: Any, unit: Any) -> np.ndarray:
    """Dates kept as values (each its own interval) in ``unit``, UTC when ``zone`` (those
    without a zone localized to it at once, the others converted)."""
    dtype: Any = f"datetime64[{unit}]"
    if zone is None:
        return pd.array(stamps, dtype=dtype).to_numpy()
    out = np.empty(len(stamps), dtype=dtype)
    naive = np.array([s.tz is None for s in stamps])
    if naive.any():
        local = pd.DatetimeIndex([s for s, n in zip(stamps, naive) if n]).tz_localize(zone)
        out[naive] = _utc(local, unit)
    if not naive.all():
        out[~naive] = _utc(
            pd.to_datetime([s for s, n in zip(stamps, naive) if not n], utc=True), unit
        )
    return out


def _interval_side(bounds: pd.Series) -> Any:
    """One side of an interval column: whole numbers with a missing bound as floats (an
    integer interval holds no missing value on pandas 2.2)."""
    if pd.api.types.is_integer_dtype(bounds.dtype):
        return bounds.to_numpy(dtype="float64" if bounds.isna().any() else "int64", na_value=np.nan)
    if pd.api.types.is_float_dtype(bounds.dtype):
        return bounds.to_numpy(dtype="float64", na_value=np.nan)
    return bounds.array
