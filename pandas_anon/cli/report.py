"""``pandas-anon report FILE -o report.html``: the table's re-identification risk as one
self-contained HTML page to hand on (:mod:`pandas_anon.studies.handover`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pandas_anon.cli.options import add_input_limits, column_list, fraction, positive

HELP = "write a table's risk report as one self-contained HTML page (counts only)"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``report``."""
    from pandas_anon.cli.copies import TABLE_HELP

    command.add_argument("file", help=f"the table: {TABLE_HELP}")
    command.add_argument("-o", "--output", required=True, help="the HTML page to write")
    command.add_argument("--qid", type=column_list, help="quasi-identifier (default: elected)")
    command.add_argument(
        "--k", type=positive("k", 5), default=5, help="k of the fixes compared (default 5)"
    )
    command.add_argument(
        "--max-size",
        type=positive("max_size", 3),
        default=3,
        help="largest column set the election considers (default 3)",
    )
    command.add_argument(
        "--target",
        metavar="COLUMN",
        help="a column to predict from the others: each fix is also measured by a "
        "classifier's accuracy on its release, beside the original's and the majority "
        "class's (needs pandas-anon[ml])",
    )
    command.add_argument(
        "--attacks",
        action="store_true",
        help="also measure WP29's three risks by attack (singling out, linkability, and "
        "inference of --target), on the file and on each fix's release",
    )
    sample = command.add_mutually_exclusive_group()
    sample.add_argument(
        "--population",
        metavar="N",
        type=positive("population", 1_000_000),
        help="the file is a sample of a population of N people: the summary adds the "
        "estimated population uniques",
    )
    sample.add_argument(
        "--sampling-fraction",
        metavar="F",
        type=fraction("sampling_fraction"),
        help="the file is this share of its population, in (0, 1]: as --population",
    )
    command.add_argument("--sep", help="field delimiter (default: detected)")
    command.add_argument("--encoding", help="text encoding (default: detected)")
    add_input_limits(command)


def run(args: argparse.Namespace) -> int:
    """Read the table, measure it, write the page; print where it went."""
    from pandas_anon.cli.copies import read_table_of
    from pandas_anon.gate.io import typed_and_text
    from pandas_anon.gate.parsers import sniff
    from pandas_anon.params import output_file
    from pandas_anon.studies.handover import report_html

    output_file(args.output)  # a directory or a missing folder: said before any work
    name, table = read_table_of(args.file, args)
    # typed, as compare reads it: a year is a number, whose fixes are intervals
    frame, _ = typed_and_text(table.frame, as_text=sniff(name) == "delimited")
    report_html(
        frame,
        args.output,
        qid=args.qid,
        k=args.k,
        max_size=args.max_size,
        title=Path(args.file).name,
        target=args.target,
        population=args.population,
        sampling_fraction=args.sampling_fraction,
        attacks=args.attacks,
    )
    print(f"wrote {args.output}")
    return 0
