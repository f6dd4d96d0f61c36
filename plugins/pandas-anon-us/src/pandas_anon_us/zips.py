"""Read US ZIP codes as real files write them, and the tables they are checked against.

A value is read as a ZIP code in one of these forms (surrounding spaces ignored):

- five digits, ``"02134"``;
- ZIP+4, ``"02134-1234"``, ``"02134 1234"`` or ``"021341234"``: the four extra digits are
  dropped;
- digits that lost their leading zeros on the way through a number (a spreadsheet, an integer
  column): ``2134``, ``"2134"``, ``2134.0``, ``"2134.0"`` and ZIP+4 ``21341234`` are restored
  to ``02134``. Up to five digits are a ZIP code, six to nine a ZIP+4, each padded with zeros
  on the left.

The result counts as a ZIP code only when its first three digits (the prefix, which the USPS
assigns to one sectional center) are one of the 933 prefixes in use (``data/zip3.csv``);
whether the whole five-digit code exists is not checked: ZIP codes are added and retired every
month, and old records keep retired ones. Anything else (letters, a blank string, a negative or
fractional number, ``True``, a prefix not in use such as ``000``) is not a ZIP code. Missing
values (``None``, ``NaN``, ``pd.NA``) stay missing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable
from functools import lru_cache
from importlib.resources import files
from numbers import Integral, Real

import numpy as np
import pandas as pd

__all__ = ["HOWS", "RESOLVED", "load_restricted", "load_zip3", "resolve", "zip5"]

#: Values of the ``how`` column of :func:`resolve`, read first.
HOWS = ("zip5", "zip+4", "leading zeros", "prefix not in use", "not a zip")
#: The ``how`` values of a value read as a ZIP code.
RESOLVED = ("zip5", "zip+4", "leading zeros")
#: Label of the Safe Harbor restricted prefixes (45 CFR 164.514(b)(2)(i)(B)).
RESTRICTED_LABEL = "000"

# digits only, as text or as a number written out ("2134.0")
_DIGITS = re.compile(r"([0-9]{1,9})(?:\.0*)?")
# ZIP+4 with a separator: "02134-1234", "02134 - 1234", "02134 1234" (or "2134-1234")
_SEPARATED = re.compile(r"([0-9]{1,5})(?:\s*-\s*|\s+)[0-9]{4}")
_LARGEST = 999_999_999  # nine digits, a ZIP+4 written as a number


def _read(name: str) -> pd.DataFrame:
    with (files(__package__) / "data" / name).open("rb") as fh:
        return pd.read_csv(fh, dtype=str, keep_default_na=False, encoding="utf-8")


@lru_cache(maxsize=1)
def _zip3() -> pd.DataFrame:
    return _read("zip3.csv")


@lru_cache(maxsize=1)
def _prefix_states() -> dict[str, str]:
    return dict(zip(_zip3()["zip3"], _zip3()["state"]))


def load_zip3() -> pd.DataFrame:
    """The ZIP prefixes in use and their states.

    Returns
    -------
    pandas.DataFrame
        One row per prefix (933), both columns text: ``zip3`` (three digits) and ``state``
        (the USPS two-letter code of the state, district, territory or military mail region
        of most of the prefix's ZIP codes: 50 states, ``DC``, ``PR``, ``VI``, ``GU``, and
        ``AA``, ``AE``, ``AP`` for APO/FPO/DPO mail). Provenance and licence: the package's
        ``NOTICE.md``.
    """
    return _zip3().copy()


@lru_cache(maxsize=1)
def _restricted() -> tuple[str, ...]:
    return tuple(_read("safe_harbor_restricted.csv")["zip3"])


def load_restricted() -> tuple[str, ...]:
    """The 17 ZIP prefixes HHS lists as restricted under HIPAA's Safe Harbor method.

    Returns
    -------
    tuple of str
        ``("036", "059", "063", "102", "203", "556", "692", "790", "821", "823", "830",
        "831", "878", "879", "884", "890", "893")``: the three-digit ZIP Code Tabulation
        Areas of 20,000 people or fewer in the 2000 Census, as listed by HHS's 2012 guidance
        on de-identification (see the package's ``NOTICE.md``).
    """
    return _restricted()


def _read_one(value: Hashable) -> tuple[str | None, str]:
    """The ZIP5 ``value`` stands for (``None`` if none) and how it was read (``HOWS``)."""
    if isinstance(value, (bool, np.bool_)):  # bool is a number to Python, not to a file
        return None, "not a zip"
    if isinstance(value, str):
        text = value.strip()
        if digits := _DIGITS.fullmatch(text):
            found, extended = digits.group(1), None
        elif separated := _SEPARATED.fullmatch(text):
            found, extended = separated.group(1), "zip+4"
        else:
            return None, "not a zip"
    elif isinstance(value, Integral):
        if not 0 <= int(value) <= _LARGEST:
            return None, "not a zip"
        found, extended = str(int(value)), None
    elif isinstance(value, Real) and math.isfinite(value) and float(value).is_integer():
        return _read_one(int(value))
    else:
        return None, "not a zip"
    if extended is None and len(found) > 5:  # a ZIP+4 without its separator
        extended, full = "zip+4", found.zfill(9)
        restored = len(found) < 9
        code = full[:5]
    else:
        restored = len(found) < 5
        code = found.zfill(5)
    if code[:3] not in _prefix_states():
        return None, "prefix not in use"
    return code, "leading zeros" if restored else (extended or "zip5")


def resolve(values: Iterable[Hashable] | pd.Series) -> pd.DataFrame:
    """How each distinct value of ``values`` reads as a US ZIP code.

    Parameters
    ----------
    values : pandas.Series or iterable
        A column of ZIP codes as written: text, integers, floats, categorical.

    Returns
    -------
    pandas.DataFrame
        One row per distinct non-missing value (index ``value``, in order of first
        appearance) with columns ``rows`` (how many times it occurs), ``zip5`` (the ZIP code,
        five digits), ``zip3`` (its prefix), ``state`` (the prefix's state),
        ``safe_harbor`` (the prefix, or ``"000"`` for a prefix HHS restricts) and ``how``,
        one of :data:`HOWS`: ``zip5``, ``zip+4``, ``leading zeros`` (restored), or, not read,
        ``prefix not in use`` and ``not a zip`` (the other columns then missing).
        ``attrs["unmatched"]`` lists the values not read, most rows first.

    Examples
    --------
    >>> resolve(["02134", 2134, "02134-1234", " 2134 ", "ABCDE"])["zip5"].tolist()
    ['02134', '02134', '02134', '02134', nan]
    """
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    states, restricted = _prefix_states(), set(_restricted())
    records: list[tuple[object, ...]] = []
    for value in uniques:
        code, how = _read_one(value)
        if code is None:
            records.append((np.nan, np.nan, np.nan, np.nan, how))
        else:
            prefix = code[:3]
            safe = RESTRICTED_LABEL if prefix in restricted else prefix
            records.append((code, prefix, states[prefix], safe, how))
    table = pd.DataFrame(
        records, columns=["zip5", "zip3", "state", "safe_harbor", "how"], dtype=object
    )
    table.insert(0, "rows", counts.astype(np.int64))
    table.index = pd.Index(uniques, name="value")
    bad = table[~table["how"].isin(RESOLVED)].sort_values("rows", ascending=False, kind="stable")
    table.attrs["unmatched"] = list(bad.index)
    return table


def zip5(values: pd.Series) -> pd.Series:
    """``values`` as five-digit ZIP codes: the column cleaned.

    Parameters
    ----------
    values : pandas.Series
        ZIP codes as written (see the module's rules: ZIP+4, lost leading zeros, spaces).

    Returns
    -------
    pandas.Series
        Same index and name, dtype ``object``: each value's ZIP code as five-digit text;
        missing where the value is missing or is not a ZIP code (:func:`resolve` says which
        and why).

    Examples
    --------
    >>> zip5(pd.Series([2134, 10001, None])).tolist()
    ['02134', '10001', nan]
    """
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    # one more slot, NaN, for the code -1 of missing values
    read = np.array([_read_one(value)[0] or np.nan for value in uniques] + [np.nan], dtype=object)
    return pd.Series(read[codes], index=values.index, name=values.name, dtype=object)
