"""Dask frames: singletons and kanon(5) of a Parquet table on a LocalCluster, beside pandas.

Both paths read the same Parquet files, end to end, on the four columns (anno_nascita,
comune_residenza, provincia_residenza, sesso): ``pd.read_parquet`` then the function in a
fresh process, against ``dd.read_parquet`` then ``ddf.anon`` on a ``LocalCluster`` of two
worker processes of one thread each, with a memory limit of 4 GB per worker (cluster
started before the timing). Two jobs:

- ``singletons``: count the singletons; the answers (singletons, distinct combinations,
  rows examined) must be equal;
- ``kanon``: ``kanon(5, qid=<the four>, max_suppression=0.05, suppress="drop")`` with the
  default search (ola) and hierarchies, the output written as Parquet (a file with pandas,
  a folder of files with Dask; the suppressed rows left out, as a column holding both
  numbers and ``*`` cannot be written to Parquet); the answers (levels, rows suppressed,
  rows modified) must be equal.

a. The Lombardia-like table, 6.4M rows (``synthetic.py``, one Parquet file): best of
   ``--repeat``. Target: the Dask path within 2x of the pandas path's time.
a2. The same table already in memory, singletons only: ``pd.read_parquet`` in this process
   against ``dd.read_parquet(..., split_row_groups=True).persist()`` (its 7 row groups, 7
   partitions spread over the two workers, waited for), so that only the work on data in
   memory is timed: ``pandas_anon.singletons`` against ``ddf.anon.singletons``, best of
   ``--repeat``, the same answer required. Target: Dask within 2x of pandas.
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
import warnings
from pathlib import Path

from pandas_anon import HierarchyFallbackWarning

import harness
from harness import Case, require_same
from synthetic import CACHE, _build, cached_path, lombardia_like

#: The quasi-identifier: the four columns of the synthetic table.
QID = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]
WORKERS = 2
MEMORY_LIMIT = "4GB"
BIG_FILES = 8
MAX_SHARE = 2.0

JOBS = ("singletons", "kanon")
K = 5
MAX_SUPPRESSION = 0.05

#: The pandas path, run in a fresh interpreter: read the files, run the job, print JSON.
_PANDAS = """
import json, resource, sys, time, warnings
import pandas as pd
import pandas_anon
# the synthetic names are not all ISTAT's: it.comune falls back to suppression, as said
warnings.simplefilter("ignore", pandas_anon.HierarchyFallbackWarning)
path, qid, job, output = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4]
K, MAX_SUPPRESSION = int(sys.argv[5]), float(sys.argv[6])
started = time.perf_counter()
frame = pd.read_parquet(path, columns=qid)
if job == "singletons":
    found = pandas_anon.singletons(frame, qid)
    answer = [found.count, found.distinct, found.examined]
else:
    out = pandas_anon.kanon(
        frame, K, qid=qid, max_suppression=MAX_SUPPRESSION, suppress="drop"
    )
    out.to_parquet(output)
    report = out.anon.report()
    answer = [report.levels, report.suppressed, report.modified]
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "answer": answer,
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def pandas_path(path: Path, job: str) -> dict:
    """One run of the pandas path on ``path`` (a file or a folder of Parquet files)."""
    output = CACHE / "dask_bench_output_pandas.parquet"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _PANDAS,
            str(path),
            ",".join(QID),
            job,
            str(output),
            str(K),
            str(MAX_SUPPRESSION),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def dask_job(path: Path, job: str) -> list:
    """One run of ``job`` on the Dask frame of ``path``: its answer."""
    import dask.dataframe as dd

    warnings.simplefilter("ignore", HierarchyFallbackWarning)  # as in the pandas path
    ddf = dd.read_parquet(str(path), columns=QID)
    if job == "singletons":
        found = ddf.anon.singletons(QID)
        return [found.count, found.distinct, found.examined]
    out = ddf.anon.kanon(K, qid=QID, max_suppression=MAX_SUPPRESSION, suppress="drop")
    out.to_parquet(str(CACHE / "dask_bench_output_dask"), overwrite=True, schema=None)
    report = out.anon.report()
    return [report.levels, report.suppressed, report.modified]


def dask_path(path: Path, repeat: int) -> dict:
    """Per job, the best of ``repeat`` runs of the Dask path on ``path``, on a fresh
    cluster, and the peak memory of each worker."""
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
        found = {}
        for job in JOBS:
            best, answer = float("inf"), None
            for _ in range(repeat):
                started = time.perf_counter()
                answer = dask_job(path, job)
                best = min(best, time.perf_counter() - started)
            found[job] = {"seconds": best, "answer": answer}
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {**found, "peaks_mib": sorted(peaks.values())}


def in_memory(path: Path, repeat: int) -> dict:
    """Case a2: singletons of the table already in memory, pandas (this process) against
    Dask (persisted on a fresh cluster, one partition per row group), best of ``repeat``
    each, with their answers."""
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster, wait

    import pandas_anon

    def best(call) -> tuple[float, list]:
        seconds, answer = float("inf"), []
        for _ in range(repeat):
            started = time.perf_counter()
            found = call()
            seconds = min(seconds, time.perf_counter() - started)
            answer = [found.count, found.distinct, found.examined]
        return seconds, answer

    frame = pd.read_parquet(path, columns=QID)
    on_pandas = best(lambda: pandas_anon.singletons(frame, QID))
    with (
        LocalCluster(
            n_workers=WORKERS,
            threads_per_worker=1,
            processes=True,
            memory_limit=MEMORY_LIMIT,
            dashboard_address=None,
        ) as cluster,
        Client(cluster),
    ):
        ddf = dd.read_parquet(str(path), columns=QID, split_row_groups=True).persist()
        wait(ddf)
        on_dask = best(lambda: ddf.anon.singletons(QID))
        partitions = ddf.npartitions
    require_same("6.4M rows in memory, singletons", on_dask[1], on_pandas[1])
    return {"pandas": on_pandas[0], "dask": on_dask[0], "partitions": partitions}


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
    big = big_table(args.big_rows)
    on_pandas, big_pandas = {}, {}
    for job in JOBS:
        runs = [pandas_path(small, job) for _ in range(max(args.repeat, 1))]
        on_pandas[job] = min(runs, key=lambda run: run["seconds"])
        big_pandas[job] = pandas_path(big, job)
    on_dask = dask_path(small, max(args.repeat, 1))
    persisted = in_memory(small, max(args.repeat, 1))
    big_dask = dask_path(big, 1)
    for job in JOBS:
        require_same(f"6.4M rows, {job}", on_dask[job]["answer"], on_pandas[job]["answer"])
        require_same(f"big table, {job}", big_dask[job]["answer"], big_pandas[job]["answer"])
    levels, suppressed, modified = big_dask["kanon"]["answer"]
    print(
        f"\n== {', '.join(QID)}: pandas (a fresh process) against Dask "
        f"({WORKERS} worker processes, {MEMORY_LIMIT} each), reading Parquet ==\n"
        f"a. {args.rows:,} rows: {on_dask['singletons']['answer'][0]:,} singletons; Dask "
        f"workers' peak {', '.join(f'{p:,.0f}' for p in on_dask['peaks_mib'])} MiB, pandas "
        f"{max(run['peak_mib'] for run in on_pandas.values()):,.0f} MiB\n"
        f"b. {args.big_rows:,} rows in {BIG_FILES} files: "
        f"{big_dask['singletons']['answer'][0]:,} singletons, "
        f"{big_dask['singletons']['answer'][1]:,} combinations; kanon({K}): levels {levels}, "
        f"{suppressed:,} rows suppressed, {modified:,} modified; Dask workers' peak "
        f"{', '.join(f'{p:,.0f}' for p in big_dask['peaks_mib'])} MiB, pandas "
        f"{max(run['peak_mib'] for run in big_pandas.values()):,.0f} MiB"
    )
    from_files = [
        Case(
            f"a. {args.rows:,} rows, {job}, Dask vs pandas",
            on_dask[job]["seconds"],
            on_pandas[job]["seconds"],
            max_share=MAX_SHARE,
        )
        for job in JOBS
    ]
    in_memory_case = Case(
        f"a2. {args.rows:,} rows in memory ({persisted['partitions']} partitions persisted), "
        "singletons, Dask vs pandas",
        persisted["dask"],
        persisted["pandas"],
        max_share=MAX_SHARE,
    )
    big_cases = [
        Case(
            f"b. {args.big_rows:,} rows, {job}, Dask vs pandas (one run each)",
            big_dask[job]["seconds"],
            big_pandas[job]["seconds"],
        )
        for job in JOBS
    ]
    return [*from_files, in_memory_case, *big_cases]


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
