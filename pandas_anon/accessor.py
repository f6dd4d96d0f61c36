"""The ``df.anon`` accessor: a thin facade over the function API.

pandas creates a new accessor object on every ``df.anon`` access, so nothing is stored
here: each method forwards to the function of the same name with the frame as first
argument. The functions work without the accessor.
"""

from __future__ import annotations

from collections.abc import Hashable

import pandas as pd

from . import detect, election
from .detect import QID
from .results import BestQID, Risk, Singletons


@pd.api.extensions.register_dataframe_accessor("anon")
class AnonAccessor:
    """Re-identification risk of this DataFrame: ``df.anon.singletons(["year", "sex"])``."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def singletons(self, qid: QID, *, dropna: bool = True) -> Singletons:
        """Rows unique on ``qid``; see :func:`pandas_anon.singletons`."""
        return detect.singletons(self._frame, qid, dropna=dropna)

    def identifiers(self, columns: QID | None = None, *, max_size: int = 1) -> list[tuple[Hashable, ...]]:
        """Column sets whose values are all distinct; see :func:`pandas_anon.identifiers`."""
        return detect.identifiers(self._frame, columns, max_size=max_size)

    def best_qid(
        self, columns: QID | None = None, *, max_size: int | None = None, dropna: bool = True,
        exhaustive: bool = False, progress: bool | None = None,
    ) -> BestQID:
        """The smallest column subset exposing the most singletons; see
        :func:`pandas_anon.best_qid`."""
        return election.best_qid(
            self._frame, columns, max_size=max_size, dropna=dropna, exhaustive=exhaustive,
            progress=progress,
        )

    def risk(self, qid: QID, *, dropna: bool = True) -> Risk:
        """Risk figures of ``qid``; see :func:`pandas_anon.risk`."""
        return detect.risk(self._frame, qid, dropna=dropna)
