"""Individual risk (Benedetti and Franconi, as sdcMicro's measure_risk computes it): sdcMicro's
own test figures, the formula recomputed in plain pandas, the truth on samples of the licence
file, and the input refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.detect.individual import class_risk
from pandas_anon.errors import ColumnNotFoundError, InvalidParameterError, InvalidQIDError

QID = ["anno_nascita", "comune_residenza", "sesso", "categoria_patente"]

#: sdcMicro's tests/testthat/test_indivRisk.R, "data frame with weight, method = approx,
#: qual = default, survey = TRUE" (no missing value): the data and the risks it expects.
SDC_DATA = pd.DataFrame(
    {
        "A": [2, 3, 2, 2, 3, 3, 1, 2],
        "B": [3, 3, 3, 3, 3, 3, 4, 3],
        "C": [1, 3, 1, 2, 1, 1, 1, 1],
        "weight": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51],
    }
)
SDC_RISK = [
    0.01369863,
    0.08579129,
    0.01369863,
    0.17707583,
    0.01877883,
    0.01877883,
    0.03931625,
    0.01369863,
]

#: The relative error of the expected re-identifications against the truth, by sampling
#: fraction, over seeds 0-4 (benchmarks/bench_individual_risk.py prints them): the bounds the
#: docs state.
TRUTH_BOUNDS = {0.01: (-0.81, -0.77), 0.1: (-0.32, -0.29), 0.3: (-0.12, -0.11)}


def naive_risk(fk: np.ndarray, big_fk: np.ndarray) -> np.ndarray:
    """sdcMicro's indivRisk(method = "approx") written as its R code writes it."""
    pk = fk / big_fk
    with np.errstate(all="ignore"):
        risk = np.where(fk > 2, pk / (fk - (1 - pk)), 0.0)
        risk = np.where(fk == 2, pk / (1 - pk) - (pk / (1 - pk)) ** 2 * np.log(1 / pk), risk)
        risk = np.where(fk == 1, pk / (1 - pk) * np.log(1 / pk), risk)
    return np.where(fk == big_fk, 1 / fk, risk)


def test_sdcmicro_test_figures():
    result = pandas_anon.individual_risk(SDC_DATA, ["A", "B", "C"], weights="weight")
    np.testing.assert_allclose(result.risk.to_numpy(), SDC_RISK, atol=5e-9)
    assert result.sample_frequency.tolist() == [3, 1, 3, 1, 2, 2, 1, 3]
    assert result.population_frequency.tolist()[:2] == [108.0, 45.5]
    assert result.expected_reidentifications == pytest.approx(sum(SDC_RISK), abs=1e-7)
    assert result.design == "weights"


def test_without_a_design_the_table_is_the_population():
    """sdcMicro's survey = FALSE: 1 / f_k (its test expects 0.33333, 1, 0.33333, 1, 0.5, ...)."""
    result = pandas_anon.individual_risk(SDC_DATA, ["A", "B", "C"])
    assert result.risk.round(5).tolist() == [0.33333, 1.0, 0.33333, 1.0, 0.5, 0.5, 1.0, 0.33333]
    assert result.expected_reidentifications == pytest.approx(5.0)  # the classes
    assert result.design == "population"


def test_a_sampling_fraction_weighs_every_record_one_over_it():
    by_fraction = pandas_anon.individual_risk(SDC_DATA, ["A", "B"], sampling_fraction=0.25)
    by_weights = pandas_anon.individual_risk(SDC_DATA, ["A", "B"], weights=[4.0] * 8)
    np.testing.assert_allclose(by_fraction.risk, by_weights.risk, rtol=1e-15)
    assert by_fraction.sampling_fraction == 0.25


def test_sampling_fraction_one_gives_one_over_fk():
    result = pandas_anon.individual_risk(SDC_DATA, ["A", "B", "C"], sampling_fraction=1)
    assert result.risk.tolist() == list(1 / result.sample_frequency)


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.3])
def test_the_formula_recomputed_on_licence_samples(licences, fraction):
    """Per record, the figure sdcMicro's R code computes on f_k and F_k counted by groupby."""
    sample = licences.sample(frac=fraction, random_state=7)
    weights = np.random.default_rng(7).uniform(1 / fraction, 3 / fraction, len(sample))
    result = pandas_anon.individual_risk(sample, QID, weights=weights, dropna=False)
    keys = sample[QID].astype(object).where(sample[QID].notna(), "<missing>")
    grouped = pd.Series(weights, index=sample.index).groupby([keys[c] for c in QID])
    fk = grouped.transform("size").to_numpy(dtype=float)
    big_fk = grouped.transform("sum").to_numpy()
    np.testing.assert_allclose(result.sample_frequency, fk)
    np.testing.assert_allclose(result.population_frequency, big_fk, rtol=1e-12)
    np.testing.assert_allclose(result.risk, naive_risk(fk, big_fk), rtol=1e-10)


@pytest.mark.parametrize("fraction", sorted(TRUTH_BOUNDS))
def test_expected_reidentifications_against_the_truth(licences, fraction):
    """The licence file as the population: the sum of the risks of a sample against the sum
    of 1 / F over its records (F: the record's class size in the population), five seeds."""
    keys = [licences[c].astype(object).fillna("<missing>") for c in QID]
    population_size = licences.groupby(keys)[QID[0]].transform("size").to_numpy()
    low, high = TRUTH_BOUNDS[fraction]
    for seed in range(5):
        sample = licences.sample(frac=fraction, random_state=seed)
        truth = float(np.sum(1 / population_size[licences.index.get_indexer(sample.index)]))
        estimate = pandas_anon.individual_risk(
            sample, QID, sampling_fraction=fraction, dropna=False
        ).expected_reidentifications
        assert low <= estimate / truth - 1 <= high, (fraction, seed, estimate, truth)


def test_the_whole_population_is_exact(licences):
    result = pandas_anon.individual_risk(licences, QID, sampling_fraction=1, dropna=False)
    keys = [licences[c].astype(object).fillna("<missing>") for c in QID]
    assert result.expected_reidentifications == pytest.approx(licences.groupby(keys).ngroups)


def test_a_class_of_two_weighing_barely_more_than_itself():
    """sdcMicro's closed form cancels when F_k is barely above f_k (it gives -109.5 at
    e = 1e-9); the series gives the limit 1 / 2, continuously."""
    e = np.array([1e-12, 1e-9, 1e-6, 1e-3, 0.049999, 0.05, 0.050001, 0.3])
    fk = np.full(len(e), 2.0)
    risk = class_risk(fk, fk / (1 - e))
    assert risk[0] == pytest.approx(0.5, abs=1e-12)
    assert risk[1] == pytest.approx(0.5, abs=1e-9)
    assert np.all(np.diff(risk) < 0)  # decreasing in e, no jump at the switch
    assert risk[5] == pytest.approx(risk[4], abs=1e-6)
    np.testing.assert_allclose(risk[3:], naive_risk(fk[3:], fk[3:] / (1 - e[3:])), rtol=1e-9)
    small = pandas_anon.individual_risk(SDC_DATA.iloc[4:6], ["A"], sampling_fraction=1 - 1e-9)
    assert small.risk.tolist() == pytest.approx([0.5, 0.5], abs=1e-9)


def test_missing_values_left_out_or_a_value():
    # row numbers, as filtering leaves them: the risks keep them (an index holding data is
    # refused, tests/test_index_rule.py)
    frame = pd.DataFrame({"a": [1, 1, None, 2], "b": ["x", "x", "y", "y"]}, index=[7, 3, 9, 4])
    dropped = pandas_anon.individual_risk(frame, ["a", "b"], sampling_fraction=0.5)
    assert dropped.dropped == 1 and dropped.examined == 3
    assert dropped.risk.index.tolist() == [7, 3, 9, 4]
    assert np.isnan(dropped.risk[9]) and not dropped.risk.drop(9).isna().any()
    kept = pandas_anon.individual_risk(frame, ["a", "b"], sampling_fraction=0.5, dropna=False)
    assert kept.dropped == 0 and kept.risk[9] == kept.risk[4]
    weighted = pandas_anon.individual_risk(frame, "b", weights=pd.Series([2.0, 3.0, 5.0, 7.0]))
    assert weighted.population_frequency.tolist() == [5.0, 5.0, 12.0, 12.0]  # by position
    weighted = pandas_anon.individual_risk(frame, ["a", "b"], weights=[2.0, 3.0, 5.0, 7.0])
    assert weighted.population_frequency.tolist()[:2] == [5.0, 5.0]  # the left-out row's not
    assert np.isnan(weighted.population_frequency[9])


def test_a_dask_frame_is_refused_by_name():
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(InvalidParameterError, match="individual_risk.*compute"):
        pandas_anon.individual_risk(dd.from_pandas(SDC_DATA, npartitions=2), ["A"])


def test_threshold_and_the_result():
    frame = SDC_DATA.copy()
    result = pandas_anon.individual_risk(frame, ["A", "B", "C"], weights="weight", threshold=0.05)
    assert result.above_threshold == 2  # 0.0858 and 0.1771
    assert result.max_risk == pytest.approx(0.17707583)
    assert result.global_risk == pytest.approx(sum(SDC_RISK) / 8, abs=1e-8)
    assert json.loads(json.dumps(result.to_dict()))["above_threshold"] == 2
    assert "expected re-identifications" in repr(result)
    pd.testing.assert_frame_equal(frame, SDC_DATA)  # not mutated
    assert frame.anon.individual_risk(["A", "B", "C"], weights="weight").max_risk == (
        result.max_risk
    )


SECRET = 12345.678  # a weight no message may print


@pytest.mark.parametrize(
    ("options", "error", "names"),
    [
        ({"weights": "weight", "sampling_fraction": 0.1}, InvalidParameterError, "both given"),
        ({"sampling_fraction": 0}, InvalidParameterError, "sampling_fraction"),
        ({"sampling_fraction": 1.5}, InvalidParameterError, "sampling_fraction"),
        ({"sampling_fraction": -0.1}, InvalidParameterError, "sampling_fraction"),
        ({"sampling_fraction": "a tenth"}, InvalidParameterError, "sampling_fraction"),
        ({"weights": [SECRET, np.nan, 2, 2, 2, 2, 2, 2]}, InvalidParameterError, "missing"),
        ({"weights": [SECRET, -SECRET, 2, 2, 2, 2, 2, 2]}, InvalidParameterError, "below 1"),
        ({"weights": [SECRET, 0.5, 2, 2, 2, 2, 2, 2]}, InvalidParameterError, "position 1"),
        ({"weights": [SECRET, np.inf, 2, 2, 2, 2, 2, 2]}, InvalidParameterError, "not finite"),
        ({"weights": [SECRET, "many", 2, 2, 2, 2, 2, 2]}, InvalidParameterError, "weights"),
        ({"weights": [SECRET] * 7}, InvalidParameterError, "one sampling weight per row"),
        ({"weights": [True] * 8}, InvalidParameterError, "true/false"),
        ({"weights": "A"}, InvalidQIDError, "inside the quasi-identifier"),
        ({"weights": "nope"}, ColumnNotFoundError, "nope"),
        ({"threshold": 2}, InvalidParameterError, "threshold"),
    ],
)
def test_bad_input_is_refused_by_name(options, error, names):
    frame = SDC_DATA.assign(weight=[SECRET, -1, 2, 2, 2, 2, 2, 2])
    with pytest.raises(error, match=names) as raised:
        pandas_anon.individual_risk(frame, ["A", "B"], **options)
    assert "12345" not in str(raised.value)


def test_a_weights_column_with_a_bad_weight_names_the_column():
    frame = SDC_DATA.assign(weight=[SECRET, 0, 2, 2, 2, 2, 2, 2])
    with pytest.raises(InvalidParameterError, match="weights column 'weight'") as raised:
        pandas_anon.individual_risk(frame, ["A", "B"], weights="weight")
    assert "12345" not in str(raised.value)
