"""The ``it.comune`` hierarchy: comune -> provincia -> regione -> ripartizione -> ``*``.

Through pandas-anon, ``get_hierarchy("it.comune", column)`` (and a spec naming
``"it.comune"``) calls :func:`comune_hierarchy` with the column alone: the factory cannot see
the frame's other columns, so there the defaults hold (``on_unmatched="error"``, no
``province``). For the other options, give the spec a builder instead of the name, which
pandas-anon calls with the column::

    from functools import partial
    from pandas_anon_italy import comune_hierarchy

    build = partial(comune_hierarchy, province=df["provincia_residenza"],
                    on_unmatched="generalize")
    df.anon.generalize({"comune_residenza": (build, 1)})
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from pandas_anon.errors import AnonWarning, HierarchyError, InvalidParameterError, warn
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import TOP, Hierarchy

from .istat import _comuni
from .resolve import RESOLVED, resolve

__all__ = [
    "KEPT_SUFFIX",
    "LEVEL_NAMES",
    "NAME",
    "ON_UNMATCHED",
    "comune_hierarchy",
    "frame_hierarchy",
    "province_column",
]

#: The name the hierarchy is registered under.
NAME = "it.comune"
#: Names of its levels, level 0 first.
LEVEL_NAMES = ("comune", "provincia", "regione", "ripartizione", TOP)
#: What :func:`comune_hierarchy` does with spellings that match no single comune.
ON_UNMATCHED = ("error", "generalize", "keep")
#: What a kept spelling's label carries above level 0 when it is also the label of a real
#: province, region or area (``on_unmatched="keep"``).
KEPT_SUFFIX = " (unmatched)"
#: How many unresolved spellings an error message lists before counting the rest.
_LISTED = 50


def comune_hierarchy(
    data: pd.Series | None = None,
    *,
    within: str | Iterable[str] | None = None,
    province: Iterable[Hashable] | pd.Series | None = None,
    aliases: Mapping[str, str | Sequence[str]] | None = None,
    on_unmatched: Literal["error", "generalize", "keep"] = "error",
) -> Hierarchy:
    """Italian comuni generalized to province, region, geographic area and ``*``.

    Parameters
    ----------
    data
        A column of comune names as written. Level 0 is then the column's own distinct
        spellings, so ``hierarchy.generalize(data, level)`` works on the raw column; each
        spelling is matched to ISTAT's list by :func:`~pandas_anon_italy.resolve`. A
        spelling that fits several comuni of one province generalizes to that province.
        Without ``data``, level 0 is ISTAT's 7,896 official names (``Bolzano/Bozen``); the
        names two comuni share carry their province code (``Castro (BG)``).
    within, province, aliases
        Passed to :func:`~pandas_anon_italy.resolve` (``province``: each row's province,
        aligned with ``data``).
    on_unmatched
        Spellings that fit no comune, or comuni of several provinces: ``"error"`` raises
        :class:`~pandas_anon.errors.HierarchyError` naming each one (up to 50) with its row
        count and, for those fitting none, up to three ISTAT names to choose from;
        ``"generalize"`` sends them to ``*`` from level 1 up; ``"keep"`` keeps each as its
        own label up to the top level (with :data:`KEPT_SUFFIX` where a matched value's
        province, region or area bears the same name). Both warn (:class:`~pandas_anon.errors.AnonWarning`)
        with how many values and rows.

    Returns
    -------
    Hierarchy
        Named ``it.comune``, levels :data:`LEVEL_NAMES`.
    """
    if on_unmatched not in ON_UNMATCHED:
        raise InvalidParameterError(
            f"on_unmatched: expected one of {', '.join(map(repr, ON_UNMATCHED))}, "
            f"got {on_unmatched!r}"
        )
    if data is None:
        return _istat_hierarchy()
    if not isinstance(data, pd.Series):
        data = pd.Series(data)
    table = resolve(data, within=within, province=province, aliases=aliases)
    if len(table) == 0:
        raise HierarchyError(
            f"hierarchy {NAME}: column {data.name!r} has no value to build it from"
            if data.name is not None
            else f"hierarchy {NAME}: no value to build it from"
        )
    unmatched = table.attrs["unmatched"]
    if unmatched and on_unmatched == "error":
        raise _unmatched_error(table, data.name)
    levels = [
        table[c].to_numpy(dtype=object, copy=True) for c in ("provincia", "regione", "ripartizione")
    ]
    note = None
    if unmatched:
        bad = ~table["how"].isin(RESOLVED).to_numpy()
        own = (
            TOP
            if on_unmatched == "generalize"
            else _kept_labels(table.index.to_numpy(dtype=object)[bad], levels, ~bad)
        )
        for level in levels:
            level[bad] = own
        fate = (
            "generalized to * (on_unmatched='generalize')"
            if on_unmatched == "generalize"
            else "each kept as its own label up to the top (on_unmatched='keep')"
        )
        note = (
            f"{plural(len(unmatched), 'value')}, "
            f"{plural(int(table.loc[unmatched, 'rows'].sum()), 'row')}, matching no single "
            f"ISTAT comune: {fate}"
        )
        warn(f"hierarchy {NAME}{_of(data.name)}: {note}", AnonWarning)
    return Hierarchy(
        table.index,
        [*levels, np.full(len(table), TOP, dtype=object)],
        name=NAME,
        level_names=LEVEL_NAMES,
        note=note,
    )


def _kept_labels(values: np.ndarray, levels: list[np.ndarray], matched: np.ndarray) -> np.ndarray:
    """The label of each unmatched spelling kept as its own (``on_unmatched="keep"``) above
    level 0: the spelling itself, with :data:`KEPT_SUFFIX` when a matched spelling's
    province, region or area bears that name (``LOMBARDIA`` written where a comune was
    expected is not the region Lombardia: one label under two parents is no hierarchy)."""
    taken = {label for level in levels for label in level[matched]}
    return np.array(
        [f"{value}{KEPT_SUFFIX}" if value in taken else value for value in values], dtype=object
    )


def frame_hierarchy(data: pd.Series | None, *, frame: pd.DataFrame | None = None) -> Hierarchy:
    """What ``it.comune``'s registration builds: :func:`comune_hierarchy` of the column,
    each spelling matched within its rows' province when ``frame`` (the frame holding the
    column) has a province column (:func:`province_column`), which the hierarchy's note names
    in every report."""
    column = None if data is None or frame is None else province_column(frame, data.name)
    if column is None:
        return comune_hierarchy(data)
    hierarchy = comune_hierarchy(data, province=frame[column])
    within = f"matched within the provinces of column {column!r}"
    hierarchy.note = within if hierarchy.note is None else f"{within}; {hierarchy.note}"
    return hierarchy


def _reads(columns: Sequence[Hashable], column: Hashable) -> list[Hashable]:
    """The columns :func:`frame_hierarchy` reads besides the comune column ``column``: its
    province column, if the frame's ``columns`` hold one (a Dask frame's digest then holds
    it too)."""
    found = province_column(pd.DataFrame(columns=pd.Index(list(columns), dtype=object)), column)
    return [] if found is None else [found]


frame_hierarchy.reads = _reads  # type: ignore[attr-defined]


def province_column(frame: pd.DataFrame, comune: Hashable) -> Hashable | None:
    """The column of ``frame`` giving each row's province for the comune column ``comune``:
    the one column named ``provincia...`` or ``sigla_provincia...`` (any case), or, when
    there are several, the one whose name ends as the comune column's does
    (``provincia_residenza`` for ``comune_residenza``); None when there is none, or no way
    to choose."""
    candidates = [
        c
        for c in frame.columns
        if c != comune and str(c).casefold().startswith(("provincia", "sigla_provincia"))
    ]
    if len(candidates) > 1:
        suffix = str(comune).casefold().partition("comune")[2]
        candidates = [c for c in candidates if suffix and str(c).casefold().endswith(suffix)]
    return candidates[0] if len(candidates) == 1 else None


def _of(column: object) -> str:
    return f" of column {column!r}" if column is not None else ""


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
        elif isinstance(row["suggestions"], str):
            rows += f"; closest ISTAT names: {row['suggestions']}"
        shown.append(f"{value!r} ({rows})")
    more = f" and {len(bad) - _LISTED:,} more" if len(bad) > _LISTED else ""
    return HierarchyError(
        f"{len(bad):,} value(s){_of(column)}, {int(bad['rows'].sum()):,} rows, match no single "
        f"ISTAT comune (hierarchy {NAME}): {', '.join(shown)}{more}. Fix: clean the values, map "
        f"each to its comune with aliases={{spelling: ISTAT name or code}} (or add a row to the "
        f"plugin's data/aliases.csv), give each row's province with province=, or for names "
        f"several provinces share narrow the search with within= (a province or region); or "
        f"pass on_unmatched='generalize' or 'keep'; pandas_anon_italy.resolve(column) shows "
        f"how every value matched",
        unmatched=len(bad),
    )
