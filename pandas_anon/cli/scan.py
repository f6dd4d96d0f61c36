"""``pandas-anon scan FILE``: the singletons and risk figures of a table (any format ``check``
reads), electing its QID when none is given. The report holds counts and column names only."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from pandas_anon.cli.options import add_file_options, column_list, positive

if TYPE_CHECKING:
    import pandas as pd

    from pandas_anon.detect.results import Singletons

HELP = "report singletons (and the best QID) of a table"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``scan``."""
    from pandas_anon.cli.copies import TABLE_HELP
    from pandas_anon.detect.exposure import MAX_SIZE  # check's default, the same here

    command.add_argument("file", help=f"the table: {TABLE_HELP}")
    chosen = command.add_mutually_exclusive_group()
    chosen.add_argument("--qid", type=column_list, help="quasi-identifier, e.g. year,town,sex")
    chosen.add_argument(
        "--columns",
        type=column_list,
        help="candidate columns for electing the best QID (default: all)",
    )
    command.add_argument(
        "--max-size",
        type=positive("max_size", MAX_SIZE),
        default=MAX_SIZE,
        help=f"largest QID examined when electing (default {MAX_SIZE})",
    )
    command.add_argument(
        "--max-subsets",
        metavar="N",
        type=positive("max_subsets", 1_000_000),
        help="most column subsets the election of a QID may examine (default 1,000,000): "
        "a wider search stops with exit 2 before it starts the size that would pass it",
    )
    command.add_argument(
        "--keep-missing",
        action="store_true",
        default=None,
        help="count a missing value as a value (the default when electing the "
        "QID, as pandas-anon check does)",
    )
    command.add_argument(
        "--drop-missing",
        dest="keep_missing",
        action="store_false",
        help="leave out rows missing a value of the examined columns (the default "
        "with --qid, as the seed paper counts)",
    )
    add_file_options(command)


def run(args: argparse.Namespace) -> int:
    """Read the table's columns as ``check`` reads them, scan them, print the report; exit 0."""
    from pandas_anon.cli.copies import read_table_of

    # values are compared as written, as check compares them: "0100" and "100" are two
    _, table = read_table_of(args.file, args, usecols=args.qid or args.columns)
    frame = table.frame
    started = time.perf_counter()
    # electing, missing counts as a value (sparse columns would leave a sliver of rows);
    # measuring a given QID, rows missing one of its values are left out as the seed paper does
    keep_missing = args.qid is None if args.keep_missing is None else args.keep_missing
    result = scan_frame(
        frame,
        qid=args.qid,
        columns=args.columns,
        max_size=args.max_size,
        dropna=not keep_missing,
        max_subsets=args.max_subsets,
    )
    result["file"] = str(args.file)
    result["seconds"] = round(time.perf_counter() - started, 4)
    print_report(result, args.format)
    return 0


def scan_frame(
    frame: pd.DataFrame,
    *,
    qid: Sequence[Hashable] | None = None,
    columns: Sequence[str] | None = None,
    max_size: int | None = None,
    dropna: bool = True,
    max_subsets: int | None = None,
) -> dict:
    """Everything ``scan`` reports, as a JSON-able dict: the QID's singletons and risk, and
    the election when no ``qid`` is given (among ``columns``, up to ``max_size`` columns;
    ``None``: check's default, :data:`pandas_anon.detect.exposure.MAX_SIZE`; examining at
    most ``max_subsets`` subsets, None: :func:`~pandas_anon.best_qid`'s budget). Its figures
    count rows missing a QID value as ``dropna`` says; the QID's singletons are also given
    counted both ways, as ``check`` gives them (``keep_missing``, ``singletons_by_missing``:
    :class:`pandas_anon.gate.check.ByMissing`)."""
    from pandas_anon.detect.best_qid import best_qid
    from pandas_anon.detect.exposure import MAX_SIZE
    from pandas_anon.detect.figures import risk, singletons
    from pandas_anon.errors import LimitExceededError
    from pandas_anon.gate.check import Counted, by_missing

    def counted(found: Singletons) -> Counted:
        return Counted(found.count, found.examined, found.dropped)

    result: dict = {"rows": len(frame)}
    if qid is None:
        size = MAX_SIZE if max_size is None else max_size
        try:
            elected = best_qid(
                frame, columns, max_size=size, dropna=dropna, max_subsets=max_subsets
            )
        except LimitExceededError as error:
            raise LimitExceededError(
                f"{error} (on the command line: name the quasi-identifier with --qid, or "
                f"narrow the search with --columns, --max-size or --max-subsets)"
            ) from None
        result["best_qid"] = elected.to_dict()
        qid = list(elected.columns)
    measured = risk(frame, qid, dropna=dropna)
    result["singletons"] = measured.uniques.to_dict()
    result["risk"] = measured.to_dict()
    chosen = qid  # the QID measured, typed for the lambda
    both = by_missing(
        counted(measured.uniques),
        lambda other: counted(singletons(frame, chosen, dropna=other)),
        keep_missing=not dropna,
    )
    result.update(both.to_dict())
    return result


def print_report(result: dict, fmt: str) -> None:
    """Print :func:`scan_frame`'s ``result`` as JSON (``fmt="json"``) or as text tables."""
    if fmt == "json":
        print(json.dumps(result, indent=2, default=str, ensure_ascii=False))
        return
    print(render(result))


def render(result: dict) -> str:
    """The scan report as text tables (counts and column names only)."""
    import pandas as pd

    from pandas_anon import formatting as report
    from pandas_anon.gate.check import ByMissing

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
        *ByMissing.from_dict(result).lines("the way the figures below count"),
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
