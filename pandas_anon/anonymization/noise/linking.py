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

One ε-quasi is answered by sorting each class's originals once and searching them, so the
cost grows as n log n whatever the class sizes. Several ε-quasis compare every pair of
records of a class (vectorized by class size): the cost grows with the sum of the squared
class sizes.
"""

from __future__ import annotations

import numpy as np

#: Upper bound of the pairwise distances held in memory at once (entries).
_PAIRS_AT_ONCE = 1 << 22


def linked(group: np.ndarray, original: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """Per record, the chance the nearest-neighbour attack links it to itself: 1 / (number
    of originals of its ``group`` nearest to its ``noisy`` values) when its own original is
    among them, else 0. ``original``, ``noisy``: one row per record, one column per
    ε-quasi, no missing value."""
    if original.shape[1] == 1:
        return _linked_one(group, original[:, 0], noisy[:, 0])
    found = np.zeros(len(group))
    for members, block in _blocks(group):
        distance = _distances(original[block], noisy[block])  # (classes, noisy, original)
        nearest = distance.min(axis=2, keepdims=True)
        tied = (distance == nearest).sum(axis=2)
        own = np.diagonal(distance, axis1=1, axis2=2) == nearest[..., 0]
        found[members] = np.where(own, 1.0 / tied, 0.0).ravel()
    return found


def within(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray, radius: np.ndarray
) -> np.ndarray:
    """Per record, how many originals of its ``group`` lie within ``radius`` (per record) of
    its ``noisy`` values on every ε-quasi (itself included when the noise stayed within)."""
    if original.shape[1] == 1:
        return _within_one(group, original[:, 0], noisy[:, 0], radius)
    found = np.zeros(len(group), dtype=np.int64)
    for members, block in _blocks(group):
        near = np.abs(noisy[block][:, :, None, :] - original[block][:, None, :, :])
        inside = (near <= radius[block][:, :, None, None]).all(axis=3)
        found[members] = inside.sum(axis=2).ravel()
    return found


def _sorted_keys(group: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values (sorted) and each record's key ``group * distinct + rank``."""
    distinct = np.unique(values)
    return distinct, group * len(distinct) + np.searchsorted(distinct, values)


def _linked_one(group: np.ndarray, original: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """:func:`linked` for one ε-quasi: the nearest original value in the group, searched in
    the group's sorted values; the originals holding it are the tie."""
    distinct, key = _sorted_keys(group, original)
    keys = np.sort(key)
    size = len(distinct)
    at = np.searchsorted(keys, group * size + np.searchsorted(distinct, noisy))
    below, above = at - 1, np.minimum(at, len(keys) - 1)
    below_ok = (below >= 0) & (keys[np.maximum(below, 0)] // size == group)
    above_ok = (at < len(keys)) & (keys[above] // size == group)
    below_value = distinct[keys[np.maximum(below, 0)] % size]
    above_value = distinct[keys[above] % size]
    take_below = below_ok & (~above_ok | (noisy - below_value <= above_value - noisy))
    nearest = np.where(take_below, keys[np.maximum(below, 0)], keys[above])
    tied = np.searchsorted(keys, nearest, side="right") - np.searchsorted(keys, nearest)
    return np.where(nearest == key, 1.0 / tied, 0.0)


def _within_one(
    group: np.ndarray, original: np.ndarray, noisy: np.ndarray, radius: np.ndarray
) -> np.ndarray:
    """:func:`within` for one ε-quasi: two searches in the group's sorted values."""
    distinct, key = _sorted_keys(group, original)
    keys = np.sort(key)
    base = group * len(distinct)
    low = base + np.searchsorted(distinct, noisy - radius, side="left")
    high = base + np.searchsorted(distinct, noisy + radius, side="right")
    return np.searchsorted(keys, high) - np.searchsorted(keys, low)


def _blocks(group: np.ndarray):
    """The records of the groups of each size, as (their positions in group-major order,
    a (groups, size) array of positions), in blocks of bounded pairwise memory."""
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


def _distances(original: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """L1 distances from each noisy record to each original of its group: ``original`` and
    ``noisy`` are (groups, size, ε-quasis); the result (groups, size, size)."""
    return np.abs(noisy[:, :, None, :] - original[:, None, :, :]).sum(axis=3)
