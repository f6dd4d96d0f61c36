"""The pandas-anon command, called through main(argv) for every exit path."""

from __future__ import annotations

import hashlib
import json
import lzma
import re
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest

from pandas_anon.cli.main import main

from conftest import SEED_QID
from verify import naive_counts, naive_election


@pytest.fixture
def latin1_csv(tmp_path, licences):
    """A slice of the real data written the way Italian open data often is: ';' and Latin-1."""
    part = licences[SEED_QID + ["provincia_residenza"]].iloc[:20_000].copy()
    part.loc[part.index[:50], "comune_residenza"] = "SAINT-RHÉMY-EN-BOSSES"
    path = tmp_path / "patenti.csv"
    part.to_csv(path, sep=";", index=False, encoding="latin-1")
    return path, part


@pytest.fixture(scope="module")
def licence_csv(tmp_path_factory) -> Path:
    """The Valle d'Aosta licence file as published (the embedded copy, decompressed)."""
    packed = files("pandas_anon.datasets") / "data" / "driver_licenses_valle_daosta.csv.xz"
    path = tmp_path_factory.mktemp("open-data") / "patenti.csv"
    path.write_bytes(lzma.decompress(packed.read_bytes()))
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_reproduces_the_seed_figures(capsys):
    code, out, err = run(capsys, "demo")
    assert code == 0 and err == ""
    for figure in ("87,464", "1,684", "1.93", "9,174", "(anno_nascita, comune_residenza, sesso)"):
        assert figure in out
    assert "│ NO" not in out and out.count("│ yes") == 5
    assert "(id)" in out


def test_demo_json(capsys):
    code, out, _ = run(capsys, "demo", "--format", "json")
    payload = json.loads(out)
    assert code == 0
    assert payload["singletons"]["singletons"] == 1_684
    assert payload["singletons"]["distinct"] == 9_174
    assert payload["best_qid"]["columns"] == SEED_QID
    assert payload["identifiers"] == [["id"]]


def test_scan_with_a_qid_on_a_latin1_semicolon_file(capsys, latin1_csv):
    path, part = latin1_csv
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    code, out, err = run(capsys, "scan", str(path), "--qid", ",".join(SEED_QID), "--format", "json")
    assert code == 0, err
    found = json.loads(out)["singletons"]
    expected = naive_counts(part, SEED_QID)
    assert (found["singletons"], found["distinct"], found["dropped"]) == (
        expected["singletons"],
        expected["distinct"],
        expected["dropped"],
    )
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest  # never modifies files


def test_scan_elects_the_qid_when_none_is_given(capsys, latin1_csv):
    path, part = latin1_csv
    code, out, _ = run(capsys, "scan", str(path), "--format", "json", "--max-size", "2")
    payload = json.loads(out)
    winner, top, *_ = naive_election(part, list(part.columns), 2, dropna=False)
    assert code == 0
    assert payload["best_qid"]["columns"] == list(winner)
    assert payload["best_qid"]["singletons"] == top  # every row, missing counted as a value
    assert payload["best_qid"]["examined"] == len(part)
    assert (
        payload["singletons"]["singletons"]
        == naive_counts(part, list(winner), dropna=False)["singletons"]
    )
    # --drop-missing: the seed paper's way, rows complete on every candidate
    code, out, _ = run(
        capsys, "scan", str(path), "--format", "json", "--max-size", "2", "--drop-missing"
    )
    winner, top, *_ = naive_election(part, list(part.columns), 2)
    assert json.loads(out)["best_qid"]["singletons"] == top
    code, out, _ = run(capsys, "scan", str(path), "--columns", "anno_nascita,sesso")
    assert code == 0 and "(anno_nascita, sesso)" in out


def test_scan_table_shows_no_quasi_identifier_values(capsys, tmp_path):
    frame = pd.DataFrame(
        {
            "town": [f"SECRET_TOWN_{i}" for i in range(6)] + ["COMMON"] * 6,
            "year": [f"Y{1900 + i}Q" for i in range(6)] + ["Y1999Q"] * 6,
        }
    )
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    for argv in (["--qid", "town,year"], [], ["--format", "json"], ["--keep-missing"]):
        code, out, err = run(capsys, "scan", str(path), *argv)
        assert code == 0
        assert "6" in out  # six singletons reported ...
        assert "SECRET" not in out + err and "Y190" not in out + err  # ... none shown


@pytest.mark.parametrize(
    ("content", "argv", "expected"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", [], "binary"),
        (b"", [], "empty"),
        (b"a,b\n1,2\n3,4\n", ["--qid", "a,nope"], "'nope' not found"),
        (b"a,b\n1,\n3,\n", ["--qid", "a,b"], "'b' holds only missing values"),
        (b"a,b\n1,2\n3,4,5\n", [], "line 3"),
    ],
    ids=["png", "empty", "unknown-column", "all-missing", "ragged"],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, content, argv, expected):
    path = tmp_path / "input.csv"
    path.write_bytes(content)
    code, out, err = run(capsys, "scan", str(path), *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert expected in err and "input.csv" in err


def test_values_are_compared_as_written(capsys, tmp_path):
    path = tmp_path / "zips.csv"
    path.write_text("cap,sex\n0100,F\n100,F\n100,F\n")  # two codes, not one
    code, out, _ = run(capsys, "scan", str(path), "--qid", "cap,sex", "--format", "json")
    assert code == 0 and json.loads(out)["singletons"]["singletons"] == 1


def test_missing_file_exits_2(capsys, tmp_path):
    code, _, err = run(capsys, "scan", str(tmp_path / "absent.csv"))
    assert code == 2 and "absent.csv" in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["scan"],
        ["scan", "x.csv", "--max-size", "0"],
        ["scan", "x.csv", "--qid", ","],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "usage" in err


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "scan", "--help")
    assert code == 0 and "--qid" in out


def test_warnings_are_one_line_with_the_command_line_advice(capsys, tmp_path):
    path = tmp_path / "holes.csv"
    path.write_text("year,town,note\n1950,A,\n1950,A,\n1960,B,x\n")
    code, out, err = run(capsys, "scan", str(path), "--qid", "year,town,note")
    assert code == 0 and "Singletons" in out
    assert err.startswith("pandas-anon: warning: only 1 of 3 rows are complete")
    assert "--keep-missing" in err and err.count("\n") == 1


def test_json_keeps_accented_names(capsys, tmp_path):
    path = tmp_path / "città.csv"
    path.write_text("città,anno\nAosta,1950\nAosta,1950\nNus,1960\n", encoding="utf-8")
    code, out, _ = run(capsys, "scan", str(path), "--qid", "città,anno", "--format", "json")
    assert code == 0 and '"città"' in out


def test_a_warning_before_an_error_is_still_shown(capsys, tmp_path):
    path = tmp_path / "ids.csv"  # 2 complete rows of 5, on which every column is unique
    path.write_text("id,note\n1,\n2,\n3,\n4,x\n5,y\n")
    code, out, err = run(capsys, "scan", str(path), "--drop-missing")
    lines = err.splitlines()
    assert code == 2 and out == "" and len(lines) == 2
    assert lines[0].startswith("pandas-anon: warning: only 2 of 5 rows are complete")
    assert lines[1].startswith("pandas-anon: error:") and "identifier" in lines[1]


def test_output_survives_a_terminal_that_cannot_encode_it(tmp_path):
    import os
    import subprocess
    import sys

    path = tmp_path / "città.csv"
    path.write_text("città,anno\nAosta,1950\nAosta,1950\nNus,1960\n", encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    done = subprocess.run(
        [sys.executable, "-m", "pandas_anon.cli.main", "scan", str(path)],
        capture_output=True,
        env=env,
        text=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"citt\\xe0" in done.stdout


def test_study_on_the_raw_file_reproduces_table_1(capsys, tmp_path, licences):
    path = tmp_path / "patenti.csv"
    licences.to_csv(path, sep=";", index=False, encoding="latin-1")
    code, out, err = run(
        capsys,
        "study",
        str(path),
        "--year",
        "anno_nascita",
        "--sex",
        "sesso",
        "--place",
        "comune_residenza",
        "--place-parent",
        "provincia_residenza",
        "--format",
        "json",
    )
    assert code == 0, err
    payload = json.loads(out)
    rows = {row["strategy"]: row for row in payload["table"]}
    assert (rows["M_loc"]["singletons"], rows["M_loc"]["modified"], rows["M_loc"]["distinct"]) == (
        4,
        1_679,
        7_501,
    )
    assert (rows["Y_avg"]["singletons"], rows["Y_avg"]["distinct"]) == (9, 607)
    assert payload["best"] == "M, Y_avg"
    code, out, _ = run(
        capsys,
        "study",
        str(path),
        "--year",
        "anno_nascita",
        "--sex",
        "sesso",
        "--place",
        "comune_residenza",
        "--place-parent",
        "provincia_residenza",
    )
    assert code == 0 and "S, M_loc" in out and "M, Y_avg" in out
    assert "GIGNOD" not in out  # counts only


def test_study_refuses_text_years(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("year,town,prov,sex\nabc,A,P,F\n1950,B,P,M\n")
    code, _, err = run(
        capsys,
        "study",
        str(path),
        "--year",
        "year",
        "--sex",
        "sex",
        "--place",
        "town",
        "--place-parent",
        "prov",
    )
    assert code == 2 and "non-numeric" in err and "'year'" in err


def test_anonymize_writes_a_k_anonymous_copy(capsys, tmp_path):
    from pandas_anon.datasets import load_adult

    from verify import verify_anonymized

    source, target = tmp_path / "adult.csv", tmp_path / "out.csv"
    load_adult().head(3_000).to_csv(source, sep=";", index=False)
    code, out, err = run(
        capsys,
        "anonymize",
        str(source),
        str(target),
        "--k",
        "5",
        "--qid",
        "age,sex,race",
        "--max-suppression",
        "0.02",
        "--format",
        "json",
    )
    assert code == 0, err
    report = json.loads(out)
    written = pd.read_csv(target, sep=";", dtype=str, keep_default_na=False)  # the input's
    assert len(written) == 3_000 and report["rows"] == 3_000
    checked = verify_anonymized(written, ["age", "sex", "race"], 5, 60)
    assert checked["suppressed"] == report["suppressed"]
    code, _, err = run(capsys, "anonymize", str(source), str(target), "--k", "0")
    assert code == 2 and "k must be a whole number of at least 1" in err


def test_anonymize_with_entropy_l_diversity(capsys, tmp_path):
    from pandas_anon.datasets import load_adult

    from verify import verify_anonymized, verify_l_diverse

    source, target = tmp_path / "adult.csv", tmp_path / "out.csv"
    load_adult().head(3_000).to_csv(source, index=False)
    qid = ["age", "sex", "race"]
    code, out, err = run(
        capsys,
        "anonymize",
        str(source),
        str(target),
        "--k",
        "5",
        "--qid",
        ",".join(qid),
        "--max-suppression",
        "0.05",
        "--sensitive",
        "occupation",
        "--l",
        "3",
        "--l-variant",
        "entropy",
        "--format",
        "json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["models"] == ["5-anonymity", "entropy l-diversity (l=3)"]
    written = pd.read_csv(target, dtype=str, keep_default_na=False)
    assert verify_anonymized(written, qid, 5, 150)["suppressed"] == report["suppressed"]
    assert verify_l_diverse(written, qid, "occupation", 3, "entropy")[0] == report["classes"]
    code, _, err = run(capsys, "anonymize", str(source), str(target), "--k", "5", "--l", "3")
    assert code == 2 and "sensitive=" in err


#: The seed QID's singletons on the licence file counted each way, with the label both
#: commands give them: (label, singletons, rows examined, rows dropped as incomplete).
BOTH_WAYS = {
    "keep_missing": ("singletons, missing as a value (--keep-missing)", 1_800, 87_642, 0),
    "drop_missing": ("singletons, incomplete rows dropped (--drop-missing)", 1_684, 87_464, 178),
}


@pytest.mark.parametrize(
    ("command", "marked", "options", "keep_missing"),
    [
        ("scan", "the way the figures below count", [], False),  # the seed paper's count
        ("scan", "the way the figures below count", ["--keep-missing"], True),
        ("check", "the way the verdict counts", [], True),  # the gate's rule
        ("check", "the way the verdict counts", ["--drop-missing"], False),
    ],
)
def test_scan_and_check_give_the_singletons_counted_both_ways(
    capsys, licence_csv, command, marked, options, keep_missing
):
    """``scan --qid`` and ``check`` on the same columns each give the singletons with a
    missing value counted as a value (1,800) and with incomplete rows dropped (1,684, the
    seed paper's), labelled alike in text and JSON (the same keys), and mark the way the
    rest of the report (or the verdict) counts, which ``--keep-missing`` and
    ``--drop-missing`` choose."""
    argv = [command, str(licence_csv), "--qid", ",".join(SEED_QID), *options]
    code, out, err = run(capsys, *argv)
    assert code == (0 if command == "scan" else 1), err
    used = "keep_missing" if keep_missing else "drop_missing"
    for way, (label, singletons, examined, _) in BOTH_WAYS.items():
        figures = f"{singletons:,} of {examined:,} rows ({100 * singletons / examined:.2f} %)"
        line = re.search(rf"{re.escape(label)}\W+{re.escape(figures)}(, {marked})?", out)
        assert line is not None, (label, out)
        assert (line.group(1) is not None) == (way == used), line.group()
    code, out, err = run(capsys, *argv, "--format", "json")
    payload = json.loads(out)
    found = payload if command == "scan" else payload["files"][0]
    assert found["keep_missing"] is keep_missing
    assert found["singletons_by_missing"] == {
        way: {
            "singletons": singletons,
            "examined": examined,
            "dropped": dropped,
            "fraction": singletons / examined,
        }
        for way, (_, singletons, examined, dropped) in BOTH_WAYS.items()
    }
