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


def _dates_one_by_one(ranges, uniques):
    """The reading of date labels before they were read by form: a pd.Timestamp and a
    calendar offset per bound (the reference the reading by form must equal)."""
    stamps = [v for v in uniques if isinstance(v, pd.Timestamp)]
    unit = stamps[0].unit if stamps else "s"
    zone = stamps[0].tz if stamps else None
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    timed = any(len(t) > 10 and not t[11:].startswith("00:00:00") for t in texts)
    step = pd.Timedelta(1, unit=unit) if timed else pd.Timedelta(days=1)

    def period(text):
        stamp = pd.Timestamp(text)
        if zone is not None:
            stamp = stamp.tz_localize(zone) if stamp.tz is None else stamp.tz_convert(zone)
        offset = {4: pd.DateOffset(years=1), 7: pd.DateOffset(months=1)}
        return stamp, stamp + offset.get(
            len(text), pd.DateOffset(days=1) if len(text) == 10 else step
        )

    low = [pd.NaT if r is None else period(r.low)[0] for r in ranges]
    high = [pd.NaT if r is None else period(r.high)[1] - step for r in ranges]
    dtype = f"datetime64[{unit}]" if zone is None else pd.DatetimeTZDtype(unit, zone)
    return pd.array([*low, pd.NaT], dtype=dtype), pd.array([*high, pd.NaT], dtype=dtype)


def _random_date_labels(rng, size, since="1700-01-01", hour=0):
    """Date labels of every form a release writes (years, months, days, instants to the
    minute, second or nanosecond, from ``hour`` on; spans, bracketed ranges) since
    ``since``, and cells without bounds."""
    days = rng.integers(np.datetime64(since, "D").astype(int), 200 * 365, size=size)
    times = rng.integers(hour * 3600, 86400, size)
    seconds = days.astype("datetime64[D]").astype("datetime64[s]") + times
    instants = seconds.astype("datetime64[ns]") + rng.integers(0, 10**9, size)

    def bound(i):
        unit = rng.choice(["Y", "M", "D", "m", "s", "ms", "us", "ns"])
        text = np.datetime_as_string(instants[i], unit=unit)
        return text.replace("T", " ") if rng.random() < 0.5 else text

    labels = []
    for i in range(size):
        a, b = sorted([bound(i), bound(rng.integers(size))])
        form = rng.integers(6)
        labels.append(
            [a, f"{a}/{b}", f"[{a}/{b}]", f"[{a}, {b})", "*", f"[{a}/{b}] or missing"][form]
        )
    return labels


@pytest.mark.parametrize("stamps", ["none", "naive", "nanoseconds", "zoned"])
def test_date_labels_read_by_form_equal_the_reading_one_by_one(stamps):
    """Thousands of random date labels (and values kept as dates, naive or in a time zone)
    read by form give the bounds the one-by-one reading gave, value for value, in the
    same dtype."""
    from pandas_anon.anonymization.intervals import _dates, _read

    rng = np.random.default_rng(["none", "naive", "nanoseconds", "zoned"].index(stamps))
    zoned = stamps == "zoned"  # Rome's clocks change at 2 or 3 am since 1980, at midnight before
    labels: list = _random_date_labels(
        rng, 1500, "1980-01-01" if zoned else "1700-01-01", 4 * zoned
    )
    if stamps != "none":
        kept = pd.to_datetime(rng.integers(0, 2 * 10**9, size=50), unit="s")
        kept = kept + pd.to_timedelta(rng.integers(0, 10**9, size=50), unit="ns")
        if stamps == "naive":
            kept = kept.as_unit("us")
        if zoned:  # half in Rome's time zone, the others in UTC
            kept = list(kept[:25].tz_localize("UTC").tz_convert("Europe/Rome")) + list(
                kept[25:].tz_localize("UTC")
            )
        labels = list(kept) + labels
    uniques = pd.factorize(pd.Series(labels, dtype=object))[1]
    ranges = [r if r else None for r in map(_read, uniques)]
    assert all(r is not False for r in ranges)
    low, high, unparsed = _dates(ranges, uniques, "d")
    expected_low, expected_high = _dates_one_by_one(ranges, uniques)
    assert not unparsed.any()
    pd.testing.assert_extension_array_equal(low, expected_low)
    pd.testing.assert_extension_array_equal(high, expected_high)


def test_a_date_past_2262_reads_on_every_pandas():
    """pandas 2.2 holds no date past 2262-04-11 in nanoseconds; the auto date hierarchy's
    decade 2260/2269 (and a month of the year 9999) read as the dates they are."""
    labels = ["2260/2269", "2262-04", "[2262-04-11/2262-04-12]", "9999-12", "1983-10"]
    found = pandas_anon.intervals(pd.DataFrame({"d": labels}), form="bounds")
    assert found["d_low"].dt.strftime("%Y-%m-%d").tolist() == [
        "2260-01-01", "2262-04-01", "2262-04-11", "9999-12-01", "1983-10-01",
    ]  # fmt: skip
    assert found["d_high"].dt.strftime("%Y-%m-%d").tolist() == [
        "2269-12-31", "2262-04-30", "2262-04-12", "9999-12-31", "1983-10-31",
    ]  # fmt: skip


def test_a_bound_the_dates_unit_cannot_hold_is_refused_by_name():
    """Dates kept in nanoseconds and a decade past 2262 in one column: our error, naming
    the column and the fix, never a value."""
    kept = pd.Timestamp("2020-01-01 10:00:00.123456789")
    frame = pd.DataFrame({"d": [kept, "2260/2269", "1983-10"]}, dtype=object)
    with pytest.raises(InvalidParameterError, match=r"column 'd': a date bound .* datetime64\[s\]"):
        pandas_anon.intervals(frame, form="bounds")


def test_a_date_no_calendar_has_is_refused_by_name_never_by_value():
    """A 30 February or a month 13 is no date: the named column is refused (how many cells,
    not which), the column left as it is when not named."""
    frame = pd.DataFrame({"d": ["2020-02-30", "[2020-01/2020-13]", "1983-10", "1983-10"]})
    assert pandas_anon.intervals(frame).equals(frame)
    with pytest.raises(InvalidParameterError, match="column 'd': 2 cells are neither") as error:
        pandas_anon.intervals(frame, "d")
    assert "2020" not in str(error.value)
