"""``pandas-anon anonymize IN OUT --k K``: a k-anonymous copy of a CSV (full-domain
generalization), never written over the input unless ``--force``, every cell it did not change
written as the input wrote it."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from pandas_anon.cli.options import add_file_options, checked, column_list, fraction, positive
from pandas_anon.errors import (
    AnonWarning,
    ColumnNotFoundError,
    InvalidParameterError,
    OutputFileError,
    UnknownNameError,
    warn,
)

if TYPE_CHECKING:
    import pandas as pd

    from pandas_anon.hierarchy import Hierarchy

HELP = "write a k-anonymous copy of a CSV (full-domain generalization)"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``anonymize`` (the algorithms and identifier treatments are kanon's)."""
    from pandas_anon.anonymization.algorithms import algorithms
    from pandas_anon.anonymization.kanon import IDENTIFIER_TREATMENTS
    from pandas_anon.anonymization.mondrian.dimensions import REPRESENTATIONS
    from pandas_anon.params import real

    command.add_argument("input", help="CSV/TSV file to anonymize")
    command.add_argument(
        "output",
        help="where to write the anonymized copy (same delimiter, "
        "encoding and line ending as the input; never the input itself "
        "without --force)",
    )
    command.add_argument("--k", type=positive("k", 5), required=True, help="smallest class size")
    command.add_argument(
        "--qid", type=column_list, help="quasi-identifier (default: elected with best_qid)"
    )
    command.add_argument("--algo", choices=sorted(algorithms()), default="ola")
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
    command.add_argument(
        "--max-suppression",
        type=fraction("max_suppression"),
        default=0.0,
        help="largest share of rows that may be suppressed (default 0)",
    )
    command.add_argument("--metric", choices=("precision", "dm"), default="precision")
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
        "--identifiers",
        choices=IDENTIFIER_TREATMENTS,
        default="drop",
        help="what to do with direct identifier columns outside the QID "
        "(unique on nearly every row): drop them (default), hash them "
        "(keyed by $PANDAS_ANON_SALT, else a random key never stored) "
        "or keep them",
    )
    command.add_argument(
        "--drop-suppressed",
        action="store_true",
        help="leave suppressed rows out instead of masking them with *",
    )
    command.add_argument(
        "--hierarchy",
        type=_hierarchy_option,
        action="append",
        metavar="COLUMN=NAME|PATH",
        help="hierarchy of a QID column: a registered name (pandas-anon "
        "plugins lists them, e.g. comune=it.comune) or a hierarchy CSV file "
        "(a path with / or ending in .csv); repeat for more columns",
    )
    command.add_argument(
        "--force",
        action="store_true",
        help="allow OUT to be the input file (replaced once the copy is written)",
    )
    add_file_options(command)


def _algorithm(args: argparse.Namespace) -> object:
    """The algorithm asked for: its name, or Mondrian with its options."""
    if args.algo == "mondrian":
        from pandas_anon.anonymization.mondrian.algorithm import Mondrian

        return Mondrian(relaxed=args.relaxed, choose=args.choose, represent=args.represent)
    if args.relaxed or args.represent != "range" or args.choose != "width":
        raise InvalidParameterError(
            f"--relaxed, --choose and --represent are options of --algo mondrian, not of "
            f"{args.algo}"
        )
    return args.algo


def run(args: argparse.Namespace) -> int:
    """Anonymize on the typed read, write from the text read (see :func:`as_written`)."""
    from pandas_anon.anonymization.kanon import kanon
    from pandas_anon.gate.io import output_target, read_table, text_form, write_table
    from pandas_anon.hierarchy import Hierarchy
    from pandas_anon.privacy.models import LDiversity

    if not args.force and _same_file(args.input, args.output):
        other = "" if args.output == args.input else f" {args.input}"
        raise OutputFileError(
            f"{args.output} is the input file{other}; write the anonymized copy to another "
            f"file, or pass --force to replace the input"
        )
    output_target(args.output)  # a directory or a missing folder: said before any work
    given = _given_hierarchies(args.hierarchy)
    form = text_form(args.input, sep=args.sep, encoding=args.encoding)
    text = read_table(args.input, sep=form.sep, encoding=form.encoding, as_text=True)
    typed = read_table(args.input, sep=form.sep, encoding=form.encoding)
    unknown = [column for column in given if column not in text.columns]
    if unknown:
        raise ColumnNotFoundError(unknown, text.columns)
    # a hierarchy file holds values as written: its column is matched as text
    from_files = [column for column, source in given.items() if isinstance(source, Hierarchy)]
    candidates = [
        c for c in args.qid or typed.columns if c in typed.columns and c != args.sensitive
    ]
    merged = _merged_columns(typed, text, [c for c in candidates if c not in from_files])
    frame = typed.assign(**{column: text[column] for column in from_files + merged})
    l = None if args.l is None else LDiversity(args.l, args.l_variant, c=args.c)  # noqa: E741
    out = kanon(
        frame,
        args.k,
        qid=args.qid,
        hierarchies=given or None,
        algo=_algorithm(args),
        max_suppression=args.max_suppression,
        metric=args.metric,
        sensitive=args.sensitive,
        l=l,
        t=args.t,
        identifiers=args.identifiers,
        salt=os.environ.get("PANDAS_ANON_SALT") or None,
        suppress="drop" if args.drop_suppressed else "mask",
    )
    summary = out.anon.report()
    for column in merged:
        if column in summary.qid:
            warn(
                f"column {column!r} spells some equal numbers in more than one way (such as 7 "
                f"and 7.0, or 0100 and 100): it was anonymized as text, so that the output "
                f"keeps them apart as the input does, and its hierarchy cannot use numeric "
                f"intervals; write its numbers one way, or give it --hierarchy",
                AnonWarning,
            )
    write_table(as_written(out, frame, text, summary.qid), args.output, form)
    if args.format == "json":
        print(json.dumps(summary.to_dict(), indent=2, default=str, ensure_ascii=False))
    else:
        print(repr(summary))
    return 0


def _hierarchy_option(text: str) -> tuple[str, str]:
    """``--hierarchy COLUMN=NAME`` or ``COLUMN=PATH``: the column and the name or path."""
    column, equals, source = text.partition("=")
    if not (equals and column.strip() and source.strip()):
        raise argparse.ArgumentTypeError(
            f"expected COLUMN=NAME or COLUMN=path.csv (e.g. comune=it.comune), got {text!r}"
        )
    return column.strip(), source.strip()


def _given_hierarchies(options: Sequence[tuple[str, str]] | None) -> dict[str, Hierarchy | str]:
    """The ``--hierarchy`` options as kanon's ``hierarchies=``: each file read (a source with a
    path separator or ending in .csv), each name checked against the registry."""
    from pandas_anon.gate.io import read_hierarchy
    from pandas_anon.plugins.registry import hierarchies

    given: dict[str, Hierarchy | str] = {}
    for column, source in options or ():
        if column in given:
            raise InvalidParameterError(
                f"--hierarchy names column {column!r} twice; give one hierarchy per column"
            )
        if _is_path(source):
            given[column] = read_hierarchy(source)
            continue
        valid = hierarchies()["name"]
        if source not in set(valid):
            raise UnknownNameError(source, valid, kind="hierarchy name")
        given[column] = source
    return given


def _is_path(source: str) -> bool:
    """Whether a ``--hierarchy`` source names a file rather than a registered hierarchy."""
    separators = {"/", os.sep, os.altsep or "/"}
    return any(s in source for s in separators) or source.lower().endswith(".csv")


def _same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path once resolved (links followed), or
    the same file on disk (a hard link, a case-insensitive file system)."""
    if os.path.normcase(os.path.realpath(first)) == os.path.normcase(os.path.realpath(second)):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist
        return False


def _merged_columns(typed: pd.DataFrame, text: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """The ``columns`` whose typed read makes one value of values the file writes differently
    (``7`` and ``7.0``, ``0100`` and ``100``): anonymized as numbers, such rows would share a
    class that the written file splits, or lose their spelling."""
    import pandas as pd

    return [
        c
        for c in columns
        if pd.api.types.is_numeric_dtype(typed[c])
        and typed[c].nunique(dropna=False) < text[c].nunique(dropna=False)
    ]


def as_written(
    out: pd.DataFrame, frame: pd.DataFrame, text: pd.DataFrame, qid: Sequence[str]
) -> pd.DataFrame:
    """kanon's ``out`` (made from ``frame``) in the text form of the input, read as ``text``.

    A column kanon left as it was is the input's column as written. In a QID column, every
    output value that is one of the column's input values (a cell left as it was, or a label
    spelled like a value) is written as the input wrote it; the other labels and ``*`` as they
    are. Each output value gets one spelling, so the written classes are kanon's classes.
    """
    import pandas as pd

    kept = out.index if len(out) < len(frame) else slice(None)
    columns = {}
    for column in out.columns:
        if column in qid:
            columns[column] = _spelled_as_input(out[column], frame[column], text[column])
        elif column in text.columns and out[column].equals(frame[column].loc[kept]):
            columns[column] = text[column].loc[kept]
        else:  # a column kanon added or rewrote: as it made it
            columns[column] = out[column]
    return pd.DataFrame(columns, index=out.index)


def _spelled_as_input(column: pd.Series, values: pd.Series, written: pd.Series) -> pd.Series:
    """``column`` (generalized from ``values``, which the input spells as ``written``) with
    each value that is one of ``values`` spelled as the input spells it; missing stays
    missing. One lookup per distinct value (``values`` spells each value one way)."""
    import numpy as np
    import pandas as pd

    missing = np.array([None], dtype=object)  # appended to each lookup, for code -1
    codes, uniques = pd.factorize(values)
    present, first = np.unique(codes, return_index=True)
    spelling = np.concatenate([written.to_numpy(dtype=object)[first[present >= 0]], missing])
    out_codes, out_uniques = pd.factorize(column)
    out_values = np.asarray(out_uniques, dtype=object)
    match = pd.Index(uniques, dtype=object).get_indexer(pd.Index(out_values, dtype=object))
    labels = np.concatenate([np.where(match >= 0, spelling[match], out_values), missing])
    # code -1 (missing, and no match above) takes the last entry: None
    return pd.Series(labels[out_codes], index=column.index, name=column.name)
