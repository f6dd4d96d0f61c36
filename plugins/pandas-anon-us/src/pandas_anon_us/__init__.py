"""pandas-anon-us: generalization hierarchies for United States ZIP codes.

- ``us.zip``: ZIP code -> prefix (first three digits) -> state -> ``*``;
- ``us.zip_safe_harbor``: ZIP code -> prefix, ``000`` for the prefixes HIPAA's Safe Harbor
  method restricts (45 CFR 164.514(b)(2)(i)(B)) -> ``*``.

ZIP codes are read as real files write them: ZIP+4 (``02134-1234``), numbers that lost their
leading zeros (``2134``), surrounding spaces. The prefix table (933 prefixes and their states,
``data/zip3.csv``) and HHS's list of restricted prefixes ship with the package: provenance and
licences in ``NOTICE.md``.

Installed, it registers both hierarchies with pandas-anon through the ``pandas_anon``
entry-point group; it can also be used directly::

    from pandas_anon_us import resolve, zip5, zip_hierarchy
    resolve(df["zip"])                    # how each value reads as a ZIP code
    df["zip"] = zip5(df["zip"])           # the column as five-digit text
    zip_hierarchy(df["zip"]).generalize(df["zip"], 2)   # -> states
"""

from __future__ import annotations

from collections.abc import Callable

from pandas_anon import hookimpl

from .hierarchy import (
    LEVEL_NAMES,
    NAME,
    SAFE_HARBOR_LEVEL_NAMES,
    SAFE_HARBOR_NAME,
    safe_harbor_hierarchy,
    zip_hierarchy,
)
from .zips import HOWS, RESOLVED, load_restricted, load_zip3, resolve, zip5

__version__ = "0.1.0"

__all__ = [
    "COLUMNS",
    "HOWS",
    "LEVEL_NAMES",
    "NAME",
    "RESOLVED",
    "SAFE_HARBOR_LEVEL_NAMES",
    "SAFE_HARBOR_NAME",
    "load_restricted",
    "load_zip3",
    "register_hierarchies",
    "resolve",
    "safe_harbor_hierarchy",
    "zip5",
    "zip_hierarchy",
]

#: Column names ``us.zip`` is offered for. Not ``postal_code``: other countries' five-digit
#: postcodes (France, Germany, Italy...) would read as US ZIP codes.
COLUMNS = ("zip", "zipcode", "zip_code", "zip5")


@hookimpl
def register_hierarchies(register: Callable[..., None]) -> None:
    """Register ``us.zip`` (claiming :data:`COLUMNS`) and ``us.zip_safe_harbor`` (claiming
    none: Safe Harbor is chosen on purpose), both built lazily from the column's data."""
    register(
        NAME,
        zip_hierarchy,
        description=(
            "US ZIP codes: zip -> zip3 (first three digits) -> state -> *; ZIP+4, lost "
            "leading zeros and spaces read"
        ),
        columns=COLUMNS,
    )
    register(
        SAFE_HARBOR_NAME,
        safe_harbor_hierarchy,
        description=(
            "US ZIP codes by HIPAA Safe Harbor: zip -> zip3, 000 for the 17 prefixes HHS "
            "restricts (2000 Census) -> *"
        ),
    )
