"""Read a sheet of a workbook (``.xlsx``, ``.xlsm`` with openpyxl, ``.ods`` with odfpy) into a
table, with the account of every cell of the workbook.

The cells are counted from the sheet's own XML (:func:`pandas_anon.gate.formats.written_cells`:
every written cell holding something, an OpenDocument table's repeated rows and cells
expanded by count), apart from the cells pandas' engine reads into the table, so that a cell
the table does not hold shows as a difference.

The table of a sheet is its first block of cells:

- its header is the first row holding a value; rows of one value each above it, separated
  from it by a blank row (up to :data:`MAX_TITLES`), are title lines, read as such;
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
(:func:`pandas_anon.gate.formats.unread_parts`: an embedded object, a pivot cache, a copy of
an external workbook, a chart, an image, comments) is left over by its name in the archive
(``book.xlsx:xl/embeddings/oleObject1.bin``). Messages name sheets, ranges, parts and
columns, never a cell's value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from pandas_anon.errors import InputFileError
from pandas_anon.gate import formats, io
from pandas_anon.gate.formats import Sheet, Written
from pandas_anon.gate.parsers.account import Account, Leftover

#: What a sheet's values are called in an account.
CELLS = "cells"
#: What a workbook's parts are called in an account.
PARTS = "workbook parts"
#: Where a header's names go in an account.
NAMES = "(column names)"
#: Where title lines above a table go in an account.
TITLES = "(title lines)"
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
        parts = formats.unread_parts(workbook, source)
        if isinstance(name, Sheet) and name.sheet in parts:
            part = Leftover(name.sheet, PARTS, 1, parts[name.sheet])
            return pd.DataFrame(), Account(book, {PARTS: 1}, {}, (part,))
        names = [str(sheet) for sheet in workbook.sheet_names]
        if not names:
            raise InputFileError(f"{book} holds no sheet; there is nothing to check")
        sheet = name.sheet if isinstance(name, Sheet) else names[0]
        cells = formats.read_cells(name, workbook, sheet)
        runs = list(formats.written_cells(name, workbook, sheet))
        others = {} if isinstance(name, Sheet) else _other_sheets(book, workbook, names[1:])
    frame, account = _table(name, cells, runs, usecols)
    if isinstance(name, Sheet):
        return frame, account
    unread = [Leftover(s, CELLS, n, "another sheet, not read") for s, n in others.items()]
    unread += [Leftover(p, PARTS, 1, kind) for p, kind in parts.items()]
    units = {CELLS: account.units[CELLS] + sum(others.values()), PARTS: len(parts)}
    return frame, Account(book, units, account.read, (*account.unread, *unread))


def _other_sheets(book: str, workbook: pd.ExcelFile, sheets: Sequence[str]) -> dict[str, int]:
    """The cells each sheet of ``sheets`` holds (those holding any)."""
    counted = {
        sheet: sum(run.rows * run.columns for run in formats.written_cells(book, workbook, sheet))
        for sheet in sheets
    }
    return {sheet: count for sheet, count in counted.items() if count}


def _table(
    name: str, cells: pd.DataFrame, runs: list[Written], usecols: Sequence[str] | None
) -> tuple[pd.DataFrame, Account]:
    """The table of a sheet's ``cells`` (as :func:`~pandas_anon.gate.formats.read_cells`
    reads them) and the account of its written ``runs``."""
    filled = cells.notna().to_numpy()
    if not filled.any():
        if any(run.unread for run in runs):  # only cells read as empty: say which
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
    return frame, _account(name, runs, layout, read, declared)


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
    declared: Sequence[Leftover] = (),
) -> Account:
    """The account of a sheet's written ``runs`` around the table at ``layout``: ``read``
    says what the table holds (from the cells read), the runs what the sheet holds; every
    written cell outside the table is left over, by region, named by its range."""
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
    return Account(name, {CELLS: total}, read, (*declared, *unread))


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
