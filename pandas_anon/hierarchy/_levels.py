"""The builders' shared steps: one column in, its distinct values, levels on them, a Hierarchy out.

Every builder runs the same pipeline: :func:`column` takes the data as one Series,
:func:`distinct` factorizes it once into its distinct non-missing values (sorted when they
can be ordered) and their row counts, the builder computes its levels on those values with
numpy (:func:`runs` and :func:`factorized` turn per-value keys or labels into a
:data:`Level`, :func:`fmt` writes values as label text), and :func:`build` makes the
:class:`~pandas_anon.hierarchy.Hierarchy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.engine.encoding import factorize
from pandas_anon.errors import HierarchyError
from pandas_anon.hierarchy.model import TOP, Hierarchy

#: What one column can be given as.
Data = pd.Series | pd.Index | np.ndarray | Sequence[Any]
Number = int | float
#: One level as built here: for each level-0 value the position of its label, and the labels.
Level = tuple[np.ndarray, Any]


def column(data: Data, builder: str) -> pd.Series:
    if isinstance(data, pd.DataFrame):
        raise HierarchyError(
            f"{builder}() builds the hierarchy of one column; give a Series (df['column']), "
            f"not a DataFrame"
        )
    if isinstance(data, pd.Series):
        return data
    return pd.Series(data, name=getattr(data, "name", None))


def series_name(series: pd.Series) -> str | None:
    return None if series.name is None else str(series.name)


def where(series: pd.Series) -> str:
    return f"column {series.name!r}" if series.name is not None else "the data"


def distinct(
    series: pd.Series, builder: str, *, need_order: bool = False
) -> tuple[pd.Index, np.ndarray]:
    """The distinct non-missing values (sorted when orderable) and their row counts; a column
    holding lists, dicts or sets raises :class:`~pandas_anon.errors.UnhashableValueError`."""
    codes, uniques = factorize(series)
    if len(uniques) == 0:
        rows = f"{len(series):,} rows, all missing" if len(series) else "no rows"
        raise HierarchyError(
            f"{builder}(): {where(series)} has no value ({rows}); a hierarchy describes "
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
                f"{builder}() sorts the values, but those of {where(series)} cannot be "
                f"compared with each other (mixed types); convert the column to one type"
            ) from exc
        return values, counts
    return values.take(order), counts[order]


def build(
    values: pd.Index, levels: list[Level], names: list[str], name: str | None, series: pd.Series
) -> Hierarchy:
    """The Hierarchy, named after the column, each level named after what it is."""
    base = series_name(series)
    level_names = [base if base is not None and base not in names and base != TOP else "value"]
    level_names += names
    if not levels or len(levels[-1][1]) > 1:  # the model adds "*" on top
        level_names.append(TOP)
    full = [pd.Index(labels).take(codes) for codes, labels in levels]
    return Hierarchy(values, full, name=name if name is not None else base, level_names=level_names)


def runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``keys`` (one per level-0 value) and the first position of each code.

    Keys computed from sorted values are sorted: equal keys are runs, found in one pass."""
    step = keys[1:] != keys[:-1]
    if len(keys) > 1 and (keys[1:] < keys[:-1]).any():  # unsortable values kept their order
        _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
        return codes.ravel(), first
    first = np.flatnonzero(np.concatenate([[True], step]))
    return np.cumsum(np.concatenate([[0], step])), first


def factorized(labels: np.ndarray) -> Level:
    codes, uniques = factorize(labels)
    return codes, np.asarray(uniques, dtype=str)


def is_numeric(dtype: Any) -> bool:
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def as_numbers(values: pd.Index, series: pd.Series, builder: str) -> np.ndarray:
    """The distinct values as int64 or float64, or a HierarchyError saying why not."""
    if not is_numeric(values.dtype):
        raise HierarchyError(
            f"{builder}() needs numbers, but {where(series)} holds {values.dtype} values; "
            f"convert it with pd.to_numeric() first, or use masking() or suppression() for codes"
        )
    if pd.api.types.is_integer_dtype(values.dtype):  # uint64 kept: above 2**63 it would wrap
        return values.to_numpy(dtype=_integer_dtype(values.dtype))
    numbers = values.to_numpy(dtype=np.float64)
    if not np.isfinite(numbers).all():
        raise HierarchyError(
            f"{builder}(): {where(series)} holds infinite values; replace them (with NaN or a "
            f"bound) first"
        )
    return numbers


def _integer_dtype(dtype: Any) -> type:
    """The numpy integer type that holds every value of an integer ``dtype`` exactly."""
    return np.uint64 if pd.api.types.is_unsigned_integer_dtype(dtype) else np.int64


def fmt(values: Any) -> np.ndarray:
    """Text of each value: whole floats as integers, dates as ISO dates (with the time if any)."""
    if isinstance(values, pd.Index) and is_numeric(values.dtype):
        integer = pd.api.types.is_integer_dtype(values.dtype)
        values = values.to_numpy(dtype=_integer_dtype(values.dtype) if integer else np.float64)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.astype(str)
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        whole = (values == np.floor(values)) & (np.abs(values) < 2.0**53)
        return np.where(
            whole, np.where(whole, values, 0).astype(np.int64).astype(str), values.astype(str)
        )
    if isinstance(values, pd.Index) and pd.api.types.is_datetime64_any_dtype(values.dtype):
        stamps = pd.DatetimeIndex(values)
        timed = (stamps != stamps.normalize()).any()
        return np.asarray(stamps.strftime("%Y-%m-%d %H:%M:%S" if timed else "%Y-%m-%d"), dtype=str)
    return np.asarray(pd.Index(values).astype(str), dtype=str)
