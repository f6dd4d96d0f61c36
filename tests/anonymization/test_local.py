"""``kanon(k, algo="local")``: local recoding of the classes that break the goal. Every
release meets its models (independent verifiers), rows already safe are untouched, and the
figures on real data: Valle d'Aosta (the seed paper's QID) and UCI Adult (9 QIs, k=5)."""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import InvalidParameterError, LDiversity, TCloseness
from pandas_anon.hierarchy import Hierarchy

from conftest import SEED_QID
from test_properties_algorithms import (
    TOP,
    Call,
    Case,
    calls,
    cases,
    comparable,
    examples,
    expected_refusal,
    limit_of,
    released,
    same_values,
)
from verify import (
    l_level,
    release_classes,
    t_distances,
    verify_anonymized,
    verify_l_diverse,
    verify_t_close,
)

pytestmark = pytest.mark.filterwarnings("ignore::pandas_anon.IncompleteRowsWarning")


def test_only_the_rows_at_risk_are_generalized():
    """k=2 on (age, town): the single 1960/A row climbs to the 1960s (where the single
    1961/A row joins it); every row in a class of two or more stays as it was."""
    frame = pd.DataFrame(
        {
            "age": [1950, 1950, 1960, 1961, 1970, 1970, 1970],
            "town": ["A", "A", "A", "A", "B", "B", "B"],
        }
    )
    decades = Hierarchy(
        [1950, 1960, 1961, 1970], [["1950s", "1960s", "1960s", "1970s"]], name="decades"
    )
    out = frame.anon.kanon(2, qid=["age", "town"], hierarchies={"age": decades}, algo="local")
    assert out["age"].tolist() == [1950, 1950, "1960s", "1960s", 1970, 1970, 1970]
    assert out["town"].tolist() == frame["town"].tolist()
    report = out.anon.report()
    assert (report.modified, report.suppressed, report.classes) == (2, 0, 3)
    assert report.rows_by_level == {"age": {0: 5, 1: 2}} and report.levels == {"town": 0}
    assert report.search["rows_at_risk"] == 2 and report.search["rows_promoted"] == 0


def test_a_leftover_fits_the_suppression_limit_or_joins_the_top():
    """One row no step can rescue: suppressed when the limit allows, else the smallest safe
    class is written at the top with it (the report counts those rows)."""
    frame = pd.DataFrame({"town": ["A", "A", "A", "B", "B", "C"]})
    out = frame.anon.kanon(2, qid=["town"], algo="local", max_suppression=0.2)
    assert out["town"].tolist() == ["A", "A", "A", "B", "B", "*"]
    assert out.anon.report().suppressed == 1
    out = frame.anon.kanon(2, qid=["town"], algo="local")
    assert out["town"].tolist() == ["A", "A", "A", "*", "*", "*"]
    report = out.anon.report()
    assert report.suppressed == 0 and report.search["rows_promoted"] == 2


def test_a_metric_the_steps_cannot_rank_is_refused():
    frame = pd.DataFrame({"town": list("AABB")})
    with pytest.raises(InvalidParameterError, match="metric='precision' or metric='dm'"):
        frame.anon.kanon(2, qid=["town"], algo="local", metric=lambda *a: 0.0)


# -- every release verified, safe rows untouched ------------------------------------------


def input_classes(frame: pd.DataFrame, case: Case, call: Call) -> pd.Series:
    """Per input row, whether its class (its QI values as they are, missing a value) meets
    the goal: at least k rows, and the l-diversity or t-closeness asked, read by the
    independent verifiers."""
    qid = case.qid
    label = frame[qid].astype(object).groupby(qid, dropna=False, sort=False).ngroup()
    label = label.to_numpy()
    sizes = np.bincount(label)
    holds = sizes >= call.k
    if call.l is not None:
        model = call.l_model()
        values = comparable(frame["s"])
        for j in range(len(sizes)):
            holds[j] &= l_level(values[label == j], model.variant, model.l, model.c)[1]
    if call.t is not None:
        model = call.t_model(frame)
        view = pd.DataFrame({"class": label.astype(str), "s": comparable(frame["s"]).array})
        distances = t_distances(view, ["class"], "s", ordered=model.ordered)
        # as verify_t_close reads t: the float's exact value, less than 1e-12 of rounding
        holds &= np.array([d <= Fraction(model.t) + Fraction(1, 10**12) for d in distances])
    return pd.Series(holds[label], index=frame.index)


GOALS = {
    "k": st.just((None, None)),
    "l": st.tuples(
        st.sampled_from(
            [2, 3, LDiversity(2), LDiversity(1.5, "entropy"), LDiversity(2, "recursive", c=3)]
        ),
        st.none(),
    ),
    "t": st.tuples(st.none(), st.sampled_from([0.2, 0.5, TCloseness(0.3)])),
}


def breaks_l(frame: pd.DataFrame, call) -> None:
    """Why a release may be infeasible: the whole table breaks the l-diversity asked."""
    assert call.l is not None
    model = call.l_model()
    assert not l_level(comparable(frame["s"]), model.variant, model.l, model.c)[1]
    event("infeasible")


@pytest.mark.parametrize("goal", list(GOALS))
@examples
@given(data=st.data())
def test_every_local_release_meets_its_goal_and_leaves_safe_rows_alone(goal, data):
    """``EXAMPLES`` random frames per goal (k-anonymity, l-diversity in its three variants,
    t-closeness)."""
    case = data.draw(cases(sensitive=goal != "k"), label="case")
    l, t = data.draw(GOALS[goal], label="model")  # noqa: E741
    call = replace(data.draw(calls(case), label="call"), l=l, t=t)
    frame = case.frame()
    note(f"frame:\n{frame}\ndtypes: {dict(frame.dtypes)}")
    qid, n = case.qid, len(frame)
    found = released(frame, case, call, call.options(case, "local"), lambda: breaks_l(frame, call))
    if found is None:
        return
    out, _ = found
    report = out.anon.report()
    found = release_classes(out, qid, top=TOP)
    masked = found["masked"].to_numpy()
    assert (found["sizes"] >= call.k).all()
    if report.suppressed:
        assert report.suppressed == masked.sum() <= limit_of(call.max_suppression, n)
    else:  # rows at the top of every column form one class of their own
        assert masked.sum() == 0 or masked.sum() >= call.k
    if call.l is not None or call.t is not None:
        top = "\0never" if not report.suppressed else TOP  # a class of '*' is checked too
        # the sensitive values as they are (Int64 near 2**63 stays exact)
        view = found["by_class"].assign(s=comparable(frame["s"]).array)
        if call.l is not None:
            model = call.l_model()
            verify_l_diverse(view, qid, "s", model.l, model.variant, model.c, top=top)
        if call.t is not None:
            model = call.t_model(frame)
            whole = view["s"]
            verify_t_close(view, qid, "s", model.t, ordered=model.ordered, whole=whole, top=top)
    safe = input_classes(frame, case, call).to_numpy()
    changed = ~np.logical_and.reduce([same_values(out[c], frame[c]) for c in qid])
    promoted = report.search["rows_promoted"]
    event("some rows promoted" if promoted else "no row promoted")
    event("nothing at risk" if not report.search["rows_at_risk"] else "rows at risk")
    assert (changed & safe).sum() == promoted
    assert report.modified == changed.sum()
    assert report.search["rows_at_risk"] == (~safe).sum()


# -- real data ---------------------------------------------------------------------------


@pytest.mark.requires_plugin("italy")
def test_valle_d_aosta_k2_without_a_singleton_modifying_two_percent(licences):
    """The seed paper's QID, k=2, municipality -> province: no singleton left, 1,796 rows
    modified, where the rows of its Table 1 that reach no singleton (M, Y_ran ...) modify
    all 87,464 complete rows."""
    provinces = Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])
    out = licences.anon.kanon(
        2, qid=SEED_QID, hierarchies={"comune_residenza": provinces}, algo="local"
    )
    report = out.anon.report()
    assert out.anon.singletons(SEED_QID, dropna=False).count == 0
    verify_anonymized(out, SEED_QID, 2, 0)
    assert (report.modified, report.classes, report.suppressed) == (1796, 8003, 0)
    study = licences.anon.study(year="anno_nascita", sex="sesso", place="comune_residenza")
    reaching = study.table[study.table["singletons"] == 0]
    assert reaching["modified"].min() == 87464 > report.modified


def test_adult_nine_qis_k5_keeps_more_classes_than_arx(adult, hierarchies):
    """UCI Adult, 9 QIs, k=5: nothing suppressed, 4,665 classes (ARX 3.9's local recoding:
    0 suppressed, 4,557 classes), and far less lost than the optimal global recoding
    (precision 0.3656, ARX's optimum)."""
    qid = list(hierarchies)
    out = pandas_anon.kanon(adult, 5, qid=qid, hierarchies=hierarchies, algo="local")
    report = out.anon.report()
    found = verify_anonymized(out, qid, 5, 0)
    assert found["k"] >= 5
    assert (report.suppressed, report.classes) == (0, 4665)
    assert report.classes >= 4557
    assert report.metrics["precision"] == pytest.approx(0.1018, abs=1e-4)
    assert report.metrics["dm"] == 230_472


def test_rows_blocked_below_the_top_join_the_class_of_stars():
    """Entropy 2-diversity: the province label 'Aosta' equals a town, so the at-risk X rows
    cannot climb without spoiling the Aosta class; they are written at the top, and the
    classes join them until the class of '*' holds (no crash, the goal holds)."""
    frame = pd.DataFrame({"town": ["Aosta", "Aosta", "X", "X", "Z", "Z"], "s": list("abaabc")})
    towns = Hierarchy(["Aosta", "X", "Z"], [["Aosta", "Aosta", "Q"]])
    with pytest.warns(pandas_anon.OneClassWarning):
        out = pandas_anon.kanon(
            frame, 2, qid=["town"], algo="local", hierarchies={"town": towns},
            sensitive="s", l=LDiversity(2, "entropy"),
        )  # fmt: skip
    assert out["town"].tolist() == ["*"] * 6
    verify_l_diverse(out, ["town"], "s", 2, "entropy", top="\0never")


def test_the_classes_promoted_first_hold_the_fewest_untouched_rows():
    """X (at risk) is written 'Aosta' at level 1 and joins the 10 Aosta rows; W is safe;
    Y is left alone: the class of '*' takes W (2 untouched rows), not Aosta (10)."""
    frame = pd.DataFrame({"town": ["Aosta"] * 10 + ["X", "Y", "W", "W"]})
    towns = Hierarchy(["Aosta", "X", "Y", "W"], [["Aosta", "Aosta", "Q", "R"]])
    out = pandas_anon.kanon(frame, 2, qid=["town"], algo="local", hierarchies={"town": towns})
    assert out["town"].value_counts().to_dict() == {"Aosta": 11, "*": 3}
    assert out.anon.report().search["rows_promoted"] == 2


def test_suppressed_cells_count_as_changed():
    frame = pd.DataFrame({"town": list("AAABBC"), "age": [30, 30, 30, 40, 40, 50]})
    out = frame.anon.kanon(2, qid=["town", "age"], algo="ola", max_suppression=0.2)
    report = out.anon.report()
    assert report.suppressed == 1 and report.changed == {"town": 1, "age": 1}


def _every_kept_combination_searched(search) -> None:
    """Make a search group each step's moved keys with every kept combination, not only
    those holding a label above level 0 in the column (the reference of the tests below)."""
    search.high_ids = [np.ones_like(ids) for ids in search.high_ids]
    search.high = [np.ones_like(high) for high in search.high]


def _release_and_joins(frame, qid, k, search_patch=None, **options):
    """The written release of ``anonymize(..., algo="local")`` and, per trial, how many kept
    combinations joined the moved ones."""
    from pandas_anon.anonymization.local import greedy

    joined = []
    trial, init = greedy._Search._trial, greedy._Search.__init__

    def counting(self, movable, column):
        found = trial(self, movable, column)
        joined.append(int(found.present[len(movable) :].sum()))
        return found

    def patched(self, *args):
        init(self, *args)
        if search_patch is not None:
            search_patch(self)

    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one class, hierarchies by default: said elsewhere
        patch.setattr(greedy._Search, "_trial", counting)
        patch.setattr(greedy._Search, "__init__", patched)
        decided = pandas_anon.anonymize(frame, k, qid=qid, algo="local", **options)
    return decided.write(frame).frame, joined


def test_a_step_finds_kept_combinations_holding_its_label_as_a_value():
    """X climbs to the label 'Aosta', which ten rows hold as their value (level 0): they
    join it although they never climbed, as with every kept combination searched."""
    frame = pd.DataFrame({"town": ["Aosta"] * 10 + ["X", "Y", "W", "W"]})
    towns = Hierarchy(["Aosta", "X", "Y", "W"], [["Aosta", "Aosta", "Q", "R"]])
    options = {"hierarchies": {"town": towns}}
    written, joined = _release_and_joins(frame, ["town"], 2, **options)
    assert max(joined) >= 1  # the ten rows' combination (and X, carried, once it holds)
    reference, _ = _release_and_joins(
        frame, ["town"], 2, _every_kept_combination_searched, **options
    )
    pd.testing.assert_frame_equal(written, reference)


def test_a_step_over_keys_of_several_words_finds_the_same_classes():
    """Valle d'Aosta's 13 released columns (keys of two int64 words, grouped word by word):
    the release is the one with every kept combination searched at each step."""
    frame = pandas_anon.datasets.load_driver_licenses(parse_dates=False).sample(
        3000, random_state=7
    )
    qid = [c for c in frame.columns if c != "id"]
    written, _ = _release_and_joins(frame, qid, 5)
    reference, _ = _release_and_joins(frame, qid, 5, _every_kept_combination_searched)
    pd.testing.assert_frame_equal(written, reference)
    verify_anonymized(written, qid, 5, 0)


@pytest.mark.parametrize("goal", list(GOALS))
@examples
@given(data=st.data())
def test_a_step_finds_every_kept_combination_written_as_its_keys(goal, data):
    """Random frames per goal: each step groups its moved keys with the kept combinations
    holding a label above level 0 in the column only, and releases what grouping them with
    every kept combination releases."""
    case = data.draw(cases(sensitive=goal != "k"), label="case")
    l, t = data.draw(GOALS[goal], label="model")  # noqa: E741
    call = replace(data.draw(calls(case), label="call"), l=l, t=t)
    frame = case.frame()
    if expected_refusal(frame, case, call) is not None:
        return  # refused: test_properties_algorithms checks how
    options = call.options(case, "local")
    del options["qid"], options["algo"]
    try:
        with _carries_checked() as checked:
            written, joined = _release_and_joins(frame, case.qid, call.k, **options)
        event("trials carried" if checked else "no trial carried")
    except pandas_anon.InfeasibleError:
        event("infeasible")
        return
    event("kept combinations joined a step" if any(joined) else "no kept combination joined")
    reference, _ = _release_and_joins(
        frame, case.qid, call.k, _every_kept_combination_searched, **options
    )
    pd.testing.assert_frame_equal(written, reference)


@contextlib.contextmanager
def _carries_checked():
    """Check, after each step that rescued rows, that the combinations at risk and every
    trial carried to the next round are what judging every class and trying every column
    again give; yields the list of the trials checked."""
    from pandas_anon.anonymization.local import greedy

    checked = []
    rescued, carry = greedy._Search._rescued, greedy._Search._carry_trials

    def rescued_checked(self, column, moved, at_risk):
        found = rescued(self, column, moved, at_risk)
        np.testing.assert_array_equal(found, self._at_risk())
        return found

    def carry_checked(self, column, moved, settled):
        carry(self, column, moved, settled)
        at_risk = self._at_risk()
        for j, trial in list(self._trials.items()):
            movable = self._movable(at_risk, j)
            np.testing.assert_array_equal(trial.movable[trial.moving], movable)
            fresh = self._trial(movable, j)
            self._trials[j] = trial  # the carried one goes on
            own = trial.own[trial.moving]
            np.testing.assert_array_equal(trial.broken[own], fresh.broken[fresh.own])
            assert trial.rescued_rows == fresh.rescued_rows
            np.testing.assert_array_equal(trial.rescued(), fresh.rescued())
            # the rows of each moved key's class, where neither grouping set it aside
            grouped = (own < len(trial.broken) - 1) & (fresh.own < len(fresh.broken) - 1)
            rows = trial.class_rows[own[grouped]]
            np.testing.assert_array_equal(rows, fresh.class_rows[fresh.own[grouped]])
            # and the safe rows in it (what coarsening and DM read)
            safe = ~at_risk & ~self.suppressed
            np.testing.assert_array_equal(
                _safe_rows(self, trial, safe)[own[grouped]],
                _safe_rows(self, fresh, safe)[fresh.own[grouped]],
            )
            assert _growth(self, trial, safe) == _growth(self, fresh, safe)
            checked.append(j)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(greedy._Search, "_rescued", rescued_checked)
        patch.setattr(greedy._Search, "_carry_trials", carry_checked)
        yield checked


def _safe_rows(search, trial, safe):
    """Per class of a trial, the rows of the safe combinations still in it."""
    held = trial.combinations[trial.present]
    return np.bincount(
        trial.groups[trial.present],
        weights=search.rows[held] * safe[held],
        minlength=len(trial.broken),
    )


def _growth(search, trial, safe):
    """DM's growth of the classes of a trial that hold: their squared rows less their safe
    rows' (a class the step would leave as it is adds nothing)."""
    holding = ~trial.broken
    rows, safe_rows = trial.class_rows[holding], _safe_rows(search, trial, safe)[holding]
    return float((rows**2 - safe_rows**2).sum())


@pytest.mark.parametrize("dataset", ["licences", "adult"])
def test_a_step_carries_the_rows_at_risk_and_the_trials_as_recomputing_them(dataset):
    """Samples of the licences (13 columns) and of Adult (8): after each step that rescued
    rows, the rows at risk and the trials carried are the ones recomputed."""
    if dataset == "licences":
        frame = pandas_anon.datasets.load_driver_licenses(parse_dates=False).sample(
            4000, random_state=3
        )
        qid = [c for c in frame.columns if c != "id"]
    else:
        frame = pandas_anon.datasets.load_adult().sample(4000, random_state=3)
        qid = list(frame.columns[:8])
    with _carries_checked() as checked, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pandas_anon.anonymize(frame, 5, qid=qid, algo="local")
    assert len(checked) > 10


def test_a_step_carries_the_trials_of_l_diversity_as_recomputing_them():
    """A sample of Adult, 6 QIs, k=3 and 2-diversity of the salary class: the classes a
    settled combination leaves are judged again from the sensitive values left in them,
    as recomputing every trial judges them."""
    frame = pandas_anon.datasets.load_adult().sample(4000, random_state=3)
    qid = list(frame.columns[:6])
    with _carries_checked() as checked, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        decided = pandas_anon.anonymize(
            frame, 3, qid=qid, algo="local", l=2, sensitive=frame.columns[-1]
        )
    assert len(checked) > 10
    written = decided.write(frame).frame
    assert verify_anonymized(written, qid, 3, 0)["k"] >= 3
    verify_l_diverse(written, qid, frame.columns[-1], 2)
