"""Grouping rows by their codes: every path (dense counting, sorting 32- and 64-bit keys,
hashing weighted rows, compressing keys that would overflow) against pandas' groupby."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pandas_anon.engine import grouping
from pandas_anon.engine.grouping import class_sizes, combinations, mixed_radix

#: cardinalities giving key spaces dense, sparse below 2**32, sparse above, and past int64
SPACES = {
    "dense": [3, 4],
    "sparse-32": [70_000, 60_000],
    "sparse-64": [3_000_000, 2_000_000],
    "overflow": [2**31, 2**31, 5],
}


@settings(max_examples=60, deadline=None)
@given(
    space=st.sampled_from(list(SPACES)),
    data=st.data(),
    weighted=st.booleans(),
)
def test_combinations_and_class_sizes_equal_groupby(space, data, weighted):
    cardinalities = SPACES[space]
    n_rows = data.draw(st.integers(0, 40))
    codes = [
        np.array(
            data.draw(st.lists(st.sampled_from([0, 1, c - 1]), min_size=n_rows, max_size=n_rows)),
            dtype=np.int64,
        )
        for c in cardinalities
    ]
    weights = np.arange(1, n_rows + 1, dtype=float) if weighted else None
    frame = pd.DataFrame({f"c{j}": column for j, column in enumerate(codes)})
    expected = (
        frame.assign(w=1.0 if weights is None else weights).groupby(list(frame.columns))["w"].sum()
    )
    found = combinations(codes, cardinalities, n_rows=n_rows, weights=weights)
    got = pd.Series(found.counts, index=pd.MultiIndex.from_arrays(found.codes.T.tolist()))
    assert sorted(got.items()) == sorted(
        (k if isinstance(k, tuple) else (k,), int(v)) for k, v in expected.items()
    )
    labels, n_labels = mixed_radix(codes, cardinalities, n_rows=n_rows)
    sizes = class_sizes(labels, n_labels)
    assert sorted(sizes[sizes > 0].tolist()) == sorted(frame.value_counts().tolist())


@pytest.mark.parametrize("n_labels", [2**20, 2**32, 2**33])
def test_sorted_keys_keep_their_values(n_labels):
    labels = np.array([n_labels - 1, 0, n_labels - 1, 7], dtype=np.int64)
    assert grouping._sorted(labels, n_labels).tolist() == sorted(labels.tolist())


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.integers(0, 2**33), max_size=40),
    below=st.integers(2, 4),
    sparse=st.booleans(),
)
def test_size_census_counts_classes_and_small_ones(labels, below, sparse):
    """Every path of the census (the sorted labels' runs, sizes counted) against Counter."""
    from collections import Counter

    from pandas_anon.engine.grouping import size_census

    array = np.array(labels, dtype=np.int64)
    n_labels = 2**34 if sparse else (max(labels, default=0) + 1)
    if not sparse:
        array = array % 1000
        n_labels = 1000
    sizes = Counter(array.tolist()).values()
    distinct, small = size_census(array, n_labels, below=below)
    assert distinct == len(sizes)
    assert small.tolist() == [0] + [sum(1 for s in sizes if s == k) for k in range(1, below)]


@settings(max_examples=80, deadline=None)
@given(
    labels=st.lists(st.integers(0, 2**33), max_size=40),
    space=st.sampled_from([1000, 2**32, 2**34]),
    weighted=st.booleans(),
    overwrite=st.booleans(),
    below=st.integers(2, 4),
)
def test_size_histogram_counts_classes_of_each_size(labels, space, weighted, overwrite, below):
    """Every path of the histogram (counted densely, sorted in place as 32- or 64-bit keys,
    weighted) against Counter, and the census read off it equal to size_census."""
    from collections import Counter

    from pandas_anon.engine.grouping import (
        histogram_census,
        key_dtype,
        size_census,
        size_histogram,
    )

    values = [label % space for label in labels]
    weights = [1 + i % 3 for i in range(len(values))] if weighted else [1] * len(values)
    rows: Counter[int] = Counter()
    for value, weight in zip(values, weights):
        rows[value] += weight
    per_size = Counter(rows.values())
    array = np.array(values, dtype=key_dtype(space, len(values)))
    heavy = np.flatnonzero(np.array(weights, dtype=np.int64) > 1)
    surplus = (heavy, np.array(weights, dtype=np.int64)[heavy] - 1) if weighted else None
    census = size_census(array.copy(), space, surplus, below=below)
    sizes, classes = size_histogram(array, space, surplus, overwrite=overwrite)
    assert dict(zip(sizes.tolist(), classes.tolist())) == dict(per_size)
    assert sizes.tolist() == sorted(per_size)
    distinct, small = histogram_census((sizes, classes), below)
    assert (distinct, small.tolist()) == (census[0], census[1].tolist())


@pytest.mark.parametrize("space", list(SPACES))
def test_a_key_built_in_a_reused_array_is_the_same_key(space):
    from pandas_anon.engine.grouping import Scratch, key_dtype

    cardinalities = SPACES[space]
    rng = np.random.default_rng(0)
    codes = [rng.integers(0, c, 50) for c in cardinalities]
    expected, n_labels = mixed_radix(codes, cardinalities, n_rows=50)
    scratch = Scratch()
    for _ in range(2):  # the second time, in the array the first one used
        out = scratch.array(key_dtype(n_labels, 50), 50)
        out[:] = 7
        labels, reused_n = mixed_radix(codes, cardinalities, n_rows=50, out=out)
        assert reused_n == n_labels
        if space != "overflow":  # past int64 the key is compressed into a new array
            assert labels is out
            assert labels.tolist() == expected.tolist()
