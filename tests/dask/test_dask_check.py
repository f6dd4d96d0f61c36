"""``pandas-anon check --engine dask`` on a real LocalCluster (two worker processes): a glob
of CSV files and a folder of Parquet files give the report and exit status the pandas engine
gives on the same rows in one file, with the QID given or elected; what it cannot read is an
error of the usual kind (exit 2), and count tables stay with the pandas engine."""

from __future__ import annotations

import gzip
import json
import os
import zipfile
from pathlib import Path

import pandas as pd
import pytest

if not os.environ.get("CI"):  # CI installs the test extra, which has Dask: never skipped there
    pytest.importorskip("distributed", reason='pip install -e ".[test]" (the dask extra)')

from pandas_anon.cli.main import main
from pandas_anon.gate.config import KEYS

PARTS = 3


@pytest.fixture
def tables(tmp_path, licences):
    """The licence file whole (CSV, Parquet) and cut in three (CSVs, a Parquet folder)."""
    frame = licences.astype({"data_scadenza": str, "data_rilascio": str}, errors="ignore")
    frame.to_csv(tmp_path / "whole.csv", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    (tmp_path / "parts").mkdir()
    size = -(-len(frame) // PARTS)
    for part in range(PARTS):
        piece = frame.iloc[part * size : (part + 1) * size]
        piece.to_csv(tmp_path / f"part-{part}.csv", index=False)
        piece.to_parquet(tmp_path / "parts" / f"part-{part}.parquet", index=False)
    return tmp_path


def report(capsys, *args: str) -> tuple[int, list[dict]]:
    """The exit status and the JSON report's files (less their names) of a check."""
    status = main(["check", *args, "--format", "json"])
    files = json.loads(capsys.readouterr().out)["files"]
    return status, [{k: v for k, v in f.items() if k != "file"} for f in files]


@pytest.mark.parametrize("options", [[], ["--qid", "anno_nascita,comune_residenza,sesso"]])
@pytest.mark.parametrize("limit", [["--k", "5"], ["--max-singletons", "2%"]])
def test_a_glob_of_csv_files_is_checked_as_the_whole_file(client, tables, capsys, options, limit):
    whole = report(capsys, str(tables / "whole.csv"), *options, *limit)
    on_dask = report(capsys, str(tables / "part-*.csv"), "--engine", "dask", *options, *limit)
    assert on_dask == whole
    assert whole[0] == 1  # the licence file fails: an identifier column, singletons


def test_a_parquet_folder_is_checked_as_the_whole_file(client, tables, capsys):
    options = ["--qid", "anno_nascita,comune_residenza,sesso", "--k", "3"]
    whole = report(capsys, str(tables / "whole.parquet"), *options)
    on_dask = report(capsys, str(tables / "parts"), "--engine", "dask", *options)
    assert on_dask == whole
    assert on_dask[1][0]["singletons"] == 1_800  # missing counted as a value (plain groupby)


def test_a_passing_table_exits_0(client, tables, capsys):
    # every column is examined beside the QID: the record numbers are allowed by name
    options = ["--qid", "sesso", "--k", "2", "--allow-identifier", "id"]
    assert report(capsys, str(tables / "parts"), "--engine", "dask", *options)[0] == 0


def test_what_dask_cannot_read_is_an_error(client, tmp_path, capsys):
    status = main(["check", str(tmp_path / "nothing-*.csv"), "--engine", "dask"])
    assert status == 2
    assert "Dask cannot read it" in capsys.readouterr().err


def test_count_tables_stay_with_the_pandas_engine(client, tables, capsys):
    status = main(["check", str(tables / "parts"), "--engine", "dask", "--count", "sesso"])
    assert status == 2
    assert "pandas engine only" in capsys.readouterr().err


def test_the_engine_is_a_configuration_key_too():
    assert KEYS["engine"]("dask") == {"engine": "dask"}
    with pytest.raises(ValueError, match="pandas, dask"):
        KEYS["engine"]("spark")


def test_a_parquet_folder_holding_both_zeros_counts_them_apart(client, tmp_path, capsys):
    """0.0 and -0.0 (each zero alone in a file, then together) are two values, as the pandas
    engine reads them from the same rows in one file: k 3, not the 6 pandas' equality gives."""
    import pandas as pd

    (tmp_path / "parts").mkdir()
    pieces = [[0.0, 0.0, 1.0, 1.0], [-0.0, -0.0, 1.0, 1.0], [0.0, -0.0, 1.0, 1.0]]
    for part, piece in enumerate(pieces):
        pd.DataFrame({"x": piece}).to_parquet(tmp_path / "parts" / f"{part}.parquet")
    pd.DataFrame({"x": sum(pieces, [])}).to_parquet(tmp_path / "whole.parquet")
    whole = report(capsys, str(tmp_path / "whole.parquet"), "--qid", "x", "--k", "4")
    on_dask = report(capsys, str(tmp_path / "parts"), "--engine", "dask", "--qid", "x", "--k", "4")
    assert on_dask == whole
    assert (whole[0], whole[1][0]["k"]) == (1, 3)


# -- both engines give one verdict, or Dask refuses (issue 45) ------------------------------------

DATA = Path(__file__).parents[1] / "gate" / "data"
CODES = [f"RSSMRA{i % 100:02d}A{i // 100 + 1:02d}H501{chr(65 + i % 26)}" for i in range(400)]


def hostile(folder: Path) -> list[str]:
    """The hostile round's files (tests/gate/test_coverage.py) and the forms Dask reads in
    partitions differently from the pandas engine's layer; their names."""
    safe = pd.DataFrame(
        {"anno": [1950 + i % 4 for i in range(400)], "sesso": ["MF"[i % 2] for i in range(400)]}
    )
    coded = safe.assign(cf=CODES)
    unnamed = safe.copy()
    unnamed.insert(0, "", CODES)
    unnamed.to_csv(folder / "empty_header_cell.csv", index=False)
    safe.to_csv(folder / "index.csv")
    records = safe.to_dict("records")
    (folder / "beside.json").write_text(
        json.dumps({"data": records, "extra": coded.to_dict("records")})
    )
    (folder / "json_named.csv").write_text(coded.to_json(orient="records"))
    for orient in ("table", "split"):
        (folder / f"{orient}.json").write_text(
            safe.set_axis(pd.Index(CODES)).to_json(orient=orient)
        )
    towns = ["Aosta", "Citta Nuova", "Pont Saint Martin", "Gressan"]
    lines = ["anno comune sesso"] + [
        f"{1930 + i % 67} {towns[i % 4]}{i % 53} {'MF'[i % 2]}" for i in range(400)
    ]
    (folder / "spaces.txt").write_text("\n".join(lines) + "\n")
    (folder / "ragged.csv").write_text(safe.to_csv(index=False) + "1950,M,RSSMRA\n")
    (folder / "quoted.csv").write_text(coded.assign(nota='"a\nb"').to_csv(index=False))
    (folder / "title.csv").write_text("Patenti 2024\n" + safe.to_csv(index=False))
    safe.set_axis(pd.Index(CODES, name="cf")).to_parquet(folder / "indexed.parquet")
    safe.to_parquet(folder / "safe.parquet", index=False)
    coded.to_excel(folder / "book.xlsx", index=False)
    with zipfile.ZipFile(folder / "one.zip", "w") as archive:
        archive.writestr("a.csv", coded.to_csv(index=False))
    (folder / "safe.csv.gz").write_bytes(gzip.compress(safe.to_csv(index=False).encode()))
    return sorted(path.name for path in folder.iterdir())


def test_both_engines_give_one_verdict_or_dask_refuses(tmp_path, capsys):
    files = [str(path) for path in sorted(DATA.rglob("*")) if path.suffix in (".csv", ".json")]
    files += [str(tmp_path / name) for name in hostile(tmp_path)]
    refused = []
    for file in files:
        for qid in ([], ["--qid", "anno,sesso"] if "/data/" not in file else []):
            pandas = main(["check", file, *qid])
            guessed = "looks like a count table" in capsys.readouterr().err
            dask = main(["check", file, *qid, "--engine", "dask"])
            err = capsys.readouterr().err
            if dask == 2 and "--engine pandas" in err:
                assert file in err
                refused.append(Path(file).name)
            elif not (guessed and dask == 1):  # the guess is the pandas engine's: exit 2
                assert dask == pandas, (file, qid, err)
    assert set(refused) == {
        "beside.json",
        "book.xlsx",
        "empty_header_cell.csv",
        "index.csv",
        "indexed.parquet",
        "json_named.csv",
        "one.zip",
        "split.json",
        "table.json",
        "title.csv",  # text outside the table, which the pandas engine accounts for
        *(path.name for path in DATA.rglob("*.json")),
    }
