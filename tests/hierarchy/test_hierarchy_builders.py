"""Hierarchy builders on real columns (Valle d'Aosta licences, UCI Adult), their validation,
and a property test: every builder gives a valid hierarchy that covers the data and never splits
an equivalence class when it generalizes.

Expected values are computed here with plain pandas (string slicing, ``dt.strftime``, sorting
rows), not with the builders' code.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.datasets import load_adult, load_driver_licenses
from pandas_anon.errors import AnonWarning, HierarchyError, InvalidParameterError
from pandas_anon.hierarchy import TOP, Hierarchy
from pandas_anon.hierarchy.builders import (
    auto,
    dates,
    intervals,
    masking,
    row_groups,
    suppression,
    top_bottom,
)

from verify import naive_counts, verify_generalized

SEED_QID = ["anno_nascita", "comune_residenza", "sesso"]

# Postal codes (CAP) of the Valle d'Aosta municipalities in the licence data, from Poste
# Italiane's codes (Aosta has its own 11100; most small municipalities share 11010 or 11020).
# The few misspelt names in the data get their municipality's code.
CAP = {
    "AOSTA": "11100",
    "ALLEIN": "11010",
    "ANTEY-SAINT-ANDRE'": "11020",
    "ARNAD": "11020",
    "ARVIER": "11011",
    "AVISE": "11010",
    "AYAS": "11020",
    "AYMAVILLES": "11010",
    "BARD": "11020",
    "BIONAZ": "11010",
    "BRISSOGNE": "11020",
    "BRUSSON": "11022",
    "CHALLAND SAINT ANSELME": "11020",
    "CHALLAND SAINT VICTOR": "11020",
    "CHAMBAVE": "11023",
    "CHAMOIS": "11020",
    "CHAMPDEPRAZ": "11020",
    "CHAMPORCHER": "11020",
    "CHARVENSOD": "11020",
    "CHATILLON": "11024",
    "COGNE": "11012",
    "COURMAYEUR": "11013",
    "DONNAS": "11020",
    "DOUES": "11010",
    "EMARESE": "11020",
    "ETROUBLES": "11014",
    "FENIS": "11020",
    "FONTAINEMORE": "11020",
    "GABY": "11020",
    "GIGNOD": "11010",
    "GRESSAN": "11020",
    "GRESSONEY-LA-TRINITE'": "11020",
    "GRESSONEY SAINT JEAN": "11025",
    "GRESSONEY": "11025",
    "GRESSONAY SAN YEAN": "11025",
    "HONE": "11020",
    "INTROD": "11010",
    "ISSIME": "11020",
    "ISSOGNE": "11020",
    "JOVENCAN": "11020",
    "LA MAGDELEINE": "11020",
    "LA SALLE": "11015",
    "LA THUILE": "11016",
    "LILLIANES": "11020",
    "MONTJOVET": "11020",
    "MORGEX": "11017",
    "NUS": "11020",
    "OLLOMONT": "11010",
    "OYACE": "11010",
    "PERLOZ": "11020",
    "POLLEIN": "11020",
    "PONTBOSET": "11020",
    "PONTEY": "11024",
    "PONT SAINT MARTIN": "11026",
    "PRE' SAINT DIDIER": "11010",
    "QUART": "11020",
    "RHEMES-NOTRE-DAME": "11010",
    "RHEMES SAINT GEORGES": "11010",
    "RHEMES": "11010",
    "ROISAN": "11010",
    "SAINT-CHRISTOPHE": "11020",
    "SAINT DENIS": "11023",
    "SAINT MARCEL": "11020",
    "SAINT NICOLAS": "11010",
    "SAINT OYEN": "11014",
    "SAINT PIERRE": "11010",
    "SAINT RHEMY EN BOSSES": "11010",
    "SAINT VINCENT": "11027",
    "SARRE": "11010",
    "TORGNON": "11020",
    "VALGRISENCHE": "11010",
    "VALGRISENCE": "11010",
    "VALPELLINE": "11010",
    "VALSAVARENCHE": "11010",
    "VALTOURNENCHE": "11028",
    "VALTOURNENCE": "11028",
    "VERRAYES": "11020",
    "VERRES": "11029",
    "VILLENEUVE": "11018",
}
# CAPs of other Italian cities: Rome's start with 00, so they lose digits when read as numbers.
CITY_CAP = ["00118", "00153", "00184", "20121", "20162", "80121", "10121", "40121", "11100"]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_adult()


@pytest.fixture(scope="module")
def cap(_licences: pd.DataFrame) -> pd.Series:
    """A CAP column for every licence holder, from their municipality of residence."""
    return _licences["comune_residenza"].map(CAP).astype("str").rename("cap")


def check_hierarchy(h: Hierarchy, data: pd.Series) -> None:
    """The contract every builder keeps, checked with plain pandas."""
    present = data.dropna()
    # level 0: the distinct non-missing values, each once, sorted when orderable
    assert len(h.values) == present.nunique()
    assert not h.values.hasnans
    assert set(h.values.tolist()) == set(present.unique().tolist())
    try:
        expected = sorted(h.values.tolist())
    except TypeError:
        expected = None
    if expected is not None:
        assert h.values.tolist() == expected
    # monotone: every label of a level has exactly one parent at the next level
    table = h.to_frame()
    assert len(table.columns) == h.n_levels
    for low, high in zip(table.columns[:-1], table.columns[1:]):
        assert table.groupby(low, sort=False)[high].nunique().max() == 1, (low, high)
    assert table.iloc[:, -1].nunique() == 1  # one top label
    # generalizing the rows never splits a class, and missing stays missing
    generalized = [h.generalize(data, j) for j in range(h.n_levels)]
    for j, column in enumerate(generalized):
        assert column.index.equals(data.index)
        assert (column.isna() == data.isna()).all(), j
    if len(present):
        for finer, coarser in zip(generalized[:-1], generalized[1:]):
            rows = pd.DataFrame({"f": finer, "c": coarser}).dropna()
            assert rows.groupby("f", sort=False)["c"].nunique().max() == 1


def bounds(label: str) -> tuple[float, float, str]:
    """(low, high, closing bracket) of "[a, b)" / "[a, b]"."""
    match = re.fullmatch(r"\[(-?[\d.e+-]+), (-?[\d.e+-]+)([)\]])", label)
    assert match, label
    return float(match[1]), float(match[2]), match[3]


# -- intervals --------------------------------------------------------------------------------


def test_groups_of_four_are_four_consecutive_distinct_years(licences):
    years = licences["anno_nascita"]
    h = intervals(years, groups_of=4)
    distinct = sorted(years.dropna().unique().tolist())
    assert len(distinct) == 85 and 1919 not in distinct  # the gap a width-4 cut would not see
    table = h.to_frame()
    groups = table.groupby(table.columns[1], sort=False)[table.columns[0]].agg(list)
    assert len(groups) == 22  # 21 groups of 4 and 2003 alone
    expected = [distinct[i : i + 4] for i in range(0, 85, 4)]
    assert [list(map(int, g)) for g in groups] == expected
    for label, members in groups.items():
        assert label == f"[{min(members)}, {max(members)}]"
    assert h.labels(1)[0] == "[1918, 1922]" and h.labels(1)[-1] == "[2003, 2003]"


def test_year_ranges_reproduce_the_seed_papers_y_ran_row(licences):
    """Table 1 of Pastore et al., Valle d'Aosta, row Y_ran: 198 singletons, 2,739 distinct."""
    complete = licences.dropna(subset=SEED_QID)
    assert len(complete) == 87_464
    over_all = intervals(licences["anno_nascita"], groups_of=4)
    over_complete = intervals(complete["anno_nascita"], groups_of=4)
    assert over_all == over_complete  # the same 85 years either way
    for h in (over_all, over_complete):
        generalized = licences.assign(anno_nascita=h.generalize(licences["anno_nascita"], 1))
        found = pandas_anon.singletons(generalized, SEED_QID)
        assert (found.count, found.distinct, found.examined) == (198, 2_739, 87_464)
        assert naive_counts(generalized, SEED_QID)["singletons"] == 198
    # aligned intervals of 4 years are a different grouping, with a different count
    aligned = intervals(licences["anno_nascita"], width=4).generalize(licences["anno_nascita"], 1)
    assert pandas_anon.singletons(licences.assign(anno_nascita=aligned), SEED_QID).count != 198


def test_widths_on_adult_age(adult):
    age = adult["age"]
    h = intervals(age, width=[5, 10, 20], name="age")
    assert h.name == "age" and h.n_levels == 5
    assert h.level_names == ("age", "width 5", "width 10", "width 20", TOP)
    table = h.to_frame()
    for j, width in enumerate([5, 10, 20], start=1):
        for value, label in zip(table["age"], table.iloc[:, j]):
            low, high, closing = bounds(label)
            assert closing == ")" and high - low == width and low % width == 0
            assert low <= value < high
    assert h.generalize(age, 1)[age == 34].unique().tolist() == ["[30, 35)"]
    assert h.generalize(age, 1)[age == 35].unique().tolist() == ["[35, 40)"]
    assert list(h.labels(3)) == ["[0, 20)", "[20, 40)", "[40, 60)", "[60, 80)", "[80, 100)"]
    check_hierarchy(h, age)


def test_whole_floats_print_as_integers(licences):
    years = licences["anno_nascita"].astype("float64")  # what read_csv gives next to a NaN
    assert years.isna().sum() == 1
    for h in (
        intervals(years, width=5),
        intervals(years, groups_of=4),
        intervals(years, cuts=[1940, 1960]),
        top_bottom(years, bottom=1930),
        row_groups(years, min_rows=1_000),
    ):
        text = " ".join(h.labels(1))
        assert ".0" not in text, text
    assert "[1940, 1945)" in intervals(years, width=5).labels(1)


def test_fractional_widths_put_values_in_the_right_interval():
    values = pd.Series([0.3, 0.1, 0.7, 0.25, 0.6, 1.0, -0.1, np.nan], name="x")
    h = intervals(values, width=[0.1, 0.2])
    got = dict(zip(h.to_frame()["x"], h.to_frame()["width 0.1"]))
    assert got[0.3] == "[0.3, 0.4)" and got[0.7] == "[0.7, 0.8)" and got[0.6] == "[0.6, 0.7)"
    assert got[0.1] == "[0.1, 0.2)" and got[1.0] == "[1.0, 1.1)" and got[-0.1] == "[-0.1, 0.0)"
    check_hierarchy(h, values)


def test_cuts_on_adult_age(adult):
    age = adult["age"]
    h = intervals(age, cuts=[[18, 25, 35, 45, 55, 65], [25, 45, 65]])
    table = h.to_frame().set_index("age")
    assert table.loc[17].tolist() == ["< 18", "< 25", TOP]
    assert table.loc[18].tolist() == ["[18, 25)", "< 25", TOP]
    assert table.loc[30].tolist() == ["[25, 35)", "[25, 45)", TOP]
    assert table.loc[65].tolist() == [">= 65", ">= 65", TOP]
    assert table.loc[90].tolist() == [">= 65", ">= 65", TOP]
    expected = pd.cut(age, [-np.inf, 18, 25, 35, 45, 55, 65, np.inf], right=False).astype(str)
    generalized = h.generalize(age, 1)
    assert (generalized.groupby(expected).nunique() == 1).all()  # same partition as pd.cut
    check_hierarchy(h, age)


# -- row groups -------------------------------------------------------------------------------


@pytest.mark.parametrize("min_rows", [1, 500, 2_000, 30_000])
def test_row_groups_hold_min_rows_without_splitting_years(licences, min_rows):
    years = licences["anno_nascita"]
    h = row_groups(years, min_rows=min_rows)
    generalized = h.generalize(years, 1)
    sizes = generalized.value_counts()
    assert sizes.min() >= min_rows
    assert (generalized.groupby(years).nunique() == 1).all()  # a year is in one group
    # greedy: every group but the last would fall under min_rows without its last year
    per_year = years.value_counts().sort_index()
    labels = list(h.labels(1))
    for label in labels[:-1]:
        low, high, closing = bounds(label)
        assert closing == "]"
        inside = per_year[(per_year.index >= low) & (per_year.index <= high)]
        assert inside.iloc[:-1].sum() < min_rows <= inside.sum()
    check_hierarchy(h, years)


def test_row_groups_median_and_first_are_values_of_the_group(licences):
    years = licences["anno_nascita"]
    ranges = row_groups(years, min_rows=2_000).generalize(years, 1)
    median = row_groups(years, min_rows=2_000, label="median")
    first = row_groups(years, min_rows=2_000, label="first")
    assert median.labels(1).dtype == years.dtype and first.labels(1).dtype == years.dtype
    by_median, by_first = median.generalize(years, 1), first.generalize(years, 1)
    for label, rows in years.dropna().groupby(ranges.dropna()):
        ordered = rows.sort_values().to_numpy()
        assert set(by_median[rows.index]) == {ordered[(len(ordered) - 1) // 2]}, label
        assert set(by_first[rows.index]) == {ordered[0]}, label
    check_hierarchy(median, years)
    check_hierarchy(first, years)


def test_row_groups_median_is_the_lower_middle_row():
    even = pd.Series([1, 1, 2, 2, 9, 9, 9])  # one group of 7 rows: 4th row; of [1, 1, 2, 2]: 2nd
    assert row_groups(even, min_rows=7, label="median").labels(1).tolist() == [2]
    assert row_groups(even, min_rows=3, label="median").labels(1).tolist() == [1, 9]
    assert row_groups(even, min_rows=3, label="first").labels(1).tolist() == [1, 9]


def test_row_groups_short_tail_joins_the_previous_group():
    values = pd.Series([1, 1, 2, 2, 3, 3, 4])  # groups of >= 2 rows: 1 | 2 | 3 | 4 (1 row)
    h = row_groups(values, min_rows=2)
    assert list(h.labels(1)) == ["[1, 1]", "[2, 2]", "[3, 4]"]
    assert list(row_groups(values, min_rows=100).labels(1)) == ["[1, 4]"]


# -- masking ----------------------------------------------------------------------------------


def test_masking_cap_codes(cap):
    h = masking(cap)
    assert h.n_levels == 6  # 5 characters masked one by one; "*****" is the top
    chain = h.to_frame().set_index("cap").loc["11100"].tolist()
    assert chain == ["1110*", "111**", "11***", "1****", "*****"]
    for j in range(1, 6):
        expected = cap.str[: 5 - j] + "*" * j
        assert h.generalize(cap, j).equals(expected), j
    assert cap.nunique() == 19
    assert list(h.labels(1)) == ["1101*", "1102*", "1110*"]
    assert list(h.labels(2)) == ["110**", "111**"]
    check_hierarchy(h, cap)


def test_masking_keeps_lengths_and_limits_levels():
    codes = pd.Series(["00118", "118", "20121", None, "11100"], name="cap")
    h = masking(codes, levels=2)
    table = h.to_frame().set_index("cap")
    assert table.loc["118"].tolist() == ["11*", "1**", TOP]
    assert table.loc["00118"].tolist() == ["0011*", "001**", TOP]
    assert masking(codes).labels(5).tolist() == ["*****", "***"]  # one per length, then "*"
    assert masking(codes, char="#").labels(1).tolist() == ["0011#", "1110#", "11#", "2012#"]
    check_hierarchy(h, codes)


def test_masking_numbers_uses_their_text_and_warns_about_lost_zeros():
    numeric = pd.Series(CITY_CAP, name="cap").astype("int64")  # 00118 read as 118
    with pytest.warns(AnonWarning, match="leading zeros"):
        h = masking(numeric)
    assert h.to_frame().set_index("cap").loc[118].tolist()[:3] == ["11*", "1**", "***"]
    same_length = pd.Series([11100, 11020, np.nan], name="cap")  # whole floats: no ".0"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert masking(same_length).labels(1).tolist() == ["1102*", "1110*"]
    with pytest.raises(HierarchyError, match="fractional"):
        masking(pd.Series([1.5, 2.25], name="weight"))


# -- dates ------------------------------------------------------------------------------------


def test_dates_on_licence_issue_dates(licences):
    issued = licences["data_rilascio"]
    assert issued.isna().sum() == 3
    h = dates(issued)
    assert h.level_names == ("data_rilascio", "month", "year", "decade", TOP)
    present = issued.notna()
    assert h.generalize(issued, 1)[present].equals(issued[present].dt.strftime("%Y-%m"))
    assert h.generalize(issued, 2)[present].equals(issued[present].dt.strftime("%Y"))
    first_year = issued[present].dt.year // 10 * 10
    decade = first_year.astype(str) + "/" + (first_year + 9).astype(str)
    assert h.generalize(issued, 3)[present].equals(decade)
    assert h.generalize(issued, 3).isna().sum() == 3
    check_hierarchy(h, issued)

    quarters = dates(issued, levels=("quarter", "year"))
    year, first = issued[present].dt.year.astype(str), (issued[present].dt.quarter - 1) * 3 + 1
    expected = (
        year
        + "-"
        + first.map("{:02d}".format)
        + "/"
        + year
        + "-"
        + (first + 2).map("{:02d}".format)
    )
    assert quarters.generalize(issued, 1)[present].equals(expected)
    check_hierarchy(quarters, issued)


def test_dates_accepts_date_objects_and_times(licences):
    issued = licences["data_rilascio"]
    as_dates = issued.dt.date.astype(object).where(issued.notna(), None)
    h = dates(as_dates, levels=["year"])
    assert h.generalize(as_dates, 1)[issued.notna()].equals(issued.dt.strftime("%Y").dropna())
    timed = pd.Series(pd.to_datetime(["1960-01-01 12:30", "1960-01-01 08:00", "1969-12-31 23:59"]))
    h = dates(timed, levels=("day", "decade"))
    assert h.to_frame().iloc[:, 1].tolist() == ["1960-01-01", "1960-01-01", "1969-12-31"]
    check_hierarchy(h, timed)


def test_dates_at_the_lower_bound_of_nanoseconds():
    """numpy's cast from ns to days overflows within a day of 1677-09-21, the first day
    datetime64[ns] holds: 1677-09-22 was labelled 2262-04-11 (and a column also holding
    2262-04-11 raised HierarchyError)."""
    stamps = pd.Series(
        np.array(
            ["1677-09-21T12:00", "1677-09-22T00:00", "2262-04-11T00:00", "2000-01-01T10:00"],
            dtype="datetime64[ns]",
        )
    )
    h = dates(stamps, levels=("day", "month", "year"))
    assert h.generalize(stamps, 1).tolist() == stamps.dt.strftime("%Y-%m-%d").tolist()
    assert h.generalize(stamps, 2).tolist() == ["1677-09", "1677-09", "2262-04", "2000-01"]
    check_hierarchy(h, stamps)


def test_dates_refuses_text(licences):
    raw = load_driver_licenses(parse_dates=False)["data_rilascio"]
    with pytest.raises(HierarchyError, match=r"'data_rilascio'.*pd\.to_datetime"):
        dates(raw)


# -- top/bottom coding, suppression -----------------------------------------------------------


def test_top_bottom_on_adult_age(adult):
    age = adult["age"]
    h = top_bottom(age, bottom=20, top=90)
    generalized = h.generalize(age, 1)
    assert (generalized == "< 20").sum() == (age < 20).sum() > 0
    assert (generalized == ">= 90").sum() == (age >= 90).sum() > 0
    kept = (age >= 20) & (age < 90)
    assert generalized[kept].equals(age[kept].astype(str))
    assert h.level_names[-1] == TOP and h.n_levels == 3
    only_top = top_bottom(age, top=80)
    assert set(only_top.labels(1)) == {str(a) for a in range(17, 80) if a in set(age)} | {">= 80"}
    check_hierarchy(h, age)


def test_suppression_on_sex(licences):
    sex = licences["sesso"]
    h = suppression(sex)
    assert h.values.tolist() == ["F", "M"] and h.n_levels == 2
    generalized = h.generalize(sex, 1)
    assert (generalized[sex.notna()] == TOP).all() and generalized.isna().sum() == 177
    check_hierarchy(h, sex)
    check_hierarchy(suppression(sex.astype("category")), sex.astype("category"))


# -- auto ---------------------------------------------------------------------------------------


def test_auto_on_each_kind_of_column(licences, adult):
    chosen = {
        "anno_nascita": "anno_nascita auto:intervals(5,10,20)",
        "data_rilascio": "data_rilascio auto:dates(month,quarter,year,decade)",
        "sesso": "sesso auto:suppression",
        "comune_residenza": "comune_residenza auto:suppression",
    }
    for column, name in chosen.items():
        h = auto(licences[column])
        assert h.name == name
        check_hierarchy(h, licences[column])
    assert auto(adult["age"]).name == "age auto:intervals(5,10,20)"
    assert auto(adult["age"], name="eta").name == "eta auto:intervals(5,10,20)"
    assert auto(adult["age"].to_numpy()).name == "auto:intervals(5,10,20)"
    months = licences["data_rilascio"].dt.month  # 12 distinct numbers: suppression
    assert auto(months).name == "data_rilascio auto:suppression"
    assert auto(licences["sesso"] == "F").name == "sesso auto:suppression"
    assert auto(adult["age"]) == intervals(adult["age"], width=[5, 10, 20])


@pytest.mark.parametrize(
    "form",
    ["%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%d/%m/%Y", "%d-%m-%Y", "%d.%m.%Y", "%Y/%m/%d", "%m/%d/%Y"],
)
@pytest.mark.parametrize("dtype", [object, "str"])
def test_auto_reads_text_dates_as_dates(licences, form, dtype):
    """Dates read as text (as every CSV reader without parse_dates reads them) are dates to
    zero configuration: generalized along the calendar, each level's label the one the
    independent verifier derives from the text, the text itself kept at level 0."""
    stamps = licences["data_rilascio"].dropna().iloc[:3000]
    text = stamps.dt.strftime(form).astype(dtype)
    h = auto(text)
    assert h.name == "data_rilascio auto:dates(month,quarter,year,decade)"
    check_hierarchy(h, text)
    assert set(h.values) == set(text)  # written as read
    for level in range(1, 5):
        generalized = h.labels(level).take(h.codes(level)[h.lookup(pd.Index(text))])
        # the verifier reads the dates themselves (a month-first text it would read day first)
        verify_generalized(stamps, pd.Series(generalized), h.name, level, np.ones(3000, bool))
    on_dates = auto(stamps)
    assert [sorted(on_dates.labels(j)) for j in (1, 2, 3, 4)] == [
        sorted(h.labels(j)) for j in (1, 2, 3, 4)
    ]


def test_auto_leaves_text_that_is_not_all_dates_to_suppression(licences):
    """Years, codes, and a date column with one value in another form are no dates."""
    text = licences["data_rilascio"].dropna().iloc[:500].dt.strftime("%Y-%m-%d")
    assert auto(text).name.endswith("auto:dates(month,quarter,year,decade)")
    assert auto(text.where(text.index != text.index[-1], "31/12/1999")).name.endswith(
        "auto:suppression"
    )
    assert auto(pd.Series(["1983", "2001"] * 20)).name == "auto:suppression"
    assert auto(pd.Series(["1983-13-01", "2001-01-01"])).name == "auto:suppression"  # no 13th month
    with_missing = text.where(text.index % 7 != 0)  # missing values are no obstacle
    assert auto(with_missing).name.endswith("auto:dates(month,quarter,year,decade)")


def test_auto_widths_follow_the_documented_rule(licences):
    points = licences["punti_patente"]
    h = auto(points)
    widths = [float(w) for w in re.findall(r"[\d.]+", h.name.split("intervals")[1])]
    spread = points.max() - points.min()
    assert 2 <= len(h.labels(1)) <= 20 and max(widths) <= spread
    smaller = widths[0] / {1: 2, 2: 2, 5: 2.5}[int(f"{widths[0]:e}"[0])]  # previous nice width
    assert len(intervals(points, width=smaller).labels(1)) > 20
    for finer, coarser in zip(widths, widths[1:]):
        assert coarser / finer in (2, 5)
    # 0..50: width 2 would give 26 intervals (> 20), so 5; then 10, 20 (100 exceeds the range)
    assert auto(pd.Series(range(51))).name == "auto:intervals(5,10,20)"
    assert auto(pd.Series(range(19))).name == "auto:suppression"  # 19 distinct values
    small = pd.Series(np.linspace(0.0, 0.37, 50))
    assert auto(small).name == "auto:intervals(0.02,0.1,0.2)"
    check_hierarchy(auto(small), small)


# -- validation ---------------------------------------------------------------------------------


def test_validation_errors(licences, adult):
    age, years = adult["age"], licences["anno_nascita"]
    cases = [
        (lambda: intervals(age, width=5, cuts=[18]), InvalidParameterError, "exactly one"),
        (lambda: intervals(age), InvalidParameterError, "exactly one"),
        (
            lambda: intervals(age, cuts=[[18, 30, 65], [18, 50]]),
            InvalidParameterError,
            r"not coarser.*\[50\]",
        ),
        (lambda: intervals(age, cuts=[[18, 65], [18, 65]]), InvalidParameterError, "drops no cut"),
        (lambda: intervals(age, cuts=[30, 18]), InvalidParameterError, "increasing"),
        (lambda: intervals(age, width=[5, 12]), InvalidParameterError, "not a multiple"),
        (lambda: intervals(age, width=[10, 5]), InvalidParameterError, "not a multiple"),
        (lambda: intervals(age, width=0), InvalidParameterError, "positive"),
        (lambda: intervals(age, groups_of=2.5), InvalidParameterError, "whole"),
        (
            lambda: intervals(licences["comune_residenza"], width=5),
            HierarchyError,
            r"'comune_residenza'.*pd\.to_numeric",
        ),
        (lambda: row_groups(years, min_rows=0), InvalidParameterError, "min_rows"),
        (lambda: row_groups(years, min_rows=True), InvalidParameterError, "min_rows"),
        (lambda: row_groups(years, min_rows=2, label="mean"), InvalidParameterError, "label"),
        (lambda: masking(pd.Series(CITY_CAP), levels=6), InvalidParameterError, "from 1 to 5"),
        (lambda: masking(pd.Series(CITY_CAP), char="**"), InvalidParameterError, "char"),
        (lambda: masking(licences["data_rilascio"]), HierarchyError, r"dates\(\)"),
        (
            lambda: dates(licences["data_rilascio"], levels=("year", "month")),
            InvalidParameterError,
            "fine to coarse",
        ),
        (
            lambda: dates(licences["data_rilascio"], levels=("week",)),
            InvalidParameterError,
            "some of",
        ),
        (lambda: dates(years), HierarchyError, "needs dates"),
        (lambda: top_bottom(age), InvalidParameterError, "bottom=, top="),
        (lambda: top_bottom(age, bottom=90, top=20), InvalidParameterError, "swap"),
        (lambda: top_bottom(age, top=float("nan")), InvalidParameterError, "finite"),
        (lambda: suppression(licences[SEED_QID]), HierarchyError, "one column"),
        (lambda: intervals(pd.Series([1.0, np.inf]), width=1), HierarchyError, "infinite"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


@pytest.mark.parametrize(
    "build",
    [
        lambda s: intervals(s, width=5),
        lambda s: row_groups(s, min_rows=2),
        lambda s: masking(s),
        lambda s: dates(s),
        lambda s: top_bottom(s, top=1),
        suppression,
        auto,
    ],
)
def test_no_values_is_a_hierarchy_error(build):
    empty = pd.Series([np.nan, None, np.nan], name="anno_nascita", dtype=object)
    with pytest.raises(HierarchyError, match="'anno_nascita' has no value"):
        build(empty)
    with pytest.raises(HierarchyError, match="no value"):
        build(pd.Series([], dtype="float64"))


def test_inputs_are_not_mutated(licences):
    before = licences.copy()
    for column in ["anno_nascita", "data_rilascio", "sesso", "comune_residenza"]:
        auto(licences[column])
    row_groups(licences["anno_nascita"], min_rows=100)
    pd.testing.assert_frame_equal(licences, before)


# -- properties -----------------------------------------------------------------------------------


@st.composite
def built(draw) -> tuple[Hierarchy, pd.Series]:
    """A random column and a builder (with valid parameters) applied to it."""
    n = draw(st.integers(1, 60))
    kind = draw(
        st.sampled_from(["int", "Int64", "float", "whole float", "text", "date", "category"])
    )
    picks = np.array(draw(st.lists(st.integers(-50, 150), min_size=n, max_size=n)))
    holes = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    holes[draw(st.integers(0, n - 1))] = False  # at least one value
    if kind == "int":
        data = pd.Series(picks * 3, name="x")
    elif kind == "Int64":
        data = pd.Series(pd.array(picks, dtype="Int64")).mask(holes).rename("x")
    elif kind == "float":
        data = pd.Series(np.where(holes, np.nan, picks / 7.0), name="x")
    elif kind == "whole float":
        data = pd.Series(np.where(holes, np.nan, picks + 1950.0), name="x")
    elif kind == "date":
        start = pd.Timestamp("1999-12-01")
        data = (
            (start + pd.to_timedelta(picks * 11, unit="D"))
            .to_series()
            .reset_index(drop=True)
            .mask(holes)
            .rename("x")
        )
    else:
        text = pd.Series(
            [f"{abs(p) * 37 % 100_000:0{2 + abs(p) % 4}d}" for p in picks], name="x"
        ).mask(holes)
        data = text.astype("category") if kind == "category" else text.astype("str")
    numeric = kind in ("int", "Int64", "float", "whole float")
    options = ["suppression", "auto", "row_groups"]
    options += ["width", "cuts", "groups_of", "top_bottom"] if numeric else []
    options += ["dates"] if kind == "date" else []
    options += ["masking"] if kind in ("text", "category") else []
    builder = draw(st.sampled_from(options))
    if builder == "width":
        widths = draw(st.sampled_from([[1], [2, 4], [5, 10, 20], [0.5, 1, 5], [0.1, 0.2], [7]]))
        return intervals(data, width=widths), data
    if builder == "cuts":
        points = sorted(set(draw(st.lists(st.integers(-60, 160), min_size=1, max_size=6))))
        nested = [points]
        while len(nested[-1]) > 1 and draw(st.booleans()):
            nested.append(
                sorted(
                    draw(
                        st.sets(
                            st.sampled_from(nested[-1]), min_size=1, max_size=len(nested[-1]) - 1
                        )
                    )
                )
            )
        return intervals(data, cuts=nested), data
    if builder == "groups_of":
        return intervals(data, groups_of=draw(st.sampled_from([1, 2, 3, [2, 4], [3, 9]]))), data
    if builder == "top_bottom":
        low = draw(st.integers(-60, 160))
        return top_bottom(data, bottom=low, top=low + draw(st.integers(0, 80))), data
    if builder == "row_groups":
        label = draw(st.sampled_from(["range", "median", "first"]))
        return row_groups(data, min_rows=draw(st.integers(1, 12)), label=label), data
    if builder == "dates":
        levels = draw(
            st.lists(
                st.sampled_from(["day", "month", "quarter", "year", "decade"]),
                min_size=1,
                max_size=5,
                unique=True,
            )
        )
        levels.sort(key=["day", "month", "quarter", "year", "decade"].index)
        return dates(data, levels=levels), data
    if builder == "masking":
        return masking(data, levels=draw(st.integers(1, 2))), data
    return {"suppression": suppression, "auto": auto}[builder](data), data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(built())
def test_every_builder_gives_a_valid_covering_hierarchy(case):
    h, data = case
    check_hierarchy(h, data)
    name = h.level_names[1]
    if pd.api.types.is_numeric_dtype(data) and (
        name.startswith(("width", "cuts", "groups of")) or "(range)" in name
    ):
        table = h.to_frame()
        for value, label in zip(table.iloc[:, 0], table.iloc[:, 1]):
            if label.startswith("<"):
                assert value < float(label[2:])
            elif label.startswith(">="):
                assert value >= float(label[3:])
            else:
                low, high, closing = bounds(label)
                assert low <= value and (value < high if closing == ")" else value <= high)
    if "rows" in name:
        min_rows = int(name.split("+")[0])
        sizes = h.generalize(data, 1).value_counts()
        assert sizes.min() >= min(min_rows, int(data.notna().sum()))
