"""Weights: an aggregated table measured on the people it counts equals its exploded form.

Every figure read from a weighted frequency set (singletons, class sizes, risk, the
election, the gate's rule) is checked against the same table exploded to one row per person
and measured with plain pandas (``verify.naive_counts``) or the row-level functions, on
random count tables of the dtypes pandas users have.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.detect.exposure import direct_identifiers, scan
from pandas_anon.engine.weights import melt_counts, read_weights
from pandas_anon.errors import (
    AnonError,
    ColumnNotFoundError,
    InvalidParameterError,
    InvalidQIDError,
)

from verify import naive_counts


def exploded(frame: pd.DataFrame, count: str) -> pd.DataFrame:
    """One row per person: each row repeated as many times as its count (missing: 0)."""
    times = frame[count].fillna(0).astype(int).to_numpy()
    return frame.loc[frame.index.repeat(times)].drop(columns=count).reset_index(drop=True)


DIMENSIONS = {
    "area": st.sampled_from(["north", "south", "east", None]),
    "age": st.sampled_from([10, 20, 30]),
    "band": st.sampled_from(["a", "b"]),
}


@st.composite
def count_tables(draw) -> pd.DataFrame:
    """A count table: dimension columns (object with missing values, int, pyarrow string or
    categorical), a count from 0 to 4 or missing, at least one person."""
    n = draw(st.integers(1, 25))
    frame = pd.DataFrame(
        {name: draw(st.lists(s, min_size=n, max_size=n)) for name, s in DIMENSIONS.items()}
    )
    if frame["area"].isna().all():  # a column of no value at all is refused alike
        frame.loc[0, "area"] = "north"
    kind = draw(st.sampled_from(["plain", "arrow", "category"]))
    if kind == "arrow":
        frame["band"] = frame["band"].astype("string[pyarrow]")
    elif kind == "category":
        frame["band"] = frame["band"].astype("category")
    counts = draw(st.lists(st.one_of(st.integers(0, 4), st.none()), min_size=n, max_size=n))
    if not any(counts):
        counts[0] = 1
    frame["n"] = pd.array(counts, dtype="Int64")
    return frame


def outcome(call) -> tuple[object, list[type]]:
    """What ``call`` returns, or the error it raises, and the warnings it issues."""
    with warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        try:
            result: object = call()
        except AnonError as error:
            result = error
    return result, [w.category for w in issued]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    count_tables(),
    st.sampled_from([["area"], ["area", "age"], ["area", "age", "band"]]),
    st.booleans(),
)
def test_weighted_figures_are_the_exploded_tables(frame, qid, dropna):
    people = exploded(frame, "n")
    plain, plain_warnings = outcome(lambda: pandas_anon.singletons(people, qid, dropna=dropna))
    weighted, warned = outcome(
        lambda: pandas_anon.singletons(frame, qid, dropna=dropna, weights="n")
    )
    assert warned == plain_warnings  # most people incomplete: warned alike
    if not isinstance(plain, pandas_anon.Singletons):  # nobody left, no value: refused alike
        assert type(weighted) is type(plain)
        return
    expected = naive_counts(people, qid, dropna=dropna)
    assert (weighted.examined, weighted.dropped, weighted.count, weighted.distinct) == (
        expected["examined"],
        expected["dropped"],
        expected["singletons"],
        expected["distinct"],
    )
    assert sorted(weighted.class_sizes) == sorted(plain.class_sizes)
    risk, _ = outcome(lambda: pandas_anon.risk(frame, qid, dropna=dropna, weights="n"))
    plain_risk, _ = outcome(lambda: pandas_anon.risk(people, qid, dropna=dropna))
    assert risk.to_dict() == plain_risk.to_dict()
    assert risk.contributions.equals(plain_risk.contributions)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count_tables(), st.sampled_from([2, 3]))
def test_the_election_and_the_gate_rule_on_people(frame, k):
    people = exploded(frame, "n")
    columns = list(DIMENSIONS)
    plain, _ = outcome(lambda: pandas_anon.best_qid(people, columns, max_size=2, dropna=False, k=k))
    weighted, _ = outcome(
        lambda: pandas_anon.best_qid(frame, columns, max_size=2, dropna=False, k=k, weights="n")
    )
    if not isinstance(plain, pandas_anon.BestQID):  # every column an identifier, no value...
        assert type(weighted) is type(plain)
        return
    assert (weighted.columns, weighted.at_risk, weighted.singletons, weighted.examined) == (
        plain.columns,
        plain.at_risk,
        plain.singletons,
        plain.examined,
    )
    assert weighted.table.equals(plain.table)
    found, expected = scan(frame, k=k, weights="n"), scan(people[columns], k=k)
    assert found.qid == expected.qid
    assert found.identifiers == expected.identifiers


def test_a_weighted_singleton_marks_its_cell():
    frame = pd.DataFrame(
        {"area": ["n", "n", "s", "s"], "sex": ["m", "f", "m", "f"], "n": [1, 3, 0, 1]}
    )
    found = pandas_anon.singletons(frame, ["area", "sex"], weights="n")
    assert found.count == 2 and found.examined == 5 and found.distinct == 3
    assert found.mask.tolist() == [True, False, False, True]  # the cell of 0 holds nobody
    assert frame.anon.singletons(["area", "sex"], weights="n").count == 2  # the accessor


def test_weights_as_an_array_and_the_count_column_left_out():
    frame = pd.DataFrame({"area": ["n", "s", "s"], "n": [2, 1, 1]})
    by_array = pandas_anon.singletons(frame, "area", weights=np.array([2, 1, 1]))
    assert (by_array.count, by_array.examined) == (0, 4)
    assert pandas_anon.best_qid(frame, weights="n").candidates == ("area",)
    with pytest.raises(InvalidQIDError, match="count column 'n'"):
        pandas_anon.singletons(frame, ["area", "n"], weights="n")


def test_a_direct_identifier_among_people():
    """A column on which every person is alone identifies them, counted in people: a record
    number holding one person per cell is one; a date holding many people per cell is not."""
    frame = pd.DataFrame(
        {"record": [f"r{i}" for i in range(20)], "day": ["d1"] * 10 + ["d2"] * 10, "n": [1] * 20}
    )
    assert [f.column for f in direct_identifiers(frame, ["record", "day"], weights="n")] == [
        "record"
    ]
    grouped = frame.assign(n=5)  # five people per record: nobody alone
    assert direct_identifiers(grouped, ["record", "day"], weights="n") == ()


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([1, 2.5, 3], "count column 'n': 1 cell is not a whole number"),
        ([1, -2, -3], "count column 'n': 2 cells are negative (the first at row position 1)"),
        (["1", "x", "3"], "count column 'n': 1 cell is not a number (at row position 1)"),
        ([True, False, True], "true/false"),
        ([1, np.inf, 3], "not a whole number"),
    ],
)
def test_counts_that_count_nobody_are_refused(counts, message):
    frame = pd.DataFrame(
        {
            "area": ["n", "s", "e"],
            "n": pd.Series(counts, dtype=object if isinstance(counts[1], str) else None),
        }
    )
    with pytest.raises(InvalidParameterError) as error:
        pandas_anon.singletons(frame, "area", weights="n")
    assert message in str(error.value)


def test_text_and_categorical_counts_are_read_as_numbers():
    frame = pd.DataFrame({"area": ["n", "s", "e"], "n": ["2", None, "1"]})
    assert read_weights(frame, "n").tolist() == [2, 0, 1]
    assert read_weights(frame.astype({"n": "category"}), "n").tolist() == [2, 0, 1]
    with pytest.raises(ColumnNotFoundError):
        read_weights(frame, "count")
    with pytest.raises(InvalidParameterError, match="one count per row"):
        read_weights(frame, [1, 2])


def test_no_person_at_all():
    frame = pd.DataFrame({"area": ["n", "s"], "n": [0, None]})
    with pytest.raises(pandas_anon.EmptyDataError, match="counts nobody"):
        pandas_anon.singletons(frame, "area", weights="n")


def test_melt_counts_long_form():
    wide = pd.DataFrame({"area": ["n", "s"], "m": [4, 0], "f": [1, None]})
    long = melt_counts(wide, ["m", "f"], dimension="sex", count="n")
    assert long["sex"].tolist() == ["m", "m", "f", "f"]
    assert long["n"].tolist()[:3] == [4, 0, 1] and pd.isna(long["n"].iloc[3])
    assert list(wide.columns) == ["area", "m", "f"]  # the caller's frame is left alone
    with pytest.raises(InvalidParameterError, match="already has one by that name"):
        melt_counts(wide, ["m", "f"], dimension="area")
