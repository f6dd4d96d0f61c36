"""Degenerate inputs and results are named (issue 9, items 7 and 8): a claimed hierarchy that
cannot cover its column falls back to ``auto`` with a warning; no release of zero rows; empty
frames; report keys of columns ``0`` and ``"0"``; k above the rows in zero configuration."""

from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

import pandas_anon
from pandas_anon import (
    EmptyDataError,
    HierarchyError,
    HierarchyFallbackWarning,
    InfeasibleError,
    InvalidParameterError,
    OneClassWarning,
)
from pandas_anon.anonymization.reports import AnonymizationReport, column_keys
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.hookspecs import hookimpl

from conftest import SEED_QID
from verify import verify_anonymized

#: Spellings ISTAT does not have, in place of three comuni of the Valle d'Aosta file.
MISSPELT = {"NUS": "NUSS", "FENIS": "FENISSE", "DONNAS": "DONNASS"}  # 2,088 + 1,251 + 1,774 rows
CHOICE = "hierarchy comune_residenza"


@pytest.fixture
def elsewhere(licences: pd.DataFrame) -> pd.DataFrame:
    """The licence table as a file from another source might spell it: three comuni differ."""
    licences["comune_residenza"] = licences["comune_residenza"].replace(MISSPELT)
    return licences


def assert_no_misspelling(text: str) -> None:
    assert not any(spelling in text for spelling in MISSPELT.values()), text


# -- 7: a claimed hierarchy that cannot cover the column ------------------------------------


@pytest.mark.requires_plugin("italy")
def test_a_claimed_hierarchy_that_misses_values_falls_back_to_auto(elsewhere):
    before = elsewhere.copy()
    with pytest.warns(HierarchyFallbackWarning) as caught:
        out = elsewhere.anon.kanon(5, qid=SEED_QID)
    (warning,) = caught
    message = str(warning.message)
    assert "'it.comune'" in message and "'comune_residenza'" in message
    assert "does not cover 3 values" in message and "hierarchies=" in message
    assert_no_misspelling(message)
    report = out.anon.report()
    assert report.hierarchies["comune_residenza"] == "comune_residenza auto:suppression"
    assert report.choices[CHOICE] == (
        "comune_residenza auto:suppression (fallback: it.comune "
        "does not cover 3 values of the column)"
    )
    assert report.levels == {"anno_nascita": 4, "comune_residenza": 1, "sesso": 0}
    assert (report.suppressed, report.classes, report.k_reached) == (0, 3, 177)
    checked = verify_anonymized(out, SEED_QID, 5, 0)
    assert (checked["classes"], checked["k"], checked["suppressed"]) == (3, 177, 0)
    assert_no_misspelling(repr(report) + json.dumps(report.to_dict()))
    pd.testing.assert_frame_equal(elsewhere, before)


@pytest.mark.requires_plugin("italy")
def test_zero_configuration_no_longer_fails_on_another_regions_spellings(elsewhere):
    # before: HierarchyError from it.comune on every zero-config call
    frame = elsewhere[SEED_QID]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = frame.anon.kanon(5)
    fallbacks = [w for w in caught if w.category is HierarchyFallbackWarning]
    assert len(fallbacks) == 1 and "does not cover 3 values" in str(fallbacks[0].message)
    report = out.anon.report()
    assert "comune_residenza" in report.qid and "fallback: it.comune" in report.choices[CHOICE]
    verify_anonymized(out, report.qid, 5, 0)


@pytest.mark.requires_plugin("italy")
def test_a_claimed_hierarchy_that_covers_the_column_is_still_used(licences):
    """it.comune claims the municipality; on the licence file it reads each row's province
    from the frame's provincia_residenza by itself, and the report says so."""
    out = licences.anon.kanon(5, qid=SEED_QID)
    report = out.anon.report()
    described = "it.comune (matched within the provinces of column 'provincia_residenza')"
    assert report.choices[CHOICE] == described
    assert report.hierarchies["comune_residenza"] == described


@pytest.mark.requires_plugin("italy")
@pytest.mark.parametrize("named", ["it.comune", "hierarchy object"])
def test_a_hierarchy_the_user_named_still_raises_and_may_list_the_values(elsewhere, named):
    from pandas_anon_italy import comune_hierarchy

    if named == "it.comune":
        given = "it.comune"
    else:  # the ISTAT names, which the file's spellings are not
        given = comune_hierarchy()
    with pytest.raises(HierarchyError) as raised:
        elsewhere.anon.kanon(5, qid=SEED_QID, hierarchies={"comune_residenza": given})
    if named == "it.comune":
        assert raised.value.unmatched == 3
        assert all(spelling in str(raised.value) for spelling in MISSPELT.values())
    else:
        assert raised.value.unmatched == 79  # every spelling of the file: none is ISTAT's own


@pytest.fixture
def register():
    """Register plugins at run time (beside the installed ones) for one test."""
    pm, names = plugins.get_plugin_manager(), []

    def add(hook) -> None:
        names.append(f"fallback-test-{len(names)}")
        pm.register(
            type("Plugin", (), {"register_hierarchies": staticmethod(hookimpl(hook))})(),
            name=names[-1],
        )

    yield add
    for name in names:
        pm.unregister(name=name)


AGES = pd.DataFrame({"eta": [34, 34, 38, 38, 51, 51, 60, 60], "sex": list("MFMFMFMF")})


def test_a_registered_hierarchy_missing_a_value_falls_back(register):
    decades = Hierarchy([34, 38, 51], [["30-39", "30-39", "50-59"]])
    register(lambda register: register("test.age", decades, columns=["eta"]))
    with pytest.warns(
        HierarchyFallbackWarning,
        match="'test.age' claims column 'eta' but does not cover 1 value of the column",
    ):
        report = AGES.anon.kanon(2, qid=["eta"]).anon.report()
    assert report.choices["hierarchy eta"].endswith(
        "(fallback: test.age does not cover 1 value of the column)"
    )
    assert report.levels == {"eta": 0} and report.classes == 4
    with pytest.raises(HierarchyError, match="60") as raised:  # named: the value is listed
        AGES.anon.kanon(2, qid=["eta"], hierarchies={"eta": "test.age"})
    assert raised.value.unmatched == 1


def test_a_claimed_factory_failing_otherwise_falls_back_without_its_message(register):
    def factory(data):
        raise HierarchyError(f"cannot read {data.iloc[0]!r}")  # quotes a cell value

    register(lambda register: register("test.broken", factory, columns=["eta"]))
    with pytest.warns(HierarchyFallbackWarning) as caught:
        report = AGES.anon.kanon(2, qid=["eta"]).anon.report()
    message = str(caught[0].message)
    assert "'test.broken' claims column 'eta' but cannot be built for the column" in message
    assert "34" not in message and "cannot read" not in message
    assert report.choices["hierarchy eta"].endswith(
        "(fallback: test.broken cannot be built for the column)"
    )


# -- 8: a result that suppresses every row ----------------------------------------------------

AGE_SEX = pd.DataFrame(
    {
        "age": [21, 22, 23, 24, 25, 26, 27, 28, 31, 32, 33, 34, 35, 36, 37, 38, 41, 42, 43, 44],
        "sex": list("MF" * 10),
    }
)


@pytest.mark.parametrize("algo", ["ola", "datafly", "samarati", "incognito"])
def test_full_suppression_allowed_still_keeps_rows(algo):
    # before: every algorithm returned 20 rows of '*' (bottom node, every class violating)
    with pytest.warns(OneClassWarning):
        out = AGE_SEX.anon.kanon(5, qid=["age"], max_suppression=1, algo=algo)
    report = out.anon.report()
    assert (report.levels, report.suppressed, report.classes, report.k_reached) == (
        {"age": 1},
        0,
        1,
        20,
    )
    # before: datafly and samarati returned the all-suppressed bottom node here too
    out = AGE_SEX.anon.kanon(5, qid=["age", "sex"], max_suppression=1, algo=algo)
    report = out.anon.report()
    assert (report.levels, report.suppressed, report.classes, report.k_reached) == (
        {"age": 1, "sex": 0},
        0,
        2,
        10,
    )
    checked = verify_anonymized(out, ["age", "sex"], 5, 20)
    assert (checked["suppressed"], checked["classes"], checked["k"]) == (0, 2, 10)


@pytest.mark.parametrize("suppress", ["mask", "drop"])
def test_only_suppressing_every_row_is_infeasible(suppress):
    one_diagnosis = pd.DataFrame({"age": range(6), "diagnosis": ["flu"] * 6})
    with pytest.raises(
        InfeasibleError,
        match=r"suppresses all 6 rows .*no row is no result; "
        r"lower k/l, raise t, or choose other columns",
    ):
        one_diagnosis.anon.kanon(
            2, qid=["age"], sensitive="diagnosis", l=2, max_suppression=1, suppress=suppress
        )
    with pytest.raises(InfeasibleError, match=r"at most 50\.00% of the 6 rows suppressed"):
        one_diagnosis.anon.kanon(2, qid=["age"], sensitive="diagnosis", l=2, max_suppression=0.5)


# -- 8: empty frames --------------------------------------------------------------------------

EMPTY = {
    "no rows": (
        pd.DataFrame({"a": pd.Series([], dtype="int64"), "b": pd.Series([], dtype=str)}),
        "the frame has no rows",
    ),
    "nothing": (pd.DataFrame(), "the frame has no columns"),
    "no columns": (pd.DataFrame(index=range(3)), "the frame has no columns"),
}
CALLS = {
    "best_qid": lambda df: pandas_anon.best_qid(df),
    "kanon": lambda df: pandas_anon.kanon(df, 2),
    "kanon qid": lambda df: pandas_anon.kanon(df, 2, qid=["a"]),
    "anonymize": lambda df: pandas_anon.anonymize(df, 2),
    "risk": lambda df: pandas_anon.risk(df, ["a"]),
    "accessor": lambda df: df.anon.kanon(2),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("empty", EMPTY)
def test_an_empty_frame_is_an_empty_data_error(empty, call):
    # before: InvalidQIDError ("the quasi-identifier is empty"), "k=2 exceeds the 0 rows" or
    # ColumnNotFoundError
    frame, message = EMPTY[empty]
    with pytest.raises(EmptyDataError, match=message):
        CALLS[call](frame)


# -- 8: report keys of columns 0 and "0" --------------------------------------------------------


def test_columns_sharing_their_text_keep_their_own_report_keys():
    frame = pd.DataFrame({0: list("aabbccdd"), "0": list("xyxyxyxy")})
    out = pandas_anon.kanon(frame, 2, qid=[0, "0"])
    report = out.anon.report()
    assert report.qid == ["0", "'0'"]
    assert report.levels == {"0": 0, "'0'": 1}  # before: {"0": 1}, one column lost
    assert list(report.hierarchies) == ["0", "'0'"]
    assert {"hierarchy 0", "hierarchy '0'"} <= set(report.choices)
    payload = json.loads(json.dumps(report.to_dict()))
    assert payload["levels"] == {"0": 0, "'0'": 1}
    assert AnonymizationReport.from_dict(payload) == report
    checked = verify_anonymized(out, [0, "0"], 2, 0)
    assert (checked["classes"], checked["k"]) == (report.classes, report.k_reached) == (4, 2)


@pytest.mark.parametrize(
    "columns, keys",
    [
        (["age", 1, ("a", "b")], ["age", "1", "('a', 'b')"]),
        ([0, "0", "sex"], ["0", "'0'", "sex"]),
        ([0, "0", "'0'"], ["0", "'0'", "\"'0'\""]),  # a repr equal to a third label's text
    ],
)
def test_column_keys_are_str_unless_two_columns_share_it(columns, keys):
    assert list(column_keys(columns).values()) == keys


# -- 8: k above the rows in zero configuration --------------------------------------------------


@pytest.mark.parametrize("call", [pandas_anon.kanon, pandas_anon.anonymize])
def test_k_above_the_rows_gives_the_k_message_in_zero_configuration(call):
    # before: InvalidQIDError "every candidate column ... is an identifier"
    frame = pd.DataFrame({"id": [1, 2, 3], "town": ["a", "b", "c"]})
    with pytest.raises(InvalidParameterError, match="k=5 exceeds the 3 rows of the frame"):
        call(frame, 5)
