"""``pandas-anon compare FILE --k K``: anonymization methods side by side on a CSV (global,
Mondrian, local recoding by default), each release measured the same way; nothing is
written."""

from __future__ import annotations

import argparse
import json

from pandas_anon.cli.copies import hierarchy_option, read_source
from pandas_anon.cli.options import add_file_options, add_search_options, column_list, positive

HELP = "compare anonymization methods on a CSV (global, Mondrian, local recoding)"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``compare``."""
    from pandas_anon.studies.compare import DEFAULT_METHODS

    command.add_argument("file", help="CSV/TSV file (.gz, .bz2, .xz, .zip accepted)")
    command.add_argument("--k", type=positive("k", 5), required=True, help="smallest class size")
    command.add_argument(
        "--qid", type=column_list, help="quasi-identifier (default: elected once for all)"
    )
    command.add_argument(
        "--methods",
        type=column_list,
        default=list(DEFAULT_METHODS),
        metavar="A,B,...",
        help=f"algorithms to compare (default {','.join(DEFAULT_METHODS)})",
    )
    add_search_options(command)
    command.add_argument(
        "--hierarchy",
        type=hierarchy_option,
        action="append",
        metavar="COLUMN=NAME|PATH",
        help="hierarchy of a QID column: a registered name or a hierarchy CSV file; repeat",
    )
    add_file_options(command)


def run(args: argparse.Namespace) -> int:
    """Read the file, run each method, print the table."""
    from pandas_anon.studies.compare import compare

    source = read_source(args.file, args)  # as anonymize reads it (numbers spelled two ways)
    frame, _ = source.frame(list(args.qid or source.typed.columns))
    result = compare(
        frame,
        args.k,
        methods=args.methods,
        qid=args.qid,
        hierarchies=source.hierarchies or None,
        max_suppression=args.max_suppression,
        metric=args.metric,
    )
    if args.format == "json":
        payload = {"file": str(args.file), **result.to_dict()}
        print(json.dumps(payload, indent=2, default=str, ensure_ascii=False))
    else:
        print(repr(result))
    return 0
