"""Ordered values generalized to ranges: intervals, groups of sorted rows, top and bottom coding.

:func:`intervals` cuts numbers at multiples of a width, at given cut points, or into groups of
n consecutive distinct values; :func:`row_groups` cuts the sorted rows into groups of at least
``min_rows`` rows (any sortable values); :func:`top_bottom` codes the tails only. Groups of
years are the year ranges (``Y_ran``) of Pastore et al. (2020), "Detecting and Generalizing
Quasi-Identifiers by Affecting Singletons", section 3.2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy._levels import (
    Data,
    Level,
    Number,
    as_numbers,
    build,
    column,
    distinct,
    factorized,
    fmt,
    runs,
)
from pandas_anon.hierarchy.model import Hierarchy
from pandas_anon.params import whole

__all__ = ["intervals", "row_groups", "top_bottom"]

_LISTS = (list, tuple, np.ndarray, pd.Series, pd.Index)


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
      group's smallest and largest value: Pastore et al.'s year ranges (``Y_ran``, 2020,
      section 3.2). Each n must be a multiple of the previous one.
    """
    given = [
        k for k, v in (("width", width), ("cuts", cuts), ("groups_of", groups_of)) if v is not None
    ]
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
    series = column(data, "intervals")
    values, _ = distinct(series, "intervals")
    numbers = as_numbers(values, series, "intervals")
    if width is not None:
        levels = [width_level(numbers, w, width_decimals(widths)) for w in widths]
        names = [f"width {fmt(np.array([w]))[0]}" for w in widths]
    elif cuts is not None:
        levels = [_cut_level(numbers, c) for c in cut_levels]
        names = [f"cuts {j}" for j in range(1, len(cut_levels) + 1)]
    else:
        levels = [_group_level(numbers, n) for n in sizes]
        names = [f"groups of {n}" for n in sizes]
    return build(values, levels, names, name, series)


def row_groups(
    data: Data,
    *,
    min_rows: int,
    label: Literal["range", "median", "first"] = "range",
    name: str | None = None,
) -> Hierarchy:
    """Rows sorted by value and cut into groups of at least ``min_rows`` rows; one level.

    Equal values are never split: a group grows past ``min_rows`` rows until the value changes
    (the year ranges of the strategy study of Pastore et al. 2020, section 3.2). A last group
    smaller than ``min_rows`` joins
    the one before. Each group is labelled by ``label``:

    - ``"range"``: ``"[min, max]"``, the group's smallest and largest value (text);
    - ``"median"``: the value of the group's middle row (the lower of the two middle rows when
      the group has an even number of rows), so the label is a value of the data, in the
      column's dtype: rows already holding it are left unchanged;
    - ``"first"``: the group's smallest value, in the column's dtype.

    Works on any sortable values (numbers, dates, text).
    """
    whole(min_rows, "min_rows", example=50)
    if label not in ("range", "median", "first"):
        raise InvalidParameterError(f"label must be 'range', 'median' or 'first', got {label!r}")
    series = column(data, "row_groups")
    values, counts = distinct(series, "row_groups", need_order=True)
    starts, ends = _greedy_groups(counts, int(min_rows))
    group = np.zeros(len(values), dtype=np.int64)
    group[starts[1:]] = 1
    group = np.cumsum(group)
    if label == "range":
        level: Level = (group, _closed(fmt(values.take(starts)), fmt(values.take(ends))))
    else:
        pick = starts
        if label == "median":
            cum = np.cumsum(counts)
            before = cum[starts] - counts[starts]  # rows in the groups before
            pick = np.searchsorted(cum, before + (cum[ends] - before - 1) // 2, side="right")
        level = (group, values.take(pick))
    return build(values, [level], [f"{min_rows}+ rows ({label})"], name, series)


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
    series = column(data, "top_bottom")
    values, _ = distinct(series, "top_bottom")
    numbers = as_numbers(values, series, "top_bottom")
    text = fmt(numbers).astype(object)
    decimal = _decimal(numbers)
    if bottom is not None:
        text[numbers < bottom] = f"< {_bounds_text(np.array([bottom]), decimal)[0]}"
    if top is not None:
        text[numbers >= top] = f">= {_bounds_text(np.array([top]), decimal)[0]}"
    return build(values, [factorized(text)], ["top/bottom coded"], name, series)


# -- bounds and labels -----------------------------------------------------------------------------


def _is_number(x: object) -> bool:
    return (
        isinstance(x, (int, float, np.integer, np.floating))
        and not isinstance(x, bool)
        and math.isfinite(x)
    )


def _closed(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``"[low, high]"`` per label (a loop over labels: faster than numpy's string ops)."""
    return np.array([f"[{a}, {b}]" for a, b in zip(low.tolist(), high.tolist())], dtype=object)


def _half_open(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``"[low, high)"`` per label."""
    return np.array([f"[{a}, {b})" for a, b in zip(low.tolist(), high.tolist())], dtype=object)


def _decimal(numbers: np.ndarray) -> bool:
    """Whether ``numbers`` are floats some of which are not whole: their bounds are then
    written as decimals (:func:`_bounds_text`)."""
    return numbers.dtype.kind == "f" and bool(
        (np.isfinite(numbers) & (np.floor(numbers) != numbers)).any()
    )


def _bounds_text(bounds: np.ndarray, decimal: bool) -> np.ndarray:
    """Bounds as text (:func:`fmt`); for a column holding decimals (``decimal``), a whole
    bound with a decimal point (``20.0``), so that a label says what it bounds: ``[0, 20)``
    reads as whole numbers, ``[0, 19]``; ``[0.0, 20.0)`` as decimals, up to the float before
    20 (:func:`pandas_anon.intervals`)."""
    text = fmt(bounds)
    if not decimal:
        return text
    whole = np.char.isdigit(np.char.lstrip(text.astype(str), "-"))
    return np.where(whole, bounds.astype(np.float64).astype(str), text)


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


_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def width_decimals(widths: Sequence[Number]) -> int:
    """Decimal places needed to write the widths (interval bounds are rounded to them)."""
    places = [
        len(text.split(".")[1]) if "." in text else 0
        for text in (np.format_float_positional(float(w), trim="-") for w in widths)
    ]
    return min(max(places), 15)


def width_level(numbers: np.ndarray, width: Number, decimals: int) -> Level:
    if numbers.dtype.kind in "iu" and float(width).is_integer():
        step = int(width)
        if len(numbers) and (
            int(numbers.min()) - step < _INT64_MIN or int(numbers.max()) + step > _INT64_MAX
        ):
            numbers = numbers.astype(object)  # Python integers: a bound past int64 stays exact
        low = numbers // step * step  # floor division: exact, negatives included
        high = low + step
    else:
        x = numbers.astype(np.float64)
        k = np.floor(x / width)
        low, high = np.round(k * width, decimals), np.round((k + 1) * width, decimals)
        off = (x < low) | (x >= high)  # x / width landed beside a bound: trust the written ones
        if off.any():
            k[off] += (x[off] >= high[off]).astype(np.int64) - (x[off] < low[off])
            low[off] = np.round(k[off] * width, decimals)
            high[off] = np.round((k[off] + 1) * width, decimals)
    codes, first = runs(low)
    decimal = _decimal(numbers)
    return codes, _half_open(_bounds_text(low[first], decimal), _bounds_text(high[first], decimal))


def _cut_levels(cuts: Any) -> list[np.ndarray]:
    nested = isinstance(cuts, _LISTS) and any(isinstance(c, _LISTS) for c in cuts)
    levels: list[np.ndarray] = []
    for j, level in enumerate(list(cuts) if nested else [cuts], start=1):
        points = list(level) if isinstance(level, _LISTS) else [level]
        if (
            not points
            or not all(_is_number(p) for p in points)
            or any(b <= a for a, b in zip(points, points[1:]))
        ):
            raise InvalidParameterError(
                f"cuts level {j} must be increasing finite numbers (cuts=[18, 30, 65], or one "
                f"list per level: cuts=[[18, 30, 50, 65], [30, 65]]), got {level!r}"
            )
        if levels and not set(points) < set(levels[-1].tolist()):
            extra = sorted(set(points) - set(levels[-1].tolist()))
            why = (
                f"{extra!r} {'is' if len(extra) == 1 else 'are'} not among level {j - 1}'s "
                f"cut points"
                if extra
                else "it drops no cut point"
            )
            raise InvalidParameterError(
                f"cuts level {j} {points!r} is not coarser than level {j - 1} "
                f"{levels[-1].tolist()!r}: {why}; each level must keep only some of the "
                f"previous level's cut points"
            )
        levels.append(np.array(points))
    return levels


def _cut_level(numbers: np.ndarray, cuts: np.ndarray) -> Level:
    text = _bounds_text(cuts, _decimal(numbers))
    labels = np.concatenate([[f"< {text[0]}"], _half_open(text[:-1], text[1:]), [f">= {text[-1]}"]])
    slots = np.searchsorted(cuts, numbers, side="right")
    codes, first = runs(slots)
    return codes, labels[slots[first]]


def _group_level(numbers: np.ndarray, size: int) -> Level:
    starts = np.arange(0, len(numbers), size)
    ends = np.minimum(starts + size, len(numbers)) - 1
    return np.arange(len(numbers)) // size, _closed(fmt(numbers[starts]), fmt(numbers[ends]))


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
