"""The ``pandas-anon`` command: ``scan`` a CSV for singletons, ``study`` the seed paper's
strategies on it, ``anonymize`` it (never over the input, every cell it did not change written
as it was), ``demo`` on the embedded data, list ``plugins``.

Exit codes: 0 done, 2 bad usage or unreadable input (one line on stderr naming the file or
column). Reports hold counts and column names only, never quasi-identifier values, so they
are safe to print in a public CI log.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import NoReturn

import numpy as np
import pandas as pd

from pandas_anon import __version__
from pandas_anon import formatting as report
from pandas_anon.anonymization.kanon import ALGORITHMS, IDENTIFIER_TREATMENTS, kanon
from pandas_anon.detect.best_qid import best_qid
from pandas_anon.detect.exposure import MAX_SIZE
from pandas_anon.detect.figures import risk
from pandas_anon.errors import (
    AnonError,
    AnonWarning,
    ColumnNotFoundError,
    InputFileError,
    InvalidParameterError,
    OutputFileError,
    UnknownNameError,
    capture_warnings,
    warn,
)
from pandas_anon.gate.check import add_check_command
from pandas_anon.gate.io import output_target, read_hierarchy, read_table, text_form, write_table
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.registry import add_plugins_command, hierarchies
from pandas_anon.params import fraction, from_text, real, whole
from pandas_anon.privacy.models import LDiversity
from pandas_anon.studies.strategy import study

#: Largest column subsets ``scan`` examines when it has to elect the QID itself (the same
#: as ``check``'s default).
DEFAULT_MAX_SIZE = MAX_SIZE
DEMO_QID = ("anno_nascita", "comune_residenza", "sesso")
DEMO_PERSONAL = ("anno_nascita", "comune_residenza", "provincia_residenza", "sesso")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of exiting (testable)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse exits 2 on usage errors, 0 on --help
        return int(stop.code or 0)
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show a name or a box
        if hasattr(stream, "reconfigure"):  # character gets an escape, not a traceback
            stream.reconfigure(errors="backslashreplace")
    try:
        with _warnings_as_lines():
            return args.run(args)
    except AnonError as error:
        where = str(getattr(args, "file", "") or "")  # file errors already begin with it
        prefix = f"{where}: " if where and not isinstance(error, InputFileError) else ""
        print(f"pandas-anon: error: {prefix}{error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head`: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (no flush error at exit)
        return 0


@contextlib.contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """Print our warnings as one ``pandas-anon: warning:`` line each (even if the command
    then fails); leave other libraries' warnings to Python's usual display."""
    messages: list[str] = []
    try:
        with capture_warnings(lambda w: messages.append(str(w.message))):
            yield
    finally:
        for message in dict.fromkeys(messages):
            print(f"pandas-anon: warning: {message}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error ending in the one ``pandas-anon: error:`` line that every
    other error prints (the usage line above it names the command)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"pandas-anon: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pandas-anon", description="Find re-identification risk in tables about people."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    scan = commands.add_parser("scan", help="report singletons (and the best QID) of a CSV file")
    scan.add_argument("file", help="CSV/TSV file (.gz, .bz2, .xz, .zip accepted)")
    chosen = scan.add_mutually_exclusive_group()
    chosen.add_argument("--qid", type=_column_list, help="quasi-identifier, e.g. year,town,sex")
    chosen.add_argument(
        "--columns",
        type=_column_list,
        help="candidate columns for electing the best QID (default: all)",
    )
    scan.add_argument(
        "--max-size",
        type=_positive("max_size", DEFAULT_MAX_SIZE),
        default=DEFAULT_MAX_SIZE,
        help=f"largest QID examined when electing (default {DEFAULT_MAX_SIZE})",
    )
    scan.add_argument(
        "--keep-missing",
        action="store_true",
        default=None,
        help="count a missing value as a value (the default when electing the "
        "QID, as pandas-anon check does)",
    )
    scan.add_argument(
        "--drop-missing",
        dest="keep_missing",
        action="store_false",
        help="leave out rows missing a value of the examined columns (the default "
        "with --qid, as the seed paper counts)",
    )
    _add_file_options(scan)
    scan.set_defaults(run=_scan)

    study = commands.add_parser(
        "study", help="compare the seed paper's generalization strategies (its Table 1) on a CSV"
    )
    study.add_argument("file", help="CSV/TSV file (.gz, .bz2, .xz, .zip accepted)")
    study.add_argument("--year", required=True, help="year-of-birth column (numeric)")
    study.add_argument("--sex", required=True, help="sex column")
    study.add_argument("--place", required=True, help="place column (municipality)")
    source = study.add_mutually_exclusive_group()
    source.add_argument("--hierarchy", help="registered hierarchy for the place, e.g. it.comune")
    source.add_argument(
        "--place-parent",
        metavar="COLUMN",
        help="column holding each place's parent (e.g. the province)",
    )
    study.add_argument(
        "--level",
        type=_positive("level", 1),
        default=1,
        help="level M raises places to (default 1)",
    )
    study.add_argument(
        "--year-groups",
        type=_positive("year_groups", 4),
        default=4,
        help="distinct years per Y_ran group and row runs of Y_avg (default 4)",
    )
    _add_file_options(study)
    study.set_defaults(run=_study)

    anonymize = commands.add_parser(
        "anonymize", help="write a k-anonymous copy of a CSV (full-domain generalization)"
    )
    anonymize.add_argument("input", help="CSV/TSV file to anonymize")
    anonymize.add_argument(
        "output",
        help="where to write the anonymized copy (same delimiter, "
        "encoding and line ending as the input; never the input itself "
        "without --force)",
    )
    anonymize.add_argument("--k", type=_positive("k", 5), required=True, help="smallest class size")
    anonymize.add_argument(
        "--qid", type=_column_list, help="quasi-identifier (default: elected with best_qid)"
    )
    anonymize.add_argument("--algo", choices=sorted(ALGORITHMS), default="ola")
    anonymize.add_argument(
        "--max-suppression",
        type=_fraction("max_suppression"),
        default=0.0,
        help="largest share of rows that may be suppressed (default 0)",
    )
    anonymize.add_argument("--metric", choices=("precision", "dm"), default="precision")
    anonymize.add_argument(
        "--sensitive", metavar="COLUMN", help="sensitive column for --l and --t (kept as it is)"
    )
    anonymize.add_argument(
        "--l",
        type=_option(partial(real, name="l", low=1)),
        help="l-diversity of the sensitive column",
    )
    anonymize.add_argument(
        "--l-variant",
        choices=("distinct", "entropy", "recursive"),
        default="distinct",
        help="which l-diversity (default distinct)",
    )
    anonymize.add_argument(
        "--c",
        type=_option(partial(real, name="c", low=0, above=True)),
        default=1.0,
        help="c of recursive (c, l)-diversity (default 1)",
    )
    anonymize.add_argument("--t", type=_fraction("t"), help="t-closeness of the sensitive column")
    anonymize.add_argument(
        "--identifiers",
        choices=IDENTIFIER_TREATMENTS,
        default="drop",
        help="what to do with direct identifier columns outside the QID "
        "(unique on nearly every row): drop them (default), hash them "
        "(keyed by $PANDAS_ANON_SALT, else a random key never stored) "
        "or keep them",
    )
    anonymize.add_argument(
        "--drop-suppressed",
        action="store_true",
        help="leave suppressed rows out instead of masking them with *",
    )
    anonymize.add_argument(
        "--hierarchy",
        type=_hierarchy_option,
        action="append",
        metavar="COLUMN=NAME|PATH",
        help="hierarchy of a QID column: a registered name (pandas-anon "
        "plugins lists them, e.g. comune=it.comune) or a hierarchy CSV file "
        "(a path with / or ending in .csv); repeat for more columns",
    )
    anonymize.add_argument(
        "--force",
        action="store_true",
        help="allow OUT to be the input file (replaced once the copy is written)",
    )
    _add_file_options(anonymize)
    anonymize.set_defaults(run=_anonymize)

    demo = commands.add_parser("demo", help="scan the embedded Valle d'Aosta driving-licence data")
    demo.add_argument("--format", choices=("table", "json"), default="table")
    demo.set_defaults(run=_demo)
    add_plugins_command(commands)
    add_check_command(commands)
    return parser


def _add_file_options(command: argparse.ArgumentParser) -> None:
    """Options every command reading a CSV shares."""
    command.add_argument("--sep", help="field delimiter (default: detected)")
    command.add_argument("--encoding", help="text encoding (default: detected)")
    command.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="format of the report printed on stdout",
    )


def _column_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one column name")
    return names


def _option(parse: Callable[[object], object]) -> Callable[[str], object]:
    """An argparse type: the option's text read as the number it spells, then checked by a
    :mod:`pandas_anon.params` parser, so the command line takes what the API takes; a refusal
    is a usage error carrying the parser's message."""

    def convert(text: str) -> object:
        try:
            return parse(from_text(text))
        except InvalidParameterError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


def _positive(name: str, example: int) -> Callable[[str], object]:
    """A whole number of at least 1 (``--k 5``)."""
    return _option(partial(whole, name=name, example=example))


def _fraction(name: str) -> Callable[[str], object]:
    """A fraction from 0 to 1: ``0.05``, ``5%``."""
    return _option(partial(fraction, name=name))


def _scan(args: argparse.Namespace) -> int:
    usecols = args.qid or args.columns
    # values are compared as written: read as numbers, "0100" and "100" would merge
    frame = read_table(
        args.file, usecols=usecols, sep=args.sep, encoding=args.encoding, as_text=True
    )
    started = time.perf_counter()
    # electing, missing counts as a value (sparse columns would leave a sliver of rows);
    # measuring a given QID, rows missing one of its values are left out as the seed paper does
    keep_missing = args.qid is None if args.keep_missing is None else args.keep_missing
    result = scan_frame(
        frame, qid=args.qid, columns=args.columns, max_size=args.max_size, dropna=not keep_missing
    )
    result["file"] = str(args.file)
    result["seconds"] = round(time.perf_counter() - started, 4)
    _emit(result, args.format)
    return 0


def _study(args: argparse.Namespace) -> int:
    columns = [args.year, args.place, args.sex] + ([args.place_parent] if args.place_parent else [])
    frame = read_table(
        args.file, usecols=columns, sep=args.sep, encoding=args.encoding, as_text=True
    )
    frame[args.year] = _numeric_years(frame[args.year])
    hierarchy = (
        Hierarchy.from_columns(frame, [args.place, args.place_parent])
        if args.place_parent
        else args.hierarchy
    )
    result = study(
        frame,
        [args.year, args.place, args.sex],
        year=args.year,
        sex=args.sex,
        place=args.place,
        hierarchy=hierarchy,
        level=args.level,
        year_groups=args.year_groups,
    )
    if args.format == "json":
        print(
            json.dumps({"file": str(args.file), **result.to_dict()}, indent=2, ensure_ascii=False)
        )
    else:
        print(repr(result))
    return 0


def _anonymize(args: argparse.Namespace) -> int:
    """Anonymize on the typed read, write from the text read (see :func:`_as_written`)."""
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
        algo=args.algo,
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
    write_table(_as_written(out, frame, text, summary.qid), args.output, form)
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
    return [
        c
        for c in columns
        if pd.api.types.is_numeric_dtype(typed[c])
        and typed[c].nunique(dropna=False) < text[c].nunique(dropna=False)
    ]


def _as_written(
    out: pd.DataFrame, frame: pd.DataFrame, text: pd.DataFrame, qid: Sequence[str]
) -> pd.DataFrame:
    """kanon's ``out`` (made from ``frame``) in the text form of the input, read as ``text``.

    A column kanon left as it was is the input's column as written. In a QID column, every
    output value that is one of the column's input values (a cell left as it was, or a label
    spelled like a value) is written as the input wrote it; the other labels and ``*`` as they
    are. Each output value gets one spelling, so the written classes are kanon's classes.
    """
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
    codes, uniques = pd.factorize(values)
    present, first = np.unique(codes, return_index=True)
    spelling = np.append(written.to_numpy(dtype=object)[first[present >= 0]], None)
    out_codes, out_values = pd.factorize(column)
    out_values = np.asarray(out_values, dtype=object)
    match = pd.Index(uniques, dtype=object).get_indexer(pd.Index(out_values, dtype=object))
    labels = np.append(np.where(match >= 0, spelling[match], out_values), None)
    # code -1 (missing, and no match above) takes the last entry: None
    return pd.Series(labels[out_codes], index=column.index, name=column.name)


def _numeric_years(column: pd.Series) -> pd.Series:
    years = pd.to_numeric(column, errors="coerce")
    bad = years.isna() & column.notna()
    if bad.any():
        raise InvalidParameterError(
            f"year column {column.name!r} has {int(bad.sum()):,} non-numeric value(s); "
            f"the study groups years by number"
        )
    return years.astype("Int64") if (years.dropna() % 1 == 0).all() else years


def scan_frame(
    frame: pd.DataFrame,
    *,
    qid: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
    dropna: bool = True,
) -> dict:
    """Everything ``scan`` reports, as a JSON-able dict (elects the QID when none is given)."""
    result: dict = {"rows": len(frame)}
    if qid is None:
        elected = best_qid(frame, columns, max_size=max_size, dropna=dropna)
        result["best_qid"] = elected.to_dict()
        qid = list(elected.columns)
    measured = risk(frame, qid, dropna=dropna)
    result["singletons"] = measured.uniques.to_dict()
    result["risk"] = measured.to_dict()
    return result


#: Seed paper 000, Table 1, Valle d'Aosta column: the figures ``demo`` reproduces.
SEED_FIGURES = {"examined": 87_464, "singletons": 1_684, "percent": 1.93, "distinct": 9_174}


def _demo(args: argparse.Namespace) -> int:
    from pandas_anon.datasets import load_driver_licenses

    frame = load_driver_licenses()
    started = time.perf_counter()
    result = scan_frame(frame, qid=list(DEMO_QID))
    result["best_qid"] = best_qid(frame, list(DEMO_PERSONAL)).to_dict()
    result["identifiers"] = [list(i) for i in frame.anon.identifiers()]
    result["seconds"] = round(time.perf_counter() - started, 4)
    result["file"] = "embedded: Valle d'Aosta driving licences"
    if args.format == "json":
        _emit(result, "json")
        return 0
    print("pandas-anon demo: Valle d'Aosta driving-licence holders (87,642 rows), open data of")
    print("the Italian Ministry of Infrastructure and Transport, October 2019.\n")
    print(_seed_comparison(result))
    print(
        f"\nIdentifier columns (all values distinct): {report.column_sets(result['identifiers'])}\n"
    )
    _emit(result, "table")
    return 0


def _seed_comparison(result: dict) -> str:
    """Measured figures beside those of the seed paper's Table 1."""
    found = result["singletons"]
    measured = {
        "examined": found["examined"],
        "singletons": found["singletons"],
        "percent": round(100 * found["fraction"], 2),
        "distinct": found["distinct"],
    }
    rows = [
        (
            name,
            f"{SEED_FIGURES[name]:,}",
            f"{measured[name]:,}",
            "yes" if measured[name] == SEED_FIGURES[name] else "NO",
        )
        for name in SEED_FIGURES
    ]
    elected = report.columns(result["best_qid"]["columns"])
    rows.append(
        (
            "best QID",
            report.columns(DEMO_QID),
            elected,
            "yes" if elected == report.columns(DEMO_QID) else "NO",
        )
    )
    return report.render(
        "Pastore et al. 2020 (seed 000), Table 1, QID (anno_nascita, comune_residenza, sesso)",
        [],
        ("", pd.DataFrame(rows, columns=["figure", "paper", "pandas-anon", "same"])),
    )


def _emit(result: dict, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(result, indent=2, default=str, ensure_ascii=False))
        return
    print(render_scan(result))


def render_scan(result: dict) -> str:
    """The scan report as text tables (counts and column names only)."""
    parts = []
    elected = result.get("best_qid")
    if elected is not None:
        parts.append(
            report.render(
                "Best quasi-identifier",
                [
                    ("candidates", report.columns(elected["candidates"])),
                    ("max size", elected["max_size"]),
                    ("best QID", report.columns(elected["columns"])),
                    ("singletons", report.count(elected["singletons"])),
                    (
                        "rows examined / dropped",
                        f"{report.count(elected['examined'])} / {report.count(elected['dropped'])}",
                    ),
                    ("ties", report.column_sets(elected["ties"])),
                    ("identifiers (excluded)", report.column_sets(elected["identifiers"])),
                    (
                        "subsets counted / derived",
                        f"{elected['evaluated']:,} / {elected['derived']:,}",
                    ),
                ],
            )
        )
    found, danger = result["singletons"], result["risk"]
    fields = [("file", result["file"])] if "file" in result else []
    fields += [
        ("QID", report.columns(found["qid"])),
        ("rows", report.count(found["rows"])),
        ("dropped (incomplete)", report.count(found["dropped"])),
        ("examined", report.count(found["examined"])),
        (
            "singletons",
            f"{report.count(found['singletons'])} ({report.percent(found['fraction'])})",
        ),
        ("distinct combinations", report.count(found["distinct"])),
        (
            "prosecutor risk max / avg",
            f"{danger['prosecutor_max']:.4f} / {danger['prosecutor_avg']:.4f}",
        ),
        ("records at highest risk", report.count(danger["highest_risk_records"])),
    ]
    if "seconds" in result:
        fields.append(("time", f"{result['seconds']:.3f} s"))
    parts.append(
        report.render(
            "Singletons",
            fields,
            ("Singletons removed by dropping one column", pd.DataFrame(danger["contributions"])),
        )
    )
    return "\n\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
