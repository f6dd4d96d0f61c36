"""Singletons on the seed paper's data: exact figures of its Table 1, checked independently."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pandas_anon

from conftest import SEED_QID
from verify import naive_counts, naive_singleton_mask


def test_seed_figures_on_valle_daosta(licences):
    result = licences.anon.singletons(SEED_QID)
    assert len(licences) == 87_642
    assert result.dropped == 178
    assert result.examined == 87_464
    assert result.count == 1_684
    assert result.distinct == 9_174
    assert round(100 * result.fraction, 4) == 1.9254
    assert naive_counts(licences, SEED_QID) == {
        "examined": 87_464,
        "dropped": 178,
        "singletons": 1_684,
        "distinct": 9_174,
    }


def test_mask_and_rows_match_an_independent_groupby(licences):
    result = pandas_anon.singletons(licences, SEED_QID)
    expected = naive_singleton_mask(licences, SEED_QID)
    assert result.mask.index.equals(licences.index)
    assert result.mask.dtype == bool
    assert (result.mask == expected).all()
    assert result.rows.index.equals(licences.index[expected.to_numpy()])
    assert list(result.rows.columns) == list(licences.columns)
    assert len(result.rows) == 1_684


def test_mask_follows_a_non_default_index(licences):
    shuffled = licences.sample(frac=1.0, random_state=7)  # row numbers in a new order
    result = shuffled.anon.singletons(SEED_QID)
    expected = naive_singleton_mask(shuffled, SEED_QID)
    assert result.mask.index.equals(shuffled.index)
    assert (result.mask == expected).all()
    assert result.count == 1_684


def test_keeping_missing_values_counts_them_as_a_value(licences):
    result = licences.anon.singletons(SEED_QID, dropna=False)
    assert result.dropped == 0
    assert result.examined == 87_642
    expected = naive_counts(licences, SEED_QID, dropna=False)
    assert (result.count, result.distinct) == (expected["singletons"], expected["distinct"])
    assert result.count > 1_684  # the incomplete rows add rare combinations
    assert (result.mask == naive_singleton_mask(licences, SEED_QID, dropna=False)).all()


def test_qid_is_reported_in_frame_order_and_accepts_a_single_name(licences):
    result = licences.anon.singletons(["sesso", "anno_nascita", "comune_residenza"])
    assert result.qid == tuple(SEED_QID)
    single = licences.anon.singletons("comune_residenza")
    assert single.qid == ("comune_residenza",)
    assert single.count == naive_counts(licences, ["comune_residenza"])["singletons"]


def test_report_prints_figures_but_no_values(licences):
    result = licences.anon.singletons(SEED_QID)
    text = repr(result)
    for figure in ("87,642", "178", "87,464", "1,684", "1.9254 %", "9,174"):
        assert figure in text
    towns = set(result.rows["comune_residenza"].astype(str))
    assert not any(town in text for town in towns)
    payload = result.to_dict()
    json.dumps(payload)
    assert payload == {
        "qid": SEED_QID,
        "rows": 87_642,
        "dropped": 178,
        "examined": 87_464,
        "singletons": 1_684,
        "fraction": pytest.approx(1_684 / 87_464),
        "distinct": 9_174,
    }


def test_input_is_not_mutated(licences):
    before = licences.copy(deep=True)
    result = licences.anon.singletons(SEED_QID)
    result.mask, result.rows, repr(result)
    pd.testing.assert_frame_equal(licences, before)


def test_frequency_set_decodes_the_classes(licences):
    encoded = pandas_anon.EncodedFrame(licences, SEED_QID)
    table = encoded.frequency_set().to_frame()
    assert len(table) == 9_174
    assert table["count"].sum() == 87_464
    assert (table["count"] == 1).sum() == 1_684
    expected = licences[SEED_QID].dropna().value_counts().rename("count").reset_index()
    merged = table.merge(expected, on=SEED_QID, suffixes=("", "_expected"))
    assert len(merged) == 9_174
    assert (merged["count"] == merged["count_expected"]).all()


def test_wide_keys_are_compressed_instead_of_overflowing():
    rng = np.random.default_rng(3)
    columns = {f"c{i}": rng.integers(0, 100_000, 3_000) * 7919 for i in range(6)}
    frame = pd.DataFrame(columns)  # 100,000**6 does not fit in int64
    result = frame.anon.singletons(list(columns))
    assert result.count == naive_counts(frame, list(columns))["singletons"]


def test_parallel_encoding_gives_the_same_codes(licences, monkeypatch):
    from pandas_anon.engine import encoding, parallel

    serial = encoding.EncodedFrame(licences, SEED_QID)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 1)
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 2)
    parallel = encoding.EncodedFrame(licences, SEED_QID)
    for column in SEED_QID:
        assert (serial.codes[column] == parallel.codes[column]).all()
        assert serial.values[column].equals(parallel.values[column])
    with pytest.raises(pandas_anon.UnhashableValueError):  # errors cross the thread pool
        encoding.EncodedFrame(licences.assign(sesso=[[1]] * len(licences)), SEED_QID)
