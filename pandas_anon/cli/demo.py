"""``pandas-anon demo``: ``scan`` on the bundled Valle d'Aosta driving-licence table, beside the
figures Pastore et al. (2020) report for it in their Table 1."""

from __future__ import annotations

import argparse
import time

HELP = "scan the embedded Valle d'Aosta driving-licence data"

#: The QID of the paper's Table 1, and the personal columns the best QID is elected among.
DEMO_QID = ("anno_nascita", "comune_residenza", "sesso")
DEMO_PERSONAL = ("anno_nascita", "comune_residenza", "provincia_residenza", "sesso")
#: Pastore et al. 2020, Table 1, Valle d'Aosta column: the figures ``demo`` reproduces.
SEED_FIGURES = {"examined": 87_464, "singletons": 1_684, "percent": 1.93, "distinct": 9_174}


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``demo``."""
    command.add_argument("--format", choices=("table", "json"), default="table")


def run(args: argparse.Namespace) -> int:
    """Scan the bundled table; print the comparison with the paper, then the scan report."""
    from pandas_anon import formatting as report
    from pandas_anon.cli.scan import print_report, scan_frame
    from pandas_anon.datasets import load_driver_licenses
    from pandas_anon.detect.best_qid import best_qid
    from pandas_anon.detect.figures import identifiers

    frame = load_driver_licenses()
    started = time.perf_counter()
    result = scan_frame(frame, qid=list(DEMO_QID))
    result["best_qid"] = best_qid(frame, list(DEMO_PERSONAL)).to_dict()
    result["identifiers"] = [list(i) for i in identifiers(frame)]
    result["seconds"] = round(time.perf_counter() - started, 4)
    result["file"] = "embedded: Valle d'Aosta driving licences"
    if args.format == "json":
        print_report(result, "json")
        return 0
    print("pandas-anon demo: Valle d'Aosta driving-licence holders (87,642 rows), open data of")
    print("the Italian Ministry of Infrastructure and Transport, October 2019.\n")
    print(_seed_comparison(result))
    print(
        f"\nIdentifier columns (all values distinct): {report.column_sets(result['identifiers'])}\n"
    )
    print_report(result, "table")
    return 0


def _seed_comparison(result: dict) -> str:
    """Measured figures beside those of the paper's Table 1."""
    import pandas as pd

    from pandas_anon import formatting as report

    found = result["singletons"]
    measured = {
        "examined": found["examined"],
        "singletons": found["singletons"],
        "percent": round(100 * found["fraction"], 2),
        "distinct": found["distinct"],
    }
    rows = [
        (
            name,
            f"{SEED_FIGURES[name]:,}",
            f"{measured[name]:,}",
            "yes" if measured[name] == SEED_FIGURES[name] else "NO",
        )
        for name in SEED_FIGURES
    ]
    elected = report.columns(result["best_qid"]["columns"])
    rows.append(
        (
            "best QID",
            report.columns(DEMO_QID),
            elected,
            "yes" if elected == report.columns(DEMO_QID) else "NO",
        )
    )
    return report.render(
        "Pastore et al. 2020, Table 1, QID (anno_nascita, comune_residenza, sesso)",
        [],
        ("", pd.DataFrame(rows, columns=["figure", "paper", "pandas-anon", "same"])),
    )
