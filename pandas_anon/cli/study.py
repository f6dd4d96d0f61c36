"""``pandas-anon study FILE``: Pastore et al.'s comparison of generalization strategies (their
Table 1) on a CSV of year of birth, sex and place."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from pandas_anon.cli.options import add_file_options, forwarded, positive
from pandas_anon.errors import InvalidParameterError

if TYPE_CHECKING:
    import pandas as pd

HELP = "compare the seed paper's generalization strategies (its Table 1) on a CSV"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``study``."""
    command.add_argument("file", help="CSV/TSV file (.gz, .bz2, .xz, .zip accepted)")
    command.add_argument("--year", required=True, help="year-of-birth column (numeric)")
    command.add_argument("--sex", required=True, help="sex column")
    command.add_argument("--place", required=True, help="place column (municipality)")
    source = command.add_mutually_exclusive_group()
    source.add_argument("--hierarchy", help="registered hierarchy for the place, e.g. it.comune")
    source.add_argument(
        "--place-parent",
        metavar="COLUMN",
        help="column holding each place's parent (e.g. the province)",
    )
    command.add_argument(
        "--level",
        type=positive("level", 1),
        default=1,
        help="level M raises places to (default 1)",
    )
    command.add_argument(
        "--year-groups",
        type=positive("year_groups", 4),
        default=4,
        help="distinct years per Y_ran group and row runs of Y_avg (default 4)",
    )
    add_file_options(command)


def run(args: argparse.Namespace) -> int:
    """Read the three columns (and the parent's) as text, years as numbers; print the study."""
    from pandas_anon.gate.io import read_table
    from pandas_anon.hierarchy import Hierarchy
    from pandas_anon.studies.strategy import study

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
        hierarchy=hierarchy,
        **forwarded(args, "year", "sex", "place", "level", "year_groups"),
    )
    if args.format == "json":
        print(
            json.dumps({"file": str(args.file), **result.to_dict()}, indent=2, ensure_ascii=False)
        )
    else:
        print(repr(result))
    return 0


def _numeric_years(column: pd.Series) -> pd.Series:
    """The year column as numbers (``Int64`` when all are whole); text in it is refused."""
    import pandas as pd

    years = pd.to_numeric(column, errors="coerce")
    bad = years.isna() & column.notna()
    if bad.any():
        raise InvalidParameterError(
            f"year column {column.name!r} has {int(bad.sum()):,} non-numeric value(s); "
            f"the study groups years by number"
        )
    return years.astype("Int64") if (years.dropna() % 1 == 0).all() else years
