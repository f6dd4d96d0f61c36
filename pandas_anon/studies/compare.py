"""``pandas_anon.compare``: several anonymization methods on one table, side by side.

Each method is run by :func:`~pandas_anon.anonymization.kanon.kanon` with the same k,
quasi-identifier, hierarchies and options, and measured by the same utility module as every
method (:mod:`pandas_anon.anonymization.utility`): rows suppressed and modified, cells
modified, equivalence classes and the smallest, precision (where every column is written
along a hierarchy), discernibility (DM), C_avg, GCP, the share of quasi-identifier cells
unchanged, the query error (1- and 2-way counts), the largest prosecutor risk, and the time
it took; with a ``target``, the task utility of each release
(:mod:`pandas_anon.anonymization.task_utility`). So global recoding, Mondrian and local
recoding can be weighed on the table they are meant for.
"""

from __future__ import annotations

import dataclasses
import html
import time
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon import formatting
from pandas_anon.anonymization.kanon import anonymize
from pandas_anon.anonymization.task_utility import baseline, features_of, task_utility
from pandas_anon.engine.columns import resolve_columns
from pandas_anon.errors import InvalidParameterError
from pandas_anon.params import known_options

#: What :func:`compare` runs by default: global (optimal), Mondrian and local recoding.
DEFAULT_METHODS = ("ola", "mondrian", "local")


@dataclass(frozen=True, repr=False)
class Comparison:
    """Several anonymization methods measured side by side on one table.

    The table of :func:`compare`: one row per method, its columns the figures. Every method
    ran with the same ``k``, quasi-identifier and options and was measured by the same
    utility module (:mod:`pandas_anon.anonymization.utility`), so global recoding [1]_,
    Mondrian [2]_ and local recoding [3]_ can be weighed on the table they are meant for. The
    result prints as a table (figures to 4 decimals, ``-`` where a method has none) and
    converts with ``to_dict()`` for JSON (missing figures as None, not NaN).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per method, in the order given, indexed by the method's name, with the
        columns ``suppressed``, ``modified rows``, ``modified cells``, ``classes``,
        ``smallest class``, ``precision`` (NaN where a method has none), ``DM``, ``C_avg``,
        ``GCP``, ``unchanged`` (the share of quasi-identifier cells released as read),
        ``query error`` (the mean relative error of the 1- and 2-way count queries),
        ``risk max`` (the largest prosecutor risk) and ``seconds``; with a target, then
        ``accuracy``, ``accuracy original``, ``accuracy majority`` and ``margin kept``.
    k : int
        The smallest class size every method was asked for.
    qid : tuple of str
        The quasi-identifier every method used (given, or elected by the first method).
    reports : dict
        Each method's report (``out.anon.report()``), by its row's name: in zero
        configuration, ``exposure`` says whether its release passes the gate's rule.

    See Also
    --------
    pandas_anon.compare : The function that returns it.
    pandas_anon.kanon : One method, its output written.
    pandas_anon.study : The seed paper's comparison of generalization strategies.

    References
    ----------
    .. [1] K. El Emam, F. K. Dankar et al. (2009), "A Globally Optimal k-Anonymity Method
       for the De-Identification of Health Data", JAMIA.
    .. [2] K. LeFevre, D. J. DeWitt and R. Ramakrishnan (2006), "Mondrian Multidimensional
       k-Anonymity", ICDE 2006.
    .. [3] M. Pastore, M. A. Pellegrino and V. Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020, section 3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "age": [21, 21, 22, 22, 35, 36, 37, 38],
    ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
    ... })
    >>> decades = Hierarchy([21, 22, 35, 36, 37, 38], [["20-29"] * 2 + ["30-39"] * 4])
    >>> result = pandas_anon.compare(df, 2, qid=["age", "sex"], hierarchies={"age": decades})
    >>> result.k, result.qid, result.table.index.tolist()
    (2, ('age', 'sex'), ['ola', 'mondrian', 'local'])
    >>> result.table["modified rows"].tolist()
    [8, 4, 4]
    >>> result.to_dict()["table"][0]["method"]
    'ola'
    """

    table: pd.DataFrame = field(compare=False)
    k: int
    qid: tuple[str, ...]
    reports: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        table = self.table.reset_index(names="method").astype(object)
        return {
            "k": self.k,
            "qid": list(self.qid),
            # no figure is None, not NaN: the dict goes to JSON
            "table": table.where(table.notna(), None).to_dict(orient="records"),
        }

    def __repr__(self) -> str:
        return formatting.render(self._title(), [], ("", self._shown()))

    def _repr_html_(self) -> str:
        """The table as a notebook shows it: one row per method, figures as printed."""
        return f"<p>{html.escape(self._title())}</p>" + self._shown().to_html(index=False)

    def _title(self) -> str:
        return f"{self.k}-anonymity on {formatting.columns(self.qid)}: methods compared"

    def _shown(self) -> pd.DataFrame:
        """The table with its shares and rates to 4 decimals (``-`` where a method has none)."""
        shown = self.table.reset_index(names="method").astype(object)
        for column in (*_DECIMALS, *(c for c in _TASK if c in self.table)):
            shown[column] = [_number(v) for v in self.table[column]]
        return shown

    def plot(self, axes: Any = None) -> Any:
        """What each method keeps, side by side: the share of QID cells unchanged and, with
        a target, the classifier's accuracy on the release beside the original's and the
        majority class's; each method's query error is written beside its group. Needs
        matplotlib (``pip install 'pandas-anon[plot]'``). Draws on ``axes`` (default: new
        ones) and returns them.

        Examples
        --------
        >>> pandas_anon.compare(df, 5, sensitive="y", target="y").plot()  # doctest: +SKIP
        """
        from pandas_anon import plotting

        bars = {"QID cells unchanged": "unchanged"}
        if "accuracy" in self.table:
            bars.update(
                {
                    "accuracy (release)": "accuracy",
                    "accuracy (original)": "accuracy original",
                    "accuracy (majority class)": "accuracy majority",
                }
            )
        methods = [str(m) for m in self.table.index]
        ax = plotting.axes_for(axes, (7.2, 1.4 + 0.5 * len(methods) * len(bars)))
        height = 0.8 / len(bars)
        colours = [plotting.HIGHLIGHT, plotting.REST, "#bdc3c7", "#ecf0f1"]
        for j, (label, column) in enumerate(bars.items()):
            at = [i + (len(bars) - 1 - j) * height for i in range(len(methods))]
            drawn = ax.barh(at, self.table[column], height=height, label=label, color=colours[j])
            ax.bar_label(drawn, fmt="%.3f", padding=2, fontsize="small")
        middle = [i + 0.4 - height / 2 for i in range(len(methods))]
        ax.set_yticks(
            middle,
            [
                plotting.literal(f"{m}\nquery error {float(error):.3f}")
                for m, error in zip(methods, self.table["query error"])
            ],
        )
        ax.invert_yaxis()  # the first method at the top
        ax.set_xlim(0, 1.15)
        ax.set_xlabel("share")
        ax.legend(fontsize="small", loc="lower right")
        plotting.title(ax, self._title())
        return ax


#: The columns printed to 4 decimals (``-`` where a method has none), and the task's.
_DECIMALS = ("precision", "C_avg", "GCP", "unchanged", "query error", "risk max")
_TASK = ("accuracy", "accuracy original", "accuracy majority", "margin kept")


def _number(value: float) -> str:
    """A figure to 4 decimals; '-' where a method has none (precision without hierarchies)."""
    return "-" if pd.isna(value) else f"{value:.4f}"


def compare(
    frame: pd.DataFrame,
    k: int,
    *,
    methods: Sequence[Any] = DEFAULT_METHODS,
    qid: Sequence[Hashable] | None = None,
    target: Hashable | None = None,
    **options: Any,
) -> Comparison:
    """Run several anonymization methods on one table and measure each the same way.

    Run each of ``methods`` with the same ``k``, ``qid`` and ``options``, as
    :func:`~pandas_anon.anonymization.kanon.kanon` does, and measure each release with the
    same utility module (:mod:`pandas_anon.anonymization.utility`): rows suppressed and
    modified, cells modified, equivalence classes and the smallest, precision (where every
    column is written along a hierarchy), discernibility (DM) [4]_, C_avg [2]_, GCP [5]_,
    the share of quasi-identifier cells unchanged, the query error [2]_ [6]_, the largest
    prosecutor risk, and the time it took; with a ``target``, the task utility [7]_. So
    global recoding [1]_, Mondrian [2]_ and local recoding [3]_ can be weighed on the table
    they are meant for. The quasi-identifier is elected once (by the first method, when
    ``qid`` is None) and given to the others, with the hierarchies given for its columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to anonymize. It is not modified.
    k : int
        The smallest class size, for every method: a whole number of at least 1 and at most
        the number of rows.
    methods : sequence of str or Algorithm, default ("ola", "mondrian", "local")
        The methods, each once: registered names such as ``"ola"``, ``"mondrian"``,
        ``"local"``, or algorithm objects (a row of the result is named by the name given,
        or by the algorithm of an object).
    qid : sequence of hashable, optional
        The quasi-identifier columns. Default None: elected by the first method (zero
        configuration, as ``kanon`` elects it).
    target : hashable, optional
        A column to predict, outside the quasi-identifier (give it as ``sensitive``, or a
        ``qid`` without it): each release's task utility
        (:mod:`pandas_anon.anonymization.task_utility`: a logistic regression on the
        one-hot of the other released columns, 5-fold stratified cross-validation) is
        added to the table and to its report (``task``). Needs scikit-learn (the ``ml``
        extra). Default None: none.
    **options
        The other options, as :func:`~pandas_anon.anonymization.kanon.anonymize` takes them
        and the same for every method: ``hierarchies``, ``max_suppression``, ``metric``,
        ``l``, ``t``, ``sensitive``, ``identifiers``, ``progress``.

    Returns
    -------
    Comparison
        ``table``: one row per method, in the order given, with the columns
        ``suppressed``, ``modified rows``, ``modified cells``, ``classes``, ``smallest
        class``, ``precision`` (NaN where a method has none), ``DM``, ``C_avg``, ``GCP``,
        ``unchanged``, ``query error``, ``risk max`` and ``seconds``, then, with a
        ``target``, ``accuracy`` (the output's), ``accuracy original``, ``accuracy
        majority`` and ``margin kept``; ``k``; and ``qid``, the quasi-identifier every
        method used. ``to_dict()`` gives it for JSON.

    Raises
    ------
    InvalidParameterError
        When ``methods`` is a string or empty, or names a method twice (two objects of one
        algorithm included: compare those in two calls); and for every argument
        :func:`~pandas_anon.anonymization.kanon.anonymize` refuses (``k``, a method's name,
        ``max_suppression``, ``metric``, ``l``, ``t``, ``hierarchies``...); when
        ``target`` is in the quasi-identifier, or has fewer than two classes.
    InvalidQIDError, ColumnNotFoundError, DuplicateColumnsError
        When ``qid``, ``sensitive`` or ``target`` do not name columns of the frame once
        each.
    MissingDependencyError
        When ``target`` is given and scikit-learn is not installed.
    EmptyDataError, AllMissingColumnError, UnhashableValueError
        When the frame has nothing to anonymize, or a column read cannot tell rows apart.
    HierarchyError, UnknownNameError
        When a hierarchy given does not fit its column or is not registered.
    InfeasibleError
        When a method finds no transformation satisfying the privacy models within
        ``max_suppression``.

    Warns
    -----
    OneClassWarning, IdentifierWarning, HierarchyFallbackWarning
        As :func:`~pandas_anon.anonymization.kanon.anonymize` warns, for each method.

    See Also
    --------
    pandas_anon.kanon : One method, its output written.
    pandas_anon.anonymize : One method's decision.
    pandas_anon.study : The seed paper's comparison of generalization strategies.

    References
    ----------
    .. [1] K. El Emam, F. K. Dankar et al., "A Globally Optimal k-Anonymity Method for the
       De-Identification of Health Data", JAMIA, 2009.
    .. [2] K. LeFevre, D. J. DeWitt and R. Ramakrishnan, "Mondrian Multidimensional
       k-Anonymity", ICDE 2006.
    .. [3] M. Pastore, M. A. Pellegrino and V. Scarano, "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020, section 3.2.
    .. [4] R. J. Bayardo and R. Agrawal, "Data Privacy through Optimal k-Anonymization",
       ICDE 2005.
    .. [5] G. Ghinita, P. Karras, P. Kalnis and N. Mamoulis, "Fast Data Anonymization with
       Low Information Loss", VLDB 2007; on the NCP of J. Xu et al., "Utility-Based
       Anonymization Using Local Recoding", KDD 2006.
    .. [6] X. Xiao and Y. Tao, "Anatomy: Simple and Effective Privacy Preservation", VLDB
       2006, section 1 (count queries estimated with values uniform within a generalized
       value, as in [2]_'s experimental evaluation).
    .. [7] J. Eicher, R. Bild, H. Spengler, K. A. Kuhn and F. Prasser, "A Comprehensive
       Tool for Creating and Evaluating Privacy-Preserving Biomedical Prediction Models",
       BMC Medical Informatics and Decision Making 20, 2020, section "Methods".

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "age": [21, 21, 22, 22, 35, 36, 37, 38],
    ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
    ... })
    >>> decades = Hierarchy([21, 22, 35, 36, 37, 38], [["20-29"] * 2 + ["30-39"] * 4])
    >>> result = pandas_anon.compare(df, 2, qid=["age", "sex"], hierarchies={"age": decades})
    >>> result.table["modified rows"].to_dict()
    {'ola': 8, 'mondrian': 4, 'local': 4}
    >>> result.table["smallest class"].tolist()
    [2, 2, 2]
    """
    known_options(options, "compare", [anonymize], fixed=["qid", "algo"])
    if target is not None:
        resolve_columns(frame, [target])
    listed = [] if isinstance(methods, str) or not isinstance(methods, Iterable) else list(methods)
    if not listed:
        raise InvalidParameterError(
            f"methods must be a list of algorithms such as ['ola', 'mondrian', 'local'], "
            f"got {methods!r}"
        )
    rows: dict[str, dict[str, Any]] = {}
    reports: dict[str, Any] = {}
    known: tuple[float, float] | None = None  # the original's and the majority's accuracy
    chosen: list[Hashable] | None = list(qid) if qid is not None else None
    for method in listed:
        started = time.perf_counter()
        decided = anonymize(frame, k, qid=chosen, algo=method, **options)
        out = decided.apply(frame)
        seconds = time.perf_counter() - started
        report = out.anon.report()
        if chosen is None:  # elected once: the next methods get that quasi-identifier
            chosen = list(decided.qid)
            if options.get("hierarchies"):
                given = options["hierarchies"]
                options = {**options, "hierarchies": {c: given[c] for c in given if c in chosen}}
        name = method if isinstance(method, str) else report.algorithm
        if name in rows:
            raise InvalidParameterError(
                f"methods names {name!r} twice; give each method once (for two settings of "
                f"one algorithm, compare them in two calls)"
            )
        if target is not None:
            if target in decided.qid:
                raise InvalidParameterError(
                    f"target={target!r} is in the quasi-identifier of {name!r}: the task "
                    f"predicts it from the other released columns; give it as "
                    f"sensitive={target!r}, or a qid without it"
                )
            features = features_of(out, frame, target)
            known = baseline(frame, target, features) if known is None else known
            found = task_utility(frame, out, target, features=features, known=known)
            report = dataclasses.replace(report, task=found.to_dict())
        rows[name] = _figures(report, seconds)
        reports[name] = report
    return Comparison(
        table=pd.DataFrame.from_dict(rows, orient="index"),
        k=k,
        qid=tuple(str(c) for c in chosen or ()),
        reports=reports,
    )


def _figures(report: Any, seconds: float) -> dict:
    """One method's row: what it changed and what it kept."""
    metrics = report.metrics
    found = {
        "suppressed": report.suppressed,
        "modified rows": report.modified,
        "modified cells": sum(report.changed.values()),
        "classes": report.classes,
        "smallest class": report.k_reached,
        "precision": metrics.get("precision", np.nan),
        "DM": metrics["dm"],
        "C_avg": metrics["c_avg"],
        "GCP": metrics.get("gcp", np.nan),
        "unchanged": metrics["unchanged"],
        "query error": metrics["query_error"],
        "risk max": report.risk["prosecutor_max"],
        "seconds": round(seconds, 3),
    }
    if report.task is not None:
        task = report.task
        found.update(
            {
                "accuracy": task["output"],
                "accuracy original": task["original"],
                "accuracy majority": task["majority"],
                "margin kept": np.nan if task["margin_kept"] is None else task["margin_kept"],
            }
        )
    return found
