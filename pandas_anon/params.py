"""Parsers of the arguments that the API, the configuration file, the pandera checks and the
command line share: one per kind of value, so that each takes the same forms and refuses the
same ones with the same :class:`~pandas_anon.errors.InvalidParameterError`, naming the
parameter, the value and the fix.

- :func:`whole`: a count or size (``k``, ``max_size``, ``min_rows``): an integer, Python or
  numpy. ``True`` is not 1 and ``"5"`` is not 5 (the message says ``pass k=5, not '5'``).
- :func:`real`: a number that may be fractional (entropy ``l``, recursive ``c``).
- :func:`fraction`: a share of the rows (``max_suppression``, ``t``, ``max_fraction``): a
  number from 0 to 1, or text in the forms the command line takes, ``"5%"`` or ``"0.05"``.
- :func:`one_of`: a name from a fixed list (``algo``, ``suppress``).
- :func:`from_text`: what a command-line option holds, as the number it spells (``"5"`` -> 5),
  before one of the parsers above reads it.

A parser returns the value in its plain form (``int``, ``float``), so that reports and
comparisons never meet a numpy scalar or a string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import TypeGuard

import numpy as np

from pandas_anon.errors import InvalidParameterError

#: A decimal number as written on a command line or in a configuration file.
_DECIMAL = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")


#: An integer or a floating-point number, Python's or numpy's (``bool`` is refused apart).
_Real = int | float | np.integer | np.floating


def is_whole(value: object, low: int) -> TypeGuard[int | np.integer]:
    """Whether ``value`` is an integer (Python or numpy, not a bool) of at least ``low``."""
    return (
        not isinstance(value, (bool, np.bool_))
        and isinstance(value, (int, np.integer))
        and bool(value >= low)
    )


def _is_real(value: object) -> TypeGuard[_Real]:
    """A finite int or float (Python or numpy), not a bool."""
    return (
        not isinstance(value, (bool, np.bool_))
        and isinstance(value, (int, float, np.integer, np.floating))
        and math.isfinite(value)
    )


def _refused(
    name: str, expected: str, value: object, *, spelled: object = None, number: bool = True
) -> Exception:
    """The error for ``value`` of ``name`` that is not ``expected``; ``spelled``: the
    acceptable number that text ``value`` spells, to suggest instead; ``number``: a number is
    expected (so a boolean is told it is not one)."""
    fix = ""
    if spelled is not None:
        fix = f"; pass {name}={spelled!r}, not {value!r}"
    elif number and isinstance(value, (bool, np.bool_)):
        fix = f" ({value} is not a number)"
    shown = value.item() if isinstance(value, np.generic) else value  # 0, not np.int64(0)
    return InvalidParameterError(f"{name} must be {expected}, got {shown!r}{fix}")


def whole(value: object, name: str, *, low: int = 1, example: int | None = None) -> int:
    """``value`` as an ``int`` when it is an integer (Python or numpy, not a bool, not text) of
    at least ``low``; else an InvalidParameterError naming ``name`` (``example``: a valid value
    the message suggests)."""
    if is_whole(value, low):
        return int(value)
    such_as = f" such as {example}" if example is not None else ""
    spelled = from_text(value) if isinstance(value, str) else None
    raise _refused(
        name,
        f"a whole number of at least {low}{such_as}",
        value,
        spelled=spelled if is_whole(spelled, low) else None,
    )


def real(
    value: object, name: str, *, low: float, above: bool = False, example: float | None = None
) -> float:
    """``value`` when it is a finite number (not a bool, not text) of at least ``low`` (above
    ``low`` with ``above``); else an InvalidParameterError naming ``name``."""

    def accepted(number: object) -> TypeGuard[_Real]:
        return _is_real(number) and bool(number > low if above else number >= low)

    if accepted(value):
        return value.item() if isinstance(value, np.generic) else value
    bound = f"{'above' if above else 'at least'} {low:g}"
    such_as = f" such as {example:g}" if example is not None else ""
    spelled = from_text(value) if isinstance(value, str) else None
    raise _refused(
        name,
        f"a finite number {bound}{such_as}",
        value,
        spelled=spelled if accepted(spelled) else None,
    )


def fraction(value: object, name: str) -> float:
    """``value`` as a ``float`` from 0 to 1: a number in that range, or text holding a
    percentage (``"5%"``) or a decimal (``"0.05"``); else an InvalidParameterError naming
    ``name``. Text is converted exactly (``"0.1%"`` is the float nearest 0.001). ``None``,
    booleans, NaN and anything out of range are refused."""
    share: Fraction | None = None
    if isinstance(value, str):
        text = value.strip()
        percent = text.endswith("%")
        number = text[:-1] if percent else text
        if _DECIMAL.fullmatch(number):
            share = Fraction(number.strip()) / (100 if percent else 1)
    elif _is_real(value):
        share = Fraction(value.item() if isinstance(value, np.generic) else value)
    if share is not None and 0 <= share <= 1:
        return float(share)
    raise _refused(name, "a fraction from 0 to 1 such as 0.05 or '5%'", value)


def one_of(value: object, name: str, choices: Iterable[str]) -> str:
    """``value`` when it is one of ``choices``; else an InvalidParameterError listing them."""
    valid = list(choices)
    if isinstance(value, str) and value in valid:
        return value
    listing = ", ".join(repr(c) for c in valid)
    raise _refused(name, f"one of {listing}", value, number=False)


def from_text(value: object) -> object:
    """Command-line text as the number it spells (``"5"`` -> 5, ``"2.5"`` -> 2.5); any other
    value (a percentage, a word, a number already) unchanged, for a parser to accept or
    refuse."""
    if isinstance(value, str):
        if _INTEGER.fullmatch(value):
            return int(value)
        if _DECIMAL.fullmatch(value):
            return float(value)
    return value
