"""Builders for codes and categories: masking codes from the right, and plain suppression."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pandas_anon.errors import AnonWarning, HierarchyError, InvalidParameterError, warn
from pandas_anon.hierarchy._levels import (
    Data,
    as_numbers,
    build,
    column,
    distinct,
    factorized,
    fmt,
    is_numeric,
    where,
)
from pandas_anon.hierarchy.model import Hierarchy

__all__ = ["masking", "suppression"]


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
    series = column(data, "masking")
    values, _ = distinct(series, "masking")
    text = _code_text(values, series)
    lengths = np.char.str_len(text)
    longest = int(lengths.max())
    if levels is None:
        levels = longest
    if (
        isinstance(levels, bool)
        or not isinstance(levels, (int, np.integer))
        or not (1 <= levels <= longest)
    ):
        raise InvalidParameterError(
            f"levels must be a whole number from 1 to {longest} (the longest value of "
            f"{where(series)} has {longest} characters), got {levels!r}"
        )
    masked = []
    for j in range(1, int(levels) + 1):
        level = np.empty(len(text), dtype=object)
        for size in np.unique(lengths):  # a loop over lengths, not rows
            here = lengths == size
            keep, hidden = max(int(size) - j, 0), char * min(j, int(size))
            level[here] = np.char.add(text[here].astype(f"U{keep}"), hidden) if keep else hidden
        masked.append(factorized(level))
    return build(values, masked, [f"mask {j}" for j in range(1, int(levels) + 1)], name, series)


def suppression(data: Data, *, name: str | None = None) -> Hierarchy:
    """Every value generalizes straight to ``*`` (suppression only). Any hashable values.

    Pastore et al.'s generalization of sex to any gender (``S``; Pastore, Pellegrino and
    Scarano 2020, "Detecting and Generalizing Quasi-Identifiers by Affecting Singletons",
    section 3.2), which "plays the same role as cell suppression".
    """
    series = column(data, "suppression")
    values, _ = distinct(series, "suppression")
    return build(values, [], [], name, series)


def _code_text(values: pd.Index, series: pd.Series) -> np.ndarray:
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype):
        instead = "dates()" if pd.api.types.is_datetime64_any_dtype(dtype) else "suppression()"
        raise HierarchyError(
            f"masking() masks codes written as text, but {where(series)} holds {dtype} values; "
            f"use {instead} instead"
        )
    if not is_numeric(dtype):
        return np.asarray(values.astype(str), dtype=str)
    numbers = as_numbers(values, series, "masking")
    if numbers.dtype.kind == "f" and not (numbers == np.floor(numbers)).all():
        raise HierarchyError(
            f"masking() masks codes, but {where(series)} holds fractional numbers; use "
            f"intervals() for measurements, or read the column as text (dtype=str)"
        )
    text = fmt(numbers)
    digits = np.char.str_len(text)
    if digits.min() != digits.max():
        warn(
            f"masking(): {where(series)} is numeric and its values have {digits.min()} to "
            f"{digits.max()} digits; leading zeros were probably lost when it was read (CAP "
            f"00118 becomes 118): read code columns as text (dtype=str)",
            AnonWarning,
        )
    return text
