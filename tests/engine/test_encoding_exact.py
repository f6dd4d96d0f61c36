"""Exact encoding: every dtype groups as plain pandas groupby does, whatever its range, and
cells that cannot be hashed are refused by name at every entry point (issue 9, items 4 and 5)."""

from __future__ import annotations

import json
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pandera.errors import SchemaError

import pandas_anon
from pandas_anon import EncodedFrame, Hierarchy, UnhashableValueError
from pandas_anon import hierarchy as builders
from pandas_anon.anonymization.recoding import positions_among
from pandas_anon.engine.encoding import distinct_count, encode_column, factorize

from verify import as_written, naive_counts

INT64_MIN, INT64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
UINT64_MAX = np.iinfo(np.uint64).max


def reproducer() -> pd.DataFrame:
    """Issue 9: an INT64_MIN sentinel next to small codes."""
    return pd.DataFrame({"code": [INT64_MIN, 1, 2, 2, 3, 3], "sex": list("MMFFMM")})


# -- regressions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dropna", [True, False])
def test_int64_min_sentinel_counts_every_row(dropna):
    frame = reproducer()
    found = pandas_anon.singletons(frame, ["code", "sex"], dropna=dropna)
    assert (found.count, found.examined, found.dropped, found.distinct) == (2, 6, 0, 4)
    assert naive_counts(frame, ["code", "sex"], dropna=dropna) == {
        "examined": 6,
        "dropped": 0,
        "singletons": 2,
        "distinct": 4,
    }
    assert found.mask.tolist() == [True, True, False, False, False, False]


def test_range_of_two_to_the_63_does_not_ask_for_a_huge_array():
    frame = pd.DataFrame({"id": [-(2**62), 2**62, 7, 3, 2**62]})
    found = pandas_anon.singletons(frame, "id")
    assert (found.count, found.examined, found.distinct) == (3, 5, 4)
    assert naive_counts(frame, ["id"])["singletons"] == 3


@pytest.mark.parametrize(
    "series, distinct",
    [
        (pd.Series([INT64_MIN, INT64_MAX, INT64_MIN, 0]), 3),
        (pd.Series([INT64_MAX, INT64_MAX - 1, INT64_MAX]), 2),  # compact next to the bound
        (pd.Series([INT64_MIN, INT64_MIN + 2, INT64_MIN]), 2),
        (pd.Series([UINT64_MAX, 2**63, 2**63 + 1, 2**63, 0], dtype=np.uint64), 4),
        (pd.Series([UINT64_MAX, UINT64_MAX - 3, UINT64_MAX], dtype=np.uint64), 2),
        (pd.Series([INT64_MIN, None, INT64_MAX, INT64_MIN], dtype="Int64"), 2),
        (pd.Series([UINT64_MAX, None, 0, UINT64_MAX], dtype="UInt64"), 2),
        (pd.Series([2.0**60, 2.0**60 + 256, 2.0**60]), 2),  # whole, but beyond exact integers
        (pd.Series([-np.inf, np.inf, np.nan, -np.inf, 0.0, -0.0]), 4),  # -0.0 is written so
    ],
)
def test_extreme_columns_encode_exactly(series, distinct):
    codes, values = encode_column(series)
    present = codes >= 0
    assert (present == series.notna().to_numpy()).all()
    assert len(np.unique(codes[present])) == distinct
    # each code decodes to the value of its rows, exactly
    decoded = values.take(codes[present])
    assert [int(v) if isinstance(v, (int, np.integer)) else v for v in decoded] == [
        int(v) if isinstance(v, (int, np.integer)) else v for v in series[present]
    ]


def test_compact_integer_columns_keep_the_arithmetic_path():
    """Performance guard: years, codes and small unsigned ints are coded by subtraction
    (their values span min..max, gaps included), not hashed."""
    years = pd.Series([1918, 2003, 1950, 1950])
    assert len(encode_column(years)[1]) == 2003 - 1918 + 1
    assert encode_column(years)[0].tolist() == [0, 85, 32, 32]
    near_max = pd.Series([UINT64_MAX - 10, UINT64_MAX], dtype=np.uint64)
    assert encode_column(near_max)[0].tolist() == [0, 10]
    assert len(encode_column(pd.Series([1, 9], dtype="uint8"))[1]) == 9
    assert len(encode_column(pd.Series([1.0, np.nan, 9.0]))[1]) == 9
    assert len(encode_column(pd.Series([INT64_MIN, 0]))[1]) == 2  # wide: factorized


@pytest.mark.parametrize("big, dtype", [(2**60, "Int64"), (2**63, "object"), (2**63, "UInt64")])
def test_missing_as_a_value_keeps_large_integers_exact(big, dtype):
    """The missing value appended with dropna=False no longer turns the values to float
    (2**60 + 1 read back as 2**60; kanon then found the value missing from its hierarchy)."""
    frame = pd.DataFrame({"id": pd.Series([big + 1, None, big + 1, big + 3], dtype=dtype)})
    encoded = EncodedFrame(frame, "id", dropna=False)
    assert encoded.values["id"].dtype == dtype
    table = encoded.frequency_set().to_frame()
    assert table["id"].tolist()[:2] == [big + 1, big + 3] and pd.isna(table["id"].iloc[2])
    assert table["count"].tolist() == [2, 1, 1]
    hierarchy = Hierarchy(pd.Index([big + 1, big + 3], dtype=dtype), name="ids")
    out = pandas_anon.kanon(
        frame.assign(sex="M"), 1, qid=["id", "sex"], hierarchies={"id": hierarchy}
    )
    assert out.anon.report().levels == {"id": 0, "sex": 0}


def test_pandera_check_fails_the_int64_min_reproducer():
    schema = pa.DataFrameSchema(
        checks=[pa.Check.anon_max_singletons(qid=["code", "sex"], max_count=1)]
    )
    with pytest.raises(SchemaError) as caught:
        schema.validate(reproducer())
    assert "2 singletons" in str(caught.value) and "6 rows examined" in str(caught.value)
    passes = pa.DataFrameSchema(
        checks=[pa.Check.anon_max_singletons(qid=["code", "sex"], max_count=2)]
    )
    passes.validate(reproducer())


# -- property: every dtype groups as groupby does ---------------------------------------------------

_SMALL_INTS = ["Int8", "Int16", "Int32", "int8", "int16", "int32", "UInt8", "uint16", "UInt32"]


def _pool(kind: str, dtype: str) -> list:
    """The distinct values a column of ``kind`` draws its rows from (extremes included)."""
    if kind == "int64":
        return [INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX]
    if kind == "int64_near_min":
        return [INT64_MIN + d for d in (0, 1, 3, 7)]
    if kind == "int64_near_max":
        return [INT64_MAX - d for d in (0, 1, 3, 7)]
    if kind in ("uint64", "UInt64"):
        return [0, 1, 2**63 - 1, 2**63, 2**63 + 1, UINT64_MAX]
    if kind == "uint64_near_max":
        return [UINT64_MAX - d for d in (0, 2, 5)]
    if kind == "Int64":
        return [INT64_MIN, -5, 0, 5, INT64_MAX]
    if kind == "small_int":
        info = np.iinfo(np.dtype(dtype.lower()))
        return [int(info.min), int(info.min) + 1, 0, int(info.max) - 1, int(info.max)]
    if kind in ("bool", "boolean"):
        return [True, False]
    if kind == "float":
        return [0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 2.0**60, 1e300, 3.0]
    if kind == "float32":
        return [0.0, -0.0, 1.5, np.inf, -np.inf, 2.0**30, 3.0]
    if kind == "float_whole":
        return [1950.0, 1951.0, -3.0, 0.0, -0.0, 2.0**53]
    if kind == "mixed":
        return [1, "1", 1.5, "a", True, 0, 0.0, -0.0, 2**63, -(2**63), (1, 2), np.nan, None]
    if kind in ("datetime", "datetime_tz"):
        return [
            pd.Timestamp("1900-01-01"),
            pd.Timestamp("2020-03-29 01:30"),
            pd.Timestamp("2020-03-29 03:30"),
            pd.Timestamp("2262-04-11"),
        ]
    return ["a", "b", "B", "", "città", "\x00", "a\x00b", "a\x00c"]  # text kinds


_DTYPES = {
    "int64": "int64",
    "int64_near_min": "int64",
    "int64_near_max": "int64",
    "uint64": "uint64",
    "uint64_near_max": "uint64",
    "UInt64": "UInt64",
    "Int64": "Int64",
    "bool": "bool",
    "boolean": "boolean",
    "float": "float64",
    "float_whole": "float64",
    "float32": "float32",
    "mixed": "object",
    "datetime": "datetime64[ns]",
    "category": "category",
    "pyarrow": "string[pyarrow]",
    "str": "str",
}
KINDS = [*_DTYPES, "small_int", "datetime_tz", "category_unused"]
_HOLES = {
    "UInt64",
    "Int64",
    "boolean",
    "float",
    "float_whole",
    "float32",
    "mixed",
    "datetime",
    "datetime_tz",
    "category",
    "category_unused",
    "pyarrow",
    "str",
}


@st.composite
def columns(draw, n_rows: int) -> pd.Series:
    kind = draw(st.sampled_from(KINDS))
    dtype = draw(st.sampled_from(_SMALL_INTS)) if kind == "small_int" else _DTYPES.get(kind)
    pool = _pool(kind, dtype or "")
    picks = draw(st.lists(st.sampled_from(pool), min_size=n_rows, max_size=n_rows))
    holes = dtype is not None and dtype[0].isupper() or kind in _HOLES
    if holes:
        gaps = draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))
        picks = [None if gap else value for value, gap in zip(picks, gaps)]
    if kind == "float32":
        return pd.Series([np.nan if v is None else v for v in picks], dtype="float32")
    if kind == "datetime_tz":
        return pd.Series(pd.to_datetime(picks)).dt.tz_localize(
            "Europe/Rome", ambiguous="NaT", nonexistent="NaT"
        )
    if kind == "category_unused":  # unused categories, missing values
        return pd.Series(picks, dtype=pd.CategoricalDtype([*pool, "never used"]))
    if kind in ("float", "float_whole"):
        return pd.Series([np.nan if v is None else v for v in picks], dtype="float64")
    return pd.Series(picks, dtype=dtype)


@st.composite
def frames(draw) -> pd.DataFrame:
    n_rows = draw(st.integers(min_value=1, max_value=30))
    n_columns = draw(st.integers(min_value=1, max_value=3))
    return pd.DataFrame({f"c{j}": draw(columns(n_rows)) for j in range(n_columns)})


def _partition(labels: np.ndarray) -> list[int]:
    """Labels renumbered by first appearance: two labelings are the same grouping iff equal."""
    return pd.factorize(np.asarray(labels))[0].tolist()


def _same(a: object, b: object) -> bool:
    return bool(pd.isna(a) and pd.isna(b)) if pd.isna(a) or pd.isna(b) else bool(a == b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=frames(), dropna=st.booleans())
def test_grouping_equals_groupby_on_every_dtype(frame, dropna):
    qid = list(frame.columns)
    part = frame.dropna() if dropna else frame
    if any(frame[c].isna().all() for c in qid):
        with pytest.raises(pandas_anon.AllMissingColumnError):
            EncodedFrame(frame, qid, dropna=dropna)
        return
    if len(part) == 0:
        with pytest.raises(pandas_anon.EmptyDataError):
            EncodedFrame(frame, qid, dropna=dropna)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pandas_anon.IncompleteRowsWarning)
        encoded = EncodedFrame(frame, qid, dropna=dropna)
    examined = np.arange(len(frame)) if encoded.positions is None else encoded.positions
    assert examined.tolist() == part.index.tolist()
    grouping = encoded.grouping()
    written = as_written(part)  # groupby on values as written: 1, True, 1.0, -0.0 apart
    expected = written.groupby(qid, dropna=False, sort=False, observed=True).ngroup().to_numpy()
    assert _partition(grouping.labels) == _partition(expected)
    assert grouping.distinct == expected.max() + 1
    # each class decodes to the values of its rows
    classes, row_combination = encoded.tabulate()
    decoded = as_written(classes.to_frame()[qid])
    first = pd.Series(np.arange(len(part))).groupby(row_combination).min().to_numpy()
    for column in qid:
        assert all(_same(a, b) for a, b in zip(decoded[column], written[column].iloc[first]))


# -- unhashable cells ---------------------------------------------------------------------------


def _frame(cell: object) -> pd.DataFrame:
    """12 rows; ``tags`` holds ``cell``-like unhashable values, the rest is ordinary."""
    bad = [cell, cell, type(cell)()] * 4
    return pd.DataFrame(
        {
            "tags": bad,
            "age": list(range(20, 32)),
            "sex": list("MF") * 6,
            "town": ["x", "y", "z"] * 4,
        }
    )


def _swap(frame: pd.DataFrame, role: str) -> pd.DataFrame:
    """The frame with the unhashable values moved to column ``role``."""
    return frame.assign(**{role: frame["tags"], "tags": frame["town"]})


ENTRY_POINTS = {
    "singletons": lambda df: pandas_anon.singletons(df, ["tags", "sex"]),
    "singletons keep missing": lambda df: df.anon.singletons(["tags"], dropna=False),
    "best_qid": lambda df: pandas_anon.best_qid(df),
    "best_qid columns": lambda df: pandas_anon.best_qid(df, ["tags", "sex", "age"]),
    "risk": lambda df: pandas_anon.risk(df, ["tags", "sex"]),
    "identifiers": lambda df: pandas_anon.identifiers(df),
    "generalize builder": lambda df: pandas_anon.generalize(df, {"tags": builders.suppression}),
    "generalize hierarchy": lambda df: pandas_anon.generalize(df, {"tags": Hierarchy(["x"])}),
    "generalize singletons": lambda df: pandas_anon.generalize(
        df, {"sex": builders.suppression}, rows="singletons", qid=["tags", "sex"]
    ),
    "kanon qid": lambda df: pandas_anon.kanon(df, 2, qid=["tags", "sex"]),
    "kanon qid hierarchy": lambda df: pandas_anon.kanon(
        df, 2, qid=["tags", "sex"], hierarchies={"tags": Hierarchy(["x"])}
    ),
    "kanon zero config": lambda df: df.anon.kanon(2),
    "anonymize": lambda df: pandas_anon.anonymize(df, 2, qid=["tags", "sex"]),
    "kanon sensitive l": lambda df: pandas_anon.kanon(
        _swap(df, "sens"), 2, qid=["town", "sex"], sensitive="sens", l=2
    ),
    "kanon sensitive t": lambda df: pandas_anon.kanon(
        _swap(df, "sens"), 2, qid=["town", "sex"], sensitive="sens", t=0.5
    ),
    "auto": lambda df: builders.auto(df["tags"]),
    "intervals": lambda df: builders.intervals(df["tags"], width=5),
    "masking": lambda df: builders.masking(df["tags"]),
    "dates": lambda df: builders.dates(df["tags"]),
    "suppression": lambda df: builders.suppression(df["tags"]),
    "row_groups": lambda df: builders.row_groups(df["tags"], min_rows=2),
    "top_bottom": lambda df: builders.top_bottom(df["tags"], top=3),
    "Hierarchy.from_columns": lambda df: Hierarchy.from_columns(df, ["town", "tags"]),
    "Hierarchy.generalize": lambda df: Hierarchy(["x"]).generalize(df["tags"], 1),
    "study place": lambda df: pandas_anon.study(
        df, year="age", sex="sex", place="tags", hierarchy=builders.suppression
    ),
    "study year": lambda df: pandas_anon.study(
        _swap(df, "age"), year="age", sex="sex", place="tags", hierarchy=builders.suppression
    ),
    "study sex": lambda df: pandas_anon.study(
        _swap(df, "sex"), year="age", sex="sex", place="tags", hierarchy=builders.suppression
    ),
}
CHECKS = {
    "anon_max_singletons": lambda: pa.Check.anon_max_singletons(qid=["tags", "sex"], max_count=100),
    "anon_k_anonymous": lambda: pa.Check.anon_k_anonymous(qid=["tags", "sex"], k=1),
    "anon_l_diverse qid": lambda: pa.Check.anon_l_diverse(qid=["tags"], sensitive="town", l=1),
    "anon_l_diverse sensitive": lambda: pa.Check.anon_l_diverse(qid=["sex"], sensitive="tags", l=1),
}
CELLS = {"list": ["SECRET-1"], "dict": {"key": "SECRET-2"}, "set": {"SECRET-3"}}
_COLUMN = {
    "kanon sensitive l": "sens",
    "kanon sensitive t": "sens",
    "study year": "age",
    "study sex": "sex",
}


def _assert_refused(message: str, column: str, cell: object) -> None:
    assert "cannot be compared" in message and f"'{column}'" in message
    assert f"a {type(cell).__name__}" in message and "map(tuple)" in message
    assert "SECRET" not in message  # the type and row position, never the value


@pytest.mark.parametrize("kind", list(CELLS))
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_unhashable_cells_are_refused_by_name(entry, kind):
    cell = CELLS[kind]
    with pytest.raises(UnhashableValueError) as caught:
        ENTRY_POINTS[entry](_frame(cell))
    _assert_refused(str(caught.value), _COLUMN.get(entry, "tags"), cell)


@pytest.mark.parametrize("kind", list(CELLS))
@pytest.mark.parametrize("check", list(CHECKS))
def test_pandera_checks_fail_unhashable_cells_with_our_message(check, kind):
    cell = CELLS[kind]
    with pytest.raises(SchemaError) as caught:
        pa.DataFrameSchema(checks=[CHECKS[check]()]).validate(_frame(cell))
    _assert_refused(str(caught.value), "tags", cell)


@pytest.mark.requires_plugin("italy")
def test_registered_hierarchy_on_unhashable_cells_names_the_column():
    with pytest.raises(UnhashableValueError) as caught:
        pandas_anon.generalize(_frame(["SECRET-1"]), {"tags": "it.comune"})
    _assert_refused(str(caught.value), "tags", ["SECRET-1"])


def test_unhashable_hierarchy_labels_name_the_level():
    with pytest.raises(UnhashableValueError) as caught:
        Hierarchy(["a", "b"], [[["SECRET-1"], ["SECRET-1"]]], level_names=["town", "area"])
    message = str(caught.value)
    assert "level 1 ('area') of hierarchy (unnamed)" in message and "a list" in message
    assert "SECRET" not in message


# -- the same value is the value as written (issue 34, section 2) ------------------------------

#: Texts that differ past a NUL character (one repeated, one missing), and texts that a
#: spelling without NUL could confuse with them.
NUL_TEXTS = ["", "\x00", "a\x00b", "a\x00c", "a", "\x01\x02", "\x01\x00", None, "a\x00b"]


def nul_texts(dtype: object) -> pd.Series:
    """:data:`NUL_TEXTS` as a column of ``dtype``; a categorical made from its codes, since
    pandas before 3.1 merges such categories when it finds them itself."""
    if dtype != "category":
        return pd.Series(NUL_TEXTS, dtype=dtype)
    categories = NUL_TEXTS[:7]
    codes = [categories.index(v) if v is not None else -1 for v in NUL_TEXTS]
    return pd.Series(pd.Categorical.from_codes(codes, categories))


@pytest.mark.parametrize("dtype", [object, "string[python]", "string[pyarrow]", "category"])
def test_texts_differing_past_a_nul_are_distinct(dtype):
    """pandas before 3.1 cut texts at a NUL character when hashing them (``unique``,
    ``factorize`` and ``groupby`` took ``""`` for ``"\\x00"``): every encoding tells them
    apart, so no class is counted larger than it is."""
    series = nul_texts(dtype)
    codes, values = encode_column(series)
    assert [values[c] if c >= 0 else None for c in codes] == NUL_TEXTS
    assert distinct_count(series) == 8  # a missing value is one value
    assert factorize(series)[0].tolist() == [0, 1, 2, 3, 4, 5, 6, -1, 2]
    distinct = pd.DataFrame({"x": series[:7], "y": 1})
    assert pandas_anon.identifiers(distinct) == [("x",)]
    hierarchy = builders.suppression(series)
    assert len(hierarchy.values) == 7
    targets = ["\x00", "a\x00c", "", "a\x00b"]
    assert hierarchy.values.take(hierarchy.lookup(pd.Index(targets))).tolist() == targets


#: Distinct texts holding a lone surrogate, which UTF-8 cannot write (each twice), a text
#: without one and the empty text.
SURROGATE_TEXTS = [*[chr(0xDC00 + i) + "\xca\xeb" for i in range(40)] * 2, "\xca\xeb", ""]


@pytest.mark.parametrize("missing", [[], [None]], ids=["complete", "missing"])
@pytest.mark.parametrize("dtype", [object, "string[python]"])
def test_texts_with_lone_surrogates_are_distinct(dtype, missing):
    """pandas before 3.1 hashed a text UTF-8 cannot write from a buffer it had already freed
    (pandas-dev/pandas#34550): distinct such texts were one value (every time, here), or two
    calls coded the same texts two ways as the heap lay (an ``apply`` then refused the frame
    decided on). Every encoding codes them apart, and alike each time."""
    texts = SURROGATE_TEXTS + missing
    series = pd.Series(texts, dtype=dtype)
    expected = [*range(40), *range(40), 40, 41, *[-1] * len(missing)]
    codes, values = encode_column(series)
    assert codes.tolist() == expected
    assert [values[c] if c >= 0 else None for c in codes] == texts
    assert factorize(series.to_numpy(dtype=object))[0].tolist() == expected
    assert distinct_count(series) == 42 + len(missing)  # a missing value is one value
    # apply's check: each value read again is found where the decision coded it
    assert positions_among(values[::-1], values).tolist() == list(range(41, -1, -1))
    hierarchy = builders.suppression(series)
    assert len(hierarchy.values) == 42
    targets = pd.Index([texts[3], "", texts[0]], dtype=object)
    assert hierarchy.values.take(hierarchy.lookup(targets)).tolist() == targets.tolist()
    frame = pd.DataFrame({"x": series, "sex": "F"})  # every surrogate text twice
    found = frame.anon.singletons(["x", "sex"], dropna=False)
    assert (found.count, found.distinct) == (2 + len(missing), 42 + len(missing))
    assert pandas_anon.identifiers(frame.iloc[40:]) == [("x",)]


def test_texts_with_a_lone_surrogate_are_coded_alike_each_time():
    """The failure the property tests met on pandas 2.2 (local recoding's ``apply`` refusing
    the frame it had decided on), in three texts: pandas read the freed buffer of the first
    text after the second had written its UTF-8 there, coding them ``[0, 0, 1]``, and
    ``[0, 1, 0]`` once the second text held its UTF-8 (as after an earlier call)."""
    for _ in range(3):  # texts made anew, which hold no UTF-8 yet
        surrogate, other = chr(0xDF85) + "".join(["\xca", "\xeb"]), "".join(["\x9e", "\x12"])
        texts = np.array([surrogate, other, surrogate], dtype=object)
        assert factorize(texts)[0].tolist() == [0, 1, 0]
        assert distinct_count(pd.Series(texts, dtype=object)) == 2


@pytest.mark.parametrize("algo", ["local", "mondrian", "ola", None])
def test_k_anonymization_of_texts_with_lone_surrogates_is_k_anonymous(algo):
    """pandas 2.2 took these 40 distinct texts for one value: local recoding found every row
    in a class of 20 and released 40 singletons as 2-anonymous. pandas 3 makes Arrow text of
    a list of Python texts, which holds no lone surrogate: writing the release raised
    pandas' UnicodeEncodeError. Every method (and zero configuration) now releases them
    k-anonymous."""
    frame = pd.DataFrame({"x": pd.Series(SURROGATE_TEXTS[:40], dtype=object), "y": ["a", "b"] * 20})
    options = {} if algo is None else {"qid": ["x", "y"], "algo": algo}
    out = pandas_anon.kanon(frame, 2, **options)
    released = [c for c in ("x", "y") if c in out]  # zero configuration: x identifies, dropped
    assert algo is not None or released == ["y"]
    sizes = Counter(zip(*(out[c] for c in released), strict=True))  # Python's hash, equality
    assert min(sizes.values()) >= 2


#: Values Python finds equal in threes and twos (1 == True, 2 == 2.0, 0 == False == 0.0 ==
#: -0.0), each written its own way by every writer (CSV: 1, True, 2, 2.0, 0, False, 0.0, -0.0).
WRITTEN_APART = [1, True, 2, 2.0, 0, False, 0.0, -0.0]


@pytest.mark.parametrize(
    ("values", "dtype", "singletons", "distinct"),
    [
        (WRITTEN_APART, object, 8, 8),
        ([1, True, 1, True, None], object, 0, 2),
        ([2, 2.0, 2, 2.0], object, 0, 2),
        ([0, False, 0.0, -0.0] * 2, object, 0, 4),
        ([True, 1.5, 1, 1.5, "a"], object, 3, 4),
        # numpy's scalars are written as Python's: numpy's 2 is 2, numpy's 2.0 is 2.0
        ([np.int64(2), 2, np.float64(2.0), 2.0, np.True_, True], object, 0, 3),
        ([0.0, -0.0, 1.5, 1.5, np.nan], "float64", 2, 3),
        ([0.0, -0.0, 0.0, 7.0], "float32", 2, 3),
        ([0.0, -0.0, 0.0, -0.0, None], "Float64", 0, 2),
        ([0.0, -0.0, -0.0, 3.0], "float64", 2, 3),  # whole numbers: not coded by subtraction
        # texts differing past a NUL character (which pandas before 3.1 hashes them up to)
        *[(NUL_TEXTS, dtype, 6, 7) for dtype in (object, "string[python]", "string[pyarrow]")],
        ([*NUL_TEXTS, 1, True], object, 8, 9),  # among other kinds
    ],
)
def test_singletons_compare_values_as_written(values, dtype, singletons, distinct):
    frame = pd.DataFrame({"x": pd.Series(values, dtype=dtype), "sex": "F"})
    found = frame.anon.singletons(["x", "sex"])
    assert (found.count, found.distinct) == (singletons, distinct)
    # the verifier, the accessor and the gate's CSV twin agree
    assert naive_counts(frame, ["x", "sex"])["singletons"] == singletons
    text = frame.astype(object).astype(str).where(frame.notna())  # numpy cuts "\x00"
    assert pandas_anon.singletons(text, ["x", "sex"]).distinct == distinct


def test_a_negative_zero_decodes_as_itself():
    """A whole-number float column is coded by subtraction, which wrote -0.0 back as 0.0."""
    frame = pd.DataFrame({"x": [-0.0, -0.0, 3.0]})
    (decoded,) = [v for v in EncodedFrame(frame, "x").frequency_set().to_frame()["x"] if v == 0]
    assert np.signbit(decoded)


def test_identifiers_count_values_as_written():
    """A column whose every row is alone as written identifies, however Python compares
    its values."""
    frame = pd.DataFrame({"x": pd.Series(WRITTEN_APART, dtype=object), "sex": "F"})
    assert pandas_anon.identifiers(frame) == [("x",)]
    assert distinct_count(frame["x"]) == 8


#: 60 rows of a float column holding both zeros and of ages, for local recoding (which
#: writes each class's cells on its own).
_ZEROS_AND_AGES = pd.DataFrame(
    {
        "x": np.random.default_rng(0).choice([0.0, -0.0, 1.0, 2.5], 60),
        "age": np.random.default_rng(1).integers(20, 30, 60),
    }
)


@pytest.mark.parametrize(
    ("frame", "qid", "algo"),
    [
        # issue 34: k 6 reported, 3 in the CSV
        (pd.DataFrame({"x": [0.0] * 3 + [-0.0] * 3 + [1.0] * 6}), ["x"], None),
        (
            pd.DataFrame({"x": [0.0] * 3 + [-0.0] * 3 + [1.0] * 6, "sex": list("MF") * 6}),
            None,
            None,
        ),
        (pd.DataFrame({"x": [0.0] * 5 + [-0.0] * 5}), ["x"], None),  # kept: k 5, not 10
        (pd.DataFrame({"x": pd.Series([1] * 3 + [True] * 3 + [2] * 6, dtype=object)}), ["x"], None),
        (
            pd.DataFrame(
                {"x": pd.Series([1] * 5 + [True] * 5 + [2.0] * 5 + [2] * 5, dtype=object)}
            ),
            ["x"],
            None,
        ),
        (_ZEROS_AND_AGES, ["x", "age"], "local"),  # reported k 5, 2 in the CSV
    ],
)
def test_kanon_reports_the_k_its_csv_has_under_check(tmp_path, capsys, frame, qid, algo):
    """kanon's k is the k ``pandas-anon check`` finds in its output written as CSV."""
    from pandas_anon.cli.main import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pandas_anon.OneClassWarning)
        out = frame.anon.kanon(5, qid=qid, **({"algo": algo} if algo else {}))
    report = out.anon.report()
    out.to_csv(tmp_path / "out.csv", index=False)
    code = main(["check", "--k", "5", "--qid", ",".join(report.qid), "--format", "json",
                 str(tmp_path / "out.csv")])  # fmt: skip
    (checked,) = json.loads(capsys.readouterr().out)["files"]
    assert (code, checked["status"]) == (0, "pass")
    assert checked["k"] == report.k_reached >= 5
    assert checked["singletons"] == 0


def test_hierarchies_tell_values_written_differently_apart():
    """A hierarchy may list 0.0 and -0.0, or 1 and True, as two values with their own
    labels; a value it lists once is found by pandas' equality (1.0 among integers)."""
    zeros = Hierarchy([0.0, -0.0, 1.0], [["zero", "negative zero", "one"]])
    column = pd.Series([-0.0, 0.0, 1.0, -0.0])
    assert zeros.generalize(column, 1).tolist() == ["negative zero", "zero", "one", "negative zero"]
    flags = Hierarchy(pd.Index([1, True], dtype=object), [["one", "true"]])
    assert flags.generalize(pd.Series([True, 1], dtype=object), 1).tolist() == ["true", "one"]
    ints = Hierarchy([0, 1], [["low", "high"]])
    assert ints.generalize(pd.Series([1.0, 0.0, -0.0]), 1).tolist() == ["high", "low", "low"]
