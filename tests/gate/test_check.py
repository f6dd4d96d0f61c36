"""``pandas-anon check``, called through main(argv) for every exit path, its configuration,
and the fast column reader behind it."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import lzma
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pandas_anon.cli.main import main
from pandas_anon.datasets import load_driver_licenses
from pandas_anon.detect.best_qid import best_qid
from pandas_anon.errors import InputFileError
from pandas_anon.gate import io as anon_io
from pandas_anon.gate.config import load_config
from pandas_anon.gate.io import read_columns, read_table
from pandas_anon.gate.parsers import delimited
from pandas_anon.hierarchy import Hierarchy

from conftest import SEED_QID
from gate_tables import HEADERLESS
from verify import naive_counts, naive_election

SECRETS = ("SECRET_TOWN_17", "SECRET_YEAR_1899", "SECRET_SEX_X")
QID = ",".join(SEED_QID)
#: The limits of a table judged as a whole population (not a sample), as JSON gives them.
NOT_SAMPLED = {"population": None, "sampling_fraction": None}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def report(capsys, *argv: str) -> tuple[int, dict]:
    """Exit status and the JSON report, keyed by file name."""
    code, out, _ = run(capsys, *argv, "--format", "json")
    return code, {Path(f["file"]).name: f for f in json.loads(out)["files"]}


def write(path: Path, text: str | bytes, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode(encoding))
    return path


@pytest.fixture(scope="module")
def valle_daosta(tmp_path_factory) -> Path:
    """The Valle d'Aosta file as published (the embedded copy, decompressed)."""
    packed = files("pandas_anon.datasets") / "data" / "driver_licenses_valle_daosta.csv.xz"
    path = tmp_path_factory.mktemp("open-data") / "driverLicense_ValleAosta.csv"
    path.write_bytes(lzma.decompress(packed.read_bytes()))
    return path


@pytest.fixture(scope="module")
def m_loc(tmp_path_factory) -> Path:
    """The same table after the seed paper's M_loc: singletons' municipality -> province, its
    record numbers dropped (a column outside the QID that identifies fails the file)."""
    frame = load_driver_licenses(parse_dates=False).drop(columns="id")
    places = Hierarchy.from_columns(frame, ["comune_residenza", "provincia_residenza"])
    out = frame.anon.generalize({"comune_residenza": (places, 1)}, rows="singletons", qid=SEED_QID)
    path = tmp_path_factory.mktemp("open-data") / "patenti_m_loc.csv"
    out.to_csv(path, index=False)
    return path


@pytest.fixture
def planted(tmp_path) -> Path:
    """Twelve people sharing one combination, and one unique person with distinctive values."""
    rows = ["town,year,sex,note"] + ["AOSTA,1970,F,a", "AOSTA,1970,F,b"] * 6
    rows.append(",".join(SECRETS) + ",x")
    return write(tmp_path / "people.csv", "\n".join(rows) + "\n")


# -- the acceptance figures ---------------------------------------------------------------------


def test_valle_daosta_fails_at_1_percent(capsys, valle_daosta):
    code, out, err = run(capsys, str(valle_daosta), "--qid", QID, "--max-singletons", "1%")
    assert code == 1 and err == ""
    # a missing value counts as a value (as kanon counts it): every row is examined
    assert "1,800" in out and "2.05 %" in out and "FAIL" in out
    assert (
        "1,800 singletons (2.05 % of 87,642 rows examined) on (anno_nascita, "
        "comune_residenza, sesso): more than the 1 % allowed"
    ) in out
    code, files_ = report(capsys, str(valle_daosta), "--qid", QID, "--max-singletons", "1%")
    found = files_[valle_daosta.name]
    assert code == 1 and found["status"] == "fail"
    assert (found["singletons"], found["examined"], found["rows"]) == (1_800, 87_642, 87_642)
    assert (
        found["singletons"]
        == naive_counts(pd.read_csv(valle_daosta, dtype=str), SEED_QID, dropna=False)["singletons"]
    )
    assert round(100 * found["fraction"], 2) == 2.05
    code, files_ = report(
        capsys, str(valle_daosta), "--qid", QID, "--max-singletons", "1%", "--drop-missing"
    )  # the seed paper's way: complete rows only
    found = files_[valle_daosta.name]
    assert (found["singletons"], found["examined"], found["rows"]) == (1_684, 87_464, 87_642)


def test_valle_daosta_passes_after_m_loc(capsys, m_loc):
    code, out, err = run(capsys, str(m_loc), "--qid", QID, "--max-singletons", "1%")
    assert (code, out, err) == (0, "", "")  # silent on success
    code, files_ = report(capsys, str(m_loc), "--qid", QID, "--max-singletons", "1%")
    assert (
        code == 0
        and files_[m_loc.name]["singletons"]
        == naive_counts(pd.read_csv(m_loc, dtype=str), SEED_QID, dropna=False)["singletons"]
        == 120
    )
    code, files_ = report(capsys, str(m_loc), "--qid", QID, "--drop-missing")
    assert files_[m_loc.name]["singletons"] == 4  # the seed paper's figure


# -- exit paths ---------------------------------------------------------------------------------


def test_verbose_reports_passing_files(capsys, m_loc):
    code, out, _ = run(capsys, str(m_loc), "--qid", QID, "--max-singletons", "1%", "-v")
    assert code == 0 and "PASS" in out and "none exceeds the limits" in out
    assert "<= 1 % singletons" in out and "4" in out


def test_without_limits_no_singleton_is_allowed(capsys, m_loc):
    code, out, _ = run(capsys, str(m_loc), "--qid", QID)
    assert code == 1 and "more than the 0 allowed" in out


def test_k_threshold_against_plain_pandas(capsys, m_loc):
    frame = pd.read_csv(m_loc, dtype=str)
    k = int(frame.groupby(["provincia_residenza", "sesso"], dropna=False).size().min())
    argv = [str(m_loc), "--qid", "provincia_residenza,sesso"]
    assert report(capsys, *argv, "--k", str(k))[0] == 0
    code, files_ = report(capsys, *argv, "--k", str(k + 1))
    assert code == 1 and files_[m_loc.name]["k"] == k
    assert files_[m_loc.name]["problems"][0].startswith(f"k = {k} on (provincia_residenza, sesso)")
    assert files_[m_loc.name]["limits"] == {
        "max_count": None, "max_fraction": None, "k": k + 1, **NOT_SAMPLED
    }  # fmt: skip


def test_an_unreadable_file_among_others(capsys, tmp_path, planted):
    empty = write(tmp_path / "empty.csv", "")
    code, out, err = run(capsys, str(empty), str(planted), "--qid", "town,year,sex")
    assert code == 2  # the worst status wins; the other file is still checked and reported
    assert err == f"pandas-anon: error: {empty} is empty; pass a file with a header row\n"
    assert "people.csv" in out and "FAIL" in out
    code, files_ = report(capsys, str(empty), str(planted), "--qid", "town,year,sex")
    assert files_["empty.csv"] == {
        "file": str(empty),
        "status": "error",
        "error": f"{empty} is empty; pass a file with a header row",
    }
    assert files_["people.csv"]["status"] == "fail"


@pytest.mark.parametrize("argv", [[], ["--format", "xml", "x.csv"], ["--nope", "x.csv"]])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "usage" in err


def test_elects_a_qid_when_none_is_configured(capsys, tmp_path, licences):
    part = licences[["anno_nascita", "comune_residenza", "sesso", "categoria_patente"]]
    path = tmp_path / "sample.csv"
    part.iloc[:3000].to_csv(path, index=False)
    code, files_ = report(capsys, str(path), "--max-singletons", "100%")
    found = files_["sample.csv"]
    as_text = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    winner, *_ = naive_election(as_text, list(as_text.columns), 3, dropna=False)
    assert code == 0 and found["qid_elected"] is True
    assert found["qid"] == list(winner)
    assert found["singletons"] == naive_counts(as_text, list(winner), dropna=False)["singletons"]
    # the decision: every subset of up to 3 of the 4 columns is counted, derived or left out
    election = found["election"]
    assert (election["candidates"], election["max_size"], election["k"]) == (4, 3, 2)
    assert election["counted"] + election["derived"] + election["pruned"] == 4 + 6 + 4
    assert election["at_risk"] == found["singletons"]
    code, out, _ = run(capsys, str(path), "--max-singletons", "100%", "--verbose")
    assert out.splitlines()[-1] == (
        f"{path}: ({', '.join(winner)}) elected among 4 columns (subsets of up to 3): "
        f"{found['singletons']:,} rows alone; {election['counted']} subsets counted, "
        f"{election['derived']} derived from a dependency, {election['pruned']} left out by "
        f"their bound"
    )


def test_formats_tsv_gzip_and_latin1_semicolons(capsys, tmp_path, licences):
    part = licences[SEED_QID].iloc[:5000].copy()
    part.iloc[:40, 1] = "SAINT-RHÉMY-EN-BOSSES"
    paths = [tmp_path / "a.tsv", tmp_path / "b.csv.gz", tmp_path / "c.csv"]
    part.to_csv(paths[0], sep="\t", index=False)
    with gzip.open(paths[1], "wt", encoding="utf-8") as handle:
        part.to_csv(handle, index=False)
    part.to_csv(paths[2], sep=";", index=False, encoding="latin-1")
    code, files_ = report(capsys, *map(str, paths), "--qid", QID, "--max-singletons", "100%")
    expected = naive_counts(part.astype("string"), SEED_QID, dropna=False)["singletons"]
    assert code == 0 and {f["singletons"] for f in files_.values()} == {expected}


def test_never_modifies_files(capsys, tmp_path, planted):
    config = write(tmp_path / ".pandas-anon.toml", 'qid = ["town", "year"]\n')
    before = {
        p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in (planted, config)
    }
    for argv in ([], ["-v"], ["--format", "json"], ["--k", "3"]):
        run(capsys, str(planted), "--config", str(config), *argv)
    assert before == {
        p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in (planted, config)
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == [".pandas-anon.toml", "people.csv"]


# -- never a value ------------------------------------------------------------------------------


#: What each report format shows of a failing file (every format, see pandas_anon.gate.reporters).
FAILED = {"table": "FAIL", "json": '"status": "fail"', "github": "::error ", "junit": "<failure "}


@pytest.mark.parametrize("fmt", list(FAILED))
@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["-v"],
        ["--qid", "town,year,sex"],
        ["--qid", "town,year,sex", "--k", "5", "-v"],
        ["--qid", "town,year,sex,note"],
    ],
)
def test_no_quasi_identifier_value_in_any_output(capsys, planted, argv, fmt):
    code, out, err = run(capsys, str(planted), *argv, "--format", fmt)
    assert code == 1 and FAILED[fmt] in out
    assert not any(secret in out + err for secret in SECRETS)


def test_no_value_in_a_parse_error_past_the_sample(capsys, tmp_path):
    body = "town,year\n" + "AOSTA,1970\n" * 120_000  # past the 1 MiB sniffed by the reader
    for tail, expected in (
        (f"{SECRETS[0]},1970,{SECRETS[1]}\n", "has 3 fields"),
        (f'"{SECRETS[0]},1970\n', "never closed"),
    ):
        path = write(tmp_path / "late.csv", body + tail)
        code, out, err = run(capsys, str(path), "--qid", "town,year")
        assert code == 2 and out == "" and expected in err and err.count("\n") == 1
        assert not any(secret in err for secret in SECRETS)


def test_warnings_name_the_file(capsys, tmp_path):
    path = write(tmp_path / "holes.csv", "year,town\n1950,\n1950,\n1960,\n1960,B\n1960,B\n")
    code, out, err = run(capsys, str(path), "--qid", "year,town", "--drop-missing")
    assert code == 0 and out == "" and err.count("\n") == 1
    assert err.startswith(f"pandas-anon: warning: {path}: only 2 of 5 rows are complete")
    code, files_ = report(capsys, str(path), "--qid", "year,town", "--drop-missing")
    assert files_["holes.csv"]["warnings"][0].startswith("only 2 of 5 rows")


def test_keep_missing_counts_missing_as_a_value(capsys, tmp_path):
    path = write(tmp_path / "holes.csv", "year,town\n1950,\n1950,\n1960,\n1960,B\n1970,B\n")
    as_text = pd.read_csv(path, dtype=str)
    expected = naive_counts(as_text, ["year", "town"], dropna=False)
    for argv in (
        ["--keep-missing"],
        ["--config", str(write(tmp_path / "c.toml", "keep_missing = true\n"))],
    ):
        code, out, err = run(capsys, str(path), "--qid", "year,town", "--format", "json", *argv)
        found = json.loads(out)["files"][0]
        assert (found["examined"], found["singletons"]) == (5, expected["singletons"]) == (5, 3)
        assert err == ""  # no row dropped, no warning


# -- bad input: exit 2, one line naming the file ------------------------------------------------

BAD_INPUT = {
    "empty file": (b"", [], "is empty"),
    "header only": (b"town,year\n", [], "has a header but no data rows"),
    "ragged rows": (b"town,year\nA,1\nB,2,3\n", [], "line 3 has 3 fields but the header has 2"),
    "binary named .csv": (b"\x89PNG\r\n\x1a\n\x00\x00", [], "binary content: a PNG image"),
    "QID column missing": (b"town,year\nA,1\n", ["--qid", "town,age"], "column 'age' not found"),
    "undecodable past the sample": (
        b"town,year\n" + b"AOSTA,1970\n" * 120_000 + b"\xff\xfe,1\n",
        [],
        "past its first MiB",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUT, ids=list(BAD_INPUT))
def test_bad_input_exits_2_with_one_line_naming_the_file(capsys, tmp_path, case):
    content, argv, expected = BAD_INPUT[case]
    path = write(tmp_path / "input.csv", content)
    code, out, err = run(capsys, str(path), *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"pandas-anon: error: {path}") and err.count("\n") == 1
    assert expected in err


def test_undecodable_bytes_in_the_configured_encoding(capsys, tmp_path):
    write(tmp_path / ".pandas-anon.toml", '[[rules]]\nfiles = "utf8/*"\nencoding = "utf-8"\n')
    strict = write(tmp_path / "utf8" / "a.csv", "comune,anno\nFORLÌ,1950\n", "latin-1")
    loose = write(tmp_path / "other" / "a.csv", "comune,anno\nFORLÌ,1950\n", "latin-1")
    config = [
        "--config",
        str(tmp_path / ".pandas-anon.toml"),
        "--qid",
        "comune,anno",
        "--max-singletons",
        "1",
    ]
    code, _, err = run(capsys, str(strict), *config)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"pandas-anon: error: {strict} is not valid utf-8 text")
    assert run(capsys, str(loose), *config)[0] == 0  # detected as cp1252 outside the rule


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        (
            "--max-singletons",
            "2x",
            "max_singletons must be a percentage of the rows examined "
            "such as \"0.5%\", or a count of singletons such as 10, got '2x'",
        ),
        ("--max-singletons", "150%", "max_singletons must be a percentage"),
        ("--max-singletons", "-3", "max_singletons must be a percentage"),
        ("--max-singletons", "1.5", "max_singletons must be a percentage"),
        ("--k", "0", "k must be a whole number of at least 1 such as 5, got 0"),
        ("--k", "two", "k must be a whole number of at least 1 such as 5, got 'two'"),
        ("--qid", ",", "expected at least one column name"),
    ],
)
def test_invalid_threshold_on_the_command_line(capsys, planted, option, value, expected):
    code, out, err = run(capsys, str(planted), option, value)
    assert code == 2 and out == ""
    assert (
        err
        == f"pandas-anon: error: {option}: {expected}" + err[err.index(expected) + len(expected) :]
    )
    assert err.count("\n") == 1


MALFORMED = {
    "not TOML": ("[tool.pandas_anon]\nk = \n", "is not valid TOML"),
    "unknown key": (
        "[tool.pandas_anon]\nmaxsingletons = 1\n",
        "[tool.pandas_anon]: unknown key 'maxsingletons'; valid keys: allow_identifiers, "
        "count, counts, delimiter, dimension, encoding, engine, header, k, keep_missing, "
        "max_cells, max_document_size, max_expanded_size, max_line_length, max_ratio, "
        "max_sheet_cells, max_singletons, max_size, max_subsets, min_count, population, qid, "
        "rules, sampling_fraction",
    ),
    "invalid threshold": (
        '[tool.pandas_anon]\nmax_singletons = "lots"\n',
        "[tool.pandas_anon]: max_singletons must be a percentage of the rows "
        "examined such as \"0.5%\", or a count of singletons such as 10, got 'lots'",
    ),
    "float threshold": (
        "[tool.pandas_anon]\nmax_singletons = 0.5\n",
        "max_singletons must be a percentage",
    ),
    "qid not names": ("[tool.pandas_anon]\nqid = [1, 2]\n", "qid: expected column names"),
    "bad delimiter": ('[tool.pandas_anon]\ndelimiter = ";;"\n', "delimiter: expected one ASCII"),
    "bad encoding": ('[tool.pandas_anon]\nencoding = "klingon"\n', "encoding: expected a Python"),
    "not a table": ("[tool]\npandas_anon = 3\n", "must be a table of settings"),
    "rules not tables": ("[tool.pandas_anon]\nrules = 3\n", "rules must be an array of tables"),
    "rule without files": ("[[tool.pandas_anon.rules]]\nk = 2\n", "#1: files: expected a glob"),
    "unknown rule key": (
        '[[tool.pandas_anon.rules]]\nfiles = "*"\nskip = "yes"\n',
        "[[tool.pandas_anon.rules]] #1: skip: expected true or false",
    ),
    "no table": ("[tool.black]\nline-length = 99\n", "has no [tool.pandas_anon] table"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_config_exits_2_naming_it(capsys, tmp_path, planted, case):
    text, expected = MALFORMED[case]
    config = write(tmp_path / "pyproject.toml", text)
    code, out, err = run(capsys, str(planted), "--config", str(config))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"pandas-anon: error: {config}") and expected in err


def test_a_missing_config_file(capsys, tmp_path, planted):
    code, _, err = run(capsys, str(planted), "--config", str(tmp_path / "absent.toml"))
    assert code == 2 and "absent.toml cannot be read" in err and err.count("\n") == 1


# -- configuration ------------------------------------------------------------------------------


def test_precedence_defaults_config_rules_command_line(capsys, tmp_path, monkeypatch, planted):
    write(
        tmp_path / "pyproject.toml",
        """
[tool.pandas_anon]
qid = ["town", "year"]
max_singletons = "50%"

[[tool.pandas_anon.rules]]
files = ["strict/*.csv"]
max_singletons = 0
k = 2

[[tool.pandas_anon.rules]]
files = "strict/deep/*"
k = 3
""",
    )
    write(tmp_path / "loose" / "a.csv", planted.read_bytes())  # passed by relative path below
    strict = write(tmp_path / "strict" / "deep" / "b.csv", planted.read_bytes())
    monkeypatch.chdir(tmp_path)
    code, found = report(capsys, "loose/a.csv", str(strict))
    assert found["a.csv"]["limits"] == {
        "max_count": None,
        "max_fraction": 0.5,
        "k": None,
        **NOT_SAMPLED,
    }
    assert found["b.csv"]["limits"] == {"max_count": 0, "max_fraction": None, "k": 3, **NOT_SAMPLED}
    assert found["a.csv"]["qid"] == ["town", "year"] and found["a.csv"]["qid_elected"] is False
    assert code == 1 and found["a.csv"]["status"] == "pass" and found["b.csv"]["status"] == "fail"
    code, found = report(
        capsys, "loose/a.csv", str(strict), "--max-singletons", "1", "--qid", "town,sex"
    )
    assert found["b.csv"]["limits"] == {"max_count": 1, "max_fraction": None, "k": 3, **NOT_SAMPLED}
    assert found["a.csv"]["qid"] == ["town", "sex"]


def test_config_is_found_up_to_the_repository_root(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", "[tool.pandas_anon]\nk = 7\n")
    inner = tmp_path / "repo" / "data"
    inner.mkdir(parents=True)
    monkeypatch.chdir(inner)
    assert load_config().defaults == {"k": 7}
    (tmp_path / "repo" / ".git").mkdir()  # the repository ends the search
    assert load_config().path is None
    write(tmp_path / "repo" / "pyproject.toml", "[project]\nname = 'x'\n")  # not ours: skipped
    write(tmp_path / "repo" / ".pandas-anon.toml", "k = 4\n")
    assert load_config().defaults == {"k": 4}


def test_rules_set_the_delimiter_and_skip_files(capsys, tmp_path, planted):
    config = write(
        tmp_path / ".pandas-anon.toml",
        """
qid = ["town", "year"]
[[rules]]
files = "*.psv"
delimiter = ","
[[rules]]
files = "aggregates/*"
skip = true
""",
    )
    piped = write(tmp_path / "x.psv", "town;year\nA;1\n")
    code, _, err = run(capsys, str(piped), "--config", str(config))
    assert code == 2 and "'town', 'year' not found; available columns: 'town;year'" in err
    skipped = write(tmp_path / "aggregates" / "people.csv", planted.read_bytes())
    code, found = report(capsys, str(skipped), "--config", str(config))
    assert code == 0 and found["people.csv"] == {"file": str(skipped), "status": "skipped"}


# -- the fast column reader ---------------------------------------------------------------------

FORMATS = {
    "comma": ("a,b,c\n1,x,\n2,NA,z\n0100,x,z\n", "utf-8", "t.csv"),
    "semicolon latin-1": ("comune;anno\nFORLÌ;1950\nAOSTA;\n", "latin-1", "t.csv"),
    "tab": ("a\tb\n1\t2\n", "utf-8", "t.tsv"),
    "bom": ("\ufeffa,b\n1,2\n", "utf-8", "t.csv"),
    "utf-16": ("a,b\nè,2\n", "utf-16", "t.csv"),
    "quoted": ('a,b\n"x, y","line\nbreak"\n"",2\n', "utf-8", "t.csv"),
    "crlf": ("a,b\r\n1,2\r\n3,4\r\n", "utf-8", "t.csv"),
    "unnamed column": (",a\n0,x\n1,y\n", "utf-8", "t.csv"),
}


@pytest.mark.parametrize("case", FORMATS, ids=list(FORMATS))
def test_read_columns_agrees_with_read_table(tmp_path, case):
    text, encoding, name = FORMATS[case]
    path = write(tmp_path / name, text, encoding)
    fast = read_columns(path)
    assert all(isinstance(dtype, pd.CategoricalDtype) for dtype in fast.dtypes)
    slow = read_table(path, as_text=True)
    # an unnamed column of row numbers (the index to_csv writes) is checked and left out
    assert set(slow.columns) - set(fast.columns) <= {"column 1"}
    slow = slow[list(fast.columns)]
    pd.testing.assert_frame_equal(fast.astype(object), slow.astype(object))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.lists(st.text(alphabet='ab ,;"\nè0', max_size=5), min_size=3, max_size=3),
        min_size=1,
        max_size=12,
    ),
    sep=st.sampled_from([",", ";", "\t"]),
    encoding=st.sampled_from(["utf-8", "latin-1"]),
)
def test_read_columns_roundtrip(tmp_path, rows, sep, encoding):
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=sep, lineterminator="\n").writerows([["x", "y", "z"], *rows])
    path = write(tmp_path / "t.csv", buffer.getvalue(), encoding)
    try:
        slow = read_table(path, sep=sep, as_text=True)
    except InputFileError:  # e.g. a row pandas cannot split: no fast answer either
        with pytest.raises(InputFileError):
            read_columns(path, sep=sep)
        return
    pd.testing.assert_frame_equal(read_columns(path, sep=sep).astype(object), slow.astype(object))


def test_read_columns_across_many_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(anon_io, "_ARROW_BLOCK", 4096)
    rows = [f'{i % 97},"town {i % 13}\nline",{i % 7}' for i in range(5000)]
    path = write(tmp_path / "t.csv", "a,b,c\n" + "\n".join(rows) + "\n")
    fast = read_columns(path, usecols=["c", "b"])
    assert list(fast.columns) == ["c", "b"]
    slow = read_table(path, usecols=["c", "b"], as_text=True)
    pd.testing.assert_frame_equal(fast.astype(object), slow.astype(object))


def test_read_columns_keeps_nearly_distinct_columns_as_text(tmp_path):
    """A column nearly all distinct in the file's first rows (a record number, a code with
    leading zeros) is kept as Arrow text rather than dictionary-encoded; its values and the
    gate's identifiers are those of the slow reader."""
    from pandas_anon.detect.exposure import direct_identifiers

    lines = [
        f"{10_000 + i},{i:05d},{'' if i % 50 == 0 else 'town ' + str(i % 7)},{i % 2 or ''}"
        for i in range(delimited.PLAIN_MIN_ROWS + 100)
    ]
    lines[7] = lines[7].replace("10007", "10008")  # two records share a number
    path = write(tmp_path / "t.csv", "id,code,town,flag\n" + "\n".join(lines) + "\n")
    fast = read_columns(path)
    assert [str(fast[c].dtype) for c in ("id", "code")] == ["string", "string"]
    assert isinstance(fast["town"].dtype, pd.CategoricalDtype)
    slow = read_table(path, as_text=True)
    pd.testing.assert_frame_equal(
        fast.astype(object).where(fast.notna(), None), slow.astype(object).where(slow.notna(), None)
    )
    found = [(f.column, f.unique_share) for f in direct_identifiers(fast)]
    assert found == [(f.column, f.unique_share) for f in direct_identifiers(slow)]
    assert found == [("id", (len(lines) - 2) / len(lines)), ("code", 1.0)]


def test_read_columns_names_unnamed_columns_by_position(tmp_path):
    """An empty header cell names its column by position; the column is read (issue 45)."""
    frame = read_columns(write(tmp_path / "t.csv", ",\n1,2\n"))
    assert frame.astype(str).to_dict("list") == {"column 1": ["1"], "column 2": ["2"]}


def test_read_columns_counts_like_the_seed(valle_daosta):
    frame = read_columns(valle_daosta, usecols=SEED_QID)
    assert frame.anon.singletons(SEED_QID).count == 1_684
    elected = best_qid(frame, max_size=2)
    assert (
        elected.columns
        == best_qid(read_table(valle_daosta, usecols=SEED_QID, as_text=True), max_size=2).columns
    )


def test_every_error_line_names_its_file(capsys, tmp_path, monkeypatch):
    """A file called "a" whose error message happens to contain an "a" still gets its name in
    front, as every other file error line does."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a", "x,y\n,1\n,2\n")
    write(tmp_path / "b.csv", "x,y\n1,1\n2,2\n")
    code, _, err = run(capsys, "a", "b.csv", "--qid", "x,y")
    assert code == 2
    assert any(
        line.startswith("pandas-anon: error: a: column 'x' holds only missing")
        for line in err.splitlines()
    ), err


def test_the_json_report_lists_the_problems_of_a_file_of_identifiers_only(tmp_path, capsys):
    """A file whose every column identifies people (no QID left to measure) fails, and its
    JSON entry says why, as the table report does."""
    path = tmp_path / "ids.csv"
    path.write_text("town,sex\na,a\nb,b\n", encoding="utf-8")
    code, found = report(capsys, str(path))
    entry = found["ids.csv"]
    assert code == 1 and entry["status"] == "fail"
    assert [p.split(" (")[0] for p in entry["problems"]] == ["'town'", "'sex'"]


def _wide(path: Path, columns: int, rows: int, values: int, seed: int = 0) -> Path:
    """A CSV of ``columns`` columns of ``rows`` random codes below ``values`` (wide and short,
    as the issue's 300 x 100 file)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, values, (rows, columns))
    pd.DataFrame(codes, columns=[f"c{i}" for i in range(columns)]).to_csv(path, index=False)
    return path


def test_an_election_past_its_budget_fails_closed_saying_how_to_continue(capsys, tmp_path):
    """40 two-valued columns of 30 rows: no subset of up to 3 columns is an identifier, so
    the election would examine all 10,700 subsets; with --max-subsets 500 (or the
    max_subsets key) it stops there and the file is an error (exit 2) whose message names
    the budget, --qid and the option that raises it; naming the QID still checks the file."""
    path = _wide(tmp_path / "wide.csv", 40, 30, 2)
    code, out, err = run(capsys, str(path), "--max-subsets", "500")
    assert code == 2 and out == ""
    assert err == (
        f"pandas-anon: error: {path}: the election of a quasi-identifier examined its budget "
        f"of 500 column subsets (of up to 3 of the 40 columns) without finding the most "
        f"exposed one; name the quasi-identifier with --qid (or the qid configuration key), "
        f"or raise the budget with --max-subsets (or the max_subsets configuration key)\n"
    )
    config = write(tmp_path / ".pandas-anon.toml", "max_subsets = 500\n")
    code, found = report(capsys, str(path), "--config", str(config))
    assert code == 2 and found["wide.csv"]["status"] == "error"
    assert "budget of 500 column subsets" in found["wide.csv"]["error"]
    code, found = report(capsys, str(path), "--max-subsets", "500", "--qid", "c0,c1,c2")
    assert code == 0 and found["wide.csv"]["qid"] == ["c0", "c1", "c2"]


def test_an_election_within_its_budget_gives_the_verdict_it_gave_without_one(capsys, tmp_path):
    """A wide file whose election stops early (its first identifying triple): with a budget
    of exactly the subsets it examines, the same verdict, QID and figures as with the
    default budget; one subset fewer, and it fails closed (exit 2). The QID is the one the
    full search elects (every subset counted, the first identifier of the smallest size)."""
    path = _wide(tmp_path / "wide.csv", 30, 60, 10)
    code, found = report(capsys, str(path))
    entry = found["wide.csv"]
    figures = entry["election"]
    examined = figures["counted"] + figures["derived"] + figures["pruned"]
    assert code == 1 and entry["status"] == "fail" and examined < 30 + 435 + 4060
    frame = pd.read_csv(path, dtype=str)
    full = best_qid(frame, max_size=3, exhaustive=True, dropna=False)
    table = full.table
    triples = table[(table["size"] == 3) & (table["status"] == "identifier")]["columns"]
    assert not (table["status"][table["size"] < 3] == "identifier").any()
    first = min(triples, key=lambda names: [frame.columns.get_loc(c) for c in names])
    assert entry["qid"] == list(first)
    code, within = report(capsys, str(path), "--max-subsets", str(examined))
    assert code == 1 and within == found
    code, past = report(capsys, str(path), "--max-subsets", str(examined - 1))
    assert code == 2 and past["wide.csv"]["status"] == "error"


# -- a file without a header row ----------------------------------------------------------------


@pytest.mark.parametrize("engine", ["pandas", "dask"])
@pytest.mark.parametrize("name", sorted(HEADERLESS))
def test_a_file_without_a_header_row_is_checked_whole(capsys, tmp_path, name, engine):
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    lines, columns = HEADERLESS[name]
    path = write(tmp_path / name, "\n".join(lines) + "\n")
    code, found = report(capsys, str(path), "--qid", ",".join(columns), "--engine", engine)
    entry = found[name]
    assert code == 1 and entry["qid"] == columns
    assert (entry["rows"], entry["examined"], entry["singletons"]) == (200, 200, 200)


@pytest.mark.parametrize("name", sorted(HEADERLESS))
def test_no_report_quotes_a_file_without_a_header_row(capsys, tmp_path, name):
    lines, _ = HEADERLESS[name]
    path = write(tmp_path / name, "\n".join(lines) + "\n")
    values = {value for line in lines for value in line.split(",")}
    for form in ("table", "json", "github", "junit"):
        code, out, err = run(capsys, str(path), "--format", form)
        assert code == 1, form
        assert [value for value in values if value in out + err] == [], form


TOWNS_ALONE = ["Aosta", "Aymavilles", "Brissogne", "Cogne", "Courmayeur", "Fénis"] * 5


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_the_header_row_can_be_stated(capsys, tmp_path, engine):
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    # towns of no common shape: detection keeps the first line as the header
    towns = write(tmp_path / "towns.csv", "\n".join(TOWNS_ALONE) + "\n")
    # numbers above numbers: detection reads the first line as a row
    years = write(tmp_path / "years.csv", "2019,2020\n" + "1,2\n3,4\n" * 10)
    given = ("--engine", engine, "--max-singletons", "100%")
    code, found = report(capsys, str(towns), "--no-header", "--qid", "column 1", *given)
    assert code == 0 and (found["towns.csv"]["rows"], found["towns.csv"]["k"]) == (30, 5)
    code, found = report(capsys, str(years), "--header", "--qid", "2019,2020", *given)
    assert code == 0 and (found["years.csv"]["rows"], found["years.csv"]["k"]) == (20, 10)
    config = write(
        tmp_path / ".pandas-anon.toml", '[[rules]]\nfiles = "towns.csv"\nheader = false\n'
    )
    code, found = report(capsys, str(towns), "--config", str(config), "--qid", "column 1", *given)
    assert code == 0 and found["towns.csv"]["rows"] == 30
    code, out, err = run(capsys, str(towns), "--config", str(config), "--format", "json")
    assert code == 0 and json.loads(out)["files"][0]["qid"] == ["column 1"]
    assert not [town for town in TOWNS_ALONE if town in out + err]
