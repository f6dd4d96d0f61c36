"""Writing a recoded column: the path for columns whose every entry gets a text label
(:func:`labels_as_text`) writes what the general path (:func:`relabel`, then
:meth:`Recoded.marked`, then :func:`as_column`) writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pandas_anon.anonymization.recoding import (
    KEEP,
    as_column,
    labels_as_text,
    relabel,
)
from pandas_anon.detect.exposure import SUPPRESSED

TEXT = pd.Index(["x"]).dtype  # text as pandas stores it by default

words = st.sampled_from(["a", "b", "*", "long label of more than thirty-two bytes", "é", ""])


def _general(value_codes, values, labels, label_codes, marked):
    recoded = relabel(value_codes, values, labels, label_codes)
    changed = recoded.changed
    if marked.any():
        recoded, starred = recoded.marked(marked, SUPPRESSED)
        changed = changed | starred
    return as_column(recoded.codes, recoded.values, pd.RangeIndex(len(value_codes)), "c"), changed


@pytest.mark.skipif(
    TEXT.kind == "O" and not isinstance(TEXT, pd.StringDtype),
    reason="text is stored as objects by default",
)
@settings(max_examples=200, deadline=None)
@given(st.data(), st.booleans(), st.booleans())
def test_text_labels_write_what_the_general_path_writes(data, numbers, one_way):
    """Values of text (some equal to labels, the marker among them or not) or of whole
    numbers, labels of text, entries marked or not, each value labelled one way (its
    label given per value) or not: the same column, dtype and changes."""
    if numbers:
        values = pd.Index(
            data.draw(st.lists(st.integers(-5, 5), min_size=1, max_size=6, unique=True)),
            dtype="int64",
        )
    else:
        values = pd.Index(data.draw(st.lists(words, min_size=1, max_size=6, unique=True)))
    labels = pd.Index(data.draw(st.lists(words, min_size=1, max_size=6)))
    n = data.draw(st.integers(1, 30))
    value_codes = np.array(
        data.draw(st.lists(st.integers(0, len(values) - 1), min_size=n, max_size=n))
    )
    by_value = None
    if one_way:  # a full-domain recoding: a label per value
        size = len(values)
        by_value = np.array(
            data.draw(st.lists(st.integers(0, len(labels) - 1), min_size=size, max_size=size))
        )
        label_codes = by_value[value_codes]
    else:
        label_codes = np.array(
            data.draw(st.lists(st.integers(0, len(labels) - 1), min_size=n, max_size=n))
        )
    marked = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    found = labels_as_text(
        value_codes, values, labels, label_codes, marked, SUPPRESSED, by_value=by_value
    )
    assert found is not None
    expected, changed = _general(value_codes, values, labels, label_codes, marked)
    written = found.as_column(pd.RangeIndex(n), "c")
    pd.testing.assert_series_equal(written, expected)
    np.testing.assert_array_equal(found.changed, changed)
    rows = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=40)), dtype=np.int64)
    spread = found.as_column(pd.RangeIndex(len(rows)), "c", rows=rows)
    assert spread.tolist() == expected.iloc[rows].tolist()


def test_other_columns_take_the_general_path():
    """An entry kept as read, labels or values held as objects: not this path's to write."""
    codes, none = np.array([0, 1]), np.zeros(2, dtype=bool)
    text = pd.Index(["a", "b"])
    assert labels_as_text(codes, text, text, np.array([0, KEEP]), none, SUPPRESSED) is None
    mixed = pd.Index(["a", 1], dtype=object)
    assert labels_as_text(codes, mixed, text, codes, none, SUPPRESSED) is None
    assert labels_as_text(codes, text, mixed, codes, none, SUPPRESSED) is None


@pytest.mark.skipif(
    TEXT.kind == "O" and not isinstance(TEXT, pd.StringDtype),
    reason="text is stored as objects by default",
)
def test_many_texts_are_compared_by_arrow_as_few_are_by_a_dict():
    from pandas_anon.anonymization import recoding

    among = pd.Index([f"v{i}" for i in range(3000)])
    texts = pd.Index([f"v{i}" for i in range(2500, 5000)])
    many = recoding._positions_in(texts, among)  # beyond the dict's 4,096 texts
    expected = np.array([i if i < 3000 else -1 for i in range(2500, 5000)])
    np.testing.assert_array_equal(many, expected)
    np.testing.assert_array_equal(
        recoding._positions_in(texts[:100], among[2400:]), expected[:100] - 2400
    )
