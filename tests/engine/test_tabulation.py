"""A frame's rows read in one call of the compiled kernels (``tabulate_rows``) give the
frequency set, combinations and rows that encoding the columns then grouping them give,
and the memory pool numpy allocates from inside ``pooled()``."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pandas_anon import AllMissingColumnError
from pandas_anon.engine import grouping, kept_codes, memory
from pandas_anon.engine.backends import pandas as backend
from pandas_anon.engine.encoding import EncodedFrame
from pandas_anon.engine.hashing import COMPILED

pytestmark = pytest.mark.skipif(not COMPILED, reason="the extension is not compiled")

#: Arrow-backed text: pandas' default ``str`` from pandas 3 (in pandas 2 it is numpy's)
ARROW_TEXT = "str" if int(pd.__version__.split(".")[0]) >= 3 else "string[pyarrow]"

WORDS = ["", "a", "b", "Married-civ-spouse", "exactly sixteen!", "more than twenty-four bytes", "é"]


def _general(frame: pd.DataFrame, columns: list) -> backend.Tabulation:
    return backend._tabulation(EncodedFrame(frame, columns, dropna=False), weighted=False)


def _assert_same(frame: pd.DataFrame, columns: list) -> None:
    """The same as the general path, read from the columns, then from the codes kept."""
    expected = _general(frame, columns)
    kept_codes.forget()
    for _ in range(2):
        compiled = backend._compiled_tabulation(frame, columns)
        assert compiled is not None
        found, wanted = compiled.frequencies, expected.frequencies
        np.testing.assert_array_equal(found.codes, wanted.codes)
        np.testing.assert_array_equal(found.counts, wanted.counts)
        for column in columns:
            pd.testing.assert_index_equal(found.values[column], wanted.values[column])
            assert found.dtypes[column] == wanted.dtypes[column]
        np.testing.assert_array_equal(compiled.row_combination, expected.row_combination)
        assert compiled.positions is None and compiled.n_rows == len(frame)
    texts = [c for c in columns if isinstance(frame[c].dtype, pd.StringDtype | pd.ArrowDtype)]
    assert kept_codes.held() == 8 * len(frame) * len(texts)


def _text_column(draw, n: int) -> pd.Series:
    values = draw(st.lists(st.sampled_from([*WORDS, None]), min_size=n, max_size=n))
    if all(v is None for v in values):
        values[0] = "a"
    kind = draw(st.sampled_from([ARROW_TEXT, "string[pyarrow]", "large", "sliced", "chunked"]))
    if kind == "large":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.large_string()))
    if kind == "sliced":  # an offset into the Arrow buffers
        array = pa.array(["pad", *values], type=pa.string()).slice(1)
        return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([array])))
    if kind == "chunked":
        cut = n // 2
        chunks = [pa.array(values[:cut], pa.string()), pa.array(values[cut:], pa.string())]
        return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks)))
    return pd.Series(values, dtype=kind)


@st.composite
def frames(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 60))
    columns = {}
    for j in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            columns[f"t{j}"] = _text_column(draw, n)
        else:
            dtype = draw(
                st.sampled_from(["int8", "int64", "uint8", "uint64", "Int8", "Int64", "UInt64"])
            )
            info = np.iinfo(dtype.lower())
            low = draw(st.integers(int(info.min), int(info.max)))
            high = min(int(info.max), low + draw(st.integers(0, 2 * n)))
            nullable = dtype[0].isupper()  # pandas' nullable integers: missing values too
            cells = st.integers(low, high) | (st.none() if nullable else st.nothing())
            values = draw(st.lists(cells, min_size=n, max_size=n))
            if all(v is None for v in values):
                values[0] = low
            columns[f"n{j}"] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(columns)


@settings(max_examples=300, deadline=None)
@given(frames(), st.booleans())
def test_compiled_tabulation_equals_encoding_then_grouping(frame, sparse):
    """Text of every Arrow kind (missing values, offsets, chunks, long and non-ASCII texts)
    and whole numbers of every width, counted in a table of every key or hashed."""
    with pytest.MonkeyPatch.context() as patch:
        if sparse:
            patch.setattr(grouping, "_DENSE_MIN_LABELS", 0)
            patch.setattr(grouping, "DENSE_LABELS_PER_ROW", 0)
        _assert_same(frame, list(frame.columns))


@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_tabulation_in_two_threads(sparse, monkeypatch):
    """Beyond 10,000 rows the text columns are factorized two at a time in two threads."""
    rng = np.random.default_rng(7)
    n = 25_000
    frame = pd.DataFrame(
        {
            "a": pd.Series(rng.choice(WORDS, n), dtype=ARROW_TEXT),
            "b": pd.Series(rng.integers(0, 90, n)),
            "c": pd.Series(rng.choice(WORDS[:4], n), dtype=ARROW_TEXT),
            "d": pd.Series([f"id{i % 3000}" for i in range(n)], dtype=ARROW_TEXT),
            "e": pd.Series(rng.choice([*WORDS, None], n), dtype=ARROW_TEXT),
        }
    )
    if sparse:
        monkeypatch.setattr(grouping, "_DENSE_MIN_LABELS", 0)
        monkeypatch.setattr(grouping, "DENSE_LABELS_PER_ROW", 0)
    _assert_same(frame, list(frame.columns))


def test_other_columns_and_wide_keys_take_the_general_path():
    frame = pd.DataFrame({"x": [1.5, 2.5], "t": pd.Series(["a", "b"], dtype=ARROW_TEXT)})
    assert backend._compiled_tabulation(frame, ["x", "t"]) is None  # floats
    assert backend._compiled_tabulation(frame, ["t"]) is not None
    missing = pd.DataFrame({"m": pd.Series([None, None], dtype="Int64")})
    assert backend._compiled_tabulation(missing, ["m"]) is None  # refused by the general path
    objects = pd.DataFrame({"o": pd.Series(["a", 1], dtype=object)})
    assert backend._compiled_tabulation(objects, ["o"]) is None
    wide = pd.DataFrame({f"c{j}": pd.Series(np.arange(40_000)) for j in range(5)})
    assert backend._compiled_tabulation(wide, list(wide.columns)) is None  # keys over 2**62
    assert backend.tabulate(wide, list(wide.columns)).frequencies.n_rows == 40_000


def test_a_column_of_missing_texts_is_refused_by_name():
    frame = pd.DataFrame(
        {
            "sex": pd.Series(["M", "F"], dtype=ARROW_TEXT),
            "empty": pd.Series([None, None], dtype=ARROW_TEXT),
        }
    )
    with pytest.raises(AllMissingColumnError, match="column 'empty' holds only missing"):
        backend.tabulate(frame, ["sex", "empty"])


# -- the memory pool ----------------------------------------------------------------------------


def _handler(array: np.ndarray) -> str:
    return np._core.multiarray.get_handler_name(array)  # type: ignore[attr-defined]


def test_numpy_allocates_from_the_pool_inside_pooled_only():
    before = np._core.multiarray.get_handler_name()  # type: ignore[attr-defined]
    with memory.pooled():
        inside = np.ones(100_000)
        zeros = np.zeros(50_000, dtype=np.int64)
        grown = np.resize(inside, 300_000)
        small = np.arange(3)
    outside = np.ones(100_000)
    assert _handler(inside) == _handler(small) == "pandas_anon_pool"
    assert _handler(outside) == before
    assert inside.sum() == 100_000 and not zeros.any() and grown.sum() == 300_000
    with pytest.raises(ZeroDivisionError), memory.pooled():
        1 / 0  # noqa: B018
    assert np._core.multiarray.get_handler_name() == before  # type: ignore[attr-defined]


def test_the_pool_keeps_freed_blocks_up_to_its_limit_and_releases_them():
    gc.collect()  # no other test's garbage freed into the pool while this one counts
    gc.disable()
    memory.release()
    limit = memory.limit()
    try:
        with memory.pooled():
            blocks = [np.ones(200_000 + 1000 * i) for i in range(4)]  # 1.6 MB each
        assert memory.held() == 0
        del blocks
        held = memory.held()
        assert held >= 4 * 1_600_000
        with memory.pooled():
            again = np.full(200_000, 2.0)  # a block of the pool
            zeros = np.zeros(200_000)  # the system's zero pages: never a used block
        assert (again == 2).all() and not zeros.any() and memory.held() < held
        memory.limit(1_000_000)  # lower: the blocks beyond it are released
        assert memory.held() <= 1_000_000
        del again
        held = memory.held()
        assert held <= 1_000_000
        assert memory.release() == held and memory.held() == 0
        memory.limit(0)
        with memory.pooled():
            np.ones(200_000)
        assert memory.held() == 0  # a limit of 0 keeps nothing
    finally:
        memory.limit(limit)
        gc.enable()


def test_the_pool_gives_back_the_sizes_least_recently_used_first():
    """A pool full of one size's blocks (earlier work) makes room for the blocks of the
    work at hand, rather than sending them back to the system."""
    gc.collect()
    gc.disable()
    memory.release()
    limit = memory.limit()
    try:
        memory.limit(10_000_000)
        with memory.pooled():
            earlier = [np.ones(200_000) for _ in range(5)]  # 1.6 MB each: 4 fit
        del earlier
        full = memory.held()
        assert full > 8_000_000
        with memory.pooled():
            now = np.ones(400_000)  # 3.2 MB: a larger size
        del now  # kept, the earlier blocks given back to make room
        assert 0 < memory.held() <= 10_000_000
        with memory.pooled():
            again = np.full(400_000, 2.0)  # from the pool: what it holds goes down
        assert memory.held() < full - 3_200_000
        assert (again == 2).all()
    finally:
        memory.limit(limit)
        gc.enable()


def test_blocks_of_the_pool_are_freed_from_any_thread():
    with memory.pooled():
        arrays = [np.full(100_000, i, dtype=np.int64) for i in range(16)]
    errors = []

    def check_and_free(start: int) -> None:
        try:
            for i in range(start, 16, 4):
                assert int(arrays[i][-1]) == i
                arrays[i] = None
        except AssertionError as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=check_and_free, args=(s,)) for s in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_codes_given_outside_their_cardinality_are_refused():
    """Codes given (a column's kept codes, whole numbers) are checked as they are folded."""
    from pandas_anon.engine.hashing import kernels

    codes = np.array([0, 1, 2, 3], dtype=np.int64)
    found = kernels.tabulate_rows([(codes, 4)], 4, 1 << 16, 1 << 62)
    assert found[3].tolist() == [1, 1, 1, 1]
    with pytest.raises(ValueError, match="codes"):
        kernels.tabulate_rows([(codes, 3)], 4, 1 << 16, 1 << 62)
    with pytest.raises(ValueError, match="codes"):
        kernels.tabulate_rows([(codes - 1, 4)], 4, 1 << 16, 1 << 62)
