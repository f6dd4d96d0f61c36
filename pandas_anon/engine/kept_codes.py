"""Each text column's codes, kept from one call to the next while its Arrow array lives.

Reading a column of text into codes (hashing every row's text) is the costliest step of a
call on a table of a few columns: most of a millisecond for Adult's four text columns. The
same frame is often read again and again: a search tried with several values of k, a
study, a comparison of algorithms, a notebook. pandas holds text in Arrow arrays, which are
immutable (pandas writes a new array when a value is assigned), so while an Arrow array
lives its codes stay right; pandas keeps an index's hash table on the index in the same
way. :func:`kept` answers with the codes :func:`keep` was given for the very array (an
identity, never a comparison of contents: another array holding the same texts is read
again), and an entry goes away with its array. The entries hold at most :data:`LIMIT`
bytes of codes in all, the least recently used given up first (0: none kept); :func:`forget`
drops them.

ARX starts its timed work from data already coded the same way: its ``DataHandle`` codes
every value against a dictionary when the data is loaded, before ``anonymize``.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

#: Bytes of codes kept in all (the codes of a column of n rows take 8 n bytes).
LIMIT = 64 << 20


@dataclass(frozen=True)
class KeptCodes:
    """One column's codes: each row's code (``0 .. cardinality - 1``, a missing value coded
    last) and the distinct values in code order (a missing one last)."""

    codes: np.ndarray
    values: pd.Index

    @property
    def cardinality(self) -> int:
        return len(self.values)


_entries: OrderedDict[int, tuple[weakref.ref, KeptCodes]] = OrderedDict()
_held = 0
_lock = threading.Lock()
#: Keys of arrays gone, dropped at the next call: a weak reference's callback may run at any
#: moment (a garbage collection), even while this thread holds the lock.
_gone: list[int] = []


def kept(text: pa.ChunkedArray) -> KeptCodes | None:
    """The codes kept for the Arrow array ``text`` (this very object), else None."""
    with _lock:
        _drop_gone()
        entry = _entries.get(id(text))
        if entry is None or entry[0]() is not text:
            return None
        _entries.move_to_end(id(text))
        return entry[1]


def keep(text: pa.ChunkedArray, codes: KeptCodes) -> None:
    """Keep ``codes`` for the Arrow array ``text`` while it lives (within :data:`LIMIT`)."""
    global _held
    size = codes.codes.nbytes
    if size > LIMIT:
        return
    codes.codes.flags.writeable = False
    key = id(text)
    with _lock:
        _drop_gone()
        _drop(key)
        while _entries and _held + size > LIMIT:
            _drop(next(iter(_entries)))
        _entries[key] = (weakref.ref(text, functools.partial(_array_gone, key)), codes)
        _held += size


def forget() -> None:
    """Drop every kept entry."""
    with _lock:
        while _entries:
            _drop(next(iter(_entries)))


def held() -> int:
    """Bytes of codes kept."""
    return _held


def _array_gone(key: int, _: weakref.ref) -> None:
    _gone.append(key)


def _drop_gone() -> None:
    """Drop the entries of arrays gone (not a new entry under a key reused since)."""
    while _gone:
        key = _gone.pop()
        entry = _entries.get(key)
        if entry is not None and entry[0]() is None:
            _drop(key)


def _drop(key: int) -> None:
    global _held
    entry = _entries.pop(key, None)
    if entry is not None:
        _held -= entry[1].codes.nbytes
