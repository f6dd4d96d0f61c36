"""The seed paper's strategy study: its Table 1 reproduced exactly on the Valle d'Aosta data."""

from __future__ import annotations

import pandas as pd
import pytest

import pandas_anon
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.studies.strategy import STRATEGIES, paper_year_average

from conftest import SEED_QID
from verify import naive_counts

# singletons, modified, touched, distinct (issue 3's acceptance table; Pastore et al. 2020, Table 1)
TABLE_1 = {
    "original": (1_684, 0, 0, 9_174),
    "S_loc": (1_264, 1_684, 1_684, 8_964),
    "M_loc": (4, 1_679, 1_684, 7_501),
    "S, M_loc": (1, 1_684, 1_684, 7_785),
    "S": (621, 87_464, 87_464, 5_166),
    "M": (4, 64_957, 87_464, 167),
    "Y_ran": (198, 87_464, 87_464, 2_739),
    "Y_avg": (9, 81_476, 87_464, 607),
    "S, M": (1, 87_464, 87_464, 85),
    "S, Y_ran": (70, 87_464, 87_464, 1_442),
    "S, Y_avg": (5, 87_464, 87_464, 308),
    "M, Y_ran": (0, 87_464, 87_464, 43),
    "M, Y_avg": (0, 85_948, 87_464, 8),
    "S,M,Y_ran": (0, 87_464, 87_464, 22),
    "S,M,Y_avg": (0, 87_464, 87_464, 4),
}


@pytest.fixture
def table_1(licences):
    places = Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])
    return licences.anon.study(
        SEED_QID, year="anno_nascita", sex="sesso", place="comune_residenza", hierarchy=places
    )


def test_reproduces_table_1(table_1):
    table = table_1.table
    assert list(table.index) == list(STRATEGIES)
    measured = {
        s: tuple(table.loc[s, ["singletons", "modified", "touched", "distinct"]])
        for s in STRATEGIES
    }
    assert measured == TABLE_1
    assert table.loc["original", "removed"] == 178
    assert (table.drop(index="original")["removed"] == 0).all()
    assert round(table.loc["original", "singletons_pct"], 4) == 1.9254
    assert table_1.best == "M, Y_avg"


def test_strategies_agree_with_materialized_generalizations(licences, table_1):
    complete = licences.dropna(subset=SEED_QID)
    places = Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])
    y_avg = paper_year_average(complete["anno_nascita"])
    both = complete.anon.generalize({"comune_residenza": places, "anno_nascita": y_avg})
    counts = naive_counts(both, SEED_QID)
    assert (counts["singletons"], counts["distinct"]) == (0, 8)
    assert both.anon.report().modified == table_1.table.loc["M, Y_avg", "modified"]
    local = complete.anon.generalize(
        {"sesso": Hierarchy(["M", "F"])}, rows="singletons", qid=SEED_QID
    )
    assert naive_counts(local, SEED_QID)["singletons"] == table_1.table.loc["S_loc", "singletons"]


def test_y_avg_labels_are_years_of_the_data(licences):
    years = licences["anno_nascita"].dropna()
    hierarchy = paper_year_average(years)
    labels = set(hierarchy.labels(1))
    assert len(labels) == 4 and labels <= set(years)


def test_report_prints_and_converts(table_1):
    text = repr(table_1)
    assert "M, Y_avg" in text and "1,684" in text and "7,785" in text
    payload = table_1.to_dict()
    assert payload["best"] == "M, Y_avg" and len(payload["table"]) == 15


def test_input_not_mutated_and_roles_checked(licences):
    before = licences.copy(deep=True)
    places = Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])
    with pytest.raises(pandas_anon.InvalidParameterError, match="sex column 'sesso' must be part"):
        licences.anon.study(
            ["anno_nascita", "comune_residenza"],
            year="anno_nascita",
            sex="sesso",
            place="comune_residenza",
            hierarchy=places,
        )
    licences.anon.study(
        year="anno_nascita", sex="sesso", place="comune_residenza", hierarchy=places
    )
    pd.testing.assert_frame_equal(licences, before)
