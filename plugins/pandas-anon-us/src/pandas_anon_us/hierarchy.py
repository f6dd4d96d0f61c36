"""The ``us.zip`` and ``us.zip_safe_harbor`` hierarchies.

``us.zip``: ZIP code -> prefix (``zip3``) -> state -> ``*``. A hierarchy is a tree: each level
a function of the level below. The state is therefore the prefix's state, the one of most of its
ZIP codes; the few ZIP codes lying across a state line from their prefix (Fishers Island, NY,
06390, under Connecticut's 063; Alta, WY, 83414, under Idaho's 834; American Samoa's 96799 under
Hawaii's 967; the Northern Mariana Islands, Palau, Micronesia and the Marshall Islands under
Guam's 969) generalize to the prefix's state.

``us.zip_safe_harbor``: ZIP code -> prefix, ``000`` for the prefixes HHS restricts -> ``*``,
HIPAA's Safe Harbor rule for ZIP codes (45 CFR 164.514(b)(2)(i)(B)): the initial three digits
may be kept only when all the ZIP codes sharing them hold more than 20,000 people; otherwise
they become ``000``. It is a hierarchy of its own, without a state level, because ``000`` joins
prefixes of several states (036 in New Hampshire, 059 in Vermont, 821 in Wyoming...): no state
can sit above it. Safe Harbor allows the state itself; keep it in a column of its own
(``resolve(column)["state"]``) when it is wanted.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import pandas as pd

from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import TOP, Hierarchy

from .zips import RESTRICTED_LABEL, _prefix_states, _restricted, resolve

__all__ = [
    "LEVEL_NAMES",
    "NAME",
    "SAFE_HARBOR_LEVEL_NAMES",
    "SAFE_HARBOR_NAME",
    "safe_harbor_hierarchy",
    "zip_hierarchy",
]

#: The name ``zip_hierarchy`` is registered under.
NAME = "us.zip"
#: Names of its levels, level 0 first.
LEVEL_NAMES = ("zip", "zip3", "state", TOP)
#: The name ``safe_harbor_hierarchy`` is registered under.
SAFE_HARBOR_NAME = "us.zip_safe_harbor"
#: Names of its levels, level 0 first.
SAFE_HARBOR_LEVEL_NAMES = ("zip", "zip3_safe_harbor", TOP)


def zip_hierarchy(data: pd.Series | None = None) -> Hierarchy:
    """US ZIP codes generalized to their prefix, their state and ``*``.

    Parameters
    ----------
    data : pandas.Series, optional
        A column of ZIP codes as written (text, integers, floats, categorical; ZIP+4, lost
        leading zeros and spaces are read as :mod:`pandas_anon_us.zips` says). Level 0 is
        then the column's own distinct values, so ``hierarchy.generalize(data, level)`` works
        on the raw column. Without it, level 0 is every five-digit code whose prefix is in
        use (93,300 codes, as text).

    Returns
    -------
    pandas_anon.hierarchy.Hierarchy
        Levels ``zip`` -> ``zip3`` (the first three digits, ``"021"``) -> ``state`` (the
        prefix's USPS code, ``"MA"``) -> ``*``, named ``us.zip``.

    Raises
    ------
    pandas_anon.errors.HierarchyError
        When some values of ``data`` are not ZIP codes (``unmatched``: how many distinct
        values; the message gives the column and the counts, never the values:
        :func:`~pandas_anon_us.resolve` lists them), or when ``data`` has no value.

    Examples
    --------
    >>> h = zip_hierarchy(pd.Series(["02134", 2134, "10001-0001"], name="zip"))
    >>> h.generalize(pd.Series(["02134", 2134, "10001-0001"]), 2).tolist()
    ['MA', 'MA', 'NY']
    """
    values, zip3 = _level_zero(data, NAME)
    states = _prefix_states()
    return Hierarchy(
        values,
        [zip3, [states[prefix] for prefix in zip3], [TOP] * len(zip3)],
        name=NAME,
        level_names=LEVEL_NAMES,
    )


def safe_harbor_hierarchy(
    data: pd.Series | None = None, *, restricted: str | Iterable[str] | None = None
) -> Hierarchy:
    """US ZIP codes generalized by HIPAA's Safe Harbor rule: prefix, or ``000``, then ``*``.

    Parameters
    ----------
    data : pandas.Series, optional
        A column of ZIP codes as written, as for :func:`zip_hierarchy`; without it, level 0
        is every five-digit code whose prefix is in use.
    restricted : str or iterable of str, optional
        The prefixes that become ``000``. By default HHS's list (:func:`load_restricted`,
        from the 2000 Census). HHS asks for the current Census figures when they have been
        published: pass the prefixes of 20,000 people or fewer by them.

    Returns
    -------
    pandas_anon.hierarchy.Hierarchy
        Levels ``zip`` -> ``zip3_safe_harbor`` (the first three digits, ``"000"`` for a
        restricted prefix) -> ``*``, named ``us.zip_safe_harbor``. Level 1 and above meet
        Safe Harbor's ZIP code rule; level 0 (the ZIP code itself) does not, so pin the level
        (``generalize({"zip": ("us.zip_safe_harbor", 1)})``) rather than letting ``kanon``
        choose it.

    Raises
    ------
    pandas_anon.errors.HierarchyError
        As :func:`zip_hierarchy`.
    pandas_anon.errors.InvalidParameterError
        When ``restricted`` holds something other than three digits.

    Examples
    --------
    >>> h = safe_harbor_hierarchy(pd.Series(["03601", "02134"], name="zip"))
    >>> h.generalize(pd.Series(["03601", "02134"]), 1).tolist()
    ['000', '021']
    """
    blocked = _restricted() if restricted is None else _prefixes(restricted)
    values, zip3 = _level_zero(data, SAFE_HARBOR_NAME)
    safe = [RESTRICTED_LABEL if prefix in blocked else prefix for prefix in zip3]
    return Hierarchy(
        values,
        [safe, [TOP] * len(safe)],
        name=SAFE_HARBOR_NAME,
        level_names=SAFE_HARBOR_LEVEL_NAMES,
    )


def _prefixes(restricted: str | Iterable[str]) -> frozenset[str]:
    prefixes = [restricted] if isinstance(restricted, str) else list(restricted)
    bad = [p for p in prefixes if not (isinstance(p, str) and len(p) == 3 and p.isdigit())]
    if bad:
        raise InvalidParameterError(
            f"restricted: {plural(len(bad), 'entry', 'entries')} {bad[:5]!r} not a ZIP prefix; "
            f"give the first three digits as text, e.g. ['036', '059']"
        )
    return frozenset(prefixes)


def _level_zero(data: pd.Series | None, name: str) -> tuple[pd.Index | list[str], list[str]]:
    """Level 0 (the column's distinct values, or every code of a prefix in use) and the
    prefix of each; raises :class:`HierarchyError` for values that are not ZIP codes."""
    if data is None:
        codes = [prefix + f"{n:02d}" for prefix in _prefix_states() for n in range(100)]
        return codes, [code[:3] for code in codes]
    if not isinstance(data, pd.Series):
        data = pd.Series(data)
    table = resolve(data)
    if len(table) == 0:
        where = f"column {data.name!r}" if data.name is not None else "the data"
        raise HierarchyError(f"hierarchy {name}: {where} has no value to build it from")
    if table.attrs["unmatched"]:
        raise _unmatched_error(table, data.name, name)
    return table.index, table["zip3"].tolist()


def _unmatched_error(table: pd.DataFrame, column: Hashable, name: str) -> HierarchyError:
    bad = table.loc[table.attrs["unmatched"]]
    kinds = bad["how"].value_counts()
    detail = ", ".join(f"{plural(int(n), 'value')}: {how}" for how, n in kinds.items())
    where = f" of column {column!r}" if column is not None else ""
    verb = "is not a US ZIP code" if len(bad) == 1 else "are not US ZIP codes"
    return HierarchyError(
        f"hierarchy {name}: {plural(len(bad), 'distinct value')}{where} "
        f"({plural(int(bad['rows'].sum()), 'row')}) {verb} ({detail}); a ZIP "
        f"code is five digits, a ZIP+4 or digits that lost their leading zeros, with a "
        f"prefix in use. The values are not shown: pandas_anon_us.resolve(column) lists each "
        f"with how it was read. Clean them, or set them to missing",
        unmatched=len(bad),
    )
