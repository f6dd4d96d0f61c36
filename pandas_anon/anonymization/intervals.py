"""Typed ranges for analysts: a release's range labels read back as pandas intervals or as
low/high columns.

A release writes a generalized number or date as text a person reads (``[30-39]``,
``[30, 40)``, ``>= 55.5``, ``[1989-04-14/1989-06-02]``, ``1983-10``, ``1980/1989``); an analyst
wants numbers. :func:`intervals` reads those labels, on the frame ``kanon`` returned or on the
CSV a user downloaded (the labels are all it needs), and writes each range column as a pandas
``IntervalDtype`` column closed on both sides, or as two columns of inclusive bounds,
``<column>_low`` and ``<column>_high``, in the column's own type (``Int64`` for whole numbers,
``UInt64`` past int64, ``Float64``, ``datetime64`` in the dates' unit and time zone).

Every original value lies within the bounds read from its label, in its own resolution and
time zone; the labels say what they bound, and the bounds are exact in it:

- **numbers**: a label written in whole numbers bounds whole numbers: ``[30, 40)`` is
  ``[30, 39]``; a column holding decimals writes its bounds as decimals (``[30.0, 40.0)``,
  :mod:`pandas_anon.hierarchy.numeric`), read up to the float before 40,
  ``[30.0, 39.99999999999999]``. Whole-number bounds past what 64-bit integers hold (the
  last interval of a uint64 column, ``[18000000000000000000, 19000000000000000000)``) stop
  at their limit: no integer column holds a value beyond;
- **dates**: a bound written to the year, month or day (``1983``, ``1983-10``,
  ``1983-10-31``) covers that whole period, up to its last instant; an instant is read to
  its written fraction (``10:30:00.123456789``) and offset (``+01:00``). The bounds are in the
  unit of the dates kept as read (when some are), else the finest the labels write, and a
  period ends at its last instant in that unit; without dates kept as read, a period's end
  is the last nanosecond (microsecond past the years nanoseconds hold), since the labels do
  not say the values' unit. A column of dates in a time zone writes the zone's name after
  its labels (``1983-10 Europe/Rome``, :func:`~pandas_anon.hierarchy.datetimes.dates` and
  Mondrian); its bounds are in that zone.

A value kept as read is its own interval. What has no bounds is missing: a missing value, a
suppressed cell (``*``) and a range that also covers missing values (``[30-39] or missing``:
its people may have no value at all). A set of values (``{a, b}``) is no range: a column
holding one is not converted.
"""

from __future__ import annotations

import datetime
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
_TIME = r"[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}(?::\d{2})?)?"
_DATE = rf"\d{{4}}-\d{{2}}(?:-\d{{2}}(?:{_TIME})?)?|\d{{4}}"
_SIDES = {"[": True, "(": False, "]": True, ")": False}
_OPEN_ENDED = re.compile(rf"^(?P<op>>=|<=|>|<)\s*(?P<x>{_NUMBER})$")
_BRACKETED = re.compile(
    rf"^(?P<lo>[\[(])(?P<a>{_NUMBER}|{_DATE})(?:\s*,\s*|-|/)(?P<b>{_NUMBER}|{_DATE})(?P<hi>[\])])$"
)
_DATE_SPAN = re.compile(rf"^(?P<a>{_DATE})/(?P<b>{_DATE})$")
_ONE_DATE = re.compile(rf"^(?:{_DATE})$")
_ONE_NUMBER = re.compile(rf"^(?:{_NUMBER})$")
_DATE_SHAPED = re.compile(r"(?<!\d)\d{4}-(?:0[1-9]|1[0-2])(?!\d)")  # not [1944-1948]
#: A label's time zone, written after it: ``1983-10 Europe/Rome``, ``[...] UTC``, ``... +01:00``.
_ZONED = re.compile(r"^(?P<label>.*\S)\s+(?P<zone>[+-]\d{2}:\d{2}|[A-Za-z][\w+-]*(?:/[\w+-]+)*)$")
#: An instant's offset from UTC (``Z``, ``+01:00``, ``+00:49:56``) and the digits of its fraction of a second.
_OFFSET = re.compile(
    r"(?<=\d)(?:Z|(?P<sign>[+-])(?P<hours>\d{2}):(?P<minutes>\d{2})(?::(?P<seconds>\d{2}))?)$"
)
_FRACTION = re.compile(r":\d{2}\.(\d{1,9})$")
#: The units of datetime64 pandas holds, coarsest first.
_UNITS = ("s", "ms", "us", "ns")
_INT64 = (int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max))
_UINT64_MAX = int(np.iinfo(np.uint64).max)


@dataclass(frozen=True)
class _Range:
    """One label read: its bounds as text (None: unbounded) and whether each is included."""

    low: str | None
    high: str | None
    low_in: bool = True
    high_in: bool = True
    period: bool = False  # one text writing a period: a month (1983-10)
    zone: str | None = None  # the time zone written after the label

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
        low, high, at = bounds
        if form == "interval":
            missing = bool(np.asarray(pd.isna(low), dtype=bool)[at].any())
            out[column] = pd.Series(
                pd.arrays.IntervalArray.from_arrays(
                    _interval_side(low, missing, down=True)[at],
                    _interval_side(high, missing, down=False)[at],
                    closed="both",
                ),
                index=released.index,
                name=column,
            )
        else:
            position = out.columns.get_loc(column)
            out = out.drop(columns=[column])
            out.insert(position, f"{column}_low", pd.Series(low[at], index=released.index))
            out.insert(position + 1, f"{column}_high", pd.Series(high[at], index=released.index))
    return out


def _bounds(
    series: pd.Series, column: Hashable, *, required: bool
) -> tuple[Any, Any, np.ndarray] | None:
    """The inclusive low and high bound of each distinct cell of ``series`` (and one missing
    bound more, last) and the distinct cell of each row; None when it is no range column
    (refused when ``required``)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    at = np.where(codes >= 0, codes, len(uniques))  # missing: the last, no bounds
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
        # nullable (numpy's integers as Int64/UInt64, never floats): one missing bound more, last
        values = (
            pd.array(uniques.to_numpy()) if isinstance(uniques.dtype, np.dtype) else uniques.array
        )
        if series.dtype.kind == "f":
            values = values.astype("Float64")
        values = values.take(np.append(np.arange(len(values)), -1), allow_fill=True)
        return values, values, at
    read = [_read(v) for v in uniques]
    unreadable = [i for i, r in enumerate(read) if r is False]
    if unreadable:
        _refuse_named(codes, unreadable, column, required)
        return None
    ranges = [r if isinstance(r, _Range) else None for r in read]
    if not required and all(r is not None and r.point for r in ranges):
        return None  # no range: values as read
    dates = any(r is not None and r.zone is not None for r in ranges) or any(
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
    return low, high, at


def _refuse_named(codes: np.ndarray, unreadable: Any, column: Hashable, required: bool) -> None:
    """Refuse a column named in ``columns=`` (``required``) holding unreadable distinct
    values (their codes), counting its cells; a column not named is left as it is."""
    if required:
        raise _unreadable(column, int(np.isin(codes, unreadable).sum()))


def _unreadable(column: Hashable, cells: int) -> InvalidParameterError:
    return InvalidParameterError(
        f"column {column!r}: {cells:,} cells are neither a number, a date nor a range of them "
        f"(a set of values, a category, text, a date no calendar has, a time zone no one "
        f"knows); name only range columns in columns="
    )


def _read(value: Any) -> _Range | None | bool:
    """One distinct cell read: its range, None (no bounds), or False (unreadable)."""
    if isinstance(value, (pd.Timestamp, datetime.date)):  # a date kept as read: Arrow's date
        text = value.isoformat()  # types hold Python dates
        return _Range(text, text)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, int, float, np.number)):
        return False
    if isinstance(value, (float, np.floating)):  # exactly the float held (a float32's too)
        text = repr(float(value))
    else:
        text = str(value).strip()
    if text in (TOP, MISSING) or text.endswith(" or " + MISSING):
        return None
    zoned = _ZONED.match(text)
    zone = None
    if zoned:
        text, zone = zoned["label"], zoned["zone"]
    if text.startswith((">", "<")):  # the one form opening so: open-ended
        found = _OPEN_ENDED.match(text)
        if not found or zone is not None:
            return False
        op, x = found["op"], found["x"]
        if op[0] == ">":
            return _Range(x, None, op == ">=", True)
        return _Range(None, x, True, op == "<=")
    if text.startswith(("[", "(")):  # the one form opening so: bracketed
        found = _BRACKETED.match(text)
    elif _ONE_NUMBER.match(text) or _ONE_DATE.match(text):
        return _Range(text, text, period=len(text) == len("1983-10"), zone=zone)
    else:
        found = _DATE_SPAN.match(text)
    if found:
        sides = found.groupdict()
        return _Range(
            found["a"],
            found["b"],
            _SIDES[sides.get("lo") or "["],
            _SIDES[sides.get("hi") or "]"],
            zone=zone,
        )
    return False


def _numbers(ranges: list[_Range | None]) -> tuple[Any, Any]:
    """Inclusive bounds of number labels (and one missing bound more, last): labels written
    in whole numbers bound whole numbers, as ``Int64`` (``UInt64`` past int64; each bound
    held within the 64-bit integers' limits; ``Float64``, rounded outwards, when a bound is
    infinite or they span both limits); others as ``Float64``, an excluded bound the float
    next to it."""
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    if all(re.fullmatch(r"-?\d+", t) for t in texts):
        low = [None if r is None or r.low is None else int(r.low) + (not r.low_in) for r in ranges]
        high = [
            None if r is None or r.high is None else int(r.high) - (not r.high_in) for r in ranges
        ]
        unbounded = any(r is not None and (r.low is None or r.high is None) for r in ranges)
        low = [None if v is None else min(max(v, _INT64[0]), _UINT64_MAX) for v in low]
        high = [None if v is None else min(max(v, _INT64[0]), _UINT64_MAX) for v in high]
        known = [v for v in low + high if v is not None]
        signed = not known or max(known) <= _INT64[1]
        if not unbounded and (signed or min(known) >= 0):
            dtype = pd.Int64Dtype() if signed else pd.UInt64Dtype()
            return pd.array([*low, None], dtype=dtype), pd.array([*high, None], dtype=dtype)
        missing = [r is None for r in ranges] + [True]
        low_f = np.where(missing, np.nan, _outward([*low, None], down=True))
        high_f = np.where(missing, np.nan, _outward([*high, None], down=False))
        low_f[np.isnan(low_f) & ~np.array(missing)] = -np.inf
        high_f[np.isnan(high_f) & ~np.array(missing)] = np.inf
        return pd.array(low_f, dtype="Float64"), pd.array(high_f, dtype="Float64")
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
    low_f[up] = np.nextafter(low_f[up], np.inf)  # the float next to an excluded bound
    high_f[down] = np.nextafter(high_f[down], -np.inf)
    return pd.array(low_f, dtype="Float64"), pd.array(high_f, dtype="Float64")


def _outward(values: list[Any], *, down: bool) -> np.ndarray:
    """Whole numbers (None: NaN) as the nearest floats at or below them (``down``) or at or
    above them: a float has 53 bits, a bound near 2**63 more."""
    floats = np.array([np.nan if v is None else float(v) for v in values])
    inward = np.array([v is not None and (float(v) > v if down else float(v) < v) for v in values])
    floats[inward] = np.nextafter(floats[inward], -np.inf if down else np.inf)
    return floats


def _dates(ranges: list[_Range | None], uniques: Any, column: Hashable) -> tuple[Any, Any, Any]:
    """Inclusive bounds of date labels (and one missing bound more, last), and which labels
    write no calendar date (a month 13, a 30 February, a number): a bound written to the
    year, month or day covers that whole period, up to its last instant in the bounds' unit;
    an instant is read to its fraction and offset.

    The unit is that of the dates kept as read, or the finest a label writes (seconds for a
    time, ``ms``, ``us``, ``ns`` for a fraction of 3, 6, 9 digits); without dates kept as
    read, a label writing a period leaves the values' unit unknown: nanoseconds, or
    microseconds when a bound lies past what nanoseconds hold. The time zone is the one
    written after a label, else that of the dates kept as read, else UTC when an instant
    writes an offset.

    The labels are read by form and zone, each at once (numpy parses a year, a month or a
    day in its own unit; a time zone is applied to all of them in one call), not one by one.
    """
    at_stamp = [i for i, v in enumerate(uniques) if isinstance(v, pd.Timestamp)]
    stamps = [uniques[i] for i in at_stamp]
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    written = [r.zone for r in ranges if r is not None and r.zone is not None]
    offsets = any(_OFFSET.search(t) for t in texts)
    unknown = {z for z in written if not _known_zone(z)}
    if unknown:
        return None, None, np.array([r is not None and r.zone in unknown for r in ranges] + [False])
    zone: Any = written[0] if written else stamps[0].tz if stamps else "UTC" if offsets else None
    evidence = {_UNITS.index(s.unit) for s in stamps} | {_text_unit(t) for t in texts}
    periods = not stamps and any(_form(_OFFSET.sub("", t)) for t in texts)
    finest = max(evidence, default=0)
    units = [_UNITS[max(finest, 3)], _UNITS[max(finest, 2)]] if periods else [_UNITS[finest]]
    error: Exception | None = None
    for unit in dict.fromkeys(units):
        try:
            return _dates_in(unit, ranges, at_stamp, stamps, zone)
        except (pd.errors.OutOfBoundsDatetime, OverflowError) as failed:
            error = failed
    raise InvalidParameterError(
        f"column {column!r}: a date bound lies outside what datetime64[{units[-1]}] (the unit "
        f"of its dates) can hold; convert the column's dates to datetime64[s] before "
        f"anonymizing, or read the release from its file (text, read in seconds)"
    ) from error


def _known_zone(zone: Any) -> bool:
    """Whether pandas knows the time zone ``zone``."""
    try:
        pd.Timestamp(0).tz_localize(zone)
    except (ValueError, KeyError, TypeError, LookupError):  # each library's own error
        return False
    return True


def _text_unit(text: str) -> int:
    """The unit a date bound is written to, as a place in :data:`_UNITS`: seconds for a
    date or a time, ``ms``, ``us``, ``ns`` for a fraction of 3, 6 or 9 digits."""
    fraction = _FRACTION.search(_OFFSET.sub("", text))
    return 0 if fraction is None else (len(fraction[1]) + 2) // 3


def _dates_in(
    unit: Any, ranges: list[_Range | None], at_stamp: list[int], stamps: list[Any], zone: Any
) -> tuple[Any, Any, Any]:
    """:func:`_dates` in ``unit``: its bounds, in ``zone`` when it is one."""
    step = np.timedelta64(1, unit)
    low = np.full(len(ranges) + 1, np.datetime64("NaT", unit))  # wall times, UTC when zoned
    high = low.copy()
    unparsed = np.zeros(len(ranges) + 1, dtype=bool)
    stamped = set(at_stamp)
    at = [
        i
        for i, r in enumerate(ranges)
        if r is not None and r.low is not None and r.high is not None and i not in stamped
    ]
    zones = [cast(_Range, ranges[i]).zone or zone for i in at]
    for side, out in (("low", low), ("high", high)):
        texts = [getattr(ranges[i], side) for i in at]
        read, bad = _read_dates(texts, zones, unit, step, side)
        out[at] = read
        unparsed[at] |= bad
    if stamps:
        low[at_stamp] = high[at_stamp] = _stamps(stamps, zone, unit)
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
    texts: list[str], zones: list[Any], unit: Any, step: np.timedelta64, side: str
) -> tuple[np.ndarray, np.ndarray]:
    """The first instant (``side="low"``) or the last (``"high"``: the first after the
    period less ``step``) of the period each text writes, in ``unit``, UTC when the text
    has a zone (its own offset, or ``zones``), read by form and zone; and which texts write
    no date."""
    out = np.full(len(texts), np.datetime64("NaT", unit))
    unparsed = np.zeros(len(texts), dtype=bool)
    offsets = [_OFFSET.search(t) for t in texts]
    bare = [t if o is None else t[: o.start()] for t, o in zip(texts, offsets)]
    seconds = np.array(
        [
            0
            if o is None or o["sign"] is None
            else (1 if o["sign"] == "+" else -1)
            * (int(o["hours"]) * 3600 + int(o["minutes"]) * 60 + int(o["seconds"] or 0))
            for o in offsets
        ]
    )
    keys = [
        (_form(b), "" if o is not None else z) for b, o, z in zip(bare, offsets, zones)
    ]  # "": an offset written (UTC once it is taken away)
    groups: dict[tuple[Any, Any], list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    for (form, zone), members in groups.items():
        group = np.array(members)
        if form is None:
            unparsed[group] = True
            continue
        start, unparsed[group] = _parse([bare[i] for i in group], form)
        if zone == "":
            start = start - seconds[group].astype("timedelta64[s]")
        where = None if zone == "" else zone
        late = side == "high"
        if late and form:  # a period: its last instant
            first = _localized(start + np.timedelta64(1, form), where) - step
        else:  # an instant, or a period's first: the latest (high) or earliest of a wall time
            first = _localized(start, where, late=late and not form)
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


def _localized(values: np.ndarray, zone: Any, *, late: bool = False) -> pd.DatetimeIndex:
    """Wall times as a DatetimeIndex localized to ``zone`` at once: a time a clock shows
    twice is the first (``late``: the second) instant showing it, a time it skips the first
    instant after the gap; bounds so read hold every instant within them."""
    if np.datetime_data(values.dtype)[0] in ("Y", "M", "W", "D", "h", "m", "generic"):
        values = values.astype("datetime64[s]")  # the coarsest unit pandas holds
    index = pd.DatetimeIndex(values)
    if zone is None:
        return index
    first = np.full(len(index), not late)  # True: the first of a time shown twice
    return index.tz_localize(zone, ambiguous=first, nonexistent="shift_forward")


def _utc(index: pd.DatetimeIndex, unit: Any) -> np.ndarray:
    """Dates as numpy values in ``unit`` (never coarser than theirs), UTC when they have a
    zone."""
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


def _interval_side(bounds: Any, missing: bool, *, down: bool) -> Any:
    """One side of an interval column from distinct bounds: whole numbers in their own
    numpy type, or, when some row has no bounds (``missing``: an integer interval holds no
    missing value on pandas 2.2), as the nearest floats outwards (at or below them when
    ``down``), so that the interval still holds every value."""
    if pd.api.types.is_integer_dtype(bounds.dtype):
        if not missing:  # (the last bound, missing, is read by no row)
            return bounds.to_numpy(dtype=bounds.dtype.numpy_dtype, na_value=0)
        return _outward(list(bounds.to_numpy(dtype=object, na_value=None)), down=down)
    if pd.api.types.is_float_dtype(bounds.dtype):
        return bounds.to_numpy(dtype="float64", na_value=np.nan)
    return bounds
