"""Independent verifier: counts singletons and classes with plain pandas groupby.

It shares no code with pandas_anon's engine (no codes, no keys, no bincount), so agreeing
with it is evidence, not a tautology.
"""

from __future__ import annotations

import itertools
import math

import pandas as pd


def naive_counts(frame: pd.DataFrame, qid: list, *, dropna: bool = True) -> dict:
    """Rows examined, dropped, singletons and distinct combinations of ``qid``."""
    part = frame[list(qid)]
    if dropna:
        part = part.dropna()
    sizes = part.groupby(list(qid), dropna=False, sort=False, observed=True).size()
    return {
        "examined": len(part),
        "dropped": len(frame) - len(part),
        "singletons": int((sizes == 1).sum()),
        "distinct": len(sizes),
    }


def naive_singleton_mask(frame: pd.DataFrame, qid: list, *, dropna: bool = True) -> pd.Series:
    """True on rows whose qid combination occurs once (False on dropped rows)."""
    part = frame[list(qid)]
    keep = part.notna().all(axis=1) if dropna else pd.Series(True, index=frame.index)
    sizes = part[keep].groupby(list(qid), dropna=False, sort=False, observed=True)[
        list(qid)[0]
    ].transform("size")
    mask = pd.Series(False, index=frame.index)
    mask[keep] = (sizes == 1).to_numpy()
    return mask


def naive_election(frame: pd.DataFrame, columns: list, max_size: int, *, dropna: bool = True):
    """The seed's election by brute force: a groupby per subset, in combinations order.

    Returns (winner, singletons, ties, identifiers, table) with table mapping each
    non-excluded subset to (singletons, distinct).
    """
    part = frame[list(columns)]
    if dropna:
        part = part.dropna()
    n = len(part)
    identifiers, table = [], {}
    for size in range(1, max_size + 1):
        for subset in itertools.combinations(columns, size):
            if any(set(i) <= set(subset) for i in identifiers):
                continue
            sizes = part.groupby(list(subset), dropna=False, sort=False, observed=True).size()
            singles = int((sizes == 1).sum())
            if singles == n:
                identifiers.append(subset)
                continue
            table[subset] = (singles, len(sizes))
    top = max(s for s, _ in table.values())
    smallest = min(len(c) for c, (s, _) in table.items() if s == top)
    winners = [c for c, (s, _) in table.items() if s == top and len(c) == smallest]
    return winners[0], top, winners[1:], identifiers, table


def verify_anonymized(out, qid: list, k: int, max_suppressed: int, top: str = "*") -> dict:
    """Check an anonymized frame with plain pandas: every combination of QI values is shared
    by at least k rows, except rows whose every QI is ``top`` (suppressed), which must fit
    the suppression limit unless they form a class of k or more (the top node)."""
    suppressed = (out[qid].astype(str) == top).all(axis=1)
    kept = out.loc[~suppressed, qid].astype(str)
    sizes = kept.groupby(qid, sort=False, dropna=False).size()  # missing is a value
    n_top = int(suppressed.sum())
    assert n_top <= max_suppressed or n_top >= k, (n_top, max_suppressed)
    assert len(sizes) == 0 or sizes.min() >= k, sizes.min()
    return {"suppressed": int(suppressed.sum()), "classes": len(sizes),
            "k": int(sizes.min()) if len(sizes) else 0,
            "dm": int((sizes ** 2).sum()) + len(out) * int(suppressed.sum())}


def verify_l_diverse(out, qid: list, sensitive, l: float, variant: str = "distinct",
                     c: float = 1.0, top: str = "*") -> tuple[int, float]:
    """Check l-diversity of ``sensitive`` in every class that is not suppressed (some QI
    below ``top``), from the sensitive values' counts per class; returns the classes checked
    and the level reached (distinct: the fewest values; entropy: the smallest exp(entropy);
    recursive: the largest ratio of the top count to the tail).
    distinct: at least l values; entropy: entropy at least log(l); recursive (c, l): the most
    frequent count is below c times the sum of the counts from the l-th most frequent on."""
    suppressed = (out[qid].astype(str) == top).all(axis=1)
    kept = out.loc[~suppressed]
    levels = []
    for _, group in kept.groupby([kept[c_].astype(str) for c_ in qid], sort=False, dropna=False):
        counts = sorted(group[sensitive].value_counts(dropna=False).tolist(), reverse=True)
        if variant == "distinct":
            assert len(counts) >= l, counts
            levels.append(len(counts))
        elif variant == "entropy":
            entropy = -sum(n / sum(counts) * math.log(n / sum(counts)) for n in counts)
            assert entropy >= math.log(l) - 1e-12, counts
            levels.append(math.exp(entropy))
        else:
            tail = sum(counts[int(l) - 1:])
            assert counts[0] < c * tail, counts
            levels.append(counts[0] / tail)
    reached = (max(levels) if variant == "recursive" else min(levels)) if levels else 0.0
    return len(levels), reached
