"""``pandas-anon check --population N`` / ``--sampling-fraction F``: a sample is judged by
the rows estimated unique in its population, not by the rows unique in the sample; the
figure the gate reads is the population estimate of the sample's class sizes counted here
with plain pandas; configuration keys, the command line over them, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.cli.main import main
from pandas_anon.datasets import load_driver_licenses
from pandas_anon.detect.population import PopulationUniqueness
from pandas_anon.errors import InvalidParameterError
from pandas_anon.gate.pandera_checks import Exposure, Limits

QID = ["anno_nascita", "sesso", "categoria_patente"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> tuple[Path, int, float]:
    """A 10 % sample of the licences (seeded), its path, the population's size and the
    share of its rows unique on QID within the sample."""
    licences = load_driver_licenses()
    drawn = licences.sample(frac=0.1, random_state=1)
    path = tmp_path_factory.mktemp("survey") / "sample.csv"
    drawn[QID].to_csv(path, index=False)
    sizes = drawn.groupby(QID, dropna=False).size()
    return path, len(licences), float((sizes == 1).sum() / len(drawn))


def check(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(["check", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    found = json.loads(out)["files"][0] if out.strip() else {}
    return code, found, err


def test_a_sample_is_judged_by_its_rows_estimated_unique_in_the_population(capsys, sample):
    """1.44 % of the sample's rows are unique in it, more than the 1 % allowed; the
    population estimate, the one pandas_anon.risk gives (the log-linear model of the
    sample's combinations), is 0.11 %: with the population's size given, it passes."""
    path, population, sample_share = sample
    options = ["--qid", ",".join(QID), "--max-singletons", "1%", str(path)]
    code, found, _ = check(capsys, *options)
    assert code == 1 and sample_share > 0.01
    code, found, _ = check(capsys, *options, "--population", str(population))
    assert code == 0, found
    drawn = pd.read_csv(path)
    expected = pandas_anon.risk(drawn, QID, dropna=False, population=population)
    assert found["population"] == population
    assert found["population_uniques"] == expected.population_uniques  # one definition
    assert found["population_model"] == expected.population_estimate.model == "loglinear"
    assert expected.population_uniques is not None
    assert expected.population_uniques < 0.01 < sample_share
    assert (round(100 * expected.population_uniques, 2), round(100 * sample_share, 2)) == (
        0.11,
        1.44,
    )
    code, found, _ = check(capsys, *options, "--sampling-fraction", "10%")
    assert code == 0 and found["population"] == round(len(drawn) / 0.1)
    sizes = drawn.groupby(QID, dropna=False).size().to_numpy()
    assert found["singletons"] == int((sizes == 1).sum())  # the sample's, still reported


def test_the_default_limit_reads_the_estimated_rows_rounded(capsys, sample):
    """Without a limit, no row may be estimated unique in the population: the message
    gives the estimated rows, their share and the model, never a value."""
    path, population, _ = sample
    code = main(["check", "--qid", ",".join(QID), "--population", str(population), str(path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "unique in the population of 87,642" in out and "loglinear model" in out
    assert "<= 0 unique in the population" in out


def test_the_configuration_sets_it_and_the_command_line_replaces_it(capsys, sample, tmp_path):
    path, population, _ = sample
    config = tmp_path / ".pandas-anon.toml"
    qid = ", ".join(f'"{c}"' for c in QID)
    config.write_text(f'qid = [{qid}]\nmax_singletons = "1%"\npopulation = {population}\n')
    code, found, _ = check(capsys, "--config", str(config), str(path))
    assert code == 0 and found["population"] == population
    code, found, _ = check(capsys, "--config", str(config), "--sampling-fraction", "0.5", str(path))
    assert found["population"] == 2 * found["rows"]  # the command line's form replaced it


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--population", "5"], "population=5 is smaller than the table"),
        (["--sampling-fraction", "1.5"], "sampling_fraction must be a fraction"),
        (["--population", "1000", "--sampling-fraction", "0.1"], "not allowed with"),
        (["--population", "ten"], "population"),
    ],
)
def test_bad_populations_are_refused(capsys, sample, options, message):
    path, _, _ = sample
    assert main(["check", "--qid", ",".join(QID), *options, str(path)]) == 2
    assert message in capsys.readouterr().err


def test_without_an_estimate_the_samples_own_singletons_are_read():
    """Fail closed: where the chosen model has no estimate, every row unique in the sample
    may be unique in the population."""
    sizes = np.array([1, 1, 1, 2, 3])
    exposure = Exposure(("a",), 8, 8, 3, 5, sizes)
    unknown = PopulationUniqueness(100, 0.08, None, "pitman", dict.fromkeys(
        ["zayatz", "pitman", "snb", "dankar"], None))  # fmt: skip
    limits = Limits(max_count=2, population=100)
    problems = limits.violations(Exposure(("a",), 8, 8, 3, 5, sizes, population=unknown))
    assert len(problems) == 1 and "3 singletons" in problems[0] and "no estimate" in problems[0]
    estimated = limits.estimated(exposure)  # 3 uniques of 8 in 100: an estimate exists
    assert estimated.population is not None and estimated.population.population == 100
    with pytest.raises(InvalidParameterError, match="sampling_fraction"):
        Limits(population=100, sampling_fraction=0.5)
