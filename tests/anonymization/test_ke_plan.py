"""``ke_plan``: the (k, ε) grid before publishing. Its exact figure (the predicted loss) is
worked by hand; its estimates agree with releases drawn independently; bad input."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.errors import InvalidParameterError, MissingDependencyError

matplotlib.use("Agg")  # no display in CI

TOWNS = pd.DataFrame({"town": ["A", "A", "B", "B"], "height": [160.0, 170.0, 180.0, 180.0]})


def test_the_predicted_loss_is_worked_by_hand():
    """Town A (160, 170) has Δ = 10, town B (180, 180) none: at ε the expected relative
    error is (10/ε/160 + 10/ε/170) / 4, whatever the draws."""
    grid = pandas_anon.ke_plan(TOWNS, [2], [1, 4], qid=["town", "height"], runs=2)
    assert grid.table["predicted_loss"].tolist() == pytest.approx(
        [(10 / eps / 160 + 10 / eps / 170) / 4 for eps in (1, 4)]
    )
    assert grid.table[["k", "classes", "suppressed"]].values.tolist() == [[2, 2, 0.0]] * 2
    assert grid.k_quasi == ("town",) and grid.eps_quasi == ("height",)


def adult_with_height(adult):
    rng = np.random.default_rng(2017)
    base = np.where(adult["sex"] == "Male", 176.0, 162.0)
    return adult.assign(height=np.round(base + rng.normal(0, 7, len(adult)), 1))


def test_the_estimates_agree_with_releases_drawn_apart(adult):
    """The grid's linking risk and α-suppression are means over its draws; releases drawn
    with other seeds land within a few standard deviations of them, and the predicted loss
    is the releases' report's."""
    frame = adult_with_height(adult)
    qid = ["age", "sex", "race", "marital-status", "height"]
    grid = frame.anon.ke_plan([10], [1.0], qid=qid, eps_quasi=["height"], runs=5, alpha=0.99)
    row = grid.table.iloc[0]
    releases = [
        pandas_anon.ke_anon(
            frame, 10, 1.0, qid=qid, eps_quasi=["height"], seed=100 + s, alpha=0.99
        ).anon.report()
        for s in range(5)
    ]
    risks = [r.linking_risk for r in releases]
    assert abs(np.mean(risks) - row["linking_risk"]) < 4 * max(row["linking_risk_sd"], 1e-3)
    removed = np.mean([r.alpha_suppressed / r.rows for r in releases])
    assert removed == pytest.approx(row["alpha_suppressed"], abs=0.01)
    assert releases[0].predicted_loss["height"] == pytest.approx(row["predicted_loss"])


def test_one_k_anonymization_per_k_and_the_loss_falls_as_eps_grows(adult):
    frame = adult_with_height(adult)
    qid = ["age", "sex", "race", "height"]
    grid = pandas_anon.ke_plan(frame, [5, 50], [0.5, 2, 8], qid=qid, runs=1)
    assert grid.table["k"].tolist() == [5, 5, 5, 50, 50, 50]
    for _, rows in grid.table.groupby("k"):
        assert rows["classes"].nunique() == 1
        loss = rows["predicted_loss"].to_numpy()
        np.testing.assert_allclose(loss * rows["eps"].to_numpy(), loss[0] * 0.5)  # b = Δ/ε
    assert grid.smallest_eps(max_loss=10.0) == {5: 0.5, 50: 0.5}
    assert grid.smallest_eps(max_loss=0.0) == {5: None, 50: None}


def test_the_same_seed_gives_the_same_grid():
    frame = pd.DataFrame({"town": list("AABBCC") * 5, "height": np.arange(30) + 150.0})
    options = {"qid": ["town", "height"], "runs": 3}
    one = pandas_anon.ke_plan(frame, [3], [0.1, 1], seed=4, **options)
    again = pandas_anon.ke_plan(frame, [3], [0.1, 1], seed=4, **options)
    other = pandas_anon.ke_plan(frame, [3], [0.1, 1], seed=5, **options)
    pd.testing.assert_frame_equal(one.table, again.table)
    assert not one.table["linking_risk"].equals(other.table["linking_risk"])


def test_the_report_shows_figures_never_values(adult):
    frame = adult_with_height(adult)
    grid = pandas_anon.ke_plan(frame, [10], [1], qid=["race", "sex", "height"], runs=1)
    shown = repr(grid)
    assert "(k, ε) planning" in shown and "height" in shown
    assert "White" not in shown and "Male" not in shown
    assert set(grid.to_dict()["table"][0]) == set(pandas_anon.anonymization.noise.planning.COLUMNS)


def test_the_plot_draws_one_line_per_k():
    frame = pd.DataFrame({"town": list("AABBCC") * 5, "height": np.arange(30) + 150.0})
    grid = pandas_anon.ke_plan(frame, [2, 3], [0.5, 1, 2], qid=["town", "height"], runs=1)
    axes = grid.plot()
    assert len(axes) == 3
    assert [len(ax.get_lines()) for ax in axes] == [2, 2, 2]
    np.testing.assert_allclose(axes[0].get_lines()[0].get_xdata(), [0.5, 1, 2])


def test_the_plot_without_matplotlib_says_what_to_install(without):
    grid = pandas_anon.ke_plan(TOWNS, [2], [1], qid=["town", "height"], runs=1)
    without("matplotlib")
    with pytest.raises(MissingDependencyError, match=r"pandas-anon\[plot\]"):
        grid.plot()


@pytest.mark.parametrize(
    ("k_values", "eps_values", "options", "match"),
    [
        ([], [1], {}, "k_values is empty"),
        ([0], [1], {}, "k_values must be a whole number of at least 1"),
        ([2], [0], {}, "eps_values must be"),
        ([2], [], {}, "eps_values is empty"),
        ([2], [1], {"runs": 0}, "runs must be a whole number of at least 1"),
        ([2], [1], {"alpha": 1.0}, "alpha must be a confidence strictly between"),
        ([2], [1], {"seed": -1}, "seed must be a whole number of at least 0"),
    ],
)
def test_bad_input_says_what_and_how_to_fix(k_values, eps_values, options, match):
    with pytest.raises(InvalidParameterError, match=match):
        pandas_anon.ke_plan(TOWNS, k_values, eps_values, qid=["town", "height"], **options)
