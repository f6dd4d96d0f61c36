"""``pandas-anon check FILE...``: the gate that fails a commit whose tables single people out
(the check itself is :mod:`pandas_anon.gate.check`).

Exit status: 0 every file passes, 1 a file exceeds its limits, 2 bad usage, a bad
configuration or an unreadable file (one ``pandas-anon: error: FILE: reason`` line each; the
other files are still checked). The table report is silent when everything passes, unless
``--verbose``; ``--format json`` always prints the full report (a CI artifact).
"""

from __future__ import annotations

import argparse
import sys

from pandas_anon.errors import InvalidParameterError

HELP = "fail when a CSV/TSV exposes more singletons than allowed (a CI gate)"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``check``."""
    from pandas_anon.params import from_text

    command.description = (
        "Exit 0 when every file is within its limits, 1 when one is not, 2 on bad "
        "usage, configuration or input. Without limits, no singleton is allowed."
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


def run(args: argparse.Namespace) -> int:
    """Check every file; print each file's error on stderr, then the report; return the exit
    status."""
    from pandas_anon.gate.check import JsonReporter, TextReporter, check_files, exit_status
    from pandas_anon.gate.config import load_config

    config = load_config(args.config)
    results = check_files(args.files, config, _settings_given(args))
    for result in results:
        if result.error:
            print(f"pandas-anon: error: {result.error}", file=sys.stderr)
    reporter = JsonReporter() if args.format == "json" else TextReporter(verbose=args.verbose)
    text = reporter.report(results)
    if text:
        print(text)
    return exit_status(results)


def _settings_given(args: argparse.Namespace) -> dict:
    """The settings fields given as options, checked as the configuration's are."""
    from pandas_anon.gate.config import KEYS

    values: dict = {}
    for key in ("qid", "max_singletons", "k", "keep_missing", "allow_identifiers"):
        raw = getattr(args, key)
        if raw is not None:
            try:
                values.update(KEYS[key](raw))
            except ValueError as problem:
                raise InvalidParameterError(f"--{key.replace('_', '-')}: {problem}") from None
    return values
