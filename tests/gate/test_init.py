"""``pandas-anon init``: a configuration written from a repository's files, under which
``check`` gives each file the verdict its content calls for.

Each expected verdict below is reasoned from the file's content (stated beside it), not read
from the gate's output; the configuration is the one ``init`` writes, unedited.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from pandas_anon.cli.main import main
from pandas_anon.gate.classify import data_files

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "gate" / "data"
EXAMPLE = ROOT / "docs" / "examples" / "covid19-opendata-vaccini" / ".pandas-anon.toml"
CAMPAIGN = "somministrazioni-vaccini-latest-campagna-2025-2026"

#: The vaccination excerpt's tables: what init makes of each, and the verdict it calls for.
VACCINATION = {
    # 11 age bands, men and women counted apart (totale = m + f): the smallest cell counts
    # 294 people, none is withheld, so nothing is small and no total gives anything back
    "anagrafica-vaccini-summary-latest.csv": ('counts = ["m", "f"]', "pass"),
    "anagrafica-vaccini-summary-latest.json": ('counts = ["m", "f"]', "pass"),
    # population by region and age band: one cell counts 2 people, below min_count = 3
    "platea-second-booster.csv": ('count = "totale_popolazione"', "fail"),
    "platea-second-booster.json": ('count = "totale_popolazione"', "fail"),
    # administrations of two days by supplier, region and age band: 85 of the 622 cells
    # count 1 or 2 people (d = m + f)
    f"{CAMPAIGN}.csv": ('counts = ["m", "f"]', "fail"),
    f"{CAMPAIGN}.json": ('counts = ["m", "f"]', "fail"),
}


def init(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["init", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def verdicts(capsys, repository: Path, files: list[str], monkeypatch) -> dict[str, str]:
    """``check``'s status of each file, run from the repository (its configuration found)."""
    monkeypatch.chdir(repository)
    main(["check", *files, "--format", "json"])
    out, _ = capsys.readouterr()
    return {entry["file"]: entry["status"] for entry in json.loads(out)["files"]}


@pytest.fixture(scope="module")
def data_copy(tmp_path_factory) -> Path:
    """tests/gate/data with the configuration init writes for it."""
    copy = tmp_path_factory.mktemp("data") / "data"
    shutil.copytree(DATA, copy)
    assert main(["init", str(copy)]) == 0
    return copy


def test_init_on_the_test_data_in_place_and_copied_write_the_same(capsys, data_copy):
    """In this repository init lists the files git lists; in the copy (no git) it walks."""
    assert data_files(DATA) == data_files(data_copy)
    code, out, err = init(capsys, str(DATA), "--stdout")
    assert code == 0
    assert out == (data_copy / ".pandas-anon.toml").read_text(encoding="utf-8")
    assert "6 tables: 6 count tables, 0 person-level, 0 unreadable, 0 skipped" in err
    assert not (DATA / ".pandas-anon.toml").exists()


@pytest.mark.parametrize("name", sorted(VACCINATION))
def test_init_on_the_test_data_gives_each_file_its_verdict(capsys, monkeypatch, data_copy, name):
    declared, expected = VACCINATION[name]
    relative = f"covid19-opendata-vaccini/dati/{name}"
    written = (data_copy / ".pandas-anon.toml").read_text(encoding="utf-8")
    rule = written.split(f'files = "{relative}"\n', 1)[1].split("\n\n", 1)[0]
    assert rule.splitlines()[0] == declared and "min_count = 3" in rule
    assert verdicts(capsys, data_copy, [relative], monkeypatch) == {relative: expected}


@pytest.fixture(scope="module")
def excerpt(tmp_path_factory) -> Path:
    """The vaccination repository excerpt as its maintainer has it (the worked example's
    configuration beside dati/), then init's configuration in place of it (--force)."""
    repository = tmp_path_factory.mktemp("vaccini")
    shutil.copytree(DATA / "covid19-opendata-vaccini" / "dati", repository / "dati")
    shutil.copy(EXAMPLE, repository / ".pandas-anon.toml")
    assert main(["init", str(repository)]) == 2  # never over a configuration unasked
    assert (repository / ".pandas-anon.toml").read_bytes() == EXAMPLE.read_bytes()
    assert main(["init", str(repository), "--force"]) == 0
    return repository


@pytest.mark.parametrize("name", sorted(VACCINATION))
def test_init_on_the_excerpt_gives_each_file_its_verdict(capsys, monkeypatch, excerpt, name):
    declared, expected = VACCINATION[name]
    written = (excerpt / ".pandas-anon.toml").read_text(encoding="utf-8")
    assert f'files = "dati/{name}"\n{declared}\n' in written
    assert verdicts(capsys, excerpt, [f"dati/{name}"], monkeypatch) == {f"dati/{name}": expected}


def test_init_refuses_to_overwrite(capsys, excerpt):
    code, _, err = init(capsys, str(excerpt))
    assert code == 2 and "already exists" in err and "--force" in err


# -- every kind of file, in a git repository -------------------------------------------------


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    """A git repository holding a person-level table, two count tables, an unreadable
    file, a README, an ignored table, and the configuration init writes."""
    from pandas_anon.datasets import load_driver_licenses

    repository = tmp_path_factory.mktemp("mixed")
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (repository / ".gitignore").write_text("private/\n")
    licences = load_driver_licenses()
    (repository / "dati").mkdir()
    licences.head(300).to_csv(repository / "dati" / "persone.csv", index=False)
    born = licences["anno_nascita"] // 5 * 5
    band = born.astype("Int64").astype(str) + "-" + (born + 4).astype("Int64").astype(str)
    cells = licences.assign(nascita=band).groupby(["nascita", "sesso"]).size()
    cells[cells >= 16].rename("n").reset_index().to_csv(
        repository / "dati" / "patenti.csv", index=False
    )
    bus = licences[licences["categoria_patente"] == "D"]
    town = bus.groupby(["comune_residenza", "sesso"]).size().unstack(fill_value=0)
    town = town.rename(columns={"M": "m", "F": "f"})[["m", "f"]].reset_index()
    town = town.assign(totale=town["m"] + town["f"])
    safe = ((town["m"] == 0) | (town["m"] >= 3)) & ((town["f"] == 0) | (town["f"] >= 3))
    one = town.index[(town["f"] == 1) & (town["m"] >= 3)][0]
    town = town[safe | (town.index == one)].astype({"f": "Int64"})
    town.loc[one, "f"] = pd.NA
    town.to_csv(repository / "dati" / "patenti_d.csv", index=False)
    (repository / "dati" / "rotto.csv").write_text("a,b\n1,2\n3,4,5\n")
    (repository / "README.txt").write_text("Open data of the region.\nSee the licence.\n")
    (repository / "private").mkdir()
    licences.head(10).to_csv(repository / "private" / "segreto.csv", index=False)
    assert main(["init", str(repository)]) == 0
    return repository


#: The mixed repository's files: init's kind, and the verdict the content calls for.
MIXED = {
    # records of 300 people with their licence number: a direct identifier
    "dati/persone.csv": ("person-level", "fail"),
    # 33 cells of 16 people or more by birth band and sex
    "dati/patenti.csv": ('count = "n"', "pass"),
    # one f withheld beside totale = m + f, the withheld f counting 1 person
    "dati/patenti_d.csv": ('counts = ["m", "f"]', "fail"),
    # a row longer than the header: the gate cannot vouch for it
    "dati/rotto.csv": ("unreadable", "error"),
    # prose: not a table
    "README.txt": ("skipped", "skipped"),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_init_gives_every_kind_of_file_its_verdict(capsys, monkeypatch, mixed, name):
    kind, expected = MIXED[name]
    written = (mixed / ".pandas-anon.toml").read_text(encoding="utf-8")
    if kind.startswith("count"):
        assert f'files = "{name}"\n{kind}\n' in written
    elif kind == "person-level":
        assert f'# files = "{name}"\n# qid = [' in written and f'\nfiles = "{name}"' not in written
    elif kind == "unreadable":
        assert f'# files = "{name}"\n# skip = true' in written
    else:
        assert f"# {name}: not a table" in written
    assert verdicts(capsys, mixed, [name], monkeypatch) == {name: expected}


def test_init_leaves_out_what_git_ignores(mixed):
    assert "private/segreto.csv" not in (mixed / ".pandas-anon.toml").read_text(encoding="utf-8")
    assert data_files(mixed) == sorted(["README.txt", *(n for n in MIXED if n != "README.txt")])


def test_init_prints_no_value(capsys, mixed):
    code, out, err = init(capsys, str(mixed), "--stdout")
    assert code == 0
    licences = pd.read_csv(mixed / "dati" / "persone.csv")
    for value in licences["comune_residenza"].dropna().unique():
        assert value not in out + err
