"""(k, ε) releases stay in their domain (issue 35, item 4): the noisy ε-quasis are rounded
(integer columns) and clamped into a documented domain (bounds given, or the observed range
widened to auto's coarsest interval width), integer columns stay integer, the report gives
the error after post-processing and each domain with its source, and a UtilityWarning names
the ε that brings a large predicted error under the threshold. Checked against computations
that read only the input, the release and the documentation's definitions."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.anonymization.noise.ke import MAX_PREDICTED_ERROR, ke_decide
from pandas_anon.anonymization.reports import KEAnonymizationReport
from pandas_anon.errors import ColumnNotFoundError, InvalidParameterError, UtilityWarning

from test_properties_algorithms import EXAMPLES

QID = ["age", "sex", "race", "marital-status", "education"]


def release_adult(adult: pd.DataFrame, **options) -> pd.DataFrame:
    """Adult, k = 5, ε = 1, age the ε-quasi (its predicted error is above the threshold)."""
    with pytest.warns(UtilityWarning, match="'age'"):
        return adult.anon.ke_anon(5, 1.0, qid=QID, eps_quasi=["age"], seed=0, **options)


def test_adult_ages_stay_integers_in_the_documented_domain(adult):
    """Adult's ages run from 17 to 90; auto's intervals for them are 5, 10 and 20 wide, so
    the default domain is the cells of 20 holding the extremes: 0 to 100 (docs/ke.md). The
    report's error after post-processing is the mean of |released - age| / age over the rows
    (none suppressed, none 0), computed here from the release alone."""
    assert auto_widths(adult["age"]) == [5, 10, 20]
    out = release_adult(adult, shuffle=False)
    assert out["age"].dtype == np.dtype("int64")
    assert out["age"].between(0, 100).all()
    assert out["age"].min() == 0 and out["age"].max() == 100  # the noise reaches both ends
    report = out.anon.report()
    assert report.domain == {
        "age": {
            "low": 0,
            "high": 100,
            "source": "default: observed range widened to multiples of 20 (auto's coarsest width)",
        }
    }
    assert report.suppressed == 0 and report.alpha_suppressed == 0
    age = adult["age"].to_numpy(dtype=float)
    realized = float(np.mean(np.abs(out["age"].to_numpy(dtype=float) - age) / age))
    assert report.released_error["age"] == pytest.approx(realized, rel=1e-12)
    assert report.released_error["mean"] == report.released_error["age"]
    # clamping towards a domain that holds the original only brings a value nearer it
    assert report.released_error["age"] < report.relative_error["age"]
    again = KEAnonymizationReport.from_dict(report.to_dict())
    assert again == report
    text = repr(report)
    assert "released (rounded, clamped)" in text and "Domain of the released values" in text


def auto_widths(series: pd.Series) -> list[int]:
    """The interval widths :func:`pandas_anon.hierarchy.auto` chooses, read from its name."""
    name = pandas_anon.hierarchy.auto(series).name
    return [int(w) for w in re.search(r"intervals\(([^)]*)\)", name).group(1).split(",")]


def test_given_bounds_are_the_domain(adult):
    """Bounds given are the domain, whatever the data; through the accessor and the function
    alike; a float column stays float and is clamped without rounding."""
    out = release_adult(adult, bounds={"age": (10, 95)}, shuffle=False)
    assert out["age"].dtype == np.dtype("int64")
    assert out["age"].between(10, 95).all() and {10, 95} <= set(out["age"])
    assert out.anon.report().domain["age"] == {"low": 10, "high": 95, "source": "given"}
    heights = pd.DataFrame({"sex": ["F"] * 6 + ["M"] * 6, "height": np.linspace(150.0, 190.5, 12)})
    with pytest.warns(UtilityWarning):  # ε = 0.01: noise hundreds of times the heights
        released = pandas_anon.ke_anon(
            heights, 3, 0.01, qid=["sex", "height"], bounds={"height": (120.5, 230.0)}, seed=1
        )
    assert released["height"].dtype == np.dtype("float64")
    assert released["height"].between(120.5, 230.0).all()
    assert {120.5, 230.0} <= set(released["height"])
    assert (released["height"] % 1 != 0).any()  # not rounded


@pytest.mark.parametrize(
    ("bounds", "error", "match"),
    [
        ({"agee": (0, 120)}, ColumnNotFoundError, "'agee' not found"),
        ({"sex": (0, 1)}, InvalidParameterError, "bounds given for 'sex', which is not an ε-quasi"),
        ({"age": (120, 0)}, InvalidParameterError, "bounds for 'age' must have low below high"),
        ({"age": (5, 5)}, InvalidParameterError, "bounds for 'age' must have low below high"),
        ({"age": (0, math.inf)}, InvalidParameterError, "bounds for 'age' must be finite"),
        ({"age": (math.nan, 120)}, InvalidParameterError, "bounds for 'age' must be finite"),
        ({"age": ("0", 120)}, InvalidParameterError, r"bounds for 'age' must be a pair \(low"),
        ({"age": (True, 120)}, InvalidParameterError, r"bounds for 'age' must be a pair \(low"),
        ({"age": 120}, InvalidParameterError, r"bounds for 'age' must be a pair \(low"),
        ({"age": (0, 60, 120)}, InvalidParameterError, r"bounds for 'age' must be a pair \(low"),
        ({"age": (0.5, 120)}, InvalidParameterError, "'age', an integer column, must be whole"),
        ({"age": (20, 120)}, InvalidParameterError, "bounds for 'age' .* leave out some of its"),
        ({"age": (0, 80)}, InvalidParameterError, "bounds for 'age' .* leave out some of its"),
        ([("age", (0, 120))], InvalidParameterError, "bounds must be a mapping"),
    ],
)
def test_bad_bounds_are_refused_by_name(adult, bounds, error, match):
    with pytest.raises(error, match=match) as refused:
        ke_decide(adult, 5, 1.0, qid=QID, eps_quasi=["age"], bounds=bounds)
    message = str(refused.value)
    assert "17" not in message and "90" not in message  # Adult's extreme ages: never said


def test_the_warning_names_the_eps_that_brings_the_error_under(adult):
    """The predicted error scales as 1/ε for fixed classes: the ε named brings it to at most
    the threshold, and is the exact figure rounded up to 3 significant digits."""
    plan = ke_decide(adult, 5, 1.0, qid=QID, eps_quasi=["age"])
    predicted = plan.predicted_loss()["age"]
    assert predicted > MAX_PREDICTED_ERROR == 0.5
    with pytest.warns(UtilityWarning) as caught:
        pandas_anon.ke_anon(adult, 5, 1.0, qid=QID, eps_quasi=["age"], seed=0)
    (message,) = [str(w.message) for w in caught if w.category is UtilityWarning]
    named = float(re.search(r"eps=([0-9.]+) or more", message).group(1))
    exact = predicted / MAX_PREDICTED_ERROR  # at ε = 1
    assert exact <= named <= exact * 1.01
    assert f"{named:.3g}" == f"{math.ceil(exact * 100) / 100:.3g}"
    assert plan.with_eps(named).predicted_loss()["age"] <= MAX_PREDICTED_ERROR
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)  # none at the ε named
        pandas_anon.ke_anon(adult, 5, named, qid=QID, eps_quasi=["age"], seed=0)


def test_integer_dtypes_missing_values_seed_and_caller_frame():
    """int64, uint8 and Int64 with missing values come out in their dtype (missing where
    they were), float32 as float64; the same seed gives the same frame; the caller's frame
    is untouched."""
    n = 40
    frame = pd.DataFrame(
        {
            "town": list("ABCD") * (n // 4),
            "count": np.arange(n, dtype=np.int64) * 3,
            "level": np.arange(n, dtype=np.uint8),
            "score": pd.array([None if i % 7 == 0 else i * 5 for i in range(n)], dtype="Int64"),
            "ratio": np.linspace(0.5, 3.0, n).astype(np.float32),
        }
    )
    before = frame.copy(deep=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        out = frame.anon.ke_anon(5, 0.5, qid=list(frame.columns), seed=11, shuffle=False)
        again = frame.anon.ke_anon(5, 0.5, qid=list(frame.columns), seed=11, shuffle=False)
    pd.testing.assert_frame_equal(frame, before)
    pd.testing.assert_frame_equal(out, again)
    assert dict(out.dtypes.astype(str)) == {
        "town": "object" if out["town"].dtype == object else str(out["town"].dtype),
        "count": "int64",
        "level": "uint8",
        "score": "Int64",
        "ratio": "float64",
    }
    assert out["score"].isna().tolist() == frame["score"].isna().tolist()
    domain = out.anon.report().domain
    assert domain["level"]["low"] == 0  # the cells of auto's widths, within uint8
    for column in ["count", "level", "score", "ratio"]:
        values = out[column].dropna().astype(float)
        assert values.between(domain[column]["low"], domain[column]["high"]).all()
        held = frame[column].dropna().astype(float)
        assert domain[column]["low"] <= held.min() and held.max() <= domain[column]["high"]


def test_a_masked_numpy_integer_column_becomes_its_nullable_counterpart(adult):
    """Rows α-confidence suppresses are missing in the ε-quasis: int64 cannot hold them, so
    the column is released as Int64, whole numbers still."""
    out = adult.anon.ke_anon(5, 8.0, qid=QID, eps_quasi=["age"], alpha=0.99, seed=0, shuffle=False)
    report = out.anon.report()
    assert report.alpha_suppressed > 0
    assert out["age"].dtype == pd.Int64Dtype()
    assert out["age"].isna().sum() == report.alpha_suppressed
    assert out["age"].dropna().between(0, 100).all()


@st.composite
def frames(draw):
    """A town (the k-quasi) and one to three ε-quasis of drawn dtypes: int64 (some near
    2**62), Int64 with missing values, uint8, int8, float64 and Float64 with missing values."""
    n = draw(st.integers(2, 25))
    towns = draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    data = {"town": towns}
    kinds = draw(
        st.lists(
            st.sampled_from(["int64", "Int64", "uint8", "int8", "float64", "Float64"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    for kind in kinds:
        if kind in ("int64", "Int64"):
            huge = draw(st.booleans())
            values = st.integers(-(2**62), 2**62) if huge else st.integers(-500, 500)
            cells = st.one_of(values, st.none()) if kind == "Int64" else values
            column = pd.array(draw(st.lists(cells, min_size=n, max_size=n)), dtype=kind)
        elif kind in ("uint8", "int8"):
            info = np.iinfo(kind)
            ints = st.integers(int(info.min), int(info.max))
            column = np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=kind)
        else:
            floats = st.floats(-1e6, 1e6, allow_nan=False)
            cells = st.one_of(floats, st.none()) if kind == "Float64" else floats
            column = pd.array(draw(st.lists(cells, min_size=n, max_size=n)), dtype=kind)
        data[f"x_{kind}"] = column
    return pd.DataFrame(data)


@settings(max_examples=EXAMPLES, deadline=None)
@given(frame=frames(), data=st.data())
def test_released_values_lie_in_the_domain_in_their_dtype(frame, data):
    """On random frames, with or without bounds given, α-confidence or not: every released
    value lies in its column's domain, which holds every original value; an integer column
    comes out in its dtype (its nullable counterpart when rows are masked) holding whole
    numbers; a float one as float64; a missing value stays missing."""
    eps_quasi = [c for c in frame.columns if c != "town"]
    if not frame[eps_quasi].notna().any().all():
        return  # an all-missing ε-quasi is refused (test_ke)
    k = data.draw(st.integers(1, len(frame)), label="k")
    eps = data.draw(st.sampled_from([0.01, 1.0, 16.0]), label="eps")
    alpha = data.draw(st.sampled_from([None, 0.9]), label="alpha")
    bounds = {}
    for column in eps_quasi:
        if data.draw(st.booleans(), label=f"bounds for {column}"):
            held = frame[column].dropna().astype(float)
            margin = data.draw(st.integers(1, 1000), label="margin")
            bounds[column] = (math.floor(held.min()) - margin, math.ceil(held.max()) + margin)
    note(f"frame:\n{frame}\ndtypes {dict(frame.dtypes)}\nbounds {bounds}")
    before = frame.copy(deep=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pandas_anon.ke_anon(
            frame, k, eps, qid=list(frame.columns), bounds=bounds or None, alpha=alpha,
            seed=5, shuffle=False,
        )  # fmt: skip
    pd.testing.assert_frame_equal(frame, before)
    report = out.anon.report()
    masked = report.suppressed + report.alpha_suppressed > 0
    for column in eps_quasi:
        domain = report.domain[column]
        held = frame[column].dropna().astype(float)
        low, high = float(domain["low"]), float(domain["high"])
        assert low <= held.min() and held.max() <= high
        assert domain["source"].startswith("given" if column in bounds else "default")
        if column in bounds:
            given_low, given_high = bounds[column]  # read as floats, rounded inward
            assert given_low <= low and high <= given_high
            within = "within the range of" in domain["source"]
            assert low - given_low <= abs(given_low) * 1e-15 or within
            assert given_high - high <= abs(given_high) * 1e-15 or within
        released = out[column]
        values = released.dropna().to_numpy(dtype=float)
        assert ((values >= low) & (values <= high)).all()
        assert released[frame[column].isna()].isna().all()
        dtype = frame[column].dtype
        if pd.api.types.is_integer_dtype(dtype):
            assert (values == np.round(values)).all()
            if isinstance(dtype, np.dtype) and masked:
                assert str(released.dtype) == str(dtype).replace("u", "U").replace("i", "I")
            else:
                assert released.dtype == dtype
        else:
            assert released.dtype == np.dtype("float64")
