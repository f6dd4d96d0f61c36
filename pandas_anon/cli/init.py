"""``pandas-anon init [PATH]``: read a repository's data files and write a ``.pandas-anon.toml``
for its maintainer to review, as ``pre-commit sample-config`` writes a configuration to start
from (the reading and the writing are :mod:`pandas_anon.gate.classify`'s).

Exit status: 0 written (or printed with ``--stdout``), 2 bad usage, a PATH that is no folder,
or a configuration already there (``--force`` replaces it).
"""

from __future__ import annotations

import argparse
import sys

HELP = "write a .pandas-anon.toml for a repository's data files (count tables declared)"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``init``."""
    from pandas_anon.params import from_text

    command.description = (
        "Classify each data file below PATH (those git lists when PATH is in a git "
        "repository) as person-level, a count table or unreadable, and write a commented "
        ".pandas-anon.toml in PATH for you to review before `pandas-anon check` uses it."
    )
    command.add_argument(
        "path", nargs="?", default=".", metavar="PATH", help="the repository (default: .)"
    )
    command.add_argument(
        "--force", action="store_true", help="replace a .pandas-anon.toml already in PATH"
    )
    command.add_argument(
        "--stdout",
        action="store_true",
        help="print the configuration instead of writing it (the summary goes to stderr)",
    )
    command.add_argument(
        "--min-count",
        metavar="N",
        type=from_text,
        default=3,
        help="the smallest count a count table may publish besides 0, written in each count "
        "table's rule (default: 3)",
    )


def run(args: argparse.Namespace) -> int:
    """Classify the data files, write (or print) the configuration, print the summary."""
    from pathlib import Path

    from pandas_anon.errors import InputFileError, OutputFileError
    from pandas_anon.gate.classify import CONFIG_NAME, classify, configuration, summary
    from pandas_anon.params import whole, writing

    root = Path(args.path)
    if not root.is_dir():
        raise InputFileError(f"{root} is not a folder; give the repository's folder")
    target = root / CONFIG_NAME
    if not args.stdout and target.exists() and not args.force:
        raise OutputFileError(
            f"{target} already exists; review it, or replace it with --force (or print the "
            "new one with --stdout)"
        )
    tables = classify(root)
    text = configuration(tables, min_count=whole(args.min_count, "--min-count", example=5))
    lines = [f"pandas-anon init: {summary(tables)}"]
    lines += [f"  {table.name}: {table.describe()}" for table in tables]
    if args.stdout:
        print(text, end="")
        print("\n".join(lines), file=sys.stderr)
        return 0
    with writing(str(target)):
        target.write_text(text, encoding="utf-8")
    lines.append(f"wrote {target}: review it, then run pandas-anon check on the files")
    print("\n".join(lines))
    return 0
