"""pandas-anon-example: a pandas-anon plugin registering two hierarchies, as a model.

- ``example.sex``: ``M``, ``F`` -> ``*``, a ready :class:`~pandas_anon.hierarchy.Hierarchy`;
- ``example.age``: age -> decade -> ``*``, a factory: built from the column's own ages when
  pandas-anon has a column, ages 0-120 without one (the canonical hierarchy).

The claims (``age_years``, ``eta_anni``, ``sex_mf``, ``sesso_mf``) are specific on purpose:
installed, the plugin gives a hierarchy by default only to columns of those names.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

import pandas_anon
from pandas_anon.errors import HierarchyError
from pandas_anon.hierarchy import Hierarchy

__version__ = "0.1.0"
__all__ = ["SEX", "age_bands", "register_hierarchies"]

#: M, F -> *.
SEX = Hierarchy(["M", "F"], name="example.sex")


def age_bands(data: pd.Series | None) -> Hierarchy:
    """Ages -> decades (``30-39``) -> ``*``: the column's own ages, or 0-120 without data.

    Parameters
    ----------
    data : Series or None
        The column the hierarchy is for; ``None`` for the canonical hierarchy.

    Returns
    -------
    Hierarchy
        Level 0 the column's distinct ages, as they are written in it.

    Raises
    ------
    HierarchyError
        Some values are not ages (not numbers, or negative); ``unmatched`` counts them.

    Examples
    --------
    >>> age_bands(pd.Series([34, 38, 51])).to_frame()
       level_0 level_1 level_2
    0       34   30-39       *
    1       38   30-39       *
    2       51   50-59       *
    """
    ages = pd.Series(range(121) if data is None else data.dropna().unique())
    years = pd.to_numeric(ages, errors="coerce")
    bad = int((years.isna() | (years < 0)).sum())
    if bad:
        raise HierarchyError(
            f"example.age: {bad} distinct values of column {getattr(data, 'name', None)!r} are "
            f"not ages (numbers from 0); clean the column",
            unmatched=bad,
        )
    decades = (years // 10 * 10).astype(int)
    return Hierarchy(ages, [decades.astype(str) + "-" + (decades + 9).astype(str)])


@pandas_anon.hookimpl
def register_hierarchies(register: Callable[..., None]) -> None:
    """Register ``example.sex`` (a hierarchy) and ``example.age`` (a factory)."""
    register("example.sex", SEX, description="M, F -> *", columns=["sex_mf", "sesso_mf"])
    register(
        "example.age",
        age_bands,
        description="age -> decade -> *",
        columns=["age_years", "eta_anni"],
    )
