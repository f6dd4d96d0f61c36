"""The ``it.comune`` hierarchy: comune -> provincia -> regione -> ripartizione -> ``*``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from pandas_anon.errors import HierarchyError
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import TOP, Hierarchy

from .istat import _comuni
from .resolve import resolve

__all__ = ["LEVEL_NAMES", "NAME", "comune_hierarchy"]

#: The name the hierarchy is registered under.
NAME = "it.comune"
#: Names of its levels, level 0 first.
LEVEL_NAMES = ("comune", "provincia", "regione", "ripartizione", TOP)
#: How many unresolved spellings an error message lists before counting the rest.
_LISTED = 50


def comune_hierarchy(
    data: pd.Series | None = None,
    *,
    within: str | Iterable[str] | None = None,
    aliases: Mapping[str, str | Sequence[str]] | None = None,
) -> Hierarchy:
    """Italian comuni generalized to province, region, geographic area and ``*``.

    With ``data`` (a column of comune names as written), level 0 is the column's own distinct
    spellings, so ``hierarchy.generalize(data, level)`` works on the raw column; each spelling
    is matched to ISTAT's list by :func:`~pandas_anon_italy.resolve`. A spelling that fits
    several comuni of one province generalizes to that province. Spellings that fit no comune,
    or comuni of several provinces, raise :class:`~pandas_anon.errors.HierarchyError` naming
    each one (up to 50) with its row count. ``within`` and ``aliases`` are passed to
    :func:`~pandas_anon_italy.resolve`.

    Without ``data``, level 0 is ISTAT's 7,896 official names (``Bolzano/Bozen``); the names
    that two comuni share carry their province code (``Castro (BG)``, ``Castro (LE)``).
    """
    if data is None:
        return _istat_hierarchy()
    if not isinstance(data, pd.Series):
        data = pd.Series(data)
    table = resolve(data, within=within, aliases=aliases)
    if len(table) == 0:
        raise HierarchyError(
            f"hierarchy {NAME}: column {data.name!r} has no value to build it from"
            if data.name is not None
            else f"hierarchy {NAME}: no value to build it from"
        )
    if table.attrs["unmatched"]:
        raise _unmatched_error(table, data.name)
    return Hierarchy(
        table.index,
        [table["provincia"], table["regione"], table["ripartizione"], [TOP] * len(table)],
        name=NAME,
        level_names=LEVEL_NAMES,
    )


def _istat_hierarchy() -> Hierarchy:
    comuni = _comuni()
    names = comuni["comune"]
    shared = names.duplicated(keep=False)
    names = names.where(~shared, names + " (" + comuni["sigla"] + ")")
    return Hierarchy(
        names,
        [comuni["provincia"], comuni["regione"], comuni["ripartizione"], [TOP] * len(comuni)],
        name=NAME,
        level_names=LEVEL_NAMES,
    )


def _unmatched_error(table: pd.DataFrame, column: object) -> HierarchyError:
    bad = table.loc[table.attrs["unmatched"]]  # most rows first, as resolve() lists them
    shown = []
    for value, row in bad.head(_LISTED).iterrows():
        rows = plural(int(row["rows"]), "row")
        if row["how"] == "ambiguous":
            rows += f"; fits comuni of several provinces: {row['comune']}"
        shown.append(f"{value!r} ({rows})")
    more = f" and {len(bad) - _LISTED:,} more" if len(bad) > _LISTED else ""
    where = f" of column {column!r}" if column is not None else ""
    return HierarchyError(
        f"{len(bad):,} value(s){where}, {int(bad['rows'].sum()):,} rows, match no single ISTAT "
        f"comune (hierarchy {NAME}): {', '.join(shown)}{more}. Fix: clean the values, map each "
        f"to its comune with aliases={{spelling: ISTAT name or code}} (or add a row to the "
        f"plugin's data/aliases.csv), or for names several provinces share narrow the search "
        f"with within= (a province or region); pandas_anon_italy.resolve(column) shows how "
        f"every value matched",
        unmatched=len(bad),
    )
