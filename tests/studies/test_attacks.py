"""``attacks``: Giomi et al.'s (2023) three attacks as anonymeter 1.1.0 runs them.

The statistics against hand computation (Wilson 1927; anonymeter's ``stats/confidence.py``);
the attacks on small tables whose answer is known; reproducibility; bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import ColumnNotFoundError, InvalidParameterError, NotAFrameError
from pandas_anon.studies import attacks as attacks_module
from pandas_anon.studies.attacks import AttackRisk, Rate

Z95 = 1.959963984540054  # the normal quantile of 0.975 (scipy.stats.norm.ppf)


def wilson(n: int, k: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score estimate and error bound, written out."""
    return (
        (k + z * z / 2) / (n + z * z),
        z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4),
    )


def people(n: int, seed: int) -> pd.DataFrame:
    """``n`` records whose ``a`` and ``b`` each tell everybody apart (no two share a value of
    either), a category ``c`` and a secret ``s`` unrelated to the others."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.permutation(n) * 1.0,
            "b": rng.permutation(n) * 7.0,
            "c": rng.choice(["x", "y", "z"], n),
            "s": rng.choice(["p", "q"], n),
        }
    )


@pytest.fixture
def split() -> tuple[pd.DataFrame, pd.DataFrame]:
    table = people(600, seed=3)
    return table.iloc[:400], table.iloc[400:]


# -- the statistics -------------------------------------------------------------------------


def test_the_wilson_rate_is_computed_by_hand():
    rate = Rate.wilson(500, 100, 0.95)
    # (100 + 1.92073) / 503.84146 and 1.95996 / 503.84146 * sqrt(80 + 0.96037)
    assert rate.value == pytest.approx(101.920729 / 503.841459, rel=1e-6)
    assert rate.error == pytest.approx(1.959964 / 503.841459 * math.sqrt(80.960365), rel=1e-6)
    assert (rate.value, rate.error) == pytest.approx(wilson(500, 100), rel=1e-12)


def test_the_risk_is_the_attacks_excess_over_the_control():
    risk = AttackRisk.measure("inference", (500, 500, 400), (300, 120, 160.0), 0.95)
    (a, da), (c, dc) = wilson(500, 300), wilson(400, 160)
    value = (a - c) / (1 - c)
    error = math.sqrt((da / (1 - c)) ** 2 + (dc * (a - 1) / (1 - c) ** 2) ** 2)
    assert risk.risk == pytest.approx(value, rel=1e-12)
    assert risk.ci == pytest.approx((value - error, value + error), rel=1e-12)
    assert (risk.attack_rate, risk.control_rate) == pytest.approx((a, c))
    assert risk.baseline_rate == pytest.approx(wilson(500, 120)[0])


def test_the_risk_and_its_interval_are_clipped_to_0_1():
    below = AttackRisk.measure("linkability", (100, 100, 100), (5, 5, 40.0), 0.95)
    assert below.risk == 0.0 and below.ci[0] == 0.0 and below.ci[1] == 0.0
    above = AttackRisk.measure("linkability", (100, 100, 100), (100, 0, 0.0), 0.95)
    assert above.ci[1] == 1.0 and above.risk < 1.0  # Wilson's estimate of 100/100 is < 1


@pytest.mark.parametrize(("n", "w"), [(10, 0.05), (1000, 0.001), (5000, 0.01)])
def test_the_control_size_model_is_the_integral_of_the_chance_to_single_out(n, w):
    """Cohen and Nissim's chance that a predicate of weight x singles out one of n records,
    n x (1 - x)^(n - 1), integrated from 0 to w (anonymeter's closed form)."""
    from scipy.integrate import quad

    exact, _ = quad(lambda x: n * x * (1 - x) ** (n - 1), 0, w)
    assert attacks_module._singling_out_integral(n, w) == pytest.approx(exact, rel=1e-9)


def test_a_smaller_control_is_rescaled_to_the_originals_size(split):
    original, control = split
    result = pandas_anon.attacks(
        original, original, control=control.iloc[:150], link_columns=(["a"], ["b"]), n_attacks=100
    )
    # the predicates' count on 150 control records is rescaled to the original's 400 by the
    # fitted model (without the fit it would be a whole number)
    assert result.singling_out.n_control != int(result.singling_out.n_control)


@given(
    st.integers(1, 2000).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n), st.integers(0, n))
    ),
    st.floats(0.5, 0.999),
)
def test_the_risk_lies_in_its_interval(counts, level):
    n, success, baseline, control = counts
    risk = AttackRisk.measure("singling out", (n, n, n), (success, baseline, control), level)
    assert 0.0 <= risk.ci[0] <= risk.risk <= risk.ci[1] <= 1.0


# -- the attacks on tables whose answer is known --------------------------------------------


def test_a_release_equal_to_the_original_singles_out_and_links(split):
    original, control = split
    result = pandas_anon.attacks(
        original, original, control=control, link_columns=(["a"], ["b"]), n_attacks=100
    )
    # a and b tell everybody apart: each half finds the target itself
    assert result.linkability.n_success == 100
    assert result.linkability.risk > 0.9
    assert result.singling_out.n_success == result.singling_out.n_queries >= 50
    assert result.singling_out.risk > 0.4 and result.singling_out.ci[0] > 0.3


def test_more_neighbours_link_at_least_as_often(split):
    original, control = split
    blurred = original.assign(a=original["a"] + 0.4)  # a's nearest release value stays its own
    one, three = (
        pandas_anon.attacks(
            original,
            blurred,
            control=control,
            link_columns=(["a"], ["c"]),
            n_attacks=100,
            n_neighbors=n,
        ).linkability
        for n in (1, 3)
    )
    # with c (three values) every third record ties: among three neighbours, c's random
    # draws meet a's own record more often
    assert one.n_success < three.n_success
    assert three.n_attacks == (100, 100, 100)


def test_a_release_with_every_column_suppressed_has_no_risk(split):
    original, control = split
    nothing = original.assign(a="*", b="*", c="*", s="*")
    result = pandas_anon.attacks(original, nothing, control=control, secret="s", n_attacks=100)
    # the release's one distinct record is singled out by any predicate, nobody else is
    assert result.singling_out.n_success == 0 and result.singling_out.risk == 0.0
    assert result.linkability.ci[0] == 0.0 and result.linkability.n_success <= 2
    assert result.inference is not None
    assert result.inference.n_success == 0 and result.inference.risk == 0.0


def test_a_secret_the_release_tells_of_anyone_is_inferred_without_risk(split):
    original, control = split
    by_category = lambda f: f.assign(s=f["c"].map({"x": "p", "y": "q", "z": "p"}))  # noqa: E731
    original, control = by_category(original), by_category(control)
    result = pandas_anon.attacks(
        original,
        original,
        control=control,
        columns=["c", "b", "s"],
        secret="s",
        n_attacks=100,
        max_attempts=2000,
    )
    inference = result.inference
    assert inference is not None
    # s is a function of c: the nearest release record (same c first) tells it of the
    # original's records and of the control's alike, so the attack succeeds and is no risk
    assert inference.n_success == 100 and inference.n_control == 100
    assert inference.risk == 0.0 and inference.ci[0] == 0.0


def test_a_secret_only_the_record_itself_tells_is_a_risk(split):
    original, control = split
    parity = lambda f: f.assign(s=np.where(f["a"] % 2 == 0, "even", "odd"))  # noqa: E731
    original, control = parity(original), parity(control)
    result = pandas_anon.attacks(
        original,
        original,
        control=control,
        columns=["a", "c", "s"],
        secret="s",
        n_attacks=100,
        max_attempts=2000,
    )
    inference = result.inference
    assert inference is not None
    # s is a function of a, but not of a's neighbours: the release tells it of its own
    # records (each its own nearest) and about as well as a coin of the control's
    assert inference.n_success == 100
    assert 25 <= inference.n_control <= 75
    assert inference.risk > 0.5 and inference.ci[0] > 0.3


def test_univariate_predicates_are_the_rare_values_and_extremes():
    original = pd.DataFrame({"x": [1, 2, 2, 3, 3, 9], "y": ["u", "v", "v", "w", "w", "w"]})
    control = pd.DataFrame({"x": [5, 5, 6, 6, 7, 7], "y": "w"}, index=range(6, 12))
    result = pandas_anon.attacks(
        original, original, control=control, mode="univariate", n_attacks=10
    )
    # on the distinct records (1, u), (2, v), (3, w), (9, w): x <= 1, x >= 9, x == 1, 2, 3
    # and 9, y == "u" and "v" each single out one record of the original and nobody in the
    # control's (5, w), (6, w), (7, w)
    assert result.singling_out.n_queries == 8
    assert (result.singling_out.n_success, result.singling_out.n_control) == (8, 0.0)
    (a, _), (c, _) = wilson(10, 8), wilson(10, 0)
    assert result.singling_out.risk == pytest.approx((a - c) / (1 - c))


def test_the_same_seed_gives_the_same_figures(split):
    original, control = split
    release = original.assign(c="*")
    run = lambda seed: pandas_anon.attacks(  # noqa: E731
        original, release, control=control, secret="s", n_attacks=60, seed=seed
    ).to_dict()
    assert run(5) == run(5)
    assert run(5) != run(6)


def test_regression_counts_a_guess_within_five_percent(split):
    original, control = split
    rng = np.random.default_rng(0)
    original = original.assign(s=rng.uniform(100, 200, len(original)))
    control = control.assign(s=rng.uniform(100, 200, len(control)))
    noisy = original.assign(s=original["s"] * 1.01)
    exact = pandas_anon.attacks(original, noisy, control=control, secret="s", n_attacks=80)
    near = pandas_anon.attacks(
        original, noisy, control=control, secret="s", n_attacks=80, regression=True
    )
    assert exact.inference is not None and near.inference is not None
    assert exact.inference.n_success == 0
    assert near.inference.n_success == 80


def test_the_accessor_is_the_function(split):
    original, control = split
    before = original.copy()
    got = original.anon.attacks(original, control=control, n_attacks=30, seed=2)
    assert (
        got.to_dict()
        == pandas_anon.attacks(original, original, control=control, n_attacks=30, seed=2).to_dict()
    )
    pd.testing.assert_frame_equal(original, before)


def test_the_result_prints_and_converts_without_data_values(split):
    original, control = split
    result = pandas_anon.attacks(original, original, control=control, secret="s", n_attacks=30)
    text = repr(result)
    assert "singling out" in text and "inference" in text
    # the values of c and s appear nowhere (the column names do)
    assert not any(f"'{v}'" in text or f" {v} " in text for v in ("x", "y", "z", "p", "q"))
    assert list(result.table.index) == ["singling out", "linkability", "inference"]
    assert set(result.to_dict()["attacks"]) == {"singling out", "linkability", "inference"}


# -- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"n_attacks": 0}, InvalidParameterError, "n_attacks"),
        ({"n_cols": 0}, InvalidParameterError, "n_cols"),
        ({"n_cols": 9}, InvalidParameterError, "n_cols"),
        ({"n_neighbors": 0}, InvalidParameterError, "n_neighbors"),
        ({"max_attempts": 0}, InvalidParameterError, "max_attempts"),
        ({"mode": "both"}, InvalidParameterError, "mode"),
        ({"confidence_level": 1.0}, InvalidParameterError, "confidence_level"),
        ({"secret": "nope"}, ColumnNotFoundError, "secret"),
        ({"columns": ["a", "nope"]}, ColumnNotFoundError, "columns"),
        ({"link_columns": (["a"], ["a", "b"])}, InvalidParameterError, "link_columns"),
        ({"link_columns": (["a"], ["nope"])}, ColumnNotFoundError, "link_columns"),
        ({"secret": "s", "columns": ["s"]}, InvalidParameterError, "secret"),
        ({"secret": "c", "regression": True}, InvalidParameterError, "regression"),
    ],
)
def test_bad_parameters_are_named(split, options, error, named):
    original, control = split
    with pytest.raises(error, match=named):
        pandas_anon.attacks(original, original, control=control, **options)


def test_a_control_sharing_the_originals_rows_is_refused(split):
    original, control = split
    with pytest.raises(InvalidParameterError, match="control shares 400 index labels") as info:
        pandas_anon.attacks(original, original, control=original)
    assert "not used to make the release" in str(info.value)


def test_columns_missing_from_the_release_are_named_not_their_values(split):
    original, control = split
    with pytest.raises(ColumnNotFoundError, match="in released") as info:
        pandas_anon.attacks(
            original, original.drop(columns="c"), control=control, columns=["a", "c"]
        )
    assert "'c'" in str(info.value) and " x" not in str(info.value)


def test_tables_must_be_frames_with_rows(split):
    original, control = split
    with pytest.raises(NotAFrameError, match="released"):
        pandas_anon.attacks(original, original.to_numpy(), control=control)
    with pytest.raises(pandas_anon.EmptyDataError, match="control"):
        pandas_anon.attacks(original, original, control=control.iloc[:0])
