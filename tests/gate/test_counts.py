"""``pandas-anon check`` on count tables: small cells, people per class, bad counts.

Hand-built tables with known small cells give exact counts (long and wide forms, zeros,
withheld cells); a count table and the same table exploded to one row per person get the
same verdict (property test); counts that no table of people can hold exit 2 naming their
column; no report quotes a value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pandas_anon.cli.check import FORMATS
from pandas_anon.cli.main import main


def check(capsys, *argv: str) -> tuple[int, dict, str]:
    """Exit status, the JSON report of the one file checked, and stderr."""
    code = main(["check", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    files = json.loads(out)["files"] if out else [{}]
    return code, files[0], err


#: Long form: 3 cells of 1 or 2 people, a zero, a withheld cell (missing), 23 people.
LONG = """date,area,sex,n
2024-01-01,Aosta,m,1
2024-01-01,Aosta,f,6
2024-01-01,Ivrea,m,0
2024-01-01,Ivrea,f,2
2024-01-02,Aosta,m,
2024-01-02,Aosta,f,5
2024-01-02,Ivrea,m,8
2024-01-02,Ivrea,f,1
"""

#: The same cells, wide: one count column per sex.
WIDE = """date,area,m,f
2024-01-01,Aosta,1,6
2024-01-01,Ivrea,0,2
2024-01-02,Aosta,,5
2024-01-02,Ivrea,8,1
"""


@pytest.fixture
def long_csv(tmp_path) -> Path:
    (path := tmp_path / "long.csv").write_text(LONG)
    return path


@pytest.fixture
def wide_csv(tmp_path) -> Path:
    (path := tmp_path / "wide.csv").write_text(WIDE)
    return path


def test_small_cells_of_a_long_table(capsys, long_csv):
    code, found, _ = check(capsys, str(long_csv), "--count", "n", "--min-count", "3")
    assert code == 1
    assert found["cells"] == {
        "min_count": 3,
        "cells": 7,  # 8 cells, one withheld
        "withheld": 1,
        "small": 3,  # 1, 2, 1 (the 0 is no one)
        "people_in_small": 4,
        "small_by_column": {"n": 3},
    }
    assert found["rows"] == found["examined"] == 23 and found["unit"] == "people"
    assert found["problems"][0] == (
        "3 of 7 published cells count from 1 to 2 people (4 people in all; by count column: "
        "n: 3), below the minimum count of 3"
    )
    code, found, _ = check(capsys, str(long_csv), "--count", "n", "--min-count", "2")
    assert found["cells"]["small"] == 2 and found["cells"]["people_in_small"] == 2


def test_small_cells_of_a_wide_table_by_count_column(capsys, wide_csv):
    code, found, _ = check(
        capsys, str(wide_csv), "--counts", "m,f", "--dimension", "sex", "--min-count", "6"
    )
    assert code == 1
    assert found["cells"]["small_by_column"] == {"m": 1, "f": 3}  # m: 1; f: 2, 5, 1
    assert (found["cells"]["cells"], found["cells"]["withheld"]) == (7, 1)
    assert found["cells"]["people_in_small"] == 9


def test_wide_and_long_forms_get_the_same_figures(capsys, long_csv, wide_csv):
    qid = ["--qid", "area,sex", "--k", "8"]
    _, long_found, _ = check(capsys, str(long_csv), "--count", "n", *qid)
    _, wide_found, _ = check(capsys, str(wide_csv), "--counts", "m,f", "--dimension", "sex", *qid)
    for key in ("rows", "singletons", "distinct", "k", "problems"):
        assert long_found[key] == wide_found[key], key
    # classes: (Aosta, m) 1 (and a withheld cell), (Aosta, f) 11, (Ivrea, m) 8, (Ivrea, f) 3
    assert long_found["problems"] == [
        "k = 1 on (area, sex), below the 8 required: 4 people in classes of fewer than 8"
    ]


def test_classes_sum_the_cells_of_the_other_dimensions(capsys, long_csv):
    """On (area, sex) the classes are Aosta m 1, Aosta f 11, Ivrea m 8, Ivrea f 3."""
    code, found, _ = check(capsys, str(long_csv), "--count", "n", "--qid", "area,sex", "--k", "5")
    assert code == 1
    assert (found["k"], found["singletons"], found["distinct"]) == (1, 1, 4)
    assert found["problems"] == [
        "k = 1 on (area, sex), below the 5 required: 4 people in classes of fewer than 5"
    ]
    code, found, _ = check(capsys, str(long_csv), "--count", "n", "--qid", "sex", "--k", "5")
    assert (code, found["k"]) == (0, 9)  # m 9, f 14


@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ("2.5", "1 cell is not a whole number (at row position 4)"),
        ("-1", "1 cell is negative (at row position 4)"),
        ("many", "1 cell is not a number (at row position 4)"),
    ],
)
def test_a_count_no_table_of_people_holds_exits_2(capsys, tmp_path, cell, problem):
    path = tmp_path / "bad.csv"
    path.write_text(WIDE.replace("2024-01-02,Aosta,,5", f"2024-01-02,Aosta,{cell},5"))
    path.write_text(LONG.replace("2024-01-02,Aosta,m,\n", f"2024-01-02,Aosta,m,{cell}\n"))
    code, found, err = check(capsys, str(path), "--count", "n")
    assert code == 2 and found["status"] == "error"
    assert err.strip() == (
        f"pandas-anon: error: {path}: count column 'n': {problem}; counts must be whole "
        f"numbers of people, 0 or more (a missing count is a withheld cell)"
    )


def test_count_settings_from_the_configuration(capsys, tmp_path, wide_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".pandas-anon.toml").write_text(
        '[[rules]]\nfiles = "wide*.csv"\ncounts = ["m", "f"]\ndimension = "sex"\nmin_count = 3\n'
    )
    code, found, _ = check(capsys, "wide.csv")
    assert code == 1 and found["cells"]["small"] == 3 and found["cells"]["min_count"] == 3
    code, found, _ = check(capsys, "wide.csv", "--min-count", "1")  # the command line wins
    assert found["cells"]["small"] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--min-count", "3"], "min_count and dimension are for count tables"),
        (["--count", "n", "--dimension", "sex"], "a table with one count column needs none"),
        (
            ["--counts", "m,f", "--dimension", "area"],
            "dimension ('area'), but the table already has one",
        ),
        (["--count", "nope"], "column 'nope' not found"),
    ],
)
def test_count_settings_that_do_not_fit_exit_2(capsys, wide_csv, argv, message):
    code, _, err = check(capsys, str(wide_csv), *argv)
    assert code == 2 and message in err


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_dimension_value_of_a_small_cell_in_any_report(capsys, tmp_path, fmt):
    path = tmp_path / "secret.csv"
    path.write_text("town,age,m,f\nZEBULONVILLE,AGE_77,1,0\nAosta,30-39,12,15\nAosta,40-49,20,22\n")
    code = main(["check", str(path), "--counts", "m,f", "--min-count", "5", "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 1
    for value in ("ZEBULONVILLE", "AGE_77"):
        assert value not in out + err


# -- property: a count table and its exploded form get the same verdict -----------------------


@st.composite
def count_tables(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 12))
    cells = st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)
    frame = pd.DataFrame(
        {"town": draw(cells), "sex": draw(cells), "band": draw(cells)},
    )
    counts = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    if not any(counts):
        counts[0] = 1
    frame["n"] = counts
    return frame


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    count_tables(),
    st.sampled_from([[], ["--qid", "town,sex"], ["--qid", "town,sex,band", "--k", "3"]]),
    st.sampled_from([[], ["--max-singletons", "1"], ["--k", "2"]]),
)
def test_a_count_table_gets_the_verdict_of_its_exploded_rows(capsys, tmp_path, frame, qid, limit):
    counted, people = tmp_path / "counted.csv", tmp_path / "people.csv"
    frame.to_csv(counted, index=False)
    exploded = frame.loc[frame.index.repeat(frame["n"])].drop(columns="n")
    exploded.to_csv(people, index=False)
    code, found, _ = check(capsys, str(counted), "--count", "n", *qid, *limit)
    if exploded.empty:
        return
    plain_code, plain, _ = check(capsys, str(people), *qid, *limit)
    assert code == plain_code
    assert found["status"] == plain["status"]
    found.pop("unit", None), found.pop("cells", None)
    for key in ("qid", "rows", "examined", "singletons", "distinct", "k", "limits"):
        assert found.get(key) == plain.get(key), key

    def in_rows(problems: list[str]) -> list[str]:
        return [p.replace("people", "rows").replace("person", "row") for p in problems]

    assert in_rows(found["problems"]) == in_rows(plain["problems"])
