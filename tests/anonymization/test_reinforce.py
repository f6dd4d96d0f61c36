"""Lan et al.'s decision-tree privacy reinforcement (``reinforce``, ``algo="tree"``): the
paper's 13-row example, every release verified on random frames, the trees checked against
a brute-force search, the masks, and UCI Adult."""

from __future__ import annotations

import contextlib
import re
import signal
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import (
    InfeasibleError,
    InvalidParameterError,
    KAnonymity,
    LDiversity,
    TCloseness,
    TreeReinforcement,
)
from pandas_anon.anonymization.mondrian.dimensions import dimension
from pandas_anon.anonymization.reinforcement import mates
from pandas_anon.anonymization.reinforcement.forest import grow
from pandas_anon.anonymization.reinforcement.masks import (
    ColumnMask,
    _short_decimal,
    _short_integer,
)
from pandas_anon.engine.backends.pandas import tabulate

from test_local import GOALS, breaks_l, input_classes
from test_properties_algorithms import (
    TOP,
    calls,
    cases,
    comparable,
    examples,
    limit_of,
    released,
    run,
    same_values,
)
from verify import release_classes, verify_l_diverse, verify_t_close

pytestmark = pytest.mark.filterwarnings("ignore::pandas_anon.IncompleteRowsWarning")

#: Lan et al., Figure 2 (and 7): the original dataset, Disease sensitive
LAN = pd.DataFrame(
    [
        ("F", 62, "11073", 29.1, "Diabetes"),
        ("F", 55, "11058", 24.7, "Hypertension"),
        ("M", 61, "11059", 30.8, "Diabetes"),
        ("F", 66, "11059", 29.7, "Diabetes"),
        ("M", 48, "11073", 26.1, "Stroke"),
        ("F", 56, "11046", 25.5, "Stroke"),
        ("M", 56, "11058", 27.4, "Stroke"),
        ("F", 42, "11046", 25.6, "Hypertension"),
        ("M", 66, "11073", 29.5, "Stroke"),
        ("M", 48, "11058", 28.5, "Stroke"),
        ("F", 68, "11073", 32.9, "Diabetes"),
        ("M", 56, "11046", 27.1, "Hypertension"),
        ("F", 68, "11059", 29.5, "Diabetes"),
    ],
    columns=["Gender", "Age", "ZIP", "BMI", "Disease"],
)
LAN_QID = ["Gender", "Age", "ZIP", "BMI"]
#: Figure 2's refined table masks every cell of the four quasi-identifiers
FIGURE_2_MASKED = 52


def masked_cells(frame: pd.DataFrame, out: pd.DataFrame, qid: list) -> int:
    return int(sum((~same_values(out[c], frame[c])).sum() for c in qid))


def test_lan_et_al_example_is_2_diverse_with_fewer_masks_than_figure_2():
    """The 13 rows of Figure 2, 2-diversity on Disease: five classes (docs/reinforce.md
    compares them with Figure 7), 46 cells masked where Figure 2's refined table masks 52."""
    out = LAN.anon.reinforce(
        LDiversity(2), sensitive="Disease", qid=LAN_QID, hierarchies={"ZIP": "builtin.mask"}
    )
    expected = pd.DataFrame(
        {
            "Gender": ["*"] * 13,
            "Age": ["[56, 63)", "[43, 56)", ">= 60", ">= 60", "< 50", 56, "[56, 63)",
                    "< 50", ">= 60", "[43, 56)", ">= 60", 56, ">= 60"],
            "ZIP": ["110**", "11058", "110**", "110**", "110**", "11046", "110**", "110**",
                    "110**", "11058", "110**", "11046", "110**"],
            "BMI": ["[27.2, 29.6)", "< 29.6", ">= 27.2", ">= 27.2", "[25.6, 27.2)", "< 27.2",
                    "[27.2, 29.6)", "[25.6, 27.2)", ">= 27.2", "< 29.6", ">= 27.2", "< 27.2",
                    ">= 27.2"],
            "Disease": LAN["Disease"],
        }
    )  # fmt: skip
    pd.testing.assert_frame_equal(out.astype(object), expected.astype(object))
    verify_l_diverse(out, LAN_QID, "Disease", 2)
    found = release_classes(out, LAN_QID)
    assert len(found["sizes"]) == 5
    report = out.anon.report()
    assert masked_cells(LAN, out, LAN_QID) == report.search["cells_masked"] == 46
    assert report.search["cells_masked"] < FIGURE_2_MASKED
    assert report.privacy == {"k": 2.0, "distinct l": 2.0}
    pd.testing.assert_frame_equal(LAN, LAN.copy())  # never mutated (below: same call twice)
    again = LAN.anon.reinforce(
        LDiversity(2), sensitive="Disease", qid=LAN_QID, hierarchies={"ZIP": "builtin.mask"}
    )
    pd.testing.assert_frame_equal(again, out)


@pytest.mark.parametrize("goal", [LDiversity(2), TCloseness(0.4)])
def test_sparse_histograms_give_the_release_dense_ones_give(monkeypatch, goal):
    """Wide sensitive columns keep the units' histograms sparse (scipy): same release."""
    options = {"sensitive": "Disease", "qid": LAN_QID, "hierarchies": {"ZIP": "builtin.mask"}}
    dense = LAN.anon.reinforce(goal, **options)
    monkeypatch.setattr(mates, "_DENSE_CELLS", 0)
    sparse = LAN.anon.reinforce(goal, **options)
    pd.testing.assert_frame_equal(sparse, dense)


def test_only_the_records_of_singular_paths_are_masked():
    """Two rows alike with two diseases form a 2-diverse class: untouched; the rest of the
    table (all at risk) is reinforced around them."""
    safe = pd.DataFrame([("F", 40, "11000", 22.0, "Stroke"), ("F", 40, "11000", 22.0, "Flu")])
    safe.columns = LAN.columns
    frame = pd.concat([LAN, safe], ignore_index=True)
    out = frame.anon.reinforce(LDiversity(2), sensitive="Disease", qid=LAN_QID)
    verify_l_diverse(out, LAN_QID, "Disease", 2)
    pd.testing.assert_frame_equal(out.iloc[13:], frame.iloc[13:], check_dtype=False)
    assert out.anon.report().search["rows_at_risk"] == 13


def test_the_paper_utility_written_as_a_function_gives_the_same_release():
    """The vectorized default and the same utility called once per candidate agree."""
    plain = LAN.anon.reinforce(KAnonymity(3), sensitive="Disease", qid=LAN_QID)
    called = LAN.anon.reinforce(
        KAnonymity(3), sensitive="Disease", qid=LAN_QID,
        utility=lambda mate: pandas_anon.paper_utility(mate),
    )  # fmt: skip
    pd.testing.assert_frame_equal(plain, called)


def test_a_utility_of_ones_own_reads_the_mate():
    """A utility that only counts rows sees every candidate as a Mate."""
    seen = []

    def fewest_rows(mate: pandas_anon.Mate) -> float:
        seen.append(mate)
        return -mate.rows

    out = LAN.anon.reinforce(LDiversity(2), sensitive="Disease", qid=LAN_QID, utility=fewest_rows)
    verify_l_diverse(out, LAN_QID, "Disease", 2)
    assert seen and all(isinstance(m, pandas_anon.Mate) for m in seen)
    assert all(set(m.differing) <= set(LAN_QID) and m.paths >= 1 for m in seen)
    mate = pandas_anon.Mate(4, 2, {"Age": 1, "BMI": 1})
    assert (mate.distance, pandas_anon.paper_utility(mate)) == (2, 1 / 8)
    assert mate.masking("Age").distance == 1


def test_bad_input_is_refused_with_the_fix():
    with pytest.raises(InvalidParameterError, match="pass sensitive=<column>"):
        LAN.anon.kanon(2, qid=LAN_QID, algo="tree")
    with pytest.raises(InvalidParameterError, match="max_depth must be a positive"):
        TreeReinforcement(max_depth=0)
    with pytest.raises(InvalidParameterError, match="utility must be a function"):
        TreeReinforcement(utility=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="goal must be KAnonymity"):
        LAN.anon.reinforce(2, sensitive="Disease", qid=LAN_QID)
    with pytest.raises(InvalidParameterError, match="two KAnonymity"):
        LAN.anon.reinforce([KAnonymity(2), KAnonymity(3)], sensitive="Disease", qid=LAN_QID)
    with pytest.raises(InfeasibleError, match="whole table"):
        LAN.anon.reinforce(LDiversity(4), sensitive="Disease", qid=LAN_QID)


def test_a_leftover_is_suppressed_within_the_limit_or_joins_the_classes_around_it():
    """One row at risk alone (no other to mate with): suppressed when the limit allows,
    else it joins the nearest class (the report counts the rows that were safe)."""
    frame = pd.DataFrame({"town": list("AAABBC"), "s": list("xyxyxx")})
    out = frame.anon.reinforce(LDiversity(2), sensitive="s", qid=["town"], max_suppression=0.2)
    assert out["town"].tolist() == ["A", "A", "A", "B", "B", "*"]
    assert out.anon.report().suppressed == 1
    out = frame.anon.reinforce(LDiversity(2), sensitive="s", qid=["town"])
    verify_l_diverse(out, ["town"], "s", 2)
    report = out.anon.report()
    assert report.suppressed == 0 and report.search["rows_safe_joined"] in (2, 3)
    assert (out["town"] == "*").sum() == 1 + report.search["rows_safe_joined"]


def test_shallow_trees_still_meet_the_goal():
    out = LAN.anon.reinforce(
        [KAnonymity(2), LDiversity(2)], sensitive="Disease", qid=LAN_QID, max_depth=1
    )
    verify_l_diverse(out, LAN_QID, "Disease", 2)
    assert release_classes(out, LAN_QID)["sizes"].min() >= 2


# -- the trees ---------------------------------------------------------------------------


def _gini_score(y: np.ndarray, w: np.ndarray, m: int) -> float:
    counts = np.bincount(y, weights=w, minlength=m)
    return float((counts**2).sum() / counts.sum())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 80), trees=st.integers(1, 3))
def test_every_split_is_the_best_gini_split_and_leaves_are_single_classes(seed, n, trees):
    """Brute force: each supervised split maximizes the weighted Gini criterion over every
    usable column and threshold; each pure node is cut at a weighted median; each leaf
    holds one combination of its tree's usable columns."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, (n, 3))
    y = rng.integers(0, 3, n)
    w = rng.integers(1, 5, n).astype(float)
    tree = rng.integers(0, trees, n)
    usable = rng.random((trees, 3)) < 0.7
    forest = grow(x, y, w, tree, usable)
    members: dict[int, list[int]] = {}
    for i, leaf in enumerate(forest.leaf.tolist()):
        node = leaf
        while node >= 0:
            members.setdefault(node, []).append(i)
            node = int(forest.parent[node])
    for node, rows in members.items():
        rows_ = np.array(rows)
        columns = np.flatnonzero(usable[forest.tree[node]])
        if forest.column[node] < 0:
            assert all(len(np.unique(x[rows_, c])) == 1 for c in columns)
            continue
        c, threshold = forest.column[node], forest.threshold[node]
        assert usable[forest.tree[node], c]
        left, right = rows_[x[rows_, c] <= threshold], rows_[x[rows_, c] > threshold]
        assert set(left) == set(members[forest.left[node]])
        assert set(right) == set(members[forest.right[node]])
        if not forest.supervised[node]:
            assert len(np.unique(y[rows_])) == 1
            continue
        score = _gini_score(y[left], w[left], 3) + _gini_score(y[right], w[right], 3)
        best = max(
            _gini_score(y[rows_[x[rows_, j] <= v]], w[rows_[x[rows_, j] <= v]], 3)
            + _gini_score(y[rows_[x[rows_, j] > v]], w[rows_[x[rows_, j] > v]], 3)
            for j in columns
            for v in np.unique(x[rows_, j])[:-1]
        )
        assert score == pytest.approx(best, rel=1e-12)


def test_thresholds_print_short_numbers_between_two_values():
    assert [_short_integer(62, 66), _short_integer(55, 56), _short_integer(40, 60)] == [63, 56, 50]
    assert _short_integer(-(2**63), 2**63 - 1) == 0
    assert [_short_decimal(24.7, 25.5), _short_decimal(27.1, 27.4)] == ["25", "27.2"]
    assert _short_decimal(0.001, 0.0012) == "0.0011"


def test_a_range_holds_every_value_it_masks():
    frame = pd.DataFrame({"x": [1.5, 2.5, 3.5, 10.0, None], "s": list("abcde")})
    frequencies = tabulate(frame, ["x"]).frequencies
    mask = ColumnMask(dimension(frequencies, "x", None))
    rank = mask.dimension.rank
    mask.add_cuts([0, 2])  # after 1.5 and after 3.5
    labels, levels = mask.mask(np.array([1, 1, 0]), np.array([2, 4, 1]))
    assert labels.tolist() == ["[2, 10)", ">= 2 or missing", "< 10"]  # 10: the roundest
    assert levels.tolist() == [0, 0, 0] and len(rank) == 5


# -- every release verified on random frames ----------------------------------------------


@pytest.mark.parametrize("goal", list(GOALS))
@examples
@given(data=st.data())
def test_every_reinforced_release_meets_its_goal_and_leaves_safe_rows_alone(goal, data):
    """``EXAMPLES`` random frames per goal (k-anonymity, l-diversity in its three variants,
    t-closeness): the release meets it (independent verifiers), the rows of classes that met
    it are untouched (unless a lone leftover had to join them), the frame is not modified
    and the same call gives the same release."""
    case = data.draw(cases(sensitive=True), label="case")
    l, t = data.draw(GOALS[goal], label="model")  # noqa: E741
    call = replace(data.draw(calls(case), label="call"), l=l, t=t)
    frame = case.frame()
    note(f"frame:\n{frame}\ndtypes: {dict(frame.dtypes)}")
    qid, n = case.qid, len(frame)
    options = {**call.options(case, "tree"), "sensitive": "s"}
    options.pop("metric")
    found = released(frame, case, call, options, lambda: breaks_l(frame, call))
    if found is None:
        return
    out, _ = found
    report = out.anon.report()
    found = release_classes(out, qid, top=TOP)
    masked = found["masked"].to_numpy()
    assert (found["sizes"] >= call.k).all()
    # suppressed rows read '*' everywhere; a kept class may be written '*' everywhere too
    assert report.suppressed <= masked.sum() and report.suppressed <= limit_of(
        call.max_suppression, n
    )
    if call.l is not None or call.t is not None:
        top = "\0never" if not report.suppressed else TOP
        view = found["by_class"].assign(s=comparable(frame["s"]).array)
        if call.l is not None:
            model = call.l_model()
            verify_l_diverse(view, qid, "s", model.l, model.variant, model.c, top=top)
        if call.t is not None:
            model = call.t_model(frame)
            verify_t_close(view, qid, "s", model.t, ordered=model.ordered, whole=view["s"], top=top)
    safe = input_classes(frame, case, call).to_numpy()
    changed = ~np.logical_and.reduce([same_values(out[c], frame[c]) for c in qid])
    joined = report.search["rows_safe_joined"]
    event("safe rows joined" if joined else "no safe row joined")
    event("nothing at risk" if not report.search["rows_at_risk"] else "rows at risk")
    assert (changed & safe).sum() <= joined
    assert report.search["rows_at_risk"] == (~safe).sum()
    assert report.modified == changed.sum()
    again, _ = run(frame, call.k, **options)
    pd.testing.assert_frame_equal(again, out)


# -- real data ---------------------------------------------------------------------------


@pytest.mark.slow
def test_adult_2_diverse_on_salary(adult, hierarchies):
    """UCI Adult, the 8 quasi-identifiers besides salary-class, 2-diversity on it: every
    class 2-diverse (independent verifier), only the 23,430 rows at risk masked."""
    qid = [c for c in hierarchies if c != "salary-class"]
    chosen = {c: hierarchies[c] for c in qid}
    out = adult.anon.reinforce(LDiversity(2), sensitive="salary-class", qid=qid, hierarchies=chosen)
    verify_l_diverse(out, qid, "salary-class", 2)
    report = out.anon.report()
    changed = ~np.logical_and.reduce([same_values(out[c], adult[c]) for c in qid])
    assert report.search["rows_at_risk"] == 23430 == report.search["rows_masked"]
    assert changed.sum() == report.modified <= 23430
    assert report.suppressed == 0 and report.search["rows_safe_joined"] == 0
    assert report.search["cells_masked"] == masked_cells(adult, out, qid)


@contextlib.contextmanager
def _within(seconds: int):
    """Fail the block (TimeoutError) when it runs longer than ``seconds``."""

    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _forty_patients() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 80, 40),
            "town": rng.choice(["a", "b", "c", "d"], 40),
            "sex": rng.choice(["F", "M"], 40),
            "disease": rng.choice(["x", "y", "z"], 40),
        }
    )


def test_a_utility_returning_nan_is_refused_not_looped_on():
    """A NaN utility ranked no column best, so each round masked a column that changed
    nothing and the rounds never ended (over 10 minutes on 40 rows)."""
    with (
        _within(60),
        pytest.raises(InvalidParameterError, match="^utility must .* it returned NaN"),
    ):
        _forty_patients().anon.reinforce(
            KAnonymity(3),
            sensitive="disease",
            qid=["age", "town", "sex"],
            utility=lambda mate: float("nan"),
        )


@pytest.mark.parametrize(
    ("returned", "named"),
    [("1.5", "str"), (None, "NoneType"), (1j, "complex"), (True, "bool"), (np.nan, "NaN")],
)
def test_a_utility_that_is_not_a_real_number_is_refused(returned, named):
    """Text, None and complex numbers raised float()'s own errors; a boolean was taken for a
    number. An infinity ranks as the best or worst there is (the paper's utility is infinite
    for a mate whose paths no longer differ): accepted, and the goal is met."""
    frame = _forty_patients()
    options = {"sensitive": "disease", "qid": ["age", "town", "sex"]}
    with (
        _within(60),
        pytest.raises(InvalidParameterError, match=f"it returned .*{named}") as caught,
    ):
        frame.anon.reinforce(KAnonymity(3), utility=lambda mate: returned, **options)
    assert "utility" in str(caught.value) and "paper_utility" in str(caught.value)
    for infinity in (np.inf, -np.inf):
        out = frame.anon.reinforce(
            KAnonymity(3), utility=lambda mate, value=infinity: value, **options
        )
        assert out.groupby(options["qid"], dropna=False).size().min() >= 3


def test_threshold_ranges_near_two_to_the_62_hold_their_values():
    """The columns were ranked as floats (Mondrian's dimensions, shared): near 2**62 whole
    numbers tied or swapped, and 137 of 200 rows were written with a range leaving them
    out. Each row's range holds its value, bounds read as exact integers."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "v": (2**62 + rng.integers(0, 5000, 200)).astype("int64"),
            "s": rng.choice(["a", "b"], 200),
            "d": rng.choice(["x", "y", "z"], 200),
        }
    )
    out = frame.anon.reinforce(KAnonymity(5), sensitive="d", qid=["v", "s"])
    ranges = 0
    for value, written in zip(frame["v"].tolist(), out["v"].tolist()):
        if written == value or written == "*":
            continue
        ranges += 1
        bounded = re.fullmatch(r"\[(\d+), (\d+)\)", written)
        if bounded:
            assert int(bounded[1]) <= value < int(bounded[2]), (written, value)
        elif written.startswith("< "):
            assert value < int(written[2:]), (written, value)
        else:
            assert written.startswith(">= ") and value >= int(written[3:]), (written, value)
    assert ranges > 100
