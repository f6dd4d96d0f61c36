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

A wide table (``counts = ["m", "f"]``) is turned into its long form first, the category
becoming a dimension named ``dimension`` (default ``category``), which a QID may name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.engine.columns import resolve_columns
from pandas_anon.engine.weights import counts_of, melt_counts
from pandas_anon.errors import ConfigError

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
        withheld = {c: int(frame[c].isna().sum()) for c in self.columns}
        cells = SmallCells.of(people, withheld, self.min_count)
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
        """Why the counts fail the small-cell rule (empty: they pass, or there is none)."""
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
        }
