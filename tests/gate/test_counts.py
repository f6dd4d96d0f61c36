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
        "recovered_by_totals": [],  # no total: nothing given back
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


# -- zero configuration: a table that looks like counts is declared, not hashed ----------------


@pytest.fixture(scope="module")
def licences() -> pd.DataFrame:
    from pandas_anon.datasets import load_driver_licenses

    return load_driver_licenses()


def test_a_safe_count_table_asks_for_its_declaration(capsys, tmp_path, licences):
    """The licences counted by 5-year birth band and sex, every cell of 16 people or more
    (33 cells): with no configuration the gate said ''n' identifies people on its own: drop
    it, hash it' (exit 1); it now names the lines declaring the count (exit 2), and the table
    declared so passes."""
    born = licences["anno_nascita"] // 5 * 5
    band = born.astype("Int64").astype(str) + "-" + (born + 4).astype("Int64").astype(str)
    cells = licences.assign(nascita=band).groupby(["nascita", "sesso"]).size()
    table = cells[cells >= 16].rename("n").reset_index()
    assert len(table) == 33 and table["n"].min() >= 16
    path = tmp_path / "patenti.csv"
    table.to_csv(path, index=False)
    code, found, err = check(capsys, str(path))
    assert code == 2 and found["status"] == "error"
    assert "hash it" not in err
    assert (
        "looks like a count table (count column 'n' beside the dimensions (nascita, sesso))" in err
    )
    assert f'[[rules]], files = "{path}", count = "n"' in err
    assert "--count n" in err
    code, found, _ = check(capsys, str(path), "--count", "n", "--min-count", "3")
    assert code == 0 and found["rows"] == int(table["n"].sum())


def test_a_person_level_file_is_not_taken_for_counts(capsys, tmp_path, licences):
    """Records with a count-named column of whole numbers beside a record number: the gate
    judges them as people still (the record number fails them, exit 1)."""
    people = licences.head(500)[["id", "anno_nascita", "sesso", "punti_patente"]]
    path = tmp_path / "persone.csv"
    people.rename(columns={"punti_patente": "numero_punti"}).to_csv(path, index=False)
    code, found, _ = check(capsys, str(path))
    assert code == 1 and "'id'" in found["problems"][0]


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (pd.DataFrame({"area": list("aabb"), "sex": list("mfmf"), "n": [40, 52, 17, 26]}), "n"),
        (  # no count name, but counts repeating and spreading: 1 to 900
            pd.DataFrame({"area": list("abcdefg"), "value": [1, 3, 1, 900, 3, 5, 1]}),
            "value",
        ),
        (  # the same values, all distinct, as record numbers are: no counts
            pd.DataFrame({"area": list("abcdefg"), "value": [1, 3, 2, 900, 4, 5, 6]}),
            None,
        ),
        (  # an identifier's name: never counts
            pd.DataFrame({"area": list("abcdefg"), "record": [1, 3, 1, 900, 3, 5, 1]}),
            None,
        ),
        (  # two columns of distinct text: records, not cells
            pd.DataFrame({"day": list("abcd"), "town": list("wxyz"), "n": [40, 52, 17, 26]}),
            None,
        ),
        (pd.DataFrame({"area": list("aabb"), "year": [1950, 1960, 1950, 1970]}), None),
        (pd.DataFrame({"area": list("aabb"), "n": [4, 2, 4, 3]}), None),  # rows share area
        (pd.DataFrame({"area": list("aabb"), "sex": list("mfmf"), "n": [4, -2, 4, 3]}), None),
    ],
)
def test_the_count_rule(frame, expected):
    from pandas_anon.gate.counts import looks_like_counts

    guess = looks_like_counts(frame)
    assert (guess.count if guess is not None else None) == expected


def test_a_total_column_makes_a_wide_table():
    from pandas_anon.gate.counts import looks_like_counts

    frame = pd.DataFrame(
        {"town": list("abcd"), "totale": [30, 12, 9, 40], "m": [10, 5, 4, 22], "f": [20, 7, 5, 18]}
    )
    guess = looks_like_counts(frame)
    assert (guess.counts, guess.total, guess.dimensions) == (("m", "f"), "totale", ("town",))
    assert guess.toml() == ['counts = ["m", "f"]'] and guess.flags() == "--counts m,f"


# -- the table's own totals give a withheld cell back -----------------------------------------


def _by_town(licences: pd.DataFrame) -> pd.DataFrame:
    """Bus-driving (category D) licences by comune: m, f and totale = m + f."""
    bus = licences[licences["categoria_patente"] == "D"]
    table = bus.groupby(["comune_residenza", "sesso"]).size().unstack(fill_value=0)
    table = table.rename(columns={"M": "m", "F": "f"})[["m", "f"]].reset_index()
    return table.assign(totale=table["m"] + table["f"])


TOTAL_COLUMN = (
    "the table's own totals give back withheld cells in {n} (the total column 'totale' = m + f)"
    ": there the total less its published cells leaves from 1 to 2 people, below the minimum "
    "count of 3; withhold that total too, or another cell beside the small one (secondary "
    "suppression)"
)


def test_a_withheld_cell_the_total_column_gives_back_fails(capsys, tmp_path, licences):
    """The comuni whose cells count 0 or 3 people or more, and one whose f counts 1 person,
    withheld (missing) beside its totale: f = totale - m = 1. It passed before."""
    table = _by_town(licences)
    safe = ((table["m"] == 0) | (table["m"] >= 3)) & ((table["f"] == 0) | (table["f"] >= 3))
    one = table.index[(table["f"] == 1) & (table["m"] >= 3)][0]
    table = table[safe | (table.index == one)].astype({"f": "Int64"})
    table.loc[one, "f"] = pd.NA
    path = tmp_path / "patenti_d.csv"
    table.to_csv(path, index=False)
    code, found, _ = check(capsys, str(path), "--counts", "m,f", "--min-count", "3")
    assert code == 1
    assert found["problems"] == [TOTAL_COLUMN.format(n="1 row")]
    assert found["cells"]["recovered_by_totals"] == [
        {"total": "the total column 'totale' = m + f", "places": 1, "unit": "row"}
    ]
    code, _, _ = check(
        capsys,
        str(path),
        "--counts",
        "m,f",
        "--min-count",
        "3",
        "--qid",
        "comune_residenza,category",
    )
    assert code == 1  # a QID reads the totals too
    table.drop(columns="totale").to_csv(path, index=False)  # no total: the cell stays withheld
    code, _, _ = check(capsys, str(path), "--counts", "m,f", "--min-count", "3")
    assert code == 0


def test_small_cells_withheld_beside_their_total_fail(capsys, tmp_path, licences):
    """Every count of 1 or 2 withheld, totale published: each row where one count is withheld
    gives it back (plain pandas says how many rows). It passed before."""
    table = _by_town(licences)
    small = (table[["m", "f"]] >= 1) & (table[["m", "f"]] < 3)
    withheld = table.astype({"m": "Int64", "f": "Int64"})
    withheld[["m", "f"]] = withheld[["m", "f"]].mask(small)
    path = tmp_path / "patenti_d.csv"
    withheld.to_csv(path, index=False)
    rows = int(
        (
            small.any(axis=1)
            & ((table["totale"] - table[["m", "f"]].where(~small, 0).sum(axis=1)).between(1, 2))
        ).sum()
    )
    code, found, _ = check(capsys, str(path), "--counts", "m,f", "--min-count", "3")
    assert code == 1 and rows > 1
    assert found["problems"] == [TOTAL_COLUMN.format(n=f"{rows} rows")]


def test_a_total_level_gives_withheld_cells_back(capsys, tmp_path, licences):
    """Long form: n by comune and sesso, with a 'Totale' level of sesso per comune; every
    count of 1 or 2 withheld (the totals too). It passed before."""
    bus = licences[licences["categoria_patente"] == "D"]
    cells = bus.groupby(["comune_residenza", "sesso"]).size().rename("n").reset_index()
    totals = bus.groupby("comune_residenza").size().rename("n").reset_index()
    table = pd.concat([cells, totals.assign(sesso="Totale")]).sort_values(
        ["comune_residenza", "sesso"]
    )
    small = table["n"].between(1, 2)
    withheld = table.astype({"n": "Int64"}).assign(n=lambda t: t["n"].mask(small))
    path = tmp_path / "patenti_d_long.csv"
    withheld.to_csv(path, index=False)
    total = table[table["sesso"] == "Totale"].set_index("comune_residenza")["n"]
    published = table[(table["sesso"] != "Totale") & ~small].groupby("comune_residenza")["n"].sum()
    hidden = table[(table["sesso"] != "Totale") & small].groupby("comune_residenza").size()
    left = (total - published.reindex(total.index, fill_value=0))[total >= 3]
    groups = int(left[hidden.reindex(left.index, fill_value=0) > 0].between(1, 2).sum())
    code, found, _ = check(capsys, str(path), "--count", "n", "--min-count", "3")
    assert code == 1 and groups > 1
    assert found["problems"] == [
        f"the table's own totals give back withheld cells in {groups} groups (a total level of "
        f"the dimension 'sesso'): there the total less its published cells leaves from 1 to 2 "
        f"people, below the minimum count of 3; withhold that total too, or another cell "
        f"beside the small one (secondary suppression)"
    ]
