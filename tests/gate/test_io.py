"""Tests for pandas_anon.gate.io.read_table: format detection, and a clear error for every bad file."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import pickle
import string
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pandas_anon.errors import ColumnNotFoundError, InputFileError
from pandas_anon.gate import io as anon_io
from pandas_anon.gate.io import TableEntry, ZipMember, read_columns, read_table, tables_in

from gate_tables import HEADERLESS, TAX_CODES

SECRET = "SECRET_VALUE_123"
COMUNI = ["Saint-Rhémy-en-Bosses", "Forlì", "Napoli"]


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` byte for byte (no newline translation)."""
    path.write_bytes(text.encode(encoding))
    return path


def input_error(path: Path, **options: Any) -> str:
    """Read ``path`` expecting an InputFileError; return its message after common checks."""
    with pytest.raises(InputFileError) as info:
        read_table(path, **options)
    message = str(info.value)
    assert str(path) in message
    assert SECRET not in message
    assert "\n" not in message
    return message


# -- formats that read ------------------------------------------------------------------------


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_detects_each_delimiter(tmp_path: Path, sep: str) -> None:
    # Each value holds another candidate delimiter, so a wrong guess changes the shape.
    others = "".join(c for c in ",;|" if c != sep)
    rows = ["comune", "nota", "eta"], ["Roma", f"x{others}y", "30"], ["Milano", "z", "41"]
    path = write(tmp_path / "t.csv", "".join(sep.join(row) + "\n" for row in rows))
    df = read_table(path)
    assert list(df.columns) == ["comune", "nota", "eta"]
    assert df["nota"].tolist() == [f"x{others}y", "z"]
    assert df["eta"].tolist() == [30, 41]


def test_decimal_commas_in_a_semicolon_file(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "comune;reddito\nRoma;3,5\nMilano;4,25\n")
    assert read_table(path)["reddito"].tolist() == ["3,5", "4,25"]


def test_quoted_delimiters_and_newlines(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", 'a,b\n"x, y",1\n"two\nlines",2\n')
    df = read_table(path)
    assert df["a"].tolist() == ["x, y", "two\nlines"]
    assert df["b"].tolist() == [1, 2]


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "a;b\r\n1;x\r\n2;y\r\n")
    df = read_table(path)
    assert list(df.columns) == ["a", "b"]
    assert df["b"].tolist() == ["x", "y"]


def test_tsv_name_means_tab(tmp_path: Path) -> None:
    # Comma and tab both split this consistently; the .tsv name decides.
    path = write(tmp_path / "t.tsv", "a,b\tc\n1,2\t3\n")
    assert list(read_table(path).columns) == ["a,b", "c"]


def test_explicit_sep_overrides_detection(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "a,b;c\n1,2;3\n")
    assert list(read_table(path, sep=";").columns) == ["a,b", "c"]
    assert list(read_table(path, sep=",").columns) == ["a", "b;c"]


def test_one_column_file(tmp_path: Path) -> None:
    # Unquoted commas in the values must not be taken for a delimiter.
    path = write(tmp_path / "t.csv", "comune\nRoma\nForlì, FC\nMilano\n")
    df = read_table(path)
    assert list(df.columns) == ["comune"]
    assert df["comune"].tolist() == ["Roma", "Forlì, FC", "Milano"]


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-8"])
def test_accented_names(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path / "t.csv", "comune;n\n" + "".join(f"{c};1\n" for c in COMUNI), encoding)
    assert read_table(path)["comune"].tolist() == COMUNI


def test_cp1252_is_preferred_to_latin1(tmp_path: Path) -> None:
    # 0x92 is a right single quote in cp1252 but a control character in latin-1.
    path = write(tmp_path / "t.csv", "comune\nSant’Agata de’ Goti\n", "cp1252")
    assert read_table(path)["comune"].tolist() == ["Sant’Agata de’ Goti"]


def test_utf8_cut_at_the_sample_boundary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A two-byte "ì" straddling the end of the sample must not make UTF-8 look invalid.
    head = "comune;n\nForl"
    monkeypatch.setattr(anon_io, "SAMPLE_BYTES", len(head) + 1)
    path = write(tmp_path / "t.csv", head + "ì;1\nRoma;2\n")
    assert read_table(path)["comune"].tolist() == ["Forlì", "Roma"]


@pytest.mark.parametrize("encoding", [None, "utf-8"])
def test_utf8_bom_is_stripped(tmp_path: Path, encoding: str | None) -> None:
    path = write(tmp_path / "t.csv", "\ufeffcomune;n\nForlì;1\n")
    df = read_table(path, usecols=["comune"], encoding=encoding)
    assert list(df.columns) == ["comune"]
    assert df["comune"].tolist() == ["Forlì"]


def test_utf16_with_bom(tmp_path: Path) -> None:
    # What Excel saves as "Unicode text".
    path = tmp_path / "t.txt"
    path.write_text("comune\tn\nForlì\t1\n", encoding="utf-16")
    assert read_table(path)["comune"].tolist() == ["Forlì"]


def test_explicit_encoding(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "comune\nForlì\n", "latin-1")
    assert read_table(path, encoding="latin-1")["comune"].tolist() == ["Forlì"]
    assert "utf-8" in input_error(path, encoding="utf-8")


def compress(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` compressed as its name says (in any case)."""
    if path.suffix.lower() == ".zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("dati/comuni.csv", data)
    else:
        compressors: dict[str, Callable[[bytes], bytes]] = {
            ".gz": gzip.compress,
            ".bz2": bz2.compress,
            ".xz": lzma.compress,
        }
        path.write_bytes(compressors[path.suffix.lower()](data))


@pytest.mark.parametrize("name", ["t.csv.gz", "t.csv.bz2", "t.csv.xz", "t.csv.zip", "t.zip"])
def test_compressed(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    compress(path, ("comune;sigla\n" + "".join(f"{c};X\n" for c in COMUNI)).encode("latin-1"))
    df = read_table(path)
    assert df["comune"].tolist() == COMUNI


def test_compressed_tsv_means_tab(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv.gz"
    compress(path, b"a,b\tc\n1,2\t3\n")
    assert list(read_table(path).columns) == ["a,b", "c"]


def test_zip_ignores_folders_and_macos_metadata(tmp_path: Path) -> None:
    path = tmp_path / "t.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("dati/", b"")
        archive.writestr("dati/t.csv", b"a;b\n1;2\n")
        archive.writestr("__MACOSX/dati/._t.csv", b"\x00\x05\x16\x07")
    assert read_table(path).to_dict("list") == {"a": [1], "b": [2]}


@pytest.mark.parametrize("name", ["T.CSV", "t.Csv.Gz", "T.CSV.BZ2", "t.csv.XZ", "T.ZIP"])
def test_upper_case_suffixes(tmp_path: Path, name: str) -> None:
    path, data = tmp_path / name, b"a;b\n1;x\n2;y\n"
    if path.suffix == ".CSV":
        path.write_bytes(data)
    else:
        compress(path, data)
    assert read_table(path).to_dict("list") == {"a": [1, 2], "b": ["x", "y"]}


@pytest.mark.parametrize("name", ["t.TSV", "t.Tsv.GZ"])
def test_upper_case_tsv_means_tab(tmp_path: Path, name: str) -> None:
    path, data = tmp_path / name, b"a,b\tc\n1,2\t3\n"
    if path.suffix == ".TSV":
        path.write_bytes(data)
    else:
        compress(path, data)
    assert list(read_columns(path).columns) == list(read_table(path).columns) == ["a,b", "c"]


def zip_of(path: Path, members: dict[str, bytes | str]) -> Path:
    """A zip archive holding ``members`` (a name ending in / is a folder)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_zip_member_names_one_table_of_several(tmp_path: Path) -> None:
    path = zip_of(tmp_path / "t.zip", {"a.csv": "x;y\n1;2\n", "b/T.TSV": "x,y\tz\n1,2\t3\n"})
    for read in (read_table, read_columns):
        assert read(ZipMember(str(path), "a.csv")).astype(str).to_dict("list") == {
            "x": ["1"],
            "y": ["2"],
        }
        assert list(read(ZipMember(str(path), "b/T.TSV")).columns) == ["x,y", "z"]
    assert "contains 2 files, not one" in input_error(path)  # a plain name needs one file


def test_zip_member_is_a_string_that_pickles(tmp_path: Path) -> None:
    member = ZipMember("open data.zip", "dati/t.csv")
    assert member == "open data.zip:dati/t.csv" and isinstance(member, str)
    again = pickle.loads(pickle.dumps(member))
    assert (again, again.archive, again.member) == (member, "open data.zip", "dati/t.csv")


def member_error(path: Path, member: str) -> str:
    """Read ``member`` of ``path`` expecting an InputFileError; return its message."""
    with pytest.raises(InputFileError) as info:
        read_columns(ZipMember(str(path), member))
    message = str(info.value)
    assert message.startswith(f"{path}:{member}")
    assert SECRET not in message
    return message


def test_zip_member_errors_name_the_member(tmp_path: Path) -> None:
    path = zip_of(
        tmp_path / "t.zip", {"ok.csv": "a\n1\n", "ragged.csv": f"a;b\n1;2\n{SECRET};3;4\n"}
    )
    assert "line 3 has 3 fields but the header has 2" in member_error(path, "ragged.csv")
    assert "the archive has no such member" in member_error(path, "nope.csv")


def patch_zip_headers(path: Path, field: int, value: int) -> None:
    """Set a 2-byte field of the (only) member's local and central headers: ``field`` is its
    offset in the local header (6 flags, 8 method), 2 more in the central one."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", field), (b"PK\x01\x02", field + 2)):
        at = data.index(signature) + offset
        data[at : at + 2] = value.to_bytes(2, "little")
    path.write_bytes(bytes(data))


def test_encrypted_zip_member(tmp_path: Path) -> None:
    path = zip_of(tmp_path / "t.zip", {"t.csv": f"a\n{SECRET}\n"})
    patch_zip_headers(path, 6, 0x1)  # what a password sets; zipfile itself cannot encrypt
    assert "is encrypted" in member_error(path, "t.csv")
    assert "is encrypted" in input_error(path)


def test_zip_member_of_an_unsupported_method(tmp_path: Path) -> None:
    path = zip_of(tmp_path / "t.zip", {"t.csv": f"a\n{SECRET}\n"})
    patch_zip_headers(path, 8, 9)  # deflate64
    assert "zip method 9" in member_error(path, "t.csv")


PROSE = "Read me first\nThe data, by year; see the notes.\n"
NOT_SPLIT = anon_io.PROSE
#: A table below a title line and a source line (whose comma is no delimiter in it).
TITLED = "Patenti 2024\nFonte: Regione, 2024\n\ncomune;n\nRoma;1\nForlì;2\n"
#: A column of codes without a header, one value per line.
CODES = "RSSMRA80A01H501U\nVRDLGU75B12F205X\nBNCGPP90C03L219K\n"


@pytest.mark.parametrize(
    ("name", "content", "skipped"),
    [
        ("t.csv", PROSE, ""),  # only a .txt is judged
        ("t.txt", "a;b\n1;2\n", ""),
        ("t.TXT", "a|b\n1|2\n", ""),
        ("t.txt", PROSE, NOT_SPLIT),
        ("t.txt", "", "empty"),
        ("t.txt", "\ufeff \n\n", "empty"),
        ("t.txt", "a, b\n", "not a table: a single line"),
        ("t.txt", b"\x89PNG\r\n\x1a\n" + SECRET.encode(), ""),  # reading it says it is binary
        ("t.txt", TITLED, ""),  # a table below its titles
        ("t.txt", CODES, ""),  # one value per line: a table of one column
        ("t.txt", "codice_fiscale\n" + CODES, ""),
        ("t.txt", "anno comune sesso\n1950 Aosta F\n1951 Cogne M\n", ""),  # space-separated
        ("t.txt", "Dati 2024, Aosta\nanno comune\n1950 Aosta\n1951 Cogne\n", ""),
        ("t.txt", "numpy\npandas>=2,<4\n", NOT_SPLIT),  # a requirements file with a range
        ("t.txt", "Title\n\nSome words here.\nAnd more words, here.\n", NOT_SPLIT),
    ],
)
def test_tables_in_a_file(tmp_path: Path, name: str, content: str | bytes, skipped: str) -> None:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert tables_in(path) == [TableEntry(str(path), skipped)]


def test_tables_in_a_compressed_or_utf16_txt(tmp_path: Path) -> None:
    path = tmp_path / "t.txt.xz"
    compress(path, PROSE.encode())
    assert tables_in(path) == [TableEntry(str(path), NOT_SPLIT)]
    excel = tmp_path / "unicode.txt"  # what Excel saves as "Unicode text"
    excel.write_text("comune\tn\nForlì\t1\n", encoding="utf-16")
    assert tables_in(excel) == [TableEntry(str(excel))]


def test_tables_in_a_txt_with_a_given_delimiter(tmp_path: Path) -> None:
    path = write(tmp_path / "t.txt", "a b,c\n1 2,3\n")
    assert tables_in(path, sep="|") == [
        TableEntry(str(path), "not a table: '|' does not split its lines into columns")
    ]
    assert tables_in(path, sep=",") == [TableEntry(str(path))]


def test_tables_in_a_zip(tmp_path: Path) -> None:
    path = zip_of(
        tmp_path / "Dati.ZIP",
        {
            "dati/": b"",
            "dati/a.CSV": "x;y\n1;2\n",
            "dati/b.tsv": "x\ty\n1\t2\n",
            "dati/c.Txt": "x|y\n1|2\n",
            "dati/LEGGIMI.txt": PROSE,
            "dati/d.csv.gz": gzip.compress(b"x;y\n1;2\n"),
            "dati/e": "x,y\n1,2\n",
            "dati/f.dat": "x|y\n1|2\n",
            "__MACOSX/dati/g.csv": "x;y\n1;2\n",
            "__MACOSX/dati/._a.CSV": b"\x00\x05\x16\x07",
            "mappa.png": b"\x89PNG",
        },
    )
    member = ZipMember(str(path), "")
    entries = tables_in(path)
    assert [(entry.name, entry.skipped) for entry in entries] == [
        (f"{path}:dati/", "a folder"),
        (f"{path}:dati/a.CSV", ""),
        (f"{path}:dati/b.tsv", ""),
        (f"{path}:dati/c.Txt", ""),
        (f"{path}:dati/LEGGIMI.txt", NOT_SPLIT),
        (f"{path}:dati/d.csv.gz", ""),
        (f"{path}:dati/e", ""),
        (f"{path}:dati/f.dat", ""),
        (f"{path}:__MACOSX/dati/g.csv", ""),
        (f"{path}:__MACOSX/dati/._a.CSV", ""),
        (f"{path}:mappa.png", ""),
    ]
    assert all(isinstance(entry.name, type(member)) for entry in entries)
    tables = [entry.name for entry in entries if not entry.skipped][:7]
    for read in (read_table, read_columns):
        assert [read(name).astype(str).to_dict("list") for name in tables] == [
            {"x": ["1"], "y": ["2"]}
        ] * 7
    assert "macOS AppleDouble file" in member_error(path, "__MACOSX/dati/._a.CSV")
    assert "a PNG image" in member_error(path, "mappa.png")


@pytest.mark.parametrize(
    "members", [{}, {"docs/": b""}, {"README.txt": PROSE, "docs/": b"", "docs/NOTE.TXT": ""}]
)
def test_tables_in_a_zip_without_a_table(tmp_path: Path, members: dict[str, str]) -> None:
    path = zip_of(tmp_path / "t.zip", members)
    files = sum(not name.endswith("/") for name in members)
    assert tables_in(path) == [
        TableEntry(str(path), f"holds no table among its {files} file{'' if files == 1 else 's'}")
    ]


def test_tables_in_archives_inside_an_archive(tmp_path: Path) -> None:
    inner = zip_of(tmp_path / "inner.zip", {"dati/": b"", "dati/a.csv": "x;y\n1;2\n"})
    deep = zip_of(tmp_path / "deep.zip", {"inner.ZIP": inner.read_bytes()})
    path = zip_of(
        tmp_path / "t.zip",
        {
            "inner.zip": inner.read_bytes(),
            "b/deep.zip": deep.read_bytes(),
            "c.zip": SECRET,  # text: an archive by its content only, so a table
            "d.zip": inner.read_bytes()[:40],  # a zip's first bytes, then nothing
        },
    )
    entries = tables_in(path)
    assert [(entry.name, entry.skipped, bool(entry.error)) for entry in entries] == [
        (f"{path}:inner.zip:dati/", "a folder", False),
        (f"{path}:inner.zip:dati/a.csv", "", False),
        (f"{path}:b/deep.zip:inner.ZIP:dati/", "a folder", False),
        (f"{path}:b/deep.zip:inner.ZIP:dati/a.csv", "", False),
        (f"{path}:c.zip", "", False),
        (f"{path}:d.zip", "", True),
    ]
    assert entries[5].error == f"{path}:d.zip is not a valid zip file (corrupt or truncated); " + (
        "re-download or re-compress it"
    )
    for entry in (entries[1], entries[3]):
        assert read_columns(entry.name).astype(str).to_dict("list") == {"x": ["1"], "y": ["2"]}
        again = pickle.loads(pickle.dumps(entry.name))  # a name that reaches a worker process
        assert read_table(again).to_dict("list") == {"x": [1], "y": [2]}


def test_archives_nested_deeper_than_the_bound_are_errors(tmp_path: Path) -> None:
    data = zip_of(tmp_path / "a.zip", {"a.csv": f"x\n{SECRET}\n"}).read_bytes()
    for depth in range(anon_io.MAX_ZIP_DEPTH):
        data = zip_of(tmp_path / f"{depth}.zip", {f"{depth}.zip": data}).read_bytes()
    # n.zip holds n.zip, which holds (n-1).zip, ... 0.zip, which holds a.csv
    (entry,) = tables_in(tmp_path / f"{anon_io.MAX_ZIP_DEPTH - 1}.zip")
    assert entry.name.endswith(":0.zip") and entry.name.count(".zip") == anon_io.MAX_ZIP_DEPTH + 1
    assert "5 archives deep, deeper than the 4 read; extract it" in entry.error
    assert SECRET not in entry.error
    (entry,) = tables_in(tmp_path / f"{anon_io.MAX_ZIP_DEPTH - 2}.zip")  # one archive less
    assert entry.name.endswith(":0.zip:a.csv") and not entry.error and not entry.skipped


def test_title_lines_above_the_header_are_skipped(tmp_path: Path) -> None:
    for name in ("t.csv", "t.txt", "t.csv.gz"):
        path = tmp_path / name
        data = (TITLED + "".join(f"X{i};{i}\n" for i in range(300))).encode("cp1252")
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        table = read_table(path)
        assert list(table.columns) == ["comune", "n"] and len(table) == 302
        assert table["comune"].tolist()[:2] == ["Roma", "Forlì"]
        assert read_columns(path).astype(str).equals(table.astype(str))
        assert anon_io.csv_options(path) == {
            "sep": ";",
            "encoding": "cp1252",
            "skiprows": 3,  # the two titles and the blank line below them
            "compression": "gzip" if name.endswith(".gz") else None,
        }


@pytest.mark.parametrize(
    ("content", "header"),
    [
        ("comune\nRoma\nForlì, FC\nMilano\n", ["comune"]),  # "comune" is no title
        ("comune\nForlì;FC\nRoma;RM\n", ["comune"]),  # one word: a header, not a title
        ("c0\n;\n;\n", ["c0"]),
        ("Dati 2024\n;\n;\n", ["Dati 2024"]),  # no title above a header of no names
        ("a;b\n1;2\nx\n", ["a", "b"]),  # a short last row
    ],
)
def test_what_is_no_title(tmp_path: Path, content: str, header: list[str]) -> None:
    path = write(tmp_path / "t.csv", content)
    assert anon_io.csv_options(path)["skiprows"] == 0
    assert list(read_table(path).columns) == header


def test_a_space_separated_table(tmp_path: Path) -> None:
    path = write(tmp_path / "t.txt", "anno comune sesso\n1950 Aosta F\n1951 Cogne M\n")
    assert read_table(path).to_dict("list") == {
        "anno": [1950, 1951],
        "comune": ["Aosta", "Cogne"],
        "sesso": ["F", "M"],
    }
    # a one-column file of values with spaces stays one column
    assert list(read_table(write(tmp_path / "c.csv", "comune\nValle d'Aosta\nRoma\n")).columns) == [
        "comune"
    ]


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("a.csv", None),
        ("data", None),
        ("a.TXT.gz", None),
        ("a.csv.zip", "a .zip archive"),
        ("a.JSON", "JSON"),
        ("a.ndjson.xz", "JSON Lines"),
        ("a.parquet.gz", "Parquet"),
        ("a.ods", "a spreadsheet"),
    ],
)
def test_other_format(name: str, form: str | None) -> None:
    assert anon_io.other_format(name) == form


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "no such file"),
        (b"PK\x03\x04" + SECRET.encode(), "is not a valid zip file (corrupt or truncated)"),
    ],
)
def test_tables_in_an_unusable_zip(tmp_path: Path, content: bytes | None, problem: str) -> None:
    path = tmp_path / "t.zip"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputFileError) as info:
        tables_in(path)
    assert str(info.value).startswith(f"{path} ") or str(info.value).startswith(f"{path}:")
    assert problem in str(info.value) and SECRET not in str(info.value)


def test_only_empty_fields_are_missing(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "comune;sigla;nome\nNapoli;NA;NaN\nRoma;;null\nX;RM;N/A\n")
    df = read_table(path)
    assert df["sigla"].isna().tolist() == [False, True, False]
    assert df["sigla"].iloc[0] == "NA"
    assert df["nome"].tolist() == ["NaN", "null", "N/A"]


def test_dtypes_are_inferred(tmp_path: Path) -> None:
    df = read_table(write(tmp_path / "t.csv", "n;x;s\n1;1.5;a\n2;2.5;b\n"))
    assert df["n"].dtype == "int64"
    assert df["x"].dtype == "float64"
    assert pd.api.types.is_string_dtype(df["s"])


def test_one_type_per_column_in_a_large_file(tmp_path: Path) -> None:
    # pandas infers per chunk by default: a late non-number would leave the column holding
    # both 1 and "1", which count as different values.
    lines = [f"{i % 100};a" for i in range(300_000)] + ["z;a"]
    path = write(tmp_path / "t.csv", "x;y\n" + "\n".join(lines) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = read_table(path)["x"]
    assert not caught
    assert {type(v) for v in x} == {str}
    assert (x == "1").sum() == 3000


def test_header_only_gives_an_empty_frame(tmp_path: Path) -> None:
    df = read_table(write(tmp_path / "t.csv", "comune;sigla;n\n"))
    assert list(df.columns) == ["comune", "sigla", "n"]
    assert len(df) == 0


def test_trailing_delimiters_are_unnamed_columns_not_repeats(tmp_path: Path) -> None:
    df = read_table(write(tmp_path / "t.csv", "a;b;;\n1;2;;\n"))
    assert list(df.columns)[:2] == ["a", "b"]
    assert df.shape == (1, 4)


def test_usecols_selects_in_the_order_asked(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "a;b;c\n1;2;3\n")
    df = read_table(path, usecols=["c", "a", "c"])
    assert list(df.columns) == ["c", "a"]
    assert df.values.tolist() == [[3, 1]]


def test_accepts_pathlike_and_str(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "a;b\n1;2\n")
    assert read_table(str(path)).equals(read_table(path))


alphabet = string.ascii_letters + " ,;|\t\"'àìé€"
# Cells stay text: not blank (pandas skips blank lines), not words pandas reads as bool or float.
cells = st.text(alphabet, min_size=1, max_size=8).filter(
    lambda s: s.strip() and s.strip().lower() not in {"true", "false", "inf", "infinity", "nan"}
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.integers(0, 6).flatmap(
        lambda width: st.lists(st.lists(cells, min_size=width + 1, max_size=width + 1), max_size=8)
    ),
    sep=st.sampled_from([",", ";", "\t", "|"]),
    encoding=st.sampled_from(["utf-8", "cp1252"]),
)
def test_roundtrip(tmp_path: Path, rows: list[list[str]], sep: str, encoding: str) -> None:
    width = len(rows[0]) if rows else 1
    frame = pd.DataFrame(rows, columns=[f"c{i}" for i in range(width)], dtype=object)
    path = tmp_path / "t.csv"
    frame.to_csv(path, sep=sep, index=False, encoding=encoding)
    result = read_table(path)
    assert list(result.columns) == list(frame.columns)
    assert result.astype(object).values.tolist() == frame.values.tolist()


# -- files that do not read -------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in input_error(tmp_path / "nope.csv")


def test_directory(tmp_path: Path) -> None:
    path = tmp_path / "dir.csv"
    path.mkdir()
    assert "directory" in input_error(path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "a\n1\n")
    path.chmod(0)
    try:
        assert "permission denied" in input_error(path)
    finally:
        path.chmod(0o600)


def test_permission_error_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The chmod test above is skipped when running as root (as in many CI containers).
    def refuse(name: str, mode: str) -> None:
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(anon_io, "open", refuse, raising=False)  # shadows the builtin
    assert "permission denied" in input_error(write(tmp_path / "t.csv", "a\n1\n"))


@pytest.mark.parametrize("content", [b"", b"  \n\t\r\n", "\ufeff\n".encode()])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    assert input_error(path) == f"{path} is empty; pass a file with a header row"


def test_png_named_csv(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + SECRET.encode())
    message = input_error(path)
    assert "does not look like a text table (binary content" in message
    assert "PNG" in message


@pytest.mark.parametrize(
    ("name", "write_to", "fix"),
    [
        ("x.csv", lambda frame, path: frame.to_parquet(path), "a Parquet file); name it .parquet"),
        (
            "x.txt",
            lambda frame, path: frame.to_excel(path, engine="openpyxl"),
            "files, not one; extract the table you want",  # a zip, by its content
        ),
    ],
)
def test_another_format_named_as_text(
    tmp_path: Path, name: str, write_to: Callable[[pd.DataFrame, Path], None], fix: str
) -> None:
    path = tmp_path / name
    write_to(pd.DataFrame({"comune": [SECRET]}), path.with_suffix(".bin"))
    path.write_bytes(path.with_suffix(".bin").read_bytes())  # the name says text
    assert fix in input_error(path)


def test_nul_bytes(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(b"a,b\n1,\x00" + SECRET.encode() + b"\n")
    assert "binary content" in input_error(path)


def test_binary_inside_a_gzip(tmp_path: Path) -> None:
    path = tmp_path / "x.csv.gz"
    compress(path, b"\x00\x01\x02" + SECRET.encode())
    assert "binary content" in input_error(path)


def test_undecodable_after_the_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anon_io, "SAMPLE_BYTES", 64)
    path = write(tmp_path / "t.csv", "comune;n\n" + "Roma;1\n" * 20 + "Forlì;2\n", "latin-1")
    message = input_error(path)
    assert "utf-8" in message and "--encoding" in message
    assert "Forl" not in message


@pytest.mark.parametrize("name", ["t.csv.gz", "t.csv.bz2", "t.csv.xz", "t.zip"])
def test_not_actually_compressed(tmp_path: Path, name: str) -> None:
    """Compression is told from the content: text named as compressed is text."""
    path = write(tmp_path / name, f"a,b\n1,{SECRET}\n")
    assert read_table(path).to_dict("list") == {"a": [1], "b": [SECRET]}
    assert [entry.name for entry in tables_in(path)] == [str(path)]


def test_truncated_gzip(tmp_path: Path) -> None:
    path = tmp_path / "t.csv.gz"
    compress(path, ("a;b\n" + f"1;{SECRET}\n" * 1000).encode())
    path.write_bytes(path.read_bytes()[:-20])
    assert "corrupt or truncated" in input_error(path)


@pytest.mark.parametrize("members", [0, 2])
def test_zip_without_exactly_one_file(tmp_path: Path, members: int) -> None:
    path = tmp_path / "t.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(members):
            archive.writestr(f"t{i}.csv", f"a\n{SECRET}\n")
    assert f"contains {members} files" in input_error(path)


@pytest.mark.parametrize("line", [2, 4])
def test_row_with_more_fields_than_the_header(tmp_path: Path, line: int) -> None:
    # A first data row with one extra field would otherwise become the index silently.
    rows = ["Roma;RM", "Milano;MI", "Napoli;NA"]
    rows.insert(line - 2, f"Forlì;{SECRET};FC")
    path = write(tmp_path / "t.csv", "comune;sigla\n" + "\n".join(rows) + "\n")
    message = input_error(path)
    assert f"line {line} has 3 fields but the header has 2" in message
    assert "Forl" not in message


def test_ragged_row_beyond_the_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by pandas' parser rather than the sample check; also with usecols.
    monkeypatch.setattr(anon_io, "SAMPLE_BYTES", 100)
    rows = ["Roma;RM"] * 200 + [f"Forlì;{SECRET};FC;X"]
    path = write(tmp_path / "t.csv", "comune;sigla\n" + "\n".join(rows) + "\n")
    for usecols in (None, ["comune"]):
        message = input_error(path, usecols=usecols)
        assert "line 202 has 4 fields but the header has 2" in message


def test_unclosed_quote(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", f'a,b\n1,2\n3,"{SECRET}\n4,5\n')
    assert "starting on line 3 is never closed" in input_error(path)


def test_duplicate_header_names(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", f"comune;eta;comune;eta;sesso\nRoma;1;{SECRET};2;F\n")
    message = input_error(path)
    assert "'comune', 'eta'" in message
    assert "'sesso'" not in message


def test_usecols_not_in_header(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", f"comune;eta\n{SECRET};1\n")
    with pytest.raises(ColumnNotFoundError) as info:
        read_table(path, usecols=["comune", "sesso"])
    assert info.value.missing == ["sesso"]
    assert info.value.available == ["comune", "eta"]
    assert SECRET not in str(info.value)


def test_usecols_must_not_be_a_string(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        read_table(write(tmp_path / "t.csv", "ab\n1\n"), usecols="ab")


@pytest.mark.parametrize("option", [{"sep": ";;"}, {"sep": ""}, {"encoding": "no-such-codec"}])
def test_bad_options(tmp_path: Path, option: dict[str, str]) -> None:
    input_error(write(tmp_path / "t.csv", "a;b\n1;2\n"), **option)


# -- files without a header row ---------------------------------------------------------------


def read_as_dask_does(path: Path) -> pd.DataFrame:
    """``path`` read by pandas with the options the Dask engine reads it with."""
    return pd.read_csv(
        path, dtype=str, keep_default_na=False, na_values=[""], **anon_io.csv_options(path)
    )


@pytest.mark.parametrize("name", sorted(HEADERLESS))
def test_a_file_without_a_header_row_is_read_whole(tmp_path: Path, name: str) -> None:
    # its first line is a person: read as a header, its values would name the columns in
    # reports and the person would go unchecked
    lines, columns = HEADERLESS[name]
    path = write(tmp_path / name, "\n".join(lines) + "\n")
    rows = [line.split(",") for line in lines]
    for frame in (read_columns(path), read_table(path, as_text=True), read_as_dask_does(path)):
        assert list(frame.columns) == columns
        assert frame.astype(str).values.tolist() == rows
    assert tables_in(path) == [TableEntry(str(path))]
    with gzip.open(tmp_path / f"{name}.gz", "wt") as packed:  # streamed: named the same
        packed.write("\n".join(lines) + "\n")
    assert list(read_columns(tmp_path / f"{name}.gz").columns) == columns


YEARS = [f"{1940 + i % 60},{COMUNI[i % 3]},{'MF'[i % 2]}" for i in range(200)]


@pytest.mark.parametrize(
    "header, lines",
    [
        ("codice_fiscale", TAX_CODES),  # a name above codes of another length
        ("anno,comune,sesso", YEARS),  # names above numbers and single letters
        ("data,n", [f"{1 + i % 28}/{1 + i % 12}/{1950 + i},{i}" for i in range(50)]),
    ],
)
def test_a_header_names_the_rows_the_file_has_without_it(
    tmp_path: Path, header: str, lines: list[str]
) -> None:
    rows = [line.split(",") for line in lines]
    bare = write(tmp_path / "bare.csv", "\n".join(lines) + "\n")
    named = write(tmp_path / "named.csv", "\n".join([header, *lines]) + "\n")
    generated = [f"column {n}" for n in range(1, len(rows[0]) + 1)]
    for path, columns in ((bare, generated), (named, header.split(","))):
        for frame in (read_columns(path), read_table(path, as_text=True), read_as_dask_does(path)):
            assert list(frame.columns) == columns
            assert frame.astype(str).values.tolist() == rows


@pytest.mark.parametrize(
    "content, columns",
    [
        # a number above numbers, whatever it names: the line is a row
        ("2019,2020\n" + "".join(f"{i},{i * 7}\n" for i in range(5)), ["column 1", "column 2"]),
        # one column saying header is enough: the names stay names
        ("anno,M\n" + "".join(f"{1950 + i},F\n" for i in range(5)), ["anno", "M"]),
        # too few rows to tell
        ("AB12\nCD34\n", ["AB12"]),
        # an empty field above values everywhere is a header's (the index pandas writes):
        # its column is named by position (issue 45)
        (",a\n0,x\n1,y\n2,z\n", ["column 1", "a"]),
        # above a column with empty values it says nothing; the others say a row
        (",5\n,7\n3,8\n4,9\n", ["column 1", "column 2"]),
    ],
)
def test_what_is_a_header(tmp_path: Path, content: str, columns: list[str]) -> None:
    frame = read_table(write(tmp_path / "t.csv", content), as_text=True)
    assert [c if not c.startswith("Unnamed") else "" for c in frame.columns] == columns


def test_a_ragged_row_of_a_file_without_a_header_row(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "1,2\n3,4\n5,6\n7,8,9\n")
    assert "line 4 has 3 fields but the first line has 2 (delimiter ',')" in input_error(path)
