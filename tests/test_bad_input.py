"""The bad-input catalogue: every bad argument of the API, the command line and the pandera
checks fails with our exception type (or exit code 2) and a message naming the parameter, the
value and the fix; fractions take the same forms everywhere ("5%", "0.05", 0.05); booleans
are never numbers.

Each case is one line of a table: the call, the exception, the words its message must hold.
"""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest
from pandera.errors import SchemaError

import pandas_anon
import pandas_anon.testing
from pandas_anon import (
    ColumnNotFoundError,
    DuplicateColumnsError,
    Hierarchy,
    HierarchyError,
    InvalidParameterError,
    InvalidQIDError,
    KAnonymity,
    LDiversity,
    NotAFrameError,
    OutputFileError,
    TCloseness,
    UnhashableValueError,
)
from pandas_anon.cli.main import main
from pandas_anon.errors import ConfigError, UnknownNameError
from pandas_anon.gate.config import load_config
from pandas_anon.gate.pandera_checks import Limits, measure
from pandas_anon.hierarchy import builders
from pandas_anon.params import fraction, from_text, whole

QID = ["year", "sex"]
FRACTION = "a fraction from 0 to 1 such as 0.05 or '5%'"
NOT_A_FRAME = "frame must be a pandas DataFrame (or a Dask DataFrame)"
SEVERAL = "the frame has several columns named 'town'"


@pytest.fixture
def people() -> pd.DataFrame:
    """12 rows: pairs on (year, sex), a sensitive diagnosis and salary, a list column."""
    return pd.DataFrame(
        {
            "year": [1950, 1950, 1960, 1960, 1970, 1970] * 2,
            "sex": ["F", "F", "M", "M", "F", "F", "M", "M", "F", "F", "M", "M"],
            "town": ["A", "A", "B", "B", "C", "C", "D", "D", "E", "E", "F", "F"],
            "parent": ["X", "X", "X", "X", "Y", "Y", "Y", "Y", "Z", "Z", "Z", "Z"],
            "diagnosis": ["flu", "cold", "flu", "hiv", "cold", "flu"] * 2,
            "salary": [10, 20, 30, 40, 50, 60] * 2,
            "tags": [[1], [2]] * 6,
        }
    )


@pytest.fixture
def plain(people) -> pd.DataFrame:
    """The people frame without its list column."""
    return people.drop(columns="tags")


def _kanon(**options):
    """kanon on the frame; without the list column, unless the QID names it (kanon examines
    every released column for direct identifiers)."""

    def call(df):
        qid = options.get("qid", QID)
        data = df if isinstance(qid, list) and "tags" in qid else df.drop(columns="tags")
        return pandas_anon.kanon(data, **{"k": 2, "qid": QID, **options})

    return call


def _duplicated(df):
    """The frame without its list column, its ``parent`` column renamed ``town``: two
    columns share a name."""
    plain = df.drop(columns="tags")
    return plain.set_axis(["town" if c == "parent" else c for c in plain.columns], axis=1)


def _study(**options):
    def call(df):
        place = Hierarchy.from_columns(df, ["town", "parent"])
        return pandas_anon.study(
            df, **{"year": "year", "sex": "sex", "place": "town", "hierarchy": place, **options}
        )

    return call


# -- the API: (call on the people frame, exception, words of the message) ---------------------

API = {
    # kanon: k
    "kanon k=0": (
        _kanon(k=0),
        InvalidParameterError,
        ["k must be a whole number of at least 1", "got 0"],
    ),
    "kanon k=True": (
        _kanon(k=True),
        InvalidParameterError,
        ["k must be a whole number", "True is not a number"],
    ),
    "kanon k=2.5": (
        _kanon(k=2.5),
        InvalidParameterError,
        ["k must be a whole number", "such as 5", "got 2.5"],
    ),
    "kanon k='5'": (
        _kanon(k="5"),
        InvalidParameterError,
        ["k must be a whole number", "pass k=5, not '5'"],
    ),
    "kanon k=None": (
        _kanon(k=None),
        InvalidParameterError,
        ["k must be a whole number", "got None"],
    ),
    "kanon k > rows": (_kanon(k=13), InvalidParameterError, ["k=13", "12 rows"]),
    # kanon: max_suppression
    "kanon metric returns text": (
        _kanon(metric=lambda stats: "low"),
        InvalidParameterError,
        ["metric '<lambda>' returned str 'low'", "must return a number"],
    ),
    "kanon hierarchies=list": (
        _kanon(hierarchies=["town"]),
        InvalidParameterError,
        ["hierarchies must map columns to hierarchies", "got list ['town']"],
    ),
    "kanon max_suppression=True": (
        _kanon(max_suppression=True),
        InvalidParameterError,
        [f"max_suppression must be {FRACTION}", "got True"],
    ),
    "kanon max_suppression=None": (
        _kanon(max_suppression=None),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got None"],
    ),
    "kanon max_suppression=-0.1": (
        _kanon(max_suppression=-0.1),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got -0.1"],
    ),
    "kanon max_suppression=1.5": (
        _kanon(max_suppression=1.5),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got 1.5"],
    ),
    "kanon max_suppression='abc'": (
        _kanon(max_suppression="abc"),
        InvalidParameterError,
        ["max_suppression must be a fraction", "'5%'", "got 'abc'"],
    ),
    "kanon max_suppression='150%'": (
        _kanon(max_suppression="150%"),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got '150%'"],
    ),
    "kanon max_suppression=nan": (
        _kanon(max_suppression=float("nan")),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got nan"],
    ),
    # kanon: names from a list
    "kanon algo": (
        _kanon(algo="magic"),
        InvalidParameterError,
        ["algo must be one of 'ola', 'datafly', 'samarati', 'incognito'", "got 'magic'"],
    ),
    "kanon metric": (
        _kanon(metric="loss"),
        InvalidParameterError,
        ["metric must be 'precision', 'dm' or a callable", "got 'loss'"],
    ),
    "kanon suppress": (
        _kanon(suppress="delete"),
        InvalidParameterError,
        ["suppress must be one of 'mask', 'drop'", "got 'delete'"],
    ),
    "kanon identifiers=True": (
        _kanon(identifiers=True),
        InvalidParameterError,
        ["identifiers must be one of 'drop', 'hash', 'keep', got True"],
    ),
    # kanon: l, t, sensitive
    "kanon l without sensitive": (
        _kanon(l=2),
        InvalidParameterError,
        ["l=2 needs sensitive=<column>"],
    ),
    "kanon t without sensitive": (
        _kanon(t=0.2),
        InvalidParameterError,
        ["t=0.2 needs sensitive=<column>"],
    ),
    "kanon sensitive not a column": (
        _kanon(sensitive="illness", l=2),
        ColumnNotFoundError,
        ["'illness' not found", "available columns"],
    ),
    "kanon sensitive in qid": (
        _kanon(sensitive="sex", l=2),
        InvalidParameterError,
        ["sensitive column 'sex' is inside the quasi-identifier"],
    ),
    "kanon l=0": (
        _kanon(sensitive="diagnosis", l=0),
        InvalidParameterError,
        ["l must be a whole number of at least 1", "got 0"],
    ),
    "kanon l='2'": (
        _kanon(sensitive="diagnosis", l="2"),
        InvalidParameterError,
        ["l must be a whole number", "pass l=2, not '2'"],
    ),
    "kanon l=True": (
        _kanon(sensitive="diagnosis", l=True),
        InvalidParameterError,
        ["l must be a whole number", "True is not a number"],
    ),
    "kanon l=2.5 distinct": (
        _kanon(sensitive="diagnosis", l=2.5),
        InvalidParameterError,
        ["l must be a whole number", "got 2.5"],
    ),
    "kanon t=1.5": (
        _kanon(sensitive="salary", t=1.5),
        InvalidParameterError,
        [f"t must be {FRACTION}", "got 1.5"],
    ),
    "kanon t=-0.1": (
        _kanon(sensitive="salary", t=-0.1),
        InvalidParameterError,
        ["t must be a fraction", "got -0.1"],
    ),
    "kanon t=True": (
        _kanon(sensitive="salary", t=True),
        InvalidParameterError,
        ["t must be a fraction", "got True"],
    ),
    "kanon t='x'": (
        _kanon(sensitive="salary", t="x"),
        InvalidParameterError,
        ["t must be a fraction", "got 'x'"],
    ),
    # kanon: qid and hierarchies
    "kanon qid=[]": (
        _kanon(qid=[]),
        InvalidQIDError,
        ["quasi-identifier is empty", "name at least one column"],
    ),
    "kanon qid repeated": (
        _kanon(qid=["year", "year"]),
        InvalidQIDError,
        ["'year' named more than once", "list each column once"],
    ),
    "kanon qid missing": (
        _kanon(qid=["year", "age"]),
        ColumnNotFoundError,
        ["'age' not found", "available columns"],
    ),
    "kanon unhashable qid": (
        _kanon(qid=["tags", "sex"]),
        UnhashableValueError,
        ["column 'tags'", "convert them first"],
    ),
    "kanon hierarchy outside qid": (
        _kanon(hierarchies={"town": builders.suppression}),
        InvalidParameterError,
        ["outside the qid", "'town'"],
    ),
    # anonymize (the decision alone) and the accessor
    "anonymize max_suppression=True": (
        lambda df: pandas_anon.anonymize(df, 2, qid=QID, max_suppression=True),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got True"],
    ),
    "anonymize l='2'": (
        lambda df: pandas_anon.anonymize(df, 2, qid=QID, sensitive="diagnosis", l="2"),
        InvalidParameterError,
        ["pass l=2, not '2'"],
    ),
    "df.anon.kanon k=0": (
        lambda df: df.anon.kanon(0, qid=QID),
        InvalidParameterError,
        ["k must be a whole number of at least 1"],
    ),
    "df.anon.kanon max_suppression='2'": (
        lambda df: df.anon.kanon(2, qid=QID, max_suppression="2"),
        InvalidParameterError,
        ["max_suppression must be a fraction", "got '2'"],
    ),
    # the privacy models
    "KAnonymity(np.bool_)": (
        lambda df: KAnonymity(np.True_),
        InvalidParameterError,
        ["k must be a whole number", "True is not a number"],
    ),
    "LDiversity variant": (
        lambda df: LDiversity(2, "maximal"),
        InvalidParameterError,
        ["variant must be one of 'distinct', 'entropy', 'recursive'", "got 'maximal'"],
    ),
    "LDiversity entropy l=0.5": (
        lambda df: LDiversity(0.5, "entropy"),
        InvalidParameterError,
        ["l must be a finite number at least 1", "got 0.5"],
    ),
    "LDiversity entropy l=inf": (
        lambda df: LDiversity(float("inf"), "entropy"),
        InvalidParameterError,
        ["l must be a finite number", "got inf"],
    ),
    "LDiversity c=0": (
        lambda df: LDiversity(2, "recursive", c=0),
        InvalidParameterError,
        ["c must be a finite number above 0", "got 0"],
    ),
    "LDiversity c=-1": (
        lambda df: LDiversity(2, "recursive", c=-1),
        InvalidParameterError,
        ["c must be a finite number above 0", "got -1"],
    ),
    "TCloseness t=2": (
        lambda df: TCloseness(2),
        InvalidParameterError,
        ["t must be a fraction", "got 2"],
    ),
    "TCloseness ordered='yes'": (
        lambda df: TCloseness(0.2, ordered="yes"),
        InvalidParameterError,
        ["ordered must be True or False", "got 'yes'"],
    ),
    # singletons, risk, identifiers, best_qid
    "singletons qid=[]": (
        lambda df: pandas_anon.singletons(df, []),
        InvalidQIDError,
        ["quasi-identifier is empty"],
    ),
    "singletons missing column": (
        lambda df: df.anon.singletons(["year", "age"]),
        ColumnNotFoundError,
        ["'age' not found"],
    ),
    "singletons unhashable": (
        lambda df: pandas_anon.singletons(df, ["tags"]),
        UnhashableValueError,
        ["column 'tags'", "a list"],
    ),
    "risk repeated": (
        lambda df: pandas_anon.risk(df, ["sex", "sex"]),
        InvalidQIDError,
        ["'sex' named more than once"],
    ),
    "identifiers max_size=0": (
        lambda df: pandas_anon.identifiers(df, QID, max_size=0),
        InvalidParameterError,
        ["max_size must be a whole number of at least 1", "got 0"],
    ),
    "best_qid max_size=True": (
        lambda df: df.anon.best_qid(QID, max_size=True),
        InvalidParameterError,
        ["max_size must be a whole number", "True is not a number"],
    ),
    "best_qid max_size='3'": (
        lambda df: pandas_anon.best_qid(df, QID, max_size="3"),
        InvalidParameterError,
        ["max_size must be a whole number", "pass max_size=3, not '3'"],
    ),
    "best_qid max_size=2.5": (
        lambda df: pandas_anon.best_qid(df, QID, max_size=2.5),
        InvalidParameterError,
        ["max_size must be a whole number", "such as 3", "got 2.5"],
    ),
    "best_qid columns=[]": (
        lambda df: pandas_anon.best_qid(df, []),
        InvalidQIDError,
        ["quasi-identifier is empty"],
    ),
    # generalize
    "generalize spec={}": (
        lambda df: pandas_anon.generalize(df, {}),
        InvalidParameterError,
        ["spec must map column names to a hierarchy and level"],
    ),
    "generalize spec=42": (
        lambda df: pandas_anon.generalize(df, {"town": 42}),
        InvalidParameterError,
        ["column 'town': expected a Hierarchy", "got int"],
    ),
    "generalize rows='some'": (
        lambda df: df.anon.generalize({"sex": builders.suppression}, rows="some"),
        InvalidParameterError,
        ["rows must be 'all', 'singletons' or a boolean mask", "got 'some'"],
    ),
    "generalize singletons without qid": (
        lambda df: pandas_anon.generalize(df, {"sex": builders.suppression}, rows="singletons"),
        InvalidParameterError,
        ["rows='singletons' needs qid=[...]"],
    ),
    "generalize short mask": (
        lambda df: pandas_anon.generalize(df, {"sex": builders.suppression}, rows=[True]),
        InvalidParameterError,
        ["rows mask must be 12 True/False values"],
    ),
    "generalize unknown hierarchy name": (
        lambda df: pandas_anon.generalize(df, {"town": "it.comuni"}),
        UnknownNameError,
        ["unknown hierarchy name 'it.comuni'", "valid hierarchy names"],
    ),
    "generalize level beyond": (
        lambda df: pandas_anon.generalize(df, {"sex": (builders.suppression, 5)}),
        HierarchyError,
        ["level 5 does not exist"],
    ),
    # study
    "study year_groups=0": (
        _study(year_groups=0),
        InvalidParameterError,
        ["year_groups must be a whole number of at least 1", "got 0"],
    ),
    "study year_groups='4'": (
        _study(year_groups="4"),
        InvalidParameterError,
        ["year_groups must be a whole number", "pass year_groups=4, not '4'"],
    ),
    "study year outside qid": (
        _study(qid=["town", "sex"]),
        InvalidParameterError,
        ["year column 'year' must be part of the qid"],
    ),
    "df.anon.study hierarchy=42": (
        lambda df: df.anon.study(year="year", sex="sex", place="town", hierarchy=42),
        InvalidParameterError,
        ["column 'town': expected a Hierarchy", "got int"],
    ),
    # hierarchies: constructors, builders, the registry
    "get_hierarchy unknown": (
        lambda df: pandas_anon.get_hierarchy("it.comuni"),
        UnknownNameError,
        ["unknown hierarchy name 'it.comuni'", "valid hierarchy names"],
    ),
    "Hierarchy short level": (
        lambda df: Hierarchy(["a", "b"], [["x"]]),
        HierarchyError,
        ["level 1 has 1 label for 2 values", "one label per value"],
    ),
    "Hierarchy level as text": (
        lambda df: Hierarchy(["a", "b"]).labels("1"),
        InvalidParameterError,
        ["level must be a whole number of at least 0", "pass level=1, not '1'"],
    ),
    "Hierarchy level=True": (
        lambda df: Hierarchy(["a", "b"]).codes(True),
        InvalidParameterError,
        ["level must be a whole number", "True is not a number"],
    ),
    "Hierarchy.from_csv missing": (
        lambda df: Hierarchy.from_csv("no/such/levels.csv"),
        HierarchyError,
        ["no/such/levels.csv: no such file; check the path"],
    ),
    "Hierarchy.from_columns missing": (
        lambda df: Hierarchy.from_columns(df, ["town", "region"]),
        ColumnNotFoundError,
        ["'region' not found"],
    ),
    "intervals no step": (
        lambda df: builders.intervals(df["year"]),
        InvalidParameterError,
        ["takes exactly one of width=, cuts=, groups_of=", "width=[5, 10, 20]"],
    ),
    "intervals width=True": (
        lambda df: builders.intervals(df["year"], width=True),
        InvalidParameterError,
        ["width must be a positive number", "got True"],
    ),
    "intervals groups_of=2.5": (
        lambda df: builders.intervals(df["year"], groups_of=2.5),
        InvalidParameterError,
        ["groups_of must be a positive whole number", "got 2.5"],
    ),
    "intervals on text": (
        lambda df: builders.intervals(df["town"], width=5),
        HierarchyError,
        ["intervals() needs numbers", "pd.to_numeric"],
    ),
    "row_groups min_rows=0": (
        lambda df: builders.row_groups(df["year"], min_rows=0),
        InvalidParameterError,
        ["min_rows must be a whole number of at least 1", "got 0"],
    ),
    "row_groups min_rows=True": (
        lambda df: builders.row_groups(df["year"], min_rows=True),
        InvalidParameterError,
        ["min_rows must be a whole number", "True is not a number"],
    ),
    "row_groups min_rows='2'": (
        lambda df: builders.row_groups(df["year"], min_rows="2"),
        InvalidParameterError,
        ["pass min_rows=2, not '2'"],
    ),
    "row_groups label": (
        lambda df: builders.row_groups(df["year"], min_rows=2, label="mean"),
        InvalidParameterError,
        ["label must be 'range', 'median' or 'first'", "got 'mean'"],
    ),
    "top_bottom no bound": (
        lambda df: builders.top_bottom(df["year"]),
        InvalidParameterError,
        ["needs bottom=, top= or both"],
    ),
    "top_bottom top='1960'": (
        lambda df: builders.top_bottom(df["year"], top="1960"),
        InvalidParameterError,
        ["top must be a finite number", "got '1960'"],
    ),
    "masking levels=True": (
        lambda df: builders.masking(df["town"], levels=True),
        InvalidParameterError,
        ["levels must be a whole number", "got True"],
    ),
    "masking char": (
        lambda df: builders.masking(df["town"], char="**"),
        InvalidParameterError,
        ["char must be one character", "got '**'"],
    ),
    "dates levels order": (
        lambda df: builders.dates(
            pd.to_datetime(df["year"].astype(str), format="%Y"), levels=("year", "month")
        ),
        InvalidParameterError,
        ["must go from fine to coarse"],
    ),
    "dates on text": (
        lambda df: builders.dates(df["town"]),
        HierarchyError,
        ["dates() needs dates", "pd.to_datetime"],
    ),
    "auto unhashable": (
        lambda df: builders.auto(df["tags"]),
        UnhashableValueError,
        ["column 'tags'", "convert them first"],
    ),
    # -- the frame: a DataFrame, or our error saying how to make one --------------------------
    "singletons frame=None": (
        lambda df: pandas_anon.singletons(None, QID),
        NotAFrameError,
        [NOT_A_FRAME, "got None", "pass the table to examine"],
    ),
    "risk frame=dict": (
        lambda df: pandas_anon.risk(df.to_dict(), QID),
        NotAFrameError,
        [NOT_A_FRAME, "got dict", "pd.DataFrame(mapping)"],
    ),
    "identifiers frame=Series": (
        lambda df: pandas_anon.identifiers(df["year"]),
        NotAFrameError,
        [NOT_A_FRAME, "got pandas.Series", "series.to_frame()"],
    ),
    "best_qid frame=ndarray": (
        lambda df: pandas_anon.best_qid(df[QID].to_numpy()),
        NotAFrameError,
        [NOT_A_FRAME, "got numpy.ndarray", "pd.DataFrame(array, columns=[...])"],
    ),
    "kanon frame=None": (
        lambda df: pandas_anon.kanon(None, 2, qid=QID),
        NotAFrameError,
        [NOT_A_FRAME, "got None"],
    ),
    "anonymize frame=list": (
        lambda df: pandas_anon.anonymize([[1950, "F"]], 2, qid=QID),
        NotAFrameError,
        [NOT_A_FRAME, "got list", "pd.DataFrame(rows, columns=[...])"],
    ),
    "ke_anon frame=Series": (
        lambda df: pandas_anon.ke_anon(df["salary"], 2, 1.0),
        NotAFrameError,
        [NOT_A_FRAME, "series.to_frame()"],
    ),
    "ke_decide frame=dict": (
        lambda df: pandas_anon.ke_decide({"salary": [1, 2]}, 2, 1.0),
        NotAFrameError,
        [NOT_A_FRAME, "got dict"],
    ),
    "ke_plan frame=None": (
        lambda df: pandas_anon.ke_plan(None, [2], [1.0]),
        NotAFrameError,
        [NOT_A_FRAME, "got None"],
    ),
    "reinforce frame=ndarray": (
        lambda df: pandas_anon.reinforce(
            df.to_numpy(), KAnonymity(2), sensitive="diagnosis", qid=QID
        ),
        NotAFrameError,
        [NOT_A_FRAME, "got numpy.ndarray"],
    ),
    "generalize frame=path": (
        lambda df: pandas_anon.generalize("people.csv", {"sex": builders.suppression}),
        NotAFrameError,
        [NOT_A_FRAME, "got str", "pd.read_csv(path)"],
    ),
    "compare frame=Series": (
        lambda df: pandas_anon.compare(df["sex"], 2, qid=QID),
        NotAFrameError,
        [NOT_A_FRAME, "series.to_frame()"],
    ),
    "study frame=None": (
        lambda df: pandas_anon.study(None, year="year", sex="sex", place="town"),
        NotAFrameError,
        [NOT_A_FRAME, "got None"],
    ),
    "risk_report frame=dict": (
        lambda df: pandas_anon.risk_report(df.to_dict(), qid=QID),
        NotAFrameError,
        [NOT_A_FRAME, "got dict"],
    ),
    "report_html frame=None": (
        lambda df: pandas_anon.report_html(None, qid=QID),
        NotAFrameError,
        [NOT_A_FRAME, "got None"],
    ),
    "melt_counts frame=Series": (
        lambda df: pandas_anon.melt_counts(df["salary"], ["salary"]),
        NotAFrameError,
        [NOT_A_FRAME, "series.to_frame()"],
    ),
    "EncodedFrame frame=None": (
        lambda df: pandas_anon.EncodedFrame(None, QID),
        NotAFrameError,
        [NOT_A_FRAME, "got None"],
    ),
    "Hierarchy.from_columns frame=dict": (
        lambda df: Hierarchy.from_columns(df.to_dict(), ["town", "parent"]),
        NotAFrameError,
        [NOT_A_FRAME, "got dict"],
    ),
    "Hierarchy.from_columns columns=[]": (
        lambda df: Hierarchy.from_columns(df, []),
        InvalidParameterError,
        ["columns must name at least one column", "such as ['town', 'region']"],
    ),
    # -- duplicate column names in the frame: rename them ------------------------------------
    "kanon frame with duplicate names": (
        lambda df: pandas_anon.kanon(_duplicated(df), 2, qid=QID),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "kanon zero configuration, duplicate names": (
        lambda df: pandas_anon.kanon(_duplicated(df), 2),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "singletons on a duplicated name": (
        lambda df: pandas_anon.singletons(_duplicated(df), ["town", "sex"]),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "ke_anon frame with duplicate names": (
        lambda df: pandas_anon.ke_anon(_duplicated(df), 2, 1.0, qid=["sex", "salary"]),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "compare frame with duplicate names": (
        lambda df: pandas_anon.compare(_duplicated(df), 2, qid=QID),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "reinforce frame with duplicate names": (
        lambda df: pandas_anon.reinforce(
            _duplicated(df), KAnonymity(2), sensitive="diagnosis", qid=QID
        ),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "best_qid frame with duplicate names": (
        lambda df: pandas_anon.best_qid(_duplicated(df)),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    # -- keywords passed on: each one the receiving function takes ---------------------------
    "kanon unknown option": (
        _kanon(foo=1),
        InvalidParameterError,
        ["kanon() got foo=: unknown option", "remove it", "valid options: qid, hierarchies"],
    ),
    "kanon misspelt option": (
        _kanon(max_supression=0.1),
        InvalidParameterError,
        ["kanon() got max_supression=", "did you mean max_suppression=?"],
    ),
    "kanon weights=": (
        _kanon(weights="salary"),
        InvalidParameterError,
        ["kanon() got weights=: unknown option", "valid options"],
    ),
    "reinforce unknown option": (
        lambda df: pandas_anon.reinforce(df, KAnonymity(2), sensitive="diagnosis", qid=QID, foo=1),
        InvalidParameterError,
        ["reinforce() got foo=: unknown option", "valid options: suppress, salt"],
    ),
    "reinforce algo=": (
        lambda df: pandas_anon.reinforce(
            df, KAnonymity(2), sensitive="diagnosis", qid=QID, algo="ola"
        ),
        InvalidParameterError,
        ["reinforce() got algo=: reinforce() sets it itself", "valid options"],
    ),
    "ke_anon unknown option": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], foo=1),
        InvalidParameterError,
        ["ke_anon() got foo=: unknown option", "valid options: qid, eps_quasi"],
    ),
    "ke_anon misspelt option": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], eps_quasis=[]),
        InvalidParameterError,
        ["ke_anon() got eps_quasis=", "did you mean eps_quasi=?"],
    ),
    "ke_plan unknown option": (
        lambda df: pandas_anon.ke_plan(df, [2], [1.0], qid=["sex", "salary"], foo=1),
        InvalidParameterError,
        ["ke_plan() got foo=: unknown option", "valid options"],
    ),
    "compare unknown option": (
        lambda df: pandas_anon.compare(df, 2, qid=QID, foo=1),
        InvalidParameterError,
        ["compare() got foo=: unknown option", "valid options: hierarchies"],
    ),
    "compare algo=": (
        lambda df: pandas_anon.compare(df, 2, qid=QID, algo="ola"),
        InvalidParameterError,
        ["compare() got algo=: compare() sets it itself", "remove it", "valid options"],
    ),
    "df.anon.kanon unknown option": (
        lambda df: df.drop(columns="tags").anon.kanon(2, qid=QID, foo=1),
        InvalidParameterError,
        ["df.anon.kanon() got foo=: unknown option", "remove it", "valid options: suppress"],
    ),
    "df.anon.ke_anon misspelt option": (
        lambda df: df.anon.ke_anon(2, 1.0, qid=["sex", "salary"], eps_quasis=[]),
        InvalidParameterError,
        ["df.anon.ke_anon() got eps_quasis=", "did you mean eps_quasi=?"],
    ),
    "df.anon.reinforce unknown option": (
        lambda df: df.anon.reinforce(KAnonymity(2), sensitive="diagnosis", qid=QID, foo=1),
        InvalidParameterError,
        ["df.anon.reinforce() got foo=: unknown option", "valid options"],
    ),
    "df.anon.kanon without k": (
        lambda df: df.anon.kanon(qid=QID),
        InvalidParameterError,
        ["df.anon.kanon(): missing a required argument: 'k'", "see help(df.anon.kanon)"],
    ),
    "df.anon.singletons too many positional arguments": (
        lambda df: df.anon.singletons(QID, True, 3),
        InvalidParameterError,
        ["df.anon.singletons(): too many positional arguments", "see help("],
    ),
    "kanon salt too short": (
        _kanon(identifiers="hash", salt="pepper"),
        InvalidParameterError,
        ["salt is 6 bytes long", "shorter than 16", "secrets.token_hex(16)"],
    ),
    "kanon salt=123": (
        _kanon(identifiers="hash", salt=123),
        InvalidParameterError,
        ["salt must be text or bytes"],
    ),
    "apply suppress='x'": (
        lambda df: pandas_anon.anonymize(df.drop(columns="tags"), 2, qid=QID).apply(
            df.drop(columns="tags"), suppress="x"
        ),
        InvalidParameterError,
        ["suppress must be one of 'mask', 'drop'"],
    ),
    "apply on a shuffled frame": (
        lambda df: pandas_anon.anonymize(df.drop(columns="tags"), 2, qid=QID).apply(
            df.drop(columns="tags").iloc[::-1]
        ),
        InvalidParameterError,
        ["frame: "],
    ),
    "reinforce utility returning text": (
        lambda df: pandas_anon.reinforce(
            df.drop(columns="tags"),
            KAnonymity(5),
            sensitive="diagnosis",
            qid=QID,
            utility=lambda mate: "1.5",
        ),
        InvalidParameterError,
        ["utility must return a real number"],
    ),
    "reinforce utility returning NaN": (
        lambda df: pandas_anon.reinforce(
            df.drop(columns="tags"),
            KAnonymity(5),
            sensitive="diagnosis",
            qid=QID,
            utility=lambda mate: float("nan"),
        ),
        InvalidParameterError,
        ["utility must return a real number"],
    ),
    # -- switches: True or False (or None where it decides for the caller) --------------------
    "singletons dropna='x'": (
        lambda df: pandas_anon.singletons(df, QID, dropna="x"),
        InvalidParameterError,
        ["dropna must be True or False, got 'x'"],
    ),
    "risk dropna=1": (
        lambda df: df.anon.risk(QID, dropna=1),
        InvalidParameterError,
        ["dropna must be True or False, got 1"],
    ),
    "best_qid dropna='no'": (
        lambda df: pandas_anon.best_qid(df, QID, dropna="no"),
        InvalidParameterError,
        ["dropna must be True or False, got 'no'"],
    ),
    "best_qid exhaustive='x'": (
        lambda df: pandas_anon.best_qid(df, QID, exhaustive="x"),
        InvalidParameterError,
        ["exhaustive must be True or False, got 'x'"],
    ),
    "best_qid progress='x'": (
        lambda df: df.anon.best_qid(QID, progress="x"),
        InvalidParameterError,
        ["progress must be True, False or None, got 'x'"],
    ),
    "kanon progress='x'": (
        _kanon(progress="x"),
        InvalidParameterError,
        ["progress must be True, False or None, got 'x'"],
    ),
    "ke_anon progress='yes'": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], progress="yes"),
        InvalidParameterError,
        ["progress must be True, False or None, got 'yes'"],
    ),
    "ke_plan progress=1": (
        lambda df: pandas_anon.ke_plan(df, [2], [1.0], qid=["sex", "salary"], progress=1),
        InvalidParameterError,
        ["progress must be True, False or None, got 1"],
    ),
    "ke_anon shuffle='x'": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], shuffle="x"),
        InvalidParameterError,
        ["shuffle must be True or False, got 'x'"],
    ),
    "ke_anon secure='x'": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], secure="x"),
        InvalidParameterError,
        ["secure must be True or False, got 'x'"],
    ),
    "Mondrian relaxed='x'": (
        lambda df: pandas_anon.Mondrian(relaxed="x"),
        InvalidParameterError,
        ["relaxed must be True or False, got 'x'"],
    ),
    # -- files written: a file path, in a folder that exists --------------------------------
    "report_html to a folder": (
        lambda df: pandas_anon.report_html(df, ".", qid=QID),
        OutputFileError,
        ["path='.' is a directory", "give the path of a file to write"],
    ),
    "report_html in a missing folder": (
        lambda df: df.anon.report_html("no/such/folder/report.html", qid=QID),
        OutputFileError,
        ["path='no/such/folder/report.html' cannot be written", "create it or write elsewhere"],
    ),
    "report_html path=5": (
        lambda df: pandas_anon.report_html(df, 5, qid=QID),
        InvalidParameterError,
        ["path must be a file path (str or pathlib.Path), got 5"],
    ),
    "write_arx_csv to a folder": (
        lambda df: pandas_anon.write_arx_csv(Hierarchy(["a", "b"]), "."),
        OutputFileError,
        ["target='.' is a directory", "give the path of a file to write"],
    ),
    "Hierarchy.to_arx_csv in a missing folder": (
        lambda df: Hierarchy(["a", "b"]).to_arx_csv("no/such/folder/h.csv"),
        OutputFileError,
        ["cannot be written", "folder", "does not exist; create it or write elsewhere"],
    ),
    # -- compare, risk_report, study --------------------------------------------------------
    "compare methods=5": (
        lambda df: pandas_anon.compare(df, 2, qid=QID, methods=5),
        InvalidParameterError,
        ["methods must be a list of algorithms such as ['ola', 'mondrian', 'local']", "got 5"],
    ),
    "compare methods='ola'": (
        lambda df: pandas_anon.compare(df, 2, qid=QID, methods="ola"),
        InvalidParameterError,
        ["methods must be a list of algorithms", "got 'ola'"],
    ),
    "compare methods magic": (
        lambda df: df.anon.compare(2, qid=QID, methods=["ola", "magic"]),
        InvalidParameterError,
        ["algo must be one of 'ola'", "got 'magic'"],
    ),
    "compare k=0": (
        lambda df: pandas_anon.compare(df, 0, qid=QID),
        InvalidParameterError,
        ["k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "risk_report k=0": (
        lambda df: pandas_anon.risk_report(df, qid=QID, k=0),
        InvalidParameterError,
        ["k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "risk_report max_size='3'": (
        lambda df: pandas_anon.risk_report(df.drop(columns="tags"), qid=QID, max_size="3"),
        InvalidParameterError,
        ["max_size must be a whole number", "pass max_size=3, not '3'"],
    ),
    "risk_report qid missing": (
        lambda df: pandas_anon.risk_report(df.drop(columns="tags"), qid=["year", "age"]),
        ColumnNotFoundError,
        ["'age' not found", "available columns"],
    ),
    "study level=0": (
        _study(level=0),
        InvalidParameterError,
        ["level must be a whole number of at least 1", "got 0"],
    ),
    "study year missing": (
        _study(year="born"),
        ColumnNotFoundError,
        ["'born' not found", "available columns"],
    ),
    # -- ke_anon, ke_decide, ke_plan ---------------------------------------------------------
    "ke_anon eps=0": (
        lambda df: pandas_anon.ke_anon(df, 2, 0, qid=["sex", "salary"]),
        InvalidParameterError,
        ["eps must be a finite number above 0 such as 1", "got 0"],
    ),
    "ke_anon eps='x'": (
        lambda df: pandas_anon.ke_anon(df, 2, "x", qid=["sex", "salary"]),
        InvalidParameterError,
        ["eps must be a finite number above 0", "got 'x'"],
    ),
    "ke_anon k=0": (
        lambda df: df.anon.ke_anon(0, 1.0, qid=["sex", "salary"]),
        InvalidParameterError,
        ["k must be a whole number of at least 1", "got 0"],
    ),
    "ke_anon alpha=2": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], alpha=2),
        InvalidParameterError,
        ["alpha must be a fraction", "got 2"],
    ),
    "ke_anon seed=-1": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], seed=-1),
        InvalidParameterError,
        ["seed must be a whole number of at least 0 such as 42", "got -1"],
    ),
    "ke_anon suppress": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "salary"], suppress="x"),
        InvalidParameterError,
        ["suppress must be one of 'mask', 'drop'", "got 'x'"],
    ),
    "ke_anon eps_quasi outside qid": (
        lambda df: pandas_anon.ke_anon(df, 2, 1.0, qid=["year", "sex"], eps_quasi=["salary"]),
        InvalidParameterError,
        ["eps_quasi ['salary'] not in qid", "add them to qid"],
    ),
    "ke_decide eps=nan": (
        lambda df: pandas_anon.ke_decide(df, 2, float("nan"), qid=["sex", "salary"]),
        InvalidParameterError,
        ["eps must be a finite number above 0", "got nan"],
    ),
    "ke_plan k_values=[]": (
        lambda df: pandas_anon.ke_plan(df, [], [1.0], qid=["sex", "salary"]),
        InvalidParameterError,
        ["k_values is empty", "give at least one value, such as [5, 10]"],
    ),
    "ke_plan eps_values=[0]": (
        lambda df: pandas_anon.ke_plan(df, [2], [0], qid=["sex", "salary"]),
        InvalidParameterError,
        ["eps_values must be a finite number above 0", "got 0"],
    ),
    "ke_plan runs=0": (
        lambda df: df.anon.ke_plan([2], [1.0], qid=["sex", "salary"], runs=0),
        InvalidParameterError,
        ["runs must be a whole number of at least 1 such as 5", "got 0"],
    ),
    # -- reinforce -----------------------------------------------------------------------------
    "reinforce goal=5": (
        lambda df: pandas_anon.reinforce(df, 5, sensitive="diagnosis", qid=QID),
        InvalidParameterError,
        ["goal must be KAnonymity(k), LDiversity(l) or TCloseness(t)", "got int 5"],
    ),
    "reinforce goal=[]": (
        lambda df: pandas_anon.reinforce(df, [], sensitive="diagnosis", qid=QID),
        InvalidParameterError,
        ["goal is empty", "give KAnonymity(k)"],
    ),
    "reinforce max_depth=0": (
        lambda df: df.anon.reinforce(KAnonymity(2), sensitive="diagnosis", qid=QID, max_depth=0),
        InvalidParameterError,
        ["max_depth must be a positive whole number or None", "got 0"],
    ),
    "reinforce utility=5": (
        lambda df: pandas_anon.reinforce(
            df, KAnonymity(2), sensitive="diagnosis", qid=QID, utility=5
        ),
        InvalidParameterError,
        ["utility must be a function of a Mate", "got int"],
    ),
    "reinforce sensitive missing": (
        lambda df: pandas_anon.reinforce(df, KAnonymity(2), sensitive="illness", qid=QID),
        ColumnNotFoundError,
        ["'illness' not found", "available columns"],
    ),
    # -- kanon: more ---------------------------------------------------------------------------
    "kanon algo=5": (
        _kanon(algo=5),
        InvalidParameterError,
        ["algo must be an algorithm's name (such as 'ola' or 'mondrian')", "got int 5"],
    ),
    "kanon metric=5": (
        _kanon(metric=5),
        InvalidParameterError,
        ["metric must be 'precision', 'dm' or a callable", "got 5"],
    ),
    "kanon suppress=None": (
        _kanon(suppress=None),
        InvalidParameterError,
        ["suppress must be one of 'mask', 'drop'", "got None"],
    ),
    "kanon hierarchies for a missing column": (
        _kanon(hierarchies={"age": builders.suppression}),
        InvalidParameterError,
        ["hierarchies given for columns outside the qid: ['age']"],
    ),
    "kanon hierarchy of the wrong kind": (
        _kanon(hierarchies={"sex": 5}),
        InvalidParameterError,
        ["column 'sex': expected a Hierarchy, a registered hierarchy name or a builder"],
    ),
    "kanon l=LDiversity without sensitive": (
        _kanon(l=LDiversity(2)),
        InvalidParameterError,
        ["needs sensitive=<column>"],
    ),
    # -- the detection functions and weights --------------------------------------------------
    "identifiers columns=[]": (
        lambda df: pandas_anon.identifiers(df, []),
        InvalidQIDError,
        ["quasi-identifier is empty", "name at least one column"],
    ),
    "identifiers max_size='x'": (
        lambda df: df.anon.identifiers(max_size="x"),
        InvalidParameterError,
        ["max_size must be a whole number", "got 'x'"],
    ),
    "best_qid k=1": (
        lambda df: pandas_anon.best_qid(df, QID, k=1),
        InvalidParameterError,
        ["k must be a whole number of at least 2", "got 1"],
    ),
    "singletons weights missing": (
        lambda df: pandas_anon.singletons(df, QID, weights="people"),
        ColumnNotFoundError,
        ["'people' not found", "available columns"],
    ),
    "singletons weights negative": (
        lambda df: pandas_anon.singletons(df, QID, weights=[-1] * 12),
        InvalidParameterError,
        ["weights: 12 cells are negative", "counts must be whole numbers of people"],
    ),
    "risk weights too short": (
        lambda df: pandas_anon.risk(df, QID, weights=[1, 2, 3]),
        InvalidParameterError,
        ["weights must be a count column's label or one count per row (12 rows)"],
    ),
    "singletons weights text": (
        lambda df: pandas_anon.singletons(df, QID, weights="town"),
        InvalidParameterError,
        ["count column 'town': 12 cells are not numbers", "counts must be whole numbers"],
    ),
    "melt_counts counts=[]": (
        lambda df: pandas_anon.melt_counts(df, []),
        InvalidQIDError,
        ["name at least one column"],
    ),
    "melt_counts dimension taken": (
        lambda df: pandas_anon.melt_counts(df, ["salary"], dimension="year"),
        InvalidParameterError,
        ["needs a new column for the dimension ('year')", "choose another (dimension=)"],
    ),
    # -- generalize, hierarchies, builders, models --------------------------------------------
    "generalize spec=None": (
        lambda df: pandas_anon.generalize(df, None),
        InvalidParameterError,
        ["spec must map column names to a hierarchy and level"],
    ),
    "generalize level=-1": (
        lambda df: pandas_anon.generalize(df, {"sex": (builders.suppression, -1)}),
        InvalidParameterError,
        ["level must be a whole number of at least 0", "got -1"],
    ),
    "generalize spec tuple of 3": (
        lambda df: pandas_anon.generalize(df, {"sex": (builders.suppression, 1, 2)}),
        InvalidParameterError,
        ["spec for column 'sex' must be a hierarchy or (hierarchy, level)", "a tuple of 3"],
    ),
    "read_arx_csv delimiter=''": (
        lambda df: pandas_anon.read_arx_csv("h.csv", delimiter=""),
        HierarchyError,
        ["delimiter '' is not one character", "like ';'"],
    ),
    "write_arx_csv not a Hierarchy": (
        lambda df: pandas_anon.write_arx_csv(5),
        HierarchyError,
        ["expected a Hierarchy, got int", "build one with Hierarchy(values, levels)"],
    ),
    "Hierarchy level beyond": (
        lambda df: Hierarchy(["a", "b"]).labels(9),
        HierarchyError,
        ["has levels 0..1; level 9 does not exist"],
    ),
    "intervals width=0": (
        lambda df: builders.intervals(df["year"], width=0),
        InvalidParameterError,
        ["width must be a positive number", "(width=[5, 10, 20])", "got 0"],
    ),
    "intervals cuts=[]": (
        lambda df: builders.intervals(df["year"], cuts=[]),
        InvalidParameterError,
        ["cuts level 1 must be increasing finite numbers", "cuts=[18, 30, 65]"],
    ),
    "intervals on a frame": (
        lambda df: builders.intervals(df, width=5),
        HierarchyError,
        ["builds the hierarchy of one column", "give a Series (df['column'])"],
    ),
    "masking levels=0": (
        lambda df: builders.masking(df["town"], levels=0),
        InvalidParameterError,
        ["levels must be a whole number from 1 to 1", "got 0"],
    ),
    "dates levels=()": (
        lambda df: builders.dates(pd.to_datetime(df["year"].astype(str)), levels=()),
        InvalidParameterError,
        ["levels must be some of ('day', 'month', 'quarter', 'year', 'decade')", "got ()"],
    ),
    "top_bottom bottom above top": (
        lambda df: builders.top_bottom(df["year"], top=1950, bottom=1970),
        InvalidParameterError,
        ["bottom=1970 is above top=1950", "swap them"],
    ),
    "KAnonymity k=0": (
        lambda df: KAnonymity(0),
        InvalidParameterError,
        ["k must be a whole number of at least 1", "got 0"],
    ),
    "LDiversity l=0": (
        lambda df: LDiversity(0),
        InvalidParameterError,
        ["l must be a whole number of at least 1 such as 2", "got 0"],
    ),
    "TCloseness t=nan": (
        lambda df: TCloseness(float("nan")),
        InvalidParameterError,
        ["t must be a fraction", "got nan"],
    ),
    "get_hierarchy name=5": (
        lambda df: pandas_anon.get_hierarchy(5),
        UnknownNameError,
        ["unknown hierarchy name 5", "valid hierarchy names"],
    ),
    # -- the gate's measures and limits, called directly --------------------------------------
    "measure frame=None": (
        lambda df: measure(None, QID),
        NotAFrameError,
        [NOT_A_FRAME, "got None"],
    ),
    "measure duplicated name": (
        lambda df: measure(_duplicated(df), ["town", "sex"]),
        DuplicateColumnsError,
        [SEVERAL, "rename them"],
    ),
    "Limits k=0": (
        lambda df: Limits(k=0),
        InvalidParameterError,
        ["k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "Limits max_count=2.5": (
        lambda df: Limits(max_count=2.5),
        InvalidParameterError,
        ["max_count must be a whole number of at least 0", "got 2.5"],
    ),
    # -- hierarchy files and the plugin authors' kit ----------------------------------------
    "read_arx_csv source=5": (
        lambda df: pandas_anon.read_arx_csv(5),
        InvalidParameterError,
        ["source must be a file path or a buffer (io.StringIO), got int 5"],
    ),
    "read_arx_csv unknown encoding": (
        lambda df: Hierarchy.from_csv("h.csv", encoding="utf-9"),
        InvalidParameterError,
        ["encoding must be a text encoding such as 'utf-8' or 'latin-1', got 'utf-9'"],
    ),
    "write_arx_csv binary codec": (
        lambda df: pandas_anon.write_arx_csv(Hierarchy(["a"]), io.StringIO(), encoding="base64"),
        InvalidParameterError,
        ["encoding must be a text encoding such as 'utf-8'", "got 'base64'"],
    ),
    "write_arx_csv target=5": (
        lambda df: pandas_anon.write_arx_csv(Hierarchy(["a"]), 5),
        InvalidParameterError,
        ["target must be a file path, a text buffer (io.StringIO) or None, got int 5"],
    ),
    "Hierarchy levels=5": (
        lambda df: Hierarchy(["a", "b"], 5),
        HierarchyError,
        ["levels must be a list of levels, each one label per value", "got int 5"],
    ),
    "Hierarchy levels as text": (
        lambda df: Hierarchy(["a", "b"], "xy"),
        HierarchyError,
        ["levels must be a list of levels", "[['30-39', '30-39', '50-59']]", "got str 'xy'"],
    ),
    "testing.level_problems None": (
        lambda df: pandas_anon.testing.level_problems(None),
        HierarchyError,
        ["level_problems: expected a Hierarchy, got NoneType", "Hierarchy(values, levels)"],
    ),
    "testing.ambiguous_labels 5": (
        lambda df: pandas_anon.testing.ambiguous_labels(5),
        HierarchyError,
        ["ambiguous_labels: expected a Hierarchy, got int"],
    ),
    "testing.assert_plugin unknown option": (
        lambda df: pandas_anon.testing.assert_plugin("example", min_coverag=0.5),
        InvalidParameterError,
        ["assert_plugin() got min_coverag=", "did you mean min_coverage=?"],
    ),
    "testing.check_plugin min_coverage=2": (
        lambda df: pandas_anon.testing.check_plugin("example", min_coverage=2),
        InvalidParameterError,
        ["min_coverage must be a share between 0 and 1, got 2"],
    ),
}


@pytest.mark.parametrize("case", API, ids=list(API))
def test_api(people, case):
    call, error, words = API[case]
    before = people.copy()
    with pytest.raises(error) as caught:
        call(people)
    message = str(caught.value)
    assert all(word in message for word in words), message
    pd.testing.assert_frame_equal(people, before)


# -- the pandera checks: a SchemaError carrying our message -----------------------------------

PANDERA = {
    "k_anonymous k=None": (
        lambda: pa.Check.anon_k_anonymous(qid=QID, k=None),
        ["anon_k_anonymous: k must be a whole number", "got None"],
    ),
    "k_anonymous k=0": (
        lambda: pa.Check.anon_k_anonymous(qid=QID, k=0),
        ["k must be a whole number of at least 1", "got 0"],
    ),
    "k_anonymous k=True": (
        lambda: pa.Check.anon_k_anonymous(qid=QID, k=True),
        ["k must be a whole number", "True is not a number"],
    ),
    "k_anonymous k='5'": (lambda: pa.Check.anon_k_anonymous(qid=QID, k="5"), ["pass k=5, not '5'"]),
    "k_anonymous qid missing": (
        lambda: pa.Check.anon_k_anonymous(qid=["year", "age"], k=2),
        ["'age' not found"],
    ),
    "max_singletons fraction='abc'": (
        lambda: pa.Check.anon_max_singletons(qid=QID, max_fraction="abc"),
        [f"max_fraction must be {FRACTION}", "got 'abc'"],
    ),
    "max_singletons fraction=1.5": (
        lambda: pa.Check.anon_max_singletons(qid=QID, max_fraction=1.5),
        ["max_fraction must be a fraction", "got 1.5"],
    ),
    "max_singletons fraction=True": (
        lambda: pa.Check.anon_max_singletons(qid=QID, max_fraction=True),
        ["max_fraction must be a fraction", "got True"],
    ),
    "max_singletons count=-1": (
        lambda: pa.Check.anon_max_singletons(qid=QID, max_count=-1),
        ["max_count must be a whole number of at least 0", "got -1"],
    ),
    "max_singletons count=True": (
        lambda: pa.Check.anon_max_singletons(qid=QID, max_count=True),
        ["max_count must be a whole number", "True is not a number"],
    ),
    "l_diverse l=None": (
        lambda: pa.Check.anon_l_diverse(qid=QID, sensitive="diagnosis", l=None),
        ["anon_l_diverse: l must be a whole number", "got None"],
    ),
    "l_diverse l='2'": (
        lambda: pa.Check.anon_l_diverse(qid=QID, sensitive="diagnosis", l="2"),
        ["pass l=2, not '2'"],
    ),
    "l_diverse sensitive missing": (
        lambda: pa.Check.anon_l_diverse(qid=QID, sensitive="illness", l=2),
        ["'illness' not found"],
    ),
    "k_anonymous qid=[]": (
        lambda: pa.Check.anon_k_anonymous(qid=[], k=2),
        ["anon_k_anonymous: the quasi-identifier is empty", "name at least one column"],
    ),
    "k_anonymous qid repeated": (
        lambda: pa.Check.anon_k_anonymous(qid=["sex", "sex"], k=2),
        ["column 'sex' named more than once", "list each column once"],
    ),
    "k_anonymous unhashable": (
        lambda: pa.Check.anon_k_anonymous(qid=["tags"], k=2),
        ["column 'tags' holds values that cannot be compared", "convert them first"],
    ),
    "max_singletons count=2.5": (
        lambda: pa.Check.anon_max_singletons(qid=QID, max_count=2.5),
        ["max_count must be a whole number of at least 0", "got 2.5"],
    ),
    "l_diverse sensitive in qid": (
        lambda: pa.Check.anon_l_diverse(qid=QID, sensitive="sex", l=2),
        ["the sensitive column 'sex' is inside the quasi-identifier"],
    ),
    "l_diverse l=0": (
        lambda: pa.Check.anon_l_diverse(qid=QID, sensitive="diagnosis", l=0),
        ["l must be a whole number of at least 1 such as 2", "got 0"],
    ),
}


@pytest.mark.parametrize("case", PANDERA, ids=list(PANDERA))
def test_pandera_checks(people, case):
    check, words = PANDERA[case]
    with pytest.raises(SchemaError) as caught:
        pa.DataFrameSchema(checks=[check()]).validate(people)
    message = str(caught.value)
    assert all(word in message for word in words), message


# -- the command line: exit 2, one "pandas-anon: error:" line ---------------------------------

ANONYMIZE = ["anonymize", "{csv}", "{out}", "--qid", "year,sex"]
STUDY = [
    "study",
    "{csv}",
    "--year",
    "year",
    "--sex",
    "sex",
    "--place",
    "town",
    "--place-parent",
    "parent",
]
CHECK = ["check", "{csv}", "--qid", "year,sex"]
KE_ANON = ["ke-anon", "{csv}", "{out}", "--qid", "sex,salary"]

CLI = {
    "scan --max-size 0": (
        ["scan", "{csv}", "--max-size", "0"],
        ["argument --max-size: max_size must be a whole number of at least 1", "got 0"],
    ),
    "scan --max-size x": (
        ["scan", "{csv}", "--max-size", "x"],
        ["max_size must be a whole number", "got 'x'"],
    ),
    "scan --max-size 2.5": (
        ["scan", "{csv}", "--max-size", "2.5"],
        ["max_size must be a whole number", "got 2.5"],
    ),
    "scan --qid missing": (["scan", "{csv}", "--qid", "year,age"], ["'age' not found"]),
    "study --level 0": (
        STUDY + ["--level", "0"],
        ["argument --level: level must be a whole number of at least 1"],
    ),
    "study --year-groups x": (
        STUDY + ["--year-groups", "x"],
        ["argument --year-groups: year_groups must be a whole number", "got 'x'"],
    ),
    "anonymize --k 0": (
        ANONYMIZE + ["--k", "0"],
        ["argument --k: k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "anonymize --k two": (
        ANONYMIZE + ["--k", "two"],
        ["argument --k: k must be a whole number", "got 'two'"],
    ),
    "anonymize --k 2.5": (
        ANONYMIZE + ["--k", "2.5"],
        ["argument --k: k must be a whole number", "got 2.5"],
    ),
    "anonymize --max-suppression 150%": (
        ANONYMIZE + ["--k", "2", "--max-suppression", "150%"],
        [f"argument --max-suppression: max_suppression must be {FRACTION}", "got '150%'"],
    ),
    "anonymize --max-suppression abc": (
        ANONYMIZE + ["--k", "2", "--max-suppression", "abc"],
        ["max_suppression must be a fraction", "got 'abc'"],
    ),
    "anonymize --max-suppression 1.5": (
        ANONYMIZE + ["--k", "2", "--max-suppression", "1.5"],
        ["max_suppression must be a fraction", "got 1.5"],
    ),
    "anonymize --t 1.5": (
        ANONYMIZE + ["--k", "2", "--sensitive", "salary", "--t", "1.5"],
        ["argument --t: t must be a fraction", "got 1.5"],
    ),
    "anonymize --l 0": (
        ANONYMIZE + ["--k", "2", "--sensitive", "diagnosis", "--l", "0"],
        ["argument --l: l must be a finite number at least 1", "got 0"],
    ),
    "anonymize --l 2.5 distinct": (
        ANONYMIZE + ["--k", "2", "--sensitive", "diagnosis", "--l", "2.5"],
        ["l must be a whole number", "got 2.5"],
    ),
    "anonymize --c 0": (
        ANONYMIZE
        + [
            "--k",
            "2",
            "--sensitive",
            "diagnosis",
            "--l",
            "2",
            "--l-variant",
            "recursive",
            "--c",
            "0",
        ],
        ["argument --c: c must be a finite number above 0"],
    ),
    "anonymize --t without --sensitive": (
        ANONYMIZE + ["--k", "2", "--t", "0.2"],
        ["t=0.2 needs sensitive=<column>"],
    ),
    "anonymize --sensitive missing": (
        ANONYMIZE + ["--k", "2", "--sensitive", "illness", "--l", "2"],
        ["'illness' not found"],
    ),
    "anonymize --algo": (
        ANONYMIZE + ["--k", "2", "--algo", "magic"],
        ["argument --algo: invalid choice", "magic"],
    ),
    "check --k 0": (
        CHECK + ["--k", "0"],
        ["--k: k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "check --k 2.5": (CHECK + ["--k", "2.5"], ["--k: k must be a whole number", "got 2.5"]),
    "check --max-singletons 150%": (
        CHECK + ["--max-singletons", "150%"],
        ["--max-singletons: max_singletons must be a percentage", "got '150%'"],
    ),
    "check --max-singletons 0.5": (
        CHECK + ["--max-singletons", "0.5"],
        ["max_singletons must be a percentage", 'such as "0.5%", or a count', "got '0.5'"],
    ),
    # every command: unreadable input, unwritable output, options it does not take
    "scan a missing file": (
        ["scan", "{dir}/nope.csv"],
        ["nope.csv: no such file; check the path"],
    ),
    "scan --qid repeated": (
        ["scan", "{csv}", "--qid", "year,year"],
        ["'year' named more than once", "list each column once"],
    ),
    "scan --bogus": (
        ["scan", "{csv}", "--bogus"],
        ["unrecognized arguments: --bogus", "see pandas-anon scan --help"],
    ),
    "anonymize OUT a folder": (
        ["anonymize", "{csv}", "{dir}", "--qid", "year,sex", "--k", "2"],
        ["is a directory; give the path of a file to write"],
    ),
    "anonymize OUT in a missing folder": (
        ["anonymize", "{csv}", "{missing}", "--qid", "year,sex", "--k", "2"],
        ["cannot be written: folder", "does not exist; create it or write elsewhere"],
    ),
    "anonymize OUT is the input": (
        ["anonymize", "{csv}", "{csv}", "--qid", "year,sex", "--k", "2"],
        ["is the input file", "pass --force to replace the input"],
    ),
    "anonymize a missing input": (
        ["anonymize", "{dir}/nope.csv", "{out}", "--k", "2"],
        ["nope.csv: no such file; check the path"],
    ),
    "anonymize --hierarchy missing file": (
        ANONYMIZE + ["--k", "2", "--hierarchy", "year={dir}/years.csv"],
        ["years.csv: no such file; check the path"],
    ),
    "anonymize --identifiers": (
        ANONYMIZE + ["--k", "2", "--identifiers", "magic"],
        ["argument --identifiers: invalid choice: 'magic'", "choose from 'drop', 'hash', 'keep'"],
    ),
    "anonymize --suppress": (
        ANONYMIZE + ["--k", "2", "--suppress", "drop"],
        ["unrecognized arguments: --suppress drop", "see pandas-anon anonymize --help"],
    ),
    "ke-anon --k 0": (
        KE_ANON + ["--k", "0", "--eps", "1"],
        ["argument --k: k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "ke-anon --eps 0": (
        KE_ANON + ["--k", "2", "--eps", "0"],
        ["argument --eps: eps must be a finite number above 0 such as 1", "got 0"],
    ),
    "ke-anon --eps x": (
        KE_ANON + ["--k", "2", "--eps", "x"],
        ["argument --eps: eps must be a finite number above 0", "got 'x'"],
    ),
    "ke-anon --alpha 2": (
        KE_ANON + ["--k", "2", "--eps", "1", "--alpha", "2"],
        ["argument --alpha: alpha must be a fraction from 0 to 1", "got 2"],
    ),
    "ke-anon --seed -1": (
        KE_ANON + ["--k", "2", "--eps", "1", "--seed", "-1"],
        ["argument --seed: seed must be a whole number of at least 0", "got -1"],
    ),
    "ke-anon --eps-quasi text": (
        KE_ANON + ["--k", "2", "--eps", "1", "--eps-quasi", "town", "--qid", "sex,town"],
        ["ε-quasi 'town' holds", "values, not numbers", "leave it out of eps_quasi"],
    ),
    "ke-anon OUT a folder": (
        ["ke-anon", "{csv}", "{dir}", "--qid", "sex,salary", "--k", "2", "--eps", "1"],
        ["is a directory; give the path of a file to write"],
    ),
    "report --k 0": (
        ["report", "{csv}", "-o", "{html}", "--k", "0"],
        ["argument --k: k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "report --max-size 0": (
        ["report", "{csv}", "-o", "{html}", "--max-size", "0"],
        ["argument --max-size: max_size must be a whole number of at least 1", "got 0"],
    ),
    "report -o a folder": (
        ["report", "{csv}", "-o", "{dir}"],
        ["is a directory; give the path of a file to write"],
    ),
    "report -o in a missing folder": (
        ["report", "{csv}", "-o", "{missing}"],
        ["cannot be written: folder", "does not exist; create it or write elsewhere"],
    ),
    "report without -o": (
        ["report", "{csv}"],
        ["the following arguments are required: -o/--output"],
    ),
    "compare --k 0": (
        ["compare", "{csv}", "--k", "0"],
        ["argument --k: k must be a whole number of at least 1 such as 5", "got 0"],
    ),
    "compare --methods magic": (
        ["compare", "{csv}", "--k", "2", "--qid", "year,sex", "--methods", "magic"],
        ["algo must be one of 'ola'", "got 'magic'"],
    ),
    "compare --qid missing": (
        ["compare", "{csv}", "--k", "2", "--qid", "year,age"],
        ["'age' not found", "available columns"],
    ),
    "study --place missing": (
        ["study", "{csv}", "--year", "year", "--sex", "sex", "--place", "city"],
        ["'city' not found", "available columns"],
    ),
    "study --year-groups 0": (
        STUDY + ["--year-groups", "0"],
        ["argument --year-groups: year_groups must be a whole number of at least 1", "got 0"],
    ),
    "plugins --check unknown": (
        ["plugins", "--check", "nope"],
        ["unknown installed plugin 'nope'", "valid installed plugins"],
    ),
    "plugins --bogus": (
        ["plugins", "--bogus"],
        ["unrecognized arguments: --bogus", "see pandas-anon plugins --help"],
    ),
    "demo --k 0": (
        ["demo", "--k", "0"],
        ["unrecognized arguments: --k 0", "see pandas-anon demo --help"],
    ),
    "check --qid missing": (
        CHECK[:2] + ["--qid", "year,age"],
        ["'age' not found", "available columns"],
    ),
    "check --engine": (
        CHECK + ["--engine", "spark"],
        ["argument --engine: invalid choice: 'spark'", "choose from 'pandas', 'dask'"],
    ),
    "check --config missing": (
        CHECK + ["--config", "{dir}/nope.toml"],
        ["nope.toml cannot be read"],
    ),
    "no command": ([], ["the following arguments are required: COMMAND"]),
    "unknown command": (["anonymise"], ["argument COMMAND: invalid choice: 'anonymise'"]),
}


@pytest.fixture
def files(tmp_path, people):
    csv = tmp_path / "people.csv"
    people.drop(columns="tags").to_csv(csv, index=False)
    return {
        "csv": str(csv),
        "out": str(tmp_path / "out.csv"),
        "html": str(tmp_path / "report.html"),
        "dir": str(tmp_path),
        "missing": str(tmp_path / "no" / "out.csv"),
    }


def _error_line(capsys, argv: list[str]) -> str:
    """Run the command, check exit code 2 and one error line (after argparse's usage, if
    any), and return that line."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    errors = [line for line in err.splitlines() if line.startswith("pandas-anon: error: ")]
    assert len(errors) == 1 and err.splitlines()[-1] == errors[0], err
    return errors[0]


@pytest.mark.parametrize("case", CLI, ids=list(CLI))
def test_command_line(capsys, files, case):
    argv, words = CLI[case]
    line = _error_line(capsys, [arg.format(**files) for arg in argv])
    assert all(word in line for word in words), line


CONFIG = {
    "k = 0": ("k = 0", ["k must be a whole number of at least 1", "got 0"]),
    "k = true": ("k = true", ["k must be a whole number", "True is not a number"]),
    "k = 2.5": ("k = 2.5", ["k must be a whole number", "got 2.5"]),
    'k = "5"': ('k = "5"', ["k must be a whole number", "pass k=5, not '5'"]),
    "max_size = 0": (
        "max_size = 0",
        ["max_size must be a whole number of at least 1 such as 3", "got 0"],
    ),
    'max_size = "3"': ('max_size = "3"', ["pass max_size=3, not '3'"]),
    "max_singletons = true": (
        "max_singletons = true",
        ["max_singletons must be a percentage", "got True"],
    ),
    'max_singletons = "150%"': (
        'max_singletons = "150%"',
        ["max_singletons must be a percentage", "got '150%'"],
    ),
    "max_singletons = -1": (
        "max_singletons = -1",
        ["max_singletons must be a percentage", "got -1"],
    ),
}


@pytest.mark.parametrize("case", CONFIG, ids=list(CONFIG))
def test_configuration_file(tmp_path, capsys, files, case):
    line, words = CONFIG[case]
    config = tmp_path / ".pandas-anon.toml"
    config.write_text(f"{line}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(str(config))
    message = str(caught.value)
    assert message.startswith(f"{config}: top level: ") and all(w in message for w in words), (
        message
    )
    error = _error_line(capsys, ["check", files["csv"], "--config", str(config)])
    assert all(word in error for word in words), error


# -- the same forms everywhere ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("1%", 0.01),
        ("0.1", 0.1),
        ("5%", 0.05),
        (" 0.5 % ", 0.005),
        ("100%", 1.0),
        ("0", 0.0),
        ("1", 1.0),
        ("0.1%", 0.001),
        (".25", 0.25),
    ],
)
def test_kanon_takes_fraction_text_as_the_number(plain, text, number):
    assert fraction(text, "max_suppression") == number  # exact: the float nearest the decimal
    by_text = pandas_anon.kanon(plain, 3, qid=["year", "town"], max_suppression=text)
    by_number = pandas_anon.kanon(plain, 3, qid=["year", "town"], max_suppression=number)
    pd.testing.assert_frame_equal(by_text, by_number)
    assert by_text.anon.report().max_suppression == number


def test_t_takes_fraction_text(plain):
    by_text = pandas_anon.kanon(plain, 2, qid=QID, sensitive="salary", t="0.2")
    by_percent = pandas_anon.kanon(plain, 2, qid=QID, sensitive="salary", t="20%")
    by_number = pandas_anon.kanon(plain, 2, qid=QID, sensitive="salary", t=0.2)
    pd.testing.assert_frame_equal(by_text, by_number)
    pd.testing.assert_frame_equal(by_percent, by_number)
    assert by_text.anon.report().models == by_number.anon.report().models


def test_numpy_numbers_are_numbers(plain):
    python = pandas_anon.kanon(plain, 2, qid=QID, max_suppression=0.5)
    numpy = pandas_anon.kanon(plain, np.int64(2), qid=QID, max_suppression=np.float64(0.5))
    pd.testing.assert_frame_equal(python, numpy)
    assert numpy.anon.report().max_suppression == 0.5 and type(KAnonymity(np.int32(3)).k) is int
    assert LDiversity(np.int64(2)).l == 2 and TCloseness(np.float32(0.25)).t == 0.25


def test_the_limits_take_fraction_text(people):
    assert Limits(max_fraction="1%") == Limits(max_fraction=0.01)
    assert Limits(max_fraction="0.01") == Limits(max_fraction=0.01)
    one_in_six = 2 / 12  # the people frame has 2 singletons on (sex, diagnosis)
    qid = ["sex", "diagnosis"]
    for allowed, passes in (("16%", False), ("17%", True), (one_in_six, True), ("0.16", False)):
        schema = pa.DataFrameSchema(
            checks=[pa.Check.anon_max_singletons(qid=qid, max_fraction=allowed)]
        )
        if passes:
            schema.validate(people)
        else:
            with pytest.raises(SchemaError, match="2 singletons"):
                schema.validate(people)


def test_the_command_line_takes_what_the_api_takes(capsys, files, plain):
    outputs = []
    for given in ("50%", "0.5"):
        target = files["out"].replace(".csv", f"-{given.strip('%.')}.csv")
        argv = [
            "anonymize",
            files["csv"],
            target,
            "--qid",
            "year,town",
            "--k",
            "3",
            "--max-suppression",
            given,
        ]
        assert main(argv) == 0, capsys.readouterr().err
        capsys.readouterr()
        outputs.append(pd.read_csv(target))
    pd.testing.assert_frame_equal(outputs[0], outputs[1])
    api = pandas_anon.kanon(plain, 3, qid=["year", "town"], max_suppression=0.5)
    assert (outputs[0]["town"].astype(str) == api["town"].astype(str)).all()


def test_command_line_text_is_read_as_the_number_it_spells():
    assert [from_text(t) for t in ("5", " 7 ", "-3", "2.5", "1e-2", "5%", "two")] == [
        5,
        7,
        -3,
        2.5,
        0.01,
        "5%",
        "two",
    ]
    assert whole(from_text("5"), "k") == 5


def test_a_bool_is_never_a_number():
    for parse in (
        lambda v: whole(v, "k"),
        lambda v: fraction(v, "t"),
        lambda v: LDiversity(v),
        lambda v: LDiversity(v, "entropy"),
        lambda v: Limits(max_count=v),
    ):
        for value in (True, False, np.True_):
            with pytest.raises(InvalidParameterError, match="is not a number"):
                parse(value)


# -- a command stopped by a signal: one line, its exit code, no temporary file left ---------


@pytest.fixture(scope="module")
def large_csv(tmp_path_factory) -> str:
    """A CSV large enough (400,000 rows) for ``anonymize`` to spend a while writing it."""
    rng = np.random.default_rng(0)
    n = 400_000
    path = tmp_path_factory.mktemp("large") / "large.csv"
    pd.DataFrame(
        {
            "year": rng.integers(1940, 2000, n),
            "sex": rng.choice(["F", "M"], n),
            "town": rng.choice(list("ABCDEFGH"), n),
        }
    ).to_csv(path, index=False)
    return str(path)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "code", "named"),
    [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C (SIGINT)")],
    ids=["SIGTERM", "SIGINT"],
)
def test_a_signal_while_writing_leaves_no_temporary_file(tmp_path, large_csv, signum, code, named):
    """The signal arrives while the output's temporary file is being written (seen in the
    folder): the command exits 128 + the signal's number with one line, no traceback, and
    neither the temporary file nor a partial output is left."""
    out = tmp_path / "out.csv"
    argv = ["anonymize", large_csv, str(out), "--qid", "year,sex,town", "--k", "5"]
    for _ in range(3):  # on a loaded machine the write may end before the signal is sent
        run = subprocess.Popen(
            [sys.executable, "-m", "pandas_anon.cli", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 300
        while not list(tmp_path.glob(".out.csv.*.tmp")):
            assert run.poll() is None, "the command ended before writing: the file is too small"
            assert time.monotonic() < deadline, "no temporary file after 300 s"
            time.sleep(0.002)
        run.send_signal(signum)
        _, err = run.communicate(timeout=120)
        if run.returncode != 0:
            break
        out.unlink()  # written whole before the signal came: try again
    assert run.returncode == code, err
    assert err.splitlines()[-1] == (
        f"pandas-anon: stopped by {named}; a file being written is left as it was"
    ), err
    assert "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "a file was left behind"


def test_the_signal_handler_is_restored(capsys, files):
    """SIGTERM is an exception only while a command runs: the caller's handler is back
    after it, whether the command succeeded or failed."""
    before = signal.getsignal(signal.SIGTERM)
    assert main(["scan", files["csv"], "--qid", "year,sex"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before
    assert main(["scan", files["csv"], "--qid", "year,age"]) == 2
    assert signal.getsignal(signal.SIGTERM) is before
    capsys.readouterr()


# -- Dask: an ordered categorical whose categories differ between partitions ------------------

DASK = {
    "singletons": lambda ddf: ddf.anon.singletons(["grade", "sex"]),
    "best_qid": lambda ddf: ddf.anon.best_qid(),
    "identifiers": lambda ddf: ddf.anon.identifiers(),
    "kanon": lambda ddf: ddf.anon.kanon(2, qid=["grade", "sex"], max_suppression=0.5),
}


@pytest.mark.parametrize("case", DASK, ids=list(DASK))
def test_dask_ordered_categorical_with_an_all_missing_partition(case):
    """Each partition's categorical holds only the categories it uses (an all-missing
    partition has none): Dask cannot put ordered ones together (its own compute() raises
    pandas' TypeError); we say which column and how to fix it."""
    dd = pytest.importorskip("dask.dataframe")
    grades = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    frame = pd.DataFrame(
        {
            "grade": pd.Series(["low", "mid", "high", "low", None, None], dtype=grades),
            "sex": list("FMFMFM"),
        }
    )
    ddf = dd.from_pandas(frame, npartitions=3, sort=False).map_partitions(
        lambda part: part.assign(grade=part["grade"].cat.remove_unused_categories())
    )
    with pytest.raises(InvalidParameterError) as caught:
        DASK[case](ddf)
    message = str(caught.value)
    assert message.startswith("column 'grade': an ordered categorical whose categories differ")
    assert "give it the same categories in every partition" in message
    assert "ddf[c].cat.as_unordered()" in message
