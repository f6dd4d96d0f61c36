"""Bad input fails early, with our exception type, a message naming the column and the fix,
and the caller's frame untouched."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon import (
    AllMissingColumnError,
    AnonError,
    ColumnNotFoundError,
    DuplicateColumnsError,
    EmptyDataError,
    InvalidQIDError,
    UnhashableValueError,
)


@pytest.fixture
def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "year": [1950, 1950, 1960, 1970],
            "town": ["Aosta", "Aosta", "Gignod", "Nus"],
            "sex": ["F", "F", "M", None],
        }
    )


CALLS = {
    "singletons": lambda df, qid: df.anon.singletons(qid),
    "risk": lambda df, qid: df.anon.risk(qid),
    "best_qid": lambda df, qid: df.anon.best_qid(qid),
    "identifiers": lambda df, qid: df.anon.identifiers(qid),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_unknown_column_lists_the_available_ones(people, call):
    before = people.copy()
    with pytest.raises(ColumnNotFoundError) as caught:
        call(people, ["year", "birth_town"])
    message = str(caught.value)
    assert "'birth_town'" in message
    assert "available columns: 'year', 'town', 'sex'" in message
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, AnonError)
    pd.testing.assert_frame_equal(people, before)


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_empty_qid(people, call):
    with pytest.raises(InvalidQIDError, match="empty"):
        call(people, [])


def test_repeated_qid_column(people):
    with pytest.raises(InvalidQIDError, match="'year' named more than once"):
        people.anon.singletons(["year", "town", "year"])


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_empty_frame(call):
    empty = pd.DataFrame({"year": pd.Series([], dtype="int64"), "sex": pd.Series([], dtype="str")})
    with pytest.raises(EmptyDataError, match="no rows"):
        call(empty, ["year", "sex"])


def test_duplicate_column_names(people):
    twice = pd.concat([people, people[["town"]]], axis=1)
    before = twice.copy()
    with pytest.raises(DuplicateColumnsError, match="several columns named 'town'.*rename"):
        twice.anon.singletons(["year", "town"])
    with pytest.raises(DuplicateColumnsError, match="'town'"):
        twice.anon.best_qid()
    twice.anon.singletons(["year", "sex"])  # columns that are not duplicated still work
    pd.testing.assert_frame_equal(twice, before)


def test_unhashable_cells_name_the_column_but_not_the_value(people):
    people["visits"] = [["secret-clinic"], ["a"], ["b"], ["c"]]
    with pytest.raises(UnhashableValueError) as caught:
        people.anon.singletons(["year", "visits"])
    message = str(caught.value)
    assert "'visits'" in message and "list" in message and ".map(tuple)" in message
    assert "secret-clinic" not in message
    assert isinstance(caught.value, TypeError)


@pytest.mark.parametrize("dtype", ["float64", "string", "category", "Int64", "object"])
def test_all_missing_column(people, dtype):
    people["empty"] = pd.Series([np.nan] * 4).astype(dtype)
    if dtype == "category":
        people["empty"] = pd.Categorical([None] * 4, categories=["x", "y"])
    with pytest.raises(AllMissingColumnError, match="'empty' holds only missing values"):
        people.anon.singletons(["year", "empty"])
    with pytest.raises(AllMissingColumnError):
        people.anon.singletons(["year", "empty"], dropna=False)
    # left out automatically when the candidates are not given
    assert "empty" not in people.anon.best_qid().candidates


def test_every_row_incomplete_suggests_keeping_missing_values():
    frame = pd.DataFrame({"a": [1, None], "b": [None, "x"]})
    with pytest.raises(EmptyDataError, match="dropna=False"):
        frame.anon.singletons(["a", "b"])
    assert frame.anon.singletons(["a", "b"], dropna=False).count == 2


def test_election_with_only_identifier_columns():
    frame = pd.DataFrame({"id": [1, 2, 3], "code": ["a", "b", "c"]})
    with pytest.raises(InvalidQIDError, match="identifier"):
        frame.anon.best_qid()


def test_function_api_raises_the_same_errors(people):
    with pytest.raises(ColumnNotFoundError):
        pandas_anon.singletons(people, "nope")
    with pytest.raises(InvalidQIDError):
        pandas_anon.best_qid(people, [])


def test_multiindex_labels_are_exact():
    frame = pd.DataFrame({("p", "a"): [1, 1, 2], ("p", "b"): ["x", "y", "y"]})
    with pytest.raises(ColumnNotFoundError, match="'p' not found"):
        frame.anon.singletons("p")  # a level is not a column
    assert frame.anon.singletons(("p", "a")).qid == (("p", "a"),)  # a tuple label
    assert frame.anon.singletons([("p", "a"), ("p", "b")]).count == 3


@pytest.mark.parametrize("size", [0, -1])
def test_max_size_must_be_positive(people, size):
    with pytest.raises(
        pandas_anon.InvalidParameterError, match="max_size must be a whole number of at least 1"
    ):
        people.anon.best_qid(max_size=size)
    with pytest.raises(pandas_anon.InvalidParameterError):
        people.anon.identifiers(max_size=size)


@pytest.mark.parametrize("size", ["3", 2.5, True])
def test_max_size_must_be_a_whole_number_checked_before_any_work(people, size):
    with pytest.raises(pandas_anon.InvalidParameterError, match="whole number"):
        people.anon.best_qid(["year", "nope"], max_size=size)  # before the column check


def test_a_tuple_holding_a_list_is_an_unknown_column(people):
    with pytest.raises(ColumnNotFoundError):
        people.anon.singletons((["sex"],))
