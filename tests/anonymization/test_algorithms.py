"""The lattice searches (Incognito, Samarati, Datafly, the optimal search) against exhaustive
evaluation and an independent verifier, on UCI Adult and on random small tables."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pandas_anon.anonymization.fulldomain import cache as class_cache
from pandas_anon.anonymization.fulldomain import datafly, incognito, ola, samarati
from pandas_anon.anonymization.fulldomain.base import tie_key
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.exhaustive import search as exhaustive_search
from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.anonymization.fulldomain.metrics import resolve_metric
from pandas_anon.engine import keys
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.privacy.models import KAnonymity, LDiversity, TCloseness, merge_safe

FIVE = ["age", "sex", "race", "marital-status", "education"]
NINE = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]
SEARCHES = {
    "ola": ola.search,
    "incognito": incognito.search,
    "samarati": samarati.search,
    "datafly": datafly.search,
}
fast = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- an independent verifier: Hierarchy.generalize column by column, then plain groupby ------


def generalized(frame: pd.DataFrame, qid: list, hierarchies: dict, node: tuple) -> pd.DataFrame:
    """The QI columns recoded at ``node``; at the top level missing values join the single
    top label (below it they stay a value of their own, as in the lattice)."""
    columns = {}
    for column, level in zip(qid, node):
        h = hierarchies[column]
        out = h.generalize(frame[column], level).astype(object)
        columns[column] = out.fillna(h.labels(h.height)[0]) if level == h.height else out
    return pd.DataFrame(columns, index=frame.index)


def naive_suppressed(frame: pd.DataFrame, qid: list, hierarchies: dict, node: tuple, k: int) -> int:
    """Rows in classes of fewer than k rows at ``node``."""
    sizes = generalized(frame, qid, hierarchies, node).groupby(qid, dropna=False, sort=False).size()
    return int(sizes[sizes < k].sum())


def naive_limit(max_suppression: float, n_rows: int) -> int:
    """Rows a node may suppress: never all of them (a release of no row is no solution)."""
    return min(
        int(Fraction(str(max_suppression)) * n_rows),  # floor, exact on decimal fractions
        n_rows - 1,
    )


def naive_feasible(frame, qid, hierarchies, node, k, max_suppression) -> bool:
    return naive_suppressed(frame, qid, hierarchies, node, k) <= naive_limit(
        max_suppression, len(frame)
    )


# -- shared helpers ---------------------------------------------------------------------------


def setup(frame, qid, hierarchies, models, limit, metric="precision", sensitive=None):
    lattice = Lattice.of_frame(frame, qid, hierarchies, sensitive=sensitive)
    return (
        Evaluator(lattice, models, limit),
        resolve_metric(
            metric,
            lattice.heights,
            lattice.n_rows,
            next((m.k for m in models if isinstance(m, KAnonymity)), 1),
            most_classes=lattice.most_classes(),
        ),
    )


def run(name, frame, qid, hierarchies, models, limit, metric="precision", sensitive=None):
    evaluator, chosen = setup(frame, qid, hierarchies, models, limit, metric, sensitive)
    return SEARCHES[name](evaluator, chosen)


def feasible_set(frame, qid, hierarchies, models, limit, sensitive=None) -> list[tuple]:
    """Every feasible node, by evaluating each one."""
    evaluator, _ = setup(frame, qid, hierarchies, models, limit, sensitive=sensitive)
    return [node for node in evaluator.lattice.nodes() if evaluator(node).feasible]


def best_at_height(frame, qid, hierarchies, models, limit, height, metric="precision"):
    """The best feasible node of a height by the metric, evaluating each one."""
    evaluator, chosen = setup(frame, qid, hierarchies, models, limit, metric)
    keys = [
        tie_key(chosen.value(stats), stats.node)
        for stats in map(evaluator, evaluator.lattice.nodes())
        if stats.feasible and sum(stats.node) == height
    ]
    return min(keys)


# -- UCI Adult ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("limit", "expected"), [(0.0, 33), (0.05, 214)])
def test_incognito_finds_every_k_anonymous_node_on_adult(adult, hierarchies, limit, expected):
    found = incognito.all_feasible(adult, FIVE, hierarchies, [KAnonymity(5)], limit)
    reference = feasible_set(adult, FIVE, hierarchies, [KAnonymity(5)], limit)
    assert len(found) == len(reference) == expected
    assert found == reference
    # and it picks the optimum among them, evaluating fewer full nodes than the 240
    result = run("incognito", adult, FIVE, hierarchies, [KAnonymity(5)], limit)
    exhaustive = exhaustive_search(*setup(adult, FIVE, hierarchies, [KAnonymity(5)], limit))
    assert (result.best.node, result.value) == (exhaustive.best.node, exhaustive.value)
    assert result.notes["pruned"] and result.notes["feasible"] == expected
    assert result.notes["evaluated_full"] < result.lattice_size == 240


@pytest.mark.parametrize("limit", [0.0, 0.05])
def test_samarati_reaches_the_lowest_feasible_height_on_adult(adult, hierarchies, limit):
    result = run("samarati", adult, FIVE, hierarchies, [KAnonymity(5)], limit)
    lowest = min(map(sum, feasible_set(adult, FIVE, hierarchies, [KAnonymity(5)], limit)))
    assert sum(result.best.node) == result.notes["height"] == lowest
    assert tie_key(result.value, result.best.node) == best_at_height(
        adult, FIVE, hierarchies, [KAnonymity(5)], limit, lowest
    )
    assert result.notes["probed"][0] == sum(hierarchies[c].height for c in FIVE)  # the top
    assert result.evaluated < 240
    assert naive_feasible(adult, FIVE, hierarchies, result.best.node, 5, limit)


@pytest.mark.parametrize("limit", [0.0, 0.05])
def test_datafly_generalizes_the_most_varied_column_until_feasible(adult, hierarchies, limit):
    result = run("datafly", adult, FIVE, hierarchies, [KAnonymity(5)], limit)
    assert result.best.feasible and naive_feasible(
        adult, FIVE, hierarchies, result.best.node, 5, limit
    )
    check_datafly_path(adult, FIVE, hierarchies, result, 5, limit)


def check_datafly_path(frame, qid, hierarchies, result, k, limit):
    """Each step raises by one level the column with the most distinct values (first on
    ties) among those below the top, and only infeasible nodes are left behind."""
    path = result.notes["path"]
    assert path[0] == (0,) * len(qid)
    for node, following in zip(path, path[1:]):
        assert not naive_feasible(frame, qid, hierarchies, node, k, limit)
        distinct = generalized(frame, qid, hierarchies, node).nunique(dropna=False)
        open_columns = [j for j, c in enumerate(qid) if node[j] < hierarchies[c].height]
        most = max(distinct.iloc[j] for j in open_columns)
        chosen = next(j for j in open_columns if distinct.iloc[j] == most)
        assert following == node[:chosen] + (node[chosen] + 1,) + node[chosen + 1 :]
    assert result.best is None or result.best.node == path[-1]
    assert result.evaluated == len(path)


@pytest.mark.slow
def test_every_search_on_the_nine_column_adult_lattice(adult, hierarchies):
    """k=5, 5% suppression, precision: the complete searches agree on the optimum, the
    heuristics return feasible nodes that are no better."""
    results = {
        name: run(name, adult, NINE, hierarchies, [KAnonymity(5)], 0.05) for name in SEARCHES
    }
    optimum = results["ola"]
    assert optimum.best.node == (0, 4, 0, 0, 3, 1, 0, 1, 0)
    assert round(float(optimum.value), 4) == 0.3656
    assert (results["incognito"].best.node, results["incognito"].value) == (
        optimum.best.node,
        optimum.value,
    )
    assert results["incognito"].notes["feasible"] == 5_184
    assert results["samarati"].notes["height"] == 8
    for name, result in results.items():
        assert result.lattice_size == 12_960
        assert result.value >= optimum.value
        assert naive_feasible(adult, NINE, hierarchies, result.best.node, 5, 0.05), name


# -- random small tables ---------------------------------------------------------------------


@st.composite
def hierarchy_and_column(draw, name: str, n_rows: int):
    """A random hierarchy (1-8 values, 0-2 levels between the values and the top, labels
    merged at random) and a column drawn from its values, text ones possibly missing (never
    all of them).

    Hypothesis favours small draws, which here make constant columns and k-anonymous tables
    from the bottom up; counts are drawn as "all but a few", and rows and merges uniformly
    from a drawn seed, so most lattices hold feasible and infeasible nodes alike."""
    n_values = 8 - draw(st.integers(0, 7))
    text = draw(st.booleans())
    values = (
        [f"{name}{i}" for i in range(n_values)] if text else [10 * i + 3 for i in range(n_values)]
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    group = list(range(n_values))
    levels = []
    for depth in range(2 - draw(st.integers(0, 2))):
        below = max(group) + 1
        parent = rng.integers(0, below - draw(st.integers(0, below - 1)), below)
        group = [int(parent[g]) for g in group]
        levels.append([f"{name}L{depth + 1}g{g}" for g in group])
    hierarchy = Hierarchy(values, levels, name=name)
    used = n_values - draw(st.integers(0, n_values - 1))  # how many values occur
    cells = [values[p] for p in rng.integers(0, used, n_rows)]
    if text and draw(st.booleans()):
        holes = rng.random(n_rows) < 0.2
        holes[0] = False  # a column with no value at all is refused by the engine
        cells = [None if hole else cell for cell, hole in zip(cells, holes)]
    return hierarchy, pd.Series(cells, dtype=object if text else np.int64)


@st.composite
def problems(draw, min_rows: int = 5, max_rows: int = 60):
    """(frame, qid, hierarchies, k, max_suppression) with 2-3 quasi-identifiers."""
    n_rows = draw(st.integers(min_rows, max_rows))
    qid = ["a", "b", "c"][: draw(st.integers(2, 3))]
    hierarchies, columns = {}, {}
    for name in qid:
        hierarchies[name], columns[name] = draw(hierarchy_and_column(name, n_rows))
    k = draw(st.sampled_from([3, 2, 4, 5, 6, 8, 10, 12, 1]))
    limit = draw(st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.5, 1.0]))
    return pd.DataFrame(columns), qid, hierarchies, k, limit


def check_output(name, frame, qid, hierarchies, k, limit):
    """Run one search: its node (if any) is feasible for the independent verifier, and None
    comes back exactly when the verifier finds no node feasible (then not even the top is)."""
    result = run(name, frame, qid, hierarchies, [KAnonymity(k)], limit)
    top = tuple(hierarchies[c].height for c in qid)
    if result.best is None:
        assert not naive_feasible(frame, qid, hierarchies, top, k, limit)
        assert result.value == np.inf
    else:
        assert result.best.feasible
        assert naive_feasible(frame, qid, hierarchies, result.best.node, k, limit)
    return result


@fast
@given(problem=problems(), metric=st.sampled_from(["precision", "dm"]))
def test_ola_equals_exhaustive(problem, metric):
    frame, qid, hierarchies, k, limit = problem
    result = check_output("ola", *problem)
    reference = exhaustive_search(*setup(frame, qid, hierarchies, [KAnonymity(k)], limit, metric))
    evaluator, chosen = setup(frame, qid, hierarchies, [KAnonymity(k)], limit, metric)
    found = ola.search(evaluator, chosen)
    assert (found.best is None) == (reference.best is None) == (result.best is None)
    if found.best is not None:
        assert (found.best.node, found.value) == (reference.best.node, reference.value)


@st.composite
def wide_problems(draw):
    """4-5 quasi-identifiers and up to 300 rows: lattices of up to 243 nodes, where probes
    walk long paths and roll-ups start from nodes other than direct predecessors."""
    n_rows = draw(st.integers(20, 300))
    qid = ["a", "b", "c", "d", "e"][: draw(st.integers(4, 5))]
    hierarchies, columns = {}, {}
    for name in qid:
        hierarchies[name], columns[name] = draw(hierarchy_and_column(name, n_rows))
    k = draw(st.sampled_from([2, 3, 5, 10]))
    limit = draw(st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.3]))
    return pd.DataFrame(columns), qid, hierarchies, k, limit


@pytest.mark.parametrize("budget", [class_cache.BUDGET, 60])
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(problem=wide_problems(), metric=st.sampled_from(["precision", "dm"]))
def test_ola_equals_exhaustive_on_wider_lattices(monkeypatch, budget, problem, metric):
    """Also with a roll-up cache of 60 array entries, which evicts all the time."""
    monkeypatch.setattr(class_cache, "BUDGET", budget)
    frame, qid, hierarchies, k, limit = problem
    reference = exhaustive_search(*setup(frame, qid, hierarchies, [KAnonymity(k)], limit, metric))
    found = run("ola", frame, qid, hierarchies, [KAnonymity(k)], limit, metric)
    assert (found.best is None) == (reference.best is None)
    if found.best is not None:
        assert (found.best.node, found.value) == (reference.best.node, reference.value)
        assert naive_feasible(frame, qid, hierarchies, found.best.node, k, limit)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(max_rows=40), metric=st.sampled_from(["precision", "dm"]))
def test_metric_bounds_hold_for_every_node_above(problem, metric):
    """What the optimal search prunes with: a node's floor, and an evaluated node's bound,
    never exceed the metric of a feasible node at or above it."""
    frame, qid, hierarchies, k, limit = problem
    evaluator, chosen = setup(frame, qid, hierarchies, [KAnonymity(k)], limit, metric)
    stats = {node: evaluator(node) for node in evaluator.lattice.nodes()}
    floors = chosen.floors()
    for node, below in stats.items():
        assert floors[node] == chosen.scaled_floor(node) == chosen.floor(node) * chosen.unit
        for above in stats.values():
            if above.feasible and all(a >= b for a, b in zip(above.node, node)):
                assert chosen.value(above) >= chosen.bound(below)
                assert chosen.value(above) >= chosen.floor(above.node)


def float_tie():
    """(1, 0) and (0, 2) both generalize 1/6 and suppress nothing (25 rows, k=2); the lower
    one wins the tie. Computed as (25 * g) / 25 the precision fell an ulp below its bound g,
    and a search that had seen (0, 2) first dropped (1, 0); it is now g + (1 - g) * s / n."""
    rows = [(a, 2 * j + d) for j in range(5) for a, d in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 0)]]
    frame = pd.DataFrame(rows, columns=["a", "b"])
    b = list(range(10))
    hierarchies = {
        "a": Hierarchy([0, 1], [["p", "p"], ["q", "q"], ["r", "r"]]),
        "b": Hierarchy(
            b,
            [
                b,
                [v // 2 for v in b],
                [v // 2 for v in b],
                [v // 4 for v in b],
                [v // 8 for v in b],
                [0] * 10,
            ],
        ),
    }
    reference = exhaustive_search(*setup(frame, ["a", "b"], hierarchies, [KAnonymity(2)], 0.0))
    assert reference.best.node == (1, 0)
    assert reference.value >= resolve_metric("precision", (3, 6), 25).floor((1, 0))
    return frame, hierarchies, reference


@pytest.mark.parametrize("algorithm", ["ola", "incognito"])
def test_float_ties_are_broken_like_exhaustive(algorithm):
    frame, hierarchies, reference = float_tie()
    found = run(algorithm, frame, ["a", "b"], hierarchies, [KAnonymity(2)], 0.0)
    assert found.value == reference.value
    assert found.best.node == reference.best.node


@fast
@given(problem=problems())
def test_incognito_finds_exactly_the_feasible_nodes(problem):
    frame, qid, hierarchies, k, limit = problem
    result = check_output("incognito", *problem)
    found = incognito.all_feasible(frame, qid, hierarchies, [KAnonymity(k)], limit)
    assert found == feasible_set(frame, qid, hierarchies, [KAnonymity(k)], limit)
    reference = exhaustive_search(*setup(frame, qid, hierarchies, [KAnonymity(k)], limit))
    assert (result.best is None) == (reference.best is None) == (not found)
    if found:
        assert (result.best.node, result.value) == (reference.best.node, reference.value)


@fast
@given(problem=problems())
def test_samarati_reaches_the_lowest_feasible_height(problem):
    frame, qid, hierarchies, k, limit = problem
    result = check_output("samarati", *problem)
    feasible = feasible_set(frame, qid, hierarchies, [KAnonymity(k)], limit)
    if not feasible:
        assert result.best is None and result.notes["height"] is None
        return
    lowest = min(map(sum, feasible))
    assert sum(result.best.node) == result.notes["height"] == lowest
    assert tie_key(result.value, result.best.node) == best_at_height(
        frame, qid, hierarchies, [KAnonymity(k)], limit, lowest
    )


@fast
@given(problem=problems())
def test_datafly_returns_a_feasible_node_on_its_path(problem):
    frame, qid, hierarchies, k, limit = problem
    result = check_output("datafly", *problem)
    check_datafly_path(frame, qid, hierarchies, result, k, limit)


@pytest.mark.parametrize("word_bits", [keys.WORD_BITS, 3])
@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(problem=problems(max_rows=30))
def test_the_engine_judges_every_node_like_the_verifier(monkeypatch, word_bits, problem):
    """What the searches are compared against (exhaustive evaluation) agrees with the
    verifier on every node, with class keys in one word or spread over several."""
    monkeypatch.setattr(keys, "WORD_BITS", word_bits)
    frame, qid, hierarchies, k, limit = problem
    evaluator, _ = setup(frame, qid, hierarchies, [KAnonymity(k)], limit)
    for node in evaluator.lattice.nodes():
        stats = evaluator(node)
        assert stats.suppressed == naive_suppressed(frame, qid, hierarchies, node, k)
        assert stats.feasible == naive_feasible(frame, qid, hierarchies, node, k, limit)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(max_rows=12), name=st.sampled_from(sorted(SEARCHES)))
def test_no_feasible_node_means_no_result(problem, name):
    """k above the number of rows and nothing may be suppressed: every search returns None."""
    frame, qid, hierarchies, _, _ = problem
    k = len(frame) + 1
    assert not naive_feasible(
        frame, qid, hierarchies, tuple(hierarchies[c].height for c in qid), k, 0.0
    )
    result = check_output(name, frame, qid, hierarchies, k, 0.0)
    assert result.best is None and result.value == np.inf
    assert incognito.all_feasible(frame, qid, hierarchies, [KAnonymity(k)], 0.0) == []


# -- other privacy models ----------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    problem=problems(),
    sensitive=st.lists(st.sampled_from("xyz"), min_size=60, max_size=60),
    model=st.sampled_from(
        [
            LDiversity(2),
            LDiversity(2, "entropy"),
            LDiversity(2, "recursive", c=3),
            TCloseness(0.3),
            TCloseness(0.3, ordered=True),
        ]
    ),
)
def test_sensitive_models_keep_the_searches_exact(problem, sensitive, model):
    """Distinct l-diversity prunes like k-anonymity; with the other models (suppression not
    monotone) Incognito checks every node, Samarati scans the heights from the bottom and the
    optimal search tags no feasibility, so the results are exact either way."""
    frame, qid, hierarchies, k, limit = problem
    frame = frame.assign(s=sensitive[: len(frame)])
    models = [KAnonymity(k), model]
    feasible = feasible_set(frame, qid, hierarchies, models, limit, sensitive="s")
    found = incognito.all_feasible(frame, qid, hierarchies, models, limit, sensitive="s")
    assert found == feasible
    result = run("incognito", frame, qid, hierarchies, models, limit, sensitive="s")
    assert result.notes["pruned"] == merge_safe(models)
    reference = exhaustive_search(*setup(frame, qid, hierarchies, models, limit, sensitive="s"))
    assert (result.best is None) == (reference.best is None) == (not feasible)
    if result.best is not None:
        assert (result.best.node, result.value) == (reference.best.node, reference.value)
    optimal = run("ola", frame, qid, hierarchies, models, limit, sensitive="s")
    assert (optimal.best is None) == (reference.best is None)
    if optimal.best is not None:
        assert (optimal.best.node, optimal.value) == (reference.best.node, reference.value)
    lowest = run("samarati", frame, qid, hierarchies, models, limit, sensitive="s")
    assert lowest.notes["binary"] == merge_safe(models)
    assert lowest.notes["height"] == (min(map(sum, feasible)) if feasible else None)


def test_entropy_l_diversity_breaks_the_subset_property():
    """Why only k-anonymity and distinct l-diversity prune: with 4 of 6 rows suppressible,
    the bottom of (a, b) is entropy 2-diverse (class (p, u) holds x and y; (p, v), all x, is
    suppressed), but on a alone the class p mixes them (x five times, y once) and all six
    rows are lost. Pruning by the projection would miss the bottom node."""
    frame = pd.DataFrame(
        {"a": ["p"] * 6, "b": ["u", "u", "v", "v", "v", "v"], "s": ["x", "y", "x", "x", "x", "x"]}
    )
    hierarchies = {"a": Hierarchy(["p"]), "b": Hierarchy(["u", "v"])}
    entropy = [LDiversity(2, "entropy")]
    evaluator, _ = setup(frame, ["a", "b"], hierarchies, entropy, 4 / 6, sensitive="s")
    assert evaluator((0, 0)).feasible
    projection, _ = setup(frame, ["a"], hierarchies, entropy, 4 / 6, sensitive="s")
    assert not projection((0,)).feasible
    assert not merge_safe(entropy) and merge_safe([LDiversity(2)])
    assert not evaluator((1, 1)).feasible  # nor the top: monotonicity fails the same way
    assert (0, 0) in incognito.all_feasible(
        frame, ["a", "b"], hierarchies, entropy, 4 / 6, sensitive="s"
    )
    lowest = run("samarati", frame, ["a", "b"], hierarchies, entropy, 4 / 6, sensitive="s")
    assert lowest.best.node == (0, 0) and not lowest.notes["binary"]


def test_projection_keeps_rows_and_counts(adult, hierarchies):
    """A projection built from the frequency set evaluates like a lattice built from the
    table on the same columns."""
    lattice = Lattice.of_frame(adult, FIVE, hierarchies, sensitive="salary-class")
    sub = lattice.project([0, 3, 4])
    direct = Lattice.of_frame(
        adult, ["age", "marital-status", "education"], hierarchies, sensitive="salary-class"
    )
    assert sub.qid == direct.qid and sub.heights == direct.heights
    assert sub.n_rows == direct.n_rows == len(adult)
    models = [KAnonymity(5), LDiversity(2)]
    for node in [(0, 0, 0), (1, 0, 2), (2, 1, 1), (4, 2, 3)]:
        ours, theirs = Evaluator(sub, models, 0.05)(node), Evaluator(direct, models, 0.05)(node)
        assert sorted(ours.classes.sizes) == sorted(theirs.classes.sizes)
        assert ours.suppressed == theirs.suppressed and ours.feasible == theirs.feasible
    assert lattice.project(range(5)) is lattice
