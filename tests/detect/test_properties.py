"""Property tests: on random frames of mixed dtypes the engine agrees with plain groupby."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pandas_anon

from verify import naive_counts, naive_election, naive_singleton_mask

# random frames often have more holes than values; the warning about it is not under test
pytestmark = pytest.mark.filterwarnings("ignore::pandas_anon.IncompleteRowsWarning")

KINDS = [
    "int",
    "int_small",
    "float",
    "float_whole",
    "str",
    "category",
    "Int64",
    "pyarrow_str",
    "datetime",
    "bool",
    "object",
]


def make_column(kind: str, picks: list[int], holes: list[bool]) -> pd.Series:
    """A column of ``kind`` whose row i holds value number ``picks[i]`` (or is missing)."""
    values = np.array(picks)
    missing = np.array(holes)
    if kind == "int":
        return pd.Series(values * 1_000_003 - 5)  # int64 cannot hold NaN: no holes
    if kind == "int_small":  # coded by subtraction rather than hashing
        return pd.Series(values - 3, dtype="int16")
    if kind == "float":
        return pd.Series(np.where(missing, np.nan, values / 3.0))
    if kind == "float_whole":  # years read with a missing value become floats
        return pd.Series(np.where(missing, np.nan, values + 1950.0))
    if kind == "Int64":
        return pd.Series(pd.array(values, dtype="Int64")).mask(missing)
    if kind == "datetime":
        stamps = pd.Series(pd.Timestamp("2020-01-01") + pd.to_timedelta(values, unit="D"))
        return stamps.mask(missing)
    if kind == "bool":
        return pd.Series(values % 2 == 0)
    text = pd.Series([f"v{v}" for v in values]).mask(missing)
    if kind == "str":
        return text.astype("str")
    if kind == "category":
        return text.astype("category")
    if kind == "pyarrow_str":
        return text.astype("string[pyarrow]")
    return pd.Series(
        [None if m else (v if v % 2 else f"s{v}") for v, m in zip(values, missing)], dtype=object
    )  # mixed ints and strings


@st.composite
def frames(draw, max_columns: int = 4) -> pd.DataFrame:
    n_rows = draw(st.integers(min_value=1, max_value=40))
    n_columns = draw(st.integers(min_value=1, max_value=max_columns))
    columns = {}
    for j in range(n_columns):
        kind = draw(st.sampled_from(KINDS))
        pool = draw(st.integers(min_value=1, max_value=6))
        picks = draw(st.lists(st.integers(0, pool - 1), min_size=n_rows, max_size=n_rows))
        holes = draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))
        if draw(st.booleans()):
            holes = [False] * n_rows
        holes[0] = False  # an all-missing column is an error of its own (test_errors.py)
        columns[f"{kind}_{j}"] = make_column(kind, picks, holes)
    return pd.DataFrame(columns)


fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(frame=frames(), dropna=st.booleans())
def test_singleton_counts_equal_groupby(frame, dropna):
    qid = list(frame.columns)
    expected = naive_counts(frame, qid, dropna=dropna)
    if expected["examined"] == 0:
        with pytest.raises(pandas_anon.AnonError):
            frame.anon.singletons(qid, dropna=dropna)
        return
    before = frame.copy(deep=True)
    result = frame.anon.singletons(qid, dropna=dropna)
    assert (result.count, result.distinct) == (expected["singletons"], expected["distinct"])
    assert (result.examined, result.dropped) == (expected["examined"], expected["dropped"])
    assert (result.mask == naive_singleton_mask(frame, qid, dropna=dropna)).all()
    pd.testing.assert_frame_equal(frame, before)


@fast
@given(frame=frames(), dropna=st.booleans())
def test_frequency_set_counts_equal_groupby(frame, dropna):
    qid = list(frame.columns)
    if naive_counts(frame, qid, dropna=dropna)["examined"] == 0:
        return
    table = pandas_anon.EncodedFrame(frame, qid, dropna=dropna).frequency_set().to_frame()
    part = frame[qid].dropna() if dropna else frame[qid]
    sizes = part.groupby(qid, dropna=False, sort=False, observed=True).size()
    assert sorted(table["count"]) == sorted(sizes)


@fast
@given(frame=frames(max_columns=5), max_size=st.integers(1, 3))
def test_best_qid_equals_brute_force(frame, max_size):
    columns = list(frame.columns)
    part = frame.dropna()
    if len(part) == 0:
        return
    try:
        expected = naive_election(frame, columns, max_size)
    except ValueError:  # every subset is an identifier (e.g. a single row)
        with pytest.raises(pandas_anon.InvalidQIDError):
            frame.anon.best_qid(max_size=max_size)
        return
    winner, top, ties, identifiers, table = expected
    result = frame.anon.best_qid(max_size=max_size, exhaustive=True)
    assert (result.columns, result.singletons) == (winner, top)
    assert list(result.ties) == ties
    assert list(result.identifiers) == identifiers
    electable = result.table[result.table["status"] != "identifier"]
    assert {row.columns: (row.singletons, row.distinct) for row in electable.itertuples()} == table
    # without exhaustive the search may stop early, but never changes the answer
    quick = frame.anon.best_qid(max_size=max_size)
    assert (quick.columns, quick.singletons, quick.ties) == (result.columns, top, result.ties)


@fast
@given(frame=frames(max_columns=4), max_size=st.integers(1, 3))
def test_identifiers_are_the_minimal_all_distinct_sets(frame, max_size):
    import itertools

    columns = list(frame.columns)
    distinct = {
        subset
        for size in range(1, max_size + 1)
        for subset in itertools.combinations(columns, size)
        if not frame.duplicated(list(subset)).any()
    }
    minimal = {s for s in distinct if not any(set(o) < set(s) for o in distinct)}
    assert set(frame.anon.identifiers(max_size=max_size)) == minimal
