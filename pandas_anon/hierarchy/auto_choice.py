"""The zero-configuration choice: dates, nice intervals or suppression, from the column itself."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pandas_anon.hierarchy._levels import (
    Data,
    Number,
    as_numbers,
    build,
    column,
    distinct,
    fmt,
    is_numeric,
    series_name,
)
from pandas_anon.hierarchy.datetimes import (
    as_stamps,
    date_level,
    holds_dates,
    text_dates,
    zone_of,
)
from pandas_anon.hierarchy.model import Hierarchy
from pandas_anon.hierarchy.numeric import width_decimals, width_level

__all__ = ["AUTO_DATE_LEVELS", "AUTO_MAX_INTERVALS", "AUTO_MIN_DISTINCT", "auto"]

#: :func:`auto` builds intervals only for numeric columns with more distinct values than this.
AUTO_MIN_DISTINCT = 20
#: :func:`auto` picks the first interval width giving at most this many intervals.
AUTO_MAX_INTERVALS = 20
#: The levels of :func:`auto`'s dates, after the day when some value has a time of day.
AUTO_DATE_LEVELS: tuple[str, ...] = ("month", "quarter", "year", "decade")


def auto(data: Data, *, name: str | None = None) -> Hierarchy:
    """The zero-configuration hierarchy of a column, chosen from its dtype and values.

    - dates (datetime64, ``datetime.date`` objects, or text every value of which is a date
      of one of the forms :func:`~pandas_anon.hierarchy.datetimes.text_dates` reads, such
      as ``1983-12-21 00:00:00`` or ``21/12/1983``): :func:`dates` with
      :data:`AUTO_DATE_LEVELS` (and day first when some value has a time of day); text
      keeps its values as written at level 0;
    - numbers (integer or float, nullable included, bool excluded) with more than
      :data:`AUTO_MIN_DISTINCT` distinct values: :func:`intervals` with "nice" widths
      ``{1, 2, 5} x 10^k``. The first is the smallest giving at most
      :data:`AUTO_MAX_INTERVALS` aligned intervals over the data; each next one nests in the
      previous (x2 after a 1 or a 5, x5 after a 2: 5, 10, 20, 100, 200, ...); widths stop
      before one exceeds the data's range (max - min), so the last level still has two or
      more intervals under ``*``. Ages 17-90 get 5, 10, 20;
      Floats get intervals only when written bounds can label them exactly (finite, below
      2^53 in size, spread over at least 1e-10 and at least a billionth of their size);
    - anything else (few distinct numbers, such floats, bool, text, categories):
      :func:`suppression`.

    The hierarchy's ``name`` says what was chosen, after ``name`` (default: the column's
    name) when there is one: ``"age auto:intervals(5,10,20)"``,
    ``"auto:dates(month,quarter,year,decade)"``, ``"sesso auto:suppression"``.
    """
    series = column(data, "auto")
    values, _ = distinct(series, "auto")
    label = name if name is not None else series_name(series)
    stamps = (
        as_stamps(values, series)
        if pd.api.types.is_datetime64_any_dtype(values.dtype) or holds_dates(values)
        else text_dates(values)
    )
    if stamps is not None:
        timed = bool((stamps != stamps.normalize()).any())
        chosen = ("day",) * timed + AUTO_DATE_LEVELS
        built = build(
            values,
            [date_level(stamps, level, zone_of(values)) for level in chosen],
            list(chosen),
            None,
            series,
        )
        what = f"dates({','.join(chosen)})"
    elif is_numeric(values.dtype) and len(values) > AUTO_MIN_DISTINCT and fits_intervals(values):
        numbers = as_numbers(values, series, "auto")
        widths = nice_widths(numbers)
        texts = fmt(np.array(widths, dtype=float))
        built = build(
            values,
            [width_level(numbers, w, width_decimals(widths)) for w in widths],
            [f"width {t}" for t in texts],
            None,
            series,
        )
        what = f"intervals({','.join(texts)})"
    else:
        built = build(values, [], [], None, series)
        what = "suppression"
    built.name = f"{label} auto:{what}" if label is not None else f"auto:{what}"
    return built


def fits_intervals(values: pd.Index) -> bool:
    """Whether :func:`auto`'s intervals label these numbers exactly: integers always (their
    bounds are computed exactly); floats when finite, below 2^53 in size and spread enough
    that a width and its bounds are written without losing them (1e-300 steps would all read
    ``[0, 0)``; infinities have no interval)."""
    if pd.api.types.is_integer_dtype(values.dtype):
        return True
    numbers = values.to_numpy(dtype=np.float64)
    if not np.isfinite(numbers).all():
        return False
    size, spread = float(np.abs(numbers).max()), float(numbers.max()) - float(numbers.min())
    return size < 2.0**53 and spread >= 1e-10 and size < 1e9 * spread


def nice_widths(numbers: np.ndarray) -> list[Number]:
    """:func:`auto`'s widths: {1, 2, 5} x 10^k, nesting, stopping before the data's range."""
    low, high = float(numbers.min()), float(numbers.max())
    spread = high - low
    exponent = math.floor(math.log10(spread / AUTO_MAX_INTERVALS)) if spread > 0 else 0
    mantissa = 1

    def width(m: int, e: int) -> Number:
        return m * 10**e if e >= 0 else round(m * 10.0**e, -e)

    while (
        math.floor(high / width(mantissa, exponent)) - math.floor(low / width(mantissa, exponent))
        >= AUTO_MAX_INTERVALS
    ):
        mantissa, exponent = {1: (2, exponent), 2: (5, exponent), 5: (1, exponent + 1)}[mantissa]
    widths = [width(mantissa, exponent)]
    while True:  # nesting: 1 -> 2 -> 10, 5 -> 10
        mantissa, exponent = {1: (2, exponent), 2: (1, exponent + 1), 5: (1, exponent + 1)}[
            mantissa
        ]
        if width(mantissa, exponent) > spread:
            return widths
        widths.append(width(mantissa, exponent))
