"""``pandas-anon check FILE...``: the gate that fails a commit whose tables single people out.

Each file is read (only the columns needed, through :func:`pandas_anon.gate.io.read_columns`),
its quasi-identifier taken from the command line or the configuration
(:mod:`pandas_anon.gate.config`) or else elected (:func:`pandas_anon.best_qid`), and its singletons
and smallest class compared with the file's limits (:class:`pandas_anon.gate.pandera_checks.Limits`).

Exit status: 0 every file passes, 1 a file exceeds its limits, 2 bad usage, a bad
configuration or an unreadable file (one ``pandas-anon: error: FILE: reason`` line each; the
other files are still checked). The table report is silent when everything passes, unless
``--verbose``; ``--format json`` always prints the full report (a CI artifact). Reports hold
counts, fractions and column names, never a value. Files are only read, never written.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.detect.exposure import scan
from pandas_anon.errors import AnonError, InputFileError, InvalidParameterError, capture_warnings
from pandas_anon.gate.config import KEYS, Settings, load_config
from pandas_anon.gate.io import read_columns, tables_in
from pandas_anon.gate.pandera_checks import Exposure, Limits, measure, share
from pandas_anon.params import from_text

#: Exit status of each file status; the command exits with the highest.
EXIT = {"pass": 0, "skipped": 0, "fail": 1, "error": 2}


def add_check_command(commands: argparse._SubParsersAction) -> None:
    """Add ``pandas-anon check`` to the CLI's subcommands."""
    command = commands.add_parser(
        "check",
        help="fail when a CSV/TSV exposes more singletons than allowed (a CI gate)",
        description="Exit 0 when every file is within its limits, 1 when one is not, 2 on bad "
        "usage, configuration or input. Without limits, no singleton is allowed.",
    )
    command.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help=".csv, .tsv or delimited .txt tables, optionally compressed "
        "(.gz, .bz2, .xz), or .zip archives of them",
    )
    command.add_argument(
        "--qid",
        help="quasi-identifier, e.g. year,town,sex (default: the "
        "configuration's, else elected per file)",
    )
    command.add_argument(
        "--max-singletons",
        metavar="0.5%|N",
        help="most singletons allowed: a percentage of the rows examined or a count",
    )
    command.add_argument(
        "--k", metavar="N", type=from_text, help="smallest class size required (k-anonymity)"
    )
    command.add_argument(
        "--keep-missing",
        action="store_true",
        default=None,
        help="count a missing value as a value (the default)",
    )
    command.add_argument(
        "--drop-missing",
        dest="keep_missing",
        action="store_false",
        help="leave out rows missing a QID value instead (the seed paper's way)",
    )
    command.add_argument(
        "--allow-identifier",
        dest="allow_identifiers",
        metavar="COLUMNS",
        help="columns unique on (nearly) every row that may be published, "
        "e.g. a random record number (default: none; they fail)",
    )
    command.add_argument("--format", choices=("table", "json"), default="table")
    command.add_argument(
        "--config",
        metavar="PATH",
        help="pyproject.toml or .pandas-anon.toml (default: found from the "
        "current folder up to the repository root)",
    )
    command.add_argument("--verbose", "-v", action="store_true", help="report passing files too")
    command.set_defaults(run=run_check_command)


def run_check_command(args: argparse.Namespace) -> int:
    """Check every file; print the report; return the exit status."""
    config = load_config(args.config)
    given = _command_line(args)
    results = [
        result for file in args.files for result in check_tables(file, config.settings(file, given))
    ]
    for result in results:
        if result.error:
            print(f"pandas-anon: error: {result.error}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(to_json(results), indent=2, ensure_ascii=False))
    elif args.verbose or any(result.status == "fail" for result in results):
        print(render(results, verbose=args.verbose))
    return max(EXIT[result.status] for result in results)


def _command_line(args: argparse.Namespace) -> dict:
    """Settings fields given as options, checked like the configuration's."""
    values: dict = {}
    for key in ("qid", "max_singletons", "k", "keep_missing", "allow_identifiers"):
        raw = getattr(args, key)
        if raw is not None:
            try:
                values.update(KEYS[key](raw))
            except ValueError as problem:
                raise InvalidParameterError(f"--{key.replace('_', '-')}: {problem}") from None
    return values


@dataclass
class FileResult:
    """What ``check`` found in one file."""

    file: str
    status: str  # pass, fail, error or skipped
    exposure: Exposure | None = None
    elected: bool = False
    limits: Limits | None = None
    problems: list[str] = field(default_factory=list)
    error: str = ""
    warnings: list[str] = field(default_factory=list)
    reason: str = ""  # why it is skipped, when a file kind says so

    def to_dict(self) -> dict:
        out: dict = {"file": self.file, "status": self.status}
        if self.error:
            out["error"] = self.error
        if self.reason:
            out["reason"] = self.reason
        if self.exposure is not None and self.limits is not None:
            out.update(self.exposure.to_dict())
            out["qid_elected"] = self.elected
            out["limits"] = asdict(self.limits)
            out["problems"] = self.problems
        if self.warnings:
            out["warnings"] = self.warnings
        return out


def check_tables(file: str, settings: Settings) -> list[FileResult]:
    """Check each table the file ``file`` holds (:func:`pandas_anon.gate.io.tables_in`).

    A ``.zip`` gives a result per member, named ``archive.zip:member``: a check of each
    ``.csv``/``.tsv``/``.txt`` table, ``skipped`` with the reason for anything else; a ``.txt``
    of prose is ``skipped``; an archive that cannot be opened is one ``error``. Every table of
    the file gets the file's ``settings``.
    """
    if settings.skip:
        return [check_file(file, settings)]
    try:
        entries = tables_in(file, sep=settings.delimiter, encoding=settings.encoding)
    except InputFileError as error:
        return [FileResult(file, "error", error=str(error))]
    return [
        FileResult(entry.name, "skipped", reason=entry.skipped)
        if entry.skipped
        else check_file(entry.name, settings)
        for entry in entries
    ]


def check_file(file: str, settings: Settings) -> FileResult:
    """Measure one file against its settings; an unusable file gives an ``error`` result.

    With a QID configured only its columns are read and measured. Without one, the gate's
    rule (:func:`pandas_anon.detect.exposure.scan`) reads every column: a direct identifier column
    fails the file unless ``allow_identifiers`` names it, and the most exposed column set of
    up to ``max_size`` columns (ranked by rows in classes below ``k``, missing counted as a
    value) is measured against the limits.
    """
    if settings.skip:
        return FileResult(file, "skipped")
    result = FileResult(file, "error")
    limits = settings.limits()
    identifiers: list[str] = []
    try:
        with _warnings_of(file, result.warnings.append):
            frame = read_columns(
                file, usecols=settings.qid, sep=settings.delimiter, encoding=settings.encoding
            )
            if frame.empty:
                raise InputFileError(
                    f"{file} has a header but no data rows; there is nothing to check"
                )
            qid: Sequence[str] | None = settings.qid
            if qid is None:
                found = scan(
                    frame,
                    k=max(limits.k or 2, 2),
                    max_size=settings.max_size,
                    allowed=settings.allow_identifiers,
                )
                identifiers = [
                    f"{f.describe()} identifies people on its own: drop it, hash it "
                    f"(pandas-anon anonymize --identifiers hash), or allow it by name "
                    f"(--allow-identifier, allow_identifiers)"
                    for f in found.identifiers
                ]
                qid = [str(c) for c in found.qid]
            if qid:
                result.exposure = measure(frame, qid, dropna=not settings.keep_missing)
    except AnonError as error:
        # file errors already begin with the path; any other error gets it in front
        result.error = str(error) if isinstance(error, InputFileError) else f"{file}: {error}"
        return result
    result.elected = settings.qid is None
    result.limits = limits
    result.problems = identifiers + (
        limits.violations(result.exposure) if result.exposure is not None else []
    )
    result.status = "fail" if result.problems else "pass"
    return result


@contextmanager
def _warnings_of(file: str, record: Callable[[str], None]) -> Iterator[None]:
    """Re-issue our warnings prefixed with the file's name (and record them), even when the
    file then fails; pass other libraries' warnings on unchanged."""

    def forward(w: warnings.WarningMessage) -> None:
        record(str(w.message))
        warnings.warn(f"{file}: {w.message}", w.category, stacklevel=2)

    with capture_warnings(forward):
        yield


def to_json(results: Sequence[FileResult]) -> dict:
    """The report as a JSON-able dict."""
    return {
        "passed": all(EXIT[r.status] == 0 for r in results),
        "files": [r.to_dict() for r in results],
    }


def render(results: Sequence[FileResult], *, verbose: bool) -> str:
    """The table of failing files (every measured file with ``verbose``), then the reasons."""
    shown = [r for r in results if r.status != "error" and (verbose or r.status == "fail")]
    rows = [_row(r) for r in shown]
    table = pd.DataFrame(
        rows, columns=["file", "rows", "QID", "singletons", "%", "k", "threshold", "status"]
    )
    failed = sum(r.status == "fail" for r in results)
    summary = (
        f"{failed} of {report.plural(len(results), 'file')} exceed{'s' if failed == 1 else ''} "
        "the limits"
        if failed
        else f"{report.plural(len(results), 'file')} checked, none exceeds the limits"
    )
    reasons = [f"{r.file}: {problem}" for r in results for problem in r.problems]
    reasons += [f"{r.file}: skipped, {r.reason}" for r in shown if r.reason]
    return "\n".join([report.render(f"pandas-anon check: {summary}", [], ("", table)), *reasons])


def _row(result: FileResult) -> tuple:
    found = result.exposure
    if found is None or result.limits is None:  # skipped
        return result.file, "", "", "", "", "", "", result.status.upper()
    qid = report.columns(found.qid) + (" elected" if result.elected else "")
    return (
        result.file,
        report.count(found.rows),
        qid,
        report.count(found.singletons),
        share(found.fraction),
        found.smallest_class,
        result.limits.describe(),
        result.status.upper(),
    )
