"""One definition per privacy figure (issue 9, item 3): l-diversity, t-closeness and the metrics
mean the same in kanon, in the pandera checks and in the independent verifier (tests/verify.py).

- Ordered t-closeness walks the sorted distinct values of the whole table (m values present,
  neighbours 1/(m-1) apart), never the integers between them that no row holds.
- A missing sensitive value counts in its class's size but is never one of its values: not in
  distinct, entropy or recursive l-diversity, not in either t-closeness distribution; a class
  whose sensitive values are all missing has distinct l = 0 and is at distance 1.
- Metric values are exact (fractions, integers), so a tie goes to the lower node, as
  documented, and never to the node whose float sum happens to round lower.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import InvalidParameterError, OneClassWarning
from pandas_anon.anonymization.fulldomain import datafly, incognito, ola, samarati
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.exhaustive import search as exhaustive_search
from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.anonymization.fulldomain.metrics import mean_level, resolve_metric
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.privacy.measures import l_diversity
from pandas_anon.privacy.models import KAnonymity, LDiversity, TCloseness

from verify import l_level, t_distances, verify_l_diverse, verify_t_close

SEARCHES = {
    "ola": ola.search,
    "incognito": incognito.search,
    "samarati": samarati.search,
    "datafly": datafly.search,
}


def bottom(frame: pd.DataFrame, qid: list, sensitive: str, models: list, limit: float = 0.0):
    """The evaluator of a lattice whose every column is at its own values, and the bottom
    node's verdict (its hierarchies: each value its own label, then ``*``)."""
    hierarchies = {c: Hierarchy(frame[c].dropna().unique().tolist()) for c in qid}
    evaluator = Evaluator(
        Lattice.of_frame(frame, qid, hierarchies, sensitive=sensitive), models, limit
    )
    return evaluator, evaluator(evaluator.lattice.bottom)


# -- 1. ordered t-closeness over the distinct values of the whole table ------------------------

SALARY = pd.DataFrame({"group": list("aaaabbbb"), "salary": [10, 10, 11, 11, 20, 20, 500, 500]})


@pytest.mark.parametrize("scale", [1, 1000])
def test_ordered_t_closeness_walks_the_distinct_values(scale):
    """m = 4 values (10, 11, 20, 500), neighbours 1/3 apart: each class is at exactly 1/3 of
    the table, so t = 0.3 rejects the grouping whatever the unit. Before, the compact integer
    column (10..500) was walked over its 491 integers, and class a came out at 0.2546."""
    frame = SALARY.assign(salary=SALARY["salary"] * scale)
    assert t_distances(frame, ["group"], "salary", ordered=True) == [Fraction(1, 3)] * 2
    model = TCloseness(0.3, ordered=True)
    evaluator, stats = bottom(frame, ["group"], "salary", [KAnonymity(4), model])
    assert stats.violating.tolist() == [True, True]
    assert model.distances(stats.classes, evaluator.context.sensitive) == pytest.approx([1 / 3] * 2)
    with pytest.warns(OneClassWarning):
        out = pandas_anon.kanon(frame, 4, qid=["group"], sensitive="salary", t=0.3)
    report = out.anon.report()
    assert report.models[1] == "ordered-distance t-closeness (t=0.3)"
    assert report.levels == {"group": 1} and report.suppressed == 0
    assert report.privacy["t"] == 0  # one class: the table itself
    # a t the classes meet keeps the grouping, with the verifier's distance
    kept = pandas_anon.kanon(frame, 4, qid=["group"], sensitive="salary", t=0.34)
    assert kept.anon.report().levels == {"group": 0}
    assert kept.anon.report().privacy["t"] == pytest.approx(1 / 3, abs=1e-12)
    assert verify_t_close(kept, ["group"], "salary", 0.34, ordered=True) == (2, Fraction(1, 3))


@pytest.mark.parametrize(
    ("sensitive", "ordered", "distance"),
    [
        ("s", False, Fraction(1, 2)),
        ("s", True, Fraction(3, 8)),  # before: 3/16 (5 categories)
        ("n", False, Fraction(1, 2)),
        ("n", True, Fraction(3, 8)),  # before: 9/32 (1..9)
    ],
)
def test_codes_that_no_row_holds_are_not_values(sensitive, ordered, distance):
    """Unused categories and the gaps of a compact integer range change no distance: three
    values are present (x, y, z; 1, 2, 9), so m = 3."""
    categories = pd.Categorical(["x", "x", "y", "z"], categories=["w", "x", "y", "z", "zz"])
    frame = pd.DataFrame({"group": list("aabb"), "s": categories, "n": [1, 1, 2, 9]})
    model = TCloseness(1, ordered=ordered)
    evaluator, stats = bottom(frame, ["group"], sensitive, [KAnonymity(1), model])
    assert t_distances(frame, ["group"], sensitive, ordered=ordered) == [distance] * 2
    assert model.distances(stats.classes, evaluator.context.sensitive) == pytest.approx(
        [float(distance)] * 2, abs=1e-12
    )


def test_an_ordered_categorical_is_walked_in_its_categories_order():
    """low < medium < high, not the alphabetical high < low < medium."""
    levels = ["low", "medium", "high"]
    values = pd.Categorical(["low", "low", "high", "medium"], categories=levels, ordered=True)
    frame = pd.DataFrame({"group": list("aabb"), "s": values})
    distances = t_distances(frame, ["group"], "s", ordered=True)
    assert distances == [Fraction(3, 8), Fraction(3, 8)]  # alphabetically: 1/4 and 1/4
    evaluator, stats = bottom(frame, ["group"], "s", [KAnonymity(1), TCloseness(1, True)])
    assert evaluator.reached(stats)["t"] == pytest.approx(3 / 8, abs=1e-12)


def test_values_that_do_not_sort_have_no_ordered_distance():
    frame = pd.DataFrame({"group": list("aabb"), "s": pd.Series([1, "x", 2, "y"], dtype=object)})
    with pytest.raises(InvalidParameterError, match=r"'s'.*ordered=False"):
        bottom(frame, ["group"], "s", [KAnonymity(1), TCloseness(0.5, ordered=True)])
    evaluator, stats = bottom(frame, ["group"], "s", [KAnonymity(1), TCloseness(1)])
    assert evaluator.reached(stats)["t"] == pytest.approx(0.5)


# -- 2. missing sensitive values are not values ---------------------------------------------

#: zip a holds HIV and a missing diagnosis: one value, not two.
DIAGNOSES = pd.DataFrame(
    {
        "zip": list("aabbccdd"),
        "diagnosis": ["HIV", None, "HIV", "flu", "cold", "flu", "cold", "HIV"],
    }
)
ZIP = Hierarchy(list("abcd"), [["ab", "ab", "cd", "cd"]], name="zip")


def test_kanon_l_diversity_counts_no_missing_value():
    """The reproducer: kanon(l=2) kept the class {HIV, missing}, which the library's own
    pandera check then failed. Now zip a is one value short, so the zips are grouped by
    pairs, and the check passes the output."""
    check = pa.DataFrameSchema(
        checks=[pa.Check.anon_l_diverse(qid=["zip"], sensitive="diagnosis", l=2)]
    )
    assert l_level(DIAGNOSES.loc[DIAGNOSES["zip"] == "a", "diagnosis"], "distinct", 2) == (1, False)
    assert l_diversity(DIAGNOSES, ["zip"], "diagnosis") == 1
    out = pandas_anon.kanon(
        DIAGNOSES, 2, qid=["zip"], hierarchies={"zip": ZIP}, sensitive="diagnosis", l=2
    )
    report = out.anon.report()
    assert report.levels == {"zip": 1} and report.suppressed == 0
    assert report.privacy == {"k": 4.0, "distinct l": 2.0}
    assert verify_l_diverse(out, ["zip"], "diagnosis", 2) == (2, 2)
    assert l_diversity(out, ["zip"], "diagnosis") == 2
    check.validate(out)


@pytest.mark.parametrize(
    ("model", "rows", "level"),
    [
        (LDiversity(2), ["HIV", None], 1),
        (LDiversity(2, "entropy"), ["HIV", "HIV", None, None], 1.0),
        (LDiversity(2, "recursive", c=2), ["HIV", None], np.inf),
        (LDiversity(1), [None, None], 0),
        (LDiversity(1, "entropy"), [None, None], 0.0),
        (LDiversity(1, "recursive", c=2), [None, None], np.inf),
    ],
)
def test_every_l_diversity_variant_skips_missing_values(model, rows, level):
    """A class whose missing values would have made it diverse (HIV and missing: two
    'values', entropy log 2, recursive 1 < 2 * 1) violates; a class with no known value
    violates every l, even l = 1. The second class, {flu, cold}, passes all of them."""
    frame = pd.DataFrame(
        {
            "zip": ["a"] * len(rows) + ["b", "b"],
            "diagnosis": pd.Series(rows + ["flu", "cold"], dtype=object),
        }
    )
    evaluator, stats = bottom(frame, ["zip"], "diagnosis", [KAnonymity(1), model], limit=0.6)
    assert stats.violating.tolist() == [True, False]
    expected, holds = l_level(pd.Series(rows, dtype=object), model.variant, model.l, model.c)
    assert not holds and expected == pytest.approx(level)
    assert model.reached(stats.classes, np.array([True, False]), evaluator.context)[
        1
    ] == pytest.approx(level)


def test_a_class_without_a_known_value_has_l_zero():
    """Even l = 1 suppresses zip b, whose diagnoses are all missing."""
    frame = pd.DataFrame(
        {"zip": list("aabbcc"), "diagnosis": ["HIV", "flu", None, None, "cold", "HIV"]}
    )
    assert l_diversity(frame, ["zip"], "diagnosis") == 0
    out = pandas_anon.kanon(
        frame, 2, qid=["zip"], sensitive="diagnosis", l=1, max_suppression=1 / 3, suppress="drop"
    )
    assert out.index.tolist() == [0, 1, 4, 5] and out.anon.report().suppressed == 2
    assert verify_l_diverse(out, ["zip"], "diagnosis", 1) == (2, 2)


def test_l_diversity_keeps_missing_quasi_identifiers_as_the_lattice_does():
    """The rows missing a QI value form a class, here with a single diagnosis: l = 1, as the
    lattice counts it; dropna=True leaves those rows out."""
    frame = pd.DataFrame({"zip": ["a", "a", None, None], "diagnosis": ["x", "y", "x", "x"]})
    assert l_diversity(frame, ["zip"], "diagnosis") == 1
    assert l_diversity(frame, ["zip"], "diagnosis", dropna=True) == 2
    _, stats = bottom(frame, ["zip"], "diagnosis", [KAnonymity(1), LDiversity(2)])
    assert stats.violating.tolist() == [False, True]


# -- 3. t-closeness with missing values in a text column ------------------------------------

WARDS = pd.DataFrame(
    {
        "ward": list("aaaabbbbcc"),
        "diagnosis": ["HIV", "flu", None, None, "flu", "HIV", "cold", "cold", None, None],
    }
)


@pytest.mark.parametrize(
    ("ordered", "a", "b"),
    [
        (False, Fraction(1, 3), Fraction(1, 6)),
        (True, Fraction(1, 6), Fraction(1, 12)),  # sorted: 'HIV' < 'cold' < 'flu'
    ],
)
def test_t_closeness_reads_the_known_values_of_a_text_column(ordered, a, b):
    """Known values of the table: HIV, flu, cold, a third each; ward a holds HIV and flu,
    ward b flu, HIV and cold twice, ward c nothing known (distance 1, suppressed). Before, a
    missing value in a text column raised a TypeError from the sort."""
    assert t_distances(WARDS, ["ward"], "diagnosis", ordered=ordered) == [a, b, Fraction(1)]
    model = TCloseness(0.4, ordered=ordered)
    evaluator, stats = bottom(WARDS, ["ward"], "diagnosis", [KAnonymity(2), model], 0.2)
    distances = model.distances(stats.classes, evaluator.context.sensitive)
    assert distances == pytest.approx([float(a), float(b), 1.0], abs=1e-12)
    out = pandas_anon.kanon(
        WARDS, 2, qid=["ward"], sensitive="diagnosis", t=model, max_suppression=0.2
    )
    report = out.anon.report()
    assert report.levels == {"ward": 0} and report.suppressed == 2
    assert report.privacy["t"] == pytest.approx(float(a), abs=1e-12)
    assert verify_t_close(out, ["ward"], "diagnosis", 0.4, ordered=ordered) == (2, a)


def test_t_closeness_default_on_a_text_column_with_missing_values():
    out = pandas_anon.kanon(
        WARDS, 2, qid=["ward"], sensitive="diagnosis", t=0.4, max_suppression=0.2
    )
    assert out.anon.report().models[1] == "equal-distance t-closeness (t=0.4)"
    assert verify_t_close(out, ["ward"], "diagnosis", 0.4, ordered=False) == (2, Fraction(1, 3))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=st.booleans())
def test_every_class_measures_like_the_verifier(data, text):
    """On random frames with missing values in the QI and the sensitive column, text or
    numbers (integral floats, which the encoding codes arithmetically): each class's l (every
    variant) and t (both distances) equal the verifier's, and privacy.l_diversity is the
    smallest distinct l."""
    n = data.draw(st.integers(1, 30))
    zips = data.draw(
        st.lists(st.sampled_from(["p", "q", "r", None]), min_size=n, max_size=n).filter(
            lambda v: any(z is not None for z in v)
        )
    )
    pool = ["HIV", "flu", "cold", "Flu"] if text else [10.0, 11.0, 500.0, 7000.0]
    cells = data.draw(
        st.lists(st.one_of(st.none(), st.sampled_from(pool)), min_size=n, max_size=n).filter(
            lambda v: any(c is not None for c in v)
        )
    )
    sensitive = (
        pd.Series(cells, dtype=object)
        if text
        else pd.Series([np.nan if c is None else c for c in cells], dtype=float)
    )
    frame = pd.DataFrame({"zip": pd.Series(zips, dtype=object), "s": sensitive})
    groups = [g["s"] for _, g in frame.groupby(frame["zip"].astype(str), dropna=False)]
    models = [
        LDiversity(2),
        LDiversity(2, "entropy"),
        LDiversity(2, "recursive", c=2),
        TCloseness(0.5),
        TCloseness(0.5, ordered=True),
    ]
    evaluator, stats = bottom(frame, ["zip"], "s", [KAnonymity(1), *models])
    n_classes = len(stats.classes.sizes)
    assert n_classes == len(groups)
    for model in models[:3]:
        ours = [
            model.reached(stats.classes, np.arange(n_classes) == i, evaluator.context)[1]
            for i in range(n_classes)
        ]
        theirs = [l_level(g, model.variant, model.l, model.c)[0] for g in groups]
        assert sorted(ours) == pytest.approx(sorted(theirs)), model
    for model in models[3:]:
        ours = model.distances(stats.classes, evaluator.context.sensitive)
        theirs = t_distances(frame, ["zip"], "s", ordered=model.ordered)
        assert sorted(ours) == pytest.approx(sorted(map(float, theirs)), abs=1e-12), model
    assert l_diversity(frame, ["zip"], "s") == min(l_level(g, "distinct", 1)[0] for g in groups)


# -- 4. exact metric values -------------------------------------------------------------------


def two_minimal_nodes(
    heights: tuple[int, ...], first: tuple[int, ...], second: tuple[int, ...]
) -> tuple[pd.DataFrame, dict]:
    """Four rows p, q, r, s and hierarchies of ``heights`` whose 2-anonymous nodes are exactly
    those at or above ``first`` (where p, q and r, s pair up) or ``second`` (p, r and q, s).

    On each column p and q merge at the level ``first`` gives it, p and r at the level
    ``second`` gives it, and every pair at the higher of the two."""
    frame, hierarchies = {}, {}
    for j, (height, one, two) in enumerate(zip(heights, first, second)):
        # the level at which each pair of (p, q, r, s) merges
        merge = {
            ("p", "q"): one,
            ("r", "s"): one,
            ("p", "r"): two,
            ("q", "s"): two,
            ("p", "s"): max(one, two),
            ("q", "r"): max(one, two),
        }
        rows = "pqrs"
        # label of each row at each level: the first row it has merged with by then
        labels = [
            [
                f"{min(x for x in rows if x == row or merge.get(tuple(sorted((x, row))), 99) <= level)}{level}"
                for row in rows
            ]
            for level in range(height)
        ]
        values = labels[0]
        frame[f"c{j}"] = values
        distinct = list(dict.fromkeys(values))
        hierarchies[f"c{j}"] = Hierarchy(
            distinct,
            [[labels[level][values.index(v)] for v in distinct] for level in range(1, height)]
            + [["*"] * len(distinct)],
        )
    return pd.DataFrame(frame), hierarchies


TIES = [
    # heights, the lower node (wins), the higher one; both generalize 7/18 exactly, but the
    # float sums are 0.38888888888888895 and 0.3888888888888889
    ((1, 2, 6), (0, 2, 1), (0, 1, 4)),
    # the same height (samarati's choice): 3/10 exactly; 0.30000000000000004 and 0.3
    ((5, 5), (1, 2), (3, 0)),
]


@pytest.mark.parametrize(("heights", "low", "high"), TIES)
def test_equal_precision_is_equal(heights, low, high):
    floats = [
        sum(level / h for level, h in zip(node, heights)) / len(heights) for node in (low, high)
    ]
    assert floats[0] > floats[1]  # what the float sums said
    assert mean_level(low, heights) == mean_level(high, heights)
    frame, hierarchies = two_minimal_nodes(heights, low, high)
    lattice = Lattice.of_frame(frame, list(frame.columns), hierarchies)
    assert lattice.heights == heights
    evaluator = Evaluator(lattice, [KAnonymity(2)], 0.0)
    feasible = [node for node in lattice.nodes() if evaluator(node).feasible]
    minimal = [
        n
        for n in feasible
        if not any(m != n and all(a <= b for a, b in zip(m, n)) for m in feasible)
    ]
    assert sorted(minimal) == sorted([low, high])


@pytest.mark.parametrize("algo", ["ola", "incognito", "samarati"])
@pytest.mark.parametrize(("heights", "low", "high"), TIES)
def test_an_exact_tie_goes_to_the_lower_node(algo, heights, low, high):
    frame, hierarchies = two_minimal_nodes(heights, low, high)
    qid = list(frame.columns)
    lattice = Lattice.of_frame(frame, qid, hierarchies)
    metric = resolve_metric("precision", lattice.heights, lattice.n_rows, 2)
    found = SEARCHES[algo](Evaluator(lattice, [KAnonymity(2)], 0.0), metric)
    exhaustive = exhaustive_search(Evaluator(lattice, [KAnonymity(2)], 0.0), metric)
    value = mean_level(low, heights)
    assert (
        (found.best.node, found.value) == (exhaustive.best.node, exhaustive.value) == (low, value)
    )
    report = pandas_anon.anonymize(frame, 2, qid=qid, hierarchies=hierarchies, algo=algo).report
    assert tuple(report.levels[c] for c in qid) == low
    assert report.metrics["precision"] == float(value)


@pytest.mark.parametrize(("heights", "low", "high"), TIES)
def test_datafly_reports_the_exact_value(heights, low, high):
    """Datafly compares no metric: it stops at the first feasible node of its path (the
    second case: ``high``); its value is the exact precision of that node."""
    frame, hierarchies = two_minimal_nodes(heights, low, high)
    lattice = Lattice.of_frame(frame, list(frame.columns), hierarchies)
    metric = resolve_metric("precision", lattice.heights, lattice.n_rows, 2)
    found = datafly.search(Evaluator(lattice, [KAnonymity(2)], 0.0), metric)
    assert found.value == mean_level(found.best.node, heights) == mean_level(low, heights)


def test_precision_with_suppression_is_exact():
    """p, q, r, s and a second p; at (0, 1, 1) only the two p rows share a class, so 3 of the
    5 rows are suppressed: g + (1 - g) s / n = 2/9 + 7/9 * 3/5 = 31/45."""
    frame, hierarchies = two_minimal_nodes(*TIES[0])
    frame = pd.concat([frame, frame.head(1)], ignore_index=True)
    lattice = Lattice.of_frame(frame, list(frame.columns), hierarchies)
    metric = resolve_metric("precision", lattice.heights, lattice.n_rows, 2)
    stats = Evaluator(lattice, [KAnonymity(2)], 0.6)((0, 1, 1))
    assert (stats.suppressed, lattice.n_rows) == (3, 5)
    assert metric.value(stats) == Fraction(31, 45)
    assert metric.floor((0, 1, 1)) == metric.bound(stats) == Fraction(2, 9)
    assert metric.floors()[0, 1, 1] == Fraction(2, 9) * metric.unit
    assert metric.floors().dtype == np.int64
