"""Hierarchy builders on large columns, against one ``pd.factorize`` of the same column.

A builder factorizes the column once and then works on its distinct values, so its cost
should stay close to that one factorize. The columns are resampled (with ``--seed``) from the
Valle d'Aosta licences to ``--rows`` rows (6.4 million by default):

- birth years (nullable ``Int64``): ``intervals(width=[5, 10, 20])``,
  ``intervals(groups_of=4)``, ``row_groups(min_rows=2000)``, ``auto``;
- licence issue dates (``datetime64``): ``dates`` (month, year, decade);
- synthetic five-digit postal codes (text, 5,000 distinct): ``masking``.

Each builder must return a hierarchy covering every value of the column. Informational: no
target (the figures back the "Speed" section of docs/hierarchies.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

import pandas_anon.datasets
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.builders import auto, dates, intervals, masking, row_groups

import harness
from harness import Case, Mismatch, best_of

POSTAL_CODES = 5_000


def columns(n_rows: int, seed: int) -> dict[str, pd.Series]:
    """The three columns, resampled from the real licences (postal codes drawn uniformly)."""
    licences = pandas_anon.datasets.load_driver_licenses().dropna(
        subset=["anno_nascita", "data_rilascio"]
    )
    rng = np.random.default_rng(seed)
    rows = licences.iloc[rng.integers(0, len(licences), n_rows)]
    codes = pd.Series([f"{c:05d}" for c in rng.choice(100_000, POSTAL_CODES, replace=False)])
    return {
        "years": rows["anno_nascita"].reset_index(drop=True),
        "dates": rows["data_rilascio"].reset_index(drop=True),
        "postal codes": codes.iloc[rng.integers(0, POSTAL_CODES, n_rows)].reset_index(drop=True),
    }


BUILDERS: list[tuple[str, str, Callable[[pd.Series], Hierarchy]]] = [
    ("years", "intervals(width=[5, 10, 20])", lambda s: intervals(s, width=[5, 10, 20])),
    ("years", "intervals(groups_of=4)", lambda s: intervals(s, groups_of=4)),
    ("years", "row_groups(min_rows=2000)", lambda s: row_groups(s, min_rows=2000)),
    ("years", "auto", auto),
    ("dates", "dates", dates),
    ("postal codes", "masking", masking),
]


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the table; return (case, target, verdict) rows for the run_all summary."""
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    data = columns(args.rows, args.seed)
    print(f"\n== hierarchy builders on {args.rows:,} rows, best of {args.repeat} ==")
    factorized = {
        name: best_of(lambda s=series: pd.factorize(s), args.repeat)
        for name, series in data.items()
    }
    cases = []
    for column, label, build in BUILDERS:
        series = data[column]
        seconds, hierarchy = best_of(lambda build=build, series=series: build(series), args.repeat)
        base_seconds, (_, uniques) = factorized[column]
        if (hierarchy.positions(pd.Index(uniques), column=column) < 0).any():
            raise Mismatch(f"{label} does not cover the {column}")
        print(f"{label} on {column} ({len(uniques):,} distinct): {hierarchy.n_levels} levels")
        cases.append(Case(f"{label} on {column} vs pd.factorize", seconds, base_seconds))
    print(harness.case_table(cases))
    return [c.summary() for c in cases]


if __name__ == "__main__":
    main()
