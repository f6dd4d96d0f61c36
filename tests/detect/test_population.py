"""Population uniqueness (Zayatz, Pitman, SNB, Dankar et al.'s rule) against ARX 3.9's figures,
against hand computations, and the parameters refused."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES
from pandas_anon.detect.population import (
    LOGLINEAR,
    MODELS,
    digamma,
    population_size,
    population_uniqueness,
    trigamma,
)
from pandas_anon.errors import InvalidParameterError

#: The data sets' quasi-identifiers, as benchmarks/arx_population_reference.py names them.
QIDS = {
    "adult-5": ["age", "sex", "race", "marital-status", "education"],
    "adult-9": list(ADULT_HIERARCHY_ATTRIBUTES),
    "valle-daosta": ["anno_nascita", "comune_residenza", "sesso", "categoria_patente"],
}

# ARX 3.9.2's figures (../shared/tools/arx, commit aacd487), printed by
# `python benchmarks/arx_population_reference.py --python` (through benchmarks/arx/
# ArxPopulation.java, ArxRisk's figures at full precision): each model's fraction of the
# population unique on the QID, None where ARX says the model has no estimate, and the model
# Dankar et al.'s rule chose. The tables are the QID columns without the rows missing a value.
ARX_DATA = {
    ("adult-5", 0.01): {
        "zayatz": 0.01481625650744893,
        "pitman": 0.009134621678757405,
        "snb": None,
        "dankar": 0.009134621678757405,
        "model": "pitman",
    },
    ("adult-5", 0.1): {
        "zayatz": 0.032218000191579055,
        "pitman": 0.03146261308135865,
        "snb": None,
        "dankar": 0.03146261308135865,
        "model": "pitman",
    },
    ("adult-5", 0.5): {
        "zayatz": 0.07180555092725055,
        "pitman": 0.0746817577912653,
        "snb": None,
        "dankar": 0.07180555092725055,
        "model": "zayatz",
    },
    ("adult-9", 0.01): {
        "zayatz": 0.2717127199363312,
        "pitman": 0.1446083531167384,
        "snb": None,
        "dankar": 0.1446083531167384,
        "model": "pitman",
    },
    ("adult-9", 0.1): {
        "zayatz": 0.3207402393466189,
        "pitman": 0.27684993883653597,
        "snb": None,
        "dankar": 0.27684993883653597,
        "model": "pitman",
    },
    ("adult-9", 0.5): {
        "zayatz": 0.43194944819318987,
        "pitman": 0.43590279806404286,
        "snb": None,
        "dankar": 0.43194944819318987,
        "model": "zayatz",
    },
    ("valle-daosta", 0.01): {
        "zayatz": 0.0048644656077368245,
        "pitman": 0.0017080615810356292,
        "snb": None,
        "dankar": 0.0017080615810356292,
        "model": "pitman",
    },
    ("valle-daosta", 0.1): {
        "zayatz": 0.010691304426897247,
        "pitman": 0.010448537932724395,
        "snb": None,
        "dankar": 0.010448537932724395,
        "model": "pitman",
    },
    ("valle-daosta", 0.5): {
        "zayatz": 0.033841302831225134,
        "pitman": 0.03705371682298261,
        "snb": None,
        "dankar": 0.033841302831225134,
        "model": "zayatz",
    },
}
# The same script's small histograms ("size:count,...") given to ARX directly, by population
# size: every branch of the rule (Pitman; Zayatz when Pitman has none; the smaller of Zayatz and
# an SNB estimate, either way; Zayatz when SNB has none; no sample uniques), and two where
# Pitman has no estimate because ARX's closed-form Jacobian (its trigamma) leads Newton's steps
# elsewhere than the exact one would.
ARX_HISTOGRAMS = {
    ("1:10,2:5,3:2,5:1", 37): {
        "zayatz": 0.2731235190160598,
        "pitman": None,
        "snb": None,
        "dankar": 0.2731235190160598,
        "model": "zayatz",
    },
    ("1:10,2:5,3:2,5:1", 100): {
        "zayatz": 0.15346635653137683,
        "pitman": None,
        "snb": None,
        "dankar": 0.15346635653137683,
        "model": "zayatz",
    },
    ("1:10,2:5,3:2,5:1", 10000): {
        "zayatz": 0.10448192931129599,
        "pitman": None,
        "snb": None,
        "dankar": 0.10448192931129599,
        "model": "zayatz",
    },
    ("1:50,2:30,3:20,4:10,5:8,10:3", 300): {
        "zayatz": 0.16449040184196007,
        "pitman": 0.6957389489032164,
        "snb": 0.16064478497257187,
        "dankar": 0.16064478497257187,
        "model": "snb",
    },
    ("1:50,2:30,3:20,4:10,5:8,10:3", 500): {
        "zayatz": 0.09601340707901093,
        "pitman": 0.21080682046819452,
        "snb": None,
        "dankar": 0.09601340707901093,
        "model": "zayatz",
    },
    ("1:50,2:30,3:20,4:10,5:8,10:3", 1000): {
        "zayatz": 0.05886670879336869,
        "pitman": 0.04171001365522362,
        "snb": None,
        "dankar": 0.05886670879336869,
        "model": "zayatz",
    },
    ("1:50,2:30,3:20,4:10,5:8,10:3", 5000): {
        "zayatz": 0.0366705502926711,
        "pitman": 0.0009692343622772434,
        "snb": None,
        "dankar": 0.0009692343622772434,
        "model": "pitman",
    },
    ("1:39,2:1,3:21,5:26", 468): {
        "zayatz": 0.1017600832243825,
        "pitman": 0.11832020785685927,
        "snb": 0.10199747362786157,
        "dankar": 0.1017600832243825,
        "model": "zayatz",
    },
    ("2:5,3:4", 100): {"zayatz": 0.0, "pitman": 0.0, "snb": 0.0, "dankar": 0.0, "model": None},
    ("1:43,3:179,5:260,18:268,19:222", 45036): {
        "zayatz": 0.0001990588746196668,
        "pitman": None,
        "snb": None,
        "dankar": 0.0001990588746196668,
        "model": "zayatz",
    },
    ("1:114,2:129,9:78,37:255,50:247,60:42", 135719): {
        "zayatz": 0.0011042976626564757,
        "pitman": None,
        "snb": None,
        "dankar": 0.0011042976626564757,
        "model": "zayatz",
    },
}


def assert_matches_arx(estimate, arx: dict) -> None:
    """Each model's figure within a relative 1e-4 of ARX's, None exactly where ARX has none,
    and the same model chosen by Dankar et al.'s rule (the estimate without the sample's
    combinations, the log-linear model's with them)."""
    for model in MODELS:
        expected, got = arx[model], estimate.by_model[model]
        if expected is None:
            assert got is None, model
        else:
            assert got == pytest.approx(expected, rel=1e-4, abs=0), model
    assert estimate.dankar_model == arx["model"]
    default = LOGLINEAR if LOGLINEAR in estimate.by_model else "dankar"
    assert estimate.uniques == estimate.by_model[default]
    assert estimate.model == (arx["model"] if default == "dankar" else LOGLINEAR)


def class_sizes(spec: str) -> np.ndarray:
    pairs = [tuple(map(int, pair.split(":"))) for pair in spec.split(",")]
    return np.repeat([size for size, _ in pairs], [count for _, count in pairs])


@pytest.fixture(scope="module")
def tables(adult, _licences) -> dict[str, pd.DataFrame]:
    return {"adult-5": adult, "adult-9": adult, "valle-daosta": _licences}


@pytest.mark.parametrize(("name", "fraction"), list(ARX_DATA))
def test_data_sets_match_arx(tables, name, fraction):
    result = pandas_anon.risk(tables[name], QIDS[name], sampling_fraction=fraction)
    assert_matches_arx(result.population_estimate, ARX_DATA[name, fraction])
    assert result.population_uniques == result.population_estimate.uniques
    assert result.population_uniques_by_model == result.population_estimate.by_model
    rows = result.examined
    assert result.population_estimate.population == round(rows / fraction)


@pytest.mark.parametrize(("spec", "population"), list(ARX_HISTOGRAMS))
def test_histograms_match_arx(spec, population):
    estimate = population_uniqueness(class_sizes(spec), population)
    assert_matches_arx(estimate, ARX_HISTOGRAMS[spec, population])


def test_zayatz_by_hand():
    # Two sample uniques and one pair (n = 4) from N = 8 (f = 1/2). Drawing 4 of 8, a class of
    # j members is met exactly once with probability j C(8 - j, 3) / C(8, 4): 35/70 for j = 1,
    # 40/70 for j = 2. A sample unique is a population unique with probability
    # 2 * 35 / (2 * 35 + 40) = 7/11, so the population holds 2 * (7/11) / (1/2) = 28/11
    # uniques: 7/22 of its 8 records.
    frame = pd.DataFrame({"year": [1950, 1960, 1970, 1970], "sex": ["F", "M", "F", "F"]})
    result = pandas_anon.risk(frame, ["year", "sex"], population=8)
    assert result.population_uniques_by_model["zayatz"] == pytest.approx(7 / 22, rel=1e-12)
    assert result.population_estimate.sampling_fraction == 0.5


def test_a_census_is_its_own_population():
    # f = 1: a class of two or more is never met exactly once in a sample that is everything,
    # so Zayatz's population uniques are the sample uniques.
    frame = pd.DataFrame({"year": [1950, 1960, 1970, 1970, 1980, 1980, 1980]})
    result = frame.anon.risk("year", sampling_fraction=1.0)
    assert result.population_uniques_by_model["zayatz"] == pytest.approx(2 / 7, rel=1e-12)


def test_no_sample_uniques_no_population_uniques():
    frame = pd.DataFrame({"year": [1950, 1950, 1960, 1960, 1960]})
    result = frame.anon.risk("year", population=1000)
    assert result.population_uniques == 0.0
    assert result.population_uniques_by_model == dict.fromkeys((*MODELS, LOGLINEAR), 0.0)
    assert result.population_estimate.model is None


def test_without_a_population_there_is_no_estimate():
    frame = pd.DataFrame({"year": [1950, 1960, 1960]})
    result = frame.anon.risk("year")
    assert result.population_estimate is None
    assert result.population_uniques is None and result.population_uniques_by_model is None
    assert "population" not in result.to_dict()
    assert "population uniques" not in repr(result)


def test_the_result_prints_and_converts(licences):
    result = licences.anon.risk(QIDS["valle-daosta"], sampling_fraction="10%")
    figures = result.to_dict()
    assert figures["population"] == 874_640 and figures["population_model"] == LOGLINEAR
    assert figures["population_dankar_model"] == "pitman"
    assert figures["population_uniques"] == result.population_uniques
    assert set(figures["population_uniques_by_model"]) == {*MODELS, LOGLINEAR}
    shown = repr(result)
    assert "874,640 (10.0000 %)" in shown
    assert "1.0597 % (by log-linear; ARX's rule: Pitman, 1.0449 %)" in shown
    assert "SNB no estimate" in shown and "log-linear 1.0597 %" in shown


def test_weights_count_people(licences):
    # An aggregated table with a count column has the estimates of the table of people.
    qid = ["sesso", "categoria_patente", "anno_nascita"]
    people = licences[qid].dropna()
    counted = people.value_counts().rename("n").reset_index()
    by_people = pandas_anon.risk(people, qid, population=500_000)
    by_counts = pandas_anon.risk(counted, qid, weights="n", population=500_000)
    assert by_counts.population_estimate == by_people.population_estimate
    with pytest.raises(InvalidParameterError, match=r"population=1000 is smaller"):
        pandas_anon.risk(counted, qid, weights="n", population=1000)


def test_a_dask_frame_gives_the_same_estimates(adult):
    dd = pytest.importorskip("dask.dataframe")
    qid = QIDS["adult-5"]
    lazy = dd.from_pandas(adult, npartitions=4, sort=False)
    expected = pandas_anon.risk(adult, qid, sampling_fraction=0.1).population_estimate
    assert lazy.anon.risk(qid, sampling_fraction=0.1).population_estimate == expected


def test_the_population_is_rounded_as_arx_rounds_it():
    assert population_size(3, sampling_fraction=0.4) == 8  # 7.5 rounds up, as Java's round
    assert population_size(5, sampling_fraction=0.4) == 13  # 12.5 too
    assert population_size(5, population=np.int64(20)) == 20
    assert population_size(5) is None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sampling_fraction": 0}, r"sampling_fraction must be above 0"),
        ({"sampling_fraction": 0.0}, r"sampling_fraction must be above 0"),
        ({"sampling_fraction": 1.5}, r"sampling_fraction must be a fraction from 0 to 1"),
        ({"sampling_fraction": -0.1}, r"sampling_fraction must be a fraction from 0 to 1"),
        ({"sampling_fraction": math.nan}, r"sampling_fraction must be a fraction"),
        ({"population": 4}, r"population=4 is smaller than the table \(5 rows"),
        ({"population": 100.0}, r"population must be a whole number"),
        ({"population": 2.5}, r"population must be a whole number"),
        ({"population": -3}, r"population must be a whole number of at least 1"),
        ({"population": "100"}, r"pass population=100, not '100'"),
        ({"population": True}, r"population must be a whole number"),
        ({"population": 100, "sampling_fraction": 0.1}, r"both given: pass one of them"),
    ],
)
def test_bad_population_parameters(options, message):
    frame = pd.DataFrame({"year": [1950, 1960, 1970, 1970, 1980]})
    with pytest.raises(InvalidParameterError, match=message):
        frame.anon.risk("year", **options)


def test_parameters_are_checked_before_the_rows_are_read():
    # A wrong parameter is reported even when the QID would fail later.
    frame = pd.DataFrame({"year": [None, None]})
    with pytest.raises(InvalidParameterError, match="both given"):
        pandas_anon.risk(frame, "year", population=10, sampling_fraction=0.5)


def test_polygamma_ports():
    # Minka's digamma as ARX ports it is accurate; ARX's trigamma leaves out the asymptotic
    # tail below 12 (trigamma(10) is 0 there), which the exact variant adds.
    euler = 0.5772156649015329
    values = digamma(np.array([1.0, 0.5, 13.0, -0.5, 0.0]))
    assert values[0] == pytest.approx(-euler, rel=1e-12)
    assert values[1] == pytest.approx(-euler - 2 * math.log(2), rel=1e-12)
    assert values[2] == pytest.approx(-euler + sum(1 / k for k in range(1, 13)), rel=1e-12)
    assert values[3] == pytest.approx(-euler - 2 * math.log(2) + 2, rel=1e-12)
    assert values[4] == -math.inf
    exact = trigamma(np.array([1.0, 10.0, 20.0]), exact=True)
    assert exact[0] == pytest.approx(math.pi**2 / 6, rel=1e-9)
    assert exact[1] == pytest.approx(math.pi**2 / 6 - sum(1 / k**2 for k in range(1, 10)), rel=1e-9)
    arx = trigamma(np.array([1.0, 10.0, 20.0]))
    assert arx[1] == 0.0 and arx[2] == exact[2]
    assert arx[0] == pytest.approx(sum(1 / k**2 for k in range(1, 8)), rel=1e-15)
