"""Typed ranges for analysts: every bound ``intervals`` reads from a release holds the
original value of its row (checked against the original, row by row, on the licence file's
default release and on random Mondrian releases), the bounds are exact in the values' own
resolution, a file read back gives the same bounds, and what is not a range is refused by
name, never by value."""

from __future__ import annotations

import datetime as dt
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

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
    """The reading of date labels one by one: a pd.Timestamp and a calendar offset per
    bound (the reference the reading by form must equal). The unit is the kept dates' or
    the finest a label writes; a period without kept dates ends at its last nanosecond
    (microsecond past what nanoseconds hold)."""
    stamps = [v for v in uniques if isinstance(v, pd.Timestamp)]
    zone = stamps[0].tz if stamps else None
    texts = [t for r in ranges if r is not None for t in (r.low, r.high) if t is not None]
    units = ["s", "ms", "us", "ns"]
    fractions = [re.search(r"\.(\d+)", t) for t in texts]
    written = [0 if f is None else (len(f[1]) + 2) // 3 for f in fractions]
    finest = max([units.index(s.unit) for s in stamps] + written)
    periods = not stamps and any(len(t) <= 10 for t in texts)
    for unit in [units[max(finest, 3)], units[max(finest, 2)]] if periods else [units[finest]]:
        step = pd.Timedelta(1, unit=unit)
        dtype = f"datetime64[{unit}]" if zone is None else pd.DatetimeTZDtype(unit, zone)

        def period(text, step=step):
            stamp = pd.Timestamp(text)
            if zone is not None:
                stamp = stamp.tz_localize(zone) if stamp.tz is None else stamp.tz_convert(zone)
            offset = {4: pd.DateOffset(years=1), 7: pd.DateOffset(months=1)}
            return stamp, stamp + offset.get(
                len(text), pd.DateOffset(days=1) if len(text) == 10 else step
            )

        try:
            low = [pd.NaT if r is None else period(r.low)[0] for r in ranges]
            high = [pd.NaT if r is None else period(r.high)[1] - step for r in ranges]
            return pd.array([*low, pd.NaT], dtype=dtype), pd.array([*high, pd.NaT], dtype=dtype)
        except (pd.errors.OutOfBoundsDatetime, OverflowError):
            continue
    raise AssertionError("no unit holds the labels")


def _random_date_labels(rng, size, since="1700-01-01", hour=0, finest="ns"):
    """Date labels of every form a release writes (years, months, days, instants to the
    minute, second or ``finest``, from ``hour`` on; spans, bracketed ranges) since
    ``since``, and cells without bounds."""
    days = rng.integers(np.datetime64(since, "D").astype(int), 200 * 365, size=size)
    times = rng.integers(hour * 3600, 86400, size)
    seconds = days.astype("datetime64[D]").astype("datetime64[s]") + times
    instants = seconds.astype("datetime64[ns]") + rng.integers(0, 10**9, size)

    def bound(i):
        units = ["Y", "M", "D", "m", "s", "ms", "us", "ns"]
        unit = rng.choice(units[: units.index(finest) + 1])
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
    early = stamps in ("none", "naive")  # before 1678: no nanoseconds, in labels or kept
    labels: list = _random_date_labels(
        rng, 1500, "1700-01-01" if early else "1980-01-01", 4 * zoned, "us" if early else "ns"
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


# -- every bound holds its original value (issue 46) -------------------------------------------


def _held(original: pd.Series, low: pd.Series, high: pd.Series) -> pd.Series:
    """Per row with bounds, whether its original value lies within them (whole numbers
    compared exactly, as Python ints); True where there are no bounds."""
    bounded = low.notna() & high.notna() & original.notna()
    if pd.api.types.is_integer_dtype(original.dtype):
        values = original[bounded].astype(object).map(int)
        lows = low[bounded].astype(object).map(lambda v: v if isinstance(v, float) else int(v))
        highs = high[bounded].astype(object).map(lambda v: v if isinstance(v, float) else int(v))
        inside = [a <= v <= b for a, v, b in zip(lows, values, highs)]
        held = pd.Series(True, index=original.index)
        held[bounded] = np.array(inside, dtype=bool)
        return held
    return ~bounded | ((low <= original) & (original <= high)).fillna(False).astype(bool)


def test_local_recoding_of_decimals_reads_back_holding_them():
    """Local recoding writes a decimal column's intervals with decimal bounds
    (``[0.0, 20.0)``), read up to the float before 20: ``[0, 20)`` read as ``[0, 19]`` left
    19.83 out (31 of 183 rows outside before the fix)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 100, 200).round(2), "s": rng.choice(list("ab"), 200)})
    out = pandas_anon.kanon(frame, 5, qid=["x", "s"], algo="local")
    bounds = out.anon.intervals(["x"], form="bounds")
    assert str(bounds["x_low"].dtype) == "Float64"
    assert bounds["x_low"].notna().sum() > 100
    assert _held(frame["x"], bounds["x_low"], bounds["x_high"]).all()


def test_mondrian_ranges_of_sub_second_times_keep_their_fraction():
    """Mondrian writes instants to the nanosecond; they are read in the unit written, not
    floored to seconds (before the fix, a range's last value fell outside its bounds)."""
    rng = np.random.default_rng(1)
    times = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**12, 60), unit="ns")
    frame = pd.DataFrame({"d": times, "s": rng.choice(list("ab"), 60)})
    out = pandas_anon.kanon(frame, 4, qid=["d", "s"], algo="mondrian")
    bounds = out.anon.intervals(["d"], form="bounds")
    assert bounds["d_low"].dtype == "datetime64[ns]"
    assert _held(frame["d"], bounds["d_low"], bounds["d_high"]).all()


@pytest.mark.parametrize(
    ("zone", "name"),
    [("Europe/Rome", "Europe/Rome"), (dt.timezone(dt.timedelta(hours=-5)), "-05:00")],
)
def test_month_labels_of_zoned_times_keep_their_zone(zone, name):
    """A date hierarchy on times in a time zone writes the zone after each label
    (``2020-01 Europe/Rome``): the bounds read back are in that zone and hold each time
    (before the fix they were naive, comparing with the original raised)."""
    rng = np.random.default_rng(2)
    times = pd.date_range("2020-01-01", periods=300, freq="37h", tz=zone)
    frame = pd.DataFrame({"d": times + pd.to_timedelta(rng.integers(0, 10**9, 300), unit="ns")})
    frame["s"] = rng.choice(list("ab"), 300)
    out = pandas_anon.kanon(frame, 5, qid=["d", "s"], algo="ola")
    assert out["d"].astype(str).str.endswith(" " + name).any()
    bounds = out.anon.intervals(["d"], form="bounds")
    low = bounds["d_low"]
    assert (low.dt.tz_convert(zone).dt.tz_localize(None) == low.dt.tz_localize(None)).all()
    assert bounds["d_low"].notna().any()
    assert _held(frame["d"], bounds["d_low"], bounds["d_high"]).all()
    again = pandas_anon.intervals(out.astype(str), ["d"], form="bounds")  # as from a file
    assert _held(frame["d"], again["d_low"], again["d_high"]).all()


@pytest.mark.parametrize("algo", ["local", "mondrian"])
def test_uint64_ranges_past_2_63_read_back_exactly(algo):
    """uint64 values over the whole range: the bounds are UInt64 (the last interval's end,
    past 2**64, stops at the largest uint64), the interval column uint64, never wrapped
    through int64 (before the fix: OverflowError, or intervals with negative ends)."""
    rng = np.random.default_rng(3)
    values = rng.integers(0, 2**64 - 1, 200, dtype=np.uint64, endpoint=True)
    frame = pd.DataFrame({"u": values, "s": rng.choice(list("ab"), 200)})
    out = pandas_anon.kanon(frame, 5, qid=["u", "s"], algo=algo)
    bounds = out.anon.intervals(["u"], form="bounds")
    assert str(bounds["u_low"].dtype) == "UInt64"
    assert _held(frame["u"], bounds["u_low"], bounds["u_high"]).all()
    typed = out.anon.intervals(["u"])["u"]
    kept = typed.notna()
    left, right = typed[kept].array.left, typed[kept].array.right
    original = frame["u"][kept]
    assert ((left <= original) & (original <= right)).all()


def test_a_uint64_column_left_as_read_bounds_itself_exactly():
    """Nothing generalized (every row alike): the typed column's bounds are its own values,
    UInt64, not floats that round 2**63 - 2 up to 2**63 (found by the search with fresh
    seeds)."""
    frame = pd.DataFrame({"u": np.full(8, 2**63 - 2, dtype=np.uint64), "s": list("aabbccdd")})
    out = pandas_anon.kanon(frame, 2, qid=["u", "s"], algo="mondrian")
    bounds = out.anon.intervals(["u"], form="bounds")
    assert str(bounds["u_low"].dtype) == "UInt64"
    assert (bounds["u_low"] == 2**63 - 2).all() and (bounds["u_high"] == 2**63 - 2).all()


#: The methods that write ranges: Mondrian, local recoding, and full-domain searches along
#: the built-in hierarchies (one exact search, one heuristic).
RANGE_METHODS = ["mondrian", "local", "ola", "datafly"]
#: The dtypes of the property test's column.
DTYPES = [
    "int8", "int16", "int32", "int64", "uint64", "float64", "float32", "Int64", "Float64",
    "datetime64[ns]", "datetime64[us]", "datetime64[ms]", "datetime64[s]", "Europe/Rome",
    "UTC-05:00", "str", "string[pyarrow]",
]  # fmt: skip


@st.composite
def _column(draw):
    """A column of ``DTYPES``: few or many distinct values (interval hierarchies past 20),
    uint64 at and past 2**63, decimals, missing values in nullable ones, times to the
    nanosecond, in a time zone, and text writing dates."""
    dtype = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(8, 40))
    spread = draw(st.sampled_from([5, 50, 10**6]))
    if dtype in ("int8", "int16"):
        spread = min(spread, 200)
    offsets = np.array(draw(st.lists(st.integers(0, spread), min_size=n, max_size=n)))
    if dtype in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)
        base = draw(st.integers(int(info.min), int(info.max) - spread))
        return pd.Series(base + offsets, dtype=dtype)
    if dtype == "uint64":
        base = draw(st.sampled_from([0, 2**63 - spread // 2, 2**64 - 1 - spread]))
        return pd.Series([base + int(o) for o in offsets], dtype="uint64")
    if dtype in ("float64", "float32", "Float64"):
        values = offsets / draw(st.sampled_from([1, 7, 100])) - spread / 3
        series = pd.Series(values, dtype=dtype)
        if dtype == "Float64":
            series[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = pd.NA
        return series
    if dtype == "Int64":
        series = pd.Series(offsets - spread // 2, dtype="Int64")
        series[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = pd.NA
        return series
    start = pd.Timestamp(draw(st.sampled_from(["2019-12-31 23:59:59", "1990-06-15"])))
    step = draw(st.sampled_from([1, 10**6, 10**9 * 61, 10**9 * 3600 * 17]))
    if step > 10**6:
        offsets = offsets % 5000  # within 10 years
    times = pd.Series(start + pd.to_timedelta(offsets * step, unit="ns"))
    if dtype.startswith("datetime64"):
        return times.astype(dtype)
    if dtype in ("str", "string[pyarrow]"):
        return times.dt.strftime("%Y-%m-%d %H:%M:%S").astype(dtype)
    zone = "Europe/Rome" if dtype == "Europe/Rome" else dt.timezone(dt.timedelta(hours=-5))
    return times.dt.tz_localize("UTC").dt.tz_convert(zone)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(column=_column(), algo=st.sampled_from(RANGE_METHODS), data=st.data())
def test_every_bound_read_back_holds_its_original_value(column, algo, data):
    """For random columns of every dtype and every method writing ranges, each kept row's
    bounds (both forms, and read back from the text a file holds) hold its original value,
    in its own dtype, resolution and time zone; a row has no bounds only when its cell is
    suppressed, missing, or a range also covering missing values."""
    n = len(column)
    frame = pd.DataFrame(
        {"x": column, "s": data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))}
    )
    k = data.draw(st.integers(2, 4))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = pandas_anon.kanon(frame, k, qid=["x", "s"], algo=algo)
    except pandas_anon.PandasAnonError as error:
        event(f"no release: {type(error).__name__}")
        return  # (infeasible, every row missing): nothing read back
    ranged = out["x"].astype(object).map(lambda v: isinstance(v, str) and v != "*").any()
    event(f"{algo}: {'ranges' if ranged else 'no range'} written")
    original = frame["x"].loc[out.index]
    if pd.api.types.is_string_dtype(original.dtype):
        original = pd.to_datetime(original, format="%Y-%m-%d %H:%M:%S")
    written = out["x"].astype(object)
    unbounded = written.isna() | written.map(
        lambda v: isinstance(v, str) and (v == "*" or v.endswith(" or missing"))
    )
    as_text = out.astype({"x": str}).where(out.notna(), None)  # as a file holds it
    releases = [out] if column.dtype == "float32" else [out, as_text]  # (float32 written short)
    for release in releases:
        bounds = pandas_anon.intervals(release, ["x"], form="bounds")
        low, high = bounds["x_low"], bounds["x_high"]
        note(f"{algo} {column.dtype}: {written.tolist()} -> {low.tolist()} .. {high.tolist()}")
        assert (low.isna() | high.isna()).eq(unbounded | original.isna()).all()
        dates = pd.api.types.is_datetime64_any_dtype(low.dtype)
        if pd.api.types.is_datetime64_any_dtype(original.dtype) and not dates:
            assert _held(original.dt.year, low, high).all()  # only years written: years
            continue
        assert _held(original, low, high).all()
        zoned = isinstance(original.dtype, pd.DatetimeTZDtype)
        if zoned and dates and release is out:  # (a file's value kept as read: its offset)
            wall = low.dt.tz_convert(original.dt.tz).dt.tz_localize(None)
            assert (low.isna() | (wall == low.dt.tz_localize(None))).all()  # the original's zone
    typed = pandas_anon.intervals(out, ["x"])["x"]
    left, right = typed.array.left, typed.array.right
    if pd.api.types.is_datetime64_any_dtype(original.dtype) and not dates:
        original = original.dt.year
    inside = (left <= original) & (original <= right)
    assert (typed.isna() | original.isna() | inside.fillna(False).astype(bool)).all()
