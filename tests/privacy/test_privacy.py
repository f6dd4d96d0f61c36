"""Measured privacy levels agree with plain groupby."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pandas_anon import InvalidQIDError
from pandas_anon.datasets import load_adult
from pandas_anon.privacy.measures import k_anonymity, l_diversity


@pytest.mark.parametrize(
    "qid", [["sex", "race"], ["age", "sex"], ["education", "workclass", "sex"]]
)
def test_adult_levels(qid):
    adult = load_adult()
    assert k_anonymity(adult, qid) == adult.groupby(qid).size().min()
    expected = adult.groupby(qid)["occupation"].nunique().min()
    assert l_diversity(adult, qid, "occupation") == expected


def test_sensitive_inside_the_qid_is_refused():
    with pytest.raises(InvalidQIDError, match="'sex' is inside the quasi-identifier"):
        l_diversity(load_adult(), ["sex", "race"], "sex")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from("ab"), st.integers(0, 4)),
        min_size=1,
        max_size=50,
    )
)
def test_levels_equal_groupby_on_random_frames(rows):
    frame = pd.DataFrame(rows, columns=["x", "y", "s"])
    assert k_anonymity(frame, ["x", "y"]) == frame.groupby(["x", "y"]).size().min()
    assert l_diversity(frame, ["x", "y"], "s") == frame.groupby(["x", "y"])["s"].nunique().min()
