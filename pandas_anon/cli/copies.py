"""What the commands reading a table share: the table a file argument names, read by the gate's
reading layer (:func:`read_table_of`); and what the commands anonymizing one share
(``anonymize``, ``ke-anon``, ``compare``): their file arguments, the output never written over
the input unless ``--force``, the input held typed (to anonymize) and as written (to write
every cell it did not change as the input wrote it), both from one read
(:func:`~pandas_anon.gate.io.typed_and_text`), ``--hierarchy`` options, and the copy written
with its report printed."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pandas_anon.cli.options import add_file_options
from pandas_anon.errors import (
    AnonWarning,
    ColumnNotFoundError,
    InputFileError,
    InvalidParameterError,
    OutputFileError,
    UnknownNameError,
    warn,
)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from pandas_anon.anonymization.reports import Report
    from pandas_anon.gate.io import TableEntry, TextForm
    from pandas_anon.gate.parsers import Read
    from pandas_anon.hierarchy import Hierarchy


def add_copy_arguments(command: argparse.ArgumentParser) -> None:
    """The input and output, ``--hierarchy``, ``--identifiers``, ``--drop-suppressed``,
    ``--force`` and the file options."""
    from pandas_anon.anonymization.kanon import IDENTIFIER_TREATMENTS

    command.add_argument("input", help=f"the table to anonymize: {TABLE_HELP}")
    command.add_argument(
        "output",
        help="where to write the anonymized copy, as delimited text (same delimiter, "
        "encoding and line ending as a delimited input, else comma-separated UTF-8; never "
        "the input itself without --force)",
    )
    command.add_argument(
        "--hierarchy",
        type=hierarchy_option,
        action="append",
        metavar="COLUMN=NAME|PATH",
        help="hierarchy of a QID column: a registered name (pandas-anon "
        "plugins lists them, e.g. comune=it.comune) or a hierarchy CSV file "
        "(a path with / or ending in .csv); repeat for more columns",
    )
    command.add_argument(
        "--identifiers",
        choices=IDENTIFIER_TREATMENTS,
        default="drop",
        help="what to do with direct identifier columns outside the QID "
        "(unique on nearly every row): drop them (default), hash them "
        "(keyed by $PANDAS_ANON_SALT, a secret of at least 16 bytes such as "
        "`python -c 'import secrets; print(secrets.token_hex(16))'`, else a random key "
        "never stored) "
        "or keep them",
    )
    command.add_argument(
        "--drop-suppressed",
        action="store_true",
        help="leave suppressed rows out instead of masking them",
    )
    command.add_argument(
        "--force",
        action="store_true",
        help="allow OUT to be the input file (replaced once the copy is written)",
    )
    add_file_options(command)


@dataclass(frozen=True)
class Input:
    """The input file read for a copy: ``typed`` (numbers as numbers, to anonymize) and
    ``text`` (every cell as written), its ``form`` (delimiter, encoding, line ending) and
    the ``hierarchies`` its ``--hierarchy`` options give."""

    form: TextForm
    typed: pd.DataFrame
    text: pd.DataFrame
    hierarchies: dict[str, Hierarchy | str]

    def frame(self, candidates: Sequence[str]) -> tuple[pd.DataFrame, list[str]]:
        """The frame to anonymize: the typed read, with the columns a hierarchy file gives
        and the ``candidates`` (quasi-identifier columns) whose typed read would merge values
        the file spells apart taken as text; and those merged columns."""
        from pandas_anon.hierarchy import Hierarchy

        # a hierarchy file holds values as written: its column is matched as text
        from_files = [c for c, source in self.hierarchies.items() if isinstance(source, Hierarchy)]
        merged = merged_columns(
            self.typed,
            self.text,
            [c for c in candidates if c in self.typed.columns and c not in from_files],
        )
        return self.typed.assign(**{c: self.text[c] for c in from_files + merged}), merged


def read_input(args: argparse.Namespace) -> Input:
    """The input of a copy, after refusing an output that is the input (without
    ``--force``) or cannot be written, and an unknown ``--hierarchy`` column."""
    from pandas_anon.params import output_file

    if not args.force and same_file(args.input, args.output):
        other = "" if args.output == args.input else f" {args.input}"
        raise OutputFileError(
            f"{args.output} is the input file{other}; write the anonymized copy to another "
            f"file, or pass --force to replace the input"
        )
    output_file(args.output)  # a directory or a missing folder: said before any work
    return read_source(args.input, args)


def read_source(path: str, args: argparse.Namespace) -> Input:
    """The table at ``path`` (:func:`read_table_of`) typed and as written (``--sep``,
    ``--encoding``), with the ``--hierarchy`` options read and their columns checked.

    Delimited text is written back in its own form (delimiter, encoding, line ending); any
    other format as comma-separated UTF-8 text."""
    from pandas_anon.gate.io import TextForm, text_form, typed_and_text
    from pandas_anon.gate.parsers import sniff

    given = given_hierarchies(args.hierarchy)
    name, table = read_table_of(path, args)
    delimited = sniff(name) == "delimited"
    form = (
        text_form(name, sep=args.sep, encoding=args.encoding)
        if delimited
        else TextForm(",", "utf-8", "\n")
    )
    typed, text = typed_and_text(table.frame, as_text=delimited)
    unknown = [column for column in given if column not in text.columns]
    if unknown:
        raise ColumnNotFoundError(unknown, text.columns)
    return Input(form=form, typed=typed, text=text, hierarchies=given)


#: What a command's FILE argument may be (its help).
TABLE_HELP = (
    "delimited text (CSV, TSV, .txt), JSON, JSON Lines, Parquet, a sheet of an .xlsx or .ods "
    "workbook (book.xlsx:Sheet1) or a member of a .zip (data.zip:folder/a.csv), plain or "
    ".gz, .bz2, .xz; a file of several tables names one"
)
#: Tables listed by name when a file holds several and the command line names none.
LISTED = 10


def read_table_of(
    path: str, args: argparse.Namespace, *, usecols: Sequence[str] | None = None
) -> tuple[str, Read]:
    """The one table ``path`` names, read as ``pandas-anon check`` reads it
    (:func:`pandas_anon.gate.parsers.read`, with ``--sep`` and ``--encoding``): its name
    (the file, ``book.xlsx:Sheet1`` or ``data.zip:folder/a.csv``), and its ``usecols``
    columns (default: all) with the account of the file's values.

    ``path`` is a file holding one table, or a table inside a file, named as ``check``
    reports it. A file holding several tables (a workbook of several sheets, an archive of
    several members) is refused, its tables listed; so is a file holding none (a ``.txt`` of
    prose), and one whose account leaves a value unread (a JSON document's values beside the
    records read): the command reads a file only whole, as the gate passes it. Text outside
    the table (title lines, a workbook's properties, the names of a table wider than tall),
    which the gate bounds, is no value of the table and is not written by the command: it
    does not stop it.
    """
    from pandas_anon.gate.parsers import read

    entry = _table_entry(path, args)
    if entry.error:
        raise InputFileError(entry.error)
    table = read(entry.name, usecols=usecols, sep=args.sep, encoding=args.encoding)
    left = [part for part in table.account.open() if not part.text]
    if left:
        count = sum(part.count for part in left)
        listed = "; ".join(part.describe(table.account.source) for part in left)
        raise InputFileError(
            f"{entry.name}: {count:,} value{'s' if count != 1 else ''} of the file would not "
            f"be read into the table ({listed}); a file is read only whole: publish them as "
            f"a table of their own, or remove them from the file"
        )
    return entry.name, table


def _table_entry(path: str, args: argparse.Namespace) -> TableEntry:
    """The entry of the one table ``path`` names (see :func:`read_table_of`)."""
    from pandas_anon.gate.io import tables_in

    holder, inside = _holder(path)
    entries = tables_in(holder, sep=args.sep, encoding=args.encoding)
    tables = [entry for entry in entries if not entry.skipped]
    names = [str(entry.name) for entry in tables]
    if inside:
        if path in names:
            return tables[names.index(path)]
        raise InputFileError(
            f"{path}: {holder} holds no table of that name ({_tables(names)}); pass one of "
            f"its tables by name"
        )
    if len(tables) == 1:
        return tables[0]
    if tables:
        raise InputFileError(
            f"{path} holds {len(tables):,} tables ({_tables(names)}); pass the one to read "
            f"by its name, such as {names[0]}"
        )
    reason = entries[0].skipped if len(entries) == 1 else "it holds no table"
    raise InputFileError(f"{path} is not read as a table: {reason}; pass a table")


def _holder(path: str) -> tuple[str, bool]:
    """The file holding the table ``path`` names, and whether ``path`` names a table inside
    it (``book.xlsx:Sheet1``, ``data.zip:a.csv``): a path that is no file but whose part
    before a colon is."""
    if os.path.exists(path):
        return path, False
    colon = path.find(":")
    while colon > 0:
        if os.path.isfile(path[:colon]):
            return path[:colon], True
        colon = path.find(":", colon + 1)
    return path, False


def _tables(names: Sequence[str]) -> str:
    """``a.zip:x.csv, a.zip:y.csv`` (the first :data:`LISTED` of ``names``)."""
    if not names:
        return "it holds no table"
    more = f" and {len(names) - LISTED:,} more" if len(names) > LISTED else ""
    return f"{', '.join(names[:LISTED])}{more}"


def write_copy(
    args: argparse.Namespace,
    source: Input,
    out: pd.DataFrame,
    frame: pd.DataFrame,
    qid: Sequence[str],
    merged: Sequence[str],
    report: Report,
    order: Sequence[int] | None = None,
) -> None:
    """Write ``out`` (made from ``frame``) as the input spells it (:func:`as_written`), its
    rows in ``order`` when given, and print the ``report``; warn of each ``merged``
    quasi-identifier column (anonymized as text)."""
    from pandas_anon.gate.io import write_table

    for column in merged:
        if column in qid:
            warn(
                f"column {column!r} spells some equal numbers in more than one way (such as 7 "
                f"and 7.0, or 0100 and 100): it was anonymized as text, so that the output "
                f"keeps them apart as the input does, and its hierarchy cannot use numeric "
                f"intervals; write its numbers one way, or give it --hierarchy",
                AnonWarning,
            )
    written = as_written(out, frame, source.text, qid)
    if order is not None:
        written = written.iloc[list(order)].reset_index(drop=True)
    write_table(written, args.output, source.form)
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2, default=str, ensure_ascii=False))
    else:
        print(repr(report))


def hierarchy_option(text: str) -> tuple[str, str]:
    """``--hierarchy COLUMN=NAME`` or ``COLUMN=PATH``: the column and the name or path."""
    column, equals, source = text.partition("=")
    if not (equals and column.strip() and source.strip()):
        raise argparse.ArgumentTypeError(
            f"expected COLUMN=NAME or COLUMN=path.csv (e.g. comune=it.comune), got {text!r}"
        )
    return column.strip(), source.strip()


def given_hierarchies(options: Sequence[tuple[str, str]] | None) -> dict[str, Hierarchy | str]:
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


def same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path once resolved (links followed), or
    the same file on disk (a hard link, a case-insensitive file system)."""
    if os.path.normcase(os.path.realpath(first)) == os.path.normcase(os.path.realpath(second)):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist
        return False


def merged_columns(typed: pd.DataFrame, text: pd.DataFrame, columns: Sequence[str]) -> list[str]:
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
    missing. One lookup per distinct value (``values`` spells each value one way).

    Where ``values`` is ``written`` itself (a column anonymized as text), every value is
    already spelled as the input spells it: ``column`` as it is."""
    import numpy as np
    import pandas as pd

    if values.dtype == written.dtype and values.equals(written):
        return column
    missing = np.array([None], dtype=object)  # appended to each lookup, for code -1
    codes, first = _distinct(values)
    uniques = values.iloc[first].to_numpy(dtype=object)
    spelling = np.concatenate([written.iloc[first].to_numpy(dtype=object), missing])
    out_codes, out_first = _distinct(column)
    out_values = column.iloc[out_first].to_numpy(dtype=object)
    match = pd.Index(uniques, dtype=object).get_indexer(pd.Index(out_values, dtype=object))
    labels = np.concatenate([np.where(match >= 0, spelling[match], out_values), missing])
    # code -1 (missing, and no match above) takes the last entry: None
    return pd.Series(labels[out_codes], index=column.index, name=column.name)


def _distinct(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the series' values (pandas' equality, texts whole), numbered in the order
    of their first occurrence, and the row of each code's first occurrence: Arrow text
    hashed from its buffers, numbers, booleans and dates by pandas, anything else as
    objects (:func:`~pandas_anon.engine.encoding.factorize_objects`)."""
    import numpy as np
    import pandas as pd

    from pandas_anon.engine.encoding import arrow_text, factorize_objects
    from pandas_anon.engine.hashing import factorize_text

    text = arrow_text(series)
    if text is not None:
        return factorize_text(text)
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "biufcmM":
        codes = np.asarray(pd.factorize(series, use_na_sentinel=True)[0], dtype=np.int64)
    else:
        codes = factorize_objects(series.to_numpy(dtype=object))
    present = pd.Series(codes)
    return codes, present[present >= 0].drop_duplicates().index.to_numpy()
