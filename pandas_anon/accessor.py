"""The ``df.anon`` accessor: a thin facade over the function API.

pandas creates a new accessor object on every ``df.anon`` access, so nothing is stored
here: each method forwards to the function of the same name with the frame as first
argument. The functions work without the accessor.

Every method spells out the parameters of its function, with the same names, defaults and
types (none hides behind ``**options``: tests/test_accessor_signatures.py checks that a new
option of a function reaches its method), and passes them on by keyword. Arguments a method
does not take (a misspelt option) raise InvalidParameterError naming ``df.anon.<method>``
and the closest valid option, as the functions do.

Importing this module registers the accessor and imports nothing of the library: each method
imports the module of its function when it is called, so that ``import pandas_anon`` stays
cheap.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

if TYPE_CHECKING:
    from pathlib import Path

    from pandas_anon.anonymization.algorithms import Algorithm
    from pandas_anon.anonymization.generalize import Rows
    from pandas_anon.anonymization.noise.planning import KEPlanning
    from pandas_anon.anonymization.recoding import HierarchyLike, SpecValue
    from pandas_anon.anonymization.reinforcement.mates import Utility
    from pandas_anon.anonymization.reports import Report
    from pandas_anon.detect.figures import QID
    from pandas_anon.detect.individual import IndividualRisk, SamplingWeights
    from pandas_anon.detect.results import BestQID, Risk, Singletons
    from pandas_anon.detect.suda import Suda
    from pandas_anon.engine.weights import Weights
    from pandas_anon.privacy.models import LDiversity, PrivacyModel, TCloseness
    from pandas_anon.studies.attacks import Attacks
    from pandas_anon.studies.compare import Comparison
    from pandas_anon.studies.strategy import Study


_Class = TypeVar("_Class", bound=type)


def _arguments_checked(cls: _Class) -> _Class:
    """Wrap each public method of ``cls`` so that arguments its signature does not take (a
    misspelt option) raise our InvalidParameterError naming the method and the closest valid
    option, instead of Python's TypeError naming this module's private class."""
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(method):
            continue
        setattr(cls, name, _checked(method))
    return cls


def _checked(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method``, its arguments bound to its signature before it runs."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as exc:
            from pandas_anon import params
            from pandas_anon.errors import InvalidParameterError

            caller = f"df.anon.{method.__name__}"
            unknown = {k: v for k, v in kwargs.items() if k not in signature.parameters}
            params.known_options(unknown, caller, [method])
            raise InvalidParameterError(
                f"{caller}(): {exc}; see help({caller}) for its parameters"
            ) from None
        return method(self, *args, **kwargs)

    return call


@_arguments_checked
class _Exposure:
    """What a frame of any engine (pandas, Dask) tells of its exposure and how it is
    anonymized: the methods both accessors share, each forwarding to its function."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def singletons(
        self, qid: QID, *, dropna: bool = True, weights: Weights | None = None
    ) -> Singletons:
        """``DataFrame.anon.singletons``: the rows unique on ``qid``.

        Calls :func:`pandas_anon.singletons` with this frame (also ``ddf.anon.singletons``
        on a Dask frame); see it for the full details of each parameter.

        Parameters
        ----------
        qid : hashable or sequence of hashable
            The quasi-identifier columns.
        dropna : bool, default True
            Whether rows missing a value of ``qid`` are left out (False: missing is a value).
        weights : hashable or array-like, optional
            The people each row stands for (an aggregated table's count column).

        Returns
        -------
        Singletons
            The count of singletons, the row mask and the figures behind them.

        See Also
        --------
        pandas_anon.singletons : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"year": [1980, 1980, 1991, 1991], "sex": ["f", "m", "f", "f"]})
        >>> df.anon.singletons(["year", "sex"]).count
        2
        """
        from pandas_anon.detect import figures as detect

        return detect.singletons(self._frame, qid, dropna=dropna, weights=weights)

    def identifiers(
        self, columns: QID | None = None, *, max_size: int = 1
    ) -> list[tuple[Hashable, ...]]:
        """``DataFrame.anon.identifiers``: the column sets whose values are all distinct.

        Calls :func:`pandas_anon.identifiers` with this frame (also ``ddf.anon.identifiers``
        on a Dask frame); see it for the full details of each parameter.

        Parameters
        ----------
        columns : hashable or sequence of hashable, optional
            The columns to examine. Default None: every column.
        max_size : int, default 1
            The largest column set examined.

        Returns
        -------
        list of tuple
            The identifying column sets, smallest first.

        See Also
        --------
        pandas_anon.identifiers : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"id": [4, 3, 2, 1], "sex": ["f", "m", "f", "m"]})
        >>> df.anon.identifiers()
        [('id',)]
        """
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
        max_subsets: int | None = None,
    ) -> BestQID:
        """``DataFrame.anon.best_qid``: the smallest column subset exposing most singletons.

        Calls :func:`pandas_anon.best_qid` with this frame (also ``ddf.anon.best_qid`` on a
        Dask frame); see it for the full details of each parameter.

        Parameters
        ----------
        columns : hashable or sequence of hashable, optional
            The candidate columns. Default None: every column.
        max_size : int, optional
            The largest subset examined. Default None: chosen by the function.
        dropna : bool, default True
            Whether rows missing a value are left out of each subset's count.
        exhaustive : bool, default False
            Whether every subset is examined, instead of the pruned search.
        progress : bool, optional
            A progress bar on stderr. Default None: only when stderr is a terminal.
        k : int, default 2
            Subsets are ranked by the rows in classes of fewer than ``k`` rows.
        weights : hashable or array-like, optional
            The people each row stands for (an aggregated table's count column).
        max_subsets : int, optional
            The most column subsets examined. Default None: 1,000,000.

        Returns
        -------
        BestQID
            The elected columns, their singletons, the ties and the identifiers found.

        See Also
        --------
        pandas_anon.best_qid : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame(
        ...     {"year": [1980, 1980, 1991, 1991, 1975], "sex": ["f", "m", "f", "f", "m"]}
        ... )
        >>> df.anon.best_qid().columns
        ('year', 'sex')
        """
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
            max_subsets=max_subsets,
        )

    def risk(
        self,
        qid: QID,
        *,
        dropna: bool = True,
        weights: Weights | None = None,
        population: int | None = None,
        sampling_fraction: float | None = None,
    ) -> Risk:
        """``DataFrame.anon.risk``: the re-identification risk figures of ``qid``.

        Calls :func:`pandas_anon.risk` with this frame (also ``ddf.anon.risk`` on a Dask
        frame); see it for the full details of each parameter.

        Parameters
        ----------
        qid : hashable or sequence of hashable
            The quasi-identifier columns.
        dropna : bool, default True
            Whether rows missing a value of ``qid`` are left out (False: missing is a value).
        weights : hashable or array-like, optional
            The people each row stands for (an aggregated table's count column).
        population : int, optional
            The size of the population the frame was drawn from (not with
            ``sampling_fraction``).
        sampling_fraction : float, optional
            The frame's share of that population, in (0, 1] (not with ``population``).

        Returns
        -------
        Risk
            Sample uniques, classes, prosecutor risk and each column's contribution; with a
            population, the estimated population uniques (``population_uniques``, by a
            log-linear model, and ``population_uniques_by_model``, with ARX's models).

        See Also
        --------
        pandas_anon.risk : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"year": [1980, 1980, 1991, 1991], "sex": ["f", "m", "f", "f"]})
        >>> df.anon.risk(["year", "sex"]).sample_uniques
        2
        """
        from pandas_anon.detect import figures as detect

        return detect.risk(
            self._frame,
            qid,
            dropna=dropna,
            weights=weights,
            population=population,
            sampling_fraction=sampling_fraction,
        )

    def generalize(
        self,
        spec: Mapping[Hashable, SpecValue],
        *,
        rows: Rows = "all",
        qid: Sequence[Hashable] | None = None,
    ) -> Any:
        """``DataFrame.anon.generalize``: a copy with the ``spec`` columns generalized.

        Calls :func:`pandas_anon.generalize` with this frame (also ``ddf.anon.generalize``
        on a Dask frame: a lazy Dask frame, its report computed); see it for the full
        details of each parameter. The change summary: ``out.anon.report()``.

        Parameters
        ----------
        spec : mapping
            ``{column: hierarchy}`` or ``{column: (hierarchy, level)}``.
        rows : {"all", "singletons"} or boolean mask, default "all"
            The rows generalized: every row (global recoding) or some (local recoding).
        qid : sequence of hashable, optional
            The quasi-identifier whose singletons ``rows="singletons"`` generalizes.

        Returns
        -------
        pandas.DataFrame or dask.dataframe.DataFrame
            The generalized copy, its report attached.

        See Also
        --------
        pandas_anon.generalize : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> from pandas_anon.hierarchy import Hierarchy
        >>> df = pd.DataFrame({"town": ["Aosta", "Nus", "Ivrea"], "province": ["AO", "AO", "TO"]})
        >>> towns = Hierarchy.from_columns(df, ["town", "province"])
        >>> df.anon.generalize({"town": towns})["town"].tolist()
        ['AO', 'AO', 'TO']
        """
        from pandas_anon.anonymization import generalize as generalization

        return generalization.generalize(self._frame, spec, rows=rows, qid=qid)

    def kanon(
        self,
        k: int,
        *,
        suppress: str = "mask",
        salt: bytes | str | None = None,
        target: Hashable | None = None,
        qid: Sequence[Hashable] | None = None,
        hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
        algo: str | Algorithm | None = None,
        max_suppression: float | str = 0.0,
        metric: str | Callable = "precision",
        l: float | LDiversity | None = None,  # noqa: E741  (the model's name)
        t: float | str | TCloseness | None = None,
        sensitive: Hashable | None = None,
        identifiers: str = "drop",
        progress: bool | None = None,
    ) -> Any:
        """``DataFrame.anon.kanon``: a k-anonymous copy of the frame.

        Calls :func:`pandas_anon.kanon` with this frame (also ``ddf.anon.kanon`` on a Dask
        frame: a lazy Dask frame, its report computed); see it and
        :func:`pandas_anon.anonymize` for the full details of each parameter. The report:
        ``out.anon.report()``.

        Parameters
        ----------
        k : int
            The smallest class size.
        suppress : {"mask", "drop"}, default "mask"
            Whether suppressed rows keep their place (``*`` in every QID column) or are left
            out.
        salt : bytes or str, optional
            The key of ``identifiers="hash"``. Default None: a random one, never stored.
        target : hashable, optional
            A column to predict from the others: the report's ``task`` gives a classifier's
            accuracy on the release (details in :func:`pandas_anon.kanon`).
        qid, hierarchies, algo, max_suppression, metric, l, t, sensitive, identifiers, progress
            As :func:`pandas_anon.anonymize` takes them (details there).

        Returns
        -------
        pandas.DataFrame or dask.dataframe.DataFrame
            The k-anonymous copy, its report attached.

        See Also
        --------
        pandas_anon.kanon : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"age": [30, 30, 40, 40], "sex": ["F", "M", "F", "M"]})
        >>> out = df.anon.kanon(2, qid=["age", "sex"])
        >>> out["sex"].tolist(), out.anon.report().k_reached
        (['*', '*', '*', '*'], 2)
        """
        from pandas_anon.anonymization import kanon as k_anonymity

        return k_anonymity.kanon(
            self._frame,
            k,
            suppress=suppress,
            salt=salt,
            target=target,
            qid=qid,
            hierarchies=hierarchies,
            algo=algo,
            max_suppression=max_suppression,
            metric=metric,
            l=l,
            t=t,
            sensitive=sensitive,
            identifiers=identifiers,
            progress=progress,
        )

    def ke_anon(
        self,
        k: int,
        eps: float,
        *,
        alpha: float | str | None = None,
        seed: int | None = None,
        secure: bool = False,
        shuffle: bool = True,
        suppress: str = "mask",
        salt: bytes | str | None = None,
        qid: Sequence[Hashable] | None = None,
        eps_quasi: Sequence[Hashable] | None = None,
        bounds: Mapping[Hashable, tuple[float, float]] | None = None,
        algo: Any = "mondrian",
        hierarchies: Mapping[Any, Any] | None = None,
        max_suppression: float | str = 0.0,
        identifiers: str = "drop",
        progress: bool | None = None,
    ) -> Any:
        """``DataFrame.anon.ke_anon``: a (k, ε)-anonymous copy of the frame.

        The k-quasis are k-anonymized, the numeric ε-quasis noised per class. Calls
        :func:`pandas_anon.ke_anon` with this frame (also ``ddf.anon.ke_anon`` on a Dask
        frame: a lazy Dask frame, its report computed); see it and
        :func:`pandas_anon.ke_decide` for the full details of each parameter. The report:
        ``out.anon.report()``.

        Parameters
        ----------
        k : int
            The smallest class of the k-quasis.
        eps : float
            ε: a class's noise scale is its diameter over ε.
        alpha : float or str, optional
            α-confident k-anonymity's confidence. Default None: none.
        seed : int, optional
            Reproducible research noise. Default None: fresh entropy.
        secure : bool, default False
            OpenDP's floating-point-safe sampler, for a release.
        shuffle : bool, default True
            Whether to shuffle the rows and give them a new index.
        suppress : {"mask", "drop"}, default "mask"
            Whether suppressed rows stay in the output or are left out.
        salt : bytes or str, optional
            The key of ``identifiers="hash"``. Default None: a random one, never stored.
        qid, eps_quasi, algo, hierarchies, max_suppression, identifiers, progress
            As :func:`pandas_anon.ke_decide` takes them (details there).
        bounds : mapping, optional
            ``{column: (low, high)}``: the domain an ε-quasi's released values are clamped
            into. Default None: its observed range widened to a coarse grid (details in
            :func:`pandas_anon.ke_decide`).

        Returns
        -------
        pandas.DataFrame or dask.dataframe.DataFrame
            The release, its report attached.

        See Also
        --------
        pandas_anon.ke_anon : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({
        ...     "sex": ["F", "F", "F", "M", "M", "M"],
        ...     "height": [160.0, 165.0, 170.0, 175.0, 180.0, 185.0],
        ... })
        >>> out = df.anon.ke_anon(3, 1.0, qid=["sex", "height"], seed=0)
        >>> sorted(out["sex"]), out.anon.report().classes
        (['F', 'F', 'F', 'M', 'M', 'M'], 2)
        """
        from pandas_anon.anonymization.noise import ke

        return ke.ke_anon(
            self._frame,
            k,
            eps,
            alpha=alpha,
            seed=seed,
            secure=secure,
            shuffle=shuffle,
            suppress=suppress,
            salt=salt,
            qid=qid,
            eps_quasi=eps_quasi,
            bounds=bounds,
            algo=algo,
            hierarchies=hierarchies,
            max_suppression=max_suppression,
            identifiers=identifiers,
            progress=progress,
        )

    def report(self) -> Report:
        """``DataFrame.anon.report``: the report this frame carries, if pandas-anon made it.

        Calls :func:`pandas_anon.anonymization.reports.report_of` with this frame (also
        ``ddf.anon.report`` on a Dask frame); see it for the full details.

        Returns
        -------
        Report
            The report of the call that produced this frame (``kanon``, ``ke_anon``,
            ``generalize``, ``reinforce``...).

        See Also
        --------
        pandas_anon.anonymization.reports.report_of : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"age": [30, 30, 40, 40], "sex": ["F", "M", "F", "M"]})
        >>> report = df.anon.kanon(2, qid=["age", "sex"]).anon.report()
        >>> report.levels, report.suppressed
        ({'age': 0, 'sex': 1}, 0)
        """
        from pandas_anon.anonymization.reports import report_of

        return report_of(self._frame)


@pd.api.extensions.register_dataframe_accessor("anon")
@_arguments_checked
class AnonAccessor(_Exposure):
    """Re-identification risk of this DataFrame: ``df.anon.singletons(["year", "sex"])``."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def intervals(
        self,
        columns: Hashable | Sequence[Hashable] | None = None,
        *,
        form: str = "interval",
    ) -> pd.DataFrame:
        """``DataFrame.anon.intervals``: this release's range labels as typed intervals.

        Calls :func:`pandas_anon.intervals` with this frame (a release, or its file read
        back); see it for the labels it reads and the exact bounds.

        Parameters
        ----------
        columns : hashable or sequence of hashable, optional
            The columns to convert. Default None: every column holding a range label whose
            every other cell reads as a number or a date.
        form : {"interval", "bounds"}, default "interval"
            Interval columns closed on both sides, or ``<column>_low`` and
            ``<column>_high`` columns of inclusive bounds.

        Returns
        -------
        pandas.DataFrame
            A new frame; suppressed cells, missing values and ranges also covering missing
            values have no bounds.

        See Also
        --------
        pandas_anon.intervals : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> released = pd.DataFrame({"age": ["[30-39]", "41", "[40, 50)"]})
        >>> released.anon.intervals(form="bounds")
           age_low  age_high
        0       30        39
        1       41        41
        2       40        49
        """
        from pandas_anon.anonymization.intervals import intervals

        return intervals(self._frame, columns, form=form)

    def individual_risk(
        self,
        qid: QID,
        *,
        weights: SamplingWeights | None = None,
        sampling_fraction: float | None = None,
        threshold: float = 0.1,
        dropna: bool = True,
    ) -> IndividualRisk:
        """``DataFrame.anon.individual_risk``: each record's re-identification risk under a
        sampling design (Benedetti and Franconi, as sdcMicro's ``measure_risk``).

        Calls :func:`pandas_anon.individual_risk` with this frame; see it for the details of
        each parameter.

        Parameters
        ----------
        qid : hashable or sequence of hashable
            The quasi-identifier columns.
        weights : hashable or array-like, optional
            Each record's sampling weight, at least 1 (a column label or one per row; not
            with ``sampling_fraction``).
        sampling_fraction : float, optional
            The share of the population drawn, in (0, 1]: every weight is its inverse (not
            with ``weights``).
        threshold : float, default 0.1
            Count the records whose risk is above this.
        dropna : bool, default True
            Whether records missing a ``qid`` value are left out (False: missing is a value).

        Returns
        -------
        IndividualRisk
            ``risk`` per record (a Series aligned to the frame), ``expected_reidentifications``
            (their sum), ``global_risk``, ``max_risk`` and ``above_threshold``.

        See Also
        --------
        pandas_anon.individual_risk : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"year": [1980, 1980, 1991], "sex": ["f", "f", "m"]})
        >>> df.anon.individual_risk(["year", "sex"], sampling_fraction=0.5).risk.round(4).tolist()
        [0.3069, 0.3069, 0.6931]
        """
        from pandas_anon.detect.individual import individual_risk

        return individual_risk(
            self._frame,
            qid,
            weights=weights,
            sampling_fraction=sampling_fraction,
            threshold=threshold,
            dropna=dropna,
        )

    def suda(
        self, qid: QID, *, max_size: int | None = None, sampling_fraction: float = 0.01
    ) -> Suda:
        """``DataFrame.anon.suda``: each record's minimal sample uniques, SUDA and DIS scores
        (Elliot et al. 2002; SUDA2; as sdcMicro's ``suda2``).

        Calls :func:`pandas_anon.suda` with this frame; see it for the details of each
        parameter.

        Parameters
        ----------
        qid : hashable or sequence of hashable
            The quasi-identifier columns.
        max_size : int, optional
            The largest minimal sample unique searched, in columns (default: every column).
        sampling_fraction : float, default 0.01
            The fraction of the population the frame holds, for the DIS score.

        Returns
        -------
        Suda
            ``score`` and ``dis_score`` per record, ``msu_counts`` (MSUs by size per record),
            ``msus_by_size`` and ``column_contributions``.

        See Also
        --------
        pandas_anon.suda : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
        >>> df.anon.suda(["a", "b", "c"]).score.tolist()
        [2.0, 4.0, 2.0]
        """
        from pandas_anon.detect.suda import suda

        return suda(self._frame, qid, max_size=max_size, sampling_fraction=sampling_fraction)

    def report_html(
        self,
        path: str | Path | None = None,
        *,
        qid: Sequence[Hashable] | None = None,
        k: int = 5,
        max_size: int = 3,
        title: str = "the table",
        target: Hashable | None = None,
        population: int | None = None,
        sampling_fraction: float | None = None,
        attacks: bool = False,
    ) -> str:
        """``DataFrame.anon.report_html``: the frame's risk report as one HTML page.

        Calls :func:`pandas_anon.report_html` with this frame: a summary, the direct
        identifiers, the election of the quasi-identifier, its class sizes, what
        k-anonymizing it costs by method and the suggested next step, figures embedded, no
        request to the network, counts and column names only.

        Parameters
        ----------
        path : str or Path, optional
            Where to write the page. Default None: only returned.
        qid, k, max_size, title, target, population, sampling_fraction, attacks
            As :func:`pandas_anon.risk_report` takes them (details there; ``target``: a
            column to predict, each fix then measured by its task utility too;
            ``population`` or ``sampling_fraction``: the frame is a sample, and the summary
            adds its estimated population uniques; ``attacks``: WP29's three risks by
            attack, of the table and of each fix).

        Returns
        -------
        str
            The page.

        See Also
        --------
        pandas_anon.report_html : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({"year": [1980, 1980, 1991, 1975], "sex": ["f", "f", "m", "f"]})
        >>> "<h2>Next step</h2>" in df.anon.report_html(qid=["year", "sex"], k=2)
        True
        """
        from pandas_anon.studies import handover

        return handover.report_html(
            self._frame,
            path,
            qid=qid,
            k=k,
            max_size=max_size,
            title=title,
            target=target,
            population=population,
            sampling_fraction=sampling_fraction,
            attacks=attacks,
        )

    def compare(
        self,
        k: int,
        *,
        methods: Sequence[Any] = ("ola", "mondrian", "local"),
        qid: Sequence[Hashable] | None = None,
        target: Hashable | None = None,
        hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
        max_suppression: float | str = 0.0,
        metric: str | Callable = "precision",
        l: float | LDiversity | None = None,  # noqa: E741  (the model's name)
        t: float | str | TCloseness | None = None,
        sensitive: Hashable | None = None,
        identifiers: str = "drop",
        progress: bool | None = None,
    ) -> Comparison:
        """``DataFrame.anon.compare``: several anonymization methods side by side.

        Calls :func:`pandas_anon.compare` with this frame; see it and
        :func:`pandas_anon.anonymize` for the full details of each parameter.

        Parameters
        ----------
        k : int
            The smallest class size, for every method.
        methods : sequence of str or Algorithm, default ("ola", "mondrian", "local")
            The methods, each once.
        qid : sequence of hashable, optional
            The quasi-identifier columns. Default None: elected by the first method.
        target : hashable, optional
            A column outside the quasi-identifier to predict: each release's task utility
            (a classifier's accuracy against the original's and the majority class's;
            needs scikit-learn, the ``ml`` extra). Default None: none.
        hierarchies, max_suppression, metric, l, t, sensitive, identifiers, progress
            As :func:`pandas_anon.anonymize` takes them (details there).

        Returns
        -------
        Comparison
            ``table``: one row per method with the same utility and risk figures.

        See Also
        --------
        pandas_anon.compare : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({
        ...     "age": [21, 21, 22, 22, 35, 36, 37, 38],
        ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
        ... })
        >>> df.anon.compare(2, qid=["age", "sex"]).table["smallest class"].to_dict()
        {'ola': 4, 'mondrian': 2, 'local': 2}
        """
        from pandas_anon.studies import compare

        return compare.compare(
            self._frame,
            k,
            methods=methods,
            qid=qid,
            target=target,
            hierarchies=hierarchies,
            max_suppression=max_suppression,
            metric=metric,
            l=l,
            t=t,
            sensitive=sensitive,
            identifiers=identifiers,
            progress=progress,
        )

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
        """``DataFrame.anon.study``: the seed paper's comparison of generalization strategies.

        Calls :func:`pandas_anon.study` with this frame; see it for the full details of each
        parameter.

        Parameters
        ----------
        qid : sequence of hashable, optional
            The quasi-identifier. Default None: ``[year, place, sex]``.
        year : hashable
            The year-of-birth column.
        sex : hashable
            The sex column.
        place : hashable
            The place column.
        hierarchy : Hierarchy, str or callable, optional
            The hierarchy of ``place``. Default None: the registered one claiming it.
        level : int, default 1
            The level places are raised to.
        year_groups : int, default 4
            How many years a range groups, and how many runs the average cuts.

        Returns
        -------
        Study
            One row per strategy (singletons, rows modified, combinations) and the best.

        See Also
        --------
        pandas_anon.study : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> from pandas_anon.hierarchy import Hierarchy
        >>> df = pd.DataFrame({
        ...     "year": [1950, 1950, 1960, 1960, 1970, 1970, 1980, 1980],
        ...     "town": ["Aosta", "Aosta", "Aosta", "Nus", "Fenis", "Aosta", "Ivrea", "Turin"],
        ...     "province": ["AO", "AO", "AO", "AO", "AO", "AO", "TO", "TO"],
        ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
        ... })
        >>> towns = Hierarchy.from_columns(df, ["town", "province"])
        >>> df.anon.study(year="year", sex="sex", place="town", hierarchy=towns).best
        'S, M_loc'
        """
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

    def reinforce(
        self,
        goal: PrivacyModel | Sequence[PrivacyModel],
        *,
        sensitive: Hashable,
        qid: Sequence[Hashable] | None = None,
        hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
        utility: Utility | None = None,
        max_depth: int | None = None,
        max_suppression: float | str = 0.0,
        suppress: str = "mask",
        salt: bytes | str | None = None,
        target: Hashable | None = None,
        metric: str | Callable = "precision",
        identifiers: str = "drop",
        progress: bool | None = None,
    ) -> pd.DataFrame:
        """``DataFrame.anon.reinforce``: a copy meeting ``goal``, only the records at risk masked.

        Lan et al.'s decision-tree privacy reinforcement. Calls :func:`pandas_anon.reinforce`
        with this frame; see it and :func:`pandas_anon.kanon` for the full details of each
        parameter. The report: ``out.anon.report()``.

        Parameters
        ----------
        goal : PrivacyModel or sequence of PrivacyModel
            ``KAnonymity(k)``, ``LDiversity(l)``, ``TCloseness(t)``, or a list of them.
        sensitive : hashable
            The sensitive column: the decision trees' label.
        qid : sequence of hashable, optional
            The quasi-identifier. Default None: every released column, as ``kanon`` protects
            them.
        hierarchies : mapping, optional
            Per column, a hierarchy to mask it along.
        utility : callable, optional
            The utility of a mate. Default None: Lan et al.'s.
        max_depth : int, optional
            The deepest the decision trees grow. Default None: no limit.
        max_suppression : float or str, default 0.0
            The share of rows that may be suppressed instead of masked.
        suppress, salt, target, metric, identifiers, progress
            As :func:`pandas_anon.kanon` takes them (details there).

        Returns
        -------
        pandas.DataFrame
            The reinforced copy, its report attached.

        See Also
        --------
        pandas_anon.reinforce : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({
        ...     "sex": ["F", "F", "M", "M", "F", "M"],
        ...     "age": [30, 31, 30, 31, 50, 50],
        ...     "disease": ["flu", "cold", "flu", "cold", "flu", "cold"],
        ... })
        >>> out = df.anon.reinforce(
        ...     pandas_anon.LDiversity(2), sensitive="disease", qid=["sex", "age"]
        ... )
        >>> out["sex"].tolist()
        ['*', 'F', 'M', 'M', 'F', '*']
        """
        from pandas_anon.anonymization.reinforcement import reinforce

        return reinforce.reinforce(
            self._frame,
            goal,
            sensitive=sensitive,
            qid=qid,
            hierarchies=hierarchies,
            utility=utility,
            max_depth=max_depth,
            max_suppression=max_suppression,
            suppress=suppress,
            salt=salt,
            target=target,
            metric=metric,
            identifiers=identifiers,
            progress=progress,
        )

    def ke_plan(
        self,
        k_values: Iterable[int],
        eps_values: Iterable[float],
        *,
        alpha: float | str = 0.99,
        runs: int = 5,
        seed: int = 0,
        progress: bool | None = None,
        qid: Sequence[Hashable] | None = None,
        eps_quasi: Sequence[Hashable] | None = None,
        bounds: Mapping[Hashable, tuple[float, float]] | None = None,
        algo: Any = "mondrian",
        hierarchies: Mapping[Any, Any] | None = None,
        max_suppression: float | str = 0.0,
        identifiers: str = "drop",
    ) -> KEPlanning:
        """``DataFrame.anon.ke_plan``: what (k, ε)-anonymity would cost and risk, over a grid.

        The predicted information loss, linking risk and α-confident suppression, before
        publishing. Calls :func:`pandas_anon.ke_plan` with this frame; see it and
        :func:`pandas_anon.ke_decide` for the full details of each parameter.

        Parameters
        ----------
        k_values : iterable of int
            The k of the grid.
        eps_values : iterable of float
            The ε of the grid.
        alpha : float or str, default 0.99
            The confidence of the α-confident k-anonymity estimated.
        runs : int, default 5
            The noise draws per pair for the estimates.
        seed : int, default 0
            Where the draws come from.
        progress : bool, optional
            A progress bar on stderr. Default None: only when stderr is a terminal.
        qid, eps_quasi, bounds, algo, hierarchies, max_suppression, identifiers
            As :func:`pandas_anon.ke_decide` takes them (details there).

        Returns
        -------
        KEPlanning
            ``table``: one row per (k, ε) with its figures; ``smallest_eps``, ``plot``.

        See Also
        --------
        pandas_anon.ke_plan : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> df = pd.DataFrame({
        ...     "sex": ["F", "F", "F", "M", "M", "M"],
        ...     "height": [160.0, 165.0, 170.0, 175.0, 180.0, 185.0],
        ... })
        >>> df.anon.ke_plan([2, 3], [1, 10], qid=["sex", "height"]).smallest_eps(max_loss=0.05)
        {2: 10.0, 3: 10.0}
        """
        from pandas_anon.anonymization.noise import planning

        return planning.ke_plan(
            self._frame,
            k_values,
            eps_values,
            alpha=alpha,
            runs=runs,
            seed=seed,
            progress=progress,
            qid=qid,
            eps_quasi=eps_quasi,
            bounds=bounds,
            algo=algo,
            hierarchies=hierarchies,
            max_suppression=max_suppression,
            identifiers=identifiers,
        )

    def attacks(
        self,
        released: pd.DataFrame,
        *,
        control: pd.DataFrame,
        columns: Sequence[Hashable] | None = None,
        secret: Hashable | None = None,
        link_columns: tuple[Sequence[Hashable], Sequence[Hashable]] | None = None,
        n_attacks: int = 500,
        mode: str = "multivariate",
        n_cols: int = 3,
        max_attempts: int | None = 100_000,
        n_neighbors: int = 1,
        regression: bool = False,
        confidence_level: float = 0.95,
        seed: int | None = 0,
    ) -> Attacks:
        """``DataFrame.anon.attacks``: WP29's three risks of a release of this frame,
        measured by attacking it (Giomi et al. 2023, as anonymeter 1.1.0 runs them).

        This frame is the original the release was made from. Calls
        :func:`pandas_anon.attacks`; see it for the details of each parameter.

        Parameters
        ----------
        released : pandas.DataFrame
            The release, as published.
        control : pandas.DataFrame
            Records of the same population held back from the release (index labels not
            this frame's).
        columns : sequence of hashable, optional
            The columns the attacks read. Default: the release's columns.
        secret : hashable, optional
            The column the inference attacker guesses. Default None: no inference attack.
        link_columns : pair of sequences of hashable, optional
            The linkability attacker's two tables. Default: ``columns`` (less ``secret``)
            cut in two halves.
        n_attacks : int, default 500
            The attacks of each kind.
        mode : {"multivariate", "univariate"}, default "multivariate"
            The singling-out attack's predicates.
        n_cols : int, default 3
            The attributes of a multivariate predicate.
        max_attempts : int or None, default 100000
            The multivariate predicates formed at most; None: no limit.
        n_neighbors : int, default 1
            Linkability: the nearest release records the two halves may share.
        regression : bool, default False
            Inference: right within 5 % of a numeric secret rather than equal.
        confidence_level : float, default 0.95
            The confidence of the intervals.
        seed : int or None, default 0
            The random draws' seed: the same seed, the same figures.

        Returns
        -------
        Attacks
            ``singling_out``, ``linkability``, ``inference``: each risk, its interval, the
            attack's, the baseline's and the control's success rates.

        See Also
        --------
        pandas_anon.attacks : The function this method calls.

        Examples
        --------
        >>> import pandas as pd
        >>> import pandas_anon
        >>> people = pd.DataFrame({"age": list(range(20, 80)) * 5, "sex": ["F", "M", "M"] * 100})
        >>> original, control = people.iloc[:200], people.iloc[200:]
        >>> everyone = original.assign(age="*", sex="*")
        >>> result = original.anon.attacks(everyone, control=control, n_attacks=50, n_cols=2)
        >>> result.singling_out.risk
        0.0
        """
        from pandas_anon.studies.attacks import attacks

        return attacks(
            self._frame,
            released,
            control=control,
            columns=columns,
            secret=secret,
            link_columns=link_columns,
            n_attacks=n_attacks,
            mode=mode,
            n_cols=n_cols,
            max_attempts=max_attempts,
            n_neighbors=n_neighbors,
            regression=regression,
            confidence_level=confidence_level,
            seed=seed,
        )


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
