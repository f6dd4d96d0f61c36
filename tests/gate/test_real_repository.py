"""The worked example: the gate over an excerpt of a real open-data repository.

``tests/gate/data/covid19-opendata-vaccini`` holds tables of Italy's COVID-19 vaccination
open data (CC BY 4.0, see its NOTICE.md), CSV beside its JSON twin in pandas' Table Schema
form, checked with the configuration documented in docs/example-open-data.md. Every figure
is recomputed here with plain pandas from the CSV, independently of the gate.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from pandas_anon.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "gate" / "data" / "covid19-opendata-vaccini"
CONFIG = ROOT / "docs" / "examples" / "covid19-opendata-vaccini" / ".pandas-anon.toml"
ADMINISTRATIONS = "dati/somministrazioni-vaccini-latest-campagna-2025-2026"


@pytest.fixture
def repository(tmp_path, monkeypatch) -> Path:
    """The excerpt with the example's configuration, as a maintainer's checkout."""
    shutil.copytree(DATA / "dati", tmp_path / "dati")
    shutil.copy(CONFIG, tmp_path / ".pandas-anon.toml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def gate(capsys, *files: str) -> tuple[int, dict[str, dict]]:
    code = main(["check", *files, "--format", "json"])
    out, _ = capsys.readouterr()
    return code, {entry["file"]: entry for entry in json.loads(out)["files"]}


def test_each_table_as_the_worked_example_reports_it(repository, capsys):
    files = sorted(str(p.relative_to(repository)) for p in (repository / "dati").iterdir())
    code, found = gate(capsys, *files)
    assert code == 1
    assert {name: entry["status"] for name, entry in found.items()} == {
        "dati/anagrafica-vaccini-summary-latest.csv": "pass",
        "dati/anagrafica-vaccini-summary-latest.json": "pass",
        "dati/platea-second-booster.csv": "fail",
        "dati/platea-second-booster.json": "fail",
        f"{ADMINISTRATIONS}.csv": "fail",
        f"{ADMINISTRATIONS}.json": "fail",
    }
    for csv in (name for name in found if name.endswith(".csv")):  # the JSON twin: the same
        twin = found[csv.replace(".csv", ".json")]
        assert {**twin, "file": csv} == found[csv]


def test_small_cells_and_classes_of_the_administrations(repository, capsys):
    """311 cells by day, supplier, region and age band, men and women counted apart: the
    figures of plain pandas on the CSV."""
    table = pd.read_csv(f"{ADMINISTRATIONS}.csv")
    counts = table[["m", "f"]]
    small = (counts >= 1) & (counts < 3)
    people = table.melt(
        id_vars=["data", "area", "eta"], value_vars=["m", "f"], var_name="sesso", value_name="n"
    )
    classes = people.groupby(["data", "area", "eta", "sesso"])["n"].sum()
    classes = classes[classes > 0]
    _, found = gate(capsys, f"{ADMINISTRATIONS}.csv")
    entry = found[f"{ADMINISTRATIONS}.csv"]
    assert entry["cells"] == {
        "min_count": 3,
        "cells": 622,
        "withheld": 0,
        "small": int(small.to_numpy().sum()),
        "people_in_small": int(counts[small].sum().sum()),
        "small_by_column": {c: int(small[c].sum()) for c in ("m", "f") if small[c].any()},
        "recovered_by_totals": [],  # d = m + f, but no count is withheld
    }
    assert (entry["rows"], entry["distinct"]) == (int(counts.to_numpy().sum()), len(classes))
    assert (entry["singletons"], entry["k"]) == (int((classes == 1).sum()), int(classes.min()))
    assert entry["problems"][1] == (
        f"k = {classes.min()} on (data, area, eta, sesso), below the 3 required: "
        f"{classes[classes < 3].sum():,} people in classes of fewer than 3"
    )
    assert entry["cells"]["small"] == 85  # pinned: the excerpt as published


def test_the_population_table_fails_on_one_cell(repository, capsys):
    table = pd.read_csv("dati/platea-second-booster.csv")
    assert ((table["totale_popolazione"] >= 1) & (table["totale_popolazione"] < 3)).sum() == 1
    _, found = gate(capsys, "dati/platea-second-booster.csv")
    entry = found["dati/platea-second-booster.csv"]
    assert entry["problems"] == [
        "1 of 189 published cells counts from 1 to 2 people (2 people in all; by count column: "
        "totale_popolazione: 1), below the minimum count of 3"
    ]


def test_no_value_of_a_small_cell_in_the_reports(repository, capsys):
    table = pd.read_csv(f"{ADMINISTRATIONS}.csv")
    rare = set(table.loc[(table[["m", "f"]].sum(axis=1) <= 2), ["forn", "reg"]].to_numpy().ravel())
    assert len(rare) > 5
    for fmt in ("table", "json", "github", "junit"):
        main(["check", f"{ADMINISTRATIONS}.csv", f"{ADMINISTRATIONS}.json", "--format", fmt])
        out, err = capsys.readouterr()
        assert not any(value in out + err for value in rare), fmt
