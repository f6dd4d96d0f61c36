"""One exception hierarchy for every failure pandas-anon reports.

Every error derives from :class:`AnonError`, so ``except pandas_anon.AnonError`` catches them
all, and also from the closest built-in type (``ValueError``, ``KeyError``, ``TypeError``), so
code written against plain pandas keeps working. Messages name the column (or file) and say
how to fix the input. They never quote cell values of quasi-identifier columns: an error
message can end up in a public CI log, and the values of a risky row are exactly what must not.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from types import FrameType


class AnonError(Exception):
    """Base class of every error raised by pandas-anon."""


class ColumnNotFoundError(AnonError, KeyError):
    """A requested column is not in the frame."""

    def __init__(self, missing: Iterable[object], available: Iterable[object]) -> None:
        self.missing = list(missing)
        self.available = list(available)
        names = ", ".join(repr(c) for c in self.missing)
        listing = ", ".join(repr(c) for c in self.available) or "(none)"
        super().__init__(
            f"column{'s' if len(self.missing) > 1 else ''} {names} not found; "
            f"available columns: {listing}"
        )

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0])


class InvalidParameterError(AnonError, ValueError):
    """An argument other than the data is out of range (``max_size=0``)."""


class InvalidQIDError(InvalidParameterError):
    """The quasi-identifier (or column set) asked for is malformed: empty, repeated names."""


class NotAFrameError(AnonError, TypeError):
    """The table passed is not a DataFrame (``None``, a Series, a dict, an array, a path);
    the message says how to make one."""


class DuplicateColumnsError(AnonError, ValueError):
    """The frame has several columns with the same name, so a name does not pick one column."""


class IndexDataError(AnonError, ValueError):
    """The frame's index holds data (named levels, a MultiIndex, text, dates or decimals):
    pandas-anon examines columns, while a release writes its index (``to_csv`` does by
    default), so such an index would be published unexamined. Move it into the columns with
    ``df.reset_index()``, or drop it with ``df.reset_index(drop=True)``."""


class EmptyDataError(AnonError, ValueError):
    """There are no rows to examine (empty frame, or every row incomplete)."""


class AllMissingColumnError(AnonError, ValueError):
    """A quasi-identifier column holds only missing values."""


class UnhashableValueError(AnonError, TypeError):
    """A column holds values (lists, dicts, sets) that cannot be compared for equality."""


class InfeasibleError(AnonError, ValueError):
    """No transformation satisfies the privacy constraints within the suppression limit."""


class HierarchyError(AnonError, ValueError):
    """A generalization hierarchy is malformed or does not cover the data.

    ``unmatched``: how many distinct values of the column the hierarchy does not cover, when
    that is the problem (``None`` otherwise). A hierarchy the user named may list those values
    in the message (the user asked for it on that column); a warning about a hierarchy chosen
    by zero configuration gives only the count."""

    def __init__(self, message: str, *, unmatched: int | None = None) -> None:
        super().__init__(message)
        self.unmatched = unmatched


class InputFileError(AnonError):
    """A file given on the command line cannot be read as a delimited text table."""


class OutputFileError(AnonError):
    """A file named on the command line cannot be written: it is the input (without
    ``--force``), a directory, in a folder that does not exist, or not writable."""


class ConfigError(AnonError, ValueError):
    """A configuration file (``[tool.pandas_anon]`` in pyproject.toml, or .pandas-anon.toml)
    is malformed: bad TOML, an unknown key, or a value of the wrong kind."""


class LimitExceededError(AnonError, RuntimeError):
    """Work or input would go past a documented limit (the zero-configuration election's
    budget of column subsets); the message says how to continue: the option that raises the
    limit, or a way around it (naming the quasi-identifier)."""


class MissingDependencyError(AnonError, ImportError):
    """A feature needs an optional dependency that is not installed; the message names the
    extra to install (``pip install 'pandas-anon[dp]'``)."""


class UnknownNameError(AnonError, KeyError):
    """A name looked up in a fixed catalogue (a dataset, a hierarchy attribute) is not in it."""

    def __init__(self, name: object, valid: Iterable[object], *, kind: str = "name") -> None:
        self.name = name
        self.valid = list(valid)
        listing = ", ".join(repr(v) for v in self.valid) or "(none)"
        super().__init__(f"unknown {kind} {name!r}; valid {kind}s: {listing}")

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0])


class AnonWarning(UserWarning):
    """Base class of the warnings pandas-anon emits."""


class IncompleteRowsWarning(AnonWarning):
    """Most rows were left out because they miss a value in an examined column."""


class OneClassWarning(AnonWarning):
    """An anonymization made every kept row alike on the quasi-identifier: one class."""


class IdentifierWarning(AnonWarning):
    """Direct identifier columns (unique on nearly every row) are released as asked
    (``identifiers="keep"``)."""


class HierarchyFallbackWarning(AnonWarning):
    """A registered hierarchy claiming a column could not cover it, so zero configuration
    generalized the column with a hierarchy built from its data instead."""


class CopiesWarning(AnonWarning):
    """Every record of a table checked appears ``m`` times (the table written ``m`` times
    over): the gate judges it as one copy."""


class UtilityWarning(AnonWarning):
    """A release is predicted to keep little of a column: the expected error of its values
    exceeds a documented threshold; the message names the setting that would bring it under
    (never a value of the data)."""


def warn(message: str, category: type[AnonWarning]) -> None:
    """Emit a warning attributed to the first caller outside pandas-anon (as pandas does)."""
    package = os.path.dirname(__file__)
    frame: FrameType | None = sys._getframe(1)
    level = 2  # level 1 would be this function
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


@contextlib.contextmanager
def capture_warnings(on_ours: Callable[[warnings.WarningMessage], None]) -> Iterator[None]:
    """Hand each pandas-anon warning raised in the block to ``on_ours`` (even when the block
    then fails); pass other libraries' warnings on unchanged."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AnonWarning)
            yield
    finally:
        for w in caught:
            if issubclass(w.category, AnonWarning):
                on_ours(w)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
