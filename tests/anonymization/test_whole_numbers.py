"""Whole numbers read as floats are whole numbers everywhere a release writes them (issue 46,
item 6): a year column with one missing value is read by pandas as floats, and its cells kept
as read were written ``1986.0``. The release writes them as the nullable integer column they
stand for would be (``1986``), its labels as they were, and the classes of the written file
are the classes the report counts."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.anonymization.mondrian.algorithm import Mondrian
from pandas_anon.anonymization.recoding import as_whole_numbers, whole_floats

from verify import release_classes

pytestmark = pytest.mark.filterwarnings("ignore::pandas_anon.IncompleteRowsWarning")

#: No cell is the marker of a suppressed row: with nothing suppressed, a row written ``*`` in
#: every column of the quasi-identifier is in a class like any other.
NEVER = "\0never"

#: A cell written as a whole number with a decimal point: ``1986.0``, alone or in a range.
POINT_ZERO = r"(?<![\d.])-?\d+\.0(?![\d])"


def written(out: pd.DataFrame) -> pd.DataFrame:
    """``out`` written with ``to_csv`` and read back, every cell as its text."""
    text = out.to_csv(index=False)
    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)


def point_zeros(table: pd.DataFrame) -> int:
    """Cells of a written table holding a whole number written with ``.0``."""
    return sum(int(table[c].str.contains(POINT_ZERO).sum()) for c in table.columns)


def read_as_floats(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` written to CSV and read back by pandas: a column of whole numbers with a
    missing value comes back as float64."""
    return pd.read_csv(io.StringIO(frame.to_csv(index=False)))


def test_the_licences_read_with_a_missing_year_write_no_point_zero(licences):
    """The Valle d'Aosta file as a CSV user holds it (its one missing year makes the year
    column float64), zero-configuration kanon(5): no cell of the written CSV is a whole number
    written ``.0`` (3,230 kept years were written ``1986.0``), and the classes of the CSV read
    back are the report's (its k, and its number of classes)."""
    frame = read_as_floats(licences)
    assert frame["anno_nascita"].dtype == np.float64
    out = pandas_anon.kanon(frame, 5)
    report = out.anon.report()
    table = written(out)
    assert point_zeros(table) == 0
    assert table["anno_nascita"].isin(["1944", "1990"]).any()  # years kept, as integers
    found = release_classes(table, list(table.columns), top=NEVER)
    assert (found["k"], found["classes"]) == (report.k_reached, report.classes)


def frame_of_years(n: int = 400, seed: int = 1) -> pd.DataFrame:
    """Years (whole numbers read as floats: some missing) and towns: classes small enough
    that Mondrian and local recoding keep many years as read."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "year": rng.integers(1960, 1966, n).astype(np.float64),
            "town": rng.choice(["A", "B", "C"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    frame.loc[[3, 50, 70, 80, 90, 99], ["year", "town"]] = [np.nan, "A"]
    frame.loc[5, "year"] = 1900.0
    return frame


ALGORITHMS = [
    "datafly",
    "incognito",
    "local",
    "mondrian",
    "ola",
    "samarati",
    "tree",
    Mondrian(represent="median"),
]


@pytest.mark.parametrize("algo", ALGORITHMS, ids=str)
def test_the_release_writes_the_years_as_an_integer_column_would(algo):
    """Each algorithm writes the float column of years, cell for cell, as it writes the same
    years held as nullable integers (Int64): kept years ``1962``, labels as they are; the
    classes of the file written are the report's."""
    frame = frame_of_years()
    integers = frame.assign(year=frame["year"].astype("Int64"))
    options = {"qid": ["year", "town"], "algo": algo, "sensitive": "sex", "max_suppression": 0}
    out = pandas_anon.kanon(frame, 5, **options)
    expected = pandas_anon.kanon(integers, 5, **options)
    assert out.to_csv(index=False) == expected.to_csv(index=False)
    table = written(out)
    assert point_zeros(table) == 0
    assert release_classes(table, ["year", "town"], top=NEVER)["k"] == out.anon.report().k_reached


def test_means_of_years_that_are_whole_are_written_whole():
    """Mondrian writing each class's mean year: a whole mean is written ``1962`` like the
    years kept as read, a fractional one keeps its decimals."""
    frame = frame_of_years()
    out = pandas_anon.kanon(frame, 5, qid=["year", "town"], algo=Mondrian(represent="mean"))
    assert out.anon.report().suppressed == 0
    numbers = out["year"].dropna()
    assert any(type(v) is int for v in numbers) and any(type(v) is float for v in numbers)
    assert all(type(v) is int for v in numbers if float(v).is_integer())
    table = written(out)
    assert point_zeros(table) == 0
    assert release_classes(table, ["year", "town"], top=NEVER)["k"] == out.anon.report().k_reached


@pytest.mark.parametrize("dtype", ["Int64", "int64"])
def test_kept_years_of_an_integer_column_beside_means_have_no_point_zero(licences, dtype):
    """Integers under Mondrian's means: a fractional mean made the column float, and the
    years it kept as read were written ``1944.0`` (the licence file's first 3,000 rows:
    2,930 cells)."""
    frame = licences.head(3000).dropna(subset=["anno_nascita"]).reset_index(drop=True)
    frame = frame.astype({"anno_nascita": dtype})
    qid = ["anno_nascita", "sesso"]
    out = pandas_anon.kanon(frame, 5, qid=qid, algo=Mondrian(represent="mean"))
    report = out.anon.report()
    table = written(out)
    assert point_zeros(table[["anno_nascita"]]) == 0
    assert table["anno_nascita"].str.contains(r"\.\d").any()  # the fractional means stay
    kept = ~out["anno_nascita"].map(lambda v: isinstance(v, float)).to_numpy()
    assert (table["anno_nascita"][kept] == frame["anno_nascita"][kept].astype(str)).all()
    assert release_classes(table, qid, top=NEVER)["k"] == report.k_reached


def test_kept_years_are_integers_beside_the_labels():
    """Mondrian keeps the years of small classes as read: Python integers in the column of
    labels (as an Int64 column's are), never counted as changed."""
    frame = frame_of_years()
    out = pandas_anon.kanon(frame, 5, qid=["year", "town"], algo="mondrian")
    kept = out["year"][out["year"].map(lambda v: not isinstance(v, str)) & out["year"].notna()]
    assert len(kept) and all(type(v) is int for v in kept)
    changed = out["year"].astype(object).map(str) != frame["year"].map(
        lambda v: str(int(v)) if v == v else "nan"
    )
    assert out.anon.report().changed["year"] == int(changed.sum())


def test_a_column_kept_whole_is_released_as_nullable_integers():
    """A column every value of which is kept as read (level 0 of a full-domain recoding) is
    released as Int64, its missing value missing."""
    frame = frame_of_years()
    out = pandas_anon.generalize(frame, {"year": ("builtin.auto", 0)})
    assert out["year"].dtype == "Int64"
    assert out["year"].isna().sum() == frame["year"].isna().sum()
    assert (out["year"].dropna().to_numpy() == frame["year"].dropna().to_numpy()).all()
    assert out.anon.report().modified == 0
    assert frame["year"].dtype == np.float64  # the caller's frame is untouched


@pytest.mark.parametrize("algo", ["local", "mondrian", "ola", "samarati"])
def test_range_labels_of_years_read_as_floats_have_no_point_zero(algo):
    """Labels computed from a whole-number float column along the built-in hierarchy
    (intervals of years) are written ``[1960, 1965)``, by local recoding, Mondrian and the
    full-domain searches alike, beside the years kept as read."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {
            "year": rng.integers(1940, 2000, 1000).astype(np.float64),
            "town": rng.choice(["A", "B", "C"], 1000),
        }
    )
    frame.loc[1:6, ["year", "town"]] = [np.nan, "A"]
    out = pandas_anon.kanon(
        frame,
        5,
        qid=["year", "town"],
        algo=algo,
        hierarchies={"year": "builtin.auto"},
        max_suppression=0.01,
    )
    labels = [v for v in out["year"] if isinstance(v, str) and v != "*"]
    assert "[1960, 1965)" in labels and not any(".0" in label for label in labels)
    assert point_zeros(written(out)) == 0


def test_fractional_floats_keep_their_decimals():
    """A column holding a fraction is no column of whole numbers: its floats are written as
    pandas writes them (``2.0`` and ``2.5``)."""
    frame = pd.DataFrame({"x": [2.0, 2.0, 2.5, 2.5, np.nan, np.nan] * 2, "g": list("aabbcc") * 2})
    out = pandas_anon.kanon(frame, 2, qid=["x", "g"], algo="mondrian")
    assert out["x"].dtype == np.float64
    assert "2.0" in out.to_csv(index=False)


def test_as_whole_numbers_keeps_values_written_apart():
    """An integer that would be written as another value is (a label ``"1986"``, an integer
    1986) leaves the values as they are; a negative zero is no whole number."""
    assert as_whole_numbers(pd.Index([1986.0, "1986"], dtype=object)) is None
    assert as_whole_numbers(pd.Index([1986.0, 1986], dtype=object)) is None
    assert as_whole_numbers(pd.Index([1986.0, np.nan, "*"], dtype=object)).tolist()[::2] == [
        1986,
        "*",
    ]
    assert as_whole_numbers(pd.Index([1.5, 2**60 * 1.0])) is None
    assert not whole_floats(pd.Index([0.0, -0.0]))
    assert whole_floats(pd.Index([1.0, None], dtype="Float64"))


# -- any frame, any algorithm ---------------------------------------------------------------

PROPERTY_ALGORITHMS = [
    None,  # zero configuration
    "datafly",
    "exhaustive",
    "incognito",
    "local",
    "mondrian",
    "ola",
    "samarati",
    "tree",
    Mondrian(represent="mean"),
    Mondrian(represent="median"),
]


@st.composite
def year_frames(draw) -> pd.DataFrame:
    """A float column of whole numbers (a few distinct, negative ones and zero among them,
    some missing; at least one known), beside two columns of text."""
    n = draw(st.integers(4, 40))
    years = draw(
        st.lists(
            st.one_of(st.none(), st.integers(-3, 3), st.integers(1950, 1956)),
            min_size=n,
            max_size=n,
        )
    )
    if all(y is None for y in years):
        years[0] = 1950
    return pd.DataFrame(
        {
            "year": pd.array(years, dtype="Float64").astype("float64"),
            "town": draw(st.lists(st.sampled_from(["A", "B"]), min_size=n, max_size=n)),
            "sex": draw(st.lists(st.sampled_from(["F", "M"]), min_size=n, max_size=n)),
        }
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(frame=year_frames(), k=st.integers(1, 4), algo=st.sampled_from(PROPERTY_ALGORITHMS))
def test_any_release_of_whole_floats_writes_no_point_zero(frame, k, algo):
    """Whatever the frame and the algorithm (the sex the sensitive column, the tree's label),
    the written release holds no whole number with ``.0``, and the classes recounted on its
    CSV read back are the report's: its k, and how many."""
    qid = ["year", "town", "sex"] if algo is None else ["year", "town"]
    options = {} if algo is None else {"qid": qid, "algo": algo, "sensitive": "sex"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = pandas_anon.kanon(frame, k, max_suppression=0, **options)
        except (pandas_anon.InfeasibleError, pandas_anon.InvalidParameterError):
            event("refused")
            return
    table = written(out)
    assert point_zeros(table) == 0
    report = out.anon.report()
    assert report.suppressed == 0
    found = release_classes(table, [c for c in qid if c in table.columns], top=NEVER)
    assert (found["k"], found["classes"]) == (report.k_reached, report.classes)
