"""A table written several times over is judged as one copy (:mod:`pandas_anon.gate.copies`).

Writing every record twice makes every tax code appear twice and every class reach ``k = 2``:
the gate's rules would pass what one copy fails. :func:`copies` finds the ``m`` of a table
whose every distinct record appears exactly ``m > 1`` times (over two or more columns, at least
``MIN_RECORDS`` records and more than ``m``), and :func:`one_copy` gives one copy back;
``pandas-anon check`` judges that copy and says so.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_coverage import check
from test_coverage import repo as repo  # noqa: F401  # the fixture

from pandas_anon.gate.copies import MIN_RECORDS, copies, one_copy

PEOPLE = 450
#: 450 made-up tax codes, one per person.
CODES = [f"RSSMRA{i:05d}X" for i in range(PEOPLE)]


def people() -> pd.DataFrame:
    """450 people, each with a tax code of their own, in 8 classes on ``anno, sesso``."""
    return pd.DataFrame(
        {
            "codice_fiscale": CODES,
            "anno": [1950 + i % 4 for i in range(PEOPLE)],
            "sesso": ["MF"[i % 2] for i in range(PEOPLE)],
        }
    )


# -- copies and one_copy --------------------------------------------------------------------------


def test_the_docstring_examples():
    """Thirty records each twice: 2; one row fewer: 1."""
    frame = pd.DataFrame({"code": [f"A{i}" for i in range(30)] * 2, "sex": ["F"] * 60})
    assert copies(frame) == 2
    assert copies(frame.iloc[:59]) == 1


def test_450_records_each_written_twice_are_two_copies():
    """Every record twice, rows interleaved or in two blocks: 2; one copy is the 450
    records in their order, each standing for one person."""
    twice = pd.concat([people(), people()], ignore_index=True)
    assert copies(twice) == 2
    assert copies(twice.sample(frac=1, random_state=0)) == 2
    pd.testing.assert_frame_equal(one_copy(twice), people())


def test_one_record_once_more_is_no_copy():
    """450 records twice and one of them a third time: counts differ, 1."""
    frame = pd.concat([people(), people(), people().iloc[[17]]], ignore_index=True)
    assert copies(frame) == 1


def test_two_records_each_225_times_are_not_copies():
    """Two records of 225 rows each are a table of two classes, not one written 225 times
    over; so are 19 records twice (fewer than ``MIN_RECORDS``), and a one-column table's
    rows alike (people sharing a value)."""
    frame = pd.DataFrame({"anno": [1950, 1960] * 225, "sesso": ["M", "F"] * 225})
    assert copies(frame) == 1
    few = pd.DataFrame({"anno": list(range(19)) * 2, "sesso": ["M"] * 38})
    assert copies(few) == 1
    assert copies(pd.concat([few, few.iloc[[0]].assign(anno=99)], ignore_index=True)) == 1
    assert copies(pd.DataFrame({"anno": list(range(40)) * 2})) == 1
    assert copies(pd.DataFrame({"anno": list(range(20)) * 2, "sesso": ["M"] * 40})) == 2


def test_missing_values_are_alike():
    """A record with missing values, written twice as the others, is one record twice."""
    frame = pd.DataFrame(
        {
            "comune": ["AOSTA", None, "BARD", np.nan] * 5,
            "anno": [np.nan, np.nan, *(1950.0 + i for i in range(2, 20))],
        }
    )
    twice = pd.concat([frame, frame], ignore_index=True)
    assert copies(twice) == 2
    assert len(one_copy(twice)) == 20
    assert copies(pd.concat([twice, frame.iloc[[1]]], ignore_index=True)) == 1


def test_one_copy_keeps_the_distinct_records_in_order():
    """``one_copy`` keeps each distinct record once, in the order of its first row."""
    frame = pd.DataFrame({"a": ["x", "y", "x", "z", "x"], "b": [1, 2, 1, 3, 1]})
    assert one_copy(frame).to_dict("list") == {"a": ["x", "y", "z"], "b": [1, 2, 3]}


# -- pandas-anon check ------------------------------------------------------------------------------


@pytest.mark.parametrize("m", [2, 3])
def test_tax_codes_written_m_times_still_identify(repo, capsys, m):
    """Each of 450 rows written ``m`` times: every tax code appears ``m`` times, but the
    table is judged as one copy, where each identifies a person: exit 1, with the copies
    warned about."""
    frame = pd.concat([people()] * m, ignore_index=True)
    frame.to_csv(repo / "x.csv", index=False)
    assert check(repo, "x.csv", "--format", "json") == 1
    out, err = capsys.readouterr()
    assert f"pandas-anon: warning: x.csv: every record appears {m} times" in err
    (entry,) = json.loads(out)["files"]
    assert entry["status"] == "fail"
    assert entry["warnings"] == [
        f"every record appears {m} times ({PEOPLE * m:,} rows, {PEOPLE} distinct records): "
        "judged as one copy"
    ]
    assert any(
        problem.startswith("'codice_fiscale'") and "identifies people on its own" in problem
        for problem in entry["problems"]
    )
    assert not any(tax_code in out + err for tax_code in CODES)


# -- property: m copies of a table without repeated records --------------------------------------

MISSING = st.none()
INTS = st.one_of(st.integers(-5, 5), MISSING)
TEXT = st.one_of(st.text("abc", max_size=2), MISSING)


@st.composite
def distinct_frames(draw: st.DrawFn) -> pd.DataFrame:
    """A frame of ``MIN_RECORDS`` to 40 distinct records over 2 to 4 columns, each of small
    integers or short text, with missing values."""
    kinds = draw(st.lists(st.sampled_from([INTS, TEXT]), min_size=2, max_size=4))
    records = draw(st.lists(st.tuples(*kinds), min_size=MIN_RECORDS, max_size=40, unique=True))
    return pd.DataFrame(records, columns=[f"c{at}" for at in range(len(kinds))])


@settings(max_examples=80, deadline=None)
@given(frame=distinct_frames(), m=st.integers(2, 4))
def test_m_copies_of_distinct_records_are_m_copies(frame, m):
    """``m`` copies of a frame of more than ``m`` distinct records are ``m`` copies, and one
    copy is the frame, its records in order, each standing for one."""
    assert not frame.duplicated().any() and len(frame) > m
    written = pd.concat([frame] * m, ignore_index=True)
    assert copies(written) == m
    pd.testing.assert_frame_equal(one_copy(written), frame)
