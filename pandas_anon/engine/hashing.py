"""Grouping bit-packed keys by hashing: the distinct keys with their counts summed.

A lattice node's classes are the distinct keys of its combinations, with their row counts
summed (:mod:`pandas_anon.engine.keys`). Sorting groups them, but numpy's int64 sort costs
35-40 ns a key on tens of thousands of keys on the 2-core machines we measure on (most of a
node's evaluation), and pandas' and pyarrow's hash tables 20 ns; the optimal search
evaluates thousands of nodes, each a group-by of thousands of keys. One pass through an
open-addressing hash table in C (``kernels.c``, compiled when the package is installed)
costs 3 to 5 ns a key. We write it ourselves because no dependency offers it at that cost:
Numba compiles the same loop, but its start-up costs about 0.75 s in every new process (a
pre-commit hook, a ``pandas-anon`` command), more than the searches it would speed up.

Groups come out in the order of their first key, not sorted: the same keys give the same
groups in the same order. Where the extension could not be compiled, the same results come
from numpy (:func:`group_reference`, which the tests also use to check the kernels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from pandas_anon.engine.keys import Words

#: The compiled kernels (``kernels.c``): grouping, text, the tabulation of rows
#: (:mod:`pandas_anon.engine.backends.pandas`), numpy's memory pool
#: (:mod:`pandas_anon.engine.memory`) and the query error's 2-way estimate
#: (:mod:`pandas_anon.anonymization.utility`); None where the extension could not be built.
kernels: ModuleType | None
try:
    from pandas_anon.engine import _kernels as kernels
except ImportError:  # pragma: no cover - the extension is built on every supported platform
    kernels = None

#: Whether the compiled kernels are in use (else numpy computes the same groups).
COMPILED = kernels is not None


def group(words: Words, counts: np.ndarray) -> tuple[Words, np.ndarray, np.ndarray]:
    """The distinct keys of ``words`` (one int64 array per word, equal lengths), in the order
    of their first occurrence; the sum of ``counts`` over each; and each key's group (its
    position among the distinct keys).

    Examples
    --------
    >>> import numpy as np
    >>> keys, sums, inverse = group((np.array([7, 3, 7, 9]),), np.array([1, 2, 3, 4]))
    >>> keys[0].tolist(), sums.tolist(), inverse.tolist()
    ([7, 3, 9], [4, 2, 4], [0, 1, 0, 2])
    """
    if kernels is None:  # pragma: no cover - see COMPILED
        return group_reference(words, counts)
    stacked, counts = _stacked(words), _int64(counts)
    n = len(counts)
    first, sums, inverse = (np.empty(n, dtype=np.int64) for _ in range(3))
    groups = kernels.group(stacked, len(words), n, counts, first, sums, inverse)
    return tuple(w[first[:groups]] for w in words), sums[:groups], inverse


def step_groups(
    words: np.ndarray,
    entries: np.ndarray,
    n_moved: int,
    word: int,
    up: np.ndarray | None,
    rows: np.ndarray,
    min_rows: int,
) -> np.ndarray:
    """The classes of a step of local recoding: the keys of the combinations ``entries``
    (positions into ``words``, one row of int64 words per key word), the first ``n_moved`` of
    them with ``up`` (one int64 per combination) added to their word ``word``, grouped; each
    entry's group, numbered in the order of first occurrence, or -1 for a moved entry the
    compiled kernel set aside: with ``min_rows`` above 1, a moved key whose hash bucket (at
    least twice as many buckets as keys) holds fewer than ``min_rows`` rows (``rows``, one
    whole number per combination) in all, so that its class holds fewer too (and breaks
    k-anonymity), found without grouping it. Without the kernel nothing is set aside.

    Examples
    --------
    >>> import numpy as np
    >>> words = np.array([[4, 5, 4, 6]])
    >>> step_groups(words, np.array([1, 3, 0]), 2, 0, np.array([0, -1, 0, -2]), np.ones(4), 1)
    array([0, 0, 0])
    """
    entries, rows = _int64(entries), _int64(rows)
    if kernels is None:  # pragma: no cover - see COMPILED
        return step_groups_reference(words, entries, n_moved, word, up)
    out = np.empty(len(entries), dtype=np.int64)
    stacked = _int64(words).reshape(len(words), -1)
    kernels.step_groups(
        stacked,
        stacked.shape[0],
        stacked.shape[1],
        entries,
        len(entries),
        n_moved,
        word,
        None if up is None else _int64(up),
        rows,
        int(min_rows),
        out,
    )
    return out


def step_groups_reference(
    words: np.ndarray, entries: np.ndarray, n_moved: int, word: int, up: np.ndarray | None
) -> np.ndarray:
    """:func:`step_groups` computed by numpy, nothing set aside."""
    keys = [w[entries] for w in words]
    if up is not None:
        keys[word][:n_moved] += up[entries[:n_moved]]
    _, _, inverse = group_reference(tuple(keys), np.ones(len(entries), dtype=np.int64))
    return inverse


@dataclass(frozen=True)
class Rewrite:
    """Fields of a key to rewrite: a row ``(word, shift, mask)`` per field in ``fields``
    (:meth:`~pandas_anon.engine.keys.KeyLayout.field_table`), and each field's shift table
    (what a key whose field holds code ``v`` gains: ``table[v]``, see
    :meth:`~pandas_anon.engine.keys.KeyLayout.shift_table`), joined in ``tables`` from
    ``offsets``. Built once for each change of levels a lattice rolls up through."""

    fields: np.ndarray
    tables: np.ndarray
    offsets: np.ndarray

    @classmethod
    def of(cls, fields: np.ndarray, tables: Sequence[np.ndarray]) -> Rewrite:
        """The rewrite of ``fields`` through their shift ``tables`` (in the same order)."""
        offsets = np.zeros(len(tables), dtype=np.int64)
        np.cumsum([len(t) for t in tables[:-1]], out=offsets[1:])
        joined = np.concatenate(tables) if len(tables) else np.zeros(0, dtype=np.int64)
        return cls(_int64(np.asarray(fields).reshape(-1, 3)), _int64(joined), offsets)

    def table(self, c: int) -> np.ndarray:
        """The shift table of the ``c``-th field."""
        end = self.offsets[c + 1] if c + 1 < len(self.offsets) else len(self.tables)
        return self.tables[self.offsets[c] : end]


def rollup(words: Words, counts: np.ndarray, rewrite: Rewrite) -> tuple[Words, np.ndarray]:
    """The distinct keys of ``words`` once the fields of ``rewrite`` are rewritten, in the
    order of their first occurrence, with the sum of ``counts`` over each: what
    :meth:`~pandas_anon.engine.keys.KeyLayout.recode` of each field then :func:`group`
    return, in one pass."""
    if kernels is None:  # pragma: no cover - see COMPILED
        return rollup_reference(words, counts, rewrite)
    stacked, counts = _stacked(words), _int64(counts)
    n = len(counts)
    out, sums = np.empty_like(stacked), np.empty(n, dtype=np.int64)
    groups = kernels.rollup(
        stacked,
        len(words),
        n,
        rewrite.fields,
        len(rewrite.offsets),
        rewrite.tables,
        rewrite.offsets,
        counts,
        out,
        sums,
    )
    # copies, not views of the buffers: a table kept in a cache holds its own rows only
    return tuple(row[:groups].copy() for row in out), sums[:groups].copy()


def factorize_text(text: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Factorize an Arrow array of text (``string`` or ``large_string``): each value's code,
    its number in the order of first occurrence (-1: missing), and the position of each
    number's first occurrence; what ``pandas.factorize`` gives, three to four times faster
    (texts hashed from Arrow's buffers, never made Python strings). Numpy arrays of codes
    and positions; ``text.take(first)`` are the distinct values.

    Examples
    --------
    >>> import pyarrow as pa
    >>> codes, first = factorize_text(pa.array(["b", None, "a", "b"]))
    >>> codes.tolist(), first.tolist()
    ([0, -1, 1, 0], [0, 2])
    """
    array = one_array(text)
    n = len(array)
    if kernels is None:  # pragma: no cover - see COMPILED
        codes, _ = pd.factorize(array.to_numpy(zero_copy_only=False), use_na_sentinel=True)
        codes = np.asarray(codes, dtype=np.int64)
        present = np.flatnonzero(codes >= 0)
        first = np.full(int(codes.max(initial=-1)) + 1, n, dtype=np.int64)
        np.minimum.at(first, codes[present], present)
        return codes, first
    validity, offsets, data = text_buffers(array)
    codes, first = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    uniques = kernels.factorize_strings(offsets, data, validity, array.offset, n, codes, first)
    return codes, first[:uniques]


def one_array(text: pa.ChunkedArray | pa.Array) -> pa.Array:
    """The Arrow array of ``text``: its one chunk as it is (``combine_chunks`` copies it),
    or its chunks joined."""
    if not isinstance(text, pa.ChunkedArray):
        return text
    joined: Any = text.chunk(0) if text.num_chunks == 1 else text.combine_chunks()
    return joined  # pyarrow-stubs: combine_chunks gives an Array


def take_text(
    text: pa.Array,
    codes: np.ndarray,
    rows: np.ndarray | None = None,
    *,
    counts: np.ndarray | None = None,
) -> pa.Array:
    """``text.take(codes)`` for an Arrow array of text with no missing value, a code of -1
    giving a missing value; with ``rows``, ``text.take(codes[rows])`` (the codes of a few
    entries, such as combinations, spread to many rows) without building ``codes[rows]``,
    and with ``counts`` (how many rows name each entry, as a frequency set counts them) the
    size of the new texts found from the entries rather than from a first pass over the
    rows. A ``large_string`` array whose texts are copied from Arrow's buffers into buffers of
    Arrow's allocator in one pass, faster than ``pyarrow.compute.take`` on a column of Adult
    (``benchmarks/bench_kanon.py``, case f).

    Examples
    --------
    >>> import numpy as np, pyarrow as pa
    >>> take_text(pa.array(["a", "bc"]), np.array([1, -1, 0, 1])).to_pylist()
    ['bc', None, 'a', 'bc']
    >>> take_text(pa.array(["a", "bc"]), np.array([1, 0]), rows=np.array([0, 0, 1])).to_pylist()
    ['bc', 'bc', 'a']
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    if rows is not None:
        rows = np.ascontiguousarray(rows, dtype=np.int64)
    if kernels is None:  # pragma: no cover - see COMPILED
        codes = codes if rows is None else codes[rows]
        missing = codes < 0
        taken = text.take(pa.array(codes, mask=missing))
        return taken.cast(pa.large_string())
    assert text.null_count == 0
    _, offsets, data = text_buffers(text)
    n = len(codes) if rows is None else len(rows)
    if counts is None:
        total = kernels.texts_size(offsets, data, text.offset, len(text), codes, rows)
    else:  # each entry's text, as many times as rows name it
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        total = kernels.texts_size(offsets, data, text.offset, len(text), codes, None, counts)
    # the new buffers come from Arrow's allocator, which keeps freed pages for the next
    # column: fresh pages from the system cost 2.3 µs each on the machines we measure on
    offsets_buffer = pa.allocate_buffer(8 * (n + 1))
    data_buffer = pa.allocate_buffer(total + 32)
    new_offsets = np.frombuffer(memoryview(offsets_buffer), dtype=np.int64)
    written = kernels.take_texts(
        offsets, data, text.offset, len(text), codes, rows, new_offsets, data_buffer
    )
    n_missing = 0 if len(codes) == 0 or codes.min() >= 0 else None
    validity = None
    if n_missing is None:
        missing = codes < 0 if rows is None else (codes < 0)[rows]
        n_missing = int(missing.sum())
        validity = pa.py_buffer(np.packbits(~missing, bitorder="little").data)
    return pa.Array.from_buffers(
        pa.large_string(),
        n,
        [validity, offsets_buffer, data_buffer.slice(0, written)],
        null_count=n_missing,
    )


def text_buffers(array: pa.Array) -> tuple[pa.Buffer | None, np.ndarray, pa.Buffer | bytes]:
    """What the kernels read of an Arrow text array: its validity bitmap (None: no missing value), its offsets as int64
    (up to its last text) and its bytes."""
    validity, offset_buffer, data = array.buffers()
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    assert offset_buffer is not None  # a text array always has offsets
    offsets = np.asarray(np.frombuffer(memoryview(offset_buffer), dtype=width), np.int64)
    return validity, offsets[: array.offset + len(array) + 1], data if data is not None else b""


def group_reference(words: Words, counts: np.ndarray) -> tuple[Words, np.ndarray, np.ndarray]:
    """:func:`group` computed by numpy (sorting), the same groups in the same order."""
    n = len(counts)
    if n == 0:
        return words, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort(words[::-1]) if len(words) > 1 else np.argsort(words[0], kind="stable")
    ordered = [w[order] for w in words]
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for w in ordered:
        new[1:] |= w[1:] != w[:-1]
    sorted_group = np.cumsum(new) - 1  # group of each sorted key, numbered in key order
    by_key = np.empty(n, dtype=np.int64)
    by_key[order] = sorted_group
    first_of = np.full(int(sorted_group[-1]) + 1, n, dtype=np.int64)
    np.minimum.at(first_of, by_key, np.arange(n))
    rank = np.empty(len(first_of), dtype=np.int64)  # key order -> first-occurrence order
    rank[np.argsort(first_of, kind="stable")] = np.arange(len(first_of))
    inverse = rank[by_key]
    first = np.sort(first_of)
    sums = np.zeros(len(first), dtype=np.int64)
    np.add.at(sums, inverse, counts)
    return tuple(w[first] for w in words), sums, inverse


def rollup_reference(
    words: Words, counts: np.ndarray, rewrite: Rewrite
) -> tuple[Words, np.ndarray]:
    """:func:`rollup` computed by numpy, the same groups in the same order."""
    rewritten = [w.copy() for w in words]
    for c, (word, shift, mask) in enumerate(rewrite.fields):
        rewritten[word] += rewrite.table(c)[(words[word] >> shift) & mask]
    keys, sums, _ = group_reference(tuple(rewritten), counts)
    return keys, sums


def _stacked(words: Words) -> np.ndarray:
    """The words as one C-contiguous int64 array, a row per word (no copy for one word)."""
    if len(words) == 1:
        return _int64(words[0]).reshape(1, -1)
    return np.stack([_int64(w) for w in words])


def _int64(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)
