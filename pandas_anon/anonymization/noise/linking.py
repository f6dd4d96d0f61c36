"""How much a noisy release still gives away: nearest-neighbour linking and the counts of
α-confident k-anonymity.

Holohan et al. (2017), "(k, ε)-Anonymity", sections V-B and V-C. An attacker holds the
original quasi-identifiers of everyone and knows each record's class (its k-quasis are
published). In each class C:

- **linking**: a noisy record is linked to the original of C whose ε-quasis lie closest to
  its noisy ones (L1 distance); the link succeeds when that original is the record itself.
  Originals at the same distance are a tie: the attacker picks one, a success counting
  1 / (number tied). The linking risk is the successes over the records.
- **α-confidence**: with Laplace noise of scale b, the original lies within
  r = b ln(1 / (1 - α)) of the noisy value with probability α. A record whose interval holds
  the originals of between 1 and k - 1 records of C (itself included) is re-identified with
  confidence α among fewer than k: it is suppressed. With several ε-quasis the interval is a
  box, r on each.

Distances are those of the definitions computed in floating point, ``|x̃ - x|`` summed over
the ε-quasis, and two originals tie when those numbers are equal. One ε-quasi is answered by
sorting each class's originals once and searching them, so the cost grows as n log n whatever
the class sizes. With several ε-quasis, classes of up to 64 records compare every pair
(vectorized by class size); larger classes are searched in one k-d tree (SciPy's ``KDTree``)
over their originals, the class given as one more coordinate spaced wider than any distance
inside a class, so that a search never leaves its class: n log n again, where comparing
every pair would grow with the squared class sizes (10 s for Adult's 30,162 rows in a
handful of classes). Searches propose; every count is settled by comparing values with NumPy
exactly as the definitions read. A record too close to call, with an original within
rounding of its boundary (distances of 10**18 cannot tell 0 from 1) or more tied originals
than candidates, is asked of the tree again, with its answers compared one by one.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

#: Classes of at most this many records compare every pair (several ε-quasis): cheaper
#: than a tree search, exact by construction.
_PAIRWISE_UP_TO = 64

#: Upper bound of the pairwise differences held in memory at once (entries).
_PAIRS_AT_ONCE = 1 << 22

#: Nearest originals first asked of the tree per record (more are asked when all tie).
_CANDIDATES = 2

#: Relative width of the band around a distance or radius inside which the tree's answer is
#: checked exactly (its arithmetic may round differently from NumPy's).
_BAND = 1e-9


def linked(group: np.ndarray, original: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """Per record, the chance the nearest-neighbour attack links it to itself: 1 / (number
    of originals of its ``group`` nearest to its ``noisy`` values) when its own original is
    among them, else 0. ``original``, ``noisy``: one row per record, one column per
    ε-quasi, no missing value."""
    if not len(group):
        return np.zeros(0)
    if original.shape[1] == 1:
        found, unsure = _linked_sorted(group, original[:, 0], noisy[:, 0])
    else:
        found, unsure = np.zeros(len(group)), _in_large_classes(group)
        small = np.setdiff1d(np.arange(len(group)), unsure, assume_unique=True)
        found[small] = _linked_pairwise(group[small], original[small], noisy[small])
    if len(unsure):
        members, at = _classes_of(group, unsure)
        found[unsure] = _linked_tree(group[members], original[members], noisy[members], at)
    return found


def within(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray, radius: np.ndarray
) -> np.ndarray:
    """Per record, how many originals of its ``group`` lie within ``radius`` (per record) of
    its ``noisy`` values on every ε-quasi (itself included when the noise stayed within)."""
    if not len(group):
        return np.zeros(0, dtype=np.int64)
    if original.shape[1] == 1:
        found, unsure = _within_sorted(group, original[:, 0], noisy[:, 0], radius)
    else:
        found, unsure = np.zeros(len(group), dtype=np.int64), _in_large_classes(group)
        small = np.setdiff1d(np.arange(len(group)), unsure, assume_unique=True)
        found[small] = _within_pairwise(group[small], original[small], noisy[small], radius[small])
    if len(unsure):
        members, at = _classes_of(group, unsure)
        part = group[members], original[members], noisy[members], radius[members]
        found[unsure] = _within_tree(*part, at)
    return found


def _in_large_classes(group: np.ndarray) -> np.ndarray:
    """The records of classes above :data:`_PAIRWISE_UP_TO` records (positions)."""
    return np.flatnonzero(np.bincount(group)[group] > _PAIRWISE_UP_TO)


def _classes_of(group: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The records of the classes of ``rows`` (positions, increasing), and where ``rows``
    are among them: what the tree needs to settle those rows alone."""
    members = np.flatnonzero(np.isin(group, np.unique(group[rows])))
    return members, np.searchsorted(members, rows)


def _band(original: np.ndarray, noisy: np.ndarray, radius: float = 0.0) -> float:
    """The width around a distance or radius inside which rounding may decide: far wider
    than the rounding of any difference of these magnitudes, far narrower than the noise."""
    magnitude = float(np.abs(original).max()) + float(np.abs(noisy).max())
    dimensions = original.shape[1] if original.ndim > 1 else 1
    return _BAND * (magnitude * dimensions + radius)


def _sorted_keys(group: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values (sorted), each record's key ``group * distinct + rank`` and the
    keys sorted."""
    distinct = np.unique(values)
    key = group * len(distinct) + np.searchsorted(distinct, values)
    return distinct, np.sort(key)


def _in_window(
    keys: np.ndarray, distinct: np.ndarray, group: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
    """How many originals of each record's group lie in ``[low, high]``."""
    base = group * len(distinct)
    return np.searchsorted(keys, base + np.searchsorted(distinct, high, side="right")) - (
        np.searchsorted(keys, base + np.searchsorted(distinct, low, side="left"))
    )


def _linked_sorted(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`linked` for one ε-quasi: the nearest original values in the group, one below
    and one above the noisy value in the group's sorted values; the originals holding the
    nearer (both when equally near) are the tie. Also the records to settle by the tree:
    those with another original within the rounding band of the nearest distance."""
    distinct, keys = _sorted_keys(group, original)
    size = len(distinct)
    at = np.searchsorted(keys, group * size + np.searchsorted(distinct, noisy))
    below, above = np.maximum(at - 1, 0), np.minimum(at, len(keys) - 1)
    gap_below = np.where(
        (at > 0) & (keys[below] // size == group), noisy - distinct[keys[below] % size], np.inf
    )
    gap_above = np.where(
        (at < len(keys)) & (keys[above] // size == group),
        distinct[keys[above] % size] - noisy,
        np.inf,
    )
    nearest = np.minimum(gap_below, gap_above)
    tied = np.where(gap_below == nearest, _holders(keys, keys[below]), 0) + np.where(
        gap_above == nearest, _holders(keys, keys[above]), 0
    )
    band = _band(original, noisy)
    near = _in_window(keys, distinct, group, noisy - nearest - band, noisy + nearest + band)
    found = np.where(np.abs(noisy - original) == nearest, 1.0 / tied, 0.0)
    return found, np.flatnonzero(near != tied)


def _holders(keys: np.ndarray, key: np.ndarray) -> np.ndarray:
    """How many of the sorted ``keys`` equal each ``key``."""
    return np.searchsorted(keys, key, side="right") - np.searchsorted(keys, key)


def _within_sorted(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray, radius: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`within` for one ε-quasi: the originals in the interval shrunk and grown by the
    rounding band, two searches each in the group's sorted values; where the two counts
    differ the record is left to the tree."""
    distinct, keys = _sorted_keys(group, original)
    band = _band(original, noisy, float(radius.max()))
    shrunk, grown = _shrunk_and_grown(radius, band)
    inner = _in_window(keys, distinct, group, noisy - shrunk, noisy + shrunk)
    outer = _in_window(keys, distinct, group, noisy - grown, noisy + grown)
    return outer, np.flatnonzero(inner != outer)


def _shrunk_and_grown(radius: np.ndarray, band: float) -> tuple[np.ndarray, np.ndarray]:
    """The radii within which an original is surely inside, and beyond which surely not (a
    radius of 0 is exact: only an equal value is at distance 0)."""
    return np.maximum(radius - band, 0.0), np.where(radius > 0, radius + band, 0.0)


class _ClassSpace:
    """The originals in a k-d tree, each class moved along one extra coordinate by more than
    any distance (or radius) inside a class, so that searches stay within the class."""

    def __init__(
        self, group: np.ndarray, points: np.ndarray, noisy: np.ndarray, radius: float = 0.0
    ) -> None:
        from scipy.spatial import KDTree  # a dependency, imported on first use

        #: the width around a distance inside which the tree's rounding may decide
        self.band = _band(points, noisy, radius)
        #: wider than any L1 distance between a noisy record and an original, or radius
        self.spacing = 2.0 * self.band / _BAND + 1.0
        self.tree = KDTree(np.column_stack([points, group * self.spacing]))

    def queries(self, group: np.ndarray, noisy: np.ndarray) -> np.ndarray:
        return np.column_stack([noisy, group * self.spacing])


def _linked_tree(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """:func:`linked` for the records at ``rows``: the nearest distinct originals of the
    class (L1) from the tree, their distances recomputed exactly, ties weighted by how many
    records hold each original; asked again with more candidates while all of them tie."""
    distinct, own, holders = np.unique(
        np.column_stack([group, original]), axis=0, return_inverse=True, return_counts=True
    )
    own = own.reshape(-1)
    where, points = distinct[:, 0], distinct[:, 1:]
    space = _ClassSpace(where, points, noisy)
    queries = space.queries(group, noisy)
    own_distance = np.abs(noisy - original).sum(axis=1)
    found = np.zeros(len(group))
    pending = rows
    candidates = _CANDIDATES
    while len(pending):
        asked = min(candidates, len(points))
        reach, index = space.tree.query(queries[pending], k=[*range(1, asked + 1)], p=1, workers=-1)
        distance = np.abs(noisy[pending, None, :] - points[index]).sum(axis=2)
        distance[where[index] != group[pending, None]] = np.inf
        mine = own[pending]
        nearest = np.minimum(distance.min(axis=1), own_distance[pending])
        tied = (holders[index] * ((distance == nearest[:, None]) & (index != mine[:, None]))).sum(
            axis=1
        ) + holders[mine] * (own_distance[pending] == nearest)
        found[pending] = np.where(own_distance[pending] == nearest, 1.0 / tied, 0.0)
        settled = (asked == len(points)) | (reach[:, -1] > nearest + space.band)
        pending = pending[~settled]
        candidates *= 4
    return found[rows]


def _within_tree(
    group: np.ndarray,
    original: np.ndarray,
    noisy: np.ndarray,
    radius: np.ndarray,
    rows: np.ndarray,
) -> np.ndarray:
    """:func:`within` for the records at ``rows``: the tree counts the originals in each
    record's box (L∞ ball) shrunk and grown by the rounding band; where the two counts
    differ, the originals of the grown box are compared exactly."""
    space = _ClassSpace(group, original, noisy, float(radius.max(initial=0.0)))
    queries = space.queries(group[rows], noisy[rows])
    shrunk, grown = _shrunk_and_grown(radius[rows], space.band)
    inner = space.tree.query_ball_point(queries, shrunk, p=np.inf, return_length=True, workers=-1)
    found = space.tree.query_ball_point(queries, grown, p=np.inf, return_length=True, workers=-1)
    found = np.asarray(found, dtype=np.int64)
    unsure = np.flatnonzero(inner != found)
    if len(unsure):
        near = space.tree.query_ball_point(queries[unsure], grown[unsure], p=np.inf)
        counts = np.fromiter((len(n) for n in near), dtype=np.int64, count=len(unsure))
        record = np.repeat(rows[unsure], counts)
        other = np.concatenate([np.asarray(n, dtype=np.int64) for n in near])
        inside = np.abs(noisy[record] - original[other]).max(axis=1) <= radius[record]
        owner = np.repeat(np.arange(len(unsure)), counts)[inside]
        found[unsure] = np.bincount(owner, minlength=len(unsure))
    return found


def _linked_pairwise(group: np.ndarray, original: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """:func:`linked` in small classes: every pair of a class compared, classes of one
    size at a time."""
    found = np.zeros(len(group))
    for members, block in _blocks(group):
        distance = np.abs(noisy[block][:, :, None, :] - original[block][:, None, :, :]).sum(axis=3)
        nearest = distance.min(axis=2, keepdims=True)
        tied = (distance == nearest).sum(axis=2)
        own = np.diagonal(distance, axis1=1, axis2=2) == nearest[..., 0]
        found[members] = np.where(own, 1.0 / tied, 0.0).ravel()
    return found


def _within_pairwise(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray, radius: np.ndarray
) -> np.ndarray:
    """:func:`within` in small classes: every pair of a class compared."""
    found = np.zeros(len(group), dtype=np.int64)
    for members, block in _blocks(group):
        gap = np.abs(noisy[block][:, :, None, :] - original[block][:, None, :, :])
        inside = (gap <= radius[block][:, :, None, None]).all(axis=3)
        found[members] = inside.sum(axis=2).ravel()
    return found


def _blocks(group: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The records of the classes of each size, as (their positions in class-major order,
    a (classes, size) array of positions), in blocks of bounded pairwise memory."""
    order = np.argsort(group, kind="stable")
    sizes = np.bincount(group)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    present = np.flatnonzero(sizes)
    for size in np.unique(sizes[present]):
        chosen = present[sizes[present] == size]
        per_block = max(1, _PAIRS_AT_ONCE // int(size) ** 2)
        for first in range(0, len(chosen), per_block):
            block = order[starts[chosen[first : first + per_block], None] + np.arange(size)]
            yield block.ravel(), block
