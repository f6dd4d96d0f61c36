"""Independent steps over a large table run in threads: numpy's and Arrow's kernels release the
GIL, so on a table of millions of rows the columns (or column subsets) of one step are
encoded, counted or converted side by side, one thread per core."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

#: Tables with at least this many rows have their independent steps run in threads.
PARALLEL_MIN_ROWS = 500_000

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


def workers_for(tasks: int, rows: int) -> int:
    """Threads worth starting for ``tasks`` independent steps over ``rows`` rows: one per
    core, at most one per step, and a single one below :data:`PARALLEL_MIN_ROWS` rows."""
    if rows < PARALLEL_MIN_ROWS:
        return 1
    return max(1, min(tasks, os.cpu_count() or 1))


def thread_map(
    function: Callable[[_Item], _Result], items: Iterable[_Item], *, rows: int
) -> list[_Result]:
    """``[function(item) for item in items]``, in threads on a table of ``rows`` rows
    (:func:`workers_for`); results in the items' order, the first error raised."""
    items = list(items)
    workers = workers_for(len(items), rows)
    if workers < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, items))
