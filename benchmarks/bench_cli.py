"""The whole process as a user runs it: ``pandas-anon anonymize`` against ARX 3.9's ArxOnce.

A licence file of another region (:func:`synthetic.licence_like`, 13 columns, 200,000 rows)
and a 2,000,000-row resample of it, written as ``;``-separated CSV, with five
quasi-identifiers and their hierarchies written as ARX's CSV files: ``anno_nascita`` by
intervals of 5, 10 and 20 years, ``comune_residenza`` -> ``provincia_residenza``,
``categoria_patente`` flat, ``data_abilitazione_a`` and ``data_scadenza`` by month and year;
k = 5, at most 5 % of the rows suppressed, metric precision. Each tool runs in a fresh
process (best of ``--repeat``, at most 3), started by bench_check's small launcher, which
reports its wall time and peak resident memory (a child forked from this process would count
this process's memory, the generated tables, in its peak):

- ARX: a fresh JVM running ``arx/ArxOnce.java`` (read the CSV and the hierarchies, the
  optimal full-domain search, write the CSV), compiled here with javac;
- ``arx/once.py``: a fresh interpreter doing the same with ``pd.read_csv``,
  :meth:`Hierarchy.from_csv`, :func:`pandas_anon.kanon` and ``to_csv``;
- ``pandas-anon anonymize IN OUT --k 5 --qid ... --hierarchy COLUMN=FILE ...
  --max-suppression 0.05 --metric precision``: the command line (the console script's code
  in a fresh interpreter, without the environment's launcher script).

The three output files must be byte for byte the same (else :class:`harness.Mismatch`).
Printed: each time and peak memory, the ratios ARX / ours.  the command at 2 M rows: ratio >= 3
The data and hierarchies are written to a temporary folder (about 170 MB at 2 M rows).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from pandas_anon.hierarchy import Hierarchy, dates, intervals

import harness
import synthetic
from bench_check import run_status
from harness import ARX, Case, arx_server, require_same

QID = [
    "anno_nascita",
    "comune_residenza",
    "categoria_patente",
    "data_abilitazione_a",
    "data_scadenza",
]
K, SUPPRESSION, METRIC = 5, 0.05, "precision"
#: Rows of the licence file, and of its resample.
SIZES = (200_000, 2_000_000)
HERE = Path(__file__).resolve().parent
CONSOLE = "import sys; from pandas_anon.cli.main import main; sys.exit(main())"


def hierarchies(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The five hierarchies as tables (values as the CSV writes them, then the levels)."""
    years = intervals(frame["anno_nascita"], width=[5, 10, 20]).to_frame()
    comuni = Hierarchy.from_columns(frame, ["comune_residenza", "provincia_residenza"])
    categories = Hierarchy(frame["categoria_patente"].unique()).to_frame()
    tables = {
        "anno_nascita": years.assign(anno_nascita=years["anno_nascita"].astype(str)),
        "comune_residenza": comuni.to_frame(),
        "categoria_patente": categories,
    }
    for column in ("data_abilitazione_a", "data_scadenza"):
        table = dates(frame[column], levels=("month", "year")).to_frame()
        tables[column] = table.assign(**{column: table[column].dt.strftime("%Y-%m-%d")})
    return tables


def write_inputs(folder: Path) -> dict[int, Path]:
    """The two CSV files and the hierarchy files (``h_COLUMN.csv``) in ``folder``."""
    frame = synthetic.licence_like(SIZES[0], seed=0)
    for column, table in hierarchies(frame).items():
        Hierarchy.from_frame(table).to_arx_csv(folder / f"h_{column}.csv")
    paths = {}
    rows = np.random.default_rng(1).integers(0, len(frame), SIZES[1])
    for size, table in ((SIZES[0], frame), (SIZES[1], frame.take(rows))):
        paths[size] = folder / f"licence_{size}.csv"
        table.to_csv(paths[size], sep=";", index=False)
    return paths


@dataclass
class Run:
    """The best wall time of a command over fresh processes, and that run's peak memory."""

    seconds: float
    peak_mib: float


def best_process(command: list[str], environment: dict[str, str], repeat: int) -> Run:
    """Run ``command`` with ``environment`` added ``repeat`` times (at most 3), each a fresh
    process started by bench_check's small launcher (so that its peak memory is its own, not
    this process's, which holds the generated tables); the best."""
    setting = [f"{name}={value}" for name, value in environment.items()]
    argv = [shutil.which("env") or "/usr/bin/env", *setting, *command]
    best = Run(float("inf"), 0.0)
    for _ in range(max(1, min(repeat, 3))):
        status, seconds, _, peak, _, messages = run_status(argv)
        if status != 0:
            raise RuntimeError(f"{command[:3]} exited {status}: {messages[-5:]}")
        if seconds < best.seconds:
            best = Run(seconds, peak / 2**20)
    return best


def measure(args: argparse.Namespace) -> list[Case]:
    environment = {"PYTHONPATH": str(harness.ROOT), "PANDAS_ANON_PLUGINS": ""}
    cases, table = [], []
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        inputs = write_inputs(folder)
        pattern = str(folder / "h_%s.csv")
        java = shutil.which("java") if arx_server() is not None else None
        if java:
            classpath = f"{ARX / 'arx-core.jar'}:{ARX / 'lib' / '*'}:{work}"
            subprocess.run(
                ["javac", "-cp", classpath, "-d", work, str(HERE / "arx" / "ArxOnce.java")],
                check=True,
            )
        for size, path in inputs.items():
            common = [str(path), pattern, ",".join(QID), str(K), str(SUPPRESSION), METRIC]
            outputs = {who: folder / f"{who}_{size}.csv" for who in ("cli", "once", "arx")}
            hierarchy = [f"--hierarchy={c}={pattern % c}" for c in QID]
            cli = best_process(
                [
                    sys.executable,
                    "-c",
                    CONSOLE,
                    "anonymize",
                    str(path),
                    str(outputs["cli"]),
                    "--k",
                    str(K),
                    "--qid",
                    ",".join(QID),
                    *hierarchy,
                    "--max-suppression",
                    str(SUPPRESSION),
                    "--metric",
                    METRIC,
                ],
                environment,
                args.repeat,
            )
            once = best_process(
                [sys.executable, str(HERE / "arx" / "once.py"), *common, str(outputs["once"])],
                environment,
                args.repeat,
            )
            arx = None
            if java:
                arx = best_process(
                    [java, "-cp", classpath, "ArxOnce", *common, str(outputs["arx"])],
                    {},
                    args.repeat,
                )
                require_same(
                    f"the released CSV, {size:,} rows",
                    outputs["once"].read_bytes(),
                    outputs["arx"].read_bytes(),
                    "ARX 3.9",
                )
            require_same(
                f"the CSV pandas-anon anonymize writes, {size:,} rows",
                outputs["cli"].read_bytes(),
                outputs["once"].read_bytes(),
                "once.py",
            )
            for who, run in (("pandas-anon anonymize", cli), ("once.py", once), ("ARX", arx)):
                if run is None:
                    continue
                ratio = "-" if arx is None else f"{arx.seconds / run.seconds:.2f}"
                table.append(
                    [f"{size:,}", who, f"{run.seconds:.2f}", f"{run.peak_mib:,.0f}", ratio]
                )
            theirs = None if arx is None else arx.seconds
            cases.append(
                Case(
                    f"cold process, licence {size:,} rows: pandas-anon anonymize",
                    cli.seconds,
                    theirs,
                    min_ratio=3.0 if size == SIZES[1] else None,
                )
            )
            cases.append(
                Case(f"cold process, licence {size:,} rows: once.py", once.seconds, theirs)
            )
            cases.append(
                Case(
                    f"peak memory, licence {size:,} rows: pandas-anon anonymize",
                    cli.peak_mib,
                    None if arx is None else arx.peak_mib,
                    unit="MiB",
                )
            )
    print(
        f"{len(QID)} QIs ({', '.join(QID)}), k={K}, {SUPPRESSION:.0%}, {METRIC}; fresh process "
        "each, best of 3; the three output files byte for byte the same"
    )
    print(
        tabulate(
            table,
            headers=["rows", "tool", "seconds", "peak MiB", "ARX / this"],
            disable_numparse=True,
        )
    )
    return cases


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    return harness.measured(__doc__.splitlines()[0], argv, measure)


if __name__ == "__main__":
    main()
    sys.exit(0)
