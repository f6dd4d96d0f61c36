"""``pandas-anon check FILE...``: the gate that fails a commit whose tables single people out
(the check itself is :mod:`pandas_anon.gate.check`).

Exit status: 0 every file passes, 1 a file exceeds its limits, 2 bad usage, a bad
configuration or an unreadable file (one ``pandas-anon: error: FILE: reason`` line each; the
other files are still checked). The table report is silent when everything passes, unless
``--verbose``; ``--format json`` (the full report, a CI artifact), ``github`` (GitHub Actions
annotations) and ``junit`` (JUnit XML, for GitLab and Jenkins) always print
(:mod:`pandas_anon.gate.reporters`).

``--`` ends the options: every word after it is a file name, even one that reads as an option
(a file named ``--allow-identifier=dati.csv``). The pre-commit hooks run :func:`hook`
(``python -m pandas_anon.cli.check``), which refuses to run without a ``--``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pandas_anon.cli.options import INPUT_LIMITS, add_input_limits
from pandas_anon.errors import InvalidParameterError

#: The word that ends the options: every word after it is a file name.
END_OF_OPTIONS = "--"

HELP = "fail when a table (CSV, JSON, Parquet, spreadsheet, zip) exposes people (a CI gate)"

#: The report formats of ``--format``: the keys of :data:`pandas_anon.gate.reporters.REPORTERS`
#: (named here so that ``--help`` does not import the gate).
FORMATS = ("table", "json", "github", "junit")


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``check``."""
    from pandas_anon.params import from_text

    command.description = (
        "Exit 0 when every file is within its limits, 1 when one is not, 2 on bad "
        "usage, configuration or input. Without limits, no singleton is allowed. Every "
        "word after -- is a file name, even one that begins with -."
    )
    command.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="tables: .csv, .tsv, delimited .txt, .json, .jsonl/.ndjson, .parquet, "
        ".xlsx or .ods (each sheet; needs pandas-anon[excel]), optionally compressed "
        "(.gz, .bz2, .xz), or .zip archives of them; put -- before them when a name may "
        "begin with -",
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
    sample = command.add_mutually_exclusive_group()
    sample.add_argument(
        "--population",
        metavar="N",
        type=from_text,
        help="the file is a sample of a population of N people: the singleton limit then "
        "reads the rows estimated unique in the population",
    )
    sample.add_argument(
        "--sampling-fraction",
        metavar="F",
        help="the file is this share of its population (0.1 or 10%%): as --population",
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
        "--header",
        action="store_true",
        default=None,
        help="the first line of delimited text is a header row (default: detected)",
    )
    command.add_argument(
        "--no-header",
        dest="header",
        action="store_false",
        help="the first line of delimited text is a row; its columns are named column 1, "
        "column 2, ...",
    )
    command.add_argument(
        "--max-subsets",
        metavar="N",
        type=from_text,
        help="most column subsets the election of a QID examines before the check fails "
        "(exit 2; default 1,000,000): the same file gets the same verdict on any machine",
    )
    command.add_argument(
        "--allow-identifier",
        dest="allow_identifiers",
        metavar="COLUMNS",
        help="columns unique on (nearly) every row that may be published, "
        "e.g. a random record number (default: none; they fail)",
    )
    counts = command.add_argument_group(
        "count tables",
        "aggregated tables, where each row is a cell counting people: the limits then count "
        "people, as on the table exploded to one row per person",
    )
    counts.add_argument("--count", metavar="COLUMN", help="the count column, e.g. n")
    counts.add_argument(
        "--counts",
        metavar="COLUMNS",
        help="one count column per category, e.g. m,f (a wide table)",
    )
    counts.add_argument(
        "--dimension",
        metavar="NAME",
        help="what the --counts columns spell, e.g. sex: a dimension the QID may name "
        "(default: category)",
    )
    counts.add_argument(
        "--min-count",
        metavar="N",
        type=from_text,
        help="smallest count a cell may publish besides 0 (the small-cell rule), e.g. 5",
    )
    add_input_limits(command)
    command.add_argument(
        "--engine",
        choices=("pandas", "dask"),
        help="where to read and count: pandas (each file in this process; the default) or "
        "dask (each FILE a Parquet file or folder of them, or a quoted glob of CSVs such as "
        "'data/*.csv', read and counted by Dask's workers, on the client's cluster when one "
        "is running; needs pandas-anon[dask])",
    )
    command.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="report: table (silent when every file passes, unless --verbose), json (the "
        "full report), github (GitHub Actions annotations), junit (JUnit XML); all but the "
        "table print for passing files too, none quotes a value (default: table)",
    )
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
    from pandas_anon.gate.check import check_files, exit_status
    from pandas_anon.gate.config import load_config
    from pandas_anon.gate.reporters import REPORTERS

    config = load_config(args.config)
    results = check_files(args.files, config, _settings_given(args))
    for result in results:
        if result.error:
            print(f"pandas-anon: error: {result.error}", file=sys.stderr)
    reporter = REPORTERS[args.format](args.verbose)
    text = reporter.report(results)
    if text:
        print(text)
    return exit_status(results)


def _settings_given(args: argparse.Namespace) -> dict:
    """The settings fields given as options, checked as the configuration's are."""
    from pandas_anon.gate.config import KEYS

    values: dict = {}
    keys = (
        "qid",
        "max_singletons",
        "k",
        "population",
        "sampling_fraction",
        "max_subsets",
        "keep_missing",
        "header",
        "allow_identifiers",
        "engine",
    )
    for key in (*keys, "count", "counts", "dimension", "min_count", *INPUT_LIMITS):
        raw = getattr(args, key)
        if raw is not None:
            try:
                values.update(KEYS[key](raw))
            except ValueError as problem:
                raise InvalidParameterError(f"--{key.replace('_', '-')}: {problem}") from None
    return values


def hook(argv: Sequence[str] | None = None) -> int:
    """The pre-commit hooks' entry: ``python -m pandas_anon.cli.check [OPTION...] -- FILE...``.

    pre-commit runs the hook's ``entry``, then its ``args``, then the staged file names, and a
    ``.pre-commit-config.yaml`` that sets ``args`` replaces the hook's own. Nothing but a
    ``--`` at the end of the args tells the options from the names, so a staged file named
    like an option (``--allow-identifier=dati.csv``, ``--config=lax.toml``) would otherwise
    change the check and escape it. Here the options are the words before the first ``--``
    and the files every word after it; without a ``--`` the hook does not guess where the
    options end, it fails (exit 2) saying how to end the args. A file named ``--`` in the
    working folder (the repository's root, where pre-commit runs) fails it too: staged, it
    would stand in for the ``--`` a configuration left out.

    Parameters
    ----------
    argv : sequence of str, optional
        The words after the command (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status of ``pandas-anon check`` on those words, or 2.
    """
    words = sys.argv[1:] if argv is None else list(argv)
    problem = None
    if END_OF_OPTIONS not in words:
        problem = (
            'the hook\'s args must end with -- (args: [--max-singletons, "1%", --]): the '
            "staged file names follow them, and a file named like an option "
            "(--allow-identifier=x.csv) must not be read as one"
        )
    elif os.path.lexists(END_OF_OPTIONS):
        problem = (
            "a file named -- is in the repository's root, where it could stand in for the -- "
            "that ends the hook's args; rename it"
        )
    if problem is not None:
        print(f"pandas-anon: error: {problem}", file=sys.stderr)
        return 2
    from pandas_anon.cli.main import main

    return main(["check", *words])


if __name__ == "__main__":
    # run as a module, this file is not the module `pandas_anon.cli.main` imports: use that one
    from pandas_anon.cli.check import hook as _hook

    sys.exit(_hook())
