"""Dask frames: the singletons of a Parquet table on a LocalCluster, beside the pandas path.

Both paths read the same Parquet files and count the singletons of the four columns
(anno_nascita, comune_residenza, provincia_residenza, sesso), end to end:
``pd.read_parquet`` + ``pandas_anon.singletons`` in a fresh process, against
``dd.read_parquet`` + ``ddf.anon.singletons`` on a ``LocalCluster`` of two worker processes
of one thread each, with a memory limit of 4 GB per worker (cluster started before the
timing). Both answers (singletons, distinct combinations, rows examined)
must be equal.

a. The Lombardia-like table, 6.4M rows (``synthetic.py``, one Parquet file): best of
   ``--repeat``. Target: the Dask path within 2x of the pandas path's time.
b. ``--big-rows`` rows (default 50 million) in 8 Parquet files the benchmark writes once
   (the same generator, one seed per file, in ``benchmarks/.cache``): one run of each path,
   with the peak memory of each Dask worker (its process's maximum RSS, read in the worker)
   and of the pandas process. Informational.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import harness
from harness import Case, require_same
from synthetic import CACHE, _build, cached_path, lombardia_like

#: The quasi-identifier: the four columns of the synthetic table.
QID = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]
WORKERS = 2
MEMORY_LIMIT = "4GB"
BIG_FILES = 8
MAX_SHARE = 2.0

#: The pandas path, run in a fresh interpreter: read the files, count, print JSON.
_PANDAS = """
import json, resource, sys, time
import pandas as pd
import pandas_anon
started = time.perf_counter()
frame = pd.read_parquet(sys.argv[1], columns=sys.argv[2].split(","))
found = pandas_anon.singletons(frame, sys.argv[2].split(","))
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "answer": [found.count, found.distinct, found.examined],
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def pandas_path(path: Path) -> dict:
    """One run of the pandas path on ``path`` (a file or a folder of Parquet files)."""
    done = subprocess.run(
        [sys.executable, "-c", _PANDAS, str(path), ",".join(QID)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def dask_path(path: Path, repeat: int) -> dict:
    """The best of ``repeat`` runs of the Dask path on ``path``, on a fresh cluster, and the
    peak memory of each worker."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import pandas_anon  # noqa: F401  (registers ddf.anon)

    with (
        LocalCluster(
            n_workers=WORKERS,
            threads_per_worker=1,
            processes=True,
            memory_limit=MEMORY_LIMIT,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        best, answer = float("inf"), None
        for _ in range(repeat):
            started = time.perf_counter()
            found = dd.read_parquet(str(path), columns=QID).anon.singletons(QID)
            best = min(best, time.perf_counter() - started)
            answer = [found.count, found.distinct, found.examined]
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {"seconds": best, "answer": answer, "peaks_mib": sorted(peaks.values())}


def big_table(n_rows: int) -> Path:
    """A folder of :data:`BIG_FILES` Parquet files of ``n_rows`` rows in all (written once)."""
    folder = CACHE / f"dask_lombardia_like_n{n_rows}_f{BIG_FILES}"
    if not (folder / "_complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        for part in range(BIG_FILES):
            rows = n_rows // BIG_FILES + (part < n_rows % BIG_FILES)
            _build(rows, seed=part + 1).to_parquet(folder / f"part-{part}.parquet", index=False)
        (folder / "_complete").touch()
    return folder


def measure(args) -> list[Case]:
    lombardia_like(args.rows, args.seed)  # written once as Parquet
    small = cached_path(args.rows, args.seed)
    runs = [pandas_path(small) for _ in range(max(args.repeat, 1))]
    on_pandas = min(runs, key=lambda run: run["seconds"])
    on_dask = dask_path(small, max(args.repeat, 1))
    require_same(
        "6.4M rows: singletons, distinct, examined", on_dask["answer"], on_pandas["answer"]
    )
    big = big_table(args.big_rows)
    big_pandas = pandas_path(big)
    big_dask = dask_path(big, 1)
    require_same(
        "big table: singletons, distinct, examined", big_dask["answer"], big_pandas["answer"]
    )
    print(
        f"\n== singletons of {', '.join(QID)}: pandas (a fresh process) against Dask "
        f"({WORKERS} worker processes, {MEMORY_LIMIT} each), reading Parquet ==\n"
        f"a. {args.rows:,} rows: {on_dask['answer'][0]:,} singletons; Dask workers' peak "
        f"{', '.join(f'{p:,.0f}' for p in on_dask['peaks_mib'])} MiB, pandas "
        f"{on_pandas['peak_mib']:,.0f} MiB\n"
        f"b. {args.big_rows:,} rows in {BIG_FILES} files: {big_dask['answer'][0]:,} "
        f"singletons, {big_dask['answer'][1]:,} combinations; Dask workers' peak "
        f"{', '.join(f'{p:,.0f}' for p in big_dask['peaks_mib'])} MiB, pandas "
        f"{big_pandas['peak_mib']:,.0f} MiB"
    )
    return [
        Case(
            f"a. {args.rows:,} rows, Dask vs pandas",
            on_dask["seconds"],
            on_pandas["seconds"],
            max_share=MAX_SHARE,
        ),
        Case(
            f"b. {args.big_rows:,} rows, Dask vs pandas (one run each)",
            big_dask["seconds"],
            big_pandas["seconds"],
        ),
    ]


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the table; return (case, target, verdict) rows."""
    parser = harness.parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--big-rows", type=int, default=50_000_000, help="rows of case b (default 50,000,000)"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cases = measure(args)
    print(harness.case_table(cases))
    print(f"({time.perf_counter() - started:.1f} s)\n")
    return [c.summary() for c in cases]


if __name__ == "__main__":
    main()
