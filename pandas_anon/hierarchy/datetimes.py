"""Dates generalized along the calendar: day, month, quarter, year, decade."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.hierarchy._levels import Data, Level, build, column, distinct, runs, where
from pandas_anon.hierarchy.model import Hierarchy

__all__ = ["DATE_LEVELS", "dates"]

#: Levels :func:`dates` knows, finest first; a hierarchy uses any of them in this order.
DATE_LEVELS: tuple[str, ...] = ("day", "month", "quarter", "year", "decade")

#: numpy's calendar unit of each level that is one.
_UNITS: dict[str, Literal["D", "M", "Y"]] = {"day": "D", "month": "M", "year": "Y"}


def dates(
    data: Data,
    *,
    levels: Sequence[str] = ("month", "year", "decade"),
    name: str | None = None,
) -> Hierarchy:
    """Dates generalized along the calendar: ``2019-05-17`` -> ``"2019-05"`` -> ``"2019"`` ->
    ``"2010/2019"``.

    ``levels`` are some of :data:`DATE_LEVELS`, in that order (finest first): ``"day"``
    (``"2019-05-17"``, for values that carry a time), ``"month"`` (``"2019-05"``),
    ``"quarter"`` (``"2019-04/2019-06"``), ``"year"`` (``"2019"``), ``"decade"``
    (``"2010/2019"``). A span of several months or years is written as an ISO 8601
    interval, its first and last month or year: a person reads it, and
    ``pandas.to_datetime`` reads each of its bounds (``label.split("/")``). The
    data must hold dates: a datetime64 column (a time-zone aware one is read in its own
    calendar, each label naming its zone after a space: ``"2019-05 Europe/Rome"``, so that
    the instants it covers can be read back) or ``datetime.date`` / ``datetime`` objects.
    Text is refused rather than guessed: parse it first with
    ``pd.to_datetime(..., format=...)``.
    """
    chosen = _date_levels(levels)
    series = column(data, "dates")
    values, _ = distinct(series, "dates")
    stamps = as_stamps(values, series)
    zone = zone_of(values)
    return build(
        values, [date_level(stamps, level, zone) for level in chosen], list(chosen), name, series
    )


def _date_levels(levels: Any) -> tuple[str, ...]:
    chosen = (levels,) if isinstance(levels, str) else tuple(levels)
    if not chosen or any(level not in DATE_LEVELS for level in chosen):
        raise InvalidParameterError(
            f"dates() levels must be some of {DATE_LEVELS!r}, finest first; got {levels!r}"
        )
    ranks = [DATE_LEVELS.index(level) for level in chosen]
    if any(b <= a for a, b in zip(ranks, ranks[1:])):
        raise InvalidParameterError(
            f"dates() levels {chosen!r} must go from fine to coarse, each once, in the order of "
            f"{DATE_LEVELS!r} (for example ('month', 'year', 'decade'))"
        )
    return chosen


#: The forms of text :func:`text_dates` reads as dates, in the order it tries them: ISO dates
#: and date-times (the forms of the Valle d'Aosta licences, ``1983-12-21 00:00:00``), then
#: day-first dates (Italian and most European open data: ``21/12/1983``, ``21-12-1983``,
#: ``21.12.1983``), then ``1983/12/21`` and, last, month-first ``12/21/1983``.
TEXT_DATE_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M",
    "%d/%m/%Y",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d-%m-%Y",
    "%d.%m.%Y",
    "%Y/%m/%d",
    "%m/%d/%Y",
)

#: :func:`text_dates` tries each form on this many values first, the whole column after.
_SAMPLE = 64


def text_dates(values: pd.Index) -> pd.DatetimeIndex | None:
    """The dates that ``values`` (distinct texts, none missing) write, when every one of
    them is a date of one form of :data:`TEXT_DATE_FORMATS` (the first such form); else
    None. A column of years (``"1983"``) or codes is not dates: each form asks for a day, a
    month and a year. Dates pandas cannot hold (before 1677 or after 2262 under pandas 2)
    make the column not dates.

    Examples
    --------
    >>> text_dates(pd.Index(["21/12/1983", "01/02/2001"])).strftime("%Y-%m-%d").tolist()
    ['1983-12-21', '2001-02-01']
    >>> text_dates(pd.Index(["1983", "2001"])) is None
    True
    """
    if len(values) == 0 or pd.api.types.infer_dtype(values, skipna=False) != "string":
        return None
    texts = values.to_numpy(dtype=object)
    for form in TEXT_DATE_FORMATS:
        if _all_dates(texts[:_SAMPLE], form) is None:
            continue
        found = _all_dates(texts, form)
        if found is not None:
            return found
    return None


def _all_dates(texts: np.ndarray, form: str) -> pd.DatetimeIndex | None:
    """``texts`` read as dates of ``form``, when every one is one; else None."""
    found = pd.DatetimeIndex(pd.to_datetime(texts, format=form, errors="coerce"))
    return None if found.hasnans else found


def holds_dates(values: pd.Index) -> bool:
    return values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) in (
        "date",
        "datetime",
    )


def as_stamps(values: pd.Index, series: pd.Series) -> pd.DatetimeIndex:
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        stamps = pd.DatetimeIndex(values)
    elif holds_dates(values):
        stamps = pd.DatetimeIndex(pd.to_datetime(values.to_numpy()))
    else:
        fix = "convert it to datetime64 first"
        if pd.api.types.is_string_dtype(values.dtype):
            fix = (
                f"parse it first with pd.to_datetime(df[{series.name!r}], format=...), "
                f"giving the column's date format (for example '%Y-%m-%d')"
            )
        raise HierarchyError(
            f"dates() needs dates, but {where(series)} holds {values.dtype} values; {fix}"
        )
    return stamps.tz_localize(None) if stamps.tz is not None else stamps


def zone_of(values: pd.Index) -> str | None:
    """The name of the time zone of dates ``values`` (None: naive, or no dates), as
    ``tz_localize`` reads it back: an IANA key (``Europe/Rome``), ``UTC``, or a fixed offset
    (``+01:00``)."""
    zone = getattr(values.dtype, "tz", None)
    if zone is None and holds_dates(values):
        zone = pd.DatetimeIndex(pd.to_datetime(values.to_numpy())).tz
    if zone is None:
        return None
    key = getattr(zone, "key", None) or getattr(zone, "zone", None)  # zoneinfo, pytz
    if isinstance(key, str):
        return key
    if isinstance(zone, datetime.timezone):  # a fixed offset
        minutes = int(zone.utcoffset(None).total_seconds() // 60)
        sign = "-" if minutes < 0 else "+"
        return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}" if minutes else "UTC"
    return str(zone)


def date_level(stamps: pd.DatetimeIndex, level: str, zone: str | None = None) -> Level:
    """The codes and labels of ``stamps`` (wall times) at ``level``, each label followed by
    `` zone`` when the dates had one (``"2019-05 Europe/Rome"``)."""
    codes, labels = _date_level(stamps, level)
    return codes, labels if zone is None else np.char.add(labels.astype(str), f" {zone}")


def _date_level(stamps: pd.DatetimeIndex, level: str) -> Level:
    if level in _UNITS:
        # through seconds: numpy's cast from ns to a calendar unit overflows within a day of
        # the ns range's first day (1677-09-22 became 2262-04-11); pandas floors exactly
        unit = _UNITS[level]
        keys = stamps.as_unit("s").to_numpy().astype(f"datetime64[{unit}]")
        codes, first = runs(keys)
        return codes, np.datetime_as_string(keys[first], unit=unit)
    years = stamps.year.to_numpy().astype(np.int64)
    if level == "quarter":  # its first and last months: 2019-04/2019-06
        keys = years * 4 + stamps.quarter.to_numpy() - 1
        codes, first = runs(keys)
        months = (keys[first] * 3 - 1970 * 12).astype("datetime64[M]")
        return codes, _interval(months, months + 2, "M")
    keys = years // 10 * 10  # its first and last years: 2010/2019
    codes, first = runs(keys)
    starts = (keys[first] - 1970).astype("datetime64[Y]")
    return codes, _interval(starts, starts + 9, "Y")


def _interval(first: np.ndarray, last: np.ndarray, unit: Literal["M", "Y"]) -> np.ndarray:
    """ISO 8601 intervals ``first/last`` of calendar units: a person reads them, and
    ``pandas.to_datetime`` reads each bound (``label.split("/")``)."""
    bounds = np.char.add(np.datetime_as_string(first, unit=unit), "/")
    return np.char.add(bounds, np.datetime_as_string(last, unit=unit))
