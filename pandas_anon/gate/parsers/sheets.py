"""Read a sheet of a workbook (``.xlsx``, ``.xlsm`` with openpyxl, ``.ods`` with odfpy) into a
table, with the account of every cell of the workbook.

The cells are counted from the sheet's own XML (:func:`pandas_anon.gate.formats.written_cells`:
every written cell holding something, an OpenDocument table's repeated rows and cells
expanded by count), apart from the cells pandas' engine reads into the table, so that a cell
the table does not hold shows as a difference.

The table of a sheet is its first block of cells:

- its header is the first row holding a value; rows of one value each above it, separated
  from it by a blank row (up to :data:`MAX_TITLES`), are title lines: text outside the
  table, counted in characters (:attr:`~.account.Leftover.text`), as is a header cell of
  more than :data:`~.account.LONG_VALUE` characters;
- its columns run from the header's first to its last value, and on either side as long as
  the next column holds a value in the table's rows; a header cell left empty names its
  column by position in the sheet (``column 3`` for column C), and the column is read;
- its rows run down from the header to the last before a row with no value in its columns.

Every other cell is left over (:class:`~.account.Leftover`), named by its range so that a
rule can skip it (``files = "book.xlsx:Foglio1:A404:C805"``, ``skip = true``): cells below the
table (a second table, notes), beside it (past an empty column), a formula without a cached
value (which the engine reads as empty), an OpenDocument cell of text without a value type.
Reading a workbook by its own name reads its first sheet, and leaves over each other sheet
holding something, by its name (``book.xlsx:Foglio2``); ``pandas-anon check`` reads each
sheet as a table of its own. A part of the workbook that can hold values outside its sheets
(:attr:`pandas_anon.gate.formats.Parts.unread`: an embedded object, a pivot cache, a copy of
an external workbook, a chart, an image) is left over by its name in the archive
(``book.xlsx:xl/embeddings/oleObject1.bin``). The text the workbook stores outside its
sheets' cells (properties, comments, links, names, headers, strings no cell shows:
:mod:`pandas_anon.gate.parsers.workbook_text`) is text outside the table of each sheet,
by kind (``book.xlsx:Sheet1:(comments)``): the workbook's text together passes or fails
each sheet. Messages name sheets, ranges, parts and columns, never a cell's value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from pandas_anon.errors import InputFileError
from pandas_anon.gate import formats, io
from pandas_anon.gate.formats import Sheet, Written
from pandas_anon.gate.parsers import workbook_text
from pandas_anon.gate.parsers.account import CHARACTERS, LONG_VALUE, Account, Leftover
from pandas_anon.gate.parsers.text import LONG_NAMES

#: What a sheet's values are called in an account.
CELLS = "cells"
#: What a workbook's parts are called in an account.
PARTS = workbook_text.PARTS
#: Where a header's names go in an account.
NAMES = "(column names)"
#: Where title lines above a table go in an account.
TITLES = "(title lines)"
#: Where the characters of header cells of more than LONG_VALUE characters go.
#: Rows of one value each read as title lines above a table, at most.
MAX_TITLES = 10


class Layout(NamedTuple):
    """Where a sheet's table lies: row and column positions from 0 (the sheet's row 1 and
    column A), ``last`` and ``right`` included."""

    titles: frozenset[int]
    header: int
    last: int
    left: int
    right: int


def read(name: str, usecols: Sequence[str] | None) -> tuple[pd.DataFrame, Account]:
    """The table of the sheet ``name`` (a :class:`~pandas_anon.gate.formats.Sheet`, or a
    workbook, whose first sheet is read), the ``usecols`` columns (default: all) as
    categoricals, and the account of its cells (see the module's docstring).

    Raises
    ------
    InputFileError
        The engine is not installed, the file is not a valid workbook, the sheet is empty
        or its header repeats a name.
    ColumnNotFoundError
        A ``usecols`` name not in the header.
    """
    book = name.book if isinstance(name, Sheet) else name
    source = io.seekable(book)
    with formats.open_workbook(book, source) as workbook:
        parts = formats.workbook_parts(workbook, source)
        if isinstance(name, Sheet) and name.sheet in parts.unread:
            part = Leftover(name.sheet, PARTS, 1, parts.unread[name.sheet])
            return pd.DataFrame(), Account(book, {PARTS: 1}, {}, (part,))
        names = [str(sheet) for sheet in workbook.sheet_names]
        if not names:
            raise InputFileError(f"{book} holds no sheet; there is nothing to check")
        sheet = name.sheet if isinstance(name, Sheet) else names[0]
        cells = formats.read_cells(name, workbook, sheet)
        runs = list(formats.written_cells(name, workbook, sheet))
        others = {} if isinstance(name, Sheet) else _other_sheets(book, workbook, names[1:])
        text = workbook_text.leftovers(workbook, source, parts)
    frame, account = _table(name, cells, runs, usecols, workbook_text.fails(text))
    unread = [*account.unread, *text]
    if not isinstance(name, Sheet):
        unread += [Leftover(s, CELLS, n, "another sheet, not read") for s, n in others.items()]
        unread += [Leftover(p, PARTS, 1, kind) for p, kind in parts.unread.items()]
    units = {**account.units, CELLS: account.units[CELLS] + sum(others.values())}
    left = sum(part.kind == PARTS for part in unread)  # parts not read, or not parsed
    if left or not isinstance(name, Sheet):
        units[PARTS] = left
    return frame, Account(account.source, units, account.read, tuple(unread))


def _other_sheets(book: str, workbook: pd.ExcelFile, sheets: Sequence[str]) -> dict[str, int]:
    """The cells each sheet of ``sheets`` holds (those holding any)."""
    counted = {
        sheet: sum(run.rows * run.columns for run in formats.written_cells(book, workbook, sheet))
        for sheet in sheets
    }
    return {sheet: count for sheet, count in counted.items() if count}


def _table(
    name: str,
    cells: pd.DataFrame,
    runs: list[Written],
    usecols: Sequence[str] | None,
    outside: bool,
) -> tuple[pd.DataFrame, Account]:
    """The table of a sheet's ``cells`` (as :func:`~pandas_anon.gate.formats.read_cells`
    reads them) and the account of its written ``runs``; a sheet of no value is an error,
    unless it holds cells read as empty or the text ``outside`` the cells fails the
    workbook (its account then says which)."""
    filled = cells.notna().to_numpy()
    if not filled.any():
        if outside or any(run.unread for run in runs):  # say which
            return pd.DataFrame(), _account(name, runs, None, {})
        raise InputFileError(f"{name} is an empty sheet; there is nothing to check")
    layout = _layout(filled)
    span = range(layout.left, layout.right + 1)
    body = slice(layout.header + 1, layout.last + 1)
    header = {
        j: str(cells.iat[layout.header, j]) if filled[layout.header, j] else f"column {j + 1}"
        for j in span
        if filled[layout.header, j] or filled[body, j].any()
    }
    columns = formats.select_columns(name, list(header.values()), usecols)
    position = {column: j for j, column in header.items()}
    frame = cells.iloc[body, [position[c] for c in columns]].set_axis(columns, axis=1)
    frame = formats.categoricals(name, frame.reset_index(drop=True))
    read = {(name, NAMES): int(filled[layout.header, span.start : span.stop].sum())}
    if layout.titles:
        read[name, TITLES] = len(layout.titles)
    read.update({(name, str(c)): int(frame[c].notna().sum()) for c in columns})
    declared = [
        Leftover(column, CELLS, int(filled[body, j].sum()), "outside the columns asked for", True)
        for j, column in header.items()
        if column not in columns
    ]
    return frame, _account(name, runs, layout, read, [*declared, *_text(cells, layout, header)])


def _text(cells: pd.DataFrame, layout: Layout, header: dict[int, str]) -> list[Leftover]:
    """The text outside the table at ``layout`` in a sheet's ``cells``: its title lines, and
    the names of its ``header`` longer than :data:`~.account.LONG_VALUE` characters, in
    characters (the cells themselves are accounted as title lines and column names)."""
    text = []
    titles = cells.iloc[sorted(layout.titles)].to_numpy().ravel()
    characters = sum(len(str(value)) for value in titles if not pd.isna(value))
    if characters:
        plural = "s" if len(layout.titles) > 1 else ""
        reason = f"{len(layout.titles)} title line{plural} above the table"
        text.append(Leftover(TITLES, CHARACTERS, characters, reason, text=True))
    long = [len(column) for column in header.values() if len(column) > LONG_VALUE]
    if long:
        plural = "s" if len(long) > 1 else ""
        reason = f"{len(long):,} column name{plural} of more than {LONG_VALUE} characters"
        text.append(Leftover(LONG_NAMES, CHARACTERS, sum(long), reason, text=True))
    return text


def _layout(filled: np.ndarray) -> Layout:
    """Where the table lies among the ``filled`` cells (see the module's docstring)."""
    counts = filled.sum(axis=1)
    rows = np.flatnonzero(counts)
    header, titles = int(rows[0]), frozenset[int]()
    singles = [int(r) for r in rows[: MAX_TITLES + 1]]
    first_wide = next((i for i, r in enumerate(singles) if counts[r] > 1), None)
    if first_wide and singles[first_wide] - singles[first_wide - 1] > 1:  # a blank row between
        header, titles = singles[first_wide], frozenset(singles[:first_wide])
    last = header
    while last + 1 < len(filled) and filled[last + 1].any():
        last += 1
    named = np.flatnonzero(filled[header])
    left, right = int(named[0]), int(named[-1])
    used: np.ndarray = np.asarray(filled[header : last + 1].any(axis=0))
    while left > 0 and used[left - 1]:
        left -= 1
    while right + 1 < len(used) and used[right + 1]:
        right += 1
    last = header
    while last + 1 < len(filled) and filled[last + 1, left : right + 1].any():
        last += 1
    return Layout(titles, header, last, left, right)


def _account(
    name: str,
    runs: list[Written],
    layout: Layout | None,
    read: dict[tuple[str, str], int],
    left: Sequence[Leftover] = (),
) -> Account:
    """The account of a sheet's written ``runs`` around the table at ``layout``: ``read``
    says what the table holds (from the cells read), the runs what the sheet holds; every
    written cell outside the table is left over, by region, named by its range, after what
    else is ``left`` (columns not asked for, text outside the table)."""
    regions: dict[str, _Range] = {}
    for run in runs:
        if run.unread:
            top, start = run.row - 1, run.column - 1
            whole = _Piece(top, top + run.rows, start, start + run.columns)
            regions.setdefault(run.unread, _Range()).add(whole, run.rows * run.columns)
        elif layout is not None:
            for reason, piece, count in _outside(layout, run):
                regions.setdefault(reason, _Range()).add(piece, count)
    total = sum(run.rows * run.columns for run in runs)
    unread = [
        Leftover(found.name(), CELLS, found.count, reason)
        for reason, found in regions.items()
        if found.count
    ]
    return Account(name, {CELLS: total}, read, (*left, *unread))


#: Why cells outside a sheet's table are left over, by where they lie.
BELOW = "below the table read, past a row without a value in its columns"
BESIDE = "beside the table read, past a column without a value in its rows"
ABOVE = "above the table read"


class _Piece(NamedTuple):
    """Rows ``top`` to ``bottom`` and columns ``start`` to ``stop`` of a sheet (from 0, the
    ends excluded)."""

    top: int
    bottom: int
    start: int
    stop: int = 0


def _outside(layout: Layout, run: Written) -> list[tuple[str, _Piece, int]]:
    """The cells of ``run`` outside the table at ``layout``: why, where, and how many, for
    each piece of it below, beside or above the table (title lines aside)."""
    top, bottom = run.row - 1, run.row - 1 + run.rows
    start, stop = run.column - 1, run.column - 1 + run.columns
    pieces = []
    if bottom > layout.last + 1:
        below = _Piece(max(top, layout.last + 1), bottom, start, stop)
        pieces.append((BELOW, below, (below.bottom - below.top) * run.columns))
    above = [r for r in range(top, min(bottom, layout.header)) if r not in layout.titles]
    if above:
        pieces.append(
            (ABOVE, _Piece(above[0], above[-1] + 1, start, stop), len(above) * run.columns)
        )
    rows = (max(top, layout.header), min(bottom, layout.last + 1))
    for side in ((start, min(stop, layout.left)), (max(start, layout.right + 1), stop)):
        if rows[1] > rows[0] and side[1] > side[0]:
            count = (rows[1] - rows[0]) * (side[1] - side[0])
            pieces.append((BESIDE, _Piece(*rows, *side), count))
    return pieces


class _Range:
    """The cells of one region of a sheet left over: how many, and the range holding them."""

    def __init__(self) -> None:
        self.count = 0
        self.top = self.start = 1 << 62
        self.bottom = self.stop = 0

    def add(self, piece: _Piece, count: int) -> None:
        """Add the ``count`` cells of ``piece``."""
        self.count += count
        self.top, self.start = min(self.top, piece.top), min(self.start, piece.start)
        self.bottom, self.stop = max(self.bottom, piece.bottom), max(self.stop, piece.stop)

    def name(self) -> str:
        """``A404:C805`` (``A404`` for one cell)."""
        first = f"{_letters(self.start + 1)}{self.top + 1}"
        last = f"{_letters(self.stop)}{self.bottom}"
        return first if first == last else f"{first}:{last}"


def _letters(column: int) -> str:
    """The letters of the sheet's column ``column`` (1: ``A``, 27: ``AA``)."""
    letters = ""
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters
