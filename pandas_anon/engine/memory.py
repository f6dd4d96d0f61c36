"""Memory for numpy's arrays, kept from one call to the next.

An anonymization allocates and frees arrays of a few hundred KiB to a few MiB (a column's
codes, a frequency set, keys) dozens of times per call, the same sizes call after call. The
system allocator hands such blocks back to the system as soon as they are freed, and the
next call pays a page fault for each 4 KiB it touches again: hundreds of faults in a search
of Adult's nine quasi-identifiers, 2.5 µs each (``benchmarks/bench_kanon.py``, case g).
Inside :func:`pooled`, numpy allocates arrays of 64 KiB to 64 MiB from a pool
(``kernels.c``) that keeps freed blocks, by size class, for the next arrays of their size,
up to :func:`limit` bytes in all (128 MiB unless set; beyond, the blocks of the sizes
least recently used go back to the system first, so the pool follows the work at hand);
smaller and larger arrays are the
system's, as everywhere else. The pool is numpy's own per-context allocation policy
(numpy's ``PyDataMem_SetHandler``): code outside :func:`pooled` (and other threads) is
never affected, and an array keeps the allocator that made it for its whole life, so it is
freed to the pool whenever it is freed. The public functions that compute (anonymizing,
writing rows) run pooled; :func:`release` gives the kept blocks back to the system.

Where the extension could not be compiled, :func:`pooled` does nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from pandas_anon.engine.hashing import kernels

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def pooled() -> Iterator[None]:
    """Within the block, numpy allocates arrays of 64 KiB to 64 MiB from the pool (in this
    thread's context only).

    Examples
    --------
    >>> import numpy as np
    >>> with pooled():
    ...     codes = np.zeros(100_000, dtype=np.int64)
    >>> int(codes.sum())
    0
    """
    if kernels is None:  # pragma: no cover - see COMPILED
        yield
        return
    previous = kernels.use_pool()
    try:
        yield
    finally:
        kernels.restore_handler(previous)


def with_pooled_memory(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run :func:`pooled` (the public functions that compute)."""

    @functools.wraps(function)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with pooled():
            return function(*args, **kwargs)

    return run


def held() -> int:
    """Bytes the pool keeps for the next arrays (0 without the extension)."""
    return 0 if kernels is None else int(kernels.pool_state()[0])


def limit(bytes_: int | None = None) -> int:
    """The most bytes the pool keeps; with ``bytes_``, set it first (the blocks beyond a
    lower limit are released). 0 keeps nothing: every block goes back to the system."""
    if kernels is None:  # pragma: no cover - see COMPILED
        return 0
    if bytes_ is not None:
        kernels.set_pool_limit(int(bytes_))
    return int(kernels.pool_state()[1])


def release() -> int:
    """Give the blocks the pool keeps back to the system; how many bytes that was."""
    return 0 if kernels is None else int(kernels.release_pool())
