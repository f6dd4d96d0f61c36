"""Decision trees grown on the frequency set, many at once: the classifying step of Lan et
al.'s privacy reinforcement.

A tree is CART with the Gini criterion (Breiman et al. 1984), as scikit-learn's
``DecisionTreeClassifier`` grows it: at every node the split ``column <= threshold`` that
maximizes the weighted Gini decrease, over every column and every boundary between two
distinct values (the first best one when several tie: columns in order, then thresholds in
increasing order). Its samples are the combinations of a frequency set, weighted by their
rows; its columns the *ranks* of the quasi-identifiers' values (an order in which numbers
sort by value and every subtree of a hierarchy is contiguous,
:func:`pandas_anon.anonymization.mondrian.dimensions.dimension`), so a threshold is a
boundary between two ranks.

Two things differ from a plain classifier, because the tree is a clustering here (Lan et al.
mate the paths whose records break the privacy goal):

- a node pure in the label is split on: its column holding the most distinct ranks, at the
  weighted median (the boundary that halves its rows most evenly), so that the tree goes on
  grouping similar records; a node is a leaf when its records are alike on every column it
  may split (one class), or at ``max_depth``;
- every tree of a *forest* is grown in the same pass, level by level, with vectorized numpy
  on all the nodes of a level, so that thousands of small trees (one per sub-dataset a round
  of reinforcement leaves) cost a few array operations each level, not a fit each (a
  scikit-learn fit costs 1.5-2.5 ms even on four samples).

Labels with more than :data:`MAX_LABELS` values are grouped first (numbers into ranges of
equal rows, other values: the most frequent ones, the rest together), which bounds the
memory of the class counts; the privacy models always read the exact values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The most label values a tree distinguishes (see the module).
MAX_LABELS = 32


@dataclass(frozen=True)
class Forest:
    """Trees grown on samples (see :func:`grow`), as flat arrays over their nodes.

    ``column``: each node's split column (-1: a leaf); ``threshold``: the largest rank its
    left child holds (ranks above go right); ``left``/``right``: its children (-1 for a
    leaf); ``parent`` (-1 for a root), ``depth`` and ``tree`` (which tree it belongs to) of
    each node; ``leaf``: each sample's leaf. Nodes are numbered level by level, so a child's
    id is larger than its parent's. ``supervised``: whether the split was chosen by the Gini
    criterion (False: the median split of a pure node).
    """

    column: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    tree: np.ndarray
    leaf: np.ndarray
    supervised: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.column)


def grow(
    ranks: np.ndarray,
    label: np.ndarray,
    weight: np.ndarray,
    tree: np.ndarray,
    usable: np.ndarray,
    *,
    max_depth: int | None = None,
) -> Forest:
    """Grow one tree per value of ``tree`` (``0..n_trees-1``, the tree of each sample).

    ``ranks``: (samples, columns) integer ranks; ``label``: each sample's label code;
    ``weight``: its rows (positive); ``usable``: (trees, columns), the columns each tree may
    split on; ``max_depth``: the deepest a leaf may be (None: grow until every leaf holds one
    class).

    As scikit-learn does, the samples are sorted once per column; a level partitions each
    node's sorted run into its children's, stably, in linear time.
    """
    n_trees = usable.shape[0]
    label = _grouped_labels(label, weight)
    m = int(label.max(initial=0)) + 1
    nodes = _Nodes(n_trees)
    leaf = tree.astype(np.int64, copy=True)  # each sample's node; roots are 0..n_trees-1
    runs = _Runs.start(ranks, tree, n_trees)
    depth = 0
    while runs.n and (max_depth is None or depth < max_depth):
        found = _best_splits(runs, ranks, label, weight, tree, usable, m)
        if found is None:
            break
        split, column, threshold, supervised = found
        parents = runs.node[split]
        left, right = nodes.add_children(parents, column, threshold, supervised, depth + 1)
        samples = runs.orders[0]
        owner = runs.owner()
        at = np.full(runs.n, -1, dtype=np.int64)
        at[split] = np.arange(len(split))
        which = at[owner]
        moving = which >= 0
        goes_left = np.zeros(len(ranks), dtype=bool)
        moved = samples[moving]
        goes_left[moved] = ranks[moved, column[which[moving]]] <= threshold[which[moving]]
        leaf[moved] = np.where(goes_left[moved], left[which[moving]], right[which[moving]])
        runs = runs.split(split, goes_left, left, right)
        depth += 1
    return nodes.forest(leaf)


@dataclass(frozen=True)
class _Runs:
    """The samples of the open nodes, one sorted run per node and column: ``orders[c]``
    holds every open sample, node after node (in ``node`` order, ``length`` each), sorted by
    rank in column c within a node."""

    orders: list[np.ndarray]
    node: np.ndarray
    length: np.ndarray

    @classmethod
    def start(cls, ranks: np.ndarray, tree: np.ndarray, n_trees: int) -> _Runs:
        orders = [np.lexsort((ranks[:, c], tree)) for c in range(ranks.shape[1])]
        length = np.bincount(tree, minlength=n_trees)
        present = length > 0
        return cls(orders, np.flatnonzero(present), length[present])

    @property
    def n(self) -> int:
        return len(self.node)

    def owner(self) -> np.ndarray:
        """Each position's run."""
        return np.repeat(np.arange(self.n), self.length)

    def split(
        self, split: np.ndarray, goes_left: np.ndarray, left: np.ndarray, right: np.ndarray
    ) -> _Runs:
        """The runs of the children of the runs ``split`` (a stable partition of each: left
        child first); the other runs close (their nodes are leaves)."""
        owner = self.owner()
        at = np.full(self.n, -1, dtype=np.int64)
        at[split] = np.arange(len(split))
        which = at[owner]
        kept = which >= 0
        count_left = np.bincount(
            which[kept], weights=goes_left[self.orders[0][kept]], minlength=len(split)
        ).astype(np.int64)
        length = np.column_stack([count_left, self.length[split] - count_left]).ravel()
        start = np.cumsum(length) - length
        orders = []
        for order in self.orders:
            samples = order[kept]
            child = 2 * which[kept] + (~goes_left[samples])
            # position within its child's run: stable, by counting the earlier ones
            rank_in = _rank_within(child, len(length))
            placed = np.empty(len(samples), dtype=np.int64)
            placed[start[child] + rank_in] = samples
            orders.append(placed)
        node = np.column_stack([left, right]).ravel()
        nonempty = length > 0
        if nonempty.all():
            return _Runs(orders, node, length)
        return _Runs(orders, node[nonempty], length[nonempty])


def _rank_within(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Each element's count of earlier elements of its group."""
    order = np.argsort(group, kind="stable")
    sizes = np.bincount(group, minlength=n_groups)
    starts = np.cumsum(sizes) - sizes
    rank = np.empty(len(group), dtype=np.int64)
    rank[order] = np.arange(len(group)) - starts[group[order]]
    return rank


def _best_splits(
    runs: _Runs,
    ranks: np.ndarray,
    label: np.ndarray,
    weight: np.ndarray,
    tree: np.ndarray,
    usable: np.ndarray,
    m: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The split of every open node that can split: its run, column, threshold rank and
    whether the Gini criterion chose it (see the module)."""
    k = runs.n
    owner = runs.owner()
    starts = np.cumsum(runs.length) - runs.length
    first = runs.orders[0]
    classes = np.bincount(owner * m + label[first], weights=weight[first], minlength=k * m).reshape(
        k, m
    )
    total = classes.sum(axis=1)
    pure = (classes > 0).sum(axis=1) <= 1
    tree_usable = usable[tree[first[starts]]]  # the columns each run's tree may split
    best_score = np.full(k, -np.inf)
    best_column = np.full(k, -1, dtype=np.int64)
    best_threshold = np.zeros(k, dtype=np.int64)
    distinct_best = np.zeros(k, dtype=np.int64)
    median_column = np.full(k, -1, dtype=np.int64)
    median_threshold = np.zeros(k, dtype=np.int64)
    for column, order in enumerate(runs.orders):
        rank = ranks[order, column]
        same_run = owner[1:] == owner[:-1]
        cut = np.flatnonzero(same_run & (rank[1:] != rank[:-1]) & tree_usable[owner[1:], column])
        if not len(cut):
            continue
        cut_owner = owner[cut]
        cumulative_weight = np.cumsum(weight[order])
        before = cumulative_weight[starts] - weight[order[starts]]
        left_weight = cumulative_weight[cut] - before[cut_owner]
        right_weight = total[cut_owner] - left_weight
        # Gini's proxy (as scikit-learn's): sum of squared class weights over each side's weight
        one_hot = np.zeros((len(order), m))
        one_hot[np.arange(len(order)), label[order]] = weight[order]
        cumulative = np.cumsum(one_hot, axis=0)
        base = cumulative[starts] - one_hot[starts]
        left_classes = cumulative[cut] - base[cut_owner]
        right_classes = classes[cut_owner] - left_classes
        score = (left_classes**2).sum(axis=1) / left_weight + (right_classes**2).sum(
            axis=1
        ) / right_weight
        best = _first_best(cut_owner, -score)
        better = score[best] > best_score[cut_owner[best]]
        chosen = best[better]
        best_score[cut_owner[chosen]] = score[chosen]
        best_column[cut_owner[chosen]] = column
        best_threshold[cut_owner[chosen]] = rank[cut[chosen]]
        # the median split of a pure node: the column with the most distinct ranks
        distinct = np.bincount(cut_owner, minlength=k) + 1
        closest = _first_best(cut_owner, np.abs(left_weight - right_weight))
        wins = distinct[cut_owner[closest]] > distinct_best[cut_owner[closest]]
        chosen = closest[wins]
        distinct_best[cut_owner[chosen]] = distinct[cut_owner[chosen]]
        median_column[cut_owner[chosen]] = column
        median_threshold[cut_owner[chosen]] = rank[cut[chosen]]
    chosen_column = np.where(pure, median_column, best_column)
    chosen_threshold = np.where(pure, median_threshold, best_threshold)
    split = np.flatnonzero(chosen_column >= 0)
    if not len(split):
        return None
    return split, chosen_column[split], chosen_threshold[split], ~pure[split]


def _first_best(owner: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Per owner (``owner`` sorted ascending, every element's), the first position of its
    smallest ``cost``."""
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    smallest = np.minimum.reduceat(cost, starts)
    runs = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(owner)]))
    at = np.flatnonzero(cost <= smallest[runs])
    return at[np.r_[True, runs[at][1:] != runs[at][:-1]]]


def _grouped_labels(label: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The labels as codes ``0..``, at most :data:`MAX_LABELS` of them: beyond, the most
    frequent values keep a code of their own and the rest share the last."""
    values, codes = np.unique(label, return_inverse=True)
    codes = codes.reshape(-1)
    if len(values) <= MAX_LABELS:
        return codes
    rows = np.bincount(codes, weights=weight)
    keep = np.argsort(-rows, kind="stable")[: MAX_LABELS - 1]
    remap = np.full(len(values), MAX_LABELS - 1, dtype=np.int64)
    remap[keep] = np.arange(MAX_LABELS - 1)
    return remap[codes]


class _Nodes:
    """The nodes grown so far, appended level by level."""

    def __init__(self, n_trees: int) -> None:
        self.column = [np.full(n_trees, -1, dtype=np.int64)]
        self.threshold = [np.zeros(n_trees, dtype=np.int64)]
        self.parent = [np.full(n_trees, -1, dtype=np.int64)]
        self.depth = [np.zeros(n_trees, dtype=np.int64)]
        self.tree = [np.arange(n_trees, dtype=np.int64)]
        self.supervised = [np.zeros(n_trees, dtype=bool)]
        self.size = n_trees
        self._splits: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._tree_of = self.tree[0]

    def add_children(
        self,
        parents: np.ndarray,
        column: np.ndarray,
        threshold: np.ndarray,
        supervised: np.ndarray,
        depth: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Split ``parents``: two children each, numbered after every node so far."""
        count = len(parents)
        left = self.size + np.arange(count)
        right = left + count
        self._splits.append((parents, column, threshold, supervised))
        tree_of = self._tree_of[parents]
        self.column.append(np.full(2 * count, -1, dtype=np.int64))
        self.threshold.append(np.zeros(2 * count, dtype=np.int64))
        self.parent.append(np.concatenate([parents, parents]))
        self.depth.append(np.full(2 * count, depth, dtype=np.int64))
        self.tree.append(np.concatenate([tree_of, tree_of]))
        self.supervised.append(np.zeros(2 * count, dtype=bool))
        self._tree_of = np.concatenate([self._tree_of, tree_of, tree_of])
        self.size += 2 * count
        return left, right

    def forest(self, leaf: np.ndarray) -> Forest:
        column = np.concatenate(self.column)
        threshold = np.concatenate(self.threshold)
        supervised = np.concatenate(self.supervised)
        parent = np.concatenate(self.parent)
        left = np.full(self.size, -1, dtype=np.int64)
        right = np.full(self.size, -1, dtype=np.int64)
        children = np.arange(self.size)
        has_parent = parent >= 0
        for parents, split_column, split_threshold, chosen in self._splits:
            column[parents] = split_column
            threshold[parents] = split_threshold
            supervised[parents] = chosen
        first_child = children[has_parent]
        # the left child of a parent is the smaller of its two ids
        order = np.lexsort((first_child, parent[has_parent]))
        pairs = first_child[order].reshape(-1, 2)
        left[parent[pairs[:, 0]]] = pairs[:, 0]
        right[parent[pairs[:, 1]]] = pairs[:, 1]
        return Forest(
            column,
            threshold,
            left,
            right,
            parent,
            np.concatenate(self.depth),
            np.concatenate(self.tree),
            leaf,
            supervised,
        )
