"""Typed ranges for analysts: every bound ``intervals`` reads from a release holds the
original value of its row (checked against the original, row by row, on the licence file's
default release and on random Mondrian releases), the bounds are exact in the values' own
resolution, a file read back gives the same bounds, and what is not a range is refused by
name, never by value."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.datasets import load_driver_licenses
from pandas_anon.errors import InvalidParameterError

WHOLE = ["anno_nascita", "punti_patente"]
DATES = ["data_rilascio", "data_abilitazione_a", "data_scadenza"]


@pytest.fixture(scope="module")
def licences_release():
    licences = load_driver_licenses()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return licences, pandas_anon.kanon(licences, 5)  # zero configuration


def test_every_bound_of_the_default_release_holds_the_original_value(licences_release):
    """The licence file's default release (Mondrian: years ``[1944-1948]``, dates
    ``[1983-12-21/1985-12-31]``): each row's bounds hold its original value; the rows
    without bounds are exactly those written ``*``, ``... or missing``, or missing."""
    licences, out = licences_release
    before = out.copy()
    bounds = out.anon.intervals(form="bounds")
    pd.testing.assert_frame_equal(out, before)  # not modified
    for column in WHOLE + DATES:
        low, high = bounds[f"{column}_low"], bounds[f"{column}_high"]
        expected = "Int64" if column in WHOLE else "datetime64"
        assert str(low.dtype).startswith(expected), (column, low.dtype)
        written = out[column].astype(object)
        unbounded = written.isna() | written.map(
            lambda v: isinstance(v, str) and (v == "*" or v.endswith(" or missing"))
        )
        assert (low.isna() == unbounded).all() and (high.isna() == unbounded).all()
        original = licences[column][~unbounded]
        assert ((low[~unbounded] <= original) & (original <= high[~unbounded])).all(), column
        generalized = written[~unbounded].map(lambda v: isinstance(v, str) and "[" in v)
        assert (low[~unbounded][generalized] < high[~unbounded][generalized]).all()
    typed = out.anon.intervals()
    assert isinstance(typed["anno_nascita"].dtype, pd.IntervalDtype)
    assert (typed["comune_residenza"] == out["comune_residenza"]).all()  # text left alone


def test_a_file_read_back_gives_the_same_bounds(licences_release, tmp_path):
    licences, out = licences_release
    path = tmp_path / "release.csv"
    out.to_csv(path, index=False)
    read = pd.read_csv(path, dtype=str)
    again = pandas_anon.intervals(read, WHOLE + DATES, form="bounds")
    direct = out.anon.intervals(WHOLE + DATES, form="bounds")
    for column in WHOLE + DATES:
        for side in ("_low", "_high"):
            a, b = again[column + side], direct[column + side]
            if column in DATES:
                a, b = a.astype("datetime64[s]"), b.astype("datetime64[s]")
            pd.testing.assert_series_equal(a, b, check_dtype=column in DATES)


@pytest.mark.parametrize(
    ("labels", "low", "high"),
    [
        (["[30, 40)", "[40, 50)", "41"], [30, 40, 41], [39, 49, 41]),  # whole: the last one in
        (["[30-39]", "(1, 5]", "[-3, -1]"], [30, 2, -3], [39, 5, -1]),
        (["[0.5, 2.5)", "1.25"], [0.5, 1.25], [np.nextafter(2.5, 0), 1.25]),
        ([">= 55", "< 10", "[10, 55)"], [55, -np.inf, 10], [np.inf, 9, 54]),
    ],
)
def test_number_labels_are_read_to_exact_inclusive_bounds(labels, low, high):
    found = pandas_anon.intervals(pd.DataFrame({"x": labels}), form="bounds")
    assert found["x_low"].astype("float64").tolist() == [float(v) for v in low]
    assert found["x_high"].astype("float64").tolist() == [float(v) for v in high]


def test_date_labels_cover_their_whole_period():
    labels = [
        "1983-10",
        "1983-10/1983-12",
        "1983",
        "1980/1989",
        "[1989-04-14/1989-06-02]",
        "1990-02-03",
    ]
    found = pandas_anon.intervals(pd.DataFrame({"d": labels}), form="bounds")
    assert found["d_low"].dt.strftime("%Y-%m-%d").tolist() == [
        "1983-10-01", "1983-10-01", "1983-01-01", "1980-01-01", "1989-04-14", "1990-02-03",
    ]  # fmt: skip
    assert found["d_high"].dt.strftime("%Y-%m-%d").tolist() == [
        "1983-10-31", "1983-12-31", "1983-12-31", "1989-12-31", "1989-06-02", "1990-02-03",
    ]  # fmt: skip
    timed = pd.DataFrame({"d": [pd.Timestamp("1990-02-03 10:30"), "1983-10"]}, dtype=object)
    found = pandas_anon.intervals(timed, form="bounds")  # a time of day: to the last instant
    unit = timed["d"].iloc[0].unit  # the values' own: us on pandas 3, s on 2.2
    assert found["d_high"].iloc[1] == pd.Timestamp("1983-11-01") - pd.Timedelta(1, unit=unit)
    assert found["d_low"].iloc[0] == found["d_high"].iloc[0] == timed["d"].iloc[0]


def test_what_is_no_range_is_refused_by_name_never_by_value():
    frame = pd.DataFrame({"c": ["{Aosta, Roma}", "Torino", "[1-2]"], "n": ["1", "2", "[1-2]"]})
    assert list(pandas_anon.intervals(frame).columns) == ["c", "n"]  # c left as it is
    with pytest.raises(InvalidParameterError, match="column 'c': 2 cells are neither") as error:
        pandas_anon.intervals(frame, "c")
    assert "Aosta" not in str(error.value) and "Torino" not in str(error.value)
    with pytest.raises(InvalidParameterError, match="form"):
        pandas_anon.intervals(frame, form="columns")


def test_every_mondrian_range_reads_back_holding_its_values():
    """Random numbers near the int64 limits and dates: Mondrian's labels, read back, hold
    each row's value (whole numbers compared exactly, as Python ints)."""
    rng = np.random.default_rng(7)
    big = rng.integers(2**62, 2**62 + 4000, size=300)
    frame = pd.DataFrame(
        {
            "n": big,
            "d": pd.to_datetime(rng.integers(0, 10**9, size=300), unit="s"),
            "s": rng.choice(list("ab"), size=300),
        }
    )
    out = pandas_anon.kanon(frame, 4, qid=["n", "d", "s"], algo="mondrian")
    bounds = out.anon.intervals(["n", "d"], form="bounds")
    low = bounds["n_low"].astype(object).map(int)
    high = bounds["n_high"].astype(object).map(int)
    assert all(a <= int(v) <= b for a, v, b in zip(low, frame["n"], high))
    assert (low < high).any()
    assert ((bounds["d_low"] <= frame["d"]) & (frame["d"] <= bounds["d_high"])).all()
