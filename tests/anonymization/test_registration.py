"""A new algorithm is one module and one registration: a test-only algorithm, registered
through the public plugin hook, runs behind kanon like the built-in ones, and its output is
checked by the independent verifier and measured by the same utility module."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.anonymization.algorithms import Problem, algorithms
from pandas_anon.anonymization.recoding import KEEP
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.errors import InfeasibleError, InvalidParameterError
from pandas_anon.plugins import manager as plugins

from verify import verify_anonymized

QID = ["age", "sex", "race"]


class SuppressOnly:
    """k-anonymity by suppression alone: every class smaller than k is suppressed, every
    other value is kept as read (the simplest method the contract admits)."""

    name = "suppress-only"
    description = "test only: suppress the classes below k, keep everything else"

    def decide(self, problem: Problem) -> Transformation:
        frequencies = problem.tabulation.frequencies
        classes, class_of = frequencies.project(problem.qid)
        suppressed = (classes.counts < problem.k)[class_of]
        limit = int(np.floor(problem.max_suppression * frequencies.n_rows + 1e-9))
        if int(frequencies.counts[suppressed].sum()) > limit:
            raise InfeasibleError(f"suppress-only needs more than {limit} rows suppressed")
        keep = np.full(len(frequencies), KEEP, dtype=np.int64)
        return Transformation(
            method=self.name,
            tabulation=problem.tabulation,
            qid=problem.qid,
            recodings={c: ColumnRecoding(keep, pd.Index([])) for c in problem.qid},
            suppressed=suppressed,
            privacy={"k": float(classes.counts[classes.counts >= problem.k].min())},
            search={"lattice_size": 1, "evaluated": 1},
        )


class ToyPlugin:
    @pandas_anon.hookimpl
    def register_algorithms(self, register):
        register(SuppressOnly())


@pytest.fixture
def registered():
    pm = plugins.get_plugin_manager()
    pm.register(ToyPlugin(), name="toy-algorithm")
    yield
    pm.unregister(name="toy-algorithm")


def test_a_registered_algorithm_runs_behind_kanon(adult, registered):
    assert "suppress-only" in algorithms()
    out = pandas_anon.kanon(adult, 5, qid=QID, algo="suppress-only", max_suppression=0.05)
    report = out.anon.report()
    naive = adult.groupby(QID).size()
    alone = int(naive[naive < 5].sum())  # rows in classes below 5: what it must suppress
    found = verify_anonymized(out, QID, 5, max_suppressed=int(0.05 * len(adult)))
    assert found["suppressed"] == report.suppressed == alone == 425
    assert report.classes == found["classes"] == int((naive >= 5).sum()) == 337
    assert (report.algorithm, report.k_reached) == ("suppress-only", found["k"])
    assert report.metrics["dm"] == found["dm"]
    assert "precision" not in report.metrics  # no hierarchy wrote the values
    assert report.metrics["gcp"] == pytest.approx(alone / len(adult))  # suppressed cells only
    assert report.modified == alone
    kept = out[~(out[QID] == "*").all(axis=1)]
    pd.testing.assert_frame_equal(kept, adult.loc[kept.index], check_dtype=False)  # as read


def test_registered_names_are_offered_and_unknown_ones_refused(adult, registered):
    names = list(algorithms())
    assert names[:5] == ["ola", "datafly", "samarati", "incognito", "exhaustive"]
    assert names[-1] == "suppress-only"
    with pytest.raises(InvalidParameterError, match="'suppress-only'.*got 'magic'"):
        pandas_anon.kanon(adult, 5, qid=QID, algo="magic")


def test_without_the_plugin_the_name_is_unknown(adult):
    assert "suppress-only" not in algorithms()
    with pytest.raises(InvalidParameterError, match="got 'suppress-only'"):
        pandas_anon.kanon(adult, 5, qid=QID, algo="suppress-only")


def test_a_plugin_cannot_take_a_builtin_name(adult):
    class Impostor:
        name, description = "ola", "not the real one"

        def decide(self, problem):  # pragma: no cover - never chosen
            raise AssertionError("the built-in ola must be used")

    class Plugin:
        @pandas_anon.hookimpl
        def register_algorithms(self, register):
            register(Impostor())

    pm = plugins.get_plugin_manager()
    pm.register(Plugin(), name="impostor")
    try:
        with pytest.warns(pandas_anon.AnonWarning, match="name of pandas-anon's own"):
            chosen = algorithms()["ola"]
        assert not isinstance(chosen, Impostor)
    finally:
        pm.unregister(name="impostor")
