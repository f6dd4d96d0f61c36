"""The risk report to hand on: one self-contained page (figures embedded, no request to the
network, no script) with every section, the figures of the library's own results, the
suggested fix, and no value of a risky row; from the function, the accessor and the CLI."""

from __future__ import annotations

import re
import subprocess
import sys

import pandas as pd
import pytest

import pandas_anon
from pandas_anon.cli.main import main
from pandas_anon.studies.handover import report_html, risk_report

SECTIONS = [
    "Summary",
    "Direct identifiers",
    "The most exposed columns",
    "What k=5 costs, by method",
    "Next step",
]


@pytest.fixture(scope="module")
def licence_page(_licences) -> tuple:
    found = risk_report(_licences, title="patenti.csv")
    return found, found.to_html()


def test_every_section_and_the_figures_are_on_one_page(licence_page):
    found, page = licence_page
    titles = re.findall(r"<h2>([^<]*)</h2>", page)
    assert [t for t in titles if not t.startswith("Class sizes")] == SECTIONS
    assert any(t.startswith("Class sizes on (") for t in titles)
    assert page.count('src="data:image/png;base64,') == 2  # the election, the class sizes
    assert not re.search(r"(src|href)=\"(?!data:)", page)  # nothing fetched
    assert "<script" not in page and "url(" not in page
    assert [f.column for f in found.identifiers] == ["id"]
    assert found.qid == found.election.columns


def test_the_page_holds_no_value_of_a_risky_row(licence_page, _licences):
    """No value of the quasi-identifier of any singleton row appears on the page (text
    values: municipality names and dates, which no count can spell)."""
    found, page = licence_page
    risky = found.risk.uniques.rows[list(found.qid)].astype(str).stack().unique()
    spelled = [v for v in risky if isinstance(v, str) and len(v) >= 4 and v in page]
    assert len(risky) > 100 and not spelled


def test_the_suggestion_names_the_cheapest_fix_within_the_suppression_budget(licence_page):
    found, _ = licence_page
    table = found.comparison.table
    cheapest = table[table["suppressed"] <= 0.05 * found.rows]["modified rows"].idxmin()
    text = found.suggestion()
    assert "'id'" in text and f"algo={cheapest!r}" in text
    assert f"modifies {int(table.loc[cheapest, 'modified rows']):,} rows" in text


def test_a_table_already_k_anonymous_has_nothing_to_fix():
    frame = pd.DataFrame({"year": [1980] * 5 + [1990] * 5, "sex": list("fm" * 5)})
    found = risk_report(frame, qid=["year"], k=5)
    assert found.comparison is None
    assert "already 5-anonymous" in found.suggestion()
    assert "What k=5 costs" not in found.to_html()


def test_the_accessor_and_the_cli_write_the_same_page(tmp_path, capsys):
    frame = pd.DataFrame(
        {"year": [1980, 1980, 1991, 1991, 1975, 1975, 1962], "sex": list("ffmmfmf")}
    )
    written = tmp_path / "report.html"
    page = frame.anon.report_html(written, qid=["year", "sex"], k=2, title="t.csv")
    assert written.read_text(encoding="utf-8") == page
    assert page == report_html(frame, qid=["year", "sex"], k=2, title="t.csv")
    source = tmp_path / "t.csv"
    frame.to_csv(source, index=False)
    out = tmp_path / "cli.html"
    assert main(["report", str(source), "-o", str(out), "--qid", "year,sex", "--k", "2"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    cli_page = out.read_text(encoding="utf-8")
    assert re.findall(r"<h2>[^<]*</h2>", cli_page) == re.findall(r"<h2>[^<]*</h2>", page)


def test_without_matplotlib_the_page_says_how_to_get_the_figures():
    code = (
        "import sys\nsys.modules['matplotlib'] = None\nsys.modules['matplotlib.pyplot'] = None\n"
        "import pandas as pd\nfrom pandas_anon.studies.handover import report_html\n"
        "df = pd.DataFrame({'a': [1, 1, 2, 3], 'b': list('xxyz')})\n"
        "print(report_html(df, qid=['a', 'b'], k=2))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert 'pip install "pandas-anon[plot]"' in done.stdout and "base64" not in done.stdout


def test_the_functions_are_public():
    assert pandas_anon.report_html is report_html and pandas_anon.risk_report is risk_report
