"""``pandas-anon ke-anon IN OUT --k K --eps E``: a (k, ε)-anonymous copy of a CSV (Holohan et
al. 2017): the k-quasis k-anonymized, the numeric ε-quasis noised in each class, the rows
shuffled. Written like ``anonymize`` writes (never over the input unless ``--force``, every
cell it did not change as the input wrote it)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Hashable
from functools import partial
from typing import Any

from pandas_anon.cli.copies import add_copy_arguments, read_input, write_copy
from pandas_anon.cli.options import checked, column_list, fraction, positive
from pandas_anon.errors import AnonWarning, InvalidParameterError, warn

HELP = "write a (k, ε)-anonymous copy of a CSV: k-anonymity plus noise on numeric columns"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``ke-anon`` (the copy's are ``anonymize``'s)."""
    from pandas_anon.anonymization.noise.ke import confidence
    from pandas_anon.params import real, whole

    add_copy_arguments(command)
    command.add_argument("--k", type=positive("k", 5), required=True, help="smallest class size")
    command.add_argument(
        "--eps",
        type=checked(partial(real, name="eps", low=0, above=True, example=1)),
        required=True,
        help="ε: the noise of a class is its diameter over ε (smaller: more noise)",
    )
    command.add_argument(
        "--qid",
        type=column_list,
        help="quasi-identifier, k-quasis and ε-quasis together (default: every column but "
        "the direct identifiers)",
    )
    command.add_argument(
        "--eps-quasi",
        type=column_list,
        metavar="COLUMNS",
        help="numeric quasi-identifier columns to noise, e.g. height,weight "
        "(default: every numeric one)",
    )
    command.add_argument(
        "--bounds",
        type=bounds_option,
        action="append",
        metavar="COLUMN=LOW:HIGH",
        help="the domain of an ε-quasi, its released values clamped into it, e.g. age=0:120 "
        "(repeat for each column; default: its observed range widened to a coarse grid)",
    )
    command.add_argument(
        "--algo",
        choices=("mondrian", "ola"),
        default="mondrian",
        help="k-anonymity of the k-quasis: Mondrian (default) or the optimal full-domain OLA",
    )
    command.add_argument(
        "--max-suppression",
        type=fraction("max_suppression"),
        default=0.0,
        help="largest share of rows the k-anonymity step may suppress (default 0)",
    )
    command.add_argument(
        "--alpha",
        type=checked(confidence),
        help="α-confident k-anonymity, e.g. 0.99: suppress the records an interval of that "
        "confidence around their noisy values tells apart among fewer than k",
    )
    randomness = command.add_mutually_exclusive_group()
    randomness.add_argument(
        "--seed",
        type=checked(partial(whole, name="seed", low=0, example=42)),
        help="reproducible research noise (numpy); never for a release",
    )
    randomness.add_argument(
        "--secure",
        action="store_true",
        help="floating-point-safe noise from OpenDP, for a release (pip install 'pandas-anon[dp]')",
    )
    command.add_argument(
        "--keep-order",
        action="store_true",
        help="write the rows in the input's order (an order may tell which record is which)",
    )


def run(args: argparse.Namespace) -> int:
    """Decide on the typed read, noise, write from the text read, then shuffle the rows
    written (with the noise source, as the library does)."""
    from dataclasses import replace

    import numpy as np
    import pandas as pd

    from pandas_anon.anonymization.noise.ke import ke_decide
    from pandas_anon.anonymization.noise.sources import noise_source, random_order

    source = read_input(args)
    typed = source.typed
    noised = args.eps_quasi or [
        c for c in typed.columns if pd.api.types.is_numeric_dtype(typed[c])
    ]  # stay numbers: a spelling does not matter once noised
    frame, merged = source.frame([c for c in args.qid or typed.columns if c not in noised])
    randomness = noise_source(args.seed, args.secure)
    if args.seed is not None:
        warn(
            "--seed makes the noise reproducible: anyone holding the original values can try "
            "seeds until the output comes out again, then subtract the noise; use --secure "
            "for a release",
            AnonWarning,
        )
    plan = ke_decide(
        frame,
        args.k,
        args.eps,
        qid=args.qid,
        eps_quasi=args.eps_quasi,
        bounds=given_bounds(args.bounds),
        algo=args.algo,
        hierarchies=source.hierarchies or None,
        max_suppression=args.max_suppression,
        identifiers=args.identifiers,
    )
    out = plan.apply(
        frame,
        randomness,
        alpha=args.alpha,
        shuffle=False,  # the written rows are shuffled below, keeping the input's spelling
        suppress="drop" if args.drop_suppressed else "mask",
        salt=os.environ.get("PANDAS_ANON_SALT") or None,
    )
    report = replace(out.anon.report(), shuffled=not args.keep_order)
    order = None if args.keep_order else random_order(randomness, np.arange(len(out))).tolist()
    k_quasi = [str(c) for c in plan.k_quasi]
    write_copy(args, source, out, frame, k_quasi, merged, report, order)
    return 0


def bounds_option(text: str) -> tuple[str, tuple[object, object]]:
    """``--bounds COLUMN=LOW:HIGH``: the column and its bounds, each read as the number it
    spells (checked by ``ke_decide``)."""
    from pandas_anon.params import from_text

    column, equals, pair = text.rpartition("=")
    low, colon, high = pair.partition(":")
    if not (equals and colon and column.strip() and low.strip() and high.strip()):
        raise argparse.ArgumentTypeError(f"expected COLUMN=LOW:HIGH (e.g. age=0:120), got {text!r}")
    return column.strip(), (from_text(low.strip()), from_text(high.strip()))


def given_bounds(
    options: list[tuple[str, tuple[object, object]]] | None,
) -> dict[Hashable, Any] | None:
    """The ``--bounds`` options as ``ke_decide``'s ``bounds=`` (a column named twice refused;
    the numbers are checked there)."""
    found: dict[Hashable, Any] = {}
    for column, pair in options or ():
        if column in found:
            raise InvalidParameterError(
                f"--bounds names column {column!r} twice; give one LOW:HIGH per column"
            )
        found[column] = pair
    return found or None
