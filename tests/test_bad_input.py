"""The bad-input catalogue: every bad argument of the API, the command line and the pandera
checks fails with our exception type (or exit code 2) and a message naming the parameter, the
value and the fix; fractions take the same forms everywhere ("5%", "0.05", 0.05); booleans
are never numbers.

Each case is one line of a table: the call, the exception, the words its message must hold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest
from pandera.errors import SchemaError

import pandas_anon
from pandas_anon import (
    ColumnNotFoundError,
    Hierarchy,
    HierarchyError,
    InvalidParameterError,
    InvalidQIDError,
    KAnonymity,
    LDiversity,
    TCloseness,
    UnhashableValueError,
)
from pandas_anon.cli.main import main
from pandas_anon.errors import ConfigError, UnknownNameError
from pandas_anon.gate.config import load_config
from pandas_anon.gate.pandera_checks import Limits
from pandas_anon.hierarchy import builders
from pandas_anon.params import fraction, from_text, whole

QID = ["year", "sex"]
FRACTION = "a fraction from 0 to 1 such as 0.05 or '5%'"


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
}


@pytest.fixture
def files(tmp_path, people):
    csv = tmp_path / "people.csv"
    people.drop(columns="tags").to_csv(csv, index=False)
    return {"csv": str(csv), "out": str(tmp_path / "out.csv")}


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
