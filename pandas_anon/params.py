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
- :func:`flag`: a switch (``dropna``, ``progress``): ``True`` or ``False`` (or ``None``
  where it means "decide for me"); ``"yes"`` and ``1`` are refused.
- :func:`from_text`: what a command-line option holds, as the number it spells (``"5"`` -> 5),
  before one of the parsers above reads it.
- :func:`frame`: the table a function reads: a pandas (or Dask) DataFrame, not a Series, a
  dict, an array or ``None``; the message says how to make one.
- :func:`known_options`: the keywords a function passes on (``kanon(df, 5, **options)``),
  each one the function receiving them takes.
- :func:`encoding`: the name of a text encoding Python knows (``"utf-8"``, ``"latin-1"``).
- :func:`output_file`: a path a file is written to: not a directory, in a folder that
  exists; :func:`writing` turns the errors of writing it into one naming it.

A parser returns the value in its plain form (``int``, ``float``), so that reports and
comparisons never meet a numpy scalar or a string.
"""

from __future__ import annotations

import codecs
import difflib
import inspect
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, TypeGuard

import numpy as np
import pandas as pd

from pandas_anon.errors import (
    IndexDataError,
    InvalidParameterError,
    NotAFrameError,
    OutputFileError,
)

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


def flag(value: object, name: str, *, optional: bool = False) -> bool | None:
    """``value`` when it is ``True`` or ``False`` (a numpy boolean as a ``bool``), or ``None``
    with ``optional`` (a switch whose default decides for the caller); else an
    InvalidParameterError naming ``name``. Text and numbers are refused: ``"no"`` and ``0``
    are not switches."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if optional and value is None:
        return None
    expected = "True, False or None" if optional else "True or False"
    raise _refused(name, expected, value, number=False)


#: How to build a pandas DataFrame from what is often passed instead of one.
_CONVERSIONS = {
    "Series": "series.to_frame()",
    "dict": "pd.DataFrame(mapping)",
    "list": "pd.DataFrame(rows, columns=[...])",
    "tuple": "pd.DataFrame(rows, columns=[...])",
    "ndarray": "pd.DataFrame(array, columns=[...])",
    "str": "pd.read_csv(path)",
    "Path": "pd.read_csv(path)",
    "PosixPath": "pd.read_csv(path)",
    "WindowsPath": "pd.read_csv(path)",
}


def is_frame(value: object) -> bool:
    """Whether ``value`` is a pandas DataFrame or a Dask DataFrame (told from its type,
    without importing Dask)."""
    kind = type(value)
    return isinstance(value, pd.DataFrame) or (
        kind.__name__ == "DataFrame" and kind.__module__.partition(".")[0] in ("dask", "dask_expr")
    )


def frame(value: Any, name: str = "frame") -> Any:
    """``value`` when it is a pandas or Dask DataFrame whose index only numbers its rows
    (:func:`index_numbers_rows`); a frame whose index holds data is an
    :class:`IndexDataError`, anything else a :class:`NotAFrameError` naming ``name``, what
    was passed and how to make a frame of it (``series.to_frame()``, ``pd.DataFrame(...)``,
    ``pd.read_csv(path)``, ``.to_pandas()``)."""
    if is_frame(value):
        index = value._meta.index if not isinstance(value, pd.DataFrame) else value.index
        if not index_numbers_rows(index):
            raise IndexDataError(
                f"the index of {name} holds data ({_index_kind(index)}); pandas-anon "
                f"examines columns only, and a release writes its index (to_csv does by "
                f"default), so it would be published unexamined: move it into the columns "
                f"with {name}.reset_index(), or drop it with {name}.reset_index(drop=True) "
                f"if it only numbers rows"
            )
        return value
    kind = type(value)
    if value is None:
        fix = "pass the table to examine"
    elif kind.__name__ in _CONVERSIONS:
        fix = f"make one first: {_CONVERSIONS[kind.__name__]}"
    elif hasattr(value, "to_pandas"):  # a polars frame, an Arrow table
        fix = "convert it first: .to_pandas()"
    else:
        fix = "make one first with pd.DataFrame(...)"
    package = kind.__module__.partition(".")[0]
    got = kind.__name__ if package == "builtins" else f"{package}.{kind.__name__}"
    got = "None" if value is None else got
    raise NotAFrameError(
        f"{name} must be a pandas DataFrame (or a Dask DataFrame), got {got}; {fix}"
    )


def index_numbers_rows(index: pd.Index) -> bool:
    """Whether ``index`` only numbers rows: one unnamed level of whole numbers, as pandas
    makes it (a ``RangeIndex``, or the numbers filtering, sampling, sorting or concatenating
    frames leave). The one rule of the index, for every function that reads or writes a
    frame, on either engine: any other index holds data (a name, several levels, text,
    dates, decimals), which a release would write. A RangeIndex is row numbers whatever its
    name (its labels are positions); an unnamed index of whole numbers holding identifiers
    is indistinguishable from row numbers, so name it or move it into the columns."""
    if isinstance(index, pd.RangeIndex):
        return True
    if index.nlevels != 1 or index.name is not None:
        return False
    return isinstance(index.dtype, np.dtype) and index.dtype.kind in "iu"


def _index_kind(index: pd.Index) -> str:
    """What an index holding data is, by its names and dtype (never its values)."""
    names = [n for n in index.names if n is not None]
    levels = f"{index.nlevels} levels" if index.nlevels > 1 else "one level"
    named = f", named {', '.join(repr(n) for n in names)}" if names else ", unnamed"
    dtypes = getattr(index, "dtypes", None)
    kinds = ", ".join(str(d) for d in dtypes) if dtypes is not None else str(index.dtype)
    return f"{levels}{named}, of {kinds}"


def known_options(
    options: Mapping[str, object],
    caller: str,
    receivers: Iterable[Callable],
    *,
    fixed: Iterable[str] = (),
) -> None:
    """Refuse a keyword in ``options`` (what ``caller`` takes as ``**options`` and passes on
    to ``receivers``) that no receiver takes by keyword, or that ``caller`` sets itself
    (``fixed``), with an InvalidParameterError naming it, the closest valid name and the
    valid ones, rather than Python's error naming an internal function."""
    settled = set(fixed)
    valid = [
        name
        for receiver in receivers
        for name, parameter in inspect.signature(receiver).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name not in settled
    ]
    for given in options:
        if given not in valid:
            close = difflib.get_close_matches(given, valid, n=1)
            fix = f"did you mean {close[0]}=? " if close else "remove it; "
            why = f"{caller}() sets it itself" if given in settled else "unknown option"
            raise InvalidParameterError(
                f"{caller}() got {given}=: {why}; {fix}valid options: {', '.join(valid)}"
            )


def encoding(value: object, name: str = "encoding") -> str:
    """``value`` when it names a text encoding Python knows (``"utf-8"``, ``"cp1252"``; not
    a binary codec such as ``"base64"``); else an InvalidParameterError naming ``name``."""
    if isinstance(value, str):
        try:
            if codecs.lookup(value)._is_text_encoding:
                return value
        except LookupError:
            pass
    raise _refused(name, "a text encoding such as 'utf-8' or 'latin-1'", value, number=False)


def output_file(path: object, name: str | None = None) -> str:
    """The file that writing to ``path`` replaces (a symbolic link's target), checked before
    any work is done: an InvalidParameterError when ``path`` is not a path, an
    :class:`OutputFileError` for a directory or a folder that does not exist. ``name``: the
    parameter holding ``path``, which the messages name (None: a file named on the command
    line, which they name alone)."""
    if not isinstance(path, (str, os.PathLike)):
        raise _refused(name or "path", "a file path (str or pathlib.Path)", path, number=False)
    target = os.path.realpath(path)
    shown = f"{name}={os.fspath(path)!r}" if name else os.fspath(path)
    if os.path.isdir(target):
        raise OutputFileError(f"{shown} is a directory; give the path of a file to write")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise OutputFileError(
            f"{shown} cannot be written: folder {folder} does not exist; create it or write "
            "elsewhere"
        )
    return target


@contextmanager
def writing(name: str) -> Iterator[None]:
    """Turn the errors of writing the file ``name`` into an OutputFileError naming it."""
    try:
        yield
    except IsADirectoryError:
        raise OutputFileError(f"{name} is a directory; give the path of a file to write") from None
    except PermissionError:
        raise OutputFileError(
            f"{name} cannot be written: permission denied; check the permissions of the file "
            "and its folder, or write elsewhere"
        ) from None
    except OSError as exc:
        raise OutputFileError(f"{name} cannot be written: {exc.strerror or exc}") from None
