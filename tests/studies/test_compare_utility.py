"""compare() with the utility figures a person can judge (issue 35, item 3): each method's
share of QID cells unchanged and query error, as its report gives them, and with a target
the task utility of each release, shown in its table, its notebook HTML and its plot."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.errors import ColumnNotFoundError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # no display: drawn in memory
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    """300 rows; the target follows age and sex, so a classifier beats the majority."""
    rng = np.random.default_rng(7)
    age = rng.integers(20, 70, 300)
    sex = rng.choice(["F", "M"], 300)
    town = rng.choice(["Aosta", "Ivrea", "Biella", "Turin"], 300)
    label = np.where((age > 45) ^ (sex == "F") ^ (rng.random(300) < 0.1), "yes", "no")
    return pd.DataFrame({"age": age, "sex": sex, "town": town, "label": label})


def test_the_table_gives_each_report_s_figures(people):
    """Without a target: the unchanged share and the query error, the reports' own."""
    found = pandas_anon.compare(people, 5, qid=["age", "sex", "town"], methods=["ola", "local"])
    for method in ("ola", "local"):
        metrics = found.reports[method].metrics
        row = found.table.loc[method]
        assert row["unchanged"] == metrics["unchanged"]
        assert row["query error"] == metrics["query_error"]
        cells = found.reports[method].rows * 3
        assert row["unchanged"] == 1 - row["modified cells"] / cells
    assert "accuracy" not in found.table
    assert found.reports["ola"].task is None
    shown = repr(found)
    assert "unchanged" in shown and "query error" in shown
    assert "<table" in found._repr_html_() and "query error" in found._repr_html_()


def test_a_target_adds_the_three_accuracies_side_by_side(people):
    found = pandas_anon.compare(
        people, 5, qid=["age", "sex", "town"], target="label", methods=["ola", "mondrian"]
    )
    table = found.table
    assert (table["accuracy original"].nunique(), table["accuracy majority"].nunique()) == (1, 1)
    assert table.loc["ola", "accuracy majority"] < table.loc["ola", "accuracy original"]
    assert found.to_dict()["table"][0]["margin kept"] == pytest.approx(
        found.reports["ola"].task["margin_kept"]
    )
    ax = found.plot()
    assert len(ax.patches) == 2 * 4  # per method: unchanged and the three accuracies
    widths = sorted(round(bar.get_width(), 12) for bar in ax.patches)
    expected = table[["unchanged", "accuracy", "accuracy original", "accuracy majority"]]
    assert widths == sorted(round(v, 12) for v in expected.to_numpy().ravel())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].startswith("ola") and "query error" in labels[0]


def test_an_unknown_target_is_refused_naming_the_column(people):
    with pytest.raises(ColumnNotFoundError, match="salary"):
        pandas_anon.compare(people, 5, qid=["age", "sex"], target="salary", methods=["ola"])
