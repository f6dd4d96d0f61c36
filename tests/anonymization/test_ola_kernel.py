"""The compiled optimal search (fulldomain/_ola.c) against the Python search it mirrors: the
same nodes evaluated and probed, the same verdicts and the same optimum, on random lattices
(keys in one word or several, a cache that keeps everything or evicts all the time) and on
UCI Adult; where it applies and where the Python search runs instead."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_algorithms import FIVE, NINE, naive_feasible, setup, wide_problems

from pandas_anon.anonymization.fulldomain import cache as class_cache
from pandas_anon.anonymization.fulldomain import kernel, ola
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator
from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.anonymization.fulldomain.metrics import resolve_metric
from pandas_anon.engine import keys
from pandas_anon.privacy.models import KAnonymity, LDiversity

pytestmark = pytest.mark.skipif(not kernel.COMPILED, reason="the extension is not compiled")


def both(frame, qid, hierarchies, models, limit, metric):
    """The Python search and the compiled one on the same problem, each on its own lattice
    (the cache starts empty for both)."""
    found = []
    for compiled in (False, True):
        evaluator, chosen = setup(frame, qid, hierarchies, models, limit, metric)
        assert kernel.applies(evaluator, chosen)
        found.append(ola.search(evaluator, chosen, compiled=compiled))
    return found


def assert_same_steps(python, compiled):
    assert (python.best is None) == (compiled.best is None)
    if python.best is not None:
        assert python.best.node == compiled.best.node
        assert python.best.suppressed == compiled.best.suppressed
    assert python.value == compiled.value
    assert python.evaluated == compiled.evaluated
    assert python.notes == compiled.notes
    np.testing.assert_array_equal(python.explored.status, compiled.explored.status)
    np.testing.assert_array_equal(python.explored.evaluated, compiled.explored.evaluated)


@pytest.mark.parametrize("budget", [class_cache.BUDGET, 60])
@pytest.mark.parametrize("word_bits", [keys.WORD_BITS, 3])
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    problem=wide_problems(),
    metric=st.sampled_from(["precision", "dm"]),
    second_k=st.sampled_from([None, 2, 7]),
)
def test_the_compiled_search_takes_the_python_search_steps(
    monkeypatch, budget, word_bits, problem, metric, second_k
):
    """Keys spread over several words (3 bits each) and a cache of 60 array entries, which
    evicts all the time, change nothing; two k-anonymity models act as the larger k."""
    monkeypatch.setattr(class_cache, "BUDGET", budget)
    monkeypatch.setattr(keys, "WORD_BITS", word_bits)
    frame, qid, hierarchies, k, limit = problem
    models = [KAnonymity(k)] + ([] if second_k is None else [KAnonymity(second_k)])
    python, compiled = both(frame, qid, hierarchies, models, limit, metric)
    assert_same_steps(python, compiled)
    if compiled.best is not None:
        assert naive_feasible(
            frame, qid, hierarchies, compiled.best.node, max(m.k for m in models), limit
        )


@pytest.mark.parametrize(
    ("qid", "k", "limit", "metric"),
    [
        (FIVE, 50, 0.0, "dm"),
        (FIVE, 2, 0.05, "precision"),
        (NINE, 5, 0.0, "precision"),
        (NINE, 10, 0.0, "dm"),
        (NINE, 50, 0.05, "precision"),
    ],
)
def test_the_compiled_search_on_adult(adult, hierarchies, qid, k, limit, metric):
    python, compiled = both(adult, qid, hierarchies, [KAnonymity(k)], limit, metric)
    assert_same_steps(python, compiled)


def test_the_python_search_runs_what_the_kernel_does_not_cover(adult, hierarchies):
    """l-diversity (a sensitive column) and a custom metric run in Python; so does
    everything with compiled=False."""
    lattice = Lattice.of_frame(adult, FIVE, hierarchies, sensitive="salary-class")
    evaluator = Evaluator(lattice, [KAnonymity(5), LDiversity(2)], 0.0)
    assert not kernel.applies(evaluator, resolve_metric("dm", lattice.heights, lattice.n_rows, 5))
    plain = Lattice.of_frame(adult, FIVE, hierarchies)
    evaluator = Evaluator(plain, [KAnonymity(5)], 0.0)
    assert kernel.applies(evaluator, resolve_metric("dm", plain.heights, plain.n_rows, 5))
    custom = resolve_metric(lambda stats: stats.suppressed, plain.heights, plain.n_rows, 5)
    assert not kernel.applies(evaluator, custom)


def test_the_compiled_search_reports_progress(adult, hierarchies, monkeypatch):
    """Every 500 evaluations the progress bar advances, as in the Python search."""
    seen = []
    monkeypatch.setattr(ola.Progress, "advance", lambda self, detail="": seen.append(detail))
    evaluator, chosen = setup(adult, NINE, hierarchies, [KAnonymity(2)], 0.05, "dm")
    found = ola.search(evaluator, chosen, progress=True)
    assert found.evaluated >= 1_000
    assert seen[:2] == ["500 evaluated", "1,000 evaluated"]
    assert len(seen) == found.evaluated // 500


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI checks the extension was built")
def test_the_search_kernel_is_compiled_in_ci():
    """CI, which has a C compiler, must not fall back to the Python search unnoticed."""
    assert kernel.COMPILED
