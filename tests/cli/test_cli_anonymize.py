"""``pandas-anon anonymize`` never destroys data: it refuses to write over its input, writes
atomically, keeps every cell it did not generalize or suppress as the input wrote it, and takes
hierarchies by name or from a file (issue 9, items 6 and 7)."""

from __future__ import annotations

import errno
import gzip
import json
import os
import zipfile

import numpy as np
import pandas as pd
import pytest

from pandas_anon.cli.copies import as_written
from pandas_anon.cli.main import main
from pandas_anon.plugins.registry import hierarchies

from conftest import SEED_QID
from verify import verify_anonymized

REFUSAL = (
    "pandas-anon: error: {out} is the input file{other}; write the anonymized copy to "
    "another file, or pass --force to replace the input\n"
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def read_text(path, sep=",") -> pd.DataFrame:
    """A CSV as written: every cell a string, empty fields empty strings."""
    return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)


# -- never over the input -----------------------------------------------------------------------

#: A ';' file with leading zeros, "NA" (Napoli), quoted fields holding the delimiter or a
#: quote, an empty field, and a non-QI number column written three ways (01, 1, 2.0). No
#: column outside the QID is a direct identifier (each repeats its values), so none is dropped.
#: QID (cap, prov) with k=2: only the last row is unique, and 1 row in 5 may be suppressed.
SMALL = [
    "cap{s}prov{s}year{s}note{s}n{s}città",
    '00100{s}NA{s}1950{s}"a{s}b"{s}01{s}Aosta',
    '00100{s}NA{s}1951{s}"x ""q"""{s}1{s}Fénis',
    "00200{s}RM{s}1950{s}{s}2.0{s}Città",
    '00200{s}RM{s}1952{s}"a{s}b"{s}01{s}Aosta',
    '00300{s}NA{s}1950{s}"x ""q"""{s}2.0{s}Fénis',
]
SMALL_OPTIONS = ("--k", "2", "--qid", "cap,prov", "--max-suppression", "0.2")


def small_text(sep: str = ";", end: str = "\n", last: str = "input") -> str:
    """SMALL as text, its last row as in the input, ``"masked"`` (cap and prov ``*``, as
    anonymized) or ``"dropped"`` (as anonymized with --drop-suppressed)."""
    lines = [line.format(s=sep) for line in SMALL]
    if last == "masked":
        lines[-1] = sep.join(["*", "*"] + lines[-1].split(sep)[2:])
    elif last == "dropped":
        lines.pop()
    return end.join(lines) + end


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.csv"
    path.write_text(small_text(), encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["same", "dot", "symlink", "hardlink"])
def test_refuses_to_write_over_its_input(capsys, small, how):
    before = small.read_bytes()
    target = {"same": str(small), "dot": os.path.join(str(small.parent), ".", small.name)}.get(how)
    if how in ("symlink", "hardlink"):
        target = str(small.parent / "other.csv")
        (os.symlink if how == "symlink" else os.link)(small, target)
    code, out, err = run(capsys, "anonymize", str(small), target, *SMALL_OPTIONS)
    other = "" if target == str(small) else f" {small}"
    assert (code, out, err) == (2, "", REFUSAL.format(out=target, other=other))
    assert small.read_bytes() == before


def test_force_replaces_the_input_through_a_link(capsys, small):
    os.chmod(small, 0o640)
    link = small.parent / "link.csv"
    os.symlink(small, link)
    code, _, err = run(capsys, "anonymize", str(small), str(link), *SMALL_OPTIONS, "--force")
    assert (code, err) == (0, "")
    assert link.is_symlink() and small.read_text(encoding="utf-8") == small_text(last="masked")
    assert os.stat(small).st_mode & 0o777 == 0o640  # the replaced file's permissions
    assert sorted(p.name for p in small.parent.iterdir()) == ["link.csv", "small.csv"]


def test_a_failed_write_leaves_the_old_output_and_no_temporary_file(capsys, small, monkeypatch):
    target = small.parent / "out.csv"
    target.write_text("the previous release\n", encoding="utf-8")

    def disk_full(self, path, **options):
        with open(path, "w", encoding="utf-8") as half:
            half.write("cap;prov\n00100;")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_full)
    code, out, err = run(capsys, "anonymize", str(small), str(target), *SMALL_OPTIONS)
    assert (code, out) == (2, "")
    assert err == f"pandas-anon: error: {target} cannot be written: No space left on device\n"
    assert target.read_text(encoding="utf-8") == "the previous release\n"
    assert sorted(p.name for p in small.parent.iterdir()) == ["out.csv", "small.csv"]


def test_an_output_that_cannot_be_a_file_is_refused_before_any_work(capsys, small, tmp_path):
    code, out, err = run(capsys, "anonymize", str(small), str(tmp_path), *SMALL_OPTIONS)
    assert (code, out, err) == (
        2,
        "",
        f"pandas-anon: error: {tmp_path} is a directory; give the path of a file to write\n",
    )
    missing = tmp_path / "nope" / "out.csv"
    code, out, err = run(capsys, "anonymize", str(small), str(missing), *SMALL_OPTIONS)
    assert (code, out, err) == (
        2,
        "",
        f"pandas-anon: error: {missing} cannot be written: folder {missing.parent} does "
        f"not exist; create it or write elsewhere\n",
    )


# -- every cell it did not change, as the input wrote it ------------------------------------------


@pytest.mark.parametrize(
    ("sep", "end", "encoding"),
    [
        (";", "\n", "utf-8"),
        ("\t", "\r\n", "cp1252"),
        (",", "\n", "utf-8-sig"),
        ("|", "\r\n", "utf-8"),
    ],
)
@pytest.mark.parametrize("drop", [False, True])
def test_unchanged_cells_are_written_byte_for_byte(capsys, tmp_path, sep, end, encoding, drop):
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    source.write_bytes(small_text(sep, end).encode(encoding))
    options = ("--drop-suppressed",) if drop else ()
    code, out, err = run(
        capsys, "anonymize", str(source), str(target), *SMALL_OPTIONS, *options, "--format", "json"
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert (report["levels"], report["suppressed"]) == ({"cap": 0, "prov": 0}, 1)
    expected = small_text(sep, end, "dropped" if drop else "masked")
    assert target.read_bytes() == expected.encode(encoding)  # delimiter, encoding, line end too


def test_compressed_outputs(capsys, small, tmp_path):
    for name in ("out.csv.gz", "out.zip"):
        code, _, err = run(capsys, "anonymize", str(small), str(tmp_path / name), *SMALL_OPTIONS)
        assert (code, err) == (0, "")
    expected = small_text(last="masked")
    assert gzip.decompress((tmp_path / "out.csv.gz").read_bytes()).decode() == expected
    with zipfile.ZipFile(tmp_path / "out.zip") as archive:
        assert archive.namelist() == ["out.csv"]
        assert archive.read("out.csv").decode() == expected


@pytest.mark.requires_plugin("italy")
def test_the_licences_keep_their_text_and_pass_the_check(capsys, tmp_path, licences):
    source, target = tmp_path / "patenti.csv", tmp_path / "patenti-k5.csv"
    licences.to_csv(source, index=False)
    code, out, err = run(
        capsys,
        "anonymize",
        str(source),
        str(target),
        "--k",
        "5",
        "--qid",
        ",".join(SEED_QID),
        "--max-suppression",
        "0.01",
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["levels"] == {"anno_nascita": 0, "comune_residenza": 1, "sesso": 0}
    assert (report["rows"], report["suppressed"], report["classes"]) == (87_642, 56, 172)
    assert report["identifiers"] == {"id": "dropped"}  # the default --identifiers drop
    before, after = read_text(source).drop(columns="id"), read_text(target)
    assert list(after.columns) == list(before.columns) and len(after) == 87_642
    for column in before.columns.difference(SEED_QID):  # the dates, punti_patente, ...
        assert after[column].equals(before[column]), column
    suppressed = (after[SEED_QID] == "*").all(axis=1)
    assert int(suppressed.sum()) == 56
    for column in ("anno_nascita", "sesso"):  # level 0: every row but the suppressed as read
        assert after.loc[~suppressed, column].equals(before.loc[~suppressed, column]), column
    assert (
        after.loc[0, "anno_nascita"] == "1944"
        and not after["anno_nascita"].str.endswith(".0").any()
    )
    assert (after.loc[~suppressed, "comune_residenza"] == "Valle d'Aosta/Vallée d'Aoste").all()
    assert verify_anonymized(after, SEED_QID, 5, 876) == {
        "suppressed": 56,
        "classes": 172,
        "k": 5,
        "dm": report["metrics"]["dm"],
    }
    assert main(["check", str(target), "--qid", ",".join(SEED_QID), "--k", "5"]) == 0


def test_a_hashed_identifier_column_is_written_hashed(capsys, tmp_path):
    """A column kanon rewrites (``--identifiers hash``) is written as kanon made it, never
    from the input's text."""
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    source.write_text("id,sex,n\n0101,M,1\n0102,M,1\n0103,F,2\n0104,F,2\n", encoding="utf-8")
    code, out, err = run(
        capsys,
        "anonymize",
        str(source),
        str(target),
        "--k",
        "2",
        "--qid",
        "sex",
        "--identifiers",
        "hash",
        "--format",
        "json",
    )
    assert (code, err) == (0, "") and json.loads(out)["identifiers"] == {"id": "hashed"}
    before, after = read_text(source), read_text(target)
    assert list(after.columns) == ["id", "sex", "n"]
    assert after["sex"].equals(before["sex"]) and after["n"].equals(before["n"])
    assert after["id"].nunique() == 4 and not after["id"].isin(before["id"]).any()


def test_numbers_spelled_two_ways_are_anonymized_as_written(capsys, tmp_path):
    """Read as numbers, 0100 and 100 would be one value in a class of 2: written as read it
    would be two singletons, written one way a cell that was not generalized would change. As
    text they are two values, generalized to *."""
    source, target = tmp_path / "codes.csv", tmp_path / "out.csv"
    source.write_text("code,sex,n\n0100,M,1\n100,M,1\n200,F,2\n200,F,2\n", encoding="utf-8")
    code, _, err = run(
        capsys, "anonymize", str(source), str(target), "--k", "2", "--qid", "code,sex"
    )
    assert code == 0
    assert err == (
        "pandas-anon: warning: column 'code' spells some equal numbers in more than one way "
        "(such as 7 and 7.0, or 0100 and 100): it was anonymized as text, so that the output "
        "keeps them apart as the input does, and its hierarchy cannot use numeric intervals; "
        "write its numbers one way, or give it --hierarchy\n"
    )
    assert target.read_text(encoding="utf-8") == "code,sex,n\n*,M,1\n*,M,1\n*,F,2\n*,F,2\n"
    assert main(["check", str(target), "--qid", "code,sex", "--k", "2"]) == 0


def test_a_whole_number_no_input_spells_is_written_whole(capsys, tmp_path):
    """A year column with a gap is read as floats: a class's mean year that no input cell
    spells (1961 of 1960 and 1962) is written 1961, not 1961.0, as the years kept as read
    are; a fractional mean keeps its decimals. The file written is the 2-anonymous one the
    report describes."""
    source, target = tmp_path / "years.csv", tmp_path / "out.csv"
    source.write_text(
        "year,town\n1960,A\n1962,A\n1970,B\n1974,B\n,C\n,C\n1980,D\n1981,D\n", encoding="utf-8"
    )
    code, out, err = run(
        capsys, "anonymize", str(source), str(target), "--k", "2", "--qid", "year,town",
        "--algo", "mondrian", "--represent", "mean", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    written = read_text(target)
    assert written["year"].tolist() == ["1961", "1961", "1972", "1972", "", "", "1980.5", "1980.5"]
    report = json.loads(out)
    found = verify_anonymized(written, ["year", "town"], 2, 0, top="\0never")
    assert (found["k"], found["classes"]) == (report["k_reached"], report["classes"])


def test_the_licences_read_with_a_missing_year_are_written_without_point_zero(
    capsys, tmp_path, licences
):
    """Zero configuration on the licence file (its year column read as floats: one year is
    missing): no cell of the file written is a whole number written ``1986.0``, and the
    classes of that file are the report's."""
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    licences.to_csv(source, index=False)
    code, out, err = run(
        capsys, "anonymize", str(source), str(target), "--k", "5", "--format", "json"
    )
    assert code == 0, err
    written = read_text(target)
    assert not any(written[c].str.fullmatch(r"-?\d+\.0").any() for c in written.columns)
    report = json.loads(out)
    found = verify_anonymized(written, list(written.columns), 5, 0, top="\0never")
    assert (found["k"], found["classes"]) == (report["k_reached"], report["classes"])


def test_an_output_value_equal_to_an_input_value_is_spelled_as_the_input_spells_it():
    """A level's label equal to an input value (1940.0 for the year 1940, read as a float
    because the column has a gap) is written as the input wrote that value, on every row, so
    that a class is not split into "1940" and "1940.0"."""
    frame = pd.DataFrame({"year": [1940.0, 1943.0, np.nan, 1950.0], "n": [1, 2, 3, 4]})
    text = pd.DataFrame({"year": ["1940", "1943", np.nan, "1950"], "n": ["1", "02", "3", "4"]})
    out = frame.assign(year=pd.Series([1940.0, 1940.0, np.nan, "*"], dtype=object))
    written = as_written(out, frame, text, ["year"])
    assert written["year"].isna().tolist() == [False, False, True, False]
    assert written["year"][[0, 1, 3]].tolist() == ["1940", "1940", "*"]
    assert written["n"].tolist() == ["1", "02", "3", "4"]


def test_an_encoding_that_cannot_hold_a_label_falls_back_to_utf8(capsys, tmp_path):
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    source.write_bytes("città,n\nAosta,1\nNus,1\nFénis,2\nPollein,2\n".encode("cp1252"))
    (tmp_path / "h.csv").write_text(
        "Aosta;Łódź\nNus;Łódź\nFénis;Gdańsk\nPollein;Gdańsk\n", encoding="utf-8"
    )
    code, _, err = run(
        capsys,
        "anonymize",
        str(source),
        str(target),
        "--k",
        "2",
        "--qid",
        "città",
        "--hierarchy",
        f"città={tmp_path / 'h.csv'}",
    )
    assert code == 0
    assert err == (
        f"pandas-anon: warning: {target} is written as UTF-8: its input's encoding "
        f"cp1252 cannot hold every generalized label\n"
    )
    assert target.read_text(encoding="utf-8") == ("città,n\nŁódź,1\nŁódź,1\nGdańsk,2\nGdańsk,2\n")


# -- --hierarchy COLUMN=NAME and COLUMN=path.csv ---------------------------------------------------

YEARS = "1950;1950-1951;*\n1951;1950-1951;*\n1952;1952-1953;*\n1953;1952-1953;*\n"
TOWNS = "year,town,n\n" + "".join(
    f"{year},{town},{(n + 1) // 2}\n"
    for n, (year, town) in enumerate(
        [
            (1950, "AOSTA"),
            (1951, "AOSTA"),
            (1950, "NUS"),
            (1951, "NUS"),
            (1952, "AOSTA"),
            (1953, "AOSTA"),
            (1952, "NUS"),
            (1953, "NUS"),
        ],
        start=1,
    )
)


@pytest.fixture
def towns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # paths as a user types them
    (tmp_path / "towns.csv").write_text(TOWNS, encoding="utf-8")
    (tmp_path / "years.csv").write_text(YEARS, encoding="utf-8")
    return tmp_path


@pytest.mark.requires_plugin("italy")
def test_hierarchies_by_name_and_from_a_file(capsys, towns):
    code, out, err = run(
        capsys,
        "anonymize",
        "towns.csv",
        "out.csv",
        "--k",
        "4",
        "--qid",
        "year,town",
        "--hierarchy",
        "year=years.csv",
        "--hierarchy",
        "town=it.comune",
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["hierarchies"] == {"year": "years.csv", "town": "it.comune"}
    assert report["levels"] == {"year": 1, "town": 1}
    province = "Valle d'Aosta/Vallée d'Aoste"
    assert (towns / "out.csv").read_text(encoding="utf-8") == "year,town,n\n" + "".join(
        f"{'1950-1951' if n <= 4 else '1952-1953'},{province},{(n + 1) // 2}\n" for n in range(1, 9)
    )
    assert main(["check", "out.csv", "--qid", "year,town", "--k", "4"]) == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["town=it.comuni"],
            "unknown hierarchy name 'it.comuni'; valid hierarchy names: {installed}",
        ),
        (["town=nope.csv"], "nope.csv: no such file; check the path"),
        (["town=sub/years"], "sub/years: no such file; check the path"),
        (["town=./"], "./ is a directory; pass the path of a CSV or TSV file"),
        pytest.param(
            ["city=it.comune"],
            "column 'city' not found; available columns: 'year', 'town', 'n'",
            marks=pytest.mark.requires_plugin("italy"),
        ),
        (
            ["year=years.csv", "year=builtin.mask"],
            "--hierarchy names column 'year' twice; give one hierarchy per column",
        ),
        pytest.param(
            ["n=it.comune"],
            "hierarchies given for columns outside the qid: ['n']",
            marks=pytest.mark.requires_plugin("italy"),
        ),
    ],
)
def test_hierarchy_errors_are_one_line(capsys, towns, options, message):
    # the names of the installed plugins' hierarchies, whichever are installed
    message = message.replace("{installed}", ", ".join(map(repr, hierarchies()["name"])))
    given = [argument for option in options for argument in ("--hierarchy", option)]
    code, out, err = run(
        capsys, "anonymize", "towns.csv", "out.csv", "--k", "4", "--qid", "year,town", *given
    )
    assert (code, out, err) == (2, "", f"pandas-anon: error: {message}\n")
    assert not (towns / "out.csv").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"",
            "h.csv is empty; a hierarchy file has one row per value, one ';'-separated column "
            "per level",
        ),
        (
            "1950;anni cinquanta\n".encode("cp1252") + b"1951;\xe0\n",
            "h.csv is not valid UTF-8 text; save the hierarchy file as UTF-8",
        ),
        (
            b"1950;50s\n1951;50s;*;x\n",
            "h.csv, line 2: 4 columns where line 1 has 2; every row must "
            "have the same number of ';'-separated columns (one per "
            "level), values with ';' quoted",
        ),
        (
            b"1950;50s\n1950;60s\n",
            "h.csv, lines 1 and 2: value '1950' listed more than once with "
            "different labels; keep one row per value",
        ),
        (
            b"1950;50s\n1951;50s\n",
            "2 values of column 'year' (4 rows) missing from hierarchy "
            "h.csv: '1952' (2 rows), '1953' (2 rows); add them to the "
            "hierarchy or clean the column",
        ),
    ],
)
def test_a_bad_hierarchy_file_is_one_line(capsys, towns, content, message):
    (towns / "h.csv").write_bytes(content)
    code, out, err = run(
        capsys,
        "anonymize",
        "towns.csv",
        "out.csv",
        "--k",
        "4",
        "--qid",
        "year,town",
        "--hierarchy",
        "year=h.csv",
    )
    assert (code, out, err) == (2, "", f"pandas-anon: error: {message}\n")


def test_a_malformed_hierarchy_option_is_a_usage_error(capsys, towns):
    code, out, err = run(
        capsys, "anonymize", "towns.csv", "out.csv", "--k", "4", "--hierarchy", "town"
    )
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].endswith(
        "argument --hierarchy: expected COLUMN=NAME or COLUMN=path.csv (e.g. "
        "comune=it.comune), got 'town'"
    )


# -- Mondrian ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", [(), ("--relaxed",), ("--represent", "mean"), ("--choose", "gain")]
)
def test_mondrian_from_the_command_line(capsys, tmp_path, licences, options):
    """``--algo mondrian`` (with its options) writes a 5-anonymous file, checked by the
    verifier, that the gate's rule on its QID accepts."""
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    licences.to_csv(source, index=False)
    qid = ["anno_nascita", "sesso"]
    code, out, err = run(
        capsys, "anonymize", str(source), str(target), "--k", "5", "--qid", ",".join(qid),
        "--algo", "mondrian", *options,
    )  # fmt: skip
    assert code == 0, err
    assert "mondrian" in out and "rows suppressed" in out
    written = read_text(target)
    verify_anonymized(written, qid, 5, 0, top="\0never")
    assert run(capsys, "check", str(target), "--qid", ",".join(qid), "--k", "5")[0] == 0
    if "mean" in options:  # a number for every class of the year of birth
        assert pd.to_numeric(written["anno_nascita"], errors="coerce").notna().all()


def test_mondrian_options_need_mondrian(capsys, small):
    code, _, err = run(
        capsys, "anonymize", str(small), str(small) + ".out", "--k", "2", "--relaxed"
    )
    assert code != 0 and "--relaxed, --choose and --represent are options of --algo" in err


def test_a_target_adds_the_task_utility_to_the_report(capsys, tmp_path, adult):
    """``--target`` (with the column sensitive, so outside the quasi-identifier): the report
    printed gives the classifier's accuracy on the copy, as ``kanon(target=)`` does; with
    ``--drop-suppressed`` it is refused (the copy must keep every row to be compared)."""
    source, target = tmp_path / "adult.csv", tmp_path / "out.csv"
    adult.iloc[:3000].to_csv(source, index=False)
    options = ["--k", "5", "--qid", "age,sex,race", "--sensitive", "salary-class"]
    code, out, err = run(
        capsys, "anonymize", str(source), str(target), *options, "--target", "salary-class"
    )
    assert code == 0, err
    assert "task utility" in out and "salary-class: accuracy" in out
    code, _, err = run(
        capsys, "anonymize", str(source), str(target), *options, "--target", "salary-class",
        "--drop-suppressed", "--force",
    )  # fmt: skip
    assert code == 2 and "row for row" in err
