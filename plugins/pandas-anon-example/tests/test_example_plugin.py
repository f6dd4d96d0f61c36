"""The example plugin: the plugin kit's checks, and pandas-anon finding and using it.

CI (``CI=true``) installs every plugin under plugins/ before running these tests, so there a
missing plugin fails them; elsewhere they are skipped until
``pip install -e plugins/pandas-anon-example``.
"""

from __future__ import annotations

import os

import pandas as pd
import pytest

import pandas_anon

if os.environ.get("CI"):
    import pandas_anon_example as example
else:
    example = pytest.importorskip(
        "pandas_anon_example", reason="pip install -e plugins/pandas-anon-example"
    )
from pandas_anon.errors import HierarchyError
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.registry import claimed_hierarchy
from pandas_anon.testing import assert_plugin, check_plugin

AGES = pd.Series([34, 38, 51, None], dtype="Int64", name="eta_anni")


@pytest.fixture
def only_example(monkeypatch):
    """pandas-anon with its built-in plugin and this one, loaded from the entry point."""
    monkeypatch.setenv(plugins.ALLOWLIST, "example")
    plugins.reset()
    yield
    plugins.reset()


def test_the_plugin_passes_the_kit():
    check = assert_plugin(example, samples={"example.age": AGES})
    table = check.hierarchies.set_index("name")
    assert table.loc["example.age", "levels"] == "121 -> 13 -> 1"  # the canonical hierarchy
    assert table.loc["example.age", "coverage"] == 1.0
    assert table.loc["example.sex", "kind"] == "hierarchy"


def test_the_installed_entry_point_passes_the_kit_too():
    assert assert_plugin("example").plugin == "example"


def test_values_that_are_not_ages_are_counted_never_shown():
    words = pd.Series(["34", "trenta", "quaranta", "trenta"], name="eta_anni")
    check = check_plugin(example, samples={"example.age": words})
    (problem,) = check.problems
    assert problem.check == "coverage" and problem.hierarchy == "example.age"
    assert "2 of 3 distinct values" in problem.message
    assert "trenta" not in str(check.problems) and "trenta" not in repr(check)


def test_the_age_factory_places_the_columns_own_values():
    ages = example.age_bands(AGES)
    assert list(ages.values) == [34, 38, 51]
    assert ages.generalize(AGES, 1).tolist()[:3] == ["30-39", "30-39", "50-59"]
    with pytest.raises(HierarchyError, match="2 distinct values of column 'eta_anni'") as caught:
        example.age_bands(pd.Series([30, -1, "x"], name="eta_anni"))
    assert caught.value.unmatched == 2


def test_pandas_anon_finds_it_through_its_entry_point(only_example):
    listed = pandas_anon.hierarchies().set_index("name")
    assert listed.loc["example.age", "source"] == f"pandas-anon-example {example.__version__}"
    assert listed.loc["example.sex", "claims"] == ("sex_mf", "sesso_mf")
    assert claimed_hierarchy("Eta Anni") == "example.age"
    assert claimed_hierarchy("age") is None  # specific claims: usual names are left alone
    assert repr(pandas_anon.get_hierarchy("example.age")) == (
        "Hierarchy(example.age: 3 levels, labels 121 -> 13 -> 1)"
    )


def test_kanon_uses_the_claimed_hierarchies_without_configuration(only_example):
    people = pd.DataFrame(
        {"age_years": [31, 35, 38, 52, 55, 57], "sex_mf": ["M", "M", "M", "F", "F", "F"]}
    )
    out = people.anon.kanon(3, qid=["age_years", "sex_mf"])
    report = out.anon.report()
    assert report.hierarchies == {"age_years": "example.age", "sex_mf": "example.sex"}
    assert report.levels == {"age_years": 1, "sex_mf": 0}
    assert out["age_years"].tolist() == ["30-39"] * 3 + ["50-59"] * 3
