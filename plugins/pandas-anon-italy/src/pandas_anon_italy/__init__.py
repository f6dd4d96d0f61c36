"""pandas-anon-italy: the ``it.comune`` generalization hierarchy for Italian municipalities.

comune -> provincia -> regione -> ripartizione geografica -> ``*``, from ISTAT's list of the
7,896 comuni (shipped in ``data/comuni.csv``; provenance and CC BY attribution in
``NOTICE.md``). Names as written in real files (``SAINT-RHEMY-EN-BOSSES``,
``S.GIACOMO D.SCHIAVONI``, ``GRESSONEY``) are matched case-, accent- and
apostrophe-insensitively, with abbreviation rules and a table of historical names.

Installed, it registers the hierarchy with pandas-anon through the ``pandas_anon`` entry-point
group; it can also be used directly::

    from pandas_anon_italy import comune_hierarchy, resolve
    resolve(df["comune_residenza"])                 # how each spelling matched
    h = comune_hierarchy(df["comune_residenza"])    # level 0 = the column's spellings
    h.generalize(df["comune_residenza"], 1)         # -> province names
"""

from __future__ import annotations

from collections.abc import Callable

from pandas_anon import hookimpl

from .hierarchy import LEVEL_NAMES, NAME, comune_hierarchy
from .istat import load_aliases, load_comuni
from .names import ABBREVIATIONS, expansions, key, normalize
from .resolve import HOWS, RESOLVED, resolve

__version__ = "0.1.0"

__all__ = [
    "ABBREVIATIONS",
    "HOWS",
    "LEVEL_NAMES",
    "NAME",
    "RESOLVED",
    "comune_hierarchy",
    "expansions",
    "key",
    "load_aliases",
    "load_comuni",
    "normalize",
    "register_hierarchies",
    "resolve",
]

#: Column names the hierarchy is offered for.
COLUMNS = ("comune", "comune_residenza", "comune_nascita")


@hookimpl
def register_hierarchies(register: Callable[..., None]) -> None:
    """Register ``it.comune`` (built lazily from the column's data)."""
    register(
        NAME,
        comune_hierarchy,
        description=(
            "Italian comuni (ISTAT list, 7,896): comune -> provincia -> regione -> "
            "ripartizione geografica -> *; spellings matched ignoring case, accents and "
            "apostrophes, with abbreviations (S., D., V.) and historical names"
        ),
        columns=COLUMNS,
    )
