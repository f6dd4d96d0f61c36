"""The k-anonymization methods side by side, measured the same way (docs/choosing.md).

``pandas_anon.compare`` runs each method on one table and measures every output with the
same figures (rows suppressed, rows and cells modified, classes, precision, DM, C_avg, GCP,
the largest re-identification risk, seconds): the optimal full-domain search (``ola``),
Mondrian, local recoding and the decision tree of privacy reinforcement (``tree``), each
at k=5 with at most 5 % of the rows suppressed.

a. UCI Adult: the 8 quasi-identifiers of ARX's hierarchies, ``salary-class`` the sensitive
   column the tree is grown on.                                                 informational
b. Valle d'Aosta driving licences: the seed paper's QID (anno_nascita, comune_residenza,
   sesso), municipality -> province, ``categoria_patente`` the tree's label.    informational

The seconds are one run's, each method's own (the comparison's sum is the script's
time).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pandas_anon
from pandas_anon.datasets import load_adult, load_driver_licenses
from pandas_anon.hierarchy import Hierarchy

import harness
from bench_kanon import adult_hierarchies
from harness import Case

METHODS = ("ola", "mondrian", "local", "tree")


def compared(label: str, frame, qid, hierarchies, sensitive: str) -> Case:
    """Print the four methods compared on ``frame``; the seconds they took together."""
    found = pandas_anon.compare(
        frame,
        5,
        qid=qid,
        hierarchies=hierarchies,
        max_suppression=0.05,
        sensitive=sensitive,
        methods=METHODS,
    )
    print(f"{label}, {len(frame):,} rows:")
    print(found)
    return Case(f"{label}, 4 methods compared", float(found.table["seconds"].sum()), None)


def adult_case() -> Case:
    hierarchies = {c: h for c, h in adult_hierarchies().items() if c != "salary-class"}
    return compared("a. UCI Adult", load_adult(), sorted(hierarchies), hierarchies, "salary-class")


def licences_case() -> Case:
    frame = load_driver_licenses()
    provinces = Hierarchy.from_columns(frame, ["comune_residenza", "provincia_residenza"])
    return compared(
        "b. Valle d'Aosta driving licences",
        frame,
        ["anno_nascita", "comune_residenza", "sesso"],
        {"comune_residenza": provinces},
        "categoria_patente",
    )


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    return harness.measured(
        __doc__.splitlines()[0], argv, lambda _args: [adult_case(), licences_case()]
    )


if __name__ == "__main__":
    main()
    sys.exit(0)
