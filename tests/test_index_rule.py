"""The frame's own shape gives no false assurance: every column is examined whatever its label,
and an index holding data is refused by every function that reads or writes a frame.

pandas-anon examines columns; a release writes its index as well (``to_csv`` does by default).
The one rule (:func:`pandas_anon.params.index_numbers_rows`): the index may only number rows,
one unnamed level of whole numbers; any other index is an :class:`IndexDataError` naming
``reset_index()``. The table below holds a call of every public function taking a frame, and
a test checks that no such function is missing from it.

Column labels: the API's parameters use None for "no column" (``sensitive=None``, no count
column); comparing every label with such a default once dropped a column *labelled* None
from zero configuration's examination, and its tax codes were released verbatim.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import IndexDataError
from pandas_anon.params import index_numbers_rows

QID = ["anno_nascita", "sesso", "comune_residenza"]


@pytest.fixture(scope="module")
def people(_licences) -> pd.DataFrame:
    """3,000 licence holders, a tax code per row (distinct, made up) in front."""
    frame = _licences.drop(columns="id").head(3000).reset_index(drop=True)
    frame.insert(0, "codice_fiscale", [f"RSSMRA{i:05d}X" for i in range(len(frame))])
    return frame


def _call(name):
    """Each public function on a frame, with the smallest arguments it needs."""
    calls = {
        "anonymize": lambda f: pandas_anon.anonymize(f, 5, qid=QID),
        "attacks": lambda f: pandas_anon.attacks(
            f.iloc[:2000], f.iloc[:2000], control=f.iloc[2000:], n_attacks=20, seed=0
        ),
        "best_qid": lambda f: pandas_anon.best_qid(f, QID, max_size=1),
        "compare": lambda f: pandas_anon.compare(f, 5, qid=QID, methods=["mondrian"]),
        "generalize": lambda f: pandas_anon.generalize(f, {"sesso": "builtin.suppress"}),
        "identifiers": lambda f: pandas_anon.identifiers(f),
        "individual_risk": lambda f: pandas_anon.individual_risk(f, QID),
        "intervals": lambda f: pandas_anon.intervals(f, ["anno_nascita"]),
        "kanon": lambda f: pandas_anon.kanon(f, 5),
        "ke_anon": lambda f: pandas_anon.ke_anon(f, 5, 1.0, qid=["anno_nascita", "sesso"]),
        "ke_decide": lambda f: pandas_anon.ke_decide(f, 5, 1.0, qid=["anno_nascita", "sesso"]),
        "ke_plan": lambda f: pandas_anon.ke_plan(
            f, [5], [1.0], qid=["anno_nascita", "sesso"], runs=1
        ),
        "melt_counts": lambda f: pandas_anon.melt_counts(f, ["punti_patente"]),
        "reinforce": lambda f: pandas_anon.reinforce(
            f, pandas_anon.KAnonymity(5), sensitive="categoria_patente", qid=QID[:2]
        ),
        "report_html": lambda f: pandas_anon.report_html(f, qid=QID),
        "risk": lambda f: pandas_anon.risk(f, QID),
        "risk_report": lambda f: pandas_anon.risk_report(f, qid=QID),
        "singletons": lambda f: pandas_anon.singletons(f, QID),
        "study": lambda f: pandas_anon.study(
            f,
            year="anno_nascita",
            sex="sesso",
            place="comune_residenza",
            hierarchy=pandas_anon.Hierarchy.from_columns(
                f, ["comune_residenza", "provincia_residenza"]
            ),
        ),
        "suda": lambda f: pandas_anon.suda(f, QID),
        "accessor": lambda f: f.anon.singletons(QID),
    }
    return calls[name]


CALLS = [
    "anonymize",
    "attacks",
    "best_qid",
    "compare",
    "generalize",
    "identifiers",
    "individual_risk",
    "intervals",
    "kanon",
    "ke_anon",
    "ke_decide",
    "ke_plan",
    "melt_counts",
    "reinforce",
    "report_html",
    "risk",
    "risk_report",
    "singletons",
    "study",
    "suda",
    "accessor",
]

#: Index kinds that hold data, each made from the frame (never by hand).
HOLDING_DATA = {
    "named text (set_index of the tax codes)": lambda f: f.set_index("codice_fiscale"),
    "unnamed text": lambda f: f.set_index("codice_fiscale").rename_axis(None),
    "the QID in a MultiIndex": lambda f: f.set_index(QID, drop=False).rename(
        columns=lambda c: f"{c}_copy" if c in QID else c
    ),
    "named whole numbers": lambda f: f.set_index(
        pd.Index(np.random.default_rng(0).permutation(len(f)) * 7 + 1000, name="matricola")
    ),
    "dates": lambda f: f.set_index(pd.DatetimeIndex(f["data_rilascio"]).rename(None)),
}


def test_every_public_function_on_a_frame_is_in_the_table():
    takes_a_frame = {
        name
        for name in pandas_anon._LAZY
        if inspect.isfunction(getattr(pandas_anon, name))
        and next(iter(inspect.signature(getattr(pandas_anon, name)).parameters), None)
        in ("frame", "original", "released")
    }
    assert takes_a_frame - set(CALLS) == set()


@pytest.mark.parametrize("kind", list(HOLDING_DATA))
@pytest.mark.parametrize("name", CALLS)
def test_an_index_holding_data_is_refused_by_every_function(people, name, kind):
    frame = HOLDING_DATA[kind](people)
    if name == "intervals":  # a release, its index made as the people's
        release = pandas_anon.kanon(people, 5, qid=QID)
        frame = HOLDING_DATA[kind](release.assign(codice_fiscale=people["codice_fiscale"]))
    before = frame.copy()
    with pytest.raises(IndexDataError, match=r"reset_index\(\)") as caught:
        _call(name)(frame)
    message = str(caught.value)
    assert "RSSMRA" not in message  # the levels and dtypes are named, never the values
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("name", CALLS)
def test_row_numbers_left_by_sampling_are_an_index_that_numbers_rows(people, name):
    sample = people.sample(frac=0.9, random_state=3)
    assert not isinstance(sample.index, pd.RangeIndex)
    frame = sample
    if name == "intervals":
        frame = pandas_anon.kanon(sample, 5, qid=QID)
    _call(name)(frame)  # no IndexDataError


def test_the_index_rule():
    assert index_numbers_rows(pd.RangeIndex(5, name="row"))  # positions, whatever the name
    assert index_numbers_rows(pd.Index([3, 1, 1, 9]))  # concatenated, filtered, sampled
    assert index_numbers_rows(pd.Index(np.array([3, 1], dtype=np.uint16)))
    for holding in (
        pd.Index([3, 1], name="id"),
        pd.Index(["a", "b"]),
        pd.Index([1.0, 2.0]),
        pd.Index([1, 2], dtype="Int64"),
        pd.Index([True, False]),
        pd.MultiIndex.from_arrays([[1, 2], [3, 4]]),
        pd.DatetimeIndex(["2020-01-01", "2021-01-01"]),
        pd.CategoricalIndex(["a", "b"]),
    ):
        assert not index_numbers_rows(holding), holding


def test_kanon_on_the_tax_codes_as_index_is_refused_not_released(people):
    """The issue's case: kept as the index, the tax codes came out of to_csv, the report
    saying identifiers={}."""
    with pytest.raises(IndexDataError, match="named 'codice_fiscale', of"):
        pandas_anon.kanon(people.set_index("codice_fiscale"), 5)
    out = pandas_anon.kanon(people.set_index("codice_fiscale").reset_index(), 5)
    assert "codice_fiscale" not in out.columns
    assert out.anon.report().identifiers == {"codice_fiscale": "dropped"}
    assert "RSSMRA" not in out.to_csv()


def test_a_dask_frame_holding_data_in_its_index_is_refused(people):
    dd = pytest.importorskip("dask.dataframe")
    indexed = dd.from_pandas(people.set_index("codice_fiscale"), npartitions=2)
    for call in (
        lambda f: pandas_anon.kanon(f, 5, qid=QID),
        lambda f: pandas_anon.singletons(f, QID),
        lambda f: pandas_anon.identifiers(f),
        lambda f: f.anon.best_qid(QID, max_size=1),
    ):
        with pytest.raises(IndexDataError, match="named 'codice_fiscale'"):
            call(indexed)
    plain = dd.from_pandas(people, npartitions=2)
    assert pandas_anon.singletons(plain, QID).count == pandas_anon.singletons(people, QID).count


def test_a_pandera_check_refuses_an_index_holding_data(people):
    pa = pytest.importorskip("pandera.pandas")
    schema = pa.DataFrameSchema(checks=[pa.Check.anon_k_anonymous(qid=QID, k=2)])
    with pytest.raises((IndexDataError, pa.errors.SchemaError)) as caught:
        schema.validate(people.set_index("codice_fiscale"))
    assert "reset_index" in str(caught.value)


# -- column labels: every label is a column like any other ------------------------------------


@pytest.mark.parametrize("label", [None, math.nan, 0, "", "None", ("a", "b")], ids=repr)
def test_a_column_of_tax_codes_is_examined_whatever_its_label(people, label):
    """Zero configuration finds and drops the identifier column, labelled however."""
    frame = people.rename(columns={"codice_fiscale": "_cf"})
    frame.columns = pd.Index([label if c == "_cf" else c for c in frame.columns], dtype=object)
    assert pandas_anon.identifiers(frame) == [(frame.columns[0],)]
    out = pandas_anon.kanon(frame, 5)
    assert len(out.columns) == len(frame.columns) - 1
    assert list(out.anon.report().identifiers.values()) == ["dropped"]
    assert "RSSMRA" not in out.to_csv()
    smallest = out.groupby(list(out.columns), dropna=False).size().min()
    assert smallest >= 5 or (out == "*").all(axis=1).any()


def test_a_column_labelled_none_beside_a_sensitive_column(people):
    frame = people.rename(columns={"codice_fiscale": "_cf"})
    frame.columns = pd.Index([None if c == "_cf" else c for c in frame.columns], dtype=object)
    out = pandas_anon.kanon(frame, 5, sensitive="categoria_patente")
    assert None not in list(out.columns)
    assert "RSSMRA" not in out.to_csv()
    named = pandas_anon.kanon(frame, 5, qid=QID)  # named QID: the others are searched too
    assert None not in list(named.columns)


# -- the rule on random indexes ---------------------------------------------------------------


@st.composite
def indexes(draw, n: int) -> pd.Index:
    """An index of ``n`` labels of a random kind, named or not."""
    kind = draw(
        st.sampled_from(
            ["range", "int", "uint", "Int64", "float", "text", "dates", "category", "multi"]
        )
    )
    numbers = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n))
    name = draw(st.sampled_from([None, None, "id", 0, ""]))
    made = {
        "range": lambda: pd.RangeIndex(draw(st.integers(-5, 5)), draw(st.integers(-5, 5)) + n),
        "int": lambda: pd.Index(np.array(numbers, dtype=np.int64)),
        "uint": lambda: pd.Index(np.array(numbers, dtype=np.uint32)),
        "Int64": lambda: pd.Index(numbers, dtype="Int64"),
        "float": lambda: pd.Index(np.array(numbers, dtype=float)),
        "text": lambda: pd.Index([f"p{v}" for v in numbers]),
        # (days within pandas 2.2's nanosecond range: before 2262)
        "dates": lambda: pd.to_datetime(np.array(numbers, dtype="int64") % 90_000, unit="D"),
        "category": lambda: pd.CategoricalIndex([v % 3 for v in numbers]),
        "multi": lambda: pd.MultiIndex.from_arrays([numbers, numbers]),
    }[kind]()
    if kind == "range":
        made = pd.RangeIndex(made.start, made.start + n)
    return made.rename(name) if kind != "multi" else made


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_index_either_numbers_rows_or_is_refused(people, data):
    """kanon and singletons refuse exactly the indexes that hold data; the ones that number
    rows give the release of the frame with a RangeIndex, row for row."""
    frame = people.head(200)[QID + ["codice_fiscale"]]
    index = data.draw(indexes(len(frame)))
    indexed = frame.set_axis(index, axis=0)
    numbers_rows = isinstance(index, pd.RangeIndex) or (
        index.nlevels == 1
        and index.name is None
        and isinstance(index.dtype, np.dtype)
        and index.dtype.kind in "iu"
    )
    assert index_numbers_rows(index) == numbers_rows
    for call in (lambda f: pandas_anon.kanon(f, 3), lambda f: pandas_anon.singletons(f, QID)):
        if not numbers_rows:
            with pytest.raises(IndexDataError):
                call(indexed)
            continue
        found, plain = call(indexed), call(frame)
        if isinstance(found, pd.DataFrame):
            assert found.index.equals(index)
            pd.testing.assert_frame_equal(
                found.reset_index(drop=True), plain.reset_index(drop=True)
            )
        else:
            assert found.count == plain.count
