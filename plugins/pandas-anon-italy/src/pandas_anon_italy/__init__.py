"""pandas-anon-italy: the ``it.comune`` generalization hierarchy for Italian municipalities.

comune -> provincia -> regione -> ripartizione geografica -> ``*``, from ISTAT's list of the
7,896 comuni (shipped in ``data/comuni.csv``; provenance and CC BY attribution in
``NOTICE.md``). Names as written in real files (``SAINT-RHEMY-EN-BOSSES``,
``S.GIACOMO D.SCHIAVONI``, ``CASSANO ADDA``, ``SPACCAFORNO``, ``VALTURNENCHE``) are matched
in stages (:mod:`pandas_anon_italy.resolve`): case-, accent- and apostrophe-insensitively,
with abbreviation rules, a table of variant names, particles ignored, ANPR's former names of
renamed and merged comuni, and a guarded fuzzy match; a province column narrows the search.

Installed, it registers the hierarchy with pandas-anon through the ``pandas_anon`` entry-point
group; it can also be used directly::

    from pandas_anon_italy import comune_hierarchy, resolve
    resolve(df["comune_residenza"])                 # how each spelling matched
    h = comune_hierarchy(df["comune_residenza"])    # level 0 = the column's spellings
    h.generalize(df["comune_residenza"], 1)         # -> province names
    comune_hierarchy(df["comune_residenza"], province=df["provincia_residenza"],
                     on_unmatched="generalize")     # unmatched spellings -> *
"""

from __future__ import annotations

from collections.abc import Callable

from pandas_anon import hookimpl

from .hierarchy import (
    KEPT_SUFFIX,
    LEVEL_NAMES,
    NAME,
    ON_UNMATCHED,
    comune_hierarchy,
    frame_hierarchy,
    province_column,
)
from .istat import load_aliases, load_comuni, load_former_names
from .names import ABBREVIATIONS, PARTICLES, expansions, key, loose, normalize, strip_accents
from .resolve import (
    FUZZY_MARGIN,
    FUZZY_MIN_LETTERS,
    FUZZY_THRESHOLD,
    HOWS,
    PROVINCE_NAMES,
    RESOLVED,
    SUGGESTIONS,
    resolve,
)

__version__ = "0.1.0"

__all__ = [
    "ABBREVIATIONS",
    "FUZZY_MARGIN",
    "FUZZY_MIN_LETTERS",
    "FUZZY_THRESHOLD",
    "HOWS",
    "KEPT_SUFFIX",
    "LEVEL_NAMES",
    "NAME",
    "ON_UNMATCHED",
    "PARTICLES",
    "PROVINCE_NAMES",
    "RESOLVED",
    "SUGGESTIONS",
    "comune_hierarchy",
    "expansions",
    "frame_hierarchy",
    "key",
    "load_aliases",
    "load_comuni",
    "load_former_names",
    "loose",
    "normalize",
    "province_column",
    "register_hierarchies",
    "resolve",
    "strip_accents",
]

#: Column names the hierarchy is offered for.
COLUMNS = ("comune", "comune_residenza", "comune_nascita")


@hookimpl
def register_hierarchies(register: Callable[..., None]) -> None:
    """Register ``it.comune`` (built lazily from the column's data, and each row's province
    when the frame has a province column)."""
    register(
        NAME,
        frame_hierarchy,
        description=(
            "Italian comuni (ISTAT list, 7,896): comune -> provincia -> regione -> "
            "ripartizione geografica -> *; spellings matched ignoring case, accents, "
            "apostrophes and particles, with abbreviations (S., D., V.), former names and a "
            "guarded fuzzy match"
        ),
        columns=COLUMNS,
    )
