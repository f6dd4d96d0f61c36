"""Bit-packed class keys (``pandas_anon.engine.keys``) against plain pandas grouping, on keys of
one word and of several words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pandas_anon.engine import keys
from pandas_anon.engine.hashing import group
from pandas_anon.engine.keys import KeyLayout, run_ids

# bits of a word: the usual one word, or several words of at most 5 bits
WAYS = {"one word": keys.WORD_BITS, "several words": 5}


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
    monkeypatch.setattr(keys, "WORD_BITS", WAYS[way])
    return KeyLayout(radixes)


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
def test_keys_group_like_groupby(monkeypatch, way, table):
    """Each row's rank among the sorted distinct keys (run_ids) is the row of its
    combination in groupby's sorted table; hash grouping gives the same classes and sums."""
    radixes, codes, counts = table
    lay = layout(monkeypatch, way, radixes)
    if way == "several words":
        assert lay.n_words == 1 or sum(lay.bits) > 5
    expected = expected_distinct(codes, counts)
    ids = run_ids(lay.encode(codes))
    for j in range(len(codes)):
        assert (expected[j].to_numpy()[ids] == codes[j]).all()
    words, summed, _ = group(lay.encode(codes), counts)
    found = pd.DataFrame({j: lay.decode(words, j) for j in range(len(codes))}).assign(count=summed)
    found = found.sort_values(list(range(len(codes)))).reset_index(drop=True)
    pd.testing.assert_frame_equal(found, expected, check_dtype=False)


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
        shorter = KeyLayout(radixes[:-1])
        prefix = lay.prefix(lay.encode(codes), len(codes) - 1)
        assert (run_ids(prefix) == run_ids(shorter.encode(codes[:-1]))).all()


def test_fields_stay_within_a_word_and_keep_column_order():
    lay = KeyLayout([70, 3, 2**55, 5])
    assert lay.bits == [7, 2, 55, 3]
    assert lay.n_words == 2 and lay.word_bits == [9, 58]
    assert lay.fields == [(0, 2), (0, 0), (1, 3), (1, 0)]
