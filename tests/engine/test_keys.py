"""Bit-packed class keys (``pandas_anon.engine.keys``) against plain pandas grouping, in each of
their three ways of sorting: count packed with the key, one word without it, several words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pandas_anon.engine import keys
from pandas_anon.engine.keys import KeyLayout, run_ids

# (word bits, max_count): the packed path, one word too wide for the count, several words
WAYS = {
    "packed": (keys.WORD_BITS, 1_000),
    "one word": (keys.WORD_BITS, 2**60),
    "several words": (5, 1_000),
}


@st.composite
def tables(draw):
    """Columns of codes below random radixes, with a positive count per row."""
    n_columns = draw(st.integers(1, 5))
    radixes = [draw(st.integers(1, 40)) for _ in range(n_columns)]
    n_rows = draw(st.integers(1, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = [rng.integers(0, r, n_rows) for r in radixes]
    return radixes, codes, rng.integers(1, 9, n_rows)


def layout(monkeypatch, way: str, radixes) -> KeyLayout:
    word_bits, max_count = WAYS[way]
    monkeypatch.setattr(keys, "WORD_BITS", word_bits)
    return KeyLayout(radixes, max_count=max_count)


def expected_distinct(codes, counts) -> pd.DataFrame:
    frame = pd.DataFrame({j: c for j, c in enumerate(codes)}).assign(count=counts)
    return frame.groupby(list(range(len(codes)))).sum().reset_index()  # sorted by the columns


@pytest.mark.parametrize("way", sorted(WAYS))
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(table=tables())
def test_distinct_sorts_and_sums_like_groupby(monkeypatch, way, table):
    radixes, codes, counts = table
    lay = layout(monkeypatch, way, radixes)
    if way == "several words":
        assert lay.n_words == 1 or sum(lay.bits) > 5
    words, summed = lay.distinct(lay.encode(codes), counts)
    expected = expected_distinct(codes, counts)
    for j in range(len(codes)):
        assert lay.decode(words, j).tolist() == expected[j].tolist()
    assert summed.tolist() == expected["count"].tolist()
    # each row's rank among the distinct keys is the row of its combination above
    ids = run_ids(lay.encode(codes))
    for j in range(len(codes)):
        assert (expected[j].to_numpy()[ids] == codes[j]).all()


@pytest.mark.parametrize("way", sorted(WAYS))
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(table=tables(), data=st.data())
def test_recode_replaces_one_column_and_prefix_drops_the_last(monkeypatch, way, table, data):
    radixes, codes, counts = table
    lay = layout(monkeypatch, way, radixes)
    column = data.draw(st.integers(0, len(codes) - 1))
    mapping = np.asarray(
        data.draw(
            st.lists(
                st.integers(0, radixes[column] - 1),
                min_size=radixes[column],
                max_size=radixes[column],
            )
        ),
        dtype=np.int64,
    )
    recoded = lay.recode(lay.encode(codes), column, lay.shift_table(column, mapping))
    direct = codes[:column] + [mapping[codes[column]]] + codes[column + 1 :]
    for j in range(len(codes)):
        assert (lay.decode(recoded, j) == direct[j]).all()
    if len(codes) > 1:
        shorter = KeyLayout(radixes[:-1], max_count=WAYS[way][1])
        prefix = lay.prefix(lay.encode(codes), len(codes) - 1)
        assert (run_ids(prefix) == run_ids(shorter.encode(codes[:-1]))).all()


def test_fields_stay_within_a_word_and_keep_column_order():
    lay = KeyLayout([70, 3, 2**55, 5], max_count=30_000)
    assert lay.bits == [7, 2, 55, 3]
    assert lay.n_words == 2 and lay.word_bits == [9, 58]
    assert lay.fields == [(0, 2), (0, 0), (1, 3), (1, 0)]
