"""ARX's hierarchy CSV format: every Adult hierarchy read, written back byte for byte and
generalizing as its table says; malformed files named with their line and the fix."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

import pandas_anon
from pandas_anon import HierarchyError
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES, load_adult_hierarchy
from pandas_anon.hierarchy import Hierarchy, intervals, read_arx_csv, write_arx_csv

DATA = Path(pandas_anon.datasets.__file__).parent / "data"


@pytest.mark.parametrize("attribute", ADULT_HIERARCHY_ATTRIBUTES)
def test_adult_hierarchies_round_trip_byte_for_byte(attribute, tmp_path):
    path = DATA / f"adult_hierarchy_{attribute}.csv"
    original = path.read_bytes()
    hierarchy = read_arx_csv(path, name=attribute)
    written = tmp_path / "out.csv"
    assert hierarchy.to_arx_csv(written) is None
    # ARX ends every row with a line break; native-country's file lacks the last one
    assert written.read_bytes() == (original if original.endswith(b"\n") else original + b"\n")
    assert read_arx_csv(written, name=attribute) == hierarchy


@pytest.mark.parametrize("attribute", ADULT_HIERARCHY_ATTRIBUTES)
def test_generalizing_gives_the_columns_of_the_file(attribute):
    hierarchy = Hierarchy.from_arx_csv(DATA / f"adult_hierarchy_{attribute}.csv")
    table = load_adult_hierarchy(attribute)
    assert hierarchy.n_levels == table.shape[1]
    values = table["level_0"].rename(attribute)
    for level in range(hierarchy.n_levels):
        assert hierarchy.generalize(values, level).tolist() == table[f"level_{level}"].tolist()


def test_from_csv_is_the_same_reader():
    path = DATA / "adult_hierarchy_age.csv"
    assert Hierarchy.from_csv(path) == read_arx_csv(path) == Hierarchy.from_arx_csv(path)
    assert pandas_anon.read_arx_csv is read_arx_csv and pandas_anon.write_arx_csv is write_arx_csv


def test_buffers_headers_delimiters_and_quotes():
    text = 'level;decade;top\n"34";"30;39";*\n38;"30;39";*\n"say ""hi""";other;*\n'
    hierarchy = read_arx_csv(io.StringIO(text), header=True, name="age")
    assert hierarchy.level_names == ("level", "decade", "top")
    assert list(hierarchy.labels(1)) == ["30;39", "other"]
    assert hierarchy.to_arx_csv() == '34;"30;39";*\n38;"30;39";*\n"say ""hi""";other;*\n'
    commas = read_arx_csv(io.BytesIO("\ufeffé,x\nf,x\n".encode()), delimiter=",")
    assert list(commas.values) == ["é", "f"]  # the byte-order mark is dropped
    assert write_arx_csv(commas, delimiter="\t") == "é\tx\nf\tx\n"
    out = io.StringIO()
    write_arx_csv(commas, out)
    assert out.getvalue() == "é;x\nf;x\n"
    assert read_arx_csv(io.StringIO("a;*\n\nb;*\n")).values.tolist() == ["a", "b"]  # blank line


def test_our_hierarchies_go_to_arx_as_text():
    ages = intervals(pd.Series([1.0, 7.0, 12.0]), width=10)
    text = ages.to_arx_csv()
    assert text == "1;[0, 10);*\n7;[0, 10);*\n12;[10, 20);*\n"  # 1.0 written as ARX reads it
    back = read_arx_csv(io.StringIO(text))
    assert back.generalize(pd.Series([12.0, 1.0]), 1).tolist() == ["[10, 20)", "[0, 10)"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "1950;50s;*\n1951;50s;*\n1952;50s\n1953\n",
            "h.csv, line 3: 2 columns where line 1 has 3 (and 1 more lines); every row must "
            "have the same number of ';'-separated columns (one per level), values with ';' "
            "quoted",
        ),
        (
            "1950;50s;*\n1951;50s;*\n1950;60s;*\n",
            "h.csv, lines 1 and 3: value '1950' listed more than once with different labels; "
            "keep one row per value",
        ),
        (
            "31;30-34;30-39;*\n36;35-39;30-39;*\n38;35-39;20-39;*\n",
            "h.csv: level 1 label '35-39' falls under",
        ),
        ("", "h.csv is empty; a hierarchy file has one row per value"),
        ("\n\n", "h.csv is empty"),
        (
            "1950,50s\n1951,50s\n",
            "h.csv: every row has one column, and line 1 holds ','; if the file is ','-separated, pass delimiter=','",
        ),
        ('1950;"50s\n', "h.csv, line 1: unexpected end of data; quote a value holding ';'"),
    ],
    ids=["ragged", "value twice", "two parents", "empty", "blank", "wrong delimiter", "open quote"],
)
def test_malformed_files_name_the_file_the_line_and_the_fix(tmp_path, content, message):
    path = tmp_path / "h.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HierarchyError) as caught:
        read_arx_csv(path)
    assert str(caught.value).replace(str(tmp_path) + "/", "").startswith(message)


def test_a_label_under_two_parents_names_both_lines(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("31;30-34;30-39;*\n36;35-39;30-39;*\n38;35-39;20-39;*\n")
    with pytest.raises(HierarchyError) as caught:
        read_arx_csv(path)
    assert str(caught.value) == (
        f"{path}: level 1 label '35-39' falls under '30-39' (line 2) and '20-39' (line 3) at "
        f"level 2; a label must generalize to one parent: correct one of the two lines"
    )


def test_unreadable_sources(tmp_path):
    with pytest.raises(HierarchyError, match=r"no/such\.csv: no such file; check the path"):
        read_arx_csv("no/such.csv")
    with pytest.raises(HierarchyError, match="is a directory; pass the path of a CSV or TSV file"):
        read_arx_csv(tmp_path)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("età;*\n".encode("latin-1"))
    with pytest.raises(HierarchyError, match="latin.csv is not valid UTF-8 text"):
        read_arx_csv(latin)
    assert read_arx_csv(latin, encoding="latin-1").values.tolist() == ["età"]
    with pytest.raises(HierarchyError, match="delimiter ';;' is not one character"):
        read_arx_csv(latin, delimiter=";;")
    with pytest.raises(HierarchyError, match="has a header but no value"):
        read_arx_csv(io.StringIO("a;b\n"), header=True)


def test_writing_errors(tmp_path):
    with pytest.raises(HierarchyError, match="expected a Hierarchy, got DataFrame"):
        write_arx_csv(pd.DataFrame({"a": [1]}))
    with pytest.raises(HierarchyError, match="cannot be written in latin-1; write it as UTF-8"):
        Hierarchy(["東京"]).to_arx_csv(tmp_path / "out.csv", encoding="latin-1")
