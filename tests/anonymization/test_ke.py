"""(k, ε)-anonymity (Holohan et al. 2017): the noise scale of every class, the information
loss predicted before the noise, the linking risk and α-confident k-anonymity, each checked
by an independent verifier that reads only the input and the release; bad input."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.anonymization.noise.ke import ke_decide
from pandas_anon.anonymization.noise.linking import linked, within
from pandas_anon.anonymization.noise.sources import SecureLaplace, SeededLaplace
from pandas_anon.errors import (
    AllMissingColumnError,
    ColumnNotFoundError,
    InvalidParameterError,
    MissingDependencyError,
)

from test_properties_algorithms import EXAMPLES
from verify import release_classes

NEVER = "\0never"  # no row is read as masked unless the release masks it with "*"


@dataclass
class Shift:
    """A source that adds exactly the scale (so the release shows each record's scale) and
    keeps the order: the tests read the scales off the output."""

    description: str = "test: value + scale"
    scales: list = field(default_factory=list)

    def perturb(
        self, values: np.ndarray, scales: np.ndarray, positions: np.ndarray, stream: int
    ) -> np.ndarray:
        self.scales.append(scales.copy())
        return values + scales

    def order_keys(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(positions, dtype=float)  # sorted as they come: the order kept


def expected_scales(frame: pd.DataFrame, out: pd.DataFrame, k_quasi: list, eps_quasi: list, eps):
    """Per row, Δ_C / ε of its class as the release shows the classes (the k-quasis'
    written values; a release with nothing suppressed, so ``*`` is the top of a hierarchy
    here, not a mask)."""
    found = release_classes(out, k_quasi, top=NEVER)
    classes = found["by_class"][k_quasi[0]].where(~found["masked"])
    diameter = sum(
        (
            frame[c].astype(float).groupby(classes).transform("max")
            - frame[c].astype(float).groupby(classes).transform("min")
        ).fillna(0.0)
        for c in eps_quasi
    )
    return (diameter / eps).where(~found["masked"])


# -- hand-worked --------------------------------------------------------------------------


def test_each_class_gets_its_own_diameter_over_eps():
    """Towns A and B, two rows each (k = 2): A's heights 160 and 170 (Δ = 10), B's both 180
    (Δ = 0, no noise). With ε = 2 A's rows get scale 5, B's none."""
    frame = pd.DataFrame({"town": ["A", "A", "B", "B"], "height": [160.0, 170.0, 180.0, 180.0]})
    plan = ke_decide(frame, 2, 2.0, qid=["town", "height"], eps_quasi=["height"])
    assert plan.k_quasi == ("town",) and plan.eps_quasi == ("height",)
    np.testing.assert_array_equal(plan.row_scale(), [5.0, 5.0, 0.0, 0.0])
    out = plan.apply(frame, Shift(), shuffle=False)
    assert out["height"].tolist() == [165.0, 175.0, 180.0, 180.0]
    assert out["town"].tolist() == ["A", "A", "B", "B"]
    report = out.anon.report()
    assert report.noiseless_classes == 1 and report.classes == 2
    assert report.diameter == {"min": 0.0, "median": 5.0, "max": 10.0}
    # E|Lap(5)| / |x|: 5/160 and 5/170 for A, 0 for B, over the four rows
    assert report.predicted_loss["height"] == pytest.approx((5 / 160 + 5 / 170) / 4)
    assert report.relative_error["height"] == pytest.approx((5 / 160 + 5 / 170) / 4)


def test_a_plan_refuses_a_frame_whose_eps_quasis_changed():
    """The noise is drawn around the values the plan was decided on, row by row: a frame
    with the same towns but other heights would get another frame's noisy heights."""
    frame = pd.DataFrame({"town": ["A", "A", "B", "B"], "height": [160.0, 170.0, 180.0, 180.0]})
    plan = ke_decide(frame, 2, 2.0, qid=["town", "height"], eps_quasi=["height"])
    other = frame.assign(height=[150.0, 170.0, 180.0, 190.0])
    with pytest.raises(InvalidParameterError, match="^frame: its ε-quasi 'height' hold other"):
        plan.apply(other, Shift(), shuffle=False)
    missing = frame.assign(height=[160.0, None, 180.0, 180.0])
    with pytest.raises(InvalidParameterError, match="^frame: its ε-quasi 'height'"):
        plan.apply(missing, Shift(), shuffle=False)
    same = frame.assign(height=frame["height"].astype("Float64"))  # the same values
    assert plan.apply(same, Shift(), shuffle=False)["height"].tolist() == [
        165.0,
        175.0,
        180.0,
        180.0,
    ]


def test_several_eps_quasis_share_the_record_scale():
    """Two ε-quasis: the class's L1 diameter (the sum of the ranges) scales both."""
    frame = pd.DataFrame(
        {"sex": ["F"] * 3, "height": [150.0, 160.0, 155.0], "weight": [50.0, 70.0, 60.0]}
    )
    with pytest.warns(pandas_anon.OneClassWarning):
        plan = ke_decide(frame, 3, 1.0, qid=["sex", "height", "weight"])
    assert plan.eps_quasi == ("height", "weight")  # zero configuration: the numeric ones
    assert "numeric" in plan.choices["eps_quasi"]
    np.testing.assert_array_equal(plan.row_scale(), [30.0] * 3)


def test_missing_eps_quasi_values_stay_missing():
    frame = pd.DataFrame(
        {"town": ["A"] * 4, "height": pd.array([160, None, 170, 180], dtype="Int64")}
    )
    with pytest.warns(pandas_anon.OneClassWarning):
        out = ke_decide(frame, 2, 4.0, qid=["town", "height"]).apply(frame, Shift(), shuffle=False)
    assert out["height"].isna().tolist() == [False, True, False, False]
    assert out["height"].dropna().tolist() == [165.0, 175.0, 185.0]  # Δ 20 / ε 4


def test_the_same_seed_gives_the_same_release_and_another_seed_another():
    frame = pd.DataFrame({"town": list("AABBCC") * 5, "height": np.arange(30) + 150.0})
    one = pandas_anon.ke_anon(frame, 3, 1.0, qid=["town", "height"], seed=7)
    again = pandas_anon.ke_anon(frame, 3, 1.0, qid=["town", "height"], seed=7)
    other = pandas_anon.ke_anon(frame, 3, 1.0, qid=["town", "height"], seed=8)
    pd.testing.assert_frame_equal(one, again)
    assert not np.allclose(np.sort(one["height"]), np.sort(other["height"]))
    assert one.index.equals(pd.RangeIndex(30))  # shuffled rows get a new index
    assert "seed" not in str(one.attrs) or "not recorded" in str(one.attrs)
    assert "7" not in one.anon.report().random_source


def test_the_caller_frame_is_untouched():
    frame = pd.DataFrame({"town": list("AABB"), "height": [1.0, 2.0, 3.0, 4.0]})
    before = frame.copy(deep=True)
    with pytest.warns(pandas_anon.UtilityWarning):  # noise of 1 on values of 1 to 4
        frame.anon.ke_anon(2, 1.0, qid=["town", "height"], seed=1, alpha=0.9)
    pd.testing.assert_frame_equal(frame, before)


# -- Adult with a height: the predicted loss is the measured one on average ---------------


def adult_with_height(adult: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(2017)
    base = np.where(adult["sex"] == "Male", 176.0, 162.0)
    return adult.assign(height=np.round(base + rng.normal(0, 7, len(adult)), 1))


@pytest.mark.parametrize("algo", ["mondrian", "ola"])
def test_predicted_loss_matches_the_measured_error_over_thirty_runs(adult, algo):
    frame = adult_with_height(adult)
    qid = ["age", "sex", "race", "marital-status", "height"]
    plan = ke_decide(frame, 10, 1.0, qid=qid, eps_quasi=["height"], algo=algo, max_suppression=0.05)
    predicted = plan.predicted_loss()["height"]
    measured = [
        plan.apply(frame, pandas_anon.anonymization.noise.sources.SeededLaplace(run))
        .anon.report()
        .relative_error["height"]
        for run in range(30)
    ]
    assert np.mean(measured) == pytest.approx(predicted, rel=0.05)


# -- the verifiers: linking and α-confidence read from the input and the release ----------


def brute_force(frame, out, k_quasi, eps_quasi, eps, alpha, k):
    """Linking successes and α-confident removals, record by record, in plain Python (on a
    release with nothing suppressed). Linking reads the records holding every ε-quasi; α
    judges each record on the ε-quasis it holds, against the originals of its class holding
    them, in a box of confidence α (half-width b ln(1 / (1 - α^(1/d))) on each of d)."""
    found = release_classes(out, k_quasi, top=NEVER)
    classes = found["by_class"][k_quasi[0]].where(~found["masked"])
    scale = expected_scales(frame, out, k_quasi, eps_quasi, eps).tolist()
    original = frame[eps_quasi].astype(float).to_numpy().tolist()
    noisy = out[eps_quasi].astype(float).to_numpy().tolist()
    label = classes.tolist()
    members = {}
    for row, c in enumerate(label):
        if c == c:  # a class (NaN: none)
            members.setdefault(c, []).append(row)
    held = [[d for d, v in enumerate(values) if v == v] for values in original]
    successes, linkable, removed = 0.0, 0, set()
    for rows in members.values():
        complete = [r for r in rows if len(held[r]) == len(eps_quasi)]
        for row in complete:
            distance = {
                other: sum(abs(a - b) for a, b in zip(noisy[row], original[other]))
                for other in complete
            }
            nearest = min(distance.values())
            tied = [other for other, d in distance.items() if d == nearest]
            successes += (1 / len(tied)) if row in tied else 0.0
            linkable += 1
        for row in rows:
            dims = held[row]
            if not dims:
                continue
            radius = scale[row] * math.log(1 / (1 - alpha ** (1 / len(dims))))
            inside = sum(
                all(abs(noisy[row][d] - original[other][d]) <= radius for d in dims)
                for other in rows
                if all(original[other][d] == original[other][d] for d in dims)
            )
            if 1 <= inside < k:
                removed.add(row)
    for _, rows in classes.dropna().groupby(classes.dropna()):
        if len(set(rows.index) - removed) < k:
            removed |= set(rows.index)
    return successes / max(linkable, 1), removed


@st.composite
def frames(draw):
    n = draw(st.integers(2, 40))
    towns = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["float", "Int64", "int64", "float32", "uint8"]))
    if kind == "int64":
        values = draw(
            st.lists(
                st.one_of(st.integers(-50, 250), st.sampled_from([2**62, -(2**62)])),
                min_size=n,
                max_size=n,
            )
        )
        height = pd.Series(values, dtype="int64")
    elif kind == "uint8":
        height = pd.Series(
            draw(st.lists(st.integers(0, 255), min_size=n, max_size=n)), dtype="uint8"
        )
    else:
        values = draw(
            st.lists(
                st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.none()), min_size=n, max_size=n
            )
        )
        height = pd.Series(values, dtype="Float64" if kind == "Int64" else kind)
        if kind == "Int64":
            height = height.round().astype("Int64")
    data = {"town": pd.Series(towns, dtype="str"), "height": height}
    if draw(st.booleans()):
        data["weight"] = pd.Series(draw(st.lists(st.integers(40, 120), min_size=n, max_size=n)))
    return pd.DataFrame(data)


@settings(max_examples=EXAMPLES, deadline=None)
@given(frame=frames(), data=st.data())
def test_every_release_is_verified(frame, data):
    """Random frames (float, nullable Int64 with missing values, int64 near 2**62, float32,
    uint8; one or two ε-quasis; missing towns), Mondrian or OLA without suppression (so
    that ``*`` is a hierarchy's top, not a mask): the k-quasis are k-anonymous, each record's
    scale is Δ_C / ε of its class, the linking risk and the α-confident removals are those of
    the record-by-record verifier, and the same seed gives the same release."""
    eps_quasi = [c for c in frame.columns if c != "town"]
    if not frame.notna().any().all():
        with pytest.raises(AllMissingColumnError):
            ke_decide(frame, 1, 1.0, qid=list(frame.columns))
        return
    k = data.draw(st.integers(1, len(frame)), label="k")
    eps = data.draw(st.sampled_from([0.1, 1.0, 16.0]), label="eps")
    alpha = data.draw(st.sampled_from([0.5, 0.99]), label="alpha")
    algo = data.draw(st.sampled_from(["mondrian", "ola"]), label="algo")
    note(f"frame:\n{frame}\ndtypes {dict(frame.dtypes)}")
    before = frame.copy(deep=True)
    qid = list(frame.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = ke_decide(frame, k, eps, qid=qid, algo=algo)
        shifted = plan.apply(frame, Shift(), shuffle=False)
        noisy = pandas_anon.ke_anon(frame, k, eps, qid=qid, algo=algo, seed=3, shuffle=False)
        confident = pandas_anon.ke_anon(
            frame, k, eps, qid=qid, algo=algo, seed=3, shuffle=False,
            alpha=alpha,
        )  # fmt: skip
        again = pandas_anon.ke_anon(frame, k, eps, qid=qid, algo=algo, seed=3, alpha=alpha)
        same = pandas_anon.ke_anon(frame, k, eps, qid=qid, algo=algo, seed=3, alpha=alpha)
    pd.testing.assert_frame_equal(frame, before)
    pd.testing.assert_frame_equal(again, same)
    # k-anonymity of the k-quasis, read from the release (nothing is suppressed: no
    # max_suppression; Mondrian never suppresses)
    found = release_classes(noisy, ["town"], top=NEVER)
    assert (found["sizes"] >= k).all()
    assert noisy.anon.report().suppressed == 0
    # each record's noise scale: Δ_C / ε of its class (Shift writes value + scale), the
    # value then rounded (integer columns) and clamped into the domain the report gives
    scale = expected_scales(frame, shifted, ["town"], eps_quasi, eps)
    domains = shifted.anon.report().domain
    for column in eps_quasi:
        kept = scale.notna() & frame[column].notna()
        expected = frame[column].astype(float)[kept] + scale[kept]
        if pd.api.types.is_integer_dtype(frame[column].dtype):
            expected = np.rint(expected)
        expected = expected.clip(domains[column]["low"], domains[column]["high"])
        np.testing.assert_allclose(shifted[column][kept].astype(float), expected, rtol=1e-12)
        assert shifted[column][~kept].isna().all()
        zero = kept & (scale == 0)
        np.testing.assert_array_equal(
            noisy[column][zero].astype(float), frame[column].astype(float)[zero]
        )  # no noise where the class does not vary
    event(f"{len(eps_quasi)} ε-quasi(s)")
    risk, removed = brute_force(frame, noisy, ["town"], eps_quasi, eps, alpha, k)
    report = confident.anon.report()
    assert report.linking_risk == pytest.approx(risk, abs=1e-12)
    assert report.alpha_suppressed == len(removed)
    gone = sorted(removed)
    assert confident.loc[gone, eps_quasi].isna().all().all()
    assert (confident.loc[gone, "town"] == "*").all()
    kept = noisy.index.difference(gone)
    pd.testing.assert_frame_equal(confident.loc[kept], noisy.loc[kept], check_dtype=False)


# -- the seeded source ----------------------------------------------------------------------


def test_the_seeded_source_draws_laplace_noise_of_the_scale():
    """E|Lap(b)| = b, the median is the value, and the tails are Laplace's: P(|X| > b ln 20)
    = 1/20 (200,000 draws: each figure within five standard errors)."""
    values = np.full(200_000, 100.0)
    noise = SeededLaplace(1).perturb(values, np.full(200_000, 2.0), np.arange(200_000), 0) - 100
    assert abs(np.mean(np.abs(noise)) - 2.0) < 5 * 2.0 / math.sqrt(200_000)
    assert abs(np.median(noise)) < 0.02
    tail = np.mean(np.abs(noise) > 2.0 * math.log(20))
    assert abs(tail - 0.05) < 5 * math.sqrt(0.05 * 0.95 / 200_000)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    n=st.integers(1, 300),
    cuts=st.lists(st.integers(0, 300), max_size=4),
    stream=st.integers(0, 3),
)
def test_the_seeded_source_gives_each_row_its_draw_however_the_rows_are_cut(seed, n, cuts, stream):
    """A row's noise and order key are those of its position: drawing the frame in pieces
    (a Dask frame's partitions), or only some rows, gives each row what drawing the whole
    frame at once gives it; another stream, other draws."""
    source = SeededLaplace(seed)
    values, scales, positions = np.zeros(n), np.ones(n), np.arange(n)
    whole = source.perturb(values, scales, positions, stream)
    keys = source.order_keys(positions)
    bounds = sorted({0, n, *(c for c in cuts if c < n)})
    pieces = [slice(a, b) for a, b in zip(bounds, bounds[1:])]
    np.testing.assert_array_equal(
        np.concatenate(
            [source.perturb(values[p], scales[p], positions[p], stream) for p in pieces]
        ),
        whole,
    )
    np.testing.assert_array_equal(
        np.concatenate([source.order_keys(positions[p]) for p in pieces]), keys
    )
    odd = positions[1::2]
    np.testing.assert_array_equal(source.perturb(values[odd], scales[odd], odd, stream), whole[odd])
    if n > 1:
        assert not np.array_equal(source.perturb(values, scales, positions, stream + 1), whole)
    assert ((keys >= 0) & (keys < 1)).all()


# -- the secure source ----------------------------------------------------------------------


def test_the_secure_source_adds_laplace_noise_of_the_scale():
    values = np.full(20_000, 100.0)
    noisy = SecureLaplace().perturb(values, np.full(20_000, 2.0), np.arange(20_000), 0)
    assert abs(np.mean(np.abs(noisy - values)) - 2.0) < 0.1  # E|Lap(2)| = 2
    assert abs(np.median(noisy) - 100.0) < 0.1
    unchanged = SecureLaplace().perturb(values[:5], np.zeros(5), np.arange(5), 0)
    np.testing.assert_array_equal(unchanged, values[:5])


def test_secure_releases_differ_and_say_where_the_noise_came_from():
    frame = pd.DataFrame({"town": list("AABB") * 3, "height": np.arange(12) + 150.0})
    one = pandas_anon.ke_anon(frame, 3, 1.0, qid=["town", "height"], secure=True)
    two = pandas_anon.ke_anon(frame, 3, 1.0, qid=["town", "height"], secure=True)
    assert not np.array_equal(np.sort(one["height"]), np.sort(two["height"]))
    assert "OpenDP" in one.anon.report().random_source


def test_secure_without_opendp_says_what_to_install(without):
    without("opendp")
    with pytest.raises(MissingDependencyError, match=r"pandas-anon\[dp\]"):
        SecureLaplace()


# -- bad input ----------------------------------------------------------------------------

FRAME = pd.DataFrame({"town": list("AABB"), "height": [1.0, 2.0, 3.0, 4.0], "name": list("wxyz")})


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"eps": 0}, InvalidParameterError, "eps must be a finite number above 0"),
        ({"eps": -1.0}, InvalidParameterError, "eps must be a finite number above 0"),
        ({"eps": float("inf")}, InvalidParameterError, "eps must be a finite number above 0"),
        ({"eps": float("nan")}, InvalidParameterError, "eps must be a finite number above 0"),
        (
            {"eps_quasi": ["town"]},
            InvalidParameterError,
            "ε-quasi 'town' holds (str|object) values, not numbers",
        ),
        ({"eps_quasi": ["heigth"]}, ColumnNotFoundError, "heigth"),
        ({"qid": ["town"], "eps_quasi": ["height"]}, InvalidParameterError, "not in qid"),
        ({"qid": ["town", "name"]}, InvalidParameterError, "no numeric column"),
        ({"qid": ["height"]}, InvalidParameterError, "no column is left to k-anonymize"),
        (
            {"hierarchies": {"height": "intervals"}},
            InvalidParameterError,
            "ε-quasi .* is noised, not generalized",
        ),
        ({"alpha": 1.0}, InvalidParameterError, "alpha must be a confidence strictly between"),
        ({"alpha": 0}, InvalidParameterError, "alpha must be a confidence strictly between"),
        ({"alpha": 1.5}, InvalidParameterError, "alpha must be a fraction"),
        ({"seed": 1, "secure": True}, InvalidParameterError, "exclude each other"),
        ({"seed": "1"}, InvalidParameterError, "seed must be a whole number"),
        ({"shuffle": "yes"}, InvalidParameterError, "shuffle must be True or False"),
        ({"seed": -1}, InvalidParameterError, "seed must be a whole number of at least 0"),
        ({"eps": 1e-320}, InvalidParameterError, "eps=.* is too small"),
    ],
)
def test_bad_input_says_what_and_how_to_fix(options, error, match):
    options = {"eps": 1.0, "qid": ["town", "height"], **options}
    eps = options.pop("eps")
    with pytest.raises(error, match=match):
        pandas_anon.ke_anon(FRAME, 2, eps, **options)


def test_an_all_missing_eps_quasi_is_refused():
    frame = FRAME.assign(height=np.nan)
    with pytest.raises(AllMissingColumnError, match="'height' holds only missing values"):
        pandas_anon.ke_anon(frame, 2, 1.0, qid=["town", "height"], eps_quasi=["height"])


# -- the searches on their own: ties and boundaries everywhere ------------------------------


def pairwise(group, original, noisy, radius):
    """Linking chances and in-box counts by comparing every pair of a class (the
    definitions, quadratic)."""
    same = group[:, None] == group[None, :]
    gap = np.abs(noisy[:, None, :] - original[None, :, :])
    distance = np.where(same, gap.sum(axis=2), np.inf)
    nearest = distance.min(axis=1)
    tied = (distance == nearest[:, None]).sum(axis=1)
    own = np.diagonal(distance) == nearest
    inside = (same & (gap.max(axis=2) <= radius[:, None])).sum(axis=1)
    return np.where(own, 1.0 / tied, 0.0), inside


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    n=st.integers(1, 120),
    dims=st.integers(1, 3),
    classes=st.integers(1, 4),
    grid=st.sampled_from([1, 3, 50]),
    huge=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_searches_agree_with_every_pair_compared(n, dims, classes, grid, huge, seed):
    """Integer grids put many originals at equal distances and on box edges, and values
    near 2**62 make distances that rounding cannot tell apart: the sorted search (one
    ε-quasi) and the k-d tree (several) give the pairwise answers exactly."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, classes, n)
    original = rng.integers(0, grid, (n, dims)).astype(float)
    noisy = original + rng.integers(-grid, grid + 1, (n, dims))
    if huge:
        original[rng.random((n, dims)) < 0.2] = 2.0**62
        noisy += rng.laplace(0, 2.0**60, (n, dims)).round(-15)
    radius = rng.integers(0, grid + 1, n).astype(float)
    expected_links, expected_inside = pairwise(group, original, noisy, radius)
    np.testing.assert_array_equal(linked(group, original, noisy), expected_links)
    np.testing.assert_array_equal(within(group, original, noisy, radius), expected_inside)


def test_an_eps_quasi_named_mean_is_refused():
    frame = pd.DataFrame({"town": list("AABB"), "mean": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InvalidParameterError, match="named 'mean'"):
        pandas_anon.ke_anon(frame, 2, 1.0, qid=["town", "mean"])


def test_apply_checks_its_options():
    plan = ke_decide(FRAME, 2, 1.0, qid=["town", "height"])
    with pytest.raises(InvalidParameterError, match="alpha must be a confidence"):
        plan.apply(FRAME, Shift(), alpha=1.0)
    with pytest.raises(InvalidParameterError, match="suppress"):
        plan.apply(FRAME, Shift(), suppress="Drop")


@pytest.mark.parametrize("dtype", ["int64", "category", "Int64", "float64"])
def test_alpha_suppression_writes_star_whatever_the_k_quasi_dtype(dtype):
    """A k-quasi that k-anonymity leaves as it was keeps its dtype until α-confidence
    suppresses a record: then it holds '*' beside its values."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"group": pd.Series(np.repeat([30, 40, 50, 60], 10)).astype(dtype),
         "height": rng.normal(170, 10, 40).round(0)}
    )  # fmt: skip
    out = pandas_anon.ke_anon(
        frame, 3, 50.0, qid=["group", "height"], eps_quasi=["height"], alpha=0.99, seed=0
    )
    report = out.anon.report()
    assert report.alpha_suppressed > 0
    gone = out["height"].isna()
    assert (out.loc[gone, "group"] == "*").all()
    assert (out.loc[~gone, "group"] != "*").all()


def test_classes_are_those_the_k_anonymization_keeps():
    """Rows the k-anonymization suppresses form no class of their own (no phantom class
    of diameter 0 in the report)."""
    frame = pd.DataFrame(
        {"zip": ["a"] + ["b"] * 5 + ["c"] * 5,
         "h": [150.0, 160, 161, 162, 163, 164, 170, 171, 172, 173, 174]}
    )  # fmt: skip
    plan = ke_decide(frame, 5, 1.0, qid=["zip", "h"], algo="ola", max_suppression=0.1)
    np.testing.assert_array_equal(plan.row_class, [-1] + [0] * 5 + [1] * 5)
    report = plan.apply(frame, Shift(), shuffle=False).anon.report()
    assert report.classes == 2 and report.noiseless_classes == 0
    assert report.diameter == {"min": 4.0, "median": 4.0, "max": 4.0}


def test_no_kept_value_to_noise_is_no_crash():
    frame = pd.DataFrame({"zip": ["a"] * 18 + ["b", "c"], "h": [np.nan] * 18 + [170.0, 180.0]})
    with pytest.warns(pandas_anon.OneClassWarning):
        out = pandas_anon.ke_anon(
            frame, 3, 1.0, qid=["zip", "h"], algo="ola", max_suppression=0.2, seed=0, alpha=0.9
        )
    assert out.anon.report().linking_risk == 0.0
    assert out["h"].isna().all()


def test_the_box_of_several_eps_quasis_has_confidence_alpha():
    """With d ε-quasis the half-width is b ln(1 / (1 - α^(1/d))): the original falls in the
    box with probability α (measured on 200,000 draws)."""
    from pandas_anon.anonymization.noise.ke import _box_half_width

    rng = np.random.default_rng(1)
    for d in (1, 2, 3):
        noise = rng.laplace(0, 1, (200_000, d))
        inside = (np.abs(noise) <= _box_half_width(0.99, d)).all(axis=1).mean()
        assert inside == pytest.approx(0.99, abs=0.002)


# -- what the gate passes, and numbers that are not real ------------------------------------


def test_zero_configuration_protects_every_k_quasi_together(adult, tmp_path):
    """Without qid, the quasi-identifiers are every released column: the numeric one (age)
    is noised inside its domain and stays integer (with a warning naming the ε that would
    keep its predicted error under 50 %), the 8 others are 5-anonymous together (checked by
    plain pandas), and ``check --qid <the k-quasis> --k 5`` passes the release; a release
    with named quasi-identifiers passes the check so configured."""
    from pandas_anon.cli.main import main

    with pytest.warns(pandas_anon.UtilityWarning, match="'age'.*eps=2.3 or more"):
        out = pandas_anon.ke_anon(adult, 5, 1.0, seed=0)  # 8 k-quasis: wide classes
    report = out.anon.report()
    k_quasis = [c for c in adult.columns if c != "age"]
    assert report.choices["qid"].startswith("every released column (9 columns")
    assert report.choices["eps_quasi"] == "the numeric quasi-identifiers: age"
    assert out["age"].dtype == adult["age"].dtype
    assert out["age"].between(0, 100).all()  # the default domain, [0, 100]
    masked = (out[k_quasis].astype(str) == "*").all(axis=1)
    assert out.loc[~masked, k_quasis].astype(str).groupby(k_quasis).size().min() >= 5
    path = tmp_path / "zero.csv"
    out.to_csv(path, index=False)
    assert main(["check", str(path), "--k", "5", "--qid", ",".join(k_quasis)]) == 0
    with pytest.warns(pandas_anon.UtilityWarning, match="'age'"):
        out = pandas_anon.ke_anon(
            adult, 5, 1.0, qid=["age", "education", "occupation"], eps_quasi=["age"], seed=0
        )
    path = tmp_path / "release.csv"
    out.to_csv(path, index=False)
    assert main(["check", str(path), "--k", "5", "--qid", "education,occupation"]) == 0
    assert main(["check", str(path), "--k", "5"]) == 1  # zero configuration: age alone


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("eps_quasi", [None, ["z"]])
def test_a_complex_eps_quasi_is_refused_not_cut_to_its_real_part(dtype, eps_quasi):
    frame = pd.DataFrame(
        {"sex": list("FFFMMM"), "z": np.array([1 + 1j, 2 + 2j, 3, 4, 5, 6j], dtype=dtype)}
    )
    with pytest.raises(InvalidParameterError) as refused:
        ke_decide(frame, 3, 1.0, qid=["sex", "z"], eps_quasi=eps_quasi)
    assert str(refused.value) == (
        f"ε-quasi 'z' holds complex numbers ({dtype}): Laplace noise needs real numbers, and "
        f"reading these as real would drop their imaginary part; split the column into two "
        f"real ones (its .real and .imag parts) to noise them, or name the ε-quasis without "
        f"it (eps_quasi=)"
    )


@pytest.mark.parametrize("values", [[1.5, 2, 3, 4, 5, 6], [1 + 1j, 2, 3, 4, 5, 6]])
def test_numbers_held_as_objects_are_refused_saying_how_to_convert(values):
    frame = pd.DataFrame({"sex": list("FFFMMM"), "z": pd.Series(values, dtype=object)})
    with pytest.raises(InvalidParameterError, match=r"ε-quasi 'z' holds object values.*"
                       r"convert it \(pd.to_numeric\) if it holds numbers"):  # fmt: skip
        pandas_anon.ke_anon(frame, 3, 1.0, qid=["sex", "z"], eps_quasi=["z"], seed=0)
