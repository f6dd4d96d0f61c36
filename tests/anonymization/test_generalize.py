"""Generalization: global and local recoding on the seed data, checked by plain pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import AnonError, HierarchyError, InvalidParameterError
from pandas_anon.hierarchy import Hierarchy

from conftest import SEED_QID
from verify import naive_counts


@pytest.fixture
def complete(licences):
    return licences.dropna(subset=SEED_QID)


@pytest.fixture
def places(licences):
    return Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])


def test_global_recoding_of_the_place(complete, places):
    out = complete.anon.generalize({"comune_residenza": (places, 1)})
    expected = complete["provincia_residenza"]
    assert (out["comune_residenza"] == expected).all()
    summary = out.anon.report()
    assert (summary.touched, summary.modified, summary.removed) == (87_464, 64_957, 0)
    assert summary.modified == (complete["comune_residenza"] != expected).sum()
    assert naive_counts(out, SEED_QID) == {
        "examined": 87_464,
        "dropped": 0,
        "singletons": 4,
        "distinct": 167,
    }


def test_local_recoding_of_the_singletons(complete, places):
    out = complete.anon.generalize(
        {"comune_residenza": (places, 1)}, rows="singletons", qid=SEED_QID
    )
    was_single = complete.anon.singletons(SEED_QID).mask
    changed = out["comune_residenza"] != complete["comune_residenza"]
    assert not changed[~was_single].any()
    assert (out.loc[was_single, "comune_residenza"] == "AOSTA").all()
    summary = out.anon.report()
    assert (
        (summary.touched, summary.modified) == (1_684, 1_679) == (was_single.sum(), changed.sum())
    )
    assert summary.selection == "singletons" and summary.qid == SEED_QID
    assert naive_counts(out, SEED_QID)["singletons"] == 4
    assert naive_counts(out, SEED_QID)["distinct"] == 7_501


def test_output_keeps_index_columns_and_other_values(licences, places):
    frame = licences.sample(frac=0.2, random_state=1)
    before = frame.copy(deep=True)
    out = frame.anon.generalize({"comune_residenza": places, "sesso": Hierarchy(["M", "F"])})
    assert out.index.equals(frame.index) and list(out.columns) == list(frame.columns)
    untouched = [c for c in frame.columns if c not in ("comune_residenza", "sesso")]
    pd.testing.assert_frame_equal(out[untouched], frame[untouched])
    assert out["sesso"].dropna().eq("*").all()
    assert out["sesso"].isna().sum() == frame["sesso"].isna().sum()  # missing stays missing
    pd.testing.assert_frame_equal(frame, before)
    assert frame.attrs == {}  # the report travels on the output only


def test_mask_rows_and_builders(complete):
    mask = (complete["anno_nascita"] < 1950).to_numpy()
    decade = lambda s: Hierarchy(s.dropna().unique(), [(s.dropna().unique() // 10 * 10)])  # noqa: E731
    out = complete.anon.generalize({"anno_nascita": decade}, rows=mask)
    assert (out.loc[mask, "anno_nascita"] % 10 == 0).all()
    assert out.loc[~mask, "anno_nascita"].equals(complete.loc[~mask, "anno_nascita"])
    assert out.anon.report().touched == mask.sum()
    same = complete.anon.generalize(
        {"anno_nascita": (decade, 1)}, rows=pd.Series(mask, index=complete.index)
    )
    pd.testing.assert_frame_equal(out, same)


def test_report_travels_through_copies_but_not_without_one(complete, places):
    out = complete.anon.generalize({"comune_residenza": places})
    assert out.copy().anon.report() == out.anon.report()
    assert "rows modified" in repr(out.anon.report())
    with pytest.raises(AnonError, match="carries no pandas-anon report"):
        complete.anon.report()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"spec": {}}, InvalidParameterError, "spec must map"),
        ({"spec": {"nope": "x"}}, pandas_anon.ColumnNotFoundError, "'nope' not found"),
        ({"spec": {"sesso": 5}}, InvalidParameterError, "expected a Hierarchy"),
        ({"spec": {"sesso": (Hierarchy(["M", "F"]), 1, 2)}}, InvalidParameterError, "tuple of 3"),
        ({"spec": {"sesso": (Hierarchy(["M", "F"]), 4)}}, HierarchyError, "levels 0..1"),
        ({"spec": {"sesso": Hierarchy(["M"])}}, HierarchyError, r"'F' \(\d[\d,]* rows\)"),
        (
            {"spec": {"sesso": Hierarchy(["M", "F"])}, "rows": "some"},
            InvalidParameterError,
            "rows must be",
        ),
        (
            {"spec": {"sesso": Hierarchy(["M", "F"])}, "rows": "singletons"},
            InvalidParameterError,
            "needs qid",
        ),
        (
            {"spec": {"sesso": Hierarchy(["M", "F"])}, "rows": [True]},
            InvalidParameterError,
            "True/False values",
        ),
        ({"spec": {"sesso": lambda s: 3}}, HierarchyError, "returned int"),
    ],
)
def test_bad_specs(complete, kwargs, error, match):
    with pytest.raises(error, match=match):
        complete.anon.generalize(**kwargs)


@st.composite
def frames_and_hierarchies(draw):
    n = draw(st.integers(2, 40))
    values = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    other = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    parents = draw(st.lists(st.integers(0, 2), min_size=8, max_size=8))
    frame = pd.DataFrame({"v": values, "w": other, "payload": np.arange(n)})
    hierarchy = Hierarchy(list(range(8)), [[f"p{p}" for p in parents]])
    return frame, hierarchy


@settings(max_examples=100, deadline=None)
@given(case=frames_and_hierarchies(), local=st.booleans())
def test_generalization_never_splits_a_class_nor_touches_other_columns(case, local):
    frame, hierarchy = case
    rows = "singletons" if local else "all"
    out = frame.anon.generalize({"v": hierarchy}, rows=rows, qid=["v", "w"])
    before = frame.groupby(["v", "w"]).ngroup()
    after = out.groupby(["v", "w"]).ngroup()
    for _, members in before.groupby(before):  # rows equal before stay equal after
        assert after[members.index].nunique() == 1
    assert out["payload"].equals(frame["payload"]) and out["w"].equals(frame["w"])
    assert (
        naive_counts(out, ["v", "w"])["singletons"] <= naive_counts(frame, ["v", "w"])["singletons"]
    )


@pytest.mark.skipif(int(pd.__version__.split(".")[0]) >= 3, reason="pandas 3 is copy-on-write")
@pytest.mark.parametrize("mode", [False, "warn"])
def test_without_copy_on_write_the_output_is_a_deep_copy(mode):
    """pandas 2's "warn" mode does not copy on write: writing into a shallow copy would
    write into the caller's frame."""
    from pandas_anon.anonymization.recoding import output_copy

    frame = pd.DataFrame({"a": [1, 2, 3]})
    with pd.option_context("mode.copy_on_write", mode):
        out = output_copy(frame)
        out.loc[0, "a"] = 99
    assert frame["a"].tolist() == [1, 2, 3]
