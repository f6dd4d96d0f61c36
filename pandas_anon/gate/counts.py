"""Count tables: the gate on aggregated tables, where a small count singles people out.

Public administrations publish counts more often than records: people by date, area, age
band and sex, in one count column (``n``) or in one count column per category (``m``,
``f``). A cell saying that one man aged 70-79 in a small town did something on a given day
identifies him as surely as his record would. Two rules apply, both counting people, never
quoting a value:

1. **Small cells** (the statistical-disclosure rule of a minimum cell count, often 3, 5 or
   10: the threshold rule of Hundepool et al. 2012, "Statistical Disclosure Control",
   chapter 5 on frequency tables): every published count is 0 or at least ``min_count``. A missing count is a
   withheld cell, already protected.
2. **The row-level rules on people**: weighted by its counts, the table is what it would be
   exploded to one row per person (:mod:`pandas_anon.engine.weights`), so singletons, k and
   the gate's election (:func:`pandas_anon.detect.exposure.scan`) are measured on people:
   the verdict is the one the exploded table gets. With a QID narrower than the table's
   dimensions, a class sums the cells of the other dimensions.

3. **The table's own totals** (:func:`recovered_cells`): a total column (``totale = m + f``)
   or a dimension level named as a total (``totale``, ``total``, ``all``, ``tutti``, ...) gives
   back a withheld cell by subtraction. Where a total less the published cells of its row or
   group leaves from 1 to :func:`smallest_cell` - 1 people in cells withheld (missing) or left
   out (a row or a column not published), the file fails, naming the total and the rule,
   never a value.

A wide table (``counts = ["m", "f"]``) is turned into its long form first, the category
becoming a dimension named ``dimension`` (default ``category``), which a QID may name.

With nothing configured, :func:`looks_like_counts` says whether a table looks like counts
(:data:`COUNT_RULE`), so that the gate asks for the declaration instead of judging cells as
people; ``pandas-anon init`` writes the same guess into a configuration.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np
import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.detect.exposure import name_hints_identifier
from pandas_anon.engine.columns import resolve_columns
from pandas_anon.engine.weights import counts_of, melt_counts
from pandas_anon.errors import ConfigError, InvalidParameterError

#: The dimension a wide table's count columns spell, unless the configuration names it.
DEFAULT_DIMENSION = "category"
#: The count column of the long form of a wide table.
_COUNT = "__pandas_anon_count__"


@dataclass(frozen=True)
class CountTable:
    """How a file counts people: ``count`` names its one count column, or ``counts`` its
    count columns, one per category of ``dimension``; ``min_count`` is the smallest count a
    cell may publish besides 0 (None: no small-cell rule)."""

    count: str | None = None
    counts: tuple[str, ...] | None = None
    dimension: str | None = None
    min_count: int | None = None

    def __post_init__(self) -> None:
        if self.count is None and self.counts is None:
            raise ConfigError(
                "min_count and dimension are for count tables: name the count column "
                '(count = "n", --count n) or the count columns (counts = ["m", "f"], '
                "--counts m,f)"
            )
        if self.dimension is not None and self.counts is None:
            raise ConfigError(
                "dimension names what the count columns of a wide table spell (counts = "
                '["m", "f"], dimension = "sex"); a table with one count column needs none'
            )

    @property
    def columns(self) -> tuple[str, ...]:
        """The count columns."""
        return (self.count,) if self.count is not None else tuple(self.counts or ())

    @property
    def category(self) -> str | None:
        """The dimension a wide table's count columns spell (None for one count column)."""
        return None if self.counts is None else self.dimension or DEFAULT_DIMENSION

    def read(self, frame: pd.DataFrame) -> tuple[pd.DataFrame, str, SmallCells]:
        """The table in long form, its count column, and its small cells; a count that is
        no whole number of people from 0 up is an
        :class:`~pandas_anon.errors.InvalidParameterError` naming its column."""
        resolve_columns(frame, list(self.columns))  # a ColumnNotFoundError naming a missing one
        people = {c: counts_of(frame[c], f"count column {c!r}") for c in self.columns}
        missing = {c: np.asarray(frame[c].isna(), dtype=bool) for c in self.columns}
        withheld = {c: int(flags.sum()) for c, flags in missing.items()}
        cells = SmallCells.of(people, withheld, self.min_count)
        recovered = recovered_cells(frame, people, missing, self.category, self.min_count)
        cells = replace(cells, recovered=recovered)
        if self.counts is None:
            (count,) = self.columns
            long = frame.assign(**{_COUNT: people[count]}).drop(columns=[count])
        else:
            counted = frame.assign(**people)  # checked counts, missing as 0
            long = melt_counts(counted, list(self.columns), dimension=self.category, count=_COUNT)
        return long, _COUNT, cells


@dataclass(frozen=True)
class SmallCells:
    """The published counts of a table against the small-cell rule: ``small`` cells count
    from 1 to ``min_count - 1`` people, ``by_column`` says how many in each count column;
    ``cells`` counts the published (not withheld) counts, ``withheld`` the missing ones."""

    min_count: int | None
    cells: int
    withheld: int
    small: int
    people: int  # in the small cells
    by_column: dict[str, int] = field(default_factory=dict)
    #: the withheld cells the table's own totals give back (:func:`recovered_cells`)
    recovered: tuple[Recovered, ...] = ()

    @classmethod
    def of(
        cls, people: dict[str, np.ndarray], withheld: dict[str, int], min_count: int | None
    ) -> SmallCells:
        """The small cells of count columns (``people``: each column's counts, missing as 0;
        ``withheld``: each column's missing counts)."""
        small = {
            column: (counts >= 1) & (counts < (min_count or 0)) for column, counts in people.items()
        }
        return cls(
            min_count,
            sum(len(counts) for counts in people.values()) - sum(withheld.values()),
            sum(withheld.values()),
            sum(int(flags.sum()) for flags in small.values()),
            sum(int(people[c][flags].sum()) for c, flags in small.items()),
            {column: int(flags.sum()) for column, flags in small.items() if flags.any()},
        )

    def violations(self) -> list[str]:
        """Why the counts fail the small-cell rule or give a withheld cell back through the
        table's own totals (empty: they pass)."""
        return self._small_violations() + self._recovered_violations()

    def _recovered_violations(self) -> list[str]:
        threshold = smallest_cell(self.min_count)
        leaves = (
            "1 person, a cell that singles them out"
            if self.min_count is None
            else f"from 1 to {threshold - 1} {'person' if threshold == 2 else 'people'}, "
            f"below the minimum count of {threshold}"
        )
        return [
            f"the table's own totals give back withheld cells in "
            f"{report.plural(found.places, found.unit)} ({found.total}): there the total less "
            f"its published cells leaves {leaves}; withhold that total too, or another cell "
            f"beside the small one (secondary suppression)"
            for found in self.recovered
        ]

    def _small_violations(self) -> list[str]:
        if not self.small or self.min_count is None:
            return []
        where = ", ".join(f"{column}: {n:,}" for column, n in self.by_column.items())
        counting = "1" if self.min_count == 2 else f"from 1 to {self.min_count - 1}"
        return [
            f"{report.count(self.small)} of {report.plural(self.cells, 'published cell')} "
            f"count{'s' if self.small == 1 else ''} {counting} "
            f"{'person' if self.min_count == 2 else 'people'} "
            f"({report.plural(self.people, 'person', 'people')} in all; by count column: "
            f"{where}), below the minimum count of {self.min_count}"
        ]

    def to_dict(self) -> dict:
        return {
            "min_count": self.min_count,
            "cells": self.cells,
            "withheld": self.withheld,
            "small": self.small,
            "people_in_small": self.people,
            "small_by_column": self.by_column,
            "recovered_by_totals": [found.to_dict() for found in self.recovered],
        }


def smallest_cell(min_count: int | None) -> int:
    """The smallest count of people a cell may publish besides 0: ``min_count``, else 2 (a
    cell of one person singles them out, as a singleton does under the default limit).

    Examples
    --------
    >>> smallest_cell(5), smallest_cell(None)
    (5, 2)
    """
    return 2 if min_count is None else min_count


# -- the table's own totals -----------------------------------------------------------------

#: First words of a dimension level, or words of a column's name, that say it is a total.
TOTAL_WORDS = frozenset(
    {"totale", "totali", "total", "totals", "tot", "tutti", "tutte", "all", "complessivo"}
)
_WORD = re.compile(r"[^\W\d_]+")


def _words(text: object) -> list[str]:
    return _WORD.findall(str(text).lower())


def says_total(name: object) -> bool:
    """Whether a column name or a dimension level reads as a total (:data:`TOTAL_WORDS`):
    a level by its first word (``Totale``, ``All ages``), a column name by any word
    (``totale``, ``pop_total``)."""
    return any(word in TOTAL_WORDS for word in _words(name))


def _says_total_level(level: object) -> bool:
    words = _words(level)
    return bool(words) and words[0] in TOTAL_WORDS


@dataclass(frozen=True)
class Recovered:
    """Withheld cells a table's own total gives back: ``total`` says which total (a column
    and the columns it sums, or the dimension holding a total level), ``places`` in how many
    rows (``unit``: ``row``) or groups of cells (``group``) a small count is given back."""

    total: str
    places: int
    unit: str

    def to_dict(self) -> dict:
        return {"total": self.total, "places": self.places, "unit": self.unit}


def whole_numbers(series: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """The column's counts (missing as 0) and which are missing, when every value is a
    whole number from 0 up (text as a CSV holds it too) and one at least is published;
    None otherwise."""
    missing = np.asarray(series.isna(), dtype=bool)
    if missing.all():
        return None
    try:
        values = counts_of(series, "column")
    except InvalidParameterError:  # text, fractions, negatives, true/false: no count
        return None
    return values, missing


def recovered_cells(
    frame: pd.DataFrame,
    people: dict[str, np.ndarray],
    missing: dict[str, np.ndarray],
    category: str | None,
    min_count: int | None,
) -> tuple[Recovered, ...]:
    """Where the table's own totals give back a small withheld cell.

    ``people`` and ``missing``: each count column's counts (missing as 0) and its withheld
    cells; ``category``: the dimension a wide table's count columns spell (None for one count
    column). A small cell counts from 1 to :func:`smallest_cell` - 1 people. Two kinds of
    total are found, by their values:

    - **a total column** (a wide table only): a column of whole numbers, not a count column,
      equal to the sum of the count columns on every row where all are published (``d = m +
      f``), or, when its name says total (:func:`says_total`), never below that sum (the
      remainder is a column left out). In a row where it is published and a count is withheld
      (or a column left out), the total less the published counts is what the withheld cells
      hold together;
    - **a total level** of a dimension (``totale`` in ``sesso``, a level whose first word is
      in :data:`TOTAL_WORDS`, ``Totale``, ``All ages``): in each group of cells sharing the
      other dimensions' values, its count is never below the sum of the other levels' and
      equal to it where every level is published. In a group where a level is withheld or
      absent (a row left out), the total less the published cells is what they hold.

    Either way, a remainder from 1 to the smallest cell less 1 gives back a small cell (or
    cells holding so few people together), which the small-cell rule would have refused.
    """
    threshold = smallest_cell(min_count)
    found: list[Recovered] = []
    counted = list(people)
    totals: list[Hashable] = []
    if category is not None:
        for column, description, places in _total_columns(frame, people, missing, threshold):
            totals.append(column)
            if places:
                found.append(Recovered(description, places, "row"))
    dimensions = [c for c in frame.columns if c not in counted and c not in totals]
    long = pd.DataFrame(
        {c: np.tile(frame[c].to_numpy(), len(counted)) for c in dimensions}, copy=False
    )
    if category is not None:
        long[category] = np.repeat(np.array(counted, dtype=object), len(frame))
    counts = np.concatenate([people[c] for c in counted])
    withheld = np.concatenate([missing[c] for c in counted])
    for dimension, places in _total_levels(long, counts, withheld, threshold):
        found.append(Recovered(f"a total level of the dimension {dimension!r}", places, "group"))
    return tuple(found)


def _total_columns(
    frame: pd.DataFrame,
    people: dict[str, np.ndarray],
    missing: dict[str, np.ndarray],
    threshold: int,
) -> list[tuple[Hashable, str, int]]:
    """The total columns of a wide table (:func:`recovered_cells`): each one's label, its
    description and the rows where it gives back a small withheld cell."""
    parts = np.sum(list(people.values()), axis=0)
    withheld = np.sum(list(missing.values()), axis=0, dtype=np.int64)
    found: list[tuple[Hashable, str, int]] = []
    for column in frame.columns:
        if column in people or (read := whole_numbers(frame[column])) is None:
            continue
        total, absent = read
        published = ~absent
        complete = published & (withheld == 0)
        if not complete.any() or (total[published] < parts[published]).any():
            continue
        exact = bool((total[complete] == parts[complete]).all())
        if not (exact and (total[complete] > 0).any()) and not (not exact and says_total(column)):
            continue
        left_out = 0 if exact else 1  # a category not published: one more cell per row
        remainder = total - parts
        small = published & (withheld + left_out > 0) & (remainder >= 1) & (remainder < threshold)
        summed = " + ".join(str(c) for c in people) + ("" if exact else " + a column left out")
        found.append((column, f"the total column {column!r} = {summed}", int(small.sum())))
    return found


def _total_levels(
    long: pd.DataFrame, counts: np.ndarray, withheld: np.ndarray, threshold: int
) -> list[tuple[Hashable, int]]:
    """For each dimension of ``long`` holding a total level (:func:`recovered_cells`), the
    groups where it gives back a small withheld or absent cell."""
    found: list[tuple[Hashable, int]] = []
    for dimension in long.columns:
        levels = pd.Series(long[dimension].dropna().unique())
        is_level_total = levels.map(_says_total_level).to_numpy(dtype=bool)
        if not is_level_total.any() or is_level_total.all():
            continue
        total = np.asarray(long[dimension].isin(levels[is_level_total]), dtype=bool)
        others = [c for c in long.columns if c != dimension]
        group = (
            long.groupby(others, dropna=False, sort=False, observed=True).ngroup().to_numpy()
            if others
            else np.zeros(len(long), dtype=np.int64)
        )
        cell = ~total & long[dimension].notna().to_numpy()
        ones, people = np.ones(len(long)), counts.astype(np.float64)
        totals_in = _per_group(group, ones, total)
        total_published = _per_group(group, ones, total & ~withheld)
        value = _per_group(group, people, total & ~withheld)
        summed = _per_group(group, people, cell & ~withheld)
        hidden = _per_group(group, ones, cell & withheld)
        absent = int((~is_level_total).sum()) - _per_group(group, ones, cell)
        usable = (totals_in == 1) & (total_published == 1)
        complete = usable & (hidden == 0) & (absent == 0)
        if not usable.any() or (value[usable] < summed[usable]).any():
            continue  # a level named so that is no total of the others
        if (value[complete] != summed[complete]).any():
            continue
        remainder = value - summed
        small = usable & (hidden + absent > 0) & (remainder >= 1) & (remainder < threshold)
        if small.any():
            found.append((dimension, int(small.sum())))
    return found


# -- zero configuration: does a table look like counts? -------------------------------------

#: Words of a column's name that say it counts people (``n``, ``conteggio``, ``totale``,
#: ``dosi_somministrate``, ``m`` and ``f`` beside each other, ...).
COUNT_WORDS = frozenset(
    {
        "n",
        "nr",
        "num",
        "numero",
        "count",
        "counts",
        "conteggio",
        "freq",
        "frequency",
        "frequenza",
        "totale",
        "totali",
        "total",
        "totals",
        "tot",
        "somma",
        "sum",
        "persone",
        "people",
        "persons",
        "individui",
        "casi",
        "cases",
        "popolazione",
        "population",
        "residenti",
        "abitanti",
        "iscritti",
        "dosi",
        "doses",
        "somministrazioni",
        "vaccinati",
        "guariti",
        "deceduti",
        "ricoverati",
        "maschi",
        "femmine",
        "males",
        "females",
        "men",
        "women",
        "uomini",
        "donne",
        "m",
        "f",
    }
)
#: Share of the rows whose dimensions' combination is their own, from which each row is a cell.
CELL_SHARE = 0.99
#: How many times the median of its positive values a column's largest value reaches when
#: its values spread as counts of cells do (years, ages, scores and codes stay within it).
COUNT_SPREAD = 10
#: Fewest rows on which the spread of a column's values says anything.
SPREAD_ROWS = 5
#: Most distinct values, as a share of its positive values, of a column whose spread says it
#: counts: counts repeat (many cells of 1, 2, 3 people), record numbers do not.
REPEATED_SHARE = 0.9
#: Rows read first to tell whether each row is a cell, before the whole table.
_HEAD = 10_000

#: The rule of :func:`looks_like_counts`, as the documentation and the messages state it.
COUNT_RULE = (
    "a column of whole numbers from 0 up whose name says it counts (n, count, conteggio, "
    "numero, totale, freq, dosi, m, f, ...) or whose values repeat and spread (the largest "
    f"at least {COUNT_SPREAD} times the median), its name not an identifier's, beside "
    "dimension columns whose combination differs on (nearly) every row, at most one of them "
    "alone"
)


@dataclass(frozen=True)
class CountGuess:
    """What a table looks like it counts (:func:`looks_like_counts`): its ``count`` column,
    or its ``counts`` columns, one per category, with the ``total`` column that sums them;
    ``dimensions``: the other columns, those describing each cell."""

    count: str | None
    counts: tuple[str, ...] | None
    total: str | None
    dimensions: tuple[str, ...]

    def toml(self) -> list[str]:
        """The configuration lines declaring it (``count = "n"``)."""
        if self.counts is None:
            return [f"count = {_toml_text(self.count)}"]
        return [f"counts = [{', '.join(_toml_text(c) for c in self.counts)}]"]

    def flags(self) -> str:
        """The command-line options declaring it (``--count n``)."""
        if self.counts is None:
            return f"--count {self.count}"
        return f"--counts {','.join(self.counts)}"

    def describe(self) -> str:
        """``count column 'n' beside the dimensions (nascita, sesso)``."""
        what = (
            f"count column {self.count!r}"
            if self.counts is None
            else f"count columns {report.columns(self.counts)}"
            + (f" summed by {self.total!r}" if self.total is not None else "")
        )
        return f"{what} beside the dimensions {report.columns(self.dimensions)}"

    def advice(self, file: str) -> str:
        """Why zero configuration does not judge the table, and the exact lines declaring it
        (one line: the gate's errors are one line each)."""
        lines = ", ".join(["[[rules]]", f"files = {_toml_text(file)}", *self.toml()])
        return (
            f"looks like a count table ({self.describe()}), whose rows are cells, not people: "
            f"declare it in .pandas-anon.toml, each on its own line: {lines} (and min_count = "
            f"3 for the small-cell rule), or on the command line: {self.flags()} "
            f"(--min-count 3); pandas-anon init writes such a configuration. If each row is "
            f"one person, name its quasi-identifier instead (qid, --qid)"
        )


def _toml_text(text: str | None) -> str:
    """``text`` as a TOML basic string."""
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def says_count(name: object) -> bool:
    """Whether a column's name holds a word saying it counts people (:data:`COUNT_WORDS`)."""
    return any(word in COUNT_WORDS for word in _words(name))


def count_columns(frame: pd.DataFrame) -> tuple[str, ...]:
    """The columns of ``frame`` that hold counts by :data:`COUNT_RULE`'s first half: whole
    numbers from 0 up (missing allowed: withheld cells), one at least above 0, a name that
    is not an identifier's (:func:`pandas_anon.detect.exposure.name_hints_identifier`), and
    a name saying it counts (:func:`says_count`) or values repeating and spreading as counts
    do (at most :data:`REPEATED_SHARE` of the positive ones distinct, the largest at least
    :data:`COUNT_SPREAD` times their median, over at least :data:`SPREAD_ROWS` of them).
    Plain text columns (nearly every value its own, as
    :func:`pandas_anon.gate.io.read_columns` keeps a record number) are no counts."""
    found = []
    for column in frame.columns:
        series = frame[column]
        if not (
            isinstance(series.dtype, pd.CategoricalDtype)
            or pd.api.types.is_numeric_dtype(series.dtype)
        ):
            continue
        if (read := whole_numbers(series)) is None:
            continue
        values, missing = read
        positive = values[~missing & (values > 0)]
        if not len(positive):
            continue
        spread = (
            len(positive) >= SPREAD_ROWS
            and len(np.unique(positive)) <= REPEATED_SHARE * len(positive)
            and positive.max() >= COUNT_SPREAD * np.median(positive)
        )
        if not name_hints_identifier(column) and (says_count(column) or spread):
            found.append(str(column))
    return tuple(found)


def each_row_a_cell(frame: pd.DataFrame, dimensions: Sequence[Hashable]) -> bool:
    """Whether each row of ``frame`` is a cell of the ``dimensions``: together they tell
    (nearly) every row apart (:data:`CELL_SHARE` of the rows, first on the first rows), while
    at most one of them alone does, not counting whole numbers (a cell table's dimensions
    repeat their values across cells: an area holds several age bands; a table of records
    holds several columns of nearly distinct values, dates, names, codes), and none whose
    name says it identifies (:func:`pandas_anon.detect.exposure.name_hints_identifier`) does:
    that makes each row a record."""
    if not dimensions or len(frame) < 2:
        return False
    for rows in (frame.iloc[:_HEAD], frame) if len(frame) > _HEAD else (frame,):
        part = rows[list(dimensions)]
        if (~part.duplicated()).sum() < CELL_SHARE * len(part):
            return False
    alone = [c for c in dimensions if frame[c].nunique(dropna=False) >= CELL_SHARE * len(frame)]
    if any(name_hints_identifier(column) for column in alone):
        return False
    return sum(whole_numbers(frame[column]) is None for column in alone) <= 1


def looks_like_counts(frame: pd.DataFrame) -> CountGuess | None:
    """Whether ``frame`` looks like a count table, by :data:`COUNT_RULE`: its count columns
    (:func:`count_columns`) beside dimensions telling each row apart
    (:func:`each_row_a_cell`); None when it does not.

    With several count columns, a column equal to the sum of two or more of the others on
    every row where all are published (``totale = m + f``, the first such set, smallest
    first) makes those the wide table's ``counts`` and itself their ``total``; otherwise the
    count column whose name says it counts (the first), or the only one, is the ``count``,
    and several named ones are the ``counts``.

    Examples
    --------
    >>> cells = pd.DataFrame({"area": ["a", "a", "b", "b"], "sex": list("mfmf"),
    ...                       "n": [40, 52, 17, 26]})
    >>> looks_like_counts(cells)
    CountGuess(count='n', counts=None, total=None, dimensions=('area', 'sex'))
    >>> looks_like_counts(cells.assign(id=[1, 2, 3, 4]))  # a record number: people
    """
    found = count_columns(frame)
    if not found:
        return None
    dimensions = tuple(str(c) for c in frame.columns if str(c) not in found)
    if not each_row_a_cell(frame, dimensions):
        return None
    total = _summed_by(frame, found)
    if total is not None:
        column, parts = total
        rest = tuple(c for c in found if c != column and c not in parts)
        return CountGuess(None, parts, column, dimensions + rest)
    named = [c for c in found if says_count(c)]
    if len(named) > 1:
        return CountGuess(None, tuple(named), None, dimensions)
    count = named[0] if named else found[0]
    return CountGuess(count, None, None, dimensions + tuple(c for c in found if c != count))


def _per_group(group: np.ndarray, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The sum of ``values`` over the ``rows`` of each group (every group of ``group``)."""
    return np.bincount(group[rows], weights=values[rows], minlength=int(group.max()) + 1)


#: Largest set of count columns searched for a column summing them.
_MOST_PARTS = 4
#: Most count columns among which a total is searched (16: at most 21,840 sets tried; a
#: table of more is no table of counts with its total, and a search among a thousand would
#: never end).
_MOST_COLUMNS = 16


def _summed_by(frame: pd.DataFrame, columns: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """A count column equal to the sum of others on every row where all are published, with
    them (the first such set: columns whose name says total first, then smaller sets first);
    None among more than :data:`_MOST_COLUMNS` count columns."""
    if len(columns) > _MOST_COLUMNS:
        return None
    read: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for column in columns:
        if (found := whole_numbers(frame[column])) is not None:
            read[column] = found
    for total in sorted(read, key=lambda c: not says_total(c)):
        values, missing = read[total]
        others = [c for c in read if c != total]
        for size in range(2, min(_MOST_PARTS, len(others)) + 1):
            for parts in combinations(others, size):
                published = ~missing & ~np.any([read[part][1] for part in parts], axis=0)
                summed = np.sum([read[part][0] for part in parts], axis=0)
                if (
                    published.any()
                    and (values[published] > 0).any()
                    and (values[published] == summed[published]).all()
                ):
                    return total, parts
    return None
