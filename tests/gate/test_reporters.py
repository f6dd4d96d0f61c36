"""The CI reports of ``pandas-anon check``: ``--format github`` (GitHub Actions workflow
commands) and ``--format junit`` (JUnit XML), from results built here and from the command
line on small tables with known singletons; their escaping; and that no format quotes a value.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pandas as pd
import pytest

from pandas_anon.cli.check import FORMATS
from pandas_anon.cli.main import main
from pandas_anon.gate.check import FileResult
from pandas_anon.gate.io import ZipMember
from pandas_anon.gate.pandera_checks import Limits, measure
from pandas_anon.gate.reporters import (
    REPORTERS,
    GitHubReporter,
    JUnitReporter,
    escape_data,
    escape_property,
    summary,
)

# -- results built directly -----------------------------------------------------------------

LIMITS = Limits(max_count=0, k=2)
#: Six rows on (town, year): classes of 3, 2 and 1 (one singleton); the first five: no singleton.
FRAME = pd.DataFrame({"town": list("AAABBC"), "year": ["1970"] * 3 + ["1980"] * 2 + ["1990"]})
RISKY = measure(FRAME, ["town", "year"])
SAFE = measure(FRAME.iloc[:5], ["town", "year"])
SINGLETONS = "1 singleton (16.67 % of 6 rows examined) on (town, year): more than the 0 allowed"
BELOW_K = "k = 1 on (town, year), below the 2 required: 1 row in classes of fewer than 2"
RAGGED = "broken.csv: line 3 has 3 fields but the header has 2 (delimiter ',')"

PASSED = FileResult(
    "safe.csv", "pass", SAFE, limits=LIMITS, warnings=["only 5 of 6 rows are complete"]
)
FAILED = FileResult("risky.csv", "fail", RISKY, True, LIMITS, LIMITS.violations(RISKY))
ERROR = FileResult("broken.csv", "error", error=RAGGED)
SKIPPED = FileResult("README.txt", "skipped", reason="not a table: a single line")
RESULTS = [PASSED, FAILED, ERROR, SKIPPED]


def test_failed_result_is_the_check_s():
    assert FAILED.problems == [SINGLETONS, BELOW_K]


def test_github_report():
    assert GitHubReporter().report(RESULTS) == "\n".join(
        [
            "::warning file=safe.csv,title=pandas-anon check::only 5 of 6 rows are complete",
            # % is the one character of these messages the toolkit escapes
            "::error file=risky.csv,title=pandas-anon check::" + SINGLETONS.replace("%", "%25"),
            "::error file=risky.csv,title=pandas-anon check::" + BELOW_K,
            "::error file=broken.csv,title=pandas-anon check::" + RAGGED,
            "pandas-anon check: 1 of 4 files exceeds the limits, 1 cannot be checked",
        ]
    )


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ([PASSED], "pandas-anon check: 1 file checked, none exceeds the limits"),
        ([SKIPPED, SKIPPED], "pandas-anon check: 2 files checked, none exceeds the limits"),
        ([FAILED, PASSED], "pandas-anon check: 1 of 2 files exceeds the limits"),
        ([FAILED, FAILED, PASSED], "pandas-anon check: 2 of 3 files exceed the limits"),
        ([ERROR, PASSED], "pandas-anon check: 0 of 2 files exceed the limits, 1 cannot be checked"),
    ],
)
def test_summary_ends_the_github_report(results, expected):
    assert summary(results) == expected
    assert GitHubReporter().report(results).splitlines()[-1] == expected


def test_github_annotates_nothing_of_a_passing_or_skipped_file():
    quiet = FileResult("safe.csv", "pass", SAFE, limits=LIMITS)
    assert GitHubReporter().report([quiet, SKIPPED]) == (
        "pandas-anon check: 2 files checked, none exceeds the limits"
    )


def test_junit_report():
    assert JUnitReporter().report(RESULTS) == (
        f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="pandas-anon check" tests="4" failures="1" errors="1" skipped="1">
  <testsuite name="pandas-anon check" tests="4" failures="1" errors="1" skipped="1">
    <testcase classname="pandas-anon check" name="safe.csv">
      <system-out>rows: 5
rows examined: 5
QID: (town, year)
singletons: 0 (0.00 %)
smallest class: 2
thresholds: &lt;= 0 singletons, k &gt;= 2
warning: only 5 of 6 rows are complete</system-out>
    </testcase>
    <testcase classname="pandas-anon check" name="risky.csv">
      <failure message="{SINGLETONS}; {BELOW_K}" type="exceeds the limits">{SINGLETONS}
{BELOW_K}</failure>
      <system-out>rows: 6
rows examined: 6
QID: (town, year) (elected)
singletons: 1 (16.67 %)
smallest class: 1
thresholds: &lt;= 0 singletons, k &gt;= 2</system-out>
    </testcase>
    <testcase classname="pandas-anon check" name="broken.csv">
      <error message="{RAGGED}" type="cannot be checked">{RAGGED}</error>
    </testcase>
    <testcase classname="pandas-anon check" name="README.txt">
      <skipped message="not a table: a single line" />
    </testcase>
  </testsuite>
</testsuites>"""
    )


def test_junit_report_of_no_file_and_of_a_skip_by_the_configuration():
    counts = 'tests="0" failures="0" errors="0" skipped="0"'
    assert JUnitReporter().report([]) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="pandas-anon check" {counts}>\n'
        f'  <testsuite name="pandas-anon check" {counts} />\n'
        "</testsuites>"
    )
    (case,) = parse_junit(JUnitReporter().report([FileResult("a.csv", "skipped")])).iter("testcase")
    assert case.find("skipped").get("message") == "skipped by the configuration"  # skip = true


# -- escaping -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("50% of 1,000: a", "50%25 of 1,000: a", "50%25 of 1%2C000%3A a"),
        ("a\r\nb\nc", "a%0D%0Ab%0Ac", "a%0D%0Ab%0Ac"),
        ("%0A is not a newline", "%250A is not a newline", "%250A is not a newline"),
        ("C:\\data\\a,b.csv", "C:\\data\\a,b.csv", "C%3A\\data\\a%2Cb.csv"),
    ],
)
def test_escaping_is_the_toolkit_s(text, data, prop):
    """As @actions/core's escapeData and escapeProperty (packages/core/src/command.ts)."""
    assert escape_data(text) == data
    assert escape_property(text) == prop


def test_github_escapes_file_names_and_messages():
    name = "data/50% of it,\nnew: line.csv"
    result = FileResult(name, "fail", problems=["1 singleton (100 % of 1 row), on: a\nb"])
    line, last = GitHubReporter().report([result]).split("\n")
    assert line == (
        "::error file=data/50%25 of it%2C%0Anew%3A line.csv,title=pandas-anon check::"
        "1 singleton (100 %25 of 1 row), on: a%0Ab"
    )
    assert last == "pandas-anon check: 1 of 1 file exceeds the limits"


def test_github_annotates_a_zip_member_on_its_archive():
    member = ZipMember("data/open,data.zip", "2024/patenti.csv")
    failed = FileResult(member, "fail", RISKY, False, LIMITS, [SINGLETONS], warnings=["w"])
    error = FileResult(ZipMember("data/open,data.zip", "b.csv"), "error", error=f"{member}: bad")
    lines = GitHubReporter().report([failed, error]).splitlines()
    where = "::{} file=data/open%2Cdata.zip,title=pandas-anon check::"
    assert lines == [
        where.format("error") + "2024/patenti.csv: " + SINGLETONS.replace("%", "%25"),
        where.format("warning") + "2024/patenti.csv: w",
        where.format("error") + "data/open,data.zip:2024/patenti.csv: bad",  # names it already
        "pandas-anon check: 1 of 2 files exceeds the limits, 1 cannot be checked",
    ]
    # in the JUnit report a member is a test case of its own, named archive:member
    root = parse_junit(JUnitReporter().report([failed, error]))
    assert [case.get("name") for case in root.iter("testcase")] == [
        "data/open,data.zip:2024/patenti.csv",
        "data/open,data.zip:b.csv",
    ]


# -- JUnit XML --------------------------------------------------------------------------------


def parse_junit(text: str) -> ElementTree.Element:
    """The root of a JUnit report, after checking its declaration and single suite."""
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert text.isascii()  # non-ASCII as character references: any output encoding reads it
    root = ElementTree.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites" and [child.tag for child in root] == ["testsuite"]
    return root


@pytest.mark.parametrize(
    "results",
    [[], RESULTS, [FAILED] * 3 + [PASSED], [ERROR, SKIPPED, SKIPPED], RESULTS * 5],
    ids=["none", "one-of-each", "failures", "error-and-skips", "many"],
)
def test_junit_parses_and_counts(results):
    root = parse_junit(JUnitReporter().report(results))
    suite = root.find("testsuite")
    cases = list(suite)
    expected = {
        "tests": len(results),
        "failures": sum(r.status == "fail" for r in results),
        "errors": sum(r.status == "error" for r in results),
        "skipped": sum(r.status == "skipped" for r in results),
    }
    for element in (root, suite):
        assert {key: int(element.get(key)) for key in expected} == expected
        assert element.get("name") == "pandas-anon check"
    assert [(c.tag, c.get("classname"), c.get("name")) for c in cases] == [
        ("testcase", "pandas-anon check", r.file) for r in results
    ]
    verdicts = [[child.tag for child in case] for case in cases]
    assert verdicts == [
        {
            "pass": ["system-out"],
            "fail": ["failure", "system-out"],
            "error": ["error"],
            "skipped": ["skipped"],
        }[r.status]
        for r in results
    ]
    for case, result in zip(cases, results):
        if result.status == "fail":
            assert case.find("failure").text.splitlines() == result.problems
        if result.status == "error":
            assert case.find("error").get("message") == result.error


def test_junit_holds_any_file_name():
    names = ["a&b <c> \"d\" 'e'.csv", "città/perché.csv", "bell\x07\x1b.csv", "bad\udcff.csv"]
    results = [FileResult(name, "error", error=f"{name}: unreadable") for name in names]
    cases = list(parse_junit(JUnitReporter().report(results)).iter("testcase"))
    assert [c.get("name") for c in cases] == [
        *names[:2],
        "bell\\x07\\x1b.csv",  # XML cannot hold control characters: their escapes
        "bad\\udcff.csv",  # nor a lone surrogate (an undecodable file name)
    ]
    assert cases[0].find("error").text == f"{names[0]}: unreadable"


# -- the command line -------------------------------------------------------------------------

#: Ten rows on (town, year): classes of three, three and two rows, and two singletons; its
#: first eight rows have none.
TABLE = "town,year,sex\n" + "".join(
    f"{town},{year},F\n"
    for town, year, n in (("A", 1970, 3), ("B", 1980, 3), ("C", 1990, 2), ("D", 2000, 1))
    for _ in range(n)
)
TABLE += "E,2010,M\n"


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A repository (no configuration) holding a table with two singletons, one without,
    an empty file and a README."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "risky.csv").write_text(TABLE)
    (tmp_path / "safe.csv").write_text("".join(TABLE.splitlines(keepends=True)[:9]))
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "README.txt").write_text("Open data of the region.\nSee the licence.\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_format_has_its_reporter_and_documentation():
    assert tuple(REPORTERS) == FORMATS
    for name, make in REPORTERS.items():
        assert isinstance(make(False).report([PASSED]), str), name
    docs = (Path(__file__).resolve().parents[2] / "docs" / "check.md").read_text("utf-8")
    assert f"[--format {'|'.join(FORMATS)}]" in docs  # the synopsis
    (options,) = [part for part in docs.split("\n\n") if part.startswith("`--format` chooses")]
    assert all(f"`{name}`" in options for name in FORMATS)


def test_cli_github(capsys, repo):
    argv = ["--qid", "town,year", "--max-singletons", "1", "--k", "2"]
    code, out, err = check(capsys, "--format", "github", "risky.csv", "safe.csv", *argv)
    assert (code, err) == (1, "")
    assert out == (
        "::error file=risky.csv,title=pandas-anon check::2 singletons (20.00 %25 of 10 rows "
        "examined) on (town, year): more than the 1 allowed\n"
        "::error file=risky.csv,title=pandas-anon check::k = 1 on (town, year), below the 2 "
        "required: 2 rows in classes of fewer than 2\n"
        "pandas-anon check: 1 of 2 files exceeds the limits\n"
    )
    # a passing run prints its summary (a CI wants to see the check ran), and exits 0
    code, out, err = check(capsys, "--format", "github", "safe.csv", "README.txt", *argv)
    assert (code, out, err) == (
        0,
        "pandas-anon check: 2 files checked, none exceeds the limits\n",
        "",
    )


def test_cli_junit(capsys, repo):
    argv = ["risky.csv", "safe.csv", "empty.csv", "README.txt", "--qid", "town,year", "--k", "2"]
    code, out, err = check(capsys, "--format", "junit", *argv)
    assert (
        code == 2
        and err == "pandas-anon: error: empty.csv is empty; pass a file with a header row\n"
    )
    root = parse_junit(out)
    assert {key: root.get(key) for key in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
    }
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert list(cases) == ["risky.csv", "safe.csv", "empty.csv", "README.txt"]
    json_report = {
        f["file"]: f for f in json.loads(check(capsys, "--format", "json", *argv)[1])["files"]
    }
    failure = cases["risky.csv"].find("failure")
    assert (
        failure.text.splitlines()
        == json_report["risky.csv"]["problems"]
        == ["k = 1 on (town, year), below the 2 required: 2 rows in classes of fewer than 2"]
    )
    assert cases["risky.csv"].find("system-out").text.splitlines() == [
        "rows: 10",
        "rows examined: 10",
        "QID: (town, year)",
        "singletons, missing as a value (--keep-missing): 2 of 10 rows (20.00 %), the way the "
        "verdict counts",
        "singletons, incomplete rows dropped (--drop-missing): 2 of 10 rows (20.00 %)",
        "smallest class: 1",
        "thresholds: k >= 2",
    ]
    assert [child.tag for child in cases["safe.csv"]] == ["system-out"]
    assert cases["empty.csv"].find("error").get("message") == json_report["empty.csv"]["error"]
    assert cases["README.txt"].find("skipped").get("message") == json_report["README.txt"]["reason"]
    # a passing run prints the whole report too, and exits 0
    code, out, err = check(
        capsys, "--format", "junit", "safe.csv", "--qid", "town,year", "--k", "2"
    )
    assert (code, err) == (0, "") and parse_junit(out).get("failures") == "0"


def test_cli_elected_qid_and_zip_member(capsys, repo):
    with zipfile.ZipFile("open-data.zip", "w") as archive:
        archive.writestr("2024/risky.csv", TABLE)
        archive.writestr("README.txt", "# notes")
    code, out, _ = check(capsys, "--format", "github", "open-data.zip")
    lines = out.splitlines()
    assert code == 1 and lines[-1] == "pandas-anon check: 1 of 2 files exceeds the limits"
    assert lines[:-1] and all(
        re.fullmatch(
            r"::error file=open-data\.zip,title=pandas-anon check::2024/risky\.csv: .+", line
        )
        for line in lines[:-1]
    )
    code, out, _ = check(capsys, "--format", "junit", "open-data.zip")
    cases = list(parse_junit(out).iter("testcase"))
    assert [c.get("name") for c in cases] == [
        "open-data.zip:2024/risky.csv",
        "open-data.zip:README.txt",
    ]
    assert "(elected)" in cases[0].find("system-out").text


@pytest.mark.parametrize(
    ("files", "status"),
    [
        (["safe.csv"], 0),
        (["risky.csv"], 1),
        (["README.txt"], 0),
        (["empty.csv", "safe.csv"], 2),
        (["risky.csv", "empty.csv"], 2),
    ],
)
def test_cli_exit_status_is_the_same_in_every_format(capsys, repo, files, status):
    for fmt in FORMATS:
        assert check(capsys, *files, "--qid", "town,year", "--format", fmt)[0] == status, fmt


# -- never a value --------------------------------------------------------------------------

#: Values that single people out: none may reach a report, in any format.
SECRETS = ("Zebulon", "1931-02-29", "Rhêmes-Notre-Dame", "Quixotic Lane 7")


def test_no_value_in_any_format(capsys, repo):
    """A risky table, the same in a zip, with missing values (warnings), and a table whose
    broken line holds the values: every format, with and without a QID."""
    people = "name,born,town,street\n" + "Anna,1970-01-01,Aosta,Via Roma 1\n" * 6
    people += ",".join(SECRETS) + "\n"
    (repo / "people.csv").write_text(people)
    (repo / "holes.csv").write_text(people.replace("Aosta", "", 4))
    (repo / "broken.csv").write_text(people + f"{SECRETS[0]},{SECRETS[1]},extra,x,{SECRETS[2]}\n")
    with zipfile.ZipFile("people.zip", "w") as archive:
        archive.writestr("dir/people.csv", people)
    files = ["people.csv", "holes.csv", "broken.csv", "people.zip"]
    for fmt in FORMATS:
        for argv in ([], ["--qid", "born,town,street", "--drop-missing"], ["-v", "--k", "7"]):
            code, out, err = check(capsys, *files, *argv, "--format", fmt)
            assert code == 2 and out.strip(), (fmt, argv)
            assert not [secret for secret in SECRETS if secret in out + err], (fmt, argv)
