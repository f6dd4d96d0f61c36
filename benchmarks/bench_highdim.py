"""High-dimensional quasi-identifiers against ARX 3.9: optimal full-domain search and local recoding.

UCI Adult with its 9 quasi-identifiers and ARX's hierarchies, and the Valle d'Aosta licence
file (87,642 rows) with 8, 10 and 12 of its 13 non-identifying columns as quasi-identifiers,
taken in :data:`LICENCE_ORDER` (most distinct values first, the most identifying), at k = 5
with at most 0 % and 5 % of the rows suppressed. Per configuration, interleaved (ours, then
ARX's):

- ``pandas_anon.anonymize(..., algo="ola", metric="precision")`` against ARX's optimal
  full-domain search (Flash, precision metric): both optima (levels in the order of the
  quasi-identifiers; ``same`` when equal, else ARX's levels, and both nodes' precision by our
  evaluator below the table, which tie when ARX's node differs only by the tie rule), rows
  suppressed, both times and the ratio ARX / ours;
- ``pandas_anon.anonymize(..., algo="local")`` against ARX's local recoding (its global step
  at 99 % suppression with the loss metric, then ``optimizeIterativeFast(output, 0.01)``:
  the driver fixes the limit, so ARX's run is the same at 0 % and 5 %, timed once per table
  and shown on both rows): rows suppressed and classes kept by each, both times, the ratio.

The licence columns' hierarchies are built once with our builders and given to both tools
(ARX reads them written by ``write_arx_csv``, the data as the same labels, a missing value as
``NULL`` kept apart up to ``*``, as ours keeps it): years by intervals of 5, 10, 20; dates by
month and year (``dates(levels=("month", "year"))``); comune -> province
(``Hierarchy.from_columns``); the others as ``auto`` builds them (intervals for the licence
points, suppression for text). Both tools then search the same lattice.

Times: a first run of each tool, bounded by ``--timeout`` seconds (600: ten minutes), killed
beyond it and shown as ``> 600 s``; when it took less than :data:`SLOW` seconds, it was the
warm-up and the median of ``--repeat`` timed runs is shown (ours after the JVM goes quiet,
``bench_arx.settle``; ARX's in its warm JVM, ``harness.arx_server``); otherwise that one run
is shown (``1 run``; ARX's is its second run, or when the first took over :data:`AGAIN`
seconds, that one as seen from here, the data's loading included). Ours runs in a forked
child of the benchmark (warm: the data loaded, the modules imported), so that it can be
killed.
                                           every configuration: ratio ARX / ours >= 1
ARX 3.9's optimal search refuses a lattice above 100,000 nodes ("Solution space is too large
to execute the optimal algorithm", its heuristic search threshold), so its global step and its
local recoding too: with 12 quasi-identifiers (307,200 nodes) its rows say ``error`` and ours
are information only.

ARX is skipped with a message where Java or ``../shared/tools/arx`` is missing. Not in
run_all: the whole grid runs for longer than run_all's scripts together.
"""

from __future__ import annotations

import csv
import io
import multiprocessing
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tabulate import tabulate

import pandas_anon
from pandas_anon.datasets import load_adult, load_driver_licenses
from pandas_anon.hierarchy import Hierarchy, auto, dates, intervals, write_arx_csv

import harness
from bench_arx import NINE, Measured, median_of, settle, ties
from bench_kanon import adult_hierarchies
from harness import ADULT_CSV, Case, arx_server

#: The 13 non-identifying licence columns, most distinct values first (the number of distinct
#: values in the file, missing included, in brackets); the first 8, 10 and 12 are the
#: quasi-identifiers of the grid.
LICENCE_ORDER = [
    "data_rilascio",  # 14,290: date of issue
    "data_abilitazione_a",  # 8,360
    "data_scadenza",  # 3,985: expiry date
    "stato_estero_nascita",  # 129: country of birth (abroad), mostly missing
    "anno_nascita",  # 86: year of birth
    "comune_residenza",  # 79
    "stato_estero_primo_rilascio",  # 46: country of first issue, mostly missing
    "punti_patente",  # 31: licence points
    "categoria_patente",  # 14
    "sesso",  # 3
    "abilitato_a",  # 2
    "provincia_residenza",  # 1
    "regione_residenza",  # 1
]
WIDTHS = (8, 10, 12)
K = 5
SUPPRESSIONS = (0.0, 0.05)
METRIC = "precision"
#: A first run longer than this (seconds) is shown as it is, not repeated.
SLOW = 20.0
#: ARX's first run longer than this (seconds) is shown as it is, timed from here (the JVM
#: loading the data and hierarchies included); a shorter one is followed by one timed run.
AGAIN = 120.0
#: ARX's (and our) cells for a missing value: ``NULL`` is ARX's own spelling of it.
MISSING = "NULL"


@dataclass
class Table:
    """One table of the grid: our frame and hierarchies, ARX's CSV and hierarchy pattern."""

    name: str
    frame: pd.DataFrame
    qid: list[str]
    hierarchies: dict[str, Hierarchy]
    csv: Path
    pattern: str


@dataclass
class Timed:
    """One tool's figures for one configuration: seconds (None: killed at the timeout),
    runs timed, and what it found."""

    seconds: float | None
    runs: int
    found: dict
    error: str = ""  # the tool's own error, where it answered one

    def shown(self, timeout: float) -> str:
        if self.error:
            return "error"
        if self.seconds is None:
            return f"> {timeout:.0f} s"
        return f"{self.seconds:.2f}" + (" (1 run)" if self.runs == 1 else "")


def licence_hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """Each licence column's hierarchy, built once with our builders."""
    built = {c: auto(frame[c], name=c) for c in LICENCE_ORDER}
    built["anno_nascita"] = intervals(frame["anno_nascita"], width=[5, 10, 20], name="anno_nascita")
    for c in ("data_rilascio", "data_abilitazione_a", "data_scadenza"):
        built[c] = dates(frame[c], levels=("month", "year"), name=c)
    built["comune_residenza"] = Hierarchy.from_columns(
        frame, ["comune_residenza", "provincia_residenza"], name="comune_residenza"
    )
    return built


def write_for_arx(frame: pd.DataFrame, hierarchies: dict[str, Hierarchy], folder: Path) -> Path:
    """Write ``frame``'s columns (each with a hierarchy) and their hierarchies as ARX reads
    them, into ``folder``: each cell as its hierarchy's level-0 label is written, a missing
    one as :data:`MISSING`, which each hierarchy keeps apart up to ``*`` (as ours keep a
    missing value). Return the CSV's path (the hierarchies are ``hierarchy_<column>.csv``)."""
    cells = {}
    for column, hierarchy in hierarchies.items():
        rows = list(csv.reader(io.StringIO(write_arx_csv(hierarchy)), delimiter=";"))
        if any(MISSING in row for row in rows):
            raise harness.Mismatch(f"{column}: a label is spelled {MISSING}, ARX's missing value")
        series = frame[column]
        uniques = pd.Index(series.unique())
        positions = hierarchy.positions(uniques, column=column)
        labels = np.array([rows[p][0] if p >= 0 else MISSING for p in positions], dtype=object)
        cells[column] = labels[uniques.get_indexer(series)]
        if (positions < 0).any():
            rows.append([MISSING] * (hierarchy.n_levels - 1) + ["*"])
        with open(folder / f"hierarchy_{column}.csv", "w", encoding="utf-8", newline="") as fh:
            csv.writer(fh, delimiter=";", lineterminator="\n").writerows(rows)
    data = folder / "data.csv"
    pd.DataFrame(cells).to_csv(data, sep=";", index=False)
    return data


def tables(folder: Path) -> list[Table]:
    """The grid's tables: Adult with 9 QIs, the licences with 8, 10, 12."""
    adult = Table(
        "Adult, 9 QIs",
        load_adult(),
        NINE,
        adult_hierarchies(),
        ADULT_CSV / "adult.csv",
        str(ADULT_CSV / "adult_hierarchy_%s.csv"),
    )
    licences = load_driver_licenses()[LICENCE_ORDER]
    hierarchies = licence_hierarchies(licences)
    csv = write_for_arx(licences, hierarchies, folder)
    pattern = str(folder / "hierarchy_%s.csv")
    return [adult] + [
        Table(f"Valle d'Aosta, {n} QIs", licences, LICENCE_ORDER[:n], hierarchies, csv, pattern)
        for n in WIDTHS
    ]


def found(decision: Any, qid: list[str], algo: str) -> dict:
    """What a decision of ours found, in the driver's terms (levels: the optimum's)."""
    report = decision.report
    return {
        "levels": [int(report.levels[c]) for c in qid] if algo == "ola" else None,
        "suppressed": int(report.suppressed),
        "classes": int(report.classes),
        "precision": float(report.metrics["precision"]),
    }


def ours(
    table: Table, suppression: float, algo: str, repeat: int, timeout: float, jvm: int | None
) -> Timed:
    """Our decision of one configuration, run in a forked child killed after ``timeout``."""

    def decide() -> Any:
        return pandas_anon.anonymize(
            table.frame,
            K,
            qid=table.qid,
            hierarchies={c: table.hierarchies[c] for c in table.qid},
            algo=algo,
            max_suppression=suppression,
            metric=METRIC,
            progress=False,
        )

    def child(send: Any) -> None:
        start = time.perf_counter()
        decision = decide()
        first = time.perf_counter() - start
        send.send((first, 1, found(decision, table.qid, algo)))
        if first < SLOW:
            settle(decide, jvm)
            seconds, decision = median_of(decide, repeat)
            send.send((seconds, repeat, found(decision, table.qid, algo)))

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=child, args=(send,), daemon=True)
    process.start()
    send.close()  # the child's end alone: a child that fails ends the wait (EOFError)
    try:
        if not receive.poll(timeout):
            return Timed(None, 0, {})
        first = receive.recv()
        if first[0] >= SLOW:
            return Timed(*first)
        return Timed(*receive.recv())
    except EOFError:  # the child failed, its traceback on stderr
        process.join()
        return Timed(None, 0, {}, f"exit code {process.exitcode}")
    finally:
        process.kill()
        process.join()


class Jvm:
    """ARX's warm JVM (``harness.arx_server``), started again after a run killed at the
    timeout."""

    def __init__(self) -> None:
        self.server = arx_server()
        self.arx = None if self.server is None else self.server.__enter__()

    @property
    def pid(self) -> int | None:
        return None if self.arx is None else self.arx.process.pid

    def run(
        self, table: Table, suppression: float, metric: str, repeat: int, timeout: float
    ) -> Timed | None:
        """ARX's figures for one configuration (None without ARX)."""
        if self.arx is None:
            return None
        arx = self.arx
        killer = threading.Timer(timeout, arx.process.kill)
        killer.start()
        start = time.perf_counter()
        try:  # the untimed first run, as the timeout's measure
            answer = self.request(table, suppression, metric, 0)
        except RuntimeError as error:  # ARX's own error (its message)
            return Timed(None, 0, {}, str(error))
        except ValueError:  # killed: its answer cut short
            answer = None
        finally:
            killer.cancel()
        first = time.perf_counter() - start
        if answer is None or arx.process.poll() is not None:
            arx.process.kill()
            self.restart()
            return Timed(None, 0, {})
        if first >= AGAIN:  # its wall time, the data's loading included
            return Timed(first, 1, answer)
        runs = repeat if first < SLOW else 1
        answer = self.request(table, suppression, metric, runs)
        return Timed(answer["median_anon_ms"] / 1000, runs, answer)

    def request(self, table: Table, suppression: float, metric: str, repeat: int) -> dict:
        assert self.arx is not None
        return self.arx.run(
            table.csv,
            table.pattern,
            table.qid,
            k=K,
            suppression=suppression,
            metric=metric,
            repeats=repeat,
        )

    def restart(self) -> None:
        self.arx.process.wait()
        self.server = arx_server()
        self.arx = self.server.__enter__()

    def close(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)


def grid(repeat: int, timeout: float) -> list[Case]:
    """Run the grid, print its table; one case per configuration."""
    print(f"Adult and Valle d'Aosta, k={K}: first runs bounded by {timeout:.0f} s")
    rows, cases = [], []
    with tempfile.TemporaryDirectory() as work:
        jvm = Jvm()
        try:
            for table in tables(Path(work)):
                arx_local: Timed | None = None
                for suppression in SUPPRESSIONS:
                    for algo in ("ola", "local"):
                        label = f"{table.name}, {suppression:.0%}, {algo}"
                        mine = ours(table, suppression, algo, repeat, timeout, jvm.pid)
                        if algo == "ola":
                            theirs = jvm.run(table, suppression, METRIC, repeat, timeout)
                        else:  # the driver fixes ARX's limit: one run a table
                            arx_local = arx_local or jvm.run(table, 0.99, "local", repeat, timeout)
                            theirs = arx_local
                        print(
                            f"   {label}: ours {mine.shown(timeout)}, ARX "
                            f"{'-' if theirs is None else theirs.shown(timeout)}",
                            flush=True,
                        )
                        for who, timed in (("ours", mine), ("ARX", theirs)):
                            if timed is not None and timed.error:  # ARX's: of its lattice
                                print(f"   {label}: {who} failed: {timed.error}")
                        if algo == "ola" and mine.found and theirs is not None and theirs.found:
                            explain_ties(label, table, suppression, mine, theirs)
                        rows.append(row(label, algo, mine, theirs, timeout))
                        cases.append(case(label, mine, theirs, timeout))
        finally:
            jvm.close()
    print(tabulate(rows, headers=HEADERS, disable_numparse=True))
    return cases


HEADERS = [
    "configuration",
    "ours: levels / classes",
    "ARX's",
    "suppressed",
    "ARX",
    "ours s",
    "ARX s",
    "ARX / ours",
]


def row(label: str, algo: str, mine: Timed, theirs: Timed | None, timeout: float) -> list[str]:
    """One line of the table."""
    arx = theirs.found if theirs is not None else {}
    if algo == "ola":
        kept = str(mine.found.get("levels", "-"))
        if not arx:
            other = "-"
        else:
            other = "same" if arx["levels"] == mine.found.get("levels") else str(arx["levels"])
    else:
        kept = f"{mine.found['classes']:,} classes" if mine.found else "-"
        other = f"{arx['classes']:,} classes" if arx else "-"
    ratio = "-"
    if mine.seconds is not None and theirs is not None and not theirs.error:
        if theirs.seconds is None:
            ratio = f"> {timeout / mine.seconds:.1f}"
        else:
            ratio = f"{theirs.seconds / mine.seconds:.2f}"
    return [
        label,
        kept,
        other,
        f"{mine.found['suppressed']:,}" if mine.found else "-",
        f"{arx['suppressed']:,}" if arx else "-",
        mine.shown(timeout),
        "-" if theirs is None else theirs.shown(timeout),
        ratio,
    ]


def case(label: str, mine: Timed, theirs: Timed | None, timeout: float) -> Case:
    """The configuration's case: ours at least as fast as ARX (a run killed at the timeout
    counts as ``timeout`` seconds, so ours killed fails and ARX killed passes); information
    only where ARX answered an error (it refuses lattices above 100,000 nodes) or is missing."""
    if theirs is None or theirs.error:
        return Case(f"{label} (ARX: {'error' if theirs else '-'})", mine.seconds or timeout, None)
    return Case(label, mine.seconds or timeout, theirs.seconds or timeout, min_ratio=1.0)


def explain_ties(label: str, table: Table, suppression: float, mine: Timed, theirs: Timed) -> None:
    """Where ARX's optimum is another node: both nodes' precision and verdict by our
    evaluator (``bench_arx.ties``)."""
    ties(
        table.frame,
        table.hierarchies,
        [
            Measured(
                label,
                table.qid,
                K,
                suppression,
                METRIC,
                mine.found["levels"],
                mine.found["suppressed"],
                0.0,
                0.0,
                theirs.found,
                0.0,
                0.0,
            )
        ],
    )


def main(argv: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    def measure(args: Any) -> list[Case]:
        return grid(args.repeat, args.timeout)

    return harness.measured(__doc__.splitlines()[0], argv, measure, timeout_option)


def timeout_option(parser: Any) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds a first run of either tool may take before it is killed (default 600)",
    )


if __name__ == "__main__":
    main()
    sys.exit(0)
