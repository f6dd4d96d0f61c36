"""``scan``, ``report`` and ``anonymize`` read every format ``check`` reads, through the gate's
reading layer (issue 45): before it, each refused a workbook, Parquet and a zip member
("does not look like a text table ... name it .xlsx", although it was named .xlsx) and read
JSON as delimited text. A file holding several tables names one; a file whose account leaves
a value unread is refused (exit 2), as ``check`` refuses it."""

from __future__ import annotations

import json
import zipfile

import pandas as pd
import pytest

from pandas_anon.cli.main import main

PEOPLE = pd.DataFrame(
    {
        "anno": [1950 + i % 3 for i in range(30)],
        "comune": [["Aosta", "Roma", "Bard"][i % 3 if i else 1] for i in range(30)],
        "sesso": ["MF"[i % 2] for i in range(30)],
    }
)


def write(folder, form: str) -> str:
    """``PEOPLE`` written in ``form``; the name a command is given."""
    if form == "xlsx":
        PEOPLE.to_excel(folder / "t.xlsx", index=False, sheet_name="Foglio1")
        return str(folder / "t.xlsx")
    if form == "ods":
        PEOPLE.to_excel(folder / "t.ods", index=False, engine="odf")
        return str(folder / "t.ods")
    if form == "json":
        (folder / "t.json").write_text(PEOPLE.to_json(orient="records"))
        return str(folder / "t.json")
    if form == "parquet":
        PEOPLE.to_parquet(folder / "t.parquet", index=False)
        return str(folder / "t.parquet")
    with zipfile.ZipFile(folder / "t.zip", "w") as archive:
        archive.writestr("dati/t.csv", PEOPLE.to_csv(index=False))
        archive.writestr("LEGGIMI.txt", "Dati delle patenti, 2024.\n")  # prose: skipped
    return f"{folder / 't.zip'}:dati/t.csv"


FORMS = ["xlsx", "ods", "json", "parquet", "zip member"]


@pytest.mark.parametrize("form", FORMS)
def test_scan_reads_every_format(tmp_path, capsys, form):
    file = write(tmp_path, form)
    assert main(["scan", file, "--qid", "anno,comune", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["rows"] == 30
    assert found["singletons"]["singletons"] == 1  # the one Roma of 1950, whatever the format


@pytest.mark.parametrize("form", FORMS)
def test_report_reads_every_format(tmp_path, capsys, form):
    file = write(tmp_path, form)
    page = tmp_path / "r.html"
    assert main(["report", file, "-o", str(page), "--qid", "anno,comune", "--k", "2"]) == 0
    assert page.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("form", FORMS)
def test_anonymize_reads_every_format_and_writes_csv(tmp_path, capsys, form):
    file = write(tmp_path, form)
    out = tmp_path / "out.csv"
    assert main(["anonymize", file, str(out), "--k", "2", "--qid", "anno,comune"]) == 0
    written = pd.read_csv(out, dtype=str)
    assert list(written.columns) == ["anno", "comune", "sesso"]
    assert written.groupby(["anno", "comune"]).size().min() >= 2
    assert set(written["sesso"]) == {"M", "F"}  # left as read


def test_a_file_of_several_tables_names_one(tmp_path, capsys):
    with pd.ExcelWriter(tmp_path / "two.xlsx") as book:
        PEOPLE.to_excel(book, sheet_name="A", index=False)
        PEOPLE.to_excel(book, sheet_name="B", index=False)
    book = str(tmp_path / "two.xlsx")
    assert main(["scan", book, "--qid", "anno"]) == 2
    err = capsys.readouterr().err
    assert f"holds 2 tables ({book}:A, {book}:B); pass the one to read by its name" in err
    assert main(["scan", f"{book}:B", "--qid", "anno"]) == 0
    capsys.readouterr()
    assert main(["scan", f"{book}:C", "--qid", "anno"]) == 2
    assert "holds no table of that name" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["scan", "report", "anonymize"])
def test_a_file_with_an_unread_part_is_refused(tmp_path, capsys, command):
    codes = [f"RSSMRA{i:02d}" for i in range(30)]
    document = {"data": PEOPLE.to_dict("records"), "meta": {"people": codes}}
    (tmp_path / "t.json").write_text(json.dumps(document))
    out = {"scan": [], "report": ["-o", str(tmp_path / "r.html")], "anonymize": ["o.csv"]}
    options = ["--k", "2"] if command == "anonymize" else []
    assert main([command, str(tmp_path / "t.json"), *out[command], *options]) == 2
    err = capsys.readouterr().err
    assert "t.json:$.meta (30 JSON values, outside the table read)" in err
    assert not any(code in err for code in codes)
    assert not (tmp_path / "o.csv").exists()
