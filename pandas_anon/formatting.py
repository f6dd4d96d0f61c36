"""Plain-text rendering shared by every result object (tabulate tables, number formats).

Reports show counts, fractions and column names only: never the values of quasi-identifier
columns, so a report printed in a public CI log cannot leak what it measures.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence

import pandas as pd
from tabulate import tabulate


def count(n: int) -> str:
    """``1684`` -> ``'1,684'``."""
    return f"{n:,}"


def number(value: object, digits: int = 4) -> str:
    """A figure as the tables write it: a whole number with thousands separators (``198524``
    -> ``'198,524'``), any other number to ``digits`` decimals (``19852.4`` ->
    ``'19,852.4000'``), ``'-'`` where there is none (None, NaN, ``pd.NA``); text as it is."""
    if value is None or value is pd.NA or value is pd.NaT:
        return "-"
    if isinstance(value, (bool, str)) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    as_float = float(value)
    return "-" if math.isnan(as_float) else f"{as_float:,.{digits}f}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``plural(1, "row")`` -> ``'1 row'``, ``plural(1684, "row")`` -> ``'1,684 rows'``;
    ``many``: the plural when it is not ``word`` + s (``plural(2, "class", "classes")``)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def percent(fraction: float, digits: int = 4) -> str:
    """``0.019254`` -> ``'1.9254 %'``."""
    return f"{100 * fraction:.{digits}f} %"


def columns(names: Iterable[Hashable]) -> str:
    """``('a', 'b')`` -> ``'(a, b)'``."""
    return "(" + ", ".join(str(n) for n in names) + ")"


def column_sets(sets: Sequence[Iterable[Hashable]], limit: int = 4) -> str:
    """Column sets joined by ``; ``, the list cut after ``limit`` with a count of the rest."""
    if not sets:
        return "none"
    shown = "; ".join(columns(s) for s in sets[:limit])
    return shown + (f"; ... ({len(sets) - limit} more)" if len(sets) > limit else "")


def render(
    title: str, fields: Sequence[tuple[str, object]], *tables: tuple[str, pd.DataFrame]
) -> str:
    """A titled two-column table of ``fields``, then optional titled sub-tables."""
    parts = [title]
    if fields:
        parts.append(tabulate([(k, v) for k, v in fields], tablefmt="simple_outline"))
    for caption, table in tables:
        if caption:
            parts.append(caption)
        parts.append(
            tabulate(
                table,  # type: ignore[arg-type]  # types-tabulate omits DataFrames, which it reads
                headers="keys",
                tablefmt="simple_outline",
                showindex=False,
                intfmt=",",
                floatfmt=".4f",
            )
        )
    return "\n".join(parts)
