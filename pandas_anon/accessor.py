"""The ``df.anon`` accessor: a thin facade over the function API.

pandas creates a new accessor object on every ``df.anon`` access, so nothing is stored
here: each method forwards to the function of the same name with the frame as first
argument. The functions work without the accessor.

Importing this module registers the accessor and imports nothing of the library: each method
imports the module of its function when it is called, so that ``import pandas_anon`` stays
cheap.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from pandas_anon.anonymization.generalize import Rows
    from pandas_anon.anonymization.noise.planning import KEPlanning
    from pandas_anon.anonymization.recoding import HierarchyLike, SpecValue
    from pandas_anon.anonymization.reports import Report
    from pandas_anon.detect.figures import QID
    from pandas_anon.detect.results import BestQID, Risk, Singletons
    from pandas_anon.engine.weights import Weights
    from pandas_anon.studies.compare import Comparison
    from pandas_anon.studies.strategy import Study


class _Exposure:
    """What a frame of any engine (pandas, Dask) tells of its exposure and how it is
    anonymized: the methods both accessors share, each forwarding to its function."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def singletons(
        self, qid: QID, *, dropna: bool = True, weights: Weights | None = None
    ) -> Singletons:
        """Rows unique on ``qid`` (people, with the ``weights`` of an aggregated table); see
        :func:`pandas_anon.singletons`."""
        from pandas_anon.detect import figures as detect

        return detect.singletons(self._frame, qid, dropna=dropna, weights=weights)

    def identifiers(
        self, columns: QID | None = None, *, max_size: int = 1
    ) -> list[tuple[Hashable, ...]]:
        """Column sets whose values are all distinct; see :func:`pandas_anon.identifiers`."""
        from pandas_anon.detect import figures as detect

        return detect.identifiers(self._frame, columns, max_size=max_size)

    def best_qid(
        self,
        columns: QID | None = None,
        *,
        max_size: int | None = None,
        dropna: bool = True,
        exhaustive: bool = False,
        progress: bool | None = None,
        k: int = 2,
        weights: Weights | None = None,
    ) -> BestQID:
        """The smallest column subset exposing the most singletons; see
        :func:`pandas_anon.best_qid`."""
        from pandas_anon.detect import best_qid as election

        return election.best_qid(
            self._frame,
            columns,
            max_size=max_size,
            dropna=dropna,
            k=k,
            exhaustive=exhaustive,
            progress=progress,
            weights=weights,
        )

    def risk(self, qid: QID, *, dropna: bool = True, weights: Weights | None = None) -> Risk:
        """Risk figures of ``qid``; see :func:`pandas_anon.risk`."""
        from pandas_anon.detect import figures as detect

        return detect.risk(self._frame, qid, dropna=dropna, weights=weights)

    def generalize(
        self,
        spec: Mapping[Hashable, SpecValue],
        *,
        rows: Rows = "all",
        qid: Sequence[Hashable] | None = None,
    ) -> Any:
        """A new frame with the ``spec`` columns generalized; see
        :func:`pandas_anon.generalize`. Its change summary: ``out.anon.report()`` (on a
        Dask frame: a lazy Dask frame, its report computed)."""
        from pandas_anon.anonymization import generalize as generalization

        return generalization.generalize(self._frame, spec, rows=rows, qid=qid)

    def kanon(self, k: int, *, suppress: str = "mask", **options: Any) -> Any:
        """A k-anonymous copy of the frame; see :func:`pandas_anon.kanon` for the options
        (qid, hierarchies, algo, max_suppression, metric, l, t, sensitive).
        Its report: ``out.anon.report()`` (on a Dask frame: a lazy Dask frame, its report
        computed)."""
        from pandas_anon.anonymization import kanon as k_anonymity

        return k_anonymity.kanon(self._frame, k, suppress=suppress, **options)

    def ke_anon(self, k: int, eps: float, **options: Any) -> Any:
        """A (k, ε)-anonymous copy of the frame: the k-quasis k-anonymized, the numeric
        ε-quasis noised per class; see :func:`pandas_anon.ke_anon` for the options (qid,
        eps_quasi, algo, alpha, seed, secure, shuffle). Its report: ``out.anon.report()``
        (on a Dask frame: a lazy Dask frame, its report computed)."""
        from pandas_anon.anonymization.noise import ke

        return ke.ke_anon(self._frame, k, eps, **options)

    def report(self) -> Report:
        """The report this frame carries, if pandas-anon produced it
        (:mod:`pandas_anon.anonymization.reports`)."""
        from pandas_anon.anonymization.reports import report_of

        return report_of(self._frame)


@pd.api.extensions.register_dataframe_accessor("anon")
class AnonAccessor(_Exposure):
    """Re-identification risk of this DataFrame: ``df.anon.singletons(["year", "sex"])``."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def compare(self, k: int, **options: Any) -> Comparison:
        """Several anonymization methods side by side (global, Mondrian, local recoding by
        default); see :func:`pandas_anon.compare` for the options."""
        from pandas_anon.studies import compare

        return compare.compare(self._frame, k, **options)

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
        from pandas_anon.studies import strategy as strategy_study

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

    def reinforce(self, goal: Any, *, sensitive: Hashable, **options: Any) -> pd.DataFrame:
        """A copy meeting ``goal`` (``KAnonymity(k)``, ``LDiversity(l)``, ``TCloseness(t)``
        or a list of them) in which only the records at risk are masked: Lan et al.'s
        decision-tree privacy reinforcement; see :func:`pandas_anon.reinforce` for the
        options (qid, hierarchies, utility, max_depth). Its report: ``out.anon.report()``."""
        from pandas_anon.anonymization.reinforcement import reinforce

        return reinforce.reinforce(self._frame, goal, sensitive=sensitive, **options)

    def ke_plan(
        self, k_values: Iterable[int], eps_values: Iterable[float], **options: Any
    ) -> KEPlanning:
        """The predicted information loss, linking risk and α-confident suppression of
        (k, ε)-anonymity over a grid, before publishing; see :func:`pandas_anon.ke_plan`."""
        from pandas_anon.anonymization.noise import planning

        return planning.ke_plan(self._frame, k_values, eps_values, **options)


class DaskAnonAccessor(_Exposure):
    """Re-identification risk of this Dask DataFrame, counted where its partitions are, and
    its anonymization: ``ddf.anon.singletons(["year", "sex"])`` (figures computed, the row
    mask lazy), ``ddf.anon.kanon(5, qid=[...])`` (decided on the frequency set, written
    lazily partition by partition, the report computed); see
    :mod:`pandas_anon.engine.backends.dask`. Registered as ``.anon`` on Dask frames as soon
    as both pandas_anon and ``dask.dataframe`` are imported (:func:`register_dask`)."""


def register_dask() -> None:
    """Register :class:`DaskAnonAccessor` as ``.anon`` on Dask DataFrames."""
    from dask.dataframe.extensions import register_dataframe_accessor

    register_dataframe_accessor("anon")(DaskAnonAccessor)
