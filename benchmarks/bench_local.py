"""Local recoding (``kanon(k, algo="local")``) against ARX 3.9's, and against global recoding.

a. UCI Adult, 9 QIs, k=5, the Adult hierarchies: ``anonymize(..., algo="local")`` (the
   decision, in-process) against ARX's local recoding (global step with 99 % suppression
   and its loss metric, then ``optimizeIterativeFast(output, 0.01)``; warm JVM, median),
   with both results (suppressed rows, classes) and our figures beside the optimal global
   recoding (ola, 5 % suppression); then ``compare`` of ola, mondrian and local at 5 %
   suppression, the table docs/kanon.md shows.                                    ours < 1000 ms
b. Valle d'Aosta, the seed paper's QID (anno_nascita, comune_residenza, sesso), k=2,
   municipality -> province: ``kanon`` end to end, its singletons and modified rows beside
   the rows of the paper's Table 1 that reach no singleton, and ``compare`` of the three
   methods.                                                                      informational
c. The Lombardia-size synthetic table (``synthetic.py``, 6.4M rows, its 4 columns), zero
   configuration: ``kanon(5, algo="local")`` end to end, one run.                     < 10 s

ARX is skipped with a message when Java or ``../shared/tools/arx`` is missing.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

import pandas_anon
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES, load_adult
from pandas_anon.hierarchy import Hierarchy

import harness
import synthetic
from harness import ADULT_CSV, Case, arx_server, best_of

DATA = Path(pandas_anon.datasets.__file__).parent / "data"
QID = sorted(ADULT_HIERARCHY_ATTRIBUTES)


def adult_cases(repeat: int) -> list[Case]:
    adult = load_adult()
    hierarchies = {
        c: Hierarchy.from_csv(DATA / f"adult_hierarchy_{c}.csv", name=c)
        for c in ADULT_HIERARCHY_ATTRIBUTES
    }

    def local():
        return pandas_anon.anonymize(adult, 5, qid=QID, hierarchies=hierarchies, algo="local")

    seconds, decision = best_of(local, repeat)
    ours = decision.report
    arx = arx_local()
    rows = [
        [
            "pandas-anon local",
            ours.suppressed,
            ours.classes,
            f"{ours.metrics['precision']:.4f}",
            f"{ours.metrics['dm']:,.0f}",
        ],
    ]
    if arx is not None:
        rows.append(["ARX 3.9 local", arx["suppressed"], arx["classes"], "-", "-"])
    glob = pandas_anon.anonymize(
        adult, 5, qid=QID, hierarchies=hierarchies, algo="ola", max_suppression=0.05
    ).report
    rows.append(
        [
            "pandas-anon ola (global, 5 %)",
            glob.suppressed,
            glob.classes,
            f"{glob.metrics['precision']:.4f}",
            f"{glob.metrics['dm']:,.0f}",
        ]
    )
    print("a. UCI Adult, 9 QIs, k=5:")
    print(tabulate(rows, headers=["method", "suppressed", "classes", "precision", "DM"]))
    print("   the methods compared (docs/kanon.md), at most 5 % suppressed:")
    print(pandas_anon.compare(adult, 5, qid=QID, hierarchies=hierarchies, max_suppression=0.05))
    baseline = None if arx is None else arx["median_anon_ms"] / 1000
    return [Case("local recoding, Adult 9 QIs k=5 (vs ARX)", seconds, baseline, max_seconds=1.0)]


def arx_local() -> dict | None:
    """ARX's local recoding of Adult (9 QIs, k=5), or None without Java or the tool."""
    server = arx_server()
    if server is None:
        return None
    with server as arx:
        return arx.run(
            ADULT_CSV / "adult.csv",
            str(ADULT_CSV / "adult_hierarchy_%s.csv"),
            QID,
            k=5,
            metric="local",
            repeats=3,
        )


def valle_d_aosta_cases(repeat: int) -> list[Case]:
    frame = pandas_anon.datasets.load_driver_licenses()
    qid = ["anno_nascita", "comune_residenza", "sesso"]
    provinces = Hierarchy.from_columns(frame, ["comune_residenza", "provincia_residenza"])

    def local():
        return frame.anon.kanon(
            2, qid=qid, hierarchies={"comune_residenza": provinces}, algo="local"
        )

    seconds, out = best_of(local, repeat)
    report = out.anon.report()
    study = frame.anon.study(year="anno_nascita", sex="sesso", place="comune_residenza")
    reaching = study.table[study.table["singletons"] == 0]
    print(
        f"b. Valle d'Aosta, k=2: {out.anon.singletons(qid, dropna=False).count} singletons, "
        f"{report.modified:,} rows modified, {report.classes:,} classes; the paper's "
        f"strategies with no singleton ({', '.join(reaching.index)}) modify "
        f"{int(reaching['modified'].min()):,} rows and keep {int(reaching['distinct'].max())} "
        f"combinations at most"
    )
    print(frame.anon.compare(2, qid=qid, hierarchies={"comune_residenza": provinces}))
    return [Case("local recoding, Valle d'Aosta k=2, end to end", seconds, None)]


def scale_cases(rows: int, seed: int) -> list[Case]:
    """Case c: zero configuration on the synthetic table, end to end."""
    frame = synthetic.lombardia_like(rows, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pandas_anon.AnonWarning)  # its synthetic comuni
        started = time.perf_counter()
        out = pandas_anon.kanon(frame, 5, algo="local")
        seconds = time.perf_counter() - started
    report = out.anon.report()
    print(
        f"c. kanon(5, algo='local') on the {rows:,}-row synthetic table, its {len(frame.columns)} "
        f"columns: {report.classes:,} classes, {report.modified:,} rows modified, "
        f"{seconds:.2f} s"
    )
    return [Case(f"c. synthetic {rows:,} rows, zero configuration, kanon local", seconds, None,
                 max_seconds=10.0)]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    return harness.measured(
        __doc__.splitlines()[0],
        argv,
        lambda args: (
            adult_cases(args.repeat)
            + valle_d_aosta_cases(args.repeat)
            + scale_cases(args.rows, args.seed)
        ),
    )


if __name__ == "__main__":
    main()
    sys.exit(0)
