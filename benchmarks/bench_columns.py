"""How Mondrian and local recoding grow with the number of quasi-identifiers: 5 to 20.

The table: :func:`synthetic.twenty_columns`, a licence file of another region's size
(200,000 rows, ``--columns-rows``) with its 13 columns and seven of UCI Adult's, drawn by
whole Adult rows. For 5, 10, 15 and 20 of its columns (in its order: the licence's first,
then Adult's), ``anonymize(frame, 5, qid=<those columns>, algo=...)`` with the default
hierarchies, best of ``--repeat`` (at most 3) after a warm-up, for ``algo="mondrian"`` and
``algo="local"``. Each row of the table prints the time, the method's steps (Mondrian's
rounds of cuts, local recoding's steps up a hierarchy, as the report counts them) and the
time per step (the call's over its steps), the classes and the rows suppressed; each case
compares 20 columns with 10 (ours: the time with 20, baseline: with 10; the ratio printed is
10's time over 20's, so 0.5 means twice as long).      informational
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

from tabulate import tabulate

import pandas_anon

import harness
import synthetic
from harness import Case, best_of

#: Quasi-identifiers tried: the table's first columns.
WIDTHS = (5, 10, 15, 20)
ALGORITHMS = ("mondrian", "local")
#: What each method's report counts as its steps: Mondrian's rounds of cuts, local
#: recoding's steps up a hierarchy.
STEPS = {"mondrian": "rounds", "local": "steps"}
K = 5


def growth_cases(rows: int, seed: int, repeat: int) -> list[Case]:
    table = synthetic.twenty_columns(rows, seed)
    seconds: dict[tuple[str, int], float] = {}
    lines = []
    for algo in ALGORITHMS:
        for width in WIDTHS:
            qid = list(table.columns[:width])
            frame = table[qid]

            def decide(frame=frame, qid=qid, algo=algo):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", pandas_anon.HierarchyFallbackWarning)
                    return pandas_anon.anonymize(frame, K, qid=qid, algo=algo)

            decide()  # warm-up
            took, decision = best_of(decide, repeat)
            seconds[algo, width] = took
            report = decision.report
            steps = report.search[STEPS[algo]]
            lines.append(
                [
                    algo,
                    width,
                    f"{took:.2f}",
                    f"{steps:,}",
                    f"{1000 * took / max(steps, 1):.1f}",
                    f"{report.classes:,}",
                    f"{report.suppressed:,}",
                ]
            )
    headers = ["algo", "QIs", "seconds", "steps", "ms / step", "classes", "suppressed"]
    print(
        f"anonymize(k={K}) on synthetic.twenty_columns({rows:,}): the first n columns as QID\n"
        + tabulate(lines, headers=headers)
    )
    return [
        Case(f"{algo}, {rows:,} rows: 20 QIs vs 10", seconds[algo, 20], seconds[algo, 10])
        for algo in ALGORITHMS
    ]


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    def options(parser) -> None:
        parser.add_argument(
            "--columns-rows",
            type=int,
            default=200_000,
            help="rows of the 20-column table (default 200,000)",
        )

    return harness.measured(
        __doc__.splitlines()[0],
        argv,
        lambda args: growth_cases(args.columns_rows, args.seed, min(args.repeat, 3)),
        options,
    )


if __name__ == "__main__":
    main()
    sys.exit(0)
