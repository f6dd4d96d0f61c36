"""Option types and options that several commands share.

Each type reads an option's text with the :mod:`pandas_anon.params` parser the API uses, so the
command line takes what the API takes and refuses it with the API's message, as a usage error.
The parsers are imported when a command's options are built, not when the command line starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from pandas_anon.errors import InvalidParameterError

if TYPE_CHECKING:
    from pandas_anon.gate.limits import InputLimits


def column_list(text: str) -> list[str]:
    """``--qid a,b,c``: the column names, spaces around them ignored; at least one."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one column name")
    return names


def checked(parse: Callable[[object], object]) -> Callable[[str], object]:
    """An argparse type: the option's text read as the number it spells, then checked by
    ``parse`` (a :mod:`pandas_anon.params` parser); a refusal is a usage error carrying the
    parser's message."""
    from pandas_anon.params import from_text

    def convert(text: str) -> object:
        try:
            return parse(from_text(text))
        except InvalidParameterError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


def positive(name: str, example: int) -> Callable[[str], object]:
    """A whole number of at least 1 (``--k 5``); ``example`` is the one the message suggests."""
    from pandas_anon.params import whole

    return checked(partial(whole, name=name, example=example))


def fraction(name: str) -> Callable[[str], object]:
    """A fraction from 0 to 1: ``0.05``, ``5%``."""
    from pandas_anon.params import fraction as share

    return checked(partial(share, name=name))


def add_file_options(command: argparse.ArgumentParser) -> None:
    """The options of every command reading a CSV: ``--sep``, ``--encoding``, ``--format``."""
    command.add_argument("--sep", help="field delimiter (default: detected)")
    command.add_argument("--encoding", help="text encoding (default: detected)")
    command.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="format of the report printed on stdout",
    )
    add_input_limits(command)


def add_search_options(command: argparse.ArgumentParser) -> None:
    """The options of the commands running a full-domain search: ``--max-suppression`` and
    ``--metric``."""
    command.add_argument(
        "--max-suppression",
        type=fraction("max_suppression"),
        default=0.0,
        help="largest share of rows that may be suppressed (default 0)",
    )
    command.add_argument("--metric", choices=("precision", "dm"), default="precision")


#: The options of :func:`add_input_limits`, as ``check``'s configuration keys.
INPUT_LIMITS = (
    "max_expanded_size",
    "max_ratio",
    "max_document_size",
    "max_line_length",
    "max_cells",
    "max_sheet_cells",
)


def add_input_limits(command: argparse.ArgumentParser) -> None:
    """The options raising (or lowering) the limits on reading a file
    (:mod:`pandas_anon.gate.limits`), for every command that reads one: :func:`input_limits`
    reads them."""
    from pandas_anon.gate.limits import DEFAULTS, RATIO_FROM, size_text
    from pandas_anon.params import from_text

    group = command.add_argument_group(
        "input limits",
        "what reading one table may cost: past a limit the file is an error (exit 2) whose "
        "message names the option raising it; SIZE is bytes, or e.g. 64MiB, 4GiB, 500MB",
    )
    group.add_argument(
        "--max-expanded-size",
        metavar="SIZE",
        help="most bytes a compressed file or archive member may expand to "
        f"(default {size_text(DEFAULTS.max_expanded_size)})",
    )
    group.add_argument(
        "--max-ratio",
        metavar="N",
        type=from_text,
        help="most times its compressed size a compressed file or member may expand to, "
        f"checked past {size_text(RATIO_FROM)} (default {DEFAULTS.max_ratio:g})",
    )
    group.add_argument(
        "--max-document-size",
        metavar="SIZE",
        help="most bytes of a JSON, JSON Lines or workbook, parsed whole in memory "
        f"(default {size_text(DEFAULTS.max_document_size)})",
    )
    group.add_argument(
        "--max-line-length",
        metavar="SIZE",
        help=f"longest line of delimited text (default {size_text(DEFAULTS.max_line_length)})",
    )
    group.add_argument(
        "--max-cells",
        metavar="N",
        help="most cells (rows x columns read) of a Parquet file, also of each one a Dask "
        f"worker reads (default {DEFAULTS.max_cells:,})",
    )
    group.add_argument(
        "--max-sheet-cells",
        metavar="N",
        help="most cells of a sheet once its repeated rows and cells expand "
        f"(default {DEFAULTS.max_sheet_cells:,})",
    )


def input_limits(args: argparse.Namespace) -> InputLimits | None:
    """The limits the :func:`add_input_limits` options set (the defaults for those not
    given), or None when the command has none of them."""
    from pandas_anon.gate import limits

    if not hasattr(args, INPUT_LIMITS[0]):
        return None
    given: dict[str, Any] = {}
    parsers = {
        "max_ratio": limits.ratio,
        "max_cells": limits.cell_count,
        "max_sheet_cells": limits.cell_count,
    }
    for key in INPUT_LIMITS:
        if (value := getattr(args, key)) is not None:
            parse = parsers.get(key, limits.byte_size)
            try:
                given[key] = parse(value, key)
            except InvalidParameterError as problem:  # as check words its options' errors
                raise InvalidParameterError(f"--{key.replace('_', '-')}: {problem}") from None
    return replace(limits.DEFAULTS, **given)


def forwarded(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options ``names`` as keyword arguments of the library function of the same
    parameter names: ``study(frame, **forwarded(args, "year", "sex"))``."""
    return {name: getattr(args, name) for name in names}
