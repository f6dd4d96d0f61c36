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

a. ``pandas-anon check FILE --qid anno_nascita,comune_residenza,sesso --max-singletons 1%``,
   which reads every column (a QID leaves no column unexamined: the others are examined for
   direct identifiers, and every value for text outside the table; issue 45), against a
   ``python -c`` doing ``pd.read_csv(FILE)`` then ``groupby(qid).size()``, same run; both
   must count the same singletons. Before issue 45, ``check --qid`` read the QID's 3 columns
   only (1.42 s against 1.61 s for ``read_csv(FILE, usecols=qid)``, 570 MiB, 7 December).
                                                  ratio >= 1, peak memory <= 1.5 GiB
b. ``check`` with no QID, which reads all 14 columns and elects one, timed as a is.
                                                      <= 10 s, peak memory <= 1.5 GiB
b2. the election alone: the gate's rule (``scan``, the check's defaults) on the 14 columns
   as the check reads them, timed in a child process after the read (issue 45: 7.1 s before
   the fixed-order election budget, 11.8 s after it).                        <= 10 s

Resource cases (issue 34: a small file never takes minutes or gigabytes), each file written
into a temporary folder, each ``pandas-anon check FILE`` run once in a fresh process (its
wall time and peak RSS as for a and b), after one untimed run of the first:

c. a wide CSV of 300 columns x 100 rows of random digits (61 KB), no QID: the election
   bounds its work (``--max-subsets``, default 1,000,000 subsets) and elects the first
   identifying triple.                           a verdict (exit 0 or 1), <= 10 s, <= 1 GiB
d. the same with 1,000 columns x 1,100 rows (2.2 MB): bounded, a verdict or a fail-closed
   error (exit 2). (Columns are named ``xa`` to ``xkn``: the names of a table wider than tall
   are text outside the table, 874 characters for c, within the budget of 1,000; d and e have
   more rows than columns. A name of one letter such as ``f``, ``m`` or ``n`` would make the
   table look like counts.)
                                                      <= 1 GiB (time: info)
e. 1,000 two-valued columns x 1,100 rows: no subset of up to 3 columns identifies the rows, so
   the election spends its budget and fails closed.   exit 2, <= 1 GiB (time: info)
f. a decompression bomb: a 0.4 MB ``.json.gz`` of 15 million records, 0.2 GB of JSON (as
   much as gzip packs in 0.4 MB; read whole, JSON that size took GBs);
g. a 2 MB ``.zip`` holding a 1.1 GB CSV (the same line again and again);
h. a 51 MB file with no line break.
                              refused (exit 2) or processed, <= 1.5 GiB (time: info)
``--cases resources`` runs c-h only (about a minute), ``--cases lombardia`` a and b only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
from tabulate import tabulate

import pandas_anon.datasets

import harness
from harness import Case, require_same
from synthetic import CACHE, GENERATOR_VERSION, QID, REPLICAS, lombardia_like

#: Case b's targets: seconds and peak memory (case a's memory target too: both read every
#: column).
MAX_ELECTED_SECONDS = 10.0
MAX_ELECTED_PEAK = int(1.5 * 2**30)
#: Case c's targets (cases d and e's memory target too); cases f-h's memory target.
MAX_WIDE_SECONDS = 10.0
MAX_WIDE_PEAK = 2**30
MAX_INPUT_PEAK = int(1.5 * 2**30)
#: A resource case still running after this many seconds is stopped (and fails its target).
RESOURCE_TIMEOUT = 600
CSV_VERSION = 1
#: Runs argv[1:], exits with its status, and reports its wall time, maximum RSS (KiB) and
#: processor time (user and system seconds).
LAUNCHER = (
    "import os, sys, time\n"
    "start = time.perf_counter(); pid = os.fork()\n"
    "if pid == 0: os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(time.perf_counter() - start, usage.ru_maxrss, usage.ru_utime + usage.ru_stime,"
    " file=sys.stderr)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)
#: Reads the file as the check does, then prints the seconds of the gate's rule on it alone.
ELECTION = (
    "import sys, time; from pandas_anon.gate.io import read_columns; "
    "from pandas_anon.detect.exposure import scan; frame = read_columns(sys.argv[1]); "
    "start = time.perf_counter(); found = scan(frame, k=2); "
    "print(time.perf_counter() - start, ','.join(map(str, found.qid)))"
)
BASELINE = (
    "import json, sys; import pandas as pd; qid = sys.argv[2].split(','); "
    "sizes = pd.read_csv(sys.argv[1]).groupby(qid, sort=False).size(); "
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
    """Wall seconds, peak RSS in bytes and stdout of ``argv`` run in a fresh process, which
    must exit 0 or 1 (see :func:`run_status`)."""
    status, seconds, _, peak, out, messages = run_status(argv)
    if status not in (0, 1):
        raise RuntimeError(f"{argv[:3]} exited {status}: {messages}")
    return seconds, peak, out


def run_status(
    argv: list[str], timeout: float | None = None
) -> tuple[int | None, float, float, int, str, list[str]]:
    """Exit status (None: stopped after ``timeout`` seconds), wall and processor seconds, peak
    RSS in bytes, stdout and stderr lines of ``argv`` run in a fresh process (on a busy
    machine the processor time says what the wall time does not).

    A small launcher process forks and execs ``argv``: a child's maximum RSS also counts the
    memory of the process it was forked from (the kernel carries it over exec), which for this
    benchmark process would be the 6.4M-row table, and for the launcher is a few MiB.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        launcher = subprocess.Popen(
            [sys.executable, "-S", "-c", LAUNCHER, *argv],
            stdout=out,
            stderr=err,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            start_new_session=True,  # its own process group: stopped with its child
        )
        try:
            status: int | None = launcher.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, 9)
            launcher.wait()
            status = None
        out.seek(0)
        err.seek(0)
        *messages, figures = err.read().splitlines() or [""]
        if status is None:  # the launcher never reported: the time is ours, the peak unknown
            wall = time.perf_counter() - started
            return None, wall, 0.0, 0, out.read(), [*messages, figures]
        seconds, peak_kib, processor = figures.split()
        return status, float(seconds), float(processor), int(peak_kib) * 1024, out.read(), messages


def best_child(argv: list[str], repeat: int) -> tuple[float, int, str]:
    """One warm-up, then the best time of ``repeat`` runs and the highest peak of them all."""
    runs = [run_child(argv) for _ in range(max(repeat, 1) + 1)]
    return min(r[0] for r in runs[1:]), max(r[1] for r in runs), runs[-1][2]


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the tables; return (case, target, verdict) rows for the run_all summary."""
    parser = harness.parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        choices=("all", "lombardia", "resources"),
        default="all",
        help="a and b (the 6.4M-row file), c-h (the resource cases), or all (default)",
    )
    args = parser.parse_args(argv)
    summary = lombardia(args) if args.cases != "resources" else []
    return summary + (resources() if args.cases != "lombardia" else [])


def lombardia(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """Cases a and b."""
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
    elections = [run_child([sys.executable, "-c", ELECTION, str(path)]) for _ in range(repeat)]
    t_election = min(float(run[2].split()[0]) for run in elections)
    require_same("elected QID", elections[0][2].split()[1].split(","), elected["qid"])
    print(
        f"answer: {ours['singletons']:,} singletons ({100 * ours['fraction']:.2f} %), "
        f"status {ours['status']} (both agree); with no QID, elected {tuple(elected['qid'])}"
    )
    cases = [
        Case(
            "a. check --qid (every column read) vs read_csv + groupby.size()",
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
        Case(
            "b2. the election alone (scan on the 14 columns read)",
            t_election,
            None,
            max_seconds=MAX_ELECTED_SECONDS,
        ),
    ]
    print(harness.case_table(cases))
    memory = [
        ("a. check --qid", peak_ours, MAX_ELECTED_PEAK),
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


@dataclass(frozen=True)
class Resource:
    """A resource case: the file it writes into a folder, the exit statuses that meet its
    target, and its targets (seconds: None for information only)."""

    name: str
    write: Callable[[Path], Path]
    statuses: tuple[int, ...]
    max_peak: int
    max_seconds: float | None = None

    def target(self) -> str:
        exits = "/".join(map(str, self.statuses))
        seconds = "" if self.max_seconds is None else f", <= {self.max_seconds:g} s"
        return f"exit {exits}{seconds}, <= {self.max_peak / 2**30:g} GiB"


def wide_csv(columns: int, rows: int, values: int = 10) -> Callable[[Path], Path]:
    """A CSV of ``columns`` columns (named ``x`` and letters: ``xa``, ..., ``xz``, ``xaa``) of
    ``rows`` random codes below ``values`` (seed 0): 300 columns of 100 rows of digits make
    about 61 KB."""

    def write(folder: Path) -> Path:
        codes = np.random.default_rng(0).integers(0, values, (rows, columns))
        path = folder / f"wide_{columns}x{rows}_{values}.csv"
        header = ",".join(f"x{_letters(i)}" for i in range(columns))
        np.savetxt(path, codes, fmt="%d", delimiter=",", header=header, comments="")
        return path

    return write


def _letters(number: int) -> str:
    """``number`` written in letters, as spreadsheets name columns from 0: ``a``, ``z``,
    ``aa``."""
    name = ""
    number += 1
    while number:
        number, digit = divmod(number - 1, 26)
        name = chr(ord("a") + digit) + name
    return name


def _repeated(handle, unit: bytes, size: int) -> None:  # noqa: ANN001  (any binary file)
    """Write ``unit`` again and again into ``handle``, ``size`` bytes in all (rounded down)."""
    block = unit * max(1, (1 << 20) // len(unit))
    for _ in range(size // len(block)):
        handle.write(block)
    handle.write(unit * ((size % len(block)) // len(unit)))


def json_bomb(folder: Path) -> Path:
    """A .json.gz of about 0.4 MB: an array of 15 million identical records (0.21 GB)."""
    path = folder / "bomb.json.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b"[")
        _repeated(handle, b'{"a":1,"b":2},', 15_000_000 * 14)
        handle.write(b'{"a":1,"b":2}]')
    return path


def zipped_csv(folder: Path) -> Path:
    """A .zip of about 2 MB holding a 1.1 GB CSV: one line again and again."""
    path = folder / "large.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("large.csv", "w", force_zip64=True) as handle:
            handle.write(b"year,town,sex\n")
            _repeated(handle, b"1980,Aosta,F\n", 1_100_000_000)
    return path


def one_line(folder: Path) -> Path:
    """A 51 MB CSV with no line break: digits and commas."""
    path = folder / "one_line.csv"
    with open(path, "wb") as handle:
        _repeated(handle, b"12345678,", 51_000_000)
    return path


RESOURCES = (
    Resource("c. 300 columns x 100 rows, no QID", wide_csv(300, 100), (0, 1), MAX_WIDE_PEAK, 10.0),
    Resource(
        "d. 1,000 columns x 1,100 rows, no QID", wide_csv(1000, 1100), (0, 1, 2), MAX_WIDE_PEAK
    ),
    Resource("e. 1,000 two-valued columns, no QID", wide_csv(1000, 1100, 2), (2,), MAX_WIDE_PEAK),
    Resource("f. 0.4 MB .json.gz bomb", json_bomb, (0, 1, 2), MAX_INPUT_PEAK),
    Resource("g. 2 MB .zip of a 1.1 GB CSV", zipped_csv, (0, 1, 2), MAX_INPUT_PEAK),
    Resource("h. 51 MB with no line break", one_line, (0, 1, 2), MAX_INPUT_PEAK),
)


def resources() -> list[tuple[str, str, str]]:
    """Cases c-h: write each file, run ``pandas-anon check FILE`` once, print its exit
    status, time and peak memory beside its targets."""
    command = [str(Path(sys.executable).parent / "pandas-anon"), "check", "--format", "json"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_check_") as folder:
        for number, case in enumerate(RESOURCES):
            path = case.write(Path(folder))
            if number == 0:  # untimed: imports compiled, the page cache warm
                run_status([*command, str(path)], RESOURCE_TIMEOUT)
            status, seconds, processor, peak, out, messages = run_status(
                [*command, str(path)], RESOURCE_TIMEOUT
            )
            passed = (
                status in case.statuses
                and peak <= case.max_peak
                and (case.max_seconds is None or seconds <= case.max_seconds)
            )
            if status is None:
                outcome = f"stopped after {RESOURCE_TIMEOUT} s"
            elif status == 2:
                outcome = "exit 2: " + (messages[-1] if messages else "")
            else:
                entry = json.loads(out)["files"][0]
                outcome = f"{entry['status']}, QID {entry.get('qid')}"
            rows.append(
                (
                    case,
                    path.stat().st_size,
                    "-" if status is None else str(status),
                    seconds,
                    processor,
                    peak,
                    passed,
                    outcome,
                )
            )
            path.unlink()
    print("\n== resource cases: pandas-anon check FILE, one run each ==")
    print(
        tabulate(
            [
                [
                    case.name,
                    f"{size / 2**20:,.1f}",
                    status,
                    f"{seconds:.2f}",
                    f"{processor:.2f}",
                    f"{peak / 2**20:,.0f}",
                    case.target(),
                    harness.verdict(passed),
                ]
                for case, size, status, seconds, processor, peak, passed, _ in rows
            ],
            headers=[
                "case",
                "file (MiB)",
                "exit",
                "seconds",
                "CPU seconds",
                "peak RSS (MiB)",
                "target",
                "PASS/FAIL",
            ],
            disable_numparse=True,
        )
    )
    for case, *_, outcome in rows:
        print(f"{case.name}: {outcome[:300]}")
    return [(case.name, case.target(), harness.verdict(passed)) for case, *_, passed, _ in rows]


if __name__ == "__main__":
    main()
