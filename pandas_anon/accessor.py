"""The ``df.anon`` accessor: a thin facade over the function API.

pandas creates a new accessor object on every ``df.anon`` access, so nothing is stored
here: each method forwards to the function of the same name with the frame as first
argument. The functions work without the accessor.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import pandas as pd

from pandas_anon.anonymization import generalize as generalization
from pandas_anon.anonymization import kanon as k_anonymity
from pandas_anon.anonymization.generalize import Rows
from pandas_anon.anonymization.recoding import HierarchyLike, SpecValue
from pandas_anon.detect import best_qid as election
from pandas_anon.detect import figures as detect
from pandas_anon.detect.figures import QID
from pandas_anon.detect.results import (
    Anonymization,
    BestQID,
    Generalization,
    Risk,
    Singletons,
    report_of,
)
from pandas_anon.studies import strategy as strategy_study
from pandas_anon.studies.strategy import Study


@pd.api.extensions.register_dataframe_accessor("anon")
class AnonAccessor:
    """Re-identification risk of this DataFrame: ``df.anon.singletons(["year", "sex"])``."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def singletons(self, qid: QID, *, dropna: bool = True) -> Singletons:
        """Rows unique on ``qid``; see :func:`pandas_anon.singletons`."""
        return detect.singletons(self._frame, qid, dropna=dropna)

    def identifiers(
        self, columns: QID | None = None, *, max_size: int = 1
    ) -> list[tuple[Hashable, ...]]:
        """Column sets whose values are all distinct; see :func:`pandas_anon.identifiers`."""
        return detect.identifiers(self._frame, columns, max_size=max_size)

    def best_qid(
        self,
        columns: QID | None = None,
        *,
        max_size: int | None = None,
        dropna: bool = True,
        exhaustive: bool = False,
        progress: bool | None = None,
    ) -> BestQID:
        """The smallest column subset exposing the most singletons; see
        :func:`pandas_anon.best_qid`."""
        return election.best_qid(
            self._frame,
            columns,
            max_size=max_size,
            dropna=dropna,
            exhaustive=exhaustive,
            progress=progress,
        )

    def risk(self, qid: QID, *, dropna: bool = True) -> Risk:
        """Risk figures of ``qid``; see :func:`pandas_anon.risk`."""
        return detect.risk(self._frame, qid, dropna=dropna)

    def generalize(
        self,
        spec: Mapping[Hashable, SpecValue],
        *,
        rows: Rows = "all",
        qid: Sequence[Hashable] | None = None,
    ) -> pd.DataFrame:
        """A new frame with the ``spec`` columns generalized; see
        :func:`pandas_anon.generalize`. Its change summary: ``out.anon.report()``."""
        return generalization.generalize(self._frame, spec, rows=rows, qid=qid)

    def study(
        self,
        qid: Sequence[Hashable] | None = None,
        *,
        year: Hashable,
        sex: Hashable,
        place: Hashable,
        hierarchy: HierarchyLike | None = None,
        level: int = 1,
        year_groups: int = 4,
    ) -> Study:
        """The seed paper's comparison of generalization strategies; see
        :func:`pandas_anon.study`."""
        return strategy_study.study(
            self._frame,
            qid,
            year=year,
            sex=sex,
            place=place,
            hierarchy=hierarchy,
            level=level,
            year_groups=year_groups,
        )

    def kanon(self, k: int, *, suppress: str = "mask", **options) -> pd.DataFrame:
        """A k-anonymous copy of the frame; see :func:`pandas_anon.kanon` for the options
        (qid, hierarchies, algo, max_suppression, metric, l, t, sensitive).
        Its report: ``out.anon.report()``."""
        return k_anonymity.kanon(self._frame, k, suppress=suppress, **options)

    def report(self) -> Generalization | Anonymization:
        """The report this frame carries, if pandas-anon produced it."""
        return report_of(self._frame)
