"""What the Dask tests share: frames partitioned every way, random frames of every dtype,
and what a call returns or raises."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import dask.dataframe as dd
import numpy as np
import pandas as pd
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.errors import AnonWarning

PARTITIONINGS = ("one", "seven", "uneven", "empty", "categories")
KINDS = ("Int64", "str", "category", "pyarrow_str", "float", "datetime")


def partitioned(frame: pd.DataFrame, how: str) -> dd.DataFrame:
    """``frame`` as a Dask frame, partitioned ``how``: in one partition, in seven, in
    partitions of very different sizes, with empty partitions among them, or each
    partition's categoricals holding only the categories it uses."""
    if how == "one":
        return dd.from_pandas(frame, npartitions=1, sort=False)
    if how == "seven":
        return dd.from_pandas(frame, npartitions=7, sort=False)
    n = len(frame)
    cuts = {
        "uneven": [0, 1, max(1, n // 10), n],
        "empty": [0, 0, n // 3, n // 3, n, n],
        "categories": [0, n // 2, n],
    }[how]
    pieces = []
    for start, stop in zip(cuts, cuts[1:]):
        piece = frame.iloc[start:stop].copy()
        if how == "categories":
            for column in piece.columns:
                if isinstance(piece[column].dtype, pd.CategoricalDtype):
                    piece[column] = piece[column].cat.remove_unused_categories()
        pieces.append(dd.from_pandas(piece, npartitions=1, sort=False))
    return dd.concat(pieces)


def make_column(kind: str, picks: list[int], holes: list[bool]) -> pd.Series:
    """A column of ``kind`` whose row i holds value number ``picks[i]`` (or is missing)."""
    values, missing = np.array(picks), np.array(holes)
    if kind == "Int64":
        return pd.Series(pd.array(values, dtype="Int64")).mask(missing)
    if kind == "float":
        return pd.Series(np.where(missing, np.nan, values / 3.0))
    if kind == "datetime":
        stamps = pd.Series(pd.Timestamp("2020-01-01") + pd.to_timedelta(values, unit="D"))
        return stamps.mask(missing)
    text = pd.Series([f"v{v}" for v in values]).mask(missing)
    return text.astype(
        {"str": "str", "category": "category", "pyarrow_str": "string[pyarrow]"}[kind]
    )


@st.composite
def frames(draw) -> pd.DataFrame:
    """1 to 60 rows of 1 to 4 columns of the kinds pandas users have, values repeating
    (pools of 1 to 6), some missing; never a column missing everywhere."""
    n_rows = draw(st.integers(1, 60))
    columns = {}
    for j in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(KINDS))
        pool = draw(st.integers(1, 6))
        picks = draw(st.lists(st.integers(0, pool - 1), min_size=n_rows, max_size=n_rows))
        holes = draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))
        holes[0] = False
        columns[f"{kind}_{j}"] = make_column(kind, picks, holes)
    return pd.DataFrame(columns)


def outcome(call: Callable[[object], object], frame: object) -> tuple[object, list[str]]:
    """What ``call(frame)`` returns or raises (one of our errors), and our warnings it
    issues."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: object = call(frame)
        except pandas_anon.AnonError as error:
            result = error
    return result, [str(w.message) for w in caught if issubclass(w.category, AnonWarning)]


def written_apart() -> pd.DataFrame:
    """Twelve rows whose values pandas compares equal though they are written apart: a float
    column holding 0.0 and -0.0 (each zero alone in a partition of three rows, then
    together), an object column mixing 1, True and 1.0, and an object column of twelve
    values written apart, eight of which pandas takes for four."""
    return pd.DataFrame(
        {
            "x": [0.0, 0.0, 1.5, -0.0, -0.0, 1.5, 0.0, -0.0, 2.5, 0.0, -0.0, 1.5],
            "m": pd.Series([1, 1, 2, True, True, 2, 1.0, 1, 2, True, 1.0, 1], dtype=object),
            "id": pd.Series([1, True, 2, 2.0, 0, False, 0.0, -0.0, 3, "a", "b", 4.5], dtype=object),
        }
    )


def objects_kept(frame: pd.DataFrame, npartitions: int) -> dd.DataFrame:
    """``frame`` as a Dask frame of ``npartitions``, its object columns kept as objects (not
    converted to text, as Dask converts them by default)."""
    import dask

    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(frame, npartitions=npartitions, sort=False)
