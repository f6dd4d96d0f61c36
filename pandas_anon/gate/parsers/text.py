"""Text a table holds outside its values: long cells, and names that are not a schema.

The gate's rules judge people by the values of columns: how many rows share each value.
Two things a table read holds are not judged that way, whatever the format, and are counted
here as text outside the table (:attr:`~.account.Leftover.text`, in characters, against the
file's :data:`~pandas_anon.gate.limits.TEXT_BUDGET`):

- **A long cell.** A value of more than :data:`~.account.LONG_VALUE` characters is prose (a
  note, a description, a list), not a category shared by people: two rows sharing a cell that
  lists everyone are not two people alike. Each distinct long value of a column counts its
  characters once.
- **Names that cannot be a schema.** Column names are read as the names of the values below
  them. In a table with more columns than rows (written across: a person per column, their
  attributes down the rows) the names may be the people themselves; and the name of a column
  whose cells hold one value, or none, is the only thing the column tells. Such names count
  their characters: the names of a few constant columns (``anno``, ``fonte``) or of a short
  table across (the twelve months) fit the budget, a header of four hundred tax codes does
  not.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pandas_anon.gate.parsers.account import CHARACTERS, LONG_VALUE, Account, Leftover

#: The part named for the column names of a table wider than tall.
NAMES_ACROSS = "(column names)"
#: The part named for the names of columns holding one value or none.
CONSTANT_NAMES = "(names of columns of one value)"
#: The part named for the column names of more than :data:`~.account.LONG_VALUE` characters.
LONG_NAMES = "(long column names)"
#: Rows looked at first when telling whether a column holds one value.
_HEAD = 1024
#: Long values a partition keeps of a column: enough to pass the budget.
_KEPT = 8


def with_text(frame: pd.DataFrame, account: Account) -> Account:
    """``account`` with the text outside ``frame``'s values added to what it leaves over:
    its long values (a part per column, ``"note (long values)"``) and the names that are
    not a schema (:data:`NAMES_ACROSS` or :data:`CONSTANT_NAMES`)."""
    long: dict[Hashable, list[str]] = {c: _long_of(frame[c]) for c in frame.columns}
    constant = [c for c in frame.columns if _single_valued(frame[c])]
    return _with(account, long, list(frame.columns), len(frame), constant)


def with_partitions_text(frame: Any, account: Account) -> Account:
    """:func:`with_text` of the Dask frame ``frame``, found in one pass over its partitions
    (each summarised on its own: rows, whether each column holds one value, and its long
    values, at most :data:`_KEPT` a column, enough to pass the budget)."""
    import dask

    summaries = dask.compute(*(dask.delayed(_summary)(part) for part in frame.to_delayed()))
    rows = sum(summary.rows for summary in summaries)
    columns = list(frame.columns)
    long = {c: sorted(set().union(*(s.long[c] for s in summaries))) for c in columns}
    filled = [s for s in summaries if s.rows]
    constant = [
        c
        for c in columns
        if all(s.single[c] for s in filled) and len({_key(s.first[c]) for s in filled}) <= 1
    ]
    return _with(account, long, columns, rows, constant)


class _Summary(NamedTuple):
    """What one partition tells of the text outside the table."""

    rows: int
    single: dict[Hashable, bool]
    first: dict[Hashable, object]
    long: dict[Hashable, list[str]]


def _summary(part: pd.DataFrame) -> _Summary:
    """The :class:`_Summary` of the partition ``part``."""
    return _Summary(
        len(part),
        {c: _single_valued(part[c]) for c in part.columns},
        {c: part[c].iloc[0] if len(part) else None for c in part.columns},
        {c: _long_of(part[c])[:_KEPT] for c in part.columns},
    )


def _key(value: object) -> object:
    """``value`` as a key alike for every missing value (None, NaN, NA, NaT)."""
    return None if value is None or bool(pd.isna(value)) else value  # type: ignore[call-overload]


def _with(
    account: Account,
    long: Mapping[Hashable, list[str]],
    names: Sequence[Hashable],
    rows: int,
    constant: Sequence[Hashable],
) -> Account:
    """``account`` with the text outside a table of ``rows`` rows and columns ``names``:
    the ``long`` values of each column, the names, or those of the ``constant`` columns."""
    found: list[Leftover | None] = [
        _long_values(column, values) for column, values in long.items() if values
    ]
    found.append(_names(names, rows, constant))
    if all(part.name != LONG_NAMES for part in account.unread):  # unless its reader counted them
        found.append(_long_names(names))
    extra = tuple(part for part in found if part is not None)
    if not extra:
        return account
    return Account(account.source, account.units, account.read, (*account.unread, *extra))


def _names(names: Sequence[Hashable], rows: int, constant: Sequence[Hashable]) -> Leftover | None:
    """The column ``names`` of a table of ``rows`` rows that are not a schema, or None."""
    if len(names) > rows:
        reason = (
            f"{len(names):,} columns over {rows:,} rows: names that may be records written across"
        )
        return Leftover(NAMES_ACROSS, CHARACTERS, _characters(names), reason, text=True)
    if not constant:
        return None
    reason = f"the names of {len(constant):,} columns holding one value or none"
    return Leftover(CONSTANT_NAMES, CHARACTERS, _characters(constant), reason, text=True)


def _long_names(names: Sequence[Hashable]) -> Leftover | None:
    """The column ``names`` of more than :data:`~.account.LONG_VALUE` characters, as text
    outside the table (a name of that length is a note, not a name), or None."""
    long = [name for name in names if len(str(name)) > LONG_VALUE]
    if not long:
        return None
    reason = f"{len(long):,} column names of more than {LONG_VALUE} characters"
    return Leftover(LONG_NAMES, CHARACTERS, _characters(long), reason, text=True)


def _characters(names: Sequence[Hashable]) -> int:
    return sum(len(str(name)) for name in names)


def _single_valued(column: pd.Series) -> bool:
    """Whether ``column`` holds one value (missing counted as one) or none."""
    if len(column) < 2:
        return True
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        return bool((codes == codes[0]).all())
    if column.iloc[:_HEAD].nunique(dropna=False) > 1:
        return False
    return bool(column.nunique(dropna=False) <= 1)


def _long_of(column: pd.Series) -> list[str]:
    """The distinct values of ``column`` longer than :data:`LONG_VALUE` characters."""
    categorical = isinstance(column.dtype, pd.CategoricalDtype)
    values = pd.Series(column.cat.categories) if categorical else column
    kind = values.dtype
    if pd.api.types.is_numeric_dtype(kind) or pd.api.types.is_datetime64_any_dtype(kind):
        return []  # numbers, booleans and times: no text
    try:
        text = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # text mixed with other values
        text = pa.array(values.dropna().astype(str))
    if not (pa.types.is_string(text.type) or pa.types.is_large_string(text.type)):
        return []  # a column of other values (dates, decimals, nested)
    text = text.cast(pa.large_string())
    long = pc.filter(text, pc.greater(pc.utf8_length(text), pa.scalar(LONG_VALUE)))
    return [str(value) for value in pc.unique(long).to_pylist()] if len(long) else []


def _long_values(name: Hashable, distinct: list[str]) -> Leftover:
    """The ``distinct`` long values of the column ``name``, as text outside the table."""
    characters = sum(len(value) for value in distinct)
    plural = "s" if len(distinct) > 1 else ""
    reason = f"{len(distinct):,} value{plural} of more than {LONG_VALUE} characters: text, not categories"
    return Leftover(f"{name} (long values)", CHARACTERS, characters, reason, text=True)
