"""The plugin kit (:mod:`pandas_anon.testing`) on pandas-anon-italy: what a third-party
plugin's CI runs, here on the first-party plugin and the Valle d'Aosta file."""

from __future__ import annotations

import os

import pandas as pd
import pytest

if os.environ.get("CI"):
    import pandas_anon_italy as italy
else:
    italy = pytest.importorskip(
        "pandas_anon_italy", reason="pip install -e plugins/pandas-anon-italy"
    )
from pandas_anon.testing import assert_plugin, check_plugin

#: Checks left out, with the reason. labels: 99 provinces share their name with their chief
#: comune (Torino, Novara...), so a column recoded locally (some rows at level 0, some at
#: level 1) cannot tell the comune from the province: a known property of ISTAT's names.
SKIP = ("labels",)


def test_it_comune_passes_the_kit_on_the_valle_daosta_file(valle_daosta: pd.DataFrame):
    samples = {"it.comune": valle_daosta["comune_residenza"]}
    check = assert_plugin(italy, samples=samples, skip=SKIP)
    row = check.hierarchies.set_index("name").loc["it.comune"]
    assert row["levels"].count(" -> ") == 4 and row["levels"].endswith(" -> 1")  # canonical
    assert (row["coverage"], row["unplaced"]) == (1.0, 0)
    assert row["claims"] == ("comune", "comune_residenza", "comune_nascita")


def test_the_installed_entry_point_passes_too():
    assert assert_plugin("italy", skip=SKIP).ok


def test_a_misspelt_comune_is_counted_without_being_shown(valle_daosta: pd.DataFrame):
    column = valle_daosta["comune_residenza"].replace({"VALTOURNENCHE": "NOT A COMUNE"})
    check = check_plugin(italy, samples={"it.comune": column}, skip=SKIP)
    (problem,) = check.problems
    assert problem.check == "coverage" and "1 of 79 distinct values" in problem.message
    assert "NOT A COMUNE" not in str(problem) and "NOT A COMUNE" not in repr(check)
    assert check.hierarchies.set_index("name").loc["it.comune", "unplaced"] == 1


def test_the_labels_check_finds_the_namesake_provinces_only():
    labels = check_plugin(italy).problems_of("labels")
    assert labels and all("levels 0 and 1" in p.message or "more" in p.message for p in labels)
    assert check_plugin(italy).problems == tuple(labels)
