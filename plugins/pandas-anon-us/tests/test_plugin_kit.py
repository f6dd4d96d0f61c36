"""The plugin kit (:mod:`pandas_anon.testing`) on pandas-anon-us: what a third-party plugin's
CI runs, here on the sample of real ZIP codes (tests/data)."""

from __future__ import annotations

import os

import pandas as pd
import pytest

if os.environ.get("CI"):
    import pandas_anon_us as us
else:
    us = pytest.importorskip("pandas_anon_us", reason="pip install -e plugins/pandas-anon-us")
from pandas_anon.testing import assert_plugin, check_plugin


def test_both_hierarchies_pass_the_kit_on_real_zip_codes(sample: pd.DataFrame):
    samples = {"us.zip": sample["zip"], "us.zip_safe_harbor": sample["zip"]}
    check = assert_plugin(us, samples=samples)
    table = check.hierarchies.set_index("name")
    assert set(table.index) == {"us.zip", "us.zip_safe_harbor"}
    assert (table["coverage"] == 1.0).all() and (table["unplaced"] == 0).all()
    assert table.loc["us.zip", "claims"] == ("zip", "zipcode", "zip_code", "zip5")
    assert table.loc["us.zip_safe_harbor", "claims"] == ()


def test_the_installed_entry_point_passes_too():
    assert assert_plugin("us").ok


def test_a_value_that_is_no_zip_code_is_counted_without_being_shown(sample: pd.DataFrame):
    column = sample["zip"].copy()
    column.iloc[0] = "ZIP-ABCDE"
    check = check_plugin(us, samples={"us.zip": column})
    (problem,) = check.problems
    assert problem.check == "coverage" and problem.hierarchy == "us.zip"
    assert "ZIP-ABCDE" not in str(problem) and "ZIP-ABCDE" not in repr(check)
    assert check.hierarchies.set_index("name").loc["us.zip", "unplaced"] == 1
