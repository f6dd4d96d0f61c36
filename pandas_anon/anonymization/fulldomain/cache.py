"""The class tables a lattice keeps to roll coarser nodes up from.

Tables are kept least-recently-used first under a budget of array entries; next to them an
array of the cached nodes' levels answers, in one vectorised comparison, which cached node
below a given node has the fewest rows: the cheapest table to roll that node up from (a
node's classes are unions of the classes of any node below it).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from pandas_anon.engine.classes import Classes, Node

#: Array entries kept (8 bytes each): about 200 MB.
BUDGET = 25_000_000
_NO_ROWS = np.iinfo(np.int64).max


class ClassCache:
    """Class tables of nodes of a lattice with ``width`` quasi-identifiers."""

    def __init__(self, width: int, budget: int | None = None) -> None:
        self.budget = BUDGET if budget is None else budget
        self._tables: OrderedDict[Node, Classes] = OrderedDict()
        self._entries = 0
        self._slots: dict[Node, int] = {}
        self._levels = np.zeros((width, 0), dtype=np.int64)  # one row per column
        self._rows = np.zeros(0, dtype=np.int64)
        self._nodes: list[Node | None] = []
        self._free: list[int] = []

    def get(self, node: Node) -> Classes | None:
        table = self._tables.get(node)
        if table is not None:
            self._tables.move_to_end(node)
        return table

    def add(self, classes: Classes) -> None:
        """Keep ``classes``, evicting the least recently used tables over the budget."""
        if classes.node in self._tables:
            return
        self._tables[classes.node] = classes
        self._entries += classes.entries
        slot = self._free.pop() if self._free else self._grow()
        self._slots[classes.node] = slot
        self._levels[:, slot] = classes.node
        self._rows[slot] = len(classes.counts)
        self._nodes[slot] = classes.node
        while self._entries > self.budget and len(self._tables) > 1:
            node, evicted = self._tables.popitem(last=False)
            self._entries -= evicted.entries
            slot = self._slots.pop(node)
            self._rows[slot] = _NO_ROWS
            self._nodes[slot] = None
            self._free.append(slot)

    def coarsest_below(self, node: Node) -> Classes | None:
        """The cached table with the fewest rows among ``node``'s direct predecessors (one
        level lower on one column: the coarsest nodes below it), else among all cached
        nodes below it."""
        best: Classes | None = None
        for j, level in enumerate(node):
            if level:
                table = self._tables.get((*node[:j], level - 1, *node[j + 1 :]))
                if table is not None and (best is None or len(table.counts) < len(best.counts)):
                    best = table
        if best is not None:
            return best
        if not self._tables:
            return None
        below = self._levels[0] <= node[0]
        for column_levels, level in zip(self._levels[1:], node[1:]):
            below &= column_levels <= level
        rows = np.where(below, self._rows, _NO_ROWS)
        slot = int(np.argmin(rows))
        found = self._nodes[slot]
        return None if rows[slot] == _NO_ROWS or found is None else self._tables[found]

    def _grow(self) -> int:
        """A new slot, doubling the arrays when they are full."""
        used = len(self._nodes)
        if used == len(self._rows):
            size = max(64, 2 * used)
            levels = np.zeros((self._levels.shape[0], size), dtype=np.int64)
            levels[:, :used] = self._levels
            rows = np.full(size, _NO_ROWS, dtype=np.int64)
            rows[:used] = self._rows
            self._levels, self._rows = levels, rows
        self._nodes.append(None)
        return used
