"""Hash grouping (``pandas_anon.engine.hashing``): the compiled kernels against plain pandas
grouping and against the numpy reference, on random keys of one and several words, with
int64 extremes; and in CI, that the kernels were compiled at all."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pandas_anon.engine import hashing
from pandas_anon.engine.keys import KeyLayout

EXTREMES = [0, 1, -1, 2**62, 2**63 - 1, -(2**63)]


@st.composite
def keyed(draw):
    """Words of keys (few distinct values, so that keys repeat; int64 extremes among them)
    and a positive count per key."""
    n_words = draw(st.integers(1, 3))
    n = draw(st.integers(0, 200))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = np.array(EXTREMES + list(rng.integers(-(2**40), 2**40, 6)), dtype=np.int64)
    words = tuple(pool[rng.integers(0, draw(st.integers(1, len(pool))), n)] for _ in range(n_words))
    return words, rng.integers(1, 2**40, n)


def by_pandas(words, counts):
    """Distinct keys in order of first occurrence, their summed counts, each key's group."""
    frame = pd.DataFrame({f"w{j}": w for j, w in enumerate(words)})
    codes, uniques = pd.factorize(pd.MultiIndex.from_frame(frame)) if len(frame) else ([], [])
    codes = np.asarray(codes, dtype=np.int64)
    sums = np.zeros(len(uniques), dtype=np.int64)
    np.add.at(sums, codes, counts)
    firsts = [np.asarray([key[j] for key in uniques], dtype=np.int64) for j in range(len(words))]
    return tuple(firsts), sums, codes


@settings(max_examples=300, deadline=None)
@given(keyed())
def test_group_equals_pandas_and_the_reference(case):
    words, counts = case
    expected_keys, expected_sums, expected_inverse = by_pandas(words, counts)
    for implementation in (hashing.group, hashing.group_reference):
        keys, sums, inverse = implementation(words, counts)
        assert [k.tolist() for k in keys] == [k.tolist() for k in expected_keys]
        assert sums.tolist() == expected_sums.tolist()
        assert inverse.tolist() == expected_inverse.tolist()


@settings(max_examples=300, deadline=None)
@given(keyed(), st.data())
def test_step_groups_equal_the_reference_but_for_classes_too_small(case, data):
    """A step's classes (the first entries' keys moved in one word, then the others as they
    are): the kernel's groups are the reference's, numbered alike, on the entries it keeps;
    an entry it sets aside is a moved one whose class holds fewer than ``min_rows`` rows."""
    words, counts = case
    stacked = np.stack(words) if len(words[0]) else np.zeros((len(words), 0), dtype=np.int64)
    n = stacked.shape[1]
    entries = np.asarray(data.draw(st.permutations(range(n))), dtype=np.int64)
    n_moved = data.draw(st.integers(0, n))
    word = data.draw(st.integers(0, len(words) - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    up = rng.integers(-3, 4, n) if data.draw(st.booleans()) else None
    rows = rng.integers(1, 4, n)
    min_rows = data.draw(st.integers(1, 8))
    found = hashing.step_groups(stacked, entries, n_moved, word, up, rows, min_rows)
    expected = hashing.step_groups_reference(stacked, entries, n_moved, word, up)
    kept = found >= 0
    assert (found[n_moved:] >= 0).all() and (min_rows > 1 or kept.all())
    # same partition of the kept entries, numbered in order of first occurrence
    assert found[kept].tolist() == pd.factorize(expected[kept])[0].tolist()
    class_rows = np.bincount(expected, weights=rows[entries])[expected]
    assert (class_rows[~kept] < min_rows).all()


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_rollup_equals_recode_then_group(data):
    """Rewriting fields in the kernel gives what KeyLayout.recode then group give."""
    n_columns = data.draw(st.integers(1, 4))
    radixes = [data.draw(st.integers(1, 30)) for _ in range(n_columns)]
    wide = data.draw(st.booleans())  # several words: fields in each
    layout = KeyLayout(radixes)
    if wide:
        layout = KeyLayout([2**20] * 4 + radixes)  # 80 bits: two words
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(0, 150))
    offset = 4 if wide else 0
    codes = [rng.integers(0, 3, n) for _ in range(offset)] + [
        rng.integers(0, r, n) for r in radixes
    ]
    counts = rng.integers(1, 100, n)
    words = (
        layout.encode(codes) if n else tuple(np.zeros(0, np.int64) for _ in range(layout.n_words))
    )
    changed = sorted(
        data.draw(st.sets(st.integers(offset, offset + n_columns - 1), max_size=n_columns))
    )
    tables = [
        layout.shift_table(j, rng.integers(0, radixes[j - offset], radixes[j - offset]))
        for j in changed
    ]
    expected = words
    for j, table in zip(changed, tables):
        expected = layout.recode(expected, j, table)
    expected_keys, expected_sums, _ = by_pandas(expected, counts)
    for implementation in (hashing.rollup, hashing.rollup_reference):
        keys, sums = implementation(
            words, counts, hashing.Rewrite.of(layout.field_table(changed), tables)
        )
        assert [k.tolist() for k in keys] == [k.tolist() for k in expected_keys]
        assert sums.tolist() == expected_sums.tolist()


def test_the_kernels_refuse_buffers_of_the_wrong_size():
    if not hashing.COMPILED:
        pytest.skip("the kernels are not compiled here")
    from pandas_anon.engine import _kernels

    n = 4
    with pytest.raises(ValueError, match="counts: expected 4 int64 values"):
        _kernels.group(
            np.zeros(n, np.int64), 1, n, np.zeros(3, np.int64), *(np.zeros(n, np.int64),) * 2
        )


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI checks the extension was built")
def test_the_kernels_are_compiled_in_ci():
    """pip builds the extension (optional, so that an install without a C compiler works);
    CI, which has one, must not fall back to numpy unnoticed."""
    assert hashing.COMPILED


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=60),
    st.integers(0, 5),
    st.sampled_from(["string", "large_string"]),
)
def test_factorize_text_equals_pandas(texts, start, kind):
    """Codes and first occurrences of texts (empty, long, non-ASCII, missing; an Arrow
    slice, so an offset into the buffers) as pandas.factorize gives them."""
    import pyarrow as pa

    array = pa.array(["padding"] * start + texts, type=getattr(pa, kind)()).slice(start)
    codes, first = hashing.factorize_text(array)
    expected, uniques = pd.factorize(pd.Series(texts, dtype=object), use_na_sentinel=True)
    assert codes.tolist() == expected.tolist()
    assert array.take(first).to_pylist() == list(uniques)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(max_size=40), min_size=1, max_size=30),
    st.integers(0, 5),
    st.sampled_from(["string", "large_string"]),
    st.data(),
)
def test_take_text_equals_pyarrow(texts, start, kind, data):
    """Texts taken by code (empty, short, longer than the 32 bytes copied at once,
    non-ASCII; an Arrow slice, so an offset into the buffers; -1 for missing), directly or
    through ``rows`` (codes of entries spread to rows), are what pyarrow's take gives, as
    large_string."""
    import pyarrow as pa

    array = pa.array(["padding"] * start + texts, type=getattr(pa, kind)()).slice(start)
    codes = np.array(
        data.draw(st.lists(st.integers(-1, len(texts) - 1), min_size=1, max_size=80)),
        dtype=np.int64,
    )
    rows = np.array(
        data.draw(st.lists(st.integers(0, len(codes) - 1), max_size=80)), dtype=np.int64
    )
    counts = np.bincount(rows, minlength=len(codes))
    for taken, expected in (
        (hashing.take_text(array, codes), codes),
        (hashing.take_text(array, codes, rows), codes[rows]),
        (hashing.take_text(array, codes, rows, counts=counts), codes[rows]),
    ):
        assert taken.type == pa.large_string()
        assert taken.to_pylist() == [texts[c] if c >= 0 else None for c in expected]
        assert taken.null_count == int((expected < 0).sum())


def test_take_text_refuses_codes_outside_the_texts_and_rows_outside_the_codes():
    import pyarrow as pa

    with pytest.raises(ValueError, match="codes"):
        hashing.take_text(pa.array(["a", "b"]), np.array([0, 2]))
    with pytest.raises(ValueError, match="rows"):
        hashing.take_text(pa.array(["a", "b"]), np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(ValueError, match="rows"):
        hashing.take_text(pa.array(["a", "b"]), np.array([0, 1]), np.array([-1]))


def test_take_texts_never_writes_past_its_buffer():
    """Texts that do not fit the buffer given, with the 32 bytes of room past them (a
    caller's wrong count of rows), are refused, never written past."""
    import pyarrow as pa

    from pandas_anon.engine import _kernels

    _, offsets, data = hashing.text_buffers(pa.array(["ab", "c"]))
    codes = np.array([0, 1, 0], dtype=np.int64)
    total = _kernels.texts_size(offsets, data, 0, 2, codes, None)
    assert total == 5
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="room"):
        _kernels.take_texts(offsets, data, 0, 2, codes, None, out, bytearray(total + 31))
    room = bytearray(total + 32)
    assert _kernels.take_texts(offsets, data, 0, 2, codes, None, out, room) == total
    assert bytes(room[:total]) == b"abcab" and out.tolist() == [0, 2, 3, 5]
    with pytest.raises(ValueError, match="room"):  # counts saying fewer rows than there are
        hashing.take_text(
            pa.array(["abc"] * 3), np.array([0, 1]), np.array([0, 1, 1]), counts=np.array([1, 0])
        )


def test_factorize_text_of_several_chunks():
    import pyarrow as pa

    chunked = pa.chunked_array([pa.array(["b", None]), pa.array(["a", "b", "a" * 30])])
    codes, first = hashing.factorize_text(chunked)
    assert codes.tolist() == [0, -1, 1, 0, 2]
    assert first.tolist() == [0, 2, 4]
