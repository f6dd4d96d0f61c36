"""The risk report to hand on: one self-contained page (figures embedded, no request to the
network, no script) with every section, the figures of the library's own results, the
suggested fix, and no value of a risky row; from the function, the accessor and the CLI."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import pandas as pd
import pytest

import pandas_anon
from pandas_anon.cli.main import main
from pandas_anon.datasets import load_driver_licenses
from pandas_anon.studies.handover import report_html, risk_report

import handover_reports

SECTIONS = [
    "Summary",
    "Direct identifiers",
    "The most exposed columns",
    "What k=5 costs, by method",
    "Next step",
]


@pytest.fixture
def licence_report():
    return handover_reports.licence_report()


@pytest.fixture
def adult_report():
    return handover_reports.adult_report()


@pytest.fixture(scope="module")
def licence_page() -> tuple:
    licence_report = handover_reports.licence_report()
    return licence_report, licence_report.to_html()


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
    shown = re.sub(r'src="data:[^"]*"', "", page)  # an image's base64 spells no value
    risky = found.risk.uniques.rows[list(found.qid)].astype(str).stack().unique()
    spelled = [
        v
        for v in risky
        if isinstance(v, str)
        and len(v) >= 4
        and re.search(rf"(?<![\w.,]){re.escape(v)}(?![\w.,])", shown)  # 0.2000 is no year
    ]
    assert len(risky) > 100 and not spelled


def test_the_suggestion_names_the_cheapest_fix_within_the_suppression_budget(licence_page):
    """Among the releases passing the check, suppressing at most 5 % of the rows: the fewest
    cells modified (the default's criterion), then the fewest rows."""
    found, _ = licence_page
    table = found.comparison.table
    passing = [bool(found.comparison.reports[m].exposure["passes"]) for m in table.index]
    allowed = table[(table["suppressed"] <= 0.05 * found.rows).to_numpy() & passing]
    cheapest = allowed.sort_values(["modified cells", "modified rows"], kind="stable").index[0]
    text = found.suggestion()
    assert "'id'" in text and f"df.anon.kanon(5, algo={cheapest!r})" in text
    assert f"modifies {int(table.loc[cheapest, 'modified cells']):,} cells" in text
    assert f"in {int(table.loc[cheapest, 'modified rows']):,} rows" in text


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


# -- what the page recommends passes the check it is about ----------------------------------


def recommended_call(found) -> str:
    """The call the next step writes, as a user would copy it."""
    calls = re.findall(r"df\.anon\.kanon\([^()]*\)", found.suggestion())
    assert len(calls) == 1, found.suggestion()
    return calls[0]


@pytest.mark.parametrize(
    ("report", "data", "method"),
    [("licence_report", "_licences", "local"), ("adult_report", "adult", "local")],
)
def test_the_recommended_call_passes_check_on_the_real_tables(
    request, tmp_path, capsys, report, data, method
):
    """Run the call the page recommends on the table, write its release as CSV: pandas-anon
    check --k 5 passes it (it recommended kanon(5, qid=[3 columns], algo='local'), whose
    release of the licences still had 1,791 singletons on another triple)."""
    found, frame = request.getfixturevalue(report), request.getfixturevalue(data)
    call = recommended_call(found)
    assert call == f"df.anon.kanon(5, algo={method!r})"
    assert "its release passes pandas-anon check --k 5" in found.suggestion()
    assert found.passes().all()  # every method's zero-configuration release passes
    out = eval(call, {"df": frame})  # as typed
    assert out.anon.report().modified == found.comparison.table.loc[method, "modified rows"]
    path = tmp_path / "release.csv"
    out.to_csv(path, index=False)
    capsys.readouterr()
    assert main(["check", str(path), "--k", "5"]) == 0, capsys.readouterr().out


def test_with_the_qid_given_the_call_passes_check_on_that_qid(adult, tmp_path, capsys):
    qid = ["age", "education", "occupation"]
    found = risk_report(adult, qid=qid, k=5)
    call = recommended_call(found)
    assert call == f"df.anon.kanon(5, qid={qid!r}, algo='local')"
    assert "passes pandas-anon check --qid age,education,occupation --k 5" in found.suggestion()
    path = tmp_path / "release.csv"
    eval(call, {"df": adult}).to_csv(path, index=False)
    assert main(["check", str(path), "--qid", ",".join(qid), "--k", "5"]) == 0


def test_the_election_is_the_one_check_makes():
    """The most exposed columns are ranked by the rows below k, as check --k ranks them: a
    column of pairs (classes of 2, no singleton) is the one to fix at k=5."""
    frame = pd.DataFrame(
        {
            "sex": list("FM") * 20,
            "region": ["north", "south"] * 10 + ["south", "north"] * 10,
            "pair": [f"p{i // 2}" for i in range(40)],
        }
    )
    found = risk_report(frame, k=5)
    assert found.qid == ("pair",) and found.election.at_risk == 40
    assert recommended_call(found) == "df.anon.kanon(5, algo='ola')"


def test_no_release_passing_the_check_is_said_so():
    """When no method's release passes within 5 % of suppression, the page says what to
    change instead of naming a call."""
    from dataclasses import replace

    frame = pd.DataFrame({"year": [1980, 1980, 1991, 1975, 1975, 1962], "sex": list("ffmfmf")})
    found = risk_report(frame, k=2)
    reports = {
        m: replace(r, exposure={**r.exposure, "passes": False})
        for m, r in found.comparison.reports.items()
    }
    failing = replace(found, comparison=replace(found.comparison, reports=reports))
    assert failing.recommended() is None
    assert "df.anon.kanon" not in failing.suggestion()
    assert "No method compared releases a table that passes pandas-anon check --k 2" in (
        failing.suggestion()
    )


# -- every figure written as the product writes it -------------------------------------------

NUMBER = re.compile(r"-?[\d.,]+")
FORMATTED = re.compile(r"-?\d{1,3}(,\d{3})*(\.\d{4})?")  # 198,524 or 19,852.4000


def cells(page: str) -> list[str]:
    return [html.unescape(c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", page, re.S)]


@pytest.mark.parametrize("report", ["licence_report", "adult_report"])
def test_every_figure_on_the_page_is_formatted(request, report):
    """Whole numbers thousands-separated, others to 4 decimals, '-' where a method has none:
    no 183276 beside 198,524, no 19852.400000, no NaN."""
    page = request.getfixturevalue(report).to_html()
    figures = [c for c in cells(page) if NUMBER.fullmatch(c)]
    assert len(figures) > 50
    assert [c for c in figures if not FORMATTED.fullmatch(c)] == []
    assert "NaN" not in page and "nan" not in cells(page)
    assert "-" in cells(page)  # Mondrian's precision: none


# -- with a target: the task utility of each fix, beside the cells unchanged and queries ----


def test_a_target_puts_each_fixs_task_utility_beside_its_other_utility(adult, tmp_path, capsys):
    """Adult with ``target="salary-class"``: every method's release keeps the target as read
    and out of its QID, and the cost table gives its cells unchanged, query error, accuracy
    and margin kept side by side, the accuracy recomputed here on the release the
    recommended call writes; the page says the original's and the majority's accuracy."""
    from pandas_anon.anonymization.task_utility import task_utility

    found = handover_reports.adult_task_report()
    table = found._costs()
    assert {"unchanged", "query error", "accuracy", "margin kept"} <= set(table.columns)
    assert "accuracy original" not in table.columns  # said once, above the table
    for method, report in found.comparison.reports.items():
        assert "salary-class" not in report.qid and len(report.qid) == 8
        assert table.loc[method, "accuracy"] == report.task["output"]
    call = recommended_call(found)
    assert call == "df.anon.kanon(5, sensitive='salary-class', algo='local')"
    out = eval(call, {"df": adult})
    assert out["salary-class"].equals(adult["salary-class"])
    again = task_utility(adult, out, "salary-class")
    assert again.output == table.loc["local", "accuracy"]
    assert table.loc["local", "margin kept"] >= 0.85  # the target for the default
    page = found.to_html()
    assert "margin kept" in page and f"{again.original:.4f}" in page
    path = tmp_path / "release.csv"
    out.to_csv(path, index=False)
    qid = ",".join(c for c in adult.columns if c != "salary-class")
    assert main(["check", str(path), "--qid", qid, "--k", "5"]) == 0


def test_a_target_is_refused_in_the_qid_and_when_it_is_no_column(adult):
    with pytest.raises(pandas_anon.errors.InvalidParameterError, match="target='age' is in qid"):
        risk_report(adult, qid=["age", "sex"], target="age")
    with pytest.raises(pandas_anon.errors.ColumnNotFoundError, match="salary"):
        risk_report(adult, target="salary")


def test_the_cli_report_takes_a_target(tmp_path, capsys, adult):
    source, page = tmp_path / "adult.csv", tmp_path / "report.html"
    adult.iloc[:2000].to_csv(source, index=False)
    code = main(
        ["report", str(source), "-o", str(page), "--qid", "age,sex", "--target", "salary-class"]
    )
    assert code == 0, capsys.readouterr().err
    text = page.read_text(encoding="utf-8")
    assert "margin kept" in text and "predicting &#x27;salary-class&#x27;" in text


def test_a_sample_s_report_gives_its_population_figures(tmp_path, capsys):
    """A 10 % sample of the licences: the summary gives the estimated population uniques
    beside the sample's singletons, as risk(population=) computes them; the CLI the same."""
    sample = load_driver_licenses().sample(frac=0.1, random_state=1)
    qid = ["anno_nascita", "sesso", "categoria_patente"]
    found = risk_report(sample[qid], qid=qid, k=5, population=87_642)
    expected = pandas_anon.risk(sample[qid], qid, dropna=False, population=87_642)
    assert found.risk.population_uniques == expected.population_uniques
    summary = dict(found._summary().itertuples(index=False))
    assert summary["population uniques"].startswith(
        pandas_anon.formatting.percent(expected.population_uniques)
    )
    assert "population uniques" in found.to_html()
    source, page = tmp_path / "s.csv", tmp_path / "s.html"
    sample[qid].to_csv(source, index=False)
    argv = ["report", str(source), "-o", str(page), "--qid", ",".join(qid), "--sampling-fraction"]
    assert main([*argv, "0.1"]) == 0
    assert "population uniques" in page.read_text(encoding="utf-8")
    assert main([*argv, "1.5"]) == 2
    assert "sampling_fraction" in capsys.readouterr().err


def test_when_asked_the_page_gives_each_release_s_three_risks_by_attack(tmp_path):
    """attacks=True: the table as it is and each fix's release (made from the rows less the
    control held back) attacked as pandas_anon.attacks does; the raw table singles people
    out, the fixes far less; the figures are attacks()'s on the same releases, recomputed
    here; the CLI writes the section too."""
    from pandas_anon.studies.handover import ATTACK_CONTROL

    adult = pandas_anon.datasets.load_adult().iloc[:3000]
    found = risk_report(adult, k=5, target="salary-class", attacks=True)
    table = found.attack_table()
    assert list(table.index) == ["the table as it is", "ola", "mondrian", "local"]
    assert list(table.columns) == ["singling out", "linkability", "inference"]
    share, most, seed = ATTACK_CONTROL
    control = adult.sample(n=min(most, int(share * len(adult))), random_state=seed)
    rest = adult.drop(index=control.index)
    out = pandas_anon.kanon(rest, 5, algo="local", sensitive="salary-class", identifiers="keep")
    again = pandas_anon.attacks(rest, out, control=control, secret="salary-class")
    assert found.attacked["local"].to_dict() == again.to_dict()
    raw = found.attacked["table"].singling_out.risk
    assert raw > 0.5 and all(found.attacked[m].singling_out.risk < raw / 5 for m in table.index[1:])
    page = found.to_html()
    assert "Against an attacker: WP29&#x27;s three risks" in page
    source, written = tmp_path / "adult.csv", tmp_path / "report.html"
    adult.to_csv(source, index=False)
    assert main(["report", str(source), "-o", str(written), "--attacks"]) == 0
    text = written.read_text(encoding="utf-8")
    assert "singling out" in text and "name a target to measure inference too" in text
