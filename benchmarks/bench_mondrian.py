"""Mondrian multidimensional k-anonymity: pandas-anon against anonypy, and at scale.

a. UCI Adult, k=5, no hierarchies (age a number, the other columns unordered values, as
   anonypy treats them), 5 and 9 quasi-identifiers: ``pandas_anon.anonymize(...,
   algo="mondrian")`` (the decision, in-process) against anonypy's partitioning (PyPI
   ``anonypy``, ``Mondrian(df, qid, sensitive).partition(k)``, best of 2), with both
   discernibility figures and our GCP, and ours with the Adult hierarchies. Targets: at least
   50x faster than anonypy, and at most 0.1 s with 9 QIs.                     ratio >= 50 / time
b. Method x metric on Adult (k=5, 9 QIs): Mondrian without and with the Adult hierarchies,
   and the full-domain optimum (ola, 5 % suppression), measured by the same utility module.
                                                                                     informational
c. The Lombardia-size synthetic table (benchmarks/synthetic.py), 4 QIs (anno_nascita,
   comune_residenza, provincia_residenza, sesso), k=5: ``kanon`` end to end (rows written),
   with the peak memory of the process over the frame's. Target: 10 s, memory at most 2x the
   frame. Growth with rows: 1 M, 2 M, 4 M and the full table, with their distinct
   combinations.                                  ours < 10000 ms / peak <= 2x the frame

Installed plugins are switched off (``PANDAS_ANON_PLUGINS=""``): the synthetic comuni
("AOSTA_17") are no real municipality, and a claiming plugin would only spend time failing to
cover them. anonypy is skipped with a message when it is not installed.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Sequence

os.environ["PANDAS_ANON_PLUGINS"] = ""

import pandas as pd  # noqa: E402
from tabulate import tabulate  # noqa: E402

import pandas_anon  # noqa: E402
import pandas_anon.datasets  # noqa: E402
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES  # noqa: E402

import harness  # noqa: E402
import synthetic  # noqa: E402
from bench_kanon import adult_hierarchies  # noqa: E402
from harness import SLOW_REPEAT, Case, best_of  # noqa: E402

FIVE = ["age", "sex", "race", "marital-status", "education"]
NINE = sorted(ADULT_HIERARCHY_ATTRIBUTES)  # the nine columns, as the peers order them
K = 5
SYNTHETIC_QID = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]


def anonypy_partitions(adult: pd.DataFrame, qid: list[str]) -> tuple[float, int] | None:
    """anonypy's time and discernibility on ``qid`` (categories as categoricals, as its
    README asks), or None when it is not installed."""
    try:
        from anonypy import mondrian
    except ImportError:
        print("a. anonypy is not installed (pip install anonypy): its column is skipped")
        return None
    frame = adult.copy()
    for column in qid:
        if column != "age":
            frame[column] = frame[column].astype("category")
    frame["sensitive"] = 0  # anonypy asks for one; k-anonymity alone does not read it
    sensitive = "sensitive"

    def run() -> list:
        return mondrian.Mondrian(frame, qid, sensitive).partition(K)

    seconds, partitions = best_of(run, SLOW_REPEAT - 1)
    return seconds, sum(len(p) ** 2 for p in partitions)


def adult_cases(adult: pd.DataFrame, repeat: int) -> list[Case]:
    cases = []
    hierarchies = adult_hierarchies()
    for qid in (FIVE, NINE):
        seconds, decision = best_of(
            lambda qid=qid: pandas_anon.anonymize(adult, K, qid=qid, algo="mondrian"), repeat
        )
        report = decision.report
        along = pandas_anon.anonymize(
            adult, K, qid=qid, algo="mondrian", hierarchies={c: hierarchies[c] for c in qid}
        ).report
        peer = anonypy_partitions(adult, qid)
        peer_text = f"anonypy {peer[0]:.2f} s, DM {peer[1]:,}" if peer else "anonypy not measured"
        print(
            f"a. {len(qid)} QIs: pandas-anon {seconds:.3f} s, DM {report.metrics['dm']:,}, "
            f"GCP (mean NCP) {report.metrics['gcp']:.4f}, {report.classes:,} classes; with the "
            f"Adult hierarchies DM {along.metrics['dm']:,}, GCP {along.metrics['gcp']:.4f}, "
            f"{along.classes:,} classes; {peer_text}"
        )
        cases.append(
            Case(
                f"a. Adult, {len(qid)} QIs, k=5, mondrian vs anonypy",
                seconds,
                peer[0] if peer else None,
                min_ratio=50 if peer else None,
            )
        )
    cases.append(Case("a. Adult, 9 QIs, k=5, mondrian", cases[-1].ours, None, max_seconds=0.1))
    return cases


def method_table(adult: pd.DataFrame) -> None:
    """Case b: the utility figures of each method on one table."""
    hierarchies = adult_hierarchies()
    runs = {
        "mondrian": {"algo": "mondrian"},
        "mondrian, hierarchies": {"algo": "mondrian", "hierarchies": hierarchies},
        "mondrian, relaxed": {"algo": pandas_anon.Mondrian(relaxed=True)},
        "ola (full-domain), 5 % supp.": {"hierarchies": hierarchies, "max_suppression": 0.05},
    }
    rows = []
    for name, options in runs.items():
        started = time.perf_counter()
        report = pandas_anon.anonymize(adult, K, qid=NINE, **options).report
        rows.append(
            [
                name,
                f"{report.metrics['dm']:,}",
                f"{report.metrics['gcp']:.4f}",
                f"{report.metrics['precision']:.4f}" if "precision" in report.metrics else "-",
                f"{report.metrics['c_avg']:.3f}",
                f"{report.classes:,}",
                f"{report.suppressed:,}",
                f"{time.perf_counter() - started:.3f}",
            ]
        )
    print("b. Adult, 9 QIs, k=5: method x metric (one utility module for every method)")
    print(
        tabulate(
            rows,
            headers=["method", "DM", "GCP", "precision", "C_avg", "classes", "suppressed", "s"],
            disable_numparse=True,
        )
    )


def scale_cases(rows: int, seed: int) -> list[Case]:
    """Case c: end to end on the synthetic table, and how the time grows."""
    growth = []
    full = synthetic.lombardia_like(rows, seed)
    frame_bytes = full.memory_usage(deep=True).sum()
    before = _peak_bytes()
    for n in sorted({1_000_000, 2_000_000, 4_000_000, rows} & set(range(rows + 1))):
        frame = full.iloc[:n]
        distinct = len(frame.groupby(SYNTHETIC_QID, sort=False).size())
        started = time.perf_counter()
        out = pandas_anon.kanon(frame, K, qid=SYNTHETIC_QID, algo="mondrian")
        seconds = time.perf_counter() - started
        report = out.anon.report()
        growth.append([f"{n:,}", f"{distinct:,}", f"{report.classes:,}", f"{seconds:.2f}"])
        del out
    peak = _peak_bytes()
    print(
        f"c. kanon(5, algo='mondrian') on {SYNTHETIC_QID}: frame {frame_bytes / 2**20:,.0f} MiB, "
        f"peak memory of the process {peak / 2**20:,.0f} MiB ({before / 2**20:,.0f} MiB before "
        f"the runs), {(peak - before) / frame_bytes:.2f}x the frame above it"
    )
    print(tabulate(growth, headers=["rows", "distinct QID combinations", "classes", "seconds"]))
    return [
        Case(
            f"c. synthetic {rows:,} rows, 4 QIs, k=5, kanon mondrian",
            seconds,
            None,
            max_seconds=10.0,
        ),
        Case(
            "c. peak memory above the process's before the runs (baseline: the frame)",
            (peak - before) / 2**20,
            frame_bytes / 2**20,
            max_share=2.0,
            unit="MiB",
        ),
    ]


def _peak_bytes() -> int:
    """The process's peak resident memory so far (ru_maxrss: kilobytes on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (
        1 if sys.platform == "darwin" else 1024
    )


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the tables; return (case, target, verdict) rows for the run_all summary."""
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    adult = pandas_anon.datasets.load_adult()
    print(f"\n== Mondrian, best of {args.repeat}; anonypy best of {SLOW_REPEAT - 1} ==")
    cases = adult_cases(adult, args.repeat)
    method_table(adult)
    cases += scale_cases(args.rows, args.seed)
    print(harness.case_table(cases))
    return [c.summary() for c in cases]


if __name__ == "__main__":
    main()
