"""(k, ε)-anonymity of a Dask frame on a real LocalCluster (two worker processes): the
release (k-quasis written, ε-quasis noised, α-confidence, shuffled rows) and its report equal
the pandas path's on the same rows, for the same seed, on every partitioning and on random
frames; the report's means to the last bits of a float."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if not os.environ.get("CI"):  # CI installs the test extra, which has Dask: never skipped there
    pytest.importorskip("distributed", reason='pip install -e ".[test]" (the dask extra)')

from dask_frames import PARTITIONINGS, frames, partitioned
from test_dask_anonymize import same_outcome

import pandas_anon
from pandas_anon.anonymization.noise.ke import ke_decide
from pandas_anon.anonymization.noise.sources import SeededLaplace
from pandas_anon.errors import InvalidParameterError


@pytest.fixture(scope="module")
def adult_heights(adult):
    """UCI Adult with a height per person (drawn, as the paper draws it, by sex)."""
    rng = np.random.default_rng(2017)
    height = np.where(adult["sex"] == "Male", 176.0, 163.0) + rng.normal(0, 7, len(adult))
    return adult.assign(height=height.round(1))


@pytest.mark.parametrize("how", PARTITIONINGS)
@pytest.mark.parametrize(
    "options",
    [
        {"shuffle": False},
        {"alpha": 0.99},
        {"alpha": 0.9, "suppress": "drop", "eps_quasi": ["height", "age"]},
        {"algo": "ola", "max_suppression": 0.05, "alpha": 0.99, "shuffle": False},
    ],
    ids=["plain", "alpha", "alpha-drop-two", "ola-suppression"],
)
def test_adult_releases_equal_the_pandas_release(client, adult_heights, how, options):
    options = {"eps_quasi": ["height"], **options}
    qid = ["age", "sex", "race", "marital-status", "height"]
    same_outcome(
        lambda f: f.anon.ke_anon(10, 1.0, qid=qid, seed=7, **options),
        partitioned(adult_heights, how),
    )


@pytest.mark.parametrize("bounds", [None, {"age": (10, 95)}], ids=["default", "given"])
@pytest.mark.parametrize("options", [{"shuffle": False}, {"alpha": 0.99}], ids=["plain", "alpha"])
def test_integer_ages_are_clamped_and_stay_integers_as_in_pandas(client, adult, bounds, options):
    """The Dask release post-processes as the pandas one (one method): ages rounded, clamped
    into the same domain, released as int64; α-confidence masks rows, so Int64 then."""
    qid = ["age", "sex", "race", "marital-status"]

    def call(frame):
        given = {"bounds": bounds} if bounds else {}
        return frame.anon.ke_anon(5, 8.0, qid=qid, eps_quasi=["age"], seed=3, **given, **options)

    same_outcome(call, partitioned(adult, "seven"))
    out = call(partitioned(adult, "seven"))
    domain = out.anon.report().domain["age"]
    ages = out["age"].compute()
    assert (domain["low"], domain["high"]) == ((0, 100) if bounds is None else (10, 95))
    assert ages.dtype == ("int64" if "alpha" not in options else pd.Int64Dtype())
    assert ages.dropna().between(domain["low"], domain["high"]).all()
    assert {domain["low"], domain["high"]} <= set(ages.dropna())


def test_the_release_is_lazy_and_alpha_removes_records(client, adult_heights):
    ddf = partitioned(adult_heights, "seven")
    qid = ["age", "sex", "race", "height"]
    # ε = 4: noise mostly inside the heights' domain (at 0.5 most values are clamped to a
    # bound, where every original of the class lies within the interval: none removed)
    out = ddf.anon.ke_anon(10, 4.0, qid=qid, eps_quasi=["height"], alpha=0.99, seed=1)
    assert out.npartitions >= 1 and not isinstance(out, type(adult_heights))
    report = out.anon.report()
    assert report.alpha_suppressed > 0 and report.rows == len(adult_heights)
    assert report.modified == len(adult_heights)  # every height noised or removed


def test_a_plan_writes_only_its_own_engine(client, adult_heights):
    ddf = partitioned(adult_heights, "seven")
    options = {"qid": ["sex", "race", "height"], "eps_quasi": ["height"]}
    plan = ke_decide(ddf, 5, 1.0, **options)
    assert plan.predicted_loss() == pytest.approx(
        ke_decide(adult_heights, 5, 1.0, **options).predicted_loss(), rel=1e-12
    )
    with pytest.raises(InvalidParameterError, match="decided on a Dask frame"):
        plan.apply(adult_heights, SeededLaplace(1))
    with pytest.raises(InvalidParameterError, match="decided on a pandas frame"):
        ke_decide(adult_heights, 5, 1.0, **options).apply(ddf, SeededLaplace(1))


def test_planning_takes_a_pandas_frame(client, adult_heights):
    with pytest.raises(InvalidParameterError, match="takes a pandas frame"):
        pandas_anon.ke_plan(partitioned(adult_heights, "one"), [5], [1.0], qid=["sex", "height"])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frame=frames(),
    how=st.sampled_from(PARTITIONINGS),
    k=st.integers(1, 4),
    eps=st.sampled_from([0.5, 2.0]),
    alpha=st.sampled_from([None, 0.5, 0.99]),
    shuffle=st.booleans(),
    suppress=st.sampled_from(["mask", "drop"]),
    seed=st.integers(0, 2**32),
)
def test_random_frames_ke_anon_gives_the_pandas_release(
    client, frame, how, k, eps, alpha, shuffle, suppress, seed
):
    """Numeric columns noised (nullable integers, floats), the others k-anonymized; a frame
    without a numeric column, or with only numeric ones, is refused alike."""
    options = {"alpha": alpha, "shuffle": shuffle, "suppress": suppress, "seed": seed}
    same_outcome(
        lambda f: f.anon.ke_anon(k, eps, qid=list(frame.columns), **options),
        partitioned(frame, how),
    )
