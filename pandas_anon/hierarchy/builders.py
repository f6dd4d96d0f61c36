"""Builders: hierarchies made from the data itself, so numbers, dates and codes need no table.

Every builder takes one column (a Series, or anything ``pd.Series`` accepts) and returns a
:class:`~pandas_anon.hierarchy.Hierarchy` whose level 0 is the column's distinct non-missing
values, sorted when they can be ordered. Missing values (NaN, NaT, None) are ignored: a
hierarchy describes values, and ``generalize`` keeps missing cells missing. A column with no
value at all raises :class:`~pandas_anon.errors.HierarchyError`; a bad argument raises
:class:`~pandas_anon.errors.InvalidParameterError`.

Labels are text (except ``row_groups(label="median" | "first")``, which keeps the column's
dtype). Numbers print without a spurious ``.0`` (years read next to a NaN are floats:
``1940.0`` prints ``1940``). ``[a, b)`` holds ``a <= x < b``, ``[a, b]`` holds
``a <= x <= b``, ``< a`` and ``>= b`` are the open ends. ``Hierarchy.labels(level)`` lists
each level's labels in the order of the values (numeric order); sorting the label text gives
the same order only while the bounds have as many digits (years do, ages 5 and 10 do not).

The work is done once per distinct value: one ``pandas.factorize`` over the rows, then numpy
on the distinct values, so a builder costs about one ``factorize`` of the column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, Union

import numpy as np
import pandas as pd

from ..errors import AnonWarning, HierarchyError, InvalidParameterError, warn
from .model import TOP, Hierarchy

__all__ = [
    "AUTO_MAX_INTERVALS",
    "AUTO_MIN_DISTINCT",
    "DATE_LEVELS",
    "auto",
    "dates",
    "intervals",
    "masking",
    "row_groups",
    "suppression",
    "top_bottom",
]

#: What one column can be given as.
Data = Union[pd.Series, pd.Index, np.ndarray, Sequence[Any]]
Number = Union[int, float]
#: One level as built here: for each level-0 value the position of its label, and the labels.
_Level = tuple[np.ndarray, Any]

#: Levels :func:`dates` knows, finest first; a hierarchy uses any of them in this order.
DATE_LEVELS: tuple[str, ...] = ("day", "month", "quarter", "year", "decade")
#: :func:`auto` builds intervals only for numeric columns with more distinct values than this.
AUTO_MIN_DISTINCT = 20
#: :func:`auto` picks the first interval width giving at most this many intervals.
AUTO_MAX_INTERVALS = 20

_LISTS = (list, tuple, np.ndarray, pd.Series, pd.Index)


# -- the builders ---------------------------------------------------------------------------------


def intervals(
    data: Data,
    *,
    width: Number | Sequence[Number] | None = None,
    cuts: Sequence[Number] | Sequence[Sequence[Number]] | None = None,
    groups_of: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Numbers generalized to intervals; give exactly one of ``width``, ``cuts``, ``groups_of``.

    - ``width=5`` or ``width=[5, 10, 20]`` (one level each): intervals aligned at multiples of
      the width, labelled ``"[30, 35)"``. Each width must be a whole multiple of the previous
      one, so that the intervals nest.
    - ``cuts=[18, 30, 65]``, or a list of such lists, one per level: ``"< 18"``,
      ``"[18, 30)"``, ``"[30, 65)"``, ``">= 65"``. Each level's cut points must be some of the
      previous level's (at least one fewer), so that it is coarser.
    - ``groups_of=4`` or ``groups_of=[4, 8]``: the sorted distinct values cut into groups of n
      consecutive values (the last group may hold fewer), labelled ``"[min, max]"`` with the
      group's smallest and largest value: Pastore et al.'s year ranges (``Y_ran``). Each n
      must be a multiple of the previous one.
    """
    given = [k for k, v in (("width", width), ("cuts", cuts), ("groups_of", groups_of))
             if v is not None]
    if len(given) != 1:
        raise InvalidParameterError(
            f"intervals() takes exactly one of width=, cuts=, groups_of= (got "
            f"{', '.join(given) or 'none'}); for example intervals(df['age'], width=[5, 10, 20])"
        )
    if width is not None:
        widths = _steps(width, "width", whole=False)
    elif cuts is not None:
        cut_levels = _cut_levels(cuts)
    else:
        sizes = [int(n) for n in _steps(groups_of, "groups_of", whole=True)]
    series = _column(data, "intervals")
    values, _ = _distinct(series, "intervals")
    numbers = _numbers(values, series, "intervals")
    if width is not None:
        levels = [_width_level(numbers, w, _decimals(widths)) for w in widths]
        names = [f"width {_fmt(np.array([w]))[0]}" for w in widths]
    elif cuts is not None:
        levels = [_cut_level(numbers, c) for c in cut_levels]
        names = [f"cuts {j}" for j in range(1, len(cut_levels) + 1)]
    else:
        levels = [_group_level(numbers, n) for n in sizes]
        names = [f"groups of {n}" for n in sizes]
    return _build(values, levels, names, name, series)


def row_groups(
    data: Data,
    *,
    min_rows: int,
    label: Literal["range", "median", "first"] = "range",
    name: str | None = None,
) -> Hierarchy:
    """Rows sorted by value and cut into groups of at least ``min_rows`` rows; one level.

    Equal values are never split: a group grows past ``min_rows`` rows until the value changes
    (the year ranges of Pastore et al.'s strategy study). A last group smaller than
    ``min_rows`` joins the one before. Each group is labelled by ``label``:

    - ``"range"``: ``"[min, max]"``, the group's smallest and largest value (text);
    - ``"median"``: the value of the group's middle row (the lower of the two middle rows when
      the group has an even number of rows), so the label is a value of the data, in the
      column's dtype: rows already holding it are left unchanged;
    - ``"first"``: the group's smallest value, in the column's dtype.

    Works on any sortable values (numbers, dates, text).
    """
    if isinstance(min_rows, bool) or not isinstance(min_rows, (int, np.integer)) or min_rows < 1:
        raise InvalidParameterError(f"min_rows must be a whole number >= 1, got {min_rows!r}")
    if label not in ("range", "median", "first"):
        raise InvalidParameterError(f"label must be 'range', 'median' or 'first', got {label!r}")
    series = _column(data, "row_groups")
    values, counts = _distinct(series, "row_groups", need_order=True)
    starts, ends = _greedy_groups(counts, int(min_rows))
    group = np.zeros(len(values), dtype=np.int64)
    group[starts[1:]] = 1
    group = np.cumsum(group)
    if label == "range":
        level: _Level = (group, _closed(_fmt(values.take(starts)), _fmt(values.take(ends))))
    else:
        pick = starts
        if label == "median":
            cum = np.cumsum(counts)
            before = cum[starts] - counts[starts]  # rows in the groups before
            pick = np.searchsorted(cum, before + (cum[ends] - before - 1) // 2, side="right")
        level = (group, values.take(pick))
    return _build(values, [level], [f"{min_rows}+ rows ({label})"], name, series)


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
    series = _column(data, "dates")
    values, _ = _distinct(series, "dates")
    stamps = _stamps(values, series)
    return _build(values, [_date_level(stamps, level) for level in chosen], list(chosen),
                  name, series)


def top_bottom(
    data: Data,
    *,
    bottom: Number | None = None,
    top: Number | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Top and bottom coding: values below ``bottom`` become ``"< bottom"``, values at or above
    ``top`` become ``">= top"``, the others are kept (as text); one level, then ``*``.

    The kept values are those in ``[bottom, top)``, the convention of :func:`intervals`:
    ``top=90`` codes ages 90 and over as ``">= 90"``.
    """
    if bottom is None and top is None:
        raise InvalidParameterError(
            "top_bottom() needs bottom=, top= or both (top_bottom(df['age'], top=90))"
        )
    for parameter, bound in (("bottom", bottom), ("top", top)):
        if bound is not None and not _is_number(bound):
            raise InvalidParameterError(f"{parameter} must be a finite number, got {bound!r}")
    if bottom is not None and top is not None and bottom > top:
        raise InvalidParameterError(f"bottom={bottom!r} is above top={top!r}; swap them")
    series = _column(data, "top_bottom")
    values, _ = _distinct(series, "top_bottom")
    numbers = _numbers(values, series, "top_bottom")
    text = _fmt(numbers).astype(object)
    if bottom is not None:
        text[numbers < bottom] = f"< {_fmt(np.array([bottom]))[0]}"
    if top is not None:
        text[numbers >= top] = f">= {_fmt(np.array([top]))[0]}"
    return _build(values, [_factorized(text)], ["top/bottom coded"], name, series)


def masking(
    data: Data,
    *,
    levels: int | None = None,
    char: str = "*",
    name: str | None = None,
) -> Hierarchy:
    """Codes masked from the right, one character per level: ``"11058"`` -> ``"1105*"`` ->
    ``"110**"`` -> ... -> ``"*****"``.

    ``levels`` is the number of masking levels (default: the length of the longest value).
    Values of different lengths keep their length (``"118"`` -> ``"11*"``), so the last level
    has one label per length, topped by ``*``. Numbers are masked as their text (whole floats
    without ``.0``), but leading zeros are then already lost: Rome's CAP ``00118`` read as a
    number is ``118``. Read code columns as text (``dtype=str``); a numeric column whose values
    have different numbers of digits gets an :class:`~pandas_anon.errors.AnonWarning`.
    Fractional numbers, dates and booleans are refused (use :func:`intervals`, :func:`dates`,
    :func:`suppression`).
    """
    if not isinstance(char, str) or len(char) != 1:
        raise InvalidParameterError(f"char must be one character, got {char!r}")
    series = _column(data, "masking")
    values, _ = _distinct(series, "masking")
    text = _code_text(values, series)
    lengths = np.char.str_len(text)
    longest = int(lengths.max())
    if levels is None:
        levels = longest
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or not (
        1 <= levels <= longest
    ):
        raise InvalidParameterError(
            f"levels must be a whole number from 1 to {longest} (the longest value of "
            f"{_where(series)} has {longest} characters), got {levels!r}"
        )
    masked = []
    for j in range(1, int(levels) + 1):
        level = np.empty(len(text), dtype=object)
        for size in np.unique(lengths):  # a loop over lengths, not rows
            here = lengths == size
            keep, hidden = max(int(size) - j, 0), char * min(j, int(size))
            level[here] = np.char.add(text[here].astype(f"U{keep}"), hidden) if keep else hidden
        masked.append(_factorized(level))
    return _build(values, masked, [f"mask {j}" for j in range(1, int(levels) + 1)], name, series)


def suppression(data: Data, *, name: str | None = None) -> Hierarchy:
    """Every value generalizes straight to ``*`` (suppression only). Any hashable values."""
    series = _column(data, "suppression")
    values, _ = _distinct(series, "suppression")
    return _build(values, [], [], name, series)


def auto(data: Data, *, name: str | None = None) -> Hierarchy:
    """The zero-configuration hierarchy of a column, chosen from its dtype and values.

    - dates (datetime64, ``datetime.date`` objects): :func:`dates` with month, year, decade
      (and day first when some value has a time of day);
    - numbers (integer or float, nullable included, bool excluded) with more than
      :data:`AUTO_MIN_DISTINCT` distinct values: :func:`intervals` with "nice" widths
      ``{1, 2, 5} x 10^k``. The first is the smallest giving at most
      :data:`AUTO_MAX_INTERVALS` aligned intervals over the data; each next one nests in the
      previous (x2 after a 1 or a 5, x5 after a 2: 5, 10, 20, 100, 200, ...); widths stop
      before one exceeds the data's range (max - min), so the last level still has two or
      more intervals under ``*``. Ages 17-90 get 5, 10, 20;
    - anything else (few distinct numbers, bool, text, categories): :func:`suppression`.

    The hierarchy's ``name`` says what was chosen, after ``name`` (default: the column's
    name) when there is one: ``"age auto:intervals(5,10,20)"``,
    ``"auto:dates(month,year,decade)"``, ``"sesso auto:suppression"``.
    """
    series = _column(data, "auto")
    values, _ = _distinct(series, "auto")
    label = name if name is not None else _series_name(series)
    if pd.api.types.is_datetime64_any_dtype(values.dtype) or _holds_dates(values):
        stamps = _stamps(values, series)
        timed = bool((stamps != stamps.normalize()).any())
        chosen = ("day",) * timed + ("month", "year", "decade")
        built = _build(values, [_date_level(stamps, level) for level in chosen], list(chosen),
                       None, series)
        what = f"dates({','.join(chosen)})"
    elif _is_numeric(values.dtype) and len(values) > AUTO_MIN_DISTINCT:
        numbers = _numbers(values, series, "auto")
        widths = _nice_widths(numbers)
        texts = _fmt(np.array(widths, dtype=float))
        built = _build(values, [_width_level(numbers, w, _decimals(widths)) for w in widths],
                       [f"width {t}" for t in texts], None, series)
        what = f"intervals({','.join(texts)})"
    else:
        built = _build(values, [], [], None, series)
        what = "suppression"
    built.name = f"{label} auto:{what}" if label is not None else f"auto:{what}"
    return built


# -- shared steps ---------------------------------------------------------------------------------


def _column(data: Data, builder: str) -> pd.Series:
    if isinstance(data, pd.DataFrame):
        raise HierarchyError(
            f"{builder}() builds the hierarchy of one column; give a Series (df['column']), "
            f"not a DataFrame"
        )
    if isinstance(data, pd.Series):
        return data
    return pd.Series(data, name=getattr(data, "name", None))


def _series_name(series: pd.Series) -> str | None:
    return None if series.name is None else str(series.name)


def _where(series: pd.Series) -> str:
    return f"column {series.name!r}" if series.name is not None else "the data"


def _distinct(
    series: pd.Series, builder: str, *, need_order: bool = False
) -> tuple[pd.Index, np.ndarray]:
    """The distinct non-missing values (sorted when orderable) and their row counts."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if len(uniques) == 0:
        rows = f"{len(series):,} rows, all missing" if len(series) else "no rows"
        raise HierarchyError(
            f"{builder}(): {_where(series)} has no value ({rows}); a hierarchy describes "
            f"values: fill the column or leave it out of the quasi-identifier"
        )
    if isinstance(uniques.dtype, pd.CategoricalDtype):  # level 0 holds the plain values
        uniques = uniques.categories.take(uniques.codes)
    values = pd.Index(uniques)
    counts = np.bincount(codes[codes >= 0], minlength=len(values))
    try:
        order = values.argsort()
    except TypeError as exc:
        if need_order:
            raise HierarchyError(
                f"{builder}() sorts the values, but those of {_where(series)} cannot be "
                f"compared with each other (mixed types); convert the column to one type"
            ) from exc
        return values, counts
    return values.take(order), counts[order]


def _build(
    values: pd.Index, levels: list[_Level], names: list[str], name: str | None, series: pd.Series
) -> Hierarchy:
    """The Hierarchy, named after the column, each level named after what it is."""
    base = _series_name(series)
    level_names = [base if base is not None and base not in names and base != TOP else "value"]
    level_names += names
    if not levels or len(levels[-1][1]) > 1:  # the model adds "*" on top
        level_names.append(TOP)
    full = [pd.Index(labels).take(codes) for codes, labels in levels]
    return Hierarchy(values, full, name=name if name is not None else base,
                     level_names=level_names)


def _runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``keys`` (one per level-0 value) and the first position of each code.

    Keys computed from sorted values are sorted: equal keys are runs, found in one pass."""
    step = keys[1:] != keys[:-1]
    if len(keys) > 1 and (keys[1:] < keys[:-1]).any():  # unsortable values kept their order
        _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
        return codes.ravel(), first
    first = np.flatnonzero(np.concatenate([[True], step]))
    return np.cumsum(np.concatenate([[0], step])), first


def _factorized(labels: np.ndarray) -> _Level:
    codes, uniques = pd.factorize(labels)
    return codes, np.asarray(uniques, dtype=str)


def _is_numeric(dtype: Any) -> bool:
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _is_number(x: object) -> bool:
    return (isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
            and math.isfinite(x))


def _numbers(values: pd.Index, series: pd.Series, builder: str) -> np.ndarray:
    """The distinct values as int64 or float64, or a HierarchyError saying why not."""
    if not _is_numeric(values.dtype):
        raise HierarchyError(
            f"{builder}() needs numbers, but {_where(series)} holds {values.dtype} values; "
            f"convert it with pd.to_numeric() first, or use masking() or suppression() for codes"
        )
    if pd.api.types.is_integer_dtype(values.dtype):
        return values.to_numpy(dtype=np.int64)
    numbers = values.to_numpy(dtype=np.float64)
    if not np.isfinite(numbers).all():
        raise HierarchyError(
            f"{builder}(): {_where(series)} holds infinite values; replace them (with NaN or a "
            f"bound) first"
        )
    return numbers


def _fmt(values: Any) -> np.ndarray:
    """Text of each value: whole floats as integers, dates as ISO dates (with the time if any)."""
    if isinstance(values, pd.Index) and _is_numeric(values.dtype):
        integer = pd.api.types.is_integer_dtype(values.dtype)
        values = values.to_numpy(dtype=np.int64 if integer else np.float64)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.astype(str)
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        whole = (values == np.floor(values)) & (np.abs(values) < 2.0**53)
        return np.where(whole, np.where(whole, values, 0).astype(np.int64).astype(str),
                        values.astype(str))
    if isinstance(values, pd.Index) and pd.api.types.is_datetime64_any_dtype(values.dtype):
        stamps = pd.DatetimeIndex(values)
        timed = (stamps != stamps.normalize()).any()
        return np.asarray(stamps.strftime("%Y-%m-%d %H:%M:%S" if timed else "%Y-%m-%d"), dtype=str)
    return np.asarray(pd.Index(values).astype(str), dtype=str)


def _closed(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``"[low, high]"`` per label (a loop over labels: faster than numpy's string ops)."""
    return np.array([f"[{a}, {b}]" for a, b in zip(low.tolist(), high.tolist())], dtype=object)


def _half_open(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``"[low, high)"`` per label."""
    return np.array([f"[{a}, {b})" for a, b in zip(low.tolist(), high.tolist())], dtype=object)


# -- intervals ------------------------------------------------------------------------------------


def _steps(given: Any, parameter: str, *, whole: bool) -> list[Number]:
    """``given`` as a list of positive numbers, each a whole multiple (>= 2x) of the previous."""
    steps = list(given) if isinstance(given, _LISTS) else [given]
    example = "[4, 8]" if whole else "[5, 10, 20]"
    if not steps or not all(
        _is_number(s) and s > 0 and (not whole or float(s).is_integer()) for s in steps
    ):
        raise InvalidParameterError(
            f"{parameter} must be a positive {'whole ' if whole else ''}number or a list of "
            f"them, one per level ({parameter}={example}), got {given!r}"
        )
    for finer, coarser in zip(steps, steps[1:]):
        ratio = coarser / finer
        if ratio < 1.5 or abs(ratio - round(ratio)) > 1e-9 * ratio:
            raise InvalidParameterError(
                f"{parameter}={steps!r}: {coarser!r} is not a multiple of {finer!r}; each "
                f"level must be a whole multiple of the previous one, so that its groups hold "
                f"whole groups of the level below ({parameter}={example})"
            )
    return steps


def _decimals(widths: Sequence[Number]) -> int:
    """Decimal places needed to write the widths (interval bounds are rounded to them)."""
    places = [len(text.split(".")[1]) if "." in text else 0
              for text in (np.format_float_positional(float(w), trim="-") for w in widths)]
    return min(max(places), 15)


def _width_level(numbers: np.ndarray, width: Number, decimals: int) -> _Level:
    if numbers.dtype.kind == "i" and float(width).is_integer():
        low = numbers // int(width) * int(width)  # floor division: exact, negatives included
        high = low + int(width)
    else:
        x = numbers.astype(np.float64)
        k = np.floor(x / width)
        low, high = np.round(k * width, decimals), np.round((k + 1) * width, decimals)
        off = (x < low) | (x >= high)  # x / width landed beside a bound: trust the written ones
        if off.any():
            k[off] += (x[off] >= high[off]).astype(np.int64) - (x[off] < low[off])
            low[off] = np.round(k[off] * width, decimals)
            high[off] = np.round((k[off] + 1) * width, decimals)
    codes, first = _runs(low)
    return codes, _half_open(_fmt(low[first]), _fmt(high[first]))


def _cut_levels(cuts: Any) -> list[np.ndarray]:
    nested = isinstance(cuts, _LISTS) and any(isinstance(c, _LISTS) for c in cuts)
    levels: list[np.ndarray] = []
    for j, level in enumerate(list(cuts) if nested else [cuts], start=1):
        points = list(level) if isinstance(level, _LISTS) else [level]
        if not points or not all(_is_number(p) for p in points) or any(
            b <= a for a, b in zip(points, points[1:])
        ):
            raise InvalidParameterError(
                f"cuts level {j} must be increasing finite numbers (cuts=[18, 30, 65], or one "
                f"list per level: cuts=[[18, 30, 50, 65], [30, 65]]), got {level!r}"
            )
        if levels and not set(points) < set(levels[-1].tolist()):
            extra = sorted(set(points) - set(levels[-1].tolist()))
            why = (f"{extra!r} {'is' if len(extra) == 1 else 'are'} not among level {j - 1}'s "
                   f"cut points" if extra else "it drops no cut point")
            raise InvalidParameterError(
                f"cuts level {j} {points!r} is not coarser than level {j - 1} "
                f"{levels[-1].tolist()!r}: {why}; each level must keep only some of the "
                f"previous level's cut points"
            )
        levels.append(np.array(points))
    return levels


def _cut_level(numbers: np.ndarray, cuts: np.ndarray) -> _Level:
    text = _fmt(cuts)
    labels = np.concatenate([[f"< {text[0]}"], _half_open(text[:-1], text[1:]),
                             [f">= {text[-1]}"]])
    slots = np.searchsorted(cuts, numbers, side="right")
    codes, first = _runs(slots)
    return codes, labels[slots[first]]


def _group_level(numbers: np.ndarray, size: int) -> _Level:
    starts = np.arange(0, len(numbers), size)
    ends = np.minimum(starts + size, len(numbers)) - 1
    return np.arange(len(numbers)) // size, _closed(_fmt(numbers[starts]), _fmt(numbers[ends]))


def _nice_widths(numbers: np.ndarray) -> list[Number]:
    """:func:`auto`'s widths: {1, 2, 5} x 10^k, nesting, stopping before the data's range."""
    low, high = float(numbers.min()), float(numbers.max())
    spread = high - low
    exponent = math.floor(math.log10(spread / AUTO_MAX_INTERVALS)) if spread > 0 else 0
    mantissa = 1

    def width(m: int, e: int) -> Number:
        return m * 10**e if e >= 0 else round(m * 10.0**e, -e)

    while math.floor(high / width(mantissa, exponent)) - math.floor(
        low / width(mantissa, exponent)
    ) >= AUTO_MAX_INTERVALS:
        mantissa, exponent = {1: (2, exponent), 2: (5, exponent), 5: (1, exponent + 1)}[mantissa]
    widths = [width(mantissa, exponent)]
    while True:  # nesting: 1 -> 2 -> 10, 5 -> 10
        mantissa, exponent = {1: (2, exponent), 2: (1, exponent + 1), 5: (1, exponent + 1)}[
            mantissa]
        if width(mantissa, exponent) > spread:
            return widths
        widths.append(width(mantissa, exponent))


# -- row groups -----------------------------------------------------------------------------------


def _greedy_groups(counts: np.ndarray, min_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last distinct-value position of each group of >= ``min_rows`` rows.

    A group starting at value ``i`` ends at the first value where it reaches ``min_rows``
    rows; the next starts right after. That jump is computed for every ``i`` at once
    (``searchsorted`` on the cumulative counts), then followed from 0: a loop over the
    groups, not the rows (and no loop at all when every value occurs once).
    """
    n = len(counts)
    cum = np.cumsum(counts)
    if counts.max() == 1:
        starts = np.arange(0, n, min_rows)
    else:
        before = cum - counts
        jump = (np.searchsorted(cum, before + min_rows, side="left") + 1).tolist()
        chain, i = [], 0
        while i < n:
            chain.append(i)
            i = jump[i]
        starts = np.array(chain, dtype=np.int64)
    ends = np.append(starts[1:], n) - 1
    if len(starts) > 1 and cum[-1] - (cum[starts[-1]] - counts[starts[-1]]) < min_rows:
        starts, ends = starts[:-1], np.append(ends[:-2], n - 1)  # a short tail joins
    return starts, ends


# -- dates ----------------------------------------------------------------------------------------


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


def _holds_dates(values: pd.Index) -> bool:
    return values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) in (
        "date", "datetime")


def _stamps(values: pd.Index, series: pd.Series) -> pd.DatetimeIndex:
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        stamps = pd.DatetimeIndex(values)
    elif _holds_dates(values):
        stamps = pd.DatetimeIndex(pd.to_datetime(values.to_numpy()))
    else:
        fix = "convert it to datetime64 first"
        if pd.api.types.is_string_dtype(values.dtype):
            fix = (f"parse it first with pd.to_datetime(df[{series.name!r}], format=...), "
                   f"giving the column's date format (for example '%Y-%m-%d')")
        raise HierarchyError(
            f"dates() needs dates, but {_where(series)} holds {values.dtype} values; {fix}"
        )
    return stamps.tz_localize(None) if stamps.tz is not None else stamps


def _date_level(stamps: pd.DatetimeIndex, level: str) -> _Level:
    if level in ("day", "month", "year"):
        keys = stamps.to_numpy().astype(f"datetime64[{level[0].upper()}]")
        codes, first = _runs(keys)
        return codes, np.datetime_as_string(keys[first], unit=level[0].upper())
    years = stamps.year.to_numpy().astype(np.int64)
    if level == "quarter":
        keys = years * 4 + stamps.quarter.to_numpy() - 1
        codes, first = _runs(keys)
        used = keys[first]
        return codes, np.char.add(np.char.add((used // 4).astype(str), "-Q"),
                                  (used % 4 + 1).astype(str))
    keys = years // 10 * 10
    codes, first = _runs(keys)
    return codes, np.char.add(keys[first].astype(str), "s")


# -- masking --------------------------------------------------------------------------------------


def _code_text(values: pd.Index, series: pd.Series) -> np.ndarray:
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype):
        instead = "dates()" if pd.api.types.is_datetime64_any_dtype(dtype) else "suppression()"
        raise HierarchyError(
            f"masking() masks codes written as text, but {_where(series)} holds {dtype} values; "
            f"use {instead} instead"
        )
    if not _is_numeric(dtype):
        return np.asarray(values.astype(str), dtype=str)
    numbers = _numbers(values, series, "masking")
    if numbers.dtype.kind == "f" and not (numbers == np.floor(numbers)).all():
        raise HierarchyError(
            f"masking() masks codes, but {_where(series)} holds fractional numbers; use "
            f"intervals() for measurements, or read the column as text (dtype=str)"
        )
    text = _fmt(numbers)
    digits = np.char.str_len(text)
    if digits.min() != digits.max():
        warn(
            f"masking(): {_where(series)} is numeric and its values have {digits.min()} to "
            f"{digits.max()} digits; leading zeros were probably lost when it was read (CAP "
            f"00118 becomes 118): read code columns as text (dtype=str)",
            AnonWarning,
        )
    return text
