"""Lan et al.'s privacy reinforcement (``reinforce`` / ``algo="tree"``) on UCI Adult, beside
local recoding and the optimal global recoding of the same goal.

UCI Adult, the 8 quasi-identifiers besides salary-class (sex, age, race, marital-status,
education, native-country, workclass, occupation), salary-class sensitive, distinct
2-diversity (k=1), the Adult hierarchies (a column is masked at its records' lowest common
ancestor), then the same without hierarchies (numbers masked by threshold ranges, text by
``*``): ``anonymize(..., algo="tree")`` (the decision, in-process, best of ``--repeat``),
its masked cells and rows, classes, DM and GCP; beside it, in the same run, local recoding
(``algo="local"``) and the optimal global recoding (``algo="ola"``, 5 % suppression) of the
same goal: their time (the ratio: theirs / ours), modified cells, classes and figures.
                                                                                ours < 5000 ms
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

import pandas_anon
from pandas_anon import LDiversity
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES, load_adult
from pandas_anon.hierarchy import Hierarchy

import harness
from harness import Case, best_of

DATA = Path(pandas_anon.datasets.__file__).parent / "data"
SENSITIVE = "salary-class"
QID = [c for c in ADULT_HIERARCHY_ATTRIBUTES if c != SENSITIVE]


def adult_cases(repeat: int) -> list[Case]:
    adult = load_adult()
    hierarchies = {c: Hierarchy.from_csv(DATA / f"adult_hierarchy_{c}.csv", name=c) for c in QID}
    cases, rows = [], []
    for label, chosen in (("hierarchies", hierarchies), ("no hierarchies", None)):

        def decide(algo: str, max_suppression: float = 0.0, chosen=chosen):
            return pandas_anon.anonymize(
                adult, 1, qid=QID, hierarchies=chosen, algo=algo, l=LDiversity(2),
                sensitive=SENSITIVE, max_suppression=max_suppression,
            )  # fmt: skip

        seconds, tree = best_of(lambda: decide("tree"), repeat)
        others = [("local", 0.0), ("ola", 0.05)] if chosen is not None else [("mondrian", 0.0)]
        for algo, limit in [("tree", 0.0), *others]:
            taken, decision = (
                (seconds, tree)
                if algo == "tree"
                else best_of(lambda a=algo, m=limit: decide(a, m), repeat)
            )
            written = decision.apply(adult)
            report = written.anon.report()
            cells = sum(
                int((written[c].astype(object) != adult[c].astype(object)).sum()) for c in QID
            )
            rows.append(
                [
                    label,
                    algo,
                    f"{taken:.3f}",
                    f"{cells:,}",
                    f"{report.modified:,}",
                    f"{report.suppressed:,}",
                    f"{report.classes:,}",
                    f"{report.metrics['dm']:,.0f}",
                    f"{report.metrics['gcp']:.4f}",
                ]
            )
            if algo != "tree":
                cases.append(
                    Case(f"reinforce vs {algo}, Adult 2-diversity ({label})", seconds, taken)
                )
        cases.append(
            Case(
                f"reinforce, Adult 8 QIs, 2-diversity on salary ({label})",
                seconds,
                None,
                max_seconds=5.0,
            )
        )
        search = tree.report.search
        print(
            f"reinforce ({label}): {search['rows_at_risk']:,} rows at risk, "
            f"{search['rows_masked']:,} rows masked, {search['cells_masked']:,} cells masked, "
            f"{search['mates']:,} mates in {search['rounds']} rounds ({search['trees']:,} trees), "
            f"{search['rows_safe_joined']} safe rows joined, privacy {dict(tree.privacy)}"
        )
    headers = ["hierarchies", "algo", "seconds", "cells changed", "rows modified", "suppressed",
               "classes", "DM", "GCP"]  # fmt: skip
    print(tabulate(rows, headers=headers, disable_numparse=True))
    return cases


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    return harness.measured(__doc__.splitlines()[0], argv, lambda args: adult_cases(args.repeat))


if __name__ == "__main__":
    main()
    sys.exit(0)
