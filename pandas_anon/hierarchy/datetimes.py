"""Dates generalized along the calendar: day, month, quarter, year, decade."""

from __future__ import annotations

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
    ``"2010s"``.

    ``levels`` are some of :data:`DATE_LEVELS`, in that order (finest first): ``"day"``
    (``"2019-05-17"``, for values that carry a time), ``"month"`` (``"2019-05"``),
    ``"quarter"`` (``"2019-Q2"``), ``"year"`` (``"2019"``), ``"decade"`` (``"2010s"``). The
    data must hold dates: a datetime64 column (a time-zone aware one is read in its own
    calendar) or ``datetime.date`` / ``datetime`` objects. Text is refused rather than guessed:
    parse it first with ``pd.to_datetime(..., format=...)``.
    """
    chosen = _date_levels(levels)
    series = column(data, "dates")
    values, _ = distinct(series, "dates")
    stamps = as_stamps(values, series)
    return build(
        values, [date_level(stamps, level) for level in chosen], list(chosen), name, series
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


def date_level(stamps: pd.DatetimeIndex, level: str) -> Level:
    if level in _UNITS:
        # through seconds: numpy's cast from ns to a calendar unit overflows within a day of
        # the ns range's first day (1677-09-22 became 2262-04-11); pandas floors exactly
        unit = _UNITS[level]
        keys = stamps.as_unit("s").to_numpy().astype(f"datetime64[{unit}]")
        codes, first = runs(keys)
        return codes, np.datetime_as_string(keys[first], unit=unit)
    years = stamps.year.to_numpy().astype(np.int64)
    if level == "quarter":
        keys = years * 4 + stamps.quarter.to_numpy() - 1
        codes, first = runs(keys)
        used = keys[first]
        return codes, np.char.add(
            np.char.add((used // 4).astype(str), "-Q"), (used % 4 + 1).astype(str)
        )
    keys = years // 10 * 10
    codes, first = runs(keys)
    return codes, np.char.add(keys[first].astype(str), "s")
