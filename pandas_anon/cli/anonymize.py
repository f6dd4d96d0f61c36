"""``pandas-anon anonymize IN OUT --k K``: a k-anonymous copy of a table (full-domain
generalization), never written over the input unless ``--force``, every cell it did not change
written as the input wrote it."""

from __future__ import annotations

import argparse
import os
from functools import partial

from pandas_anon.cli.copies import add_copy_arguments, read_input, write_copy
from pandas_anon.cli.options import add_search_options, checked, column_list, fraction, positive
from pandas_anon.errors import InvalidParameterError

HELP = "write a k-anonymous copy of a table (every released column, or --qid)"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``anonymize`` (the algorithms and identifier treatments are kanon's)."""
    from pandas_anon.anonymization.algorithms import algorithms
    from pandas_anon.anonymization.mondrian.dimensions import REPRESENTATIONS
    from pandas_anon.params import real

    add_copy_arguments(command)
    command.add_argument("--k", type=positive("k", 5), required=True, help="smallest class size")
    command.add_argument(
        "--qid", type=column_list, help="quasi-identifier (default: elected with best_qid)"
    )
    command.add_argument(
        "--algo",
        choices=sorted(algorithms()),
        help="the method (default: with --qid, ola; without, the method keeping the most of "
        "every released column, k-anonymous on all of them together)",
    )
    command.add_argument(
        "--relaxed",
        action="store_true",
        help="with --algo mondrian: values equal to the median may go to either half",
    )
    command.add_argument(
        "--choose",
        choices=("width", "gain"),
        default="width",
        help="with --algo mondrian: cut the widest dimension (default) or the best gain",
    )
    command.add_argument(
        "--represent",
        choices=REPRESENTATIONS,
        default="range",
        help="with --algo mondrian: how a numeric column's classes are written (default range)",
    )
    add_search_options(command)
    command.add_argument(
        "--sensitive", metavar="COLUMN", help="sensitive column for --l and --t (kept as it is)"
    )
    command.add_argument(
        "--l",
        type=checked(partial(real, name="l", low=1)),
        help="l-diversity of the sensitive column",
    )
    command.add_argument(
        "--l-variant",
        choices=("distinct", "entropy", "recursive"),
        default="distinct",
        help="which l-diversity (default distinct)",
    )
    command.add_argument(
        "--c",
        type=checked(partial(real, name="c", low=0, above=True)),
        default=1.0,
        help="c of recursive (c, l)-diversity (default 1)",
    )
    command.add_argument("--t", type=fraction("t"), help="t-closeness of the sensitive column")
    command.add_argument(
        "--target",
        metavar="COLUMN",
        help="a column to predict from the others (e.g. the sensitive one): the report adds a "
        "classifier's accuracy on the copy, the original and the majority class (needs "
        "pandas-anon[ml])",
    )


def _algorithm(args: argparse.Namespace) -> object:
    """The algorithm asked for: its name, or Mondrian with its options."""
    if args.algo == "mondrian":
        from pandas_anon.anonymization.mondrian.algorithm import Mondrian

        return Mondrian(relaxed=args.relaxed, choose=args.choose, represent=args.represent)
    if args.relaxed or args.represent != "range" or args.choose != "width":
        raise InvalidParameterError(
            f"--relaxed, --choose and --represent are options of --algo mondrian, not of "
            f"{args.algo or 'the default'}"
        )
    return args.algo


def run(args: argparse.Namespace) -> int:
    """Anonymize on the typed read, write from the text read (see
    :func:`~pandas_anon.cli.copies.as_written`)."""
    from pandas_anon.anonymization.kanon import kanon
    from pandas_anon.privacy.models import LDiversity

    source = read_input(args)
    frame, merged = source.frame(
        [c for c in args.qid or source.typed.columns if c != args.sensitive]
    )
    l = None if args.l is None else LDiversity(args.l, args.l_variant, c=args.c)  # noqa: E741
    out = kanon(
        frame,
        args.k,
        qid=args.qid,
        hierarchies=source.hierarchies or None,
        algo=_algorithm(args),
        max_suppression=args.max_suppression,
        metric=args.metric,
        sensitive=args.sensitive,
        l=l,
        t=args.t,
        identifiers=args.identifiers,
        salt=os.environ.get("PANDAS_ANON_SALT") or None,
        suppress="drop" if args.drop_suppressed else "mask",
        target=args.target,
    )
    summary = out.anon.report()
    write_copy(args, source, out, frame, summary.qid, merged, summary)
    return 0
