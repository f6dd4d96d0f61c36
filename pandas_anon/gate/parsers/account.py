"""The account of a source: how many values a file holds, and where each one went.

A reader (:mod:`pandas_anon.gate.parsers`) returns, with the table it read, an
:class:`Account` of the file: the values it holds, counted by kind (the cells of delimited
text, the leaves of a JSON document, the column names of a header), where each was read
(a table and a column), and what was left over (:class:`Leftover`: a part of the file named
so that a rule can skip it). The gate passes a file only when its account is closed
(:meth:`Account.open`): every value read, or left over by name and skipped by a rule, or left
out by the caller's own choice of columns (``usecols``: the columns a command such as
``pandas-anon scan --qid`` does not need; the gate itself reads every column).

Text that is not a cell of the table (title lines, notes, document properties, metadata,
comments, links, strings a workbook stores but no cell shows, a cell of more than
:data:`LONG_VALUE` characters) cannot be judged by the gate's rules, which count people by
the values of columns: it is a :class:`Leftover` with ``text=True``, counted in characters.
The budget is an account's: a file's, an archive member's, a workbook's (its sheets share
it); the layers around it (an archive's comments, a gzip header, a Parquet folder's names)
are reckoned against a budget of their own.
A file may carry up to :data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters of it in all (a title, a note, the
name of the tool that wrote it); past that, every such part is open, named, so that a person
reads it and skips it by a rule, or publishes it apart.

The counts are the reader's own and independent where the format allows it: a JSON document's
leaves are counted by a walk of the whole document, apart from the records that fill the
table, so a leaf the table does not hold shows as a difference. An account whose read and
unread values do not add up to the values counted is itself open (:data:`UNACCOUNTED`): the
reader missed something, and the gate fails closed on it.

Nothing here holds a value of the file: names of columns and of parts (``$.meta``), counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from pandas_anon.errors import InputFileError
from pandas_anon.gate.limits import TEXT_BUDGET

#: The name of the leftover an account shows when its counts do not add up.
UNACCOUNTED = "(values not accounted for)"
#: A cell holding more characters than this is text, not a value of a column.
LONG_VALUE = 200
#: The kind of a text leftover's count.
CHARACTERS = "characters of text"


@dataclass(frozen=True)
class Leftover:
    """A part of a file the reader did not read into its table.

    Attributes
    ----------
    name : str
        The part, as a rule names it after the file and a colon: a JSON path (``$.meta``),
        a column (``column 3``).
    kind : str
        What its values are (``"JSON values"``, ``"cells"``).
    count : int
        Its values.
    reason : str
        Why it is not read (``"outside the records read"``).
    declared : bool
        Left out by the caller's own choice of columns (``usecols``), which already says so:
        it does not fail the file.
    text : bool
        Text outside the table (a title, a property, a comment), ``count`` its characters:
        it fails the file only when the file's text outside the table passes
        :data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters in all. Its characters are not values of
        :attr:`Account.units`.
    """

    name: str
    kind: str
    count: int
    reason: str
    declared: bool = False
    text: bool = False

    def describe(self, source: str) -> str:
        """``'x.json:$.meta (3 JSON values, outside the records read)'``."""
        return f"{source}:{self.name} ({self.count:,} {self.kind}, {self.reason})"


@dataclass(frozen=True)
class Account:
    """What a reader examined of one source.

    Attributes
    ----------
    source : str
        The file (or archive member, or sheet) read.
    units : Mapping[str, int]
        The values the source holds, by kind (``{"cells": 600, "column names": 3}``).
    read : Mapping[tuple[str, str], int]
        The values read, by the table and column (or part: ``"(column names)"``) they went to.
    unread : tuple of Leftover
        What was left over.
    """

    source: str
    units: Mapping[str, int]
    read: Mapping[tuple[str, str], int]
    unread: tuple[Leftover, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", MappingProxyType(dict(self.units)))
        object.__setattr__(self, "read", MappingProxyType(dict(self.read)))
        object.__setattr__(self, "unread", tuple(self.unread))

    @property
    def total(self) -> int:
        """The values the source holds."""
        return sum(self.units.values())

    @property
    def read_total(self) -> int:
        """The values read into a table."""
        return sum(self.read.values())

    @property
    def unaccounted(self) -> int:
        """Values neither read nor left over by name (0 in a correct account)."""
        left = sum(part.count for part in self.unread if not part.text)
        return self.total - self.read_total - left

    @property
    def text(self) -> int:
        """Characters of text outside the table (:attr:`Leftover.text`)."""
        return sum(part.count for part in self.unread if part.text)

    def open(self, skipped: Callable[[str], bool] = lambda part: False) -> list[Leftover]:
        """What keeps the account from closing: every leftover neither declared by a setting
        nor ``skipped`` by a rule (given its name), text outside the table only when what
        is left of it passes :data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters in all; and a
        :data:`UNACCOUNTED` one when the counts do not add up."""
        left = [p for p in self.unread if not p.declared and not skipped(p.name)]
        over = sum(p.count for p in left if p.text) > TEXT_BUDGET
        parts = [p for p in left if over or not p.text]
        if self.unaccounted:
            parts.append(
                Leftover(UNACCOUNTED, "values", abs(self.unaccounted), "the reader's counts differ")
            )
        return parts

    def to_dict(self) -> dict[str, object]:
        """The account as the JSON report gives it (counts and names only)."""
        return {
            "values": self.total,
            "by_kind": dict(self.units),
            "read": self.read_total,
            "text_outside": self.text,
            "unread": [
                {"part": p.name, "kind": p.kind, "count": p.count, "reason": p.reason}
                | ({"declared": True} if p.declared else {})
                | ({"text": True} if p.text else {})
                for p in self.unread
            ],
        }


def unread_error(account: Account, skipped: Callable[[str], bool]) -> InputFileError | None:
    """The error failing a file whose account is not closed (:meth:`Account.open`), but for
    the parts ``skipped`` says a rule skips (given the part's full name, ``file:$.meta``);
    None when nothing is left. The message names each part and the rule that skips it."""
    source = account.source
    parts = account.open(lambda part: skipped(f"{source}:{part}"))
    if not parts:
        return None
    text = sum(p.count for p in parts if p.text)
    values = sum(p.count for p in parts if not p.text)
    listed = "; ".join(part.describe(source) for part in parts)
    rules = ", ".join(json.dumps(_glob(_full(source, p))) for p in parts if p.name != UNACCOUNTED)
    fix = (
        f"if they hold no one's data, skip them by name: a rule with files = [{rules}] and "
        "skip = true"
        if rules
        else "report this as a bug of pandas-anon"
    )
    what = []
    if values:
        plural = "s" if values != 1 else ""
        what.append(f"{values:,} value{plural} of the file were not read into the table checked")
    if text:
        what.append(
            f"{text:,} characters of text outside the table are more than the "
            f"{TEXT_BUDGET:,} the gate lets a file carry unread"
        )
    return InputFileError(
        f"{source}: {' and '.join(what)} ({listed}); the gate passes a file only when it has read every "
        f"value: publish them as a table of their own, or {fix}"
    )


def _full(source: str, part: Leftover) -> str:
    """The name a rule's ``files`` matches for ``part``: ``file:part``."""
    return f"{source}:{part.name}"


def _glob(name: str) -> str:
    """``name`` as a glob matching only itself (``[``, ``*`` and ``?`` bracketed)."""
    return "".join(f"[{c}]" if c in "[*?" else c for c in name)
