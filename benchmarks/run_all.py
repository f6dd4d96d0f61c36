"""Run every benchmark in this process, one after the other, then print a summary.

Options (--repeat, --rows, --seed) are passed on to each script.
"""

from __future__ import annotations

import platform
import sys

import bench_cli
import bench_columns
import bench_dask
import bench_default
import numpy as np
import pandas as pd
from tabulate import tabulate

import bench_arx
import bench_best_qid
import bench_check
import bench_hierarchies
import bench_kanon
import bench_ke
import bench_local
import bench_mondrian
import bench_precommit
import bench_reinforce
import bench_singletons
import bench_startup
import bench_study
import harness
import synthetic


def main(argv: list[str] | None = None) -> int:
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    forwarded = ["--repeat", str(args.repeat), "--rows", str(args.rows), "--seed", str(args.seed)]
    print(
        f"python {platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__}, "
        f"{platform.machine()}, machine-dependent timings: compare the ratios\n"
    )
    synthetic.main(forwarded)
    summary = (
        bench_singletons.main(forwarded)
        + bench_best_qid.main(forwarded)
        + bench_study.main(forwarded)
        + bench_kanon.main(forwarded)
        + bench_default.main(forwarded)
        + bench_arx.main(forwarded)
        + bench_cli.main(forwarded)
        + bench_mondrian.main(forwarded)
        + bench_ke.main(forwarded)
        + bench_local.main(forwarded)
        + bench_columns.main(forwarded)
        + bench_reinforce.main(forwarded)
        + bench_check.main(forwarded)
        + bench_precommit.main(forwarded)
        + bench_dask.main(forwarded)
        + bench_hierarchies.main(forwarded)
        + bench_startup.main(forwarded)
    )
    print("\n== summary ==")
    print(tabulate(summary, headers=["case", "target", "PASS/FAIL"], disable_numparse=True))
    failed = sum(verdict == "FAIL" for _, _, verdict in summary)
    print(f"\n{failed} target(s) missed" if failed else "\nevery target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
