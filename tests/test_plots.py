"""The figures of results: each ``.plot()`` draws what the result says (the bars and points
carry its counts, checked against plain pandas where the result comes from data), on the
axes given or new ones, and returns them; without matplotlib, the error says what to
install. Figures show counts and column names, never a value of the data."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # no display: drawn in memory
import matplotlib.pyplot as plt  # noqa: E402

SEED_QID = ["anno_nascita", "comune_residenza", "sesso"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def texts(ax) -> str:
    """Every text a figure shows: titles, labels, tick labels, annotations."""
    found = [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    found += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    found += [t.get_text() for t in ax.texts]
    return "\n".join(found)


def test_singletons_plot_shows_the_rows_by_class_size(licences):
    found = licences.anon.singletons(SEED_QID)
    ax = found.plot()
    heights = [int(bar.get_height()) for bar in ax.patches]
    sizes = licences.dropna(subset=SEED_QID).groupby(SEED_QID, observed=True).size()
    expected = [
        int(sizes[(sizes >= low) & (sizes <= high)].sum())
        for low, high in [(1, 1), (2, 2), (3, 4), (5, 9), (10, 99), (100, np.inf)]
    ]
    assert heights == expected and heights[0] == 1_684
    assert ax.patches[0].get_facecolor() != ax.patches[1].get_facecolor()  # singletons apart
    assert "1,684 singletons" in ax.get_title()


def test_best_qid_plot_shows_the_subsets_and_the_elected_one(licences):
    personal = [*SEED_QID, "provincia_residenza"]
    found = licences.anon.best_qid(personal)
    ax = found.plot(top=5)
    widths = [int(bar.get_width()) for bar in ax.patches]
    best = found.table.sort_values("singletons", ascending=False, kind="stable").head(5)
    assert widths == best["singletons"].tolist()[::-1]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    elected = labels.index(", ".join(found.columns))
    colours = [bar.get_facecolor() for bar in ax.patches]
    assert colours.count(colours[elected]) == 1  # only the elected subset highlighted


@pytest.mark.requires_plugin("italy")
def test_study_plot_places_each_strategy(licences):
    found = licences.anon.study(year="anno_nascita", sex="sesso", place="comune_residenza")
    fig, given = plt.subplots(1, 2)
    left, right = found.plot(given)
    assert (left, right) == tuple(given)
    table = found.table.iloc[::-1]
    assert [int(bar.get_width()) for bar in left.patches] == table["singletons"].tolist()
    assert [int(bar.get_width()) for bar in right.patches] == table["modified"].tolist()
    labels = [t.get_text() for t in left.get_yticklabels()]
    assert labels == [str(name) for name in table.index]
    colours = [bar.get_facecolor() for bar in left.patches]
    best = labels.index(found.best)
    assert colours.count(colours[best]) == 1  # only the best strategy highlighted


def test_figures_name_columns_and_counts_never_values(licences):
    """No value of a quasi-identifier of a singleton row appears in any figure."""
    found = licences.anon.singletons(SEED_QID)
    shown = "\n".join(
        texts(ax)
        for ax in (
            found.plot(),
            licences.anon.best_qid(SEED_QID).plot(),
        )
    )
    risky = found.rows[["comune_residenza"]].astype(str).stack().unique()
    assert not [value for value in risky if value in shown]


def test_without_matplotlib_the_error_says_what_to_install():
    code = (
        "import sys\nsys.modules['matplotlib'] = None\nsys.modules['matplotlib.pyplot'] = None\n"
        "import pandas as pd, pandas_anon\n"
        "pd.DataFrame({'a': [1, 1, 2]}).anon.singletons(['a']).plot()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert "pip install 'pandas-anon[plot]'" in done.stderr
    assert "MissingDependencyError" in done.stderr


def test_an_anonymization_report_plots_each_columns_cost(licences):
    out = licences.anon.kanon(5, qid=SEED_QID, max_suppression=0.02)
    report = out.anon.report()
    ax = report.plot()
    widths = [bar.get_width() for bar in ax.patches]
    assert widths == [report.ncp[c] for c in SEED_QID[::-1]]
    notes = [t.get_text() for t in ax.texts]
    assert notes == [
        f"level {report.levels[c]}, {report.changed[c]:,} rows changed" for c in SEED_QID[::-1]
    ]
    assert f"{report.suppressed:,} of 87,642 rows suppressed" in ax.get_title()


def test_lattice_plot_shows_what_the_search_knows():
    """Every node once, coloured by a verdict an independent check confirms (the frame
    generalized by pandas at the node's levels, its classes counted by groupby), the
    evaluated nodes as many as the report says, and the optimum the decision's node."""
    import pandas_anon
    from pandas_anon.datasets import load_adult, load_adult_hierarchies
    from pandas_anon.hierarchy import Hierarchy

    adult = load_adult()
    qid = ["age", "sex", "race", "marital-status", "education"]
    tables = load_adult_hierarchies()
    hierarchies = {c: Hierarchy.from_frame(tables[c], name=c) for c in qid}
    k, limit = 10, 0.02
    decision = pandas_anon.anonymize(
        adult, k, qid=qid, hierarchies=hierarchies, max_suppression=limit
    )
    ax = decision.plot_lattice()
    explored = decision.lattice
    collections = {c.get_label().split(" (")[0]: c for c in ax.collections}
    shown = sum(len(collections[v].get_offsets()) for v in ("feasible", "infeasible", "unknown"))
    assert shown == explored.status.size == 240
    assert int(explored.evaluated.sum()) == decision.report.search["evaluated"]
    assert explored.optimum == tuple(decision.report.levels[c] for c in explored.qid)
    assert any(label.startswith("optimum") for label in collections)
    budget = int(limit * len(adult))
    for node in zip(*np.nonzero(explored.status)):
        generalized = adult[list(explored.qid)].copy()
        for column, level in zip(explored.qid, node):
            generalized[column] = hierarchies[column].generalize(adult[column], int(level))
        sizes = generalized.groupby(list(explored.qid), dropna=False).size()
        feasible = int(sizes[sizes < k].sum()) <= budget
        assert feasible == (explored.status[node] == 1), node


def test_lattice_plot_needs_the_optimal_search():
    import pandas as pd

    import pandas_anon

    frame = pd.DataFrame({"age": [20, 21, 22, 23] * 3, "sex": list("FM") * 6})
    decision = pandas_anon.anonymize(frame, 2, qid=["age", "sex"], algo="mondrian")
    with pytest.raises(pandas_anon.InvalidParameterError, match="algo='ola'"):
        decision.plot_lattice()


# -- column names as spelled, titles whole ---------------------------------------------------

DOLLARS = ["$x$", "a$b^$", "c"]  # mathtext: italic x, and a superscript missing (an error)


def dollar_frame():
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "$x$": rng.integers(0, 5, 60),
            "a$b^$": rng.choice(list("pqr"), 60),
            "c": rng.integers(0, 3, 60),
        }
    )


def shown_verbatim(text: str) -> str:
    """What matplotlib writes for ``text``: refused if it would parse it as mathtext."""
    from matplotlib import cbook

    assert not cbook.is_math_text(text), text
    return text.replace(r"\$", "$")


def test_column_names_with_dollars_are_written_as_spelled():
    """A ``$`` in a column name is no mathtext: every figure naming columns draws (no
    ParseFatalException) and shows each name as spelled."""
    import pandas_anon

    frame = dollar_frame()
    singletons = frame.anon.singletons(DOLLARS)
    election = frame.anon.best_qid(DOLLARS, max_size=2)
    decision = pandas_anon.anonymize(frame, 2, qid=DOLLARS, max_suppression=0.5)
    report = decision.apply(frame).anon.report()
    for ax in (singletons.plot(), election.plot(), report.plot(), decision.plot_lattice()):
        ax.figure.savefig(io.BytesIO(), format="png")
        shown = [ax.get_title(), ax.get_xlabel()]
        shown += [t.get_text() for t in ax.get_yticklabels()]
        written = "\n".join(shown_verbatim(text) for text in shown)
        assert any(name in written for name in DOLLARS[:2]), written
    assert shown_verbatim(singletons.plot().get_title()).endswith("on ($x$, a$b^$, c)")


def test_a_long_title_wraps_within_the_figure(licences):
    """The title of a wide QID wraps to the figure's width rather than running off it."""
    qid = ["comune_residenza", "data_scadenza", "categoria_patente", "provincia_residenza"]
    for ax in (licences.anon.singletons(qid).plot(), licences.anon.best_qid(qid).plot()):
        ax.figure.savefig(io.BytesIO(), format="png")
        box = ax.title.get_window_extent(ax.figure.canvas.get_renderer())
        assert 0 <= box.x0 and box.x1 <= ax.figure.bbox.width, (box, ax.get_title())
