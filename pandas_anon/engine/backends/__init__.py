"""Backends: where a frequency set comes from and where rows are written back.

A backend turns a frame of its engine into a :class:`~pandas_anon.engine.frequency.FrequencySet`
(what every method reads) and keeps what it needs to map the frame's rows to combinations
again when an output is written. :mod:`~pandas_anon.engine.backends.pandas` serves pandas
frames; :mod:`~pandas_anon.engine.backends.dask` serves Dask frames with the same two steps
(tabulate partitions and add up their counts; map each partition's rows through the
combinations it holds). :func:`tabulate` picks the backend of a frame.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, Any

from pandas_anon.errors import InvalidParameterError, MissingDependencyError
from pandas_anon.params import flag

if TYPE_CHECKING:
    from pandas_anon.engine.backends.dask import DaskTabulation
    from pandas_anon.engine.backends.pandas import Tabulation
    from pandas_anon.engine.weights import Weights

#: How to install what Dask frames need.
DASK_EXTRA = 'pip install "pandas-anon[dask]"'
#: Why weights are refused on a Dask frame.
DASK_WEIGHTS = (
    "weights= (a count table) is not supported on a Dask frame yet: compute() it into "
    "pandas first, or leave weights out to count rows"
)


def is_dask(frame: object) -> bool:
    """Whether ``frame`` is a Dask DataFrame (told from its type, without importing Dask)."""
    return type(frame).__module__.partition(".")[0] in ("dask", "dask_expr")


def tabulate(
    frame: Any,
    columns: Iterable[Hashable] | Hashable,
    *,
    dropna: bool = False,
    weights: Weights | None = None,
) -> Tabulation | DaskTabulation:
    """The frequency set of ``columns`` of ``frame`` by the backend of its engine (pandas or
    Dask), and its map back to rows."""
    dropna = bool(flag(dropna, "dropna"))  # "no" is not False
    if not is_dask(frame):
        from pandas_anon.engine.backends import pandas as pandas_backend

        return pandas_backend.tabulate(frame, columns, dropna=dropna, weights=weights)
    if weights is not None:
        raise InvalidParameterError(DASK_WEIGHTS)
    return dask_backend().tabulate(frame, columns, dropna=dropna)


def dask_backend() -> Any:
    """The Dask backend module; :class:`MissingDependencyError` saying what to install when
    Dask's DataFrame is not."""
    try:
        from pandas_anon.engine.backends import dask as backend
    except ImportError as error:
        raise MissingDependencyError(
            f"Dask frames need dask[dataframe]: {DASK_EXTRA} ({error})"
        ) from None
    return backend
