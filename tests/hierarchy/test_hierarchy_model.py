"""The Hierarchy model: real hierarchy tables, and each validation error on its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon import ColumnNotFoundError, HierarchyError, InvalidParameterError
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES, load_adult, load_adult_hierarchy
from pandas_anon.hierarchy import TOP, Hierarchy

DATA = Path(pandas_anon.datasets.__file__).parent / "data"


@pytest.mark.parametrize("attribute", ADULT_HIERARCHY_ATTRIBUTES)
def test_adult_hierarchies_cover_adult(attribute):
    hierarchy = Hierarchy.from_csv(DATA / f"adult_hierarchy_{attribute}.csv", name=attribute)
    table = load_adult_hierarchy(attribute)
    assert hierarchy.n_levels == table.shape[1]
    assert list(hierarchy.labels(hierarchy.height)) == [TOP]
    column = load_adult()[attribute]
    for level in range(hierarchy.n_levels):
        out = hierarchy.generalize(column, level)
        assert out.index.equals(column.index) and out.notna().all()
        # every row's label is the table's label of its value (ages matched as text)
        expected = column.astype(str).map(dict(zip(table.iloc[:, 0], table.iloc[:, level])))
        assert (out.astype(str) == expected).all()


def test_codes_and_labels_are_lookup_arrays():
    age = Hierarchy.from_frame(load_adult_hierarchy("age"))
    assert [len(age.labels(j)) for j in range(age.n_levels)] == [100, 20, 10, 5, 1]
    codes = age.codes(2)
    assert codes.dtype == np.int64 and len(codes) == 100
    position = age.values.get_loc("39")
    assert age.labels(2)[codes[position]] == "30-39"
    assert age.to_frame().shape == (100, 5)


def test_from_columns_learns_the_data_levels(licences):
    places = Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])
    assert places.n_levels == 3 and len(places.values) == 79
    assert list(places.labels(1)) == ["AOSTA"] and list(places.labels(2)) == [TOP]
    assert places.level_names == ("comune_residenza", "provincia_residenza", TOP)
    with pytest.raises(ColumnNotFoundError):
        Hierarchy.from_columns(licences, ["comune_residenza", "provincia"])


def test_value_missing_from_the_hierarchy_is_named_with_its_rows():
    sex = Hierarchy(["M"], name="sex")
    data = pd.Series(["M", "F", "F", "X", None], name="sesso")
    with pytest.raises(HierarchyError) as caught:
        sex.generalize(data, 1)
    message = str(caught.value)
    assert "2 values of column 'sesso' (3 rows) missing from hierarchy sex" in message
    assert "'F' (2 rows)" in message and "'X' (1 row)" in message


def test_many_missing_values_are_listed_up_to_ten():
    hierarchy = Hierarchy(["a"], name="h")
    with pytest.raises(HierarchyError, match=r"and 15 more"):
        hierarchy.generalize(pd.Series([f"v{i}" for i in range(25)]), 1)


def test_a_label_that_splits_again_is_refused():
    with pytest.raises(HierarchyError, match="level 1 label\\(s\\) 'Nord' fall under several"):
        Hierarchy(["Aosta", "Torino", "Bari"], [["Nord", "Nord", "Sud"], ["A", "B", "B"]])


def test_duplicates():
    merged = Hierarchy(["a", "a", "b"], [["x", "x", "y"]])  # identical rows are merged
    assert list(merged.values) == ["a", "b"]
    with pytest.raises(HierarchyError, match="'a' listed more than once with different labels"):
        Hierarchy(["a", "a", "b"], [["x", "y", "y"]])


def test_missing_labels_and_lengths():
    with pytest.raises(HierarchyError, match="level 1 of the hierarchy has 1 missing label"):
        Hierarchy(["a", "b"], [["x", None]])
    with pytest.raises(HierarchyError, match="level 1 has 1 label for 2 values"):
        Hierarchy(["a", "b"], [["x"]])
    with pytest.raises(HierarchyError, match="at least one value"):
        Hierarchy([], [])
    with pytest.raises(HierarchyError, match="at least one row"):
        Hierarchy.from_frame(pd.DataFrame())


def test_levels_out_of_range():
    sex = Hierarchy(["M", "F"], name="sex")
    with pytest.raises(HierarchyError, match="sex has levels 0..1; level 2 does not exist"):
        sex.labels(2)
    with pytest.raises(InvalidParameterError, match="level must be a whole number"):
        sex.codes(1.5)  # a bad parameter, as everywhere (issue 9)


def test_top_level_is_added_only_when_needed():
    assert Hierarchy(["a", "b"], [["x", "y"]]).n_levels == 3
    assert Hierarchy(["a", "b"], [["x", "x"]]).n_levels == 2
    assert list(Hierarchy(["a", "b"]).labels(1)) == [TOP]


def test_numbers_in_data_match_text_hierarchies(licences):
    years = licences["anno_nascita"]  # Int64 with a missing value
    table = pd.DataFrame({"y": years.dropna().unique().astype(str)})
    table["decade"] = table["y"].str[:3] + "0s"
    out = Hierarchy.from_frame(table).generalize(years.astype("float64"), 1)
    assert out.isna().sum() == 1 and out.dropna().str.endswith("0s").all()


def test_no_more_level_names_than_levels():
    with pytest.raises(HierarchyError, match="4 level names for 3 levels"):
        Hierarchy(["a", "b"], [["x", "y"]], level_names=["v", "w", "x", "y"])


def test_level_names_must_differ():
    with pytest.raises(HierarchyError, match="repeat a name"):
        Hierarchy(["a", "b"], [["x", "y"]], level_names=["v", "v"])


def test_a_hierarchys_note_follows_its_name_in_every_report():
    """What a builder says about a hierarchy (counts only) is in the reports of kanon and
    generalize, after the hierarchy's name."""
    towns = ["a1", "a2", "a3", "b1", "b2", "b3"]
    hierarchy = Hierarchy(
        towns, [["A", "A", "A", "B", "B", "B"]], name="towns", note="2 values placed by hand"
    )
    frame = pd.DataFrame({"town": towns * 2})
    released = pandas_anon.kanon(frame, 4, qid=["town"], hierarchies={"town": hierarchy})
    assert released.anon.report().hierarchies == {"town": "towns (2 values placed by hand)"}
    generalized = frame.anon.generalize({"town": (hierarchy, 1)})
    assert generalized.anon.report().columns["town"]["hierarchy"] == hierarchy.described()
    assert Hierarchy(towns, name=None).described("auto") == "auto"


@pytest.mark.parametrize(
    ("values", "looked_up"),
    [
        (["a", "b", "c"], pd.Index(["c", "x", "a"], dtype="str")),
        (["a", "b", "c"], pd.Index(["c", "x", "a"], dtype=object)),
        ([1, 2, 3], pd.Index([3.0, 2.5, 1.0])),
        ([1, 2, 3], pd.Index([3, 7, 1], dtype="Int64")),
        ([1, 2, 3], pd.Index(["1", "2"], dtype=object)),
        (
            pd.to_datetime(["2020-01-01", "2021-06-30"]),
            pd.DatetimeIndex(["2021-06-30", "2022-01-01"]),
        ),
        ([1.5, 2.5], pd.Index([2.5, None])),  # a missing value: pandas' own lookup
        (["a", "b"], pd.Index(["b", None], dtype="str")),
        ([0, 1], pd.Index([True, False])),  # Python has True == 1, pandas does not match them
        ([True, False], pd.Index([1, 0])),
        (["a", 1], pd.Index([1, "a"], dtype=object)),
    ],
)
@pytest.mark.parametrize("few", [True, False])
def test_lookups_through_the_dict_match_pandas(monkeypatch, values, looked_up, few):
    """Exact matching as pandas.Index.get_indexer matches, whether a few values go through
    the dict of level-0 values or many through pandas (the threshold forced to 0)."""
    from pandas_anon.hierarchy import model

    if not few:
        monkeypatch.setattr(model, "_DICT_LOOKUP", 0)
    h = Hierarchy(values)
    expected = h.values.get_indexer(looked_up)
    assert h._indexer(looked_up).tolist() == list(expected)


@pytest.mark.parametrize(
    "looked_up",
    [
        pd.Index([1950, 7, 1944], dtype="int64"),
        pd.Index([1950, 1944], dtype="uint16"),
        pd.Index(["1944", "x", None], dtype="str"),
        pd.Index(["a", "1950"], dtype="string[pyarrow]"),
        pd.Index(["a", None], dtype="string[python]"),
        pd.Index([1944.0, 1950.5]),
    ],
)
def test_lookups_in_a_hierarchy_of_typed_text_match_the_general_path(monkeypatch, looked_up):
    """A hierarchy of typed text (as read from a CSV) finds a few values of text or of
    integers through its dict as the general path (pandas, by text) finds them."""
    from pandas_anon.hierarchy import model

    h = Hierarchy(pd.Index(["1944", "1950", "a"], dtype="str"), [["40s", "50s", "x"]])
    few = h.lookup(looked_up).tolist()
    monkeypatch.setattr(model, "_DICT_LOOKUP", 0)
    assert few == h.lookup(looked_up).tolist()
