"""Best-QID election: ``pandas_anon.best_qid`` against one ``groupby().size()`` per subset.

The baseline is the seed paper's election written in plain pandas with the same semantics:
drop rows missing any candidate value; visit subsets of 1..max_size columns in
``itertools.combinations`` order over the candidates in the frame's column order; a subset
whose rows are all distinct is an identifier and is skipped together with its supersets; the
winner has the most singletons, then the fewest columns, then comes first. Both must elect
the same columns with the same singletons, distinct combinations and ties.

a. 6.4M-row Lombardia-like table, 4 personal columns (15 subsets)        target ratio >= 5
b. Valle d'Aosta, 11 columns, max_size=4 (561 subsets)                  target ratio >= 15
c. Valle d'Aosta, 3 and 4 personal columns                              target < 20 ms each
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations

import pandas as pd

import pandas_anon
import pandas_anon.datasets

import harness
from harness import SLOW_REPEAT, Case, best_of, require_same
from synthetic import lombardia_like

PERSONAL_3 = ["anno_nascita", "comune_residenza", "sesso"]
PERSONAL_4 = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]
NOT_CANDIDATES = {"id", "stato_estero_nascita", "stato_estero_primo_rilascio"}


@dataclass(frozen=True)
class Election:
    """The answer both implementations must agree on."""

    columns: tuple[Hashable, ...]
    singletons: int
    distinct: int
    ties: frozenset[tuple[Hashable, ...]]


def pandas_best_qid(
    df: pd.DataFrame, columns: Sequence[Hashable], max_size: int | None = None
) -> Election:
    """The election in plain pandas: one ``groupby(subset, sort=False).size()`` per subset."""
    columns = [c for c in df.columns if c in set(columns)]  # candidates in the frame's order
    data = df[columns].dropna()
    max_size = len(columns) if max_size is None else max_size
    identifiers: list[set[Hashable]] = []
    counted: dict[tuple[Hashable, ...], int] = {}
    best: tuple[tuple[Hashable, ...], int, int] | None = None
    for size in range(1, max_size + 1):
        for subset in combinations(columns, size):
            if any(identifier <= set(subset) for identifier in identifiers):
                continue
            sizes = data.groupby(list(subset), sort=False).size()
            singletons = int((sizes == 1).sum())
            if singletons == len(data):
                identifiers.append(set(subset))
                continue
            counted[subset] = singletons
            if best is None or singletons > best[1]:
                best = (subset, singletons, len(sizes))
    assert best is not None, "every subset is an identifier"
    winner, singletons, distinct = best
    ties = frozenset(
        s for s, n in counted.items() if len(s) == len(winner) and n == singletons and s != winner
    )
    return Election(winner, singletons, distinct, ties)


def ours_best_qid(
    df: pd.DataFrame, columns: Sequence[Hashable], max_size: int | None = None
) -> Election:
    r = pandas_anon.best_qid(df, columns, max_size=max_size)
    return Election(tuple(r.columns), r.singletons, r.distinct, frozenset(map(tuple, r.ties)))


def compare(
    name: str,
    df: pd.DataFrame,
    columns: Sequence[Hashable],
    max_size: int | None,
    repeat: int,
    baseline_repeat: int,
    **target: float,
) -> Case:
    """Time both elections, check they agree, print the answer, return the case."""
    t_ours, ours = best_of(lambda: ours_best_qid(df, columns, max_size), repeat)
    t_base, base = best_of(lambda: pandas_best_qid(df, columns, max_size), baseline_repeat)
    require_same(f"{name}: elected QID", ours, base)
    print(
        f"{name}: elected {ours.columns}, {ours.singletons:,} singletons, "
        f"{ours.distinct:,} distinct, ties {sorted(ours.ties) or 'none'} (both agree)"
    )
    return Case(name, t_ours, t_base, **target)


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the table; return (case, target, verdict) rows for the run_all summary."""
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    slow = min(args.repeat, SLOW_REPEAT)
    vda = pandas_anon.datasets.load_driver_licenses()
    eleven = [c for c in vda.columns if c not in NOT_CANDIDATES]
    big = lombardia_like(args.rows, args.seed)
    print(f"\n== best_qid, best of {args.repeat} (slow baselines: best of {slow}) ==")
    cases = [
        compare(
            f"a. Lombardia-like {len(big):,} rows, 4 personal cols (15 subsets)",
            big,
            PERSONAL_4,
            None,
            args.repeat,
            slow,
            min_ratio=5,
        ),
        compare(
            f"b. Valle d'Aosta, {len(eleven)} cols, max_size=4 (561 subsets)",
            vda,
            eleven,
            4,
            args.repeat,
            slow,
            min_ratio=15,
        ),
        compare(
            "c. Valle d'Aosta, 3 personal cols (ref. impl. 0.12 s)",
            vda,
            PERSONAL_3,
            None,
            args.repeat,
            args.repeat,
            max_seconds=0.020,
        ),
        compare(
            "c. Valle d'Aosta, 4 personal cols (ref. impl. 0.24 s)",
            vda,
            PERSONAL_4,
            None,
            args.repeat,
            args.repeat,
            max_seconds=0.020,
        ),
    ]
    print(harness.case_table(cases))
    return [c.summary() for c in cases]


if __name__ == "__main__":
    main()
