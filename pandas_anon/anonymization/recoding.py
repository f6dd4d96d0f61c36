"""Replace a column's values by their labels at a hierarchy level, on all or some rows.

The mapping is decided once per distinct value (a few thousand), then applied to the rows
by integer codes. When only some rows are recoded (local recoding), original values and
labels share the column, and a label equal to an original value (the province "AOSTA" and
the municipality "AOSTA") is the same value, as it is to anyone reading the output.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pandas_anon.engine.columns import resolve_columns
from pandas_anon.engine.encoding import factorize
from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.hierarchy import Hierarchy

#: What a generalization spec maps a column to: a hierarchy (object, registered name, or a
#: builder called with the column) at level 1, or a ``(hierarchy, level)`` pair.
HierarchyLike = Hierarchy | str | Callable[[pd.Series], Hierarchy]
SpecValue = HierarchyLike | tuple[HierarchyLike, int]


@dataclass(frozen=True)
class Recoded:
    """A recoded column as codes into ``values`` (-1: missing) and the rows it changed."""

    codes: np.ndarray
    values: pd.Index
    changed: np.ndarray

    def to_series(self, index: pd.Index, name: Hashable) -> pd.Series:
        missing = bool((self.codes < 0).any())  # -1 is missing, never "the last value"
        data = self.values.array.take(self.codes, allow_fill=missing)
        return pd.Series(data, index=index, name=name)


def output_copy(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy to write recoded columns into without ever touching ``frame``: shallow under
    copy-on-write (pandas 3, or the option on in pandas 2), deep otherwise."""
    cow = (
        int(pd.__version__.split(".")[0]) >= 3 or pd.get_option("mode.copy_on_write") is True
    )  # "warn" is not copy-on-write
    return frame.copy(deep=not cow)


def recode(
    series: pd.Series, hierarchy: Hierarchy, level: int, selected: np.ndarray | None = None
) -> Recoded:
    """Codes of ``series`` after replacing the ``selected`` rows (all when None) by their
    label at ``level``; missing values stay missing."""
    row_codes, uniques = factorize(series)
    return recode_codes(
        row_codes, pd.Index(uniques), hierarchy, level, selected, column=series.name
    )


def _union(uniques: pd.Index, labels: pd.Index) -> pd.Index:
    """``uniques`` then ``labels``, each value kept exactly: ``Index.append`` infers a dtype
    again for object values, and ``2**63 + 1`` among them became a float."""
    if uniques.dtype == object or labels.dtype == object:
        return pd.Index(
            np.concatenate([uniques.to_numpy(dtype=object), labels.to_numpy(dtype=object)]),
            dtype=object,
        )
    return uniques.append(labels)


def recode_codes(
    row_codes: np.ndarray,
    uniques: pd.Index,
    hierarchy: Hierarchy,
    level: int,
    selected: np.ndarray | None = None,
    *,
    column: Hashable = None,
) -> Recoded:
    """:func:`recode` for a column already factorized (codes into ``uniques``, -1 missing)."""
    counts = np.bincount(row_codes[row_codes >= 0], minlength=len(uniques))
    where = hierarchy.positions(uniques, column=column, counts=counts)
    labels = hierarchy.labels(level).take(hierarchy.codes(level)[where])
    union_codes, values = pd.factorize(_union(uniques, labels), sort=False)
    original, generalized = union_codes[: len(uniques)], union_codes[len(uniques) :]
    if selected is None:
        selected = np.ones(len(row_codes), dtype=bool)
    present = row_codes >= 0
    safe = np.where(present, row_codes, 0)
    codes = np.where(selected, generalized[safe], original[safe])
    codes = np.where(present, codes, -1)
    changed = selected & present & (generalized != original)[safe]
    return Recoded(codes.astype(np.int64), pd.Index(values), changed)


def resolve_spec(
    frame: pd.DataFrame, spec: Mapping[Hashable, SpecValue]
) -> dict[Hashable, tuple[Hierarchy, int]]:
    """Check a spec and turn every entry into ``(Hierarchy, level)``."""
    if not isinstance(spec, Mapping) or not spec:
        raise InvalidParameterError(
            "spec must map column names to a hierarchy and level, e.g. "
            "{'comune_residenza': ('it.comune', 1)}"
        )
    columns = resolve_columns(frame, list(spec))
    return {column: _resolve_entry(frame[column], spec[column]) for column in columns}


def _resolve_entry(series: pd.Series, entry: SpecValue) -> tuple[Hierarchy, int]:
    if isinstance(entry, tuple):
        if len(entry) != 2:
            raise InvalidParameterError(
                f"spec for column {series.name!r} must be a hierarchy or (hierarchy, level), "
                f"got a tuple of {len(entry)}"
            )
        source, level = entry
    else:
        source, level = entry, 1
    hierarchy = hierarchy_for(series, source)
    hierarchy.labels(level)  # raises HierarchyError naming the valid levels
    return hierarchy, level


def hierarchy_for(series: pd.Series, source: HierarchyLike) -> Hierarchy:
    """A Hierarchy from an object, a registered name or a builder given the column."""
    if isinstance(source, Hierarchy):
        return source
    if isinstance(source, str):
        from pandas_anon.plugins.registry import get_hierarchy  # plugins load on first use only

        return get_hierarchy(source, series)
    if callable(source):
        built = source(series)
        if not isinstance(built, Hierarchy):
            raise HierarchyError(
                f"the builder given for column {series.name!r} returned "
                f"{type(built).__name__}, not a Hierarchy"
            )
        return built
    raise InvalidParameterError(
        f"column {series.name!r}: expected a Hierarchy, a registered hierarchy name or a "
        f"builder, got {type(source).__name__}"
    )
