"""Option types and options that several commands share.

Each type reads an option's text with the :mod:`pandas_anon.params` parser the API uses, so the
command line takes what the API takes and refuses it with the API's message, as a usage error.
The parsers are imported when a command's options are built, not when the command line starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from typing import Any

from pandas_anon.errors import InvalidParameterError


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


def forwarded(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options ``names`` as keyword arguments of the library function of the same
    parameter names: ``study(frame, **forwarded(args, "year", "sex"))``."""
    return {name: getattr(args, name) for name in names}
