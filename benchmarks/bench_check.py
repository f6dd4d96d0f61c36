"""``pandas-anon check`` on a driving-licence CSV of Lombardia's size (6.4M rows, ~0.9 GB).

The file: :func:`synthetic.lombardia_like` (anno_nascita, comune_residenza,
provincia_residenza, sesso) plus the real file's ten other columns, resampled row-wise from the
embedded Valle d'Aosta data (``id`` a permutation, so it stays an identifier), in the real
file's column order, every text value quoted as many exports do. Written once with pyarrow
(about 15 s) and cached in ``benchmarks/.cache/`` next to the parquet tables.

Each command runs in a fresh process, interpreter start and imports included, with its
bytecode cached as an installed package has it (pip compiles it; the warm-up writes it where
it is missing); its wall time is the best of ``--repeat`` (at most 3) runs after one warm-up
(which fills the page cache), its peak memory the process's own maximum RSS (``wait4``, see
:func:`run_child`).

a. ``pandas-anon check FILE --qid anno_nascita,comune_residenza,sesso --max-singletons 1%``
   against a ``python -c`` doing ``pd.read_csv(FILE, usecols=qid)`` then
   ``groupby(qid).size()`` (what a pandas user writes), same run; both must count the same
   singletons.                                        ratio >= 1, peak memory <= 1 GiB
b. ``check`` with no QID, which reads all 14 columns and elects one, timed as a is.
                                                      <= 10 s, peak memory <= 1.5 GiB
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
from tabulate import tabulate

import pandas_anon.datasets

import harness
from harness import Case, require_same
from synthetic import CACHE, GENERATOR_VERSION, QID, REPLICAS, lombardia_like

#: Case b's targets: seconds and peak memory; case a's memory target.
MAX_ELECTED_SECONDS = 10.0
MAX_ELECTED_PEAK = int(1.5 * 2**30)
MAX_PEAK = 2**30
CSV_VERSION = 1
#: Runs argv[1:], exits with its status, and reports its wall time and maximum RSS (KiB).
LAUNCHER = (
    "import os, sys, time\n"
    "start = time.perf_counter(); pid = os.fork()\n"
    "if pid == 0: os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(time.perf_counter() - start, usage.ru_maxrss, file=sys.stderr)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)
BASELINE = (
    "import json, sys; import pandas as pd; qid = sys.argv[2].split(','); "
    "sizes = pd.read_csv(sys.argv[1], usecols=qid).groupby(qid, sort=False).size(); "
    "print(json.dumps({'singletons': int((sizes == 1).sum())}))"
)


def lombardia_csv(n_rows: int, seed: int) -> Path:
    """The cached CSV (built on first use)."""
    path = CACHE / (
        f"lombardia_like_n{n_rows}_s{seed}_r{REPLICAS}_v{GENERATOR_VERSION}_csv{CSV_VERSION}.csv"
    )
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        pa_csv.write_csv(
            _licence_table(n_rows, seed), partial, pa_csv.WriteOptions(quoting_style="needed")
        )
        partial.replace(path)  # atomic: a concurrent run never reads half a file
    return path


def _licence_table(n_rows: int, seed: int) -> pa.Table:
    base = lombardia_like(n_rows, seed)
    real = pandas_anon.datasets.load_driver_licenses(parse_dates=False)
    rng = np.random.default_rng(seed + 1)
    rows = pa.array(rng.integers(0, len(real), n_rows))
    columns = {"id": pa.array(10_000_000 + rng.permutation(n_rows))}
    for name in real.columns[1:]:
        columns[name] = (
            pa.Array.from_pandas(base[name])
            if name in base.columns
            else pa.Array.from_pandas(real[name]).take(rows)
        )
    return pa.table(columns)


def run_child(argv: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in bytes and stdout of ``argv`` run in a fresh process.

    A small launcher process forks and execs ``argv``: a child's maximum RSS also counts the
    memory of the process it was forked from (the kernel carries it over exec), which for this
    benchmark process would be the 6.4M-row table, and for the launcher is a few MiB.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        done = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, *argv],
            stdout=out,
            stderr=err,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        )
        out.seek(0)
        err.seek(0)
        *messages, figures = err.read().splitlines() or [""]
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{argv[:3]} exited {done.returncode}: {messages}")
        seconds, peak_kib = figures.split()
        return float(seconds), int(peak_kib) * 1024, out.read()


def best_child(argv: list[str], repeat: int) -> tuple[float, int, str]:
    """One warm-up, then the best time of ``repeat`` runs and the highest peak of them all."""
    runs = [run_child(argv) for _ in range(max(repeat, 1) + 1)]
    return min(r[0] for r in runs[1:]), max(r[1] for r in runs), runs[-1][2]


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the tables; return (case, target, verdict) rows for the run_all summary."""
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    repeat = min(args.repeat, 3)
    start = time.perf_counter()
    path = lombardia_csv(args.rows, args.seed)
    print(
        f"\n== pandas-anon check on {path.name}: {args.rows:,} rows, "
        f"{path.stat().st_size / 2**30:.2f} GiB (ready in {time.perf_counter() - start:.1f} s),"
        f" best of {repeat} =="
    )
    command = [
        str(Path(sys.executable).parent / "pandas-anon"),
        "check",
        str(path),
        "--format",
        "json",
    ]
    t_ours, peak_ours, out = best_child(
        [*command, "--qid", ",".join(QID), "--max-singletons", "1%"], repeat
    )
    t_base, peak_base, base = best_child(
        [sys.executable, "-c", BASELINE, str(path), ",".join(QID)], repeat
    )
    ours = json.loads(out)["files"][0]
    require_same("singletons", ours["singletons"], json.loads(base)["singletons"])
    t_elect, peak_elect, out = best_child(command, repeat)
    elected = json.loads(out)["files"][0]
    print(
        f"answer: {ours['singletons']:,} singletons ({100 * ours['fraction']:.2f} %), "
        f"status {ours['status']} (both agree); with no QID, elected {tuple(elected['qid'])}"
    )
    cases = [
        Case(
            "a. check --qid (3 of 14 columns) vs read_csv + groupby.size()",
            t_ours,
            t_base,
            min_ratio=1.0,
        ),
        Case(
            "b. check, QID elected among 14 columns",
            t_elect,
            None,
            max_seconds=MAX_ELECTED_SECONDS,
        ),
    ]
    print(harness.case_table(cases))
    memory = [
        ("a. check --qid", peak_ours, MAX_PEAK),
        ("read_csv + groupby.size() (baseline)", peak_base, None),
        ("b. check, QID elected", peak_elect, MAX_ELECTED_PEAK),
    ]
    print("\npeak memory of each process (max RSS):")
    print(
        tabulate(
            [
                [
                    name,
                    f"{peak / 2**20:,.0f}",
                    "info" if limit is None else f"<= {limit / 2**20:,.0f}",
                    "-" if limit is None else harness.verdict(peak <= limit),
                ]
                for name, peak, limit in memory
            ],
            headers=["process", "peak RSS (MiB)", "target", "PASS/FAIL"],
            disable_numparse=True,
        )
    )
    return [case.summary() for case in cases] + [
        (f"{name}: peak memory", f"<= {limit / 2**30:g} GiB", harness.verdict(peak <= limit))
        for name, peak, limit in memory
        if limit is not None
    ]


if __name__ == "__main__":
    main()
