"""Mondrian (LeFevre, DeWitt, Ramakrishnan 2006): hand-worked partitions, Adult against the
Python peers' figures, bad input, and every release of random frames checked by the
independent verifier."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import Hierarchy
from pandas_anon.anonymization.mondrian import partition
from pandas_anon.anonymization.mondrian.algorithm import Mondrian
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES, load_driver_licenses
from pandas_anon.errors import (
    AllMissingColumnError,
    HierarchyError,
    InfeasibleError,
    InvalidParameterError,
    OneClassWarning,
)

from test_properties_algorithms import (
    calls,
    cases,
    comparable,
    examples,
    released,
    run,
    same_values,
)
from verify import release_classes, verify_anonymized, verify_gcp, verify_l_diverse, verify_t_close

NEVER = "\0never"  # Mondrian suppresses nothing: no row is read as masked


def boxes(out: pd.DataFrame, qid: list) -> list[tuple]:
    """The written classes, as sorted tuples of the values written (with their row count)."""
    sizes = out.groupby(qid, dropna=False, sort=False).size()
    return sorted(
        ((*key, int(n)) for key, n in sizes.items()), key=lambda box: tuple(map(str, box))
    )


# -- hand-worked partitions ----------------------------------------------------------------


def test_one_dimension_is_cut_at_its_medians():
    """Ages 20..27, one row each, k = 2. Root: 8 rows, the weighted median is 23 (the
    smallest age reaching 4 rows): 20-23 | 24-27. Each half: medians 21 and 25: 20-21 | 22-23
    and 24-25 | 26-27. Each pair: the median cut leaves one row a side (< k): leaves."""
    frame = pd.DataFrame({"age": range(20, 28)})
    out = pandas_anon.kanon(frame, 2, qid=["age"], algo="mondrian")
    assert (
        out["age"].tolist() == ["[20-21]"] * 2 + ["[22-23]"] * 2 + ["[24-25]"] * 2 + ["[26-27]"] * 2
    )
    report = out.anon.report()
    assert (report.classes, report.k_reached, report.suppressed) == (4, 2, 0)
    assert report.search["partitions"] == 4


def test_the_widest_normalized_dimension_is_cut_first():
    """Ages 10, 20, 30, 40 crossed with zip 1, 2 (8 rows), k = 2. Root: both ranges are
    whole (width 1): the first column, age, is cut at its median 20. Each half spans a third
    of the ages but every zip: zip is cut (1 | 2). Then only age is wide, and its median cut
    leaves one row a side: four classes of two rows, age generalized, zip kept."""
    frame = pd.DataFrame({"age": [10, 10, 20, 20, 30, 30, 40, 40], "zip": [1, 2] * 4})
    out = pandas_anon.kanon(frame, 2, qid=["age", "zip"], algo="mondrian")
    assert boxes(out, ["age", "zip"]) == [
        ("[10-20]", 1, 2),
        ("[10-20]", 2, 2),
        ("[30-40]", 1, 2),
        ("[30-40]", 2, 2),
    ]


def test_a_majority_value_is_cut_just_below_the_median():
    """Sex: 3 F and 5 M, with ages 30 to 37, k = 3. Root: sex (2 values, width 1) and age
    (whole range, width 1) tie; sex comes first in the QID. Its median is M, the largest
    value: the paper's cut (<= M) leaves nothing on the right, so it falls below M: F | M.
    F (3 rows) cannot be cut again; M (5 rows, ages 33..37): age median 35, cut 33-35 | 36-37
    leaves 2 rows (< 3): a leaf."""
    frame = pd.DataFrame(
        {"sex": ["F", "F", "F", "M", "M", "M", "M", "M"], "age": list(range(30, 38))}
    )
    out = pandas_anon.kanon(frame, 3, qid=["sex", "age"], algo="mondrian")
    assert boxes(out, ["sex", "age"]) == [("F", "[30-32]", 3), ("M", "[33-37]", 5)]


def test_relaxed_partitioning_splits_equal_values():
    """x = 1, 2, 2, 2, 2, 3 and y = a, b, c, b, c, a (combinations (1,a), (2,b) twice, (2,c)
    twice, (3,a)), k = 3. Strict: x's median 2 leaves 5 | 1 rows; y's median b (cumulative
    rows 2, 4 of 6) leaves a, b (4) | c (2): no cut, one class. Relaxed: the combinations in x
    order, (1,a), (2,b), (2,c), (3,a), reach half the rows at (2,b): 3 | 3 rows, and the two
    classes' ranges of x overlap at 2, as the paper allows."""
    frame = pd.DataFrame({"x": [1, 2, 2, 2, 2, 3], "y": list("abcbca")})
    with pytest.warns(pandas_anon.OneClassWarning):
        strict = pandas_anon.kanon(frame, 3, qid=["x", "y"], algo="mondrian")
    assert boxes(strict, ["x", "y"]) == [("[1-3]", "{a, b, c}", 6)]
    relaxed = pandas_anon.kanon(frame, 3, qid=["x", "y"], algo=Mondrian(relaxed=True))
    assert boxes(relaxed, ["x", "y"]) == [("[1-2]", "{a, b}", 3), ("[2-3]", "{a, c}", 3)]


def test_a_hierarchy_is_cut_at_the_children_of_the_common_ancestor():
    """Six towns, two rows each, under two provinces under the top ``*``; k = 4. The root's
    common ancestor is the top, whose children are the provinces: A (6 rows) | B (6 rows).
    In A, the ancestor is A and its children the towns: the median cut a1, a2 (4) | a3 (2)
    leaves 2 rows: a leaf, labelled A. Every row at level 1 of 2: precision 1/2."""
    towns = ["a1", "a2", "a3", "b1", "b2", "b3"]
    hierarchy = Hierarchy(towns, [["A", "A", "A", "B", "B", "B"]], name="towns")
    frame = pd.DataFrame({"town": towns * 2})
    out = pandas_anon.kanon(
        frame, 4, qid=["town"], algo="mondrian", hierarchies={"town": hierarchy}
    )
    assert boxes(out, ["town"]) == [("A", 6), ("B", 6)]
    report = out.anon.report()
    assert report.metrics["precision"] == 0.5
    assert report.hierarchies == {"town": "towns"}


def test_numbers_can_be_written_as_a_summary():
    frame = pd.DataFrame({"age": [20, 21, 22, 30, 31, 32]})
    mean = pandas_anon.kanon(frame, 3, qid=["age"], algo=Mondrian(represent="mean"))
    assert mean["age"].tolist() == [21.0] * 3 + [31.0] * 3
    middle = pandas_anon.kanon(frame, 3, qid=["age"], algo=Mondrian(represent={"age": "midrange"}))
    assert middle["age"].tolist() == [21.0] * 3 + [31.0] * 3


def test_the_boxes_say_what_each_class_stands_for():
    """Seven rows, k = 3: age and sex are both whole (width 1), age comes first; its median
    is 30 (the fourth of seven rows): 20-30 (4 rows) | 31-33 (3 rows), and neither half can
    be cut again. Each box: the range a mean stands for, the set of sexes or the one kept as
    read, its rows (largest first); with k = 1 the one-row boxes are left out (they would
    be a row's values)."""
    frame = pd.DataFrame(
        {"age": [20, 21, 22, 30, 31, 32, 33], "sex": ["F", "F", "F", "M", "M", "M", "M"]}
    )
    decided = pandas_anon.anonymize(frame, 3, qid=["age", "sex"], algo=Mondrian(represent="mean"))
    found = decided.boxes()
    assert found.to_dict("list") == {
        "age": ["[20-30]", "[31-33]"],
        "sex": ["{F, M}", "M"],
        "rows": [4, 3],
    }
    out = decided.apply(frame)
    assert out["age"].tolist() == [23.25] * 4 + [32.0] * 3
    alone = pandas_anon.anonymize(
        pd.DataFrame({"age": [1, 2, 2, 9]}), 1, qid=["age"], algo="mondrian"
    )
    assert alone.boxes().to_dict("list") == {"age": [2], "rows": [2]}


# -- Adult against the Python peers ------------------------------------------------------

FIVE = ["age", "sex", "race", "marital-status", "education"]
NINE = sorted(ADULT_HIERARCHY_ATTRIBUTES)  # the nine columns, as the peers order them


@pytest.mark.parametrize(
    ("qid", "anonypy_dm", "dm", "classes"),
    [(FIVE, 1_486_916, 1_131_344, 2_141), (NINE, 289_608, 266_496, 4_020)],
)
def test_adult_beats_anonypy_discernibility(adult, qid, anonypy_dm, dm, classes):
    """UCI Adult, k = 5, no hierarchies (age a number, the rest unordered values, as anonypy
    treats them): the discernibility is below anonypy's, checked by the verifier."""
    out = pandas_anon.kanon(adult, 5, qid=qid, algo="mondrian")
    report = out.anon.report()
    found = verify_anonymized(out, qid, 5, 0, top=NEVER)
    assert report.metrics["dm"] == found["dm"] == dm < anonypy_dm
    assert report.classes == found["classes"] == classes and report.k_reached == found["k"] == 5
    assert report.metrics["gcp"] == pytest.approx(
        verify_gcp(adult, out, qid, pd.Series(False, index=adult.index))
    )


def test_the_gain_rule_trades_time_for_less_loss(adult):
    """``choose="gain"`` takes, in every partition, the allowable cut that lowers the loss
    most: on Adult (9 QIs, k=5) a lower GCP than the widest-dimension rule, still verified."""
    width = pandas_anon.kanon(adult, 5, qid=NINE, algo="mondrian").anon.report()
    out = pandas_anon.kanon(adult, 5, qid=NINE, algo=Mondrian(choose="gain"))
    gain = out.anon.report()
    verify_anonymized(out, NINE, 5, 0, top=NEVER)
    assert gain.metrics["gcp"] < width.metrics["gcp"]
    assert (round(gain.metrics["gcp"], 4), round(width.metrics["gcp"], 4)) == (0.0313, 0.0335)


# -- bad input ---------------------------------------------------------------------------


def test_constant_columns_are_never_cut():
    frame = pd.DataFrame({"c": ["x"] * 6, "age": range(6)})
    out = pandas_anon.kanon(frame, 2, qid=["c", "age"], algo="mondrian")
    assert (out["c"] == "x").all()  # width 0: kept as read
    assert out["age"].tolist() == ["[0-2]"] * 3 + ["[3-5]"] * 3  # 0-2 | 3-5; 0-1 | 2 < k


def test_all_missing_columns_and_k_above_the_rows_are_refused():
    frame = pd.DataFrame({"age": [1, 2, 3], "empty": [None] * 3})
    with pytest.raises(AllMissingColumnError, match="'empty'"):
        pandas_anon.kanon(frame, 2, qid=["age", "empty"], algo="mondrian")
    with pytest.raises(InvalidParameterError, match="k=4 exceeds the 3 rows"):
        pandas_anon.kanon(frame, 4, qid=["age"], algo="mondrian")


def test_l_no_partition_can_meet_says_so():
    frame = pd.DataFrame({"age": range(8), "illness": ["flu"] * 7 + ["cold"]})
    with pytest.raises(InfeasibleError, match="the whole table does not satisfy"):
        pandas_anon.kanon(frame, 2, qid=["age"], sensitive="illness", l=3, algo="mondrian")
    with pytest.warns(pandas_anon.OneClassWarning):  # only the top box has 2 illnesses
        out = pandas_anon.kanon(frame, 2, qid=["age"], sensitive="illness", l=2, algo="mondrian")
    assert out.anon.report().classes == 1


def test_a_hierarchy_that_does_not_cover_the_column_is_refused():
    hierarchy = Hierarchy(["a", "b"], [["*", "*"]])
    frame = pd.DataFrame({"town": ["a", "b", "c", "c"]})
    with pytest.raises(HierarchyError, match="'c'"):
        pandas_anon.kanon(frame, 2, qid=["town"], algo="mondrian", hierarchies={"town": hierarchy})


def test_a_summary_for_a_column_without_numbers_is_refused():
    frame = pd.DataFrame({"town": list("aabb")})
    with pytest.raises(InvalidParameterError, match="holds no numbers"):
        pandas_anon.kanon(frame, 2, qid=["town"], algo=Mondrian(represent={"town": "mean"}))
    with pytest.raises(InvalidParameterError, match="'range', 'mean'"):
        pandas_anon.kanon(frame, 2, qid=["town"], algo=Mondrian(represent="average"))


def test_an_algorithm_that_is_no_algorithm_is_refused():
    with pytest.raises(InvalidParameterError, match="algo must be an algorithm's name"):
        pandas_anon.kanon(pd.DataFrame({"a": [1, 2]}), 1, qid=["a"], algo=42)


# -- random frames -------------------------------------------------------------------------


@st.composite
def groupings(draw, series: pd.Series) -> Hierarchy | None:
    """A random hierarchy of the column's values: one or two levels of groups below the top
    (None for a column without a value)."""
    values = list(pd.unique(series.dropna().astype(object)))
    if not values:
        return None
    levels = []
    groups = draw(st.lists(st.integers(0, 3), min_size=len(values), max_size=len(values)))
    levels.append([f"g{g}" for g in groups])
    if draw(st.booleans()):
        levels.append([f"h{g // 2}" for g in groups])  # groups of groups: a coarser level
    return Hierarchy(values, levels, name="random")


def breaks_l_or_t(call) -> None:
    """Why a release may be infeasible: the top box, the whole table, breaks l or t."""
    assert call.l is not None or call.t is not None, "the top box holds k rows"
    event("infeasible: the whole table breaks l or t")


@examples
@given(data=st.data())
def test_every_mondrian_release_is_verified(data):
    """Random frames of every dtype (numbers, text, categories, dates, missing values,
    duplicates, tiny k and k near the rows), strict and relaxed, some columns cut along a
    random hierarchy: each release is k-anonymous,
    l-diverse and t-close by the verifier, its report matches what the verifier reads, the
    input is untouched and the same call gives the same release."""
    case = data.draw(cases(), label="case")
    call = data.draw(calls(case), label="call")
    relaxed = data.draw(st.booleans(), label="relaxed")
    represent = data.draw(st.sampled_from(["range", "range", "mean", "median", "midrange"]))
    choose = data.draw(st.sampled_from(["width", "width", "gain"]), label="choose")
    frame = case.frame()
    note(f"frame:\n{frame}\ndtypes: {dict(frame.dtypes)}")
    options = call.options(case, "mondrian")
    along = data.draw(st.lists(st.sampled_from(case.qid), unique=True, max_size=2), label="along")
    hierarchies = {c: data.draw(groupings(frame[c]), label=f"hierarchy {c}") for c in along}
    hierarchies = {c: h for c, h in hierarchies.items() if h is not None}
    if hierarchies:
        event("cut along a hierarchy")
        represent = "range"  # a column with a hierarchy is written with its labels
    options.update(
        algo=Mondrian(relaxed=relaxed, represent=represent, choose=choose),
        max_suppression=0,
        hierarchies=hierarchies,
    )
    found = released(frame, case, call, options, lambda: breaks_l_or_t(call))
    if found is None:
        return
    out, ours = found
    qid, report = case.qid, out.anon.report()
    event(f"{'one class' if report.classes == 1 else 'several classes'}")
    assert report.suppressed == 0
    found = release_classes(out, qid, top=NEVER)
    sizes = found["sizes"]
    assert (report.classes, report.k_reached) == (len(sizes), int(sizes.min()))
    with warnings.catch_warnings():  # the release's warnings are run()'s to check
        warnings.simplefilter("ignore")
        described = pandas_anon.anonymize(frame, call.k, **options).boxes()
    assert described["rows"].sum() == len(frame) or call.k == 1
    assert (described["rows"] >= max(call.k, 2)).all()
    if represent == "range":  # a box is a class; a mean may stand for two boxes
        assert len(described) == report.classes or call.k == 1
    assert report.k_reached >= call.k
    assert report.metrics["dm"] == int((sizes.astype(object) ** 2).sum())
    assert report.metrics["gcp"] == pytest.approx(
        verify_gcp(frame, out, qid, pd.Series(False, index=frame.index)), rel=1e-9, abs=1e-12
    )
    changed = ~np.logical_and.reduce([same_values(out[c], frame[c]) for c in qid])
    assert report.modified == int(changed.sum())
    # rows alike on the input stay alike: a combination of values is never divided
    pairs = pd.concat(
        [
            frame[qid].astype(object).reset_index(drop=True),
            out[qid].astype(object).add_prefix("o").reset_index(drop=True),
        ],
        axis=1,
    )
    assert len(pairs.drop_duplicates()) == len(frame[qid].astype(object).drop_duplicates())
    if call.l is not None or call.t is not None:
        view = found["by_class"].assign(s=comparable(frame["s"]).to_numpy())
        if call.l is not None:
            model = call.l_model()
            checked, _ = verify_l_diverse(
                view, qid, "s", model.l, model.variant, model.c, top=NEVER
            )
            assert checked == report.classes
        if call.t is not None:
            model = call.t_model(frame)
            checked, _ = verify_t_close(
                view, qid, "s", model.t, ordered=model.ordered, whole=view["s"], top=NEVER
            )
            assert checked == report.classes
    again, _ = run(frame, call.k, **options)
    pd.testing.assert_frame_equal(again, out, check_exact=True)


# -- the partitions against a naive recursion on the rows -------------------------------------


def naive_partitions(frame: pd.DataFrame, qid: list, k: int) -> set[frozenset]:
    """Mondrian's strict partitioning written naively, row by row, from the rules the docs
    state (LeFevre et al. 2006, section 4, Figure 4): in each partition try the dimensions in
    decreasing normalized width (the range over the column's for numbers, the distinct
    values less one over the column's for text; ties to the first in the QID), cut at the
    weighted median (the smallest value reaching half of the rows; the values at or below it
    go left, or below it when it is the partition's largest), and keep the first cut leaving
    k rows on both sides; a partition with none is a class. Numbers and text only, no
    missing value."""
    numeric = {c: pd.api.types.is_numeric_dtype(frame[c]) for c in qid}
    order = {
        c: sorted(frame[c].unique(), key=(float if numeric[c] else str)) for c in qid
    }  # every value's rank in its column
    rank = {c: {v: i for i, v in enumerate(order[c])} for c in qid}

    def width(rows: list, c: str) -> float:
        values = {frame.at[r, c] for r in rows}
        if numeric[c]:
            span = float(order[c][-1]) - float(order[c][0])
            return (float(max(values)) - float(min(values))) / span if span else 0.0
        return (len(values) - 1) / max(len(order[c]) - 1, 1)

    def cut(rows: list, c: str) -> tuple[list, list]:
        ranks = sorted(rank[c][frame.at[r, c]] for r in rows)
        median = ranks[(len(ranks) + 1) // 2 - 1]  # the smallest reaching half of the rows
        top = median == ranks[-1]
        left = [
            r
            for r in rows
            if (rank[c][frame.at[r, c]] < median if top else rank[c][frame.at[r, c]] <= median)
        ]
        return left, [r for r in rows if r not in set(left)]

    found: set[frozenset] = set()
    stack = [list(frame.index)]
    while stack:
        rows = stack.pop()
        widest = sorted(((width(rows, c), -j, c) for j, c in enumerate(qid)), reverse=True)
        halves = (cut(rows, c) for w, _, c in widest if w > 0)
        allowable = next((h for h in halves if len(h[0]) >= k and len(h[1]) >= k), None)
        if allowable is None:
            found.add(frozenset(rows))
        else:
            stack += allowable
    return found


@st.composite
def partition_frames(draw) -> tuple[pd.DataFrame, int]:
    """Numbers and text (up to 70 distinct words, past the 64 a bit mask of ranks holds)."""
    n = draw(st.integers(8, 160))
    words = draw(st.sampled_from([3, 8, 70]))
    columns = {
        "age": draw(st.lists(st.integers(18, 60), min_size=n, max_size=n)),
        "word": draw(st.lists(st.integers(0, words - 1), min_size=n, max_size=n)),
        "sex": draw(st.lists(st.sampled_from("MF"), min_size=n, max_size=n)),
    }
    frame = pd.DataFrame(columns)
    frame["word"] = ("w" + frame["word"].astype(str)).astype("str")
    return frame, draw(st.integers(2, max(2, n // 3)))


@settings(deadline=None)
@given(partition_frames())
def test_the_partitions_are_the_naive_recursions(case):
    """The frequency-set partitioning, every open partition cut in the same round, gives
    exactly the partitions of a naive recursion on the rows."""
    frame, k = case
    qid = ["age", "word", "sex"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)  # a table too small to cut is one box
        out = pandas_anon.kanon(frame, k, qid=qid, algo="mondrian")
    written = out.groupby(qid, sort=False).indices.values()
    ours = {frozenset(frame.index[rows]) for rows in written}
    assert ours == naive_partitions(frame, qid, k)


def test_set_bits_are_counted_without_numpy_2(monkeypatch):
    """The distinct values of a partition come from a bit mask of its ranks, counted with
    ``np.bitwise_count`` (NumPy 2) or, before it, from the bytes unpacked."""
    words = np.array([0, 1, 3, 2**63 + 5, 2**64 - 1], dtype=np.uint64)
    expected = [0, 1, 2, 3, 64]
    assert list(partition._ones(words)) == expected
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert list(partition._ones(words)) == expected


#: A date as Mondrian writes it: ISO, with a time (to the nanosecond, and the offset of a
#: zone) unless every date is at midnight.
_ISO = re.compile(
    r"(?P<local>\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?)?)"
    r"((?P<sign>[+-])(?P<hours>\d{2}):(?P<minutes>\d{2})(:(?P<seconds>\d{2}))?)?"
)


def _contains(label: str, value: object, dates: bool) -> bool:
    """Whether the range ``label`` Mondrian wrote (``[low-high]``, ``[low, high]`` when the
    column has negative numbers, ``[low/high]`` for dates, ``... or missing``, ``missing``)
    holds ``value``, its
    bounds read exactly (whole numbers as Python ints, dates as timestamps); ``*`` holds any
    date or missing value."""
    if dates and label == "*":  # dates and missing values: the column's top
        return True
    if pd.isna(value):
        return label == "missing" or label.endswith(" or missing")
    if dates and label.startswith("[") and not label.endswith("]"):  # "[...] Europe/Rome"
        label = label.rpartition(" ")[0]  # a zone's dates: its name after the range
    body = label.removesuffix(" or missing")
    if body != label and not body.startswith("["):  # one value, and missing ones
        body = f"[{body}, {body}]"
    if not (body.startswith("[") and body.endswith("]")):
        return False
    inner = body[1:-1]

    def read(text: str) -> object:
        if dates:
            found = _ISO.fullmatch(text)
            if found is None:
                raise ValueError(text)
            local = pd.Timestamp(found["local"])
            if found["sign"] is None:
                return local
            offset = pd.Timedelta(
                hours=int(found["hours"]),
                minutes=int(found["minutes"]),
                seconds=int(found["seconds"] or 0),
            )  # pandas reads no offset in seconds (+00:49:56, Rome's before 1894)
            return (local - offset if found["sign"] == "+" else local + offset).tz_localize("UTC")
        return int(text) if text.lstrip("-").isdigit() else float(text)

    if ", " in inner:
        splits = [inner.split(", ")]
    elif dates:  # an ISO 8601 interval: low/high
        splits = [inner.split("/")]
    else:  # the joint "-": where both sides read
        splits = [[inner[:at], inner[at + 1 :]] for at, c in enumerate(inner) if c == "-"]
    bounds = []
    for low, high in (s for s in splits if len(s) == 2):
        try:
            bounds.append((read(low), read(high)))
        except ValueError:
            continue
    if len(bounds) != 1:
        return False
    low, high = bounds[0]
    if not dates and isinstance(value, (int, np.integer)):
        value = int(value)
    return low <= value <= high


_NEAR_LIMITS = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(2**62, 2**62 + 5000),  # a float64 step here is 1024: values tie as floats
    st.integers(2**63 - 5000, 2**63 - 1),
    st.integers(-(2**63), -(2**63) + 5000),
)


@st.composite
def _numeric_columns(draw):
    """A column of one of the dtypes Mondrian ranks by value, with values that tie or swap
    when read as floats."""
    kind = draw(
        st.sampled_from(
            ["int64", "uint64", "Int64", "int64[pyarrow]", "float64", "datetime64[ns]", "zoned"]
        )
    )
    n = draw(st.integers(4, 40))
    if kind == "uint64":
        values = draw(
            st.lists(
                st.one_of(st.integers(0, 2**64 - 1), st.integers(2**64 - 5000, 2**64 - 1)),
                min_size=n,
                max_size=n,
            )
        )
        return pd.Series(np.array(values, dtype=np.uint64))
    if kind == "float64":
        floats = st.floats(allow_nan=False, width=64)
        values = draw(st.lists(st.one_of(floats, st.just(np.nan)), min_size=n, max_size=n))
        return pd.Series(values, dtype="float64")
    if kind == "datetime64[ns]":
        nanoseconds = st.integers(-(2**63) + 1, 2**63 - 1)  # every nanosecond a date has
        values = draw(st.lists(nanoseconds, min_size=n, max_size=n))
        return pd.Series(np.array(values, dtype="datetime64[ns]"))
    if kind == "zoned":  # dates of a zone, its offset changing with the season
        nanoseconds = st.integers(-(2**62), 2**62)
        values = draw(st.lists(nanoseconds, min_size=n, max_size=n))
        utc = pd.Series(np.array(values, dtype="datetime64[ns]")).dt.tz_localize("UTC")
        return utc.dt.tz_convert("Europe/Rome")
    values = draw(st.lists(_NEAR_LIMITS, min_size=n, max_size=n))
    if kind == "int64":
        return pd.Series(values, dtype="int64")
    missing = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return pd.Series([None if m else v for v, m in zip(values, missing)], dtype=kind)


@settings(deadline=None, max_examples=150)
@given(column=_numeric_columns(), k=st.integers(2, 4))
def test_every_range_label_holds_the_values_it_stands_for(column, k):
    """Mondrian ranked numbers as floats: whole numbers near 2**62 tied or swapped, and a
    range written from the first and last of a partition left out values it held. Every
    label holds each value written with it, on every dtype ranked by value."""
    frame = pd.DataFrame({"x": column})
    if frame["x"].notna().sum() < k:
        return
    note(f"{column.dtype}: {column.tolist()}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pandas_anon.kanon(frame, k, qid=["x"], algo="mondrian")
    dates = column.dtype.kind == "M"
    for value, written in zip(column.tolist(), out["x"].tolist()):
        if isinstance(written, str):
            assert _contains(written, value, dates), (written, value)
        elif pd.isna(value):  # a partition of one value keeps it as read
            assert pd.isna(written)
        else:
            assert written == value


def test_a_range_near_two_to_the_62_holds_its_value():
    """The reported case: 4611686018428058780 was written as
    [4611686018427037319-4611686018428058528]."""
    rng = np.random.default_rng(0)
    values = 2**62 + rng.integers(0, 100_000, 200)
    frame = pd.DataFrame({"v": values.astype("int64"), "s": rng.choice(["a", "b"], 200)})
    out = pandas_anon.kanon(frame, 5, qid=["v", "s"], algo="mondrian")
    outside = [
        (value, label)
        for value, label in zip(frame["v"].tolist(), out["v"].tolist())
        if isinstance(label, str) and not _contains(label, value, dates=False)
    ]
    assert not outside, outside[:3]


@pytest.mark.parametrize("dtype", ["uint64", "UInt64"])
def test_a_uint64_column_keeps_its_values_beside_integer_summaries(dtype):
    """A uint64 column beside whole summaries (int64) became float64 (numpy's common type of
    the two), so 2**63 - 1, kept as read, was written 9.223372036854776e18: the release
    wrote values no row holds and counted them unchanged."""
    big = 2**63 - 1
    values = [3] * 38 + [0, 3, big, big, 2, 3, 3, 3]
    frame = pd.DataFrame({"q": pd.array(values, dtype=dtype), "w": 1})
    out = pandas_anon.kanon(frame, 2, qid=["q", "w"], algo=Mondrian(represent="mean"))
    written = out["q"].tolist()
    assert written[40:42] == [big, big] and written[38] == written[42] == 1
    assert not any(isinstance(value, float) for value in written)
    changed = ~np.logical_and.reduce([same_values(out[c], frame[c]) for c in ["q", "w"]])
    assert out.anon.report().modified == int(changed.sum()) == 2


@pytest.mark.parametrize("represent", ["median", "mean", "midrange"])
def test_summaries_of_whole_numbers_are_written_as_whole_numbers(represent):
    """Drawn by hypothesis 6.170 in CI's profile: an Int64 column near 2**62 written as a
    median, mean or mid-range. A median is one of the box's values and a box holding one
    value keeps it (a float has 53 bits: 4611686018427387905 is no float); a whole summary is
    written as a whole number. The report's modified rows and GCP then equal the verifier's."""
    near = 2**62 + np.array([1, 190_000_000_000_000, -2_000_000_000_000_000, 7])
    frame = pd.DataFrame(
        {
            "v": pd.array(np.repeat(near, [9, 3, 3, 4]).tolist() + [None], dtype="Int64"),
            "w": [0] * 12 + [1] * 8,
        }
    )
    out = pandas_anon.kanon(frame, 3, qid=["v", "w"], algo=Mondrian(represent=represent))
    report = out.anon.report()
    assert not any(isinstance(value, float) for value in out["v"].dropna().tolist())
    if represent == "median":  # every value written is one of the column's
        assert set(out["v"].dropna().tolist()) <= set(near.tolist())
    changed = ~np.logical_and.reduce([same_values(out[c], frame[c]) for c in ["v", "w"]])
    assert report.modified == int(changed.sum())
    assert report.metrics["gcp"] == pytest.approx(
        verify_gcp(frame, out, ["v", "w"], pd.Series(False, index=frame.index)), rel=1e-9
    )


@pytest.mark.parametrize(
    ("form", "joint"), [("%Y-%m-%d", "/"), ("%Y-%m-%d %H:%M:%S", "/"), ("%d/%m/%Y", ", ")]
)
def test_text_dates_are_cut_as_dates_and_written_as_read(form, joint):
    """Dates read as text (a CSV read without parse_dates) are cut by date, not as sets of
    strings: each range is written from its first and last values as read, and both bounds
    read back with pandas.to_datetime and hold every date of the class."""
    licences = load_driver_licenses().dropna(subset=["data_rilascio"]).iloc[:4000]
    frame = pd.DataFrame(
        {"issued": licences["data_rilascio"].dt.strftime(form), "sex": licences["sesso"]}
    )
    out = pandas_anon.kanon(frame, 5, qid=["issued", "sex"], algo="mondrian")
    labels = out["issued"].where(out["issued"] != frame["issued"])  # the rows generalized
    assert labels.notna().mean() > 0.5
    assert not labels.dropna().str.startswith("{").any()
    dayfirst = form.startswith("%d")
    for label, date in zip(labels.dropna(), licences["data_rilascio"][labels.notna()]):
        low, high = label[1:-1].split(joint)
        assert (
            pd.to_datetime(low, dayfirst=dayfirst)
            <= date
            <= pd.to_datetime(high, dayfirst=dayfirst)
        )
    kept = out["issued"] == frame["issued"]
    assert set(out.loc[kept, "issued"]) <= set(frame["issued"])  # as read
    assert release_classes(out, ["issued", "sex"], top=NEVER)["k"] >= 5


@pytest.mark.parametrize("as_text", [False, True])
def test_a_class_of_dates_and_missing_dates_is_written_as_the_top(as_text):
    """Three licences without an issue date (fewer than k) share a class with dated ones:
    its dates were written ``[a/b] or missing``, which no date parser reads. They are now
    written ``*`` (the column's top), and every other generalized cell is a range of dates
    whose bounds pandas.to_datetime reads and which holds the date."""
    licences = load_driver_licenses().dropna(subset=["data_rilascio"]).iloc[:4000]
    dates = licences["data_rilascio"].copy()
    dates.iloc[[10, 500, 3000]] = pd.NaT
    issued = dates.dt.strftime("%Y-%m-%d") if as_text else dates
    frame = pd.DataFrame({"issued": issued, "sex": licences["sesso"]})
    out = pandas_anon.kanon(frame, 5, qid=["issued", "sex"], algo="mondrian")
    written = out["issued"].astype(object)
    top = written.eq("*").to_numpy()
    assert dates.isna().to_numpy()[~top].sum() == 0  # every missing date is in a top class
    assert top.sum() >= 5 and dates[top].notna().any()  # with dated ones
    assert not written.astype(str).str.contains("missing").any()
    generalized = written.map(lambda v: isinstance(v, str) and v.startswith("[")).to_numpy()
    kept = ~top & ~generalized
    assert generalized.any() and (written[kept] == issued[kept]).all()
    for label, date in zip(written[generalized], dates[generalized]):
        low, high = label[1:-1].split("/")
        assert pd.to_datetime(low) <= date <= pd.to_datetime(high)
    assert release_classes(out, ["issued", "sex"], top=NEVER)["k"] >= 5


def test_a_long_set_is_written_by_its_first_values_and_its_size():
    """Mondrian by values on the licences' countries of birth wrote sets of up to nine
    countries (90 characters). A set of more than five values is now written by its first
    four and its size; every label holds the values of its rows; sets of one size and the
    same first values are one label, and the report counts the classes the output has."""
    licences = load_driver_licenses()
    qid = ["stato_estero_nascita", "sesso", "anno_nascita"]
    out = pandas_anon.kanon(licences, 5, qid=qid, algo="mondrian")
    labels = out["stato_estero_nascita"].astype(str)
    sets = labels[labels.str.startswith("{")]
    shown = sets.str[1:-1].str.split(", ")
    assert shown.map(len).max() == 5 and sets.str.len().max() < 90
    long = sets.str.endswith(" values)}")
    assert long.any() and (~long).any()
    original = (
        licences["stato_estero_nascita"]
        .astype(object)
        .where(licences["stato_estero_nascita"].notna(), "missing")
    )
    for label, values in original[sets.index].groupby(sets).agg(lambda v: set(v)).items():
        names = label[1:-1].split(", ")
        if label.endswith(" values)}"):
            size = int(names[-1].removeprefix("... (").removesuffix(" values)"))
            assert size > 5 and len(names) == 5
            assert size >= len(values) and set(names[:4]) <= values | set(names[:4])
        else:
            assert values <= set(names)
    found = release_classes(out, qid, top=NEVER)
    assert found["k"] >= 5 and out.anon.report().classes == found["classes"]


def test_whole_numbers_read_as_floats_are_written_as_whole_numbers():
    """A column of years with one missing value is read by pandas as floats: its ranges are
    written [1978-1980], not [1978.0-1980.0]; fractional floats keep their decimals."""
    years = load_driver_licenses()["anno_nascita"].iloc[:3000].astype("float64")
    years.iloc[7] = np.nan
    frame = pd.DataFrame({"anno": years, "sex": load_driver_licenses()["sesso"].iloc[:3000]})
    out = pandas_anon.kanon(frame, 5, qid=["anno", "sex"], algo="mondrian")
    ranges = [v for v in out["anno"] if isinstance(v, str)]
    assert ranges and not any(".0" in label for label in ranges)
    for label, year in zip(out["anno"], years):
        if isinstance(label, str) and label.startswith("["):
            low, high = label[1:].split("]")[0].split("-")
            assert int(low) <= year <= int(high)
    halves = frame.assign(anno=years + 0.5)
    out = pandas_anon.kanon(halves, 5, qid=["anno", "sex"], algo="mondrian")
    assert any(".5-" in v for v in out["anno"] if isinstance(v, str))


@pytest.mark.parametrize("algo", ["mondrian", None])
def test_arrow_dates_are_ranged_and_their_bounds_hold_them(licences, algo):
    """Dates of Arrow's date32 type (``read_parquet``, ``dtype_backend="pyarrow"``) hold no
    integers of their own: Mondrian (and zero configuration, which runs it) raised a raw
    ``TypeError``. The release is 5-anonymous and its bounds hold every original date."""
    frame = licences.head(2000)[["data_rilascio", "sesso"]].dropna().reset_index(drop=True)
    frame["data_rilascio"] = frame["data_rilascio"].dt.date.astype("date32[pyarrow]")
    out = pandas_anon.kanon(frame, 5, qid=["data_rilascio", "sesso"], algo=algo)
    assert out.groupby(["data_rilascio", "sesso"], dropna=False).size().min() >= 5
    bounds = pandas_anon.intervals(out, ["data_rilascio"], form="bounds")
    original = pd.to_datetime(frame["data_rilascio"].astype(str))
    if pd.api.types.is_numeric_dtype(bounds["data_rilascio_low"]):  # years (docs/kanon.md)
        original = original.dt.year
    masked = out["data_rilascio"].astype(object).eq("*")
    held = (bounds["data_rilascio_low"] <= original) & (original <= bounds["data_rilascio_high"])
    assert (held | masked).all()
