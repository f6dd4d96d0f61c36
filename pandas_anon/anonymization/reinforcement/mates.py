"""Singular paths and their mates: steps 2-6 of Lan et al.'s refinement algorithm.

Lan et al. ("A Privacy Reinforcement Approach against De-identified Dataset", section III)
call *singular* the records whose class breaks the privacy goal, and a *singular path* a path
of the decision tree leading to such records. Singular paths are *mated* by a utility
function, and in each mate the classifying attribute that differentiates its paths and gains
most utility is masked. The paper leaves open how mates are formed beyond "the benefits of
merging SP_i and SP_j"; this module forms them bottom-up along the tree, so that mates are
subtrees as the paper's are:

1. a singular path starts pending at its leaf (its records: the singular ones it holds); one
   whose records meet the goal together is a mate on its own;
2. at a node where both children hand up pending paths that could meet the goal together,
   mates are formed: each path of the smaller side, best first, takes the path of the other
   side of highest utility, then (while the two do not meet the goal as one class) the
   pending paths of highest utility with them; this goes on while the paths left could meet
   the goal together, and those left are handed up;
3. the paths still pending at the root join, each, the mate of highest utility (with which
   it still meets the goal) among those formed below its lowest ancestor that has any;
4. paths no mate takes form one more mate, with the classes and mates of highest utility
   around them until it meets the goal (or are suppressed, when the caller allows it): a
   table that meets the goal as a whole always ends meeting it.

The **utility** of a mate reads a :class:`Mate`: its records, its paths and, per column, the
pairs of paths whose records differ there (what Lan et al.'s claim calls the attributes in
which two paths are distinct). The default, :func:`paper_utility`, is the paper's
(section IV): 1 / (records x distance sum of the singular paths), the distance of two paths
being the number of columns in which they differ. It is computed on arrays; a utility of
one's own is called once per candidate mate, which is slower.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pandas_anon.anonymization.reinforcement.forest import Forest
from pandas_anon.errors import InvalidParameterError

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix


@dataclass(frozen=True)
class Mate:
    """A candidate mate as a utility function reads it.

    ``rows``: the records of its singular paths; ``paths``: how many paths it merges;
    ``differing``: per column not masked yet, the pairs of paths whose records differ there
    (a path whose own records differ in a column counts as one pair in it).
    """

    rows: int
    paths: int
    differing: Mapping[Hashable, int]

    @property
    def distance(self) -> int:
        """The distance sum of its paths: over every pair, the columns they differ in."""
        return int(sum(self.differing.values()))

    def masking(self, column: Hashable) -> Mate:
        """The mate once ``column`` is masked on its records (no pair differs there)."""
        return Mate(self.rows, self.paths, {**self.differing, column: 0})


#: A utility function: higher is better.
Utility = Callable[[Mate], float]


def paper_utility(mate: Mate) -> float:
    """Score a candidate mate by Lan et al.'s utility: higher is better.

    Lan et al.'s utility (section IV of [1]_) is 1 / (records x distance sum of the
    singular paths), the distance of two paths being the number of columns in which their
    records differ; it is infinite for a mate whose paths no longer differ. It is the
    default utility of the decision-tree reinforcement (``algo="tree"``, ``reinforce``),
    which computes it on arrays; a utility of one's own takes a :class:`Mate` and returns a
    number alike, and is called once per candidate mate, which is slower.

    Parameters
    ----------
    mate : Mate
        The candidate mate: ``rows``, the records of its singular paths; ``paths``, how many
        paths it merges; ``differing``, per column not masked yet, the pairs of paths whose
        records differ there (their sum is ``mate.distance``).

    Returns
    -------
    float
        ``1 / (mate.rows * mate.distance)``, or ``inf`` when ``mate.distance`` is 0.

    Raises
    ------
    ZeroDivisionError
        When ``mate.rows`` is 0 while its paths still differ (a mate the mating forms
        always holds records). It raises none of pandas-anon's own errors.

    See Also
    --------
    Mate : What a utility function reads.
    Mate.masking : The mate once a column is masked on its records.
    pandas_anon.reinforce : The reinforcement that mates singular paths by a utility.

    References
    ----------
    .. [1] Lan, Huang, Chen, Chung, Grandison and Tseng, "A Privacy Reinforcement Approach
       against De-identified Dataset", IBM, section IV (utility) and section III (mates).

    Examples
    --------
    >>> from pandas_anon import Mate, paper_utility
    >>> mate = Mate(rows=4, paths=2, differing={"age": 1, "zip": 1})
    >>> mate.distance
    2
    >>> paper_utility(mate)
    0.125
    >>> paper_utility(mate.masking("age"))
    0.25
    >>> paper_utility(mate.masking("age").masking("zip"))
    inf
    """
    distance = mate.distance
    return float("inf") if distance == 0 else 1.0 / (mate.rows * distance)


def scored(utility: Utility, mate: Mate) -> float:
    """``utility(mate)``, checked to be a real number the mates can be ranked by: an
    infinity is the best (or worst) there is, as :func:`paper_utility` gives a mate whose
    paths no longer differ; NaN, which no comparison ranks, is refused (ranked as it is, it
    made the reinforcement choose columns that changed nothing, round after round).

    Raises
    ------
    InvalidParameterError
        When the utility returns NaN, or anything that is not a real number (text, None, a
        complex number, a boolean).
    """
    found = utility(mate)
    real = isinstance(found, numbers.Real) and not isinstance(found, (bool, np.bool_))
    if real and not math.isnan(found):
        return float(found)
    returned = "NaN" if real else f"a value of type {type(found).__name__}"
    raise InvalidParameterError(
        f"utility must return a real number for every mate (higher is better), never NaN; "
        f"it returned {returned} for a mate of {mate.rows:,} rows and {mate.paths} paths: "
        f"return a number, such as 1 / (mate.rows * mate.distance) (pandas_anon.paper_utility)"
    )


#: Whether each group, given as a histogram (rows per sensitive code), breaks the goal.
Broken = Callable[[np.ndarray], np.ndarray]

#: Above this many cells, unit histograms are kept sparse.
_DENSE_CELLS = 1 << 24


class Histograms:
    """Each unit's rows per sensitive code: a dense array, or a sparse one for wide
    sensitive columns (t-closeness on a column of thousands of values)."""

    def __init__(
        self, unit: np.ndarray, code: np.ndarray, rows: np.ndarray, shape: tuple[int, int]
    ) -> None:
        if shape[0] * shape[1] <= _DENSE_CELLS:
            flat = np.bincount(unit * shape[1] + code, weights=rows, minlength=shape[0] * shape[1])
            self.matrix: np.ndarray | csr_matrix = flat.reshape(shape)
        else:
            from scipy.sparse import csr_matrix  # here: importing scipy costs about 0.2 s

            self.matrix = csr_matrix((rows, (unit, code)), shape=shape)

    def of(self, units: np.ndarray) -> np.ndarray:
        """The histograms of ``units``, one row each."""
        found = self.matrix[units]
        return found if isinstance(found, np.ndarray) else found.toarray()

    def total(self, units: Sequence[int] | np.ndarray) -> np.ndarray:
        """The histogram of ``units`` together."""
        found = self.matrix[np.asarray(units, dtype=np.int64)].sum(axis=0)
        return np.asarray(found).reshape(-1)


@dataclass
class Units:
    """What the mating reads of the units (a singular path's singular records, or a leaf's
    classes that meet the goal): ``signature`` (units, columns): each column's value when
    every record of the unit holds it, else a negative number of the unit's own (it differs
    from everything); ``rows``; ``leaf``: its leaf; ``singular``: whether it is a path's
    singular records; ``histograms``: their rows per sensitive code."""

    signature: np.ndarray
    rows: np.ndarray
    leaf: np.ndarray
    singular: np.ndarray
    histograms: Histograms


@dataclass
class Group:
    """A mate being formed: its units, records, per column its differing pairs of paths,
    its histogram, and the node it was formed at."""

    units: list[int]
    rows: int
    differing: np.ndarray
    histogram: np.ndarray
    node: int


class Mating:
    """Forms the mates of every tree of a forest (see the module).

    ``broken``: the judge of histograms; ``merge_safe``: a group holding a group that meets
    the goal meets it; ``usable``: per tree, the columns not masked; ``columns``: the column
    names (what a utility of one's own reads); ``budget``: rows the paths no mate takes may
    be suppressed within (their units then listed in :attr:`suppressed`).
    """

    def __init__(
        self,
        forest: Forest,
        units: Units,
        broken: Broken,
        *,
        merge_safe: bool,
        usable: np.ndarray,
        columns: Sequence[Hashable],
        utility: Utility | None,
        budget: int = 0,
    ) -> None:
        self.forest, self.units, self.broken = forest, units, broken
        self.merge_safe, self.usable, self.columns = merge_safe, usable, tuple(columns)
        self.utility, self.budget = utility, budget
        self.mates: list[Group] = []
        #: per node, the mates formed in its subtree
        self.below: dict[int, list[int]] = {}
        #: the rows of units meeting the goal that joined a mate at a root
        self.joined_rows = 0
        #: the units suppressed at a root (their rows fitting ``budget``)
        self.suppressed: list[int] = []

    def run(self) -> list[Group]:
        """Every mate of every tree (a mate merged into another has no units left)."""
        forest, units = self.forest, self.units
        singular = np.flatnonzero(units.singular)
        alone = ~self.broken(units.histograms.of(singular))
        pending: dict[int, list[int]] = {}
        for unit, fits in zip(singular.tolist(), alone.tolist()):
            leaf = int(units.leaf[unit])
            if fits:
                self.below.setdefault(leaf, []).append(self._new([unit], leaf))
            else:
                pending.setdefault(leaf, []).append(unit)
        leftovers: list[int] = []
        left_of, right_of = forest.left.tolist(), forest.right.tolist()
        by_depth = np.argsort(-forest.depth, kind="stable")
        depths = forest.depth[by_depth]
        starts = np.flatnonzero(np.r_[True, depths[1:] != depths[:-1]])
        for level in np.split(by_depth, starts[1:]):  # the deepest nodes first
            meeting: list[tuple[int, list[int], list[int]]] = []
            for node in level.tolist():
                left = left_of[node]
                if left < 0:
                    continue
                right = right_of[node]
                mates = self.below.get(left, []) + self.below.get(right, [])
                if mates:
                    self.below[node] = mates
                waiting_left = pending.pop(left, None)
                waiting_right = pending.pop(right, None)
                if waiting_left and waiting_right:
                    meeting.append((node, waiting_left, waiting_right))
                elif waiting_left or waiting_right:
                    pending[node] = waiting_left or waiting_right or []
            if meeting:
                self._meet(meeting, pending)
        for root in np.flatnonzero(forest.parent < 0).tolist():
            leftovers += pending.pop(root, [])
        unplaced = self._attach(np.array(leftovers, dtype=np.int64))
        roots = forest.tree[units.leaf[unplaced]] if len(unplaced) else unplaced
        for tree in np.unique(roots).tolist():
            self._residue(unplaced[roots == tree].tolist(), int(tree))
        return self.mates

    def _meet(
        self, meeting: list[tuple[int, list[int], list[int]]], pending: dict[int, list[int]]
    ) -> None:
        """Nodes of one depth where paths from both sides meet: the pairs of single paths
        judged at once; elsewhere, mates formed when the paths together meet the goal."""
        histograms = self.units.histograms
        together = np.stack([histograms.total(left + right) for _, left, right in meeting])
        meets = ~self.broken(together)
        for (node, left, right), fits in zip(meeting, meets.tolist()):
            if not fits:
                pending[node] = left + right
                continue
            waiting: list[int] = []
            if len(left) == 1 and len(right) == 1:  # a pair that meets the goal: a mate
                new = [self._new(left + right, node)]
            else:
                new, waiting = self._form(left, right, node)
            if new:
                self.below[node] = self.below.get(node, []) + new
            if waiting:
                pending[node] = waiting

    # utilities -----------------------------------------------------------------------------

    def _utilities(
        self, rows: np.ndarray, differing: np.ndarray, paths: np.ndarray, tree: int
    ) -> np.ndarray:
        """The utility of candidate mates: their ``rows``, ``differing`` pairs per column
        and ``paths``."""
        usable = self.usable[tree]
        if self.utility is None:  # the paper's, on arrays
            distance = differing[:, usable].sum(axis=1)
            with np.errstate(divide="ignore"):
                return np.where(distance == 0, np.inf, 1.0 / (rows * np.maximum(distance, 1)))
        names = [c for c, u in zip(self.columns, usable) if u]
        return np.array(
            [
                scored(self.utility, Mate(int(r), int(p), dict(zip(names, map(int, d[usable])))))
                for r, d, p in zip(rows, differing, paths)
            ]
        )

    def view(self, group: Group) -> Mate:
        """The mate ``group`` as a utility function reads it."""
        usable = self.usable[int(self.forest.tree[group.node])]
        names = [c for c, u in zip(self.columns, usable) if u]
        return Mate(
            group.rows, len(group.units), dict(zip(names, map(int, group.differing[usable])))
        )

    def _joined(self, group: Group, candidates: np.ndarray) -> np.ndarray:
        """The utility of ``group`` with each candidate unit added."""
        signature = self.units.signature
        same = (signature[candidates][:, None, :] == signature[group.units][None, :, :]).sum(1)
        differing = group.differing[None, :] + (len(group.units) - same)
        rows = group.rows + self.units.rows[candidates]
        paths = np.full(len(candidates), len(group.units) + 1)
        return self._utilities(rows, differing, paths, int(self.forest.tree[group.node]))

    # groups --------------------------------------------------------------------------------

    def _single(self, unit: int, node: int) -> Group:
        own = (self.units.signature[unit] < 0).astype(np.int64)  # its records differ there
        histogram = self.units.histograms.of(np.array([unit]))[0]
        return Group([unit], int(self.units.rows[unit]), own, histogram, node)

    def _add(self, group: Group, units: Sequence[int]) -> None:
        signature = self.units.signature
        for unit in units:
            same = (signature[group.units] == signature[unit]).sum(axis=0)
            group.differing = group.differing + (len(group.units) - same)
            group.differing += signature[unit] < 0
            group.units.append(unit)
            group.rows += int(self.units.rows[unit])
        group.histogram = group.histogram + self.units.histograms.total(units)

    def _new(self, units: Sequence[int], node: int) -> int:
        group = self._single(units[0], node)
        self._add(group, units[1:])
        self.mates.append(group)
        return len(self.mates) - 1

    def _meets(self, histogram: np.ndarray) -> bool:
        return not bool(self.broken(histogram[None, :])[0])

    def _first_meeting(self, base: np.ndarray, blocks: list[np.ndarray]) -> int:
        """The fewest ``blocks`` (unit arrays, in order) that, added to a group of
        histogram ``base``, make it meet the goal; -1 when even all of them do not."""
        histograms = self.units.histograms
        if len(blocks) * len(base) <= 1 << 22:  # every prefix at once
            if all(len(b) == 1 for b in blocks):
                sums = histograms.of(np.concatenate(blocks))
            else:
                sums = np.stack([histograms.total(b) for b in blocks])
            meets = ~self.broken(base[None, :] + np.cumsum(sums, axis=0))
            return int(np.argmax(meets)) + 1 if meets.any() else -1
        for count in range(1, len(blocks) + 1):  # wide histograms: one prefix at a time
            base = base + histograms.total(blocks[count - 1])
            if self._meets(base):
                return count
        return -1

    # 2. forming mates at a node ------------------------------------------------------------

    def _form(self, left: list[int], right: list[int], node: int) -> tuple[list[int], list[int]]:
        """Mates of the paths pending at ``node`` from both sides (which meet the goal
        together); the paths left."""
        tree = int(self.forest.tree[node])
        seeds, others = (left, right) if len(left) <= len(right) else (right, left)
        utilities = self._pair_utilities(np.array(seeds), np.array(others), tree)
        free = dict.fromkeys(left + right, True)
        pairs: list[tuple[int, int]] = []
        for at in np.argsort(-utilities.max(axis=1), kind="stable").tolist():
            for partner in np.argsort(-utilities[at], kind="stable").tolist():
                if free[others[partner]]:
                    pairs.append((seeds[at], others[partner]))
                    free[seeds[at]] = free[others[partner]] = False
                    break
        histograms = self.units.histograms
        meets = ~self.broken(
            histograms.of(np.array([a for a, _ in pairs]))
            + histograms.of(np.array([b for _, b in pairs]))
        )
        new: list[int] = []
        growing = []
        for (a, b), fits in zip(pairs, meets.tolist()):
            if fits:
                new.append(self._new([a, b], node))
            else:
                growing.append((a, b))
                free[a] = free[b] = True
        for a, b in growing:  # pairs that do not meet the goal take the paths of most utility
            if not (free[a] and free[b]):
                continue
            group = self._single(a, node)
            self._add(group, [b])
            candidates = np.array([u for u, f in free.items() if f and u != a and u != b])
            if not len(candidates):
                break
            order = candidates[np.argsort(-self._joined(group, candidates), kind="stable")]
            count = self._first_meeting(group.histogram, list(order[:, None]))
            if count < 0:
                break
            self._add(group, order[:count].tolist())
            for unit in group.units:
                free[unit] = False
            self.mates.append(group)
            new.append(len(self.mates) - 1)
        return new, [u for u, f in free.items() if f]

    def _pair_utilities(self, a: np.ndarray, b: np.ndarray, tree: int) -> np.ndarray:
        """The utility of each pair of a unit of ``a`` and one of ``b`` (len(a), len(b))."""
        signature = self.units.signature
        differing = signature[a][:, None, :] != signature[b][None, :, :]
        differing = differing.astype(np.int64)
        differing += (signature[a] < 0)[:, None, :] & (signature[b] < 0)[None, :, :]
        rows = self.units.rows[a][:, None] + self.units.rows[b][None, :]
        shape = rows.shape
        found = self._utilities(
            rows.reshape(-1), differing.reshape(-1, signature.shape[1]), np.full(rows.size, 2), tree
        )
        return found.reshape(shape)

    # 3. the paths left at the roots --------------------------------------------------------

    def _attach(self, leftovers: np.ndarray) -> np.ndarray:
        """Each leftover joins the mate of highest utility, among those formed below its
        lowest ancestor that has any, that it meets the goal with (going up while none
        does); the leftovers no mate takes."""
        forest = self.forest
        has_mates = np.zeros(forest.n_nodes, dtype=bool)
        has_mates[[n for n, m in self.below.items() if m]] = True
        ancestor = forest.parent[self.units.leaf[leftovers]] if len(leftovers) else leftovers
        unplaced: list[int] = []
        while len(leftovers):
            climbing = (ancestor >= 0) & ~has_mates[np.maximum(ancestor, 0)]
            while climbing.any():
                ancestor[climbing] = forest.parent[ancestor[climbing]]
                climbing = (ancestor >= 0) & ~has_mates[np.maximum(ancestor, 0)]
            none = ancestor < 0
            unplaced += leftovers[none].tolist()
            leftovers, ancestor = leftovers[~none], ancestor[~none]
            refused: list[int] = []
            for node in np.unique(ancestor).tolist():
                refused += self._attach_at(leftovers[ancestor == node], self.below[node])
            keep = np.isin(leftovers, refused)
            leftovers, ancestor = leftovers[keep], forest.parent[ancestor[keep]]
        return np.array(sorted(unplaced), dtype=np.int64)

    def _attach_at(self, leftovers: np.ndarray, mates: list[int]) -> list[int]:
        """Leftovers joining ``mates`` (see :meth:`_attach`); those no mate takes."""
        groups = [self.mates[m] for m in mates]
        tree = int(self.forest.tree[groups[0].node])
        members = np.concatenate([np.array(g.units) for g in groups])
        sizes = np.array([len(g.units) for g in groups])
        starts = np.cumsum(sizes) - sizes
        member_signature = self.units.signature[members]
        group_differing = np.stack([g.differing for g in groups])
        group_rows = np.array([g.rows for g in groups])
        chunk = max(1, (1 << 22) // max(member_signature.size, 1))
        choices: list[np.ndarray] = []
        for at in range(0, len(leftovers), chunk):
            part = leftovers[at : at + chunk]
            same = np.add.reduceat(
                self.units.signature[part][:, None, :] == member_signature[None, :, :],
                starts,
                axis=1,
                dtype=np.int64,
            )
            differing = group_differing[None] + (sizes[None, :, None] - same)
            differing += (self.units.signature[part] < 0)[:, None, :]
            rows = group_rows[None, :] + self.units.rows[part][:, None]
            utilities = self._utilities(
                rows.reshape(-1),
                differing.reshape(-1, differing.shape[2]),
                np.tile(sizes + 1, len(part)),
                tree,
            ).reshape(len(part), len(groups))
            choices.append(np.argsort(-utilities, axis=1, kind="stable"))
        ranked = np.concatenate(choices) if choices else np.zeros((0, len(groups)), dtype=np.int64)
        refused: list[int] = []
        for unit, order in zip(leftovers.tolist(), ranked):
            if self.merge_safe:
                self._add(groups[int(order[0])], [unit])
                continue
            own = self.units.histograms.of(np.array([unit]))[0]
            meets = ~self.broken(np.stack([groups[i].histogram for i in order]) + own[None, :])
            if meets.any():
                self._add(groups[int(order[int(np.argmax(meets))])], [unit])
            else:
                refused.append(unit)
        return refused

    # 4. the paths no mate takes ------------------------------------------------------------

    def _units_of_tree(self, tree: int) -> list[int]:
        """The units of ``tree``."""
        if not hasattr(self, "_by_tree"):
            trees = self.forest.tree[self.units.leaf]
            order = np.argsort(trees, kind="stable")
            cuts = np.searchsorted(trees[order], np.arange(len(self.usable) + 1))
            self._by_tree = [order[cuts[t] : cuts[t + 1]].tolist() for t in range(len(self.usable))]
        return self._by_tree[tree]

    def _residue(self, waiting: list[int], tree: int) -> None:
        """Paths of ``tree`` no mate takes: suppressed when their rows fit the budget, else
        one mate, grown with the classes and mates of highest utility until it meets the
        goal (a mate joins whole)."""
        units = self.units
        rows = int(units.rows[waiting].sum())
        if rows <= self.budget:
            self.suppressed += waiting
            self.budget -= rows
            return
        root = int(np.flatnonzero((self.forest.tree == tree) & (self.forest.parent < 0))[0])
        group = self._single(waiting[0], root)
        self._add(group, waiting[1:])
        if not self._meets(group.histogram):
            owner = {u: m for m in self.below.get(root, []) for u in self.mates[m].units}
            mine = set(waiting)
            around = np.array(
                [
                    u
                    for u in self._units_of_tree(tree)
                    if u not in mine and (u in owner or not units.singular[u])
                ],
                dtype=np.int64,
            )
            order = around[np.argsort(-self._joined(group, around), kind="stable")].tolist()
            blocks: list[np.ndarray] = []
            taken: set[int] = set()
            for unit in order:
                if unit in taken:
                    continue
                joining = self.mates[owner[unit]].units if unit in owner else [unit]
                taken.update(joining)
                blocks.append(np.array(joining, dtype=np.int64))
            count = self._first_meeting(group.histogram, blocks)
            for block in blocks[: count if count > 0 else len(blocks)]:  # all: the tree meets it
                self._add(group, block.tolist())
                self.joined_rows += int(units.rows[block[~units.singular[block]]].sum())
                if int(block[0]) in owner:
                    self.mates[owner[int(block[0])]].units = []
        self.mates.append(group)
