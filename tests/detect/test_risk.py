"""Risk figures, recomputed independently from a groupby."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import pandas_anon

from conftest import SEED_QID
from verify import naive_counts


def test_risk_of_the_seed_qid(licences):
    result = licences.anon.risk(SEED_QID)
    sizes = licences[SEED_QID].dropna().value_counts()
    assert (result.examined, result.dropped, result.classes) == (87_464, 178, 9_174)
    assert result.sample_uniques == 1_684 == (sizes == 1).sum()
    assert result.prosecutor_max == 1.0
    assert result.prosecutor_avg == pytest.approx((1 / sizes).repeat(sizes).mean())
    assert result.marketer == pytest.approx(9_174 / 87_464)
    assert result.highest_risk_records == 1_684
    table = result.class_sizes.set_index("class size")
    assert table["classes"].sum() == 9_174 and table["rows"].sum() == 87_464
    assert table.loc["2", "classes"] == (sizes == 2).sum()
    assert table.loc["3-4", "rows"] == sizes[(sizes >= 3) & (sizes <= 4)].sum()
    assert table.loc["100+", "classes"] == (sizes >= 100).sum()
    contributions = result.contributions.set_index("column")
    for column in SEED_QID:
        rest = [c for c in SEED_QID if c != column]
        left = naive_counts(licences.dropna(subset=SEED_QID), rest)["singletons"]
        assert contributions.loc[column, "singletons without it"] == left
        assert contributions.loc[column, "singletons removed"] == 1_684 - left
    assert list(contributions["singletons without it"]) == [2, 4, 621]


def test_risk_of_a_k_anonymous_table():
    frame = pd.DataFrame({"year": [1950] * 3 + [1960] * 5, "sex": ["F"] * 3 + ["M"] * 5})
    result = pandas_anon.risk(frame, ["year", "sex"])
    assert result.sample_uniques == 0
    assert result.prosecutor_max == pytest.approx(1 / 3)
    assert result.highest_risk_records == 3
    assert result.highest_risk_fraction == pytest.approx(3 / 8)
    assert result.prosecutor_avg == pytest.approx(2 / 8)


def test_risk_report_and_dict_hold_no_values(licences):
    result = licences.anon.risk(SEED_QID)
    text = repr(result)
    assert "9,174" in text and "1,684 (1.9254 %)" in text
    assert "AOSTA" not in text and "GIGNOD" not in text
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["classes"] == 9_174 and payload["qid"] == SEED_QID
