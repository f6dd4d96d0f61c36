"""A corpus of risky tables in every form ``pandas-anon check`` accepts or might be handed.

Each case is one file holding a table of :data:`ROWS` rows, nearly every row unique on its
columns: extensions in any case, compressions, archives and archive members of every kind,
encodings, delimiters, title lines, JSON shapes, spreadsheets, Parquet. A gate that reads it
fails it (exit 1); one that cannot read it must say so (exit 2): none may exit 0.
:func:`write_corpus` writes them all into a folder and returns their names.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

ROWS = 200
#: Towns with letters outside ASCII (their bytes differ in UTF-8, cp1252 and UTF-16).
TOWNS = ["Aosta", "Città Nuova", "Gressoney-La-Trinité", "Châtillon", "Saint-Rhémy", "Étroubles"]


def risky() -> pd.DataFrame:
    """Birth year, town and sex of :data:`ROWS` people: no column identifies on its own, and
    every row is alone on the three (67, 53 and 2 are coprime, so the triple repeats only
    after 7,102 rows)."""
    return pd.DataFrame(
        {
            "anno_nascita": [1930 + i % 67 for i in range(ROWS)],
            "comune": [f"{TOWNS[i % 53 % len(TOWNS)]} {i % 53}" for i in range(ROWS)],
            "sesso": ["MF"[i % 2] for i in range(ROWS)],
        }
    )


def tax_codes() -> str:
    """A one-column file of :data:`ROWS` distinct tax codes, no header line: every row unique."""
    return "".join(
        f"RSSMRA{i % 100:02d}A{i // 100 + 1:02d}H501{chr(65 + i % 26)}\n" for i in range(ROWS)
    )


def csv_text(sep: str = ",", title: str = "") -> str:
    """The risky table as delimited text, with ``title`` lines above it."""
    return title + risky().to_csv(sep=sep, index=False)


def json_text(orient: str) -> str:
    """The risky table as ``DataFrame.to_json`` writes it in ``orient`` (``lines``: JSON
    Lines), or wrapped in an object under ``data``."""
    if orient == "lines":
        return risky().to_json(orient="records", lines=True)
    if orient == "wrapped":
        return '{"data": ' + risky().to_json(orient="records") + "}"
    return risky().to_json(orient=orient)


def spreadsheet(suffix: str) -> bytes:
    """The risky table as a workbook of one sheet."""
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="odf" if suffix == ".ods" else "openpyxl") as book:
        risky().to_excel(book, sheet_name="Dati", index=False)
    return buffer.getvalue()


def parquet() -> bytes:
    buffer = io.BytesIO()
    risky().to_parquet(buffer, index=False)
    return buffer.getvalue()


def zipped(members: dict[str, bytes | str]) -> bytes:
    """A zip archive of ``members`` (a name ending in ``/`` is a folder)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
}
#: Members of the archives below that hold no table (they must not hide the one that does).
README = "Dati della Valle d'Aosta.\nFonte: Regione, 2024; licenza CC-BY 4.0.\n"


def _cases() -> dict[str, Callable[[], bytes | str]]:
    """Each case's file name and what it holds (text is written as UTF-8)."""
    cases: dict[str, Callable[[], bytes | str]] = {}
    # delimited text: names in any case, each delimiter, title lines, one column
    for name in ["a.csv", "B.CSV", "c.Csv", "data", "data.dat", "data.DATA", "export.tab"]:
        cases[name] = csv_text
    cases["d.tsv"] = lambda: csv_text("\t")
    cases["E.TSV"] = lambda: csv_text("\t")
    cases["f.Tsv"] = lambda: csv_text("\t")
    for sep, label in [
        (",", "comma"),
        (";", "semicolon"),
        ("\t", "tab"),
        ("|", "pipe"),
        (" ", "space"),
    ]:
        cases[f"{label}.txt"] = lambda sep=sep: csv_text(sep)
        cases[f"{label}_csv.csv"] = lambda sep=sep: csv_text(sep)
    cases["UPPER.TXT"] = lambda: csv_text(";")
    cases["title.txt"] = lambda: csv_text(",", "Patenti della Valle d'Aosta 2024\n")
    cases["title.csv"] = lambda: csv_text(";", "Patenti della Valle d'Aosta 2024\n")
    cases["two_titles.txt"] = lambda: csv_text(
        ";", "Patenti della Valle d'Aosta\nFonte: Regione, 2024\n\n"
    )
    cases["space_title.txt"] = lambda: csv_text(" ", "Patenti della Valle d'Aosta 2024\n")
    cases["codes.txt"] = tax_codes
    cases["codes.csv"] = tax_codes
    cases["codes_header.txt"] = lambda: "codice_fiscale\n" + tax_codes()
    # encodings
    for encoding in ["utf-8-sig", "cp1252", "latin-1", "utf-16"]:
        for suffix in [".csv", ".txt"]:
            label = encoding.replace("-", "")
            cases[f"{label}{suffix}"] = lambda e=encoding: csv_text(";").encode(e)
    # compressions, of each name and in any case
    for name, sep, kind in [
        ("g.csv.gz", ",", "gz"),
        ("H.CSV.GZ", ",", "gz"),
        ("i.tsv.bz2", "\t", "bz2"),
        ("j.txt.xz", ";", "xz"),
        ("k.Csv.Bz2", ";", "bz2"),
        ("data.gz", ",", "gz"),
    ]:
        cases[name] = lambda sep=sep, kind=kind: COMPRESS[kind](csv_text(sep).encode())
    cases["l.json.gz"] = lambda: gzip.compress(json_text("records").encode())
    cases["m.parquet.gz"] = lambda: gzip.compress(parquet())
    # archives: one member, several, nested, members of every kind
    cases["n.csv.zip"] = lambda: zipped({"n.csv": csv_text()})
    cases["O.ZIP"] = lambda: zipped({"O.CSV": csv_text()})
    cases["multi.zip"] = lambda: zipped(
        {
            "docs/": b"",
            "docs/README.txt": README,
            "dati/a.csv": csv_text(),
            "dati/b.tsv": csv_text("\t"),
        }
    )
    for member, content in [
        ("data", lambda: csv_text()),
        ("data.dat", lambda: csv_text()),
        ("DATI.TXT", lambda: csv_text("|")),
        ("a.csv.gz", lambda: gzip.compress(csv_text().encode())),
        ("a.tsv.xz", lambda: lzma.compress(csv_text("\t").encode())),
        ("inner.zip", lambda: zipped({"a.csv": csv_text()})),
        ("deep.zip", lambda: zipped({"inner.zip": zipped({"dati/a.csv": csv_text()})})),
        ("__MACOSX/data.csv", lambda: csv_text()),
        ("__MACOSX/dati/._a.csv", lambda: csv_text()),
        ("a.json", lambda: json_text("records")),
        ("a.ndjson", lambda: json_text("lines")),
        ("a.parquet", parquet),
        ("a.xlsx", lambda: spreadsheet(".xlsx")),
        ("codes.txt", tax_codes),
        ("title.txt", lambda: csv_text(",", "Patenti 2024\n")),
        ("cp1252.csv", lambda: csv_text(";").encode("cp1252")),
    ]:
        label = member.replace("/", "_").replace(".", "_")
        cases[f"member_{label}.zip"] = lambda m=member, c=content: zipped(
            {"README.txt": README, m: c()}
        )
    # a Finder zip: the table beside its AppleDouble file, which is refused rather than skipped
    cases["finder.zip"] = lambda: zipped(
        {"dati/a.csv": csv_text(), "__MACOSX/dati/._a.csv": b"\x00\x05\x16\x07\x00\x02\x00\x00"}
    )
    # JSON in each shape
    for orient in ["records", "split", "values", "index", "columns", "table", "wrapped"]:
        cases[f"{orient}.json"] = lambda o=orient: json_text(o)
    cases["UPPER.JSON"] = lambda: json_text("records")
    cases["lines.json"] = lambda: json_text("lines")
    cases["lines.jsonl"] = lambda: json_text("lines")
    cases["lines.NDJSON"] = lambda: json_text("lines")
    # spreadsheets and Parquet
    cases["p.xlsx"] = lambda: spreadsheet(".xlsx")
    cases["Q.XLSX"] = lambda: spreadsheet(".xlsx")
    cases["r.ods"] = lambda: spreadsheet(".ods")
    cases["s.parquet"] = parquet
    cases["T.PARQUET"] = parquet
    return cases


CASES = _cases()
#: Cases the pandas engine refuses (exit 2): JSON shapes without column names
#: (``DataFrame.to_json``'s default "columns", "index", and "values"), and the Finder zip
#: (its AppleDouble file is an error, its table fails).
REFUSED = {"values.json", "index.json", "columns.json", "finder.zip"}
#: Every other form is read by the pandas engine, and fails (exit 1).


#: Cases with title lines above their header (``space_title.txt``'s title reads as a row).
_TITLED = frozenset({"title.csv", "title.txt", "two_titles.txt"})


def dask_reads(name: str) -> bool:
    """Whether ``--engine dask`` reads the case ``name`` (delimited text, plain or .gz,
    .bz2, .xz, with no title lines above its header; a plain Parquet file) rather than
    refusing it (exit 2)."""
    lower = name.lower()
    if lower in _TITLED:  # text outside the table, accounted for by the pandas engine only
        return False
    if lower.endswith(".parquet"):
        return True
    inner = lower.removesuffix(".gz").removesuffix(".bz2").removesuffix(".xz")
    return not inner.endswith((".zip", ".json", ".jsonl", ".ndjson", ".xlsx", ".ods", ".parquet"))


def write_corpus(folder: Path) -> list[str]:
    """Write every case into ``folder``; return their names."""
    for name, content in CASES.items():
        data = content()
        (folder / name).write_bytes(data.encode() if isinstance(data, str) else data)
    return list(CASES)
